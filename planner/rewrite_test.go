package planner

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Tables t(a BIGINT, b VARCHAR, c DOUBLE, d BOOLEAN) and u(k BIGINT, x VARCHAR).
var (
	tblT = &catalog.Table{Name: "t", Rows: 10, Columns: []catalog.Column{
		{Name: "a", Type: coldata.Int64}, {Name: "b", Type: coldata.String}, {Name: "c", Type: coldata.Float64}, {Name: "d", Type: coldata.Bool}}}
	tblU = &catalog.Table{Name: "u", Rows: 3, Columns: []catalog.Column{
		{Name: "k", Type: coldata.Int64}, {Name: "x", Type: coldata.String}}}
)

func scanOf(tbl *catalog.Table) *Scan {
	s := &Scan{Table: tbl, Alias: tbl.Name}
	for i := range tbl.Columns {
		s.Cols = append(s.Cols, i)
	}
	return s
}

func ref(n Node, i int) expr.Expr {
	c := n.Columns()[i]
	return &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}
}

// refAt refers to column i of the concatenation of left and right.
func refAt(i int, name string, ty coldata.Type) expr.Expr {
	return &expr.ColumnRef{Index: i, Name: name, T: ty}
}

func lit(v any) expr.Expr {
	switch x := v.(type) {
	case int:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}
	case int64:
		return &expr.Literal{Value: x, T: coldata.Int64}
	case float64:
		return &expr.Literal{Value: x, T: coldata.Float64}
	case string:
		return &expr.Literal{Value: x, T: coldata.String}
	case bool:
		return &expr.Literal{Value: x, T: coldata.Bool}
	}
	return &expr.Literal{Value: nil, T: coldata.Null}
}

func call(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	f, ok := expr.Lookup(name)
	if !ok {
		t.Fatalf("no function %s", name)
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

func project(in Node, es ...expr.Expr) *Project {
	p := &Project{Input: in, Exprs: es}
	for _, e := range es {
		p.Out = append(p.Out, Column{Name: e.String(), Type: e.Type()})
	}
	return p
}

func explain(n Node) string { return strings.Join(Explain(n), "\n") }

func checkPlan(t *testing.T, what string, n Node, want ...string) {
	t.Helper()
	if got := explain(n); got != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, got, strings.Join(want, "\n"))
	}
}

