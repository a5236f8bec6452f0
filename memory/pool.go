package memory

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"sync"
)

// Defaults for Options fields left zero.
const (
	DefaultSlabSize  = 64 << 20
	DefaultAlignment = 512
	// largeSlabGranularity rounds the dedicated slab of an oversized request,
	// so that a later request of a slightly different size can reuse it.
	largeSlabGranularity = 2 << 20
)

// Upstream provides raw ranges (cuMemAlloc on the GPU, a Go/host arena in
// tests). An Upstream reports "no memory left" with an error that wraps
// ErrOutOfMemory; Free receives the size that Alloc was asked for.
type Upstream interface {
	Alloc(size uint64) (addr uint64, err error)
	Free(addr, size uint64) error
}

// Allocator is what the engine holds: the pool, or Direct for no-pool
// comparisons.
type Allocator interface {
	Alloc(size uint64) (addr uint64, err error)
	Free(addr uint64) error
	Stats() Stats
}

// Stats is a snapshot of an allocator's accounting.
type Stats struct {
	InUse, Peak, Reserved         uint64 // bytes handed out (rounded), high-water mark of InUse, bytes held from upstream
	Allocs, Frees                 uint64 // successful Alloc and Free calls
	PoolHits                      uint64 // allocations served without calling upstream
	UpstreamAllocs, UpstreamFrees uint64 // successful upstream calls
	LargestFree                   uint64 // biggest free chunk: the largest request served without growing
	Slabs                         int    // upstream ranges currently held
}

// Options configure a Pool. Zero fields take the defaults.
type Options struct {
	// SlabSize is the growth granularity (default 64 MiB, rounded up to
	// Alignment). A request larger than a slab gets its own slab rounded up
	// to 2 MiB.
	SlabSize uint64
	// Limit is a hard cap on bytes reserved from upstream (0 = no limit).
	Limit uint64
	// Alignment is the rounding of request sizes (default 512). A value that
	// is not a power of two is rounded up to the next power of two, because
	// chunk offsets must stay aligned after any split.
	Alignment uint64
}

type slab struct {
	addr, size uint64
	used       uint64 // bytes of live blocks in this slab
	first      *chunk
	index      int // position in Pool.slabs, for O(1) removal
}

// Pool is a best-fit, coalescing allocator of address ranges taken from an
// Upstream in slabs. See the package documentation for the algorithm.
type Pool struct {
	mu       sync.Mutex
	up       Upstream
	slabSize uint64
	limit    uint64
	align    uint64
	grain    uint64 // rounding of dedicated slabs for oversized requests

	free  freeIndex
	live  map[uint64]*chunk
	slabs []*slab
	spare *chunk // recycled chunk records, linked through next

	released bool
	st       Stats // all fields but LargestFree and Slabs are kept current
}

var _ Allocator = (*Pool)(nil)

// NewPool returns a pool drawing slabs from up. Nothing is reserved until the
// first allocation. The zero Pool is not usable; always call NewPool.
func NewPool(up Upstream, opts Options) *Pool {
	align := opts.Alignment
	if align == 0 {
		align = DefaultAlignment
	}
	if align&(align-1) != 0 {
		if align > 1<<63 {
			align = 1 << 63
		} else {
			align = 1 << bits.Len64(align)
		}
	}
	slabSize := opts.SlabSize
	if slabSize == 0 {
		slabSize = DefaultSlabSize
	}
	if s, ok := roundUp(slabSize, align); ok {
		slabSize = s
	} else {
		slabSize = align
	}
	return &Pool{
		up:       up,
		slabSize: slabSize,
		limit:    opts.Limit,
		align:    align,
		grain:    max(uint64(largeSlabGranularity), align),
		live:     make(map[uint64]*chunk),
	}
}

// roundUp rounds n up to a multiple of the power of two a; ok is false on
// overflow.
func roundUp(n, a uint64) (uint64, bool) {
	r := (n + a - 1) &^ (a - 1)
	return r, r >= n
}

// Alloc returns the address of a block of at least size bytes (size rounded
// up to the alignment; 0 is served as one alignment unit).
func (p *Pool) Alloc(size uint64) (uint64, error) {
	rs, ok := roundUp(max(size, 1), p.align)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return 0, fmt.Errorf("memory: alloc of %s: %w", FormatBytes(size), ErrReleased)
	}
	if !ok {
		return 0, p.oom(size)
	}
	c := p.free.bestFit(rs)
	if c == nil {
		var err error
		if c, err = p.grow(size, rs); err != nil {
			return 0, err
		}
	} else {
		p.st.PoolHits++
	}
	p.free.remove(c)
	if c.size > rs {
		// Split: the tail stays free, the head is handed out, so a run of
		// allocations fills a slab from its start.
		r := p.newChunk()
		r.addr, r.size, r.slab, r.free = c.addr+rs, c.size-rs, c.slab, true
		r.prev, r.next = c, c.next
		if c.next != nil {
			c.next.prev = r
		}
		c.next = r
		c.size = rs
		p.free.insert(r)
	}
	c.free = false
	c.slab.used += rs
	p.live[c.addr] = c
	p.st.Allocs++
	p.st.InUse += rs
	p.st.Peak = max(p.st.Peak, p.st.InUse)
	return c.addr, nil
}

