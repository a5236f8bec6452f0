package gpuexec

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/gsqlengine/gsql/memory"
)

// DefaultResultMemory caps the page-locked result pool when
// Options.ResultMemory is zero.
const DefaultResultMemory = 4 << 30

// resultSlab is the result pool's growth step: big enough that a stream of
// ordinary results never pins memory again, small enough that an idle pool
// holds little.
const resultSlab = 64 << 20

// ResultPool lends page-locked host memory to query results. Results are
// copied from the device straight into it at PCIe speed (pageable Go memory
// takes the copy through the driver's bounce buffers and pays a page fault
// per 4 KiB of fresh memory), and the Arrow records handed to the caller
// are built over it without a copy. A block goes back to the pool when the
// last record built over it is released.
//
// The pool is bounded: a result that does not fit is downloaded into Go
// memory instead (counted in ResultStats.Fallbacks). Its slabs are mapped
// by gsql and page-locked with cuMemHostRegister rather than allocated by
// the driver, so that memory still lent out when the device closes stays
// mapped (unpinned) until its records are released.
type ResultPool struct {
	d     *Device
	limit uint64
	pool  *memory.Pool

	mu     sync.Mutex
	slabs  []hostSlab // ordered by base
	next   uint64     // the next slab's synthetic base address
	closed bool       // the device is closed: slabs are no longer page-locked

	lent, fallbacks, lends atomic.Int64
}

// hostSlab is one mapped range; its synthetic base address is how the pool
// (which deals in addresses) names it.
type hostSlab struct {
	base   uint64
	mem    []byte
	pinned bool
}

// ResultStats describe the result pool.
type ResultStats struct {
	Limit     uint64 // the cap on page-locked bytes
	InUse     uint64 // bytes of blocks lent to live results
	Peak      uint64 // high-water mark of InUse
	Reserved  uint64 // bytes mapped and page-locked
	Lent      int64  // blocks lent to live results
	Lends     int64  // results that got pool memory
	Fallbacks int64  // results that did not fit and went to Go memory
}

func newResultPool(d *Device, limit uint64) *ResultPool {
	if limit == 0 {
		limit = DefaultResultMemory
	}
	p := &ResultPool{d: d, limit: limit, next: 1 << 44}
	p.pool = memory.NewPool(poolUpstream{p}, memory.Options{SlabSize: resultSlab, Limit: limit, Alignment: 4096})
	return p
}

// poolUpstream gives the sub-allocator mapped, page-locked slabs.
type poolUpstream struct{ p *ResultPool }

func (u poolUpstream) Alloc(size uint64) (uint64, error) {
	p := u.p
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return 0, fmt.Errorf("gpu: result pool of a closed device: %w", memory.ErrOutOfMemory)
	}
	mem, err := mapHost(int(size))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", memory.ErrOutOfMemory, err)
	}
	if err := p.d.drv.do(func() error { return p.d.drv.hostRegister(mem) }); err != nil {
		return 0, errors.Join(fmt.Errorf("gpu: page-lock %d bytes: %w: %w", size, memory.ErrOutOfMemory, err), unmapHost(mem))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	base := p.next
	p.next += size + 1<<20 // a gap: neighbouring slabs never look adjacent
	p.slabs = append(p.slabs, hostSlab{base: base, mem: mem, pinned: true})
	return base, nil
}

func (u poolUpstream) Free(addr, size uint64) error {
	p := u.p
	p.mu.Lock()
	i, ok := p.find(addr)
	if !ok || p.slabs[i].base != addr {
		p.mu.Unlock()
		return fmt.Errorf("gpu: result pool frees unknown slab %#x", addr)
	}
	s := p.slabs[i]
	p.slabs = append(p.slabs[:i], p.slabs[i+1:]...)
	p.mu.Unlock()
	var err error
	if s.pinned {
		err = p.d.drv.do(func() error { return p.d.drv.hostUnregister(s.mem) })
	}
	return errors.Join(err, unmapHost(s.mem))
}

// find returns the index of the slab holding addr. Callers hold p.mu.
func (p *ResultPool) find(addr uint64) (int, bool) {
	i := sort.Search(len(p.slabs), func(i int) bool { return p.slabs[i].base > addr }) - 1
	if i < 0 || addr >= p.slabs[i].base+uint64(len(p.slabs[i].mem)) {
		return 0, false
	}
	return i, true
}

// HostBlock is page-locked memory lent by a ResultPool. It is reference
// counted (it satisfies coldata.Owner): it returns to the pool when the
// last holder releases it, and its bytes must not be read after that.
type HostBlock struct {
	p    *ResultPool
	addr uint64
	mem  []byte
	refs atomic.Int32
}

// Lend returns a block of n bytes with one reference, or nil when the pool
// is full (the caller then uses Go memory). Safe for concurrent use.
func (p *ResultPool) Lend(n int) *HostBlock {
	if p == nil || n <= 0 {
		return nil
	}
	addr, err := p.pool.Alloc(uint64(n))
	if err != nil {
		p.fallbacks.Add(1)
		return nil
	}
	p.mu.Lock()
	i, ok := p.find(addr)
	var mem []byte
	if ok {
		off := addr - p.slabs[i].base
		mem = p.slabs[i].mem[off : off+uint64(n) : off+uint64(n)]
	}
	p.mu.Unlock()
	if !ok { // cannot happen: the pool only hands out slab addresses
		p.pool.Free(addr)
		p.fallbacks.Add(1)
		return nil
	}
	b := &HostBlock{p: p, addr: addr, mem: mem}
	b.refs.Store(1)
	p.lent.Add(1)
	p.lends.Add(1)
	return b
}

// Bytes is the block's memory.
func (b *HostBlock) Bytes() []byte { return b.mem }

// Retain adds a reference.
func (b *HostBlock) Retain() { b.refs.Add(1) }

// Release drops a reference; the last one returns the block to the pool.
func (b *HostBlock) Release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	p := b.p
	b.mem = nil
	p.lent.Add(-1)
	p.pool.Free(b.addr)
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed { // no device to reuse it: unmap what is now empty
		p.pool.Trim()
	}
}

// Stats returns a snapshot of the pool's accounting.
func (p *ResultPool) Stats() ResultStats {
	if p == nil {
		return ResultStats{}
	}
	ms := p.pool.Stats()
	return ResultStats{
		Limit: p.limit, InUse: ms.InUse, Peak: ms.Peak, Reserved: ms.Reserved,
		Lent: p.lent.Load(), Lends: p.lends.Load(), Fallbacks: p.fallbacks.Load(),
	}
}

// trim unmaps the slabs no result uses.
func (p *ResultPool) trim() error {
	if p == nil {
		return nil
	}
	_, err := p.pool.Trim()
	return err
}

// close unpins every slab and unmaps the free ones; slabs still lent out
// stay mapped until their blocks are released. Runs on the context thread
// before the context goes.
func (p *ResultPool) close() error {
	if p == nil {
		return nil
	}
	err := p.trim()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for i := range p.slabs {
		if p.slabs[i].pinned {
			err = errors.Join(err, p.d.drv.hostUnregister(p.slabs[i].mem))
			p.slabs[i].pinned = false
		}
	}
	return err
}
