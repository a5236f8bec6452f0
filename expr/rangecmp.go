package expr

import (
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Range predicates. A filter's `x >= lo AND x < hi` (TPC-H's date
// ranges; Q6's l_discount BETWEEN 0.05 AND 0.07, which the planner
// writes as two comparisons) reads x twice, writes two masks and ANDs
// them. A Program fuses such a pair of comparisons of one expression
// with two constants into one call of a range function that reads x once
// and tests lo <= x <= hi with a single unsigned comparison,
// uint64(x-lo) <= uint64(hi-lo), for 64-bit integers (and DECIMALs whose
// values are int64s). NULL semantics are unchanged: with non-NULL
// constants both comparisons, and so their AND, are NULL exactly where x
// is.

// rangeFns[lowOp-cmpGT][highOp-cmpLT] is the range function of the lower
// bound's operator (> or >=) and the upper bound's (< or <=).
var rangeFns = func() (t [2][2]*Function) {
	for _, lo := range []cmpOp{cmpGT, cmpGE} {
		for _, hi := range []cmpOp{cmpLT, cmpLE} {
			lo, hi := lo, hi
			t[lo-cmpGT][hi-cmpLT] = &Function{
				Name: "range" + cmpNames[lo] + cmpNames[hi], MinArgs: 3, MaxArgs: 3,
				Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
					return coldata.Bool, args, nil
				},
				Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
					return evalRange(lo, hi, args[0], args[1], args[2], n)
				},
			}
		}
	}
	return t
}()

// cmpOpOf is the comparison a function is, if it is one.
func cmpOpOf(f *Function) (cmpOp, bool) {
	for op := cmpEQ; op <= cmpGE; op++ {
		if f.Name == cmpNames[op] {
			return op, true
		}
	}
	return 0, false
}

// constExpr reports whether e is the same for every row: a literal, or
// a call of a function that is not volatile over such arguments (a
// literal converted by cast_to_decimal).
func constExpr(e Expr) bool {
	switch x := e.(type) {
	case *Literal:
		return true
	case *Call:
		if x.Fn.Volatile || x.Fn.Name == TryName {
			return false
		}
		for _, a := range x.Args {
			if !constExpr(a) {
				return false
			}
		}
		return true
	}
	return false
}

// boundOf reads e as `x op k` with k constant, moved to the right (the
// operator flipped) when it is on the left. A k that turns out NULL, or
// not constant, is handled when evaluating.
func boundOf(e Expr) (x Expr, op cmpOp, k Expr, ok bool) {
	c, isCall := e.(*Call)
	if !isCall || len(c.Args) != 2 {
		return nil, 0, nil, false
	}
	if op, ok = cmpOpOf(c.Fn); !ok {
		return nil, 0, nil, false
	}
	x, k = c.Args[0], c.Args[1]
	if constExpr(x) {
		x, k, op = k, x, op.flip()
	}
	if !constExpr(k) || constExpr(x) {
		return nil, 0, nil, false
	}
	return unwiden(x), op, k, true
}

// unwiden is x without a cast that only widens a DECIMAL (more digits,
// the same scale): it changes no value, and the two bounds of a range may
// have met the column at different widths (c >= 10^20 widens c to 38
// digits, c < 0.05 does not), yet bound the same values. evalRange
// converts x to each bound's comparison type as it goes.
func unwiden(x Expr) Expr {
	c, ok := x.(*Call)
	if !ok || c.Fn.Name != "cast_to_decimal" || len(c.Args) == 0 {
		return x
	}
	in, out := c.Args[0].Type(), c.T
	if in.IsDecimal() && out.IsDecimal() && in.Scale() == out.Scale() && in.Precision() <= out.Precision() {
		return c.Args[0]
	}
	return x
}

// fuseRanges returns e with every AND of a lower and an upper bound on
// one expression (by Key) replaced by a range call; e itself is not
// modified.
func fuseRanges(e Expr) Expr {
	c, ok := e.(*Call)
	if !ok || c.Fn.Name == TryName {
		return e
	}
	args, changed := c.Args, false
	for i, a := range c.Args {
		if f := fuseRanges(a); f != a {
			if !changed {
				args, changed = append([]Expr(nil), c.Args...), true
			}
			args[i] = f
		}
	}
	if c.Fn.Name == "and" && len(args) == 2 && c.T == coldata.Bool {
		if r := rangeCall(args[0], args[1]); r != nil {
			return r
		}
	}
	if !changed {
		return e
	}
	return &Call{Fn: c.Fn, Args: args, T: c.T, Once: c.Once}
}

