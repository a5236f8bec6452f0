package gpuexec

import (
	"math/rand"
	"slices"
	"sort"
	"testing"
)

// topPositions picks the same rows as a stable sort followed by a LIMIT,
// ties included: values drawn from a few, so most comparisons tie.
func TestTopPositionsIsStableSortPrefix(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{1, 2, 10, 1000, 50000} {
		for _, spread := range []int64{1, 3, 1 << 40} {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = r.Int63n(spread) - spread/2
			}
			for _, desc := range []bool{true, false} {
				for _, k := range []int{1, 3, 10, n - 1, n, n + 5} {
					if k < 1 {
						continue
					}
					order := make([]int, n)
					for i := range order {
						order[i] = i
					}
					sort.SliceStable(order, func(a, b int) bool {
						if desc {
							return vals[order[a]] > vals[order[b]]
						}
						return vals[order[a]] < vals[order[b]]
					})
					want := slices.Clone(order[:min(k, n)])
					slices.Sort(want)
					got := topPositions(vals, k, desc)
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d spread=%d desc=%v k=%d: got %v, want %v", n, spread, desc, k, head(got), head(want))
					}
				}
			}
		}
	}
}

func head(xs []int) []int { return xs[:min(len(xs), 12)] }

func BenchmarkTopPositions(b *testing.B) {
	r := rand.New(rand.NewSource(5))
	vals := make([]int64, 10_000_000)
	for i := range vals {
		vals[i] = 1 + r.Int63n(3)
	}
	b.SetBytes(8 * int64(len(vals)))
	for i := 0; i < b.N; i++ {
		topPositions(vals, 10, true)
	}
}
