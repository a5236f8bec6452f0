package planner_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// testCatalog holds t(a BIGINT, b VARCHAR, c DOUBLE, d BOOLEAN) with four
// rows and u(a BIGINT, x VARCHAR) with three.
func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	tcols := []catalog.Column{{Name: "a", Type: coldata.Int64}, {Name: "b", Type: coldata.String}, {Name: "c", Type: coldata.Float64}, {Name: "d", Type: coldata.Bool}}
	ucols := []catalog.Column{{Name: "a", Type: coldata.Int64}, {Name: "x", Type: coldata.String}}
	for name, cols := range map[string][]catalog.Column{"t": tcols, "u": ucols} {
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	vec := func(ty coldata.Type, vals ...any) *coldata.Vec {
		b := coldata.NewBuilder(ty, len(vals))
		for _, v := range vals {
			if i, ok := v.(int); ok {
				v = int64(i)
			}
			b.AppendValue(v)
		}
		return b.Finish()
	}
	if err := cat.Append("t", coldata.NewBatch([]*coldata.Vec{
		vec(coldata.Int64, 1, 2, nil, 4),
		vec(coldata.String, "one", "two", "none", nil),
		vec(coldata.Float64, 1.5, 2.5, nil, 4.5),
		vec(coldata.Bool, true, false, true, nil),
	}, 4)); err != nil {
		t.Fatal(err)
	}
	if err := cat.Append("u", coldata.NewBatch([]*coldata.Vec{
		vec(coldata.Int64, 1, 1, nil),
		vec(coldata.String, "p", "q", "r"),
	}, 3)); err != nil {
		t.Fatal(err)
	}
	return cat
}

func plan(t *testing.T, cat *catalog.Catalog, q string, args ...any) (planner.Node, error) {
	t.Helper()
	st, err := sql.ParseOne(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		t.Fatalf("%q is a %T", q, st)
	}
	return (&planner.Planner{Catalog: cat, Run: execbuild.Run}).PlanSelect(context.Background(), sel.Stmt, args)
}

