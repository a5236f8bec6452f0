//go:build cuda

package gsql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/operators"
)

// TestGPUTopGroupsMatchCPU: GROUP BY under ORDER BY COUNT ... LIMIT keeps
// on the device all but the groups the LIMIT reads, and answers as the CPU
// does row for row, in order, ties included (the groups' counts tie a lot
// here: 1M rows in ~600K groups, most of them of one row). Bytes to the
// host must stay far below the groups' keys and states.
func TestGPUTopGroupsMatchCPU(t *testing.T) {
	schema, recs := windowRecords(1_000_000, 11)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	queries := []struct {
		sql string
		cut bool // the device should send only the top groups
	}{
		{"SELECT s, COUNT(*) AS c FROM w GROUP BY s ORDER BY c DESC LIMIT 10", true},
		{"SELECT s, o, COUNT(*) AS c, SUM(v), AVG(d) FROM w GROUP BY s, o ORDER BY c DESC LIMIT 10", true},
		{"SELECT o, s, COUNT(*) FROM w GROUP BY o, s ORDER BY COUNT(*) LIMIT 25", true},
		{"SELECT s, COUNT(v) AS c, MIN(v) FROM w GROUP BY s ORDER BY c DESC LIMIT 7 OFFSET 5", true},
		{"SELECT g, COUNT(*) AS c FROM w GROUP BY g ORDER BY c DESC LIMIT 3", true},
		// A LIMIT without ORDER BY: the first groups, each counted whole.
		{"SELECT s, o, COUNT(*), SUM(v) FROM w GROUP BY s, o LIMIT 10", true},
		// COUNT(DISTINCT) beside the ordering COUNT: the plain aggregates'
		// groups are cut; every group's distinct count still comes back.
		{"SELECT s, COUNT(*) AS c, COUNT(DISTINCT v), MIN(o) FROM w GROUP BY s ORDER BY c DESC LIMIT 10", false},
		{"SELECT o, s, COUNT(DISTINCT g), COUNT(*) FROM w GROUP BY o, s LIMIT 10", false},
		// Quantiles run over every group: no cut, same answers.
		{"SELECT s, COUNT(*) AS c, MEDIAN(d) FROM w GROUP BY s ORDER BY c DESC LIMIT 10", false},
		{"SELECT 1, s, COUNT(*) AS c FROM w WHERE d > 0 GROUP BY 1, s ORDER BY c DESC LIMIT 10", true},
		// A second sort key keeps the first one's ties; a SUM orders
		// as a COUNT does (TestGPUTopGroupsAnyTerm has the others).
		{"SELECT s, COUNT(*) AS c FROM w GROUP BY s ORDER BY c DESC, s LIMIT 10", false},
		{"SELECT s, SUM(v) AS t FROM w GROUP BY s ORDER BY t DESC LIMIT 10", true},
		// Not cut: HAVING between them.
		{"SELECT s, COUNT(*) AS c FROM w GROUP BY s HAVING COUNT(*) > 1 ORDER BY c DESC LIMIT 10", false},
	}
	moved := func(q string) uint64 {
		before := gpu.Stats().GPU.BytesToHost
		rowsOf(t, gpu, q)
		return gpu.Stats().GPU.BytesToHost - before
	}
	for _, q := range queries {
		got, want := rowsOf(t, gpu, q.sql), rowsOf(t, cpu, q.sql)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nGPU %s\nCPU %s", q.sql, fmt.Sprint(got), fmt.Sprint(want))
		}
		if !q.cut {
			continue
		}
		// The cut query moves the picked groups alone, not every group.
		cut, all := moved(q.sql), moved(allGroups(q.sql))
		if float64(cut) > 0.7*float64(all) {
			t.Errorf("%s: %d bytes came to the host, %d without the cut", q.sql, cut, all)
		}
		t.Logf("%s: %d bytes to the host, %d without the cut", q.sql, cut, all)
	}
}

// TestGPUManyRowGroupsMatchCPU: a resident table of several row groups
// (device batches), as ClickBench's hits is at 100M rows, answers as the
// CPU does: COUNT(DISTINCT) without GROUP BY concatenates the groups on
// the device, GROUP BYs group them together, top groups still apply.
func TestGPUManyRowGroupsMatchCPU(t *testing.T) {
	defer func(n int) { operators.DeviceBatchRows = n }(operators.DeviceBatchRows)
	operators.DeviceBatchRows = 300_000 // 1M rows in records of 100,000: 4 row groups
	schema, recs := windowRecords(1_000_000, 12)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	for _, q := range []string{
		"SELECT COUNT(DISTINCT s) FROM w",
		"SELECT COUNT(DISTINCT v), COUNT(*), COUNT(DISTINCT g) FROM w",
		"SELECT COUNT(DISTINCT o) FROM w WHERE d > 0",
		"SELECT g, COUNT(*), SUM(v), COUNT(DISTINCT o) FROM w GROUP BY g ORDER BY g",
		"SELECT s, COUNT(*) AS c FROM w GROUP BY s ORDER BY c DESC LIMIT 10",
		"SELECT id, s FROM w ORDER BY id DESC LIMIT 5",
	} {
		got, want := rowsOf(t, gpu, q), rowsOf(t, cpu, q)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nGPU %v\nCPU %v", q, got, want)
		}
	}
	if st := gpu.Stats().Cache; st == nil || st.Batches < 4 {
		t.Errorf("the table was not resident in row groups: %+v", st)
	}
}

