package planner_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// TestPipelineOrder pins the rule list: the names are the ones SET
// disabled_rules, the regression files and EXPLAIN share, so a change
// here is a change of the user-visible interface.
func TestPipelineOrder(t *testing.T) {
	want := []string{
		"dependent_group_keys", "sum_plus_const", "fold_constants", "factor_ors", "outer_to_inner", "push_filters",
		"push_semi_joins", "reorder_joins", "push_filters", "reduce_grouped_joins", "semi_join_bounds", "distinct_as_group_by",
		"setops_as_group_by", "prune_columns", "place_by_cost", "pre_aggregate_joins", "place_exchanges",
	}
	var got []string
	placement := false
	for _, r := range planner.Rules() {
		got = append(got, r.Name)
		if placement && !r.Placement && !r.Devices {
			t.Errorf("logical rule %s after a placement rule", r.Name)
		}
		placement = placement || r.Placement
		if r.Purpose == "" {
			t.Errorf("rule %s has no purpose", r.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pipeline %v, want %v", got, want)
	}
	// Each rule has its file, which opens with a worked example.
	for _, name := range planner.RuleNames() {
		src, err := os.ReadFile("rule_" + name + ".go")
		if err != nil {
			t.Errorf("rule %s: %v", name, err)
			continue
		}
		head, _, _ := strings.Cut(string(src), "\nfunc ")
		if !strings.Contains(head, "=>") {
			t.Errorf("rule_%s.go does not open with an example (a plan, =>, the plan rewritten)", name)
		}
	}
}

func TestParseRules(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		bad  string
	}{
		{in: "", want: nil},
		{in: " , ", want: nil},
		{in: "push_filters", want: []string{"push_filters"}},
		{in: " prune_columns , REORDER_JOINS,", want: []string{"reorder_joins", "prune_columns"}},
		{in: "push_filters,pushfilters", bad: "pushfilters"},
	} {
		rs, err := planner.ParseRules(tc.in)
		if tc.bad != "" {
			var pe *planner.Error
			if !errors.As(err, &pe) || pe.Kind != planner.UnknownRule || pe.Object != tc.bad || !strings.Contains(pe.Msg, "reorder_joins") {
				t.Errorf("%q: error %v, want an unknown rule %q naming the rules", tc.in, err, tc.bad)
			}
			continue
		}
		if err != nil || !slices.Equal(rs.Names(), tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.in, rs.Names(), err, tc.want)
		}
	}
}

