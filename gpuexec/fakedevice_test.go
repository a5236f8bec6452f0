package gpuexec

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

func TestFakeRoundTrips(t *testing.T) {
	d, f := newFakeDevice(t, Options{SlabSize: 1 << 20})
	runRoundTrips(t, d, []int{0, 1, 7, 8, 9, 100, 1000, 40000}, 7)
	if f.launches["gsql_copy_bits"] == 0 || f.launches["gsql_rebase_offsets"] == 0 {
		t.Fatalf("kernels not used: %v", f.launches)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if f.hostLive != 0 || f.streams != 0 {
		t.Fatalf("leaked %d host buffers, %d streams", f.hostLive, f.streams)
	}
}

func TestFakeRoundTripsNoPool(t *testing.T) {
	d, _ := newFakeDevice(t, Options{NoPool: true})
	defer d.Close()
	runRoundTrips(t, d, []int{0, 33, 513}, 8)
}

// TestFakePipelinedDownload forces downloads through many staging pieces
// (odd piece sizes, so the last piece is short) and through the pageable
// fallback when the staging limit is below two pieces.
func TestFakePipelinedDownload(t *testing.T) {
	defer func(c int) { downloadChunk = c }(downloadChunk)
	downloadChunk = 1000
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	runRoundTrips(t, d, []int{1, 999, 40000}, 9)
	small, _ := newFakeDevice(t, Options{StagingLimit: 1500})
	defer small.Close()
	runRoundTrips(t, small, []int{5, 40000}, 10)
}

func TestFakeErrors(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	runErrorCases(t, d)
	requireNoLeak(t, d, "errors")
}

func TestFakeCompileCache(t *testing.T) {
	dir := t.TempDir()
	d, f := newFakeDevice(t, Options{CacheDir: dir})
	defer d.Close()
	runCompileCache(t, d, func() *Device {
		d2, _ := newFakeDevice(t, Options{CacheDir: dir})
		return d2
	})
	if f.compiles != 2 { // probe.cu once, bad.cu once
		t.Fatalf("%d compilations", f.compiles)
	}
	// A corrupt cache entry is replaced by a fresh compilation.
	files, _ := filepath.Glob(filepath.Join(dir, "*.cubin"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	os.WriteFile(files[0], []byte("junk"), 0o644)
	d3, f3 := newFakeDevice(t, Options{CacheDir: dir})
	defer d3.Close()
	m, err := d3.Compile(Source{Name: "probe.cu", Code: `extern "C" __global__ void probe_add(long long* x, long long n) { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] += i; }`})
	if err != nil || m.FromCache != "" || f3.compiles != 1 {
		t.Fatalf("after corruption: %v, from %q, %d compiles", err, m.FromCache, f3.compiles)
	}
}

func TestStreamsEvents(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := d.NewEvent()
	b, _ := d.NewEvent()
	a.Record(s)
	b.Record(s)
	if err := b.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if el, err := a.Elapsed(b); err != nil || el <= 0 {
		t.Fatalf("elapsed %v %v", el, err)
	}
	a.Close()
	b.Close()
	s.Close()
	if err := d.DefaultStream().Close(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("closing the default stream: %v", err)
	}
	d.Close()
	if len(f.events) != 0 || f.streams != 0 {
		t.Fatalf("leaked events %d streams %d", len(f.events), f.streams)
	}
	if _, err := d.Alloc(10); !errors.Is(err, ErrClosed) {
		t.Fatalf("alloc after close: %v", err)
	}
}

func TestTableCache(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(3))
	tables := map[string]*coldata.Batch{}
	for _, name := range []string{"a", "b", "c"} {
		tables[name] = randBatch(r, 2000)
	}
	loads := 0
	load := func(name string) func() ([]*coldata.Batch, error) {
		return func() ([]*coldata.Batch, error) { loads++; return []*coldata.Batch{tables[name]}, nil }
	}
	probe, _ := d.Upload(ctx, tables["a"])
	one := probe.Bytes()
	probe.Release()
	c := NewTableCache(d, 2*one+one/2) // room for two tables
	get := func(name string, v uint64) {
		t.Helper()
		bs, err := c.Get(ctx, name, v, load(name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Download(ctx, bs[0])
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, tables[name], got, "cache "+name)
		releaseAll(bs)
	}
	get("a", 1)
	get("a", 1)
	if loads != 1 {
		t.Fatalf("%d loads, want 1", loads)
	}
	get("b", 1)
	get("a", 1) // a is now most recent
	get("c", 1) // evicts b
	st := c.Stats()
	if st.Tables != 2 || st.Evictions != 1 || st.Hits != 2 {
		t.Fatalf("stats %+v", st)
	}
	get("a", 1)
	if loads != 3 {
		t.Fatalf("%d loads, want 3", loads)
	}
	get("a", 2) // new version replaces the old
	c.Invalidate("c")
	// A handle held across eviction stays valid.
	held, err := c.Get(ctx, "a", 2, load("a"))
	if err != nil {
		t.Fatal(err)
	}
	c.Clear()
	got, err := d.Download(ctx, held[0])
	if err != nil {
		t.Fatal(err)
	}
	requireEqualBatch(t, tables["a"], got, "held")
	releaseAll(held)
	// A table over the whole budget is returned but not kept.
	tiny := NewTableCache(d, 10)
	bs, err := tiny.Get(ctx, "a", 1, load("a"))
	if err != nil || tiny.Stats().Tables != 0 {
		t.Fatalf("over budget: %v %+v", err, tiny.Stats())
	}
	releaseAll(bs)
	requireNoLeak(t, d, "cache")
}

func TestSplitDoesNotCopy(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	hb := randBatch(rand.New(rand.NewSource(4)), 100)
	db, err := d.Upload(context.Background(), hb)
	if err != nil {
		t.Fatal(err)
	}
	before := d.Stats().Memory.Allocs
	views, err := Split(db, []int{10, 13, 13, 99})
	if err != nil {
		t.Fatal(err)
	}
	if d.Stats().Memory.Allocs != before || len(views) != 5 {
		t.Fatalf("split allocated or gave %d views", len(views))
	}
	// Views keep the memory alive after the parent is released.
	db.Release()
	if d.Stats().Memory.InUse == 0 {
		t.Fatal("parent memory freed under live views")
	}
	releaseAll(views)
	requireNoLeak(t, d, "views")
}

func TestFakeCompileLinked(t *testing.T) {
	dir := t.TempDir()
	d, f := newFakeDevice(t, Options{CacheDir: dir})
	defer d.Close()
	parts := []Source{
		{Name: "main.cu", Code: `extern "C" __device__ long long part_add(long long); extern "C" __global__ void k_main(long long* x) { x[0] = part_add(x[0]); }`},
		{Name: "p1.cu", Code: `extern "C" __device__ long long part_add(long long v) { return v + 1; }`, Options: []string{"--maxrregcount=128"}},
	}
	m, err := d.CompileLinked("linked", parts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Kernel("k_main"); err != nil {
		t.Fatalf("the linked module lacks the main part's kernel: %v", err)
	}
	if f.compiles != 2 {
		t.Fatalf("%d compiles, want one per part", f.compiles)
	}
	for _, o := range f.opts {
		if len(o) == 0 || o[0] != "--relocatable-device-code=true" {
			t.Fatalf("a part compiled without relocatable device code: %v", o)
		}
	}
	// Memory, then disk, then a change of one part compiles again.
	if m2, err := d.CompileLinked("linked", parts); err != nil || m2.FromCache != "memory" {
		t.Fatalf("second compile: %v from %q", err, m2.FromCache)
	}
	d2, f2 := newFakeDevice(t, Options{CacheDir: dir})
	defer d2.Close()
	if m3, err := d2.CompileLinked("linked", parts); err != nil || m3.FromCache != "disk" || f2.compiles != 0 {
		t.Fatalf("fresh device: %v from %q after %d compiles", err, m3.FromCache, f2.compiles)
	}
	parts[1].Code += "\n// changed\n"
	if m4, err := d2.CompileLinked("linked", parts); err != nil || m4.FromCache != "" || f2.compiles != 2 {
		t.Fatalf("changed part: %v from %q after %d compiles", err, m4.FromCache, f2.compiles)
	}
	// A part that fails to compile fails the whole, naming the part.
	bad := append([]Source(nil), parts...)
	bad[1] = Source{Name: "broken.cu", Code: "#error no"}
	if _, err := d2.CompileLinked("linked", bad); err == nil || !strings.Contains(err.Error(), "broken.cu") {
		t.Fatalf("broken part: %v", err)
	}
}

func TestFakeTimer(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	tm, err := d.StartTimer()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 2 {
		t.Fatalf("%d events after StartTimer, want 2", len(f.events))
	}
	if _, err := tm.Stop(); err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 0 {
		t.Fatalf("%d events left after Stop", len(f.events))
	}
}

// A compile a query waits on does not queue behind the pool's background
// compiles (CompileFusedNow).
func TestFakeCompileNowSkipsThePool(t *testing.T) {
	d, f := newFakeDevice(t, Options{CacheDir: t.TempDir()})
	defer d.Close()
	f.mu.Lock()
	f.hold = make(chan struct{})
	f.mu.Unlock()
	kernel := func(name string, hold bool) Source {
		code := fmt.Sprintf(`extern "C" __global__ void %s(long long* x) { x[0] = 1; }`, name)
		if hold {
			code += "\n// hold\n"
		}
		return Source{Name: name + ".cu", Code: code}
	}
	var queued []*Pending
	for i := 0; i < compileWorkers()+2; i++ {
		queued = append(queued, d.CompileAsync(kernel(fmt.Sprintf("bg%d", i), true)))
	}
	now := d.compileNow(kernel("urgent", false))
	select {
	case <-now.done:
		if now.err != nil {
			t.Fatal(now.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the urgent compile waited for the pool")
	}
	for _, p := range queued {
		if p.Ready() {
			t.Fatal("a held background compile finished")
		}
	}
	close(f.hold)
	for _, p := range queued {
		<-p.done
	}
}