func TestFoldConstants(t *testing.T) {
	s := scanOf(tblT)
	a, b := ref(s, 0), ref(s, 1)
	for _, tc := range []struct {
		name string
		plan func() Node
		want []string
	}{
		{"filter folds arithmetic", func() Node {
			return &Filter{Input: s, Pred: call(t, ">", a, call(t, "+", lit(1), call(t, "*", lit(2), lit(3))))}
		}, []string{"Filter (a > 7) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"TRUE filter dropped", func() Node {
			return project(&Filter{Input: s, Pred: call(t, "=", lit(1), lit(1))}, a)
		}, []string{"Project a [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"FALSE filter kept", func() Node {
			return &Filter{Input: s, Pred: call(t, "and", call(t, "=", lit(1), lit(2)), call(t, "is_null", a))}
		}, []string{"Filter (FALSE and is_null(a)) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"NULL filter kept", func() Node {
			return &Filter{Input: s, Pred: call(t, "=", lit(nil), lit(1))}
		}, []string{"Filter NULL [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"projection", func() Node {
			return project(s, call(t, "upper", lit("abc")), call(t, "concat", b, call(t, "lower", lit("XY"))), call(t, "+", lit(1.0), lit(2.5)))
		}, []string{"Project 'ABC' AS upper('abc'), concat(b, 'xy') AS concat(b, lower('XY')), 3.5 AS (1 + 2.5) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"nested filters", func() Node {
			inner := &Filter{Input: s, Pred: call(t, "<", lit(1), lit(2))}
			return &Filter{Input: inner, Pred: call(t, "<>", b, call(t, "concat", lit("a"), lit("b")))}
		}, []string{"Filter (b <> 'ab') [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"aggregate keys and args", func() Node {
			return &Aggregate{Input: s, Keys: []expr.Expr{call(t, "+", a, call(t, "-", lit(5), lit(4)))},
				Aggs:     []opspec.AggSpec{{Kind: opspec.AggSum, Arg: call(t, "*", a, call(t, "+", lit(1), lit(1))), Type: coldata.Int64}},
				AggNames: []string{"sum"}}
		}, []string{"HashAggregate keys: (a + 1) aggs: sum [cpu]", "  Scan t [a b c d] (10 rows) [cpu]"}},
		{"join condition", func() Node {
			u := scanOf(tblU)
			return &Join{Left: s, Right: u, Cond: call(t, ">", refAt(4, "k", coldata.Int64), call(t, "-", lit(10), lit(1)))}
		}, []string{"Inner NestedLoopJoin filter (k > 9) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]", "  Scan u [k x] (3 rows) [cpu]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := FoldConstants(tc.plan())
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, tc.name, n, tc.want...)
		})
	}

	// Aggregates are copied, not changed in place.
	spec := []opspec.AggSpec{{Kind: opspec.AggSum, Arg: call(t, "+", lit(1), lit(1)), Type: coldata.Int64}}
	if _, err := FoldConstants(&Aggregate{Input: s, Aggs: spec, AggNames: []string{"s"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := spec[0].Arg.(*expr.Call); !ok {
		t.Errorf("FoldConstants changed the original aggregate spec")
	}

	// A failing constant is a TypeMismatch error at plan time.
	_, err := FoldConstants(project(s, call(t, "+", lit(int64(9223372036854775807)), lit(1))))
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != TypeMismatch || !strings.Contains(pe.Msg, "out of range") {
		t.Errorf("overflowing constant: %v", err)
	}
}

func TestFoldConstantsVolatile(t *testing.T) {
	calls := 0
	vol := &expr.Function{Name: "test_volatile", MinArgs: 1, MaxArgs: 1, Volatile: true,
		Check: expr.Fixed(coldata.Int64, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			calls++
			return coldata.NewConst(coldata.Int64, int64(calls), n), nil
		}}
	e, err := expr.NewCall(vol, []expr.Expr{call(t, "+", lit(1), lit(2))})
	if err != nil {
		t.Fatal(err)
	}
	s := scanOf(tblT)
	n, err := FoldConstants(&Filter{Input: s, Pred: call(t, ">", e, lit(0))})
	if err != nil {
		t.Fatal(err)
	}
	// The arguments fold; the volatile call and everything above it stay.
	checkPlan(t, "volatile", n, "Filter (test_volatile(3) > 0) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]")
	if calls != 0 {
		t.Errorf("volatile function evaluated %d times at plan time", calls)
	}
	// The same function without the flag folds.
	nv := *vol
	nv.Volatile = false
	e2, _ := expr.NewCall(&nv, []expr.Expr{lit(1)})
	n, err = FoldConstants(project(s, e2))
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, "stable", n, "Project 1 AS test_volatile(1) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]")
}

func TestPruneColumns(t *testing.T) {
	s := scanOf(tblT)
	a, b, c, d := ref(s, 0), ref(s, 1), ref(s, 2), ref(s, 3)

	// Project over Scan: only c, remapped to 0.
	n := PruneColumns(project(s, call(t, "*", c, lit(2.0))))
	p := n.(*Project)
	ps := p.Input.(*Scan)
	if !reflect.DeepEqual(ps.Cols, []int{2}) || p.Exprs[0].(*expr.Call).Args[0].(*expr.ColumnRef).Index != 0 {
		t.Errorf("project over scan: cols %v, expr %v", ps.Cols, p.Exprs[0])
	}
	if len(s.Cols) != 4 {
		t.Errorf("PruneColumns changed the original scan")
	}

	// Project over Filter(Scan): the filter's columns are kept too, both remapped.
	n = PruneColumns(project(&Filter{Input: s, Pred: d}, b, call(t, "+", c, lit(1.0)), b))
	checkPlan(t, "project over filter", n,
		"Project b, (c + 1) AS (c + 1), b [cpu]",
		"  Filter d [cpu]",
		"    Scan t [b c d] (10 rows) [cpu]")
	p = n.(*Project)
	f := p.Input.(*Filter)
	if idx := []int{p.Exprs[0].(*expr.ColumnRef).Index, p.Exprs[2].(*expr.ColumnRef).Index, f.Pred.(*expr.ColumnRef).Index}; !reflect.DeepEqual(idx, []int{0, 0, 2}) {
		t.Errorf("remapped indexes %v", idx)
	}

	// Constant projections read no column.
	n = PruneColumns(project(s, lit(1)))
	if cols := n.(*Project).Input.(*Scan).Cols; len(cols) != 0 {
		t.Errorf("constant projection reads %v", cols)
	}

	// Aggregate: keys, arguments and GROUP_CONCAT order columns.
	agg := &Aggregate{Input: s, Keys: []expr.Expr{d},
		Aggs: []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggGroupConcat, Arg: b, Order: []opspec.AggOrder{{Expr: a, Desc: true}}, Type: coldata.String, Separator: ","},
		},
		AggNames: []string{"count(*)", "group_concat(b order by a desc)"}}
	n = PruneColumns(agg)
	na := n.(*Aggregate)
	if cols := na.Input.(*Scan).Cols; !reflect.DeepEqual(cols, []int{0, 1, 3}) {
		t.Errorf("aggregate scan cols %v", cols)
	}
	if na.Keys[0].(*expr.ColumnRef).Index != 2 || na.Aggs[1].Arg.(*expr.ColumnRef).Index != 1 || na.Aggs[1].Order[0].Expr.(*expr.ColumnRef).Index != 0 || !na.Aggs[1].Order[0].Desc {
		t.Errorf("aggregate remap: keys %v arg %v order %v", na.Keys, na.Aggs[1].Arg, na.Aggs[1].Order)
	}
	if agg.Aggs[1].Arg.(*expr.ColumnRef).Index != 1 || agg.Aggs[1].Order[0].Expr.(*expr.ColumnRef).Index != 0 || agg.Keys[0].(*expr.ColumnRef).Index != 3 {
		t.Errorf("PruneColumns changed the original aggregate")
	}
	// COUNT(*) alone reads nothing.
	n = PruneColumns(&Aggregate{Input: s, Aggs: agg.Aggs[:1], AggNames: agg.AggNames[:1]})
	if cols := n.(*Aggregate).Input.(*Scan).Cols; len(cols) != 0 {
		t.Errorf("COUNT(*) reads %v", cols)
	}

	// Deeper: Sort above the Project; the Project's scan is still pruned.
	srt := &Sort{Input: project(s, c), Keys: []opspec.SortKey{{Col: 0}}}
	checkPlan(t, "sort over project", PruneColumns(srt),
		"Sort c [cpu]",
		"  Project c [cpu]",
		"    Scan t [c] (10 rows) [cpu]")

	// A projection over a join narrows both sides; a side nothing above
	// reads keeps only its row count.
	u := scanOf(tblU)
	j := &Join{Left: s, Right: u}
	checkPlan(t, "project over join", PruneColumns(project(j, refAt(5, "x", coldata.String))),
		"Project x [cpu]",
		"  Inner NestedLoopJoin [cpu]",
		"    Scan t [] (10 rows) [cpu]",
		"    Scan u [x] (3 rows) [cpu]")
}

