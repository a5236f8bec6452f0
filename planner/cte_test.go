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
		{"WITH d AS (SELECT a FROM t WHERE c > 1) SELECT x.a FROM d x, d y WHERE x.a = y.a", []string{
			"CTE d (computed once, 2 references) [cpu: a CTE's rows are kept on the host for its readers]",
			"Filter (c > 1) (fused kernel) [gpu]",
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
