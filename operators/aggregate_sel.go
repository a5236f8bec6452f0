package operators

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Reading a filter's rows through its selection. A filter that keeps most
// rows of a batch, below a GROUP BY, gathered every column it passed into
// fresh vectors: at 90% kept the gathers were about a third of such a
// query on the CPU (bench --suite random --seed 2029 r074, a filter on
// IsRefresh under GROUP BY EXTRACT(day FROM EventTime)). The aggregate
// instead asks its filter (LendSelections) for each input batch whole with
// the rows kept as a selection, and reads the rows through it:
//
//   - a key that is a plain column is copied through the selection into
//     the key's own buffers (keyVec.gather), which hashing needed anyway;
//   - an argument that is a plain column is read through the selection
//     by the accumulation (updateVec's vsel), where the gathered path
//     compacted it or read it as it was;
//   - computed keys and arguments evaluate over a dense batch of only the
//     columns they read, gathered (an expression must not see the rows
//     the filter dropped: they may fail or warn);
//   - the columns no key or argument reads (the predicate's) are not
//     gathered at all.
//
// Batches the aggregate cannot read that way are made dense first
// (densify), gathering only the columns the aggregate reads: DISTINCT,
// GROUP_CONCAT and quantile aggregates (they keep row-level state), the
// FirstGroups cut, the partitioned path, and small selections that the
// aggregate joins with the next ones (aggregate_coalesce.go).

// selState is the selection path's state in a HashAggregate.
type selState struct {
	// selHook (tests only): < 0 makes every batch dense before the
	// aggregate reads it (the gathered path); > 0 reads every selected
	// batch through its selection, however few rows it keeps, and asks a
	// ParallelCompute below for selections with keys too.
	selHook int
	// selTraceHook (tests only) is called for each batch read through
	// its selection.
	selTraceHook func()
	// selOK: the aggregates can read selected batches (decided at Open);
	// selStopped: the input was told to stop lending them.
	selOK, selStopped bool
	// keyRef and argRef are the input columns of keys and arguments that
	// are plain columns (-1: computed, or no argument).
	keyRef, argRef []int
	// evalNeed marks the columns computed keys and arguments read, which
	// the dense batch of a selected one gathers; allNeed the columns any
	// key, argument or GROUP_CONCAT order reads, which densify gathers.
	evalNeed, allNeed []bool
	// The batch being consumed: its selection (nil: all rows, dense) and
	// the batch its computed keys and arguments evaluate over (the batch
	// itself when dense).
	bsel []int32
	db   *coldata.Batch
	// selKeys are the keys of a selected batch prepared whole, before
	// their selected rows are copied into keys.
	selKeys []keyVec
	// rsels are the selections updateRanges reads its arguments through.
	rsels [][]int32
	// cidx is updateVec's scratch for the selected rows of a selection.
	cidx []int32
	// dense lists the vectors gathered for the batches consumed since the
	// last hand-back, recycled with it.
	dense []*coldata.Vec
}

// selMinKeptShift sets the fewest rows a selected batch keeps for the
// aggregate to read it through its selection: one in 1<<selMinKeptShift
// of the batch's rows. Sparser ones are gathered first (densify): read
// through a sparse selection, each aggregate of a column touches its
// cache lines again, where the gathered column is dense (BenchmarkFilter
// GroupBy on one core: the selection 8% slower at 10% kept, 7-13% faster
// from 15%; docs/benchlog/2026-11-30-selection.md).
const selMinKeptShift = 3