func TestPlanShapes(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		args []any
		want []string
	}{
		{"SELECT b FROM t WHERE a > 1 + 2", nil, []string{
			"Project b [cpu]",
			"  Filter (a > 3) [cpu]",
			"    Scan t [a b] (4 rows) [cpu]"}},
		{"SELECT * FROM t WHERE 1 = 1", nil, []string{
			"Project a, b, c, d [cpu]",
			"  Scan t [a b c d] (4 rows) [cpu]"}},
		{"SELECT a FROM T WHERE a = ?", []any{7}, []string{
			"Project a [cpu]",
			"  Filter (a = 7) [cpu]",
			"    Scan t [a] (4 rows) [cpu]"}},
		{"SELECT upper(b), a * 2 AS dbl FROM t ORDER BY dbl DESC LIMIT 3 OFFSET 1", nil, []string{
			"Limit 3 offset 1 [cpu]",
			"  Sort dbl DESC [cpu]",
			"    Project upper(b) AS upper(b), (a * 2) AS dbl [cpu]",
			"      Scan t [a b] (4 rows) [cpu]"}},
		{"SELECT a FROM t ORDER BY c", nil, []string{
			"Project a [cpu]",
			"  Sort c [cpu]",
			"    Project a, c [cpu]",
			"      Scan t [a c] (4 rows) [cpu]"}},
		{"SELECT b, count(*), sum(c) FROM t WHERE d GROUP BY b HAVING count(*) > 1", nil, []string{
			"Project b, count(*), sum(c) [cpu]",
			"  Filter (count(*) > 1) [cpu]",
			"    HashAggregate keys: b aggs: count(*), sum(c) [cpu]",
			"      Filter d [cpu]",
			"        Scan t [b c d] (4 rows) [cpu]"}},
		{"SELECT count(*) FROM t", nil, []string{
			"Project count(*) [cpu]",
			"  HashAggregate aggs: count(*) [cpu]",
			"    Scan t [] (4 rows) [cpu]"}},
		{"SELECT t.b, u.x FROM t JOIN u ON t.a = u.a AND t.c > 1 WHERE u.x = 'k' AND t.b < u.x", nil, []string{
			"Project b, x [cpu]",
			"  Inner HashJoin on a = a filter (b < x) [cpu]",
			"    Filter (c > 1) [cpu]",
			"      Scan t [a b c] (4 rows) [cpu]",
			"    Filter (x = 'k') [cpu]",
			"      Scan u [a x] (3 rows) [cpu]"}},
		// PushJoinConditions: a LEFT join's right-only ON conjunct filters
		// the right input; its left-only one stays in the join.
		{"SELECT t.b, u.x FROM t LEFT JOIN u ON t.a = u.a AND u.x <> 'k' AND t.c > 1", nil, []string{
			"Project b, x [cpu]",
			"  Left HashJoin on a = a filter (c > 1) [cpu]",
			"    Scan t [a b c] (4 rows) [cpu]",
			"    Filter (x <> 'k') [cpu]",
			"      Scan u [a x] (3 rows) [cpu]"}},
		// No NULL-padded row passes x = 'k': an inner join (outer_to_inner),
		// the filter below it.
		{"SELECT t.b, u.x FROM t LEFT JOIN u ON t.a = u.a WHERE u.x = 'k' AND t.c > 2", nil, []string{
			"Project b, x [cpu]",
			"  Inner HashJoin on a = a [cpu]",
			"    Filter (c > 2) [cpu]",
			"      Scan t [a b c] (4 rows) [cpu]",
			"    Filter (x = 'k') [cpu]",
			"      Scan u [a x] (3 rows) [cpu]"}},
		// The padded rows are the ones kept: still a LEFT join.
		{"SELECT t.b FROM t LEFT JOIN u ON t.a = u.a WHERE u.x IS NULL OR t.c > 2", nil, []string{
			"Project b [cpu]",
			"  Filter (is_null(x) or (c > 2)) [cpu]",
			"    Left HashJoin on a = a [cpu]",
			"      Scan t [a b c] (4 rows) [cpu]",
			"      Scan u [a x] (3 rows) [cpu]"}},
		{"SELECT t.b FROM t, u WHERE t.a = u.a", nil, []string{
			"Project b [cpu]",
			"  Inner HashJoin on a = a [cpu]",
			"    Scan t [a b] (4 rows) [cpu]",
			"    Scan u [a] (3 rows) [cpu]"}},
		{"SELECT t.b FROM t JOIN u ON t.a < u.a", nil, []string{
			"Project b [cpu]",
			"  Inner NestedLoopJoin filter (a < a) [cpu]",
			"    Scan t [a b] (4 rows) [cpu]",
			"    Scan u [a] (3 rows) [cpu]"}},
		{"SELECT DISTINCT b FROM t ORDER BY b", nil, []string{
			"Sort b [cpu]",
			"  HashAggregate keys: b [cpu]",
			"    Project b [cpu]",
			"      Scan t [b] (4 rows) [cpu]"}},
		{"SELECT a FROM t UNION SELECT a FROM u", nil, []string{
			"HashAggregate keys: a [cpu]",
			"  UnionAll [cpu]",
			"    Project a [cpu]",
			"      Scan t [a] (4 rows) [cpu]",
			"    Project a [cpu]",
			"      Scan u [a] (3 rows) [cpu]"}},
		{"SELECT 1 + 1", nil, []string{
			"Project 2 AS 1 + 1 [cpu]",
			"  Values (1 rows) [cpu]"}},
	} {
		n, err := plan(t, cat, tc.q, tc.args...)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, got, strings.Join(tc.want, "\n"))
		}
	}
}

