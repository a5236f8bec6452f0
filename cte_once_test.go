package gsql_test

import (
	"strings"
	"sync/atomic"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// cteRows counts the rows gsql_test_count_rows(x) evaluated: a CTE whose
// body calls it once per row of t counts len(t) per run of the body.
var cteRows atomic.Int64

func init() {
	expr.Register(&expr.Function{Name: "gsql_test_count_rows", MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) { return args[0], args, nil },
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			cteRows.Add(int64(n))
			return args[0], nil
		}})
}

// TestCTEComputedOnce: a CTE that groups, read twice, by the plan and by
// subqueries the statement runs while it is planned (a scalar subquery,
// an IN list, EXISTS, a correlated subquery), runs its body once: the
// counting function sees t's rows once per statement. A CTE read once,
// or one that only filters a table, is planned at each reference
// (inlined) and shows no materialized CTE in EXPLAIN.
func TestCTEComputedOnce(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE t (k BIGINT, v BIGINT)",
		"INSERT INTO t VALUES (1, 10), (1, 20), (2, 5), (3, NULL), (3, 7), (NULL, 1)")
	const rows = 6
	c := "WITH c AS (SELECT k, SUM(gsql_test_count_rows(v)) AS s, COUNT(*) AS n FROM t GROUP BY k) "
	for _, tc := range []struct {
		q    string
		want string
	}{
		{c + "SELECT k, s FROM c WHERE s > (SELECT AVG(s) FROM c) ORDER BY k", "1|30"},
		{c + "SELECT x.k, y.k FROM c x JOIN c y ON x.n = y.n AND x.k < y.k ORDER BY 1, 2", "1|3"},
		{c + "SELECT k FROM c WHERE k IN (SELECT k FROM c ORDER BY s DESC LIMIT 2) ORDER BY k", "1,3"},
		{c + "SELECT COUNT(*) FROM c WHERE EXISTS (SELECT 1 FROM c WHERE k IS NULL)", "4"},
		{c + "SELECT k FROM c WHERE s = (SELECT MAX(s) FROM c c2 WHERE c2.n = c.n) ORDER BY k", "1,2"},
		{c + "SELECT (SELECT MAX(s) FROM c), (SELECT MIN(s) FROM c), (SELECT COUNT(*) FROM c)", "30|1|4"},
	} {
		cteRows.Store(0)
		got := strings.Join(rowsOf(t, db, tc.q), ",")
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.q, got, tc.want)
		}
		if n := cteRows.Load(); n != rows {
			t.Errorf("%s: the CTE's body evaluated %d rows, want %d (once)", tc.q, n, rows)
		}
		plan := strings.Join(rowsOf(t, db, "EXPLAIN "+tc.q), "\n")
		if strings.Count(plan, "Scan t") > 1 {
			t.Errorf("%s: the body shows %d times in\n%s", tc.q, strings.Count(plan, "Scan t"), plan)
		}
	}
	// INSERT ... WITH and CREATE TABLE ... AS WITH: once too.
	for _, st := range []string{
		"CREATE TABLE dst AS " + c + "SELECT k, s FROM c WHERE s > (SELECT AVG(s) FROM c)",
		"INSERT INTO dst " + c + "SELECT k, s FROM c WHERE s > (SELECT AVG(s) FROM c)",
	} {
		cteRows.Store(0)
		mustExec(t, db, st)
		if n := cteRows.Load(); n != rows {
			t.Errorf("%s: the CTE's body evaluated %d rows, want %d (once)", st, n, rows)
		}
	}
	if got := strings.Join(rowsOf(t, db, "SELECT k, s FROM dst"), ","); got != "1|30,1|30" {
		t.Errorf("dst holds %q, want 1|30 twice", got)
	}
	t.Log(strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE "+c+"SELECT x.k, y.k FROM c x JOIN c y ON x.n = y.n AND x.k < y.k WHERE x.s > (SELECT AVG(s) FROM c)"), "\n"))
}
