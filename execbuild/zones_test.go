package execbuild

import (
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

func TestZoneExcludes(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	str := func(v string) *string { return &v }
	// Table columns: 0 id BIGINT in [10, 20], 1 v DOUBLE in [-1.5, 2.5],
	// 2 s VARCHAR in ["b", "d"], 3 all NULL, 4 BIGINT without a range.
	zones := []catalog.Zone{
		{MinI: i64(10), MaxI: i64(20)},
		{Nulls: 3, MinF: f64(-1.5), MaxF: f64(2.5)},
		{MinS: str("b"), MaxS: str("d")},
		{Nulls: 100},
		{},
	}
	// The scan reads columns 2, 0, 1, 3, 4 (in that order).
	cols := []int{2, 0, 1, 3, 4}
	ref := func(i int) expr.Expr {
		ts := []coldata.Type{coldata.String, coldata.Int64, coldata.Float64, coldata.Int64, coldata.Int64}
		return &expr.ColumnRef{Index: i, T: ts[i]}
	}
	lit := func(v any) expr.Expr {
		switch v.(type) {
		case int64:
			return &expr.Literal{Value: v, T: coldata.Int64}
		case float64:
			return &expr.Literal{Value: v, T: coldata.Float64}
		case string:
			return &expr.Literal{Value: v, T: coldata.String}
		}
		return &expr.Literal{Value: nil, T: coldata.Null}
	}
	call := func(name string, args ...expr.Expr) expr.Expr {
		fn, ok := expr.Lookup(name)
		if !ok {
			t.Fatalf("no function %s", name)
		}
		return &expr.Call{Fn: fn, Args: args, T: coldata.Bool}
	}
	tests := []struct {
		name string
		pred expr.Expr
		want bool
	}{
		{"id = 15", call("=", ref(1), lit(int64(15))), false},
		{"id = 9", call("=", ref(1), lit(int64(9))), true},
		{"id = 21", call("=", ref(1), lit(int64(21))), true},
		{"id = 10 (edge)", call("=", ref(1), lit(int64(10))), false},
		{"id < 10", call("<", ref(1), lit(int64(10))), true},
		{"id <= 10", call("<=", ref(1), lit(int64(10))), false},
		{"id > 20", call(">", ref(1), lit(int64(20))), true},
		{"id >= 20", call(">=", ref(1), lit(int64(20))), false},
		{"10 > id (flipped)", call(">", lit(int64(10)), ref(1)), true},
		{"20 <= id (flipped)", call("<=", lit(int64(20)), ref(1)), false},
		{"21 <= id (flipped)", call("<=", lit(int64(21)), ref(1)), true},
		{"v > 2.5", call(">", ref(2), lit(2.5)), true},
		{"v = -1.5", call("=", ref(2), lit(-1.5)), false},
		{"v = 2 (int literal: types differ, kept)", call("=", ref(2), lit(int64(3))), false},
		{"s = 'a'", call("=", ref(0), lit("a")), true},
		{"s = 'bz'", call("=", ref(0), lit("bz")), false},
		{"s > 'd'", call(">", ref(0), lit("d")), true},
		{"s < 'b'", call("<", ref(0), lit("b")), true},
		{"all-NULL column = 1", call("=", ref(3), lit(int64(1))), true},
		{"no range = 1", call("=", ref(4), lit(int64(1))), false},
		{"id = NULL literal", call("=", ref(1), lit(nil)), false},
		{"AND with one excluding", call("and", call(">", ref(1), lit(int64(5))), call("=", ref(0), lit("z"))), true},
		{"AND with none excluding", call("and", call(">", ref(1), lit(int64(5))), call("=", ref(0), lit("c"))), false},
		{"OR with one matching", call("or", call("=", ref(1), lit(int64(1))), call("=", ref(0), lit("c"))), false},
		{"OR with none matching", call("or", call("=", ref(1), lit(int64(1))), call("=", ref(0), lit("z"))), true},
		{"<> is not used", call("<>", ref(1), lit(int64(15))), false},
		{"a column index past the scan", call("=", &expr.ColumnRef{Index: 9, T: coldata.Int64}, lit(int64(1))), false},
	}
	for _, tc := range tests {
		if got := zoneExcludes(tc.pred, cols, zones, 100); got != tc.want {
			t.Errorf("%s: excludes %v, want %v", tc.name, got, tc.want)
		}
	}
}
