package operators

import (
	"bytes"
	"fmt"
	"math"
	"runtime"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Range-parallel accumulation. With no GROUP BY, or few groups on the
// single hash table, probing a batch is cheap next to updating eight
// accumulators per row, and one goroutine updating them all bounds the
// aggregate (TPC-H Q1: 4 groups over 60M rows). A large batch is instead
// cut into fixed ranges of rows; range r updates its own partial
// accumulators (a sub-aggregate per range, each with every group's
// words), and the ranges run on all cores. The partials are merged into
// the aggregate's own accumulators once, at the end, in range order.
//
// The split depends only on the batch's length (not on the number of
// cores) and the merge order is fixed, so the same input gives the same
// answer on every run and every host with more than one core (one core
// updates serially, as before the ranges). Integer and DECIMAL sums, counts,
// MIN and MAX are exact anyway; float sums and variances may differ from
// one goroutine's row order in their last bits. Aggregates whose answer
// depends on the order rows arrive in, or whose state is not a few words
// per group, stay on the consumer (serially, while the ranges run):
// DISTINCT, GROUP_CONCAT, quantiles, and MIN/MAX of DOUBLE (where -0 and
// 0, or a NaN, keep the first value seen).
//
// An integer SUM checks for overflow per range and again when the
// ranges merge: for values of one sign that fails exactly when the serial
// sum would; with mixed signs near the limits a partial sum may overflow
// where the running sum in row order did not, or the other way round.

const (
	// rangeRows is the fewest rows per range: a batch of fewer than
	// two ranges is updated as one.
	rangeRows = 2048
	// maxRanges is the most ranges a batch is cut into (and the number
	// of partial states).
	maxRanges = 16
	// rangeGroupsMax is the most groups kept per range: past it the
	// partials (maxRanges copies of every group's state) cost more than
	// they save, and the aggregate goes on serially (or partitioned).
	rangeGroupsMax = 1 << 14
	// rangeStateBytes bounds the partials' accumulators.
	rangeStateBytes = 32 << 20
	// mergeBlockWork is the fewest group states (groups times ranges)
	// per goroutine merging the partials.
	mergeBlockWork = 1 << 15
)

// rangeState is the range-parallel path's state in a HashAggregate.
type rangeState struct {
	// rangeRowsHook (tests only) replaces rangeRows and lets one core
	// run the ranges; below 0 no batch goes to the ranges.
	rangeRowsHook int
	// rangeGroupsHook (tests only) replaces rangeGroupsMax.
	rangeGroupsHook int
	// weakHashHook (tests only) makes the table's hashes collide.
	weakHashHook bool
	// mergeWorkHook (tests only) replaces mergeBlockWork.
	mergeWorkHook int
	// rangeAggs marks the aggregates updated per range.
	rangeAggs []bool
	// noRanges: no batch goes to the ranges (nothing to merge, one core,
	// or too many groups).
	noRanges bool
	subs     []*HashAggregate // per range: partial accumulators
	rvecs    []*coldata.Vec   // the batch's evaluated arguments
	// rprobers probe the ranges' keys; waitingRanges lists those whose
	// keys had to insert first.
	rprobers      []prober
	waitingRanges []int
	slowRows      []int32 // the rprobers' rows to insert, in row order
	// rangeEval marks the mergeable aggregates whose argument (a pure
	// function call) each range evaluates over its rows; rbatch is the
	// batch they read.
	rangeEval []bool
	rbatch    *coldata.Batch
	// In a sub-aggregate: the first error of its range and its rank
	// (errRank), and whether its rows wait for keys to insert.
	rerr     error
	rerrRank int
	waiting  bool
	// rangesRan (tests): some batch went through the ranges.
	rangesRan bool
}

// mergeable reports whether aggregate spec can accumulate per range and
// merge: its state is its words in st (or strs) and does not depend on
// the order its rows come in.
func mergeable(spec opspec.AggSpec) bool {
	if spec.Distinct {
		return false
	}
	switch spec.Kind {
	case opspec.AggCountStar, opspec.AggCount, opspec.AggSum, opspec.AggAvg, opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp:
		return true
	case opspec.AggMin, opspec.AggMax:
		return spec.Arg.Type().Physical() != coldata.Float64
	}
	return false
}

// openRanges sets up the range state for Open.
func (h *HashAggregate) openRanges() {
	hook := h.rangeRowsHook
	h.rangeState = rangeState{rangeRowsHook: hook, rangeGroupsHook: h.rangeGroupsHook, weakHashHook: h.weakHashHook, mergeWorkHook: h.mergeWorkHook, rangeAggs: make([]bool, len(h.Aggs))}
	if h.weakHashHook && h.table != nil {
		h.table.weakHash = true
	}
	h.rangeEval = make([]bool, len(h.Aggs))
	any := false
	for a, spec := range h.Aggs {
		h.rangeAggs[a] = mergeable(spec)
		any = any || h.rangeAggs[a]
		if _, call := spec.Arg.(*expr.Call); call && h.rangeAggs[a] && !volatile(spec.Arg) {
			h.rangeEval[a] = true
		}
	}
	// With keys the ranges also probe the table, on all cores (the
	// table probes a batch alone in at most 8 parts of parallelRows
	// rows): worth it without a mergeable aggregate too (ClickBench Q9:
	// GROUP BY RegionID with only COUNT(DISTINCT UserID)).
	h.noRanges = (!any && len(h.Keys) == 0) || hook < 0 || (hook == 0 && runtime.GOMAXPROCS(0) < 2)
}

// volatile reports whether e calls a function that keeps state, which
// must see the whole batch on one goroutine.
func volatile(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) {
		if c, ok := x.(*expr.Call); ok && c.Fn.Volatile {
			found = true
		}
	})
	return found
}

