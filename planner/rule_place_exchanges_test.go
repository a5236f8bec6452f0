package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
)

// placeOn3 plans q, places it on a GPU that runs every expression and
// spreads it over three devices; t (4 rows) is spread, u (3) replicated.
func placeOn3(t *testing.T, q string, trace *planner.RuleTrace) []string {
	t.Helper()
	n, err := plan(t, testCatalog(t), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	all := func([]planner.Column, expr.Expr, []expr.Expr) (bool, error) { return true, nil }
	n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Fusion: true, Supported: all, Aggregates: execbuild.AggregatesOnDevice})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n = planner.Distribute(n, planner.RuleOptions{Devices: 3, SpreadRows: 4, Trace: trace})
	return planner.Explain(n)
}

// TestPlaceExchanges: every plan shape the rule knows, as EXPLAIN shows it.
func TestPlaceExchanges(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string // lines in order (each a substring of one line)
	}{
		{"SELECT a FROM t WHERE c > 1", []string{
			"DeviceToHost", "Exchange gather (3 devices to device 0)", "Filter (c > 1)", "Scan t [a c] (4 rows) (row groups balanced over 3 devices)"}},
		{"SELECT b, COUNT(*), SUM(a) FROM t GROUP BY b", []string{
			"Exchange gather (3 devices to device 0)", "HashAggregate keys: b", "Exchange repartition by b (3 devices to 3 devices)", "Scan t"}},
		{"SELECT COUNT(*), SUM(a), MIN(c), MAX(b) FROM t", []string{
			"HashAggregate aggs: count(*), sum(a), min(c), max(b) final", "Exchange gather (3 devices to device 0)",
			"HashAggregate aggs: count(*), sum(a), min(c), max(b) partial", "Scan t"}},
		{"SELECT COUNT(DISTINCT b) FROM t", []string{
			"final", "Exchange gather (3 devices to device 0)", "partial", "Exchange repartition by b (3 devices to 3 devices)", "Scan t"}},
		// AVG as a SUM and a COUNT per device, merged, then divided.
		{"SELECT AVG(a), MAX(b) FROM t", []string{
			"Project (sum(cast_to_decimal(a, 19, 0)) / cast_to_decimal(count(cast_to_decimal(a, 19, 0)), 19, 0)) AS avg(cast_to_decimal(a, 19, 0)), max(b)",
			"HashAggregate aggs: sum(cast_to_decimal(a, 19, 0)), count(cast_to_decimal(a, 19, 0)), max(b) final",
			"Exchange gather (3 devices to device 0)",
			"HashAggregate aggs: sum(cast_to_decimal(a, 19, 0)), count(cast_to_decimal(a, 19, 0)), max(b) partial", "Scan t"}},
		// Other aggregates without a merge gather their rows.
		{"SELECT VAR_POP(a) FROM t", []string{
			"HashAggregate aggs: var_pop(", "Exchange gather (3 devices to device 0)", "Scan t"}},
		{"SELECT t.b, u.x FROM t JOIN u ON t.a = u.a", []string{
			"Exchange gather (3 devices to device 0)", "Inner HashJoin", "Scan t", "Scan u [a x] (3 rows) (replicated on 3 devices)"}},
		{"SELECT t.b, v.b FROM t JOIN t AS v ON t.a = v.a", []string{
			"Exchange gather (3 devices to device 0)", "Inner HashJoin", "Exchange repartition by a (3 devices to 3 devices)", "Scan t",
			"Exchange repartition by a (3 devices to 3 devices)", "Scan t"}},
		// The same join with a selective filter on the right: its
		// estimated rows (4 x 0.1) are broadcast instead.
		{"SELECT t.b, v.b FROM t JOIN t AS v ON t.a = v.a WHERE v.c = 1", []string{
			"Exchange gather (3 devices to device 0)", "Inner HashJoin", "Scan t",
			"Exchange broadcast (3 devices to 3 devices)", "Filter (c = 1)", "Scan t"}},
		{"SELECT t.b FROM t JOIN (SELECT a, COUNT(*) AS n FROM u GROUP BY a) AS g ON t.a = g.a", []string{
			"Exchange gather", "Inner HashJoin", "Scan t", "Exchange broadcast (device 0 to 3 devices)", "HashAggregate keys: a"}},
		{"SELECT a + 1 AS k, b FROM t ORDER BY k DESC LIMIT 2 OFFSET 1", []string{
			"DeviceToHost", "Limit 2 offset 1", "Sort k DESC", "Exchange gather (3 devices to device 0)", "Limit 3", "Sort k DESC", "Scan t"}},
		// A replicated table read alone is read on device 0 alone.
		{"SELECT CONCAT(x, '!') AS y FROM u ORDER BY y", []string{"DeviceToHost", "Sort y", "Scan u [x] (3 rows) [gpu]"}},
	} {
		got := placeOn3(t, c.q, nil)
		at := 0
		for _, w := range c.want {
			for at < len(got) && !strings.Contains(got[at], w) {
				at++
			}
			if at == len(got) {
				t.Errorf("%s: no line %q in order in:\n%s", c.q, w, strings.Join(got, "\n"))
				break
			}
			at++
		}
	}
	// Each device operator says on how many devices it runs: once per
	// device under a spread exchange or above a repartition or broadcast,
	// on device 0 alone above a gather and under a broadcast from it.
	for _, c := range []struct{ q, line, want string }{
		{"SELECT b, COUNT(*), SUM(a) FROM t GROUP BY b", "HashAggregate keys: b", "[gpu on 3 devices]"},
		{"SELECT b, COUNT(*), SUM(a) FROM t GROUP BY b", "Exchange gather", "[gpu]"},
		{"SELECT b, COUNT(*), SUM(a) FROM t GROUP BY b", "Exchange repartition", "[gpu on 3 devices]"},
		{"SELECT COUNT(*), SUM(a) FROM t", " final", "[gpu]"},
		{"SELECT COUNT(*), SUM(a) FROM t", " partial", "[gpu on 3 devices]"},
		{"SELECT t.b FROM t JOIN (SELECT a, COUNT(*) AS n FROM u GROUP BY a) AS g ON t.a = g.a", "Inner HashJoin", "[gpu on 3 devices]"},
		{"SELECT t.b FROM t JOIN (SELECT a, COUNT(*) AS n FROM u GROUP BY a) AS g ON t.a = g.a", "HashAggregate keys: a", "[gpu]"},
		{"SELECT t.b, u.x FROM t JOIN u ON t.a = u.a", "Scan u", "[gpu on 3 devices]"},
	} {
		found := false
		for _, l := range placeOn3(t, c.q, nil) {
			if strings.Contains(l, c.line) {
				found = true
				if !strings.HasSuffix(l, c.want) {
					t.Errorf("%s: %q, want it to end %q", c.q, l, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no line %q", c.q, c.line)
		}
	}
	// EXPLAIN's rules line names the rule; one device places nothing.
	var trace planner.RuleTrace
	placeOn3(t, "SELECT a + 1 FROM t", &trace)
	if got := trace.Lines(false); !strings.Contains(got[len(got)-1], "place_exchanges") {
		t.Errorf("rules line %q", got)
	}
	// Switched off, or with one device, the plan stays on device 0.
	n, err := plan(t, testCatalog(t), "SELECT a + 1 FROM t")
	if err != nil {
		t.Fatal(err)
	}
	all := func([]planner.Column, expr.Expr, []expr.Expr) (bool, error) { return true, nil }
	n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Supported: all})
	if err != nil {
		t.Fatal(err)
	}
	off, _ := planner.ParseRules("place_exchanges")
	for _, ro := range []planner.RuleOptions{{Devices: 3, SpreadRows: 1, Disabled: off}, {Devices: 1, SpreadRows: 1}} {
		if got := strings.Join(planner.Explain(planner.Distribute(n, ro)), "\n"); strings.Contains(got, "Exchange") || strings.Contains(got, "devices") {
			t.Errorf("%+v: spread:\n%s", ro, got)
		}
	}
}
