package memory

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"
)

// HostUpstreamBase is the first address a HostUpstream hands out: far from
// zero so that a zero address never looks valid.
const HostUpstreamBase = 1 << 44

// hostUpstreamAlign is the alignment of HostUpstream ranges, that of
// cuMemAlloc.
const hostUpstreamAlign = 256

// Range is an address range [Addr, Addr+Size).
type Range struct{ Addr, Size uint64 }

// HostUpstreamStats is a HostUpstream's own accounting, for tests that
// assert what the allocator above it did.
type HostUpstreamStats struct {
	Allocs, Frees uint64 // successful calls
	BadFrees      uint64 // Free calls refused: unknown address, double free, wrong size
	Live          int    // ranges handed out and not freed
	InUse, Peak   uint64 // bytes of live ranges, and their high-water mark
}

// HostUpstream is an Upstream of synthetic addresses: no memory backs them.
// Ranges are handed out by a bump pointer from HostUpstreamBase and never
// reused, so any second Free of a range is recognised as a double free, and
// consecutive ranges are adjacent (rounded to 256 B), which is the hard case
// for an allocator that must not coalesce across upstream ranges. It is safe
// for concurrent use.
type HostUpstream struct {
	mu       sync.Mutex
	next     uint64
	capacity uint64
	live     map[uint64]uint64
	st       HostUpstreamStats
	failNext []error
	failFree []error
}

// NewHostUpstream returns a HostUpstream that holds at most capacity bytes at
// once (0 = unlimited); beyond it Alloc fails with an error wrapping
// ErrOutOfMemory, like a full device.
func NewHostUpstream(capacity uint64) *HostUpstream {
	return &HostUpstream{next: HostUpstreamBase, capacity: capacity, live: make(map[uint64]uint64)}
}

// FailNextAlloc makes the next Alloc call fail with err (queued: calls
// accumulate), so tests can simulate upstream failures.
func (h *HostUpstream) FailNextAlloc(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failNext = append(h.failNext, err)
}

// FailNextFree makes the next Free call fail with err without freeing.
func (h *HostUpstream) FailNextFree(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failFree = append(h.failFree, err)
}

// Alloc hands out the next unused range of size bytes.
func (h *HostUpstream) Alloc(size uint64) (uint64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.failNext) > 0 {
		err := h.failNext[0]
		h.failNext = h.failNext[1:]
		return 0, fmt.Errorf("host upstream: alloc of %s: %w", FormatBytes(size), err)
	}
	if size == 0 {
		return 0, fmt.Errorf("host upstream: alloc of 0 bytes")
	}
	if h.capacity > 0 && (size > h.capacity || h.st.InUse+size > h.capacity) {
		return 0, fmt.Errorf("host upstream: alloc of %s with %s of %s in use: %w",
			FormatBytes(size), FormatBytes(h.st.InUse), FormatBytes(h.capacity), ErrOutOfMemory)
	}
	step, ok := roundUp(size, hostUpstreamAlign)
	if !ok || h.next+step < h.next {
		return 0, fmt.Errorf("host upstream: alloc of %s: synthetic address space exhausted: %w",
			FormatBytes(size), ErrOutOfMemory)
	}
	addr := h.next
	h.next += step
	h.live[addr] = size
	h.st.Allocs++
	h.st.Live++
	h.st.InUse += size
	h.st.Peak = max(h.st.Peak, h.st.InUse)
	return addr, nil
}

// Free returns a range; addr and size must be exactly those of a live range.
func (h *HostUpstream) Free(addr, size uint64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.failFree) > 0 {
		err := h.failFree[0]
		h.failFree = h.failFree[1:]
		return fmt.Errorf("host upstream: free of %#x: %w", addr, err)
	}
	got, ok := h.live[addr]
	switch {
	case !ok && addr >= HostUpstreamBase && addr < h.next:
		h.st.BadFrees++
		return fmt.Errorf("host upstream: free of %#x: not the start of a live range (double free?)", addr)
	case !ok:
		h.st.BadFrees++
		return fmt.Errorf("host upstream: free of %#x: never allocated here", addr)
	case got != size:
		h.st.BadFrees++
		return fmt.Errorf("host upstream: free of %#x with size %d, allocated with %d", addr, size, got)
	}
	delete(h.live, addr)
	h.st.Frees++
	h.st.Live--
	h.st.InUse -= size
	return nil
}

// Stats returns the upstream's accounting.
func (h *HostUpstream) Stats() HostUpstreamStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st
}

