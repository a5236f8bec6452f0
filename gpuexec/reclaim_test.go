package gpuexec

import (
	"testing"
)

// A registered reclaimer runs when an allocation fails for lack of
// memory and the allocation is tried again: under a database's quota
// only that database's reclaimers run, when the shared device is full
// every database's do; an unregistered one (or a closed handle's) never
// runs.
func TestReclaimerScope(t *testing.T) {
	fr := newFakeRegistry()
	fr.capacity = 4 << 20
	dir := t.TempDir()
	// Two slabs of 2 MiB fill the device.
	open := func(quota uint64) *Device {
		d, err := fr.open(Options{CacheDir: dir, PoolLimit: quota, SlabSize: 2 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := open(2<<20), open(2<<20)
	defer a.Close()
	// Each database caches a buffer that its reclaimer gives up.
	type cached struct {
		buf   *Buffer
		calls int
	}
	register := func(d *Device, size uint64) (*cached, func()) {
		buf, err := d.Alloc(size)
		if err != nil {
			t.Fatal(err)
		}
		c := &cached{buf: buf}
		un := d.OnMemoryPressure(func(uint64) uint64 {
			c.calls++
			if c.buf == nil {
				return 0
			}
			c.buf.Release()
			c.buf = nil
			return size
		})
		return c, un
	}
	ca, unA := register(a, 1536<<10)
	cb, _ := register(b, 1536<<10)

	// a's quota: its cached buffer goes, b's stays.
	x, err := a.Alloc(1 << 20)
	if err != nil {
		t.Fatalf("allocation over a's quota with its cache evictable: %v", err)
	}
	if ca.calls != 1 || ca.buf != nil || cb.calls != 0 || cb.buf == nil {
		t.Fatalf("a's quota: a's reclaimer %d calls, b's %d", ca.calls, cb.calls)
	}
	// Nothing left to evict for a: the error reaches the caller, b's
	// cache untouched.
	if _, err := a.Alloc(1536 << 10); !IsOutOfMemory(err) {
		t.Fatalf("over a's quota with nothing evictable: %v", err)
	}
	if ca.calls != 2 || cb.calls != 0 {
		t.Fatalf("a's quota again: a's reclaimer %d calls, b's %d", ca.calls, cb.calls)
	}
	x.Release()
	unA()

	// The device itself full (4 MiB, b holds 1.5): a third database's
	// allocation within its own quota evicts b's cache.
	c := open(4 << 20)
	defer c.Close()
	y, err := c.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	z, err := c.Alloc(1536 << 10)
	if err != nil {
		t.Fatalf("allocation with the device full and b's cache evictable: %v", err)
	}
	if cb.calls != 1 || cb.buf != nil || ca.calls != 2 {
		t.Fatalf("device full: a's reclaimer %d calls (unregistered), b's %d", ca.calls, cb.calls)
	}
	y.Release()
	z.Release()

	// A closed handle's reclaimers are dropped with it.
	b.Close()
	if n := len(a.reclaim.fns); n != 0 {
		t.Fatalf("%d reclaimers left after both unregistered", n)
	}
}
