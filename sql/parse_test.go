package sql

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
)

// show renders a statement as one line so that tests can compare every
// field exactly. Expressions and queries print through sqlparser.String.
func show(st Statement) string {
	switch x := st.(type) {
	case *Select:
		return "SELECT " + sqlparser.String(x.Stmt)
	case *CreateTable:
		var b strings.Builder
		fmt.Fprintf(&b, "CREATE %s", x.Name)
		if x.IfNotExists {
			b.WriteString(" ifnotexists")
		}
		if x.Columns != nil {
			b.WriteString(" (")
			for i, c := range x.Columns {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
				if c.NotNull {
					b.WriteString(" notnull")
				}
				if c.AutoIncrement {
					b.WriteString(" auto")
				}
				if c.Default != "" {
					b.WriteString(" default=" + c.Default)
				}
			}
			b.WriteString(")")
		}
		if x.AsSelect != nil {
			b.WriteString(" AS " + sqlparser.String(x.AsSelect))
		}
		return b.String()
	case *DropTable:
		s := "DROP " + strings.Join(x.Names, ",")
		if x.IfExists {
			s += " ifexists"
		}
		return s
	case *Insert:
		var b strings.Builder
		fmt.Fprintf(&b, "INSERT %s", x.Table)
		if x.Columns != nil {
			fmt.Fprintf(&b, " (%s)", strings.Join(x.Columns, ","))
		}
		for _, r := range x.Rows {
			b.WriteString(" " + sqlparser.String(sqlparser.ValTuple(r)))
		}
		if x.Select != nil {
			b.WriteString(" " + sqlparser.String(x.Select))
		}
		return b.String()
	case *ShowTables:
		return "SHOW TABLES"
	case *Describe:
		return "DESCRIBE " + x.Table
	case *Explain:
		s := "EXPLAIN "
		if x.Analyze {
			s += "ANALYZE "
		}
		return s + show(x.Stmt)
	}
	return fmt.Sprintf("unknown %T", st)
}

func showAll(sts []Statement) string {
	var parts []string
	for _, st := range sts {
		parts = append(parts, show(st))
	}
	return strings.Join(parts, "; ")
}

