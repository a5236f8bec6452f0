package operators

import (
	"math/rand/v2"
	"testing"
)

// TestPairSet checks pairSet against a Go map over batches with repeats,
// NULLs, many groups and enough pairs to grow several times.
func TestPairSet(t *testing.T) {
	type pair struct {
		g uint32
		v int64
	}
	for _, tc := range []struct {
		name     string
		groups   uint32 // 0: no GROUP BY (gids nil)
		values   int64
		nullEach int
	}{
		{"no groups", 0, 5000, 0},
		{"no groups with NULLs", 0, 300, 7},
		{"groups", 40, 2000, 0},
		{"groups with NULLs", 1000, 50, 3},
		{"extremes", 3, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			s := newPairSet()
			seen := map[pair]bool{}
			for batch := 0; batch < 8; batch++ {
				n := 1 + rng.IntN(4000)
				vals := make([]int64, n)
				var gids []uint32
				if tc.groups > 0 {
					gids = make([]uint32, n)
				}
				var nulls []byte
				if tc.nullEach > 0 {
					nulls = make([]byte, (n+7)/8)
				}
				for i := range vals {
					vals[i] = rng.Int64N(tc.values) - tc.values/2
					if tc.name == "extremes" {
						vals[i] = []int64{-1 << 63, 1<<63 - 1, 0, -1}[rng.IntN(4)]
					}
					if gids != nil {
						gids[i] = rng.Uint32N(tc.groups)
					}
					if nulls != nil && i%tc.nullEach != 0 {
						nulls[i>>3] |= 1 << (i & 7)
					}
				}
				created := s.insert(gids, vals, nulls, nil)
				var want []int32
				for i, v := range vals {
					if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
						continue
					}
					p := pair{v: v}
					if gids != nil {
						p.g = gids[i]
					}
					if !seen[p] {
						seen[p] = true
						want = append(want, int32(i))
					}
				}
				if len(created) != len(want) {
					t.Fatalf("batch %d: %d new pairs, want %d", batch, len(created), len(want))
				}
				for i := range want {
					if created[i] != want[i] {
						t.Fatalf("batch %d: new row %d is %d, want %d", batch, i, created[i], want[i])
					}
				}
			}
			if s.n != len(seen) {
				t.Errorf("set holds %d pairs, want %d", s.n, len(seen))
			}
		})
	}
}

// TestPairParts checks that pairParts finds the same new rows as one
// pairSet (as sets: its parts may return them out of row order), on
// batches above and below pairPartsMinRows.
func TestPairParts(t *testing.T) {
	for _, parts := range []int{1, 2, 3, 4} {
		rng := rand.New(rand.NewPCG(uint64(parts), 9))
		one, pp := newPairSet(), newPairParts(parts)
		for batch := 0; batch < 6; batch++ {
			n := []int{100, pairPartsMinRows + 5, 50000}[batch%3]
			vals, gids := make([]int64, n), make([]uint32, n)
			nulls := make([]byte, (n+7)/8)
			for i := range vals {
				vals[i], gids[i] = rng.Int64N(20000), rng.Uint32N(5)
				if rng.IntN(10) != 0 {
					nulls[i>>3] |= 1 << (i & 7)
				}
			}
			want := one.insert(gids, vals, nulls, nil)
			got := pp.insert(gids, vals, nulls, nil)
			seen := map[int32]bool{}
			for _, r := range got {
				if seen[r] {
					t.Fatalf("parts %d batch %d: row %d new twice", parts, batch, r)
				}
				seen[r] = true
			}
			if len(got) != len(want) {
				t.Fatalf("parts %d batch %d: %d new rows, want %d", parts, batch, len(got), len(want))
			}
			for _, r := range want {
				if !seen[r] {
					t.Fatalf("parts %d batch %d: row %d not new", parts, batch, r)
				}
			}
		}
	}
}
