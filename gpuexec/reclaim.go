package gpuexec

import (
	"errors"
	"sync"
)

// Reclaimer frees device memory that is only cached (resident table
// columns no query holds) when an allocation runs short. It is given the
// size of the request that failed and returns the bytes it freed (0:
// nothing, or it could not act now). It runs on the context thread, from
// inside an allocation: it must not wait for that thread, nor for a lock
// whose holder may (it should try its lock and give up, returning 0).
type Reclaimer func(request uint64) uint64

// reclaimers are the callbacks of a device state, each tagged with the
// database (user) whose memory it frees: a pool that runs short may evict
// any database's cached columns, a database's quota only its own.
type reclaimers struct {
	mu   sync.Mutex
	next int
	fns  map[int]reclaimEntry
}

type reclaimEntry struct {
	user *deviceUser
	fn   Reclaimer
}

// maxReclaims bounds the evict-and-retry rounds of one allocation: each
// round evicts at least the shortfall the reclaimer computes, so more than
// a few rounds means fragmentation that eviction does not cure.
const maxReclaims = 4

// OnMemoryPressure registers fn to be called when an allocation of this
// handle's database (or, for the shared pool, of any database on the
// device) fails for lack of memory; the allocation is tried again after
// each call that freed something. Cached data is thus evictable: it never
// makes a query run out of memory while it could be dropped. The returned
// function unregisters fn; closing the handle does too.
func (d *Device) OnMemoryPressure(fn Reclaimer) (unregister func()) {
	r := &d.reclaim
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fns == nil {
		r.fns = map[int]reclaimEntry{}
	}
	id := r.next
	r.next++
	r.fns[id] = reclaimEntry{user: d.user, fn: fn}
	return func() {
		r.mu.Lock()
		delete(r.fns, id)
		r.mu.Unlock()
	}
}

// dropReclaimers unregisters the callbacks of database u (its handle
// closed).
func (r *reclaimers) drop(u *deviceUser) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, e := range r.fns {
		if e.user == u {
			delete(r.fns, id)
		}
	}
}

// relieve runs the reclaimers that can help an allocation of request
// bytes refused with err: under a database's quota only that database's,
// for the shared pool every one. It returns the bytes freed.
func (d *Device) relieve(request uint64, err error) uint64 {
	var quota *quotaError
	own := errors.As(err, &quota)
	r := &d.reclaim
	r.mu.Lock()
	fns := make([]Reclaimer, 0, len(r.fns))
	for _, e := range r.fns {
		if !own || e.user == d.user {
			fns = append(fns, e.fn)
		}
	}
	r.mu.Unlock()
	var freed uint64
	for _, fn := range fns {
		freed += fn(request)
	}
	return freed
}
