package gpuexec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gsqlengine/gsql/memory"
)

// IsOutOfMemory reports whether err is a device allocation that failed for
// lack of memory: the pool's limit or the device itself being full.
func IsOutOfMemory(err error) bool { return errors.Is(err, memory.ErrOutOfMemory) }

// Relieve frees device memory for an allocation that failed: it evicts
// resident tables that no query holds (the cache's reference is the only
// one on every buffer), least recently used first, until at least need
// bytes are freed (need 0: every such table). Tables in use stay: dropping
// them would free nothing now. It returns the bytes freed; each table
// evicted counts in Evictions and PressureEvictions.
func (c *TableCache) Relieve(need uint64) uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.relieveLocked(need)
}

func (c *TableCache) relieveLocked(need uint64) uint64 {
	var freed uint64
	for el := c.lru.Back(); el != nil; {
		prev := el.Prev()
		e := el.Value.(*cacheEntry)
		if !e.inUse() {
			freed += e.bytes
			c.removeLocked(el)
			c.stats.Evictions++
			c.stats.PressureEvictions++
			if need > 0 && freed >= need {
				break
			}
		}
		el = prev
	}
	return freed
}

// tryRelieve is Relieve for an allocation that ran short (Device.SetRelief):
// it evicts only when the cache's lock is free, since the allocation may
// come from inside a cache call (an upload under c.mu) or while another
// goroutine holding c.mu waits for the context thread this runs on.
func (c *TableCache) tryRelieve(need uint64) uint64 {
	if !c.mu.TryLock() {
		return 0
	}
	defer c.mu.Unlock()
	return c.relieveLocked(need)
}

// inUse reports whether anything but the cache holds one of the entry's
// buffers (a running query's scan, a view of it).
func (e *cacheEntry) inUse() bool {
	for _, p := range e.parts {
		for _, b := range p.batches {
			for _, buf := range b.bufs {
				if buf.refs.Load() > 1 {
					return true
				}
			}
		}
	}
	return false
}

// RetryOOM runs fn; when it fails for lack of device memory and evicting
// tables no query holds frees something, it runs fn once more. When
// nothing could be evicted and other databases sharing the device hold
// memory, it waits for them to free some (what is left of the query's
// MemoryWait, counted in the query's Waits that ctx carries) and runs fn
// again after each free.
// fn must leave nothing allocated when it fails. A nil cache runs fn once.
func (c *TableCache) RetryOOM(ctx context.Context, fn func() error) error {
	err := fn()
	if !IsOutOfMemory(err) || c == nil {
		return err
	}
	c.mu.Lock()
	freed := c.relieveLocked(c.shortfall(requested(err)))
	if freed > 0 {
		c.stats.Retries++
	}
	c.mu.Unlock()
	if freed > 0 {
		err = fn()
	}
	if !IsOutOfMemory(err) || c.d == nil {
		return err
	}
	return c.d.awaitMemory(ctx, err, fn)
}

// MemoryWait bounds how long a query waits, in all, for other databases
// of a shared device to free memory before its allocations give up (an
// allocation outside a query, whose context carries no Waits, waits up to
// MemoryWait itself). The bound is the query's, not each allocation's:
// an operator that retries a batch in halves after a wait that timed out
// would otherwise wait again for each half, and auto mode's CPU fallback
// (root package) would come only after all of them.
var MemoryWait = 2 * time.Second

// awaitMemory runs fn again each time a buffer goes back to the shared
// pool, while fn fails for lack of memory that others hold, until
// MemoryWait has passed or ctx ends; it returns fn's last error. A
// database's own quota is not waited for: only its own queries could free
// that, and they are not counted apart.
func (d *Device) awaitMemory(ctx context.Context, err error, fn func() error) error {
	var quota *quotaError
	if errors.As(err, &quota) || d.user == nil {
		return err
	}
	if d.heldByOthers() == 0 {
		return err // nobody else could free what is missing
	}
	w := WaitsOf(ctx)
	budget := MemoryWait
	if w != nil {
		if budget -= w.Memory.Total(); budget <= 0 {
			return fmt.Errorf("%w (the query already waited %s for other databases on the device to free memory)", err, w.Memory.Total().Round(time.Millisecond))
		}
	}
	start := time.Now()
	defer func() {
		if w != nil {
			w.Memory.add(time.Since(start))
		}
	}()
	deadline := time.NewTimer(budget)
	defer deadline.Stop()
	for {
		// Register and take the channel before trying again, so that a
		// free after this attempt's failure is never missed; what others
		// held before the attempt says whether waiting can help.
		d.memWaiters.Add(1)
		d.freedMu.Lock()
		freed := d.freed
		d.freedMu.Unlock()
		others := d.heldByOthers()
		if err = fn(); !IsOutOfMemory(err) || others == 0 || errors.As(err, &quota) {
			d.memWaiters.Add(-1)
			return err
		}
		var stop error
		select {
		case <-freed:
		case <-deadline.C:
			stop = fmt.Errorf("%w (waited %s for other databases on the device to free memory)", err, time.Since(start).Round(time.Millisecond))
		case <-ctx.Done():
			stop = ctx.Err()
		}
		d.memWaiters.Add(-1)
		if stop != nil {
			return stop
		}
	}
}

// heldByOthers is the pool memory in use by anyone but this handle's
// database.
func (d *Device) heldByOthers() uint64 {
	total := d.alloc.Stats().InUse
	own := d.InUse()
	if own >= total {
		return 0
	}
	return total - own
}

// retryLocked is RetryOOM for callers that hold c.mu.
func (c *TableCache) retryLocked(fn func() error) error {
	err := fn()
	if !IsOutOfMemory(err) {
		return err
	}
	if c.relieveLocked(c.shortfall(requested(err))) == 0 {
		return err
	}
	c.stats.Retries++
	return fn()
}

// shortfall is how many bytes must be freed for a request of req bytes to
// fit: what the pool cannot give from its largest free chunk or its room
// under the limit. When those look sufficient the request failed for
// fragmentation (or the device itself is full), so req bytes are asked for.
// 0 means all that can be freed.
func (c *TableCache) shortfall(req uint64) uint64 {
	if req == 0 || c.d == nil {
		return req
	}
	st := c.d.alloc.Stats()
	avail := st.LargestFree
	if l := c.d.poolLimit(); l > st.Reserved {
		avail = max(avail, l-st.Reserved)
	}
	if u := c.d.user; u != nil && u.limit > 0 {
		// Under a quota, what the database may still take.
		avail = min(avail, u.limit-min(u.limit, c.d.InUse()))
	}
	if req > avail {
		return req - avail
	}
	return req
}

// requested is the size of the allocation that failed, when the error says
// (0: unknown, so Relieve frees all it can).
func requested(err error) uint64 {
	var oom *memory.OutOfMemoryError
	if errors.As(err, &oom) {
		return oom.Requested
	}
	return 0
}
