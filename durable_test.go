package gsql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/storage"
)

func openFile(t *testing.T, path string) *gsql.DB {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return db
}

// TestDurableReopen runs every kind of change against an on-disk database
// and checks that a reopened database holds exactly the committed state.
func TestDurableReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my.db")
	db := openFile(t, path)
	for _, q := range []string{
		`CREATE TABLE people (id BIGINT NOT NULL, name VARCHAR, score DOUBLE, ok BOOLEAN)`,
		`INSERT INTO people VALUES (1, 'Ann Lee', 1.5, true), (2, NULL, NULL, NULL), (3, 'Émile Zola', -2, false)`,
		`INSERT INTO people VALUES (4, '', 0, true)`,
		`CREATE TABLE gone (x BIGINT)`,
		`INSERT INTO gone VALUES (1)`,
		`DROP TABLE gone`,
		`CREATE TABLE copy AS SELECT id * 10 AS id10, UPPER(name) AS up FROM people WHERE id > 1`,
		`CREATE TABLE empty (v VARCHAR)`,
	} {
		mustExec(t, db, q)
	}
	want := map[string][]string{
		"SELECT * FROM people WHERE id < 100 ORDER BY id": {"1|Ann Lee|1.5|true", "2|NULL|NULL|NULL", "3|Émile Zola|-2|false", "4||0|true"},
		"SELECT * FROM copy ORDER BY id10":                {"20|NULL", "30|ÉMILE ZOLA", "40|"},
		"SELECT COUNT(*) FROM empty":                      {"0"},
		"SHOW TABLES":                                     {"copy", "empty", "people"},
	}
	check := func(db *gsql.DB) {
		t.Helper()
		for q, w := range want {
			if got := rowsOf(t, db, q); !reflect.DeepEqual(got, w) {
				t.Errorf("%s: got %q, want %q", q, got, w)
			}
		}
	}
	check(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openFile(t, path)
	check(db)
	// The reopened database takes more changes, which survive again.
	mustExec(t, db, `INSERT INTO people SELECT id + 100, name, score, ok FROM people`)
	want["SELECT * FROM people WHERE id > 100 ORDER BY id"] = []string{"101|Ann Lee|1.5|true", "102|NULL|NULL|NULL", "103|Émile Zola|-2|false", "104||0|true"}
	want["SELECT COUNT(*), SUM(id) FROM people"] = []string{"8|420"}
	db.Close()
	db = openFile(t, path)
	defer db.Close()
	check(db)
	if got := rowsOf(t, db, "DESCRIBE people"); !reflect.DeepEqual(got, []string{"id|bigint|NO||NULL|", "name|varchar|YES||NULL|", "score|double|YES||NULL|", "ok|tinyint(1)|YES||NULL|"}) {
		t.Errorf("DESCRIBE after reopen: %q", got)
	}
	// Nothing but the manifest, the lock and the named segments is left.
	ents, _ := os.ReadDir(path)
	for _, e := range ents {
		if n := e.Name(); n != "MANIFEST" && n != "LOCK" && !strings.HasPrefix(n, "seg-") {
			t.Errorf("unexpected file %s in the database directory", n)
		}
	}
}

// TestDurableFailedStatementChangesNothing: a statement that fails (bad
// value, missing table) leaves the disk as it was.
func TestDurableFailedStatementChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openFile(t, path)
	mustExec(t, db, `CREATE TABLE t (x BIGINT NOT NULL)`)
	mustExec(t, db, `INSERT INTO t VALUES (1)`)
	for _, q := range []string{
		`INSERT INTO t VALUES (2), (NULL)`,
		`INSERT INTO t VALUES ('abc')`,
		`CREATE TABLE t (y BIGINT)`,
		`DROP TABLE nope`,
	} {
		if _, err := db.Exec(context.Background(), q); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
	db.Close()
	db = openFile(t, path)
	defer db.Close()
	if got := rowsOf(t, db, "SELECT x FROM t"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("after failed statements: %q", got)
	}
}

