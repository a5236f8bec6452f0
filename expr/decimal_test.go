package expr

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// decVec makes a DECIMAL(p,s) vector of the given values (text, scaled by
// s; "" is NULL).
func decVec(t testing.TB, p, s int, vals ...string) *coldata.Vec {
	t.Helper()
	v := coldata.NewVec(coldata.DecimalOf(p, s), len(vals))
	for i, x := range vals {
		if x == "" {
			if v.Nulls == nil {
				v.Nulls = coldata.NewValidBitmap(len(vals))
			}
			coldata.ClearBit(v.Nulls, i)
			continue
		}
		d, ok := decimal.Parse(x, s)
		if !ok {
			t.Fatalf("bad decimal %q", x)
		}
		v.Decs[i] = d
	}
	return v
}

// TestDecimalArithEdges checks exact results of + - * / at the 18/19-digit
// boundary (where the int64 path hands over to the 128-bit one), at the
// 38-digit limit (overflow is an error), and rounding of negative values
// (half away from zero).
func TestDecimalArithEdges(t *testing.T) {
	type side struct {
		p, s int
		v    string
	}
	for _, tc := range []struct {
		op   arithOp
		a, b side
		want string // the result as text; "error" for ErrDecimalRange; "NULL"
	}{
		// 18 digits + 1 becomes 19 digits: exact.
		{opAdd, side{18, 0, "999999999999999999"}, side{18, 0, "1"}, "1000000000000000000"},
		{opSub, side{18, 0, "-999999999999999999"}, side{18, 0, "1"}, "-1000000000000000000"},
		// Past int64: 2^63-1 + 1 and -2^63 - 1.
		{opAdd, side{19, 0, "9223372036854775807"}, side{19, 0, "1"}, "9223372036854775808"},
		{opSub, side{19, 0, "-9223372036854775808"}, side{19, 0, "1"}, "-9223372036854775809"},
		{opSub, side{19, 0, "9223372036854775807"}, side{19, 0, "-9223372036854775807"}, "18446744073709551614"},
		{opAdd, side{19, 0, "-9223372036854775807"}, side{19, 0, "-9223372036854775807"}, "-18446744073709551614"},
		// Scale alignment that overflows int64 only after rescaling.
		{opAdd, side{19, 0, "9223372036854775807"}, side{2, 2, "0.01"}, "9223372036854775807.01"},
		{opAdd, side{15, 2, "1.05"}, side{10, 4, "0.0001"}, "1.0501"},
		// Products around 2^63.
		{opMul, side{10, 0, "3037000499"}, side{10, 0, "3037000499"}, "9223372030926249001"},
		{opMul, side{10, 0, "3037000500"}, side{10, 0, "3037000500"}, "9223372037000250000"},
		{opMul, side{10, 0, "-3037000500"}, side{10, 0, "3037000500"}, "-9223372037000250000"},
		{opMul, side{19, 0, "4611686018427387904"}, side{1, 0, "-2"}, "-9223372036854775808"},
		{opMul, side{19, 0, "4611686018427387904"}, side{1, 0, "2"}, "9223372036854775808"},
		{opMul, side{15, 2, "-1.50"}, side{15, 2, "2.25"}, "-3.3750"},
		{opMul, side{15, 2, "104949.50"}, side{15, 2, "0.96"}, "100751.5200"},
		// 38 digits: overflow is an error, whatever path.
		{opAdd, side{38, 0, "99999999999999999999999999999999999999"}, side{38, 0, "1"}, "error"},
		{opSub, side{38, 0, "-99999999999999999999999999999999999999"}, side{38, 0, "1"}, "error"},
		{opMul, side{38, 0, "10000000000000000000000000000000000000"}, side{3, 0, "100"}, "error"},
		{opMul, side{20, 0, "10000000000000000000"}, side{20, 0, "10000000000000000000"}, "error"},
		{opAdd, side{38, 0, "99999999999999999999999999999999999998"}, side{38, 0, "1"}, "99999999999999999999999999999999999999"},
		// Negative values round half away from zero: division at scale+4,
		// and a product whose scale is capped at 38.
		{opDiv, side{1, 0, "-1"}, side{2, 0, "32"}, "-0.0313"},
		{opDiv, side{1, 0, "1"}, side{2, 0, "32"}, "0.0313"},
		{opDiv, side{1, 0, "-2"}, side{1, 0, "3"}, "-0.6667"},
		{opDiv, side{1, 0, "-1"}, side{1, 0, "3"}, "-0.3333"},
		{opDiv, side{1, 0, "1"}, side{1, 0, "0"}, "NULL"},
		{opMul, side{38, 20, "-0.00000000000000000050"}, side{38, 20, "0.00000000000000000001"}, "-0.00000000000000000000000000000000000001"},
		{opMul, side{38, 20, "-0.00000000000000000049"}, side{38, 20, "0.00000000000000000001"}, "0.00000000000000000000000000000000000000"},
		{opMod, side{5, 2, "-7.50"}, side{5, 2, "2.00"}, "-1.50"},
		{opMod, side{5, 2, "7.50"}, side{5, 2, "0"}, "NULL"},
	} {
		name := fmt.Sprintf("%s %s %s", tc.a.v, arithNames[tc.op], tc.b.v)
		t.Run(name, func(t *testing.T) {
			a, b := decVec(t, tc.a.p, tc.a.s, tc.a.v), decVec(t, tc.b.p, tc.b.s, tc.b.v)
			got, err := decimalArith(tc.op, a, b, 1)
			if tc.want == "error" {
				if !errors.Is(err, ErrDecimalRange) {
					t.Fatalf("got %v, want ErrDecimalRange", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := "NULL"
			if !got.IsNull(0) {
				s = got.Decs[0].String(got.Type.Scale())
			}
			if s != tc.want {
				t.Errorf("got %s (%s), want %s", s, got.Type, tc.want)
			}
		})
	}
}

// TestDecimalArithFastPath checks, over values at the int64 and 18-digit
// boundaries and many type pairs, that every row decimalArith answers
// equals the 128-bit computation (decRow and the precision check), value,
// NULL and error alike.
func TestDecimalArithFastPath(t *testing.T) {
	edge := []int64{0, 1, -1, 7, -7, 99, -50, 12345, 999999999, -999999999, 1000000000,
		3037000499, 3037000500, -3037000500, 1e17, 1e18 - 1, -(1e18 - 1), 1e18, -1e18,
		math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, 1 << 62, -(1 << 62)}
	vals := make([]decimal.Int128, 0, len(edge)+2)
	for _, e := range edge {
		vals = append(vals, decimal.FromInt64(e))
	}
	big, _ := decimal.FromInt64(math.MaxInt64).Add(decimal.FromInt64(1))
	vals = append(vals, big, decimal.Pow10(20))
	types := []coldata.Type{coldata.DecimalOf(15, 2), coldata.DecimalOf(18, 0), coldata.DecimalOf(18, 18),
		coldata.DecimalOf(19, 0), coldata.DecimalOf(19, 4), coldata.DecimalOf(25, 10), coldata.DecimalOf(38, 0),
		coldata.DecimalOf(38, 2), coldata.DecimalOf(1, 0), coldata.DecimalOf(9, 9)}
	n := len(vals) * len(vals)
	for _, op := range []arithOp{opAdd, opSub, opMul, opDiv, opMod} {
		for _, ta := range types {
			for _, tb := range types {
				a, b := coldata.NewVec(ta, n), coldata.NewVec(tb, n)
				for i := range vals {
					for j := range vals {
						a.Decs[i*len(vals)+j], b.Decs[i*len(vals)+j] = vals[i], vals[j]
					}
				}
				rt := decimalResult(op, ta, tb)
				// Row by row, so that an error in one row does not hide
				// the others. A value with more digits than its column's
				// type is not a valid row (the kernels may rely on every
				// non-NULL row fitting its type), so such pairs are left out.
				for r := 0; r < n; r++ {
					if !a.Decs[r].Fits(ta.Precision()) || !b.Decs[r].Fits(tb.Precision()) {
						continue
					}
					ra, rb := coldata.Slice(a, r, r+1), coldata.Slice(b, r, r+1)
					got, err := decimalArith(op, ra, rb, 1)
					want, null, ok := decRow(op, a.Decs[r], b.Decs[r], ta.Scale(), tb.Scale(), rt.Scale())
					ok = ok && (null || want.Fits(rt.Precision()))
					switch {
					case !ok:
						if !errors.Is(err, ErrDecimalRange) {
							t.Fatalf("%s(%s) %s %s(%s): got %v, want ErrDecimalRange", a.Decs[r].String(ta.Scale()), ta, arithNames[op], b.Decs[r].String(tb.Scale()), tb, err)
						}
					case err != nil:
						t.Fatalf("%s %s %s: %v", a.Decs[r].String(ta.Scale()), arithNames[op], b.Decs[r].String(tb.Scale()), err)
					case null != got.IsNull(0) || (!null && got.Decs[0] != want):
						t.Fatalf("%s(%s) %s %s(%s) = %s, want %s (null %v)", a.Decs[r].String(ta.Scale()), ta, arithNames[op], b.Decs[r].String(tb.Scale()), tb,
							got.Decs[0].String(rt.Scale()), want.String(rt.Scale()), null)
					}
				}
			}
		}
	}
}

// BenchmarkDecimalArith multiplies and adds two DECIMAL(15,2) columns of
// 1M rows (TPC-H's money and discounts): "int64" values take the 64-bit
// path, "int128" values (above 2^63) the 128-bit one.
func BenchmarkDecimalArith(b *testing.B) {
	const n = 1 << 20
	for _, wide := range []bool{false, true} {
		for _, op := range []arithOp{opAdd, opSub, opMul} {
			name := fmt.Sprintf("%s/int64", arithNames[op])
			ta := coldata.DecimalOf(15, 2)
			if wide {
				name = fmt.Sprintf("%s/int128", arithNames[op])
				ta = coldata.DecimalOf(38, 2)
			}
			b.Run(name, func(b *testing.B) {
				x, y := coldata.NewVec(ta, n), coldata.NewVec(coldata.DecimalOf(15, 2), n)
				for i := 0; i < n; i++ {
					x.Decs[i] = decimal.FromInt64(int64(i%100000)*1013 + 90000)
					if wide {
						x.Decs[i], _ = x.Decs[i].Mul(decimal.Pow10(19))
					}
					y.Decs[i] = decimal.FromInt64(int64(i % 11))
				}
				b.SetBytes(int64(n) * 32)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := decimalArith(op, x, y, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestDecimalCompareConst checks the column-with-constant comparison loops
// against Int128.Cmp, around zero, the int64 limits and 38 digits.
func TestDecimalCompareConst(t *testing.T) {
	var vals []decimal.Int128
	for _, e := range []int64{0, 1, -1, 5, -5, 7, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		vals = append(vals, decimal.FromInt64(e))
	}
	big, _ := decimal.FromInt64(math.MaxInt64).Add(decimal.FromInt64(1))
	negBig, _ := big.Neg()
	max38, _ := decimal.Pow10(38).Sub(decimal.FromInt64(1))
	min38, _ := max38.Neg()
	vals = append(vals, big, negBig, max38, min38, decimal.Pow10(20))
	for op := cmpEQ; op <= cmpGE; op++ {
		for _, k := range vals {
			r := make([]byte, len(vals))
			cmpDecimalsVC(op, vals, k, r)
			for i, v := range vals {
				if want := b2u8(op.holds(v.Cmp(k))); r[i] != want {
					t.Errorf("%s %s %s: got %d, want %d", v.String(0), cmpNames[op], k.String(0), r[i], want)
				}
			}
		}
	}
}
