package gsql_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// TestSemiJoinBoundsMatchesResidualJoin runs [NOT] EXISTS subqueries whose
// one non-key condition compares a column of the subquery with one of the
// outer query (every comparison, both ways round, over integers, text,
// dates, timestamps and DECIMALs, with NULL keys, NULL values and keys
// whose values are all NULL) with the rule semi_join_bounds on and off:
// the answers must be the same, and the rule must have run where the
// types allow it (not over DOUBLE).
func TestSemiJoinBoundsMatchesResidualJoin(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	ddl := "CREATE TABLE %s (k BIGINT, i BIGINT, s VARCHAR(8), d DATE, ts DATETIME, m DECIMAL(10,2), x DOUBLE)"
	val := func(p float64, v string) string {
		if rng.Float64() < p {
			return "NULL"
		}
		return v
	}
	rows := func(n int) string {
		var sb strings.Builder
		for r := 0; r < n; r++ {
			if r > 0 {
				sb.WriteString(", ")
			}
			k := rng.Intn(12)
			// Key 11's values are all NULL.
			p := 0.15
			if k == 11 {
				p = 1
			}
			fmt.Fprintf(&sb, "(%s, %s, %s, %s, %s, %s, %s)", val(0.05, fmt.Sprint(k)),
				val(p, fmt.Sprint(rng.Intn(6))), val(p, fmt.Sprintf("'s%d'", rng.Intn(4))),
				val(p, fmt.Sprintf("DATE '2024-01-0%d'", 1+rng.Intn(4))),
				val(p, fmt.Sprintf("TIMESTAMP '2024-01-01 10:00:0%d'", rng.Intn(4))),
				val(p, fmt.Sprintf("%d.%02d", rng.Intn(3), rng.Intn(3)*25)), val(p, fmt.Sprint(rng.Intn(4))))
		}
		return sb.String()
	}
	setup := []string{fmt.Sprintf(ddl, "f"), fmt.Sprintf(ddl, "g"),
		"INSERT INTO f VALUES " + rows(300), "INSERT INTO g VALUES " + rows(400)}
	on := openTestDB(t, gsql.Options{Device: "cpu"}, setup...)
	off := openTestDB(t, gsql.Options{Device: "cpu", DisabledRules: []string{"semi_join_bounds"}}, setup...)
	for _, col := range []string{"i", "s", "d", "ts", "m", "x"} {
		for _, op := range []string{"<>", "<", "<=", ">", ">="} {
			for _, not := range []string{"", "NOT "} {
				for _, cond := range []string{"g.%[1]s %[2]s f.%[1]s", "f.%[1]s %[2]s g.%[1]s"} {
					c := fmt.Sprintf(cond, col, op)
					q := fmt.Sprintf("SELECT f.k, f.%s, COUNT(*) FROM f WHERE %sEXISTS (SELECT 1 FROM g WHERE g.k = f.k AND %s AND g.i <> 5) GROUP BY 1, 2 ORDER BY 1, 2", col, not, c)
					got, want := rowsOf(t, on, q), rowsOf(t, off, q)
					if !slices.Equal(got, want) {
						t.Errorf("%s:\nrule on  %q\nrule off %q", q, got, want)
					}
					plan := strings.Join(rowsOf(t, on, "EXPLAIN "+q), "\n")
					fired := strings.Contains(plan, "semi_join_bounds")
					if fired != (col != "x") {
						t.Errorf("%s: rule ran %v:\n%s", q, fired, plan)
					}
				}
			}
		}
	}
	// Two residual conditions, or one across kinds: left alone.
	for _, q := range []string{
		"SELECT COUNT(*) FROM f WHERE EXISTS (SELECT 1 FROM g WHERE g.k = f.k AND g.i <> f.i AND g.s < f.s)",
		"SELECT COUNT(*) FROM f WHERE EXISTS (SELECT 1 FROM g WHERE g.k = f.k AND g.s <> f.i)",
	} {
		if plan := strings.Join(rowsOf(t, on, "EXPLAIN "+q), "\n"); strings.Contains(plan, "semi_join_bounds") {
			t.Errorf("%s: the rule ran:\n%s", q, plan)
		}
		if got, want := rowsOf(t, on, q), rowsOf(t, off, q); !slices.Equal(got, want) {
			t.Errorf("%s: rule on %q, off %q", q, got, want)
		}
	}
}
