package gsql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// BenchmarkQuantified times quantified comparisons and row-value IN on the
// CPU backend, each beside the plain form it can be compared with: t has
// 100,000 rows (x in 0..999, y in 0..6, id unique), s 10,000 (v = 0..9999, w = v % 7,
// z = v % 1000). A correlated comparison that is a top-level WHERE
// conjunct runs as joins; wrapped in IS TRUE it keeps the per-row path,
// which runs S once per distinct outer value.
//
//	go test -run '^$' -bench Quantified -benchtime 3x .
func BenchmarkQuantified(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b, gsql.Options{Device: "cpu"})
	fill := func(table, cols string, n int, row func(i int) string) {
		if _, err := db.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", table, cols)); err != nil {
			b.Fatal(err)
		}
		for lo := 0; lo < n; lo += 10_000 {
			var sb strings.Builder
			fmt.Fprintf(&sb, "INSERT INTO %s VALUES ", table)
			for i := lo; i < min(lo+10_000, n); i++ {
				if i > lo {
					sb.WriteString(", ")
				}
				sb.WriteString(row(i))
			}
			if _, err := db.Exec(ctx, sb.String()); err != nil {
				b.Fatal(err)
			}
		}
	}
	fill("t", "x INT, y INT, id INT", 100_000, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i%1000, i%7, i) })
	fill("s", "v INT, w INT, z INT", 10_000, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i, i%7, i%1000) })
	for _, q := range []struct{ name, sql string }{
		{"gt_all", "SELECT COUNT(*) FROM t WHERE x > ALL (SELECT v FROM s WHERE v < 500)"},
		{"gt_max", "SELECT COUNT(*) FROM t WHERE x > (SELECT MAX(v) FROM s WHERE v < 500)"},
		{"lt_any", "SELECT COUNT(*) FROM t WHERE x < ANY (SELECT v FROM s WHERE v < 500)"},
		{"gt_all_correlated", "SELECT COUNT(*) FROM t WHERE x > ALL (SELECT v FROM s WHERE s.w = t.y AND v < 500)"},
		{"gt_all_correlated_per_row", "SELECT COUNT(*) FROM t WHERE (x > ALL (SELECT v FROM s WHERE s.w = t.y AND v < 500)) IS TRUE"},
		{"lt_all_correlated_1000_keys", "SELECT COUNT(*) FROM t WHERE y < ALL (SELECT v FROM s WHERE s.z = t.x)"},
		{"lt_all_correlated_1000_keys_per_row", "SELECT COUNT(*) FROM t WHERE (y < ALL (SELECT v FROM s WHERE s.z = t.x)) IS TRUE"},
		{"lt_all_correlated_20000_keys", "SELECT COUNT(*) FROM t WHERE id < 20000 AND x < ALL (SELECT z FROM s WHERE s.v = t.id)"},
		{"lt_all_correlated_20000_keys_per_row", "SELECT COUNT(*) FROM t WHERE id < 20000 AND (x < ALL (SELECT z FROM s WHERE s.v = t.id)) IS TRUE"},
		{"row_in", "SELECT COUNT(*) FROM t WHERE (x, y) IN (SELECT v, w FROM s)"},
		{"row_not_in", "SELECT COUNT(*) FROM t WHERE (x, y) NOT IN (SELECT v, w FROM s)"},
		{"scalar_in", "SELECT COUNT(*) FROM t WHERE x IN (SELECT v FROM s WHERE w = 3)"},
		{"row_in_correlated", "SELECT COUNT(*) FROM t WHERE (x, y) IN (SELECT v, w FROM s WHERE s.w = t.y)"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rdr, err := db.Query(ctx, q.sql)
				if err != nil {
					b.Fatal(err)
				}
				for rdr.Next() {
				}
				if err := rdr.Err(); err != nil {
					b.Fatal(err)
				}
				rdr.Release()
			}
		})
	}
}
