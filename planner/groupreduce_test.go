package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/planner"
)

// reductionCatalog holds big(k, v, d BIGINT) with 100,000 rows (more than one
// batch) and small(k BIGINT, f VARCHAR) with 100.
func reductionCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	ints := func(n, mod int) *coldata.Vec {
		b := coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			b.AppendInt(int64(i % mod))
		}
		return b.Finish()
	}
	bigCols := []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "v", Type: coldata.Int64}, {Name: "d", Type: coldata.Int64}}
	smallCols := []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "f", Type: coldata.String}}
	for name, cols := range map[string][]catalog.Column{"big": bigCols, "small": smallCols} {
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	const n = 100000
	if err := cat.Append("big", coldata.NewBatch([]*coldata.Vec{ints(n, 1000), ints(n, 97), ints(n, 10)}, n)); err != nil {
		t.Fatal(err)
	}
	fb := coldata.NewBuilder(coldata.String, 100)
	for i := 0; i < 100; i++ {
		fb.AppendString([]string{"x", "y"}[i%2])
	}
	if err := cat.Append("small", coldata.NewBatch([]*coldata.Vec{ints(100, 1000), fb.Finish()}, 100)); err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestPlanJoinReductions checks the plan shapes of this package's join
// rewrites on tables large enough for them: a grouped join's aggregate
// reduced by a semi join with the other side's key source
// (ReduceGroupedJoins, TPC-H Q17), a join condition over the right input
// alone moved into a filter on it, and a join input's filter-only column
// dropped by a Project (TPC-H Q13).
func TestPlanJoinReductions(t *testing.T) {
	cat := reductionCatalog(t)
	for _, tc := range []struct {
		q    string
		want []string // lines the plan must contain, in order
	}{
		{"SELECT SUM(big.v) FROM big, small WHERE big.k = small.k AND small.f = 'x' AND big.v < (SELECT AVG(b2.v) FROM big b2 WHERE b2.k = small.k)", []string{
			"HashAggregate keys: k aggs: avg(cast_to_decimal(v, 19, 0)) [cpu]",
			"Semi HashJoin on k = k [cpu]",
			"Scan big [k v] (100000 rows) [cpu]",
			"Filter (f = 'x') [cpu]",
			"Scan small [k f] (100 rows) [cpu]"}},
		{"SELECT small.k, big.v FROM small LEFT JOIN big ON small.k = big.k AND big.d > 5", []string{
			"Left HashJoin on k = k [cpu]",
			"Scan small [k] (100 rows) [cpu]",
			"Project k, v [cpu]",
			"Filter (d > 5) [cpu]",
			"Scan big [k v d] (100000 rows) [cpu]"}},
		// COUNTs of right-side values grouped by left-side columns over
		// a left join: counted per right key below the join
		// (PreAggregateJoins, TPC-H Q13).
		{"SELECT small.f, COUNT(big.v) FROM small LEFT JOIN big ON small.k = big.k AND big.d > 5 GROUP BY small.f", []string{
			"Project f, coalesce(sum(count(v)), 0) AS count(v) [cpu]",
			"HashAggregate keys: f aggs: sum(count(v)) [cpu]",
			"Left HashJoin on k = k [cpu]",
			"Scan small [k f] (100 rows) [cpu]",
			"HashAggregate keys: k aggs: count(v) [cpu]",
			"Filter (d > 5) [cpu]",
			"Scan big [k v d] (100000 rows) [cpu]"}},
	} {
		n, err := plan(t, cat, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		lines := planner.Explain(planner.PreAggregateJoins(n))
		i := 0
		for _, l := range lines {
			if i < len(tc.want) && strings.TrimSpace(l) == tc.want[i] {
				i++
			}
		}
		if i < len(tc.want) {
			t.Errorf("%s: no line %q in order in:\n%s", tc.q, tc.want[i], strings.Join(lines, "\n"))
		}
	}
}

// TestPreAggregateJoinsLeavesOthers checks the shapes PreAggregateJoins
// leaves alone: COUNT(*) (which counts a NULL-extended row), COUNT
// DISTINCT, a grouping key or a count from the other side, an inner join,
// another aggregate beside the COUNT, and a right side not larger than
// the left.
func TestPreAggregateJoinsLeavesOthers(t *testing.T) {
	cat := reductionCatalog(t)
	for _, q := range []string{
		"SELECT small.f, COUNT(*) FROM small LEFT JOIN big ON small.k = big.k GROUP BY small.f",
		"SELECT small.f, COUNT(DISTINCT big.v) FROM small LEFT JOIN big ON small.k = big.k GROUP BY small.f",
		"SELECT big.d, COUNT(big.v) FROM small LEFT JOIN big ON small.k = big.k GROUP BY big.d",
		"SELECT small.f, COUNT(small.k) FROM small LEFT JOIN big ON small.k = big.k GROUP BY small.f",
		"SELECT small.f, COUNT(big.v) FROM small JOIN big ON small.k = big.k GROUP BY small.f",
		"SELECT small.f, COUNT(big.v), SUM(big.v) FROM small LEFT JOIN big ON small.k = big.k GROUP BY small.f",
		"SELECT big.d, COUNT(small.f) FROM big LEFT JOIN small ON big.k = small.k GROUP BY big.d",
	} {
		n, err := plan(t, cat, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		lines := strings.Join(planner.Explain(planner.PreAggregateJoins(n)), "\n")
		if strings.Contains(lines, "coalesce(sum(") {
			t.Errorf("%s: pre-aggregated:\n%s", q, lines)
		}
	}
}