// errRank orders the errors of a batch as one goroutine meets them:
// aggregate by aggregate, its argument's evaluation before its update.
func errRank(agg int, update bool) int {
	if update {
		return 2*agg + 1
	}
	return 2 * agg
}

// rangeRowsMin is the fewest rows per range.
func (h *HashAggregate) rangeRowsMin() int {
	if h.rangeRowsHook > 0 {
		return h.rangeRowsHook
	}
	return rangeRows
}

// useRanges reports whether a batch of n rows (groups set, states grown)
// goes to the ranges. Past rangeGroupsMax groups the partials merge and
// later batches update serially.
func (h *HashAggregate) useRanges(n int) (bool, error) {
	if h.noRanges {
		return false, nil
	}
	if h.ngroups > h.rangeGroupsLimit() {
		h.noRanges = true
		return false, h.mergeRanges()
	}
	return n >= 2*h.rangeRowsMin(), nil
}

// rangeGroupsLimit is the most groups the partials keep: rangeGroupsMax,
// fewer when the partials of that many would pass rangeStateBytes, or
// half of the MemoryLimit.
func (h *HashAggregate) rangeGroupsLimit() int {
	if h.rangeGroupsHook > 0 {
		return h.rangeGroupsHook
	}
	budget := uint64(rangeStateBytes)
	if h.MemoryLimit > 0 {
		budget = min(budget, h.MemoryLimit/2)
	}
	perGroup := uint64(maxRanges * 8 * max(h.stride, 1))
	return int(min(uint64(rangeGroupsMax), budget/perGroup))
}

// leaveRanges ends the ranges in the middle of a batch (n rows cut into
// nr ranges of step rows, arguments evaluated up to upto) whose new keys
// passed the groups limit: the partials merge, and the ranges that
// waited for their keys update h's states on this goroutine, with the
// serial aggregates.
func (h *HashAggregate) leaveRanges(b *coldata.Batch, n, nr, step, upto int, evalErr error) error {
	h.rbatch = nil
	rank, err := errRank(upto, false), evalErr
	for _, c := range h.subs[:nr] {
		if c.rerr != nil && c.rerrRank < rank {
			rank, err = c.rerrRank, c.rerr
		}
	}
	h.noRanges = true
	if e := h.mergeRanges(); e != nil {
		return e
	}
	m := 0
	for r := 0; r < nr; r++ {
		if len(h.rprobers[r].slow) > 0 { // waited for its keys
			m += min((r+1)*step, n) - r*step
		}
	}
	base := int32Pool.get(m)[:0]
	defer int32Pool.put(base)
	for r := 0; r < nr; r++ {
		if len(h.rprobers[r].slow) > 0 {
			for row := r * step; row < min((r+1)*step, n); row++ {
				base = append(base, int32(row))
			}
		}
	}
	for a := 0; a < upto && errRank(a, true) < rank; a++ {
		rows := base
		if !h.rangeAggs[a] {
			rows = nil // every row
		} else if len(base) == 0 {
			continue
		}
		v := h.rvecs[a]
		if h.rangeEval[a] && v == nil {
			var e error
			if v, e = evalAggArg(&h.Aggs[a], h.db, h.warn); e != nil {
				return e
			}
		}
		if e := h.updateVec(a, v, b, n, rows, h.rsels[a]); e != nil {
			return e
		}
	}
	return err
}

