package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// rangeTestType is the DECIMAL column of rangeTestBatches.
var rangeTestType = coldata.DecimalOf(12, 2)

// rangeTestBatches is partTestBatches with a seventh column, a nullable
// DECIMAL(12,2) (or DECIMAL(38,0) near its limit with huge), and one
// batch of fewer rows than a range, which updates serially.
func rangeTestBatches(rng *rand.Rand, nb, rows, domain int, bigInts, huge bool) []*coldata.Batch {
	batches := partTestBatches(rng, nb, rows, domain, bigInts)
	batches = append(batches[:nb/2], append(partTestBatches(rng, 1, 50, domain, bigInts), batches[nb/2:]...)...)
	t := rangeTestType
	if huge {
		t = coldata.DecimalOf(38, 0)
	}
	for _, b := range batches {
		d := coldata.NewBuilder(t, b.Len)
		for i := 0; i < b.Len; i++ {
			switch {
			case rng.Intn(9) == 0:
				d.AppendNull()
			case huge:
				// 4e37 and a bit: three of them pass 10^38.
				x, _ := decimal.FromInt64(4e15).Mul(decimal.FromInt64(1e15))
				x, _ = x.Mul(decimal.FromInt64(1e7))
				x, _ = x.Add(decimal.FromInt64(rng.Int63n(1000)))
				d.AppendDec(x)
			default:
				d.AppendDec(decimal.FromInt64(rng.Int63n(2_000_000) - 1_000_000))
			}
		}
		b.Cols = append(b.Cols, d.Finish())
	}
	return batches
}

// rangeTestAggs is every aggregate kind over rangeTestBatches' columns:
// the mergeable ones and those that stay serial.
func rangeTestAggs(dec coldata.Type) []opspec.AggSpec {
	i64, f64, str, bl := coldata.Int64, coldata.Float64, coldata.String, coldata.Bool
	return []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: i64},
		{Kind: opspec.AggCount, Arg: partCol(1, str), Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(4, i64), Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(3, bl), Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggAvg, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggAvg, Arg: partCol(4, i64), Type: f64},
		{Kind: opspec.AggSum, Arg: partCol(6, dec), Type: expr.DecimalSumType(dec)},
		{Kind: opspec.AggAvg, Arg: partCol(6, dec), Type: expr.DecimalAvgType(dec)},
		{Kind: opspec.AggMin, Arg: partCol(6, dec), Type: dec},
		{Kind: opspec.AggMax, Arg: partCol(6, dec), Type: dec},
		{Kind: opspec.AggMin, Arg: partCol(4, i64), Type: i64},
		{Kind: opspec.AggMax, Arg: partCol(0, i64), Type: i64},
		{Kind: opspec.AggMin, Arg: partCol(1, str), Type: str},
		{Kind: opspec.AggMax, Arg: partCol(1, str), Type: str},
		{Kind: opspec.AggMax, Arg: partCol(3, bl), Type: bl},
		{Kind: opspec.AggMin, Arg: partCol(3, bl), Type: bl},
		{Kind: opspec.AggMin, Arg: partCol(2, f64), Type: f64}, // serial: -0 and 0
		{Kind: opspec.AggMax, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggVarPop, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggVarSamp, Arg: partCol(2, f64), Type: f64},
		{Kind: opspec.AggStddevPop, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggStddevSamp, Arg: partCol(5, f64), Type: f64},
		{Kind: opspec.AggCount, Arg: partCol(0, i64), Distinct: true, Type: i64},
		{Kind: opspec.AggSum, Arg: partCol(1, str), Distinct: true, Type: f64},
		{Kind: opspec.AggGroupConcat, Arg: partCol(1, str), Separator: ",", Order: []opspec.AggOrder{{Expr: partCol(1, str)}}, Type: str},
		{Kind: opspec.AggQuantileCont, Arg: partCol(5, f64), Quantile: 0.5, Type: f64},
		{Kind: opspec.AggQuantileDisc, Arg: partCol(4, i64), Quantile: 0.25, Type: i64},
		{Kind: opspec.AggAvg, Arg: call("+", partCol(5, f64), partCol(5, f64)), Type: f64},
		{Kind: opspec.AggSum, Arg: call("*", partCol(0, i64), partCol(4, i64)), Type: i64},
		{Kind: opspec.AggMax, Arg: call("*", partCol(6, dec), partCol(6, dec)), Type: coldata.DecimalOf(38, 4)},
		{Kind: opspec.AggMin, Arg: &expr.Literal{Value: int64(7), T: i64}, Type: i64},
		{Kind: opspec.AggSum, Arg: &expr.Literal{Value: nil, T: coldata.Null}, Type: f64},
		{Kind: opspec.AggCount, Arg: &expr.Literal{Value: nil, T: coldata.Null}, Type: i64},
	}
}

