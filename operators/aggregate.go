package operators

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/opspec"
)

// isVariance reports whether k is one of the variance family.
func isVariance(k opspec.AggKind) bool { return k >= opspec.AggVarPop && k <= opspec.AggStddevSamp }

// HashAggregate groups its input by Keys and computes Aggs per group. The
// output has the key columns followed by one column per aggregate. With no
// keys it produces exactly one row, also for empty input.
type HashAggregate struct {
	Input Operator
	Keys  []expr.Expr
	Aggs  []opspec.AggSpec
	// warn takes the warnings of the keys and arguments (Open's context).
	warn *expr.Warnings
	// MaxGroups bounds the state (0: unbounded); past it the query fails
	// with a clear error instead of exhausting memory.
	MaxGroups int
	// MemoryLimit bounds the estimated bytes of the grouping state (0:
	// unbounded).
	MemoryLimit uint64
	// FirstGroups, when above 0, is how many groups a LIMIT without ORDER
	// BY reads of the output: any groups will do, so once the table holds
	// that many (a few more: keys insert in short runs of rows), later
	// keys are only looked up, and rows of groups not in the table are
	// dropped. The groups kept still see all of their rows. (ClickBench
	// Q18: GROUP BY UserID, SearchPhrase LIMIT 10.)
	FirstGroups int
	// Top, when set, is an ORDER BY on an aggregate or key with a LIMIT
	// over the output: only the groups it can read are built (ClickBench
	// Q33 builds 10 rows, not a million). Groups tie in first-appearance
	// order, as the sort above keeps them (or all stay, for a second term).
	Top        *opspec.TopGroups
	topKeys    []*coldata.Vec // the kept groups' keys, when Top cut them
	stateBytes uint64

	table   *hashTable // nil without keys
	ngroups int
	keys    []keyVec
	gids    []uint32
	// zeroGids is how many leading gids are known to be 0 (no GROUP BY:
	// nothing writes them after the first clear).
	zeroGids int
	runs     []aggRun
	// st holds the fixed-size accumulators of all aggregates, stride words
	// per group, so that one group's states share cache lines.
	st     []uint64
	stride int
	// Scratch for selected rows and their compacted groups and values.
	rows []int32
	// keepRows serves FirstGroups.
	keepRows []int
	cg       []uint32
	ci       []int64
	cf       []float64
	cd       []decimal.Int128
	out      *Materialized

	// Partitioned path (aggregate_part.go): parts own disjoint groups.
	parts []*HashAggregate
	partState
	// Range-parallel accumulation (aggregate_ranges.go): partial states
	// per range of rows, merged at the end.
	rangeState
	// Small input batches joined (aggregate_coalesce.go).
	coalesceState
	// A filter's batches read through their selections (aggregate_sel.go).
	selState
}

// aggRun is the state of one aggregate beyond its words in st.
type aggRun struct {
	off int // first word in a group's stride
	// intSum: SUM into BIGINT over BIGINT/BOOLEAN (word off is an int64);
	// otherwise SUM and AVG accumulate a float64.
	intSum bool
	// distinct holds (group, value) pairs seen, for DISTINCT aggregates;
	// pairs replaces it for an argument stored as one int64.
	distinct *hashTable
	pairs    *pairSet
	// pparts replaces pairs for COUNT(DISTINCT) on several cores, and
	// sparts replaces distinct for COUNT(DISTINCT) of a string without
	// GROUP BY: both only count the new values into st.
	pparts *pairParts
	sparts *stringParts
	// dparts replaces distinct for a large COUNT(DISTINCT) without keys
	// (aggregate_part.go); dseen counts the rows fed to distinct.
	dparts  *keyParts
	dseen   int
	dkeys   []keyVec
	dgids   []int64
	dids    []uint32
	created []int32
	ints    []int64            // Bool arguments as 0/1
	narrow  []int64            // sumNarrowDecimals' partial sums and counts
	strs    [][]byte           // MIN/MAX over strings, per group
	parts   [][]concatPart     // GROUP_CONCAT, per group
	vals    []*coldata.Builder // quantiles: the group's values
}

// aggWords is the number of accumulator words an aggregate keeps per group:
// a count, or a value and a count (SUM, AVG) or a set flag (MIN, MAX).
func aggWords(k opspec.AggKind) int {
	switch k {
	case opspec.AggCountStar, opspec.AggCount:
		return 1
	case opspec.AggGroupConcat, opspec.AggQuantileCont, opspec.AggQuantileDisc:
		return 0
	case opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp:
		return 3
	}
	return 2
}

// specWords is aggWords for one aggregate: SUM, AVG, MIN and MAX of a
// DECIMAL keep a third word, the high half of the 128-bit value (words:
// low, count, high).
func specWords(spec opspec.AggSpec) int {
	if spec.Arg != nil && spec.Arg.Type().IsDecimal() && spec.Kind >= opspec.AggSum && spec.Kind <= opspec.AggMax {
		return 3
	}
	return aggWords(spec.Kind)
}

type concatPart struct {
	val  []byte
	keys []any // ORDER BY values
}

