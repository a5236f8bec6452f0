package difftest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	seedFlag     = flag.Int64("seed", 1, "first data seed (env DIFFTEST_SEED)")
	queriesFlag  = flag.Int("queries", 3000, "queries to run (env DIFFTEST_N)")
	perDataset   = flag.Int("per-dataset", 50, "queries per generated dataset")
	largeFlag    = flag.Int("large", 30, "queries over tables of more than one batch (TestDifferentialLarge)")
	maxFailures  = flag.Int("max-failures", 5, "stop after this many mismatches")
	queryTimeout = flag.Duration("query-timeout", 20*time.Second, "time limit of one query in each engine")
)

// settings reads the flags, and the environment where a flag was left at
// its default (go test's own -n flag takes the short name).
func settings(t *testing.T) (seed int64, n int) {
	seed, n = *seedFlag, *queriesFlag
	if v := os.Getenv("DIFFTEST_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("DIFFTEST_SEED=%q: %v", v, err)
		}
		seed = s
	}
	if v := os.Getenv("DIFFTEST_N"); v != "" {
		q, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("DIFFTEST_N=%q: %v", v, err)
		}
		n = q
	}
	if testing.Short() && n > 500 {
		n = 500
	}
	return seed, n
}

// TestDifferential runs generated queries on gsql and SQLite over
// generated data and fails on every difference in their results.
func TestDifferential(t *testing.T) {
	seed, n := settings(t)
	ctx := context.Background()
	var stats struct{ run, rows, ordered, bothErr, timeouts, failed int }
	start := time.Now()
	for ds := int64(0); stats.run < n; ds++ {
		dseed := seed*1_000_003 + ds
		d := genDataset(dseed)
		e, err := load(ctx, d)
		if err != nil {
			t.Fatalf("data seed %d: %v", dseed, err)
		}
		g := newGen(d, dseed, allShapes())
		for i := 0; i < *perDataset && stats.run < n; i++ {
			q := g.genQuery()
			stats.run++
			gr, sr := runBoth(ctx, e, q)
			switch {
			case timedOut(gr.err) || timedOut(sr.err):
				// Too big a query for the time limit in one engine or
				// both (a product of derived tables): not a result to
				// compare, but logged, as the time it took may be news.
				stats.timeouts++
				t.Logf("data seed %d, query %d: over the %v limit (gsql: %v, SQLite: %v):\n%s",
					dseed, i, *queryTimeout, gr.err, sr.err, render(q.n, dGSQL))
				continue
			case gr.err != nil && sr.err != nil:
				stats.bothErr++
				t.Errorf("data seed %d, query %d failed in both engines: gsql: %v; SQLite: %v\n%s",
					dseed, i, gr.err, sr.err, render(q.n, dGSQL))
			}
			if len(gr.rows) > 0 {
				stats.rows++
			}
			if q.ordered {
				stats.ordered++
			}
			why := diff(gr, sr, q.ordered)
			if why == "" && gr.err == nil {
				why = unsorted(gr.rows, q.order)
			}
			if why == "" {
				continue
			}
			stats.failed++
			t.Error(report(ctx, d, i, q, why))
			if stats.failed >= *maxFailures {
				e.close()
				t.Fatalf("stopping after %d mismatches", stats.failed)
			}
		}
		e.close()
	}
	t.Logf("seed %d: %d queries in %v (%d with rows, %d ordered, %d failed in both engines, %d over the time limit, %d mismatches)",
		seed, stats.run, time.Since(start).Round(time.Millisecond), stats.rows, stats.ordered, stats.bothErr, stats.timeouts, stats.failed)
}

// TestDifferentialLarge runs generated single-table queries over two
// tables of more than 65,536 rows each, so that gsql's CPU operators
// (scans, sorts, aggregates, windows, set operations) see several batches.
func TestDifferentialLarge(t *testing.T) {
	seed, _ := settings(t)
	n := *largeFlag
	if testing.Short() {
		n = min(n, 10)
	}
	ctx := context.Background()
	start := time.Now()
	d := genLarge(seed)
	e, err := load(ctx, d)
	if err != nil {
		t.Fatalf("data seed %d: %v", seed, err)
	}
	defer e.close()
	g := newGen(d, seed, largeShapes())
	failed, rows := 0, 0
	for i := 0; i < n; i++ {
		q := g.genQuery()
		gr, sr := runBoth(ctx, e, q)
		if timedOut(gr.err) || timedOut(sr.err) {
			t.Logf("large data seed %d, query %d: over the %v limit (gsql: %v, SQLite: %v):\n%s",
				seed, i, *queryTimeout, gr.err, sr.err, render(q.n, dGSQL))
			continue
		}
		if gr.err != nil && sr.err != nil {
			t.Errorf("query %d failed in both engines: %v\n%s", i, gr.err, render(q.n, dGSQL))
		}
		if len(gr.rows) > 0 {
			rows++
		}
		why := diff(gr, sr, q.ordered)
		if why == "" && gr.err == nil {
			why = unsorted(gr.rows, q.order)
		}
		if why == "" {
			continue
		}
		failed++
		// No reduction: the data is too big to shrink row by row.
		t.Errorf("mismatch: large data seed %d, query %d: %s\n-- gsql query:\n%s;\n-- SQLite query:\n%s;\n-- gsql:\n%s-- SQLite:\n%s",
			seed, i, why, render(q.n, dGSQL), render(q.n, dSQLite), formatRows(gr, 10), formatRows(sr, 10))
		if failed >= *maxFailures {
			t.Fatalf("stopping after %d mismatches", failed)
		}
	}
	t.Logf("large seed %d: %d queries in %v (%d with rows, %d mismatches)", seed, n, time.Since(start).Round(time.Millisecond), rows, failed)
}

