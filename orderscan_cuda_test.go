//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/operators"
)

// scanOrderQueries are ORDER BY queries straight over the table o (no
// filter: the sort reads the resident table), with and without LIMIT and
// OFFSET, ties left to row order, NULLs first and last, text keys, DESC,
// and keys the output does not show.
var scanOrderQueries = []string{
	"SELECT * FROM o ORDER BY k, id",
	"SELECT id, k FROM o ORDER BY k DESC",
	"SELECT id, f FROM o ORDER BY f DESC, id",
	"SELECT id, d, m, b FROM o ORDER BY d DESC, m, b DESC, id",
	"SELECT id, s FROM o ORDER BY s, id",
	"SELECT id, b FROM o ORDER BY f NULLS LAST, k DESC NULLS FIRST",
	"SELECT * FROM o ORDER BY id DESC LIMIT 10",
	"SELECT * FROM o ORDER BY k LIMIT 20 OFFSET 30",
	"SELECT id, k, s FROM o ORDER BY k NULLS LAST, id DESC LIMIT 100",
	"SELECT * FROM o ORDER BY s DESC, id LIMIT 10",
	"SELECT id, s FROM o ORDER BY s DESC NULLS FIRST LIMIT 40 OFFSET 7",
	"SELECT s, id FROM o ORDER BY d, k DESC LIMIT 1000",
	"SELECT id FROM o ORDER BY k, d LIMIT 600000",
	"SELECT id, k FROM o ORDER BY id LIMIT 5 OFFSET 999990",
}

// scanRowBytes bounds the device bytes of one output row of a query over
// o: each column's values (s: at most 6 bytes and its offset) and a byte
// for its validity bits.
func scanRowBytes(q string) int {
	width := map[string]int{"id": 8, "k": 8, "f": 8, "d": 8, "m": 16, "b": 1, "s": 10}
	list := strings.TrimPrefix(q[:strings.Index(q, " FROM ")], "SELECT ")
	n := 0
	for _, c := range strings.Split(list, ", ") {
		if c == "*" {
			for _, w := range width {
				n += w + 1
			}
			continue
		}
		n += width[c] + 1
	}
	return n
}

// offsetOf is q's OFFSET, 0 without one.
func offsetOf(q string) uint64 {
	at := strings.Index(q, " OFFSET ")
	if at < 0 {
		return 0
	}
	n, _ := strconv.ParseUint(strings.Fields(q[at+len(" OFFSET "):])[0], 10, 64)
	return n
}

// TestGPUOrderByScanMatchesCPU runs ORDER BY over a table resident in
// four row groups on the GPU (EXPLAIN: the sort and the scan on the
// device, no upload) and compares the rows in order with the CPU
// backend's. The sort orders only the keys across the groups and gathers
// the output rows from them: a LIMIT's query brings little more than its
// rows to the host, and a full sort its output and 8 bytes a row of order.
func TestGPUOrderByScanMatchesCPU(t *testing.T) {
	defer func(n int) { operators.DeviceBatchRows = n }(operators.DeviceBatchRows)
	operators.DeviceBatchRows = 300_000 // 1M rows in records of 100,000: 4 row groups, output in chunks of 300,000
	const rows = 1_000_000
	schema, recs := orderRecords(rows, 17)
	cpu, gpu := cpuAndGPU(t, "o", schema, recs)
	for _, q := range scanOrderQueries {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q), "\n")
		if !strings.Contains(plan, "keys sorted on the device") || !strings.Contains(plan, "Scan o") ||
			strings.Contains(plan, "[cpu:") || strings.Contains(plan, "HostToDevice") {
			t.Errorf("%s: the sort does not read the resident table on the device:\n%s", q, plan)
		}
		if ran := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q), "\n"); strings.Contains(ran, "keys_sorted=host") {
			t.Errorf("%s: the keys were sorted on the host:\n%s", q, ran)
		}
		before := gpu.Stats().GPU.BytesToHost
		got := rowsOf(t, gpu, q)
		moved := gpu.Stats().GPU.BytesToHost - before
		requireSameRows(t, q, got, rowsOf(t, cpu, q))
		// The output rows and the order (8 bytes a row, the OFFSET's rows
		// too: the sort does not know the OFFSET, so the order of every
		// row the LIMIT reads comes to the host): a download of the
		// table (some 60 MB) on the way would show.
		if limit := uint64(len(got))*uint64(scanRowBytes(q)+8) + 8*offsetOf(q) + 1<<20; moved > limit {
			t.Errorf("%s: %d bytes came to the host for %d rows (at most %d expected)", q, moved, len(got), limit)
		}
	}
	if st := gpu.Stats().Cache; st == nil || st.Batches < 4 {
		t.Errorf("the table was not resident in row groups: %+v", st)
	}
	// The same sorts with the keys ordered on the host: the permutation
	// still gathers the rows on the device.
	restore := operators.SetSortKeysOnHost(true)
	defer restore()
	for _, q := range []string{scanOrderQueries[0], scanOrderQueries[5], scanOrderQueries[8], scanOrderQueries[10]} {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
}

