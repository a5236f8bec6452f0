//go:build cuda

package gsql_test

import (
	"context"
	"os"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// oneRowQueries are warm queries with one-row results over a resident
// table: their time is the engine's fixed cost per query.
var oneRowQueries = []struct{ name, sql string }{
	{"count_where", "SELECT COUNT(*) FROM people WHERE visibility = 'public'"},
	{"sum_length", "SELECT SUM(LENGTH(name)) FROM people"},
	{"max_upper", "SELECT MAX(UPPER(name)) FROM people WHERE name LIKE 'A%'"},
}

// BenchmarkGPUOneRow times warm one-row queries over 600K resident rows
// end to end through DB.Query (parse, plan, launch, download, Arrow).
// With -test.cpuprofile it shows where the fixed cost goes.
func BenchmarkGPUOneRow(b *testing.B) {
	ctx := context.Background()
	schema, recs := datagen.People(600_000, 42)
	for _, device := range []string{"gpu", "cpu"} {
		db, err := gsql.Open(gsql.Options{Device: device})
		if err != nil {
			b.Skipf("%s: %v", device, err)
		}
		if err := db.RegisterTable("people", schema, recs); err != nil {
			b.Fatal(err)
		}
		if err := db.WaitGPU(ctx); err != nil && device == "gpu" {
			b.Fatal(err)
		}
		for _, q := range oneRowQueries {
			run := func() {
				rdr, err := db.Query(ctx, q.sql)
				if err != nil {
					b.Fatal(err)
				}
				n := int64(0)
				for rdr.Next() {
					n += rdr.Record().NumRows()
				}
				if err := rdr.Err(); err != nil || n != 1 {
					b.Fatalf("%s: %d rows, %v", q.name, n, err)
				}
				rdr.Release()
			}
			for i := 0; i < 20; i++ { // compile, upload, settle
				run()
			}
			waitCompiles(b, db)
			run() // on the fused kernels now
			b.Run(device+"/"+q.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					run()
				}
			})
		}
		db.Close()
	}
}

// TestWarmQueryReport (GSQL_WARM_REPORT=1) breaks the warm one-row
// queries' time down: the whole statement through DB.Query, planning alone
// (EXPLAIN), and the GPU time between the query's first and last device
// work (events), with one EXPLAIN ANALYZE per query.
func TestWarmQueryReport(t *testing.T) {
	if os.Getenv("GSQL_WARM_REPORT") == "" {
		t.Skip("GSQL_WARM_REPORT not set")
	}
	ctx := context.Background()
	db := openGPUPeople(t, 600_000)
	defer db.Close()
	if err := db.WaitGPU(ctx); err != nil {
		t.Fatal(err)
	}
	type devTimed interface {
		DeviceTime() (time.Duration, bool)
	}
	for _, q := range oneRowQueries {
		rowsOf(t, db, q.sql)
		waitCompiles(t, db) // time the fused kernels, not the interpreter
		var whole, plan, dev []time.Duration
		for i := 0; i < 120; i++ {
			t0 := time.Now()
			rdr, err := db.Query(db.WithDeviceTiming(ctx), q.sql)
			if err != nil {
				t.Fatal(err)
			}
			for rdr.Next() {
			}
			rdr.Release()
			d := time.Since(t0)
			if dt, ok := rdr.(devTimed); ok {
				if g, ok := dt.DeviceTime(); ok && i >= 20 {
					dev = append(dev, g)
				}
			}
			t1 := time.Now()
			e, err := db.Query(ctx, "EXPLAIN "+q.sql)
			if err != nil {
				t.Fatal(err)
			}
			for e.Next() {
			}
			e.Release()
			if i >= 20 {
				whole = append(whole, d)
				plan = append(plan, time.Since(t1))
			}
		}
		t.Logf("%s: whole %v, EXPLAIN (parse+plan) %v, device span %v", q.name, median(whole), median(plan), median(dev))
		for _, line := range rowsOf(t, db, "EXPLAIN ANALYZE "+q.sql) {
			t.Logf("    %s", line)
		}
	}
}
