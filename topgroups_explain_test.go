package gsql_test

import (
	"strings"
	"testing"
)

// TestExplainShowsTopGroups: EXPLAIN names the cut an ORDER BY ... LIMIT
// lets a GROUP BY make (the term, its direction and NULL place, and
// whether the first term's ties are kept for a second one), and no cut
// where a string state, a filter (HAVING) or a computed term stands
// between.
func TestExplainShowsTopGroups(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, "CREATE TABLE tg (k BIGINT, v BIGINT)")
	mustExec(t, db, "INSERT INTO tg VALUES (1, 10), (2, 20), (1, 5), (3, NULL)")
	for _, c := range []struct{ q, want string }{
		{"SELECT k, COUNT(*) AS c FROM tg GROUP BY k ORDER BY c DESC LIMIT 2", "top_groups=2 by=(count(*) DESC NULLS LAST)"},
		{"SELECT k, COUNT(v) AS s FROM tg GROUP BY k ORDER BY s LIMIT 1 OFFSET 1", "top_groups=2 by=(count(v) ASC NULLS FIRST)"},
		{"SELECT k, MAX(v) FROM tg GROUP BY k ORDER BY MAX(v) NULLS LAST, k LIMIT 3", "top_groups=3 by=(max(v) ASC NULLS LAST) with_ties"},
		{"SELECT k, AVG(v) FROM tg GROUP BY k ORDER BY k DESC LIMIT 2", "top_groups=2 by=(k DESC NULLS LAST)"},
		{"SELECT k, SUM(v) AS s FROM tg GROUP BY k ORDER BY s LIMIT 1", "top_groups=1 by=(sum(v) ASC NULLS FIRST)"},
		{"SELECT k, COUNT(*) AS c FROM tg GROUP BY k ORDER BY c DESC, k LIMIT 2", "top_groups=2 by=(count(*) DESC NULLS LAST) with_ties"},
		{"SELECT k, MIN(CAST(v AS VARCHAR)) AS m FROM tg GROUP BY k ORDER BY m LIMIT 2", ""},
		{"SELECT k, COUNT(*) FROM tg GROUP BY k LIMIT 2", "first_groups=2"},
		{"SELECT k, SUM(v) AS s FROM tg GROUP BY k HAVING SUM(v) > 1 ORDER BY s LIMIT 2", ""},
		{"SELECT k, SUM(v) + 1 AS s FROM tg GROUP BY k ORDER BY s LIMIT 2", ""},
	} {
		plan := strings.Join(rowsOf(t, db, "EXPLAIN "+c.q), "\n")
		if c.want == "" && strings.Contains(plan, "top_groups=") || c.want != "" && !strings.Contains(plan, c.want) {
			t.Errorf("%s: want %q in\n%s", c.q, c.want, plan)
		}
		if c.want != "" {
			analyzed := strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE "+c.q), "\n")
			if !strings.Contains(analyzed, c.want) {
				t.Errorf("EXPLAIN ANALYZE %s: want %q in\n%s", c.q, c.want, analyzed)
			}
		}
	}
}