// openSel decides, for Open, whether the aggregate reads selections and
// which of its keys and arguments are plain columns, and asks a filter
// below to lend them.
func (h *HashAggregate) openSel() {
	h.selState = selState{selHook: h.selHook, selTraceHook: h.selTraceHook, selKeys: h.selKeys, rsels: h.rsels, cidx: h.cidx}
	h.selOK = h.FirstGroups == 0 && h.selHook >= 0
	mark := func(need *[]bool, e expr.Expr) {
		for c := range expr.Columns(e) {
			for len(*need) <= c {
				*need = append(*need, false)
			}
			(*need)[c] = true
		}
	}
	h.keyRef = make([]int, len(h.Keys))
	for i, k := range h.Keys {
		h.keyRef[i] = -1
		if ref, ok := k.(*expr.ColumnRef); ok {
			h.keyRef[i] = ref.Index
		} else {
			mark(&h.evalNeed, k)
		}
		mark(&h.allNeed, k)
	}
	h.argRef = make([]int, len(h.Aggs))
	for a := range h.Aggs {
		spec := &h.Aggs[a]
		h.argRef[a] = -1
		if spec.Distinct || spec.Kind == opspec.AggGroupConcat || spec.Kind == opspec.AggQuantileCont || spec.Kind == opspec.AggQuantileDisc {
			h.selOK = false
		}
		for _, o := range spec.Order {
			mark(&h.allNeed, o.Expr)
		}
		if spec.Arg == nil {
			continue
		}
		mark(&h.allNeed, spec.Arg)
		arg := spec.Arg
		if x := IntAsDecimalArg(spec); x != nil {
			arg = x
		}
		if ref, ok := arg.(*expr.ColumnRef); ok {
			h.argRef[a] = ref.Index
		} else {
			mark(&h.evalNeed, spec.Arg)
		}
	}
	for len(h.selKeys) < len(h.Keys) {
		h.selKeys = append(h.selKeys, keyVec{})
	}
	// A ParallelCompute lends only to an aggregate without keys: the
	// keys of a lent batch are copied on the consumer's goroutine, where
	// the workers gathered them while the aggregate consumed the batch
	// before (bench --suite random --seed 2029 r100 at 1M rows, two
	// plain-column keys: 7.9 ms -> 9.6; BenchmarkFilterGroupBy/parallel
	// with one key the same time, without keys 5.8 ms -> 3.8).
	lendSelections(h.Input, h.selOK && (len(h.Keys) == 0 || h.selHook > 0))
}

// nextSelected returns the input's next batch and its selection (nil: all
// rows): a lending filter's view and kept rows, or any other input's
// batch.
func (h *HashAggregate) nextSelected(ctx context.Context) (*coldata.Batch, []int, error) {
	if src, ok := h.Input.(selectionSource); ok {
		return src.NextSelection(ctx)
	}
	b, err := h.Input.Next(ctx)
	return b, nil, err
}

// readsSel reports whether the aggregate reads a batch of n rows keeping
// kept of them through its selection.
func (h *HashAggregate) readsSel(n, kept int) bool {
	if !h.selOK {
		return false
	}
	if h.table != nil && (h.parts != nil || h.wantParts(kept)) {
		// The parts read their rows where they lie: a ParallelCompute
		// below gathers them on its workers from now on.
		if !h.selStopped {
			h.selStopped = true
			stopLending(h.Input)
		}
		return false
	}
	return h.selHook > 0 || kept<<selMinKeptShift >= n
}

// densify returns the rows sel of b as a dense batch of the columns the
// aggregate reads (the others constant NULLs), and hands b back to the
// input: nothing reads it afterwards.
func (h *HashAggregate) densify(b *coldata.Batch, sel []int) *coldata.Batch {
	out := h.gatherCols(b, sel, h.allNeed)
	releaseInput(h.Input, b, nil)
	return out
}

// gatherCols returns rows sel of b's columns marked in need, the others
// as constant NULLs of their type; the gathered vectors are recycled once
// the batch is handed back (recycleDense).
func (h *HashAggregate) gatherCols(b *coldata.Batch, sel []int, need []bool) *coldata.Batch {
	n := len(sel)
	cols := make([]*coldata.Vec, len(b.Cols))
	for i, c := range b.Cols {
		if i < len(need) && need[i] {
			cols[i] = coldata.Gather(c, sel)
			h.dense = append(h.dense, cols[i])
		} else {
			cols[i] = coldata.NewConst(c.Type, nil, n)
		}
	}
	return &coldata.Batch{Cols: cols, Len: n}
}

