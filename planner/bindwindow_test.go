package planner_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// The test catalog: t(a, b, c, d) = (1,'one',1.5,true), (2,'two',2.5,false),
// (NULL,'none',NULL,true), (4,NULL,4.5,NULL); u(a, x) = (1,'p'), (1,'q'),
// (NULL,'r').

func TestWindowPlans(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		// The Window node sits between the input and the projection;
		// the default frame with ORDER BY is RANGE ... CURRENT ROW.
		{"SELECT a, SUM(c) OVER (PARTITION BY d ORDER BY a) FROM t WHERE c > 1", []string{
			"Project a, SUM(c) OVER (PARTITION BY d ORDER BY a) [cpu]",
			"  Window sum(c) OVER (PARTITION BY d ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) [cpu]",
			"    Filter (c > 1) [cpu]",
			"      Scan t [a c d] (4 rows) [cpu]"}},
		// The same call twice is computed once; ranking functions show no frame.
		{"SELECT ROW_NUMBER() OVER w, ROW_NUMBER() OVER (ORDER BY a) + 1 FROM t WINDOW w AS (ORDER BY a)", []string{
			"Project ROW_NUMBER() OVER w, (ROW_NUMBER() OVER w + 1) AS ROW_NUMBER() OVER (ORDER BY a) + 1 [cpu]",
			"  Window row_number() OVER (ORDER BY a) [cpu]",
			"    Scan t [a] (4 rows) [cpu]"}},
		// Over GROUP BY results, ordered by a window column.
		{"SELECT d, RANK() OVER (ORDER BY SUM(a) DESC) r FROM t GROUP BY d ORDER BY r", []string{
			"Sort r [cpu]",
			"  Project d, RANK() OVER (ORDER BY SUM(a) DESC) AS r [cpu]",
			"    Window rank() OVER (ORDER BY sum(a) DESC) [cpu]",
			"      HashAggregate keys: d aggs: sum(a) [cpu]",
			"        Scan t [a d] (4 rows) [cpu]"}},
		// Same-named columns of two tables stay apart.
		{"SELECT SUM(t.a) OVER (), SUM(u.a) OVER () FROM t JOIN u ON t.b < u.x", []string{
			"Project SUM(t.a) OVER (), SUM(u.a) OVER () [cpu]",
			"  Window sum(a) OVER (RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), sum(a) OVER (RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) [cpu]",
			"    Inner NestedLoopJoin filter (b < x) [cpu]",
			"      Scan t [a b] (4 rows) [cpu]",
			"      Scan u [a x] (3 rows) [cpu]"}},
		// Aggregates over whole partitions hash their keys: no sort.
		{"SELECT a, COUNT(*) OVER (PARTITION BY d), MIN(b) OVER (PARTITION BY d) FROM t", []string{
			"Project a, COUNT(*) OVER (PARTITION BY d), MIN(b) OVER (PARTITION BY d) [cpu]",
			"  Window count(*) OVER (PARTITION BY d RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), min(b) OVER (PARTITION BY d RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) (partition aggregates hashed) [cpu]",
			"    Scan t [a b d] (4 rows) [cpu]"}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, got, strings.Join(tc.want, "\n"))
		}
	}
}

