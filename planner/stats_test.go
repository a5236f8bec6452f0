package planner

import (
	"math"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// TestSelectivityFromStats checks the estimates column statistics give,
// against a column of 7 values over 1992..1998 (discrete), a DOUBLE over
// 0..100, and a column without statistics (the textbook guesses).
func TestSelectivityFromStats(t *testing.T) {
	stats := func(col int) (colStat, bool) {
		switch col {
		case 0:
			return colStat{ndv: 7, rows: 2557, lo: 1992, hi: 1998, ranged: true, discrete: true}, true
		case 1:
			return colStat{ndv: 1000, rows: 1e6, lo: 0, hi: 100, ranged: true}, true
		case 2:
			return colStat{ndv: 25, rows: 800}, true // VARCHAR: no range
		}
		return colStat{}, false
	}
	col := func(i int, tp coldata.Type) expr.Expr { return &expr.ColumnRef{Index: i, T: tp} }
	year, f, cat, none := col(0, coldata.Int64), col(1, coldata.Float64), col(2, coldata.String), col(3, coldata.Int64)
	i64 := func(v int64) expr.Expr { return &expr.Literal{Value: v, T: coldata.Int64} }
	flt := func(v float64) expr.Expr { return &expr.Literal{Value: v, T: coldata.Float64} }
	str := func(v string) expr.Expr { return &expr.Literal{Value: v, T: coldata.String} }
	call := func(fn string, args ...expr.Expr) expr.Expr {
		f, ok := expr.Lookup(fn)
		if !ok {
			t.Fatalf("no function %s", fn)
		}
		return &expr.Call{Fn: f, Args: args, T: boolType}
	}
	for _, tc := range []struct {
		name string
		e    expr.Expr
		want float64
	}{
		{"= constant", call("=", year, i64(1993)), 1.0 / 7},
		{"constant =", call("=", i64(1993), year), 1.0 / 7},
		{"= string", call("=", cat, str("MFGR#12")), 1.0 / 25},
		{"no statistics", call("=", none, i64(1)), selEqConst},
		{"column = column", call("=", year, none), selEqConst},
		{"IN list", call("in", year, i64(1993), i64(1994)), 2.0 / 7},
		{"IN list past NDV", call("in", cat, str("a"), str("b"), str("c")), 3.0 / 25},
		{"< discrete", call("<", year, i64(1994)), 2.0 / 7},
		{"<= discrete", call("<=", year, i64(1994)), 3.0 / 7},
		{"> discrete", call(">", year, i64(1994)), 4.0 / 7},
		{"constant > column", call(">", i64(1994), year), 2.0 / 7},
		{">= below the range", call(">=", year, i64(1900)), 1},
		{"< below the range", call("<", year, i64(1900)), 0},
		{"< continuous", call("<", f, flt(25)), 0.25},
		{"range without min/max", call("<", cat, str("M")), selRange},
		{"BETWEEN as AND", call("and", call(">=", year, i64(1993)), call("<=", year, i64(1997))), 5.0 / 7},
		{"AND of two columns", call("and", call("=", year, i64(1993)), call("<", f, flt(50))), 0.5 / 7},
		{"tighter bound wins", call("and", call("<", f, flt(50)), call("<", f, flt(20)), call(">", f, flt(10))), 0.1},
		{"OR", call("or", call("=", year, i64(1993)), call("=", year, i64(1994))), 2.0 / 7},
		{"NOT", call("not", call("=", cat, str("x"))), 24.0 / 25},
		{"LIKE keeps its guess", call("like", cat, str("M%")), selLike},
	} {
		if got := selectivityWith(tc.e, stats); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %s keeps %g, want %g", tc.name, tc.e, got, tc.want)
		}
	}
}
