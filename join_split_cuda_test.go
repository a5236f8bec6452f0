//go:build cuda

package gsql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestGPUJoinProbeSplits: joins whose output is far larger than one probe
// may hold under a small device pool (a skewed key: each probe row meets
// thousands of build rows) answer as the CPU does, the probe batches cut
// into row slices (probe_splits in EXPLAIN ANALYZE): an inner join, one
// that hashes its small left side, and semi and anti joins whose residual
// condition is evaluated over every pair (a correlated EXISTS, with a
// residual that semi_join_bounds cannot turn into per-key bounds).
func TestGPUJoinProbeSplits(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: 64 << 20})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	setup := []string{
		`CREATE TABLE pa (k BIGINT, id BIGINT, v BIGINT)`,
		`CREATE TABLE pb (k BIGINT, id BIGINT, v BIGINT)`,
		`INSERT INTO pa VALUES (0, 0, 0), (1, 1, 37), (2, 2, 74), (3, 3, 10), (4, 4, 47), (5, 5, 84), (6, 6, 20), (7, 7, 57), (8, 8, 94), (9, 9, 30)`,
		`INSERT INTO pb SELECT * FROM pa`,
		// NULL values and keys, spread by the doubling below, so that the
		// probe's slices carry validity bitmaps.
		`INSERT INTO pa VALUES (NULL, 10, 5), (4, 11, NULL), (7, 12, NULL)`,
	}
	// pa doubles to 6,656 rows, pb to 20,480 (ids go on counting; pb's
	// keys are 7 id mod 10; pa's NULL values stay NULL).
	for i := 0; i < 11; i++ {
		if i < 9 {
			setup = append(setup, `INSERT INTO pa SELECT CASE WHEN k IS NULL THEN NULL ELSE (id + (SELECT COUNT(*) FROM pa)) % 10 END, id + (SELECT COUNT(*) FROM pa), CASE WHEN v IS NULL THEN NULL ELSE ((id + (SELECT COUNT(*) FROM pa)) * 37) % 101 END FROM pa`)
		}
		setup = append(setup, `INSERT INTO pb SELECT ((id + (SELECT COUNT(*) FROM pb)) * 7) % 10, id + (SELECT COUNT(*) FROM pb), ((id + (SELECT COUNT(*) FROM pb)) * 53) % 97 FROM pb`)
	}
	for _, db := range []*gsql.DB{gpu, cpu} {
		for _, q := range setup {
			mustExec(t, db, q)
		}
	}
	for _, q := range []string{
		`SELECT COUNT(*), SUM(pa.v * pb.v), MIN(pa.id - pb.id) FROM pa JOIN pb ON pa.k = pb.k`,
		`SELECT pa.k, COUNT(*), SUM(pb.v) FROM (SELECT * FROM pa WHERE id < 300) pa JOIN pb ON pa.k = pb.k GROUP BY pa.k ORDER BY pa.k`,
		`SELECT COUNT(*), SUM(v) FROM pa WHERE EXISTS (SELECT 1 FROM pb WHERE pb.k = pa.k AND pb.v + pa.v > 180)`,
		`SELECT COUNT(*), SUM(v) FROM pa WHERE NOT EXISTS (SELECT 1 FROM pb WHERE pb.k = pa.k AND pb.v + pa.v > 180)`,
	} {
		want := rowsOf(t, cpu, q)
		if got := rowsOf(t, gpu, q); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: GPU %v, CPU %v", q, got, want)
		}
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q), "\n")
		if !strings.Contains(plan, "probe_splits=") {
			t.Errorf("%s: no probe split in\n%s", q, plan)
		}
	}
}
