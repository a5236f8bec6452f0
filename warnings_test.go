package gsql_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/expr"
)

// warningText renders warnings as "Level Code Message" lines.
func warningText(ws []gsql.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%s %d %s", w.Level, w.Code, w.Msg))
	}
	return out
}

// TestStatementWarnings: each statement's warnings replace the
// previous statement's; SHOW WARNINGS keeps them; a SELECT's are known
// once its rows are read, through the reader and the session; a cached
// plan warns again; a constant call warns once per row.
func TestStatementWarnings(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE w (a INT, s VARCHAR(20))")
	mustExec(t, db, "INSERT INTO w VALUES (1, '2023-02-30'), (0, '12abc'), (2, ' 12 ')")
	div := "Warning 1365 Division by 0"
	cases := []struct {
		sql   string
		want  []string
		count int64
	}{
		{"SELECT DATE('2023-02-30')", []string{"Warning 1292 Incorrect datetime value: '2023-02-30'"}, 1},
		{"SHOW WARNINGS", []string{"Warning 1292 Incorrect datetime value: '2023-02-30'"}, 1},
		{"SELECT 1", nil, 0},
		{"SELECT 1/0, 1 DIV 0, 1 % 0", []string{div, div, div}, 3},
		{"SELECT 10 / a FROM w", []string{div}, 1},
		{"SELECT 10 / a FROM w", []string{div}, 1}, // the cached plan warns too
		{"SELECT 1 / 0 FROM w", []string{div, div, div}, 3},
		{"SELECT s + 0 FROM w", []string{"Warning 1292 Truncated incorrect DOUBLE value: '2023-02-30'", "Warning 1292 Truncated incorrect DOUBLE value: '12abc'", "Note 1292 Truncated incorrect DOUBLE value: ' 12 '"}, 3},
		{"SELECT a FROM w WHERE DATE(s) IS NULL AND a = 1", []string{"Warning 1292 Incorrect datetime value: '2023-02-30'", "Warning 1292 Incorrect datetime value: '12abc'", "Warning 1292 Incorrect datetime value: ' 12 '"}, 3},
		{"SELECT DATE_ADD(DATE '9999-12-31', INTERVAL 1 DAY)", []string{"Warning 1441 Datetime function: datetime field overflow"}, 1},
		{"SELECT STR_TO_DATE('abc', '%Y')", []string{"Warning 1411 Incorrect datetime value: 'abc' for function str_to_date"}, 1},
		{"SELECT TRY_CAST('2023-02-30' AS DATE)", nil, 0},
		{"SELECT SUM(10 / a) FROM w", []string{div}, 1},
		{"SELECT 10 DIV a, COUNT(*) FROM w GROUP BY 10 DIV a", []string{div}, 1},
		{"SELECT CAST(s AS DATE) FROM w, (SELECT 1 FROM w) x, (SELECT 1 FROM w) y, (SELECT 1 FROM w) z", nil, 81},
		// A date read by dropping trailing text (MariaDB 10.11.19's texts,
		// MySQL 8's make_truncated_value_warning): the word is the part read.
		{"SELECT CAST('2024-01-05abc' AS DATE), CAST('2024-01-05 10:11:12 x' AS DATETIME)", []string{"Warning 1292 Truncated incorrect date value: '2024-01-05abc'", "Warning 1292 Truncated incorrect datetime value: '2024-01-05 10:11:12 x'"}, 2},
		{"SELECT YEAR('2024-01-05abc') FROM w", []string{"Warning 1292 Truncated incorrect date value: '2024-01-05abc'", "Warning 1292 Truncated incorrect date value: '2024-01-05abc'", "Warning 1292 Truncated incorrect date value: '2024-01-05abc'"}, 3},
		{"SELECT STR_TO_DATE('2024-01-05abc', '%Y-%m-%d'), STR_TO_DATE('10:30 x', '%H:%i'), STR_TO_DATE('2024-01-05 10:30 x', '%Y-%m-%d %H:%i')", []string{"Warning 1292 Truncated incorrect date value: '2024-01-05abc'", "Warning 1292 Truncated incorrect time value: '10:30 x'", "Warning 1292 Truncated incorrect datetime value: '2024-01-05 10:30 x'"}, 3},
		{"SELECT STR_TO_DATE('2024-01-05  ', '%Y-%m-%d'), CAST(' 2024-01-05 ' AS DATE), CAST('2024-01-05T' AS DATETIME)", nil, 0},
		// Interval text with more fields than its unit is NULL without a
		// warning; a composite interval past the calendar warns.
		{"SELECT DATE '2024-01-05' + INTERVAL '1 2 3' DAY_HOUR, DATE '9999-12-31' + INTERVAL '1 2' DAY_HOUR", []string{"Warning 1441 Datetime function: datetime field overflow"}, 1},
		// A comparison converts its constant text once per statement,
		// when it is prepared (MySQL's Arg_comparator::set_cmp_func):
		// one warning per comparison, before the rows' warnings,
		// whatever the rows; the statement run again warns again.
		{"SELECT DATE(s) = '2023-03-01abc', DATE(s) < '2023-03-01abc', DATE(s) IN ('2023-03-01 x') FROM w", []string{"Warning 1292 Truncated incorrect date value: '2023-03-01abc'", "Warning 1292 Truncated incorrect date value: '2023-03-01abc'", "Warning 1292 Truncated incorrect date value: '2023-03-01 x'", "Warning 1292 Incorrect datetime value: '2023-02-30'", "Warning 1292 Incorrect datetime value: '12abc'", "Warning 1292 Incorrect datetime value: ' 12 '"}, 6},
		{"SELECT a FROM w WHERE DATE '2023-03-01' + INTERVAL a DAY <> '2023-03-01abc'", []string{"Warning 1292 Truncated incorrect date value: '2023-03-01abc'"}, 1},
		{"SELECT a FROM w WHERE DATE '2023-03-01' + INTERVAL a DAY <> '2023-03-01abc'", []string{"Warning 1292 Truncated incorrect date value: '2023-03-01abc'"}, 1},
		// No row compared (a conjunct that keeps none, LIMIT 0): the
		// text is read all the same, also when the statement runs again.
		{"SELECT a FROM w WHERE a > 5 AND DATE '2023-03-01' + INTERVAL a DAY = '2023-03-01abc'", []string{"Warning 1292 Truncated incorrect date value: '2023-03-01abc'"}, 1},
		{"SELECT a FROM w WHERE a > 5 AND DATE '2023-03-01' + INTERVAL a DAY = '2023-03-01abc'", []string{"Warning 1292 Truncated incorrect date value: '2023-03-01abc'"}, 1},
		{"SELECT a FROM w WHERE DATE '2023-03-01' + INTERVAL a DAY IN ('2023-03-01 x') LIMIT 0", []string{"Warning 1292 Truncated incorrect date value: '2023-03-01 x'"}, 1},
		// TIME text: NULL for what is no TIME, clamped past 838:59:59.
		{"SELECT TIME('abc'), CAST('12:61:00' AS TIME), TIME_TO_SEC('x')", []string{"Warning 1292 Incorrect time value: 'abc'", "Warning 1292 Incorrect time value: '12:61:00'", "Warning 1292 Incorrect time value: 'x'"}, 3},
		{"SELECT TIME('839:00:00'), TIME_TO_SEC('-900:00:00'), MAKETIME(-839, 5, 1.5), SEC_TO_TIME(99999999), TIME('838:59:59')", []string{"Warning 1292 Truncated incorrect time value: '839:00:00'", "Warning 1292 Truncated incorrect time value: '-900:00:00'", "Warning 1292 Truncated incorrect time value: '-839:05:01'", "Warning 1292 Truncated incorrect seconds value: '99999999'"}, 4},
	}
	for _, c := range cases {
		rdr, err := db.Query(ctx, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		for rdr.Next() {
		}
		if err := rdr.Err(); err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if wr, ok := rdr.(gsql.WarningReader); ok && wr.WarningCount() != c.count {
			t.Errorf("%s: reader counts %d warnings, want %d", c.sql, wr.WarningCount(), c.count)
		}
		rdr.Release()
		got := warningText(db.Warnings())
		if c.count > expr.MaxWarnings {
			if len(got) != expr.MaxWarnings {
				t.Errorf("%s: kept %d warnings, want %d", c.sql, len(got), expr.MaxWarnings)
			}
		} else if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.sql, got, c.want)
		}
		if db.WarningCount() != c.count {
			t.Errorf("%s: %d warnings counted, want %d", c.sql, db.WarningCount(), c.count)
		}
	}
}

