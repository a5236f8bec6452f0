package operators

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// syntheticPartial is a device GROUP BY result of n groups with COUNT(*),
// SUM(BIGINT) and MIN(VARCHAR) states, as gpuexec.GroupBy returns it.
func syntheticPartial(n int) *gpuexec.GroupPartial {
	keys := coldata.NewBuilder(coldata.Int64, n)
	strs := coldata.NewBuilder(coldata.String, n)
	p := &gpuexec.GroupPartial{Aggs: make([]gpuexec.AggPartial, 3)}
	for i := range p.Aggs {
		p.Aggs[i].Count = make([]int64, n)
	}
	p.Aggs[1].Lo = make([]uint64, n)
	p.Aggs[1].Hi = make([]int64, n)
	for g := 0; g < n; g++ {
		keys.AppendInt(int64(g * 7))
		strs.AppendBytes([]byte("value"))
		p.Aggs[0].Count[g] = int64(g%5 + 1)
		if g%9 != 0 {
			p.Aggs[1].Count[g] = 2
			p.Aggs[2].Count[g] = 1
			x := int64(g%1000) - 500
			p.Aggs[1].Lo[g] = uint64(x)
			if x < 0 {
				p.Aggs[1].Hi[g] = -1
			}
		}
	}
	p.Keys = &coldata.Batch{Cols: []*coldata.Vec{keys.Finish()}, Len: n}
	p.Aggs[2].Str = strs.Finish()
	return p
}

func partialAgg() (*DeviceHashAggregate, []gpuexec.GroupAgg) {
	h := &DeviceHashAggregate{Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: &expr.ColumnRef{Index: 1, T: coldata.Int64}, Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: &expr.ColumnRef{Index: 2, T: coldata.String}, Type: coldata.String},
	}}
	kinds, err := DeviceAggKinds(h.Aggs)
	if err != nil {
		panic(err)
	}
	return h, kinds
}

// TestDeviceAggregateFinish checks the host side of the GPU GROUP BY: a
// partial's states become SQL results (NULL for groups without values,
// exact 128-bit sums, the out-of-range error).
func TestDeviceAggregateFinish(t *testing.T) {
	h, kinds := partialAgg()
	p := syntheticPartial(20)
	out, err := h.finishPartial(p, kinds)
	if err != nil {
		t.Fatal(err)
	}
	if out.Len != 20 || len(out.Cols) != 4 {
		t.Fatalf("got %d rows, %d columns", out.Len, len(out.Cols))
	}
	for g := 0; g < 20; g++ {
		if got := out.Cols[0].Int(g); got != int64(g*7) {
			t.Fatalf("key %d: %d", g, got)
		}
		if got := out.Cols[1].Int(g); got != int64(g%5+1) {
			t.Fatalf("count %d: %d", g, got)
		}
		if g%9 == 0 {
			if !out.Cols[2].IsNull(g) || !out.Cols[3].IsNull(g) {
				t.Fatalf("group %d without values is not NULL", g)
			}
			continue
		}
		if got := out.Cols[2].Int(g); got != int64(g%1000)-500 {
			t.Fatalf("sum %d: %d", g, got)
		}
		if got := string(out.Cols[3].Str(g)); got != "value" {
			t.Fatalf("min %d: %q", g, got)
		}
	}
	p.Aggs[1].Hi[1] = 1 // 2^64 + x: out of BIGINT range
	if _, err := h.finishPartial(p, kinds); err == nil || err.Error() != "BIGINT value is out of range in SUM" {
		t.Fatalf("out-of-range sum: %v", err)
	}
}