// updateRanges updates every aggregate with batch b of n rows: the
// mergeable ones per range into the partials, on all cores, the others on
// this goroutine. With probe, each range first hashes and looks up its
// rows' keys (h.keys prepared) in the table and, when all are there,
// updates its partials at once; the keys not found then insert on this
// goroutine in row order (admitted as by findOrInsert), and the ranges
// that had them update after. Otherwise h.gids is set. Errors come as on
// one goroutine: new groups refused, then the first aggregate whose
// update fails, or whose argument fails to evaluate, whichever comes
// first.
func (h *HashAggregate) updateRanges(b *coldata.Batch, n int, probe bool) error {
	h.rangesRan = true
	rr := h.rangeRowsMin()
	nr := min(maxRanges, n/rr)
	step := ((n+nr-1)/nr + 63) &^ 63 // whole bytes of a NULL bitmap
	nr = (n + step - 1) / step
	for len(h.subs) < nr {
		c := &HashAggregate{Aggs: h.Aggs, table: h.table, stride: h.stride, runs: make([]aggRun, len(h.runs))}
		for a := range c.runs {
			c.runs[a].off = h.runs[a].off
		}
		c.rangeAggs = h.rangeAggs
		h.subs = append(h.subs, c)
	}
	// Arguments are evaluated once, those of rangeEval by the ranges;
	// aggregates after one that fails to evaluate here do not run.
	// A plain column of a selected batch comes whole, with the
	// selection (rsels) to read it through.
	upto := len(h.Aggs)
	var evalErr error
	h.rvecs, h.rsels = h.rvecs[:0], h.rsels[:0]
	h.rbatch = h.db
	for a, spec := range h.Aggs {
		if spec.Kind == opspec.AggCountStar || (h.rangeEval[a] && !(h.selected() && h.argRef[a] >= 0)) {
			h.rvecs, h.rsels = append(h.rvecs, nil), append(h.rsels, nil)
			continue
		}
		v, vsel, err := h.argOf(a, b)
		if err != nil {
			upto, evalErr = a, err
			break
		}
		h.rvecs, h.rsels = append(h.rvecs, v), append(h.rsels, vsel)
	}
	serial := false
	for a := 0; a < upto; a++ {
		serial = serial || !h.rangeAggs[a]
	}
	for _, c := range h.subs[:nr] {
		c.rerr, c.waiting = nil, false
	}
	bounds := func(r int) (int, int) { return r * step, min((r+1)*step, n) }
	// serialAggs updates the aggregates that stay on this goroutine.
	rank, err := errRank(upto, false), evalErr
	serialAggs := func() {
		for a := 0; a < upto; a++ {
			if h.rangeAggs[a] {
				continue
			}
			if e := h.updateVec(a, h.rvecs[a], b, n, nil, h.rsels[a]); e != nil {
				rank, err = errRank(a, true), e
				return
			}
		}
	}
	if !probe {
		h.forRanges(nr, !serial, func(r int) {
			lo, hi := bounds(r)
			h.updateRange(h.subs[r], lo, hi, upto)
		}, serialAggs)
	} else {
		if cap(h.hashes) < n {
			uint64Pool.put(h.hashes)
			h.hashes = uint64Pool.get(n)
		}
		hs := h.hashes[:n]
		for len(h.rprobers) < nr {
			h.rprobers = append(h.rprobers, prober{t: h.table})
		}
		h.forRanges(nr, true, func(r int) {
			lo, hi := bounds(r)
			p := &h.rprobers[r]
			h.table.hashRange(h.keys, hs, lo, hi)
			p.probeRange(h.keys, hs, lo, hi, h.gids, true)
			if len(p.slow) > 0 {
				h.subs[r].waiting = true
				return
			}
			h.updateRange(h.subs[r], lo, hi, upto)
		}, nil)
		// The new keys, in row order. (All of the first batch's rows:
		// the list is sized up front, from the pool.)
		total := 0
		for r := 0; r < nr; r++ {
			total += len(h.rprobers[r].slow)
		}
		if cap(h.slowRows) < total {
			int32Pool.put(h.slowRows)
			h.slowRows = int32Pool.get(total)
		}
		slow := h.slowRows[:0]
		for r := 0; r < nr; r++ {
			slow = append(slow, h.rprobers[r].slow...)
		}
		h.slowRows = slow
		if e := h.table.insertAbsent(h.keys, slow, hs, h.gids, h.admitRow, nil); e != nil {
			return e
		}
		h.growStates()
		if h.ngroups > h.rangeGroupsLimit() {
			// Too many groups for partials: they merge, and the rows
			// left update h's states here.
			return h.leaveRanges(b, n, nr, step, upto, evalErr)
		}
		waiting := h.waitingRanges[:0]
		for r, c := range h.subs[:nr] {
			if c.waiting {
				waiting = append(waiting, r)
			}
		}
		h.waitingRanges = waiting
		if len(waiting) > 0 || serial {
			h.forRanges(len(waiting), false, func(i int) {
				r := waiting[i]
				lo, hi := bounds(r)
				h.updateRange(h.subs[r], lo, hi, upto)
			}, serialAggs)
		}
	}
	h.rbatch = nil
	for _, c := range h.subs[:nr] {
		if c.rerr != nil && c.rerrRank < rank {
			rank, err = c.rerrRank, c.rerr
		}
	}
	return err
}

