package operators

import "sync/atomic"

// HostBytes follows the host memory an operator's state holds (buffered
// batches, a hash table, write buffers) as it grows and is released, and
// the peak it reached, which EXPLAIN ANALYZE shows as peak_host_bytes.
// Operators count a batch or a growth step at a time, never a row, so it
// stays on. The zero value holds nothing; it is safe for concurrent use
// (a shared CTE's readers, parallel workers).
type HostBytes struct {
	cur, peak atomic.Int64
}

// Grow counts n more bytes held.
func (h *HostBytes) Grow(n int64) {
	if n <= 0 {
		return
	}
	cur := h.cur.Add(n)
	for {
		p := h.peak.Load()
		if cur <= p || h.peak.CompareAndSwap(p, cur) {
			return
		}
	}
}

// Release counts n bytes no longer held.
func (h *HostBytes) Release(n int64) {
	if n > 0 {
		h.cur.Add(-n)
	}
}

// ReleaseAll counts everything released (the operator dropped its
// state); the peak stays.
func (h *HostBytes) ReleaseAll() { h.cur.Store(0) }

// Held is the bytes held now.
func (h *HostBytes) Held() int64 { return h.cur.Load() }

// Peak is the most bytes held at once.
func (h *HostBytes) Peak() int64 { return h.peak.Load() }

// peakHolder is an operator that follows its host memory (HostBytes).
type peakHolder interface{ PeakHostBytes() int64 }
