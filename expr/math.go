package expr

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Numeric functions, MySQL semantics. gsql's DOUBLE also stands for MySQL's
// exact DECIMAL literals, so the rounding functions work on the decimal
// digits a DOUBLE prints as (ROUND(1.005, 2) = 1.01, TRUNCATE(4.35, 2) =
// 4.35) rather than on its binary expansion.
//
//   - abs(x), sign(x): BIGINT stays BIGINT (ABS of the smallest BIGINT is
//     ErrOutOfRange); SIGN returns BIGINT -1, 0 or 1.
//   - round(x[, d]) rounds half away from zero at d decimals (d < 0 rounds
//     to tens, hundreds...); truncate(x, d) cuts toward zero. A BIGINT x
//     stays BIGINT (d >= 0 leaves it unchanged); a DOUBLE stays DOUBLE.
//   - floor(x), ceil(x) (alias ceiling): BIGINT stays BIGINT; DOUBLE gives
//     DOUBLE (MySQL returns BIGINT for exact values; gsql keeps DOUBLE so
//     FLOOR(1e30) does not overflow — the printed digits are the same).
//   - sqrt (negative: NULL), exp, ln and log10 (x <= 0: NULL), power (alias
//     pow; a result that is not a finite number, such as POW(-8, 1/3) or an
//     overflow, is NULL), pi(): all DOUBLE.

func init() {
	unaryFloat := func(name string, f func(float64) float64, domain func(float64) bool) {
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Float64, coldata.Float64),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				return mapFloats(args[0], n, f, domain)
			}})
	}
	unaryFloat("sqrt", math.Sqrt, func(x float64) bool { return x >= 0 })
	unaryFloat("exp", portableExp, nil)
	unaryFloat("ln", portableLog, func(x float64) bool { return x > 0 })
	unaryFloat("log10", portableLog10, func(x float64) bool { return x > 0 })
	Register(&Function{Name: "pi", MinArgs: 0, MaxArgs: 0, Check: Fixed(coldata.Float64),
		Eval: func(_ []*coldata.Vec, n int) (*coldata.Vec, error) {
			return coldata.NewConst(coldata.Float64, math.Pi, n), nil
		}})
	Register(&Function{Name: "power", MinArgs: 2, MaxArgs: 2, Check: Fixed(coldata.Float64, coldata.Float64, coldata.Float64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalPower(args[0], args[1], n) }})
	Alias("pow", "power")

	sameNumeric := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		if args[0].IsDecimal() {
			want := []coldata.Type{args[0]}
			for range args[1:] {
				want = append(want, coldata.Int64)
			}
			return args[0], want, nil
		}
		t := numericType(args[:1])
		want := []coldata.Type{t}
		for range args[1:] {
			want = append(want, coldata.Int64)
		}
		return t, want, nil
	}
	Register(&Function{Name: "abs", MinArgs: 1, MaxArgs: 1, Check: sameNumeric,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type.IsDecimal() {
				return mapDecimal(args[0], n, args[0].Type, func(x decimal.Int128) (decimal.Int128, bool) {
					if x.IsNeg() {
						return x.Neg()
					}
					return x, true
				})
			}
			return evalAbs(args[0], n)
		}})
	Register(&Function{Name: "sign", MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			if args[0].IsDecimal() {
				return coldata.Int64, []coldata.Type{args[0]}, nil
			}
			return coldata.Int64, []coldata.Type{numericType(args)}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type.IsDecimal() {
				return decimalToInts(args[0], n, func(x decimal.Int128) int64 { return int64(x.Sign()) })
			}
			return evalSign(args[0], n)
		}})
	Register(&Function{Name: "round", MinArgs: 1, MaxArgs: 2, Check: sameNumeric, Bind: decimalRoundBind(false),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type.IsDecimal() {
				return decimalRound(args, n, false)
			}
			return evalRound(args, n, false)
		}})
	Register(&Function{Name: "truncate", MinArgs: 2, MaxArgs: 2, Check: sameNumeric, Bind: decimalRoundBind(true),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type.IsDecimal() {
				return decimalRound(args, n, true)
			}
			return evalRound(args, n, true)
		}})
	Register(&Function{Name: "floor", MinArgs: 1, MaxArgs: 1, Check: sameNumeric, Bind: decimalFloorBind,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type.IsDecimal() {
				return decimalFloorCeil(args[0], n, false)
			}
			return floorCeil(args[0], n, math.Floor)
		}})
	Register(&Function{Name: "ceil", MinArgs: 1, MaxArgs: 1, Check: sameNumeric, Bind: decimalFloorBind,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type.IsDecimal() {
				return decimalFloorCeil(args[0], n, true)
			}
			return floorCeil(args[0], n, math.Ceil)
		}})
	Alias("ceiling", "ceil")
}

// toNumeric converts v to BIGINT or DOUBLE when a direct call skipped Check.
func toNumeric(v *coldata.Vec, n int) (*coldata.Vec, error) {
	if v.Type == coldata.Int64 || v.Type == coldata.Float64 {
		return v, nil
	}
	return castVec(v, numericType([]coldata.Type{v.Type}), n)
}

