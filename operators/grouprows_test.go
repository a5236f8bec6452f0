package operators

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// TestGroupRows: GroupRows numbers rows by group in order of first
// appearance, groups as AppendRowKey encodes (NULLs one group, -0.0 with
// 0.0), over random keys of every kind, constants and the Null type, with
// row counts across its growing chunks.
func TestGroupRows(t *testing.T) {
	rng := rand.New(rand.NewSource(40))
	for _, tc := range []struct {
		types  []coldata.Type
		domain int
	}{
		{[]coldata.Type{coldata.Int64}, 50},
		{[]coldata.Type{coldata.String}, 1000},
		{[]coldata.Type{coldata.Float64}, 40},
		{[]coldata.Type{coldata.Bool, coldata.String}, 30},
		{[]coldata.Type{coldata.Int64, coldata.Float64, coldata.Null}, 20},
		{[]coldata.Type{coldata.Int64}, 100_000},
	} {
		for _, n := range []int{0, 1, 100, groupRowsFirst + 1, 3*groupRowsFirst + 7} {
			name := fmt.Sprintf("%v/%d/%d", tc.types, tc.domain, n)
			keys := make([]*coldata.Vec, len(tc.types))
			for i, ty := range tc.types {
				keys[i] = randKeyVec(rng, ty, n, tc.domain, 9)
			}
			ids, groups, err := GroupRows(context.Background(), keys, n)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := map[string]uint32{}
			for r := 0; r < n; r++ {
				k := string(opspec.AppendRowKey(nil, keys, r))
				id, ok := want[k]
				if !ok {
					id = uint32(len(want))
					want[k] = id
				}
				if ids[r] != id {
					t.Fatalf("%s: row %d in group %d, want %d", name, r, ids[r], id)
				}
			}
			if groups != len(want) {
				t.Fatalf("%s: %d groups, want %d", name, groups, len(want))
			}
		}
	}
	// No keys: one group (none without rows).
	if ids, g, err := GroupRows(context.Background(), nil, 3); err != nil || g != 1 || ids[2] != 0 {
		t.Errorf("no keys: %v %d %v", ids, g, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := GroupRows(ctx, []*coldata.Vec{randKeyVec(rng, coldata.Int64, 10, 5, 0)}, 10); err == nil {
		t.Error("a cancelled context gave no error")
	}
}
