package expr

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

func rcCall(t testing.TB, name string, args ...Expr) Expr {
	t.Helper()
	e, err := NewCall(scFn(t, name), args)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFuseRanges checks which conjunctions become one range call.
func TestFuseRanges(t *testing.T) {
	x := &ColumnRef{Index: 0, Name: "x", T: coldata.Int64}
	y := &ColumnRef{Index: 1, Name: "y", T: coldata.Int64}
	k := func(v int64) Expr { return &Literal{Value: v, T: coldata.Int64} }
	null := &Literal{T: coldata.Int64}
	c := func(name string, a, b Expr) Expr { return rcCall(t, name, a, b) }
	for _, tc := range []struct {
		name string
		e    Expr
		want string // the fused expression's String
	}{
		{"ge-lt", c("and", c(">=", x, k(1)), c("<", x, k(5))), "range>=<(x, 1, 5)"},
		{"upper first", c("and", c("<=", x, k(5)), c(">", x, k(1))), "range><=(x, 1, 5)"},
		{"literal left", c("and", c("<=", k(1), x), c(">", k(5), x)), "range>=<(x, 1, 5)"},
		{"nested", c("and", c("and", c(">=", x, k(1)), c("<", x, k(5))), c("=", y, k(3))), "(range>=<(x, 1, 5) and (y = 3))"},
		{"two columns", c("and", c(">=", x, k(1)), c("<", y, k(5))), "((x >= 1) and (y < 5))"},
		{"two lower bounds", c("and", c(">=", x, k(1)), c(">", x, k(5))), "((x >= 1) and (x > 5))"},
		{"or", c("or", c(">=", x, k(1)), c("<", x, k(5))), "((x >= 1) or (x < 5))"},
		{"null bound", c("and", c(">=", x, null), c("<", x, k(5))), "range>=<(x, NULL, 5)"}, // evaluated as the two comparisons
		{"equality", c("and", c("=", x, k(1)), c("<", x, k(5))), "((x = 1) and (x < 5))"},
		{"column bound", c("and", c(">=", x, y), c("<", x, k(5))), "((x >= y) and (x < 5))"},
		{"constant both sides", c("and", c(">=", k(2), k(1)), c("<", k(2), k(5))), "((2 >= 1) and (2 < 5))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.e.String()
			if got := fuseRanges(tc.e).String(); got != tc.want {
				t.Errorf("fused %s: got %s, want %s", before, got, tc.want)
			}
			if tc.e.String() != before {
				t.Errorf("fuseRanges modified its argument: %s", tc.e)
			}
		})
	}
}