func TestPlanColumns(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want []planner.Column
	}{
		{"SELECT a, b AS name, c * 2, d FROM t", []planner.Column{{Name: "a", Type: coldata.Int64}, {Name: "name", Type: coldata.String}, {Name: "c * 2", Type: coldata.Float64}, {Name: "d", Type: coldata.Bool}}},
		{"SELECT count(*), avg(a), sum(a), min(b), group_concat(b) FROM t", []planner.Column{{Name: "count(*)", Type: coldata.Int64}, {Name: "avg(a)", Type: coldata.DecimalOf(38, 4)},
			{Name: "sum(a)", Type: coldata.Int64}, {Name: "min(b)", Type: coldata.String}, {Name: "group_concat(b)", Type: coldata.String}}},
		{"SELECT * FROM t JOIN u USING (a)", []planner.Column{{Name: "a", Type: coldata.Int64}, {Name: "b", Type: coldata.String}, {Name: "c", Type: coldata.Float64}, {Name: "d", Type: coldata.Bool}, {Name: "x", Type: coldata.String}}},
		{"SELECT a FROM t ORDER BY c", []planner.Column{{Name: "a", Type: coldata.Int64}}},
		{"SELECT a, 1.5 FROM t UNION ALL SELECT 2, x FROM u", []planner.Column{{Name: "a", Type: coldata.Int64}, {Name: "1.5", Type: coldata.String}}},
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

func TestPlanErrors(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q      string
		args   []any
		kind   planner.ErrorKind
		object string
	}{
		{"SELECT a FROM nope", nil, planner.UnknownTable, "nope"},
		{"SELECT a FROM db.t", nil, planner.UnknownTable, "db.t"},
		{"SELECT zz.* FROM t", nil, planner.UnknownTable, "zz"},
		{"SELECT zz FROM t", nil, planner.UnknownColumn, "zz"},
		{"SELECT t.x FROM t", nil, planner.UnknownColumn, "t.x"},
		{"SELECT a FROM t ORDER BY 5", nil, planner.UnknownColumn, "5"},
		{"SELECT a FROM t GROUP BY 3", nil, planner.UnknownColumn, "3"},
		{"SELECT b FROM t JOIN u USING (b)", nil, planner.UnknownColumn, "b"},
		{"SELECT a FROM t, u", nil, planner.AmbiguousColumn, "a"},
		{"SELECT a FROM t JOIN u ON a = 1", nil, planner.AmbiguousColumn, "a"},
		{"SELECT nofunc(a) FROM t", nil, planner.UnknownFunction, "nofunc"},
		{"SELECT b FROM t GROUP BY a", nil, planner.NonGrouped, "b"},
		{"SELECT length(a, b) FROM t", nil, planner.TypeMismatch, "length"},
		{"SELECT a FROM t LIMIT -1", nil, planner.TypeMismatch, "LIMIT"},
		{"SELECT 9223372036854775807 + 1", nil, planner.TypeMismatch, "+"},
		{"SELECT a FROM t WHERE count(*) > 1", nil, planner.TypeMismatch, "count"},
		{"SELECT sum(count(a)) FROM t", nil, planner.TypeMismatch, ""},
		{"SELECT a FROM t HAVING a > 1", nil, planner.TypeMismatch, ""},
		{"SELECT * FROM t GROUP BY a", nil, planner.NonGrouped, "b"},
		{"SELECT DISTINCT a FROM t ORDER BY c", nil, planner.TypeMismatch, "ORDER BY"},
		{"SELECT a FROM t WHERE a = ?", nil, planner.TypeMismatch, ":v1"},
		{"SELECT a FROM t", []any{1}, planner.TypeMismatch, ""},
		{"SELECT a FROM t NATURAL JOIN u", nil, planner.Unsupported, ""},
		{"SELECT bit_and(a) FROM t", nil, planner.Unsupported, "bit_and"},
		{"SELECT a FROM t UNION SELECT a, b FROM t", nil, planner.TypeMismatch, ""},
	} {
		_, err := plan(t, cat, tc.q, tc.args...)
		var pe *planner.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %T %v, want a *planner.Error", tc.q, err, err)
			continue
		}
		if pe.Kind != tc.kind || pe.Object != tc.object {
			t.Errorf("%s: %s %q (%s), want %s %q", tc.q, pe.Kind, pe.Object, pe.Msg, tc.kind, tc.object)
		}
		if pe.Error() != pe.Msg || pe.Msg == "" {
			t.Errorf("%s: message %q", tc.q, pe.Error())
		}
	}
}