// rangeCall is the range call equal to a AND b, or nil.
func rangeCall(a, b Expr) Expr {
	xa, opa, ka, ok := boundOf(a)
	if !ok {
		return nil
	}
	xb, opb, kb, ok := boundOf(b)
	if !ok {
		return nil
	}
	lower := func(op cmpOp) bool { return op == cmpGT || op == cmpGE }
	upper := func(op cmpOp) bool { return op == cmpLT || op == cmpLE }
	if lower(opb) && upper(opa) {
		xa, opa, ka, xb, opb, kb = xb, opb, kb, xa, opa, ka
	}
	if !lower(opa) || !upper(opb) || Key(xa) != Key(xb) {
		return nil
	}
	return &Call{Fn: rangeFns[opa-cmpGT][opb-cmpLT], Args: []Expr{xa, ka, kb}, T: coldata.Bool}
}

// evalRange is (x lowOp lo) AND (x highOp hi) for constants lo and hi.
// Shapes without a one-pass loop are computed as the two comparisons and
// their AND.
func evalRange(lowOp, highOp cmpOp, x, lo, hi *coldata.Vec, n int) (*coldata.Vec, error) {
	x1, k1, err := unifyCompare(x, lo, n)
	if err != nil {
		return nil, err
	}
	x2, k2, err := unifyCompare(x, hi, n)
	if err != nil {
		return nil, err
	}
	if x.Const || !k1.Const || !k2.Const || isConstNull(k1) || isConstNull(k2) || x1.Type != x2.Type || isConstNull(x1) {
		return rangeByParts(lowOp, highOp, x, lo, hi, n)
	}
	out := coldata.AllocVec(coldata.Bool, n) // every row is written
	r := out.Bools
	switch x1.Type.Physical() {
	case coldata.Int64:
		rangeInts(x1.Ints[:n], k1.Ints[0], k2.Ints[0], lowOp, highOp, r)
	case coldata.Decimal:
		a, okA := smallDec(k1.Decs[0])
		b, okB := smallDec(k2.Decs[0])
		if !okA || !okB || !rangeDecs(x1.Decs[:n], a, b, lowOp, highOp, r) {
			coldata.Recycle(out)
			return rangeByParts(lowOp, highOp, x, lo, hi, n)
		}
	case coldata.Float64:
		rangeFloats(x1.Floats[:n], k1.Floats[0], k2.Floats[0], lowOp, highOp, r)
	default:
		coldata.Recycle(out)
		return rangeByParts(lowOp, highOp, x, lo, hi, n)
	}
	out.Nulls = CombineNulls([]*coldata.Vec{x1}, n)
	return out, nil
}

// rangeByParts computes the two comparisons and their AND.
func rangeByParts(lowOp, highOp cmpOp, x, lo, hi *coldata.Vec, n int) (*coldata.Vec, error) {
	a, err := compareVecs(lowOp, x, lo, n)
	if err != nil {
		return nil, err
	}
	b, err := compareVecs(highOp, x, hi, n)
	if err != nil {
		return nil, err
	}
	out, err := andOr(a, b, n, true)
	if out != a && out != b {
		coldata.Recycle(a)
		coldata.Recycle(b)
	}
	return out, err
}

// inclusive turns lo lowOp x and x highOp hi into lo <= x <= hi; empty
// is true when no int64 x holds.
func inclusive(lo, hi int64, lowOp, highOp cmpOp) (int64, int64, bool) {
	if lowOp == cmpGT {
		if lo == math.MaxInt64 {
			return 0, 0, true
		}
		lo++
	}
	if highOp == cmpLT {
		if hi == math.MinInt64 {
			return 0, 0, true
		}
		hi--
	}
	return lo, hi, lo > hi
}

// rangeInts sets r[i] to whether x[i] is in the range.
func rangeInts(x []int64, lo, hi int64, lowOp, highOp cmpOp, r []byte) {
	r = r[:len(x)]
	lo, hi, empty := inclusive(lo, hi, lowOp, highOp)
	if empty {
		clear(r)
		return
	}
	w := uint64(hi - lo)
	for i, v := range x {
		r[i] = b2u8(uint64(v-lo) <= w)
	}
}

// rangeDecs is rangeInts over DECIMAL rows that are int64s (the bounds
// are); it returns false, r undefined, when some row is not one.
func rangeDecs(x []decimal.Int128, lo, hi int64, lowOp, highOp cmpOp, r []byte) bool {
	r = r[:len(x)]
	lo, hi, empty := inclusive(lo, hi, lowOp, highOp)
	if empty {
		clear(r)
		return true
	}
	w := uint64(hi - lo)
	var bad int64
	for i, v := range x {
		l := int64(v.Lo)
		bad |= v.Hi ^ l>>63
		r[i] = b2u8(uint64(l-lo) <= w)
	}
	return bad == 0
}

// rangeFloats sets r[i] to whether x[i] is in the range (NaN never is).
func rangeFloats(x []float64, lo, hi float64, lowOp, highOp cmpOp, r []byte) {
	r = r[:len(x)]
	for i, v := range x {
		var a, b byte
		if lowOp == cmpGT {
			a = b2u8(v > lo)
		} else {
			a = b2u8(v >= lo)
		}
		if highOp == cmpLT {
			b = b2u8(v < hi)
		} else {
			b = b2u8(v <= hi)
		}
		r[i] = a & b
	}
}