// TestRangeMatchesComparisons evaluates fused ranges through a Program and
// the same conjunctions unfused (Eval), over columns of every type the
// range loop handles (and some it hands back), with NULLs, bounds at the
// int64 limits, empty ranges, constants beyond 64 bits and a DECIMAL row
// beyond 64 bits.
func TestRangeMatchesComparisons(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	const n = 300
	d2 := coldata.DecimalOf(15, 2)
	d38 := coldata.DecimalOf(38, 2)
	ints := coldata.NewVec(coldata.Int64, n)
	dates := coldata.NewVec(coldata.Date, n)
	decs := coldata.NewVec(d2, n)
	wide := coldata.NewVec(d38, n)
	floats := coldata.NewVec(coldata.Float64, n)
	for i := 0; i < n; i++ {
		ints.Ints[i] = r.Int63n(41) - 20
		dates.Ints[i] = 8700 + r.Int63n(500)
		decs.Decs[i] = decimal.FromInt64(r.Int63n(21) - 10)
		wide.Decs[i] = decimal.FromInt64(r.Int63n(21) - 10)
		floats.Floats[i] = float64(r.Intn(41)-20) / 2
		if i%13 == 5 {
			for _, v := range []*coldata.Vec{ints, dates, decs, wide, floats} {
				v.SetNull(i)
			}
		}
	}
	ints.Ints[1], ints.Ints[2] = math.MaxInt64, math.MinInt64
	wide.Decs[3] = decimal.Int128{Lo: 7, Hi: 2} // beyond 64 bits
	floats.Floats[4] = math.NaN()
	strs := coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		strs.AppendString(fmt.Sprintf("k%02d", r.Intn(30)))
	}
	b := coldata.NewBatch([]*coldata.Vec{ints, dates, decs, wide, floats, strs.Finish()}, n)
	col := func(i int) Expr { return &ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: b.Cols[i].Type} }
	lit := func(v any, ty coldata.Type) Expr { return &Literal{Value: v, T: ty} }
	dec := func(v int64, p, s int) Expr { return lit(decimal.FromInt64(v), coldata.DecimalOf(p, s)) }
	type bounds struct{ lo, hi Expr }
	cases := map[int][]bounds{
		0: {{lit(int64(-5), coldata.Int64), lit(int64(7), coldata.Int64)},
			{lit(int64(math.MinInt64), coldata.Int64), lit(int64(math.MaxInt64), coldata.Int64)},
			{lit(int64(math.MaxInt64), coldata.Int64), lit(int64(math.MaxInt64), coldata.Int64)},
			{lit(int64(math.MinInt64), coldata.Int64), lit(int64(math.MinInt64), coldata.Int64)},
			{lit(int64(9), coldata.Int64), lit(int64(-9), coldata.Int64)}, // empty
			{lit(int64(3), coldata.Int64), lit(int64(3), coldata.Int64)},
			{lit(nil, coldata.Int64), lit(int64(7), coldata.Int64)}, // NULL: the two comparisons
			{lit(2.5, coldata.Float64), lit(6.5, coldata.Float64)}}, // compares as DOUBLE
		1: {{lit(int64(8766), coldata.Date), lit(int64(9131), coldata.Date)}},
		2: {{dec(-5, 3, 2), dec(7, 3, 2)}, {dec(-50, 4, 3), dec(70, 4, 3)}, // scale 3: converted
			{lit(decimal.Pow10(20), d38), dec(5, 3, 2)}, // a bound beyond 64 bits
			{dec(3, 1, 0), dec(math.MaxInt64, 19, 0)}},
		3: {{dec(-5, 3, 2), dec(7, 3, 2)}},
		4: {{lit(-2.5, coldata.Float64), lit(3.0, coldata.Float64)}, {lit(math.Inf(-1), coldata.Float64), lit(math.Inf(1), coldata.Float64)}},
		5: {{lit("k05", coldata.String), lit("k20", coldata.String)}},
	}
	ops := [][2]string{{">=", "<"}, {">=", "<="}, {">", "<"}, {">", "<="}}
	for ci, bs := range cases {
		for bi, bd := range bs {
			for _, op := range ops {
				e := rcCall(t, "and", rcCall(t, op[0], col(ci), bd.lo), rcCall(t, op[1], col(ci), bd.hi))
				name := fmt.Sprintf("col%d/bounds%d/%s%s", ci, bi, op[0], op[1])
				if !strings.HasPrefix(fuseRanges(e).String(), "range") {
					t.Fatalf("%s: %s was not fused", name, e)
				}
				want, err := Eval(e, b)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, err := NewProgram([]Expr{e}).Eval(b)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for i := 0; i < n; i++ {
					if g, w := got[0].Value(i), want.Value(i); g != w {
						t.Fatalf("%s: row %d (%v): got %v, want %v", name, i, b.Cols[ci].Value(i), g, w)
					}
				}
			}
		}
	}
}

// TestRangeEmptyBatch evaluates a fused range over a batch of no rows.
func TestRangeEmptyBatch(t *testing.T) {
	for _, ty := range []coldata.Type{coldata.Int64, coldata.DecimalOf(15, 2), coldata.Float64} {
		x := &ColumnRef{Index: 0, Name: "x", T: ty}
		var lo, hi Expr
		switch {
		case ty.IsDecimal():
			lo, hi = &Literal{Value: decimal.FromInt64(1), T: ty}, &Literal{Value: decimal.FromInt64(9), T: ty}
		case ty == coldata.Float64:
			lo, hi = &Literal{Value: 1.0, T: ty}, &Literal{Value: 9.0, T: ty}
		default:
			lo, hi = &Literal{Value: int64(1), T: ty}, &Literal{Value: int64(9), T: ty}
		}
		e := rcCall(t, "and", rcCall(t, ">=", x, lo), rcCall(t, "<", x, hi))
		out, err := NewProgram([]Expr{e}).Eval(coldata.NewBatch([]*coldata.Vec{coldata.NewVec(ty, 0)}, 0))
		if err != nil || out[0].Len != 0 || out[0].Type != coldata.Bool {
			t.Fatalf("%s: %v, %+v", ty, err, out)
		}
	}
}
