//go:build cuda

package gsql_test

import (
	"context"
	"testing"

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
			b.Run(device+"/"+q.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					run()
				}
			})
		}
		db.Close()
	}
}