// TestExecWarnings: Exec's Result carries the warnings of a statement
// without rows and of a SELECT whose rows it discards.
func TestExecWarnings(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	ctx := context.Background()
	res, err := db.Exec(ctx, "SELECT 1/0")
	if err != nil {
		t.Fatal(err)
	}
	if got := warningText(res.Warnings); len(got) != 1 || got[0] != "Warning 1365 Division by 0" || res.WarningCount != 1 {
		t.Fatalf("Exec(SELECT 1/0): %q, %d", got, res.WarningCount)
	}
	mustExec(t, db, "CREATE TABLE k (a BIGINT PRIMARY KEY)")
	res, err = db.Exec(ctx, "INSERT IGNORE INTO k VALUES (1), (1)")
	if err != nil {
		t.Fatal(err)
	}
	if res.WarningCount != 1 || len(db.Warnings()) != 1 || db.Warnings()[0].Code != 1062 {
		t.Fatalf("INSERT IGNORE: %+v, session %+v", res, db.Warnings())
	}
	// A view's query is checked, not run, by CREATE VIEW (and DESCRIBE):
	// its text read as a date warns when the view is read, as in MySQL.
	mustExec(t, db, "CREATE TABLE kd (d DATE)")
	for _, q := range []string{"CREATE VIEW kv AS SELECT d FROM kd WHERE d = '2024-02-29x'", "DESCRIBE kv", "SELECT * FROM kv"} {
		res, err = db.Exec(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want := int64(0)
		if strings.HasPrefix(q, "SELECT") {
			want = 1
		}
		if res.WarningCount != want {
			t.Errorf("%s: %d warnings %q, want %d", q, res.WarningCount, warningText(res.Warnings), want)
		}
	}
}

// TestDriverShowWarnings: through database/sql, SHOW WARNINGS on the
// connection that ran a statement lists its warnings.
func TestDriverShowWarnings(t *testing.T) {
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	sdb := gsql.OpenDB(db)
	defer sdb.Close()
	ctx := context.Background()
	conn, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var x sql.NullString
	if err := conn.QueryRowContext(ctx, "SELECT CAST('2023-02-30' AS DATE)").Scan(&x); err != nil || x.Valid {
		t.Fatalf("got %v, %v", x, err)
	}
	var level, msg string
	var code int
	if err := conn.QueryRowContext(ctx, "SHOW WARNINGS").Scan(&level, &code, &msg); err != nil {
		t.Fatal(err)
	}
	if level != "Warning" || code != 1292 || msg != "Incorrect datetime value: '2023-02-30'" {
		t.Fatalf("SHOW WARNINGS: %s %d %s", level, code, msg)
	}
}