// TestDurableCommitFailure: a commit that cannot write fails the statement
// and the catalog keeps the old snapshot.
func TestDurableCommitFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openFile(t, path)
	mustExec(t, db, `CREATE TABLE t (x BIGINT)`)
	mustExec(t, db, `INSERT INTO t VALUES (1)`)
	// A directory where the next segment file goes makes its write fail
	// (whatever the user's permissions).
	blocker := filepath.Join(path, "seg-000000000002.arrow")
	if err := os.Mkdir(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(context.Background(), `INSERT INTO t VALUES (2)`); err == nil || !strings.Contains(err.Error(), "seg-000000000002.arrow") {
		t.Fatalf("INSERT whose segment cannot be written: %v", err)
	}
	if got := rowsOf(t, db, "SELECT x FROM t"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("after failed commit: %q", got)
	}
	db.Close()
	db = openFile(t, path) // removes the blocker, a leftover by its name
	defer db.Close()
	if got := rowsOf(t, db, "SELECT x FROM t"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("reopened after failed commit: %q", got)
	}
	mustExec(t, db, `INSERT INTO t VALUES (3)`)
	if got := rowsOf(t, db, "SELECT x FROM t"); !reflect.DeepEqual(got, []string{"1", "3"}) {
		t.Errorf("insert after failed commit: %q", got)
	}
}

// TestDurableLock: a second writer is refused with an error naming the
// holder; after Close the database opens again.
func TestDurableLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openFile(t, path)
	_, err := gsql.Open(gsql.Options{Device: "cpu", Path: path})
	var le *storage.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second open: got %v, want a LockedError", err)
	}
	if !strings.Contains(err.Error(), "process ") || !strings.Contains(err.Error(), "LOCK") {
		t.Errorf("lock error does not name the holder and the file: %v", err)
	}
	db.Close()
	db = openFile(t, path)
	db.Close()
}

func TestDurableNotADatabase(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := gsql.Open(gsql.Options{Device: "cpu", Path: dir}); err == nil || !strings.Contains(err.Error(), "not a gsql database") {
		t.Errorf("open of a directory of other files: %v", err)
	}
	file := filepath.Join(dir, "notes.txt")
	if _, err := gsql.Open(gsql.Options{Device: "cpu", Path: file}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("open of a regular file: %v", err)
	}
	for _, f := range []string{"MANIFEST", "LOCK"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused open created %s", f)
		}
	}
}

