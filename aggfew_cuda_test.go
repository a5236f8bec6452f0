//go:build cuda

package gsql_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/operators"
)

// TestGPUFewGroupsBatchesMatchCPU: a GROUP BY over row groups too large
// together to concatenate (the limit made tiny) groups batches with few
// groups for their rows one by one, merging their partials on the host
// (batch_partials), batches with many by hash partition
// (hash_partitions), and input that turns from few to many both ways; the
// answers and their order (first appearance) are the CPU's.
func TestGPUFewGroupsBatchesMatchCPU(t *testing.T) {
	defer func(n, c, f, p int) {
		operators.DeviceBatchRows, operators.AggConcatBytes, operators.AggFewRows, operators.AggProbeRows = n, c, f, p
	}(operators.DeviceBatchRows, operators.AggConcatBytes, operators.AggFewRows, operators.AggProbeRows)
	operators.DeviceBatchRows = 300_000 // 1M rows in records of 100,000: 4 row groups
	operators.AggConcatBytes = 1 << 20
	operators.AggFewRows = 256 // few: at most 1,171 groups a row group (g has 1,001)
	schema, recs := windowRecords(1_000_000, 21)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	const (
		few  = "SELECT g, COUNT(*), SUM(v), MIN(s), MAX(d), AVG(d), COUNT(o) FROM w GROUP BY g"
		many = "SELECT s, COUNT(*), SUM(v), MAX(d) FROM w GROUP BY s"
		// TPC-H Q1's shape: two keys of few values, many aggregates.
		q1    = "SELECT o % 3, g % 2, COUNT(*), SUM(v), AVG(d), MIN(v), MAX(d), COUNT(s), MIN(s), MAX(s) FROM w GROUP BY o % 3, g % 2 ORDER BY 1, 2"
		mixed = "SELECT CASE WHEN id < 600000 THEN g ELSE id END AS k, COUNT(*), SUM(v) FROM w GROUP BY CASE WHEN id < 600000 THEN g ELSE id END"
	)
	queries := []string{
		few, many, mixed, q1,
		"SELECT g % 10, COUNT(*), SUM(v) FROM w WHERE v > 0 GROUP BY g % 10",
		// A top-groups cut over partial groups: none on the device.
		"SELECT g, COUNT(*) AS c FROM w GROUP BY g ORDER BY c DESC, g LIMIT 5",
		"SELECT g, SUM(v) AS t FROM w GROUP BY g ORDER BY t DESC LIMIT 7",
		// Read by a device operator above.
		"SELECT g, c FROM (SELECT g, COUNT(*) AS c FROM w GROUP BY g) x WHERE c > 900 ORDER BY g",
		// Paths beside it: quantiles, DISTINCT.
		"SELECT g % 4, MEDIAN(v), COUNT(*) FROM w GROUP BY g % 4 ORDER BY 1",
		"SELECT g % 4, COUNT(DISTINCT o), SUM(v) FROM w GROUP BY g % 4 ORDER BY 1",
		"SELECT o, g, COUNT(*), SUM(v), MAX(d) FROM w GROUP BY o, g",
	}
	for _, q := range queries {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
	for _, c := range []struct {
		q         string
		want, not []string
	}{
		{few, []string{"batch_partials=4"}, []string{"hash_partitions="}},
		{many, []string{"hash_partitions="}, []string{"batch_partials="}},
		// Rows below 600,000 (two row groups) have few groups, the rest many.
		{mixed, []string{"batch_partials=2", "hash_partitions="}, nil},
		{q1, []string{"batch_partials=4"}, []string{"hash_partitions="}},
	} {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+c.q), "\n")
		for _, w := range c.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: no %s:\n%s", c.q, w, plan)
			}
		}
		for _, n := range c.not {
			if strings.Contains(plan, n) {
				t.Errorf("%s: %s:\n%s", c.q, n, plan)
			}
		}
	}
	// The first batch probed by its first 50,000 rows (the rest of it
	// grouped as a piece of its own, or with the others by partition:
	// for split, few groups in those rows and many in the rest of it).
	operators.AggProbeRows = 50_000
	const split = "SELECT CASE WHEN id < 100000 THEN g ELSE id END AS k, COUNT(*), SUM(v), MIN(s) FROM w GROUP BY CASE WHEN id < 100000 THEN g ELSE id END"
	for _, q := range append(queries, split) {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
	for _, c := range []struct{ q, want string }{{q1, "batch_partials=4"}, {split, "hash_partitions="}} {
		if plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+c.q), "\n"); !strings.Contains(plan, c.want) {
			t.Errorf("%s, probed by 50,000 rows: no %s:\n%s", c.q, c.want, plan)
		}
	}
}
