package sql

import (
	"errors"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestWindowRewrite checks the marker calls the dialect layer writes for
// window functions, named windows included.
func TestWindowRewrite(t *testing.T) {
	const nf = "gsql_win_frame(0, 0, 0, 0, 0)"
	for _, tc := range []struct{ in, want string }{
		{"SELECT ROW_NUMBER() OVER () FROM t",
			"select gsql_over('row_number', 'ROW_NUMBER() OVER ()', gsql_win_args(), gsql_win_partition(), gsql_win_order(), " + nf + ") from t"},
		{"SELECT rank() over (partition by a, b order by c desc nulls last, d) FROM t",
			"select gsql_over('rank', 'rank() over (partition by a, b order by c desc nulls last, d)', gsql_win_args(), gsql_win_partition(a, b), gsql_win_order(gsql_win_key(c, 1, 2), gsql_win_key(d, 0, 0)), " + nf + ") from t"},
		{"SELECT SUM(a) OVER (ORDER BY b ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t",
			"select gsql_over('sum', 'SUM(a) OVER (ORDER BY b ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING)', gsql_win_args(a), gsql_win_partition(), gsql_win_order(gsql_win_key(b, 0, 0)), gsql_win_frame(1, 1, 2, 3, 1)) from t"},
		// A frame alone (ROWS is an identifier to the tokenizer, not a
		// window name).
		{"SELECT SUM(a) OVER (ROWS UNBOUNDED PRECEDING) FROM t",
			"select gsql_over('sum', 'SUM(a) OVER (ROWS UNBOUNDED PRECEDING)', gsql_win_args(a), gsql_win_partition(), gsql_win_order(), gsql_win_frame(1, 0, 0, 2, 0)) from t"},
		{"SELECT COUNT(*) OVER (ORDER BY b RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t",
			"select gsql_over('count', 'COUNT(*) OVER (ORDER BY b RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)', gsql_win_args(*), gsql_win_partition(), gsql_win_order(gsql_win_key(b, 0, 0)), gsql_win_frame(2, 2, 0, 4, 0)) from t"},
		// Named windows: OVER w, and OVER (w ...) adding an ORDER BY and a frame.
		{"SELECT SUM(a) OVER w, LAG(a) OVER (w ORDER BY c ROWS 1 PRECEDING) FROM t WINDOW w AS (PARTITION BY b)",
			"select gsql_over('sum', 'SUM(a) OVER w', gsql_win_args(a), gsql_win_partition(b), gsql_win_order(), " + nf + "), " +
				"gsql_over('lag', 'LAG(a) OVER (w ORDER BY c ROWS 1 PRECEDING)', gsql_win_args(a), gsql_win_partition(b), gsql_win_order(gsql_win_key(c, 0, 0)), gsql_win_frame(1, 1, 1, 2, 0)) from t"},
		{"SELECT ROW_NUMBER() OVER w2 FROM t WINDOW w1 AS (PARTITION BY b), w2 AS (w1 ORDER BY a) ORDER BY 1",
			"select gsql_over('row_number', 'ROW_NUMBER() OVER w2', gsql_win_args(), gsql_win_partition(b), gsql_win_order(gsql_win_key(a, 0, 0)), " + nf + ") from t order by 1 asc"},
		// Each query has its own WINDOW names.
		{"SELECT (SELECT MAX(x) OVER w FROM u WINDOW w AS (ORDER BY x) LIMIT 1), SUM(a) OVER w FROM t WINDOW w AS (PARTITION BY b)",
			"select (select gsql_over('max', 'MAX(x) OVER w', gsql_win_args(x), gsql_win_partition(), gsql_win_order(gsql_win_key(x, 0, 0)), " + nf + ") from u limit 1), " +
				"gsql_over('sum', 'SUM(a) OVER w', gsql_win_args(a), gsql_win_partition(b), gsql_win_order(), " + nf + ") from t"},
		// Inside expressions and casts.
		{"SELECT ROW_NUMBER() OVER (ORDER BY a)::double + 1 FROM t",
			"select cast_to_double(gsql_over('row_number', 'ROW_NUMBER() OVER (ORDER BY a)', gsql_win_args(), gsql_win_partition(), gsql_win_order(gsql_win_key(a, 0, 0)), " + nf + ")) + 1 from t"},
	} {
		st, err := ParseOne(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := sqlparser.String(st.(*Select).Stmt); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestWindowErrors(t *testing.T) {
	const (
		syn = ErrSyntax
		uns = ErrUnsupported
	)
	for _, tc := range []struct {
		in        string
		kind      ErrorKind
		line, col int
		msg       string
	}{
		{"SELECT a FROM t WHERE ROW_NUMBER() OVER () > 1", syn, 1, 23, "window functions are not allowed in WHERE"},
		{"SELECT a FROM t\nGROUP BY a\nHAVING RANK() OVER (ORDER BY a) = 1", syn, 3, 8, "window functions are not allowed in HAVING"},
		{"SELECT a FROM t GROUP BY ROW_NUMBER() OVER ()", syn, 1, 26, "window functions are not allowed in GROUP BY"},
		{"SELECT a FROM t JOIN u ON LAG(a) OVER () = 1", syn, 1, 27, "window functions are not allowed in JOIN conditions"},
		{"UPDATE t SET a = ROW_NUMBER() OVER ()", syn, 1, 18, "window functions are not allowed in UPDATE ... SET"},
		{"SELECT SUM(ROW_NUMBER() OVER ()) OVER () FROM t", syn, 1, 12, "window function calls cannot be nested"},
		{"SELECT SUM(a) OVER (ORDER BY RANK() OVER ()) FROM t", syn, 1, 30, "window function calls cannot be nested"},
		{"SELECT COUNT(*), MAX(a + LAG(a) OVER ()) FROM t", syn, 1, 26, "window functions are not allowed in the argument of an aggregate"},
		{"SELECT a FROM t WHERE a IN (SELECT b FROM u WHERE LAG(b) OVER () > 1)", syn, 1, 51, "window functions are not allowed in WHERE"},
		{"SELECT SUM(a) OVER w FROM t", syn, 1, 20, "unknown window w"},
		{"SELECT SUM(a) OVER w FROM t WINDOW v AS ()", syn, 1, 20, "unknown window w"},
		{"SELECT SUM(a) OVER (w ORDER BY a) FROM t", syn, 1, 21, "unknown window w"},
		{"SELECT SUM(a) OVER w FROM t WINDOW w AS (ORDER BY a), w AS ()", syn, 1, 55, "window w is already defined"},
		{"SELECT SUM(a) OVER (w ORDER BY a) FROM t WINDOW w AS (ORDER BY b)", syn, 1, 23, "cannot override ORDER BY of window w"},
		{"SELECT SUM(a) OVER (w PARTITION BY a) FROM t WINDOW w AS ()", syn, 1, 23, "cannot override PARTITION BY of window w"},
		{"SELECT SUM(a) OVER (w) FROM t WINDOW w AS (ROWS 1 PRECEDING)", syn, 1, 21, "cannot copy window w because it has a frame clause"},
		{"SELECT SUM(a) OVER w FROM t WINDOW w (ORDER BY a)", syn, 1, 38, "expected name AS (window specification) in WINDOW"},
		{"SELECT SUM(a) OVER (ORDER BY a PARTITION BY b) FROM t", syn, 1, 32, "near 'PARTITION': window clauses go in the order PARTITION BY, ORDER BY, frame"},
		{"SELECT SUM(a) OVER (PARTITION a) FROM t", syn, 1, 21, "expected BY after PARTITION"},
		{"SELECT SUM(a) OVER (foo bar) FROM t", syn, 1, 25, "near 'bar': expected PARTITION BY, ORDER BY, ROWS or RANGE in a window"},
		{"SELECT SUM(a) OVER (PARTITION BY a,) FROM t", syn, 1, 36, "expected an expression in PARTITION BY"},
		{"SELECT SUM(a) OVER (ORDER BY a NULLS) FROM t", syn, 1, 37, "expected FIRST or LAST after NULLS"},
		{"SELECT SUM(a) OVER (ORDER BY a DESC NULLS) FROM t", syn, 1, 42, "expected FIRST or LAST after NULLS"},
		{"SELECT SUM(a) OVER (ORDER BY a NULLS FIRS) FROM t", syn, 1, 38, "expected FIRST or LAST after NULLS"},
		{"SELECT SUM(a) OVER (PARTITION BY a b) FROM t", syn, 1, 36, "near 'b': expected ',' or the end of the clause"},
		{"SELECT SUM(a) OVER (PARTITION BY a ORDER BY f(a) x, b) FROM t", syn, 1, 50, "near 'x': expected ',' or the end of the clause"},
		{"SELECT COUNT(DISTINCT a) OVER () FROM t", uns, 1, 14, "not supported: DISTINCT in a window function"},
		// Bad frames.
		{"SELECT SUM(a) OVER (ORDER BY a GROUPS 1 PRECEDING) FROM t", uns, 1, 32, "not supported: GROUPS frames (use ROWS or RANGE)"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS) FROM t", syn, 1, 36, "expected a frame bound after ROWS"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t", syn, 1, 45, "frame start cannot be UNBOUNDED FOLLOWING"},
		{"SELECT SUM(a) OVER (ORDER BY a\n  ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM t", syn, 2, 32, "frame end cannot be UNBOUNDED PRECEDING"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t", syn, 1, 61, "frame starting from current row cannot have preceding rows"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t", syn, 1, 61, "frame starting from following row cannot have preceding rows"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM t", syn, 1, 45, "a window frame offset must not be negative"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING) FROM t", syn, 1, 64, "expected AND in the frame's BETWEEN"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS UNBOUNDED) FROM t", syn, 1, 46, "expected PRECEDING or FOLLOWING after UNBOUNDED"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS CURRENT) FROM t", syn, 1, 44, "expected ROW after CURRENT"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS PRECEDING) FROM t", syn, 1, 37, "expected an offset before PRECEDING"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS 1 PRECEDING AND CURRENT ROW) FROM t", syn, 1, 49, "near 'AND': expected the end of the window"},
		{"SELECT SUM(a) OVER (ORDER BY a ROWS CURRENT ROW EXCLUDE TIES) FROM t", uns, 1, 49, "not supported: EXCLUDE in a window frame"},
		{"SELECT SUM(a) OVER (RANGE 1 PRECEDING) FROM t", syn, 1, 21, "RANGE with offset PRECEDING/FOLLOWING needs exactly one ORDER BY column"},
		{"SELECT SUM(a) OVER (ORDER BY a, b RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t", syn, 1, 35, "RANGE with offset PRECEDING/FOLLOWING needs exactly one ORDER BY column"},
	} {
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
