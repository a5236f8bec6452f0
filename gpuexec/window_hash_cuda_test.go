//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestCUDAWindowHashed runs the hashed window's kernels on the GPU
// against the host reference (the fake-device test's cases).
func TestCUDAWindowHashed(t *testing.T) {
	d := cudaDevice(t)
	runWindowHashed(t, d, []int{1, 300, 100_000, 1_000_000})
	requireNoLeak(t, d, "window hashed")
}

// TestCUDAWindowAggregate runs the window aggregate kernels (COUNT, SUM
// and AVG of integers, AVG as DOUBLE and as MySQL's DECIMAL) on the GPU
// against the host reference (the fake-device test's cases), and their
// limits: an average whose sum may pass BIGINT goes to the host.
func TestCUDAWindowAggregate(t *testing.T) {
	d := cudaDevice(t)
	runWindowAggregate(t, d, 200_000)
	runWindowAggregateLimits(t, d)
	requireNoLeak(t, d, "window aggregate")
}

// BenchmarkCUDAWindowHashed is COUNT(*) and SUM(x) OVER (PARTITION BY k)
// over 1.5M device rows (issue 40's region shape: 5 keys) and over 100K
// keys: the table, the per-row finish and the result buffers.
func BenchmarkCUDAWindowHashed(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	const n = 1_500_000
	for _, card := range []int{5, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", card), func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			kb, xb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
			for i := 0; i < n; i++ {
				kb.AppendInt(int64(rng.Intn(card)))
				xb.AppendInt(int64(rng.Intn(1000)))
			}
			db, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{kb.Finish(), xb.Finish()}, n))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Release()
			aggs := []WindowHashAgg{{CountStar: true, Out: coldata.Int64}, {Kind: WindowSum, Arg: 1, Out: coldata.Int64}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := d.WindowHashed(ctx, db, []int{0}, aggs)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
