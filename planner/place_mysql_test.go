package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/planner"
)

// TestPlaceMySQLExactValuesOnGPU: the shapes of issue 38 place on the GPU
// in strict mode with the real device-support check: decimal literals
// beside a DECIMAL column (a DOUBLE literal there could not convert
// exactly on the device), integer division and AVG of integers as
// DECIMAL, the text of DECIMAL expressions, a quotient kept at MySQL's
// intermediate precision, DATETIME(n) casts and their text, and the
// composed date expression of the issue over DATETIME(6).
func TestPlaceMySQLExactValuesOnGPU(t *testing.T) {
	cat := catalog.New()
	cols := []catalog.Column{{Name: "i", Type: coldata.Int64}, {Name: "n", Type: coldata.Int64},
		{Name: "x", Type: coldata.DecimalOf(12, 2)}, {Name: "b", Type: coldata.TimestampOf(6)}, {Name: "d", Type: coldata.Date}}
	if _, err := cat.Create("m", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	opts := planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice}
	for _, q := range []string{
		"SELECT x * 1.1, x + 0.05, x - 1.5 FROM m WHERE x > 0.5",
		"SELECT i / 3, 7 / i, i / n * 3, ROUND(i / 3, 6), TRUNCATE(x, 4) FROM m",
		"SELECT CAST(x * 1.1 AS CHAR), CONCAT(i / 3, '|'), CAST(x / 7 AS CHAR) FROM m",
		"SELECT n, AVG(i), SUM(i / 3), AVG(x) FROM m GROUP BY n",
		"SELECT CAST(d AS DATETIME(6)), CAST(b AS DATETIME(0)), CAST(CAST(b AS DATETIME(3)) AS CHAR), CONCAT(b, '|') FROM m",
		"SELECT CAST(DATE(DATE(b) - INTERVAL n WEEK + INTERVAL (x DIV 1) HOUR) AS CHAR) FROM m",
		"SELECT i FROM m WHERE d = '2024-02-29 12:34:56' OR b < '2024-01-01 00:00:00.5'",
	} {
		n, err := plan(t, cat, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n, err = planner.Place(n, opts); err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		// Only the copy back and the merge of the device hash table's
		// groups run on the host.
		for _, line := range planner.Explain(n) {
			if strings.HasSuffix(line, "[cpu]") && !strings.Contains(line, "DeviceToHost") && !strings.Contains(line, "hash table on the gpu") {
				t.Errorf("%s: %q stays on the CPU", q, line)
			}
		}
	}
}

// TestPlaceWarningCallsOnGPU: a constant call that gives a MySQL warning
// is left unfolded (it warns at every run, planner's foldConstants), so
// in strict GPU mode it must place on the device as the literal it used
// to fold into did: invalid dates in text, division by zero, text read
// as a number, intervals past 9999, STR_TO_DATE of unreadable text.
func TestPlaceWarningCallsOnGPU(t *testing.T) {
	cat := catalog.New()
	cols := []catalog.Column{{Name: "id", Type: coldata.Int64}, {Name: "s", Type: coldata.String}, {Name: "d", Type: coldata.Date}, {Name: "x", Type: coldata.DecimalOf(5, 2)}}
	if _, err := cat.Create("wt", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	opts := planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice}
	for _, q := range []string{
		"SELECT DATE('2023-02-30'), CAST('2023-02-30' AS DATE), CAST('2024-01-05 25:00:00' AS DATETIME), YEAR('2023-13-01'), DAYOFMONTH('2023-02-29')",
		"SELECT DATE_ADD('2023-02-30', INTERVAL 1 DAY), DATEDIFF('2023-02-30', '2023-01-01'), LAST_DAY('2023-02-30'), DATE_FORMAT('2023-02-30', '%Y'), TO_DAYS('2023-02-30')",
		"SELECT DATE_ADD(DATE '9999-12-31', INTERVAL 1 DAY), DATE_SUB(DATE '0001-01-01', INTERVAL 1 DAY)",
		"SELECT 1/0, 1 DIV 0, 5 MOD 0, '12abc' + 1, CAST('12abc' AS SIGNED), CAST('1.5x' AS DECIMAL(5,2))",
		"SELECT STR_TO_DATE('abc', '%Y'), DATE '2024-01-01' + INTERVAL 'abc' DAY",
		"SELECT id, x / 0, 10 DIV x, s + 1, DATE(s), d + INTERVAL 1 DAY, DATE('2023-02-30') FROM wt WHERE s + 0 > 100",
	} {
		n, err := plan(t, cat, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, err = planner.Place(n, opts); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}
