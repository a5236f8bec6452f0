package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/planner"
)

// TestPlanQuantifiedShapes checks which path each quantified comparison
// takes: literals for an uncorrelated S, LEFT JOINs with per-key
// aggregates for a correlated top-level WHERE conjunct, the per-row
// evaluator elsewhere.
func TestPlanQuantifiedShapes(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		q    string
		want []string // substrings of the plan, in order
		not  []string // substrings the plan must not have
	}{
		// u.a is {1, 1, NULL}: > ALL is FALSE where a > 1 is, else NULL.
		{"SELECT b FROM t WHERE a > ALL (SELECT a FROM u)", []string{"Filter case(not((a > 1)), FALSE)"}, []string{"quantified_subquery", "Join"}},
		{"SELECT b FROM t WHERE a < ANY (SELECT a FROM u WHERE a IS NOT NULL)", []string{"Filter (a < 1)"}, []string{"quantified_subquery"}},
		{"SELECT b FROM t WHERE a > ALL (SELECT a FROM u WHERE u.a = t.a)",
			[]string{"Left HashJoin on a = gsql_key0", "sum(1)", "max(a)", "sum(case(is_null(a), 1, 0))"}, []string{"quantified_subquery"}},
		{"SELECT b FROM t WHERE a <= ANY (SELECT a FROM u WHERE u.a = t.a)", []string{"Left HashJoin", "max(a)"}, []string{"quantified_subquery", "min(a)"}},
		{"SELECT b FROM t WHERE a >= ANY (SELECT a FROM u WHERE u.a = t.a)", []string{"Left HashJoin", "min(a)"}, []string{"quantified_subquery", "max(a)"}},
		// Not a top-level conjunct, or in the select list: per row.
		{"SELECT b FROM t WHERE NOT (a > ALL (SELECT a FROM u WHERE u.a = t.a))", []string{"quantified_subquery"}, []string{"Join"}},
		{"SELECT a > ALL (SELECT a FROM u WHERE u.a = t.a) FROM t", []string{"quantified_subquery"}, []string{"Join"}},
		{"SELECT b FROM t WHERE (a, b) IN (SELECT a, x FROM u)", []string{"quantified_subquery"}, nil},
	}
	for _, tc := range tests {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		got := strings.Join(planner.Explain(n), "\n")
		at := 0
		for _, w := range tc.want {
			k := strings.Index(got[at:], w)
			if k < 0 {
				t.Errorf("%s: plan lacks %q after offset %d:\n%s", tc.q, w, at, got)
				break
			}
			at += k
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: plan has %q:\n%s", tc.q, w, got)
			}
		}
	}
}
