package planner_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/planner"
)

// TestPlaceTextDateListsOnGPU: IN lists and BETWEEN with text on the left
// and dates among the values (text read as a DATETIME, a date item as
// text beside a number: tests/sql/mysql_in_date_text.test) place on the
// GPU in strict mode with the real device-support check.
func TestPlaceTextDateListsOnGPU(t *testing.T) {
	cat := catalog.New()
	cols := []catalog.Column{{Name: "id", Type: coldata.Int64}, {Name: "d", Type: coldata.Date},
		{Name: "ts", Type: coldata.TimestampOf(0)}, {Name: "s", Type: coldata.String}}
	if _, err := cat.Create("bs", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	opts := planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice}
	for _, q := range []string{
		"SELECT id, s IN ('abc', d), s NOT IN (ts, 'zz', NULL), (s, id) IN (('abc', 1), (d, 5)) FROM bs",
		"SELECT id, s IN (1, d), s IN ('abc', DATE '2024-02-29') FROM bs WHERE s IN ('nodate', d)",
		"SELECT id, s BETWEEN 'abc' AND d, '2024-02-29 05:00:00' NOT BETWEEN s AND ts FROM bs WHERE s BETWEEN d AND '2025-01-01'",
	} {
		n, err := plan(t, cat, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n, err = planner.Place(n, opts); err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		text := strings.Join(planner.Explain(n), "\n")
		for _, line := range planner.Explain(n) {
			if strings.HasSuffix(line, "[cpu]") && !strings.Contains(line, "DeviceToHost") {
				t.Errorf("%s: %q stays on the CPU", q, line)
			}
		}
		if !strings.Contains(text, "cmp_to_timestamp(s)") {
			t.Errorf("%s: the text is not read as a DATETIME:\n%s", q, text)
		}
	}
}
