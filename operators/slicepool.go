package operators

import (
	"math/bits"
	"sync"
)

// Reusing large operator buffers across queries.
//
// A GROUP BY with a million groups allocates hundreds of megabytes of
// slots, hashes, accumulators and growing key columns, and drops them
// when the query ends. Memory new to the process is expensive to touch
// (every 4 KiB page faults into the kernel, which costs far more than
// clearing memory already mapped: BenchmarkGroupByRepeated,
// docs/benchlog/2026-11-26-clickbench-cpu.md), and the Go heap only
// reuses dropped memory after a collection, which a process holding a
// large table seldom runs.
// The pools below keep such buffers, by power-of-two capacity, for the
// next operator (typically the next run of the same query), as the buffer
// managers of native engines keep theirs. They are sync.Pools, so the
// memory still returns to the runtime under collection.
//
// Only buffers that nothing else references may go back: a hash table's
// slots and hashes, accumulators once the output is built, and key
// columns that grew into a larger copy or were merged elsewhere. A key
// column the output aliases (hashTable.column) must never be pooled.

// poolMinBytes is the smallest buffer kept: smaller ones are cheap to
// allocate and mostly served by the allocator's caches.
const poolMinBytes = 64 << 10

// slicePool holds slices of T by capacity class (a power of two).
type slicePool[T any] struct {
	size    int // bytes per element
	classes [48]sync.Pool
}

var (
	uint64Pool = slicePool[uint64]{size: 8}
	int64Pool  = slicePool[int64]{size: 8}
	intPool    = slicePool[int]{size: 8}
	int32Pool  = slicePool[int32]{size: 4}
	uint32Pool = slicePool[uint32]{size: 4}
	bytePool   = slicePool[byte]{size: 1}
)

// get returns a slice of length n whose contents are undefined, with a
// capacity of at least n (a power of two when it comes from the pool or
// is large enough to go back to it).
func (p *slicePool[T]) get(n int) []T {
	if n*p.size < poolMinBytes {
		return make([]T, n)
	}
	c := bits.Len(uint(n - 1))
	if s, ok := p.classes[c].Get().(*[]T); ok {
		return (*s)[:n]
	}
	return make([]T, n, 1<<c)
}

// getZeroed is get with every element zero.
func (p *slicePool[T]) getZeroed(n int) []T {
	s := p.get(n)
	clear(s)
	return s
}

// put offers s for reuse; the caller must not touch it afterwards.
func (p *slicePool[T]) put(s []T) {
	c := cap(s)
	if c*p.size < poolMinBytes || c&(c-1) != 0 {
		return
	}
	s = s[:0]
	p.classes[bits.TrailingZeros(uint(c))].Put(&s)
}

// grow returns s with room for extra more elements, as reserve does, but
// takes the larger slice from p and puts the old one back: for buffers
// that nothing else references while they grow.
func (p *slicePool[T]) grow(s []T, extra int) []T {
	if len(s)+extra <= cap(s) {
		return s
	}
	ns := p.get(max(2*cap(s), len(s)+extra, 16))[:len(s)]
	copy(ns, s)
	p.put(s)
	return ns
}
