//go:build cuda

package gsql_test

import (
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql"
)

// TestGPUWarningsValues: the expressions that warn on the CPU (a zero
// divisor, text that is no number or date, an interval past 9999) give
// the same values on the GPU. GPU kernels report no warnings (README,
// departures): the GPU's count is 0 or, should a device path report
// them, the CPU's.
func TestGPUWarningsValues(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	setup := []string{
		`CREATE TABLE wq (g BIGINT, s VARCHAR, d DATE)`,
		`INSERT INTO wq VALUES (1, '12abc', DATE '9999-12-31'), (7, '2023-02-30', DATE '2024-02-29'), (14, ' 5 ', NULL)`,
	}
	for i := 0; i < 15; i++ {
		setup = append(setup, `INSERT INTO wq SELECT g + 3 * (SELECT COUNT(*) FROM wq), s, d FROM wq`)
	}
	for _, db := range []*gsql.DB{gpu, cpu} {
		for _, q := range setup {
			mustExec(t, db, q)
		}
	}
	for _, q := range []string{
		`SELECT COUNT(*), SUM(CASE WHEN 100 DIV (g % 7) IS NULL THEN 1 ELSE 0 END) FROM wq`,
		`SELECT COUNT(*), SUM(CASE WHEN 100 / (g % 7) IS NULL THEN 1 ELSE 0 END) FROM wq`,
		`SELECT SUM(s + 0), COUNT(CAST(s AS DATE)) FROM wq`,
		`SELECT COUNT(d + INTERVAL 1 DAY), COUNT(d) FROM wq`,
	} {
		want := rowsOf(t, cpu, q)
		cpuCount := cpu.WarningCount()
		got := rowsOf(t, gpu, q)
		gpuCount := gpu.WarningCount()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: GPU %v, CPU %v", q, got, want)
		}
		if gpuCount != 0 && gpuCount != cpuCount {
			t.Errorf("%s: GPU gave %d warnings, CPU %d", q, gpuCount, cpuCount)
		}
		t.Logf("%s: warnings CPU %d, GPU %d", q, cpuCount, gpuCount)
	}
}