func BenchmarkDeviceAggregateFinish(b *testing.B) {
	h, kinds := partialAgg()
	p := syntheticPartial(1_100_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.finishPartial(p, kinds); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeviceAggregateMerge merges two batches' partials of the same
// 100,000 groups on the host, as a GROUP BY over batches with few groups
// does (AggFewRows weighs this cost a group against partitioning's a row).
func BenchmarkDeviceAggregateMerge(b *testing.B) {
	h, kinds := partialAgg()
	parts := []*gpuexec.GroupPartial{syntheticPartial(100_000), syntheticPartial(100_000)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.mergeParts(parts, kinds); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200_000, "ns/group")
}

// TestFoldDistinct folds distinct values as the GPU DISTINCT path does and
// checks the finished aggregate, negative BIGINT sums included.
func TestFoldDistinct(t *testing.T) {
	ints := coldata.NewBuilder(coldata.Int64, 4)
	for _, v := range []int64{5, -9, 3, -1 << 62} {
		ints.AppendInt(v)
	}
	strs := coldata.NewBuilder(coldata.String, 3)
	for _, v := range []string{"pear", "apple", "zoo"} {
		strs.AppendBytes([]byte(v))
	}
	floats := coldata.NewBuilder(coldata.Float64, 3)
	for _, v := range []float64{1.5, -2.25, 8} {
		floats.AppendFloat(v)
	}
	bools := coldata.NewBuilder(coldata.Bool, 2)
	bools.AppendBool(true)
	bools.AppendBool(false)
	iv, sv, fv, bv := ints.Finish(), strs.Finish(), floats.Finish(), bools.Finish()
	cases := []struct {
		spec opspec.AggSpec
		x    *coldata.Vec
		want any
	}{
		{opspec.AggSpec{Kind: opspec.AggCount, Type: coldata.Int64}, iv, int64(4)},
		{opspec.AggSpec{Kind: opspec.AggSum, Type: coldata.Int64}, iv, int64(5 - 9 + 3 - 1<<62)},
		{opspec.AggSpec{Kind: opspec.AggAvg, Type: coldata.Float64}, iv, float64(5-9+3-1<<62) / 4},
		{opspec.AggSpec{Kind: opspec.AggMin, Type: coldata.Int64}, iv, int64(-1 << 62)},
		{opspec.AggSpec{Kind: opspec.AggMax, Type: coldata.Int64}, iv, int64(5)},
		{opspec.AggSpec{Kind: opspec.AggMin, Type: coldata.String}, sv, "apple"},
		{opspec.AggSpec{Kind: opspec.AggMax, Type: coldata.String}, sv, "zoo"},
		{opspec.AggSpec{Kind: opspec.AggSum, Type: coldata.Float64}, fv, 7.25},
		{opspec.AggSpec{Kind: opspec.AggMin, Type: coldata.Float64}, fv, -2.25},
		{opspec.AggSpec{Kind: opspec.AggMax, Type: coldata.Float64}, fv, 8.0},
		{opspec.AggSpec{Kind: opspec.AggSum, Type: coldata.Float64}, bv, 1.0},
		{opspec.AggSpec{Kind: opspec.AggMin, Type: coldata.Bool}, bv, false},
		{opspec.AggSpec{Kind: opspec.AggMax, Type: coldata.Bool}, bv, true},
	}
	for _, c := range cases {
		c.spec.Distinct = true
		c.spec.Arg = &expr.ColumnRef{Index: 0, Name: "x", T: c.x.Type}
		kinds, err := DeviceAggKinds([]opspec.AggSpec{c.spec})
		if err != nil {
			t.Fatalf("%v over %v: %v", c.spec.Kind, c.x.Type, err)
		}
		var m mergedAgg
		for j := 0; j < c.x.Len; j++ {
			foldDistinct(&m, kinds[0].Kind, c.x, j)
		}
		b := coldata.NewBuilder(c.spec.Type, 1)
		if err := finishAgg(b, c.spec, kinds[0].Kind, &m); err != nil {
			t.Fatal(err)
		}
		got := b.Finish().Value(0)
		if s, ok := got.([]byte); ok {
			got = string(s)
		}
		if got != c.want {
			t.Errorf("%v(DISTINCT) over %v: got %v (%T), want %v", c.spec.Kind, c.x.Type, got, got, c.want)
		}
	}
}

// varianceParts splits rows (key, x; x NaN for NULL) into batches and
// returns each batch's groups as the device reports them: in order of
// first appearance, each with the count, mean and sum of squared
// deviations of its non-NULL values (the same state for every aggregate).
func varianceParts(keys []int64, xs []float64, batches, naggs int) []*gpuexec.GroupPartial {
	var parts []*gpuexec.GroupPartial
	per := (len(keys) + batches - 1) / batches
	for lo := 0; lo < len(keys); lo += per {
		hi := min(lo+per, len(keys))
		index := map[int64]int{}
		var order []int64
		vals := map[int64][]float64{}
		for i := lo; i < hi; i++ {
			if _, ok := index[keys[i]]; !ok {
				index[keys[i]] = len(order)
				order = append(order, keys[i])
			}
			if !math.IsNaN(xs[i]) {
				vals[keys[i]] = append(vals[keys[i]], xs[i])
			}
		}
		kb := coldata.NewBuilder(coldata.Int64, len(order))
		st := gpuexec.AggPartial{Count: make([]int64, len(order)), Mean: make([]float64, len(order)), M2: make([]float64, len(order))}
		for g, k := range order {
			kb.AppendInt(k)
			v := vals[k]
			st.Count[g] = int64(len(v))
			if len(v) == 0 {
				continue
			}
			var sum float64
			for _, x := range v {
				sum += x
			}
			mean := sum / float64(len(v))
			for _, x := range v {
				st.M2[g] += (x - mean) * (x - mean)
			}
			st.Mean[g] = mean
		}
		p := &gpuexec.GroupPartial{Keys: &coldata.Batch{Cols: []*coldata.Vec{kb.Finish()}, Len: len(order)}}
		for a := 0; a < naggs; a++ {
			p.Aggs = append(p.Aggs, st)
		}
		parts = append(parts, p)
	}
	return parts
}

// TestDeviceVarianceMerge checks the host side of the device VAR/STDDEV
// family: batches' (count, mean, M2) states merged pairwise, and one
// batch's finished directly, give HashAggregate's answers (NULL for no
// values and for a sample form of one value), to a relative 1e-9, also
// around a large mean.
func TestDeviceVarianceMerge(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	const n = 30000
	keys := make([]int64, n)
	xs := make([]float64, n)
	kb := coldata.NewBuilder(coldata.Int64, n)
	xb := coldata.NewBuilder(coldata.Float64, n)
	for i := range keys {
		keys[i] = int64(r.Intn(40))
		switch {
		case keys[i] == 0 || r.Intn(10) == 0: // group 0 has no values
			xs[i] = math.NaN()
		case keys[i] == 1:
			xs[i] = 4.5
		case keys[i]%2 == 0:
			xs[i] = 1e7 + r.Float64()*3
		default:
			xs[i] = r.NormFloat64() * float64(keys[i])
		}
	}
	keys = append(keys, 99) // a group with one value
	xs = append(xs, 2.5)
	for i, k := range keys {
		kb.AppendInt(k)
		if math.IsNaN(xs[i]) {
			xb.AppendNull()
		} else {
			xb.AppendFloat(xs[i])
		}
	}
	in := &coldata.Batch{Cols: []*coldata.Vec{kb.Finish(), xb.Finish()}, Len: len(keys)}
	x := &expr.ColumnRef{Index: 1, Name: "x", T: coldata.Float64}
	var aggs []opspec.AggSpec
	for _, k := range []opspec.AggKind{opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp} {
		aggs = append(aggs, opspec.AggSpec{Kind: k, Arg: x, Type: coldata.Float64})
	}
	cpu := &HashAggregate{Input: &Materialized{Batches: []*coldata.Batch{in}}, Keys: []expr.Expr{&expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}}, Aggs: aggs}
	want, err := Drain(context.Background(), cpu)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := map[int64][]any{}
	for _, b := range want {
		for i := 0; i < b.Len; i++ {
			row := make([]any, len(aggs))
			for a := range aggs {
				row[a] = b.Cols[1+a].Value(i)
			}
			wantRows[b.Cols[0].Int(i)] = row
		}
	}
	h := &DeviceHashAggregate{Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: aggs}
	kinds, err := DeviceAggKinds(aggs)
	if err != nil {
		t.Fatal(err)
	}
	for _, batches := range []int{1, 3, 7} {
		got, err := h.mergeParts(varianceParts(keys, xs, batches, len(aggs)), kinds)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len != len(wantRows) {
			t.Fatalf("%d batches: %d groups, want %d", batches, got.Len, len(wantRows))
		}
		for i := 0; i < got.Len; i++ {
			k := got.Cols[0].Int(i)
			for a := range aggs {
				g, w := got.Cols[1+a].Value(i), wantRows[k][a]
				if (g == nil) != (w == nil) {
					t.Fatalf("%d batches, group %d, %v: got %v, want %v", batches, k, aggs[a].Kind, g, w)
				}
				if g == nil {
					continue
				}
				gf, wf := g.(float64), w.(float64)
				if math.Abs(gf-wf) > 1e-9*math.Max(1, math.Abs(wf)) {
					t.Fatalf("%d batches, group %d, %v: got %v, want %v", batches, k, aggs[a].Kind, gf, wf)
				}
			}
		}
	}
}

// TestDeviceAggKindsVariance: every variance maps onto the device's one
// kind over a DOUBLE; DISTINCT variances have no device form.
func TestDeviceAggKindsVariance(t *testing.T) {
	x := &expr.ColumnRef{Index: 0, Name: "x", T: coldata.Float64}
	for _, k := range []opspec.AggKind{opspec.AggVarPop, opspec.AggVarSamp, opspec.AggStddevPop, opspec.AggStddevSamp} {
		kinds, err := DeviceAggKinds([]opspec.AggSpec{{Kind: k, Arg: x, Type: coldata.Float64}})
		if err != nil || kinds[0].Kind != gpuexec.GroupVariance {
			t.Errorf("%v: %v, %v", k, kinds, err)
		}
	}
	for _, s := range []opspec.AggSpec{
		{Kind: opspec.AggVarSamp, Arg: x, Distinct: true, Type: coldata.Float64},
		{Kind: opspec.AggVarPop, Arg: &expr.ColumnRef{Index: 0, Name: "i", T: coldata.Int64}, Type: coldata.Float64},
	} {
		if _, err := DeviceAggKinds([]opspec.AggSpec{s}); err == nil {
			t.Errorf("%+v has a device form", s)
		}
	}
}

// TestDeviceAggKindsQuantile: the quantiles map onto the device's sorted
// kinds with their fraction and direction, over the fixed-width types the
// device orders; VARCHAR, wide DECIMAL and a quantile beside a DISTINCT
// aggregate stay on the host.
func TestDeviceAggKindsQuantile(t *testing.T) {
	col := func(ty coldata.Type) expr.Expr { return &expr.ColumnRef{Index: 1, Name: "x", T: ty} }
	desc := []opspec.AggOrder{{Desc: true}}
	for _, c := range []struct {
		spec opspec.AggSpec
		want gpuexec.GroupAgg
	}{
		{opspec.AggSpec{Kind: opspec.AggQuantileCont, Arg: col(coldata.Float64), Quantile: 0.5, Type: coldata.Float64},
			gpuexec.GroupAgg{Kind: gpuexec.GroupQuantileCont, Arg: 1, Quantile: 0.5}},
		{opspec.AggSpec{Kind: opspec.AggQuantileCont, Arg: col(coldata.Float64), Quantile: 0.25, Order: desc, Type: coldata.Float64},
			gpuexec.GroupAgg{Kind: gpuexec.GroupQuantileCont, Arg: 1, Quantile: 0.25, Desc: true}},
		{opspec.AggSpec{Kind: opspec.AggQuantileDisc, Arg: col(coldata.Int64), Quantile: 1, Type: coldata.Int64},
			gpuexec.GroupAgg{Kind: gpuexec.GroupQuantileDisc, Arg: 1, Quantile: 1}},
		{opspec.AggSpec{Kind: opspec.AggQuantileDisc, Arg: col(coldata.Date), Quantile: 0, Order: desc, Type: coldata.Date},
			gpuexec.GroupAgg{Kind: gpuexec.GroupQuantileDisc, Arg: 1, Desc: true}},
		{opspec.AggSpec{Kind: opspec.AggQuantileDisc, Arg: col(coldata.DecimalOf(18, 2)), Quantile: 0.5, Type: coldata.DecimalOf(18, 2)},
			gpuexec.GroupAgg{Kind: gpuexec.GroupQuantileDisc, Arg: 1, Quantile: 0.5}},
		{opspec.AggSpec{Kind: opspec.AggQuantileDisc, Arg: col(coldata.Bool), Quantile: 0.5, Type: coldata.Bool},
			gpuexec.GroupAgg{Kind: gpuexec.GroupQuantileDisc, Arg: 1, Quantile: 0.5}},
	} {
		kinds, err := DeviceAggKinds([]opspec.AggSpec{c.spec})
		if err != nil || kinds[0] != c.want {
			t.Errorf("%+v: got %+v, %v; want %+v", c.spec, kinds, err, c.want)
		}
	}
	for _, specs := range [][]opspec.AggSpec{
		{{Kind: opspec.AggQuantileDisc, Arg: col(coldata.String), Quantile: 0.5, Type: coldata.String}},
		{{Kind: opspec.AggQuantileDisc, Arg: col(coldata.DecimalOf(20, 2)), Quantile: 0.5, Type: coldata.DecimalOf(20, 2)}},
		{{Kind: opspec.AggQuantileCont, Arg: col(coldata.Int64), Quantile: 0.5, Type: coldata.Float64}}, // the binder casts to DOUBLE
		{{Kind: opspec.AggQuantileCont, Arg: col(coldata.Float64), Quantile: 0.5, Type: coldata.Float64},
			{Kind: opspec.AggCount, Arg: col(coldata.Int64), Distinct: true, Type: coldata.Int64}},
		{{Kind: opspec.AggGroupConcat, Arg: col(coldata.String), Order: desc, Type: coldata.String}},
	} {
		if kinds, err := DeviceAggKinds(specs); err == nil {
			t.Errorf("%+v has a device form: %+v", specs, kinds)
		}
	}
}

// TestDeviceAggregateFinishQuantiles: one batch's quantile states become
// the output column (NULL where a group has no values), beside COUNT(*).
func TestDeviceAggregateFinishQuantiles(t *testing.T) {
	dec := coldata.DecimalOf(10, 2)
	h := &DeviceHashAggregate{Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggQuantileCont, Arg: &expr.ColumnRef{Index: 1, T: coldata.Float64}, Quantile: 0.5, Type: coldata.Float64},
		{Kind: opspec.AggQuantileDisc, Arg: &expr.ColumnRef{Index: 2, T: dec}, Quantile: 0.9, Type: dec},
	}}
	kinds, err := DeviceAggKinds(h.Aggs)
	if err != nil {
		t.Fatal(err)
	}
	keys := coldata.NewBuilder(coldata.Int64, 3)
	vals := coldata.NewBuilder(dec, 3)
	for g, v := range []int64{-150, 0, 99999} {
		keys.AppendInt(int64(g))
		vals.AppendValue(decimal.FromInt64(v))
	}
	p := &gpuexec.GroupPartial{Keys: &coldata.Batch{Cols: []*coldata.Vec{keys.Finish()}, Len: 3}, Aggs: []gpuexec.AggPartial{
		{Count: []int64{4, 1, 2}},
		{Count: []int64{3, 0, 2}, Float: []float64{-2.5, 0, 1e300}},
		{Count: []int64{3, 0, 1}, Vals: vals.Finish()},
	}}
	out, err := h.finishPartial(p, kinds)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(0), int64(4), -2.5, decimal.FromInt64(-150)},
		{int64(1), int64(1), nil, nil},
		{int64(2), int64(2), 1e300, decimal.FromInt64(99999)},
	}
	for g, row := range want {
		for c, w := range row {
			if got := out.Cols[c].Value(g); got != w {
				t.Errorf("group %d column %d: got %v, want %v", g, c, got, w)
			}
		}
	}
}
