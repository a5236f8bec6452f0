package catalog

import (
	"fmt"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/coldata"
)

// BenchmarkComputeStats computes the statistics of a 10M-row table of
// four columns (BIGINT key, DOUBLE, short VARCHAR, DATE) in records of 1M
// rows, as CREATE TABLE and an import do; rows/s is per core used.
//
//	go test -run '^$' -bench BenchmarkComputeStats -benchtime 3x ./catalog/
func BenchmarkComputeStats(b *testing.B) {
	const rows, per = 10_000_000, 1_000_000
	cols := []Column{{Name: "k", Type: coldata.Int64}, {Name: "f", Type: coldata.Float64}, {Name: "s", Type: coldata.String}, {Name: "d", Type: coldata.Date}}
	schema := Schema(cols)
	var recs []arrow.Record
	for r := 0; r < rows; r += per {
		bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := r; i < r+per; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			bld.Field(1).(*array.Float64Builder).Append(float64(i%100000) / 100)
			bld.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("MFGR#%d", i%1000))
			bld.Field(3).(*array.Date32Builder).Append(arrow.Date32(8000 + i%2557))
		}
		recs = append(recs, bld.NewRecord())
		bld.Release()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st := ComputeStats(recs, len(cols))
		if d := st[0].Distinct(rows); d < rows*0.95 {
			b.Fatalf("%g distinct keys", d)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
