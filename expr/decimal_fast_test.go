package expr

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// decRef is the row-at-a-time definition of a decimal operator: decRow's
// 128-bit value, NULL for a zero divisor, an error when it overflows or
// does not fit the result type.
func decRef(op arithOp, x, y decimal.Int128, ta, tb coldata.Type) (r decimal.Int128, null, bad bool) {
	rt := decimalResult(op, ta, tb)
	r, null, ok := decRow(op, x, y, ta.Scale(), tb.Scale(), rt.Scale())
	if null {
		return decimal.Int128{}, true, false
	}
	return r, false, !ok || !r.Fits(rt.Precision())
}

// checkDecArith evaluates op over a and b (vectors or constants of n
// rows) and compares every row with decRef: the same values, NULLs (a
// NULL row holds zero, as the row-at-a-time path leaves it), or
// ErrDecimalRange when some non-NULL row overflows.
func checkDecArith(t *testing.T, op arithOp, a, b *coldata.Vec, n int) {
	t.Helper()
	got, err := decimalArith(op, a, b, n)
	wantErr := false
	for i := 0; i < n; i++ {
		if a.IsNull(i) || b.IsNull(i) {
			continue
		}
		if _, _, bad := decRef(op, a.Dec(i), b.Dec(i), a.Type, b.Type); bad {
			wantErr = true
		}
	}
	if wantErr {
		if !errors.Is(err, ErrDecimalRange) {
			t.Fatalf("%s %s %s: got %v, want ErrDecimalRange", a.Type, arithNames[op], b.Type, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s %s %s: %v", a.Type, arithNames[op], b.Type, err)
	}
	if got.Len != n || got.Type != decimalResult(op, a.Type, b.Type) {
		t.Fatalf("got %d rows of %s", got.Len, got.Type)
	}
	for i := 0; i < n; i++ {
		x, y := a.Dec(i), b.Dec(i)
		want, null, _ := decRef(op, x, y, a.Type, b.Type)
		null = null || a.IsNull(i) || b.IsNull(i)
		if got.IsNull(i) != null {
			t.Fatalf("row %d: %s %s %s: NULL %v, want %v", i, x.String(a.Type.Scale()), arithNames[op], y.String(b.Type.Scale()), got.IsNull(i), null)
		}
		if null {
			want = decimal.Int128{}
		}
		if g := got.Dec(i); g != want {
			t.Fatalf("row %d: %s %s %s = %s, want %s", i, x.String(a.Type.Scale()), arithNames[op], y.String(b.Type.Scale()),
				g.String(got.Type.Scale()), want.String(got.Type.Scale()))
		}
	}
}

// decEdgeValues are values around the int64 path's limits: 10^18, 2^63,
// and beyond 64 bits.
var decEdgeValues = func() []decimal.Int128 {
	vs := []decimal.Int128{
		decimal.FromInt64(0), decimal.FromInt64(1), decimal.FromInt64(-1),
		decimal.FromInt64(99), decimal.FromInt64(-1234567),
		decimal.FromInt64(999_999_999_999_999), decimal.FromInt64(-999_999_999_999_999),
		decimal.FromInt64(999_999_999_999_999_999), decimal.FromInt64(-999_999_999_999_999_999),
		decimal.FromInt64(1_000_000_000_000_000_000),
		decimal.FromInt64(3_037_000_499), decimal.FromInt64(3_037_000_500), // ~sqrt(2^63)
		decimal.FromInt64(1 << 62), decimal.FromInt64(-(1 << 62)),
		decimal.FromInt64(math.MaxInt64), decimal.FromInt64(math.MinInt64), decimal.FromInt64(math.MinInt64 + 1),
		{Lo: 0, Hi: 1}, {Lo: math.MaxUint64, Hi: -2}, // ±2^64
	}
	return vs
}()

// TestDecimalVecFastEdges runs every pair of edge values, for + - * / %
// over several decimal types, through the vector kernel (as vectors with a
// NULL row, and with either side constant) and compares each with the
// row-at-a-time definition.
func TestDecimalVecFastEdges(t *testing.T) {
	types := []coldata.Type{
		coldata.DecimalOf(15, 2), coldata.DecimalOf(18, 0), coldata.DecimalOf(19, 0),
		coldata.DecimalOf(18, 4), coldata.DecimalOf(38, 0), coldata.DecimalOf(38, 10), coldata.DecimalOf(1, 0),
	}
	fitting := func(ty coldata.Type) []decimal.Int128 {
		var out []decimal.Int128
		for _, v := range decEdgeValues {
			if v.Fits(ty.Precision()) {
				out = append(out, v)
			}
		}
		return out
	}
	for _, op := range []arithOp{opAdd, opSub, opMul, opDiv, opMod} {
		for _, ta := range types {
			for _, tb := range types {
				t.Run(fmt.Sprintf("%s%s%s", ta, arithNames[op], tb), func(t *testing.T) {
					for _, x := range fitting(ta) {
						for _, y := range fitting(tb) {
							a, b := coldata.NewVec(ta, 3), coldata.NewVec(tb, 3)
							for i := 0; i < 3; i++ {
								a.Decs[i], b.Decs[i] = x, y
							}
							a.SetNull(1)
							checkDecArith(t, op, a, b, 3)
							checkDecArith(t, op, coldata.NewConst(ta, x, 3), b, 3)
							checkDecArith(t, op, a, coldata.NewConst(tb, y, 3), 3)
							checkDecArith(t, op, coldata.NewConst(ta, x, 3), coldata.NewConst(tb, y, 3), 3)
						}
					}
				})
			}
		}
	}
}

// TestDecimalVecFastBatches mixes values in larger batches, where the
// vector kernel bounds the whole batch: small values (the int64 path), a
// batch with one large value (the row-at-a-time path), and a large value
// under a NULL (garbage the bound sees; the result must still be exact).
func TestDecimalVecFastBatches(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	t15 := coldata.DecimalOf(15, 2)
	t38 := coldata.DecimalOf(38, 6)
	const n = 5000
	small := func(ty coldata.Type, lim int64) *coldata.Vec {
		v := coldata.NewVec(ty, n)
		for i := range v.Decs {
			v.Decs[i] = decimal.FromInt64(r.Int63n(2*lim) - lim)
		}
		return v
	}
	for _, op := range []arithOp{opAdd, opSub, opMul} {
		a, b := small(t15, 1e13), small(t15, 1e13)
		checkDecArith(t, op, a, b, n)
		c := small(t38, 1e6)
		checkDecArith(t, op, a, c, n)
		checkDecArith(t, op, c, a, n)
		c.Decs[4321] = decimal.Int128{Lo: 5, Hi: 3} // beyond 64 bits: slow path, same values
		checkDecArith(t, op, a, c, n)
		checkDecArith(t, op, c, a, n)
		checkDecArith(t, op, c, coldata.NewConst(t15, decimal.FromInt64(7), n), n)
		c.SetNull(4321)
		checkDecArith(t, op, a, c, n)
		// Garbage under a NULL that would overflow, in a column bounded
		// by its type and in one bounded by its values.
		b.Decs[17] = decimal.FromInt64(math.MaxInt64)
		b.SetNull(17)
		checkDecArith(t, op, a, b, n)
		c.Decs[18] = decimal.Int128{Lo: 1, Hi: 1 << 40}
		c.SetNull(18)
		checkDecArith(t, op, b, c, n)
		checkDecArith(t, op, coldata.NewConst(t15, decimal.FromInt64(-3), n), b, n)
	}
}

// TestDecimalVecFastTaken checks that the int64 kernel serves TPC-H's
// DECIMAL(15,2) arithmetic and declines batches whose bound is too large.
func TestDecimalVecFastTaken(t *testing.T) {
	t15 := coldata.DecimalOf(15, 2)
	one := coldata.NewConst(coldata.DecimalOf(19, 0), decimal.FromInt64(1), 4)
	price := decVec(t, 15, 2, "901.00", "104949.50", "55.55", "")
	disc := decVec(t, 15, 2, "0.00", "0.10", "0.05", "0.07")
	for _, tc := range []struct {
		name string
		op   arithOp
		a, b *coldata.Vec
		fast bool
	}{
		{"1-disc", opSub, one, disc, true},
		{"price*disc", opMul, price, disc, true},
		{"price+disc", opAdd, price, disc, true},
		{"max*max", opMul, coldata.NewConst(coldata.DecimalOf(19, 0), decimal.FromInt64(math.MaxInt64), 4), coldata.NewConst(coldata.DecimalOf(19, 0), decimal.FromInt64(2), 4), false},
		{"beyond 64 bits", opAdd, decVec(t, 38, 2, "1", "2", "100000000000000000000", "3"), disc, false},
		// Bounds from the types alone: a constant with a narrow column,
		// two narrow columns of different scales.
		{"1+disc", opAdd, one, disc, true},
		{"disc-1", opSub, disc, one, true},
		{"price+scale4", opAdd, price, decVec(t, 10, 4, "1.2345", "-999999.9999", "0", ""), true},
		// Types too loose: the values bound them.
		{"18*18 small", opMul, decVec(t, 18, 0, "3", "-4", "5", "6"), decVec(t, 18, 0, "7", "8", "-9", "10"), true},
		{"18*18 large", opMul, decVec(t, 18, 0, "100000000000000000", "1", "1", "1"), decVec(t, 18, 0, "100000000000000000", "1", "1", "1"), false},
		// A narrow column beside a wide one: the wide one's values, then
		// the narrow one's when its type is too loose.
		{"price*wide", opMul, price, decVec(t, 38, 2, "0.99", "1.00", "0.90", "0.95"), true},
		{"price*wide rescue", opMul, price, decVec(t, 38, 2, "1000000.00", "-5.00", "0.90", "0.95"), true},
		{"price*wide large", opMul, decVec(t, 15, 2, "9999999999999.99", "1", "2", "3"), decVec(t, 38, 2, "1000000.00", "-5.00", "0.90", "0.95"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := decimalResult(tc.op, tc.a.Type, tc.b.Type)
			f := newDecFast(tc.op, tc.a.Type.Scale(), tc.b.Type.Scale(), rt.Scale(), rt.Precision())
			if got := f.vec(tc.a, tc.b, rt, 4) != nil; got != tc.fast {
				t.Errorf("int64 kernel taken: %v, want %v", got, tc.fast)
			}
			checkDecArith(t, tc.op, tc.a, tc.b, 4)
		})
	}
	_ = t15
}

// TestLooseMagnitude checks the bound the scanning loops use: one more
// than looseMagnitude is at least |x| (and at most |x| + 1) for every
// int64, and bad is set exactly for values that are not int64s.
func TestLooseMagnitude(t *testing.T) {
	for _, x := range decEdgeValues {
		m, bad := looseMagnitude(x)
		abs, badExact := magnitude(x)
		if (bad != 0) != (badExact != 0) {
			t.Fatalf("%s: bad %d, magnitude says %d", x.String(0), bad, badExact)
		}
		if bad == 0 && (m+1 < abs || m > abs) {
			t.Fatalf("%s: loose magnitude %d, |x| = %d", x.String(0), m, abs)
		}
	}
}