// BenchmarkGPUOrderByScan times warm ORDER BY straight over a resident
// table: LIMIT 10 by one BIGINT key over 10M rows (id: every row
// distinct, so the device narrows each row group to candidates; k: NULLs
// and ties, so every key is sorted), and a full sort of 1M rows by one
// BIGINT key, each over the tables as one row group and in groups of 500K
// rows (20 and 2; output chunks of 500K). The cpu runs are the CPU backend over the same tables (each a
// fraction of a second, so b.N stays small).
func BenchmarkGPUOrderByScan(b *testing.B) {
	ctx := context.Background()
	schema, big := orderRecords(10_000_000, 3)
	_, small := orderRecords(1_000_000, 4)
	queries := []struct{ name, sql string }{
		{"10M_limit10_distinct", "SELECT * FROM o ORDER BY id DESC LIMIT 10"},
		{"10M_limit10_ties_nulls", "SELECT * FROM o ORDER BY k LIMIT 10"},
		{"1M_full", "SELECT id, k, f FROM o1 ORDER BY k"},
	}
	run := func(b *testing.B, db *gsql.DB, q string) {
		rdr, err := db.Query(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for rdr.Next() {
			n += rdr.Record().NumRows()
		}
		if err := rdr.Err(); err != nil || n == 0 {
			b.Fatalf("%s: %d rows, %v", q, n, err)
		}
		rdr.Release()
	}
	open := func(b *testing.B, device string) *gsql.DB {
		db, err := gsql.Open(gsql.Options{Device: device})
		if err != nil {
			b.Skipf("%s: %v", device, err)
		}
		if err := db.RegisterTable("o", schema, big); err != nil {
			b.Fatal(err)
		}
		if err := db.RegisterTable("o1", schema, small); err != nil {
			b.Fatal(err)
		}
		return db
	}
	defer func(n int) { operators.DeviceBatchRows = n }(operators.DeviceBatchRows)
	for _, groups := range []struct {
		name string
		rows int
	}{{"one_group", operators.DeviceBatchRows}, {"groups_of_500K", 500_000}} {
		operators.DeviceBatchRows = groups.rows
		db := open(b, "gpu")
		if err := db.WaitGPU(ctx); err != nil {
			b.Fatal(err)
		}
		for _, q := range queries {
			for i := 0; i < 2; i++ { // compile, upload, settle
				run(b, db, q.sql)
			}
			waitCompiles(b, db)
			b.Run(fmt.Sprintf("%s/gpu/%s", q.name, groups.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					run(b, db, q.sql)
				}
			})
		}
		db.Close()
	}
	db := open(b, "cpu")
	defer db.Close()
	for _, q := range queries {
		run(b, db, q.sql)
		b.Run(q.name+"/cpu", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				run(b, db, q.sql)
			}
		})
	}
}
