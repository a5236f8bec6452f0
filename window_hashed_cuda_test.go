//go:build cuda

package gsql_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// TestGPUWindowHashedMatchesCPU: aggregates over whole partitions run
// hashed on the device (EXPLAIN says so) and equal the CPU backend's
// rows: NULL partition keys, computed, text and DOUBLE keys (-0.0 beside
// 0.0), ORDER BY with a whole-partition frame, no partition key, BOOLEAN
// sums. DOUBLE arguments are integral, so sums are exact in any order.
func TestGPUWindowHashedMatchesCPU(t *testing.T) {
	schema, recs := windowRecords(1_000_000, 8)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	whole := "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
	queries := []string{
		"SELECT id, COUNT(*) OVER (PARTITION BY g), COUNT(v) OVER (PARTITION BY g), SUM(v) OVER (PARTITION BY g), " +
			"AVG(v) OVER (PARTITION BY g), MIN(v) OVER (PARTITION BY g), MAX(v) OVER (PARTITION BY g) FROM w",
		"SELECT id, SUM(d) OVER (PARTITION BY g), AVG(d) OVER (PARTITION BY g), MIN(d) OVER (PARTITION BY g), " +
			"MAX(d) OVER (PARTITION BY g), COUNT(s) OVER (PARTITION BY g) FROM w",
		"SELECT id, COUNT(*) OVER (PARTITION BY g % 7, s), SUM(v) OVER (PARTITION BY g % 7, s) FROM w",
		"SELECT id, COUNT(*) OVER (PARTITION BY d % 3), MAX(v) OVER (PARTITION BY d % 3) FROM w",
		"SELECT id, COUNT(*) OVER (PARTITION BY g ORDER BY o " + whole + "), SUM(v) OVER (PARTITION BY g ORDER BY o " + whole + ") FROM w",
		"SELECT id, SUM(v) OVER (ORDER BY id " + whole + "), MIN(v) OVER (ORDER BY id " + whole + ") FROM w",
		"SELECT id, SUM(v > 0) OVER (PARTITION BY g), AVG(v < 0) OVER (PARTITION BY g) FROM w",
		"SELECT g, SUM(v), COUNT(*) OVER (PARTITION BY g % 10), SUM(SUM(v)) OVER (PARTITION BY g % 10) FROM w GROUP BY g",
	}
	for _, q := range queries {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q), "\n")
		if !strings.Contains(plan, "(gpu: partition aggregates hashed) [gpu]") {
			t.Errorf("%s: the window is not hashed on the GPU:\n%s", q, plan)
		}
		got, want := rowsOf(t, gpu, q), rowsOf(t, cpu, q)
		sort.Strings(got)
		sort.Strings(want)
		requireSameRows(t, q, got, want)
	}
}

// TestGPUWindowHashedOverflow: a partition's BIGINT sum past the limit is
// the CPU's error on the GPU too (the device falls back to the exact host
// path); AVG of the same values is exact.
func TestGPUWindowHashedOverflow(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	for _, db := range []*gsql.DB{cpu, gpu} {
		mustExec(t, db, "CREATE TABLE big (k BIGINT, x BIGINT)")
		mustExec(t, db, "INSERT INTO big VALUES (1, 9000000000000000000), (1, 9000000000000000000), (2, -5), (2, 7), (NULL, 1)")
	}
	q := "SELECT k, SUM(x) OVER (PARTITION BY k) FROM big"
	for _, db := range []*gsql.DB{cpu, gpu} {
		if err := queryErr(context.Background(), db, q); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: %v, want an out of range error", q, err)
		}
	}
	q = "SELECT k, x, AVG(x) OVER (PARTITION BY k), COUNT(*) OVER (PARTITION BY k), SUM(x) OVER (PARTITION BY k < 2) FROM big WHERE x < 100"
	if got, want := strings.Join(sortedRows(t, gpu, q), "\n"), strings.Join(sortedRows(t, cpu, q), "\n"); got != want {
		t.Errorf("%s:\nGPU %s\nCPU %s", q, got, want)
	}
}
