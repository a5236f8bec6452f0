package gsql_test

import (
	"context"
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
