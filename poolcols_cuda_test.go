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