func TestPushFilters(t *testing.T) {
	s, u := scanOf(tblT), scanOf(tblU)
	a, b, c := refAt(0, "a", coldata.Int64), refAt(1, "b", coldata.String), refAt(2, "c", coldata.Float64)
	k, x := refAt(4, "k", coldata.Int64), refAt(5, "x", coldata.String)
	and := func(es ...expr.Expr) expr.Expr {
		out := es[0]
		for _, e := range es[1:] {
			out = call(t, "and", out, e)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		plan func() Node
		want []string
	}{
		{"inner: split across sides", func() Node {
			return &Filter{Input: &Join{Left: s, Right: u},
				Pred: and(call(t, ">", a, lit(1)), call(t, "=", x, lit("q")), call(t, "=", a, k), call(t, "<", b, x), call(t, "=", lit(1), lit(1)))}
		}, []string{
			"Filter (1 = 1) [cpu]",
			"  Inner HashJoin on a = k filter (b < x) [cpu]",
			"    Filter (a > 1) [cpu]",
			"      Scan t [a b c d] (10 rows) [cpu]",
			"    Filter (x = 'q') [cpu]",
			"      Scan u [k x] (3 rows) [cpu]",
		}},
		{"inner: reversed equality and expressions", func() Node {
			return &Filter{Input: &Join{Left: s, Right: u},
				Pred: and(call(t, "=", call(t, "+", k, lit(1)), a), call(t, "=", call(t, "upper", x), b))}
		}, []string{
			"Inner HashJoin on a = (k + 1) AND b = upper(x) [cpu]",
			"  Scan t [a b c d] (10 rows) [cpu]",
			"  Scan u [k x] (3 rows) [cpu]",
		}},
		{"inner: keys join the existing ones", func() Node {
			j := &Join{Left: s, Right: u}
			j.setCondition(and(call(t, "=", a, k), call(t, ">", c, lit(0.5))), 4)
			return &Filter{Input: j, Pred: call(t, "=", b, x)}
		}, []string{
			// The condition's left-only conjunct filters the left input.
			"Inner HashJoin on b = x AND a = k [cpu]",
			"  Filter (c > 0.5) [cpu]",
			"    Scan t [a b c d] (10 rows) [cpu]",
			"  Scan u [k x] (3 rows) [cpu]",
		}},
		{"left: only left predicates move", func() Node {
			j := &Join{Kind: opspec.LeftJoin, Left: s, Right: u}
			j.setCondition(call(t, "=", a, k), 4)
			return &Filter{Input: j, Pred: and(call(t, ">", a, lit(1)), call(t, "is_null", x), call(t, "=", b, x))}
		}, []string{
			"Filter (is_null(x) and (b = x)) [cpu]",
			"  Left HashJoin on a = k [cpu]",
			"    Filter (a > 1) [cpu]",
			"      Scan t [a b c d] (10 rows) [cpu]",
			"    Scan u [k x] (3 rows) [cpu]",
		}},
		{"right-side filter is remapped", func() Node {
			return &Filter{Input: &Join{Left: s, Right: u}, Pred: call(t, ">", k, lit(3))}
		}, []string{
			"Inner NestedLoopJoin [cpu]",
			"  Scan t [a b c d] (10 rows) [cpu]",
			"  Filter (k > 3) [cpu]",
			"    Scan u [k x] (3 rows) [cpu]",
		}},
		{"filter not over a join stays", func() Node {
			return project(&Filter{Input: s, Pred: call(t, ">", a, lit(1))}, a)
		}, []string{
			"Project a [cpu]",
			"  Filter (a > 1) [cpu]",
			"    Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"nested joins", func() Node {
			inner := &Join{Left: s, Right: u}
			// (t x u) x u2: columns a b c d k x k2 x2
			outer := &Join{Left: inner, Right: scanOf(tblU)}
			return &Filter{Input: outer, Pred: and(call(t, "=", a, k), call(t, "=", k, refAt(6, "k", coldata.Int64)))}
		}, []string{
			"Inner HashJoin on k = k [cpu]",
			"  Inner HashJoin on a = k [cpu]",
			"    Scan t [a b c d] (10 rows) [cpu]",
			"    Scan u [k x] (3 rows) [cpu]",
			"  Scan u [k x] (3 rows) [cpu]",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPlan(t, tc.name, PushFilters(tc.plan()), tc.want...)
		})
	}

	// Pushed right-side predicates read the right input's own columns.
	n := PushFilters(&Filter{Input: &Join{Left: s, Right: u}, Pred: call(t, "=", x, lit("q"))})
	rf := n.(*Join).Right.(*Filter)
	if idx := rf.Pred.(*expr.Call).Args[0].(*expr.ColumnRef).Index; idx != 1 {
		t.Errorf("pushed right predicate reads column %d, want 1", idx)
	}
	// Hash keys are over each side's own columns.
	n = PushFilters(&Filter{Input: &Join{Left: s, Right: u}, Pred: call(t, "=", x, b)})
	j := n.(*Join)
	if l, r := j.LeftKeys[0].(*expr.ColumnRef).Index, j.RightKeys[0].(*expr.ColumnRef).Index; l != 1 || r != 1 {
		t.Errorf("keys read columns %d and %d", l, r)
	}
}

// fakeSupport says no GPU implementation for UPPER, and that CONCAT runs
// only on the kernel library (not fused).
func fakeSupport(inputs []Column, pred expr.Expr, exprs []expr.Expr) (bool, error) {
	fused := true
	var err error
	all := append([]expr.Expr(nil), exprs...)
	if pred != nil {
		all = append(all, pred)
	}
	for _, e := range all {
		expr.Walk(e, func(x expr.Expr) {
			if c, ok := x.(*expr.Call); ok {
				switch c.Fn.Name {
				case "upper":
					err = fmt.Errorf("function UPPER has no GPU implementation")
				case "concat":
					fused = false
				}
			}
		})
	}
	return fused && err == nil, err
}

func TestPlace(t *testing.T) {
	s := scanOf(tblT)
	a, b := ref(s, 0), ref(s, 1)
	gt := func() expr.Expr { return call(t, ">", a, lit(1)) }
	opts := PlaceOptions{GPU: true, Fusion: true, Supported: fakeSupport, Aggregates: deviceAggregates}
	for _, tc := range []struct {
		name string
		plan func() Node
		opts PlaceOptions
		want []string
	}{
		{"filter+projection fuse into one Compute", func() Node {
			return project(&Filter{Input: s, Pred: gt()}, call(t, "lower", b), a)
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Project lower(b) AS lower(b), a Filter (a > 1) (fused kernel) [gpu]",
			"    Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"fusion off", func() Node {
			return project(&Filter{Input: s, Pred: gt()}, call(t, "lower", b))
		}, PlaceOptions{GPU: true, Supported: fakeSupport, Aggregates: deviceAggregates}, []string{
			"DeviceToHost [cpu]",
			"  Project lower(b) AS lower(b) Filter (a > 1) (kernel library) [gpu]",
			"    Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"library-only function", func() Node {
			return project(s, call(t, "concat", b, b))
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Project concat(b, b) AS concat(b, b) (kernel library) [gpu]",
			"    Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"column choice stays on the host", func() Node {
			return project(s, b, a)
		}, opts, []string{
			"Project b, a [cpu: chooses columns of host batches]",
			"  Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"unsupported projection: filter on the GPU, projection on the CPU", func() Node {
			return project(&Filter{Input: s, Pred: gt()}, call(t, "upper", b))
		}, opts, []string{
			"Project upper(b) AS upper(b) [cpu: function UPPER has no GPU implementation]",
			"  DeviceToHost [cpu]",
			"    Filter (a > 1) (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"nothing supported: all on the CPU", func() Node {
			return project(&Filter{Input: s, Pred: call(t, "=", call(t, "upper", b), lit("X"))}, call(t, "upper", b))
		}, opts, []string{
			"Project upper(b) AS upper(b) [cpu: function UPPER has no GPU implementation]",
			"  Filter (upper(b) = 'X') [cpu: function UPPER has no GPU implementation]",
			"    Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"filter alone", func() Node {
			return &Filter{Input: s, Pred: gt()}
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Filter (a > 1) (fused kernel) [gpu]",
			"    Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"unsupported filter alone", func() Node {
			return &Filter{Input: s, Pred: call(t, "=", call(t, "upper", b), lit("X"))}
		}, opts, []string{
			"Filter (upper(b) = 'X') [cpu: function UPPER has no GPU implementation]",
			"  Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"sort and limit", func() Node {
			p := project(s, call(t, "lower", b))
			return &Limit{Input: &Sort{Input: p, Keys: []opspec.SortKey{{Col: 0, Desc: true}}}, Count: 5}
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Limit 5 [gpu]",
			"    Sort lower(b) DESC (gpu: keys sorted on the device, and on the host for text past 32 bytes) [gpu]",
			"      Project lower(b) AS lower(b) (fused kernel) [gpu]",
			"        Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"sort of a number on the device", func() Node {
			p := project(s, call(t, "lower", b), a)
			return &Sort{Input: p, Keys: []opspec.SortKey{{Col: 1, Desc: true}}}
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Sort a DESC (gpu: keys sorted on the device) [gpu]",
			"    Project lower(b) AS lower(b), a (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"limit over GPU output stays on the GPU", func() Node {
			return &Limit{Input: project(s, call(t, "lower", b)), Count: 2, Offset: 1}
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Limit 2 offset 1 [gpu]",
			"    Project lower(b) AS lower(b) (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"filter over a host operator is uploaded", func() Node {
			return &Filter{Input: &Distinct{Input: s}, Pred: gt()}
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  Filter (a > 1) (fused kernel) [gpu]",
			"    HostToDevice [gpu]",
			"      Distinct [cpu: DISTINCT has no device operator]",
			"        Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"aggregate and join on the GPU", func() Node {
			u := scanOf(tblU)
			j := &Join{Left: &Filter{Input: s, Pred: gt()}, Right: u}
			j.setCondition(call(t, "=", a, refAt(4, "k", coldata.Int64)), 4)
			return &Aggregate{Input: j, Keys: []expr.Expr{refAt(5, "x", coldata.String)}, AggNames: []string{"count(*)"},
				Aggs: []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}}}
		}, opts, []string{
			"HashAggregate keys: x aggs: count(*) (hash table on the gpu, groups merged on the host) [cpu]",
			"  Project x (fused kernel) [gpu]",
			"    Inner HashJoin on a = k (gpu hash table) [gpu]",
			"      Filter (a > 1) (fused kernel) [gpu]",
			"        Scan t [a b c d] (10 rows) [gpu]",
			"      Scan u [k x] (3 rows) [gpu]",
		}},
		{"distinct aggregate on the GPU over a left join with a condition on the CPU", func() Node {
			u := scanOf(tblU)
			j := &Join{Kind: opspec.LeftJoin, Left: s, Right: u}
			j.setCondition(call(t, "AND", call(t, "=", a, refAt(4, "k", coldata.Int64)), gt()), 4)
			return &Aggregate{Input: j, Keys: []expr.Expr{refAt(5, "x", coldata.String)}, AggNames: []string{"count(DISTINCT a)"},
				Aggs: []opspec.AggSpec{{Kind: opspec.AggCount, Distinct: true, Arg: a, Type: coldata.Int64}}}
		}, opts, []string{
			"HashAggregate keys: x aggs: count(DISTINCT a) (hash table on the gpu, groups merged on the host) [cpu]",
			"  Project x, a (fused kernel) [gpu]",
			"    HostToDevice [gpu]",
			"      Left HashJoin on a = k filter (a > 1) [cpu: a LEFT JOIN with a condition besides its keys]",
			"        Scan t [a b c d] (10 rows) [cpu]",
			"        Scan u [k x] (3 rows) [cpu]",
		}},
		{"GROUP_CONCAT stays on the CPU", func() Node {
			return &Aggregate{Input: s, Keys: []expr.Expr{a}, AggNames: []string{"group_concat(b)"},
				Aggs: []opspec.AggSpec{{Kind: opspec.AggGroupConcat, Arg: refAt(1, "b", coldata.String), Type: coldata.String, Separator: ","}}}
		}, opts, []string{
			"HashAggregate keys: a aggs: group_concat(b) [cpu: aggregate 0 (GROUP_CONCAT) has no GPU implementation]",
			"  Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"union of GPU parts", func() Node {
			p1 := project(s, call(t, "lower", b))
			p2 := project(s, call(t, "lower", b))
			return &Union{Parts: []Node{p1, p2}, Out: p1.Out}
		}, opts, []string{
			"DeviceToHost [cpu]",
			"  UnionAll [gpu]",
			"    Project lower(b) AS lower(b) (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
			"    Project lower(b) AS lower(b) (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"union of mixed parts", func() Node {
			p1 := project(s, call(t, "lower", b))
			p2 := project(s, call(t, "upper", b))
			return &Union{Parts: []Node{p1, p2}, Out: p1.Out}
		}, opts, []string{
			"UnionAll [cpu: a part runs on the host]",
			"  DeviceToHost [cpu]",
			"    Project lower(b) AS lower(b) (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
			"  Project upper(b) AS upper(b) [cpu: function UPPER has no GPU implementation]",
			"    Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"GPU off: unchanged", func() Node {
			return project(&Filter{Input: s, Pred: gt()}, call(t, "lower", b))
		}, PlaceOptions{Supported: fakeSupport, Aggregates: deviceAggregates}, []string{
			"Project lower(b) AS lower(b) [cpu]",
			"  Filter (a > 1) [cpu]",
			"    Scan t [a b c d] (10 rows) [cpu]",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Place(tc.plan(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, tc.name, n, tc.want...)
			if n.Placement() != CPU {
				t.Errorf("root placed on %s", n.Placement())
			}
		})
	}

	// Strict mode: an unsupported filter or projection is an error.
	strict := PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: fakeSupport, Aggregates: deviceAggregates}
	for _, n := range []Node{
		project(s, call(t, "upper", b)),
		project(&Filter{Input: s, Pred: gt()}, call(t, "upper", b)),
		&Filter{Input: s, Pred: call(t, "=", call(t, "upper", b), lit("X"))},
		&Sort{Input: project(s, call(t, "upper", b)), Keys: []opspec.SortKey{{Col: 0}}},
	} {
		_, err := Place(n, strict)
		if err == nil || !strings.Contains(err.Error(), "device gpu: function UPPER has no GPU implementation") {
			t.Errorf("strict placement of\n%s\n: %v", explain(n), err)
		}
	}
	// Strict mode with supported expressions works.
	if _, err := Place(project(&Filter{Input: s, Pred: gt()}, a, call(t, "lower", b)), strict); err != nil {
		t.Errorf("strict placement of supported plan: %v", err)
	}
}

