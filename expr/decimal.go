package expr

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/errkind"
)

// DECIMAL(p,s), MySQL's rules:
//
//   - Arithmetic is exact when the operands are DECIMAL, BIGINT or BOOLEAN
//     (a BIGINT is DECIMAL(19,0)); a DOUBLE or string operand makes it
//     DOUBLE. + and -: scale max(s1,s2), max(p1-s1, p2-s2)+1 integer digits;
//     *: scale s1+s2, precision p1+p2; /: scale s1+4 (MySQL's
//     div_precision_increment), (p1-s1)+s2 integer digits, rounded half away
//     from zero, NULL when dividing by zero; %: scale max(s1,s2). Precision
//     is capped at 38; a result with more digits than its type holds is an
//     error (ErrOutOfRange), never a wrapped or clamped value.
//   - Comparisons between decimals (and integers) are exact.
//   - CAST to DECIMAL(p,s) rounds half away from zero to s digits; a value
//     with more than p-s integer digits is an error. Text that is not a
//     number converts to 0, as CAST('abc' AS SIGNED) does.
//   - SUM of DECIMAL(p,s) is DECIMAL(38,s), AVG DECIMAL(38,s+4).

// maxRoundScale is the most digits ROUND and TRUNCATE keep after the point
// (MySQL's DECIMAL_MAX_SCALE).
const maxRoundScale = 30

// ErrDecimalRange is a DECIMAL result with more digits than its type.
var ErrDecimalRange = errkind.New(errkind.OutOfRange, "DECIMAL value is out of range")

// errDecimalRange reports a decimal result that does not fit its type.
func errDecimalRange(t coldata.Type) error {
	return fmt.Errorf("%w: the result does not fit %s", ErrDecimalRange, t)
}

// asDecimal is the decimal type a value of t takes part in decimal
// arithmetic as; ok is false for types that make arithmetic DOUBLE.
func asDecimal(t coldata.Type) (coldata.Type, bool) {
	switch {
	case t.IsDecimal():
		return t, true
	case t == coldata.Int64:
		return coldata.DecimalOf(19, 0), true
	case t == coldata.Bool:
		return coldata.DecimalOf(1, 0), true
	case t == coldata.Null:
		return coldata.DecimalOf(1, 0), true
	}
	return 0, false
}

// decimalArgs reports whether arithmetic over args is decimal (some
// argument is DECIMAL and none is DOUBLE or text), and their decimal types.
func decimalArgs(args []coldata.Type) ([]coldata.Type, bool) {
	any := false
	out := make([]coldata.Type, len(args))
	for i, t := range args {
		d, ok := asDecimal(t)
		if !ok {
			return nil, false
		}
		out[i] = d
		any = any || t.IsDecimal()
	}
	return out, any
}

func capDecimal(intDigits, scale int) coldata.Type {
	if scale > decimal.MaxPrecision {
		scale = decimal.MaxPrecision
	}
	p := intDigits + scale
	if p > decimal.MaxPrecision {
		p = decimal.MaxPrecision
	}
	if p < 1 {
		p = 1
	}
	if scale > p {
		scale = p
	}
	return coldata.DecimalOf(p, scale)
}

// decimalResult is the type of a decimal operator over decimal types a, b.
func decimalResult(op arithOp, a, b coldata.Type) coldata.Type {
	pa, sa, pb, sb := a.Precision(), a.Scale(), b.Precision(), b.Scale()
	switch op {
	case opAdd, opSub:
		return capDecimal(max(pa-sa, pb-sb)+1, max(sa, sb))
	case opMul:
		return capDecimal(pa-sa+pb-sb, sa+sb)
	case opDiv:
		return capDecimal(pa-sa+sb, sa+4)
	case opMod:
		return capDecimal(max(pa-sa, pb-sb), max(sa, sb))
	}
	return coldata.Int64
}

// divCheck types /: DECIMAL when no operand is DOUBLE or text (MySQL
// divides integers exactly: 7/2 is 3.5000), else DOUBLE.
func divCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	exact := false
	want := make([]coldata.Type, len(args))
	for i, t := range args {
		d, ok := asDecimal(t)
		if !ok {
			return Fixed(coldata.Float64, coldata.Float64, coldata.Float64)(args)
		}
		want[i] = d
		exact = exact || t != coldata.Null
	}
	if !exact {
		return Fixed(coldata.Float64, coldata.Float64, coldata.Float64)(args)
	}
	return decimalResult(opDiv, want[0], want[1]), want, nil
}

// decimalCheck wraps the Check rule of an arithmetic operator: decimal
// operands keep their own types and give decimalResult.
func decimalCheck(op arithOp, next func([]coldata.Type) (coldata.Type, []coldata.Type, error)) func([]coldata.Type) (coldata.Type, []coldata.Type, error) {
	return func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		if want, ok := decimalArgs(args); ok {
			if len(args) == 1 {
				return want[0], want, nil
			}
			return decimalResult(op, want[0], want[1]), want, nil
		}
		return next(args)
	}
}