// TestDriverFileDSN: "file:PATH" opens an on-disk database; other names
// keep sharing one in-memory database per name.
func TestDriverFileDSN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "drv.db")
	sdb, err := sql.Open("gsql", "file:"+path+"?device=cpu")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`CREATE TABLE t (x BIGINT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`INSERT INTO t VALUES (?)`, int64(42)); err != nil {
		t.Fatal(err)
	}
	if err := sdb.Close(); err != nil {
		t.Fatal(err)
	}
	db := openFile(t, path)
	if got := rowsOf(t, db, "SELECT x FROM t"); !reflect.DeepEqual(got, []string{"42"}) {
		t.Errorf("driver-written table: %q", got)
	}
	db.Close()
	// Open again through the driver: the table is there.
	sdb, err = sql.Open("gsql", "file:"+path+"?device=cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var x int64
	if err := sdb.QueryRow(`SELECT x FROM t`).Scan(&x); err != nil || x != 42 {
		t.Errorf("reopen through the driver: %d, %v", x, err)
	}
}

// TestZoneMapsSkipSegments: a filter on a column whose values fall in
// separate ranges per segment reads only the segments it can match, on
// disk and after reopening, and gives the same rows as without skipping.
func TestZoneMapsSkipSegments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zones.db")
	db := openFile(t, path)
	mustExec(t, db, `CREATE TABLE ev (id BIGINT, v DOUBLE, tag VARCHAR)`)
	// Three segments: INSERT ... SELECT of more than 64K rows appends a
	// record of its own (smaller inserts merge into the last one).
	mustExec(t, db, `CREATE TABLE seed (x BIGINT)`)
	var vals []string
	for i := 0; i < 300; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	mustExec(t, db, `INSERT INTO seed VALUES `+strings.Join(vals, ","))
	for seg := 0; seg < 3; seg++ {
		// 300 * 300 = 90000 rows per segment, ids seg*100000 + ...
		mustExec(t, db, fmt.Sprintf(`INSERT INTO ev SELECT %d + a.x * 300 + b.x, %d.5, 'tag%d' FROM seed a, seed b`, seg*100000, seg, seg))
	}
	mustExec(t, db, `DROP TABLE seed`)
	tests := []struct {
		where   string
		count   string
		skipped int
	}{
		{"id = 100005", "1", 2},
		{"id >= 200000", "90000", 2},
		{"id < 100000", "90000", 2},
		{"id BETWEEN 150000 AND 250000", "90001", 1},
		{"v = 1.5", "90000", 2},
		{"tag = 'tag2'", "90000", 2},
		{"tag > 'tag0' AND id < 200000", "90000", 2},
		{"id = 5 OR id = 200005", "2", 1},
		{"id > 999999", "0", 3},
		{"100005 = id", "1", 2},
		{"id + 0 = 100005", "1", 0}, // not column op literal: no skipping
		{"tag = 'tag1' OR v > 2", "180000", 1},
	}
	check := func(db *gsql.DB) {
		t.Helper()
		for _, tc := range tests {
			if got := rowsOf(t, db, "SELECT COUNT(*) FROM ev WHERE "+tc.where); !reflect.DeepEqual(got, []string{tc.count}) {
				t.Errorf("%s: count %q, want %s", tc.where, got, tc.count)
			}
			plan := strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE SELECT id FROM ev WHERE "+tc.where), "\n")
			want := fmt.Sprintf("segments=3 segments_skipped=%d", tc.skipped)
			if !strings.Contains(plan, want) {
				t.Errorf("%s: plan does not say %q:\n%s", tc.where, want, plan)
			}
		}
	}
	check(db)
	db.Close()
	db = openFile(t, path)
	defer db.Close()
	check(db)
}

// TestDurableReadOnly: a read-only handle opens while a writer holds the
// lock, sees the committed state as of its open, and refuses changes.
func TestDurableReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.db")
	if _, err := gsql.Open(gsql.Options{Device: "cpu", Path: path, ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "not a gsql database") {
		t.Errorf("read-only open of a missing database: %v", err)
	}
	w := openFile(t, path)
	defer w.Close()
	mustExec(t, w, `CREATE TABLE t (x BIGINT)`)
	mustExec(t, w, `INSERT INTO t VALUES (1), (2)`)
	r := openTestDB(t, gsql.Options{Device: "cpu", Path: path, ReadOnly: true})
	mustExec(t, w, `INSERT INTO t VALUES (3)`) // replaces the segment the reader maps
	if got := rowsOf(t, r, "SELECT SUM(x) FROM t"); !reflect.DeepEqual(got, []string{"3"}) {
		t.Errorf("reader: %q", got)
	}
	for _, q := range []string{`INSERT INTO t VALUES (9)`, `DROP TABLE t`, `CREATE TABLE u (y BIGINT)`} {
		if _, err := r.Exec(context.Background(), q); !errors.Is(err, storage.ErrReadOnly) {
			t.Errorf("%s on a read-only handle: %v", q, err)
		}
	}
	if got := rowsOf(t, r, "SHOW TABLES"); !reflect.DeepEqual(got, []string{"t"}) {
		t.Errorf("reader's tables after refused changes: %q", got)
	}
	if _, err := gsql.Open(gsql.Options{Device: "cpu", ReadOnly: true}); err == nil {
		t.Error("ReadOnly without a Path opened")
	}
	sdb, err := sql.Open("gsql", "file:"+path+"?device=cpu&mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var sum int64
	if err := sdb.QueryRow(`SELECT SUM(x) FROM t`).Scan(&sum); err != nil || sum != 6 {
		t.Errorf("read-only driver handle: %d, %v", sum, err)
	}
}

// TestDurableConcurrentReaders: queries running while INSERTs commit (and
// compaction replaces segments) see whole statements only, and keep
// reading their snapshots after the segments they map are unlinked.
func TestDurableConcurrentReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conc.db")
	db := openFile(t, path)
	mustExec(t, db, `CREATE TABLE t (x BIGINT, pad VARCHAR)`)
	const writes = 150
	done := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				// Every statement inserts 3 rows: a count not divisible by 3
				// would be a partial statement.
				rdr, err := db.Query(context.Background(), `SELECT COUNT(*), SUM(x) FROM t`)
				if err != nil {
					errs <- err
					return
				}
				for rdr.Next() {
					n := rdr.Record().Column(0).ValueStr(0)
					if c, _ := strconv.Atoi(n); c%3 != 0 {
						errs <- fmt.Errorf("count %d is not whole statements", c)
					}
				}
				rdr.Release()
			}
		}()
	}
	for i := 0; i < writes; i++ {
		if _, err := db.Exec(context.Background(), `INSERT INTO t VALUES (?, 'a'), (?, 'bb'), (?, 'ccc')`, int64(i), int64(i), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	db.Close()
	db = openFile(t, path)
	defer db.Close()
	want := fmt.Sprintf("%d|%d", 3*writes, 3*writes*(writes-1)/2)
	if got := rowsOf(t, db, `SELECT COUNT(*), SUM(x) FROM t`); !reflect.DeepEqual(got, []string{want}) {
		t.Errorf("after reopen: %q, want %s", got, want)
	}
}

// Views and index definitions are stored with the tables: they survive a
// reopen, DROP TABLE removes the table's indexes from the stored schema,
// and a read-only database refuses new ones, changing nothing.
func TestDurableViewsAndIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE t (a BIGINT, b VARCHAR)`)
	mustExec(t, db, `CREATE TABLE u (x BIGINT)`)
	mustExec(t, db, `INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'x')`)
	mustExec(t, db, `CREATE VIEW xs AS SELECT a FROM t WHERE b = 'x'`)
	mustExec(t, db, `CREATE INDEX ta ON t (a)`)
	mustExec(t, db, `CREATE INDEX ux ON u (x)`)
	mustExec(t, db, `DROP TABLE u`)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = gsql.Open(gsql.Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rowsOf(t, db, `SELECT a FROM xs ORDER BY a`), ","); got != "1,3" {
		t.Fatalf("view after reopen: %s", got)
	}
	if _, err := db.Exec(context.Background(), `CREATE INDEX ta ON t (b)`); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("index ta after reopen: %v", err)
	}
	if _, err := db.Exec(context.Background(), `DROP INDEX ux`); err == nil {
		t.Fatalf("index ux survived DROP TABLE u")
	}
	mustExec(t, db, `DROP INDEX ta`)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ro := openTestDB(t, gsql.Options{Device: "cpu", Path: path, ReadOnly: true})
	if _, err := ro.Exec(context.Background(), `CREATE VIEW v2 AS SELECT 1`); err == nil {
		t.Fatalf("CREATE VIEW on a read-only database succeeded")
	}
	if got := rowsOf(t, ro, `SHOW TABLES`); strings.Contains(strings.Join(got, ","), "v2") {
		t.Fatalf("failed CREATE VIEW left %v", got)
	}
	if _, err := ro.Exec(context.Background(), `DROP INDEX ta`); err == nil {
		t.Fatalf("index ta survived DROP INDEX")
	}
}