// TestPlaceWhileCompiling: in auto mode a filter or projection whose GPU
// kernels are not ready runs on the CPU, and EXPLAIN says why; strict mode
// does not fall back.
func TestPlaceWhileCompiling(t *testing.T) {
	s := scanOf(tblT)
	a, b := ref(s, 0), ref(s, 1)
	gt := func() expr.Expr { return call(t, ">", a, lit(1)) }
	compiling := func(_ []Column, _ expr.Expr, _ []expr.Expr) (bool, error) { return true, ErrNotReady }
	n, err := Place(project(&Filter{Input: s, Pred: gt()}, call(t, "lower", b)), PlaceOptions{GPU: true, Fusion: true, Supported: compiling, Aggregates: deviceAggregates})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, "compiling", n,
		"Project lower(b) AS lower(b) [cpu: GPU kernels compiling]",
		"  Filter (a > 1) [cpu: GPU kernels compiling]",
		"    Scan t [a b c d] (10 rows) [cpu]")
	n, err = Place(&Filter{Input: s, Pred: gt()}, PlaceOptions{GPU: true, Fusion: true, Supported: compiling, Aggregates: deviceAggregates})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, "filter compiling", n,
		"Filter (a > 1) [cpu: GPU kernels compiling]",
		"  Scan t [a b c d] (10 rows) [cpu]")
	if _, err := Place(&Filter{Input: s, Pred: gt()}, PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: compiling, Aggregates: deviceAggregates}); !errors.Is(err, ErrNotReady) {
		t.Fatalf("strict placement while compiling: %v", err)
	}
}

