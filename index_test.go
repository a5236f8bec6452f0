package gsql_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestIndexSkipsBatches checks from SQL that CREATE INDEX makes a scan
// skip the 64K-row batches of one large record that its zone maps exclude,
// with the same answers, and that DROP INDEX stops it.
func TestIndexSkipsBatches(t *testing.T) {
	ctx := context.Background()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// 300,000 rows in one INSERT: one record, five batches, a ascending.
	for _, s := range []string{
		"CREATE TABLE big (a BIGINT, s VARCHAR)",
		`INSERT INTO big SELECT r.n * 500 + d.k, CONCAT('s', d.k) FROM
		  (WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r WHERE n < 599) SELECT n FROM r) r,
		  (WITH RECURSIVE d(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM d WHERE k < 499) SELECT k FROM d) d`,
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	skipped := regexp.MustCompile(`batches=(\d+) batches_skipped=(\d+) index=(\w+)`)
	for _, tc := range []struct {
		q, want string
		stats   string // batches, skipped, index; "" for none
	}{
		{"SELECT COUNT(*) FROM big WHERE a BETWEEN 70000 AND 70010", "11", "5 4 ia"},
		{"SELECT COUNT(*) FROM big WHERE a = 299999", "1", "5 4 ia"},
		{"SELECT COUNT(*) FROM big WHERE a > 140000 AND s = 's7'", "320", "5 2 ia"},
		{"SELECT COUNT(*) FROM big WHERE a < 0", "0", "5 5 ia"},
		{"SELECT COUNT(*) FROM big WHERE s = 's7'", "600", ""},
	} {
		for _, indexed := range []bool{false, true} {
			if indexed {
				if _, err := db.Exec(ctx, "CREATE INDEX IF NOT EXISTS ia ON big (a)"); err != nil {
					t.Fatal(err)
				}
			} else if _, err := db.Exec(ctx, "DROP INDEX IF EXISTS ia"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(queryStrings(t, db, tc.q), ","); got != tc.want {
				t.Errorf("%s (index %v): %s, want %s", tc.q, indexed, got, tc.want)
			}
			plan := strings.Join(queryStrings(t, db, "EXPLAIN ANALYZE "+tc.q), "\n")
			m := skipped.FindStringSubmatch(plan)
			got := ""
			if m != nil {
				got = strings.Join(m[1:], " ")
			}
			want := tc.stats
			if !indexed {
				want = ""
			}
			if got != want {
				t.Errorf("%s (index %v): batches/skipped/index %q, want %q:\n%s", tc.q, indexed, got, want, plan)
			}
		}
	}
}