// Free returns the block at addr to the pool, merging it with free
// neighbours in its slab. After Release, a slab that becomes wholly free goes
// straight back to upstream.
func (p *Pool) Free(addr uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.live[addr]
	if !ok {
		return p.invalidFree(addr)
	}
	delete(p.live, addr)
	s := c.slab
	s.used -= c.size
	p.st.InUse -= c.size
	p.st.Frees++
	c.free = true
	if l := c.prev; l != nil && l.free {
		p.free.remove(l)
		l.size += c.size
		p.unlink(c)
		c = l
	}
	if r := c.next; r != nil && r.free {
		p.free.remove(r)
		c.size += r.size
		p.unlink(r)
	}
	p.free.insert(c)
	if p.released && s.used == 0 {
		if err := p.releaseSlab(s); err != nil {
			return fmt.Errorf("memory: free of %#x after release: %w", addr, err)
		}
	}
	return nil
}

// invalidFree explains why addr is not a live block; it runs only on the error
// path, so a linear search of the slabs is fine.
func (p *Pool) invalidFree(addr uint64) error {
	for _, s := range p.slabs {
		if addr >= s.addr && addr-s.addr < s.size {
			return fmt.Errorf("memory: free of %#x: inside a pool slab but not the start of a live block (double free or interior address): %w",
				addr, ErrInvalidFree)
		}
	}
	return fmt.Errorf("memory: free of %#x: address was not allocated by this pool: %w", addr, ErrInvalidFree)
}

// unlink removes c, whose bytes a neighbour has absorbed, from its slab list
// and recycles the record.
func (p *Pool) unlink(c *chunk) {
	if c.prev != nil {
		c.prev.next = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	}
	p.recycle(c)
}

func (p *Pool) newChunk() *chunk {
	c := p.spare
	if c == nil {
		return &chunk{}
	}
	p.spare = c.next
	*c = chunk{}
	return c
}

func (p *Pool) recycle(c *chunk) {
	*c = chunk{next: p.spare}
	p.spare = c
}

func (p *Pool) oom(size uint64) error {
	return &OutOfMemoryError{Requested: size, Limit: p.limit, InUse: p.st.InUse, Reserved: p.st.Reserved}
}

// grow adds a slab that can hold rs bytes, puts its single free chunk in the
// index and returns it. size is the caller's unrounded request, for errors.
func (p *Pool) grow(size, rs uint64) (*chunk, error) {
	want := p.slabSize
	if rs > want {
		if w, ok := roundUp(rs, p.grain); ok {
			want = w
		} else {
			want = rs
		}
	}
	// minimum is the smallest slab worth retrying with when upstream cannot
	// give a whole one.
	minimum := want
	if w, ok := roundUp(rs, p.grain); ok && w < minimum {
		minimum = w
	}
	if p.limit > 0 {
		if rs > p.limit {
			return nil, p.oom(size)
		}
		if p.st.Reserved+rs > p.limit {
			// Even the request alone does not fit. Cached free slabs are
			// each too small for it (else bestFit had found one), but
			// returning them may make room; if not, keep the cache.
			if p.st.Reserved-p.freeSlabBytes()+rs > p.limit {
				return nil, p.oom(size)
			}
			if err := p.releaseFreeSlabsUntil(rs); err != nil {
				return nil, fmt.Errorf("memory: making room for %s under the %s limit: %w",
					FormatBytes(size), FormatBytes(p.limit), err)
			}
		}
		// Near the limit, shrink the slab to what still fits.
		room := (p.limit - p.st.Reserved) &^ (p.align - 1)
		want = min(want, room)
		minimum = min(minimum, want)
	}
	if p.up == nil {
		return nil, fmt.Errorf("memory: pool has no upstream to grow from (NewPool(nil, ...))")
	}
	addr, err := p.up.Alloc(want)
	if err != nil && p.freeSlabBytes() > 0 {
		// Device full: give back cached slabs and try again, as CuPy and
		// RMM do before reporting out of memory.
		if _, terr := p.trim(); terr != nil {
			return nil, fmt.Errorf("memory: upstream alloc of %s failed (%w) and returning free slabs failed: %w",
				FormatBytes(want), err, terr)
		}
		addr, err = p.up.Alloc(want)
	}
	if err != nil && minimum < want {
		want = minimum
		addr, err = p.up.Alloc(want)
	}
	if err != nil {
		return nil, fmt.Errorf("memory: upstream alloc of %s for a %s request (pool: %s reserved, %s in use): %w",
			FormatBytes(want), FormatBytes(size), FormatBytes(p.st.Reserved), FormatBytes(p.st.InUse), err)
	}
	if addr > math.MaxUint64-want {
		// The range would wrap the address space (its end must be
		// representable); hand it back rather than compute overlapping
		// addresses.
		ferr := p.up.Free(addr, want)
		return nil, errors.Join(fmt.Errorf("memory: upstream returned range %#x+%d that wraps the address space", addr, want), ferr)
	}
	for _, o := range p.slabs {
		if addr < o.addr+o.size && o.addr < addr+want {
			// A broken upstream; using the range would hand out the same
			// bytes twice.
			ferr := p.up.Free(addr, want)
			return nil, errors.Join(fmt.Errorf("memory: upstream returned range %#x+%d overlapping slab %#x+%d",
				addr, want, o.addr, o.size), ferr)
		}
	}
	s := &slab{addr: addr, size: want, index: len(p.slabs)}
	c := p.newChunk()
	c.addr, c.size, c.slab, c.free = addr, want, s, true
	s.first = c
	p.slabs = append(p.slabs, s)
	p.free.insert(c)
	p.st.Reserved += want
	p.st.UpstreamAllocs++
	return c, nil
}