// Open implements Operator.
func (h *HashAggregate) Open(ctx context.Context) error {
	h.warn = expr.WarningsOf(ctx)
	h.stateBytes, h.ngroups, h.table, h.zeroGids, h.topKeys = 0, 0, nil, 0, nil
	if len(h.Keys) > 0 {
		types := make([]coldata.Type, len(h.Keys))
		for i, k := range h.Keys {
			types[i] = k.Type()
		}
		h.table = newHashTable(types)
	}
	h.keys = make([]keyVec, len(h.Keys))
	h.runs = make([]aggRun, len(h.Aggs))
	h.stride = 0
	for a, spec := range h.Aggs {
		h.runs[a].off = h.stride
		h.stride += specWords(spec)
		if spec.Distinct && spec.Kind == opspec.AggCount && distinctPairs(spec.Arg.Type()) && runtime.GOMAXPROCS(0) > 1 {
			// COUNT only counts: the pairs insert in parallel, out of row
			// order (distinctset.go).
			h.runs[a].pparts = newPairParts(min(runtime.GOMAXPROCS(0), 64), len(h.Keys) > 0)
		} else if spec.Distinct && spec.Kind == opspec.AggCount && spec.Arg.Type().Physical() == coldata.String && len(h.Keys) == 0 {
			h.runs[a].sparts = newStringParts(min(runtime.GOMAXPROCS(0), 64))
		} else if spec.Distinct && spec.Kind != opspec.AggCountStar && distinctPairs(spec.Arg.Type()) {
			h.runs[a].pairs = newPairSet()
		} else if spec.Distinct && spec.Kind != opspec.AggCountStar {
			types := []coldata.Type{spec.Arg.Type()}
			if len(h.Keys) > 0 {
				types = []coldata.Type{coldata.Int64, spec.Arg.Type()}
			}
			h.runs[a].distinct = newHashTable(types)
			h.runs[a].dkeys = make([]keyVec, len(types))
		}
	}
	h.st = nil
	h.out = nil
	h.parts, h.partState = nil, partState{threshold: h.partState.threshold, segGroups: h.partState.segGroups}
	h.openRanges()
	h.coalesceState = coalesceState{coalesceHook: h.coalesceHook}
	for _, spec := range h.Aggs {
		h.sumsFloats = h.sumsFloats || addsFloats(spec)
	}
	h.openSel()
	return h.Input.Open(ctx)
}

// Next implements Operator.
func (h *HashAggregate) Next(ctx context.Context) (*coldata.Batch, error) {
	if h.out == nil {
		if err := h.consume(ctx); err != nil {
			return nil, err
		}
		if err := h.cutTop(); err != nil {
			return nil, err
		}
		res, err := h.result()
		if err != nil {
			return nil, err
		}
		h.out = &Materialized{Batches: []*coldata.Batch{res}}
		h.releaseState(false)
	}
	return h.out.Next(ctx)
}

// releaseState returns the grouping state's large buffers to their pools
// once the output is built (or will never be): the accumulators, the
// table's slots and hashes, and the DISTINCT sets. The key columns go too
// only with keys, when no output aliases them.
func (h *HashAggregate) releaseState(keys bool) {
	uint64Pool.put(h.st)
	h.st = nil
	h.releaseJoinBufs()
	for _, l := range h.routeLists {
		int32Pool.put(l)
	}
	h.routeLists = nil
	if h.table != nil {
		if keys {
			h.table.release()
		} else {
			h.table.releaseProbe()
		}
	}
	for a := range h.runs {
		ar := &h.runs[a]
		if ar.pairs != nil {
			ar.pairs.release()
		}
		if ar.pparts != nil {
			ar.pparts.release()
		}
		if ar.sparts != nil {
			ar.sparts.release()
		}
		if ar.distinct != nil {
			ar.distinct.release()
		}
		if ar.dparts != nil {
			for _, t := range ar.dparts.tables {
				t.release()
			}
		}
		ar.pairs, ar.pparts, ar.sparts, ar.distinct, ar.dparts = nil, nil, nil, nil, nil
	}
	for i := range h.keys {
		h.keys[i].release()
	}
	uint64Pool.put(h.hashes)
	uint32Pool.put(h.gids)
	h.hashes, h.gids = nil, nil
	for _, c := range h.parts {
		c.gids = nil // the parent's
		c.releaseState(true)
	}
	for _, c := range h.subs {
		uint64Pool.put(c.st)
		c.st = nil
	}
	h.subs = nil
	for i := range h.rprobers {
		h.rprobers[i].release()
	}
	h.rprobers = nil
	int32Pool.put(h.slowRows)
	h.slowRows = nil
	h.releaseSel()
}

// Close implements Operator.
func (h *HashAggregate) Close() error {
	if h.out == nil && h.runs != nil {
		// Stopped before its output (an error or a cancelled query).
		h.releaseState(true)
	}
	h.table, h.st, h.runs, h.parts = nil, nil, nil, nil
	return h.Input.Close()
}

// StateBytes is the grouping state's estimated host memory (what
// MemoryLimit bounds), for EXPLAIN ANALYZE.
func (h *HashAggregate) StateBytes() uint64 { return h.stateBytes }

// admit accounts for a new group (keyBytes long in AppendRowKey's
// encoding), failing past MaxGroups or MemoryLimit.
func (h *HashAggregate) admit(keyBytes int) error {
	g := h.ngroups
	if h.MaxGroups > 0 && g >= h.MaxGroups {
		return memory.StateUnitLimit(groupByState, h.MaxGroups, "groups")
	}
	// A group costs its key, its table entry and its accumulators.
	h.stateBytes += uint64(keyBytes + 64 + 64*len(h.Aggs))
	if h.MemoryLimit > 0 && h.stateBytes > h.MemoryLimit {
		return memory.StateLimit(groupByState, h.MemoryLimit, g, "groups")
	}
	h.ngroups++
	return nil
}

func (h *HashAggregate) admitRow(r int) error {
	n := 0
	for i := range h.keys {
		n += h.keys[i].keyBytes(r)
	}
	return h.admit(n)
}

// countStarOnly reports whether every aggregate of specs is COUNT(*).
func countStarOnly(specs []opspec.AggSpec) bool {
	for _, s := range specs {
		if s.Kind != opspec.AggCountStar {
			return false
		}
	}
	return len(specs) > 0
}

