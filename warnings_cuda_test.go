//go:build cuda

package gsql_test

import (
	"fmt"
	"sort"
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
		// Text that is no date compares as the zero date (expr/cmpdate.go).
		`SELECT SUM(CASE WHEN d > s THEN 1 ELSE 0 END), SUM(CASE WHEN d <> s THEN 1 ELSE 0 END), COUNT(d = s) FROM wq`,
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

// TestGPUWarningsMatchCPU: a strict GPU plan's projections and filters
// give the CPU's warnings for the rows a device kernel makes NULL (text
// that is no date, a zero divisor, an interval past 9999) or where a
// comparison read text that is no date as the zero date: the count and
// the kept list (the first rows' texts) equal the CPU's, and the batches
// that warned were evaluated on the host for their warnings
// (operators/device_warn.go). Each query has one warning-giving
// expression, so that the order is the rows' on both.
func TestGPUWarningsMatchCPU(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	setup := []string{
		`CREATE TABLE wm (g BIGINT, s VARCHAR, d DATE)`,
		`INSERT INTO wm VALUES (1, '2024-01-05', DATE '9999-12-31'), (7, '2023-02-30', DATE '2024-02-29'), (14, 'abc', NULL), (21, NULL, DATE '2024-01-05')`,
	}
	for i := 0; i < 14; i++ {
		setup = append(setup, `INSERT INTO wm SELECT g + 4 * (SELECT COUNT(*) FROM wm), s, d FROM wm`)
	}
	for _, db := range []*gsql.DB{gpu, cpu} {
		for _, q := range setup {
			mustExec(t, db, q)
		}
	}
	for _, q := range []string{
		`SELECT g, CAST(s AS DATE) FROM wm ORDER BY g`,
		`SELECT g FROM wm WHERE DATE(s) IS NULL ORDER BY g`,
		`SELECT g, 100 DIV (g % 7) FROM wm ORDER BY g`,
		`SELECT g, d + INTERVAL 1 DAY FROM wm ORDER BY g`,
		`SELECT g FROM wm WHERE 100 / (g % 7) > 10 ORDER BY g`,
		// A comparison's text that is no date: the zero date, not NULL;
		// the probe finds those rows (expr/cmpdate.go).
		`SELECT g, d <> s FROM wm ORDER BY g`,
		`SELECT g FROM wm WHERE s < d ORDER BY g`,
		`SELECT g, s FROM wm ORDER BY g`, // no warnings
	} {
		want := rowsOf(t, cpu, q)
		cpuCount, cpuList := cpu.WarningCount(), warningText(cpu.Warnings())
		got := rowsOf(t, gpu, q)
		gpuCount, gpuList := gpu.WarningCount(), warningText(gpu.Warnings())
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: GPU and CPU rows differ", q)
		}
		if gpuCount != cpuCount {
			t.Errorf("%s: GPU gave %d warnings, CPU %d", q, gpuCount, cpuCount)
		}
		if fmt.Sprint(distinct(gpuList)) != fmt.Sprint(distinct(cpuList)) {
			t.Errorf("%s: GPU warnings\n%q\nCPU warnings\n%q", q, gpuList, cpuList)
		}
		t.Logf("%s: %d warnings", q, cpuCount)
	}
}

// distinct is the sorted set of ws.
func distinct(ws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}