// TestPlanPlaced places bound plans with a fake GPU: pruned scans move to
// the device under fused Computes.
func TestPlanPlaced(t *testing.T) {
	cat := testCatalog(t)
	supported := func(inputs []planner.Column, pred expr.Expr, exprs []expr.Expr) (bool, error) {
		var err error
		for _, e := range append(append([]expr.Expr(nil), exprs...), pred) {
			if e == nil {
				continue
			}
			expr.Walk(e, func(x expr.Expr) {
				if c, ok := x.(*expr.Call); ok && c.Fn.Name == "upper" {
					err = fmt.Errorf("function UPPER has no GPU implementation")
				}
			})
		}
		return err == nil, err
	}
	n, err := plan(t, cat, "SELECT CONCAT(b, '!') FROM t WHERE c > 2 ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Fusion: true, Supported: supported, Aggregates: execbuild.AggregatesOnDevice})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"DeviceToHost [cpu]",
		"  Sort CONCAT(b, '!') (gpu: keys sorted on the device, and on the host for text past 32 bytes) [gpu]",
		"    Project concat(b, '!') AS CONCAT(b, '!') Filter (c > 2) (fused kernel) [gpu]",
		"      Scan t [b c] (4 rows) [gpu]",
	}
	if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("placed:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	n, _ = plan(t, cat, "SELECT UPPER(b) FROM t")
	if _, err := planner.Place(n, planner.PlaceOptions{GPU: true, Strict: true, Supported: supported, Aggregates: execbuild.AggregatesOnDevice}); err == nil || !strings.Contains(err.Error(), "UPPER") {
		t.Errorf("strict placement: %v", err)
	}
	// A plan with GPU nodes cannot be built without a runtime.
	n, _ = plan(t, cat, "SELECT CONCAT(b, '!') FROM t")
	n, _ = planner.Place(n, planner.PlaceOptions{GPU: true, Supported: supported, Aggregates: execbuild.AggregatesOnDevice})
	if _, err := execbuild.Build(n, nil, false); err == nil {
		t.Errorf("Build of a GPU plan without a runtime succeeded")
	}
}

// TestPlanRun builds and runs bound plans on the CPU.
func TestPlanRun(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want [][]any
	}{
		{"SELECT a, b FROM t WHERE c > 2 ORDER BY a DESC", [][]any{{int64(4), nil}, {int64(2), "two"}}},
		{"SELECT a FROM t ORDER BY a", [][]any{{nil}, {int64(1)}, {int64(2)}, {int64(4)}}},
		{"SELECT t.b, u.x FROM t JOIN u ON t.a = u.a ORDER BY u.x", [][]any{{"one", "p"}, {"one", "q"}}},
		{"SELECT t.a, u.x FROM t LEFT JOIN u ON t.a = u.a WHERE t.d ORDER BY t.a, u.x", [][]any{{nil, nil}, {int64(1), "p"}, {int64(1), "q"}}},
		{"SELECT d, count(*), sum(a), group_concat(b ORDER BY a DESC SEPARATOR '|') FROM t GROUP BY d ORDER BY d",
			[][]any{{nil, int64(1), int64(4), nil}, {false, int64(1), int64(2), "two"}, {true, int64(2), int64(1), "one|none"}}},
		{"SELECT count(*), count(a), max(b) FROM t WHERE a > 100", [][]any{{int64(0), int64(0), nil}}},
		{"SELECT a FROM t WHERE a = ? OR b = ?", [][]any{{int64(2)}, {nil}}},
		{"SELECT DISTINCT u.a FROM u ORDER BY 1 LIMIT 5", [][]any{{nil}, {int64(1)}}},
	} {
		var args []any
		if strings.Contains(tc.q, "?") {
			args = []any{2, "none"}
		}
		n, err := plan(t, cat, tc.q, args...)
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
		lines := built.ExplainAnalyze(n)
		if len(lines) == 0 || !strings.Contains(lines[0], fmt.Sprintf("rows=%d", len(tc.want))) {
			t.Errorf("%s: EXPLAIN ANALYZE root %q", tc.q, lines[0])
		}
	}
}