func TestParseStatements(t *testing.T) {
	tests := []struct{ in, want string }{
		// SELECT
		{"SELECT 1", "SELECT select 1 from dual"},
		{"select a, b AS c FROM t WHERE a > 1 ORDER BY c DESC, 2 LIMIT 10 OFFSET 5",
			"SELECT select a, b as c from t where a > 1 order by c desc, 2 asc limit 5, 10"},
		{"SELECT DISTINCT * FROM t", "SELECT select distinct * from t"},
		{"SELECT DISTINCTROW a FROM t", "SELECT select distinct a from t"},
		{"SELECT ALL a FROM t UNION ALL SELECT all b FROM u", "SELECT select a from t union all select b from u"},
		{"SELECT t.a FROM t", "SELECT select t.a from t"},
		{"(SELECT 1)", "SELECT select 1 from dual"},
		{"((SELECT a FROM t))", "SELECT select a from t"},
		{"(SELECT 1) UNION (SELECT 2)", "SELECT (select 1 from dual) union (select 2 from dual)"},
		{"SELECT a FROM t WHERE a IN (SELECT b FROM u)", "SELECT select a from t where a in (select b from u)"},
		{"SELECT `select` FROM `my table`", "SELECT select `select` from `my table`"},
		{"SELECT \"double\", 'single', 'it''s'", "SELECT select 'double', 'single', 'it\\'s' from dual"},
		{"SELECT x'4142', 0x41, b'01', 1.5e3, .5", "SELECT select X'4142', 0x41, B'01', 1.5e3, .5 from dual"},
		{"SELECT a IS NOT NULL, b NOT BETWEEN 1 AND 2, c NOT LIKE 'x%' ESCAPE '!' FROM t",
			"SELECT select a is not null, b not between 1 and 2, c not like 'x%' escape '!' from t"},
		{"SELECT CASE WHEN a = 1 THEN 'x' ELSE 'y' END FROM t",
			"SELECT select case when a = 1 then 'x' else 'y' end from t"},
		// Adjacent string literals are one literal, as in MySQL.
		{"SELECT 'a' 'b'", "SELECT select 'ab' from dual"},
		{"SELECT a FROM t WHERE a = 'x' \"y\"\n 'it''s'", "SELECT select a from t where a = 'xyit\\'s'"},
		{"SELECT 'a' 'b' AS c, 'd' 'e' 'f' g FROM t", "SELECT select 'ab' as c, 'def' as g from t"},
		{"INSERT INTO t VALUES ('a' '\\n' 'b')", "INSERT t ('a\\nb')"},
		// Comments.
		{"SELECT 1 -- one\n", "SELECT select 1 from dual"},
		{"SELECT 1 --\tone\n", "SELECT select 1 from dual"},
		{"SELECT 1 --", "SELECT select 1 from dual"},
		// "--" without a blank after it is two minus signs (MySQL).
		{"SELECT 1--1", "SELECT select 1 - -1 from dual"},
		// (the parser folds - -1 into 1)
		{"SELECT 1---1, a--b FROM t", "SELECT select 1 - 1, a - -b from t"},
		{"SELECT 1--1;", "SELECT select 1 - -1 from dual"},
		// A byte order mark at the start is skipped.
		{"\ufeffSELECT 1", "SELECT select 1 from dual"},
		// Table options are accepted and ignored.
		{"CREATE TABLE t (a INT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE utf8mb4_bin, COMMENT 'x'",
			"CREATE t (a BIGINT)"},
		{"CREATE TABLE t (a INT) DEFAULT CHARACTER SET = latin1 AS SELECT 1", "CREATE t (a BIGINT) AS select 1 from dual"},
		{"SELECT /* inline ; */ 1 # hash\n", "SELECT select 1 from dual"},
		{"/* lead */ SELECT 1", "SELECT select 1 from dual"},
		{"SELECT /*!40101 a, */ b FROM t", "SELECT select a, b from t"},
		{"SELECT /*!*/ 1", "SELECT select 1 from dual"},
		// Placeholders: ? becomes :v1, :v2 ... in text order, per statement.
		{"SELECT a FROM t WHERE a = ? AND b = ?", "SELECT select a from t where a = :v1 and b = :v2"},
		{"SELECT ?; SELECT ?, ?", "SELECT select :v1 from dual; SELECT select :v1, :v2 from dual"},
		{"SELECT TRIM(? FROM ?)", "SELECT select trim(:v2, :v1) from dual"},
		{"SELECT SUBSTRING(? FROM ? FOR ?), ?", "SELECT select substring(:v1, :v2, :v3), :v4 from dual"},
		// Multi-statement text; empty statements are dropped.
		{"SELECT 1; SELECT 2;", "SELECT select 1 from dual; SELECT select 2 from dual"},
		{";;SELECT 1;;\n;-- c\n;SELECT 2", "SELECT select 1 from dual; SELECT select 2 from dual"},
		{"", ""},
		{" ; -- nothing\n", ""},
		// CREATE TABLE.
		{"CREATE TABLE t (a INT)", "CREATE t (a BIGINT)"},
		{"create table if not exists t (a integer not null, b smallint, c tinyint, d bigint, e mediumint)",
			"CREATE t ifnotexists (a BIGINT notnull, b BIGINT, c BIGINT, d BIGINT, e BIGINT)"},
		{"CREATE TABLE t (b BOOLEAN, b2 BOOL, f FLOAT, r REAL, d DECIMAL(10,2), d2 DECIMAL(10, 2), x DOUBLE, p DOUBLE PRECISION, n NUMERIC)",
			"CREATE t (b BOOLEAN, b2 BOOLEAN, f DOUBLE, r DOUBLE, d DECIMAL(10,2), d2 DECIMAL(10,2), x DOUBLE, p DOUBLE, n DECIMAL(10,0))"},
		{"CREATE TABLE t (v VARCHAR(20), t TEXT, c CHAR, c3 CHAR(3), cv CHARACTER VARYING(5), ch CHARACTER(2))",
			"CREATE t (v VARCHAR, t VARCHAR, c VARCHAR, c3 VARCHAR, cv VARCHAR, ch VARCHAR)"},
		{"CREATE TABLE t (id INT PRIMARY KEY, u INT UNSIGNED NULL, s VARCHAR(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin COMMENT 'x')",
			"CREATE t (id BIGINT notnull, u BIGINT, s VARCHAR)"},
		{"CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b), UNIQUE KEY ub (b), KEY (a), INDEX i (b))",
			"CREATE t (a BIGINT, b BIGINT)"},
		{"CREATE TABLE t (a INT UNIQUE, b INT KEY) ENGINE=InnoDB DEFAULT CHARSET=utf8", "CREATE t (a BIGINT, b BIGINT notnull)"},
		{"CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)", "CREATE t (id BIGINT notnull auto, v BIGINT)"},
		{"CREATE TABLE t (a INT NOT NULL DEFAULT -1, b VARCHAR(10) DEFAULT 'x, y' COMMENT 'c', c DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), d DOUBLE DEFAULT (1 + 2) NULL, e INT DEFAULT NULL)",
			"CREATE t (a BIGINT notnull default=-1, b VARCHAR default='x, y', c DATETIME(3) default=CURRENT_TIMESTAMP(3), d DOUBLE default=(1 + 2), e BIGINT default=NULL)"},
		{"CREATE TEMPORARY TABLE t (a INT)", "CREATE t (a BIGINT)"},
		{"CREATE TABLE `my t` (`a b` INT, `select` TEXT)", "CREATE my t (a b BIGINT, select VARCHAR)"},
		{"CREATE TABLE t AS SELECT a FROM u", "CREATE t AS select a from u"},
		{"CREATE TABLE t SELECT 1 AS x", "CREATE t AS select 1 as x from dual"},
		{"CREATE TABLE t (SELECT 1)", "CREATE t AS select 1 from dual"},
		{"CREATE TABLE IF NOT EXISTS t (a INT) AS SELECT 1", "CREATE t ifnotexists (a BIGINT) AS select 1 from dual"},
		{"CREATE TABLE t (a INT) SELECT ? AS a", "CREATE t (a BIGINT) AS select :v1 as a from dual"},
		{"CREATE TABLE t AS SELECT SUBSTRING(a, 2) FROM u", "CREATE t AS select substring(a, 2) from u"},
		// DROP TABLE.
		{"DROP TABLE t", "DROP t"},
		{"drop table if exists a, b", "DROP a,b ifexists"},
		{"DROP TABLE a, `b c` CASCADE", "DROP a,b c"},
		// SHOW / DESCRIBE.
		{"SHOW TABLES", "SHOW TABLES"},
		{"show tables;", "SHOW TABLES"},
		{"DESCRIBE t", "DESCRIBE t"},
		{"DESC t", "DESCRIBE t"},
		{"SHOW COLUMNS FROM t", "DESCRIBE t"},
		{"SHOW FIELDS IN `t`", "DESCRIBE t"},
		{"EXPLAIN t", "DESCRIBE t"},
		// EXPLAIN.
		{"EXPLAIN SELECT a FROM t", "EXPLAIN SELECT select a from t"},
		{"explain analyze select 1", "EXPLAIN ANALYZE SELECT select 1 from dual"},
		{"EXPLAIN SELECT SUBSTR(a, 1) FROM t WHERE b = ?", "EXPLAIN SELECT select substring(a, 1) from t where b = :v1"},
		// INSERT.
		{"INSERT INTO t VALUES (1, 'a')", "INSERT t (1, 'a')"},
		{"INSERT INTO t (a, b) VALUES (1, NULL), (2, 'x')", "INSERT t (a,b) (1, null) (2, 'x')"},
		{"insert into t(a) values (?), (?)", "INSERT t (a) (:v1) (:v2)"},
		{"INSERT INTO t (a) VALUES (CAST(? AS DOUBLE))", "INSERT t (a) (cast_to_double(:v1))"},
		{"INSERT INTO t SELECT * FROM u", "INSERT t select * from u"},
		// ORDER BY ... NULLS FIRST | LAST: a marker call the binder unwraps.
		{"SELECT a FROM t ORDER BY a DESC NULLS FIRST, 2 nulls last", "SELECT select a from t order by gsql_nulls_first(a) desc, gsql_nulls_last(2) asc"},
		// PostgreSQL's :: cast operator.
		{"SELECT a::BIGINT FROM t", "SELECT select cast_to_bigint(a) from t"},
		{"SELECT (a + 1)::double, '12'::int + 1 FROM t", "SELECT select cast_to_double((a + 1)), cast_to_bigint('12') + 1 from t"},
		{"SELECT upper(b)::varchar(3), t.a::text FROM t", "SELECT select cast_to_varchar(upper(b)), cast_to_varchar(t.a) from t"},
		{"SELECT a::int::varchar FROM t WHERE b::signed > ?::int", "SELECT select cast_to_varchar(cast_to_bigint(a)) from t where cast_to_bigint(b) > cast_to_bigint(:v1)"},
		{"INSERT INTO t (a, b) SELECT x, TRIM(y) FROM u", "INSERT t (a,b) select x, trim(y) from u"},
		{"INSERT t SET a = 1, b = 'x'", "INSERT t (a,b) (1, 'x')"},
	}
	for _, tc := range tests {
		sts, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := showAll(sts); got != tc.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestParseStructs(t *testing.T) {
	tests := []struct {
		in   string
		want Statement
	}{
		{"SHOW TABLES", &ShowTables{}},
		{"DESC t1", &Describe{Table: "t1"}},
		{"SHOW COLUMNS FROM t1", &Describe{Table: "t1"}},
		{"SHOW FULL FIELDS IN t1", &Describe{Table: "t1", Full: true}},
		{"SHOW WARNINGS", &ShowWarnings{}},
		{"show count(*) warnings", &ShowWarnings{Count: true}},
		{"SHOW COUNT( * ) WARNINGS", &ShowWarnings{Count: true}},
		{"DROP TABLE IF EXISTS a, b", &DropTable{Names: []string{"a", "b"}, IfExists: true}},
		{"DROP TABLE a", &DropTable{Names: []string{"a"}}},
		{"CREATE INDEX ia ON t (a)", &CreateIndex{Name: "ia", Table: "t", Columns: []string{"a"}}},
		{"create index if not exists `i b` on t (a DESC, `b c` ASC)", &CreateIndex{Name: "i b", Table: "t", Columns: []string{"a", "b c"}, IfNotExists: true}},
		{"DROP INDEX ia", &DropIndex{Name: "ia"}},
		{"DROP INDEX IF EXISTS ia ON t", &DropIndex{Name: "ia", Table: "t", IfExists: true}},
		{"CREATE TABLE IF NOT EXISTS t (a VARCHAR(20) NOT NULL, b BOOLEAN, c DECIMAL(10,2), d INT)",
			&CreateTable{Name: "t", IfNotExists: true, Columns: []ColumnDef{
				{Name: "a", Type: coldata.String, NotNull: true},
				{Name: "b", Type: coldata.Bool},
				{Name: "c", Type: coldata.DecimalOf(10, 2)},
				{Name: "d", Type: coldata.Int64},
			}}},
	}
	for _, tc := range tests {
		got, err := ParseOne(tc.in)
		if err != nil {
			t.Errorf("ParseOne(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseOne(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestParseInsertFields(t *testing.T) {
	st, err := ParseOne("INSERT INTO t (a, b) VALUES (?, 'x'), (2, ?)")
	if err != nil {
		t.Fatal(err)
	}
	ins, ok := st.(*Insert)
	if !ok {
		t.Fatalf("got %T, want *Insert", st)
	}
	if ins.Table != "t" || !reflect.DeepEqual(ins.Columns, []string{"a", "b"}) || ins.Select != nil || len(ins.Rows) != 2 {
		t.Fatalf("got %+v", ins)
	}
	want := [][]sqlparser.Expr{
		{sqlparser.NewValArg([]byte(":v1")), sqlparser.NewStrVal([]byte("x"))},
		{sqlparser.NewIntVal([]byte("2")), sqlparser.NewValArg([]byte(":v2"))},
	}
	if !reflect.DeepEqual(ins.Rows, want) {
		t.Errorf("rows = %s, want %s", sqlparser.String(sqlparser.Values{ins.Rows[0], ins.Rows[1]}),
			sqlparser.String(sqlparser.Values{want[0], want[1]}))
	}
}

func TestParseCreateAsSelectShapes(t *testing.T) {
	// CREATE TABLE without a column list leaves Columns nil; with one, the
	// AS SELECT query is kept beside it.
	st, err := ParseOne("CREATE TABLE t AS SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	ct := st.(*CreateTable)
	if ct.Columns != nil || ct.AsSelect == nil {
		t.Errorf("got %+v", ct)
	}
	if _, ok := ct.AsSelect.(*sqlparser.Select); !ok {
		t.Errorf("AsSelect is %T", ct.AsSelect)
	}
}

func TestParseOne(t *testing.T) {
	tests := []struct {
		in        string
		want      string
		line, col int
		msg       string
	}{
		{in: "SELECT 1;", want: "SELECT select 1 from dual"},
		{in: "  SHOW TABLES  -- c", want: "SHOW TABLES"},
		{in: "", line: 1, col: 1, msg: "empty statement"},
		{in: "  ;\n-- c\n", line: 3, col: 1, msg: "empty statement"},
		{in: "SELECT 1; SELECT 2", line: 1, col: 11, msg: "expected one statement, found 2"},
		{in: "SELECT 1;\nSELECT 2;\nSELECT 3", line: 2, col: 1, msg: "expected one statement, found 3"},
	}
	for _, tc := range tests {
		st, err := ParseOne(tc.in)
		if tc.msg == "" {
			if err != nil {
				t.Errorf("ParseOne(%q): %v", tc.in, err)
			} else if got := show(st); got != tc.want {
				t.Errorf("ParseOne(%q) = %s, want %s", tc.in, got, tc.want)
			}
			continue
		}
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("ParseOne(%q) error = %v (%T), want *Error", tc.in, err, err)
			continue
		}
		if e.Kind != ErrSyntax || e.Line != tc.line || e.Col != tc.col || e.Msg != tc.msg {
			t.Errorf("ParseOne(%q) = kind %d %d:%d %q, want %d:%d %q", tc.in, e.Kind, e.Line, e.Col, e.Msg, tc.line, tc.col, tc.msg)
		}
	}
}

// SHOW CREATE TABLE names its table; other SHOW CREATE forms are errors
// with a position.
func TestParseShowCreateTable(t *testing.T) {
	st, err := ParseOne("SHOW CREATE TABLE `order lines`")
	if sc, ok := st.(*ShowCreateTable); err != nil || !ok || sc.Table != "order lines" {
		t.Fatalf("got %#v, %v", st, err)
	}
	for _, bad := range []string{"SHOW CREATE VIEW v", "SHOW CREATE TABLE", "SHOW CREATE TABLE t u"} {
		if _, err := ParseOne(bad); err == nil {
			t.Errorf("%s: no error", bad)
		} else if e, ok := err.(*Error); !ok || e.Line != 1 || e.Col < 1 {
			t.Errorf("%s: %v has no position", bad, err)
		}
	}
}