// forRanges runs f on ranges [0, nr), on up to GOMAXPROCS goroutines
// (range r on worker r mod workers), and meanwhile here runs also (when
// not nil) or, with join, worker 0's ranges; it returns when all are done.
func (h *HashAggregate) forRanges(nr int, join bool, f func(r int), also func()) {
	workers := min(runtime.GOMAXPROCS(0), nr)
	work := func(w int) {
		for r := w; r < nr; r += workers {
			f(r)
		}
	}
	first := 0
	if join && also == nil {
		first = 1
	}
	var wg workGroup
	for w := first; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	if first == 1 {
		work(0)
	}
	if also != nil {
		also()
	}
	wg.Wait()
}

// updateRange updates sub-aggregate c with rows [lo, hi) of the batch
// (arguments in h.rvecs, read through h.rsels where set, groups in
// h.gids) for the mergeable aggregates before upto.
func (h *HashAggregate) updateRange(c *HashAggregate, lo, hi, upto int) {
	c.ngroups = h.ngroups
	c.growPartial()
	c.gids = h.gids[lo:hi]
	var rows *coldata.Batch // the range's rows, for rangeEval
	for a := 0; a < upto; a++ {
		if !h.rangeAggs[a] {
			continue
		}
		v := h.rvecs[a]
		var vsel []int32
		switch {
		case h.rangeEval[a] && v == nil:
			if rows == nil {
				rows = coldata.SliceBatch(h.rbatch, lo, hi)
			}
			var err error
			if v, err = evalAggArg(&h.Aggs[a], rows, h.warn); err != nil {
				c.rerr, c.rerrRank = err, errRank(a, false)
				return
			}
		case v != nil && h.rsels[a] != nil:
			vsel = h.rsels[a][lo:hi]
		case v != nil:
			v = coldata.Slice(v, lo, hi)
		}
		if err := c.updateVec(a, v, nil, hi-lo, nil, vsel); err != nil {
			c.rerr, c.rerrRank = err, errRank(a, true)
			return
		}
	}
}

// growPartial extends a sub-aggregate's accumulators to c.ngroups groups:
// its words, and the strings of a mergeable MIN/MAX.
func (c *HashAggregate) growPartial() {
	if want := c.ngroups * c.stride; len(c.st) < want {
		old := len(c.st)
		c.st = uint64Pool.grow(c.st, want-old)[:want]
		clear(c.st[old:])
	}
	for a := range c.runs {
		spec := &c.Aggs[a]
		if c.rangeAggs[a] && (spec.Kind == opspec.AggMin || spec.Kind == opspec.AggMax) && spec.Arg.Type() == coldata.String {
			for len(c.runs[a].strs) < c.ngroups {
				c.runs[a].strs = append(c.runs[a].strs, nil)
			}
		}
	}
}

