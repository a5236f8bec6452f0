package expr

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gsqlengine/gsql/coldata"
)

// Arithmetic, MySQL semantics:
//
//   - + - * and unary neg: BIGINT when both operands are BIGINT (BOOLEAN
//     counts as BIGINT), else DOUBLE; strings convert to DOUBLE. A BIGINT
//     result that does not fit is an error (ErrOutOfRange), never a wrapped
//     value; DOUBLE overflow gives ±Inf.
//   - / is DECIMAL over exact operands (integers and DECIMALs: 1/3 is
//     0.3333, scale + 4 as MySQL's div_precision_increment gives), else
//     DOUBLE; division by zero gives NULL.
//   - DIV truncates toward zero and returns BIGINT; DECIMAL operands divide
//     exactly (18446744073709551615 DIV 2 = 9223372036854775807), DOUBLE
//     ones as doubles (7.5e0 DIV 2 = 3); a zero divisor gives NULL; a quotient
//     outside BIGINT (MIN DIV -1, 1e300 DIV 1) is ErrOutOfRange.
//   - % (alias mod) takes the sign of the dividend (-7 % 3 = -1), works on
//     DOUBLE too (MOD(34.5, 3) = 1.5); a zero divisor gives NULL.
//
// Integer loops detect overflow without branches (sign tricks for + and -,
// a 128-bit product for *), OR-ing a flag across the vector; only when the
// flag is raised is the vector scanned again for the first non-NULL row that
// overflowed (rows under NULL may hold anything).

type arithOp uint8

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv    // /
	opIntDiv // DIV
	opMod    // %
)

var arithNames = [...]string{opAdd: "+", opSub: "-", opMul: "*", opDiv: "/", opIntDiv: "DIV", opMod: "%"}

func init() {
	numeric := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := numericType(args)
		return t, sameTypes(t, len(args)), nil
	}
	for _, op := range []arithOp{opAdd, opSub, opMul, opMod} {
		op := op
		Register(&Function{Name: arithNames[op], Infix: true, MinArgs: 2, MaxArgs: 2, Check: decimalCheck(op, numeric),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return arith(op, args[0], args[1], n) }})
	}
	Alias("mod", "%")
	Register(&Function{Name: "/", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: divCheck,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return arith(opDiv, args[0], args[1], n)
		}})
	Register(&Function{Name: "div", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			if want, ok := decimalArgs(args); ok {
				return coldata.Int64, want, nil // exact: decimalIntDiv
			}
			return coldata.Int64, sameTypes(numericType(args), 2), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return arith(opIntDiv, args[0], args[1], n)
		}})
	Register(&Function{Name: "neg", MinArgs: 1, MaxArgs: 1, Check: decimalCheck(opSub, numeric),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return negate(args[0], n) }})
}

// arithResultType is the type op returns for operands of type t.
func arithResultType(op arithOp, t coldata.Type) coldata.Type {
	switch op {
	case opDiv:
		return coldata.Float64
	case opIntDiv:
		return coldata.Int64
	}
	return t
}

// arith applies a binary operator to two vectors of one numeric type.
func arith(op arithOp, a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	if a.Type.IsDecimal() && b.Type.IsDecimal() {
		if op == opIntDiv {
			return decimalIntDiv(a, b, n)
		}
		return decimalArith(op, a, b, n)
	}
	t := a.Type
	if t != b.Type || (t != coldata.Int64 && t != coldata.Float64) {
		// Only reached by direct calls that skipped Check: convert here.
		t = numericType([]coldata.Type{a.Type, b.Type})
		if op == opDiv {
			t = coldata.Float64
		}
		var err error
		if a, err = castVec(a, t, n); err != nil {
			return nil, err
		}
		if b, err = castVec(b, t, n); err != nil {
			return nil, err
		}
	}
	rt := arithResultType(op, t)
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(rt, nil, n), nil
	}
	if a.Const && b.Const {
		out, err := arith(op, one(a), one(b), 1)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	valid := CombineNulls([]*coldata.Vec{a, b}, n)
	if t == coldata.Int64 {
		return intArith(op, a, b, n, valid)
	}
	return floatArith(op, a, b, n, valid)
}

