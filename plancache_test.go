package gsql_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestPlanCache(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, "CREATE TABLE t (a BIGINT, b VARCHAR)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')")
	q := "SELECT a, b FROM t WHERE a > 1 ORDER BY a"
	hits := func() uint64 { return db.Stats().Plans.Hits }
	steps := []struct {
		do       string // a statement run before q
		want     string
		wantHits uint64 // hits after running q
	}{
		{"", "2|y 3|z", 0},
		{"", "2|y 3|z", 1},
		{"", "2|y 3|z", 2},
		{"INSERT INTO t VALUES (4, 'w')", "2|y 3|z 4|w", 2}, // the table changed: planned again
		{"", "2|y 3|z 4|w", 3},
		{"UPDATE t SET b = 'Y' WHERE a = 2", "2|Y 3|z 4|w", 3},
		{"CREATE VIEW v AS SELECT 1", "2|Y 3|z 4|w", 3},
		{"", "2|Y 3|z 4|w", 4},
	}
	for i, s := range steps {
		if s.do != "" {
			mustExec(t, db, s.do)
		}
		if got := strings.Join(rowsOf(t, db, q), " "); got != s.want {
			t.Fatalf("step %d: %q, want %q", i, got, s.want)
		}
		if h := hits(); h != s.wantHits {
			t.Fatalf("step %d: %d hits, want %d", i, h, s.wantHits)
		}
	}
	// A dropped table makes the cached plan miss, and planning fails.
	mustExec(t, db, "DROP TABLE t")
	if _, err := db.Query(context.Background(), q); err == nil || !strings.Contains(err.Error(), "t") {
		t.Fatalf("query of a dropped table: %v", err)
	}
	// Statements with arguments are cached per argument values; those
	// naming volatile functions are not cached.
	mustExec(t, db, "CREATE TABLE t (a BIGINT, b VARCHAR)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	before := hits()
	for i := 0; i < 3; i++ {
		for _, arg := range []any{int64(1), "2", nil} {
			want := map[any]string{int64(1): "x", "2": "y", nil: ""}[arg]
			if got := strings.Join(rowsOf(t, db, "SELECT b FROM t WHERE a = ?", arg), " "); got != want {
				t.Fatalf("argument %v: %q, want %q", arg, got, want)
			}
		}
		rowsOf(t, db, "SELECT a AS nowhere FROM t")                               // names "now": conservatively not cached
		rowsOf(t, db, "SELECT COUNT(*) FROM t WHERE a < 5 AND NOW() IS NOT NULL") // volatile: not cached
		rowsOf(t, db, "SELECT a AS brand, a AS known FROM t")                     // no volatile call: cached
	}
	if h := hits() - before; h != 8 {
		t.Fatalf("%d hits, want 8 (3 argument values and one statement naming no volatile function, run 3 times)", h)
	}
	// An error is not cached.
	for i := 0; i < 2; i++ {
		if _, err := db.Query(context.Background(), "SELECT nope FROM t"); err == nil {
			t.Fatal("unknown column accepted")
		}
	}
}

// Queries sharing one cached plan run concurrently with inserts that
// invalidate it; each sees a whole snapshot (run under -race in CI).
func TestPlanCacheConcurrent(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, "CREATE TABLE c (a BIGINT)")
	mustExec(t, db, "INSERT INTO c VALUES (1), (2)")
	q := "SELECT COUNT(*), SUM(a) FROM c WHERE a > 0"
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				rows := rowsOf(t, db, q)
				var n, sum int64
				if _, err := fmt.Sscanf(rows[0], "%d|%d", &n, &sum); err != nil {
					errs <- err
					return
				}
				if sum != n*(n+1)/2 { // the table holds 1..n
					errs <- fmt.Errorf("count %d with sum %d: a mixed snapshot", n, sum)
					return
				}
			}
		}()
	}
	for i := 3; i <= 40; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO c VALUES (%d)", i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if db.Stats().Plans.Hits == 0 {
		t.Fatal("no cached plan was used")
	}
}
