package gsql_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
)

// peakOf returns the peak_host_bytes of the first EXPLAIN ANALYZE line
// that starts with op (an operator's name): -1 when no line is op's, 0
// when op's line shows none.
func peakOf(plan []string, op string) int64 {
	re := regexp.MustCompile(`\speak_host_bytes=(\d+)`)
	for _, line := range plan {
		if !strings.HasPrefix(strings.TrimSpace(line), op+" ") {
			continue
		}
		m := re.FindStringSubmatch(line)
		if m == nil {
			return 0
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	return -1
}

// TestExplainAnalyzePeakHostBytes: the operators that hold state show the
// most host memory they held (a GROUP BY over many groups its hash table,
// a sort or a window its buffered rows, a join its hashed side, a shared
// CTE its result); streaming operators (filters, projections, scans)
// hold none and show none.
func TestExplainAnalyzePeakHostBytes(t *testing.T) {
	const rows = 1 << 17
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	sequence(t, db, 17)
	mustExec(t, db, `CREATE TABLE t AS SELECT g, g % 100 AS m, CONCAT('name', g % 1000) AS s FROM seq`)
	tests := []struct {
		name, q string
		op      string
		min     int64 // the least peak the operator must show; 0: none
	}{
		// A group costs its key, its entry and its accumulators.
		{"group by many groups", `SELECT g, COUNT(*) FROM t GROUP BY g`, "HashAggregate", rows * 64},
		{"group by few groups", `SELECT m, COUNT(*) FROM t GROUP BY m`, "HashAggregate", 100 * 8},
		{"filter", `SELECT g FROM t WHERE m = 3`, "Filter", 0},
		{"projection", `SELECT g + 1 FROM t`, "Project", 0},
		{"sort", `SELECT g FROM t ORDER BY s, g`, "Sort", rows * (8 + 8)},
		{"join", `SELECT COUNT(*) FROM t AS a JOIN t AS b ON a.g = b.g`, "Inner HashJoin", rows * 8},
		{"distinct, as a GROUP BY", `SELECT DISTINCT s FROM t`, "HashAggregate", 1000 * 64},
		{"window", `SELECT g, SUM(m) OVER (PARTITION BY s ORDER BY g) FROM t`, "Window", rows * 8},
		// The result, and the rows seen (UNION).
		{"recursive CTE", `WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 1000) SELECT COUNT(*) FROM r`, "RecursiveCTE", 1000 * (8 + 48)},
		{"shared CTE", `WITH c AS (SELECT g, COUNT(*) AS n FROM t WHERE m < 50 GROUP BY g) SELECT COUNT(*) FROM c AS x JOIN c AS y ON x.g = y.g`, "CTE", rows / 2 * 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := rowsOf(t, db, "EXPLAIN ANALYZE "+tc.q)
			got := peakOf(plan, tc.op)
			text := strings.Join(plan, "\n")
			switch {
			case got < 0:
				t.Fatalf("no %s in\n%s", tc.op, text)
			case tc.min == 0 && strings.Contains(text, "peak_host_bytes="):
				t.Fatalf("a streaming plan shows host bytes:\n%s", text)
			case got < tc.min:
				t.Fatalf("%s peak_host_bytes=%d, want at least %d:\n%s", tc.op, got, tc.min, text)
			}
		})
	}
	// A GROUP BY past the memory limit spills: its write buffers (1 MiB
	// for each partition file being written) count.
	limited := openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 256 << 10, TempDir: t.TempDir()})
	sequence(t, limited, 17)
	plan := rowsOf(t, limited, `EXPLAIN ANALYZE SELECT g, COUNT(*) FROM seq GROUP BY g`)
	if got := peakOf(plan, "HashAggregate"); got < 1<<20 {
		t.Fatalf("spilled GROUP BY peak_host_bytes=%d, want at least a write buffer:\n%s", got, strings.Join(plan, "\n"))
	}
}
