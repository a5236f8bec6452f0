package operators_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestSortNaN: ORDER BY a DOUBLE puts NaN above +Inf, NaNs tied (input
// order), -0.0 tied with 0.0, as the device's sort keys order them, with
// and without a LIMIT.
func TestSortNaN(t *testing.T) {
	vals := []any{math.NaN(), 1.0, math.Inf(-1), math.NaN(), math.Inf(1), math.Copysign(0, -1), 0.0, nil, 1.0}
	for _, tc := range []struct {
		name  string
		key   opspec.SortKey
		limit int64
		want  []int64
	}{
		{"asc", opspec.SortKey{Col: 0}, 0, []int64{7, 2, 5, 6, 1, 8, 4, 0, 3}},
		{"desc", opspec.SortKey{Col: 0, Desc: true}, 0, []int64{0, 3, 4, 1, 8, 5, 6, 2, 7}},
		{"asc nulls last", opspec.SortKey{Col: 0, Nulls: opspec.NullsLast}, 0, []int64{2, 5, 6, 1, 8, 4, 0, 3, 7}},
		{"desc limit 3", opspec.SortKey{Col: 0, Desc: true}, 3, []int64{0, 3, 4}},
		{"asc limit 2", opspec.SortKey{Col: 0}, 2, []int64{7, 2}},
	} {
		s := &operators.Sort{Input: src(mkBatch(mkVec(tFloat, vals...), seqInts(0, len(vals)))), Keys: []opspec.SortKey{tc.key}, NCols: 2, Limit: tc.limit}
		out, err := operators.Drain(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, b := range out {
			for i := 0; i < b.Len; i++ {
				got = append(got, b.Cols[1].Int(i))
			}
		}
		if tc.limit > 0 && int64(len(got)) > tc.limit {
			got = got[:tc.limit]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: rows %v, want %v", tc.name, got, tc.want)
		}
	}
}