// recycleDense recycles the vectors gathered for the batches consumed,
// once the aggregate is done with them (keys copied into the table,
// values into states).
func (h *HashAggregate) recycleDense() {
	for i, v := range h.dense {
		coldata.Recycle(v)
		h.dense[i] = nil
	}
	h.dense = h.dense[:0]
}

// startBatch sets the batch being consumed: b with its selection sel (nil:
// dense), converted to row numbers the accumulators take; it returns the
// number of rows.
func (h *HashAggregate) startBatch(b *coldata.Batch, sel []int) int {
	if sel == nil {
		h.bsel, h.db = nil, b
		return b.Len
	}
	s := h.bsel[:0]
	if cap(s) < len(sel) {
		int32Pool.put(s)
		s = int32Pool.get(len(sel))[:0]
	}
	for _, r := range sel {
		s = append(s, int32(r))
	}
	h.bsel = s
	if h.selTraceHook != nil {
		h.selTraceHook()
	}
	if len(h.evalNeed) > 0 {
		h.db = h.gatherCols(b, sel, h.evalNeed)
	} else {
		// Computed keys and arguments that read no column (literals)
		// need only the length.
		h.db = &coldata.Batch{Cols: constNulls(b), Len: len(sel)}
	}
	return len(sel)
}

// constNulls returns constant NULLs for b's columns.
func constNulls(b *coldata.Batch) []*coldata.Vec {
	cols := make([]*coldata.Vec, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = coldata.NewConst(c.Type, nil, 1)
	}
	return cols
}

// endBatch forgets the batch being consumed.
func (h *HashAggregate) endBatch() {
	if h.bsel != nil {
		h.bsel = h.bsel[:0]
	}
	h.db = nil
}

// selected reports whether the batch being consumed is read through a
// selection.
func (h *HashAggregate) selected() bool { return h.bsel != nil && h.db != nil }

// prepareKeys evaluates the keys over batch b (n rows) into h.keys.
func (h *HashAggregate) prepareKeys(b *coldata.Batch, n int) error {
	for i, k := range h.Keys {
		if h.selected() && h.keyRef[i] >= 0 {
			if err := h.keys[i].prepareSel(&h.selKeys[i], b.Cols[h.keyRef[i]], b.Len, h.bsel, h.table.types[i]); err != nil {
				return err
			}
			continue
		}
		v, err := expr.EvalWarn(k, h.db, h.warn)
		if err != nil {
			return err
		}
		if err := h.keys[i].prepareAs(v, n, h.table.types[i]); err != nil {
			return err
		}
	}
	return nil
}

// prepareSel is prepareAs for rows sel of v (a column of len rows):
// the column is prepared whole in full, and the selected rows copied into
// kv's buffers.
func (kv *keyVec) prepareSel(full *keyVec, v *coldata.Vec, rows int, sel []int32, t coldata.Type) error {
	if v.Const || v.Type == coldata.Null {
		c := *v
		c.Len = len(sel)
		return kv.prepareAs(&c, len(sel), t)
	}
	if err := full.prepareAs(v, rows, t); err != nil {
		return err
	}
	kv.gatherSel(full, sel)
	return nil
}

// selGatherRows is the fewest selected rows per goroutine copying a
// fixed-width key.
const selGatherRows = 1 << 14