func TestExplain(t *testing.T) {
	s := scanOf(tblT)
	a := ref(s, 0)
	lim := &Limit{Input: &Distinct{Input: project(s, a)}, Count: -1, Offset: 0}
	checkPlan(t, "explain", lim,
		"Limit -1 [cpu]",
		"  Distinct [cpu]",
		"    Project a [cpu]",
		"      Scan t [a b c d] (10 rows) [cpu]")
	agg := &Aggregate{Input: s, AggNames: []string{"count(*)", "max(a)"}, Aggs: []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggMax, Arg: a, Type: coldata.Int64}}}
	if got := agg.Columns(); !reflect.DeepEqual(got, []Column{{"count(*)", coldata.Int64}, {"max(a)", coldata.Int64}}) {
		t.Errorf("aggregate columns %v", got)
	}
	checkPlan(t, "aggregate", agg, "HashAggregate aggs: count(*), max(a) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]")
	v := &Values{Out: []Column{{"x", coldata.Int64}}, Rows: [][]expr.Expr{{lit(1)}, {lit(2)}}}
	checkPlan(t, "values", v, "Values (2 rows) [cpu]")
	j := &Join{Kind: opspec.LeftJoin, Left: s, Right: scanOf(tblU), Cond: call(t, "<", a, refAt(4, "k", coldata.Int64))}
	checkPlan(t, "left nested loop", j, "Left NestedLoopJoin filter (a < k) [cpu]", "  Scan t [a b c d] (10 rows) [cpu]", "  Scan u [k x] (3 rows) [cpu]")
	if got := len(j.Columns()); got != 6 {
		t.Errorf("join has %d columns", got)
	}
	if CPU.String() != "cpu" || GPU.String() != "gpu" {
		t.Errorf("device names %s %s", CPU, GPU)
	}
	// Error kinds print.
	for k, want := range map[ErrorKind]string{UnknownTable: "unknown table", UnknownColumn: "unknown column", AmbiguousColumn: "ambiguous column",
		UnknownFunction: "unknown function", TypeMismatch: "type mismatch", Unsupported: "not supported", ErrorKind(0): "error"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q", k, k.String())
		}
	}
}

