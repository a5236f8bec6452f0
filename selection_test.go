package gsql_test

import (
	"regexp"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// TestFilterLendsSelectionsToGroupBy: a filter under a GROUP BY on the
// CPU passes its kept rows as selections of its input's batches, which
// EXPLAIN ANALYZE shows (lent_batches), and the answers are those of the
// same aggregates with the filter written into them (no Filter at all):
// keys plain and computed, NULLs, every kept fraction, DISTINCT (read
// from rows the aggregate gathers).
func TestFilterLendsSelectionsToGroupBy(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	sequence(t, db, 17)
	mustExec(t, db, `CREATE TABLE t AS SELECT g, g % 7 AS m, CASE WHEN g % 11 = 0 THEN NULL ELSE g % 1000 END AS x, CAST(g % 13 AS DOUBLE) / 4 AS f, CONCAT('s', g % 97) AS s, CAST(g % 5000 AS DECIMAL(12,2)) AS d FROM seq`)
	lent := regexp.MustCompile(`Filter .* lent_batches=[1-9]`)
	for _, keep := range []string{"g % 10 <> 3", "g % 10 < 5", "g % 10 = 3", "g % 1000 = 1"} {
		for _, q := range []struct{ filtered, folded string }{
			{`SELECT m, COUNT(*), SUM(x), MIN(x), MAX(f), AVG(d), COUNT(x), MIN(s) FROM t WHERE %s GROUP BY m ORDER BY m`,
				`SELECT m, SUM(CASE WHEN %s THEN 1 ELSE 0 END), SUM(CASE WHEN %[1]s THEN x END), MIN(CASE WHEN %[1]s THEN x END), MAX(CASE WHEN %[1]s THEN f END), AVG(CASE WHEN %[1]s THEN d END), COUNT(CASE WHEN %[1]s THEN x END), MIN(CASE WHEN %[1]s THEN s END) FROM t GROUP BY m HAVING SUM(CASE WHEN %[1]s THEN 1 ELSE 0 END) > 0 ORDER BY m`},
			{`SELECT x % 5, SUM(g), MAX(d) FROM t WHERE %s GROUP BY x % 5 ORDER BY 1`,
				`SELECT x % 5, SUM(CASE WHEN %s THEN g END), MAX(CASE WHEN %[1]s THEN d END) FROM t GROUP BY x % 5 HAVING SUM(CASE WHEN %[1]s THEN 1 ELSE 0 END) > 0 ORDER BY 1`},
			{`SELECT COUNT(*), SUM(x), MIN(f) FROM t WHERE %s`,
				`SELECT SUM(CASE WHEN %s THEN 1 ELSE 0 END), SUM(CASE WHEN %[1]s THEN x END), MIN(CASE WHEN %[1]s THEN f END) FROM t`},
			{`SELECT m, COUNT(DISTINCT x) FROM t WHERE %s GROUP BY m ORDER BY m`,
				`SELECT m, COUNT(DISTINCT CASE WHEN %s THEN x END) FROM t GROUP BY m HAVING SUM(CASE WHEN %[1]s THEN 1 ELSE 0 END) > 0 ORDER BY m`},
		} {
			filtered := strings.ReplaceAll(q.filtered, "%s", keep)
			folded := strings.ReplaceAll(strings.ReplaceAll(q.folded, "%[1]s", keep), "%s", keep)
			got, want := rowsOf(t, db, filtered), rowsOf(t, db, folded)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s:\n%s\nwant (%s):\n%s", filtered, strings.Join(got, "\n"), folded, strings.Join(want, "\n"))
			}
			plan := strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE "+filtered), "\n")
			if !lent.MatchString(plan) {
				t.Fatalf("%s: no batch lent:\n%s", filtered, plan)
			}
		}
	}
}
