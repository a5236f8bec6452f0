package gsql_test

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
)

// TestUpdateFailingOnLastRowChangesNothing: a 1M-row UPDATE whose last row
// overflows fails and leaves every row as it was.
func TestUpdateFailingOnLastRowChangesNothing(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	const n = 1_000_000
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i := int64(0); i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		v := i
		if i == n-1 {
			v = math.MaxInt64
		}
		b.Field(1).(*array.Int64Builder).Append(v)
	}
	rec := b.NewRecord()
	defer rec.Release()
	if err := db.RegisterTable("big", schema, []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "UPDATE big SET v = v + 1"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("UPDATE: %v, want an out-of-range error", err)
	}
	if got := rowsOf(t, db, "SELECT COUNT(*), MAX(v) FROM big WHERE v = id OR v = 9223372036854775807"); len(got) != 1 || got[0] != "1000000|9223372036854775807" {
		t.Fatalf("after the failed UPDATE: %v", got)
	}
	res, err := db.Exec(ctx, "UPDATE big SET v = v + 1 WHERE id < 10")
	if err != nil || res.RowsAffected != 10 {
		t.Fatalf("UPDATE of 10 rows: %v, %d rows", err, res.RowsAffected)
	}
	res, err = db.Exec(ctx, "DELETE FROM big WHERE id >= 10")
	if err != nil || res.RowsAffected != n-10 {
		t.Fatalf("DELETE: %v, %d rows", err, res.RowsAffected)
	}
	if got := rowsOf(t, db, "SELECT COUNT(*), SUM(v) FROM big"); len(got) != 1 || got[0] != "10|55" {
		t.Fatalf("after UPDATE and DELETE: %v", got)
	}
}

// TestUpdateConcurrentReaders: readers running beside UPDATEs see a whole
// snapshot, old or new, never a mix (run under -race in CI's race step).
func TestUpdateConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	if _, err := db.Exec(ctx, "CREATE TABLE c (k BIGINT, v BIGINT)"); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 100; k++ {
		if _, err := db.Exec(ctx, "INSERT INTO c VALUES (?, 0)", k); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Every UPDATE sets all rows to one value: a snapshot has
				// one distinct value.
				got := rowsOf(t, db, "SELECT COUNT(DISTINCT v), COUNT(*) FROM c")
				if len(got) != 1 || got[0] != "1|100" {
					t.Errorf("mixed snapshot: %v", got)
					return
				}
			}
		}()
	}
	for i := 1; i <= 30; i++ {
		if _, err := db.Exec(ctx, "UPDATE c SET v = ?", i); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