func (h *HashAggregate) consume(ctx context.Context) error {
	// Every aggregate but those below copies what it keeps of a batch
	// (keys into the table, values into states): each batch goes back to
	// the input once consumed, for its buffers to serve the next.
	release := true
	for _, spec := range h.Aggs {
		if spec.Distinct || spec.Kind == opspec.AggGroupConcat || spec.Kind == opspec.AggQuantileCont || spec.Kind == opspec.AggQuantileDisc {
			release = false
		}
	}
	var prev *coldata.Batch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h.endBatch()
		if release {
			releaseInput(h.Input, prev, nil)
			h.recycleDense()
		} else {
			clear(h.dense) // still read: left to the collector
			h.dense = h.dense[:0]
		}
		b, sel, err := h.nextInput(ctx)
		if err != nil {
			return err
		}
		if sel != nil && !h.readsSel(b.Len, len(sel)) {
			b, sel = h.densify(b, sel), nil
		}
		prev = b
		if b == nil {
			break
		}
		n := h.startBatch(b, sel)
		if n == 0 {
			continue
		}
		if h.table == nil && countStarOnly(h.Aggs) {
			// Every row is the one group's and COUNT(*) adds the batch's
			// length: no group numbers (a zeroed slice as long as the
			// batch was 20 ms of ClickBench's SELECT COUNT(*) over one
			// batch of 100M rows).
			if h.ngroups == 0 {
				if err := h.admit(0); err != nil {
					return err
				}
			}
			h.growStates()
			for a := range h.Aggs {
				if err := h.updateVec(a, nil, b, n, nil, nil); err != nil {
					return err
				}
			}
			continue
		}
		if cap(h.gids) < n {
			uint32Pool.put(h.gids)
			h.gids, h.zeroGids = uint32Pool.get(n), 0 // pooled: not zeroed
		}
		h.gids = h.gids[:n]
		if h.table == nil {
			if n > h.zeroGids {
				clear(h.gids[h.zeroGids:])
				h.zeroGids = n
			}
			if h.ngroups == 0 {
				if err := h.admit(0); err != nil {
					return err
				}
			}
		} else {
			if err := h.prepareKeys(b, n); err != nil {
				return err
			}
			if h.parts == nil && h.wantParts(n) {
				if err := h.startParts(); err != nil {
					return err
				}
			}
			h.rowsSeen += n
			if h.parts != nil {
				if err := h.consumeParts(b, n); err != nil {
					return err
				}
				continue
			}
			if h.FirstGroups > 0 {
				if b, err = h.firstGroups(b, n); err != nil {
					return err
				} else if b == nil {
					continue
				}
				n, h.db = b.Len, b
			} else if ok, err := h.useRanges(n); err != nil {
				return err
			} else if ok {
				// The ranges probe the table too.
				if err := h.updateRanges(b, n, true); err != nil {
					return err
				}
				continue
			} else if err := h.table.findOrInsert(h.keys, 0, n, h.gids, h.admitRow, nil); err != nil {
				return err
			}
		}
		h.growStates()
		if ok, err := h.useRanges(n); err != nil {
			return err
		} else if ok {
			if err := h.updateRanges(b, n, false); err != nil {
				return err
			}
			continue
		}
		for a := range h.Aggs {
			if err := h.update(a, b, n); err != nil {
				return err
			}
		}
	}
	h.endBatch()
	if h.ngroups == 0 && h.table == nil {
		h.ngroups = 1
		h.growStates()
	}
	h.flushDistinct()
	if err := h.mergeRanges(); err != nil {
		return err
	}
	if h.parts != nil {
		return h.mergeParts(ctx)
	}
	return nil
}

// firstGroupsRun is how many rows firstGroups inserts at a time while the
// table holds fewer than FirstGroups groups.
const firstGroupsRun = 64

// firstGroups sets h.gids for batch b (n rows, keys prepared) under
// FirstGroups: rows insert their keys while the table holds fewer groups,
// the rest only look theirs up. It returns b, or the rows of b whose
// group is in the table (h.gids compacted to match), or nil when none is.
func (h *HashAggregate) firstGroups(b *coldata.Batch, n int) (*coldata.Batch, error) {
	lo := 0
	for lo < n && h.table.n < h.FirstGroups {
		hi := min(lo+firstGroupsRun, n)
		if err := h.table.findOrInsert(h.keys, lo, hi, h.gids, h.admitRow, nil); err != nil {
			return nil, err
		}
		lo = hi
	}
	if lo == n {
		return b, nil
	}
	h.table.find(h.keys, lo, n, h.gids)
	keep := h.keepRows[:0]
	for r := 0; r < n; r++ {
		if r < lo || h.gids[r] != noID {
			keep = append(keep, r)
		}
	}
	h.keepRows = keep
	if len(keep) == n {
		return b, nil
	}
	if len(keep) == 0 {
		return nil, nil
	}
	for i, r := range keep {
		h.gids[i] = h.gids[r]
	}
	h.gids = h.gids[:len(keep)]
	return coldata.GatherBatch(b, keep), nil
}

// growStates extends the accumulators to h.ngroups groups.
func (h *HashAggregate) growStates() {
	if want := h.ngroups * h.stride; len(h.st) < want {
		// Doubling: slices.Grow grows a large slice by a quarter, copying
		// the states of a million groups about 20 times over (ClickBench
		// Q33's GROUP BY WatchID, ClientIP).
		old := len(h.st)
		h.st = uint64Pool.grow(h.st, want-old)[:want]
		clear(h.st[old:])
	}
	for a := range h.runs {
		ar := &h.runs[a]
		switch h.Aggs[a].Kind {
		case opspec.AggGroupConcat:
			for len(ar.parts) < h.ngroups {
				ar.parts = append(ar.parts, nil)
			}
		case opspec.AggMin, opspec.AggMax:
			if h.Aggs[a].Arg.Type() == coldata.String {
				for len(ar.strs) < h.ngroups {
					ar.strs = append(ar.strs, nil)
				}
			}
		case opspec.AggQuantileCont, opspec.AggQuantileDisc:
			for len(ar.vals) < h.ngroups {
				ar.vals = append(ar.vals, coldata.NewBuilder(h.Aggs[a].Arg.Type(), 4))
			}
		}
	}
}

// distinctPairs reports whether a DISTINCT argument of type t keeps its
// values in a pairSet: types stored as one int64 whose equality is the
// int64's (not Float64, Bool, DECIMAL or strings).
func distinctPairs(t coldata.Type) bool {
	return t.Physical() == coldata.Int64 && !t.IsDecimal()
}

