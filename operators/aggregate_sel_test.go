package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// poisonSource returns copies of its batches and, when a batch is handed
// back, overwrites the values of its columns the consumer does not keep:
// a consumer that reads a batch after handing it back reads garbage.
type poisonSource struct {
	batches  []*coldata.Batch
	i        int
	released atomic.Int64 // handed back from any goroutine
}

func (p *poisonSource) Open(context.Context) error { p.i = 0; p.released.Store(0); return nil }
func (p *poisonSource) Close() error               { return nil }

func (p *poisonSource) Next(context.Context) (*coldata.Batch, error) {
	if p.i >= len(p.batches) {
		return nil, nil
	}
	b := p.batches[p.i]
	p.i++
	all := make([]int, b.Len)
	for i := range all {
		all[i] = i
	}
	return coldata.GatherBatch(b, all), nil
}

func (p *poisonSource) releaseBatch(b *coldata.Batch, live []*coldata.Vec) {
	p.released.Add(1)
next:
	for _, v := range b.Cols {
		for _, l := range live {
			if v == l || coldata.SharesData(v, l) || (len(v.Offsets) > 0 && len(l.Offsets) > 0 && &v.Offsets[0] == &l.Offsets[0]) {
				continue next
			}
		}
		if v.Const {
			continue
		}
		for i := range v.Ints {
			v.Ints[i] = math.MinInt64 + 12345
		}
		for i := range v.Floats {
			v.Floats[i] = math.Inf(-1)
		}
		for i := range v.Decs {
			v.Decs[i].Lo, v.Decs[i].Hi = 0xdead, -7
		}
		for i := range v.Bytes {
			v.Bytes[i] = '#'
		}
		for i := range v.Bools {
			v.Bools[i] = 1
		}
		for i := range v.Nulls {
			v.Nulls[i] = 0x5a
		}
	}
}

// selTestBatches is rangeTestBatches with an eighth column, a nullable
// BIGINT in [0, 100) for the filter.
func selTestBatches(rng *rand.Rand, nb, rows, domain int, bigInts, huge bool) []*coldata.Batch {
	batches := rangeTestBatches(rng, nb, rows, domain, bigInts, huge)
	for _, b := range batches {
		f := coldata.NewBuilder(coldata.Int64, b.Len)
		for i := 0; i < b.Len; i++ {
			if rng.Intn(23) == 0 {
				f.AppendNull()
			} else {
				f.AppendInt(int64(rng.Intn(100)))
			}
		}
		b.Cols = append(b.Cols, f.Finish())
	}
	return batches
}

// selectable is the aggregates of aggs that read selections.
func selectable(aggs []opspec.AggSpec) []opspec.AggSpec {
	var out []opspec.AggSpec
	for _, s := range aggs {
		if !s.Distinct && s.Kind != opspec.AggGroupConcat && s.Kind != opspec.AggQuantileCont && s.Kind != opspec.AggQuantileDisc {
			out = append(out, s)
		}
	}
	return out
}

// selAggConfig is one way of running the aggregate.
type selAggConfig struct {
	ranges, parts, coalesce, first int
	top                            *opspec.TopGroups
	// parallel: the filter is a ParallelCompute's (its outputs the
	// input's columns, one a constant NULL, as parallelAggInput builds
	// them).
	parallel bool
}

