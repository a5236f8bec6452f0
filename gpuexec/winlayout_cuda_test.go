//go:build cuda

package gpuexec

import (
	"context"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestCUDASortWindow builds window layouts on the GPU (the CUDA kernels of
// winlayout.cu) and compares them with a stable sort on the host, as
// TestFakeSortWindow does with the Go twins, up to 2^20 rows.
func TestCUDASortWindow(t *testing.T) {
	d := cudaDevice(t)
	runSortWindowCases(t, d, []int{1, 7, 5000, 1 << 20})
	requireNoLeak(t, d, "window layouts")
}

// BenchmarkCUDASortWindow builds the layout of 10M rows on the device:
// PARTITION BY a day (31 values) ORDER BY a count DESC (one packed sort
// word), the same with ROW_NUMBER over the default frame, and a random
// 64-bit order key with NULLs under the day (two sort words).
func BenchmarkCUDASortWindow(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	const n = 10_000_000
	r := rand.New(rand.NewSource(3))
	day, cnt, wide := coldata.NewBuilder(coldata.Date, n), coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		day.AppendInt(int64(19000 + r.Intn(31)))
		cnt.AppendInt(int64(r.Intn(1_000_000)))
		if r.Intn(20) == 0 {
			wide.AppendNull()
		} else {
			wide.AppendInt(int64(r.Uint64()))
		}
	}
	in, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{day.Finish(), cnt.Finish(), wide.Finish()}, n))
	if err != nil {
		b.Fatal(err)
	}
	defer in.Release()
	for _, c := range []struct {
		name      string
		keys      []WindowKey
		rowNumber bool
	}{
		{"day, count desc", []WindowKey{{Col: in.Cols[0], NullsFirst: true}, {Col: in.Cols[1], Desc: true}}, false},
		{"day, count desc, row_number", []WindowKey{{Col: in.Cols[0], NullsFirst: true}, {Col: in.Cols[1], Desc: true}}, true},
		{"day, wide key", []WindowKey{{Col: in.Cols[0], NullsFirst: true}, {Col: in.Cols[2], NullsFirst: true}}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				l, err := d.SortWindow(ctx, n, c.keys, 1)
				if err != nil {
					b.Fatal(err)
				}
				if c.rowNumber {
					out, err := l.Rank(ctx, WindowRowNumber, 0, nil)
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
				if err := d.Synchronize(); err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					b.ReportMetric(float64(l.Launches), "launches")
				}
				l.Release()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