// mapFloats applies f to every row of a DOUBLE vector; rows outside domain
// (when set) become NULL.
func mapFloats(v *coldata.Vec, n int, f func(float64) float64, domain func(float64) bool) (*coldata.Vec, error) {
	v, err := castVec(v, coldata.Float64, n)
	if err != nil {
		return nil, err
	}
	if isConstNull(v) {
		return coldata.NewConst(coldata.Float64, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	out := coldata.NewVec(coldata.Float64, rows)
	r := out.Floats
	var drop []byte
	for i, x := range v.Floats[:rows] {
		if domain != nil && !domain(x) {
			if drop == nil {
				drop = make([]byte, rows)
			}
			drop[i] = 1
			continue
		}
		r[i] = f(x)
	}
	out.Nulls = ownedNulls(v, rows, drop)
	if v.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

// ownedNulls is v's validity over rows, with rows flagged in drop cleared
// (drop nil: v's bitmap, shared).
func ownedNulls(v *coldata.Vec, rows int, drop []byte) []byte {
	var nulls []byte
	if v.Nulls != nil {
		nulls = v.Nulls[:coldata.BitmapLen(rows)]
	}
	if drop == nil {
		return nulls
	}
	if nulls != nil {
		nulls = append([]byte(nil), nulls...)
	}
	return clearBits(nulls, drop, rows)
}

func evalPower(a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	a, err := castVec(a, coldata.Float64, n)
	if err != nil {
		return nil, err
	}
	if b, err = castVec(b, coldata.Float64, n); err != nil {
		return nil, err
	}
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(coldata.Float64, nil, n), nil
	}
	if a.Const && b.Const {
		out, err := evalPower(one(a), one(b), 1)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	out := coldata.NewVec(coldata.Float64, n)
	r := out.Floats
	ma, mb := rowMask(a), rowMask(b)
	var drop []byte
	for i := range r {
		f := portablePow(a.Floats[i&ma], b.Floats[i&mb])
		if f-f != 0 { // NaN or ±Inf
			if drop == nil {
				drop = make([]byte, n)
			}
			drop[i] = 1
			continue
		}
		r[i] = f
	}
	valid := CombineNulls([]*coldata.Vec{a, b}, n)
	if drop != nil {
		valid = clearBits(valid, drop, n)
	}
	out.Nulls = valid
	return out, nil
}

func evalAbs(v *coldata.Vec, n int) (*coldata.Vec, error) {
	v, err := toNumeric(v, n)
	if err != nil {
		return nil, err
	}
	if isConstNull(v) {
		return coldata.NewConst(v.Type, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	out := coldata.NewVec(v.Type, rows)
	if v.Type == coldata.Float64 {
		for i, x := range v.Floats[:rows] {
			out.Floats[i] = math.Abs(x)
		}
	} else {
		var o int64
		for i, x := range v.Ints[:rows] {
			m := x >> 63
			a := (x ^ m) - m
			out.Ints[i] = a
			o |= a
		}
		if o < 0 { // only |MinInt64| stays negative
			for i, x := range v.Ints[:rows] {
				if x == math.MinInt64 && validAt(v.Nulls, i) {
					return nil, fmt.Errorf("%w in 'abs(%d)'", ErrOutOfRange, x)
				}
			}
		}
	}
	out.Nulls = ownedNulls(v, rows, nil)
	if v.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

func evalSign(v *coldata.Vec, n int) (*coldata.Vec, error) {
	v, err := toNumeric(v, n)
	if err != nil {
		return nil, err
	}
	if isConstNull(v) {
		return coldata.NewConst(coldata.Int64, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	out := coldata.NewVec(coldata.Int64, rows)
	r := out.Ints
	if v.Type == coldata.Float64 {
		for i, x := range v.Floats[:rows] {
			r[i] = int64(b2u8(x > 0)) - int64(b2u8(x < 0))
		}
	} else {
		for i, x := range v.Ints[:rows] {
			r[i] = int64(b2u8(x > 0)) - int64(b2u8(x < 0))
		}
	}
	out.Nulls = ownedNulls(v, rows, nil)
	if v.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

func floorCeil(v *coldata.Vec, n int, f func(float64) float64) (*coldata.Vec, error) {
	v, err := toNumeric(v, n)
	if err != nil {
		return nil, err
	}
	if v.Type == coldata.Int64 {
		return v, nil
	}
	return mapFloats(v, n, f, nil)
}

// evalRound is ROUND(x[, d]) or TRUNCATE(x, d) (trunc).
func evalRound(args []*coldata.Vec, n int, trunc bool) (*coldata.Vec, error) {
	x, err := toNumeric(args[0], n)
	if err != nil {
		return nil, err
	}
	d := coldata.NewConst(coldata.Int64, int64(0), n)
	if len(args) > 1 {
		if d, err = castVec(args[1], coldata.Int64, n); err != nil {
			return nil, err
		}
	}
	if isConstNull(x) || isConstNull(d) {
		return coldata.NewConst(x.Type, nil, n), nil
	}
	if x.Const && d.Const {
		out, err := evalRound([]*coldata.Vec{one(x), one(d)}, 1, trunc)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	valid := CombineNulls([]*coldata.Vec{x, d}, n)
	out := coldata.NewVec(x.Type, n)
	out.Nulls = valid
	mx, md := rowMask(x), rowMask(d)
	if x.Type == coldata.Int64 {
		r := out.Ints
		if d.Const && d.Ints[0] >= 0 {
			copy(r, x.Ints[:n])
			return out, nil
		}
		for i := range r {
			v, e := x.Ints[i&mx], d.Ints[i&md]
			res, ok := roundInt(v, e, trunc)
			if !ok && validAt(valid, i) {
				name := "round"
				if trunc {
					name = "truncate"
				}
				return nil, fmt.Errorf("%w in '%s(%d, %d)'", ErrOutOfRange, name, v, e)
			}
			r[i] = res
		}
		return out, nil
	}
	r := out.Floats
	if d.Const {
		e := d.Ints[0]
		for i, v := range x.Floats[:n] {
			r[i] = roundFloat(v, e, trunc)
		}
		return out, nil
	}
	for i := range r {
		r[i] = roundFloat(x.Floats[i&mx], d.Ints[i&md], trunc)
	}
	return out, nil
}

// pow10i holds the powers of ten a BIGINT holds.
var pow10i = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// roundInt rounds (or truncates) x at d decimal places; ok is false when the
// result does not fit a BIGINT.
func roundInt(x, d int64, trunc bool) (int64, bool) {
	if d >= 0 {
		return x, true
	}
	if d < -18 {
		// |x| < 10^19: only d = -19 can round up, to ±10^19, out of range.
		if !trunc && d == -19 && (x >= 5e18 || x <= -5e18) {
			return 0, false
		}
		return 0, true
	}
	p := pow10i[-d]
	q, rem := x/p, x%p
	if !trunc {
		if rem >= p-rem && rem > 0 {
			q++
		} else if rem < 0 && -rem >= p+rem {
			q--
		}
	}
	res, ovf := mulHigh(q, p)
	return res, ovf == 0
}

// roundFloat rounds (or truncates) x at d decimal places. The binary
// product x*10^d decides unless it lies within a few ulps of a rounding
// boundary; then the decision is taken on x's shortest decimal digits.
func roundFloat(x float64, d int64, trunc bool) float64 {
	if x == 0 || x-x != 0 { // zero, NaN, ±Inf
		return x
	}
	if d > 330 {
		return x
	}
	if d < -330 {
		return math.Copysign(0, x)
	}
	var y float64
	if d >= 0 && d <= 22 {
		y = x * pow10tab[d]
	} else if d < 0 && d >= -22 {
		y = x / pow10tab[-d]
	} else {
		return roundDecimal(x, d, trunc)
	}
	if y-y != 0 || math.Abs(y) >= 1<<52 {
		return x // already integral at that scale
	}
	t := math.Trunc(y)
	frac := math.Abs(y - t)
	tol := math.Abs(y) * 0x1p-49
	if trunc {
		if frac <= tol || 1-frac <= tol {
			return roundDecimal(x, d, trunc)
		}
	} else if math.Abs(frac-0.5) <= tol {
		return roundDecimal(x, d, trunc)
	} else if frac > 0.5 {
		t += math.Copysign(1, y)
	}
	if t == 0 {
		return math.Copysign(0, x)
	}
	if d >= 0 {
		return t / pow10tab[d]
	}
	return t * pow10tab[-d]
}

// roundDecimal rounds x's shortest decimal representation at d decimal
// places, half away from zero (or toward zero when trunc).
func roundDecimal(x float64, d int64, trunc bool) float64 {
	var tmp [40]byte
	s := strconv.AppendFloat(tmp[:0], x, 'e', -1, 64)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var digs [24]byte
	nd, k := 0, 0
	for ; s[k] != 'e'; k++ {
		if s[k] != '.' {
			digs[nd] = s[k]
			nd++
		}
	}
	exp, err := strconv.Atoi(string(s[k+1:]))
	if err != nil {
		return x
	}
	keep := int64(exp) + 1 + d // significant digits left of the cut
	if keep >= int64(nd) {
		return x
	}
	up := false
	if !trunc && keep >= 0 {
		up = digs[keep] >= '5'
	}
	if keep <= 0 {
		if !up {
			return math.Copysign(0, x)
		}
		// Rounds up to one unit of the last kept place: 10^-d.
		return math.Copysign(math.Pow(10, float64(-d)), x)
	}
	kept := digs[:keep]
	if up {
		i := len(kept) - 1
		for ; i >= 0 && kept[i] == '9'; i-- {
			kept[i] = '0'
		}
		if i >= 0 {
			kept[i]++
		} else {
			// 999 -> 1000: one more digit, same scale.
			kept = append([]byte{'1'}, kept...)
		}
	}
	var b [64]byte
	out := b[:0]
	if neg {
		out = append(out, '-')
	}
	out = append(out, kept...)
	out = append(out, 'e')
	out = strconv.AppendInt(out, -d, 10)
	f, err := strconv.ParseFloat(string(out), 64)
	if err != nil && f-f != 0 {
		return x
	}
	return f
}
