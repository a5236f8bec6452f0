//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql"
)

type queryFunc func(context.Context, string, ...any) (array.RecordReader, error)

// rowsText runs q through query and renders its rows, one a line.
func rowsText(tb testing.TB, query queryFunc, q string) string {
	tb.Helper()
	rdr, err := query(context.Background(), q)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	defer rdr.Release()
	var lines []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				parts[c] = rec.Column(c).ValueStr(i)
			}
			lines = append(lines, strings.Join(parts, "|"))
		}
	}
	if err := rdr.Err(); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return strings.Join(lines, "\n")
}

// BenchmarkAutoFragments times issue 39's examples of placement by cost:
// a large fact table (2^GSQL_AUTO_DOUBLINGS rows, 2^23 by default) joined
// with two filtered 10-row dimensions and grouped, and a join of fifteen
// 10-row tables, under cpu, under auto (place_by_cost keeps the
// dimensions on the CPU) and under auto with place_by_cost off (every
// operator the device supports on the GPU). It measures; it asserts
// nothing about time.
func BenchmarkAutoFragments(b *testing.B) {
	ctx := context.Background()
	doublings := 23
	if n, err := strconv.Atoi(os.Getenv("GSQL_AUTO_DOUBLINGS")); err == nil {
		doublings = n
	}
	auto, err := gsql.Open(gsql.Options{Device: "auto"})
	if err != nil || auto.Device() != "gpu" {
		b.Skipf("no GPU: %v", err)
	}
	b.Cleanup(func() { auto.Close() })
	cpu, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cpu.Close() })
	if err := auto.WaitGPU(ctx); err != nil {
		b.Fatal(err)
	}
	exec := func(db *gsql.DB, q string) {
		if _, err := db.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	for _, db := range []*gsql.DB{auto, cpu} {
		exec(db, "CREATE TABLE seq (g BIGINT)")
		exec(db, "INSERT INTO seq VALUES (1)")
		for i := 0; i < doublings; i++ {
			exec(db, "INSERT INTO seq SELECT g + (SELECT MAX(g) FROM seq) FROM seq")
		}
		exec(db, "CREATE TABLE fact AS SELECT g, g % 10 AS d, g % 100 AS v FROM seq")
		for _, d := range []string{"d1", "d2"} {
			exec(db, "CREATE TABLE "+d+" AS SELECT g - 1 AS id, g % 3 AS kind, CONCAT('n', g) AS name FROM seq WHERE g <= 10")
		}
	}
	var tables, conds []string
	for i := 0; i < 15; i++ {
		tables = append(tables, fmt.Sprintf("d1 t%d", i))
		if i > 0 {
			conds = append(conds, fmt.Sprintf("t%d.id = t%d.kind + %d", i-1, i, i%5))
		}
	}
	queries := []struct{ name, q string }{
		{"star", "SELECT d1.name, COUNT(*), SUM(fact.v) FROM fact, d1, d2 WHERE fact.d = d1.id AND fact.v % 10 = d2.id AND d1.kind = 1 AND d2.kind <> 0 GROUP BY d1.name ORDER BY d1.name"},
		{"fifteen_tiny", "SELECT COUNT(*), MAX(t0.name) FROM " + strings.Join(tables, ", ") + " WHERE " + strings.Join(conds, " AND ")},
		{"tiny_over_fact_groups", "SELECT d1.name, g.n FROM (SELECT d, COUNT(*) AS n FROM fact GROUP BY d) g JOIN d1 ON g.d = d1.id WHERE d1.kind = 2 ORDER BY d1.name"},
	}
	off := auto.Session()
	if _, err := off.Exec(ctx, "SET disabled_rules = 'place_by_cost'"); err != nil {
		b.Fatal(err)
	}
	for _, tc := range queries {
		want := rowsText(b, cpu.Query, tc.q)
		for _, m := range []struct {
			name  string
			query queryFunc
		}{
			{"cpu", cpu.Query},
			{"auto", auto.Query},
			{"auto_rule_off", off.Query},
		} {
			// Warm: compiles, resident tables, then the fused kernels.
			for i := 0; i < 3; i++ {
				if got := rowsText(b, m.query, tc.q); got != want {
					b.Fatalf("%s %s: %s, CPU backend %s", tc.name, m.name, got, want)
				}
			}
			if err := auto.WaitCompiles(ctx); err != nil {
				b.Fatal(err)
			}
			rowsText(b, m.query, tc.q)
			if m.name != "cpu" {
				plan := rowsText(b, m.query, "EXPLAIN "+tc.q)
				b.Logf("%s %s:\n%s", tc.name, m.name, plan)
			}
			b.Run(tc.name+"/"+m.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					rowsText(b, m.query, tc.q)
				}
			})
		}
	}
}
