package gsql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/fileio"
)

// writeImportCSV writes n rows of (id, name with quoted newlines, score,
// ok, day) and returns the path.
func writeImportCSV(t *testing.T, dir string, n int, tail string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,name,score,ok,day\n")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("n%d", i%97)
		if i%10 == 0 {
			name = fmt.Sprintf("\"line\n%d, \"\"q\"\"\"", i)
		}
		fmt.Fprintf(&b, "%d,%s,%d.5,%v,2024-03-%02d\n", i, name, i%1000, i%3 == 0, 1+i%28)
	}
	b.WriteString(tail)
	path := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// segmentFiles counts the segment files in an on-disk database.
func segmentFiles(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "seg-") {
			n++
		}
	}
	return n
}

// TestImportStreams imports CSV and Parquet into in-memory and on-disk
// databases (small batches, so that many segments are staged), reopens the
// on-disk one and checks the rows.
func TestImportStreams(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const n = 20000
	csvPath := writeImportCSV(t, dir, n, "")
	queries := map[string][]string{
		"SELECT COUNT(*), SUM(id), SUM(score), COUNT(CASE WHEN ok THEN 1 END) FROM t": {fmt.Sprintf("%d|%d|%s|%d", n, n*(n-1)/2, "1e+07", 6667)},
		"SELECT name, day FROM t WHERE id = 19990":                                    {"line\n19990, \"q\"|2024-03-27"},
		"SELECT id FROM t ORDER BY id DESC LIMIT 2":                                   {"19999", "19998"},
	}
	check := func(db *gsql.DB, table string) {
		t.Helper()
		for q, want := range queries {
			q = strings.ReplaceAll(q, " t", " "+table)
			if got := rowsOf(t, db, q); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: got %q, want %q", q, got, want)
			}
		}
	}
	mem, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if got, err := mem.ImportFile(ctx, csvPath, "t", fileio.Options{BatchRows: 1000}); err != nil || got != n {
		t.Fatalf("import: %d rows, %v", got, err)
	}
	check(mem, "t")
	pqPath := filepath.Join(dir, "data.parquet")
	if err := mem.Export(ctx, "SELECT * FROM t", pqPath); err != nil {
		t.Fatal(err)
	}

	dbPath := filepath.Join(dir, "my.db")
	db := openFile(t, dbPath)
	var progress int64
	if got, err := db.ImportFile(ctx, csvPath, "t", fileio.Options{BatchRows: 3000, Progress: func(read, total int64) { progress = read }}); err != nil || got != n {
		t.Fatalf("import: %d rows, %v", got, err)
	}
	if st, _ := os.Stat(csvPath); progress != st.Size() {
		t.Errorf("progress ended at %d of %d bytes", progress, st.Size())
	}
	if got, err := db.ImportFile(ctx, pqPath, "p", fileio.Options{BatchRows: 3000}); err != nil || got != n {
		t.Fatalf("import parquet: %d rows, %v", got, err)
	}
	check(db, "t")
	check(db, "p")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// The staged segments the commit merged are gone: opening (which
	// removes strays) finds only the manifest's.
	segs := segmentFiles(t, dbPath)
	db = openFile(t, dbPath)
	defer db.Close()
	if got := segmentFiles(t, dbPath); got != segs || segs == 0 {
		t.Errorf("%d segments before reopening, %d after", segs, got)
	}
	check(db, "t")
	check(db, "p")
}

// TestImportFailureLeavesNothing: a cancelled import and one that meets a
// value of the wrong type late in the file create no table and leave no
// segment behind, in memory and on disk.
func TestImportFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := writeImportCSV(t, dir, 30000, "oops,x,1.5,true,2024-01-01\n")
	for _, onDisk := range []bool{false, true} {
		var db *gsql.DB
		dbPath := filepath.Join(dir, fmt.Sprintf("db%v", onDisk))
		if onDisk {
			db = openFile(t, dbPath)
		} else {
			var err error
			if db, err = gsql.Open(gsql.Options{Device: "cpu"}); err != nil {
				t.Fatal(err)
			}
		}
		// A type error in the last row: typed, with its line and column.
		_, err := db.ImportFile(context.Background(), bad, "t", fileio.Options{BatchRows: 2000})
		var ce *fileio.CSVError
		if !errors.As(err, &ce) || ce.Line != 30000+3000+2 || ce.Column != 1 || ce.Type != "BIGINT" || ce.Field != "id" {
			t.Fatalf("error %v (%+v), want a CSVError at line 33002", err, ce)
		}
		// Cancelled after some batches went in.
		ctx, cancel := context.WithCancel(context.Background())
		_, err = db.ImportFile(ctx, bad, "t", fileio.Options{BatchRows: 2000, Progress: func(read, total int64) {
			if read > total/2 {
				cancel()
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled import: %v", err)
		}
		if tabs := db.Tables(); len(tabs) != 0 {
			t.Errorf("tables %v after failed imports", tabs)
		}
		if onDisk {
			if got := segmentFiles(t, dbPath); got != 0 {
				t.Errorf("%d segment files left by failed imports", got)
			}
		}
		db.Close()
	}
}

// TestImportStoreFailure: a batch the store refuses (a read-only
// database) stops the import with the store's error and writes nothing.
func TestImportStoreFailure(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeImportCSV(t, dir, 5000, "")
	dbPath := filepath.Join(dir, "db")
	openFile(t, dbPath).Close()
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: dbPath, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.ImportFile(context.Background(), csvPath, "t", fileio.Options{BatchRows: 1000})
	if err == nil || !strings.Contains(err.Error(), "storing t") {
		t.Fatalf("import into a read-only database: %v", err)
	}
	if tabs := db.Tables(); len(tabs) != 0 {
		t.Errorf("tables %v", tabs)
	}
	if got := segmentFiles(t, dbPath); got != 0 {
		t.Errorf("%d segment files written", got)
	}
}
