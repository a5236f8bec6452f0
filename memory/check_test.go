package memory

import (
	"fmt"
	"sort"
)

// checkPool verifies every structural invariant of the pool: slab chunk lists
// tile their slab exactly, no two free chunks are adjacent (coalescing is
// complete), the free index holds exactly the free chunks in (size, addr)
// order with the heap property, the live map holds exactly the used chunks,
// and the stats agree with all of it.
func checkPool(p *Pool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var reserved, inUse, largest uint64
	freeChunks, liveChunks := 0, 0
	for i, s := range p.slabs {
		if s.index != i {
			return fmt.Errorf("slab %#x: index %d at position %d", s.addr, s.index, i)
		}
		reserved += s.size
		var used uint64
		var prev *chunk
		addr := s.addr
		for c := s.first; c != nil; c = c.next {
			switch {
			case c.slab != s:
				return fmt.Errorf("chunk %#x: wrong slab", c.addr)
			case c.prev != prev:
				return fmt.Errorf("chunk %#x: broken prev link", c.addr)
			case c.addr != addr:
				return fmt.Errorf("chunk %#x: expected at %#x (gap or overlap)", c.addr, addr)
			case c.size == 0 || c.size%p.align != 0:
				return fmt.Errorf("chunk %#x: size %d not a positive multiple of %d", c.addr, c.size, p.align)
			}
			if c.free {
				freeChunks++
				if prev != nil && prev.free {
					return fmt.Errorf("chunks %#x and %#x: adjacent free chunks not coalesced", prev.addr, c.addr)
				}
				largest = max(largest, c.size)
				if _, ok := p.live[c.addr]; ok {
					return fmt.Errorf("chunk %#x: free but in the live map", c.addr)
				}
			} else {
				liveChunks++
				used += c.size
				if p.live[c.addr] != c {
					return fmt.Errorf("chunk %#x: used but not in the live map", c.addr)
				}
			}
			addr += c.size
			prev = c
		}
		if addr != s.addr+s.size {
			return fmt.Errorf("slab %#x+%d: chunks end at %#x", s.addr, s.size, addr)
		}
		if used != s.used {
			return fmt.Errorf("slab %#x: used %d, chunks say %d", s.addr, s.used, used)
		}
		inUse += used
	}
	if liveChunks != len(p.live) {
		return fmt.Errorf("live map has %d entries, slabs hold %d used chunks", len(p.live), liveChunks)
	}
	n := 0
	var last *chunk
	var walk func(c *chunk) error
	walk = func(c *chunk) error {
		if c == nil {
			return nil
		}
		if c.left != nil && c.left.prio > c.prio || c.right != nil && c.right.prio > c.prio {
			return fmt.Errorf("free index: heap order broken at %#x", c.addr)
		}
		if err := walk(c.left); err != nil {
			return err
		}
		if !c.free {
			return fmt.Errorf("free index: used chunk %#x", c.addr)
		}
		if c.slab.index >= len(p.slabs) || p.slabs[c.slab.index] != c.slab {
			return fmt.Errorf("free index: chunk %#x of a released slab", c.addr)
		}
		if last != nil && !chunkLess(last, c) {
			return fmt.Errorf("free index: %#x/%d not after %#x/%d", c.addr, c.size, last.addr, last.size)
		}
		last = c
		n++
		return walk(c.right)
	}
	if err := walk(p.free.root); err != nil {
		return err
	}
	if n != freeChunks || n != p.free.n {
		return fmt.Errorf("free index holds %d chunks (count %d), slabs have %d free", n, p.free.n, freeChunks)
	}
	st := p.st
	switch {
	case st.InUse != inUse:
		return fmt.Errorf("stats: InUse %d, blocks sum to %d", st.InUse, inUse)
	case st.Reserved != reserved:
		return fmt.Errorf("stats: Reserved %d, slabs sum to %d", st.Reserved, reserved)
	case st.Peak < st.InUse:
		return fmt.Errorf("stats: Peak %d < InUse %d", st.Peak, st.InUse)
	case p.limit > 0 && st.Reserved > p.limit:
		return fmt.Errorf("stats: Reserved %d over limit %d", st.Reserved, p.limit)
	case st.Allocs-st.Frees != uint64(len(p.live)):
		return fmt.Errorf("stats: Allocs-Frees = %d, %d live", st.Allocs-st.Frees, len(p.live))
	case st.UpstreamAllocs-st.UpstreamFrees != uint64(len(p.slabs)):
		return fmt.Errorf("stats: upstream allocs-frees = %d, %d slabs", st.UpstreamAllocs-st.UpstreamFrees, len(p.slabs))
	case st.PoolHits+st.UpstreamAllocs < st.Allocs:
		return fmt.Errorf("stats: %d hits + %d upstream allocs < %d allocs", st.PoolHits, st.UpstreamAllocs, st.Allocs)
	}
	if l := p.free.largest(); (l == nil && largest != 0) || (l != nil && l.size != largest) {
		return fmt.Errorf("largest free chunk %d not found by the index", largest)
	}
	return nil
}