// call returns a call of function name (a pure one: the ranges evaluate
// it over their rows).
func call(name string, args ...expr.Expr) expr.Expr {
	f, ok := expr.Lookup(name)
	if !ok {
		panic("no function " + name)
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		panic(err)
	}
	return e
}

// runRangeAgg aggregates the batches with rangeRows replaced by rows (-1:
// never in ranges), and rangeGroupsMax by groups when above 0.
func runRangeAgg(batches []*coldata.Batch, keys []expr.Expr, aggs []opspec.AggSpec, rows, groups int, maxGroups int, memLimit uint64) ([]*coldata.Batch, bool, error) {
	return runRangeAggWeak(batches, keys, aggs, rows, groups, maxGroups, memLimit, false)
}

// runRangeAggWeak is runRangeAgg with weak hashes (colliding tags) when
// weak is set.
func runRangeAggWeak(batches []*coldata.Batch, keys []expr.Expr, aggs []opspec.AggSpec, rows, groups int, maxGroups int, memLimit uint64, weak bool) ([]*coldata.Batch, bool, error) {
	h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs, MaxGroups: maxGroups, MemoryLimit: memLimit}
	h.partState.threshold = math.MaxInt // the single table
	h.rangeRowsHook, h.rangeGroupsHook, h.weakHashHook, h.mergeWorkHook = rows, groups, weak, 100
	out, err := Drain(context.Background(), h)
	return out, h.rangesRan, err
}

// closeBatches compares results value by value: floats within a relative
// 1e-9 (a float sum in another order differs in its last bits), the rest
// exactly.
func closeBatches(t *testing.T, got, want []*coldata.Batch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d batches, want %d", len(got), len(want))
	}
	for bi := range got {
		g, w := got[bi], want[bi]
		if g.Len != w.Len || len(g.Cols) != len(w.Cols) {
			t.Fatalf("batch %d: %d rows x %d cols, want %d x %d", bi, g.Len, len(g.Cols), w.Len, len(w.Cols))
		}
		for c := range g.Cols {
			for r := 0; r < g.Len; r++ {
				gv, wv := g.Cols[c].Value(r), w.Cols[c].Value(r)
				gf, gok := gv.(float64)
				wf, wok := wv.(float64)
				if gok && wok {
					if gf != wf && !(math.Abs(gf-wf) <= 1e-9*math.Max(math.Abs(wf), 1e-300)) && !(math.IsNaN(gf) && math.IsNaN(wf)) {
						t.Fatalf("row %d col %d: %v, want %v", r, c, gf, wf)
					}
					continue
				}
				if fmt.Sprint(gv) != fmt.Sprint(wv) {
					t.Fatalf("row %d col %d: %v, want %v", r, c, gv, wv)
				}
			}
		}
	}
}