// runSelAgg aggregates the rows of batches where column 7 < keep, through
// a Filter with selections read as selHook says (0: the default), or
// (selHook nil) over the rows filtered beforehand. It returns the
// output, the error, and whether some batch went through a selection.
func runSelAgg(batches []*coldata.Batch, keep int64, cols []int, keys []expr.Expr, aggs []opspec.AggSpec, cfg selAggConfig, selHook *int, memLimit uint64) ([]*coldata.Batch, error, bool) {
	pred := call("<", partCol(7, coldata.Int64), &expr.Literal{Value: keep, T: coldata.Int64})
	var in Operator
	var src *poisonSource
	if selHook == nil {
		var kept []*coldata.Batch
		prog := expr.NewProgram([]expr.Expr{pred})
		for _, b := range batches {
			out, _, err := filterBatch(prog, b, nil, nil)
			if err != nil {
				return nil, err, false
			}
			if out == nil {
				continue
			}
			if cols != nil {
				c := make([]*coldata.Vec, len(cols))
				for i, x := range cols {
					c[i] = out.Cols[x]
				}
				out = &coldata.Batch{Cols: c, Len: out.Len}
			}
			kept = append(kept, out)
		}
		in = &Materialized{Batches: kept}
	} else {
		src = &poisonSource{batches: batches}
		if cfg.parallel {
			var exprs []expr.Expr
			for i, v := range batches[0].Cols {
				exprs = append(exprs, partCol(i, v.Type))
			}
			if cols != nil {
				exprs = exprs[:0]
				for _, c := range cols {
					exprs = append(exprs, partCol(c, batches[0].Cols[c].Type))
				}
			}
			in = Instrument(&ParallelCompute{Input: src, Pred: pred, Exprs: exprs, Workers: 3}, &Stats{})
		} else {
			in = Instrument(&Filter{Input: src, Pred: pred, Cols: cols}, &Stats{})
		}
	}
	h := &HashAggregate{Input: in, Keys: keys, Aggs: aggs, MemoryLimit: memLimit, FirstGroups: cfg.first, Top: cfg.top}
	h.partState.threshold, h.partState.segGroups = cfg.parts, 64
	h.rangeRowsHook, h.mergeWorkHook, h.coalesceHook = cfg.ranges, 100, cfg.coalesce
	var sawSel bool
	if selHook != nil {
		h.selHook = *selHook
		h.selTraceHook = func() { sawSel = true }
	}
	out, err := Drain(context.Background(), h)
	if src != nil && err == nil && keep > 0 && src.released.Load() == 0 {
		return nil, fmt.Errorf("no batch handed back to the filter's input"), sawSel
	}
	return out, err, sawSel
}

