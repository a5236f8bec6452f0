package coldata

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/gsqlengine/gsql/decimal"
)

// Recycling the data buffers of dead vectors.
//
// An expression over a batch of 64Ki rows writes a fresh result vector
// per call (1 MiB for a DECIMAL), and a filter gathers the kept rows of
// every column it passes on into fresh vectors. Memory new to the process
// faults into the kernel page by page (more than the arithmetic that
// fills it: docs/benchlog/2026-11-26-clickbench-cpu.md), and a process
// holding a large table seldom collects, so dropped vectors are seldom
// reused. Code that knows a vector is dead (an intermediate result inside
// one expression evaluation, a gathered column that only a computed
// expression read) hands its buffer back with Recycle, and AllocVec and
// Gather take the next buffers from there. The pools are sync.Pools: the
// buffers still go back to the runtime under collection.

// poolMinRows is the fewest rows a pooled buffer holds: smaller vectors
// are cheap to allocate and mostly come from the allocator's caches.
const poolMinRows = 4 << 10

// poolRoundRows is the largest size a fresh buffer is rounded up to a
// power of two for, so that it can serve the next batch of a slightly
// different size (a filter's kept rows vary from batch to batch).
// Larger ones (a join's gathered output) are allocated exactly.
const poolRoundRows = 1 << 17

// bufPool holds slices of T by capacity class: class c holds slices of
// capacity at least 1<<c.
type bufPool[T any] struct {
	classes [48]sync.Pool
}

var (
	decPool   bufPool[decimal.Int128]
	int64Pool bufPool[int64]
	floatPool bufPool[float64]
	bytePool  bufPool[byte]
)

// get returns a slice of length n with undefined contents.
func (p *bufPool[T]) get(n int) []T {
	if n < poolMinRows {
		return make([]T, n)
	}
	c := bits.Len(uint(n - 1)) // 1<<c >= n
	if s, ok := p.classes[c].Get().(*[]T); ok {
		return (*s)[:n]
	}
	if n <= poolRoundRows {
		return make([]T, n, 1<<c)
	}
	return make([]T, n)
}

// put offers s for reuse; nothing may read or write it afterwards.
func (p *bufPool[T]) put(s []T) {
	c := cap(s)
	if c < poolMinRows {
		return
	}
	s = s[:0]
	p.classes[bits.Len(uint(c))-1].Put(&s) // 1<<class <= c
}

// AllocVec returns a non-constant vector of n rows with no NULLs whose
// values are undefined: the caller writes every row (NULL rows too, with
// any value). BOOLEAN, BIGINT-backed, DOUBLE and DECIMAL vectors take a
// recycled buffer when there is one; other types are allocated as NewVec
// does.
func AllocVec(t Type, n int) *Vec {
	v := &Vec{Type: t, Len: n}
	switch t.Physical() {
	case Bool:
		v.Bools = bytePool.get(n)
	case Int64:
		v.Ints = int64Pool.get(n)
	case Float64:
		v.Floats = floatPool.get(n)
	case Decimal:
		v.Decs = decPool.get(n)
	default:
		return NewVec(t, n)
	}
	return v
}

// Recycle hands the data buffer of v (a non-constant BOOLEAN,
// BIGINT-backed, DOUBLE or DECIMAL vector) back for reuse by AllocVec and
// Gather. The caller vouches that nothing reads v or any vector sharing
// its data afterwards: callers check candidates against the vectors that
// stay alive with SharesData. Other vectors are left alone.
func Recycle(v *Vec) {
	if v == nil || v.Const {
		return
	}
	switch v.Type.Physical() {
	case Bool:
		bytePool.put(v.Bools)
		v.Bools = nil
	case Int64:
		int64Pool.put(v.Ints)
		v.Ints = nil
	case Float64:
		floatPool.put(v.Floats)
		v.Floats = nil
	case Decimal:
		decPool.put(v.Decs)
		v.Decs = nil
	}
}

// Recyclable reports whether Recycle would take v's buffer: a
// non-constant vector of a pooled type with at least poolMinRows of
// capacity.
func Recyclable(v *Vec) bool {
	if v == nil || v.Const {
		return false
	}
	switch v.Type.Physical() {
	case Bool:
		return cap(v.Bools) >= poolMinRows
	case Int64:
		return cap(v.Ints) >= poolMinRows
	case Float64:
		return cap(v.Floats) >= poolMinRows
	case Decimal:
		return cap(v.Decs) >= poolMinRows
	}
	return false
}

// span is the memory a slice can reach: its first element to the end of
// its capacity.
type span struct{ lo, hi uintptr }

func spanOf[T any](s []T) span {
	if cap(s) == 0 {
		return span{}
	}
	var zero T
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return span{p, p + uintptr(cap(s))*unsafe.Sizeof(zero)}
}

func (s span) overlaps(t span) bool {
	return s.lo < s.hi && t.lo < t.hi && s.lo < t.hi && t.lo < s.hi
}

// dataSpan is the memory of the buffer Recycle would take (empty for
// types it leaves alone).
func (v *Vec) dataSpan() span {
	switch v.Type.Physical() {
	case Bool:
		return spanOf(v.Bools)
	case Int64:
		return spanOf(v.Ints)
	case Float64:
		return spanOf(v.Floats)
	case Decimal:
		return spanOf(v.Decs)
	}
	return span{}
}

// spans lists the memory every slice of v can reach.
func (v *Vec) spans() [7]span {
	return [7]span{spanOf(v.Nulls), spanOf(v.Bools), spanOf(v.Ints), spanOf(v.Floats),
		spanOf(v.Offsets), spanOf(v.Bytes), spanOf(v.Decs)}
}

// SharesData reports whether the data buffer of v (the one Recycle would
// take) overlaps any slice of w.
func SharesData(v, w *Vec) bool {
	if v == nil || w == nil {
		return false
	}
	d := v.dataSpan()
	for _, s := range w.spans() {
		if d.overlaps(s) {
			return true
		}
	}
	return false
}

// RecycleUnshared recycles each vector of dead whose data buffer no
// vector of live shares (nor an earlier one of dead: a buffer goes back
// once). The caller vouches that nothing outside live reads any of dead
// afterwards.
func RecycleUnshared(dead, live []*Vec) {
	var gone []span
next:
	for _, d := range dead {
		if !Recyclable(d) {
			continue
		}
		for _, w := range live {
			if SharesData(d, w) {
				continue next
			}
		}
		s := d.dataSpan()
		for _, g := range gone {
			if s.overlaps(g) {
				continue next
			}
		}
		gone = append(gone, s)
		Recycle(d)
	}
}