// decimalArith evaluates a binary decimal operator. Rows whose operands
// and result fit in 64 bits take decFast's int64 path; the rest, and any
// row where that path would overflow, take decRow's 128-bit path. Both
// give the same value, so the fast path changes speed only.
func decimalArith(op arithOp, a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	rt := decimalResult(op, a.Type, b.Type)
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(rt, nil, n), nil
	}
	rows := n
	if a.Const && b.Const {
		rows = 1
	}
	nulls := CombineNulls([]*coldata.Vec{a, b}, rows)
	ma, mb := rowMask(a), rowMask(b)
	sa, sb, sr := a.Type.Scale(), b.Type.Scale(), rt.Scale()
	p := rt.Precision()
	f := newDecFast(op, sa, sb, sr, p)
	if out := f.vec(a, b, rt, rows); out != nil {
		out.Nulls = nulls
		zeroNullRows(out.Decs, nulls)
		if rows == 1 && n != 1 {
			return constOf(out, n), nil
		}
		return out, nil
	}
	out := coldata.NewVec(rt, rows)
	for i := 0; i < rows; i++ {
		if !validAt(nulls, i) {
			continue
		}
		x, y := a.Decs[i&ma], b.Decs[i&mb]
		if r, ok := f.eval(x, y); ok {
			out.Decs[i] = r
			continue
		}
		r, null, ok := decRow(op, x, y, sa, sb, sr)
		if null {
			if nulls == nil {
				nulls = coldata.NewValidBitmap(rows)
			}
			coldata.ClearBit(nulls, i)
			continue
		}
		if !ok || !r.Fits(p) {
			return nil, errDecimalRange(rt)
		}
		out.Decs[i] = r
	}
	out.Nulls = nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

// decimalIntDiv is DIV over decimals: the exact quotient truncated toward
// zero, NULL for a zero divisor, ErrOutOfRange outside BIGINT.
func decimalIntDiv(a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(coldata.Int64, nil, n), nil
	}
	rows := n
	if a.Const && b.Const {
		rows = 1
	}
	nulls := CombineNulls([]*coldata.Vec{a, b}, rows)
	ma, mb := rowMask(a), rowMask(b)
	sa, sb := a.Type.Scale(), b.Type.Scale()
	s := max(sa, sb)
	out := coldata.NewVec(coldata.Int64, rows)
	for i := 0; i < rows; i++ {
		if !validAt(nulls, i) {
			continue
		}
		x, y := a.Decs[i&ma], b.Decs[i&mb]
		if y.Sign() == 0 {
			if nulls == nil {
				nulls = coldata.NewValidBitmap(rows)
			}
			coldata.ClearBit(nulls, i)
			continue
		}
		var q int64
		x, okx := x.Rescale(sa, s)
		y, oky := y.Rescale(sb, s)
		r, ok := x.Quo(y)
		if ok && okx && oky {
			q, ok = r.Int64()
		}
		if !ok || !okx || !oky {
			return nil, fmt.Errorf("%w: %s DIV %s", ErrOutOfRange, a.Type, b.Type)
		}
		out.Ints[i] = q
	}
	out.Nulls = nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

// decRow computes one row of a binary decimal operator in 128 bits: x of
// scale sa with y of scale sb, the result at scale sr. null is true for a
// division or modulo by zero; ok is false when an intermediate overflows.
// The caller checks the result's precision.
func decRow(op arithOp, x, y decimal.Int128, sa, sb, sr int) (r decimal.Int128, null, ok bool) {
	ok = true
	switch op {
	case opAdd, opSub, opMod:
		s := max(sa, sb)
		if x, ok = x.Rescale(sa, s); ok {
			y, ok = y.Rescale(sb, s)
		}
		if !ok {
			break
		}
		switch op {
		case opAdd:
			r, ok = x.Add(y)
		case opSub:
			r, ok = x.Sub(y)
		default:
			if y.Sign() == 0 {
				return r, true, true
			}
			r, ok = decMod(x, y)
		}
		if ok {
			r, ok = r.Rescale(s, sr)
		}
	case opMul:
		if r, ok = x.Mul(y); ok {
			r, ok = r.Rescale(sa+sb, sr)
		}
	case opDiv:
		if y.Sign() == 0 {
			return r, true, true
		}
		// x/10^sa / (y/10^sb) * 10^sr = x * 10^(sr+sb-sa) / y
		shift := sr + sb - sa
		if shift >= 0 {
			r, ok = x.DivScaled(y, shift)
			break
		}
		den := y
		if den, ok = y.Mul(decimal.Pow10(-shift)); ok {
			r, ok = x.DivRound(den)
		}
	}
	return r, false, ok
}

