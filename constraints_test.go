package gsql_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/errkind"
)

// TestKeyAffectedRows: affected rows as MySQL counts them (1 per row
// inserted or deleted, 2 per row updated, 0 when an update changes
// nothing), and bad input failing whole.
func TestKeyAffectedRows(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10) UNIQUE, c INT)",
		"INSERT INTO t VALUES (1, 'x', 1), (2, 'y', 2)")
	cases := []struct {
		stmt     string
		affected int64
		warnings int
		err      errkind.Kind
	}{
		{"INSERT INTO t VALUES (3, 'z', 3), (1, 'w', 4)", 0, 0, errkind.DuplicateKey},
		{"INSERT INTO t VALUES (NULL, 'q', 5)", 0, 0, errkind.NotNull},
		{"INSERT INTO t VALUES (3, 'q', 5) ON DUPLICATE KEY UPDATE nope = 1", 0, 0, errkind.NoSuchColumn},
		{"INSERT INTO t VALUES (3, 'q', 5) ON DUPLICATE KEY UPDATE c = VALUES(nope)", 0, 0, errkind.NoSuchColumn},
		{"INSERT INTO t VALUES (3, 'q', 5) AS n (p, q) ON DUPLICATE KEY UPDATE c = p", 0, 0, errkind.OperandColumns},
		{"INSERT IGNORE INTO t VALUES (1, 'q', 9), (3, 'e', 5), (4, 'e', 6)", 1, 2, 0},
		{"INSERT INTO t VALUES (1, 'q', 9) ON DUPLICATE KEY UPDATE c = c + 10", 2, 0, 0},
		{"INSERT INTO t VALUES (1, 'q', 9) ON DUPLICATE KEY UPDATE c = c", 0, 0, 0},
		{"INSERT INTO t VALUES (1, 'q', 9), (5, 'n', 1) ON DUPLICATE KEY UPDATE c = VALUES(c)", 3, 0, 0},
		{"INSERT INTO t VALUES (?, 'q', 9) ON DUPLICATE KEY UPDATE c = ?", 2, 0, 0},
		{"REPLACE INTO t VALUES (1, 'y', 7)", 3, 0, 0},
		{"REPLACE INTO t VALUES (9, 'nine', 9)", 1, 0, 0},
		{"UPDATE t SET a = 9 WHERE a = 1", 0, 0, errkind.DuplicateKey},
	}
	for _, c := range cases {
		var args []any
		if strings.Contains(c.stmt, "?") {
			args = []any{1, 42}
		}
		before := dump(t, db, "SELECT * FROM t ORDER BY a")
		res, err := db.Exec(ctx, c.stmt, args...)
		if c.err != 0 {
			if errkind.Of(err) != c.err {
				t.Errorf("%s: got %v (%v), want %v", c.stmt, err, errkind.Of(err), c.err)
			}
			if after := dump(t, db, "SELECT * FROM t ORDER BY a"); after != before {
				t.Errorf("%s failed but changed the table:\n%s\nto\n%s", c.stmt, before, after)
			}
			continue
		}
		if err != nil || res.RowsAffected != c.affected || len(res.Warnings) != c.warnings {
			t.Errorf("%s: %+v, %v; want %d rows, %d warnings", c.stmt, res, err, c.affected, c.warnings)
		}
	}
	if got, want := dump(t, db, "SELECT * FROM t ORDER BY a"), "1 y 7|3 e 5|5 n 1|9 nine 9|"; got != want {
		t.Errorf("table: %s, want %s", got, want)
	}
}

// dump is a query's rows as text, "v v v|" per row.
func dump(t *testing.T, db *gsql.DB, q string) string {
	t.Helper()
	rdr, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rdr.Release()
	var sb strings.Builder
	for rdr.Next() {
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			for c := 0; c < int(rec.NumCols()); c++ {
				if c > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(rec.Column(c).ValueStr(r))
			}
			sb.WriteByte('|')
		}
	}
	return sb.String()
}