// TestSelectionAggregateMatchesGathered checks the aggregate reading a
// filter's rows through its selection against the aggregate over the
// same rows gathered beforehand: every aggregate kind, NULLs, keys plain
// and computed, with and without the ranges, the parts, coalescing,
// FirstGroups and the top-groups cut, filters keeping from none to all of
// the rows, and the errors.
func TestSelectionAggregateMatchesGathered(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	i64, str, f64, bl := coldata.Int64, coldata.String, coldata.Float64, coldata.Bool
	keySets := map[string][]expr.Expr{
		"none":       nil,
		"int":        {partCol(0, i64)},
		"string":     {partCol(1, str)},
		"computed":   {call("+", partCol(0, i64), partCol(4, i64))},
		"bool,dec":   {partCol(3, bl), partCol(6, rangeTestType)},
		"float":      {partCol(2, f64)},
		"int,string": {partCol(0, i64), partCol(1, str)},
	}
	configs := map[string]selAggConfig{
		"serial":         {ranges: -1, parts: math.MaxInt, coalesce: -1},
		"ranges":         {ranges: 64, parts: math.MaxInt, coalesce: -1},
		"parts":          {ranges: 64, parts: 2000, coalesce: -1},
		"coalesce":       {ranges: 64, parts: math.MaxInt, coalesce: 300},
		"parallel":       {ranges: 64, parts: math.MaxInt, coalesce: -1, parallel: true},
		"parallel parts": {ranges: 64, parts: 2000, coalesce: -1, parallel: true},
	}
	on, off, dflt := 1, -1, 0
	for _, tc := range []struct {
		name     string
		domain   int
		bigInts  bool
		huge     bool
		memLimit uint64
		fails    bool
	}{
		{name: "few groups", domain: 8},
		{name: "many groups", domain: 3000},
		{name: "overflow", domain: 8, bigInts: true, fails: true},
		{name: "decimal overflow", domain: 4, huge: true, fails: true},
		{name: "memory limit", domain: 3000, memLimit: 600_000, fails: true},
	} {
		for kn, keys := range keySets {
			if tc.fails && kn != "none" && kn != "int" && kn != "computed" {
				continue
			}
			for cn, cfg := range configs {
				t.Run(tc.name+"/"+kn+"/"+cn, func(t *testing.T) {
					rng := rand.New(rand.NewSource(int64(len(tc.name) + 7*len(kn) + 31*len(cn))))
					batches := selTestBatches(rng, 6, 1500, tc.domain, tc.bigInts, tc.huge)
					dec := rangeTestType
					if tc.huge {
						dec = coldata.DecimalOf(38, 0)
					}
					all := rangeTestAggs(dec)
					for an, aggs := range map[string][]opspec.AggSpec{"all": all, "selectable": selectable(all)} {
						for _, keep := range []int64{0, 5, 60, 95, 100} {
							want, wantErr, _ := runSelAgg(batches, keep, nil, keys, aggs, cfg, nil, tc.memLimit)
							if tc.fails && keep >= 90 && wantErr == nil && (keys != nil || tc.memLimit == 0) {
								t.Fatalf("%s keep %d: no error", an, keep)
							}
							hooks := map[string]*int{"on": &on, "default": &dflt}
							if keep == 60 {
								hooks["off"] = &off
							}
							for hn, hook := range hooks {
								got, err, sawSel := runSelAgg(batches, keep, nil, keys, aggs, cfg, hook, tc.memLimit)
								if fmt.Sprint(err) != fmt.Sprint(wantErr) {
									t.Fatalf("%s keep %d selections %s: error %v, want %v", an, keep, hn, err, wantErr)
								}
								if hn == "on" && an == "selectable" && keep >= 50 && keep < 100 && (cn == "serial" || cn == "ranges" || cn == "parallel") && !sawSel {
									t.Fatalf("%s keep %d: no batch read through its selection", an, keep)
								}
								if hn == "off" && sawSel {
									t.Fatalf("%s keep %d: a batch read through its selection with the hook off", an, keep)
								}
								if err == nil {
									closeBatches(t, got, want)
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestSelectionAggregateCutsAndColumns runs the selection path under the
// FirstGroups and top-groups cuts and under a filter that keeps only some
// of its input's columns, in another order.
func TestSelectionAggregateCutsAndColumns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	i64 := coldata.Int64
	rng := rand.New(rand.NewSource(5))
	batches := selTestBatches(rng, 6, 1500, 200, false, false)
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(4, i64), Type: i64},
		{Kind: opspec.AggMax, Arg: partCol(6, rangeTestType), Type: rangeTestType},
	}
	on := 1
	cfg := selAggConfig{ranges: 64, parts: math.MaxInt, coalesce: -1}
	for _, keep := range []int64{3, 60, 97} {
		for name, c := range map[string]selAggConfig{
			"plain": cfg,
			"first": {ranges: 64, parts: math.MaxInt, coalesce: -1, first: 10},
			"top":   {ranges: 64, parts: math.MaxInt, coalesce: -1, top: &opspec.TopGroups{Agg: 1, Limit: 5, Desc: true}},
		} {
			want, wantErr, _ := runSelAgg(batches, keep, nil, []expr.Expr{partCol(0, i64)}, aggs, c, nil, 0)
			got, err, _ := runSelAgg(batches, keep, nil, []expr.Expr{partCol(0, i64)}, aggs, c, &on, 0)
			if err != nil || wantErr != nil {
				t.Fatalf("%s keep %d: %v, %v", name, keep, err, wantErr)
			}
			closeBatches(t, got, want)
		}
		// The filter passes columns 7, 4, 0 and 6: the keys and
		// arguments refer to its output's.
		cols := []int{7, 4, 0, 6}
		aggs2 := []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: i64},
			{Kind: opspec.AggSum, Arg: partCol(1, i64), Type: i64},
			{Kind: opspec.AggMin, Arg: partCol(3, rangeTestType), Type: rangeTestType},
			{Kind: opspec.AggAvg, Arg: call("+", partCol(1, i64), partCol(0, i64)), Type: coldata.Float64},
		}
		keys := []expr.Expr{partCol(2, i64)}
		want, wantErr, _ := runSelAgg(batches, keep, cols, keys, aggs2, cfg, nil, 0)
		got, err, sawSel := runSelAgg(batches, keep, cols, keys, aggs2, cfg, &on, 0)
		if err != nil || wantErr != nil {
			t.Fatalf("columns keep %d: %v, %v", keep, err, wantErr)
		}
		if !sawSel {
			t.Fatalf("columns keep %d: no selection read", keep)
		}
		closeBatches(t, got, want)
	}
}

// TestSelectionAggregateAllNullRows feeds batches whose kept rows all
// have NULL arguments (the values of the rows dropped are not), first
// and between others, without and with GROUP BY: no value of a row
// dropped or NULL may reach a state.
func TestSelectionAggregateAllNullRows(t *testing.T) {
	i64, f64 := coldata.Int64, coldata.Float64
	mk := func(n int, nullKept bool, seed int64) *coldata.Batch {
		rng := rand.New(rand.NewSource(seed))
		bs := make([]*coldata.Builder, 8)
		for c := range bs {
			ty := i64
			if c == 5 {
				ty = f64
			}
			bs[c] = coldata.NewBuilder(ty, n)
		}
		for i := 0; i < n; i++ {
			kept := i%3 == 0
			for c := 0; c < 7; c++ {
				switch {
				case kept && nullKept && c != 0:
					bs[c].AppendNull()
				case c == 5:
					bs[c].AppendFloat(float64(rng.Intn(1000)))
				case c == 0:
					bs[c].AppendInt(int64(i % 4))
				default:
					bs[c].AppendInt(rng.Int63n(1000) - 500)
				}
			}
			if kept {
				bs[7].AppendInt(0)
			} else {
				bs[7].AppendInt(99)
			}
		}
		cols := make([]*coldata.Vec, 8)
		for c := range bs {
			cols[c] = bs[c].Finish()
		}
		return coldata.NewBatch(cols, n)
	}
	batches := []*coldata.Batch{mk(30, true, 1), mk(40, false, 2), mk(9, true, 3), mk(50, false, 4), mk(3, true, 5)}
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: i64},
		{Kind: opspec.AggCount, Arg: partCol(4, i64), Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(4, i64), Type: i64},
		{Kind: opspec.AggAvg, Arg: partCol(4, i64), Type: f64},
		{Kind: opspec.AggMin, Arg: partCol(6, i64), Type: i64},
		{Kind: opspec.AggMax, Arg: partCol(6, i64), Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggMax, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggVarPop, Arg: partCol(5, f64), Type: f64},
	}
	on, off := 1, -1
	for _, keys := range [][]expr.Expr{nil, {partCol(0, i64)}} {
		for _, cfg := range []selAggConfig{{ranges: -1, parts: math.MaxInt, coalesce: -1}, {ranges: 8, parts: math.MaxInt, coalesce: -1}} {
			want, wantErr, _ := runSelAgg(batches, 1, nil, keys, aggs, cfg, nil, 0)
			for _, hook := range []*int{&on, &off} {
				got, err, _ := runSelAgg(batches, 1, nil, keys, aggs, cfg, hook, 0)
				if err != nil || wantErr != nil {
					t.Fatal(err, wantErr)
				}
				closeBatches(t, got, want)
			}
		}
	}
}

// TestKeyGatherSelMatchesGather checks the parallel copy of a key's
// selected rows against the serial one: BIGINT, DOUBLE (with -0) and
// BOOLEAN keys, with and without NULLs, selections of every density.
func TestKeyGatherSelMatchesGather(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewSource(3))
	const n = 100_000
	for _, ty := range []coldata.Type{coldata.Int64, coldata.Float64, coldata.Bool} {
		for _, nulls := range []bool{false, true} {
			b := coldata.NewBuilder(ty, n)
			for i := 0; i < n; i++ {
				switch {
				case nulls && rng.Intn(7) == 0:
					b.AppendNull()
				case ty == coldata.Int64:
					b.AppendInt(rng.Int63n(1000))
				case ty == coldata.Float64:
					b.AppendFloat([]float64{0, math.Copysign(0, -1), 1.5, -2}[rng.Intn(4)])
				default:
					b.AppendBool(rng.Intn(2) == 0)
				}
			}
			v := b.Finish()
			for _, keep := range []int{1, 3, 9, 10} {
				var sel []int32
				for i := 0; i < n; i++ {
					if rng.Intn(10) < keep {
						sel = append(sel, int32(i))
					}
				}
				var full, want, got keyVec
				full.prepare(v, n)
				want.gather(&full, sel)
				got.gatherSel(&full, sel)
				for i := range sel {
					if want.isNull(i) != got.isNull(i) || (!want.isNull(i) && want.fixed[i] != got.fixed[i]) {
						t.Fatalf("%s nulls %v keep %d: row %d differs", ty, nulls, keep, i)
					}
					if want.floats != nil && !want.isNull(i) && math.Float64bits(want.floats[i]) != math.Float64bits(got.floats[i]) {
						t.Fatalf("%s nulls %v keep %d: row %d float differs", ty, nulls, keep, i)
					}
				}
				if (want.nulls == nil) != (got.nulls == nil) || (want.floats == nil) != (got.floats == nil) {
					t.Fatalf("%s nulls %v keep %d: layouts differ", ty, nulls, keep)
				}
			}
		}
	}
}