// selectRows returns the rows of the batch to feed aggregate a: those with
// a non-NULL argument and, for DISTINCT, a (group, value) not seen before.
// all reports that every row is selected (rows is then nil). base, when
// not nil, restricts the rows to those listed (a partition's rows; never
// with DISTINCT). vsel, when not nil, is the row of v of each of the n
// rows (never with DISTINCT).
func (h *HashAggregate) selectRows(a int, v *coldata.Vec, n int, base, vsel []int32) (rows []int32, all bool, err error) {
	ar := &h.runs[a]
	rows = h.rows[:0]
	if vsel != nil && (ar.pairs != nil || ar.distinct != nil) {
		return nil, false, fmt.Errorf("internal error: a DISTINCT argument read through a selection")
	}
	if ar.pairs != nil {
		if v.Type.Physical() != coldata.Int64 {
			return nil, false, fmt.Errorf("internal error: a DISTINCT %s argument evaluated to %s values", h.Aggs[a].Arg.Type(), v.Type)
		}
		var gids []uint32
		if h.table != nil {
			gids = h.gids[:n]
		}
		rows = ar.pairs.insert(gids, v.Ints[:n], v.Nulls, rows)
	} else if ar.distinct != nil {
		k := 0
		if h.table != nil {
			if cap(ar.dgids) < n {
				ar.dgids = make([]int64, n)
			}
			ar.dgids = ar.dgids[:n]
			for i, g := range h.gids {
				ar.dgids[i] = int64(g)
			}
			ar.dkeys[0] = keyVec{t: coldata.Int64, fixed: ar.dgids}
			k = 1
		}
		if err := ar.dkeys[k].prepareAs(v, n, ar.distinct.types[k]); err != nil {
			return nil, false, err
		}
		if cap(ar.dids) < n {
			ar.dids = make([]uint32, n)
		}
		ar.created = ar.created[:0]
		if err := ar.distinct.findOrInsert(ar.dkeys, 0, n, ar.dids[:n], nil, &ar.created); err != nil {
			return nil, false, err
		}
		for _, r := range ar.created {
			if !v.IsNull(int(r)) {
				rows = append(rows, r)
			}
		}
	} else if base != nil {
		switch {
		case v.Nulls == nil:
			rows = append(rows, base...)
		case vsel != nil:
			for _, r := range base {
				if !v.IsNull(int(vsel[r])) {
					rows = append(rows, r)
				}
			}
		default:
			for _, r := range base {
				if !v.IsNull(int(r)) {
					rows = append(rows, r)
				}
			}
		}
	} else {
		switch {
		case v.Nulls == nil:
			return nil, true, nil
		case vsel != nil:
			for r, vr := range vsel[:n] {
				if !v.IsNull(int(vr)) {
					rows = append(rows, int32(r))
				}
			}
		default:
			for r := 0; r < n; r++ {
				if !v.IsNull(r) {
					rows = append(rows, int32(r))
				}
			}
		}
	}
	h.rows = rows
	return rows, false, nil
}

// allRows returns rows 0..n-1.
func (h *HashAggregate) allRows(n int) []int32 {
	rows := h.rows[:0]
	for r := 0; r < n; r++ {
		rows = append(rows, int32(r))
	}
	h.rows = rows
	return rows
}

// compact gathers the selected rows' groups and values into dense scratch
// slices, so that the accumulation loops run over all of their input.
func compact[T any](dst []T, src []T, rows []int32) []T {
	if dst == nil {
		// Non-nil even when empty: callers tell argument types apart by nil.
		dst = make([]T, 0, max(len(rows), 1))
	}
	dst = dst[:0]
	for _, r := range rows {
		dst = append(dst, src[r])
	}
	return dst
}

// update feeds aggregate a the rows of batch b (n rows: its selection's,
// when it has one).
func (h *HashAggregate) update(a int, b *coldata.Batch, n int) error {
	if h.Aggs[a].Kind == opspec.AggCountStar {
		return h.updateVec(a, nil, b, n, nil, nil)
	}
	v, vsel, err := h.argOf(a, b)
	if err != nil {
		return err
	}
	return h.updateVec(a, v, b, n, nil, vsel)
}

// evalAggArg evaluates aggregate spec's argument over b. SUM and AVG of
// an integer bind over cast_to_decimal(x, p, 0): the exact DECIMAL result
// MySQL gives. Casting every row to 128 bits cost more than the sum
// (AVG(x) 9x SUM(x) at 1M rows), so the integers come as they are and
// updateVec widens them into the 128-bit sum.
func evalAggArg(spec *opspec.AggSpec, b *coldata.Batch, w *expr.Warnings) (*coldata.Vec, error) {
	if x := IntAsDecimalArg(spec); x != nil {
		return expr.EvalWarn(x, b, w)
	}
	return expr.EvalWarn(spec.Arg, b, w)
}

// IntAsDecimalArg is x when spec is a plain SUM or AVG of
// cast_to_decimal(x, p, 0) over a BIGINT x that every value of fits
// (p >= 19), else nil.
func IntAsDecimalArg(spec *opspec.AggSpec) expr.Expr {
	if spec.Distinct || (spec.Kind != opspec.AggSum && spec.Kind != opspec.AggAvg) {
		return nil
	}
	c, ok := spec.Arg.(*expr.Call)
	if !ok || c.Fn == nil || c.Fn.Name != "cast_to_decimal" || len(c.Args) == 0 {
		return nil
	}
	t := spec.Arg.Type()
	if !t.IsDecimal() || t.Scale() != 0 || t.Precision() < 19 || c.Args[0].Type() != coldata.Int64 {
		return nil
	}
	return c.Args[0]
}

// addIntsToDecimalSums adds integers (a DECIMAL(p,0) argument evaluated
// without its cast) to the 128-bit sums of their groups: low word at w,
// high word at w+2, the count at w+1. Int64 values cannot carry a sum
// past 38 digits before its count passes 2^63.
func addIntsToDecimalSums(st []uint64, stride, off int, gs []uint32, ints []int64) {
	for i, g := range gs {
		w := int(g)*stride + off
		x := ints[i]
		lo := st[w] + uint64(x)
		carry := uint64(0)
		if lo < st[w] {
			carry = 1
		}
		st[w] = lo
		st[w+2] += uint64(x>>63) + carry
		st[w+1]++
	}
}

