//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// scanCols matches a GPU scan's EXPLAIN ANALYZE line: the bytes it
// uploaded and where its columns came from.
var scanCols = regexp.MustCompile(`Scan (\w+) .*\[gpu\] .* bytes=(\d+) .*cols_resident=(\d+) cols_uploaded=(\d+) cols_streamed=(\d+)`)

// scanUse is one table's GPU scans in a query, summed.
type scanUse struct{ bytes, resident, uploaded, streamed int }

// tpchScans runs EXPLAIN ANALYZE of TPC-H query n and returns its GPU
// scans' uploads by table.
func tpchScans(t testing.TB, db *gsql.DB, n int) map[string]scanUse {
	t.Helper()
	ctx := context.Background()
	stmts, err := queries.Statements(n)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]scanUse{}
	for i, s := range stmts {
		if i != queries.Answer(n) {
			if _, err := db.Exec(ctx, s); err != nil {
				t.Fatalf("q%02d statement %d: %v", n, i+1, err)
			}
			continue
		}
		rdr, err := db.Query(ctx, "EXPLAIN ANALYZE "+s)
		if err != nil {
			t.Fatalf("q%02d: %v", n, err)
		}
		for rdr.Next() {
			rec := rdr.Record()
			for r := 0; r < int(rec.NumRows()); r++ {
				line := rec.Column(0).ValueStr(r)
				if m := scanCols.FindStringSubmatch(line); m != nil {
					u := out[m[1]]
					for j, p := range []*int{&u.bytes, &u.resident, &u.uploaded, &u.streamed} {
						v, _ := strconv.Atoi(m[j+2])
						*p += v
					}
					out[m[1]] = u
				}
			}
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			t.Fatalf("q%02d: %v", n, err)
		}
	}
	return out
}

// cappedTPCH loads TPC-H at sf into a GPU database whose pool limit is
// three times the bytes Q6 uploads to scan lineitem (measured on an
// uncapped database): Q6's columns fit the table's resident half, the
// lineitem table does not.
func cappedTPCH(t testing.TB, sf float64) (*gsql.DB, uint64) {
	t.Helper()
	ctx := context.Background()
	probe, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	if err := tpch.Load(ctx, probe, sf); err != nil {
		t.Fatal(err)
	}
	q6 := tpchScans(t, probe, 6)["lineitem"]
	probe.Close()
	if q6.bytes == 0 {
		t.Fatalf("Q6 scan uploaded nothing on a fresh database: %+v", q6)
	}
	limit := 3 * uint64(q6.bytes)
	db, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if err := tpch.Load(ctx, db, sf); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db, limit
}

// TestGPUPoolLimitColumns: under a pool limit that holds Q6's lineitem
// columns but not the table, the 22 TPC-H queries give DuckDB's answers
// twice over; a warm Q6 uploads nothing (its columns stayed resident
// while other queries' columns came and went); a query whose columns do
// not all fit streams only some of them, the resident ones read in place.
func TestGPUPoolLimitColumns(t *testing.T) {
	const sf = 0.1
	db, limit := cappedTPCH(t, sf)
	defer db.Close()
	ctx := context.Background()
	for run := 1; run <= 2; run++ {
		for n := 1; n <= queries.Count; n++ {
			want, err := readAnswer(filepath.Join("testdata", "tpch", fmt.Sprintf("sf%g", sf), fmt.Sprintf("q%02d.tsv", n)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := runTPCH(ctx, db, n)
			if err != nil {
				t.Fatalf("run %d, q%02d under a %d-byte limit: %v", run, n, limit, err)
			}
			if msg := compareAnswers(got, want); msg != "" {
				t.Errorf("run %d, q%02d: %s", run, n, msg)
			}
		}
		requirePoolSettled(t, db)
	}
	tpchScans(t, db, 6) // Q6's columns most recent
	warm := tpchScans(t, db, 6)["lineitem"]
	if warm.bytes != 0 || warm.uploaded != 0 || warm.streamed != 0 || warm.resident == 0 {
		t.Fatalf("warm Q6 under a %d-byte limit: %+v", limit, warm)
	}
	q1 := tpchScans(t, db, 1)["lineitem"]
	again := tpchScans(t, db, 1)["lineitem"]
	t.Logf("limit %d: Q1 lineitem %+v then %+v; cache %+v", limit, q1, again, *db.Stats().Cache)
	if again.streamed > 0 && again.resident == 0 {
		t.Fatalf("Q1 streams with nothing resident: %+v", again)
	}
	if again.bytes > q1.bytes {
		t.Fatalf("Q1 uploaded more warm (%d bytes) than before (%d)", again.bytes, q1.bytes)
	}
	requirePoolSettled(t, db)
}

// BenchmarkGPUWarmUnderCap times warm TPC-H Q6 and Q1 (scale factor
// TPCH_BENCH_SF, default 1) under a pool limit of three times Q6's
// lineitem columns: Q6's columns stay resident, the table does not fit.
// It reports the bytes each run uploads.
func BenchmarkGPUWarmUnderCap(b *testing.B) {
	sf := 1.0
	if s := os.Getenv("TPCH_BENCH_SF"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("TPCH_BENCH_SF=%q: %v", s, err)
		}
		sf = v
	}
	db, limit := cappedTPCH(b, sf)
	defer db.Close()
	ctx := context.Background()
	for _, n := range []int{6, 1} {
		b.Run(fmt.Sprintf("q%02d", n), func(b *testing.B) {
			for range 2 { // cold, then the columns that fit are resident
				if _, err := runTPCH(ctx, db, n); err != nil {
					b.Fatal(err)
				}
			}
			before := db.Stats().GPU.BytesToDevice
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := runTPCH(ctx, db, n); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(db.Stats().GPU.BytesToDevice-before)/float64(b.N), "uploaded_B/op")
			b.ReportMetric(float64(limit), "pool_limit_B")
			b.Logf("%s", strings.TrimSpace(fmt.Sprint(*db.Stats().Cache)))
		})
	}
}