// intArith runs op over BIGINT vectors (at most one constant).
func intArith(op arithOp, a, b *coldata.Vec, n int, valid []byte) (*coldata.Vec, error) {
	if op == opDiv {
		fa, _ := castVec(a, coldata.Float64, n)
		fb, _ := castVec(b, coldata.Float64, n)
		return floatArith(op, fa, fb, n, valid)
	}
	out := coldata.NewVec(coldata.Int64, n)
	r := out.Ints
	var flag int64 // nonzero (or negative for + -) when some row overflowed
	switch op {
	case opAdd:
		switch {
		case a.Const:
			flag = addIntsVC(b.Ints[:n], a.Ints[0], r)
		case b.Const:
			flag = addIntsVC(a.Ints[:n], b.Ints[0], r)
		default:
			flag = addIntsVV(a.Ints[:n], b.Ints[:n], r)
		}
		flag &= math.MinInt64
	case opSub:
		switch {
		case a.Const:
			flag = subIntsCV(a.Ints[0], b.Ints[:n], r)
		case b.Const:
			flag = subIntsVC(a.Ints[:n], b.Ints[0], r)
		default:
			flag = subIntsVV(a.Ints[:n], b.Ints[:n], r)
		}
		flag &= math.MinInt64
	case opMul:
		switch {
		case a.Const:
			flag = mulIntsVC(b.Ints[:n], a.Ints[0], r)
		case b.Const:
			flag = mulIntsVC(a.Ints[:n], b.Ints[0], r)
		default:
			flag = mulIntsVV(a.Ints[:n], b.Ints[:n], r)
		}
	case opIntDiv, opMod:
		if b.Const && b.Ints[0] == 0 {
			return coldata.NewConst(coldata.Int64, nil, n), nil
		}
		ma, mb := rowMask(a), rowMask(b)
		x, y := a.Ints, b.Ints
		var zero []byte
		for i := range r {
			p, q := x[i&ma], y[i&mb]
			switch {
			case q == 0:
				if zero == nil {
					zero = make([]byte, n)
				}
				zero[i] = 1
			case op == opMod:
				r[i] = p % q // Go defines MinInt64 % -1 = 0
			case q == -1:
				if p == math.MinInt64 {
					flag = 1
				}
				r[i] = -p
			default:
				r[i] = p / q
			}
		}
		if zero != nil {
			valid = clearBits(valid, zero, n)
		}
	}
	out.Nulls = valid
	if flag != 0 {
		if err := intOverflowError(op, a, b, n, valid); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func addIntsVV(x, y, r []int64) int64 {
	var o int64
	y = y[:len(x)]
	r = r[:len(x)]
	for i, p := range x {
		q := y[i]
		s := p + q
		r[i] = s
		o |= (p ^ s) & (q ^ s)
	}
	return o
}

func addIntsVC(x []int64, q int64, r []int64) int64 {
	var o int64
	r = r[:len(x)]
	for i, p := range x {
		s := p + q
		r[i] = s
		o |= (p ^ s) & (q ^ s)
	}
	return o
}

func subIntsVV(x, y, r []int64) int64 {
	var o int64
	y = y[:len(x)]
	r = r[:len(x)]
	for i, p := range x {
		q := y[i]
		s := p - q
		r[i] = s
		o |= (p ^ q) & (p ^ s)
	}
	return o
}

func subIntsVC(x []int64, q int64, r []int64) int64 {
	var o int64
	r = r[:len(x)]
	for i, p := range x {
		s := p - q
		r[i] = s
		o |= (p ^ q) & (p ^ s)
	}
	return o
}

func subIntsCV(p int64, y, r []int64) int64 {
	var o int64
	r = r[:len(y)]
	for i, q := range y {
		s := p - q
		r[i] = s
		o |= (p ^ q) & (p ^ s)
	}
	return o
}

// mulHigh returns the product's low word and whether it overflowed: the
// signed high word of the 128-bit product must be the low word's sign.
func mulHigh(p, q int64) (lo int64, ovf int64) {
	hi, l := bits.Mul64(uint64(p), uint64(q))
	h := int64(hi) - (p>>63)&q - (q>>63)&p
	return int64(l), h ^ (int64(l) >> 63)
}

func mulIntsVV(x, y, r []int64) int64 {
	var o int64
	y = y[:len(x)]
	r = r[:len(x)]
	for i, p := range x {
		l, v := mulHigh(p, y[i])
		r[i] = l
		o |= v
	}
	return o
}

func mulIntsVC(x []int64, q int64, r []int64) int64 {
	var o int64
	r = r[:len(x)]
	for i, p := range x {
		l, v := mulHigh(p, q)
		r[i] = l
		o |= v
	}
	return o
}

// intOverflowError finds the first non-NULL row whose result overflowed and
// reports it as MySQL does; it returns nil when only NULL rows overflowed.
func intOverflowError(op arithOp, a, b *coldata.Vec, n int, valid []byte) error {
	ma, mb := rowMask(a), rowMask(b)
	for i := 0; i < n; i++ {
		if !validAt(valid, i) {
			continue
		}
		p, q := a.Ints[i&ma], b.Ints[i&mb]
		var bad bool
		switch op {
		case opAdd:
			s := p + q
			bad = (p^s)&(q^s) < 0
		case opSub:
			s := p - q
			bad = (p^q)&(p^s) < 0
		case opMul:
			_, v := mulHigh(p, q)
			bad = v != 0
		case opIntDiv:
			bad = p == math.MinInt64 && q == -1
		}
		if bad {
			return fmt.Errorf("%w in '(%d %s %d)'", ErrOutOfRange, p, arithNames[op], q)
		}
	}
	return nil
}

// floatArith runs op over DOUBLE vectors (at most one constant).
func floatArith(op arithOp, a, b *coldata.Vec, n int, valid []byte) (*coldata.Vec, error) {
	if op == opIntDiv {
		return floatIntDiv(a, b, n, valid)
	}
	out := coldata.NewVec(coldata.Float64, n)
	r := out.Floats
	out.Nulls = valid
	switch op {
	case opAdd:
		switch {
		case a.Const:
			q := a.Floats[0]
			for i, p := range b.Floats[:n] {
				r[i] = p + q
			}
		case b.Const:
			q := b.Floats[0]
			for i, p := range a.Floats[:n] {
				r[i] = p + q
			}
		default:
			x, y := a.Floats[:n], b.Floats[:n]
			for i := range r {
				r[i] = x[i] + y[i]
			}
		}
	case opSub:
		switch {
		case a.Const:
			p := a.Floats[0]
			for i, q := range b.Floats[:n] {
				r[i] = p - q
			}
		case b.Const:
			q := b.Floats[0]
			for i, p := range a.Floats[:n] {
				r[i] = p - q
			}
		default:
			x, y := a.Floats[:n], b.Floats[:n]
			for i := range r {
				r[i] = x[i] - y[i]
			}
		}
	case opMul:
		switch {
		case a.Const:
			q := a.Floats[0]
			for i, p := range b.Floats[:n] {
				r[i] = p * q
			}
		case b.Const:
			q := b.Floats[0]
			for i, p := range a.Floats[:n] {
				r[i] = p * q
			}
		default:
			x, y := a.Floats[:n], b.Floats[:n]
			for i := range r {
				r[i] = x[i] * y[i]
			}
		}
	case opDiv, opMod:
		if b.Const {
			q := b.Floats[0]
			if q == 0 {
				return coldata.NewConst(coldata.Float64, nil, n), nil
			}
			if op == opDiv {
				for i, p := range a.Floats[:n] {
					r[i] = p / q
				}
			} else {
				for i, p := range a.Floats[:n] {
					r[i] = math.Mod(p, q)
				}
			}
			return out, nil
		}
		ma := rowMask(a)
		x, y := a.Floats, b.Floats[:n]
		var zero []byte
		for i, q := range y {
			p := x[i&ma]
			switch {
			case q == 0:
				if zero == nil {
					zero = make([]byte, n)
				}
				zero[i] = 1
			case op == opDiv:
				r[i] = p / q
			default:
				r[i] = math.Mod(p, q)
			}
		}
		if zero != nil {
			out.Nulls = clearBits(valid, zero, n)
		}
	}
	return out, nil
}

// floatIntDiv is DIV of DOUBLE operands: the exact quotient truncated to a
// BIGINT; zero divisors give NULL, quotients outside BIGINT an error.
func floatIntDiv(a, b *coldata.Vec, n int, valid []byte) (*coldata.Vec, error) {
	out := coldata.NewVec(coldata.Int64, n)
	r := out.Ints
	ma, mb := rowMask(a), rowMask(b)
	x, y := a.Floats, b.Floats
	var zero []byte
	for i := range r {
		p, q := x[i&ma], y[i&mb]
		if q == 0 {
			if zero == nil {
				zero = make([]byte, n)
			}
			zero[i] = 1
			continue
		}
		f := math.Trunc(p / q)
		if !(f >= -9.223372036854775808e18 && f < 9.223372036854775807e18) {
			if validAt(valid, i) {
				return nil, fmt.Errorf("%w in '(%s DIV %s)'", ErrOutOfRange, AppendFloat(nil, p), AppendFloat(nil, q))
			}
			continue
		}
		r[i] = int64(f)
	}
	if zero != nil {
		valid = clearBits(valid, zero, n)
	}
	out.Nulls = valid
	return out, nil
}

// negate is unary minus.
func negate(a *coldata.Vec, n int) (*coldata.Vec, error) {
	if a.Type.IsDecimal() {
		return negateDecimal(a, n)
	}
	if a.Type != coldata.Int64 && a.Type != coldata.Float64 {
		var err error
		if a, err = castVec(a, numericType([]coldata.Type{a.Type}), n); err != nil {
			return nil, err
		}
	}
	if isConstNull(a) {
		return coldata.NewConst(a.Type, nil, n), nil
	}
	rows := n
	if a.Const {
		rows = 1
	}
	out := coldata.NewVec(a.Type, rows)
	if a.Type == coldata.Float64 {
		for i, p := range a.Floats[:rows] {
			out.Floats[i] = -p
		}
	} else {
		var o int64
		for i, p := range a.Ints[:rows] {
			out.Ints[i] = -p
			o |= p & -p // only MinInt64 keeps its sign bit when negated
		}
		if o < 0 {
			for i, p := range a.Ints[:rows] {
				if p == math.MinInt64 && validAt(a.Nulls, i) {
					return nil, fmt.Errorf("%w in '-(%d)'", ErrOutOfRange, p)
				}
			}
		}
	}
	if a.Nulls != nil {
		out.Nulls = a.Nulls[:coldata.BitmapLen(rows)]
	}
	if a.Const {
		return constOf(out, n), nil
	}
	return out, nil
}