// updateVec feeds argument values v (nil for COUNT(*)) of a batch of n rows
// to aggregate a: all rows, or only those in base when it is not nil.
// vsel, when not nil, is the row of v of each of the n rows (a filter's
// selection: v is its input's column); base then lists rows of the n.
func (h *HashAggregate) updateVec(a int, v *coldata.Vec, b *coldata.Batch, n int, base, vsel []int32) error {
	spec, ar := &h.Aggs[a], &h.runs[a]
	st, stride, off, gids := h.st, h.stride, ar.off, h.gids
	if spec.Kind == opspec.AggCountStar {
		if h.table == nil { // no GROUP BY: every row is group 0's
			if base != nil {
				n = len(base)
			}
			st[off] += uint64(n)
			return nil
		}
		if base != nil {
			for _, r := range base {
				st[int(gids[r])*stride+off]++
			}
			return nil
		}
		for _, g := range gids {
			st[int(g)*stride+off]++
		}
		return nil
	}
	if v.Type == coldata.Null {
		return nil // every value is NULL
	}
	if v.Const {
		if vsel != nil {
			c := *v
			c.Len, vsel = n, nil
			v = &c
		}
		v = v.Materialize()
	}
	if vsel != nil && (spec.Kind == opspec.AggGroupConcat || spec.Kind == opspec.AggQuantileCont || spec.Kind == opspec.AggQuantileDisc) {
		return fmt.Errorf("internal error: an aggregate of kind %d read through a selection", spec.Kind)
	}
	if ok, err := h.countDistinctParts(a, v, n); ok || err != nil {
		return err
	}
	if ar.pparts != nil || ar.sparts != nil {
		return h.countDistinct(a, v, n)
	}
	rows, all, err := h.selectRows(a, v, n, base, vsel)
	if err != nil {
		return err
	}
	var ints []int64
	var floats []float64
	var decs []decimal.Int128
	// With indexed, idx lists the row of the values (ints, floats, decs)
	// of each of the rows.
	idx, indexed := vsel, vsel != nil
	switch v.Type.Physical() {
	case coldata.Decimal:
		decs = v.Decs
	case coldata.Int64:
		ints = v.Ints
	case coldata.Bool:
		if cap(ar.ints) < n {
			ar.ints = make([]int64, n)
		}
		ints = ar.ints[:n]
		if vsel != nil {
			for i, r := range vsel[:n] {
				ints[i] = int64(v.Bools[r])
			}
		} else {
			for i, x := range v.Bools[:n] {
				ints[i] = int64(x)
			}
		}
		idx, indexed = nil, false
	case coldata.Float64:
		floats = v.Floats
	}
	gs := gids
	if !all {
		h.cg = compact(h.cg, gids, rows)
		gs = h.cg
		if !indexed {
			idx, indexed = rows, true
		} else if spec.Kind != opspec.AggCount {
			h.cidx = composeSel(h.cidx, idx, rows)
			idx = h.cidx
		}
	} else if spec.Kind == opspec.AggGroupConcat || spec.Kind == opspec.AggQuantileCont || spec.Kind == opspec.AggQuantileDisc || v.Type == coldata.String {
		rows = h.allRows(n)
	}
	if indexed && (ints != nil || floats != nil) && spec.Kind != opspec.AggCount {
		// The common kinds read the values where they are.
		if ok, err := h.updateIndexed(spec, ar, st[off:], stride, gs, ints, floats, idx); ok {
			return err
		}
	}
	if indexed && spec.Kind != opspec.AggCount {
		// COUNT reads no value.
		if ints != nil {
			h.ci = compact(h.ci, ints, idx)
			ints = h.ci
		}
		if floats != nil {
			h.cf = compact(h.cf, floats, idx)
			floats = h.cf
		}
		if decs != nil {
			h.cd = compact(h.cd, decs, idx)
			decs = h.cd
		}
	} else {
		ints, floats, decs = clip(ints, n), clip(floats, n), clip(decs, n)
	}
	if h.table == nil {
		if ok, err := updateSingle(spec, ar, st[off:off+specWords(*spec)], len(gs), ints, floats, decs); ok {
			return err
		}
	}
	switch spec.Kind {
	case opspec.AggCount:
		for _, g := range gs {
			st[int(g)*stride+off]++
		}
	case opspec.AggSum, opspec.AggAvg:
		switch {
		case ints != nil && spec.Arg.Type().IsDecimal():
			addIntsToDecimalSums(st, stride, off, gs, ints)
		case decs != nil:
			if ok, err := h.sumNarrowDecimals(ar, spec.Kind, gs, decs); ok || err != nil {
				return err
			}
			for i, g := range gs {
				w := int(g)*stride + off
				sum, ok := decimal.Int128{Lo: st[w], Hi: int64(st[w+2])}.Add(decs[i])
				if !ok || !decFits(sum) {
					return fmt.Errorf("%w in %s", expr.ErrDecimalRange, map[opspec.AggKind]string{opspec.AggSum: "SUM", opspec.AggAvg: "AVG"}[spec.Kind])
				}
				st[w], st[w+2] = sum.Lo, uint64(sum.Hi)
				st[w+1]++
			}
		case spec.Kind == opspec.AggSum && spec.Type == coldata.Int64 && ints != nil:
			ar.intSum = true
			for i, g := range gs {
				w := int(g)*stride + off
				x, s := ints[i], int64(st[w])
				sum := s + x
				if (s^sum)&(x^sum) < 0 { // the sign flipped away from both operands
					return fmt.Errorf("BIGINT value is out of range in SUM")
				}
				st[w] = uint64(sum)
				st[w+1]++
			}
		case ints != nil:
			for i, g := range gs {
				w := int(g)*stride + off
				st[w] = math.Float64bits(math.Float64frombits(st[w]) + float64(ints[i]))
				st[w+1]++
			}
		case floats != nil:
			for i, g := range gs {
				w := int(g)*stride + off
				st[w] = math.Float64bits(math.Float64frombits(st[w]) + floats[i])
				st[w+1]++
			}
		default:
			// Other argument types only count.
			for _, g := range gs {
				st[int(g)*stride+off+1]++
			}
		}
	case opspec.AggMin, opspec.AggMax:
		min := spec.Kind == opspec.AggMin
		switch {
		case decs != nil:
			for i, g := range gs {
				w := int(g)*stride + off
				x := decs[i]
				c := x.Cmp(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])})
				if st[w+1] == 0 || (min && c < 0) || (!min && c > 0) {
					st[w], st[w+2], st[w+1] = x.Lo, uint64(x.Hi), 1
				}
			}
		case ints != nil:
			for i, g := range gs {
				w := int(g)*stride + off
				x := ints[i]
				if st[w+1] == 0 || (min && x < int64(st[w])) || (!min && x > int64(st[w])) {
					st[w], st[w+1] = uint64(x), 1
				}
			}
		case floats != nil:
			for i, g := range gs {
				w := int(g)*stride + off
				x, cur := floats[i], math.Float64frombits(st[w])
				if st[w+1] == 0 || (min && x < cur) || (!min && x > cur) {
					st[w], st[w+1] = math.Float64bits(x), 1
				}
			}
		case v.Type == coldata.String:
			for _, r := range rows {
				g := int(gids[r])
				w := g*stride + off
				vr := r
				if vsel != nil {
					vr = vsel[r]
				}
				x := v.Str(int(vr))
				if st[w+1] == 0 {
					st[w+1] = 1
					ar.strs[g] = append(ar.strs[g][:0], x...)
					continue
				}
				c := bytes.Compare(x, ar.strs[g])
				if (min && c < 0) || (!min && c > 0) {
					ar.strs[g] = append(ar.strs[g][:0], x...)
				}
			}
		}
	case opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp:
		if floats == nil {
			return fmt.Errorf("internal error: variance over %s", v.Type)
		}
		for i, g := range gs {
			// Welford: words are mean, count, sum of squared deviations.
			w := int(g)*stride + off
			x := floats[i]
			cnt := st[w+1] + 1
			mean := math.Float64frombits(st[w])
			d := x - mean
			mean += d / float64(cnt)
			m2 := math.Float64frombits(st[w+2]) + d*(x-mean)
			st[w], st[w+1], st[w+2] = math.Float64bits(mean), cnt, math.Float64bits(m2)
		}
	case opspec.AggQuantileCont, opspec.AggQuantileDisc:
		for _, r := range rows {
			ar.vals[gids[r]].AppendFrom(v, int(r))
		}
	case opspec.AggGroupConcat:
		var orderVecs []*coldata.Vec
		for _, o := range spec.Order {
			ov, err := expr.Eval(o.Expr, b)
			if err != nil {
				return err
			}
			orderVecs = append(orderVecs, ov)
		}
		for _, r := range rows {
			g := gids[r]
			p := concatPart{val: append([]byte(nil), v.Str(int(r))...)}
			for _, ov := range orderVecs {
				p.keys = append(p.keys, ov.Value(int(r)))
			}
			ar.parts[g] = append(ar.parts[g], p)
		}
	}
	return nil
}

