// Package decimal is gsql's exact decimal arithmetic: 128-bit two's
// complement integers that hold a DECIMAL(p,s) value scaled by 10^s, with
// overflow detection on every operation, and their text form.
//
// The layout of Int128 (low word, then high word, little-endian) is Arrow's
// decimal128, so columns convert without copying. Precision is at most 38
// digits, the most that 128 bits always hold.
package decimal

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// MaxPrecision is the largest DECIMAL precision.
const MaxPrecision = 38

// Int128 is a signed 128-bit integer.
type Int128 struct {
	Lo uint64
	Hi int64
}

// FromInt64 widens x.
func FromInt64(x int64) Int128 { return Int128{Lo: uint64(x), Hi: x >> 63} }

// IsNeg reports whether x < 0.
func (x Int128) IsNeg() bool { return x.Hi < 0 }

// Sign returns -1, 0 or 1.
func (x Int128) Sign() int {
	switch {
	case x.Hi < 0:
		return -1
	case x.Hi == 0 && x.Lo == 0:
		return 0
	}
	return 1
}

// Neg returns -x; ok is false for the most negative value.
func (x Int128) Neg() (Int128, bool) {
	lo, borrow := bits.Sub64(0, x.Lo, 0)
	hi := 0 - x.Hi - int64(borrow)
	r := Int128{lo, hi}
	return r, !(x.Hi == math.MinInt64 && x.Lo == 0)
}

// Abs returns |x| as an unsigned pair (exact for every value).
func (x Int128) abs() (lo, hi uint64) {
	if x.Hi >= 0 {
		return x.Lo, uint64(x.Hi)
	}
	lo, borrow := bits.Sub64(0, x.Lo, 0)
	hi, _ = bits.Sub64(0, uint64(x.Hi), borrow)
	return lo, hi
}

// Add returns x + y; ok is false on overflow.
func (x Int128) Add(y Int128) (Int128, bool) {
	lo, carry := bits.Add64(x.Lo, y.Lo, 0)
	hi := x.Hi + y.Hi + int64(carry)
	r := Int128{lo, hi}
	// Overflow when both operands have the same sign and the result differs.
	return r, !((x.Hi >= 0) == (y.Hi >= 0) && (r.Hi >= 0) != (x.Hi >= 0))
}

// Sub returns x - y; ok is false on overflow.
func (x Int128) Sub(y Int128) (Int128, bool) {
	lo, borrow := bits.Sub64(x.Lo, y.Lo, 0)
	hi := x.Hi - y.Hi - int64(borrow)
	r := Int128{lo, hi}
	return r, !((x.Hi >= 0) != (y.Hi >= 0) && (r.Hi >= 0) != (x.Hi >= 0))
}

// Mul returns x * y; ok is false on overflow.
func (x Int128) Mul(y Int128) (Int128, bool) {
	neg := x.IsNeg() != y.IsNeg()
	alo, ahi := x.abs()
	blo, bhi := y.abs()
	if ahi != 0 && bhi != 0 {
		return Int128{}, false
	}
	// (ahi*2^64 + alo) * (bhi*2^64 + blo) with one of ahi, bhi zero.
	h, l := bits.Mul64(alo, blo)
	c1h, c1 := bits.Mul64(ahi, blo)
	c2h, c2 := bits.Mul64(alo, bhi)
	if c1h != 0 || c2h != 0 {
		return Int128{}, false
	}
	h, carry := bits.Add64(h, c1, 0)
	if carry != 0 {
		return Int128{}, false
	}
	h, carry = bits.Add64(h, c2, 0)
	if carry != 0 {
		return Int128{}, false
	}
	return fromMagnitude(l, h, neg)
}

// fromMagnitude applies a sign to an unsigned magnitude; ok is false when
// it does not fit.
func fromMagnitude(lo, hi uint64, neg bool) (Int128, bool) {
	if hi > math.MaxInt64 {
		if neg && hi == 1<<63 && lo == 0 {
			return Int128{0, math.MinInt64}, true
		}
		return Int128{}, false
	}
	r := Int128{lo, int64(hi)}
	if neg {
		r, _ = r.Neg()
	}
	return r, true
}