// Live returns the live ranges in address order.
func (h *HostUpstream) Live() []Range {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Range, 0, len(h.live))
	for a, s := range h.live {
		out = append(out, Range{a, s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// goUpstreamAlign is the alignment GoUpstream gives its ranges, so that a
// pool on top keeps its 512 B alignment in real addresses too.
const goUpstreamAlign = 512

// goUpstreamMax bounds one GoUpstream range: make would panic (not return an
// error) past the runtime's maximum allocation.
const goUpstreamMax = 1 << 40

type goRange struct {
	addr, size uint64
	buf        []byte // keeps the memory alive and gives Slice its bytes
}

// GoUpstream is an Upstream backed by Go byte slices, so a Pool on top of it
// serves host scratch buffers. An address is that of a range's first byte,
// aligned to 512 B; the slices are kept alive until Free (Go's heap does not
// move objects, so the addresses stay valid). Slice turns an address back
// into bytes. It is safe for concurrent use.
type GoUpstream struct {
	mu       sync.Mutex
	capacity uint64
	inUse    uint64
	ranges   []goRange // sorted by addr
}

// NewGoUpstream returns a GoUpstream holding at most capacity bytes at once
// (0 = unlimited, apart from a 1 TiB cap per range); beyond it Alloc fails
// with an error wrapping ErrOutOfMemory instead of exhausting the Go heap.
func NewGoUpstream(capacity uint64) *GoUpstream {
	return &GoUpstream{capacity: capacity}
}

// Alloc allocates size zeroed bytes from the Go heap.
func (g *GoUpstream) Alloc(size uint64) (uint64, error) {
	if size == 0 {
		return 0, fmt.Errorf("go upstream: alloc of 0 bytes")
	}
	if size > goUpstreamMax {
		return 0, fmt.Errorf("go upstream: alloc of %s exceeds the %s per-range cap: %w",
			FormatBytes(size), FormatBytes(goUpstreamMax), ErrOutOfMemory)
	}
	g.mu.Lock()
	if g.capacity > 0 && g.inUse+size > g.capacity {
		defer g.mu.Unlock()
		return 0, fmt.Errorf("go upstream: alloc of %s with %s of %s in use: %w",
			FormatBytes(size), FormatBytes(g.inUse), FormatBytes(g.capacity), ErrOutOfMemory)
	}
	g.inUse += size // reserve before dropping the lock for make
	g.mu.Unlock()

	raw := make([]byte, size+goUpstreamAlign-1)
	base := uint64(uintptr(unsafe.Pointer(&raw[0])))
	off := -base & (goUpstreamAlign - 1)
	r := goRange{addr: base + off, size: size, buf: raw[off : off+size : off+size]}

	g.mu.Lock()
	defer g.mu.Unlock()
	i := sort.Search(len(g.ranges), func(i int) bool { return g.ranges[i].addr > r.addr })
	g.ranges = append(g.ranges, goRange{})
	copy(g.ranges[i+1:], g.ranges[i:])
	g.ranges[i] = r
	return r.addr, nil
}

// find returns the index of the range containing addr, or -1.
func (g *GoUpstream) find(addr uint64) int {
	i := sort.Search(len(g.ranges), func(i int) bool { return g.ranges[i].addr > addr }) - 1
	if i < 0 || addr-g.ranges[i].addr >= g.ranges[i].size {
		return -1
	}
	return i
}

// Free releases a range to the Go garbage collector.
func (g *GoUpstream) Free(addr, size uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.find(addr)
	if i < 0 || g.ranges[i].addr != addr {
		return fmt.Errorf("go upstream: free of %#x: not the start of a live range (double free or unknown address)", addr)
	}
	if g.ranges[i].size != size {
		return fmt.Errorf("go upstream: free of %#x with size %d, allocated with %d", addr, size, g.ranges[i].size)
	}
	copy(g.ranges[i:], g.ranges[i+1:])
	g.ranges[len(g.ranges)-1] = goRange{}
	g.ranges = g.ranges[:len(g.ranges)-1]
	g.inUse -= size
	return nil
}

// Slice returns the size bytes at addr, which must lie inside one live range
// (a pool block lies inside its slab). The slice is valid until that range
// is freed; its capacity is capped at size so appends cannot spill into a
// neighbouring block.
func (g *GoUpstream) Slice(addr, size uint64) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.find(addr)
	if i < 0 {
		return nil, fmt.Errorf("go upstream: slice at %#x: not inside a live range", addr)
	}
	r := g.ranges[i]
	off := addr - r.addr
	if size > r.size-off {
		return nil, fmt.Errorf("go upstream: slice %#x+%d runs past the end of range %#x+%d", addr, size, r.addr, r.size)
	}
	return r.buf[off : off+size : off+size], nil
}

// InUse returns the bytes of live ranges.
func (g *GoUpstream) InUse() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inUse
}
