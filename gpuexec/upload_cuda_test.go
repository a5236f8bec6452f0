//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// BenchmarkCUDAUpload uploads a batch of 8M rows (BIGINT, text, BOOLEAN
// and DOUBLE columns in 16 host parts, as a streamed scan's chunk) and
// reports host-to-device GB/s: the columns packed and sent in pieces, each
// piece's copy beside the next one's packing, and ("whole") all packed
// before one copy.
func BenchmarkCUDAUpload(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	r := rand.New(rand.NewSource(3))
	var parts []*coldata.Batch
	for i := 0; i < 16; i++ {
		parts = append(parts, randBatchLight(r, 1<<19))
	}
	defer func(p int64) { uploadPiece = p }(uploadPiece)
	for _, piece := range []int64{16 << 20, 64 << 20, 1 << 40} {
		name := fmt.Sprintf("piece=%dMiB", piece>>20)
		if piece == 1<<40 {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			uploadPiece = piece
			var bytes uint64
			for i := 0; i < b.N; i++ {
				db, err := d.UploadBatches(ctx, parts)
				if err != nil {
					b.Fatal(err)
				}
				bytes += db.ColumnBytes()
				db.Release()
			}
			b.ReportMetric(float64(bytes)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