// decFast is the int64 path of +, - and * for one operator and operand
// scales, its scale factors worked out once. eval answers ok only when
// both operands fit in an int64 and no step overflows one; the value is
// then exact, so equal to decRow's.
type decFast struct {
	op     arithOp
	on     bool  // the operator and scales have a fast path
	fa, fb int64 // + and -: factors bringing x and y to the result scale
	lim    int64 // the result's bound 10^p; 0: any int64 fits (p >= 19)
}

func newDecFast(op arithOp, sa, sb, sr, p int) decFast {
	f := decFast{op: op}
	if p <= maxInt64Digits {
		f.lim = pow10Int64[p]
	}
	switch op {
	case opAdd, opSub:
		s := max(sa, sb)
		if s != sr || s-sa > maxInt64Digits || s-sb > maxInt64Digits {
			return f
		}
		f.fa, f.fb = pow10Int64[s-sa], pow10Int64[s-sb]
		f.on = true
	case opMul:
		f.on = sa+sb == sr
	}
	return f
}

// maxInt64Digits is the most decimal digits every int64 of that many
// digits holds: 10^18 < 2^63 < 10^19.
const maxInt64Digits = 18

// pow10Int64[n] is 10^n.
var pow10Int64 = func() (t [maxInt64Digits + 1]int64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return t
}()

// eval computes x op y when the int64 path can.
func (f *decFast) eval(x, y decimal.Int128) (decimal.Int128, bool) {
	if !f.on {
		return decimal.Int128{}, false
	}
	xs, xok := smallDec(x)
	ys, yok := smallDec(y)
	if !xok || !yok {
		return decimal.Int128{}, false
	}
	var r int64
	ok := true
	switch f.op {
	case opAdd, opSub:
		if f.fa != 1 {
			xs, ok = mulInt64(xs, f.fa)
		}
		if ok && f.fb != 1 {
			ys, ok = mulInt64(ys, f.fb)
		}
		if !ok {
			return decimal.Int128{}, false
		}
		if f.op == opSub {
			r = xs - ys
			ok = (xs^ys)&(xs^r) >= 0 // no overflow: the operands' signs agree or r keeps x's
		} else {
			r = xs + ys
			ok = (xs^r)&(ys^r) >= 0 // no overflow: r has the sign of an operand
		}
	default:
		r, ok = mulInt64(xs, ys)
	}
	if !ok || (f.lim != 0 && (r >= f.lim || r <= -f.lim)) {
		return decimal.Int128{}, false
	}
	return decimal.FromInt64(r), true
}

// vec computes the whole vector of rows (a and b each a vector of rows
// or a constant) in int64 when a bound on the operands shows that no row
// can overflow an int64 or the result's precision: every row is then
// exact, so equal to decRow's. It returns nil when the operator has no
// fast path or the bound is too large (a row under NULL counts too; its
// result is garbage the caller clears).
//
// A constant's bound is its magnitude. A column of DECIMAL(p,s) with p
// at most 18 holds values below 10^p, an int64, in every non-NULL row
// (every kernel checks its results against its type's precision): when
// those bounds alone show the result fits, the loop reads the column
// without looking at its values (a NULL row may hold anything; its
// result is garbage the caller clears). A wider column (an intermediate
// such as 1 - l_discount, DECIMAL(22,2)) is bounded by the OR of its
// values' magnitudes, gathered while computing, in one pass over the
// operands: a batch that fails the bound is computed again row by row.
func (f *decFast) vec(a, b *coldata.Vec, rt coldata.Type, rows int) *coldata.Vec {
	if !f.on || rows < 1 {
		return nil
	}
	xs, ys := a.Decs[:rowsOf(a, rows)], b.Decs[:rowsOf(b, rows)]
	// Bounds known before reading the rows: a constant's magnitude, a
	// narrow column's type. The loop bounds the other columns.
	ua, okA := typeBound(a)
	ub, okB := typeBound(b)
	var bad uint64
	if a.Const {
		ua, bad = magnitude(xs[0])
	}
	if b.Const {
		var bb uint64
		ub, bb = magnitude(ys[0])
		bad |= bb
	}
	if bad != 0 {
		return nil
	}
	scanA, scanB := !a.Const && !okA, !b.Const && !okB
	if (a.Const || okA) && (b.Const || okB) && !f.fits(ua, ub) {
		// The types' bounds are too loose (DECIMAL(15,2) * DECIMAL(15,2)):
		// bound the columns by their values.
		scanA, scanB = !a.Const, !b.Const
		okA, okB = false, false
	}
	out := coldata.AllocVec(rt, rows)
	r := out.Decs
	switch {
	case a.Const && b.Const:
		r[0] = f.one(int64(xs[0].Lo), int64(ys[0].Lo))
	case a.Const:
		var u uint64
		u, bad = f.constVec(r, int64(xs[0].Lo), ys[:len(r)], scanB, false)
		if scanB {
			ub = u
		}
	case b.Const:
		var u uint64
		u, bad = f.constVec(r, int64(ys[0].Lo), xs[:len(r)], scanA, true)
		if scanA {
			ua = u
		}
	default:
		var u, v uint64
		u, v, bad = f.vecVec(r, xs[:len(r)], ys[:len(r)], scanA, scanB)
		if scanA {
			ua = u
		}
		if scanB {
			ub = v
		}
	}
	if bad == 0 && !f.fits(ua, ub) && (okA && scanB || okB && scanA) {
		// A narrow column's type bound is too loose beside the values of
		// a wide one: bound it by its values too.
		var b2 uint64
		if okA && !a.Const {
			ua, b2 = magnitudes(xs[:len(r)])
			bad |= b2
		}
		if okB && !b.Const {
			ub, b2 = magnitudes(ys[:len(r)])
			bad |= b2
		}
	}
	if bad != 0 || !f.fits(ua, ub) {
		coldata.Recycle(out)
		return nil
	}
	return out
}

