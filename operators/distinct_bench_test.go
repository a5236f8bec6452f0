package operators

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// distinctRows is the size of the COUNT(DISTINCT) benchmark table.
const distinctRows = 10_000_000

// hitsUsers is a table shaped like ClickBench's (RegionID, UserID):
// UserID follows a Zipf law over random 64-bit values (about a million
// distinct in 10M rows), and each user mostly appears in one home
// region, the regions (5000) being Zipf-skewed too; one row in twenty
// comes from a random region.
var hitsUsers = sync.OnceValue(func() *coldata.Batch {
	rng := rand.New(rand.NewSource(20))
	const users, regions = 4_000_000, 5000
	ids := make([]int64, users)
	home := make([]int64, users)
	rz := rand.NewZipf(rng, 1.3, 4, regions-1)
	for i := range ids {
		ids[i] = int64(rng.Uint64())
		home[i] = int64(rz.Uint64())
	}
	uz := rand.NewZipf(rng, 1.07, 20, users-1)
	region, user := coldata.NewVec(coldata.Int64, distinctRows), coldata.NewVec(coldata.Int64, distinctRows)
	for i := 0; i < distinctRows; i++ {
		u := uz.Uint64()
		user.Ints[i] = ids[u]
		region.Ints[i] = home[u]
		if rng.Intn(20) == 0 {
			region.Ints[i] = rng.Int63n(regions)
		}
	}
	return coldata.NewBatch([]*coldata.Vec{region, user}, distinctRows)
})

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDistinct runs an aggregate over hitsUsers and checks its output's
// row count. Besides the time per run it reports the CPU time per run
// (cpu-ms/op), which the other processes of a shared machine disturb
// less.
func benchDistinct(b *testing.B, keys []expr.Expr, aggs []opspec.AggSpec, wantRows int) {
	data := hitsUsers()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		h := &HashAggregate{Input: &Scan{Batches: []*coldata.Batch{data}, Cols: []int{0, 1}}, Keys: keys, Aggs: aggs}
		out, err := Drain(context.Background(), h)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, x := range out {
			n += x.Len
		}
		if n != wantRows {
			b.Fatalf("%d rows, want %d", n, wantRows)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(distinctRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// BenchmarkCountDistinctUsers: COUNT(DISTINCT UserID) (ClickBench Q5).
func BenchmarkCountDistinctUsers(b *testing.B) {
	benchDistinct(b, nil, []opspec.AggSpec{
		{Kind: opspec.AggCount, Arg: partCol(1, coldata.Int64), Distinct: true, Type: coldata.Int64},
	}, 1)
}

// BenchmarkCountDistinctGrouped: GROUP BY RegionID, COUNT(DISTINCT
// UserID) (ClickBench Q9 without its ORDER BY ... LIMIT).
func BenchmarkCountDistinctGrouped(b *testing.B) {
	benchDistinct(b, []expr.Expr{partCol(0, coldata.Int64)}, []opspec.AggSpec{
		{Kind: opspec.AggCount, Arg: partCol(1, coldata.Int64), Distinct: true, Type: coldata.Int64},
	}, 5000)
}

// BenchmarkPairPartsStage: staging alone (hashing, the ranges' caches,
// grouping by part) of hitsUsers' pairs by one range, without and with
// groups; the staged chunks are dropped, not inserted.
func BenchmarkPairPartsStage(b *testing.B) {
	data := hitsUsers()
	gids := make([]uint32, data.Len)
	for i, g := range data.Cols[0].Ints {
		gids[i] = uint32(g)
	}
	for _, grouped := range []bool{false, true} {
		name := "keys"
		if grouped {
			name = "pairs"
		}
		b.Run(name, func(b *testing.B) {
			pp := newPairParts(2, grouped)
			for i := 0; i < b.N; i++ {
				for lo := 0; lo < data.Len; lo += opspec.BatchSize {
					hi := min(lo+opspec.BatchSize, data.Len)
					pp.stageRange(0, gids[lo:hi], data.Cols[1].Ints[lo:hi], nil, 0, hi-lo)
					pp.dropChunks()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(data.Len), "ns/row")
		})
	}
}

// BenchmarkPairPartsInsert: hitsUsers' pairs staged by one range and
// inserted into the parts of 2 or 16 workers (8 or 64 parts: sets of some
// megabytes, or of the size of a core's cache) at every pairFlushPairs,
// without and with groups; reports the time of the flushes alone per
// staged pair (flush-ns/pair) besides the total.
func BenchmarkPairPartsInsert(b *testing.B) {
	data := hitsUsers()
	gids := make([]uint32, data.Len)
	for i, g := range data.Cols[0].Ints {
		gids[i] = uint32(g)
	}
	st := make([]uint64, 1<<16)
	for _, grouped := range []bool{false, true} {
		for _, workers := range []int{2, 16} {
			name := fmt.Sprintf("keys/workers=%d", workers)
			if grouped {
				name = fmt.Sprintf("pairs/workers=%d", workers)
			}
			b.Run(name, func(b *testing.B) {
				var flushing time.Duration
				staged := 0
				for i := 0; i < b.N; i++ {
					pp := newPairParts(workers, grouped)
					flush := func() {
						t0 := time.Now()
						pp.flush(st, 1, 0)
						flushing += time.Since(t0)
					}
					for lo := 0; lo < data.Len; lo += opspec.BatchSize {
						hi := min(lo+opspec.BatchSize, data.Len)
						pp.stageRange(0, gids[lo:hi], data.Cols[1].Ints[lo:hi], nil, 0, hi-lo)
						pp.staged += pp.rangeStaged[0]
						staged += pp.rangeStaged[0]
						if pp.staged >= pairFlushPairs {
							flush()
						}
					}
					flush()
					pp.release()
				}
				b.ReportMetric(float64(flushing.Nanoseconds())/float64(staged), "flush-ns/pair")
			})
		}
	}
}