// TestGPUPartitionedGroupByMatchesCPU: a GROUP BY over row groups too
// large together to concatenate (the limit made tiny) groups by hash
// partition on the device; the answers, their order (first appearance,
// which breaks the ties of ORDER BY COUNT(*) ... LIMIT) and the top-groups
// cut are the CPU's.
func TestGPUPartitionedGroupByMatchesCPU(t *testing.T) {
	defer func(n, c int) { operators.DeviceBatchRows, operators.AggConcatBytes = n, c }(operators.DeviceBatchRows, operators.AggConcatBytes)
	operators.DeviceBatchRows = 300_000 // 1M rows in records of 100,000: 4 row groups
	operators.AggConcatBytes = 1 << 20
	schema, recs := windowRecords(1_000_000, 13)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	for _, q := range []string{
		"SELECT s, COUNT(*) AS c FROM w GROUP BY s ORDER BY c DESC LIMIT 10",
		"SELECT o, COUNT(*) AS c FROM w GROUP BY o ORDER BY c LIMIT 5",
		"SELECT s, COUNT(s) AS c FROM w WHERE v > 0 GROUP BY s ORDER BY c DESC LIMIT 25",
		"SELECT g, o, COUNT(*) FROM w GROUP BY g, o LIMIT 7",
		"SELECT g, COUNT(*), SUM(v), AVG(d), MIN(s), MAX(s), COUNT(o), MIN(v), MAX(d) FROM w GROUP BY g ORDER BY g",
		"SELECT g, o, COUNT(*) AS c, SUM(v) FROM w GROUP BY g, o ORDER BY c DESC, g, o LIMIT 20",
		"SELECT s, g, COUNT(*) FROM w WHERE o < 3 GROUP BY s, g ORDER BY 3 DESC, 1, 2 LIMIT 30",
		"SELECT g, MEDIAN(v), COUNT(*) FROM w GROUP BY g ORDER BY g",
	} {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
	// Every group in first-appearance order: the whole output, unsorted.
	q := "SELECT o, g, COUNT(*), SUM(v) FROM w GROUP BY o, g"
	requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE SELECT s, COUNT(*) AS c FROM w GROUP BY s ORDER BY c DESC LIMIT 10"), "\n")
	if !strings.Contains(plan, "hash_partitions=") {
		t.Errorf("the GROUP BY did not group by partition:\n%s", plan)
	}
}

// TestGPUOrderByLimitMatchesCPU: ORDER BY ... LIMIT on the GPU, where the
// device narrows the rows to candidates by the first key's order key
// (gpuexec.TopCandidates), gives the CPU's rows in the CPU's order: BIGINT
// and VARCHAR first keys, both directions, many ties on the first key
// (broken by a second key or by row order), strings sharing their first
// 8 bytes (no narrowing), and NULL keys (sorted on the host).
func TestGPUOrderByLimitMatchesCPU(t *testing.T) {
	schema, recs := windowRecords(1_000_000, 14)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	for _, q := range []string{
		"SELECT id, s FROM w WHERE s IS NOT NULL ORDER BY s LIMIT 10",
		"SELECT id, s, v FROM w WHERE s IS NOT NULL ORDER BY s DESC, id LIMIT 25",
		"SELECT id, v FROM w WHERE v IS NOT NULL ORDER BY v DESC LIMIT 12",
		"SELECT g, id, d FROM w WHERE g IS NOT NULL ORDER BY g, d DESC LIMIT 40",
		"SELECT g, id FROM w WHERE g IS NOT NULL ORDER BY g DESC LIMIT 1500",
		"SELECT id, CONCAT('a-common-prefix ', s) AS t FROM w WHERE s IS NOT NULL ORDER BY t LIMIT 10",
		"SELECT id, s FROM w ORDER BY s DESC LIMIT 10",
		"SELECT id, o FROM w ORDER BY o, id DESC LIMIT 15",
		"SELECT id FROM w WHERE d > 0 ORDER BY id DESC LIMIT 5 OFFSET 3",
	} {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
}
