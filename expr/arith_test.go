package expr

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Expected values follow the MySQL 8 reference, Arithmetic Operators
// (3+5 = 8, 3-5 = -2, 3*5 = 15, 3/5 = 0.6, 102/(1-1) = NULL, 5 DIV 2 = 2,
// -5 DIV 2 = -2, 5 DIV -2 = -2, -5 DIV -2 = 2, MOD(234, 10) = 4, 253 % 7 =
// 1, MOD(29,9) = 2, MOD(34.5,3) = 1.5, out-of-range BIGINT results are
// errors).

const (
	scMax = int64(math.MaxInt64)
	scMin = int64(math.MinInt64)
)

func TestScAdd(t *testing.T) {
	scRun(t, "+", "II", []scCase{
		{[]any{3, 5}, 8},
		{[]any{-3, 3}, 0},
		{[]any{scMax, 0}, scMax},
		{[]any{scMax - 1, 1}, scMax},
		{[]any{scMin, -0}, scMin},
		{[]any{scMax, scMin}, -1},
		{[]any{nil, 1}, nil},
		{[]any{1, nil}, nil},
		{[]any{nil, nil}, nil},
		{[]any{scMax, 1}, scErr{}},
		{[]any{scMin, -1}, scErr{}},
		{[]any{scMax, scMax}, scErr{}},
	})
	scRun(t, "+", "FF", []scCase{
		{[]any{0.1, 0.3333}, 0.4333},
		{[]any{3.0, 2.9875}, 5.9875},
		{[]any{1e308, 1e308}, math.Inf(1)},
		{[]any{nil, 1.5}, nil},
	})
	scRun(t, "+", "SI", []scCase{
		{[]any{"1", 1}, 2.0}, // MySQL: 1+'1' = 2
		{[]any{"3", 4}, 7.0},
		{[]any{"1.5x", 1}, 2.5},
		{[]any{"abc", 1}, 1.0},
		{[]any{nil, 1}, nil},
	})
	scRun(t, "+", "BI", []scCase{{[]any{true, 1}, 2}, {[]any{false, nil}, nil}})
	scRun(t, "+", "NI", []scCase{{[]any{nil, 1}, nil}})
}

func TestScSub(t *testing.T) {
	scRun(t, "-", "II", []scCase{
		{[]any{3, 5}, -2},
		{[]any{scMin, -1}, scMin + 1},
		{[]any{0, scMax}, -scMax},
		{[]any{-1, scMax}, scMin},
		{[]any{nil, 5}, nil},
		{[]any{0, scMin}, scErr{}},
		{[]any{-9223372036854775807, 2}, scErr{}},
		{[]any{scMax, -1}, scErr{}},
	})
	scRun(t, "-", "FI", []scCase{{[]any{3.0, 1}, 2.0}, {[]any{0.1, 0}, 0.1}, {[]any{nil, 1}, nil}})
	scRun(t, "-", "FF", []scCase{{[]any{0.1, 0.3333}, scApprox(-0.2333)}})
}

func TestScMul(t *testing.T) {
	scRun(t, "*", "II", []scCase{
		{[]any{3, 5}, 15},
		{[]any{7, 6}, 42},
		{[]any{-3, 5}, -15},
		{[]any{0, scMin}, 0},
		{[]any{scMin, 1}, scMin},
		{[]any{-1, scMax}, -scMax},
		{[]any{1 << 31, 1 << 31}, int64(1) << 62},
		{[]any{-(1 << 31), 1 << 32}, scMin},
		{[]any{nil, 0}, nil},
		{[]any{scMax, 2}, scErr{}},
		{[]any{18014398509481984, 18014398509481984}, scErr{}}, // MySQL's example
		{[]any{scMin, -1}, scErr{}},
		{[]any{-1, scMin}, scErr{}},
		{[]any{1 << 32, 1 << 31}, scErr{}},
		{[]any{3037000500, 3037000500}, scErr{}},
	})
	scRun(t, "*", "FF", []scCase{
		{[]any{18014398509481984.0, 18014398509481984.0}, 3.2451855365842673e32},
		{[]any{1.5, -2.0}, -3.0},
	})
}

func TestScDivide(t *testing.T) {
	scRun(t, "/", "II", []scCase{
		// MySQL divides integers exactly, scale 4: 3/5 = 0.6000.
		{[]any{3, 5}, scDec("0.6000")},
		{[]any{1, 2}, scDec("0.5000")},
		{[]any{102, 0}, nil}, // MySQL: 102/(1-1) = NULL
		{[]any{-7, 2}, scDec("-3.5000")},
		{[]any{scMin, -1}, scDec("9223372036854775808.0000")},
		{[]any{nil, 2}, nil},
		{[]any{2, nil}, nil},
	})
	scRun(t, "/", "FF", []scCase{{[]any{1.0, 0.0}, nil}, {[]any{1.0, -0.0}, nil}, {[]any{0.0, 4.0}, 0.0}})
	scRun(t, "/", "SS", []scCase{{[]any{"6", "4"}, 1.5}, {[]any{"1", "x"}, nil}})
}