// TestRangeAggregateMatchesSerial checks the range-parallel accumulation
// against one goroutine's: every aggregate kind, with NULLs, with and
// without GROUP BY, switching to serial past the groups limit, and the
// errors (SUM and DECIMAL overflow, MaxGroups, the memory limit).
func TestRangeAggregateMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	keySets := map[string][]expr.Expr{
		"none":       nil,
		"int":        {partCol(0, coldata.Int64)},
		"string":     {partCol(1, coldata.String)},
		"int,string": {partCol(0, coldata.Int64), partCol(1, coldata.String)},
	}
	for _, tc := range []struct {
		name      string
		domain    int
		later     int // the domain of a second run of batches (0: none)
		bigInts   bool
		huge      bool
		groups    int // rangeGroupsHook
		maxGroups int
		memLimit  uint64
		fails     bool
		weak      bool
	}{
		{name: "few groups", domain: 8},
		{name: "more groups", domain: 600},
		{name: "weak hash", domain: 600, weak: true},
		{name: "past the groups limit", domain: 8, later: 600, groups: 1000},
		{name: "overflow", domain: 8, bigInts: true, fails: true},
		{name: "decimal overflow", domain: 4, huge: true, fails: true},
		{name: "max groups", domain: 8, later: 3000, maxGroups: 1000, fails: true},
		{name: "memory limit", domain: 8, later: 3000, memLimit: 1_300_000, fails: true},
	} {
		for kn, keys := range keySets {
			t.Run(tc.name+"/"+kn, func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(len(tc.name) + len(kn))))
				batches := rangeTestBatches(rng, 8, 3000, tc.domain, tc.bigInts, tc.huge)
				if tc.later > 0 {
					batches = append(batches, rangeTestBatches(rng, 4, 3000, tc.later, tc.bigInts, tc.huge)...)
				}
				dec := rangeTestType
				if tc.huge {
					dec = coldata.DecimalOf(38, 0)
				}
				aggs := rangeTestAggs(dec)
				want, _, werr := runRangeAgg(batches, keys, aggs, -1, 0, tc.maxGroups, tc.memLimit)
				got, ran, gerr := runRangeAggWeak(batches, keys, aggs, 64, tc.groups, tc.maxGroups, tc.memLimit, tc.weak)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("error %v, want %v", gerr, werr)
				}
				if tc.fails != (werr != nil) && (kn != "none" || tc.later == 0) {
					t.Fatalf("error %v, but the case fails: %v", werr, tc.fails)
				}
				if !ran {
					t.Fatalf("no batch went through the ranges")
				}
				if werr == nil {
					closeBatches(t, got, want)
				}
			})
		}
	}
}

// TestRangeAggregateDeterministic checks that the ranges give the same
// float sums, bit for bit, on every run and whatever the number of cores.
func TestRangeAggregateDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	batches := rangeTestBatches(rand.New(rand.NewSource(5)), 8, 3000, 5, false, false)
	aggs := rangeTestAggs(rangeTestType)
	keys := []expr.Expr{partCol(0, coldata.Int64)}
	want, _, err := runRangeAgg(batches, keys, aggs, 64, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{2, 3, 8, 2} {
		runtime.GOMAXPROCS(procs)
		got, _, err := runRangeAgg(batches, keys, aggs, 64, 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameBatches(t, got, want)
	}
}

// TestRangesThenParts checks a GROUP BY that starts on the ranges and goes
// partitioned after some batches: the partials merge into the parts.
func TestRangesThenParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewSource(21))
	batches := rangeTestBatches(rng, 4, 3000, 8, false, false)
	batches = append(batches, rangeTestBatches(rng, 6, 3000, 3000, false, false)...)
	var aggs []opspec.AggSpec
	for _, spec := range rangeTestAggs(rangeTestType) {
		if spec.Kind != opspec.AggGroupConcat && spec.Kind != opspec.AggQuantileCont && spec.Kind != opspec.AggQuantileDisc && !spec.Distinct {
			aggs = append(aggs, spec) // those the parts take
		}
	}
	for kn, keys := range map[string][]expr.Expr{
		"int":        {partCol(0, coldata.Int64)},
		"int,string": {partCol(0, coldata.Int64), partCol(1, coldata.String)},
	} {
		t.Run(kn, func(t *testing.T) {
			want, _, werr := runRangeAgg(batches, keys, aggs, -1, 0, 0, 0)
			h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs}
			h.partState.threshold, h.rangeRowsHook = 12000, 64
			got, gerr := Drain(context.Background(), h)
			if werr != nil || gerr != nil {
				t.Fatalf("errors %v, %v", gerr, werr)
			}
			if !h.rangesRan || !h.merged {
				t.Fatalf("ranges ran %v, parts ran %v", h.rangesRan, h.merged)
			}
			closeBatches(t, got, want)
		})
	}
}

