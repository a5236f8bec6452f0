package operators

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// The partitions a build side needs: a power of two, at least 2, each
// within the budget, at most 1024.
func TestOOMPartitionCount(t *testing.T) {
	for _, c := range []struct {
		bytes, budget uint64
		want          int
	}{
		{100, 1000, 2}, {1000, 1000, 2}, {2001, 1000, 4}, {8000, 1000, 8}, {8001, 1000, 16},
		{1 << 40, 1, 1024}, {5, 0, 1024},
	} {
		if got := oomPartitions(c.bytes, c.budget); got != c.want {
			t.Errorf("oomPartitions(%d, %d) = %d, want %d", c.bytes, c.budget, got, c.want)
		}
	}
}

// A large batch is routed by several goroutines, each over a range of
// rows: the same partition for every row as one goroutine gives, NULL keys
// to their partition, and the same partitions of one key.
func TestKeyRouterParallel(t *testing.T) {
	const n = 1 << 18
	rng := rand.New(rand.NewSource(5))
	kb, sb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		if rng.Intn(50) == 0 {
			kb.AppendNull()
		} else {
			kb.AppendInt(int64(rng.Intn(5000)))
		}
		sb.AppendValue([]string{"a", "bb", "", "ccc"}[rng.Intn(4)])
	}
	b := coldata.NewBatch([]*coldata.Vec{kb.Finish(), sb.Finish()}, n)
	for _, nulls := range []int{-1, 0, routeByHash} {
		for _, parts := range []int{2, 64, 1024} {
			one := newKeyRouter(parts)
			many := &keyRouter{seed: one.seed, mask: one.mask, st: routeState{first: make([][]byte, parts), mixed: make([]bool, parts)}}
			restore := routeChunkRows
			routeChunkRows = n
			want := append([]int(nil), one.routes(b, []int{0, 1}, nulls)...)
			routeChunkRows = 1 << 12
			got := many.routes(b, []int{0, 1}, nulls)
			routeChunkRows = restore
			if !slices.Equal(got, want) {
				t.Fatalf("nulls %d, %d partitions: routes differ", nulls, parts)
			}
			for i := 0; i < parts; i++ {
				if one.oneKey(i) != many.oneKey(i) {
					t.Fatalf("nulls %d, %d partitions: partition %d one key %v, want %v", nulls, parts, i, many.oneKey(i), one.oneKey(i))
				}
			}
		}
	}
	// One key in every row: each partition that got rows has one key.
	ones := coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		ones.AppendInt(7)
	}
	r := newKeyRouter(8)
	defer func(c int) { routeChunkRows = c }(routeChunkRows)
	routeChunkRows = 1 << 12
	route := r.routes(coldata.NewBatch([]*coldata.Vec{ones.Finish()}, n), []int{0}, -1)
	if !r.oneKey(route[0]) {
		t.Fatal("one key routed by many goroutines: not one key")
	}
}

// BenchmarkKeyRouter routes 4M BIGINT keys to 16 partitions on one
// goroutine and on every core (the host side of a GROUP BY or join split
// after a device out-of-memory).
func BenchmarkKeyRouter(b *testing.B) {
	const n = 1 << 22
	kb := coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		kb.AppendInt(int64(i) * 7919 % 3_000_000)
	}
	batch := coldata.NewBatch([]*coldata.Vec{kb.Finish()}, n)
	for _, c := range []struct {
		name  string
		chunk int
	}{{"one", n}, {"all", 1 << 16}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(r int) { routeChunkRows = r }(routeChunkRows)
			routeChunkRows = c.chunk
			r := newKeyRouter(16)
			for i := 0; i < b.N; i++ {
				r.routes(batch, []int{0}, routeByHash)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
