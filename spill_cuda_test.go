//go:build cuda

package gsql_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestGPUGroupBySpills: on the GPU, a GROUP BY whose merged groups are
// many times MemoryLimit runs again on the host, spilling by key, and a
// join past it answers too; both equal the CPU backend's answers and no
// spill file stays behind.
func TestGPUGroupBySpills(t *testing.T) {
	tmp := t.TempDir()
	db, err := gsql.Open(gsql.Options{Device: "gpu", MemoryLimit: 1 << 20, TempDir: tmp})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	// The tables are made on the CPU (CAST to VARCHAR has no GPU form).
	if err := db.SetDevice("cpu"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*gsql.DB{db, cpu} {
		sequence(t, d, 17)
		mustExec(t, d, `CREATE TABLE t AS SELECT g AS id, g % 1000 AS k, CONCAT('n', CAST(g % 50021 AS VARCHAR)) AS name FROM seq`)
	}
	if err := db.SetDevice("gpu"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SELECT id, COUNT(*), SUM(k), MAX(name) FROM t GROUP BY id ORDER BY id`,
		`SELECT name, COUNT(*), MIN(id) FROM t GROUP BY name ORDER BY name`,
		`SELECT COUNT(*), SUM(a.k + b.k) FROM t AS a JOIN t AS b ON a.name = b.name`,
	} {
		got, want := rowsOf(t, db, q), rowsOf(t, cpu, q)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: GPU %d rows, CPU %d; first %q, %q", q, len(got), len(want), firstRow(got), firstRow(want))
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Fatalf("%s: left behind %v", q, entries)
		}
	}
	plan := strings.Join(rowsOf(t, db, `EXPLAIN ANALYZE SELECT id, COUNT(*) FROM t GROUP BY id`), "\n")
	t.Logf("%s", plan)
	if !strings.Contains(plan, "spilled_partitions=") {
		t.Fatalf("no spill in\n%s", plan)
	}
}