func (h *HashAggregate) result() (*coldata.Batch, error) {
	n := h.ngroups
	cols := make([]*coldata.Vec, 0, len(h.Keys)+len(h.Aggs))
	for i := range h.Keys {
		if h.topKeys != nil {
			cols = append(cols, h.topKeys[i])
			continue
		}
		v, err := h.table.column(i)
		if err != nil {
			return nil, err
		}
		cols = append(cols, v)
	}
	// The aggregates' columns build in parallel for many groups.
	aggCols := make([]*coldata.Vec, len(h.Aggs))
	errs := make([]error, len(h.Aggs))
	if n >= resultParallelGroups && runtime.GOMAXPROCS(0) > 1 && len(h.Aggs) > 1 {
		var wg workGroup
		for a := range h.Aggs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				aggCols[a], errs[a] = h.aggColumn(a, n)
			}()
		}
		wg.Wait()
	} else {
		for a := range h.Aggs {
			if aggCols[a], errs[a] = h.aggColumn(a, n); errs[a] != nil {
				break
			}
		}
	}
	for a := range h.Aggs {
		if errs[a] != nil {
			return nil, errs[a]
		}
	}
	cols = append(cols, aggCols...)
	return &coldata.Batch{Cols: cols, Len: n}, nil
}

// resultParallelGroups is the fewest groups whose output columns build in
// parallel, one goroutine per aggregate.
const resultParallelGroups = 1 << 14