// TestRangeArgumentErrors checks that arguments the ranges evaluate fail
// as on one goroutine: an evaluation error before or after an aggregate
// whose sum overflows, in the first batch or a later one.
func TestRangeArgumentErrors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	i64 := coldata.Int64
	overflows := opspec.AggSpec{Kind: opspec.AggSum, Arg: call("*", partCol(4, i64), &expr.Literal{Value: int64(4), T: i64}), Type: i64}
	sum := opspec.AggSpec{Kind: opspec.AggSum, Arg: partCol(4, i64), Type: i64}
	count := opspec.AggSpec{Kind: opspec.AggCountStar, Type: i64}
	small := rangeTestBatches(rand.New(rand.NewSource(2)), 3, 3000, 8, false, false)
	big := rangeTestBatches(rand.New(rand.NewSource(3)), 3, 3000, 8, true, false)
	for _, tc := range []struct {
		name    string
		aggs    []opspec.AggSpec
		batches []*coldata.Batch
	}{
		{"evaluation first", []opspec.AggSpec{count, overflows, sum}, big},
		{"overflow first", []opspec.AggSpec{sum, overflows, count}, big},
		{"in a later batch", []opspec.AggSpec{count, overflows}, append(append([]*coldata.Batch{}, small...), big...)},
	} {
		for kn, keys := range map[string][]expr.Expr{"none": nil, "int": {partCol(0, i64)}} {
			t.Run(tc.name+"/"+kn, func(t *testing.T) {
				_, _, werr := runRangeAgg(tc.batches, keys, tc.aggs, -1, 0, 0, 0)
				_, ran, gerr := runRangeAgg(tc.batches, keys, tc.aggs, 64, 0, 0, 0)
				t.Log(werr)
				if werr == nil || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("error %v, want %v (not nil)", gerr, werr)
				}
				if !ran {
					t.Fatal("no batch went through the ranges")
				}
			})
		}
	}
}

// TestResultColumnsInParallel checks the output of many groups, whose
// aggregate columns build on one goroutine each, against one core's.
func TestResultColumnsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	batches := rangeTestBatches(rand.New(rand.NewSource(4)), 24, 3000, 100_000, false, false)
	keys := []expr.Expr{partCol(0, coldata.Int64)}
	aggs := rangeTestAggs(rangeTestType)
	want, _, werr := runRangeAgg(batches, keys, aggs, -1, 0, 0, 0)
	runtime.GOMAXPROCS(4)
	got, _, gerr := runRangeAgg(batches, keys, aggs, -1, 0, 0, 0)
	if werr != nil || gerr != nil {
		t.Fatalf("errors %v, %v", gerr, werr)
	}
	if want[0].Len < resultParallelGroups {
		t.Fatalf("%d groups, too few to build in parallel", want[0].Len)
	}
	sameBatches(t, got, want)
}

// TestWorkerPanicReachesCaller checks that a panic on a range's goroutine
// is raised again on the goroutine that waits, where a statement's
// recovery catches it, instead of ending the process.
func TestWorkerPanicReachesCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	h := &HashAggregate{}
	got := func() (r any) {
		defer func() { r = recover() }()
		h.forRanges(8, true, func(r int) {
			if r == 5 {
				panic("boom")
			}
		}, nil)
		return nil
	}()
	if s, ok := got.(string); !ok || !strings.Contains(s, "boom") {
		t.Fatalf("recovered %v, want the worker's panic", got)
	}
}
