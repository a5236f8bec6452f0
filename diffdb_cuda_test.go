//go:build cuda

package gsql_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	gsql "github.com/gsqlengine/gsql"
)

// cpuAndGPU opens a CPU and a GPU database, each with table name over
// recs, closed when the test ends; the test is skipped without a GPU.
func cpuAndGPU(t *testing.T, name string, schema *arrow.Schema, recs []arrow.Record) (cpu, gpu *gsql.DB) {
	t.Helper()
	cpu = openTestDB(t, gsql.Options{Device: "cpu"})
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	for _, db := range []*gsql.DB{cpu, gpu} {
		if err := db.RegisterTable(name, schema, recs); err != nil {
			t.Fatal(err)
		}
	}
	return cpu, gpu
}

// requireSameRows reports rows of query q that differ between the GPU's
// answer and the CPU's (the first three, then how many).
func requireSameRows(t *testing.T, q string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows on the GPU, %d on the CPU", q, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			if bad < 3 {
				t.Errorf("%s: row %d: GPU %q, CPU %q", q, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d rows differ", q, bad, len(got))
	}
}