// aggColumn builds the output column of aggregate a over n groups.
func (h *HashAggregate) aggColumn(a, n int) (*coldata.Vec, error) {
	if v := h.countSumAvg(a, n); v != nil {
		return v, nil
	}
	spec := h.Aggs[a]
	st, stride := h.st, h.stride
	ar := &h.runs[a]
	b := coldata.NewBuilder(spec.Type, n)
	for g := 0; g < n; g++ {
		w := g*stride + ar.off
		switch spec.Kind {
		case opspec.AggCountStar, opspec.AggCount:
			b.AppendInt(int64(st[w]))
		case opspec.AggSum:
			switch {
			case st[w+1] == 0:
				b.AppendNull()
			case spec.Type.IsDecimal():
				b.AppendDec(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])})
			case spec.Type == coldata.Int64:
				if ar.intSum {
					b.AppendInt(int64(st[w]))
				} else {
					b.AppendInt(0)
				}
			default:
				b.AppendFloat(math.Float64frombits(st[w]))
			}
		case opspec.AggAvg:
			if st[w+1] == 0 {
				b.AppendNull()
			} else if spec.Type.IsDecimal() {
				avg, err := decimalAvg(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])}, int64(st[w+1]), spec.Arg.Type().Scale(), spec.Type)
				if err != nil {
					return nil, err
				}
				b.AppendDec(avg)
			} else {
				b.AppendFloat(math.Float64frombits(st[w]) / float64(st[w+1]))
			}
		case opspec.AggMin, opspec.AggMax:
			if st[w+1] == 0 {
				b.AppendNull()
				continue
			}
			switch spec.Type.Physical() {
			case coldata.Decimal:
				b.AppendDec(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])})
			case coldata.Bool:
				b.AppendBool(st[w] != 0)
			case coldata.Int64:
				b.AppendInt(int64(st[w]))
			case coldata.Float64:
				b.AppendFloat(math.Float64frombits(st[w]))
			case coldata.String:
				b.AppendBytes(ar.strs[g])
			}
		case opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp:
			cnt := st[w+1]
			samp := spec.Kind == opspec.AggVarSamp || spec.Kind == opspec.AggStddevSamp
			if cnt == 0 || (samp && cnt < 2) {
				b.AppendNull()
				continue
			}
			div := float64(cnt)
			if samp {
				div--
			}
			r := math.Float64frombits(st[w+2]) / div
			if spec.Kind == opspec.AggStddevPop || spec.Kind == opspec.AggStddevSamp {
				r = math.Sqrt(r)
			}
			b.AppendFloat(r)
		case opspec.AggQuantileCont, opspec.AggQuantileDisc:
			quantileInto(b, spec, ar.vals[g].Finish())
			ar.vals[g] = nil
		case opspec.AggGroupConcat:
			parts := ar.parts[g]
			if len(parts) == 0 {
				b.AppendNull()
				continue
			}
			if len(spec.Order) > 0 {
				sort.SliceStable(parts, func(i, j int) bool {
					return compareOrderKeys(parts[i].keys, parts[j].keys, spec.Order) < 0
				})
			}
			var out []byte
			for i, p := range parts {
				if i > 0 {
					out = append(out, spec.Separator...)
				}
				out = append(out, p.val...)
			}
			b.AppendBytes(out)
		}
	}
	return b.Finish(), nil
}

// cutTop keeps only the groups Top reads, when every aggregate's state is
// its accumulator words (no DISTINCT sets, strings, value lists) and there
// are more groups than the LIMIT reads: the first Limit groups of a stable
// sort by the term's ordering word (topWordsCPU), and the Limit-th's ties
// where Top keeps them, kept in group order, their states compacted and
// their keys gathered.
func (h *HashAggregate) cutTop() error {
	if !h.topApplies() {
		return nil
	}
	t := h.Top
	n, stride, off, intSum := h.ngroups, h.stride, 0, false
	if !t.Key {
		off, intSum = h.runs[t.Agg].off, h.runs[t.Agg].intSum
	}
	st := h.st
	words, ok, err := topWordsCPU(t, h.Aggs, off, intSum, st, stride, n, h.table.column)
	if err != nil || !ok {
		return err
	}
	picked := topGroupsByWord(n, t.Limit, func(g int) uint64 { return words[g] }, topTies(t))
	kept := make([]uint64, len(picked)*stride)
	for j, g := range picked {
		copy(kept[j*stride:(j+1)*stride], st[g*stride:(g+1)*stride])
	}
	h.topKeys = make([]*coldata.Vec, len(h.Keys))
	for i := range h.Keys {
		v, err := h.table.column(i)
		if err != nil {
			return err
		}
		h.topKeys[i] = coldata.Gather(v, picked)
	}
	uint64Pool.put(h.st)
	h.st, h.ngroups = kept, len(picked)
	return nil
}

// countSumAvg builds the output of aggregate a over n groups straight
// from the states when it is a COUNT, or a SUM or AVG into BIGINT or
// DOUBLE: one pass over a typed slice instead of a builder call per group
// (ClickBench Q33 outputs a million groups). It returns nil for the
// others, which result builds as before, and the same values result
// would.
func (h *HashAggregate) countSumAvg(a, n int) *coldata.Vec {
	spec, ar := h.Aggs[a], &h.runs[a]
	st, stride, off := h.st, h.stride, h.runs[a].off
	v := &coldata.Vec{Type: spec.Type, Len: n}
	// nullIfEmpty marks the groups whose count word (off+1) is zero.
	nullIfEmpty := func() {
		for g := 0; g < n; g++ {
			if st[g*stride+off+1] == 0 {
				if v.Nulls == nil {
					v.Nulls = coldata.NewValidBitmap(n)
				}
				coldata.ClearBit(v.Nulls, g)
			}
		}
	}
	switch {
	case spec.Kind == opspec.AggCountStar || spec.Kind == opspec.AggCount:
		v.Ints = make([]int64, n)
		for g := range v.Ints {
			v.Ints[g] = int64(st[g*stride+off])
		}
	case spec.Kind == opspec.AggSum && spec.Type == coldata.Int64:
		v.Ints = make([]int64, n)
		if ar.intSum {
			for g := range v.Ints {
				v.Ints[g] = int64(st[g*stride+off])
			}
		}
		nullIfEmpty()
	case spec.Kind == opspec.AggSum && spec.Type == coldata.Float64:
		v.Floats = make([]float64, n)
		for g := range v.Floats {
			v.Floats[g] = math.Float64frombits(st[g*stride+off])
		}
		nullIfEmpty()
	case spec.Kind == opspec.AggAvg && spec.Type == coldata.Float64:
		v.Floats = make([]float64, n)
		for g := range v.Floats {
			if c := st[g*stride+off+1]; c != 0 {
				v.Floats[g] = math.Float64frombits(st[g*stride+off]) / float64(c)
			}
		}
		nullIfEmpty()
	default:
		return nil
	}
	return v
}

