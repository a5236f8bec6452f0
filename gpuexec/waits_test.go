package gpuexec

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitFields parses Waits.String: each kind's count and time.
var waitFields = regexp.MustCompile(`(context_thread|compile|pool_memory)=(-?\d+)/(\S+)`)

func checkWaitsLine(t *testing.T, w *Waits) map[string]int64 {
	t.Helper()
	line := w.String()
	if !strings.HasPrefix(line, "gpu waits: ") {
		t.Fatalf("line %q", line)
	}
	got := map[string]int64{}
	for _, m := range waitFields.FindAllStringSubmatch(line, -1) {
		var n int64
		for _, c := range m[2] {
			n = 10*n + int64(c-'0')
		}
		d, err := time.ParseDuration(m[3])
		if strings.HasPrefix(m[2], "-") || err != nil || d < 0 {
			t.Fatalf("field %s in %q: count %s, time %s (%v)", m[1], line, m[2], m[3], err)
		}
		got[m[1]] = n
	}
	if len(got) != 3 {
		t.Fatalf("fields missing in %q", line)
	}
	return got
}

// A query's handle counts its trips to the context thread (and how long
// another user's work kept it waiting), its compiles, and nothing for
// memory while there is enough.
func TestWaitsThreadAndCompile(t *testing.T) {
	fr := newFakeRegistry()
	opts := Options{CacheDir: t.TempDir(), SlabSize: 1 << 20}
	a, _ := fr.open(opts)
	defer a.Close()
	b, _ := fr.open(opts)
	defer b.Close()
	w := &Waits{}
	q := a.ForQuery(w)
	if got := checkWaitsLine(t, w); got["context_thread"] != 0 || got["compile"] != 0 || got["pool_memory"] != 0 {
		t.Fatalf("fresh waits %v", got)
	}
	// Another database's work holds the thread for 30 ms.
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.Do(func() error {
			close(started)
			time.Sleep(30 * time.Millisecond)
			return nil
		})
	}()
	<-started
	buf, err := q.Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	buf.Release()
	if w.Thread.Count() < 1 || w.Thread.Total() < 20*time.Millisecond {
		t.Fatalf("thread waits %s after another's 30 ms on the thread", &w.Thread)
	}
	if _, err := q.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
		t.Fatal(err)
	}
	if w.Compile.Count() != 1 {
		t.Fatalf("compile waits %s", &w.Compile)
	}
	// A memory-cache hit is no wait; the database's own handle counts
	// nothing.
	if _, err := q.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Alloc(8); err != nil {
		t.Fatal(err)
	}
	if w.Compile.Count() != 1 {
		t.Fatalf("compile waits %s after a memory hit", &w.Compile)
	}
	q.NoteCompileWait(5 * time.Millisecond)
	got := checkWaitsLine(t, w)
	if got["compile"] != 2 || got["pool_memory"] != 0 {
		t.Fatalf("waits %v", got)
	}
	if err := q.Close(); err != nil || a.isClosed() {
		t.Fatal("closing a query's handle closed the database's")
	}
}

// An allocation that fails because another database holds the shared
// pool's memory waits for a free (counted), or gives up once its query
// has waited MemoryWait in all: a later allocation of that query fails
// at once.
func TestWaitsPoolMemory(t *testing.T) {
	defer func(w time.Duration) { MemoryWait = w }(MemoryWait)
	fr := newFakeRegistry()
	fr.capacity = 4 << 20
	opts := Options{CacheDir: t.TempDir(), SlabSize: 1 << 20}
	a, _ := fr.open(opts)
	defer a.Close()
	b, _ := fr.open(opts)
	defer b.Close()
	cache := NewTableCache(a, 1<<20)
	other, err := b.Alloc(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	w := &Waits{}
	ctx := WithWaits(context.Background(), w)
	alloc := func() error {
		buf, err := a.Alloc(2 << 20)
		if err == nil {
			buf.Release()
		}
		return err
	}
	MemoryWait = 5 * time.Second
	go func() {
		time.Sleep(50 * time.Millisecond)
		other.Release()
	}()
	start := time.Now()
	if err := cache.RetryOOM(ctx, alloc); err != nil {
		t.Fatalf("after the other database freed: %v", err)
	}
	if took := time.Since(start); took < 40*time.Millisecond || w.Memory.Count() != 1 || w.Memory.Total() < 40*time.Millisecond {
		t.Fatalf("took %s, memory waits %s", took, &w.Memory)
	}
	// Nobody frees: the wait is bounded and the error still says OOM.
	other, err = b.Alloc(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	MemoryWait = 60 * time.Millisecond
	w = &Waits{} // another query
	ctx = WithWaits(context.Background(), w)
	start = time.Now()
	err = cache.RetryOOM(ctx, alloc)
	if !IsOutOfMemory(err) || !strings.Contains(err.Error(), "waited") || w.Memory.Count() != 1 || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("bounded wait: %v after %s, waits %s", err, time.Since(start), &w.Memory)
	}
	// The bound is the query's: its next allocation waits no more.
	err = cache.RetryOOM(ctx, alloc)
	if !IsOutOfMemory(err) || !strings.Contains(err.Error(), "already waited") || w.Memory.Count() != 1 {
		t.Fatalf("after the query's bound: %v, waits %s", err, &w.Memory)
	}
	// A cancelled query stops waiting with its context's error.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	MemoryWait = time.Hour
	if err := cache.RetryOOM(cctx, alloc); err != context.DeadlineExceeded {
		t.Fatalf("cancelled wait: %v", err)
	}
	// The database's own quota is not waited for.
	w = &Waits{}
	ctx = WithWaits(context.Background(), w)
	q, _ := fr.open(Options{CacheDir: opts.CacheDir, SlabSize: 1 << 20, PoolLimit: 1 << 20})
	defer q.Close()
	qc := NewTableCache(q, 1<<20)
	n := w.Memory.Count()
	err = qc.RetryOOM(ctx, func() error { _, err := q.Alloc(2 << 20); return err })
	if !IsOutOfMemory(err) || w.Memory.Count() != n {
		t.Fatalf("quota: %v, waits %s", err, &w.Memory)
	}
	checkWaitsLine(t, w)
}

// Every query's waits also add to the totals they are linked to, once,
// and the snapshot reads counts and times.
func TestWaitsAddToTotals(t *testing.T) {
	var totals Waits
	a, b := &Waits{}, &Waits{}
	a.link(&totals)
	a.link(&totals) // linking twice must not count twice
	b.link(&totals)
	a.Thread.add(2 * time.Millisecond)
	a.Compile.add(5 * time.Millisecond)
	b.Thread.add(3 * time.Millisecond)
	b.Memory.add(time.Millisecond)
	got := totals.Snapshot()
	want := WaitTotals{ThreadWaits: 2, CompileWaits: 1, MemoryWaits: 1,
		Thread: 5 * time.Millisecond, Compile: 5 * time.Millisecond, Memory: time.Millisecond}
	if got != want {
		t.Fatalf("totals %+v, want %+v", got, want)
	}
	if s := a.Snapshot(); s.ThreadWaits != 1 || s.Thread != 2*time.Millisecond {
		t.Fatalf("query's own %+v", s)
	}
	var nilWaits *Waits
	nilWaits.link(&totals) // a handle without a query: nothing to link
}
