//go:build cuda

package gsql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestAutoKeepsTinyQueriesOnTheCPU: with device auto, a query over a few
// rows runs on the CPU and EXPLAIN says why; one over many rows goes to
// the GPU; AutoGPUMinRows moves the line.
func TestAutoKeepsTinyQueriesOnTheCPU(t *testing.T) {
	for _, tc := range []struct {
		min       int64
		tinyOnGPU bool
	}{{0, false}, {-1, true}} {
		db, err := gsql.Open(gsql.Options{Device: "auto", AutoGPUMinRows: tc.min})
		if err != nil || db.Device() != "gpu" {
			t.Skipf("no GPU: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.WaitGPU(context.Background()); err != nil {
			t.Fatal(err)
		}
		sequence(t, db, 18) // 262,144 rows
		mustExec(t, db, `CREATE TABLE tiny AS SELECT g FROM seq WHERE g <= 10`)
		tiny := strings.Join(rowsOf(t, db, `EXPLAIN SELECT g * 2 FROM tiny WHERE g > 3`), "\n")
		if onGPU := strings.Contains(tiny, "[gpu]"); onGPU != tc.tinyOnGPU {
			t.Errorf("AutoGPUMinRows %d: tiny query on the GPU %v:\n%s", tc.min, onGPU, tiny)
		}
		if !tc.tinyOnGPU && !strings.Contains(tiny, "[cpu: auto: the query reads 10 rows, under the 100000") {
			t.Errorf("no reason for the CPU:\n%s", tiny)
		}
		big := strings.Join(rowsOf(t, db, `EXPLAIN SELECT g * 2 FROM seq WHERE g > 3`), "\n")
		if !strings.Contains(big, "[gpu]") {
			t.Errorf("query over 262144 rows not on the GPU:\n%s", big)
		}
		if got := rowsOf(t, db, `SELECT SUM(g * 2) FROM tiny WHERE g > 3`); got[0] != "98" {
			t.Errorf("tiny answer %v", got)
		}
	}
}

// TestAutoFragmentsByCost: over a large table joined with a filtered
// 10-row one, auto runs the small side on the CPU and uploads its rows
// for the device join (place_by_cost), EXPLAIN says so with the
// estimates, and the answer is the CPU backend's; with the rule off the
// small side's filter runs on the GPU and the answer is the same. A join
// of a device GROUP BY's ten groups with the small table runs on the
// CPU, with the same answer as the CPU backend's.
func TestAutoFragmentsByCost(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "auto"})
	if err != nil || db.Device() != "gpu" {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	if err := db.WaitGPU(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*gsql.DB{db, cpu} {
		sequence(t, d, 18) // 262,144 rows
		mustExec(t, d, `CREATE TABLE tiny AS SELECT g AS id, g % 3 AS kind FROM seq WHERE g <= 10`)
		mustExec(t, d, `CREATE TABLE fact AS SELECT g, g % 10 AS d FROM seq`)
	}
	// A join of the fact table's ten groups with tiny runs on the CPU
	// over the device GROUP BY's groups.
	const groups = `SELECT tiny.id, g.n, g.s FROM (SELECT d, COUNT(*) AS n, SUM(g) AS s FROM fact GROUP BY d) g JOIN tiny ON g.d = tiny.id ORDER BY tiny.id`
	gplan := strings.Join(rowsOf(t, db, "EXPLAIN "+groups), "\n")
	for _, s := range []string{"[cpu: auto, at most ", "(hash table on the gpu, groups merged on the host)"} {
		if !strings.Contains(gplan, s) {
			t.Errorf("want %q in:\n%s", s, gplan)
		}
	}
	if got, want := rowsOf(t, db, groups), rowsOf(t, cpu, groups); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("join over the groups: auto %v, CPU backend %v", got, want)
	}
	const q = `SELECT COUNT(*), SUM(seq.g) FROM seq JOIN tiny ON seq.g % 16 = tiny.id WHERE tiny.kind = 1`
	want := rowsOf(t, cpu, q)
	plan := strings.Join(rowsOf(t, db, "EXPLAIN "+q), "\n")
	for _, s := range []string{"HostToDevice", "Filter (kind = 1) [cpu: auto, est 3 rows from 10 rows scanned", "[gpu: auto, est ", "place_by_cost"} {
		if !strings.Contains(plan, s) {
			t.Errorf("want %q in:\n%s", s, plan)
		}
	}
	if got := rowsOf(t, db, q); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("auto %v, CPU backend %v", got, want)
	}
	s := db.Session()
	if _, err := s.Exec(context.Background(), "SET disabled_rules = 'place_by_cost'"); err != nil {
		t.Fatal(err)
	}
	if got := rowsIn(t, s, q); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("place_by_cost off: %v, CPU backend %v", got, want)
	}
	off := strings.Join(explainIn(t, s, "EXPLAIN "+q), "\n")
	if strings.Contains(off, "auto, est") || !strings.Contains(off, "Filter (kind = 1) (fused kernel) [gpu]") {
		t.Errorf("place_by_cost off:\n%s", off)
	}
}
