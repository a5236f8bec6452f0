//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/operators"
)

// orderRecords makes the table o: id (unique), k (BIGINT, 0..999 with
// NULLs: ties), f (DOUBLE with NULLs, -0.0, infinities and NaN), d (DATE,
// a year of days), m (DECIMAL(12,2) with NULLs), b (BOOLEAN with NULLs),
// s (text with NULLs), in records of 100,000 rows.
func orderRecords(rows int, seed int64) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "m", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewSource(seed))
	special := []float64{math.Inf(-1), math.Copysign(0, -1), 0, math.Inf(1), math.NaN()}
	var recs []arrow.Record
	for start := 0; start < rows; start += 100_000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := start; i < min(rows, start+100_000); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if rng.Intn(40) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(int64(rng.Intn(1000)))
			}
			switch r := rng.Intn(100); {
			case r < 5:
				b.Field(2).AppendNull()
			case r < 10:
				b.Field(2).(*array.Float64Builder).Append(special[rng.Intn(len(special))])
			default:
				b.Field(2).(*array.Float64Builder).Append(math.Round(rng.NormFloat64()*1e6) / 1e3)
			}
			b.Field(3).(*array.Date32Builder).Append(arrow.Date32(19000 + rng.Intn(365)))
			if rng.Intn(20) == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int63n(2_000_000) - 1_000_000))
			}
			if rng.Intn(10) == 0 {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.BooleanBuilder).Append(rng.Intn(2) == 0)
			}
			if rng.Intn(8) == 0 {
				b.Field(6).AppendNull()
			} else {
				b.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("s%x", rng.Intn(1<<20)))
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return schema, recs
}

// orderQueries are ORDER BY queries over o whose keys the device sorts
// (every order is total: id breaks the ties that remain), with and
// without LIMIT and OFFSET. Each filters on the device (WHERE id >= 0
// keeps every row): a Sort follows its input's placement, and over a bare
// scan that is still the host.
var orderQueries = []string{
	"SELECT * FROM o WHERE id >= 0 ORDER BY k, id",
	"SELECT id, f FROM o WHERE id >= 0 ORDER BY f DESC, id",
	"SELECT id, f, k FROM o WHERE id >= 0 ORDER BY f NULLS LAST, k DESC NULLS FIRST, id",
	"SELECT id, d, m, b FROM o WHERE id >= 0 ORDER BY d DESC, m, b DESC, id",
	"SELECT id, b, k, s FROM o WHERE k < 500 ORDER BY b NULLS FIRST, k % 7 DESC, id DESC",
	"SELECT id, m, s FROM o WHERE id >= 0 ORDER BY m DESC NULLS LAST, id LIMIT 10",
	"SELECT * FROM o WHERE id >= 0 ORDER BY k DESC, f, id LIMIT 10",
	"SELECT * FROM o WHERE id >= 0 ORDER BY f, id LIMIT 25 OFFSET 100",
	"SELECT id, k, d FROM o WHERE id >= 0 ORDER BY d, k, id DESC LIMIT 1000",
	"SELECT id, k FROM o WHERE id >= 0 ORDER BY id DESC LIMIT 600000",
}