// fillerTable is a table of rows rows: id BIGINT (0..rows-1, reversed when
// rev), f1 and f2 text of width bytes.
func fillerTable(rows, width int, rev bool) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f1", Type: arrow.BinaryTypes.String},
		{Name: "f2", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	pad := strings.Repeat("x", width-8)
	for i := range rows {
		id := i
		if rev {
			id = rows - 1 - i
		}
		b.Field(0).(*array.Int64Builder).Append(int64(id))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%08d", id%100000000) + pad)
		b.Field(2).(*array.StringBuilder).Append(pad + fmt.Sprintf("%08d", i%100000000))
	}
	return schema, []arrow.Record{b.NewRecord()}
}

// TestGPUJoinEvictsPartialKeeps: under a 64 MiB pool two tables each keep
// part of their columns resident (their key and one text column; the
// other text column streams), about 40 MiB together. A join of the two
// whose results need most of the pool runs on the GPU with the CPU
// backend's answers: its allocations evict the idle columns (counted as
// pressure evictions) instead of running out of memory, and the pool
// settles to the resident columns afterwards. This is the join that ran
// out of memory on the H200 when two tables held partial shares.
func TestGPUJoinEvictsPartialKeeps(t *testing.T) {
	const limit = 64 << 20
	db, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: limit})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	const rows, width = 150_000, 120 // a text column about 18.6 MB, key and one fit the 32 MiB share
	for _, d := range []*gsql.DB{db, cpu} {
		for _, name := range []string{"a", "b"} {
			schema, recs := fillerTable(rows, width, name == "b")
			if err := d.RegisterTable(name, schema, recs); err != nil {
				t.Fatal(err)
			}
		}
	}
	same := func(q string) {
		t.Helper()
		got, want := sortedRows(t, db, q), sortedRows(t, cpu, q)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: GPU result (%d rows) differs from the CPU backend (%d rows)", q, len(got), len(want))
		}
	}
	for _, name := range []string{"a", "b"} {
		same(fmt.Sprintf("SELECT COUNT(*), MAX(id), MAX(f1), MAX(f2) FROM %s", name))
	}
	st := db.Stats()
	t.Logf("after the partial keeps: cache %+v, %d bytes in use", *st.Cache, st.GPU.InUse)
	if st.Cache.Tables != 2 || st.Cache.Streamed < 2 || st.Cache.Bytes < limit/2 {
		t.Fatalf("setup: want two tables partly resident, over half the pool: %+v", *st.Cache)
	}
	before := st.Cache.PressureEvictions
	for _, q := range []string{
		// The build side reads b's keys only (1.2 MB, under a quarter of
		// the limit: a GPU join); a's key and f1 probe it.
		"SELECT COUNT(*), SUM(b.id), MAX(a.f1) FROM a JOIN b ON a.id = b.id",
		// Results of about 24 MB beside the 40 resident: b's idle f1
		// must go.
		"SELECT CONCAT(REPEAT(a.f1, 3), a.f2) FROM a JOIN b ON a.id = b.id WHERE b.id % 3 = 0",
	} {
		same(q)
		requirePoolSettled(t, db)
		t.Logf("%s: cache %+v", q, *db.Stats().Cache)
	}
	if st := db.Stats(); st.Cache.PressureEvictions == before {
		t.Fatalf("no resident column was evicted for the joins: %+v", *st.Cache)
	}
}
