package gsql_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/errkind"
)

// A column's DEFAULT survives closing an on-disk database: the reopened
// table fills an omitted column from it. The errors are MySQL's kinds.
func TestColumnDefaultsPersistAndErrors(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	db := openTestDB(t, gsql.Options{Path: path, Device: "cpu"},
		"CREATE TABLE t (id BIGINT NOT NULL, tag VARCHAR DEFAULT 'new', at DATETIME DEFAULT CURRENT_TIMESTAMP, q DOUBLE DEFAULT -0.5)")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTestDB(t, gsql.Options{Path: path, Device: "cpu"}, "INSERT INTO t (id) VALUES (1)")
	if got := rowsOf(t, db, "SELECT id, tag, at IS NOT NULL, q FROM t"); len(got) != 1 || got[0] != "1|new|true|-0.5" {
		t.Errorf("after reopening: %v", got)
	}
	for _, c := range []struct {
		sql  string
		kind errkind.Kind
		code uint16
		msg  string
	}{
		{"INSERT INTO t (tag) VALUES ('x')", errkind.NoDefault, 1364, "Field 'id' doesn't have a default value"},
		{"CREATE TABLE bad (a BIGINT NOT NULL DEFAULT NULL)", errkind.InvalidDefault, 1067, "Invalid default value for 'a'"},
		{"CREATE TABLE bad (d DATE DEFAULT 'soon')", errkind.InvalidDefault, 1067, "Invalid default value for 'd'"},
		{"CREATE TABLE bad (n BIGINT DEFAULT (1 +))", errkind.InvalidDefault, 1067, "Invalid default value for 'n'"},
	} {
		_, err := db.Exec(ctx, c.sql)
		code, _ := errkind.MySQL(err)
		if errkind.Of(err) != c.kind || code != c.code || !strings.Contains(errString(err), c.msg) {
			t.Errorf("%s: %v (kind %v, code %d), want %q", c.sql, err, errkind.Of(err), code, c.msg)
		}
	}
	if _, err := db.TableSchema("bad"); err == nil {
		t.Error("a failed CREATE TABLE left its table")
	}
	if got := rowsOf(t, db, "SELECT COUNT(*) FROM t"); got[0] != "1" {
		t.Errorf("a failed INSERT changed the table: %v", got)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// An INSERT reports the first AUTO_INCREMENT number it gave, through the
// API and database/sql (LastInsertId), and a reopened on-disk table goes
// on from its largest number.
func TestAutoIncrementLastInsertID(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	db := openTestDB(t, gsql.Options{Path: path, Device: "cpu"},
		"CREATE TABLE a (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR)")
	res, err := db.Exec(ctx, "INSERT INTO a (v) VALUES ('x'), ('y'), ('z')")
	if err != nil || res.LastInsertID != 1 || res.RowsAffected != 3 {
		t.Fatalf("first INSERT: %+v, %v", res, err)
	}
	if res, err = db.Exec(ctx, "INSERT INTO a VALUES (7, 'explicit')"); err != nil || res.LastInsertID != 0 {
		t.Fatalf("explicit id: %+v, %v", res, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTestDB(t, gsql.Options{Path: path, Device: "cpu"})
	if res, err = db.Exec(ctx, "INSERT INTO a (v) VALUES ('after')"); err != nil || res.LastInsertID != 8 {
		t.Fatalf("after reopening: %+v, %v", res, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	sdb, err := sql.Open("gsql", "file:"+path+"?device=cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	r, err := sdb.ExecContext(ctx, "INSERT INTO a (v) VALUES (?), (?)", "p", "q")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := r.LastInsertId(); err != nil || id != 9 {
		t.Fatalf("database/sql LastInsertId: %d, %v", id, err)
	}
}
