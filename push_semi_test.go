package gsql_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestPushSemiJoinsSameAnswers runs semi and anti joins over inner and
// left joins, through projections and with conditions on both sides, with
// push_semi_joins on and off: the answers agree, and the rule moves the
// semi join only where the columns it tests allow (never into a LEFT
// join's NULL-extended side, never when it tests both join inputs).
func TestPushSemiJoinsSameAnswers(t *testing.T) {
	setup := []string{
		"CREATE TABLE c (ck BIGINT, name VARCHAR, seg VARCHAR)",
		"CREATE TABLE o (ok BIGINT, ck BIGINT, price DOUBLE, pri BIGINT)",
		"CREATE TABLE l (ok BIGINT, qty BIGINT, flag VARCHAR)",
		"INSERT INTO c VALUES (1, 'ann', 'A'), (2, 'bob', 'B'), (3, 'cy', 'A'), (4, 'di', NULL), (NULL, 'nul', 'B'), (5, 'ed', 'A'), (6, 'flo', 'B'), (7, 'gus', 'A')",
		"INSERT INTO o VALUES (10, 1, 5.5, 1), (11, 1, 7.0, 2), (12, 2, 1.0, 1), (13, 3, 9.0, NULL), (14, 9, 2.0, 3), (15, NULL, 4.0, 2)",
		"INSERT INTO l VALUES (10, 5, 'x'), (10, 50, 'y'), (11, 1, 'x'), (12, 30, NULL), (13, 2, 'y'), (13, 40, 'x'), (16, 3, 'x'), (NULL, 7, 'y')",
	}
	on := openTestDB(t, gsql.Options{}, setup...)
	off := openTestDB(t, gsql.Options{DisabledRules: []string{"push_semi_joins"}}, setup...)
	for _, tc := range []struct {
		q      string
		pushed bool // the rule changes the plan
	}{
		// A small uncorrelated IN becomes a list of values: a filter.
		{"SELECT c.name, o.ok FROM c, o WHERE c.ck = o.ck AND o.ok IN (SELECT ok FROM l WHERE qty > 20)", false},
		{"SELECT c.name, o.ok FROM c, o WHERE c.ck = o.ck AND EXISTS (SELECT 1 FROM l WHERE l.ok = o.ok AND l.qty > o.pri * 10)", true},
		{"SELECT c.name, o.ok FROM c, o WHERE c.ck = o.ck AND NOT EXISTS (SELECT 1 FROM l WHERE l.ok = o.ok)", true},
		{"SELECT c.name, o.ok FROM c, o WHERE c.ck = o.ck AND o.ok NOT IN (SELECT ok FROM l WHERE flag = 'x')", false},
		{"SELECT c.name, o.ok FROM c, o WHERE c.ck = o.ck AND c.seg IN (SELECT flag FROM l) ", false},
		// The EXISTS tests a column of the LEFT join's right side, which a
		// padded row has NULL: an inner join (outer_to_inner), below which
		// the semi join moves onto o.
		{"SELECT c.name, o.ok FROM c LEFT JOIN o ON c.ck = o.ck WHERE EXISTS (SELECT 1 FROM l WHERE l.ok = o.ok)", true},
		{"SELECT c.name, o.ok FROM c LEFT JOIN o ON c.ck = o.ck WHERE NOT EXISTS (SELECT 1 FROM o o2 WHERE o2.ck = c.ck AND o2.pri = 2)", true},
		{"SELECT c.name, o.ok FROM c, o WHERE c.ck = o.ck AND EXISTS (SELECT 1 FROM l WHERE l.ok = o.ok AND l.flag = c.seg)", false},
		{"SELECT x.n, x.k FROM (SELECT c.name AS n, o.ok AS k, o.price * 2 AS p2 FROM c, o WHERE c.ck = o.ck) x WHERE EXISTS (SELECT 1 FROM l WHERE l.ok = x.k)", true},
		{"SELECT c.name, o.ok, l.qty FROM c, o, l WHERE c.ck = o.ck AND o.ok = l.ok AND NOT EXISTS (SELECT 1 FROM c c2 WHERE c2.ck = o.ck AND c2.seg = 'B')", true},
	} {
		want := rowsOf(t, off, tc.q)
		got := rowsOf(t, on, tc.q)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\nrule on  %q\nrule off %q", tc.q, got, want)
		}
		plan := strings.Join(rowsOf(t, on, "EXPLAIN "+tc.q), "\n")
		if fired := strings.Contains(plan, "push_semi_joins"); fired != tc.pushed {
			t.Errorf("%s: push_semi_joins fired %v, want %v:\n%s", tc.q, fired, tc.pushed, plan)
		}
	}
}
