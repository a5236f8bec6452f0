package gsql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql"
)

// TestCountStarReadsRowCounts: COUNT(*) over a table of many segments
// reads one batch of the summed row counts (not a batch per segment),
// and still counts every row; a scan of no columns elsewhere (constants
// per row under a LIMIT) keeps its segments.
func TestCountStarReadsRowCounts(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var recs []arrow.Record
	total := 0 // 631,332 rows
	for i := 0; i < 9; i++ {
		b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
		for r := 0; r < 70_000+i*37; r++ {
			b.Field(0).(*array.Int64Builder).Append(int64(r))
			total++
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	if err := db.RegisterTable("t", schema, recs); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q, want, scan string
	}{
		{"SELECT COUNT(*) FROM t", fmt.Sprint(total), "] (631332 rows) [cpu] rows=631332 batches=1 "},
		{"SELECT COUNT(*), COUNT(*) + 1 FROM t", fmt.Sprintf("%d|%d", total, total+1), "] (631332 rows) [cpu] rows=631332 batches=1 "},
		{"SELECT COUNT(*) FROM t WHERE x > 50", "", ""},
	} {
		got := strings.Join(rowsOf(t, db, c.q), ";")
		if c.want != "" && got != c.want {
			t.Errorf("%s: %s, want %s", c.q, got, c.want)
		}
		if c.scan == "" {
			continue
		}
		plan := strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE "+c.q), "\n")
		if !strings.Contains(plan, "Scan t [] (") || !strings.Contains(plan, c.scan) {
			t.Errorf("%s: want a scan with %q:\n%s", c.q, c.scan, plan)
		}
	}
	// SELECT 1 per row under a LIMIT: not one batch of every row.
	if got := rowsOf(t, db, "SELECT 1 FROM t LIMIT 2"); len(got) != 2 {
		t.Errorf("SELECT 1 FROM t LIMIT 2: %q", got)
	}
	if got := rowsOf(t, db, "SELECT COUNT(*) FROM (SELECT 1 FROM t) s"); len(got) != 1 || got[0] != fmt.Sprint(total) {
		t.Errorf("count of a derived table: %q", got)
	}
}

// BenchmarkCountStarWideTable: COUNT(*) over a table of 60 columns in 400
// segments reads the segments' row counts only (no column converted).
func BenchmarkCountStarWideTable(b *testing.B) {
	var fields []arrow.Field
	for c := 0; c < 60; c++ {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", c), Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.Record
	for i := 0; i < 400; i++ {
		rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
		for c := range fields {
			for r := 0; r < 1000; r++ {
				rb.Field(c).(*array.Int64Builder).Append(int64(r + c))
			}
		}
		recs = append(recs, rb.NewRecord())
		rb.Release()
	}
	db := openTestDB(b, gsql.Options{Device: "cpu"})
	if err := db.RegisterTable("w", schema, recs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := rowsOf(b, db, "SELECT COUNT(*) FROM w"); got[0] != "400000" {
			b.Fatalf("COUNT(*) = %v", got)
		}
	}
}
