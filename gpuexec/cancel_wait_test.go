package gpuexec

import (
	"context"
	"math/rand"
	"testing"
	"time"
)

// pinnedLive counts the page-locked host buffers a fake device's driver
// holds, read on its context thread.
func pinnedLive(t *testing.T, d *Device, drv *threadedDriver) int {
	t.Helper()
	var n int
	if err := d.Do(func() error { n = drv.hostLive; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFakeSharedCancelledMemoryWait: one database holds most of a shared
// device's memory; a query of a second one, holding an uploaded batch and
// a result download in flight (pinned result memory), waits for memory
// another database holds. Cancelling its context ends the wait at once
// (far under MemoryWait) with context.Canceled, and once the query
// unwinds (as its operators' Close does) its device buffers, quota bytes
// and pinned memory are all back, and no waiter is left registered.
func TestFakeSharedCancelledMemoryWait(t *testing.T) {
	defer func(w time.Duration) { MemoryWait = w }(MemoryWait)
	MemoryWait = time.Minute
	fr := newFakeRegistry()
	fr.capacity = 8 << 20
	opts := Options{CacheDir: t.TempDir(), SlabSize: 1 << 20}
	a, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	bopts := opts
	bopts.PoolLimit = 7 << 20 // a quota the wait is not about
	b, err := fr.open(bopts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	drivers := fr.drivers()
	if len(drivers) != 1 {
		t.Fatalf("%d device states for one GPU", len(drivers))
	}
	drv := drivers[0]
	cache := NewTableCache(b, 1<<20)
	rng := rand.New(rand.NewSource(9))

	// A first query warms the staging buffer and the result pool, which
	// stay with the device.
	warm, err := b.Upload(context.Background(), randBatch(rng, 1000))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := b.StartResult(context.Background(), warm)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := rc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	hb.ReleaseOwner()
	pinned, poolBefore := pinnedLive(t, b, drv), b.Stats().Memory.InUse
	if b.InUse() != 0 || poolBefore != 0 {
		t.Fatalf("after the warm-up: %d bytes held, pool %d", b.InUse(), poolBefore)
	}

	held, err := a.Alloc(5 << 20)
	if err != nil {
		t.Fatal(err)
	}
	poolHeld := b.Stats().Memory.InUse

	w := &Waits{}
	q := b.ForQuery(w)
	ctx, cancel := context.WithCancel(WithWaits(context.Background(), w))
	defer cancel()
	in, err := q.Upload(ctx, randBatch(rng, 1000))
	if err != nil {
		t.Fatal(err)
	}
	out, err := q.Upload(ctx, randBatch(rng, 1000))
	if err != nil {
		t.Fatal(err)
	}
	inflight, err := q.StartResult(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if b.InUse() == 0 || b.Stats().Results.Lent != 1 {
		t.Fatalf("the query holds %d bytes, %d result blocks", b.InUse(), b.Stats().Results.Lent)
	}

	var extra *Buffer
	done := make(chan error, 1)
	go func() {
		done <- cache.RetryOOM(ctx, func() (err error) {
			extra, err = q.Alloc(4 << 20)
			return err
		})
	}()
	// The query is waiting once it has registered for frees.
	for deadline := time.Now().Add(5 * time.Second); b.memWaiters.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the query never waited for memory")
		}
		time.Sleep(time.Millisecond)
	}
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Fatalf("cancelled wait: %v", err)
		}
	case <-time.After(MemoryWait / 2):
		t.Fatal("the cancelled wait did not return")
	}
	if took := time.Since(cancelled); took > time.Second {
		t.Fatalf("the wait returned %s after the cancel", took)
	}
	if extra != nil {
		t.Fatal("the cancelled wait left a buffer allocated")
	}
	if n := b.memWaiters.Load(); n != 0 {
		t.Fatalf("%d waiters still registered", n)
	}
	if w.Memory.Count() != 1 {
		t.Fatalf("memory waits %s", &w.Memory)
	}

	// The query unwinds: what its operators' Close releases.
	inflight.Cancel()
	if err := in.Release(); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	st := b.Stats()
	if b.InUse() != 0 || st.Memory.InUse != poolHeld || st.Results.Lent != 0 || st.Results.InUse != 0 {
		t.Fatalf("after the cancelled query: quota %d bytes, pool %d (the other database's %d), results %+v", b.InUse(), st.Memory.InUse, poolHeld, st.Results)
	}
	if n := pinnedLive(t, b, drv); n != pinned {
		t.Fatalf("%d page-locked buffers after the cancelled query, %d before", n, pinned)
	}
	// The memory it waited for is usable by the next query once the
	// other database frees it.
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	buf, err := b.Alloc(4 << 20)
	if err != nil {
		t.Fatalf("after the cancelled query: %v", err)
	}
	buf.Release()
}