// compareOrderKeys compares GROUP_CONCAT order values, NULL first.
func compareOrderKeys(a, b []any, order []opspec.AggOrder) int {
	for i, o := range order {
		c := compareAny(a[i], b[i])
		if c != 0 {
			if o.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

func compareAny(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case string:
		return cmp.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return 0
}

// decimalAvg divides a decimal sum (at scale s) by a count, giving AVG's
// type t (more digits after the point), rounded half away from zero.
func decimalAvg(sum decimal.Int128, count int64, s int, t coldata.Type) (decimal.Int128, error) {
	scaled, ok := sum.Rescale(s, t.Scale())
	if !ok {
		return decimal.Int128{}, fmt.Errorf("%w in AVG", expr.ErrDecimalRange)
	}
	avg, _ := scaled.DivRound(decimal.FromInt64(count))
	if !avg.Fits(t.Precision()) {
		return decimal.Int128{}, fmt.Errorf("%w in AVG", expr.ErrDecimalRange)
	}
	return avg, nil
}

// quantileInto appends the quantile of a group's values (no NULLs).
func quantileInto(b *coldata.Builder, spec opspec.AggSpec, vals *coldata.Vec) {
	n := vals.Len
	if n == 0 {
		b.AppendNull()
		return
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	desc := len(spec.Order) > 0 && spec.Order[0].Desc
	slices.SortFunc(idx, func(a, b int) int {
		if desc {
			return opspec.CompareValues(vals, b, vals, a)
		}
		return opspec.CompareValues(vals, a, vals, b)
	})
	if spec.Kind == opspec.AggQuantileDisc {
		// The first value whose cumulative share reaches q (SQL's
		// PERCENTILE_DISC).
		k := int(math.Ceil(spec.Quantile*float64(n))) - 1
		b.AppendFrom(vals, idx[max(k, 0)])
		return
	}
	pos := spec.Quantile * float64(n-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	x, y := vals.Float(idx[lo]), vals.Float(idx[hi])
	if lo == hi {
		b.AppendFloat(x)
		return
	}
	b.AppendFloat(x + (pos-float64(lo))*(y-x))
}

// countDistinct feeds the argument values v (n rows, not constant) of
// COUNT(DISTINCT) aggregate a to its pairParts or stringParts, which
// count the new values into the aggregate's words.
func (h *HashAggregate) countDistinct(a int, v *coldata.Vec, n int) error {
	ar := &h.runs[a]
	if ar.pparts != nil {
		if v.Type.Physical() != coldata.Int64 {
			return fmt.Errorf("internal error: a DISTINCT %s argument evaluated to %s values", h.Aggs[a].Arg.Type(), v.Type)
		}
		var gids []uint32
		if h.table != nil {
			gids = h.gids[:n]
		}
		ar.pparts.add(gids, v.Ints[:n], v.Nulls, h.st, h.stride, ar.off)
		return nil
	}
	if v.Type.Physical() != coldata.String {
		return fmt.Errorf("internal error: a DISTINCT %s argument evaluated to %s values", h.Aggs[a].Arg.Type(), v.Type)
	}
	h.st[ar.off] += uint64(ar.sparts.add(v, n))
	return nil
}

// flushDistinct counts the pairs the COUNT(DISTINCT) aggregates still
// have staged, once the input is consumed.
func (h *HashAggregate) flushDistinct() {
	for a := range h.runs {
		if pp := h.runs[a].pparts; pp != nil {
			pp.flush(h.st, h.stride, h.runs[a].off)
		}
	}
}

// Narrow DECIMAL sums. A SUM or AVG of DECIMAL values adds each value to
// its group's 128-bit state with two overflow checks (TPC-H Q1: eight
// such aggregates over 60M rows, most of the aggregate's time, each row
// waiting on the last row's store to the same few groups). When every
// value of the run is narrow (|x| < 2^50, a DECIMAL(15, s) column always
// is) and the groups are few, the run is instead added up in int64
// partial sums per group, two lanes of them (alternate rows, so that
// consecutive rows of one group do not wait on each other), and each
// group's partial sum goes into its state once, with the checks. A run of
// at most narrowRunRows such values cannot overflow a lane.
const (
	narrowRunRows   = 1 << 12
	narrowMaxGroups = 256
	narrowBound     = 1 << 50
)

// sumNarrowDecimals adds decs (the run's values, group gs[i] for decs[i])
// to aggregate a's SUM or AVG states when they qualify, and reports
// whether it did.
func (h *HashAggregate) sumNarrowDecimals(ar *aggRun, kind opspec.AggKind, gs []uint32, decs []decimal.Int128) (bool, error) {
	n, ng := len(gs), h.ngroups
	if ng == 0 || n > narrowRunRows || ng > narrowMaxGroups || n < 4*ng || len(decs) < n {
		return false, nil
	}
	var wide uint64
	for _, x := range decs[:n] {
		wide |= uint64(x.Lo+narrowBound)>>51 | uint64(x.Hi^(int64(x.Lo)>>63))
	}
	if wide != 0 {
		return false, nil
	}
	// Per group: lane 0's sum, lane 1's, and the count.
	if cap(ar.narrow) < 3*ng {
		ar.narrow = make([]int64, 3*ng)
	}
	acc := ar.narrow[:3*ng]
	clear(acc)
	i := 0
	for ; i+1 < n; i += 2 {
		g0, g1 := 3*int(gs[i]), 3*int(gs[i+1])
		acc[g0] += int64(decs[i].Lo)
		acc[g0+2]++
		acc[g1+1] += int64(decs[i+1].Lo)
		acc[g1+2]++
	}
	if i < n {
		g := 3 * int(gs[i])
		acc[g] += int64(decs[i].Lo)
		acc[g+2]++
	}
	st, stride, off := h.st, h.stride, ar.off
	for g := 0; g < ng; g++ {
		cnt := acc[3*g+2]
		if cnt == 0 {
			continue
		}
		w := g*stride + off
		sum := decimal.Int128{Lo: st[w], Hi: int64(st[w+2])}
		ok := true
		for _, part := range acc[3*g : 3*g+2] {
			var fine bool
			sum, fine = sum.Add(decimal.FromInt64(part))
			ok = ok && fine
		}
		if !ok || !decFits(sum) {
			return true, fmt.Errorf("%w in %s", expr.ErrDecimalRange, map[opspec.AggKind]string{opspec.AggSum: "SUM", opspec.AggAvg: "AVG"}[kind])
		}
		st[w], st[w+2] = sum.Lo, uint64(sum.Hi)
		st[w+1] += uint64(cnt)
	}
	return true, nil
}