// gatherSel is kv.gather(src, rows), a fixed-width key of many rows
// copied on several goroutines: the consumer copies the keys of a batch
// before the ranges hash them on every core, and a ParallelCompute below
// used to gather them on its workers (bench --suite random --seed 2029
// r100 at 1M rows, a GROUP BY of two plain columns).
func (kv *keyVec) gatherSel(src *keyVec, rows []int32) {
	m := len(rows)
	workers := min(runtime.GOMAXPROCS(0), m/selGatherRows)
	if workers < 2 || src.allNull || src.t == coldata.String {
		kv.gather(src, rows)
		return
	}
	g := keyVec{t: src.t, scratch: kv.scratch, gfloats: kv.gfloats, gnulls: kv.gnulls, goffs: kv.goffs, gbytes: kv.gbytes}
	if src.nulls != nil {
		nb := coldata.BitmapLen(m)
		if cap(g.gnulls) < nb {
			g.gnulls = make([]byte, nb)
		}
		g.nulls = g.gnulls[:nb]
	}
	g.fixed = g.grow(m)
	if src.floats != nil {
		if cap(g.gfloats) < m {
			g.gfloats = make([]float64, m)
		}
		g.floats = g.gfloats[:m]
	}
	step := ((m+workers-1)/workers + 7) &^ 7 // whole bytes of the bitmap
	parallelDo(workers, workers, func(_, w int) {
		lo, hi := w*step, min((w+1)*step, m)
		if lo >= hi {
			return
		}
		fixed, rs := g.fixed[lo:hi], rows[lo:hi]
		for i, r := range rs {
			fixed[i] = src.fixed[r]
		}
		if g.floats != nil {
			fl := g.floats[lo:hi]
			for i, r := range rs {
				fl[i] = src.floats[r]
			}
		}
		if g.nulls != nil {
			clear(g.nulls[lo>>3 : (hi+7)>>3])
			for i, r := range rs {
				if !src.isNull(int(r)) {
					g.nulls[(lo+i)>>3] |= 1 << ((lo + i) & 7)
				}
			}
		}
	})
	*kv = g
}

// argOf evaluates aggregate a's argument over the batch b being consumed:
// a plain column of a selected batch comes whole, with the selection to
// read it through; any other argument evaluates over the dense rows.
func (h *HashAggregate) argOf(a int, b *coldata.Batch) (*coldata.Vec, []int32, error) {
	if h.selected() && h.argRef[a] >= 0 {
		return b.Cols[h.argRef[a]], h.bsel, nil
	}
	v, err := evalAggArg(&h.Aggs[a], h.db, h.warn)
	return v, nil, err
}

// releaseSel returns the selection path's buffers to their pools (the
// gathered vectors are left to the collector: an aggregate that keeps
// row-level state may still read them).
func (h *HashAggregate) releaseSel() {
	for i := range h.selKeys {
		h.selKeys[i].release()
	}
	int32Pool.put(h.bsel)
	int32Pool.put(h.cidx)
	h.bsel, h.cidx, h.db = nil, nil, nil
	clear(h.dense)
	h.dense = h.dense[:0]
}

// composeSel returns vsel[rows[j]] for each j, in dst's buffer.
func composeSel(dst, vsel, rows []int32) []int32 {
	dst = dst[:0]
	for _, r := range rows {
		dst = append(dst, vsel[r])
	}
	return dst
}

// clip returns s[:n], or nil for nil.
func clip[T any](s []T, n int) []T {
	if s == nil {
		return nil
	}
	return s[:n]
}

