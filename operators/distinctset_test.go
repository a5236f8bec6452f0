package operators

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
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

// TestPairParts checks pairParts' per-group counts of distinct pairs
// against a Go map, with and without groups, for several worker counts,
// batches above and below pairStageRows, NULLs, frequent values (which
// the ranges' caches drop) and flushes during and after the input.
func TestPairParts(t *testing.T) {
	type pair struct {
		g uint32
		v int64
	}
	for _, tc := range []struct {
		workers    int
		groups     uint32 // 0: no GROUP BY
		flushPairs int
	}{
		{1, 0, 0}, {2, 0, 0}, {3, 5, 0}, {4, 5, 1000}, {4, 0, 1}, {8, 300, 5000}, {64, 7, 0},
	} {
		t.Run(fmt.Sprintf("workers=%d,groups=%d,flush=%d", tc.workers, tc.groups, tc.flushPairs), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.workers), uint64(tc.groups)))
			pp := newPairParts(tc.workers, tc.groups > 0)
			pp.flushPairs = tc.flushPairs
			ngroups := max(int(tc.groups), 1)
			st := make([]uint64, 2*ngroups) // stride 2, count word 1
			seen := map[pair]bool{}
			for batch := 0; batch < 6; batch++ {
				n := []int{100, 3*pairStageRows + 5, 50000, 0}[batch%4]
				vals := make([]int64, n)
				var gids []uint32
				if tc.groups > 0 {
					gids = make([]uint32, n)
				}
				nulls := make([]byte, (n+7)/8)
				for i := range vals {
					switch rng.IntN(4) {
					case 0:
						vals[i] = 42 // frequent
					case 1:
						vals[i] = []int64{-1 << 63, 1<<63 - 1, 0}[rng.IntN(3)]
					default:
						vals[i] = rng.Int64N(30000)
					}
					if gids != nil {
						gids[i] = rng.Uint32N(tc.groups)
					}
					if rng.IntN(10) != 0 {
						nulls[i>>3] |= 1 << (i & 7)
					}
				}
				if batch == 1 {
					nulls = nil // no NULLs
				}
				pp.add(gids, vals, nulls, st, 2, 1)
				for i, v := range vals {
					if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
						continue
					}
					p := pair{v: v}
					if gids != nil {
						p.g = gids[i]
					}
					seen[p] = true
				}
			}
			pp.flush(st, 2, 1)
			want := make([]uint64, ngroups)
			for p := range seen {
				want[p.g]++
			}
			for g := range want {
				if st[2*g+1] != want[g] || st[2*g] != 0 {
					t.Fatalf("group %d: words %d, %d, want 0, %d", g, st[2*g], st[2*g+1], want[g])
				}
			}
			if pp.size() != len(seen) {
				t.Errorf("sets hold %d pairs, want %d", pp.size(), len(seen))
			}
			pp.release()
		})
	}
}

// TestStringParts checks stringParts' count of new strings per batch
// against a Go map, for several worker counts, with NULLs, a frequent
// empty string, long strings and strings that differ only in length.
func TestStringParts(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(workers), 3))
			sp := newStringParts(workers)
			seen := map[string]bool{}
			for batch := 0; batch < 6; batch++ {
				n := []int{10, 3*pairStageRows + 1, 40000}[batch%3]
				b := coldata.NewBuilder(coldata.String, n)
				var want int
				for i := 0; i < n; i++ {
					var s string
					switch rng.IntN(6) {
					case 0:
						b.AppendNull()
						continue
					case 1, 2:
						s = ""
					case 3:
						s = strings.Repeat("a", rng.IntN(5))
					case 4:
						s = strings.Repeat("long", 20+rng.IntN(3)) + fmt.Sprint(rng.IntN(10))
					default:
						s = fmt.Sprintf("v%d", rng.IntN(20000))
					}
					b.AppendString(s)
					if !seen[s] {
						seen[s] = true
						want++
					}
				}
				if got := sp.add(b.Finish(), n); got != want {
					t.Fatalf("batch %d: %d new strings, want %d", batch, got, want)
				}
			}
			total := 0
			for _, s := range sp.sets {
				total += s.n
			}
			if total != len(seen) {
				t.Errorf("sets hold %d strings, want %d", total, len(seen))
			}
			sp.release()
		})
	}
}

// TestForEachIndexPanics checks that a panic in any index, on the
// caller's goroutine or another, reaches the caller after every index
// ran or stopped, and that without one every index runs once.
func TestForEachIndexPanics(t *testing.T) {
	for _, bad := range []int{-1, 0, 5, 63} {
		t.Run(fmt.Sprint(bad), func(t *testing.T) {
			ran := make([]int32, 64)
			var got any
			func() {
				defer func() { got = recover() }()
				forEachIndex(64, 4, func(i int) {
					ran[i]++
					if i == bad {
						panic("boom")
					}
				})
			}()
			if bad < 0 {
				if got != nil {
					t.Fatalf("panic %v", got)
				}
				for i, r := range ran {
					if r != 1 {
						t.Fatalf("index %d ran %d times", i, r)
					}
				}
				return
			}
			if got == nil || !strings.Contains(fmt.Sprint(got), "boom") {
				t.Fatalf("panic %v, want boom", got)
			}
		})
	}
}
