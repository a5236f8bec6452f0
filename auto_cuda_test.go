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