// mergeRanges merges the partials into h's accumulators, range by range,
// and drops them. Blocks of groups merge in parallel, each in range
// order, so the result does not depend on the blocks; of several errors
// the one of the first range and aggregate is returned, as one loop over
// the ranges would.
func (h *HashAggregate) mergeRanges() error {
	subs := h.subs
	h.subs = nil
	defer func() {
		for _, c := range subs {
			uint64Pool.put(c.st)
			c.st = nil
		}
	}()
	groups := 0
	for _, c := range subs {
		groups = max(groups, c.ngroups)
		for a := range h.Aggs {
			h.runs[a].intSum = h.runs[a].intSum || c.runs[a].intSum
		}
	}
	work := mergeBlockWork
	if h.mergeWorkHook > 0 {
		work = h.mergeWorkHook
	}
	blocks := max(min(runtime.GOMAXPROCS(0), groups*len(subs)/work), 1)
	step := (groups + blocks - 1) / blocks
	type failure struct {
		sub, agg int
		err      error
	}
	fails := make([]failure, blocks)
	var wg workGroup
	for k := 0; k < blocks; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo := k * step
			for si, c := range subs {
				hi := min((k+1)*step, c.ngroups)
				if lo >= hi {
					continue
				}
				for a := range h.Aggs {
					if !h.rangeAggs[a] {
						continue
					}
					if err := h.mergeAgg(a, c.st, c.runs[a].strs, lo, hi); err != nil {
						fails[k] = failure{si, a, err}
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	var first *failure
	for k := range fails {
		f := &fails[k]
		if f.err != nil && (first == nil || f.sub < first.sub || f.sub == first.sub && f.agg < first.agg) {
			first = f
		}
	}
	if first != nil {
		return first.err
	}
	return nil
}

// mergeAgg merges the states of aggregate a of groups [lo, hi) in src
// (and srcStrs, for MIN/MAX of strings), laid out as h.st, into h.st: as
// if h had gone on to see src's rows after its own.
func (h *HashAggregate) mergeAgg(a int, src []uint64, srcStrs [][]byte, lo, hi int) error {
	spec, ar := &h.Aggs[a], &h.runs[a]
	st, stride, off := h.st, h.stride, ar.off
	dec := spec.Arg != nil && spec.Arg.Type().IsDecimal()
	var phys coldata.Type
	if spec.Arg != nil {
		phys = spec.Arg.Type().Physical()
	}
	for g := lo; g < hi; g++ {
		w := g*stride + off
		switch spec.Kind {
		case opspec.AggCountStar, opspec.AggCount:
			st[w] += src[w]
		case opspec.AggSum, opspec.AggAvg:
			if src[w+1] == 0 {
				continue
			}
			switch {
			case dec:
				sum, ok := decimal.Int128{Lo: st[w], Hi: int64(st[w+2])}.Add(decimal.Int128{Lo: src[w], Hi: int64(src[w+2])})
				if !ok || !sum.Fits(decimal.MaxPrecision) {
					return fmt.Errorf("%w in %s", expr.ErrDecimalRange, map[opspec.AggKind]string{opspec.AggSum: "SUM", opspec.AggAvg: "AVG"}[spec.Kind])
				}
				st[w], st[w+2] = sum.Lo, uint64(sum.Hi)
			case spec.Kind == opspec.AggSum && spec.Type == coldata.Int64:
				x, s := int64(src[w]), int64(st[w])
				sum := s + x
				if (s^sum)&(x^sum) < 0 {
					return fmt.Errorf("BIGINT value is out of range in SUM")
				}
				st[w] = uint64(sum)
			default:
				st[w] = math.Float64bits(math.Float64frombits(st[w]) + math.Float64frombits(src[w]))
			}
			st[w+1] += src[w+1]
		case opspec.AggMin, opspec.AggMax:
			if src[w+1] == 0 {
				continue
			}
			if st[w+1] != 0 {
				var c int
				switch {
				case dec:
					c = decimal.Int128{Lo: src[w], Hi: int64(src[w+2])}.Cmp(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])})
				case phys == coldata.String:
					c = bytes.Compare(srcStrs[g], ar.strs[g])
				default:
					x, y := int64(src[w]), int64(st[w])
					c = compareInt64(x, y)
				}
				if (spec.Kind == opspec.AggMin && c >= 0) || (spec.Kind == opspec.AggMax && c <= 0) {
					continue
				}
			}
			st[w], st[w+1] = src[w], 1
			if dec {
				st[w+2] = src[w+2]
			}
			if phys == coldata.String {
				ar.strs[g] = srcStrs[g]
			}
		case opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp:
			nb := src[w+1]
			if nb == 0 {
				continue
			}
			na := st[w+1]
			if na == 0 {
				st[w], st[w+1], st[w+2] = src[w], nb, src[w+2]
				continue
			}
			// Chan et al.'s pairwise update of Welford's state.
			ma, mb := math.Float64frombits(st[w]), math.Float64frombits(src[w])
			n := na + nb
			d := mb - ma
			fa, fb, fn := float64(na), float64(nb), float64(n)
			mean := ma + d*fb/fn
			m2 := math.Float64frombits(st[w+2]) + math.Float64frombits(src[w+2]) + d*d*fa*fb/fn
			st[w], st[w+1], st[w+2] = math.Float64bits(mean), n, math.Float64bits(m2)
		}
	}
	return nil
}

