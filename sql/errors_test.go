package sql

import (
	"errors"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	const (
		syn = ErrSyntax
		uns = ErrUnsupported
	)
	tests := []struct {
		in        string
		kind      ErrorKind
		line, col int
		msg       string
	}{
		// Syntax errors from the stock parser, on the first line.
		{"SELECT 1 FROM t WHERE", syn, 1, 22, "unexpected end of statement"},
		{"SELECT a FROM t GROUP", syn, 1, 22, "unexpected end of statement"},
		{"SELECT FROM t", syn, 1, 8, "near 'FROM'"},
		{"SELECT 1)", syn, 1, 9, "near ')'"},
		{"SELECT (SELECT 1", syn, 1, 17, "unexpected end of statement"},
		{"(SELECT 1", syn, 1, 10, "unexpected end of statement"},
		{"SELECT 'é' = = 1", syn, 1, 14, "near '='"},
		{"SELECT * FROM t WHERE a = 'x' 'y' 'z' 'w", syn, 1, 39, "unterminated string"},
		{"SELECT * FROM t WHERE a = 'x' 'y' = = 1", syn, 1, 35, "near '='"},
		// Named parameters: only ? binds an argument.
		{"SELECT a FROM t WHERE a = :x", uns, 1, 27, "not supported: named parameter :x (use ?)"},
		{"SELECT ?,\n :v1", uns, 2, 2, "not supported: named parameter :v1 (use ?)"},
		{"INSERT INTO t VALUES (::list)", uns, 1, 23, "not supported: named parameter ::list (use ?)"},
		// The :: cast: its type is checked where it is written.
		{"SELECT a::foo FROM t", syn, 1, 11, "unknown type foo"},
		{"SELECT (a +\n 1)::varchar(3 FROM t", syn, 2, 13, "near '('"},
		// A byte order mark before the text is not a character.
		{"\ufeffSELECT FROM t", syn, 1, 8, "near 'FROM'"},
		// One schema: qualified table names are refused.
		{"CREATE TABLE db.t (a INT)", uns, 1, 14, "not supported: qualified table name db.t"},
		{"DROP TABLE t, db.u", uns, 1, 15, "not supported: qualified table name db.u"},
		{"DESCRIBE `my db`.`t`", uns, 1, 10, "not supported: qualified table name my db.t"},
		{"SHOW COLUMNS FROM db.", syn, 1, 22, "unexpected end of statement: expected a table name"},
		// Key definitions need their column list.
		{"CREATE TABLE t (a INT, PRIMARY KEY)", syn, 1, 35, "expected ( and the key's columns"},
		{"CREATE TABLE t (key INT, b INT)", syn, 1, 24, "near ',': expected the column list of KEY"},
		{"CREATE TABLE t (a INT, UNIQUE", syn, 1, 30, "expected ( and the key's columns"},
		{"CREATE TABLE t (a INT, UNIQUE KEY k (a", syn, 1, 39, "expected , or ) in the index's column list"},
		// Table options are checked, not skipped blindly.
		{"CREATE TABLE t garbage AS SELECT 1", syn, 1, 16, "near 'garbage': expected AS, SELECT or a table option"},
		{"CREATE TABLE t (a INT) WHERE 1", syn, 1, 24, "near 'WHERE': expected AS, SELECT or a table option"},
		{"CREATE TABLE t (a INT) ENGINE =", syn, 1, 32, "expected the value of table option ENGINE"},
		{"CREATE TABLE t (a INT) DEFAULT", syn, 1, 31, "unexpected end of statement: expected a table option"},
		{"SELECT substring FROM t", syn, 1, 18, "near 'FROM'"},
		{"\tSELECT\t1 +\t+", syn, 1, 14, "unexpected end of statement"},
		{"INSERT INTO t VALUES (1,)", syn, 1, 25, "near ')'"},
		{"INSERT INTO t (a b) VALUES (1)", syn, 1, 18, "near 'b'"},
		{"SELECT ? ?", syn, 1, 10, "near '?'"},
		{"SELECT a FROM t WHERE a = ? ?", syn, 1, 29, "near '?'"},
		{"SELECT TRIM(x FROM y) z w", syn, 1, 25, "near 'w'"},
		// ... on later lines.
		{"SELECT 1,\n  2 FROM t WHERE\n  a = = 1", syn, 3, 7, "near '='"},
		{"SELECT 1,\n  2 FROM t\n WHERE a ==", syn, 3, 11, "near '='"},
		{"SELECT a\nFROM t\nWHERE b IN (1, 2\nORDER BY a", syn, 4, 1, "near 'ORDER'"},
		{"SELECT 1\n  FROM t WHERE a = ~", syn, 2, 21, "unexpected end of statement"},
		// ... in the second statement of a script.
		{"SELECT 1;\nSELECT a FROM t WHERE b = = 2;", syn, 2, 27, "near '='"},
		{"SELECT 1;\n\n  SELECT )", syn, 3, 10, "near ')'"},
		{"select 1; select 2 from", syn, 1, 24, "unexpected end of statement"},
		{"SELECT 1; SELECT 2 FROM t WHERE x = SUBSTRING(a FROM)", syn, 1, 53, "missing argument of SUBSTRING"},
		{"SELECT 1;\nSELECT TRIM(a FROM b FROM c) FROM t", syn, 2, 8, "malformed TRIM"},
		{"SELECT 1; CREATE TABLE t (\n  a INT,\n  b FOO(3)\n)", syn, 3, 5, "unknown type FOO(3)"},
		// Lexical errors.
		{"SELECT 'abc", syn, 1, 8, "unterminated string"},
		{"SELECT \"abc", syn, 1, 8, "unterminated string"},
		{"SELECT 'a\\", syn, 1, 8, "unterminated string"},
		{"SELECT 1;\nSELECT 'x\n;", syn, 2, 8, "unterminated string"},
		{"SELECT `abc", syn, 1, 8, "unterminated quoted identifier"},
		{"SELECT ``", syn, 1, 8, "empty quoted identifier"},
		{"SELECT 1 /* abc", syn, 1, 10, "unterminated comment"},
		{"SELECT 1 /*! abc", syn, 1, 10, "unterminated comment"},
		{"SELECT é", syn, 1, 8, "unexpected character 'é'"},
		{"SELECT 1 $", syn, 1, 10, "unexpected character '$'"},
		{"SELECT 1 \xff", syn, 1, 10, "unexpected byte 0xff"},
		{"SELECT 123abc", syn, 1, 8, "malformed number"},
		{"SELECT x'4g'", syn, 1, 8, "malformed hexadecimal literal"},
		{"SELECT b'12'", syn, 1, 8, "malformed bit literal"},
		{"SELECT :", syn, 1, 8, "malformed bind variable"},
		{"SELECT 1; SELECT 2 $", syn, 1, 20, "unexpected character '$'"},
		{"SELECT /*!40101 a = = 1 */", syn, 1, 21, "near '='"},
		{"SELECT /*!40101 1; 2 */", syn, 1, 20, "near '2'"},
		// Statements.
		{"SELEC 1", syn, 1, 1, "near 'SELEC': expected a statement"},
		{"FOO BAR", syn, 1, 1, "near 'FOO': expected a statement"},
		{"UPDATE t SET a=1 LIMIT 3", uns, 1, 1, "not supported: UPDATE with ORDER BY or LIMIT"},
		{"delete FROM t ORDER BY a", uns, 1, 1, "not supported: DELETE with ORDER BY, LIMIT or several tables"},
		{"UPDATE t, u SET a=1", uns, 1, 1, "not supported: UPDATE of several tables"},
		{"ALTER TABLE t ADD b INT", uns, 1, 1, "not supported: ALTER"},
		{"CREATE INDEX ON t (a)", syn, 1, 17, "near 't': expected ON"},
		{"CREATE INDEX i ON t", syn, 1, 20, "expected ( and the indexed columns"},
		{"CREATE INDEX i ON t (a b)", syn, 1, 24, "expected , or ) in the index's column list"},
		{"CREATE INDEX i ON t ()", syn, 1, 22, "near ')': expected a column name"},
		{"CREATE INDEX i ON t (a) USING btree", syn, 1, 25, "not supported: index types (USING); gsql indexes are zone maps"},
		{"CREATE UNIQUE i ON t (a)", syn, 1, 15, "expected INDEX after CREATE UNIQUE"},
		{"DROP INDEX IF i", syn, 1, 15, "near 'i': expected EXISTS"},
		{"DROP INDEX i ON t x", syn, 1, 19, "near 'x': unexpected input"},
		{"TRUNCATE t", uns, 1, 1, "not supported: TRUNCATE"},
		{"INSERT INTO t VALUES (1) AS n", syn, 1, 30, "expected ON DUPLICATE KEY UPDATE after the row alias n"},
		{"INSERT INTO t VALUES (1) AS n (x ON DUPLICATE KEY UPDATE a=1", syn, 1, 34, "expected , or ) in the index's column list"},
		{"INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE u.a=1", uns, 1, 1, "not supported: ON DUPLICATE KEY UPDATE of another table's column u.a"},
		{"INSERT INTO d.t VALUES (1)", uns, 1, 1, "not supported: qualified table name d.t"},
		{"SELECT 1;\n  alter table t add a int", uns, 2, 3, "not supported: ALTER"},
		{"WITH RECURSIVE x AS (SELECT * FROM x) SELECT * FROM x", syn, 1, 16, "recursive WITH x: expected an initial SELECT, UNION [ALL], then a SELECT that names x"},
		{"WITH RECURSIVE x AS (SELECT * FROM x UNION SELECT 1) SELECT * FROM x", uns, 1, 36, "not supported: recursive WITH x names itself before its last UNION (only the SELECT after it may)"},
		{"WITH x (a, a) AS (SELECT 1, 2) SELECT * FROM x", syn, 1, 12, "duplicate column name a in the column list of x"},
		{"WITH x (a b) AS (SELECT 1) SELECT * FROM x", syn, 1, 11, "expected , or ) in the column list of x"},
		{"WITH x () AS (SELECT 1) SELECT * FROM x", syn, 1, 9, "expected a column name in the column list of x"},
		{"WITH x (a,) AS (SELECT 1) SELECT * FROM x", syn, 1, 11, "expected a column name in the column list of x"},
		{"WITH x AS (SELECT 1), x AS (SELECT 2) SELECT * FROM x", syn, 1, 23, "duplicate WITH name x"},
		{"WITH x AS SELECT 1", syn, 1, 11, "expected ( query ) in WITH"},
		{"WITH x AS (SELECT 1)", syn, 1, 21, "expected a query after WITH"},
		{"WITH x AS (SELECT 1) DROP TABLE x", uns, 1, 22, "not supported: WITH before DROP (only before a query)"},
		{"CREATE VIEW v (a, a) AS SELECT 1, 2", syn, 1, 19, "duplicate column name a in the column list of v"},
		{"CREATE OR REPLACE TABLE v (a INT)", syn, 1, 19, "expected VIEW after CREATE OR REPLACE"},
		{"CREATE VIEW v AS SELECT FROM", syn, 1, 25, "near 'FROM'"},
		{"SHOW DATABASES", uns, 1, 1, "not supported: SHOW DATABASES"},
		{"CREATE", syn, 1, 7, "unexpected end of statement: expected TABLE"},
		{"DROP", syn, 1, 5, "unexpected end of statement: expected TABLE"},
		{"SHOW", syn, 1, 5, "unexpected end of statement: expected TABLES or COLUMNS"},
		// Rewritten forms.
		{"SELECT CONVERT(a USING utf8mb4) FROM t", uns, 1, 8, "not supported: CONVERT ... USING (gsql strings are always UTF-8)"},
		{"SELECT CONVERT(a) FROM t", syn, 1, 17, "expected CONVERT(expr, type)"},
		{"SELECT CONVERT(a, FOO) FROM t", syn, 1, 19, "unknown type FOO"},
		{"SELECT CAST(a) FROM t", syn, 1, 14, "expected CAST(expr AS type)"},
		{"SELECT CAST(a AS) FROM t", syn, 1, 17, "expected CAST(expr AS type)"},
		{"SELECT CAST(a AS TIME(7)) FROM t", syn, 1, 18, "unknown type TIME(7)"},
		{"SELECT CAST(a AS CHAR(3) x) FROM t", syn, 1, 26, "near 'x': expected ')'"},
		{"SELECT CAST(a AS CHAR CHARACTER SET) FROM t", syn, 1, 23, "near 'CHARACTER': expected ')'"},
		{"SELECT CAST(a AS DOUBLE CHARSET utf8) FROM t", syn, 1, 25, "near 'CHARSET': expected ')'"},
		{"SELECT SUBSTRING(a) FROM t", syn, 1, 8, "SUBSTRING takes 2 or 3 arguments"},
		{"SELECT SUBSTRING(a, 1, 2, 3) FROM t", syn, 1, 8, "SUBSTRING takes 2 or 3 arguments"},
		{"SELECT SUBSTRING(, 1) FROM t", syn, 1, 18, "missing argument of SUBSTRING"},
		{"SELECT TRIM(LEADING s) FROM t", syn, 1, 22, "expected FROM in TRIM"},
		{"SELECT TRIM(a FROM b FROM c) FROM t", syn, 1, 8, "malformed TRIM"},
		{"SELECT POSITION(a IN) FROM t", syn, 1, 21, "missing argument of LOCATE"},
		{"SELECT SUBSTRING(a +, 2) FROM t", syn, 1, 21, "near ','"},
		{"SELECT SUBSTRING(a FROM 2 FOR 3 +) FROM t", syn, 1, 34, "near ')'"},
		{"SELECT TRIM(LEADING 'x' FROM ) FROM t", syn, 1, 30, "missing argument of LTRIM"},
		// DDL.
		{"CREATE TABLE t (a INT, A TEXT)", syn, 1, 24, "duplicate column name 'A'"},
		{"CREATE TABLE t (a FOO)", syn, 1, 19, "unknown type FOO"},
		{"CREATE TABLE t (a INT b INT)", syn, 1, 23, "near 'b': expected ',' or ')'"},
		{"CREATE TABLE t (a VARCHAR(20) b INT)", syn, 1, 31, "near 'b': expected ',' or ')'"},
		{"CREATE TABLE t (a INT DEFAULT)", syn, 1, 30, "expected a value after DEFAULT"},
		{"CREATE TABLE t (a INT DEFAULT (1 + (2)", syn, 1, 31, "unbalanced parentheses in DEFAULT"},
		{"CREATE TABLE t (a INT CHECK (a > 0))", uns, 1, 23, "not supported: column option CHECK"},
		{"CREATE TABLE t (a INT, FOREIGN KEY (a) REFERENCES u(b))", uns, 1, 24, "not supported: FOREIGN constraints"},
		{"CREATE TABLE t", syn, 1, 15, "CREATE TABLE needs columns or AS SELECT"},
		{"CREATE TABLE t AS", syn, 1, 18, "unexpected end of statement: expected a query after AS"},
		{"CREATE TABLE t (a INT) AS", syn, 1, 26, "unexpected end of statement: expected a query after AS"},
		{"CREATE TABLE t (a)", syn, 1, 18, "expected the type of column a"},
		{"CREATE TABLE t (a INT", syn, 1, 22, "unexpected end of statement: expected ')'"},
		{"CREATE TABLE t ()", syn, 1, 17, "near ')': expected a column name"},
		{"CREATE TABLE t (a INT NOT)", syn, 1, 26, "near ')': expected NULL"},
		{"CREATE TABLE t AS SELECT FROM", syn, 1, 26, "near 'FROM'"},
		{"CREATE TABLE IF EXISTS t (a INT)", syn, 1, 17, "near 'EXISTS': expected NOT"},
		{"DROP TABLE", syn, 1, 11, "unexpected end of statement: expected a table name"},
		{"DROP TABLE IF t", syn, 1, 15, "near 't': expected EXISTS"},
		{"DROP TABLE a b", syn, 1, 14, "near 'b': unexpected input"},
		{"DROP TABLE a,", syn, 1, 14, "unexpected end of statement: expected a table name"},
		{"SHOW COLUMNS t", syn, 1, 14, "expected FROM"},
		{"SHOW TABLES LIKE 'a%'", syn, 1, 13, "near 'LIKE': unexpected input"},
		{"DESCRIBE", syn, 1, 9, "unexpected end of statement: expected a table name"},
		{"DESCRIBE t u", syn, 1, 12, "near 'u': unexpected input"},
		// EXPLAIN.
		{"EXPLAIN", syn, 1, 8, "EXPLAIN needs a statement"},
		{"EXPLAIN ANALYZE", syn, 1, 8, "EXPLAIN ANALYZE needs a statement"},
		{"EXPLAIN ANALYZE t", syn, 1, 17, "near 't': expected a statement"},
		{"EXPLAIN DROP TABLE t", uns, 1, 9, "not supported: EXPLAIN of DROP (only of queries)"},
		{"EXPLAIN SELECT FROM", syn, 1, 16, "near 'FROM'"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) error = %v (%T), want *Error", tc.in, err, err)
			continue
		}
		if e.Kind != tc.kind || e.Line != tc.line || e.Col != tc.col || e.Msg != tc.msg {
			t.Errorf("Parse(%q) = kind %d at %d:%d %q\nwant kind %d at %d:%d %q", tc.in, e.Kind, e.Line, e.Col, e.Msg,
				tc.kind, tc.line, tc.col, tc.msg)
		}
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT a FROM t WHERE b = = 1",
			"syntax error at line 1, column 27: near '='\n" +
				"  SELECT a FROM t WHERE b = = 1\n" +
				"                            ^"},
		{"SELECT 1;\nSELECT 'é', x FROM\n  WHERE",
			"syntax error at line 3, column 3: near 'WHERE'\n" +
				"    WHERE\n" +
				"    ^"},
		{"SELECT 'é' = = 1\r\n",
			"syntax error at line 1, column 14: near '='\n" +
				"  SELECT 'é' = = 1\n" +
				"               ^"},
		{"\tSELECT\tFROM",
			"syntax error at line 1, column 9: near 'FROM'\n" +
				"  \tSELECT\tFROM\n" +
				"  \t      \t^"},
		{"ALTER TABLE t ADD a INT",
			"error at line 1, column 1: not supported: ALTER\n" +
				"  ALTER TABLE t ADD a INT\n" +
				"  ^"},
		{"SELECT 1 FROM",
			"syntax error at line 1, column 14: unexpected end of statement\n" +
				"  SELECT 1 FROM\n" +
				"               ^"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", tc.in)
			continue
		}
		if got := err.Error(); got != tc.want {
			t.Errorf("Parse(%q) error:\n%s\nwant:\n%s", tc.in, got, tc.want)
		}
	}
	// An Error without a snippet prints its first line alone.
	e := &Error{Kind: ErrUnsupported, Msg: "not supported: X", Line: 2, Col: 3}
	if got, want := e.Error(), "error at line 2, column 3: not supported: X"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNesting checks deep nesting is refused at the parser's limit, quickly
// (the rewriter's cost grows with the depth).
func TestNesting(t *testing.T) {
	nest := func(open, inner, close string, n int) string {
		return "SELECT " + strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	tests := []struct {
		in  string
		col int // 0: parses
	}{
		{nest("(", "1", ")", 199), 0},
		{nest("(", "1", ")", 200), 207},
		{nest("(", "1", ")", 20000), 207},
		{nest("SUBSTRING(", "a", ", 1)", 199), 0},
		{nest("SUBSTRING(", "a", ", 1)", 3000), 2007},
		{nest("TRIM(' ' FROM ", "a", ")", 5000), 8 + 199*14 + 4},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		if tc.col == 0 {
			if err != nil {
				t.Errorf("Parse(%.40q...): %v", tc.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Line != 1 || e.Col != tc.col || e.Msg != "expression nested too deeply" {
			t.Errorf("Parse(%.40q...) error = %v, want 1:%d expression nested too deeply", tc.in, err, tc.col)
		}
	}
}