// timedOut says whether err is the query time limit running out.
func timedOut(err error) bool {
	return err != nil && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded") ||
		strings.Contains(err.Error(), "interrupted"))
}

func runBoth(ctx context.Context, e *engines, q query) (result, result) {
	qctx, cancel := context.WithTimeout(ctx, *queryTimeout)
	defer cancel()
	return e.queryGSQL(qctx, render(q.n, dGSQL)), e.querySQLite(qctx, render(q.n, dSQLite))
}

// report describes a mismatch after shrinking its data: the rows of every
// table that can go while the mismatch stays are dropped.
func report(ctx context.Context, d *dataset, i int, q query, why string) string {
	small := reduce(ctx, d, q)
	e, err := load(ctx, small)
	gr, sr := result{}, result{}
	if err == nil {
		gr, sr = runBoth(ctx, e, q)
		e.close()
		if w := diff(gr, sr, q.ordered); w != "" {
			why = w
		} else if gr.err == nil {
			if w := unsorted(gr.rows, q.order); w != "" {
				why = w
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mismatch: data seed %d, query %d: %s\n", d.seed, i, why)
	b.WriteString("-- data (reduced):\n")
	for _, st := range small.statements(dGSQL) {
		b.WriteString(st + ";\n")
	}
	fmt.Fprintf(&b, "-- gsql query:\n%s;\n", render(q.n, dGSQL))
	if s := render(q.n, dSQLite); s != render(q.n, dGSQL) {
		fmt.Fprintf(&b, "-- SQLite query:\n%s;\n", s)
	}
	fmt.Fprintf(&b, "-- gsql:\n%s-- SQLite:\n%s", formatRows(gr, 20), formatRows(sr, 20))
	return b.String()
}

// reduce drops rows one at a time while q still gives a mismatch, for at
// most half a minute (a query that timed out would take ages).
func reduce(ctx context.Context, d *dataset, q query) *dataset {
	cur := d.clone()
	deadline := time.Now().Add(30 * time.Second)
	for ti := range cur.tables {
		for ri := len(cur.tables[ti].rows) - 1; ri >= 0 && time.Now().Before(deadline); ri-- {
			try := cur.clone()
			rows := try.tables[ti].rows
			try.tables[ti].rows = append(rows[:ri:ri], rows[ri+1:]...)
			if mismatches(ctx, try, q) {
				cur = try
			}
		}
	}
	return cur
}

func mismatches(ctx context.Context, d *dataset, q query) bool {
	e, err := load(ctx, d)
	if err != nil {
		return false
	}
	defer e.close()
	gr, sr := runBoth(ctx, e, q)
	if gr.err == nil && unsorted(gr.rows, q.order) != "" {
		return true
	}
	return diff(gr, sr, q.ordered) != ""
}

// TestOne runs one query, given in DIFFTEST_QUERY, over the data of seed
// DIFFTEST_SEED (or made by the statements in DIFFTEST_DATA), on both
// engines, and prints both results: for narrowing down a reported mismatch
// by hand. The query is sent to both engines as written.
func TestOne(t *testing.T) {
	q := os.Getenv("DIFFTEST_QUERY")
	if q == "" {
		t.Skip("DIFFTEST_QUERY not set")
	}
	seed, _ := settings(t)
	ctx := context.Background()
	d := genDataset(seed)
	if os.Getenv("DIFFTEST_DATA") != "" {
		d = &dataset{} // the statements below make the data
	}
	e, err := load(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	// DIFFTEST_DATA: statements (a reported mismatch's reduced data) run
	// on both engines as written; SQLite reads BIGINT, DOUBLE and VARCHAR
	// with the affinities of INTEGER, REAL and TEXT.
	for _, st := range strings.Split(os.Getenv("DIFFTEST_DATA"), ";") {
		if st = strings.TrimSpace(st); st == "" {
			continue
		}
		if _, err := e.g.Exec(ctx, st); err != nil {
			t.Fatalf("gsql: %s: %v", st, err)
		}
		if _, err := e.s.ExecContext(ctx, st); err != nil {
			t.Fatalf("SQLite: %s: %v", st, err)
		}
	}
	gr, sr := runBoth(ctx, e, query{n: lit(q)})
	t.Logf("gsql:\n%sSQLite:\n%s", formatRows(gr, 50), formatRows(sr, 50))
	if why := diff(gr, sr, false); why != "" {
		t.Error(why)
	}
}