// divMod10k divides the magnitude (hi, lo) by d, returning quotient and
// remainder.
func divSmall(lo, hi, d uint64) (qlo, qhi, rem uint64) {
	qhi, r := bits.Div64(0, hi, d)
	qlo, rem = bits.Div64(r, lo, d)
	return
}

// Pow10 returns 10^n for n in [0, 38].
func Pow10(n int) Int128 { return pow10[n] }

var pow10 = func() []Int128 {
	out := make([]Int128, MaxPrecision+1)
	out[0] = FromInt64(1)
	for i := 1; i <= MaxPrecision; i++ {
		out[i], _ = out[i-1].Mul(FromInt64(10))
	}
	return out
}()

// Cmp compares x and y.
func (x Int128) Cmp(y Int128) int {
	switch {
	case x.Hi < y.Hi:
		return -1
	case x.Hi > y.Hi:
		return 1
	case x.Lo < y.Lo:
		return -1
	case x.Lo > y.Lo:
		return 1
	}
	return 0
}

// Fits reports whether x has at most p digits.
func (x Int128) Fits(p int) bool {
	lo, hi := x.abs()
	lim := pow10[p]
	// |x| < 10^p
	return hi < uint64(lim.Hi) || (hi == uint64(lim.Hi) && lo < lim.Lo)
}

// Rescale changes the scale of x from s to t: multiplying (exact, ok false
// on overflow) or dividing with rounding half away from zero (MySQL).
func (x Int128) Rescale(s, t int) (Int128, bool) {
	switch {
	case t == s:
		return x, true
	case t > s:
		return x.Mul(pow10[t-s])
	}
	return x.DivRound(pow10[s-t])
}

// Trunc divides by 10^n toward zero.
func (x Int128) Trunc(n int) Int128 {
	if n == 0 {
		return x
	}
	q, _ := x.quo(pow10[n])
	return q
}

// quo divides x by y toward zero, returning the remainder's magnitude
// doubled comparison data: q, and whether |remainder|*2 >= |y|.
func (x Int128) quo(y Int128) (q Int128, half bool) {
	neg := x.IsNeg() != y.IsNeg()
	alo, ahi := x.abs()
	blo, bhi := y.abs()
	var qlo, qhi, rlo, rhi uint64
	if bhi == 0 {
		var r uint64
		qlo, qhi, r = divSmall(alo, ahi, blo)
		rlo = r
	} else {
		bq, br := new(big.Int), new(big.Int)
		a := new(big.Int).Lsh(new(big.Int).SetUint64(ahi), 64)
		a.Or(a, new(big.Int).SetUint64(alo))
		b := new(big.Int).Lsh(new(big.Int).SetUint64(bhi), 64)
		b.Or(b, new(big.Int).SetUint64(blo))
		bq.QuoRem(a, b, br)
		qlo, qhi = bq.Uint64(), new(big.Int).Rsh(bq, 64).Uint64()
		rlo, rhi = br.Uint64(), new(big.Int).Rsh(br, 64).Uint64()
	}
	// half: 2*|r| >= |y|
	r2lo, c := bits.Add64(rlo, rlo, 0)
	r2hi, c2 := bits.Add64(rhi, rhi, c)
	half = c2 != 0 || r2hi > bhi || (r2hi == bhi && r2lo >= blo)
	q, _ = fromMagnitude(qlo, qhi, neg)
	return q, half
}

// Quo divides x by y toward zero; ok is false when y is zero.
func (x Int128) Quo(y Int128) (Int128, bool) {
	if y.Sign() == 0 {
		return Int128{}, false
	}
	q, _ := x.quo(y)
	return q, true
}

// DivRound divides x by y rounding half away from zero; ok is false when
// y is zero.
func (x Int128) DivRound(y Int128) (Int128, bool) {
	if y.Sign() == 0 {
		return Int128{}, false
	}
	q, half := x.quo(y)
	if half {
		if x.IsNeg() != y.IsNeg() {
			q, _ = q.Sub(FromInt64(1))
		} else {
			q, _ = q.Add(FromInt64(1))
		}
	}
	return q, true
}

