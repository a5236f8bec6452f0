package gsql_test

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/operators"
)

// BenchmarkAggBatches runs a GROUP BY over two device batches too large
// together to concatenate (the limit lowered to 256 MiB, as TPC-H Q1's
// two batches at SF10 are over the 2 GiB one) on GSQL_BENCH_DEVICE
// (skipped unless set: gpu on the device machine, or cpu), with
// GSQL_AGG_BENCH_ROWS rows (default 40M):
//
//	GSQL_BENCH_DEVICE=gpu go test -tags cuda -run '^$' -bench AggBatches -benchtime 5x .
//
// "few" is Q1's shape (two keys of 3 and 2 values, eight aggregates),
// "many" a key of rows/4 values under ORDER BY COUNT LIMIT. "batches"
// is the adaptive choice (operators.AggFewRows), "partitioned" every row
// partitioned by key, as before it. The first run of each is untimed
// (the table becomes resident, the kernels compile) and its EXPLAIN
// ANALYZE is logged.
func BenchmarkAggBatches(b *testing.B) {
	dev := os.Getenv("GSQL_BENCH_DEVICE")
	if dev == "" {
		b.Skip("set GSQL_BENCH_DEVICE (gpu, cpu)")
	}
	rows := 40_000_000
	if s := os.Getenv("GSQL_AGG_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			b.Fatalf("GSQL_AGG_BENCH_ROWS=%q: %v", s, err)
		}
		rows = n
	}
	defer func(n, c, f int) { operators.DeviceBatchRows, operators.AggConcatBytes, operators.AggFewRows = n, c, f }(
		operators.DeviceBatchRows, operators.AggConcatBytes, operators.AggFewRows)
	operators.DeviceBatchRows = (rows + 1) / 2
	operators.AggConcatBytes = 256 << 20
	schema, recs := aggBenchRecords(rows)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	db := openTestDB(b, gsql.Options{Device: dev})
	if err := db.RegisterTable("l", schema, recs); err != nil {
		b.Fatal(err)
	}
	queries := map[string]string{
		"few": `SELECT flag, status, SUM(qty), SUM(price), SUM(price * (1 - disc)), SUM(price * (1 - disc) * (1 + tax)),
			AVG(qty), AVG(price), AVG(disc), COUNT(*) FROM l WHERE ship <= 2400 GROUP BY flag, status ORDER BY flag, status`,
		"many": `SELECT id, COUNT(*) AS c, SUM(qty) FROM l GROUP BY id ORDER BY c DESC, id LIMIT 10`,
	}
	few := operators.AggFewRows
	ctx := context.Background()
	run := func(b *testing.B, q string) {
		rdr, err := db.Query(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		for rdr.Next() {
		}
		if err := rdr.Err(); err != nil {
			b.Fatal(err)
		}
		rdr.Release()
	}
	for _, shape := range []string{"few", "many"} {
		for _, path := range []string{"batches", "partitioned"} {
			b.Run(shape+"/"+path, func(b *testing.B) {
				operators.AggFewRows = few
				if path == "partitioned" {
					operators.AggFewRows = 0
				}
				q := queries[shape]
				plan := rowsOf(b, db, "EXPLAIN ANALYZE "+q)
				if b.N == 1 {
					b.Logf("%s:\n%s", q, strings.Join(plan, "\n"))
				}
				b.ResetTimer()
				t0 := time.Now()
				for i := 0; i < b.N; i++ {
					run(b, q)
				}
				b.ReportMetric(float64(time.Since(t0).Microseconds())/1e3/float64(b.N), "ms/query")
			})
		}
	}
}

// aggBenchRecords makes the table l, lineitem-like, in records of 1M
// rows: flag (3 values), status (2), qty, price, disc, tax, ship (a day
// number), id (rows/4 values).
func aggBenchRecords(rows int) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "flag", Type: arrow.BinaryTypes.String},
		{Name: "status", Type: arrow.BinaryTypes.String},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "disc", Type: arrow.PrimitiveTypes.Float64},
		{Name: "tax", Type: arrow.PrimitiveTypes.Float64},
		{Name: "ship", Type: arrow.PrimitiveTypes.Int64},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	rng := rand.New(rand.NewSource(40))
	ids := int64(max(1, rows/4))
	var recs []arrow.Record
	for start := 0; start < rows; start += 1_000_000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		n := min(rows-start, 1_000_000)
		for _, f := range b.Fields() {
			f.Reserve(n)
		}
		for i := 0; i < n; i++ {
			b.Field(0).(*array.StringBuilder).Append([]string{"A", "N", "R"}[rng.Intn(3)])
			b.Field(1).(*array.StringBuilder).Append([]string{"O", "F"}[rng.Intn(2)])
			b.Field(2).(*array.Int64Builder).Append(int64(1 + rng.Intn(50)))
			b.Field(3).(*array.Float64Builder).Append(float64(rng.Intn(10_000_000)) / 100)
			b.Field(4).(*array.Float64Builder).Append(float64(rng.Intn(11)) / 100)
			b.Field(5).(*array.Float64Builder).Append(float64(rng.Intn(9)) / 100)
			b.Field(6).(*array.Int64Builder).Append(int64(rng.Intn(2500)))
			b.Field(7).(*array.Int64Builder).Append(rng.Int63n(ids))
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return schema, recs
}