// A conjunct common to every branch of an OR is factored out, so the join
// it relates gets hash keys (TPC-H Q19) instead of a nested loop.
func TestPlanFactorsCommonOrConjuncts(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT t.b FROM t, u WHERE (t.a = u.a AND t.c > 1) OR (t.a = u.a AND u.x = 'q')", []string{
			"Project b [cpu]",
			"  Inner HashJoin on a = a filter ((c > 1) or (x = 'q')) [cpu]",
			"    Scan t [a b c] (4 rows) [cpu]",
			"    Scan u [a x] (3 rows) [cpu]"}},
		{"SELECT t.b FROM t, u WHERE (t.a = u.a AND t.c > 1) OR t.a = u.a", []string{
			"Project b [cpu]",
			"  Inner HashJoin on a = a [cpu]",
			"    Scan t [a b] (4 rows) [cpu]",
			"    Scan u [a] (3 rows) [cpu]"}},
		{"SELECT t.b FROM t, u WHERE (t.a = u.a AND t.c > 1) OR (t.c > 1 AND u.x = 'q')", []string{
			"Project b [cpu]",
			"  Inner NestedLoopJoin filter ((a = a) or (x = 'q')) [cpu]",
			"    Filter (c > 1) [cpu]",
			"      Scan t [a b c] (4 rows) [cpu]",
			"    Scan u [a x] (3 rows) [cpu]"}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, got, strings.Join(tc.want, "\n"))
		}
	}
}

// A correlated [NOT] EXISTS in WHERE becomes a semi (anti) hash join on its
// correlation equalities; the subquery's own conditions filter its side.
func TestPlanExistsAsSemiJoin(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT b FROM t WHERE EXISTS (SELECT * FROM u WHERE u.a = t.a AND u.x = 'q')", []string{
			"Project b [cpu]",
			"  Semi HashJoin on a = a [cpu]",
			"    Scan t [a b] (4 rows) [cpu]",
			"    Filter (x = 'q') [cpu]",
			"      Scan u [a x] (3 rows) [cpu]"}},
		// The anti join's one residual compares u.x with the outer row:
		// semi_join_bounds then joins u's MIN(x) and MAX(x) per key.
		{"SELECT b FROM t WHERE c > 1 AND NOT EXISTS (SELECT * FROM u WHERE u.a = t.a AND u.x <> t.b)", []string{
			"Project b [cpu]",
			"  Project b [cpu]",
			"    Filter not(coalesce(((min(x) <> b) or (max(x) <> b)), FALSE)) [cpu]",
			"      Left HashJoin on a = a [cpu]",
			"        Filter (c > 1) [cpu]",
			"          Scan t [a b c] (4 rows) [cpu]",
			"        HashAggregate keys: a aggs: min(x), max(x) [cpu]",
			"          Scan u [a x] (3 rows) [cpu]"}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, got, strings.Join(tc.want, "\n"))
		}
	}
}

