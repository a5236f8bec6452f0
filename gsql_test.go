package gsql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	gsqlsql "github.com/gsqlengine/gsql/sql"
)

func openDB(t *testing.T) *gsql.DB {
	t.Helper()
	before := runtime.NumGoroutine()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		checkNoLeakedGoroutines(t, before)
	})
	return db
}

// checkNoLeakedGoroutines fails the test when goroutines it started (query
// workers, readers) are still running shortly after it ends.
func checkNoLeakedGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines left running (%d before the test):\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rowsOf renders every row of a query as "v1|v2|...", NULL as NULL.
func rowsOf(t testing.TB, db *gsql.DB, q string, args ...any) []string {
	t.Helper()
	rdr, err := db.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				col := rec.Column(c)
				if col.IsNull(i) {
					parts[c] = "NULL"
				} else {
					parts[c] = strings.Clone(col.ValueStr(i)) // the record's memory is reused once released
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func mustExec(t *testing.T, db *gsql.DB, q string, args ...any) gsql.Result {
	t.Helper()
	res, err := db.Exec(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

const redactQuery = `SELECT CASE WHEN visibility = 'public' THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)) ELSE 'X X' END AS redacted FROM people`

func TestRedactQuery(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE people (name VARCHAR, visibility VARCHAR)`)
	mustExec(t, db, `INSERT INTO people VALUES
		('John Smith', 'public'), ('Jane Doe', 'private'), ('Cher', 'public'),
		(NULL, 'public'), ('Ann Lee', NULL), ('Émile Zola', 'public'), ('', 'public')`)
	got := rowsOf(t, db, redactQuery)
	want := []string{"S John", "X X", " Cher", "NULL", "X X", "Z Émile", " "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("redact:\n got %q\nwant %q", got, want)
	}
}

func TestPlaceholdersAndSelect(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE t (a BIGINT, s VARCHAR, f DOUBLE, b BOOLEAN)`)
	res := mustExec(t, db, `INSERT INTO t VALUES (1, 'x', 1.5, true), (2, 'y', NULL, false), (3, NULL, 2.5, NULL)`)
	if res.RowsAffected != 3 {
		t.Fatalf("RowsAffected = %d, want 3", res.RowsAffected)
	}
	got := rowsOf(t, db, `SELECT a, s FROM t WHERE a >= ? AND s IS NOT NULL ORDER BY a DESC`, 1)
	if want := "2|y,1|x"; strings.Join(got, ",") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	got = rowsOf(t, db, `SELECT a + 1 AS n FROM t ORDER BY n LIMIT 1 OFFSET 1`)
	if want := "3"; strings.Join(got, ",") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestErrorsAreTypedAndChangeNothing(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE t (a BIGINT NOT NULL)`)
	_, err := db.Exec(ctx, "SELECT *\nFORM t")
	var se *gsqlsql.Error
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("want a syntax error on line 2, got %v", err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO t VALUES (1), (2), (NULL)`); err == nil {
		t.Fatal("NULL into NOT NULL column: no error")
	}
	if _, err := db.Exec(ctx, `INSERT INTO t VALUES (1), ('abc')`); err == nil {
		t.Fatal("'abc' into BIGINT column: no error")
	}
	if got := rowsOf(t, db, `SELECT a FROM t`); len(got) != 0 {
		t.Fatalf("failed INSERTs left rows: %q", got)
	}
	if _, err := db.Exec(ctx, `CREATE TABLE u AS SELECT nosuch FROM t`); err == nil {
		t.Fatal("CTAS with unknown column: no error")
	}
	if got := db.Tables(); strings.Join(got, ",") != "t" {
		t.Fatalf("failed CTAS left tables: %q", got)
	}
}

func TestRegisterTableAndSchema(t *testing.T) {
	db := openDB(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{3, 1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"c", "a", ""}, []bool{true, true, false})
	rec := b.NewRecord()
	defer rec.Release()
	if err := db.RegisterTable("r", schema, []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	got := rowsOf(t, db, `SELECT id, s FROM r ORDER BY id`)
	if want := "1|a,2|NULL,3|c"; strings.Join(got, ",") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	s, err := db.TableSchema("R")
	if err != nil || s.Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("schema %v, %v", s, err)
	}
}

func TestDatabaseSQLDriver(t *testing.T) {
	sdb, err := sql.Open("gsql", "drivertest?device=cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if _, err := sdb.Exec(`CREATE TABLE kv (k VARCHAR, v BIGINT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`INSERT INTO kv VALUES (?, ?), (?, ?)`, "a", 1, "b", nil); err != nil {
		t.Fatal(err)
	}
	rows, err := sdb.Query(`SELECT k, v FROM kv ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var k string
		var v sql.NullInt64
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s=%v/%v", k, v.Int64, v.Valid))
	}
	if want := "a=1/true,b=0/false"; strings.Join(got, ",") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Dates and timestamps reach database/sql as time.Time (UTC wall clock),
// and time.Time arguments bind as TIMESTAMPs.
func TestDriverTimes(t *testing.T) {
	sdb, err := sql.Open("gsql", "drivertimes?device=cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if _, err := sdb.Exec(`CREATE TABLE ev (d DATE, ts TIMESTAMP)`); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 2, 29, 10, 30, 0, 250000000, time.UTC)
	if _, err := sdb.Exec(`INSERT INTO ev VALUES (?, ?), ('1969-07-20', NULL)`, at, at); err != nil {
		t.Fatal(err)
	}
	var d time.Time
	var ts sql.NullTime
	err = sdb.QueryRow(`SELECT d, ts FROM ev WHERE ts = ?`, at).Scan(&d, &ts)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) || !ts.Valid || !ts.Time.Equal(at) {
		t.Fatalf("got %s, %v", d, ts)
	}
	if err := sdb.QueryRow(`SELECT d, ts FROM ev WHERE ts IS NULL`).Scan(&d, &ts); err != nil {
		t.Fatal(err)
	}
	if !d.Equal(time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)) || ts.Valid {
		t.Fatalf("got %s, %v", d, ts)
	}
}

func TestConcurrentQueriesAndInserts(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE c (i BIGINT, s VARCHAR)`)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx := context.Background()
			for i := 0; i < 20; i++ {
				if _, err := db.Exec(ctx, `INSERT INTO c VALUES (?, ?)`, g*100+i, fmt.Sprint("s", i)); err != nil {
					errs <- err
					return
				}
				rdr, err := db.Query(ctx, `SELECT UPPER(s) FROM c WHERE i >= ?`, g*100)
				if err != nil {
					errs <- err
					return
				}
				for rdr.Next() {
				}
				rdr.Release()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := rowsOf(t, db, `SELECT i FROM c`); len(got) != 160 {
		t.Fatalf("%d rows, want 160", len(got))
	}
}

func TestCancellation(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE big (s VARCHAR)`)
	mustExec(t, db, `INSERT INTO big VALUES ('a b'), ('c d'), ('e f'), ('g h')`)
	for i := 0; i < 15; i++ {
		mustExec(t, db, `INSERT INTO big SELECT CONCAT(s, 'x') FROM big`)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rdr, err := db.Query(ctx, `SELECT REPEAT(s, 10) FROM big`)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		t.Fatalf("no first batch: %v", rdr.Err())
	}
	cancel()
	start := time.Now()
	for rdr.Next() {
	}
	if !errors.Is(rdr.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", rdr.Err())
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancellation took %v", d)
	}
}

func TestKernelSources(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE people (name VARCHAR, visibility VARCHAR)`)
	ks, err := db.KernelSources(context.Background(), redactQuery+` WHERE visibility <> 'x'`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1 || !strings.Contains(ks[0].Source, "gsql_fill") || !strings.Contains(ks[0].Operator, "fused") {
		t.Fatalf("kernel sources: %+v", ks)
	}
	if ks[0].WarpSource != "" {
		t.Errorf("redact kernel has a warp form (its functions run faster one row per thread)")
	}
	if ks[0].InterpErr != nil {
		t.Errorf("the interpreter cannot run the redact query: %v", ks[0].InterpErr)
	}
	// A fused operator the interpreter refuses says why (a CASE of 40
	// branches keeps more values live than its registers).
	var arms []string
	for i := 0; i < 40; i++ {
		arms = append(arms, fmt.Sprintf("WHEN LENGTH(name) > %d THEN LENGTH(visibility) + %d", i, i))
	}
	ks, err = db.KernelSources(context.Background(), `SELECT CASE `+strings.Join(arms, " ")+` END FROM people`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1 || !errors.Is(ks[0].InterpErr, fuse.ErrNotFusable) {
		t.Fatalf("a CASE too wide for the interpreter: %+v", ks)
	}
	ks, err = db.KernelSources(context.Background(), `SELECT REPLACE(name, ' ', '_') FROM people`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1 || !strings.Contains(ks[0].WarpSource, "#define GSQL_WARP 1") || ks[0].WarpMinAvg != fuse.WarpMinReplace {
		t.Fatalf("REPLACE kernel: no warp form from %d bytes: %+v", fuse.WarpMinReplace, ks)
	}
	if _, err := db.KernelSources(context.Background(), `CREATE TABLE x (a INT)`); err == nil {
		t.Fatal("kernel sources of DDL: no error")
	}
}

// A million-row INSERT that fails at row 900,001 inserts nothing.
func TestFailedLargeInsertChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	db := openDB(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < 1_000_000; i++ {
		if i == 900_000 {
			b.Append("not a number")
			continue
		}
		b.Append(fmt.Sprint(i))
	}
	col := b.NewArray()
	rec := array.NewRecord(schema, []arrow.Array{col}, 1_000_000)
	if err := db.RegisterTable("src", schema, []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE dst (n BIGINT)`)
	_, err := db.Exec(context.Background(), `INSERT INTO dst SELECT s FROM src`)
	if err == nil || !strings.Contains(err.Error(), "900001") {
		t.Fatalf("err = %v, want an error naming row 900001", err)
	}
	if got := rowsOf(t, db, `SELECT COUNT(*) FROM dst`); got[0] != "0" {
		t.Fatalf("dst has %s rows after the failed INSERT", got[0])
	}
}

func TestReadCSVTableFunction(t *testing.T) {
	db := openDB(t)
	path := t.TempDir() + "/people.csv"
	if err := os.WriteFile(path, []byte("name,age\nJohn Smith,42\nÉmile Zola,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := rowsOf(t, db, `SELECT UPPER(name), age FROM read_csv('`+path+`') ORDER BY name`)
	if want := "JOHN SMITH|42,ÉMILE ZOLA|NULL"; strings.Join(got, ",") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	mustExec(t, db, `CREATE TABLE p AS SELECT * FROM read_csv('`+path+`')`)
	if got := rowsOf(t, db, `SELECT COUNT(*) FROM p`); got[0] != "2" {
		t.Fatalf("CTAS from read_csv: %v", got)
	}
	if _, err := db.Query(context.Background(), `SELECT * FROM read_csv('/no/such/file.csv')`); err == nil {
		t.Fatal("missing file: no error")
	}
}

// A GROUP BY or an equi-join past Options.MemoryLimit spills and answers
// (spill_test.go); a join without equal keys past it, which cannot be
// split, fails with an error naming the limit, and the database keeps
// working.
func TestMemoryLimitForGroupsAndJoins(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu", MemoryLimit: 1 << 20})
	mustExec(t, db, `CREATE TABLE t (k BIGINT, s VARCHAR)`)
	mustExec(t, db, `INSERT INTO t VALUES (1, 'a')`)
	for i := 0; i < 15; i++ {
		mustExec(t, db, `INSERT INTO t SELECT k + (SELECT MAX(k) FROM t), CONCAT(s, 'x') FROM t`)
	}
	ctx := context.Background()
	if got := rowsOf(t, db, `SELECT COUNT(*) FROM (SELECT k, COUNT(*) FROM t GROUP BY k) AS g`); got[0] != "32768" {
		t.Fatalf("groups past the limit: %v", got)
	}
	if got := rowsOf(t, db, `SELECT COUNT(*) FROM t AS a JOIN t AS b ON a.k = b.k`); got[0] != "32768" {
		t.Fatalf("join past the limit: %v", got)
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM t AS a JOIN t AS b ON a.k < b.k`,
	} {
		_, err := db.Exec(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "memory limit of 1.0 MiB") {
			t.Fatalf("%s: err = %v, want the memory limit named", q, err)
		}
	}
	if got := rowsOf(t, db, `SELECT COUNT(*) FROM t`); got[0] != "32768" {
		t.Fatalf("count after the failures: %v", got)
	}
}

// Cancelling a long join or sort stops it within 100 ms (issue 9's bound).
func TestCancelStopsLongQueriesQuickly(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	db := openDB(t)
	schema, recs := datagen.People(2_000_000, 1)
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	// One attempt: cancel the query after wait; canceled tells whether it
	// was still running then, took how long it went on after the cancel.
	attempt := func(q string, wait time.Duration) (canceled bool, took time.Duration) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			r, err := db.Query(ctx, q)
			if err == nil {
				for r.Next() {
				}
				err = r.Err()
				r.Release()
			}
			done <- err
		}()
		time.Sleep(wait)
		start := time.Now()
		cancel()
		select {
		case err := <-done:
			if err == nil {
				return false, 0 // done before the cancel: nothing measured
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: err = %v, want context.Canceled", q, err)
			}
			return true, time.Since(start)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: not stopped 5 s after the cancel", q)
		}
		return false, 0
	}
	// A loaded machine can stall any one attempt, and a fast one can
	// finish the sort before a late cancel: the query passes when one of
	// its attempts, canceled while running, stopped within 100 ms.
	for _, q := range []string{
		"SELECT COUNT(*) FROM people a, people b WHERE a.name = b.visibility OR a.visibility = b.name",
		"SELECT name FROM people ORDER BY name DESC, visibility",
	} {
		var tries []string
		ok := false
		for _, wait := range []time.Duration{200 * time.Millisecond, 50 * time.Millisecond, 10 * time.Millisecond, 2 * time.Millisecond} {
			canceled, took := attempt(q, wait)
			if canceled && took <= 100*time.Millisecond {
				ok = true
				break
			}
			tries = append(tries, fmt.Sprintf("cancel after %v: canceled %v, stopped %v later", wait, canceled, took))
		}
		if !ok {
			t.Errorf("%s: no attempt stopped within 100 ms of its cancel: %s", q, strings.Join(tries, "; "))
		}
	}
}

// The shell's .stats line for the resident tables counts the misses that
// only added columns to a resident table and the column sets dropped to
// make room for others.
func TestStatsStringColumnUploads(t *testing.T) {
	s := gsql.Stats{Device: "gpu", Cache: &gpuexec.CacheStats{Tables: 1, Bytes: 10, Budget: 100, Hits: 4, Misses: 3, ColumnUploads: 2, Evictions: 1, ColumnEvictions: 5}}
	want := "resident tables: 1 (10 of 100 bytes), 4 hits, 3 misses (2 adding columns), 1 evictions, 5 column sets dropped for others"
	if got := s.String(); !strings.Contains(got, want) {
		t.Errorf("got %q, want a line %q", got, want)
	}
}
