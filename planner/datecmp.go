package planner

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// Constant text compared with a DATE or DATETIME, as MySQL 8 reads it.
//
// A comparison (=, <>, <, <=, >, >=, <=>) of a DATE or DATETIME with
// constant text reads the text as a date once, when the statement is
// prepared (Arg_comparator::get_date_from_const), so:
//
//   - text that is no date under the default sql_mode ('2023-02-30',
//     'abc', '') fails the statement with error 1525, "Incorrect DATE
//     value: '2023-02-30'" (8.0.16's change, bug #93513; MariaDB and
//     MySQL before it compare anyway);
//   - a warning for text read by dropping its trailing characters
//     ('2024-02-29x') is given once, whether or not any row is compared
//     (an empty table, a conjunct never evaluated, LIMIT 0).
//
// IN lists and BETWEEN read their text row by row in MySQL, with a
// warning and no error (b.lenientDates is set while their comparisons
// are bound): their text is read here too (the warning once), and text
// that is no date compares as MySQL's zero date, below every date
// (get_datetime_value reads it as 0): DATE '2024-01-01' IN ('2023-02-30')
// is false, not NULL, and BETWEEN '2023-02-30' AND x is <= x.
//
// The text read becomes a literal of the comparison's type, so the plan
// (and a GPU kernel) compares dates; the warnings go to the statement's
// sink now, and a plan whose binding warned is not cached (queryAndCache).

// A view's query is checked when the view is created, as MySQL resolves
// it then (unknown tables and columns fail CREATE VIEW), but MySQL's
// get_date_from_const does not read constant text in that check (it skips
// it under CONTEXT_ANALYSIS_ONLY_VIEW): a view comparing a date with text
// that is no date is created, and reading it fails with error 1525. The
// check binds under CheckingView, where readDateText leaves the text
// unread; each statement that reads the view binds its query again, and
// reads the text then.

type viewCheckKey struct{}

// CheckingView marks ctx as the check of a view's query (CREATE VIEW, and
// DESCRIBE of a view, which reads no rows): constant text compared with a
// DATE or DATETIME is left for the statements that read the view, which
// fail on text that is no date.
func CheckingView(ctx context.Context) context.Context {
	return context.WithValue(ctx, viewCheckKey{}, true)
}

func checkingView(ctx context.Context) bool {
	on, _ := ctx.Value(viewCheckKey{}).(bool)
	return on
}

// strictDateText are the comparisons that fail on text that is no date.
var strictDateText = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "<=>": true}

// readDateText reads the constant text that comparison e (function
// name) converts to a date (the arguments NewCall marked Once) into a
// literal, giving its warnings to the statement, or fails on text that
// is no date.
func (b *binder) readDateText(name string, e expr.Expr) (expr.Expr, error) {
	c, ok := e.(*expr.Call)
	if !ok || (!strictDateText[name] && name != "in") || (b.ctx != nil && checkingView(b.ctx)) {
		return e, nil
	}
	one := &coldata.Batch{Len: 1}
	for i, a := range c.Args {
		conv, ok := a.(*expr.Call)
		if !ok || conv.Once == 0 || len(conv.Args) == 0 {
			continue
		}
		var w expr.Warnings
		v, err := expr.EvalWarn(conv, one, &w)
		if err != nil {
			continue // the statement meets it when it runs
		}
		lit := &expr.Literal{Value: v.Value(0), T: conv.T}
		// The comparison's reading of text gives the zero date for text
		// that is no date (expr/cmpdate.go), a cast NULL.
		if v.IsNull(0) || (conv.Fn.Name == expr.CmpTimestampName && v.Int(0) == expr.ZeroTimestamp) {
			text, err := expr.Eval(conv.Args[0], one)
			if err != nil || text.IsNull(0) {
				continue
			}
			if strictDateText[name] && !b.lenientDates && len(c.Args) == 2 {
				return nil, errorf(IncorrectValue, name, "Incorrect %s value: '%v'", temporalName(c.Args[1-i]), text.Value(0))
			}
			if lit, ok = zeroDate(conv.T); !ok {
				continue
			}
		}
		expr.WarningsOf(b.ctx).Append(w.List()...)
		c.Args[i] = lit
	}
	return c, nil
}

// temporalName is MySQL's name of the type the other side of a
// comparison has, for error 1525: DATE, or DATETIME (gsql's TIMESTAMP is
// MySQL's DATETIME). A DATE compared as a DATETIME (with text holding a
// time of day) is still a DATE.
func temporalName(other expr.Expr) string {
	if c, ok := other.(*expr.Call); ok && len(c.Args) == 1 && c.Fn.Name == expr.CastFuncName(coldata.Timestamp) {
		other = c.Args[0]
	}
	if other.Type().Plain() == coldata.Date {
		return "DATE"
	}
	return "DATETIME"
}

// zeroDate is a literal of type t below every value of t, standing for
// MySQL's zero date '0000-00-00' as one side of a comparison: the day
// before 0001-01-01 (gsql's dates start there). It never leaves the
// comparison.
func zeroDate(t coldata.Type) (*expr.Literal, bool) {
	switch t.Plain() {
	case coldata.Date:
		return &expr.Literal{Value: expr.ZeroDateDays, T: t}, true
	case coldata.Timestamp:
		return &expr.Literal{Value: expr.ZeroTimestamp, T: t}, true
	}
	return nil, false
}