func compareInt64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// decFits is sum.Fits(decimal.MaxPrecision) with the common case first: a
// high word within ±2^62 holds less than 2^126 < 10^38.
func decFits(sum decimal.Int128) bool {
	return uint64(sum.Hi+1<<62) < 1<<63 || sum.Fits(decimal.MaxPrecision)
}

// updateSingle is updateVec's accumulation for the one group of an
// aggregate without GROUP BY, for the numeric kinds: the state in locals
// over the n selected values (ints, floats or decs, in row order), stored
// once, with the per-row results of updateVec's loops. It reports whether
// it took the aggregate.
func updateSingle(spec *opspec.AggSpec, ar *aggRun, s []uint64, n int, ints []int64, floats []float64, decs []decimal.Int128) (bool, error) {
	switch spec.Kind {
	case opspec.AggCount:
		s[0] += uint64(n)
		return true, nil
	case opspec.AggSum, opspec.AggAvg:
		switch {
		case ints != nil && spec.Arg.Type().IsDecimal():
			var lo, hi uint64 = s[0], s[2]
			for _, x := range ints {
				nlo := lo + uint64(x)
				if nlo < lo {
					hi++
				}
				lo, hi = nlo, hi+uint64(x>>63)
			}
			s[0], s[2] = lo, hi
		case decs != nil:
			sum := decimal.Int128{Lo: s[0], Hi: int64(s[2])}
			for _, x := range decs {
				var ok bool
				if sum, ok = sum.Add(x); !ok || !decFits(sum) {
					return true, fmt.Errorf("%w in %s", expr.ErrDecimalRange, map[opspec.AggKind]string{opspec.AggSum: "SUM", opspec.AggAvg: "AVG"}[spec.Kind])
				}
			}
			s[0], s[2] = sum.Lo, uint64(sum.Hi)
		case spec.Kind == opspec.AggSum && spec.Type == coldata.Int64 && ints != nil:
			ar.intSum = true
			sum := int64(s[0])
			for _, x := range ints {
				t := sum + x
				if (sum^t)&(x^t) < 0 {
					return true, fmt.Errorf("BIGINT value is out of range in SUM")
				}
				sum = t
			}
			s[0] = uint64(sum)
		case ints != nil:
			sum := math.Float64frombits(s[0])
			for _, x := range ints {
				sum += float64(x)
			}
			s[0] = math.Float64bits(sum)
		case floats != nil:
			sum := math.Float64frombits(s[0])
			for _, x := range floats {
				sum += x
			}
			s[0] = math.Float64bits(sum)
		}
		s[1] += uint64(n)
		return true, nil
	case opspec.AggMin, opspec.AggMax:
		if n == 0 {
			return true, nil
		}
		min := spec.Kind == opspec.AggMin
		switch {
		case decs != nil:
			cur, set := decimal.Int128{Lo: s[0], Hi: int64(s[2])}, s[1] != 0
			for _, x := range decs {
				if c := x.Cmp(cur); !set || (min && c < 0) || (!min && c > 0) {
					cur, set = x, true
				}
			}
			s[0], s[2], s[1] = cur.Lo, uint64(cur.Hi), 1
		case ints != nil:
			cur, set := int64(s[0]), s[1] != 0
			for _, x := range ints {
				if !set || (min && x < cur) || (!min && x > cur) {
					cur, set = x, true
				}
			}
			s[0], s[1] = uint64(cur), 1
		case floats != nil:
			cur, set := math.Float64frombits(s[0]), s[1] != 0
			for _, x := range floats {
				if !set || (min && x < cur) || (!min && x > cur) {
					cur, set = x, true
				}
			}
			s[0], s[1] = math.Float64bits(cur), 1
		default:
			return false, nil
		}
		return true, nil
	case opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp:
		if floats == nil {
			return false, nil
		}
		mean, cnt, m2 := math.Float64frombits(s[0]), s[1], math.Float64frombits(s[2])
		for _, x := range floats {
			cnt++
			d := x - mean
			mean += d / float64(cnt)
			m2 += d * (x - mean)
		}
		s[0], s[1], s[2] = math.Float64bits(mean), cnt, math.Float64bits(m2)
		return true, nil
	}
	return false, nil
}
