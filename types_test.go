package gsql_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/fileio"
)

// DATE, TIMESTAMP and DECIMAL columns survive Parquet and Arrow IPC files
// written from a query and read back with the table functions, and a
// reopened on-disk database.
func TestTypesRoundTripFiles(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "db")
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE e (id INT, d DATE, ts TIMESTAMP, amt DECIMAL(12,2), big DECIMAL(38,10))`)
	mustExec(t, db, `INSERT INTO e VALUES (1, '2024-02-29', '2024-01-05 10:30:00.5', 12.34, '1234567890123456789012345678.0123456789'),
		(2, NULL, '1969-07-20 20:17:40', -0.01, NULL), (3, '0001-01-01', '9999-12-31 23:59:59.999999', NULL, -1)`)
	want := rowsOf(t, db, `SELECT * FROM e ORDER BY id`)
	for _, ext := range []string{"parquet", "arrow"} {
		path := filepath.Join(dir, "e."+ext)
		rdr, err := db.Query(context.Background(), `SELECT * FROM e ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fileio.Write(context.Background(), path, rdr, fileio.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
		got := rowsOf(t, db, `SELECT * FROM read_`+map[string]string{"parquet": "parquet", "arrow": "ipc"}[ext]+`('`+path+`') ORDER BY id`)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s round trip:\n%s\nwant\n%s", ext, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = gsql.Open(gsql.Options{Device: "cpu", Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := rowsOf(t, db, `SELECT * FROM e ORDER BY id`); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reopened:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := rowsOf(t, db, `DESCRIBE e`); !strings.Contains(strings.Join(got, ";"), "decimal(38,10)") {
		t.Fatalf("describe: %v", got)
	}
	t.Logf("%s", strings.Join(want, "\n"))
}
