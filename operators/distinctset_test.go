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

// collidingValue returns the value of group g whose pairKey under any
// seed equals that of value x in group 0: pairKey mixes the group in by
// xor before fmix64, so such pairs share a key and probe the same slots.
func collidingValue(x int64, g uint32) int64 {
	return x ^ int64(uint64(g)*0x9e3779b97f4a7c15)
}

// TestPairKey checks the properties the sets rely on: a key is one-to-one
// in the value for a group and seed (so the sets may keep keys instead of
// values), the colliding pairs of collidingValue share a key, and
// structured inputs (consecutive values, values that differ only in high
// bits, one value in consecutive groups) spread over the low bits (slots)
// and the top bits (parts): no bucket gets more than twice its share.
func TestPairKey(t *testing.T) {
	const seed = 0x1234567 | 1
	if pairKey(seed, 0, seed) != 0 {
		t.Fatalf("pairKey of the seed is %#x, want 0", pairKey(seed, 0, seed))
	}
	for _, g := range []uint32{1, 7, 1 << 31} {
		if a, b := pairKey(seed, 0, 99), pairKey(seed, g, collidingValue(99, g)); a != b {
			t.Errorf("group %d: colliding key %#x, want %#x", g, b, a)
		}
	}
	const n, buckets = 1 << 16, 1 << 8
	for _, tc := range []struct {
		name string
		pair func(i int) (uint32, int64)
	}{
		{"consecutive values", func(i int) (uint32, int64) { return 0, int64(i) }},
		{"negative values", func(i int) (uint32, int64) { return 0, -int64(i) }},
		{"high bits", func(i int) (uint32, int64) { return 0, int64(i) << 40 }},
		{"top bits", func(i int) (uint32, int64) { return 0, int64(i) << 48 }},
		{"multiples of 1e9", func(i int) (uint32, int64) { return 0, int64(i) * 1e9 }},
		{"consecutive groups", func(i int) (uint32, int64) { return uint32(i), 5 }},
		{"groups and values", func(i int) (uint32, int64) { return uint32(i & 255), int64(i >> 8) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[uint64]bool{}
			var low, top [buckets]int
			for i := 0; i < n; i++ {
				g, v := tc.pair(i)
				k := pairKey(seed, g, v)
				seen[k] = true
				low[k%buckets]++
				top[k>>56]++
			}
			if len(seen) != n {
				t.Fatalf("%d distinct keys of %d pairs", len(seen), n)
			}
			for b := 0; b < buckets; b++ {
				if low[b] > 2*n/buckets || top[b] > 2*n/buckets {
					t.Fatalf("bucket %d: %d keys by low bits, %d by top bits, want at most %d", b, low[b], top[b], 2*n/buckets)
				}
			}
		})
	}
}

// TestPairSetCollisions checks pairSet and pairParts when many pairs share
// one key (collidingValue) and so one probe sequence, with the key 0
// among them (the value equal to the seed, in group 0), against their
// known counts.
func TestPairSetCollisions(t *testing.T) {
	const groups = 3000
	// Each group's pair (g, collidingValue(seed, g)) has key 0, and
	// (g, collidingValue(7, g)) the key of 7; (g, g) is the third.
	batch := func(seed uint64) (gids []uint32, vals []int64) {
		for g := uint32(0); g < groups; g++ {
			gids = append(gids, g, g, g)
			vals = append(vals, collidingValue(int64(seed), g), collidingValue(7, g), int64(g))
		}
		return gids, vals
	}
	t.Run("pairSet", func(t *testing.T) {
		s := newPairSet()
		gids, vals := batch(s.seed)
		for pass, want := range []int{3 * groups, 0} {
			if created := s.insert(gids, vals, nil, nil); len(created) != want {
				t.Fatalf("pass %d: %d new pairs, want %d", pass, len(created), want)
			}
		}
	})
	t.Run("pairParts", func(t *testing.T) {
		pp := newPairParts(3, true)
		pp.flushPairs = 1000
		gids, vals := batch(pp.seed)
		st := make([]uint64, groups)
		pp.add(gids, vals, nil, st, 1, 0)
		pp.add(gids, vals, nil, st, 1, 0)
		pp.flush(st, 1, 0)
		for g, c := range st {
			if c != 3 {
				t.Fatalf("group %d counts %d, want 3", g, c)
			}
		}
		pp.release()
	})
}

// TestPairPartsRandomized compares pairParts' counts with a Go map's over
// random inputs: worker counts, flush sizes, with and without groups,
// small and wide value domains, NULLs, colliding pairs and the value
// whose key is 0 (the seed), over batches of random sizes; groups past
// pairCountGroups too.
func TestPairPartsRandomized(t *testing.T) {
	type pair struct {
		g uint32
		v int64
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 40; trial++ {
		workers := 1 + rng.IntN(9)
		groups := []int{0, 1, 3, 500, 40000}[rng.IntN(5)] // 40000: past pairCountGroups
		domain := []int64{5, 1000, 1 << 40}[rng.IntN(3)]
		flush := []int{0, 1, 777, 20000}[rng.IntN(4)]
		nullEvery := []int{0, 2, 9}[rng.IntN(3)]
		pp := newPairParts(workers, groups > 0)
		pp.flushPairs = flush
		ng := max(groups, 1)
		st := make([]uint64, 3*ng) // stride 3, count word 2
		seen := map[pair]bool{}
		for batch, nb := 0, 1+rng.IntN(5); batch < nb; batch++ {
			n := []int{1, 100, pairStageRows - 1, 2*pairStageRows + 3, 30000}[rng.IntN(5)]
			vals := make([]int64, n)
			var gids []uint32
			if groups > 0 {
				gids = make([]uint32, n)
			}
			var nulls []byte
			if nullEvery > 0 {
				nulls = make([]byte, (n+7)/8)
			}
			for i := range vals {
				var g uint32
				if gids != nil {
					g = rng.Uint32N(uint32(groups))
					gids[i] = g
				}
				switch rng.IntN(10) {
				case 0:
					vals[i] = collidingValue(int64(pp.seed), g) // key 0 in group 0
				case 1:
					vals[i] = collidingValue(rng.Int64N(8), g)
				default:
					vals[i] = rng.Int64N(domain) - domain/2
				}
				if nulls != nil && rng.IntN(nullEvery) != 0 {
					nulls[i>>3] |= 1 << (i & 7)
				}
			}
			pp.add(gids, vals, nulls, st, 3, 2)
			for i, v := range vals {
				if nulls == nil || nulls[i>>3]&(1<<(i&7)) != 0 {
					p := pair{v: v}
					if gids != nil {
						p.g = gids[i]
					}
					seen[p] = true
				}
			}
		}
		pp.flush(st, 3, 2)
		want := make([]uint64, ng)
		for p := range seen {
			want[p.g]++
		}
		for g := range want {
			if st[3*g+2] != want[g] {
				t.Fatalf("trial %d (workers %d, groups %d, domain %d, flush %d): group %d counts %d, want %d",
					trial, workers, groups, domain, flush, g, st[3*g+2], want[g])
			}
		}
		if pp.size() != len(seen) {
			t.Fatalf("trial %d: sets hold %d pairs, want %d", trial, pp.size(), len(seen))
		}
		pp.release()
	}
}
