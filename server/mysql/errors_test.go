package mysql

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/server/mysql/wire"
)

// TestErrorCodes runs failing statements through the handler and checks
// the MySQL code and SQLSTATE each is sent with (those of its kind).
func TestErrorCodes(t *testing.T) {
	h, s := newHandler(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE e (a BIGINT NOT NULL, b VARCHAR)",
		"INSERT INTO e VALUES (1, 'x')",
		"CREATE INDEX ie ON e (a)",
		"CREATE VIEW v AS SELECT a FROM e",
	} {
		if _, err := h.Run(ctx, s, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cases := []struct {
		stmt  string
		code  uint16
		state string
	}{
		{"SELEC 1", 1064, "42000"},
		{"SELECT * FROM missing", 1146, "42S02"},
		{"SELECT nope FROM e", 1054, "42S22"},
		{"CREATE TABLE e (x BIGINT)", 1050, "42S01"},
		{"DROP TABLE missing", 1051, "42S02"},
		{"INSERT INTO e VALUES (NULL, 'x')", 1048, "23000"},
		{"INSERT INTO e (a, b) VALUES (NULL, 'x')", 1048, "23000"},
		{"INSERT INTO e (b) VALUES ('x')", 1364, "HY000"},
		{"CREATE TABLE f (a BIGINT NOT NULL DEFAULT NULL)", 1067, "42000"},
		{"SELECT a, COUNT(*) FROM e", 1140, "42000"},
		{"UPDATE e SET a = NULL", 1048, "23000"},
		{"INSERT INTO e VALUES ('abc', 'x')", 1366, "HY000"},
		{"SELECT a + 9223372036854775807 FROM e", 1690, "22003"},
		{"CREATE INDEX ie ON e (b)", 1061, "42000"},
		{"DROP INDEX nope", 1091, "42000"},
		{"CREATE VIEW v AS SELECT 1", 1050, "42S01"},
		{"DROP VIEW nope", 1051, "42S02"},
		{"DROP TABLE v", 1347, "HY000"},
		{"SELECT ABS(1, 2)", 1210, "HY000"}, // the binder's error wraps expr.ArgError
		{"SELECT * FROM read_csv('x.csv')", 1227, "42000"},
		{"SHOW COLUMNS FROM missing", 1146, "42S02"},
	}
	for _, c := range cases {
		res, err := h.Run(ctx, s, c.stmt, nil)
		if err == nil && res.Rows != nil {
			for res.Rows.Next() {
			}
			err = res.Rows.Err() // an error found while the rows stream
			res.Rows.Release()
		}
		var me *wire.Error
		if !errors.As(err, &me) || me.Code != c.code || me.State != c.state {
			t.Errorf("%s: got %v, want %d (%s)", c.stmt, err, c.code, c.state)
		}
	}
}

// TestMySQLErrorContext: cancellation and deadlines are sent as MySQL
// words them; an error of no kind is 1105 with gsql's message.
func TestMySQLErrorContext(t *testing.T) {
	cases := []struct {
		err   error
		code  uint16
		state string
		msg   string
	}{
		{context.Canceled, 1317, "70100", "Query execution was interrupted"},
		{fmt.Errorf("scan: %w", context.DeadlineExceeded), 3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded"},
		{errors.New("something broke"), 1105, "HY000", "something broke"},
		{wire.Errorf(1049, "42000", "Unknown database 'x'"), 1049, "42000", "Unknown database 'x'"},
	}
	for _, c := range cases {
		var me *wire.Error
		if err := mysqlError(c.err); !errors.As(err, &me) || me.Code != c.code || me.State != c.state || me.Msg != c.msg {
			t.Errorf("%v: got %v", c.err, err)
		}
	}
	if mysqlError(nil) != nil {
		t.Error("mysqlError(nil) != nil")
	}
}

// TestDuplicateKey: a duplicate key is sent as MySQL's 1062 (23000) with
// MySQL 8's text; INSERT IGNORE's skipped rows are counted in the OK
// packet and listed by SHOW WARNINGS.
func TestDuplicateKey(t *testing.T) {
	h, s := newHandler(t)
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE k (a BIGINT PRIMARY KEY, b VARCHAR(5))", "INSERT INTO k VALUES (1, 'x')"} {
		if _, err := h.Run(ctx, s, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_, err := h.Run(ctx, s, "INSERT INTO k VALUES (2, 'y'), (1, 'z')", nil)
	var me *wire.Error
	if !errors.As(err, &me) || me.Code != 1062 || me.State != "23000" || me.Msg != "Duplicate entry '1' for key 'k.PRIMARY'" {
		t.Fatalf("duplicate: got %#v", err)
	}
	res, err := h.Run(ctx, s, "INSERT IGNORE INTO k VALUES (2, 'y'), (1, 'z')", nil)
	if err != nil || res.AffectedRows != 1 || res.Warnings != 1 {
		t.Fatalf("INSERT IGNORE: %+v, %v; want 1 row, 1 warning", res, err)
	}
	res, err = h.Run(ctx, s, "SHOW WARNINGS", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for res.Rows.Next() {
		rec := res.Rows.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, fmt.Sprint(rec.Column(1).ValueStr(i), " ", rec.Column(2).ValueStr(i)))
		}
	}
	res.Rows.Release()
	if len(got) != 1 || got[0] != "1062 Duplicate entry '1' for key 'k.PRIMARY'" {
		t.Fatalf("SHOW WARNINGS: %q", got)
	}
}

// TestSelectWarnings: a SELECT's warnings are counted by its reader
// (the EOF packet's count) once its rows are read, listed by SHOW
// WARNINGS and counted by SHOW COUNT(*) WARNINGS and @@warning_count;
// the next statement without warnings clears them.
func TestSelectWarnings(t *testing.T) {
	h, s := newHandler(t)
	ctx := context.Background()
	res, err := h.Run(ctx, s, "SELECT 1/0, CAST('2023-02-30' AS DATE), '12abc' + 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for res.Rows.Next() {
	}
	if wr, ok := res.Rows.(wire.RowsWarnings); !ok || wr.WarningCount() != 3 {
		t.Fatalf("reader's warning count: %T %v", res.Rows, ok)
	}
	res.Rows.Release()
	res, err = h.Run(ctx, s, "SHOW WARNINGS", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for res.Rows.Next() {
		rec := res.Rows.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, fmt.Sprint(rec.Column(0).ValueStr(i), " ", rec.Column(1).ValueStr(i), " ", rec.Column(2).ValueStr(i)))
		}
	}
	res.Rows.Release()
	want := []string{"Warning 1365 Division by 0", "Warning 1292 Incorrect datetime value: '2023-02-30'", "Warning 1292 Truncated incorrect DOUBLE value: '12abc'"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("SHOW WARNINGS:\n got %q\nwant %q", got, want)
	}
	if c := cells(t, h, s, "SHOW COUNT(*) WARNINGS"); c[0] != "3" {
		t.Fatalf("SHOW COUNT(*) WARNINGS: %v", c)
	}
	if c := cells(t, h, s, "SELECT @@warning_count"); c[0] != "3" {
		t.Fatalf("@@warning_count: %v", c)
	}
	// That SELECT cleared them (MySQL 8; MariaDB keeps them after a
	// statement that reads no table).
	if c := cells(t, h, s, "SHOW COUNT(*) WARNINGS"); c[0] != "0" {
		t.Fatalf("after SELECT @@warning_count: %v warnings", c)
	}
	cells(t, h, s, "SELECT 1/0")
	cells(t, h, s, "SELECT 1")
	if c := cells(t, h, s, "SHOW COUNT(*) WARNINGS"); c[0] != "0" {
		t.Fatalf("after SELECT 1: %v warnings", c)
	}
}