// magnitudes returns the OR of the magnitudes of xs and bad, non-zero
// when some value is not an int64.
func magnitudes(xs []decimal.Int128) (u, bad uint64) {
	for _, x := range xs {
		m, b := looseMagnitude(x)
		u, bad = u|m, bad|b
	}
	return u + 1, bad
}

// typeBound is the largest magnitude a non-NULL row of column v can hold
// when its type proves it an int64: 10^p - 1 for DECIMAL(p,s), p <= 18.
func typeBound(v *coldata.Vec) (uint64, bool) {
	p := v.Type.Precision()
	if v.Const || p > maxInt64Digits {
		return 0, false
	}
	return uint64(pow10Int64[p] - 1), true
}

// fits reports whether every result over operands of magnitudes at most
// ua and ub fits in an int64 and the result's precision.
func (f *decFast) fits(ua, ub uint64) bool {
	limit := uint64(1) << 63
	if f.lim != 0 {
		limit = uint64(f.lim)
	}
	if f.op == opMul {
		hi, lo := bits.Mul64(ua, ub)
		return hi == 0 && lo < limit
	}
	ha, la := bits.Mul64(ua, uint64(f.fa))
	hb, lb := bits.Mul64(ub, uint64(f.fb))
	sum, carry := bits.Add64(la, lb, 0)
	return ha == 0 && hb == 0 && carry == 0 && sum < limit
}

// magnitude returns |x| when x is an int64 (1<<63 for math.MinInt64) and
// a non-zero bad when it is not.
func magnitude(x decimal.Int128) (abs, bad uint64) {
	lo := int64(x.Lo)
	s := lo >> 63
	return uint64((lo ^ s) - s), uint64(x.Hi ^ s)
}

// looseMagnitude is magnitude less one for a negative x (|x| - 1 there,
// one instruction fewer): the loops OR it over their rows and add one to
// the result, a bound on every |x|.
func looseMagnitude(x decimal.Int128) (m, bad uint64) {
	lo := int64(x.Lo)
	s := lo >> 63
	return uint64(lo ^ s), uint64(x.Hi ^ s)
}

// constVec computes r[i] = c op vs[i] (or vs[i] op c when vecLeft),
// wrapping on overflow. When scan is set it returns the OR of the
// magnitudes of vs (a bound on them) and bad, non-zero when some vs[i]
// is not an int64; else it reads only the low words.
func (f *decFast) constVec(r []decimal.Int128, c int64, vs []decimal.Int128, scan, vecLeft bool) (acc, bad uint64) {
	// r[i] = c*fc + v*fv, the factors folding in the operator, the scales
	// and the side of the constant.
	var fc, fv int64
	switch f.op {
	case opAdd:
		fc, fv = f.fa, f.fb
		if vecLeft {
			fc, fv = fv, fc
		}
	case opSub:
		fc, fv = f.fa, -f.fb
		if vecLeft {
			fc, fv = -f.fb, f.fa
		}
	default:
		if scan {
			for i, v := range vs {
				m, b := looseMagnitude(v)
				acc, bad = acc|m, bad|b
				r[i] = fromInt64(c * int64(v.Lo))
			}
		} else {
			for i, v := range vs {
				r[i] = fromInt64(c * int64(v.Lo))
			}
		}
		return acc + 1, bad
	}
	c *= fc
	if scan {
		for i, v := range vs {
			m, b := looseMagnitude(v)
			acc, bad = acc|m, bad|b
			r[i] = fromInt64(c + int64(v.Lo)*fv)
		}
	} else {
		for i, v := range vs {
			r[i] = fromInt64(c + int64(v.Lo)*fv)
		}
	}
	return acc + 1, bad
}

