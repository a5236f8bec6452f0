package gsql_test

import (
	"context"
	"errors"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/planner"
)

func TestResultSchema(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	if _, err := db.Exec(ctx, `CREATE TABLE r (a BIGINT, b VARCHAR); INSERT INTO r VALUES (1, 'x')`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		args []any
	}{{`SELECT a, b FROM r`, nil}, {`SELECT COUNT(*) AS n, MAX(b) FROM r GROUP BY a`, nil}, {`SELECT a + ? FROM r`, []any{int64(1)}}} {
		q := c.q
		got, err := db.ResultSchema(ctx, q, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rdr, err := db.Query(ctx, q, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		want := rdr.Schema()
		rdr.Release()
		if !got.Equal(want) {
			t.Fatalf("%s: ResultSchema %v, the query's reader %v", q, got, want)
		}
	}
	// Not a query: no schema, and nothing happens.
	if s, err := db.ResultSchema(ctx, `INSERT INTO r VALUES (2, 'y')`); s != nil || err != nil {
		t.Fatalf("INSERT: %v, %v", s, err)
	}
	var n int64
	rdr, _ := db.Query(ctx, `SELECT COUNT(*) FROM r`)
	for rdr.Next() {
		n = rdr.Record().Column(0).(interface{ Value(int) int64 }).Value(0)
	}
	rdr.Release()
	if n != 1 {
		t.Fatalf("%d rows after ResultSchema of an INSERT, want 1", n)
	}
	var pe *planner.Error
	if _, err := db.ResultSchema(ctx, `SELECT nope FROM r`); !errors.As(err, &pe) {
		t.Fatalf("unknown column: %v", err)
	}
}