// A correlated scalar aggregate compared in WHERE becomes a LEFT JOIN with
// the subquery grouped by its correlation keys.
func TestPlanScalarSubqueryAsJoin(t *testing.T) {
	cat := testCatalog(t)
	n, err := plan(t, cat, "SELECT b FROM t WHERE c > (SELECT MAX(a) FROM u WHERE u.a = t.a AND u.x <> 'q')")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Project b [cpu]",
		"  Filter (c > cast_to_double(gsql_value)) [cpu]",
		"    Left HashJoin on a = gsql_key0 [cpu]",
		"      Scan t [a b c] (4 rows) [cpu]",
		"      Project max(a) AS gsql_value, a AS gsql_key0 [cpu]",
		"        HashAggregate keys: a aggs: max(a) [cpu]",
		"          Filter (x <> 'q') [cpu]",
		"            Scan u [a x] (3 rows) [cpu]"}
	if got := strings.Join(planner.Explain(n), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestPlaceNewerAggregatesOnGPU: a GROUP BY with the variance family,
// BOOL_AND/BOOL_OR, ANY_VALUE and FILTER places its hash table on the GPU
// with the real device-support check (the binder turns FILTER into CASE
// and the BOOL and ANY_VALUE aggregates into MIN/MAX) and with the
// quantiles; DISTINCT variances, quantiles of VARCHAR and quantiles beside
// a DISTINCT aggregate stay on the CPU.
func TestPlaceNewerAggregatesOnGPU(t *testing.T) {
	cat := testCatalog(t)
	opts := planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice}
	for _, tc := range []struct {
		q   string
		gpu bool
	}{
		{"SELECT b, VAR_POP(c), VAR_SAMP(a), STDDEV_POP(c), STDDEV_SAMP(a), VARIANCE(c), STDDEV(a), STD(c) FROM t GROUP BY b", true},
		{"SELECT VAR_SAMP(c), STDDEV_POP(a) FROM t", true},
		{"SELECT b, BOOL_AND(d), BOOL_OR(d), BOOL_AND(a > 1), ANY_VALUE(a), ANY_VALUE(b) FROM t GROUP BY b", true},
		{"SELECT d, SUM(c) FILTER (WHERE a > 1), COUNT(*) FILTER (WHERE d), MIN(b) FILTER (WHERE c < 2), STDDEV_SAMP(c) FILTER (WHERE a > 0) FROM t GROUP BY d", true},
		{"SELECT b, VAR_POP(DISTINCT c) FROM t GROUP BY b", false},
		// Quantiles sort on the device: BIGINT (cast to DOUBLE for the
		// interpolated forms), DOUBLE and BOOL arguments, DESC, no GROUP
		// BY; not of VARCHAR, and not beside a DISTINCT aggregate.
		{"SELECT b, MEDIAN(c), COUNT(*), AVG(a) FROM t GROUP BY b", true},
		{"SELECT b, QUANTILE_CONT(a, 0.25), QUANTILE_DISC(a, 0.9), QUANTILE_DISC(d, 0.5) FROM t GROUP BY b", true},
		{"SELECT d, PERCENTILE_CONT(0.3) WITHIN GROUP (ORDER BY c DESC), PERCENTILE_DISC(0.7) WITHIN GROUP (ORDER BY a DESC) FROM t GROUP BY d", true},
		{"SELECT MEDIAN(a), QUANTILE_DISC(c, 0.1) FROM t", true},
		{"SELECT a, QUANTILE_DISC(b, 0.5) FROM t GROUP BY a", false},
		{"SELECT b, MEDIAN(c), COUNT(DISTINCT a) FROM t GROUP BY b", false},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			if !tc.gpu && strings.Contains(err.Error(), "DISTINCT") {
				continue // DISTINCT variances are refused by the binder
			}
			t.Fatalf("%s: %v", tc.q, err)
		}
		if n, err = planner.Place(n, opts); err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := strings.Join(planner.Explain(n), "\n")
		if on := strings.Contains(got, "hash table on the gpu"); on != tc.gpu {
			t.Errorf("%s: aggregate on the GPU %v, want %v:\n%s", tc.q, on, tc.gpu, got)
		}
	}
}
