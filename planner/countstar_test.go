package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
)

// A GPU plan's COUNT(*) that reads no columns stays on the host, and
// EXPLAIN says why; with a filter it groups on the device.
func TestCountStarPlacedExplained(t *testing.T) {
	cat := testCatalog(t)
	all := func([]planner.Column, expr.Expr, []expr.Expr) (bool, error) { return true, nil }
	for _, tc := range []struct {
		q, want string
	}{
		{"SELECT COUNT(*) FROM t", "HashAggregate aggs: count(*) [cpu: reads no columns, counts the table's rows]"},
		{"SELECT COUNT(*) FROM t WHERE c > 1", "HashAggregate aggs: count(*) (hash table on the gpu, groups merged on the host)"},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: all, Aggregates: execbuild.AggregatesOnDevice}); err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := strings.Join(planner.Explain(n), "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("%s placed:\n%s\nwant a line with %q", tc.q, got, tc.want)
		}
	}
}
