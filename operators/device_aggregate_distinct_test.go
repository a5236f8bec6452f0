package operators

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// TestPlanDistinctOnDevice: which aggregate lists keep their groups on the
// device beside DISTINCT aggregates, and how each DISTINCT aggregate is
// finished over its (keys, x) tuples: as the plain aggregate of the
// tuples' column after the keys.
func TestPlanDistinctOnDevice(t *testing.T) {
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64, coldata.DecimalOf(12, 2), coldata.Bool}
	ref := func(i int) *expr.ColumnRef { return &expr.ColumnRef{Index: i, T: types[i]} }
	agg := func(k opspec.AggKind, i int, t coldata.Type) opspec.AggSpec {
		return opspec.AggSpec{Kind: k, Arg: ref(i), Type: t}
	}
	distinct := func(k opspec.AggKind, i int, t coldata.Type) opspec.AggSpec {
		s := agg(k, i, t)
		s.Distinct = true
		return s
	}
	type want struct {
		agg, x int
		kind   gpuexec.GroupAggKind
		fin    gpuexec.GroupFinish
	}
	cases := []struct {
		name     string
		aggs     []opspec.AggSpec
		plain    int
		distinct []want // nil: not on the device
	}{
		{"count distinct alone", []opspec.AggSpec{distinct(opspec.AggCount, 1, coldata.Int64)}, 0,
			[]want{{0, 1, gpuexec.GroupCount, gpuexec.FinishCount}}},
		{"beside plain aggregates, AVG too", []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64}, distinct(opspec.AggCount, 2, coldata.Int64), agg(opspec.AggAvg, 3, coldata.Float64),
			agg(opspec.AggMin, 1, coldata.String), distinct(opspec.AggSum, 2, coldata.Int64), distinct(opspec.AggCount, 1, coldata.Int64)}, 3,
			[]want{{1, 2, gpuexec.GroupCount, gpuexec.FinishCount}, {4, 2, gpuexec.GroupSumInt, gpuexec.FinishSumInt}, {5, 1, gpuexec.GroupCount, gpuexec.FinishCount}}},
		{"AVG DISTINCT of a DOUBLE", []opspec.AggSpec{distinct(opspec.AggAvg, 3, coldata.Float64)}, 0,
			[]want{{0, 3, gpuexec.GroupSumFloat, gpuexec.FinishAvgFloat}}},
		{"a variance beside", []opspec.AggSpec{distinct(opspec.AggCount, 1, coldata.Int64), agg(opspec.AggVarPop, 3, coldata.Float64)}, 0, nil},
		{"no DISTINCT", []opspec.AggSpec{agg(opspec.AggSum, 2, coldata.Int64)}, 0, nil},
	}
	for _, c := range cases {
		h := &DeviceHashAggregate{Keys: []int{0}, KeyTypes: types[:1], Aggs: c.aggs}
		kinds, err := DeviceAggKinds(c.aggs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := h.planDistinctOnDevice(kinds)
		if (p != nil) != (c.distinct != nil) {
			t.Fatalf("%s: planned %v, want on the device %v", c.name, p != nil, c.distinct != nil)
		}
		if p == nil {
			continue
		}
		if len(p.plain) != c.plain || len(p.plainFin) != c.plain || len(p.distinct) != len(c.distinct) {
			t.Fatalf("%s: plan %+v", c.name, p)
		}
		for i, w := range c.distinct {
			d := p.distinct[i]
			if d.agg != w.agg || d.x != w.x || d.kind.Kind != w.kind || d.kind.Arg != 1 || d.fin != w.fin || d.typ != c.aggs[w.agg].Type {
				t.Errorf("%s: DISTINCT aggregate %d planned %+v, want %+v", c.name, i, d, w)
			}
		}
	}
}
