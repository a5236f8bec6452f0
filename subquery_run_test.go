package gsql_test

import (
	"regexp"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// TestExplainCountsSubqueriesRunWhilePlanning: the uncorrelated
// subqueries that binding runs (a scalar subquery, an IN list of a
// LIMIT subquery, NOT IN's NULL counts) are time of the statement that no
// operator of its plan shows, so EXPLAIN and EXPLAIN ANALYZE say how many
// ran, where, and how long they took; a correlated subquery (run per
// row, inside the plan) is not counted.
func TestExplainCountsSubqueriesRunWhilePlanning(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE t (a BIGINT, b BIGINT)",
		"INSERT INTO t VALUES (1, 10), (2, 20), (3, NULL), (4, 40)")
	line := regexp.MustCompile(`^subqueries run while planning: (\d+) on the cpu \(\S+\)$`)
	for _, tc := range []struct {
		q    string
		runs string
	}{
		{"SELECT a FROM t WHERE b > (SELECT AVG(b) FROM t)", "1"},
		{"SELECT a FROM t WHERE b > (SELECT MIN(b) FROM t) AND a < (SELECT MAX(a) FROM t)", "2"},
		{"SELECT a FROM t WHERE a IN (SELECT a FROM t ORDER BY b DESC LIMIT 2)", "1"},
		{"SELECT a FROM t", ""},
		{"SELECT a, (SELECT COUNT(*) FROM t u WHERE u.a < t.a) FROM t", ""},
	} {
		for _, explain := range []string{"EXPLAIN ", "EXPLAIN ANALYZE "} {
			lines := rowsOf(t, db, explain+tc.q)
			got := ""
			for _, l := range lines {
				if m := line.FindStringSubmatch(l); m != nil {
					got = m[1]
				} else if strings.HasPrefix(l, "subqueries") {
					t.Errorf("%s%s: line %q", explain, tc.q, l)
				}
			}
			if got != tc.runs {
				t.Errorf("%s%s: %q subqueries counted, want %q:\n%s", explain, tc.q, got, tc.runs, strings.Join(lines, "\n"))
			}
		}
	}
}
