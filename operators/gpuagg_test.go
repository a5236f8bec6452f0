package operators

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
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
	h := &DeviceHashAggregate{Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: []AggSpec{
		{Kind: AggCountStar, Type: coldata.Int64},
		{Kind: AggSum, Arg: &expr.ColumnRef{Index: 1, T: coldata.Int64}, Type: coldata.Int64},
		{Kind: AggMin, Arg: &expr.ColumnRef{Index: 2, T: coldata.String}, Type: coldata.String},
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
		spec AggSpec
		x    *coldata.Vec
		want any
	}{
		{AggSpec{Kind: AggCount, Type: coldata.Int64}, iv, int64(4)},
		{AggSpec{Kind: AggSum, Type: coldata.Int64}, iv, int64(5 - 9 + 3 - 1<<62)},
		{AggSpec{Kind: AggAvg, Type: coldata.Float64}, iv, float64(5-9+3-1<<62) / 4},
		{AggSpec{Kind: AggMin, Type: coldata.Int64}, iv, int64(-1 << 62)},
		{AggSpec{Kind: AggMax, Type: coldata.Int64}, iv, int64(5)},
		{AggSpec{Kind: AggMin, Type: coldata.String}, sv, "apple"},
		{AggSpec{Kind: AggMax, Type: coldata.String}, sv, "zoo"},
		{AggSpec{Kind: AggSum, Type: coldata.Float64}, fv, 7.25},
		{AggSpec{Kind: AggMin, Type: coldata.Float64}, fv, -2.25},
		{AggSpec{Kind: AggMax, Type: coldata.Float64}, fv, 8.0},
		{AggSpec{Kind: AggSum, Type: coldata.Float64}, bv, 1.0},
		{AggSpec{Kind: AggMin, Type: coldata.Bool}, bv, false},
		{AggSpec{Kind: AggMax, Type: coldata.Bool}, bv, true},
	}
	for _, c := range cases {
		c.spec.Distinct = true
		c.spec.Arg = &expr.ColumnRef{Index: 0, Name: "x", T: c.x.Type}
		kinds, err := DeviceAggKinds([]AggSpec{c.spec})
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