// bigU is table u with 1,000 rows of data (scannedBytes reads them).
func bigU() *catalog.Table {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	xb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < 1000; i++ {
		kb.Append(int64(i))
		xb.Append(fmt.Sprintf("value-%d", i))
	}
	rec := array.NewRecord(catalog.Schema(tblU.Columns), []arrow.Array{kb.NewArray(), xb.NewArray()}, 1000)
	return &catalog.Table{Name: "u", Rows: 1000, Columns: tblU.Columns, Records: []arrow.Record{rec}}
}

// TestPlaceJoinBuildSideOverDeviceMemory: a join whose build side would
// take more than a quarter of the device memory stays on the CPU; the
// same join within the budget goes to the GPU. A LEFT join hashes its
// right side; an INNER join whose left side is far smaller hashes the
// left one and holds the right one unhashed.
func TestPlaceJoinBuildSideOverDeviceMemory(t *testing.T) {
	s, u := scanOf(tblT), scanOf(bigU())
	bytes := buildBytes(u)
	if scanned := scannedBytes(u); scanned < 1000*8 || bytes != scanned+1000*hashTableBytesPerRow {
		t.Fatalf("build bytes of u: %d (%d scanned)", bytes, scanned)
	}
	swapped := heldBytes(u) + buildBytes(s)
	if swapped >= bytes {
		t.Fatalf("10 rows hashed beside u held: %d bytes, u hashed %d", swapped, bytes)
	}
	for _, kind := range []opspec.JoinKind{opspec.LeftJoin, opspec.InnerJoin} {
		j := &Join{Left: s, Right: u, Kind: kind}
		j.setCondition(call(t, "=", refAt(0, "a", coldata.Int64), refAt(4, "k", coldata.Int64)), 4)
		name, b := "Left", bytes
		if kind == opspec.InnerJoin {
			name, b = "Inner", swapped
		}
		for _, tc := range []struct {
			mem  uint64
			want string
		}{
			{4 * b, name + " HashJoin on a = k (gpu hash table) [gpu]"},
			{4*b - 1, name + " HashJoin on a = k [cpu: its build side takes " + byteSize(b) + ", over a quarter of device memory]"},
			{0, name + " HashJoin on a = k (gpu hash table) [gpu]"},
		} {
			p, err := Place(j, PlaceOptions{GPU: true, Fusion: true, Supported: fakeSupport, Aggregates: deviceAggregates, DeviceMemory: tc.mem})
			if err != nil {
				t.Fatal(err)
			}
			if got := explain(p); !strings.Contains(got, tc.want) {
				t.Errorf("%s, device memory %d:\n%s\nwant a line %q", name, tc.mem, got, tc.want)
			}
		}
	}
}