func TestScIntDiv(t *testing.T) {
	scRun(t, "div", "II", []scCase{
		{[]any{5, 2}, 2},
		{[]any{-5, 2}, -2},
		{[]any{5, -2}, -2},
		{[]any{-5, -2}, 2},
		{[]any{33, 2}, 16},
		{[]any{6, 4}, 1},
		{[]any{7, 0}, nil},
		{[]any{scMin, 1}, scMin},
		{[]any{scMax, -1}, -scMax},
		{[]any{nil, 1}, nil},
		{[]any{scMin, -1}, scErr{}},
	})
	scRun(t, "div", "FI", []scCase{
		{[]any{7.5, 2}, 3}, // MySQL: 7.5 DIV 2 = 3
		{[]any{-7.5, 2}, -3},
		{[]any{1.0, 0}, nil},
		{[]any{1e300, 1}, scErr{}},
	})
	scRun(t, "div", "FF", []scCase{{[]any{3.0, math.Pi}, 0}}) // 3 DIV PI() = 0
}

func TestScMod(t *testing.T) {
	scRun(t, "%", "II", []scCase{
		{[]any{234, 10}, 4},
		{[]any{253, 7}, 1},
		{[]any{29, 9}, 2},
		{[]any{1042, 50}, 42},
		{[]any{33, 2}, 1},
		{[]any{-7, 3}, -1}, // sign of the dividend
		{[]any{7, -3}, 1},
		{[]any{100, 0}, nil}, // MySQL: 100 % 0 = NULL
		{[]any{scMin, -1}, 0},
		{[]any{nil, 3}, nil},
	})
	scRun(t, "mod", "FI", []scCase{
		{[]any{34.5, 3}, 1.5}, // MySQL: MOD(34.5,3) = 1.5
		{[]any{-34.5, 3}, -1.5},
		{[]any{1.5, 0}, nil},
	})
	scRun(t, "mod", "FF", []scCase{{[]any{3.0, math.Pi}, 3.0}}) // 3 MOD PI() = 3
}

func TestScNeg(t *testing.T) {
	scRun(t, "neg", "I", []scCase{{[]any{2}, -2}, {[]any{-scMax}, scMax}, {[]any{0}, 0}, {[]any{nil}, nil}, {[]any{scMin}, scErr{}}})
	scRun(t, "neg", "F", []scCase{{[]any{2.5}, -2.5}, {[]any{0.0}, math.Copysign(0, -1)}, {[]any{nil}, nil}})
	scRun(t, "neg", "S", []scCase{{[]any{"3"}, -3.0}})
	scRun(t, "neg", "B", []scCase{{[]any{true}, -1}})
}

// TestScOverflowMessage checks MySQL's wording with the operands.
func TestScOverflowMessage(t *testing.T) {
	for _, c := range []struct {
		fn   string
		a, b int64
		want string
	}{
		{"+", scMax, 1, "BIGINT value is out of range in '(9223372036854775807 + 1)'"},
		{"-", -9223372036854775807, 2, "BIGINT value is out of range in '(-9223372036854775807 - 2)'"},
		{"*", scMax, 2, "BIGINT value is out of range in '(9223372036854775807 * 2)'"},
		{"div", scMin, -1, "BIGINT value is out of range in '(-9223372036854775808 DIV -1)'"},
	} {
		_, err := scFn(t, c.fn).Eval([]*coldata.Vec{scVec(coldata.Int64, int64(1), c.a), scVec(coldata.Int64, int64(1), c.b)}, 2)
		if err == nil || !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d %s %d: error %v, want %q", c.a, c.fn, c.b, err, c.want)
		}
	}
}

// TestScOverflowUnderNull checks that a row that overflows under NULL is not
// an error (values under NULL are arbitrary).
func TestScOverflowUnderNull(t *testing.T) {
	a := scVec(coldata.Int64, int64(1), scMax, int64(2))
	a.SetNull(1)
	b := scVec(coldata.Int64, int64(1), int64(1), int64(3))
	for _, fn := range []string{"+", "*", "-"} {
		bb := b
		if fn == "-" {
			bb = scVec(coldata.Int64, int64(1), int64(-1), int64(3))
		}
		out, err := scFn(t, fn).Eval([]*coldata.Vec{a, bb}, 3)
		if err != nil {
			t.Errorf("%s: %v", fn, err)
			continue
		}
		if !out.IsNull(1) || out.IsNull(0) || out.IsNull(2) {
			t.Errorf("%s: NULL pattern %v %v %v", fn, out.IsNull(0), out.IsNull(1), out.IsNull(2))
		}
	}
	neg := scVec(coldata.Int64, scMin, int64(4))
	neg.SetNull(0)
	if out, err := scFn(t, "neg").Eval([]*coldata.Vec{neg}, 2); err != nil || out.Int(1) != -4 {
		t.Errorf("neg under NULL: %v", err)
	}
}

// TestScDivZeroKeepsInputNulls checks that marking division-by-zero rows
// NULL does not write into an input's validity bitmap.
func TestScDivZeroKeepsInputNulls(t *testing.T) {
	a := scVec(coldata.Int64, int64(1), nil, int64(3))
	b := scVec(coldata.Int64, int64(0), int64(1), int64(0))
	before := append([]byte(nil), a.Nulls...)
	for _, fn := range []string{"/", "div", "%"} {
		out, err := scFn(t, fn).Eval([]*coldata.Vec{a, b}, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if !out.IsNull(i) {
				t.Errorf("%s row %d: not NULL", fn, i)
			}
		}
		if string(a.Nulls) != string(before) {
			t.Fatalf("%s changed its input's NULL bitmap", fn)
		}
	}
}
