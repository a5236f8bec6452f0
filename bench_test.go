package gsql_test

import (
	"context"
	"fmt"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// BenchmarkRedact runs DESIGN.md's redact query on generated people tables
// on the CPU backend and reports rows/s and input+output GB/s.
//
//	go test -run '^$' -bench Redact -benchtime 3x .
func BenchmarkRedact(b *testing.B) {
	for _, rows := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			if testing.Short() && rows > 1_000_000 {
				b.Skip("short")
			}
			db := openTestDB(b, gsql.Options{Device: "cpu"})
			schema, recs := datagen.People(rows, 42)
			if err := db.RegisterTable("people", schema, recs); err != nil {
				b.Fatal(err)
			}
			var inBytes int64
			for _, r := range recs {
				for c := 0; c < int(r.NumCols()); c++ {
					for _, buf := range r.Column(c).Data().Buffers() {
						if buf != nil {
							inBytes += int64(buf.Len())
						}
					}
				}
			}
			ctx := context.Background()
			b.ResetTimer()
			var outBytes int64
			for i := 0; i < b.N; i++ {
				rdr, err := db.Query(ctx, redactQuery)
				if err != nil {
					b.Fatal(err)
				}
				outBytes = 0
				n := 0
				for rdr.Next() {
					rec := rdr.Record()
					n += int(rec.NumRows())
					for _, buf := range rec.Column(0).Data().Buffers() {
						if buf != nil {
							outBytes += int64(buf.Len())
						}
					}
				}
				if err := rdr.Err(); err != nil {
					b.Fatal(err)
				}
				rdr.Release()
				if n != rows {
					b.Fatalf("%d rows, want %d", n, rows)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(rows)/sec, "rows/s")
			b.ReportMetric(float64(inBytes+outBytes)/sec/1e9, "GB/s")
		})
	}
}
