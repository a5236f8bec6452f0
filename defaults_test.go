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

// LAST_INSERT_ID() is per session: the first number the session's last
// numbering INSERT gave; an INSERT of explicit values leaves it (MariaDB
// 10.11 answers 4, 4, 0 below).
func TestLastInsertIDPerSession(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE b (id BIGINT AUTO_INCREMENT PRIMARY KEY, v BIGINT)",
		"INSERT INTO b (v) VALUES (1), (2), (3)")
	s1, s2 := db.Session(), db.Session()
	if _, err := s1.Exec(ctx, "INSERT INTO b (v) VALUES (40), (50)"); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Exec(ctx, "INSERT INTO b VALUES (100, 0)"); err != nil {
		t.Fatal(err)
	}
	one := func(s *gsql.Session) string {
		rdr, err := s.Query(ctx, "SELECT LAST_INSERT_ID()")
		if err != nil {
			t.Fatal(err)
		}
		defer rdr.Release()
		rdr.Next()
		return rdr.Record().Column(0).ValueStr(0)
	}
	if got := one(s1); got != "4" {
		t.Errorf("session 1: LAST_INSERT_ID() = %s, want 4", got)
	}
	if got := one(s1); got != "4" {
		t.Errorf("session 1 again (no plan cached with the value): %s", got)
	}
	if got := one(s2); got != "0" {
		t.Errorf("session 2: LAST_INSERT_ID() = %s, want 0", got)
	}
}

// SHOW CREATE TABLE prints a statement that makes the same table: run in
// a fresh database it gives the same SHOW CREATE TABLE, and the copy
// numbers, defaults and refuses duplicates as the original.
func TestShowCreateTableRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE `order lines` (id INT NOT NULL AUTO_INCREMENT, sku VARCHAR(20) DEFAULT 'it''s', amt DECIMAL(10,2) NOT NULL DEFAULT 0.5, "+
			"at DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), d DATE, ok BOOLEAN DEFAULT TRUE, PRIMARY KEY (id), UNIQUE KEY uq_sku (sku))")
	show := func(db *gsql.DB) string {
		rows := rowsOf(t, db, "SHOW CREATE TABLE `order lines`")
		if len(rows) != 1 {
			t.Fatalf("SHOW CREATE TABLE: %q", rows)
		}
		return strings.TrimPrefix(rows[0], "order lines|")
	}
	text := show(a)
	for _, want := range []string{"CREATE TABLE `order lines` (", "`id` BIGINT NOT NULL AUTO_INCREMENT", "DEFAULT 'it''s'",
		"`amt` DECIMAL(10,2) NOT NULL DEFAULT 0.5", "DEFAULT CURRENT_TIMESTAMP(3)", "PRIMARY KEY (`id`)", "UNIQUE KEY `uq_sku` (`sku`)"} {
		if !strings.Contains(text, want) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, text)
		}
	}
	b := openTestDB(t, gsql.Options{Device: "cpu"}, text)
	if got := show(b); got != text {
		t.Errorf("round trip:\n%s\nwant\n%s", got, text)
	}
	if _, err := b.Exec(ctx, "INSERT INTO `order lines` (d) VALUES (DATE '2024-02-29')"); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, b, "SELECT id, sku, amt, at IS NOT NULL, d, ok FROM `order lines`"); len(got) != 1 || got[0] != "1|it's|0.5|true|2024-02-29|true" {
		t.Errorf("the copy's defaults: %q", got)
	}
	if _, err := b.Exec(ctx, "INSERT INTO `order lines` (sku) VALUES ('it''s')"); errkind.Of(err) != errkind.DuplicateKey {
		t.Errorf("the copy's UNIQUE key: %v", err)
	}
	if _, err := a.Exec(ctx, "SHOW CREATE TABLE nosuch"); errkind.Of(err) != errkind.NoSuchTable {
		t.Errorf("SHOW CREATE TABLE of a missing table: %v", err)
	}
}
