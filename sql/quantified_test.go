package sql

import (
	"errors"
	"strings"
	"testing"
)

func TestQuantifiedRewrite(t *testing.T) {
	tests := []struct{ in, want string }{
		{"x > ALL (SELECT v FROM u)", "x > gsql_all((select v from u))"},
		{"x >= any (SELECT v FROM u)", "x >= gsql_any((select v from u))"},
		{"x < SOME (SELECT v FROM u WHERE u.k = t.k)", "x < gsql_any((select v from u where u.k = t.k))"},
		{"x <> ALL ((SELECT v FROM u))", "x != gsql_all(((select v from u)))"},
		{"x != ANY (SELECT v FROM u UNION SELECT w FROM u)", "x != gsql_any((select v from u union select w from u))"},
		// A quantifier inside the subquery, and none after UNION ALL.
		{"x = ANY (SELECT v FROM u WHERE v > ALL (SELECT w FROM u))", "x = gsql_any((select v from u where v > gsql_all((select w from u))))"},
		{"(SELECT v FROM u UNION ALL SELECT w FROM u) > 1", "(select v from u union all select w from u) > 1"},
		// Row values pass through to the stock parser.
		{"(a, b) IN (SELECT c, d FROM u)", "(a, b) in (select c, d from u)"},
		{"(a, b) = (1, 2)", "(a, b) = (1, 2)"},
	}
	for _, tc := range tests {
		got, err := selectExprs(t, tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestRowWidths checks the width errors found on the tokens, and that
// operands whose widths agree, or that the text does not show, pass.
func TestRowWidths(t *testing.T) {
	tests := []struct {
		sql  string
		kind ErrorKind // 0: parses
		col  int
		msg  string
	}{
		{sql: "SELECT (a, b) IN (SELECT c, d FROM u) FROM t"},
		{sql: "SELECT (a, b) IN ((1, 2), (3, 4)) FROM t"},
		{sql: "SELECT DISTINCT (a, b) NOT IN ((1, 2)) FROM t"},
		{sql: "SELECT (a, b) = (1, 2), (a, b) <> (1, 2) FROM t"},
		{sql: "SELECT a IN (SELECT * FROM u) FROM t"},               // * hides the width
		{sql: "SELECT (a, b) IN (SELECT * FROM u) FROM t"},          // left to the binder
		{sql: "SELECT COALESCE(a, b) IN (1, 2) FROM t"},             // a call, not a row
		{sql: "SELECT IF(a, b, c) = (SELECT MAX(v) FROM u) FROM t"}, // a call, not a row
		{sql: "SELECT a FROM t WHERE (SELECT c, d FROM u) = (1, 2)"},
		{sql: "SELECT x > ALL (SELECT v FROM u), x < ANY (SELECT COUNT(*) FROM u) FROM t"},
		{sql: "SELECT a FROM t WHERE a IN (SELECT v FROM u UNION SELECT w FROM u)"},
		{sql: "SELECT a FROM t WHERE (EXISTS (SELECT c, d FROM u)) = TRUE"},
		{sql: "SELECT SUM(a) OVER (PARTITION BY a, b) > 1 FROM t"},
		{"SELECT (a, b) IN (SELECT c FROM u) FROM t", ErrOperand, 19, "operand should contain 2 column(s), got 1"},
		{"SELECT a IN (SELECT c, d FROM u) FROM t", ErrOperand, 14, "operand should contain 1 column(s), got 2"},
		{"SELECT (a, b) NOT IN ((1, 2), (3)) FROM t", ErrOperand, 31, "operand should contain 2 column(s), got 1"},
		{"SELECT (a, b) = (1, 2, 3) FROM t", ErrOperand, 17, "operand should contain 2 column(s), got 3"},
		{"SELECT a > ALL (SELECT c, d FROM u) FROM t", ErrOperand, 17, "operand should contain 1 column(s), got 2"},
		{"SELECT (SELECT c, d FROM u) IN (SELECT c FROM u)", ErrOperand, 33, "operand should contain 2 column(s), got 1"},
		{"SELECT a = ANY (1, 2) FROM t", ErrUnsupported, 12, "not supported: ANY over other than a subquery"},
		{"SELECT a <=> ALL (SELECT c FROM u) FROM t", ErrUnsupported, 10, "not supported: <=> ALL (subquery)"},
		{"SELECT a > SOME", ErrSyntax, 16, "expected a parenthesized subquery after SOME"},
	}
	for _, tc := range tests {
		_, err := ParseOne(tc.sql)
		if tc.kind == 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
			}
			continue
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a *sql.Error", tc.sql, err)
			continue
		}
		if se.Kind != tc.kind || se.Line != 1 || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%s: got kind %d at 1:%d %q, want kind %d at 1:%d %q", tc.sql, se.Kind, se.Col, se.Msg, tc.kind, tc.col, tc.msg)
		}
	}
}
