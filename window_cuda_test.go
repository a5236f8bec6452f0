//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
)

// windowRecords makes the table w: id (unique), g (partition key, 0..999
// with NULLs), o (order key with ties and NULLs), v (BIGINT with NULLs and
// values near 2^40), d (integral DOUBLEs, so sums are exact in any
// order), s (text with NULLs), in records of 100,000 rows.
func windowRecords(rows int, seed int64) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "o", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewSource(seed))
	var recs []arrow.Record
	for start := 0; start < rows; start += 100_000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := start; i < min(rows, start+100_000); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if rng.Intn(50) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(int64(rng.Intn(1000)))
			}
			if rng.Intn(40) == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int64Builder).Append(int64(rng.Intn(300)))
			}
			if rng.Intn(10) == 0 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Int64Builder).Append(rng.Int63n(1<<41) - 1<<40)
			}
			if rng.Intn(10) == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Float64Builder).Append(float64(rng.Intn(2_000_001) - 1_000_000))
			}
			if rng.Intn(8) == 0 {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("s%x", rng.Intn(1<<20)))
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return schema, recs
}

// TestGPUWindowMatchesCPU runs window functions of every kind on the GPU
// (device gpu) over 1M rows in ten records and compares every row with
// the CPU backend; EXPLAIN must show the window on the device.
func TestGPUWindowMatchesCPU(t *testing.T) {
	schema, recs := windowRecords(1_000_000, 7)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	queries := []string{
		// Positions.
		"SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY o, id), RANK() OVER (PARTITION BY g ORDER BY o), " +
			"DENSE_RANK() OVER (PARTITION BY g ORDER BY o), NTILE(7) OVER (PARTITION BY g ORDER BY o, id) FROM w",
		"SELECT id, PERCENT_RANK() OVER (PARTITION BY g ORDER BY o DESC), CUME_DIST() OVER (PARTITION BY g ORDER BY o NULLS LAST) FROM w",
		"SELECT id, ROW_NUMBER() OVER (ORDER BY v DESC, id), COUNT(*) OVER (PARTITION BY g) FROM w",
		"SELECT id, COUNT(*) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) FROM w",
		// Other rows' values.
		"SELECT id, LAG(v) OVER (PARTITION BY g ORDER BY id), LEAD(v, 3, -1) OVER (PARTITION BY g ORDER BY id), " +
			"LAG(s, 2, 'none') OVER (PARTITION BY g ORDER BY id), LEAD(d) OVER (ORDER BY id) FROM w",
		"SELECT id, FIRST_VALUE(s) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 5 FOLLOWING), " +
			"LAST_VALUE(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 5 FOLLOWING), " +
			"NTH_VALUE(s, 3) OVER (PARTITION BY g ORDER BY id) FROM w",
		"SELECT id, FIRST_VALUE(d) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM w",
		// Aggregates: running frames (segmented scans, prefix differences).
		"SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY o), COUNT(v) OVER (PARTITION BY g ORDER BY o), " +
			"AVG(v) OVER (PARTITION BY g ORDER BY o), MIN(v) OVER (PARTITION BY g ORDER BY o), MAX(v) OVER (PARTITION BY g ORDER BY o) FROM w",
		"SELECT id, SUM(d) OVER (PARTITION BY g ORDER BY id), AVG(d) OVER (PARTITION BY g), MIN(d) OVER (PARTITION BY g ORDER BY id), " +
			"MAX(d) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM w",
		"SELECT id, SUM(v) OVER (), MAX(d) OVER (), COUNT(s) OVER () FROM w",
		// Moving frames (short loops, prefix differences).
		"SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING), " +
			"MIN(d) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING), " +
			"SUM(d) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 4 FOLLOWING), " +
			"AVG(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) FROM w",
		"SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING), " +
			"MAX(d) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM w",
		// AVG of integers is MySQL's DECIMAL(…,4) on the device for every
		// frame kind: hashed whole partitions, moving and long frames,
		// RANGE offsets, BOOLEAN and computed arguments.
		"SELECT id, AVG(v) OVER (PARTITION BY g), AVG(v > 0) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING), " +
			"AVG(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), AVG(v % 7) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING), " +
			"AVG(v) OVER (ORDER BY id ROWS BETWEEN 100000 PRECEDING AND 100000 FOLLOWING) FROM w",
		// Host forms: text MIN/MAX, long moving DOUBLE frames.
		"SELECT id, MIN(s) OVER (PARTITION BY g), MAX(s) OVER (PARTITION BY g ORDER BY id) FROM w",
		"SELECT id, SUM(d) OVER (ORDER BY id ROWS BETWEEN 100000 PRECEDING AND 100000 FOLLOWING) FROM w",
		// Computed keys and arguments, booleans.
		"SELECT id, SUM(v % 1000) OVER (PARTITION BY g % 10 ORDER BY o DESC NULLS LAST, id), " +
			"BOOL_AND(v > 0) OVER (PARTITION BY g), BOOL_OR(d > 999000) OVER (PARTITION BY g ORDER BY id) FROM w",
		// Windows under filters and over aggregates.
		"SELECT g, SUM(v), RANK() OVER (ORDER BY SUM(v) DESC), SUM(COUNT(*)) OVER (ORDER BY g) FROM w WHERE d > 0 GROUP BY g",
	}
	for _, q := range queries {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q), "\n")
		if !(strings.Contains(plan, "(gpu: keys sorted on the") || strings.Contains(plan, "(gpu: partition aggregates hashed")) || !strings.Contains(plan, ") [gpu]") {
			t.Errorf("%s: the window is not on the GPU:\n%s", q, plan)
		}
		got, want := rowsOf(t, gpu, q), rowsOf(t, cpu, q)
		sort.Strings(got)
		sort.Strings(want)
		requireSameRows(t, q, got, want)
	}
}

// TestGPUWindowSumOverflow: a frame's BIGINT sum past the limit is the
// CPU's error on the GPU too, and a running sum that passes the limit and
// comes back is exact.
func TestGPUWindowSumOverflow(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	for _, db := range []*gsql.DB{cpu, gpu} {
		mustExec(t, db, "CREATE TABLE big (i BIGINT, x BIGINT)")
		mustExec(t, db, "INSERT INTO big VALUES (1, 9000000000000000000), (2, 9000000000000000000), (3, -9000000000000000000), (4, 5)")
	}
	q := "SELECT i, SUM(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM big"
	for _, db := range []*gsql.DB{cpu, gpu} {
		if err := queryErr(context.Background(), db, q); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: %v, want an out of range error", q, err)
		}
	}
	q = "SELECT i, SUM(x) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), AVG(x) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM big WHERE i > 1"
	if got, want := strings.Join(sortedRows(t, gpu, q), "\n"), strings.Join(sortedRows(t, cpu, q), "\n"); got != want {
		t.Errorf("%s:\nGPU %s\nCPU %s", q, got, want)
	}
}