// freeSlabBytes sums the slabs that hold no live block.
func (p *Pool) freeSlabBytes() uint64 {
	var n uint64
	for _, s := range p.slabs {
		if s.used == 0 {
			n += s.size
		}
	}
	return n
}

// releaseFreeSlabsUntil returns wholly free slabs, largest first (fewest
// upstream calls), until rs more bytes fit under the limit.
func (p *Pool) releaseFreeSlabsUntil(rs uint64) error {
	var cand []*slab
	for _, s := range p.slabs {
		if s.used == 0 {
			cand = append(cand, s)
		}
	}
	sort.Slice(cand, func(i, j int) bool { return cand[i].size > cand[j].size })
	for _, s := range cand {
		if p.st.Reserved+rs <= p.limit {
			break
		}
		if err := p.releaseSlab(s); err != nil {
			return err
		}
	}
	return nil
}

// releaseSlab hands a wholly free slab back to upstream. If upstream refuses,
// the slab stays in the pool, usable, and the error is returned.
func (p *Pool) releaseSlab(s *slab) error {
	c := s.first
	p.free.remove(c)
	if err := p.up.Free(s.addr, s.size); err != nil {
		p.free.insert(c)
		return fmt.Errorf("memory: upstream free of slab %#x (%s): %w", s.addr, FormatBytes(s.size), err)
	}
	last := p.slabs[len(p.slabs)-1]
	p.slabs[s.index] = last
	last.index = s.index
	p.slabs[len(p.slabs)-1] = nil
	p.slabs = p.slabs[:len(p.slabs)-1]
	p.recycle(c)
	p.st.Reserved -= s.size
	p.st.UpstreamFrees++
	return nil
}

// Trim returns every wholly free slab to upstream and reports the bytes
// released. Slabs that upstream refuses to free stay in the pool; their
// errors are joined.
func (p *Pool) Trim() (released uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.trim()
}

func (p *Pool) trim() (uint64, error) {
	var released uint64
	var errs []error
	// Walk backwards: releaseSlab moves the last slab into the freed slot.
	for i := len(p.slabs) - 1; i >= 0; i-- {
		s := p.slabs[i]
		if s.used != 0 {
			continue
		}
		size := s.size
		if err := p.releaseSlab(s); err != nil {
			errs = append(errs, err)
			continue
		}
		released += size
	}
	return released, errors.Join(errs...)
}

// Release frees every slab to upstream at shutdown. Blocks still in use are
// leaks: their slabs are kept (freeing memory someone still points at would
// turn a leak into corruption), an error wrapping ErrBlocksInUse says how
// many, and each such slab goes back to upstream as soon as its last block
// is freed. Alloc fails with ErrReleased afterwards. Release may be called
// again; it repeats the check.
func (p *Pool) Release() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = true
	_, err := p.trim()
	if n := len(p.live); n > 0 {
		err = errors.Join(err, fmt.Errorf("memory: release with %d blocks (%s) still in use in %d slabs: %w",
			n, FormatBytes(p.st.InUse), len(p.slabs), ErrBlocksInUse))
	}
	return err
}

// Stats returns a snapshot of the pool's accounting.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.st
	st.Slabs = len(p.slabs)
	if c := p.free.largest(); c != nil {
		st.LargestFree = c.size
	}
	return st
}