// model is what a user of the pool knows: the blocks it holds and the sizes
// it asked for.
type model struct {
	align uint64
	live  map[uint64]uint64
}

func newModel(align uint64) *model { return &model{align: align, live: make(map[uint64]uint64)} }

func (m *model) rounded(size uint64) uint64 {
	r, _ := roundUp(max(size, 1), m.align)
	return r
}

// check verifies the user-visible guarantees: live blocks never overlap,
// each lies inside one slab and inside one live upstream range, and InUse is
// the sum of their rounded sizes.
func (m *model) check(p *Pool, up *HostUpstream) error {
	if err := checkPool(p); err != nil {
		return err
	}
	blocks := make([]Range, 0, len(m.live))
	var sum uint64
	for a, s := range m.live {
		blocks = append(blocks, Range{a, m.rounded(s)})
		sum += m.rounded(s)
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Addr < blocks[j].Addr })
	for i := 1; i < len(blocks); i++ {
		if blocks[i-1].Addr+blocks[i-1].Size > blocks[i].Addr {
			return fmt.Errorf("blocks %#x+%d and %#x+%d overlap", blocks[i-1].Addr, blocks[i-1].Size, blocks[i].Addr, blocks[i].Size)
		}
	}
	if st := p.Stats(); st.InUse != sum {
		return fmt.Errorf("InUse %d, model holds %d", st.InUse, sum)
	}
	p.mu.Lock()
	slabs := make([]Range, 0, len(p.slabs))
	for _, s := range p.slabs {
		slabs = append(slabs, Range{s.addr, s.size})
	}
	p.mu.Unlock()
	if err := within(blocks, slabs, "slab"); err != nil {
		return err
	}
	if up != nil {
		return within(blocks, up.Live(), "upstream range")
	}
	return nil
}

// within checks that every block lies inside one of the ranges.
func within(blocks, ranges []Range, what string) error {
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].Addr < ranges[j].Addr })
	for _, b := range blocks {
		i := sort.Search(len(ranges), func(i int) bool { return ranges[i].Addr > b.Addr }) - 1
		if i < 0 || b.Addr+b.Size > ranges[i].Addr+ranges[i].Size {
			return fmt.Errorf("block %#x+%d not inside a live %s", b.Addr, b.Size, what)
		}
	}
	return nil
}

// drain frees every block of the model, then asserts that each slab is one
// whole free chunk, that Trim returns all of it, and that upstream saw every
// range freed exactly once.
func (m *model) drain(p *Pool, up *HostUpstream) error {
	for a := range m.live {
		if err := p.Free(a); err != nil {
			return err
		}
		delete(m.live, a)
	}
	if err := m.check(p, up); err != nil {
		return err
	}
	p.mu.Lock()
	for _, s := range p.slabs {
		if c := s.first; !c.free || c.next != nil || c.size != s.size {
			p.mu.Unlock()
			return fmt.Errorf("slab %#x+%d not one free chunk after freeing everything", s.addr, s.size)
		}
	}
	p.mu.Unlock()
	before := p.Stats()
	released, err := p.Trim()
	if err != nil {
		return err
	}
	after := p.Stats()
	if released != before.Reserved || after.Reserved != 0 || after.Slabs != 0 || after.InUse != 0 || after.LargestFree != 0 {
		return fmt.Errorf("trim released %d of %d reserved; after: %+v", released, before.Reserved, after)
	}
	if up != nil {
		us := up.Stats()
		if us.Live != 0 || us.InUse != 0 || us.BadFrees != 0 || us.Allocs != us.Frees {
			return fmt.Errorf("upstream after drain: %+v", us)
		}
		if us.Allocs != after.UpstreamAllocs || us.Frees != after.UpstreamFrees {
			return fmt.Errorf("upstream counts %d/%d, pool says %d/%d", us.Allocs, us.Frees, after.UpstreamAllocs, after.UpstreamFrees)
		}
	}
	return nil
}