// vecVec computes r[i] = xs[i] op ys[i], wrapping on overflow, and
// returns bounds on the magnitudes of xs (when scanX) and ys (when
// scanY) and bad (non-zero when some operand so bounded is not an
// int64).
func (f *decFast) vecVec(r, xs, ys []decimal.Int128, scanX, scanY bool) (ua, ub, bad uint64) {
	ys = ys[:len(xs)]
	r = r[:len(xs)]
	if f.op == opMul {
		switch {
		case scanX && scanY:
			for i, x := range xs {
				y := ys[i]
				mx, bx := looseMagnitude(x)
				my, by := looseMagnitude(y)
				ua, ub, bad = ua|mx, ub|my, bad|bx|by
				r[i] = fromInt64(int64(x.Lo) * int64(y.Lo))
			}
		case scanX:
			ua, bad = mulScan(r, xs, ys)
		case scanY:
			ub, bad = mulScan(r, ys, xs)
		default:
			for i, x := range xs {
				r[i] = fromInt64(int64(x.Lo) * int64(ys[i].Lo))
			}
		}
		return ua + 1, ub + 1, bad
	}
	fa, fb := f.fa, f.fb
	if f.op == opSub {
		fb = -fb
	}
	switch {
	case scanX && scanY:
		for i, x := range xs {
			y := ys[i]
			mx, bx := looseMagnitude(x)
			my, by := looseMagnitude(y)
			ua, ub, bad = ua|mx, ub|my, bad|bx|by
			r[i] = fromInt64(int64(x.Lo)*fa + int64(y.Lo)*fb)
		}
	case scanX:
		ua, bad = addScan(r, xs, ys, fa, fb)
	case scanY:
		ub, bad = addScan(r, ys, xs, fb, fa)
	default:
		for i, x := range xs {
			r[i] = fromInt64(int64(x.Lo)*fa + int64(ys[i].Lo)*fb)
		}
	}
	return ua + 1, ub + 1, bad
}

// mulScan is r[i] = xs[i] * ys[i] bounding only xs (ys is bounded by its
// type); it returns the OR of xs's magnitudes and bad.
func mulScan(r, xs, ys []decimal.Int128) (u, bad uint64) {
	ys = ys[:len(xs)]
	r = r[:len(xs)]
	for i, x := range xs {
		m, b := looseMagnitude(x)
		u, bad = u|m, bad|b
		r[i] = fromInt64(int64(x.Lo) * int64(ys[i].Lo))
	}
	return u + 1, bad
}

// addScan is r[i] = xs[i]*fx + ys[i]*fy bounding only xs.
func addScan(r, xs, ys []decimal.Int128, fx, fy int64) (u, bad uint64) {
	ys = ys[:len(xs)]
	r = r[:len(xs)]
	for i, x := range xs {
		m, b := looseMagnitude(x)
		u, bad = u|m, bad|b
		r[i] = fromInt64(int64(x.Lo)*fx + int64(ys[i].Lo)*fy)
	}
	return u + 1, bad
}

// one is vec's operation on one pair of operands known to fit.
func (f *decFast) one(x, y int64) decimal.Int128 {
	switch f.op {
	case opAdd:
		return fromInt64(x*f.fa + y*f.fb)
	case opSub:
		return fromInt64(x*f.fa - y*f.fb)
	}
	return fromInt64(x * y)
}

// fromInt64 is decimal.FromInt64, written out so that the loops above
// inline it.
func fromInt64(x int64) decimal.Int128 { return decimal.Int128{Lo: uint64(x), Hi: x >> 63} }

// rowsOf is the number of stored rows of v: one for a constant.
func rowsOf(v *coldata.Vec, rows int) int {
	if v.Const {
		return 1
	}
	return rows
}

// zeroNullRows sets the rows of r that nulls marks NULL to zero, as the
// row-at-a-time path leaves them.
func zeroNullRows(r []decimal.Int128, nulls []byte) {
	if nulls == nil {
		return
	}
	for j, m := range nulls {
		if m == 0xff {
			continue
		}
		for k := j << 3; k < min(j<<3+8, len(r)); k++ {
			if m>>(k&7)&1 == 0 {
				r[k] = decimal.Int128{}
			}
		}
	}
}

// smallDec returns x as an int64 when it is one (its high word only
// extends the low word's sign).
func smallDec(x decimal.Int128) (int64, bool) {
	return int64(x.Lo), x.Hi == int64(x.Lo)>>63
}