// planRules plans q with the rules in ro, then runs the placement rules
// as a host plan.
func planRules(t *testing.T, cat *catalog.Catalog, q string, ro planner.RuleOptions) []string {
	t.Helper()
	st, err := sql.ParseOne(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	n, err := (&planner.Planner{Catalog: cat}).PlanSelectWith(context.Background(), st.(*sql.Select).Stmt, nil, ro)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, err = planner.Placed(n, ro, true); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return planner.Explain(n)
}

// hasLines reports whether lines hold want's lines (trimmed) in order.
func hasLines(lines, want []string) bool {
	i := 0
	for _, l := range lines {
		if i < len(want) && strings.TrimSpace(l) == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestRuleRewrites plans one query per rule with the rule off (before)
// and on (after), every other rule on: the plan must show the rewrite,
// and the trace must name the rule only when it ran.
func TestRuleRewrites(t *testing.T) {
	small := testCatalog(t)
	sized := sizedCatalog(t, map[string]int{"big": 1000, "mid": 100, "small": 10})
	grouped := reductionCatalog(t)
	for _, tc := range []struct {
		rule          string
		cat           *catalog.Catalog
		q             string
		before, after []string
	}{
		{"dependent_group_keys", small, "SELECT a, a + 1, COUNT(*) FROM t GROUP BY a, a + 1",
			[]string{"HashAggregate keys: a, (a + 1) aggs: count(*) [cpu]"},
			[]string{"Project a, (a + 1) AS a + 1, count(*) AS COUNT(*) [cpu]", "HashAggregate keys: a aggs: count(*) [cpu]"}},
		{"sum_plus_const", small, "SELECT SUM(a + 2) FROM t HAVING SUM(a + 2) > 0",
			[]string{"Filter (sum((a + 2)) > 0) [cpu]", "HashAggregate aggs: sum((a + 2)) [cpu]"},
			[]string{"Project (sum(a) + (2 * count(a))) AS SUM(a + 2) [cpu]", "Filter ((sum(a) + (2 * count(a))) > 0) [cpu]", "HashAggregate aggs: sum(a), count(a) [cpu]"}},
		{"distinct_as_group_by", small, "SELECT DISTINCT a, b FROM t",
			[]string{"Distinct [cpu]"},
			[]string{"HashAggregate keys: a, b [cpu]"}},
		{"setops_as_group_by", small, "SELECT a FROM t EXCEPT SELECT a FROM u",
			[]string{"Except [cpu]"},
			[]string{"Filter (max(side) = 1) [cpu]", "HashAggregate keys: a aggs: min(side), max(side) [cpu]", "UnionAll [cpu]"}},
		{"fold_constants", small, "SELECT a FROM t WHERE a > 1 + 1",
			[]string{"Filter (a > (1 + 1)) [cpu]"},
			[]string{"Filter (a > 2) [cpu]"}},
		{"factor_ors", small, "SELECT t.a FROM t, u WHERE (t.a = u.a AND t.c > 1) OR (t.a = u.a AND u.x = 'p')",
			[]string{"Inner NestedLoopJoin filter (((a = a) and (c > 1)) or ((a = a) and (x = 'p'))) [cpu]"},
			[]string{"Inner HashJoin on a = a filter ((c > 1) or (x = 'p')) [cpu]"}},
		{"outer_to_inner", small, "SELECT t.b FROM t LEFT JOIN u ON t.a = u.a WHERE u.x > 'p'",
			[]string{"Filter (x > 'p') [cpu]", "Left HashJoin on a = a [cpu]"},
			[]string{"Inner HashJoin on a = a [cpu]", "Filter (x > 'p') [cpu]"}},
		{"push_filters", small, "SELECT t.b FROM t, u WHERE t.a = u.a AND t.c > 1",
			[]string{"Filter ((a = a) and (c > 1)) [cpu]", "Inner NestedLoopJoin [cpu]"},
			[]string{"Inner HashJoin on a = a [cpu]", "Filter (c > 1) [cpu]"}},
		{"reorder_joins", sized, "SELECT big.k FROM big, small, mid WHERE big.k = mid.k AND mid.j = small.j",
			// As written: big crossed with small, then mid.
			[]string{"Inner HashJoin on k = k AND j = j [cpu]", "Inner NestedLoopJoin [cpu]", "Scan big [k] (1000 rows) [cpu]", "Scan small [j] (10 rows) [cpu]"},
			[]string{"Inner HashJoin on j = j [cpu]", "Inner HashJoin on k = k [cpu]", "Scan big [k] (1000 rows) [cpu]", "Scan mid [k j] (100 rows) [cpu]"}},
		{"push_semi_joins", sized, "SELECT big.k FROM big, mid WHERE big.k = mid.k AND EXISTS (SELECT 1 FROM small WHERE small.j = mid.j)",
			// The EXISTS tests mid's column: it filters mid before the join.
			[]string{"Semi HashJoin on j = j [cpu]", "Inner HashJoin on k = k [cpu]", "Scan mid [k j] (100 rows) [cpu]"},
			[]string{"Inner HashJoin on k = k [cpu]", "Semi HashJoin on j = j [cpu]", "Scan mid [k j] (100 rows) [cpu]"}},
		{"reduce_grouped_joins", grouped, "SELECT SUM(big.v) FROM big, small WHERE big.k = small.k AND small.f = 'x' AND big.v < (SELECT AVG(b2.v) FROM big b2 WHERE b2.k = small.k)",
			[]string{"HashAggregate keys: k aggs: avg(cast_to_decimal(v, 19, 0)) [cpu]", "Scan big [k v] (100000 rows) [cpu]"},
			[]string{"HashAggregate keys: k aggs: avg(cast_to_decimal(v, 19, 0)) [cpu]", "Semi HashJoin on k = k [cpu]"}},
		{"semi_join_bounds", small, "SELECT t.a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.x <> t.b)",
			[]string{"Semi HashJoin on a = a filter (x <> b) [cpu]"},
			[]string{"Inner HashJoin on a = a filter ((min(x) <> b) or (max(x) <> b)) [cpu]", "HashAggregate keys: a aggs: min(x), max(x) [cpu]"}},
		{"prune_columns", small, "SELECT b FROM t WHERE c > 1",
			[]string{"Scan t [a b c d] (4 rows) [cpu]"},
			[]string{"Scan t [b c] (4 rows) [cpu]"}},
		{"pre_aggregate_joins", grouped, "SELECT small.f, COUNT(big.v) FROM small LEFT JOIN big ON small.k = big.k GROUP BY small.f",
			[]string{"HashAggregate keys: f aggs: count(v) [cpu]", "Left HashJoin on k = k [cpu]"},
			[]string{"HashAggregate keys: f aggs: sum(count(v)) [cpu]", "Left HashJoin on k = k [cpu]", "HashAggregate keys: k aggs: count(v) [cpu]"}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			off, err := planner.ParseRules(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			var traceOff, traceOn planner.RuleTrace
			before := planRules(t, tc.cat, tc.q, planner.RuleOptions{Disabled: off, Trace: &traceOff})
			after := planRules(t, tc.cat, tc.q, planner.RuleOptions{Trace: &traceOn})
			if !hasLines(before, tc.before) {
				t.Errorf("with %s off, want lines %q in:\n%s", tc.rule, tc.before, strings.Join(before, "\n"))
			}
			if !hasLines(after, tc.after) {
				t.Errorf("with %s on, want lines %q in:\n%s", tc.rule, tc.after, strings.Join(after, "\n"))
			}
			if slices.Contains(traceOff.Fired(), tc.rule) || !slices.Contains(traceOn.Fired(), tc.rule) {
				t.Errorf("fired with the rule off %v, on %v", traceOff.Fired(), traceOn.Fired())
			}
			lines := traceOff.Lines(true)
			for i, r := range planner.Rules() {
				if r.Name == tc.rule && traceOff.State(i) != planner.RuleDisabled {
					t.Errorf("entry %d (%s) is %s with the rule off:\n%s", i+1, r.Name, traceOff.State(i), strings.Join(lines, "\n"))
				}
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "rules: ") {
				t.Errorf("last trace line %q", last)
			}
		})
	}
}

// TestRuleTraceDevicePlans checks that a host-only rule is reported
// skipped on a plan for the GPU, and that no rule fired is "rules: none".
func TestRuleTraceDevicePlans(t *testing.T) {
	var tr planner.RuleTrace
	ro := planner.RuleOptions{Trace: &tr}
	st, err := sql.ParseOne("SELECT a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	n, err := (&planner.Planner{Catalog: testCatalog(t)}).PlanSelectWith(context.Background(), st.(*sql.Select).Stmt, nil, ro)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := planner.Placed(n, ro, false); err != nil {
		t.Fatal(err)
	}
	rules := planner.Rules()
	if last := len(rules) - 2; rules[last].Name != "pre_aggregate_joins" || tr.State(last) != planner.RuleSkipped {
		t.Errorf("pre_aggregate_joins on a device plan: %s", tr.State(last))
	}
	if got := tr.Lines(false); !slices.Equal(got, []string{"rules: prune_columns"}) {
		t.Errorf("lines %q", got)
	}
	var none planner.RuleTrace
	if got := none.Lines(false); !slices.Equal(got, []string{"rules: none"}) {
		t.Errorf("empty trace: %q", got)
	}
}
