package operators

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// TestPlanTwoPhaseDistinct: which aggregate lists group in two phases on
// the device, and how: the first phase's partials sit after the keys and
// the counted column, COUNTs are summed, sums summed, extremes taken
// again, and the DISTINCT count counts the counted column.
func TestPlanTwoPhaseDistinct(t *testing.T) {
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64, coldata.DecimalOf(12, 2)}
	ref := func(i int) *expr.ColumnRef { return &expr.ColumnRef{Index: i, T: types[i]} }
	countDistinct := func(i int) opspec.AggSpec {
		return opspec.AggSpec{Kind: opspec.AggCount, Distinct: true, Arg: ref(i), Type: coldata.Int64}
	}
	agg := func(k opspec.AggKind, i int, t coldata.Type) opspec.AggSpec {
		return opspec.AggSpec{Kind: k, Arg: ref(i), Type: t}
	}
	sumDec := coldata.DecimalOf(38, 2)
	cases := []struct {
		name   string
		aggs   []opspec.AggSpec
		second []gpuexec.GroupAgg // nil: not in two phases
		first  []gpuexec.GroupFinish
	}{
		{"count distinct alone", []opspec.AggSpec{countDistinct(1)},
			[]gpuexec.GroupAgg{{Kind: gpuexec.GroupCount, Arg: 1}}, nil},
		{"merged aggregates", []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64}, countDistinct(1), agg(opspec.AggSum, 2, coldata.Int64),
			agg(opspec.AggMax, 3, coldata.Float64), agg(opspec.AggSum, 4, sumDec), agg(opspec.AggMin, 1, coldata.String),
			agg(opspec.AggCount, 3, coldata.Int64), countDistinct(1)},
			[]gpuexec.GroupAgg{{Kind: gpuexec.GroupSumInt, Arg: 2}, {Kind: gpuexec.GroupCount, Arg: 1}, {Kind: gpuexec.GroupSumInt, Arg: 3},
				{Kind: gpuexec.GroupMaxFloat, Arg: 4}, {Kind: gpuexec.GroupSumDec, Arg: 5}, {Kind: gpuexec.GroupMinString, Arg: 6},
				{Kind: gpuexec.GroupSumInt, Arg: 7}, {Kind: gpuexec.GroupCount, Arg: 1}},
			[]gpuexec.GroupFinish{gpuexec.FinishCount, gpuexec.FinishSumInt, gpuexec.FinishFloat, gpuexec.FinishSumDec, gpuexec.FinishRows, gpuexec.FinishCount}},
		{"AVG does not merge", []opspec.AggSpec{countDistinct(1), agg(opspec.AggAvg, 3, coldata.Float64)}, nil, nil},
		{"two counted columns", []opspec.AggSpec{countDistinct(1), countDistinct(2)}, nil, nil},
		{"DISTINCT SUM", []opspec.AggSpec{{Kind: opspec.AggSum, Distinct: true, Arg: ref(2), Type: coldata.Int64}}, nil, nil},
		{"no DISTINCT", []opspec.AggSpec{agg(opspec.AggSum, 2, coldata.Int64)}, nil, nil},
	}
	for _, c := range cases {
		h := &DeviceHashAggregate{Keys: []int{0}, KeyTypes: types[:1], Aggs: c.aggs}
		kinds, err := DeviceAggKinds(c.aggs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := h.planTwoPhaseDistinct(kinds)
		if (p != nil) != (c.second != nil) {
			t.Fatalf("%s: planned %v, want two phases %v", c.name, p != nil, c.second != nil)
		}
		if p == nil {
			continue
		}
		if p.x != 1 || len(p.second) != len(c.second) || len(p.firstFin) != len(c.first) || len(p.secondTypes) != len(c.aggs) {
			t.Fatalf("%s: plan %+v", c.name, p)
		}
		for i, g := range c.second {
			if p.second[i].Kind != g.Kind || p.second[i].Arg != g.Arg || p.secondTypes[i] != c.aggs[i].Type {
				t.Errorf("%s: second phase aggregate %d is %+v of %s, want %+v of %s", c.name, i, p.second[i], p.secondTypes[i], g, c.aggs[i].Type)
			}
		}
		for i, f := range c.first {
			if p.firstFin[i] != f {
				t.Errorf("%s: first phase finish %d is %d, want %d", c.name, i, p.firstFin[i], f)
			}
		}
	}
}
