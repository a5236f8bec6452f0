package operators

import (
	"context"
	"math"
	"runtime"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/opspec"
)

// Coalescing small input batches. A selective filter below the aggregate
// hands it batches of a few thousand rows (ClickBench Q14 keeps 12% of
// each 64K-row batch), too few for its parallel steps: the table probes
// a batch in parts of parallelRows rows, the ranges and the COUNT(DISTINCT)
// staging cut it into ranges of a few thousand, and the partitioned path
// routes it in ranges of routeRows, so such batches ran on one core. On
// more than one core the aggregate instead joins consecutive small batches
// (in order, so every row is seen in the same order as before) into one
// of 64K to 256K rows (16K per core) before it consumes them. A column
// that is a constant NULL in every joined batch (one the filter did not
// gather) stays a constant; the others are copied once. Batches whose columns
// differ in type (a column of the Null type in some) are not joined.
// Sums of DOUBLE values keep their batches as they come (sumsFloats).

const (
	// coalesceSmall is the largest batch that waits to be joined with
	// the next ones.
	coalesceSmall = 16 << 10
	// coalesceRows is how many rows the joined batches reach before the
	// aggregate consumes them, per core (the table probes a batch in
	// parts of parallelRows rows), within coalesceMinRows and
	// coalesceMaxRows. The cut changes no result (DOUBLE sums, whose
	// rounding depends on it, are not joined) but for the overflow of
	// an integer SUM with mixed signs near its limits, which the ranges
	// check per range (aggregate_ranges.go).
	coalesceRows    = 16 << 10
	coalesceMinRows = 64 << 10
	coalesceMaxRows = 256 << 10
	// coalesceMaxBytes bounds the string bytes of the joined batches
	// (long URLs or titles), which the join copies.
	coalesceMaxBytes = 32 << 20
)

// stringBytes returns the bytes of b's string columns (not constants).
func stringBytes(b *coldata.Batch) int {
	n := 0
	for _, v := range b.Cols {
		if v.Type.Physical() == coldata.String && !v.Const && len(v.Offsets) > v.Len {
			n += int(v.Offsets[v.Len] - v.Offsets[0])
		}
	}
	return n
}

// coalesceState is the aggregate's buffer of small batches.
type coalesceState struct {
	// sumsFloats: some aggregate adds up DOUBLE values, whose sum
	// depends on the order of the additions, which a larger batch may
	// change (it goes to the ranges of aggregate_ranges.go, where a
	// small one did not): small batches are then consumed as they come.
	sumsFloats   bool
	pending      []*coldata.Batch
	pendingRows  int
	pendingBytes int // of their string columns
	inputDone    bool
	carry        *coldata.Batch
	carrySel     []int      // carry's selection (nil: all rows)
	joinBufs     []joinBufs // per column
	// coalesceHook (tests only): > 0 replaces coalesceSmall and
	// coalesceRows by it and 4 times it; < 0 turns coalescing off.
	coalesceHook int
}

