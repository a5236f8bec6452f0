package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
)

// TestCTEPlaced: under GPU placement a shared CTE and a recursive one run
// on the host, their bodies placed like any query (the working table is
// host memory), so every reference reads the same host result.
func TestCTEPlaced(t *testing.T) {
	cat := testCatalog(t)
	all := func([]planner.Column, expr.Expr, []expr.Expr) (bool, error) { return true, nil }
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"WITH d AS (SELECT a, COUNT(*) AS n FROM t WHERE c > 1 GROUP BY a) SELECT x.a FROM d x, d y WHERE x.a = y.a", []string{
			"CTE d (materialized, used 2 times) [cpu: a CTE's rows are kept on the host for its readers]",
			"Filter (c > 1) (fused kernel) [gpu]",
			"CTE scan d (reads the materialized CTE d) [cpu: a CTE's rows are kept on the host for its readers]",
		}},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r", []string{
			"RecursiveCTE r (UNION ALL, at most 1000 iterations) [cpu: WITH RECURSIVE iterates on the host]",
			"WorkTable r [cpu: a recursive CTE's working table is on the host]",
		}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: all, Aggregates: execbuild.AggregatesOnDevice}); err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := strings.Join(planner.Explain(n), "\n")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", tc.q, w, got)
			}
		}
	}
}

// TestCTEMaterializeOrInline: a CTE referenced more than once is computed
// once when its plan does more than read a table (groups, joins, sorts,
// limits, DISTINCT, windows, set operations, a subquery run while it was
// planned); one referenced once, or one that only filters and projects a
// table, is planned at each reference, so filters push into it. EXPLAIN
// shows a materialized CTE's body once, the other references as scans.
func TestCTEMaterializeOrInline(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		q            string
		materialized string // the CTE line, "" when inlined
		scans, tScan int    // CTE scan lines, Scan t lines
	}{
		{"WITH d AS (SELECT a FROM t WHERE c > 1) SELECT x.a FROM d x, d y WHERE x.a = y.a", "", 0, 2},
		{"WITH d AS (SELECT a, c * 2 AS e FROM t) SELECT a FROM d WHERE e > (SELECT MIN(e) FROM d)", "", 0, 1},
		{"WITH d AS (SELECT a, COUNT(*) AS n FROM t GROUP BY a) SELECT a FROM d WHERE n > 1", "", 0, 1},
		{"WITH d AS (SELECT a, COUNT(*) AS n FROM t GROUP BY a) SELECT x.a FROM d x JOIN d y ON x.a = y.a", "CTE d (materialized, used 2 times)", 1, 1},
		{"WITH d AS (SELECT DISTINCT a FROM t) SELECT x.a FROM d x, d y", "CTE d (materialized, used 2 times)", 1, 1},
		{"WITH d AS (SELECT a FROM t ORDER BY c LIMIT 2) SELECT x.a FROM d x, d y", "CTE d (materialized, used 2 times)", 1, 1},
		{"WITH d AS (SELECT t.a FROM t JOIN u ON t.a = u.a) SELECT x.a FROM d x, d y", "CTE d (materialized, used 2 times)", 1, 1},
		{"WITH d AS (SELECT a, ROW_NUMBER() OVER (ORDER BY c) AS r FROM t) SELECT x.a FROM d x, d y WHERE x.r = y.r", "CTE d (materialized, used 2 times)", 1, 1},
		{"WITH d AS (SELECT a FROM t WHERE c > (SELECT AVG(c) FROM t)) SELECT x.a FROM d x, d y", "CTE d (materialized, used 2 times)", 1, 1},
		// Read once by the plan and once by a subquery run while planning.
		{"WITH d AS (SELECT a, COUNT(*) AS n FROM t GROUP BY a) SELECT a FROM d WHERE n >= (SELECT AVG(n) FROM d)", "CTE d (materialized, used 2 times)", 0, 1},
		// A CTE whose query reads a materialized one.
		{"WITH d AS (SELECT a, COUNT(*) AS n FROM t GROUP BY a), e AS (SELECT a FROM d WHERE n > 0) SELECT e.a FROM e JOIN d ON e.a = d.a", "CTE d (materialized, used 2 times)", 1, 1},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := strings.Join(planner.Explain(n), "\n")
		if tc.materialized == "" && strings.Contains(got, "CTE ") || tc.materialized != "" && strings.Count(got, tc.materialized) != 1 ||
			strings.Count(got, "CTE scan d") != tc.scans || strings.Count(got, "Scan t ") != tc.tScan {
			t.Errorf("%s: want %q once, %d CTE scans, %d scans of t; got\n%s", tc.q, tc.materialized, tc.scans, tc.tScan, got)
		}
	}
}