// Int64 returns x when it fits in an int64.
func (x Int128) Int64() (int64, bool) {
	if (x.Hi == 0 && x.Lo <= math.MaxInt64) || (x.Hi == -1 && x.Lo > math.MaxInt64) {
		return int64(x.Lo), true
	}
	return 0, false
}

// Float64 returns x / 10^scale as the nearest double.
func (x Int128) Float64(scale int) float64 {
	if v, ok := x.Int64(); ok && v < 1<<53 && v > -(1<<53) && scale <= 22 {
		return float64(v) / math.Pow10(scale)
	}
	f, _ := new(big.Rat).SetFrac(x.big(), pow10[scale].big()).Float64()
	return f
}

func (x Int128) big() *big.Int {
	lo, hi := x.abs()
	b := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	b.Or(b, new(big.Int).SetUint64(lo))
	if x.IsNeg() {
		b.Neg(b)
	}
	return b
}

// FromFloat64 returns f scaled by 10^scale, rounded half away from zero;
// ok is false for NaN, infinities and values outside 38 digits.
func FromFloat64(f float64, scale int) (Int128, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Int128{}, false
	}
	// The shortest decimal that reads back as f, as MySQL converts.
	r, ok := new(big.Rat).SetString(formatFloatExact(f))
	if !ok {
		return Int128{}, false
	}
	return fromRat(r, scale)
}

// formatFloatExact is the shortest text that reads back as f (the value
// MySQL converts a DOUBLE to DECIMAL from: 1.005 is 1.005).
func formatFloatExact(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func fromRat(r *big.Rat, scale int) (Int128, bool) {
	num := new(big.Int).Mul(r.Num(), pow10[scale].big())
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	m.Abs(m).Lsh(m, 1)
	if m.Cmp(r.Denom()) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return fromBig(q)
}

func fromBig(b *big.Int) (Int128, bool) {
	if b.BitLen() > 127 {
		return Int128{}, false
	}
	a := new(big.Int).Abs(b)
	lo := a.Uint64()
	hi := new(big.Int).Rsh(a, 64).Uint64()
	return fromMagnitude(lo, hi, b.Sign() < 0)
}

// Parse reads decimal text ("-12.345", "1e3", " 7 ") as a value of the
// given scale, rounding extra digits half away from zero; ok is false for
// text that is not a number or does not fit in 38 digits.
func Parse(s string, scale int) (Int128, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Int128{}, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/xXpP_") {
		return Int128{}, false
	}
	return fromRat(r, scale)
}

// Append appends x / 10^scale in plain decimal notation with exactly scale
// digits after the point (MySQL's DECIMAL output).
func (x Int128) Append(b []byte, scale int) []byte {
	lo, hi := x.abs()
	var digits [40]byte
	n := len(digits)
	for hi != 0 || lo != 0 {
		var r uint64
		lo, hi, r = divSmall(lo, hi, 10)
		n--
		digits[n] = byte('0' + r)
	}
	d := digits[n:]
	if x.IsNeg() {
		b = append(b, '-')
	}
	if len(d) <= scale {
		b = append(b, '0')
		if scale > 0 {
			b = append(b, '.')
			for k := len(d); k < scale; k++ {
				b = append(b, '0')
			}
			b = append(b, d...)
		}
		return b
	}
	b = append(b, d[:len(d)-scale]...)
	if scale > 0 {
		b = append(b, '.')
		b = append(b, d[len(d)-scale:]...)
	}
	return b
}

// String formats x with the given scale.
func (x Int128) String(scale int) string { return string(x.Append(nil, scale)) }

// DivScaled returns x * 10^shift / y rounded half away from zero, the
// quotient of two decimals at a chosen scale; ok is false when y is zero
// or the quotient does not fit in 128 bits. The product may pass 128
// bits (a 30-digit dividend widened by 14 digits): the wide case divides
// exactly in arbitrary precision.
func (x Int128) DivScaled(y Int128, shift int) (Int128, bool) {
	if y.Sign() == 0 || shift < 0 || shift >= len(pow10) {
		return Int128{}, false
	}
	if num, ok := x.Mul(pow10[shift]); ok {
		return num.DivRound(y)
	}
	return fromRat(new(big.Rat).SetFrac(new(big.Int).Mul(x.big(), pow10[shift].big()), y.big()), 0)
}