// nextInput returns the next batch to consume and its selection (nil: all
// rows; see aggregate_sel.go): the input's next batch, or several small
// ones joined (selected rows gathered first), or nil at the end of the
// input.
func (h *HashAggregate) nextInput(ctx context.Context) (*coldata.Batch, []int, error) {
	small, target := coalesceSmall, min(max(coalesceRows*runtime.GOMAXPROCS(0), coalesceMinRows), coalesceMaxRows)
	switch {
	case h.coalesceHook > 0:
		small, target = h.coalesceHook, 4*h.coalesceHook
	case h.coalesceHook < 0 || runtime.GOMAXPROCS(0) < 2 || h.sumsFloats:
		return h.nextSelected(ctx)
	}
	if c := h.carry; c != nil {
		// A batch that could not join the last ones is consumed as it is
		// (a large one) or starts the next.
		csel := h.carrySel
		h.carry, h.carrySel = nil, nil
		if keptRows(c, csel) > small {
			return c, csel, nil
		}
		if csel != nil {
			c = h.densify(c, csel)
		}
		h.pending, h.pendingRows, h.pendingBytes = append(h.pending, c), c.Len, stringBytes(c)
	}
	for !h.inputDone {
		b, sel, err := h.nextSelected(ctx)
		if err != nil {
			return nil, nil, err
		}
		if b == nil {
			h.inputDone = true
			break
		}
		kept := keptRows(b, sel)
		if kept == 0 {
			continue
		}
		if len(h.pending) == 0 && kept > small {
			return b, sel, nil
		}
		if len(h.pending) > 0 && (kept > small || !joinable(h.pending[0], b)) {
			// A large batch is not copied to join the small ones before
			// it (a scan's batches split at segment boundaries: a few
			// thousand rows, then 60K). Its selection stays valid: the
			// input is not read before it is taken.
			h.carry, h.carrySel = b, sel
			break
		}
		if sel != nil {
			b = h.densify(b, sel)
		}
		h.pending = append(h.pending, b)
		h.pendingRows += b.Len
		h.pendingBytes += stringBytes(b)
		if h.pendingRows >= target || b.Len > small || h.pendingBytes >= coalesceMaxBytes {
			break
		}
	}
	return h.joinPending(), nil, nil
}

// keptRows is the number of rows of b that sel keeps (nil: all).
func keptRows(b *coldata.Batch, sel []int) int {
	if sel != nil {
		return len(sel)
	}
	return b.Len
}

// joinable reports whether batches a and b can be joined: the same
// columns, each of one type in both (a column may be of the Null type in
// some batches, which the aggregate reads as NULLs of its type, and
// ConcatVecs cannot join with others).
func joinable(a, b *coldata.Batch) bool {
	if len(a.Cols) != len(b.Cols) {
		return false
	}
	for c, v := range a.Cols {
		if b.Cols[c].Type != v.Type {
			return false
		}
	}
	return true
}

// joinPending returns the pending batches as one (nil when none) and
// empties the buffer.
func (h *HashAggregate) joinPending() *coldata.Batch {
	bs := h.pending
	defer func() {
		clear(h.pending)
		h.pending, h.pendingRows, h.pendingBytes = h.pending[:0], 0, 0
	}()
	switch len(bs) {
	case 0:
		return nil
	case 1:
		return bs[0]
	}
	total := h.pendingRows
	ncols := len(bs[0].Cols)
	out := &coldata.Batch{Cols: make([]*coldata.Vec, ncols), Len: total}
	for len(h.joinBufs) < ncols {
		h.joinBufs = append(h.joinBufs, joinBufs{})
	}
	// The columns are copied on as many goroutines: the copy is the
	// consumer's, and with TPC-H Q1's seven columns of SF10 it was most of
	// the query's time on one goroutine.
	parallelDo(runtime.GOMAXPROCS(0), ncols, func(_, c int) {
		vecs := make([]*coldata.Vec, len(bs))
		nullConst := true
		for i, b := range bs {
			v := b.Cols[c]
			vecs[i] = v
			nullConst = nullConst && v.Const && v.Type == bs[0].Cols[c].Type && v.IsNull(0)
		}
		if nullConst {
			out.Cols[c] = coldata.NewConst(vecs[0].Type, nil, total)
			return
		}
		if v := h.joinVecs(c, vecs, total); v != nil {
			out.Cols[c] = v
			return
		}
		out.Cols[c] = coldata.ConcatVecs(vecs, total)
	})
	return out
}

// joinBufs are the buffers of one column of the joined batches, reused
// from one joined batch to the next: the aggregate copies what it keeps
// of a batch (keys, strings, staged values) before it asks for the next,
// and memory new to the process costs a page fault per 4 KiB.
type joinBufs struct {
	ints   []int64
	floats []float64
	decs   []decimal.Int128
	offs   []int32
	bytes  []byte
	nulls  []byte
}