// TestJoinBuildBytesEstimate: a build side's size is its estimated rows
// times their width, not the bytes its scans read: a selective filter over
// a large table is a small build side, and a projection narrows it.
func TestJoinBuildBytesEstimate(t *testing.T) {
	u := scanOf(bigU())
	whole := buildBytes(u)
	eq := &Filter{Input: u, Pred: call(t, "=", refAt(0, "k", coldata.Int64), &expr.Literal{Value: int64(10), T: coldata.Int64})}
	if got := buildBytes(eq); got >= whole/4 || got == 0 {
		t.Errorf("build side k = 10 over u: %d bytes, u whole %d", got, whole)
	}
	narrow := &Project{Input: u, Exprs: []expr.Expr{refAt(0, "k", coldata.Int64)}, Out: u.Columns()[:1]}
	if got, want := buildBytes(narrow), uint64(1000*(8+hashTableBytesPerRow)); got != want {
		t.Errorf("one BIGINT column of 1000 rows: %d bytes, want %d", got, want)
	}
	if w := columnWidth(narrow, 0); w != 8 {
		t.Errorf("BIGINT width %v", w)
	}
}

// TestPlaceFilterOverScanOverDeviceMemory: a filter over a scan whose
// columns take more than half the device memory (so that they could not
// stay resident) runs on the host, which reads only the predicate's
// columns, with the reason in EXPLAIN; within the budget it runs on the
// GPU, and a sort above follows its input.
func TestPlaceFilterOverScanOverDeviceMemory(t *testing.T) {
	u := scanOf(bigU())
	bytes := scannedBytes(u)
	pred := call(t, ">", refAt(0, "k", coldata.Int64), &expr.Literal{Value: int64(10), T: coldata.Int64})
	for _, tc := range []struct {
		mem  uint64
		want string
	}{
		{2 * bytes, "[gpu]"},
		{2*bytes - 1, fmt.Sprintf("[cpu: its scan's 2 columns take %s, over the half of device memory a table may keep resident; the host filters them without copying]", byteSize(bytes))},
		{0, "[gpu]"},
	} {
		for _, n := range []Node{
			&Filter{Input: u, Pred: pred},
			&Project{Input: &Filter{Input: u, Pred: pred}, Exprs: PassThrough(u.Columns()), Out: u.Columns()},
		} {
			p, err := Place(n, PlaceOptions{GPU: true, Fusion: true, Strict: true, Supported: fakeSupport, Aggregates: deviceAggregates, DeviceMemory: tc.mem})
			if err != nil {
				t.Fatal(err)
			}
			// The root, or under the transfer to the host the GPU's.
			lines := strings.Split(explain(p), "\n")
			got := lines[0]
			if strings.HasPrefix(got, "DeviceToHost") {
				got = lines[1]
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("device memory %d: %q, want %q", tc.mem, got, tc.want)
			}
		}
	}
	if got, want := byteSize(90_000_000_000), "83.8 GiB"; got != want {
		t.Errorf("byteSize: %q, want %q", got, want)
	}
}

