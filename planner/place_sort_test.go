package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// TestPlaceSortOverScan: in a GPU plan, an ORDER BY reading a table (or
// columns chosen from one) runs on the device over the resident table
// when the device sorts its keys, with or without a LIMIT above; keys the
// device does not order, tables too large to keep resident and inputs
// from host operators keep it on the host, with the reason in EXPLAIN.
func TestPlaceSortOverScan(t *testing.T) {
	s := scanOf(tblT)
	a, b := ref(s, 0), ref(s, 1)
	wide := &catalog.Table{Name: "w", Rows: 10, Columns: []catalog.Column{
		{Name: "id", Type: coldata.Int64}, {Name: "m", Type: coldata.DecimalOf(30, 2)}}}
	w := scanOf(wide)
	u := scanOf(bigU())
	uBytes := scannedBytes(u)
	opts := PlaceOptions{GPU: true, Fusion: true, Supported: fakeSupport, Aggregates: deviceAggregates}
	withMem := func(mem uint64) PlaceOptions { o := opts; o.DeviceMemory = mem; return o }
	for _, tc := range []struct {
		name string
		plan Node
		opts PlaceOptions
		want []string
	}{
		{"sort of a table, limit above", &Limit{Input: &Sort{Input: s, Keys: []opspec.SortKey{{Col: 2, Desc: true}}}, Count: 10, Offset: 5}, opts, []string{
			"DeviceToHost [cpu]",
			"  Limit 10 offset 5 [gpu]",
			"    Sort c DESC (gpu: keys sorted on the device) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"sort of columns chosen from a table, text key", &Sort{Input: project(s, b, a), Keys: []opspec.SortKey{{Col: 0}, {Col: 1, Desc: true}}}, opts, []string{
			"DeviceToHost [cpu]",
			"  Sort b, a DESC (gpu: keys sorted on the device, and on the host for text past 32 bytes) [gpu]",
			"    Project b, a (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"strict placement too", &Sort{Input: s, Keys: []opspec.SortKey{{Col: 0}}}, PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: fakeSupport, Aggregates: deviceAggregates}, []string{
			"DeviceToHost [cpu]",
			"  Sort a (gpu: keys sorted on the device) [gpu]",
			"    Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"a key the device does not order", &Sort{Input: w, Keys: []opspec.SortKey{{Col: 1}}}, opts, []string{
			"Sort m [cpu: its input is on the host; the device would not sort its keys (a DECIMAL(30,2) key)]",
			"  Scan w [id m] (10 rows) [cpu]",
		}},
		{"a table within half the device memory", &Sort{Input: u, Keys: []opspec.SortKey{{Col: 0}}}, withMem(2 * uBytes), []string{
			"DeviceToHost [cpu]",
			"  Sort k (gpu: keys sorted on the device) [gpu]",
			"    Scan u [k x] (1000 rows) [gpu]",
		}},
		{"a table past half the device memory", &Sort{Input: u, Keys: []opspec.SortKey{{Col: 0}}}, withMem(2*uBytes - 1), []string{
			fmt.Sprintf("Sort k [cpu: its input is on the host; its scan's 2 columns take %s, over the half of device memory a table may keep resident]", byteSize(uBytes)),
			"  Scan u [k x] (1000 rows) [cpu]",
		}},
		{"a host operator's output", &Sort{Input: &Distinct{Input: s}, Keys: []opspec.SortKey{{Col: 0}}}, opts, []string{
			"Sort a [cpu: its input is on the host]",
			"  Distinct [cpu: DISTINCT has no device operator]",
			"    Scan t [a b c d] (10 rows) [cpu]",
		}},
		{"computed columns were already on the device", &Sort{Input: project(s, call(t, "lower", b)), Keys: []opspec.SortKey{{Col: 0}}}, opts, []string{
			"DeviceToHost [cpu]",
			"  Sort lower(b) (gpu: keys sorted on the device, and on the host for text past 32 bytes) [gpu]",
			"    Project lower(b) AS lower(b) (fused kernel) [gpu]",
			"      Scan t [a b c d] (10 rows) [gpu]",
		}},
		{"GPU off: unchanged", &Sort{Input: s, Keys: []opspec.SortKey{{Col: 0}}}, PlaceOptions{Supported: fakeSupport}, []string{
			"Sort a [cpu]",
			"  Scan t [a b c d] (10 rows) [cpu]",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Place(tc.plan, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := explain(n), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