// mulInt64 returns x*y; ok is false when the product is not an int64
// greater than math.MinInt64.
func mulInt64(x, y int64) (int64, bool) {
	hi, lo := bits.Mul64(absUint64(x), absUint64(y))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if (x < 0) != (y < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

// absUint64 is |x| (exact for math.MinInt64).
func absUint64(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// decMod is x - trunc(x/y)*y (the sign of x), for x, y of one scale.
func decMod(x, y decimal.Int128) (decimal.Int128, bool) {
	q, ok := x.Quo(y)
	if !ok {
		return decimal.Int128{}, false
	}
	m, ok := q.Mul(y)
	if !ok {
		return decimal.Int128{}, false
	}
	return x.Sub(m)
}

func negateDecimal(a *coldata.Vec, n int) (*coldata.Vec, error) {
	return mapDecimal(a, n, a.Type, func(x decimal.Int128) (decimal.Int128, bool) { return x.Neg() })
}

// mapDecimal applies fn to each non-NULL row; ok false is an overflow.
func mapDecimal(a *coldata.Vec, n int, rt coldata.Type, fn func(decimal.Int128) (decimal.Int128, bool)) (*coldata.Vec, error) {
	if isConstNull(a) {
		return coldata.NewConst(rt, nil, n), nil
	}
	rows := n
	if a.Const {
		rows = 1
	}
	out := coldata.NewVec(rt, rows)
	for i := 0; i < rows; i++ {
		if !validAt(a.Nulls, i) {
			continue
		}
		r, ok := fn(a.Decs[i])
		if !ok || !r.Fits(rt.Precision()) {
			return nil, errDecimalRange(rt)
		}
		out.Decs[i] = r
	}
	withNulls(out, a, rows)
	if a.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

// castDecimal converts between DECIMAL and the other numeric and text
// types (v or t is a decimal; v is not a NULL constant; rows rows).
func castDecimal(v *coldata.Vec, t coldata.Type, rows int) (*coldata.Vec, error) {
	src := v.Type
	if src.IsDecimal() && !t.IsDecimal() {
		sc := src.Scale()
		switch t {
		case coldata.String:
			out := &coldata.Vec{Type: coldata.String, Len: rows, Offsets: make([]int32, rows+1)}
			var buf []byte
			for i := 0; i < rows; i++ {
				if validAt(v.Nulls, i) {
					buf = v.Decs[i].Append(buf, sc)
					if err := checkStringSize(len(buf)); err != nil {
						return nil, err
					}
				}
				out.Offsets[i+1] = int32(len(buf))
			}
			out.Bytes = buf
			return withNulls(out, v, rows), nil
		case coldata.Float64:
			out := coldata.NewVec(t, rows)
			for i := 0; i < rows; i++ {
				out.Floats[i] = v.Decs[i].Float64(sc)
			}
			return withNulls(out, v, rows), nil
		case coldata.Int64, coldata.Bool:
			out := coldata.NewVec(coldata.Int64, rows)
			for i := 0; i < rows; i++ {
				if !validAt(v.Nulls, i) {
					continue
				}
				r, _ := v.Decs[i].Rescale(sc, 0)
				x, ok := r.Int64()
				if !ok {
					return nil, fmt.Errorf("%w: %s does not fit BIGINT", ErrOutOfRange, v.Decs[i].String(sc))
				}
				out.Ints[i] = x
			}
			withNulls(out, v, rows)
			if t == coldata.Bool {
				return castVec(out, t, rows)
			}
			return out, nil
		}
		return nil, fmt.Errorf("cannot convert %s to %s", src, t)
	}
	// To DECIMAL(p,s).
	p, s := t.Precision(), t.Scale()
	if src.IsDecimal() && src.Scale() == s && src.Precision() <= p {
		// Only the precision widens (comparisons and arithmetic unify to
		// DECIMAL(38,s)): every value fits as it is, so the data is shared.
		out := *v
		out.Type = t
		return &out, nil
	}
	out := coldata.NewVec(t, rows)
	if src == coldata.Int64 && s == 0 && p >= 19 {
		// Every BIGINT fits DECIMAL(19,0) and wider: the words are the
		// value sign-extended (AVG of an integer column casts each row).
		for i, x := range v.Ints[:rows] {
			out.Decs[i] = decimal.FromInt64(x)
		}
		return withNulls(out, v, rows), nil
	}
	for i := 0; i < rows; i++ {
		if !validAt(v.Nulls, i) {
			continue
		}
		var r decimal.Int128
		ok := true
		switch {
		case src.IsDecimal():
			r, ok = v.Decs[i].Rescale(src.Scale(), s)
		case src == coldata.Int64:
			r, ok = decimal.FromInt64(v.Ints[i]).Rescale(0, s)
		case src == coldata.Bool:
			r, ok = decimal.FromInt64(int64(v.Bools[i])).Rescale(0, s)
		case src == coldata.Float64:
			r, ok = decimal.FromFloat64(v.Floats[i], s)
		case src == coldata.String:
			var parsed bool
			if r, parsed = decimal.Parse(string(numericPrefix(v.Str(i))), s); !parsed {
				r = decimal.Int128{}
			}
		default:
			return nil, fmt.Errorf("cannot convert %s to %s", src, t)
		}
		if !ok || !r.Fits(p) {
			return nil, errDecimalRange(t)
		}
		out.Decs[i] = r
	}
	return withNulls(out, v, rows), nil
}

// numericPrefix is the longest prefix of s that reads as a number (the
// rule of CAST('1.5abc' AS DECIMAL) = 1.5).
func numericPrefix(s []byte) []byte {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, true
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, true
		}
	}
	if !digits {
		return nil
	}
	if k := exponentEnd(s, i); k > i {
		// Exponents past two digits are not part of a DECIMAL's text.
		j := i + 1
		if s[j] == '+' || s[j] == '-' {
			j++
		}
		if e, err := strconv.Atoi(string(s[j:k])); err == nil && e < 100 && e > -100 {
			i = k
		}
	}
	return s[start:i]
}

func withNulls(out, v *coldata.Vec, rows int) *coldata.Vec {
	if v.Nulls != nil {
		out.Nulls = v.Nulls[:coldata.BitmapLen(rows)]
	}
	return out
}

// decimalCompareType is the common type decimals (and integers) compare
// as: the largest scale and the most integer digits, or 38 digits with the
// largest scale when those do not fit together.
func decimalCompareType(args []coldata.Type) (coldata.Type, bool) {
	want, ok := decimalArgs(args)
	if !ok {
		return 0, false
	}
	intd, s := 0, 0
	for i, t := range want {
		s = max(s, t.Scale())
		if args[i] != coldata.Null {
			intd = max(intd, t.Precision()-t.Scale())
		}
	}
	if intd+s <= decimal.MaxPrecision {
		// Every argument fits unchanged: a DECIMAL(15,2) column against
		// 0.02 compares as DECIMAL(15,2), with no widening cast of the
		// column on every row (40 ns a row on the CPU).
		return coldata.DecimalOf(max(intd+s, 1), s), true
	}
	return coldata.DecimalOf(decimal.MaxPrecision, s), true
}

// unifyDecimal is the type CASE/COALESCE/UNION give decimals and integers:
// enough integer digits and scale for every argument.
func unifyDecimal(types []coldata.Type) (coldata.Type, bool) {
	want, ok := decimalArgs(types)
	if !ok {
		return 0, false
	}
	intd, s := 0, 0
	for i, t := range want {
		if types[i] == coldata.Null {
			continue
		}
		intd = max(intd, t.Precision()-t.Scale())
		s = max(s, t.Scale())
	}
	return capDecimal(intd, s), true
}

// DecimalSumType and DecimalAvgType are the result types of SUM and AVG
// over DECIMAL t.
func DecimalSumType(t coldata.Type) coldata.Type {
	return coldata.DecimalOf(decimal.MaxPrecision, t.Scale())
}

// DecimalAvgType is AVG's result type over DECIMAL t.
func DecimalAvgType(t coldata.Type) coldata.Type {
	return coldata.DecimalOf(decimal.MaxPrecision, min(decimal.MaxPrecision, t.Scale()+4))
}

func init() {
	Register(&Function{Name: "cast_to_decimal", MinArgs: 3, MaxArgs: 3,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.DecimalOf(decimal.MaxPrecision, 0), []coldata.Type{args[0], coldata.Int64, coldata.Int64}, nil
		},
		Bind: func(args []Expr) (coldata.Type, error) {
			p, okp := literalInt(args[1])
			s, oks := literalInt(args[2])
			if !okp || !oks {
				return 0, fmt.Errorf("the precision and scale must be constants")
			}
			if p < 1 || p > decimal.MaxPrecision || s < 0 || s > p {
				return 0, fmt.Errorf("DECIMAL(%d,%d) is not a valid type (precision 1 to 38, scale 0 to the precision)", p, s)
			}
			return coldata.DecimalOf(int(p), int(s)), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			t := coldata.DecimalOf(int(args[1].Int(0)), int(args[2].Int(0)))
			return castVec(args[0], t, n)
		}})
}

// DecimalCastArgs are the arguments of cast_to_decimal converting e to t.
func DecimalCastArgs(e Expr, t coldata.Type) []Expr {
	return []Expr{e, &Literal{Value: int64(t.Precision()), T: coldata.Int64}, &Literal{Value: int64(t.Scale()), T: coldata.Int64}}
}

func literalInt(e Expr) (int64, bool) {
	l, ok := e.(*Literal)
	if !ok {
		return 0, false
	}
	v, ok := l.Value.(int64)
	return v, ok
}

// roundedType is the type of ROUND (or TRUNCATE, which has no carry) of
// DECIMAL t to d digits after the point: MySQL keeps the integer digits,
// adds one for a carry, and takes d digits of scale, 0 to 30 (MySQL's
// largest scale): ROUND(2.5, 3) is 2.500.
func roundedType(t coldata.Type, d int64, trunc bool) coldata.Type {
	scale := int(max(min(d, maxRoundScale), 0))
	intd := t.Precision() - t.Scale()
	if !trunc {
		intd++
	}
	return capDecimal(intd, scale)
}

// decimalRoundBind types ROUND/TRUNCATE of a decimal by its constant
// digits argument (the argument's own type when it is not constant).
func decimalRoundBind(trunc bool) func([]Expr) (coldata.Type, error) {
	return func(args []Expr) (coldata.Type, error) {
		t := args[0].Type()
		if !t.IsDecimal() {
			return t, nil
		}
		d := int64(0)
		if len(args) == 2 {
			var ok bool
			if d, ok = literalInt(args[1]); !ok {
				return t, nil
			}
		}
		return roundedType(t, d, trunc), nil
	}
}

// decimalFloorBind types FLOOR/CEIL of a decimal: scale 0.
func decimalFloorBind(args []Expr) (coldata.Type, error) {
	t := args[0].Type()
	if !t.IsDecimal() {
		return t, nil
	}
	return roundedType(t, 0, false), nil
}

// decimalRound is ROUND (half away from zero) or TRUNCATE (toward zero)
// of a decimal to d digits, d from the second argument (0 without one);
// a negative d rounds to tens, hundreds... .
func decimalRound(args []*coldata.Vec, n int, trunc bool) (*coldata.Vec, error) {
	v := args[0]
	t, s := v.Type, v.Type.Scale()
	var dv *coldata.Vec
	if len(args) == 2 {
		dv = args[1]
		if isConstNull(dv) {
			return coldata.NewConst(t, nil, n), nil
		}
	}
	rt := t
	if dv == nil {
		rt = roundedType(t, 0, trunc)
	} else if dv.Const {
		rt = roundedType(t, dv.Int(0), trunc)
	}
	if isConstNull(v) {
		return coldata.NewConst(rt, nil, n), nil
	}
	rows := n
	if v.Const && (dv == nil || dv.Const) {
		rows = 1
	}
	out := coldata.NewVec(rt, rows)
	nulls := CombineNulls(append([]*coldata.Vec{v}, args[1:]...), rows)
	mv := rowMask(v)
	for i := 0; i < rows; i++ {
		if !validAt(nulls, i) {
			continue
		}
		d := int64(0)
		if dv != nil {
			d = dv.Int(i)
		}
		x := v.Decs[i&mv]
		// Drop the digits below 10^-d, rounding or truncating, then
		// come back to the result's scale.
		drop := int64(s) - d
		r := x
		if drop > 0 {
			if drop > decimal.MaxPrecision {
				r = decimal.Int128{}
			} else {
				p := decimal.Pow10(int(drop))
				if trunc {
					r, _ = x.Quo(p)
				} else {
					r, _ = x.DivRound(p)
				}
				var ok bool
				if r, ok = r.Mul(p); !ok {
					return nil, errDecimalRange(rt)
				}
			}
		}
		r, ok := r.Rescale(s, rt.Scale())
		if !ok || !r.Fits(rt.Precision()) {
			return nil, errDecimalRange(rt)
		}
		out.Decs[i] = r
	}
	out.Nulls = nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

// decimalFloorCeil rounds a decimal down or up to an integer (scale 0).
func decimalFloorCeil(v *coldata.Vec, n int, ceil bool) (*coldata.Vec, error) {
	rt := roundedType(v.Type, 0, false)
	p := decimal.Pow10(v.Type.Scale())
	return mapDecimal(v, n, rt, func(x decimal.Int128) (decimal.Int128, bool) {
		q, _ := x.Quo(p)
		r, _ := q.Mul(p)
		if c := x.Cmp(r); (ceil && c > 0) || (!ceil && c < 0) {
			if ceil {
				q, _ = q.Add(decimal.FromInt64(1))
			} else {
				q, _ = q.Sub(decimal.FromInt64(1))
			}
		}
		return q, true
	})
}

// decimalToInts maps each non-NULL decimal row to an integer.
func decimalToInts(v *coldata.Vec, n int, fn func(decimal.Int128) int64) (*coldata.Vec, error) {
	if isConstNull(v) {
		return coldata.NewConst(coldata.Int64, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	out := coldata.NewVec(coldata.Int64, rows)
	for i := 0; i < rows; i++ {
		out.Ints[i] = fn(v.Decs[i])
	}
	withNulls(out, v, rows)
	if v.Const {
		return constOf(out, n), nil
	}
	return out, nil
}