// TestDurableDropSeveralTables: DROP TABLE of several tables (one commit,
// TestDropTablesOneCommit in catalog) leaves them all gone after a reopen,
// with their indexes and segment files; on a read-only database none goes.
func TestDurableDropSeveralTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openFile(t, path)
	for _, name := range []string{"a", "b", "keep"} {
		mustExec(t, db, `CREATE TABLE `+name+` (x BIGINT)`)
		mustExec(t, db, `INSERT INTO `+name+` VALUES (1), (2)`)
	}
	mustExec(t, db, `CREATE INDEX ia ON a (x)`)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := gsql.Open(gsql.Options{Device: "cpu", Path: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Exec(context.Background(), `DROP TABLE a, b`); err == nil {
		t.Fatal("DROP TABLE on a read-only database succeeded")
	}
	if got := strings.Join(rowsOf(t, ro, `SHOW TABLES`), ","); got != "a,b,keep" {
		t.Fatalf("tables after a failed DROP: %s", got)
	}
	ro.Close()
	segs := func() int {
		m, _ := filepath.Glob(filepath.Join(path, "seg-*"))
		return len(m)
	}
	db = openFile(t, path)
	before := segs()
	mustExec(t, db, `DROP TABLE a, b`)
	if n := segs(); n != before-2 {
		t.Errorf("%d segment files after the drop, want %d", n, before-2)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openFile(t, path)
	defer db.Close()
	if got := strings.Join(rowsOf(t, db, `SHOW TABLES`), ","); got != "keep" {
		t.Fatalf("tables after reopen: %s", got)
	}
	if _, err := db.Exec(context.Background(), `DROP INDEX ia`); err == nil {
		t.Fatal("index ia survived DROP TABLE a, b")
	}
}