// TestGPUOrderByMatchesCPU runs ORDER BY over 1M rows in ten records on
// the GPU, its keys sorted on the device (EXPLAIN says so), and compares
// the rows in order with the CPU backend's; so with text keys, short
// (on the device) and long (on the host).
func TestGPUOrderByMatchesCPU(t *testing.T) {
	schema, recs := orderRecords(1_000_000, 9)
	cpu, gpu := cpuAndGPU(t, "o", schema, recs)
	for _, q := range orderQueries {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q), "\n")
		if !strings.Contains(plan, "(gpu: keys sorted on the device) [gpu]") {
			t.Errorf("%s: the keys are not sorted on the device:\n%s", q, plan)
		}
		if ran := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q), "\n"); strings.Contains(ran, "keys_sorted=host") {
			t.Errorf("%s: the keys were sorted on the host:\n%s", q, ran)
		}
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
	// Text keys: strings of up to 7 bytes pack whole on the device; the
	// 42-byte CONCAT is sorted on the host at run time.
	for _, q := range []string{
		"SELECT id, s, k FROM o WHERE id >= 0 ORDER BY s, id LIMIT 20",
		"SELECT id, s FROM o WHERE id >= 0 ORDER BY k, s DESC, id",
		"SELECT id, s, b FROM o WHERE id >= 0 ORDER BY s DESC NULLS FIRST, b, id",
		"SELECT id, CONCAT(s, s, s, s, s, s) AS l FROM o WHERE id >= 0 ORDER BY l, id",
		"SELECT id, CONCAT(s, s, s, s, s, s) AS l FROM o WHERE id >= 0 ORDER BY l DESC, id LIMIT 15",
	} {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q), "\n")
		if !strings.Contains(plan, "(gpu: keys sorted on the device, and on the host for text past 32 bytes) [gpu]") {
			t.Errorf("%s: the keys are not sorted on the device:\n%s", q, plan)
		}
		ran := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q), "\n")
		if long := strings.Contains(q, "CONCAT"); strings.Contains(ran, "keys_sorted=host") != long {
			t.Errorf("%s: EXPLAIN ANALYZE does not say the keys were sorted on the host just when the text is long (%v):\n%s", q, long, ran)
		}
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
}

// BenchmarkGPUOrderBy times warm ORDER BY over 10M resident rows, full and
// LIMIT 10, with the keys sorted on the device (device) and brought to
// the host to sort there (host): a BIGINT key with ties (k, id), a DOUBLE
// key, three keys of three types, and a short text key.
func BenchmarkGPUOrderBy(b *testing.B) {
	ctx := context.Background()
	schema, recs := orderRecords(10_000_000, 3)
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		b.Skipf("gpu: %v", err)
	}
	defer db.Close()
	if err := db.RegisterTable("o", schema, recs); err != nil {
		b.Fatal(err)
	}
	if err := db.WaitGPU(ctx); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{
		{"bigint_full", "SELECT id, k, f FROM o WHERE id >= 0 ORDER BY k, id"},
		{"bigint_limit10", "SELECT id, k, f FROM o WHERE id >= 0 ORDER BY k, id LIMIT 10"},
		{"double_full", "SELECT id, f FROM o WHERE id >= 0 ORDER BY f DESC"},
		{"double_limit10", "SELECT id, f, s FROM o WHERE id >= 0 ORDER BY f DESC LIMIT 10"},
		{"three_keys_full", "SELECT id, d, m, b FROM o WHERE id >= 0 ORDER BY d DESC, m, b"},
		{"three_keys_limit10", "SELECT * FROM o WHERE id >= 0 ORDER BY d DESC, m, b LIMIT 10"},
		{"text_full", "SELECT id, s FROM o WHERE id >= 0 ORDER BY s"},
		{"text_limit10", "SELECT id, s FROM o WHERE id >= 0 ORDER BY s DESC LIMIT 10"},
	} {
		for _, onHost := range []bool{false, true} {
			path := "device"
			if onHost {
				path = "host"
			}
			restore := operators.SetSortKeysOnHost(onHost)
			run := func() {
				rdr, err := db.Query(ctx, q.sql)
				if err != nil {
					b.Fatal(err)
				}
				n := int64(0)
				for rdr.Next() {
					n += rdr.Record().NumRows()
				}
				if err := rdr.Err(); err != nil || n == 0 {
					b.Fatalf("%s: %d rows, %v", q.sql, n, err)
				}
				rdr.Release()
			}
			for i := 0; i < 2; i++ { // compile, upload, settle
				run()
			}
			waitCompiles(b, db)
			b.Run(fmt.Sprintf("%s/%s", q.name, path), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					run()
				}
			})
			restore()
		}
	}
}
