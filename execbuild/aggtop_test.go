package execbuild

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/planner"
)

// noteAggTop finds the device GROUP BY under ORDER BY <an aggregate or a
// key, then any terms> LIMIT through projections of plain columns and
// transfers, and nothing else.
func TestNoteAggTop(t *testing.T) {
	ref := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, T: coldata.Int64} }
	lit := &expr.Literal{T: coldata.Int64, Value: int64(1)}
	agg := func(kinds ...opspec.AggKind) *planner.DeviceAggregate {
		a := &planner.DeviceAggregate{NKeys: 1}
		for _, k := range kinds {
			a.Aggs = append(a.Aggs, opspec.AggSpec{Kind: k})
		}
		return a
	}
	cases := []struct {
		name string
		make func(a *planner.DeviceAggregate) (*planner.Sort, bool)
		aggs []opspec.AggKind
		want *opspec.TopGroups
	}{
		{"sort on the count", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 2, Desc: true}}}, true
		}, []opspec.AggKind{opspec.AggSum, opspec.AggCountStar}, &opspec.TopGroups{Agg: 1, Desc: true, Limit: 15}},
		{"through a projection and transfers", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			p := &planner.Compute{Input: &planner.Transfer{Input: a, ToDevice: true}, Exprs: []expr.Expr{lit, ref(0), ref(1)}}
			return &planner.Sort{Input: &planner.Project{Input: p, Exprs: []expr.Expr{ref(2), ref(1)}}, Keys: []opspec.SortKey{{Col: 0}}}, true
		}, []opspec.AggKind{opspec.AggCount}, &opspec.TopGroups{Agg: 0, Limit: 15}},
		{"sort on a key", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 0}}}, true
		}, []opspec.AggKind{opspec.AggCountStar}, &opspec.TopGroups{Agg: 0, Key: true, Limit: 15}},
		{"sort on a key descending, NULLs first", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 0, Desc: true, Nulls: opspec.NullsFirst}}}, true
		}, []opspec.AggKind{opspec.AggCountStar}, &opspec.TopGroups{Agg: 0, Key: true, Desc: true, Nulls: opspec.NullsFirst, Limit: 15}},
		{"sort on a SUM", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 1, Desc: true}}}, true
		}, []opspec.AggKind{opspec.AggSum}, &opspec.TopGroups{Agg: 0, Desc: true, Limit: 15}},
		{"sort on an AVG", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 2}}}, true
		}, []opspec.AggKind{opspec.AggCountStar, opspec.AggAvg}, &opspec.TopGroups{Agg: 1, Limit: 15}},
		{"sort on a MIN and a MAX", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 1, Nulls: opspec.NullsLast}, {Col: 2}}}, true
		}, []opspec.AggKind{opspec.AggMin, opspec.AggMax}, &opspec.TopGroups{Agg: 0, Nulls: opspec.NullsLast, Ties: true, Limit: 15}},
		{"two sort keys: the first one's ties", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 1}, {Col: 0}}}, true
		}, []opspec.AggKind{opspec.AggCountStar}, &opspec.TopGroups{Agg: 0, Ties: true, Limit: 15}},
		{"sort on a GROUP_CONCAT", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 1}}}, false
		}, []opspec.AggKind{opspec.AggGroupConcat}, nil},
		{"sort on a variance", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: a, Keys: []opspec.SortKey{{Col: 1}}}, false
		}, []opspec.AggKind{opspec.AggVarPop}, nil},
		{"a filter between (HAVING)", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: &planner.Compute{Input: a, Pred: lit}, Keys: []opspec.SortKey{{Col: 1}}}, false
		}, []opspec.AggKind{opspec.AggCountStar}, nil},
		{"a computed sort key", func(a *planner.DeviceAggregate) (*planner.Sort, bool) {
			return &planner.Sort{Input: &planner.Project{Input: a, Exprs: []expr.Expr{lit}}, Keys: []opspec.SortKey{{Col: 0}}}, false
		}, []opspec.AggKind{opspec.AggCountStar}, nil},
	}
	for _, c := range cases {
		a := agg(c.aggs...)
		s, _ := c.make(a)
		b := &Built{}
		b.noteSortLimit(&planner.Limit{Input: s, Count: 10, Offset: 5})
		got := b.aggTop[a]
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	// A LIMIT without ORDER BY asks for the first groups (Agg -1), through
	// transfers and computes but not through a filter.
	for _, c := range []struct {
		name string
		wrap func(planner.Node) planner.Node
		want bool
	}{
		{"directly", func(n planner.Node) planner.Node { return n }, true},
		{"through a transfer and a compute", func(n planner.Node) planner.Node {
			return &planner.Compute{Input: &planner.Transfer{Input: n, ToDevice: true}, Exprs: []expr.Expr{lit}}
		}, true},
		{"HAVING", func(n planner.Node) planner.Node { return &planner.Compute{Input: n, Pred: lit} }, false},
		{"ORDER BY", func(n planner.Node) planner.Node { return &planner.Sort{Input: n, Keys: []opspec.SortKey{{Col: 0}}} }, false},
	} {
		a := agg(opspec.AggSum)
		b := &Built{}
		b.noteSortLimit(&planner.Limit{Input: c.wrap(a), Count: 4, Offset: 1})
		got := b.aggTop[a]
		if c.want && (got == nil || *got != opspec.TopGroups{Agg: -1, Limit: 5}) || !c.want && got != nil && got.Agg == -1 {
			t.Errorf("LIMIT without ORDER BY, %s: got %+v", c.name, got)
		}
	}
	// A CPU GROUP BY gets the same note (HashAggregate.Top).
	cpuAgg := &planner.Aggregate{Keys: []expr.Expr{ref(0)}, Aggs: []opspec.AggSpec{{Kind: opspec.AggSum}, {Kind: opspec.AggCountStar}}}
	b := &Built{}
	b.noteSortLimit(&planner.Limit{Input: &planner.Sort{Input: &planner.Project{Input: cpuAgg, Exprs: []expr.Expr{ref(2), ref(0)}}, Keys: []opspec.SortKey{{Col: 0, Desc: true}}}, Count: 10})
	if got := b.aggTop[cpuAgg]; got == nil || *got != (opspec.TopGroups{Agg: 1, Desc: true, Limit: 10}) {
		t.Errorf("CPU aggregate: got %+v", got)
	}
	distinct := agg(opspec.AggCount)
	distinct.Aggs[0].Distinct = true
	b = &Built{}
	b.noteSortLimit(&planner.Limit{Input: &planner.Sort{Input: distinct, Keys: []opspec.SortKey{{Col: 1}}}, Count: 3})
	if b.aggTop[distinct] != nil {
		t.Errorf("COUNT(DISTINCT) got a top")
	}
}
