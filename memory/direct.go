package memory

import (
	"fmt"
	"sync"
)

// direct passes every allocation straight to upstream: the "no pool"
// baseline of the benchmarks, with the pool's rounding, limit and stats so
// the two are compared like for like.
type direct struct {
	mu    sync.Mutex
	up    Upstream
	limit uint64
	live  map[uint64]uint64 // addr -> rounded size given to upstream
	st    Stats
}

// Direct returns an Allocator that calls up for every Alloc and Free. Sizes
// are rounded to DefaultAlignment like the pool's (0 becomes 512 B), limit
// caps the bytes held (0 = none), and each allocation counts as one slab.
func Direct(up Upstream, limit uint64) Allocator {
	return &direct{up: up, limit: limit, live: make(map[uint64]uint64)}
}

func (d *direct) Alloc(size uint64) (uint64, error) {
	rs, ok := roundUp(max(size, 1), DefaultAlignment)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !ok || (d.limit > 0 && (rs > d.limit || d.st.Reserved+rs > d.limit)) {
		return 0, &OutOfMemoryError{Requested: size, Limit: d.limit, InUse: d.st.InUse, Reserved: d.st.Reserved}
	}
	if d.up == nil {
		return 0, fmt.Errorf("memory: direct allocator has no upstream (Direct(nil, ...))")
	}
	addr, err := d.up.Alloc(rs)
	if err != nil {
		return 0, fmt.Errorf("memory: upstream alloc of %s (direct: %s in use): %w",
			FormatBytes(rs), FormatBytes(d.st.InUse), err)
	}
	if _, dup := d.live[addr]; dup {
		// Upstream handed out a live address twice; recording it would lose
		// the first block.
		return 0, fmt.Errorf("memory: upstream returned live address %#x again", addr)
	}
	d.live[addr] = rs
	d.st.Allocs++
	d.st.UpstreamAllocs++
	d.st.InUse += rs
	d.st.Reserved += rs
	d.st.Peak = max(d.st.Peak, d.st.InUse)
	return addr, nil
}

func (d *direct) Free(addr uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	rs, ok := d.live[addr]
	if !ok {
		return fmt.Errorf("memory: free of %#x: not a live block of this allocator (double free or unknown address): %w",
			addr, ErrInvalidFree)
	}
	if err := d.up.Free(addr, rs); err != nil {
		// The block stays live: upstream still holds it, and a retry may work.
		return fmt.Errorf("memory: upstream free of %#x (%s): %w", addr, FormatBytes(rs), err)
	}
	delete(d.live, addr)
	d.st.Frees++
	d.st.UpstreamFrees++
	d.st.InUse -= rs
	d.st.Reserved -= rs
	return nil
}

func (d *direct) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.st
	st.Slabs = len(d.live)
	return st
}