// TestKeysDurable: an on-disk database keeps its keys and unique indexes
// across reopen, and a failed statement changes nothing on disk.
func TestKeysDurable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE d (a INT, b VARCHAR(5), c INT, PRIMARY KEY (a, b))",
		"INSERT INTO d VALUES (1, 'x', 1), (1, 'y', 2)",
		"CREATE UNIQUE INDEX dc ON d (c)",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Exec(ctx, "INSERT INTO d VALUES (2, 'x', 3), (1, 'x', 4)"); errkind.Of(err) != errkind.DuplicateKey {
		t.Fatalf("duplicate: %v", err)
	}
	db.Close()
	db, err = gsql.Open(gsql.Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var dk *catalog.DuplicateKeyError
	if _, err := db.Exec(ctx, "INSERT INTO d VALUES (1, 'y', 9)"); !errors.As(err, &dk) || dk.Error() != "Duplicate entry '1-y' for key 'd.PRIMARY'" {
		t.Errorf("primary key after reopen: %v", err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO d VALUES (5, 'y', 2)"); !errors.As(err, &dk) || dk.Key != "dc" {
		t.Errorf("unique index after reopen: %v", err)
	}
	if got := dump(t, db, "SELECT * FROM d ORDER BY a, b"); got != "1 x 1|1 y 2|" {
		t.Errorf("rows after reopen: %s", got)
	}
}

// TestKeyedInsertLinear: inserting n rows into a keyed table of n rows
// takes about twice as long as n into an empty one (hash sets built once
// per statement), not n times.
func TestKeyedInsertLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"}, "CREATE TABLE big (a INT PRIMARY KEY, b INT)")
	const n = 200_000
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i := int64(1); i <= n; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
	}
	rec := b.NewRecord()
	defer rec.Release()
	if err := db.RegisterTable("src", schema, []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	timeInsert := func(lo, n int) time.Duration {
		start := time.Now()
		q := fmt.Sprintf("INSERT INTO big SELECT x + %d, x FROM src", lo)
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	first := timeInsert(0, n)
	second := timeInsert(n, n)
	t.Logf("%d rows into an empty table: %v; %d more: %v", n, first, n, second)
	if second > 20*first+time.Second {
		t.Errorf("second insert %v, first %v: not linear", second, first)
	}
	if _, err := db.Exec(ctx, fmt.Sprintf("INSERT INTO big VALUES (%d, 0)", n)); errkind.Of(err) != errkind.DuplicateKey {
		t.Errorf("duplicate in a big table: %v", err)
	}
}

// TestKeySetsKept: consecutive INSERTs extend the key sets the last one
// left; every other change to the table, a failed statement and a new
// unique index make the next INSERT check against the table as it is.
func TestKeySetsKept(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE ks (a INT PRIMARY KEY, b VARCHAR(10), c INT)",
		"INSERT INTO ks VALUES (1, 'x', 1)")
	steps := []struct {
		stmt     string
		affected int64
		err      errkind.Kind
	}{
		{"INSERT INTO ks VALUES (2, 'y', 2)", 1, 0},
		{"INSERT INTO ks VALUES (2, 'z', 3)", 0, errkind.DuplicateKey},
		// The failed statement's rows are not in the sets: 3 goes in.
		{"INSERT INTO ks VALUES (3, 'z', 3), (2, 'w', 0)", 0, errkind.DuplicateKey},
		{"INSERT INTO ks VALUES (3, 'z', 3)", 1, 0},
		{"INSERT IGNORE INTO ks VALUES (3, 'q', 0), (4, 'q', 4), (4, 'r', 0)", 1, 0},
		{"INSERT INTO ks VALUES (4, 'r', 0)", 0, errkind.DuplicateKey},
		// Changes that are not appends leave other sets behind.
		{"DELETE FROM ks WHERE a = 2", 1, 0},
		{"INSERT INTO ks VALUES (2, 'y2', 2)", 1, 0},
		{"UPDATE ks SET a = 20 WHERE a = 2", 1, 0},
		{"INSERT INTO ks VALUES (2, 'y3', 2)", 1, 0},
		{"INSERT INTO ks VALUES (20, 'd', 0)", 0, errkind.DuplicateKey},
		{"REPLACE INTO ks VALUES (2, 'y4', 12)", 2, 0},
		{"INSERT INTO ks VALUES (5, 'e', 5)", 1, 0},
		{"INSERT INTO ks VALUES (5, 'e', 5) ON DUPLICATE KEY UPDATE c = 50", 2, 0},
		{"INSERT INTO ks VALUES (6, 'f', 60)", 1, 0},
		// A unique index added between two INSERTs is checked.
		{"CREATE UNIQUE INDEX kc ON ks (c)", 0, 0},
		{"INSERT INTO ks VALUES (7, 'g', 60)", 0, errkind.DuplicateKey},
		{"INSERT INTO ks VALUES (7, 'g', 7)", 1, 0},
		{"DROP INDEX kc", 0, 0},
		{"INSERT INTO ks VALUES (8, 'h', 7)", 1, 0},
		{"DELETE FROM ks", 9, 0},
		{"INSERT INTO ks VALUES (1, 'x', 1), (2, 'y', 2)", 2, 0},
	}
	for _, s := range steps {
		before := dump(t, db, "SELECT * FROM ks ORDER BY a")
		res, err := db.Exec(ctx, s.stmt)
		if s.err != 0 {
			if errkind.Of(err) != s.err {
				t.Fatalf("%s: got %v, want %v", s.stmt, err, s.err)
			}
			if after := dump(t, db, "SELECT * FROM ks ORDER BY a"); after != before {
				t.Fatalf("%s failed but changed the table:\n%s\nto\n%s", s.stmt, before, after)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", s.stmt, err)
		}
		if res.RowsAffected != s.affected {
			t.Fatalf("%s: %d rows affected, want %d", s.stmt, res.RowsAffected, s.affected)
		}
	}
	if got, want := dump(t, db, "SELECT a, b, c FROM ks ORDER BY a"), "1 x 1|2 y 2|"; got != want {
		t.Errorf("table: %s, want %s", got, want)
	}
}

// BenchmarkKeyedSingleInserts: single-row INSERTs into a keyed table of
// 100,000 rows. Each used to rebuild the key's hash set over the whole
// table; with the sets kept between statements one costs about the same
// whatever the table's size.
func BenchmarkKeyedSingleInserts(b *testing.B) {
	ctx := context.Background()
	db := openTestDB(b, gsql.Options{Device: "cpu"}, "CREATE TABLE bk (a INT PRIMARY KEY, b VARCHAR(10) UNIQUE)")
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	for i := int64(1); i <= 100_000; i++ {
		rb.Field(0).(*array.Int64Builder).Append(i)
	}
	rec := rb.NewRecord()
	defer rec.Release()
	if err := db.RegisterTable("src", schema, []arrow.Record{rec}); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO bk SELECT x, CAST(x AS CHAR) FROM src"); err != nil {
		b.Fatalf("filling the table: %v", err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := 1_000_000 + i
		if _, err := db.Exec(ctx, "INSERT INTO bk VALUES (?, ?)", k, fmt.Sprint(k)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInsertIgnoreNotNull: INSERT IGNORE stores a NOT NULL column's
// implicit default for a NULL with MySQL's warning 1048, row by row and
// left to right (MariaDB 10.11.19's SHOW WARNINGS for the same
// statements); a plain INSERT fails with 1048 and MySQL's text.
func TestInsertIgnoreNotNull(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"},
		"CREATE TABLE ni (a INT NOT NULL, b VARCHAR(5) NOT NULL, c DECIMAL(5,2) NOT NULL, f DOUBLE NOT NULL, g BOOLEAN NOT NULL, h INT, PRIMARY KEY (a, b))",
		"CREATE TABLE nk (a INT NOT NULL, b VARCHAR(5))")
	cases := []struct {
		stmt     string
		affected int64
		warnings []string
		err      string
	}{
		{"INSERT IGNORE INTO ni VALUES (NULL, 'x', NULL, 1.5, NULL, 1), (2, NULL, 3, NULL, TRUE, NULL)", 2, []string{
			"1048 Column 'a' cannot be null", "1048 Column 'c' cannot be null", "1048 Column 'g' cannot be null",
			"1048 Column 'b' cannot be null", "1048 Column 'f' cannot be null"}, ""},
		{"INSERT IGNORE INTO ni VALUES (NULL, 'x', 9, 9, 1, 9), (5, 'y', 5, 5, 0, NULL)", 1, []string{
			"1048 Column 'a' cannot be null", "1062 Duplicate entry '0-x' for key 'ni.PRIMARY'"}, ""},
		{"INSERT INTO ni VALUES (NULL, 'z', 1, 1, 1, 1)", 0, nil, "Column 'a' cannot be null (row 1)"},
		// A table without keys takes the same path.
		{"INSERT IGNORE INTO nk VALUES (NULL, NULL), (1, 'p')", 2, []string{"1048 Column 'a' cannot be null"}, ""},
		// Omitted, a NOT NULL column without a DEFAULT is MySQL's 1364.
		{"INSERT INTO nk (b) VALUES ('q')", 0, nil, "Field 'a' doesn't have a default value"},
	}
	for _, c := range cases {
		res, err := db.Exec(ctx, c.stmt)
		if c.err != "" {
			if k := errkind.Of(err); (k != errkind.NotNull && k != errkind.NoDefault) || !strings.Contains(fmt.Sprint(err), c.err) {
				t.Errorf("%s: %v, want %q", c.stmt, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.stmt, err)
		}
		var got []string
		for _, w := range res.Warnings {
			got = append(got, fmt.Sprintf("%d %s", w.Code, w.Msg))
		}
		if res.RowsAffected != c.affected || strings.Join(got, "|") != strings.Join(c.warnings, "|") {
			t.Errorf("%s: %d rows, warnings %q; want %d, %q", c.stmt, res.RowsAffected, got, c.affected, c.warnings)
		}
	}
	if got, want := dump(t, db, "SELECT * FROM nk ORDER BY a"), "0 (null)|1 p|"; got != want {
		t.Errorf("nk: %s, want %s", got, want)
	}
}