func TestWindowColumns(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want []planner.Column
	}{
		{"SELECT ROW_NUMBER() OVER (), RANK() OVER (ORDER BY a) AS r, PERCENT_RANK() OVER (ORDER BY a), NTILE(2) OVER ()  FROM t", []planner.Column{
			{Name: "ROW_NUMBER() OVER ()", Type: coldata.Int64}, {Name: "r", Type: coldata.Int64},
			{Name: "PERCENT_RANK() OVER (ORDER BY a)", Type: coldata.Float64}, {Name: "NTILE(2) OVER ()", Type: coldata.Int64}}},
		// AVG of an integer is DECIMAL with scale 4 (MySQL, and GROUP BY's
		// AVG); SUM of an integer stays BIGINT, as GROUP BY's SUM.
		{"SELECT SUM(a) OVER (), SUM(c) OVER (), AVG(a) OVER (), COUNT(b) OVER (), MIN(b) OVER (), AVG(c) OVER (), AVG(a > 1) OVER () FROM t", []planner.Column{
			{Name: "SUM(a) OVER ()", Type: coldata.Int64}, {Name: "SUM(c) OVER ()", Type: coldata.Float64},
			{Name: "AVG(a) OVER ()", Type: coldata.DecimalOf(38, 4)}, {Name: "COUNT(b) OVER ()", Type: coldata.Int64}, {Name: "MIN(b) OVER ()", Type: coldata.String},
			{Name: "AVG(c) OVER ()", Type: coldata.Float64}, {Name: "AVG(a > 1) OVER ()", Type: coldata.DecimalOf(38, 4)}}},
		// LAG's default joins the value's type.
		{"SELECT LAG(a, 1, 0.5) OVER (), LEAD(b) OVER (), FIRST_VALUE(NULL) OVER () FROM t", []planner.Column{
			{Name: "LAG(a, 1, 0.5) OVER ()", Type: coldata.DecimalOf(20, 1)}, {Name: "LEAD(b) OVER ()", Type: coldata.String},
			{Name: "FIRST_VALUE(NULL) OVER ()", Type: coldata.String}}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := n.Columns(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: columns %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestWindowPlanErrors(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q      string
		kind   planner.ErrorKind
		object string
		msg    string
	}{
		{"SELECT UPPER(b) OVER () FROM t", planner.UnknownFunction, "upper", "UPPER is not a window function or an aggregate (OVER needs one)"},
		{"SELECT STD(a) OVER () FROM t", planner.Unsupported, "std", "not supported: STD as a window function"},
		{"SELECT ROW_NUMBER(a) OVER () FROM t", planner.TypeMismatch, "row_number", "function ROW_NUMBER: expects 0 argument(s), got 1"},
		{"SELECT NTILE(0) OVER () FROM t", planner.TypeMismatch, "ntile", "function NTILE: the number of buckets must be an integer constant >= 1, got 0"},
		{"SELECT NTILE(a) OVER () FROM t", planner.TypeMismatch, "ntile", "function NTILE: the number of buckets must be an integer constant >= 1, got a"},
		{"SELECT LAG(a, -1) OVER () FROM t", planner.TypeMismatch, "lag", "function LAG: the offset must be an integer constant >= 0, got -1"},
		{"SELECT LEAD(a, 1, 2, 3) OVER () FROM t", planner.TypeMismatch, "lead", "function LEAD: expects 1 to 3 arguments, got 4"},
		{"SELECT SUM(*) OVER () FROM t", planner.TypeMismatch, "sum", "function SUM: * is only allowed in COUNT(*)"},
		{"SELECT SUM(a) OVER (ROWS BETWEEN a PRECEDING AND CURRENT ROW) FROM t", planner.TypeMismatch, "", "a window frame offset must be a constant, got a"},
		{"SELECT SUM(a) OVER (ROWS 1.5 PRECEDING) FROM t", planner.TypeMismatch, "", "a ROWS frame offset must be an integer, got 1.5"},
		{"SELECT SUM(a) OVER (ORDER BY b RANGE 1 PRECEDING) FROM t", planner.TypeMismatch, "", "RANGE with an offset needs a numeric ORDER BY column, not VARCHAR"},
		{"SELECT SUM(a) OVER (ROWS 'x' PRECEDING) FROM t", planner.TypeMismatch, "", "a window frame offset must be a number, got 'x'"},
		{"SELECT SUM(zz) OVER () FROM t", planner.UnknownColumn, "zz", ""},
		{"SELECT SUM(a) OVER (PARTITION BY zz) FROM t", planner.UnknownColumn, "zz", ""},
		// Over GROUP BY, a window reads group keys and aggregates only.
		{"SELECT d, SUM(a) OVER () FROM t GROUP BY d", planner.NonGrouped, "a", ""},
	} {
		_, err := plan(t, cat, tc.q)
		var pe *planner.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %T %v, want a *planner.Error", tc.q, err, err)
			continue
		}
		if pe.Kind != tc.kind || pe.Object != tc.object || (tc.msg != "" && pe.Msg != tc.msg) {
			t.Errorf("%s: %s %q %q, want %s %q %q", tc.q, pe.Kind, pe.Object, pe.Msg, tc.kind, tc.object, tc.msg)
		}
	}
}

func TestWindowRun(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want [][]any
	}{
		// MySQL's NULL order: first ascending.
		{"SELECT a, ROW_NUMBER() OVER (ORDER BY a), SUM(a) OVER (ORDER BY a), COUNT(*) OVER (ORDER BY d) FROM t ORDER BY a",
			[][]any{{nil, int64(1), nil, int64(4)}, {int64(1), int64(2), int64(1), int64(4)}, {int64(2), int64(3), int64(3), int64(2)}, {int64(4), int64(4), int64(7), int64(1)}}},
		{"SELECT d, COUNT(*), SUM(COUNT(*)) OVER (), RANK() OVER (ORDER BY COUNT(*) DESC) FROM t GROUP BY d ORDER BY d",
			[][]any{{nil, int64(1), int64(4), int64(2)}, {false, int64(1), int64(4), int64(2)}, {true, int64(2), int64(4), int64(1)}}},
		{"SELECT u.x, LAG(t.b, 1, '-') OVER (ORDER BY u.x DESC) FROM t JOIN u ON t.a = u.a ORDER BY 1",
			[][]any{{"p", "one"}, {"q", "-"}}},
		{"SELECT a FROM t ORDER BY ROW_NUMBER() OVER (ORDER BY c DESC) LIMIT 2",
			[][]any{{int64(4)}, {int64(2)}}},
		{"SELECT a, SUM(a) OVER () FROM t WHERE a > 10", [][]any{}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		built, err := execbuild.Build(n, nil, false)
		if err != nil {
			t.Errorf("%s: build: %v", tc.q, err)
			continue
		}
		bs, err := operators.Drain(context.Background(), built.Root)
		if err != nil {
			t.Errorf("%s: run: %v", tc.q, err)
			continue
		}
		got := [][]any{}
		for _, b := range bs {
			for r := 0; r < b.Len; r++ {
				row := make([]any, len(b.Cols))
				for c, v := range b.Cols {
					row[c] = v.Value(r)
				}
				got = append(got, row)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.q, got, tc.want)
		}
	}
}

// TestWindowPlaced: under GPU placement (strict too) the window runs on the
// device with the work around it; keys or arguments the device cannot
// compute keep it on the host, saying so.
func TestWindowPlaced(t *testing.T) {
	cat := testCatalog(t)
	all := func([]planner.Column, expr.Expr, []expr.Expr) (bool, error) { return true, nil }
	// none accepts the filter alone: the window's computed key is refused.
	none := func(_ []planner.Column, _ expr.Expr, exprs []expr.Expr) (bool, error) {
		if len(exprs) > 0 {
			return false, errors.New("not on the device")
		}
		return true, nil
	}
	for _, tc := range []struct {
		q         string
		supported func([]planner.Column, expr.Expr, []expr.Expr) (bool, error)
		want      []string
	}{
		{"SELECT a, SUM(c) OVER (ORDER BY a) + 1 FROM t WHERE c > 1", all, []string{
			"DeviceToHost [cpu]",
			"  Project a, (SUM(c) OVER (ORDER BY a) + 1) AS SUM(c) OVER (ORDER BY a) + 1 (fused kernel) [gpu]",
			"    Window sum(c) OVER (ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) (gpu: keys sorted on the device) [gpu]",
			"      Filter (c > 1) (fused kernel) [gpu]",
			"        Scan t [a c] (4 rows) [gpu]",
		}},
		{"SELECT a, ROW_NUMBER() OVER (PARTITION BY a % 2 ORDER BY c) FROM t", all, []string{
			"DeviceToHost [cpu]",
			"  Project a, ROW_NUMBER() OVER (PARTITION BY a % 2 ORDER BY c) (fused kernel) [gpu]",
			"    Window row_number() OVER (PARTITION BY (a % 2) ORDER BY c) (gpu: keys sorted on the device) [gpu]",
			"      Project a, c, (a % 2) AS (a % 2) (fused kernel) [gpu]",
			"        Scan t [a c] (4 rows) [gpu]",
		}},
		{"SELECT a, ROW_NUMBER() OVER (PARTITION BY b ORDER BY a), SUM(c) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), RANK() OVER (ORDER BY d DESC) FROM t", all, []string{
			"DeviceToHost [cpu]",
			"  Project a, ROW_NUMBER() OVER (PARTITION BY b ORDER BY a), SUM(c) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), RANK() OVER (ORDER BY d DESC) (fused kernel) [gpu]",
			"    Window row_number() OVER (PARTITION BY b ORDER BY a), sum(c) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), rank() OVER (ORDER BY d DESC) " +
				"(gpu: keys sorted on the device, and on the host for text past 32 bytes, the frame RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) [gpu]",
			"      Scan t [a b c d] (4 rows) [gpu]",
		}},
		// Whole-partition aggregates of BIGINTs and DOUBLEs hash on the
		// device; MIN of text keeps the sort there (its BIGINT key sorts on
		// the device).
		{"SELECT a, SUM(a) OVER (PARTITION BY d), AVG(c) OVER (PARTITION BY d) FROM t", all, []string{
			"DeviceToHost [cpu]",
			"  Project a, SUM(a) OVER (PARTITION BY d), AVG(c) OVER (PARTITION BY d) (fused kernel) [gpu]",
			"    Window sum(a) OVER (PARTITION BY d RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), avg(c) OVER (PARTITION BY d RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) (gpu: partition aggregates hashed) [gpu]",
			"      Scan t [a c d] (4 rows) [gpu]",
		}},
		{"SELECT COUNT(*) OVER (PARTITION BY d), MIN(b) OVER (PARTITION BY a) FROM t", all, []string{
			"DeviceToHost [cpu]",
			"  Project COUNT(*) OVER (PARTITION BY d), MIN(b) OVER (PARTITION BY a) (fused kernel) [gpu]",
			"    Window count(*) OVER (PARTITION BY d RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), min(b) OVER (PARTITION BY a RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) (gpu: partition aggregates hashed; keys sorted on the device) [gpu]",
			"      Scan t [a b d] (4 rows) [gpu]",
		}},
		{"SELECT a, ROW_NUMBER() OVER (PARTITION BY a % 2 ORDER BY c) FROM t WHERE c > 1", none, []string{
			"Project a, ROW_NUMBER() OVER (PARTITION BY a % 2 ORDER BY c) [cpu: chooses columns of host batches]",
			"  Window row_number() OVER (PARTITION BY (a % 2) ORDER BY c) [cpu: window keys or arguments: not on the device]",
			"    DeviceToHost [cpu]",
			"      Filter (c > 1) (fused kernel) [gpu]",
			"        Scan t [a c] (4 rows) [gpu]",
		}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: tc.supported, Aggregates: execbuild.AggregatesOnDevice})
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(tc.want, "\n") {
			t.Errorf("%s placed:\n%s\nwant:\n%s", tc.q, got, strings.Join(tc.want, "\n"))
		}
	}
}