// TestJoinConditionSelectivity: a join's condition besides its keys keeps
// its share of the pairs in the row estimate, with or without keys; a LEFT
// join keeps at least its left rows.
func TestJoinConditionSelectivity(t *testing.T) {
	s, u := scanOf(tblT), scanOf(bigU())
	nl := len(s.Columns())
	cond := call(t, "=", refAt(nl, "k", coldata.Int64), &expr.Literal{Value: int64(10), T: coldata.Int64})
	cross := &Join{Left: s, Right: u}
	filtered := &Join{Left: s, Right: u, Cond: cond}
	if all, some := estimateRows(cross), estimateRows(filtered); all != 10*1000 || some > all/5 {
		t.Errorf("10 x 1000 rows: %v pairs, %v with u.k = 10", all, some)
	}
	left := &Join{Left: s, Right: u, Cond: cond, Kind: opspec.LeftJoin}
	if got := estimateRows(left); got < 10 {
		t.Errorf("LEFT join of 10 rows: %v rows", got)
	}
}

// TestSemiJoinEstimate: a semi join keeps about the share of the left
// side's keys that its right side holds, at most half the left rows (the
// estimate without statistics); without plain key columns, half.
func TestSemiJoinEstimate(t *testing.T) {
	left, right := scanOf(bigU()), scanOf(bigU())
	few := &Filter{Input: right, Pred: call(t, "=", refAt(0, "k", coldata.Int64), &expr.Literal{Value: int64(10), T: coldata.Int64})}
	nl := len(left.Columns())
	for _, tc := range []struct {
		name  string
		right Node
		max   float64
	}{{"a filtered right side", few, estimateRows(few) + 1}, {"the whole table", right, 500}} {
		j := &Join{Left: left, Right: tc.right, Kind: opspec.SemiJoin}
		j.setCondition(call(t, "=", refAt(0, "k", coldata.Int64), refAt(nl, "k", coldata.Int64)), nl)
		if got := estimateRows(j); got > tc.max || got < 1 {
			t.Errorf("%s: %v rows, want at most %v", tc.name, got, tc.max)
		}
	}
}