// joinVecs joins vectors (not constant, one type) of BIGINT, DOUBLE,
// DECIMAL or string columns into column c's reused buffers; it returns
// nil for others.
func (h *HashAggregate) joinVecs(c int, vecs []*coldata.Vec, total int) *coldata.Vec {
	phys := vecs[0].Type.Physical()
	if phys != coldata.Int64 && phys != coldata.String && phys != coldata.Float64 && phys != coldata.Decimal {
		return nil
	}
	anyNull := false
	for _, v := range vecs {
		if v.Const {
			return nil
		}
		anyNull = anyNull || v.Nulls != nil
	}
	jb := &h.joinBufs[c]
	out := &coldata.Vec{Type: vecs[0].Type, Len: total}
	if anyNull {
		jb.nulls = growPooled(&bytePool, jb.nulls, coldata.BitmapLen(total))
		clear(jb.nulls)
		at := 0
		for _, v := range vecs {
			for i := 0; i < v.Len; i++ {
				if !v.IsNull(i) {
					coldata.SetBit(jb.nulls, at+i)
				}
			}
			at += v.Len
		}
		out.Nulls = jb.nulls
	}
	switch phys {
	case coldata.Int64:
		jb.ints = growPooled(&int64Pool, jb.ints, total)
		out.Ints = concatInto(jb.ints, vecs, func(v *coldata.Vec) []int64 { return v.Ints })
		return out
	case coldata.Float64:
		jb.floats = growSlice(jb.floats, total)
		out.Floats = concatInto(jb.floats, vecs, func(v *coldata.Vec) []float64 { return v.Floats })
		return out
	case coldata.Decimal:
		jb.decs = growSlice(jb.decs, total)
		out.Decs = concatInto(jb.decs, vecs, func(v *coldata.Vec) []decimal.Int128 { return v.Decs })
		return out
	}
	size := 0
	for _, v := range vecs {
		size += int(v.Offsets[v.Len] - v.Offsets[0])
	}
	if size > math.MaxInt32 {
		return nil
	}
	jb.offs = growPooled(&int32Pool, jb.offs, total+1)
	jb.bytes = growPooled(&bytePool, jb.bytes, size)
	at, pos := 0, int32(0)
	jb.offs[0] = 0
	for _, v := range vecs {
		base := v.Offsets[0]
		copy(jb.bytes[pos:], v.Bytes[base:v.Offsets[v.Len]])
		for i := 1; i <= v.Len; i++ {
			jb.offs[at+i] = pos + v.Offsets[i] - base
		}
		at += v.Len
		pos = jb.offs[at]
	}
	out.Offsets, out.Bytes = jb.offs, jb.bytes
	return out
}

// concatInto copies the values of vecs (data of each read by vals) one
// after another into dst, and returns dst.
func concatInto[T any](dst []T, vecs []*coldata.Vec, vals func(*coldata.Vec) []T) []T {
	at := 0
	for _, v := range vecs {
		at += copy(dst[at:], vals(v)[:v.Len])
	}
	return dst
}

// growSlice returns s with length n, replaced by a larger slice (its
// contents undefined) when too short.
func growSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, max(n, 2*cap(s)))
	}
	return s[:n]
}

// growPooled returns s with length n, replaced by a slice from p (its
// contents undefined) when too short.
func growPooled[T any](p *slicePool[T], s []T, n int) []T {
	if cap(s) < n {
		p.put(s)
		return p.get(max(n, 2*cap(s)))[:n]
	}
	return s[:n]
}

// releaseJoinBufs returns the joined batches' buffers to their pools.
func (h *HashAggregate) releaseJoinBufs() {
	for _, jb := range h.joinBufs {
		int64Pool.put(jb.ints)
		int32Pool.put(jb.offs)
		bytePool.put(jb.bytes)
		bytePool.put(jb.nulls)
	}
	h.joinBufs = nil
}

// addsFloats reports whether aggregate spec adds up DOUBLE values (SUM,
// AVG and the variance family over a DOUBLE argument; over integers the
// float sums of AVG are exact, whatever the order, below 2^53).
func addsFloats(spec opspec.AggSpec) bool {
	if spec.Arg == nil || spec.Arg.Type() != coldata.Float64 {
		return false
	}
	return spec.Kind == opspec.AggSum || spec.Kind == opspec.AggAvg || isVariance(spec.Kind)
}
