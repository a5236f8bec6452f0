package gsql_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestSharedCTEComputedOnce checks from SQL that a CTE referenced three
// times runs once: EXPLAIN ANALYZE shows the plan under every reference,
// with statistics (rows, batches) only where it ran.
func TestSharedCTEComputedOnce(t *testing.T) {
	ctx := context.Background()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE TABLE t (a BIGINT, b BIGINT)",
		"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	const q = "WITH d AS (SELECT a, b * 2 AS c FROM t WHERE a > 1) SELECT x.a, y.c, z.c FROM d x, d y, d z WHERE x.a = y.a AND y.a = z.a"
	rows := queryStrings(t, db, q)
	sort.Strings(rows)
	if got := strings.Join(rows, ","); got != "2 40 40,3 60 60,4 80 80" {
		t.Fatalf("rows %v", rows)
	}
	plan := queryStrings(t, db, "EXPLAIN ANALYZE "+q)
	var refs, scans, ran int
	for _, l := range plan {
		if strings.Contains(l, "CTE d (computed once, 3 references)") {
			refs++
		}
		if strings.Contains(l, "Scan t") {
			scans++
			if strings.Contains(l, "rows=4") {
				ran++
			}
		}
	}
	if refs != 3 || scans != 3 || ran != 1 {
		t.Errorf("want 3 references and 3 scans shown, 1 run; got %d, %d, %d:\n%s", refs, scans, ran, strings.Join(plan, "\n"))
	}
}
