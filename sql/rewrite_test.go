package sql

import (
	"testing"

	"github.com/xwb1989/sqlparser"
)

// selectExprs parses "SELECT <exprs> FROM t" and returns the printed
// select list.
func selectExprs(t *testing.T, exprs string) (string, error) {
	t.Helper()
	st, err := ParseOne("SELECT " + exprs + " FROM t")
	if err != nil {
		return "", err
	}
	sel, ok := st.(*Select).Stmt.(*sqlparser.Select)
	if !ok {
		t.Fatalf("%q: got %T", exprs, st.(*Select).Stmt)
	}
	return sqlparser.String(sel.SelectExprs), nil
}

func TestRewrites(t *testing.T) {
	tests := []struct{ in, want string }{
		// SUBSTRING and its spellings.
		{"SUBSTRING(a, 2)", "substring(a, 2)"},
		{"SUBSTRING(a, 2, 3)", "substring(a, 2, 3)"},
		{"substring(UPPER(a), -2, 1)", "substring(UPPER(a), -2, 1)"},
		{"SUBSTRING(CONCAT(a, 'x'), 2)", "substring(CONCAT(a, 'x'), 2)"},
		{"SUBSTR(a, 1, 2)", "substring(a, 1, 2)"},
		{"MID(a, 2, 3)", "substring(a, 2, 3)"},
		{"mid(a, 2)", "substring(a, 2)"},
		{"SUBSTRING(a FROM 2 FOR 3)", "substring(a, 2, 3)"},
		{"SUBSTRING(a FROM 2)", "substring(a, 2)"},
		{"SUBSTR(a FROM b + 1 FOR LENGTH(a) - 1)", "substring(a, b + 1, LENGTH(a) - 1)"},
		{"SUBSTRING((SELECT x FROM u), 1)", "substring((select x from u), 1)"},
		// POSITION(a IN b) -> locate(a, b).
		{"POSITION('a' IN b)", "locate('a', b)"},
		{"position(LOWER(x) IN CONCAT(y, z))", "locate(LOWER(x), CONCAT(y, z))"},
		// TRIM forms.
		{"TRIM(s)", "trim(s)"},
		{"TRIM(BOTH FROM s)", "trim(s)"},
		{"TRIM(BOTH 'x' FROM s)", "trim(s, 'x')"},
		{"TRIM(LEADING FROM s)", "ltrim(s)"},
		{"TRIM(LEADING 'x' FROM s)", "ltrim(s, 'x')"},
		{"TRIM(TRAILING FROM s)", "rtrim(s)"},
		{"trim(trailing 'xy' from s)", "rtrim(s, 'xy')"},
		{"TRIM('z' FROM s)", "trim(s, 'z')"},
		{"TRIM(x FROM CONCAT(s, x))", "trim(CONCAT(s, x), x)"},
		{"LTRIM(s), RTRIM(s)", "LTRIM(s), RTRIM(s)"},
		// CAST and CONVERT.
		{"CAST(x AS DOUBLE)", "cast_to_double(x)"},
		{"CAST(x AS FLOAT)", "cast_to_double(x)"},
		{"CAST(x AS DECIMAL(10,2))", "cast_to_decimal(x, 10, 2)"},
		{"CAST(x AS DECIMAL)", "cast_to_decimal(x, 10, 0)"},
		{"CAST(x AS SIGNED)", "cast_to_bigint(x)"},
		{"CAST(x AS SIGNED INTEGER)", "cast_to_bigint(x)"},
		{"CAST(x AS SIGNED INT)", "cast_to_bigint(x)"},
		{"CAST(x AS CHAR CHARACTER SET utf8mb4)", "cast_to_varchar(x)"},
		{"CAST(x AS CHAR(10) CHARSET utf8mb4 COLLATE utf8mb4_bin)", "cast_to_varchar(x)"},
		{"CONVERT(x, CHAR ASCII)", "cast_to_varchar(x)"},
		{"CONVERT(x, unsigned int)", "cast_to_bigint(x)"},
		{"CAST(x AS UNSIGNED)", "cast_to_bigint(x)"},
		{"CAST(x AS BIGINT)", "cast_to_bigint(x)"},
		{"CAST(x AS CHAR)", "cast_to_varchar(x)"},
		{"CAST(x AS CHAR(3))", "cast_to_varchar(x)"},
		{"CAST(x AS VARCHAR(10))", "cast_to_varchar(x)"},
		{"CAST(x AS BOOLEAN)", "cast_to_boolean(x)"},
		{"CAST(a + 1 AS CHAR)", "cast_to_varchar(a + 1)"},
		{"CAST(CAST(x AS SIGNED) AS CHAR)", "cast_to_varchar(cast_to_bigint(x))"},
		{"CONVERT(x, SIGNED)", "cast_to_bigint(x)"},
		{"CONVERT(x, DOUBLE)", "cast_to_double(x)"},
		{"CONVERT(x, CHAR(5))", "cast_to_varchar(x)"},
		{"CONVERT(x, DECIMAL(10, 2))", "cast_to_decimal(x, 10, 2)"},
		{"convert(x, boolean)", "cast_to_boolean(x)"},
		// Nested rewrites.
		{"SUBSTRING(TRIM(x FROM CAST(y AS CHAR)), 2)", "substring(trim(cast_to_varchar(y), x), 2)"},
		{"POSITION(SUBSTR(a, 1, 1) IN TRIM(LEADING ' ' FROM b))", "locate(substring(a, 1, 1), ltrim(b, ' '))"},
		{"CAST(SUBSTRING(a FROM 2) AS DOUBLE) + 1", "cast_to_double(substring(a, 2)) + 1"},
		{"CONCAT(MID(a, 1, 1), CONVERT(POSITION('x' IN a), CHAR))", "CONCAT(substring(a, 1, 1), cast_to_varchar(locate('x', a)))"},
		// Calls the stock parser reads itself.
		{"LEFT(s, 1), RIGHT(s, 2)", "left(s, 1), right(s, 2)"},
		{"REPLACE(s, 'a', 'b'), REPEAT(s, 3)", "replace(s, 'a', 'b'), repeat(s, 3)"},
		{"MOD(a, 2), IF(a > 1, 'x', 'y')", "mod(a, 2), if(a > 1, 'x', 'y')"},
		{"LOCATE('a', s), INSTR(s, 'a'), SPLIT_PART(s, ' ', 2)", "LOCATE('a', s), INSTR(s, 'a'), SPLIT_PART(s, ' ', 2)"},
		{"CONCAT_WS('-', a, b), SUBSTRING_INDEX(s, '.', -1)", "CONCAT_WS('-', a, b), SUBSTRING_INDEX(s, '.', -1)"},
		{"CHAR_LENGTH(s), LENGTH(s), UPPER(s), LCASE(s)", "CHAR_LENGTH(s), LENGTH(s), UPPER(s), LCASE(s)"},
		{"IFNULL(a, 0), COALESCE(a, b, 1), NULLIF(a, 0)", "IFNULL(a, 0), COALESCE(a, b, 1), NULLIF(a, 0)"},
		{"a DIV 2, a % 3", "a div 2, a % 3"},
		// Names and strings that merely look like the rewritten forms.
		{"'SUBSTRING(a FROM 2)'", "'SUBSTRING(a FROM 2)'"},
		{"\"TRIM(x FROM y)\"", "'TRIM(x FROM y)'"},
		{"`position`, `substring`", "position, `substring`"},
	}
	for _, tc := range tests {
		got, err := selectExprs(t, tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestRewriteFuncExpr checks the rewritten forms are plain function calls
// with the registry's names and the argument order the engine expects.
func TestRewriteFuncExpr(t *testing.T) {
	tests := []struct {
		in   string
		name string
		args []string
	}{
		{"SUBSTRING(a FROM 2 FOR 3)", "substring", []string{"a", "2", "3"}},
		{"MID(a, 2)", "substring", []string{"a", "2"}},
		{"POSITION('b' IN a)", "locate", []string{"'b'", "a"}},
		{"TRIM(LEADING 'x' FROM a)", "ltrim", []string{"a", "'x'"}},
		{"TRIM(TRAILING FROM a)", "rtrim", []string{"a"}},
		{"CAST(a AS DOUBLE)", "cast_to_double", []string{"a"}},
		{"CONVERT(a, SIGNED)", "cast_to_bigint", []string{"a"}},
		// Clock keywords with a precision (the stock grammar takes only ()).
		{"CURRENT_TIMESTAMP(3)", "current_timestamp", []string{"3"}},
		{"UTC_TIME(6)", "utc_time", []string{"6"}},
		{"utc_timestamp(0)", "utc_timestamp", []string{"0"}},
		{"LOCALTIME(2)", "localtime", []string{"2"}},
		{"CURRENT_TIME(1)", "current_time", []string{"1"}},
		{"UTC_TIME()", "utc_time", nil},
		{"CURRENT_TIME", "current_time", nil},
	}
	for _, tc := range tests {
		st, err := ParseOne("SELECT " + tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		ae := st.(*Select).Stmt.(*sqlparser.Select).SelectExprs[0].(*sqlparser.AliasedExpr)
		fe, ok := ae.Expr.(*sqlparser.FuncExpr)
		if !ok {
			t.Errorf("%s: got %T, want *sqlparser.FuncExpr", tc.in, ae.Expr)
			continue
		}
		var args []string
		for _, a := range fe.Exprs {
			args = append(args, sqlparser.String(a))
		}
		if fe.Name.Lowered() != tc.name || len(args) != len(tc.args) {
			t.Errorf("%s: got %s(%v), want %s(%v)", tc.in, fe.Name.String(), args, tc.name, tc.args)
			continue
		}
		for i := range args {
			if args[i] != tc.args[i] {
				t.Errorf("%s: argument %d is %s, want %s", tc.in, i, args[i], tc.args[i])
			}
		}
	}
}

// TestKeepPatternEscapes checks which backslash sequences of a string
// literal's text are kept for LIKE.
func TestKeepPatternEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`'a\_b'`, `'a\\_b'`},
		{`'10\%'`, `'10\\%'`},
		{`'a\\_b'`, `'a\\_b'`}, // an escaped backslash, then a wildcard
		{`'a\nb'`, `'a\nb'`},
		{`'it\'s'`, `'it\'s'`},
		{`'\\\_'`, `'\\\\_'`},
		{`'plain'`, `'plain'`},
	} {
		if got, _ := keepPatternEscapes(tc.in); got != tc.want {
			t.Errorf("keepPatternEscapes(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
