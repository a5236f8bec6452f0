//go:build cuda

package gsql_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

// TestGPUTimeFormatsMatchCPU runs TIME_FORMAT (TIMEs past 24 hours and
// negative, timestamps, per-row formats, date specifiers), CAST AS TIME(n)
// and TIME literals, STR_TO_DATE of a day (0 included) and times, text
// with trailing characters read as dates and MICROSECOND of TIME text
// over 1M rows (tzTable's) on a strict-GPU database, and compares every
// row with the CPU backend (sorted).
func TestGPUTimeFormatsMatchCPU(t *testing.T) {
	schema, rec := tzTable(1_000_000, 39)
	defer rec.Release()
	cpu, gpu := cpuAndGPU(t, "tzt", schema, []arrow.Record{rec})
	queries := []string{
		"SELECT TIME_FORMAT(s, '%H %k %h %I %l %i %S %f %p %r %T'), TIME_FORMAT(ts, '%r %f'), TIME_FORMAT(d, '%T'), TIME_FORMAT(s, off) FROM tzt",
		"SELECT TIME_FORMAT(SEC_TO_TIME(TIME_TO_SEC(s) * 100), '%H:%i:%s.%f %p'), TIME_FORMAT(s, '%Y-%m-%d %c %e %y'), TIME_FORMAT(s, '%j'), TIME_FORMAT(s, '') FROM tzt",
		"SELECT CAST(s AS TIME), CAST(s AS TIME(3)), CAST(ts AS TIME(6)), CAST(d AS TIME), CAST(SEC_TO_TIME(TIME_TO_SEC(s) * 10 + 0.5) AS TIME(1)), TIME '-1 02:03:04.50' FROM tzt",
		"SELECT STR_TO_DATE(CONCAT(DAY(ts) % 3, ' ', DATE_FORMAT(ts, '%H:%i:%s.%f')), '%d %T.%f'), STR_TO_DATE(DATE_FORMAT(ts, '%e %h %p'), '%e %h %p'), MICROSECOND(s) FROM tzt",
		"SELECT CAST(CONCAT(s, 'x') AS DATE), CAST(CONCAT(ts, ' abc') AS DATETIME(6)), d = CONCAT(d, 'x'), ts < CONCAT(s, ' -- z'), DATE(CONCAT(s, off)) FROM tzt",
		"SELECT COUNT(*) FROM tzt WHERE TIME_FORMAT(ts, '%p') = 'PM' AND CAST(s AS TIME) > '10:00:00'",
		// TIME(x) (a plain TIMESTAMP's digits per value), EXTRACT of a
		// time's units from text, numbers and digit-only text as dates.
		"SELECT CAST(DAY(ts) * 10101 + 240000 AS DATE), YEAR(DAY(ts) + 20240100), DATE_ADD(DAY(ts) + 20240100, INTERVAL 1 DAY), ADDDATE(DAY(ts) * 1000000 + 240105103000, 1), CAST(DATE_FORMAT(ts, '%Y%m%d%H%i%s') AS DATETIME), DATE(DATE_FORMAT(ts, '%y%m%d')), CAST(DATE_FORMAT(ts, '%y%m%d%H%i%s.%f') AS DATETIME(6)) FROM tzt",
	}
	// A strict-GPU database fails a query whose expressions the device
	// cannot run, so an answer is the device's.
	// One query per expression: a strict-GPU failure names it.
	for _, e := range []string{"TIME(s)", "TIME(ts)", "TIME(d)", "TIME(u)", "TIME(TIME(s))",
		"EXTRACT(HOUR_SECOND FROM s)", "EXTRACT(MICROSECOND FROM s)", "EXTRACT(MINUTE_MICROSECOND FROM s)"} {
		queries = append(queries, "SELECT "+e+" FROM tzt")
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			requireSameRows(t, q, sortedRows(t, gpu, q), sortedRows(t, cpu, q))
		})
	}
}
