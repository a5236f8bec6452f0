//go:build cuda

package gsql_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/internal/bytesize"
)

// TestGPUGroupByPartitionedUnderPoolLimit: a GROUP BY with about a group
// a row over a resident table whose hash table does not fit the capped
// pool (GSQL_OOMPART_POOL, default 64 MiB; GSQL_OOMPART_ROWS rows,
// default 1.5M) groups by partition after the device runs out of memory
// (oom_partitions in EXPLAIN ANALYZE): plain aggregates, an ORDER BY
// COUNT(*) LIMIT, COUNT(DISTINCT) and MEDIAN answer as the CPU backend
// does, in strict gpu mode. With MemoryLimit below the input's bytes, the
// partitions also go to disk (spilled_bytes) and leave no file in TempDir.
func TestGPUGroupByPartitionedUnderPoolLimit(t *testing.T) {
	pool := uint64(64 << 20)
	if s := os.Getenv("GSQL_OOMPART_POOL"); s != "" {
		v, err := bytesize.Parse(s)
		if err != nil {
			t.Fatalf("GSQL_OOMPART_POOL: %v", err)
		}
		pool = v
	}
	rows := 1_500_000
	if s := os.Getenv("GSQL_OOMPART_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("GSQL_OOMPART_ROWS: %v", err)
		}
		rows = v
	}
	tmp := t.TempDir()
	gpu, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: pool, CacheBudget: pool * 3 / 4})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	spilling, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: pool, CacheBudget: pool * 3 / 4, MemoryLimit: 16 << 20, TempDir: tmp})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { spilling.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	// k: about 1.1 rows a key; v: 1,000 values.
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	keys := int64(rows) * 9 / 10
	for i := 0; i < rows; i++ {
		kb.Append(int64(i) * 7919 % keys)
		vb.Append(int64(i % 1000))
	}
	rec := array.NewRecord(schema, []arrow.Array{kb.NewArray(), vb.NewArray()}, int64(rows))
	for _, db := range []*gsql.DB{gpu, spilling, cpu} {
		if err := db.RegisterTable("t", schema, []arrow.Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(db *gsql.DB, q string, want ...string) {
		t.Helper()
		got, exp := sortedRows(t, db, q), sortedRows(t, cpu, q)
		if strings.Join(got, "\n") != strings.Join(exp, "\n") {
			t.Fatalf("%s: GPU result (%d rows) differs from the CPU backend (%d rows)", q, len(got), len(exp))
		}
		plan := strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE "+q), "\n")
		t.Logf("EXPLAIN ANALYZE %s:\n%s", q, plan)
		for _, w := range want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: no %q in the plan", q, w)
			}
		}
		requirePoolSettled(t, db)
	}
	for _, q := range []string{
		"SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM t GROUP BY k",
		"SELECT k, COUNT(*) FROM t GROUP BY k ORDER BY COUNT(*) DESC, k LIMIT 10",
		"SELECT k, COUNT(DISTINCT v), MAX(v) FROM t GROUP BY k",
		"SELECT k, MEDIAN(v), COUNT(*) FROM t GROUP BY k",
	} {
		check(gpu, q, "oom_partitions=")
	}
	check(spilling, "SELECT k, COUNT(*) FROM t GROUP BY k", "oom_partitions=", "spilled_bytes=")
	if es, err := os.ReadDir(tmp); err != nil || len(es) > 0 {
		t.Errorf("TempDir holds %d entries (%v) after the queries", len(es), err)
	}
}
