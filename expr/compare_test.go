package expr

import (
	"math"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Expected values follow the MySQL 8 reference, Comparison Functions and
// Operators (1 = 0 -> 0, '0' = 0 -> 1, '0.0' = 0 -> 1, '0.01' = 0 -> 0,
// '.01' = 0.01 -> 1, 1 <=> 1, NULL <=> NULL -> 1, 1 <=> NULL -> 0,
// 1 = NULL -> NULL, '.01' <> '0.01' -> 1, .01 <> '0.01' -> 0, 'zapp' <>
// 'zappp' -> 1, 0.1 <= 2 -> 1, 2 < 2 -> 0, 2 >= 2 -> 1, 2 > 2 -> 0) and
// Type Conversion in Expression Evaluation (1 > '6x' -> 0, 7 > '6x' -> 1,
// 0 > 'x6' -> 0, 0 = 'x6' -> 1). Strings compare bytewise (DESIGN.md §7).

func TestScEqual(t *testing.T) {
	scRun(t, "=", "II", []scCase{
		{[]any{1, 0}, false}, {[]any{1, 1}, true}, {[]any{scMin, scMin}, true},
		{[]any{1, nil}, nil}, {[]any{nil, nil}, nil}, {[]any{nil, 1}, nil},
	})
	scRun(t, "=", "SI", []scCase{
		{[]any{"0", 0}, true}, {[]any{"0.0", 0}, true}, {[]any{"0.01", 0}, false},
		{[]any{"x6", 0}, true}, {[]any{"1abc", 1}, true}, {[]any{nil, 0}, nil},
	})
	scRun(t, "=", "SF", []scCase{{[]any{".01", 0.01}, true}, {[]any{"1e3", 1000.0}, true}})
	scRun(t, "=", "FF", []scCase{
		{[]any{0.1, 0.1}, true}, {[]any{0.0, math.Copysign(0, -1)}, true}, {[]any{math.NaN(), math.NaN()}, false},
	})
	scRun(t, "=", "SS", []scCase{
		{[]any{"a", "a"}, true}, {[]any{"a", "A"}, false}, {[]any{"a", "a "}, false}, // bytewise, trailing spaces count
		{[]any{"", ""}, true}, {[]any{"é", "é"}, true}, {[]any{"ab", "abc"}, false},
		{[]any{"", nil}, nil},
	})
	scRun(t, "=", "BB", []scCase{{[]any{true, true}, true}, {[]any{true, false}, false}})
	scRun(t, "=", "BI", []scCase{{[]any{true, 1}, true}, {[]any{true, 2}, false}})
	scRun(t, "=", "NS", []scCase{{[]any{nil, "a"}, nil}})
}

func TestScNotEqual(t *testing.T) {
	scRun(t, "<>", "SS", []scCase{
		{[]any{".01", "0.01"}, true}, {[]any{"zapp", "zappp"}, true}, {[]any{"a", "a"}, false}, {[]any{nil, "a"}, nil},
	})
	scRun(t, "<>", "FS", []scCase{{[]any{0.01, "0.01"}, false}})
	scRun(t, "!=", "II", []scCase{{[]any{1, 0}, true}, {[]any{1, 1}, false}, {[]any{nil, 1}, nil}})
	scRun(t, "<>", "FF", []scCase{{[]any{math.NaN(), 1.0}, true}})
}

func TestScOrdering(t *testing.T) {
	scRun(t, "<", "II", []scCase{{[]any{2, 2}, false}, {[]any{1, 2}, true}, {[]any{scMin, scMax}, true}, {[]any{nil, 2}, nil}})
	scRun(t, "<=", "FI", []scCase{{[]any{0.1, 2}, true}, {[]any{2.0, 2}, true}, {[]any{2.5, 2}, false}})
	scRun(t, ">", "II", []scCase{{[]any{2, 2}, false}, {[]any{3, 2}, true}})
	scRun(t, ">=", "II", []scCase{{[]any{2, 2}, true}, {[]any{1, 2}, false}})
	scRun(t, ">", "IS", []scCase{{[]any{1, "6x"}, false}, {[]any{7, "6x"}, true}, {[]any{0, "x6"}, false}})
	scRun(t, "<", "SS", []scCase{
		{[]any{"a", "b"}, true}, {[]any{"a", "a"}, false}, {[]any{"B", "a"}, true}, // bytewise: 'B' < 'a'
		{[]any{"ab", "abc"}, true}, {[]any{"", "a"}, true}, {[]any{"é", "z"}, false},
	})
	scRun(t, "<=", "SS", []scCase{{[]any{"bdf", "b"}, false}, {[]any{"b", "b"}, true}})
	scRun(t, ">", "SS", []scCase{{[]any{"b", "a"}, true}, {[]any{"a", "ab"}, false}})
	scRun(t, ">=", "SS", []scCase{{[]any{"b", "b"}, true}, {[]any{"a", "b"}, false}, {[]any{nil, "b"}, nil}})
	scRun(t, "<", "FF", []scCase{{[]any{math.NaN(), 1.0}, false}, {[]any{math.Inf(-1), -1e308}, true}})
	scRun(t, ">=", "FF", []scCase{{[]any{math.NaN(), math.NaN()}, false}})
}

func TestScNullSafeEqual(t *testing.T) {
	scRun(t, "<=>", "II", []scCase{
		{[]any{1, 1}, true}, {[]any{nil, nil}, true}, {[]any{1, nil}, false}, {[]any{nil, 1}, false},
		{[]any{2, 0}, false}, {[]any{0, 0}, true},
	})
	scRun(t, "<=>", "SS", []scCase{{[]any{"a", "a"}, true}, {[]any{nil, "a"}, false}, {[]any{nil, nil}, true}})
	scRun(t, "<=>", "SI", []scCase{{[]any{"99a", 99}, true}, {[]any{"abc", 0}, true}})
	scRun(t, "<=>", "NN", []scCase{{[]any{nil, nil}, true}})
	scRun(t, "<=>", "NS", []scCase{{[]any{nil, "x"}, false}, {[]any{nil, nil}, true}})
}

// TestScCompareAllShapes runs every operator over string and number columns
// against a reference, with the constant on either side.
func TestScCompareAllShapes(t *testing.T) {
	strs := []any{"", "a", "ab", "b", "B", "a ", "é", nil}
	ints := []any{int64(-2), int64(0), int64(1), int64(5), scMin, scMax, nil, int64(1)}
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	ref := func(op string, c int) bool {
		switch op {
		case "=":
			return c == 0
		case "<>":
			return c != 0
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	}
	cmp := func(a, b any) int {
		switch x := a.(type) {
		case string:
			y := b.(string)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		case int64:
			y := b.(int64)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
		}
		return 0
	}
	for _, data := range []struct {
		t    coldata.Type
		vals []any
	}{{coldata.String, strs}, {coldata.Int64, ints}} {
		col := scVec(data.t, data.vals...)
		n := len(data.vals)
		for _, op := range ops {
			f := scFn(t, op)
			for _, k := range data.vals {
				c := coldata.NewConst(data.t, k, n)
				for side := 0; side < 2; side++ {
					args := []*coldata.Vec{col, c}
					if side == 1 {
						args = []*coldata.Vec{c, col}
					}
					out, err := f.Eval(args, n)
					if err != nil {
						t.Fatal(err)
					}
					for i, v := range data.vals {
						a, b := v, k
						if side == 1 {
							a, b = k, v
						}
						if a == nil || b == nil {
							if !out.IsNull(i) {
								t.Errorf("%v %s %v: not NULL", a, op, b)
							}
							continue
						}
						if out.IsNull(i) || out.Bool(i) != ref(op, cmp(a, b)) {
							t.Errorf("%v %s %v = %v, want %v", a, op, b, out.Value(i), ref(op, cmp(a, b)))
						}
					}
				}
			}
			// Column against column (a shifted copy of itself).
			shifted := append(append([]any{}, data.vals[1:]...), data.vals[0])
			out, err := f.Eval([]*coldata.Vec{col, scVec(data.t, shifted...)}, n)
			if err != nil {
				t.Fatal(err)
			}
			for i := range data.vals {
				a, b := data.vals[i], shifted[i]
				if a == nil || b == nil {
					if !out.IsNull(i) {
						t.Errorf("%v %s %v: not NULL", a, op, b)
					}
				} else if out.IsNull(i) || out.Bool(i) != ref(op, cmp(a, b)) {
					t.Errorf("%v %s %v = %v", a, op, b, out.Value(i))
				}
			}
		}
	}
}

// TestScEqShortNeedle exercises the word-at-a-time = / <> path: needles of
// 0 to 9 bytes against rows of every length, rows ending the buffer, and
// prefixes and extensions of the needle.
func TestScEqShortNeedle(t *testing.T) {
	base := "abcdefghi"
	var rows []any
	for l := 0; l <= len(base); l++ {
		rows = append(rows, base[:l], base[:l]+"x", "x"+base[:l])
	}
	rows = append(rows, nil, "abcdefgh") // the last row ends the data buffer
	for l := 0; l <= len(base); l++ {
		needle := base[:l]
		for _, op := range []string{"=", "<>"} {
			for _, sub := range [][]any{rows, rows[len(rows)-3:], rows[len(rows)-1:]} {
				col := scVec(coldata.String, sub...)
				out, err := scFn(t, op).Eval([]*coldata.Vec{col, coldata.NewConst(coldata.String, needle, len(sub))}, len(sub))
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range sub {
					if v == nil {
						if !out.IsNull(i) {
							t.Errorf("NULL %s %q: not NULL", op, needle)
						}
						continue
					}
					if want := (v.(string) == needle) == (op == "="); out.Bool(i) != want {
						t.Errorf("%q %s %q = %v", v, op, needle, out.Bool(i))
					}
				}
			}
		}
	}
}
