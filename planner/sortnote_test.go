package planner

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// TestSortNote: EXPLAIN's note on a device ORDER BY names where its keys
// are sorted, and the key type that keeps them on the host.
func TestSortNote(t *testing.T) {
	cols := []Column{{"i", coldata.Int64}, {"f", coldata.Float64}, {"s", coldata.String}, {"w", coldata.DecimalOf(30, 2)},
		{"d", coldata.Date}, {"m", coldata.DecimalOf(12, 2)}, {"b", coldata.Bool}}
	for _, tc := range []struct {
		keys []int
		want string
	}{
		{[]int{0, 1, 4, 5, 6}, "keys sorted on the device"},
		{[]int{2, 0}, "keys sorted on the device, and on the host for text past 32 bytes"},
		{[]int{0, 3, 2}, "keys sorted on the host: a DECIMAL(30,2) key"},
	} {
		var keys []opspec.SortKey
		for _, c := range tc.keys {
			keys = append(keys, opspec.SortKey{Col: c, Desc: c%2 == 0})
		}
		if got := sortNote(cols, keys); got != tc.want {
			t.Errorf("keys %v: %q, want %q", tc.keys, got, tc.want)
		}
	}
}
