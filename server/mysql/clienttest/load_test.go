package clienttest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/server/mysql"
)

// op is one client statement of the load: a query or an insert.
type op func(ctx context.Context, client, seq int) error

// latencies collects per-kind durations from many goroutines.
type latencies struct {
	mu     sync.Mutex
	byKind map[string][]time.Duration
}

func (l *latencies) add(kind string, d time.Duration) {
	l.mu.Lock()
	l.byKind[kind] = append(l.byKind[kind], d)
	l.mu.Unlock()
}

func (l *latencies) report(t *testing.T, name string, elapsed time.Duration) {
	for _, kind := range []string{"query", "insert"} {
		ds := l.byKind[kind]
		if len(ds) == 0 {
			t.Fatalf("%s: no %s ran", name, kind)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%s %-6s n=%6d  %7.0f/s  p50 %8v  p99 %8v", name, kind, len(ds),
			float64(len(ds))/elapsed.Seconds(), ds[len(ds)/2].Round(time.Microsecond), ds[len(ds)*99/100].Round(time.Microsecond))
	}
}

// runLoad runs clients goroutines for d, each a loop of one insert then
// three queries (a point count, a GROUP BY, a filtered scan), and returns
// how many inserts succeeded.
func runLoad(t *testing.T, name string, clients int, d time.Duration, insert, query op) int64 {
	t.Helper()
	lat := &latencies{byKind: map[string][]time.Duration{}}
	ctx := context.Background()
	var inserted int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	start := time.Now()
	stop := start.Add(d)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			n := int64(0)
			for seq := 0; time.Now().Before(stop); seq++ {
				t0 := time.Now()
				err := insert(ctx, c, seq)
				lat.add("insert", time.Since(t0))
				if err == nil {
					n++
				}
				for q := 0; q < 3 && err == nil; q++ {
					t0 = time.Now()
					err = query(ctx, c, seq*3+q)
					lat.add("query", time.Since(t0))
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("client %d: %w", c, err)
					}
					mu.Unlock()
					break
				}
			}
			mu.Lock()
			inserted += n
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("%s: %v", name, firstErr)
	}
	lat.report(t, name, time.Since(start))
	return inserted
}

var loadQueries = []string{
	`SELECT COUNT(*) FROM load WHERE c = ?`,
	`SELECT c, COUNT(*), MAX(s) FROM load WHERE c < ? GROUP BY c ORDER BY c LIMIT 5`,
	`SELECT v FROM load WHERE s = ? LIMIT 3`,
}

// TestLoad runs 64 concurrent clients of mixed queries and inserts over
// the protocol, then the same load through the in-process API, checks
// that no statement failed and no insert was lost, and logs p50/p99
// latencies (docs/benchlog/2026-11-26-mysql-protocol.md). GSQL_LOAD_SECONDS sets the length of
// each run (default 2).
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	secs := 2.0
	if v := os.Getenv("GSQL_LOAD_SECONDS"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("GSQL_LOAD_SECONDS: %v", err)
		}
		secs = f
	}
	d := time.Duration(secs * float64(time.Second))
	clients := 64
	if v := os.Getenv("GSQL_LOAD_CLIENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("GSQL_LOAD_CLIENTS: want a positive count, got %q", v)
		}
		clients = n
	}

	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	db.SetMaxOpenConns(clients)
	db.SetMaxIdleConns(clients)
	mustExec(t, db, `CREATE TABLE load (c BIGINT, s BIGINT, v VARCHAR)`)
	ins, err := db.Prepare(`INSERT INTO load VALUES (?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	stmts := make([]*sql.Stmt, len(loadQueries))
	for i, q := range loadQueries {
		if stmts[i], err = db.Prepare(q); err != nil {
			t.Fatal(err)
		}
		defer stmts[i].Close()
	}
	wire := runLoad(t, "mysql protocol", clients, d,
		func(ctx context.Context, c, seq int) error {
			_, err := ins.ExecContext(ctx, c, seq, fmt.Sprintf("client %d row %d", c, seq))
			return err
		},
		func(ctx context.Context, c, i int) error {
			rows, err := stmts[i%3].QueryContext(ctx, queryArg(c, i))
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			return rows.Err()
		})
	var count int64
	if err := db.QueryRow(`SELECT COUNT(*) FROM load`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != wire {
		t.Fatalf("mysql protocol: %d rows in the table, %d inserts succeeded", count, wire)
	}

	// The same load in process.
	gdb, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer gdb.Close()
	ctx := context.Background()
	if _, err := gdb.Exec(ctx, `CREATE TABLE load (c BIGINT, s BIGINT, v VARCHAR)`); err != nil {
		t.Fatal(err)
	}
	api := runLoad(t, "in-process API", clients, d,
		func(ctx context.Context, c, seq int) error {
			_, err := gdb.Exec(ctx, `INSERT INTO load VALUES (?, ?, ?)`, c, seq, fmt.Sprintf("client %d row %d", c, seq))
			return err
		},
		func(ctx context.Context, c, i int) error {
			rdr, err := gdb.Query(ctx, loadQueries[i%3], queryArg(c, i))
			if err != nil {
				return err
			}
			defer rdr.Release()
			for rdr.Next() {
			}
			return rdr.Err()
		})
	rdr, err := gdb.Query(ctx, `SELECT COUNT(*) FROM load`)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	rdr.Next()
	if got := rdr.Record().Column(0).ValueStr(0); got != strconv.FormatInt(api, 10) {
		t.Fatalf("in-process: %s rows, %d inserts succeeded", got, api)
	}
}

func queryArg(c, i int) int64 {
	if i%3 == 2 {
		return int64(rand.Intn(50))
	}
	return int64(c)
}