// updateIndexed is updateVec's accumulation for SUM, AVG, MIN and MAX of
// BIGINT and DOUBLE values read through idx (value idx[i] for row i of
// groups gs), as updateVec's loops over the values compacted would: the
// same states, in the same row order, with the same errors. st starts at
// the aggregate's first word; without GROUP BY gs is all zeros and the
// state stays in locals. It reports whether it took the aggregate.
func (h *HashAggregate) updateIndexed(spec *opspec.AggSpec, ar *aggRun, st []uint64, stride int, gs []uint32, ints []int64, floats []float64, idx []int32) (bool, error) {
	single := h.table == nil
	idx = idx[:len(gs)]
	switch spec.Kind {
	case opspec.AggSum, opspec.AggAvg:
		switch {
		case ints != nil && spec.Arg.Type().IsDecimal():
			if single {
				lo, hi := st[0], st[2]
				for _, r := range idx {
					x := ints[r]
					nlo := lo + uint64(x)
					if nlo < lo {
						hi++
					}
					lo, hi = nlo, hi+uint64(x>>63)
				}
				st[0], st[2] = lo, hi
				st[1] += uint64(len(idx))
				return true, nil
			}
			for i, g := range gs {
				w := int(g) * stride
				x := ints[idx[i]]
				lo := st[w] + uint64(x)
				carry := uint64(0)
				if lo < st[w] {
					carry = 1
				}
				st[w] = lo
				st[w+2] += uint64(x>>63) + carry
				st[w+1]++
			}
			return true, nil
		case spec.Kind == opspec.AggSum && spec.Type == coldata.Int64 && ints != nil:
			ar.intSum = true
			if single {
				sum := int64(st[0])
				for _, r := range idx {
					x := ints[r]
					t := sum + x
					if (sum^t)&(x^t) < 0 {
						return true, fmt.Errorf("BIGINT value is out of range in SUM")
					}
					sum = t
				}
				st[0] = uint64(sum)
				st[1] += uint64(len(idx))
				return true, nil
			}
			for i, g := range gs {
				w := int(g) * stride
				x, s := ints[idx[i]], int64(st[w])
				sum := s + x
				if (s^sum)&(x^sum) < 0 {
					return true, fmt.Errorf("BIGINT value is out of range in SUM")
				}
				st[w] = uint64(sum)
				st[w+1]++
			}
			return true, nil
		case ints != nil:
			if single {
				sum := math.Float64frombits(st[0])
				for _, r := range idx {
					sum += float64(ints[r])
				}
				st[0] = math.Float64bits(sum)
				st[1] += uint64(len(idx))
				return true, nil
			}
			for i, g := range gs {
				w := int(g) * stride
				st[w] = math.Float64bits(math.Float64frombits(st[w]) + float64(ints[idx[i]]))
				st[w+1]++
			}
			return true, nil
		case floats != nil:
			if single {
				sum := math.Float64frombits(st[0])
				for _, r := range idx {
					sum += floats[r]
				}
				st[0] = math.Float64bits(sum)
				st[1] += uint64(len(idx))
				return true, nil
			}
			for i, g := range gs {
				w := int(g) * stride
				st[w] = math.Float64bits(math.Float64frombits(st[w]) + floats[idx[i]])
				st[w+1]++
			}
			return true, nil
		}
	case opspec.AggMin, opspec.AggMax:
		min := spec.Kind == opspec.AggMin
		switch {
		case ints != nil:
			if single {
				if len(idx) == 0 {
					return true, nil
				}
				cur, set := int64(st[0]), st[1] != 0
				for _, r := range idx {
					x := ints[r]
					if !set || (min && x < cur) || (!min && x > cur) {
						cur, set = x, true
					}
				}
				st[0], st[1] = uint64(cur), 1
				return true, nil
			}
			if min {
				for i, g := range gs {
					w := int(g) * stride
					if x := ints[idx[i]]; st[w+1] == 0 || x < int64(st[w]) {
						st[w], st[w+1] = uint64(x), 1
					}
				}
			} else {
				for i, g := range gs {
					w := int(g) * stride
					if x := ints[idx[i]]; st[w+1] == 0 || x > int64(st[w]) {
						st[w], st[w+1] = uint64(x), 1
					}
				}
			}
			return true, nil
		case floats != nil:
			if single {
				if len(idx) == 0 {
					return true, nil
				}
				cur, set := math.Float64frombits(st[0]), st[1] != 0
				for _, r := range idx {
					x := floats[r]
					if !set || (min && x < cur) || (!min && x > cur) {
						cur, set = x, true
					}
				}
				st[0], st[1] = math.Float64bits(cur), 1
				return true, nil
			}
			for i, g := range gs {
				w := int(g) * stride
				x, cur := floats[idx[i]], math.Float64frombits(st[w])
				if st[w+1] == 0 || (min && x < cur) || (!min && x > cur) {
					st[w], st[w+1] = math.Float64bits(x), 1
				}
			}
			return true, nil
		}
	}
	return false, nil
}
