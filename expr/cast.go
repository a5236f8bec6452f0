package expr

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gsqlengine/gsql/coldata"
)

// Conversions, MySQL style. They implement CAST/CONVERT and every implicit
// conversion the binder inserts (NewCall wraps an argument in the cast
// function named by CastFuncName):
//
//   - string -> BIGINT: the integer prefix after leading whitespace, as
//     CAST('12abc' AS SIGNED) = 12, CAST('3.35' AS SIGNED) = 3 (the string is
//     cut at the decimal point, not rounded), CAST('125e342' AS SIGNED) = 125,
//     'abc' and '' = 0. Out-of-range prefixes clamp to the BIGINT range
//     (MySQL warns and wraps through UNSIGNED; gsql clamps).
//   - string -> DOUBLE: the longest numeric prefix: '1e3x' = 1000, ' 3.7' =
//     3.7, '.5' = 0.5, 'abc' = 0. Overflowing exponents give ±Inf.
//   - DOUBLE -> BIGINT rounds half away from zero (CAST(2.5 AS SIGNED) = 3,
//     -2.5 -> -3) and clamps out-of-range values; NaN gives 0.
//   - BOOLEAN -> number is 1/0; number -> BOOLEAN is "nonzero"; string ->
//     BOOLEAN is "its DOUBLE prefix is nonzero" ('0.0' and 'abc' are FALSE).
//   - number -> string: BIGINT in decimal; DOUBLE in the shortest form that
//     reads back to the same value, plain for decimal exponents in [-4, 15)
//     and d.ddde[-]x otherwise (1e20, 1.5e-7, -0 for negative zero);
//     BOOLEAN is '1'/'0'.
//   - A NULL-typed argument gives NULL of the target type.

func init() {
	for _, t := range []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String} {
		target := t
		Register(&Function{Name: CastFuncName(target), MinArgs: 1, MaxArgs: 1,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				return target, []coldata.Type{args[0]}, nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				return castVec(args[0], target, n)
			}})
	}
}

// castVec converts n rows of v to type t.
func castVec(v *coldata.Vec, t coldata.Type, n int) (*coldata.Vec, error) {
	if v.Type == t {
		return v, nil
	}
	if isConstNull(v) || t == coldata.Null {
		return coldata.NewConst(t, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	if v.Type.IsDecimal() || t.IsDecimal() {
		if v.Type.IsTemporal() || t.IsTemporal() {
			return nil, fmt.Errorf("cannot convert %s to %s", v.Type, t)
		}
		out, err := castDecimal(v, t, rows)
		if err != nil || !v.Const {
			return out, err
		}
		return constOf(out, n), nil
	}
	if v.Type.IsTemporal() || t.IsTemporal() {
		out, err := castTemporal(v, t, rows)
		if err != nil || !v.Const {
			return out, err
		}
		return constOf(out, n), nil
	}
	var out *coldata.Vec
	switch t {
	case coldata.Int64:
		out = coldata.NewVec(coldata.Int64, rows)
		castToInts(v, out.Ints)
	case coldata.Float64:
		out = coldata.NewVec(coldata.Float64, rows)
		castToFloats(v, out.Floats)
	case coldata.Bool:
		out = coldata.NewVec(coldata.Bool, rows)
		castToBools(v, out.Bools)
	case coldata.String:
		var err error
		if out, err = castToStrings(v, rows); err != nil {
			return nil, err
		}
	}
	if v.Nulls != nil {
		out.Nulls = v.Nulls[:coldata.BitmapLen(rows)]
	}
	if v.Const {
		out = constOf(out, n)
	}
	return out, nil
}

func castToInts(v *coldata.Vec, r []int64) {
	switch v.Type {
	case coldata.Float64:
		x := v.Floats[:len(r)]
		for i := range r {
			r[i] = FloatToInt(x[i])
		}
	case coldata.Bool:
		x := v.Bools[:len(r)]
		for i := range r {
			r[i] = int64(b2u8(x[i] != 0))
		}
	case coldata.String:
		offs := v.Offsets[:len(r)+1]
		for i := range r {
			r[i] = ParseIntPrefix(v.Bytes[offs[i]:offs[i+1]])
		}
	}
}

func castToFloats(v *coldata.Vec, r []float64) {
	switch v.Type {
	case coldata.Int64:
		x := v.Ints[:len(r)]
		for i := range r {
			r[i] = float64(x[i])
		}
	case coldata.Bool:
		x := v.Bools[:len(r)]
		for i := range r {
			r[i] = float64(b2u8(x[i] != 0))
		}
	case coldata.String:
		offs := v.Offsets[:len(r)+1]
		for i := range r {
			r[i] = ParseFloatPrefix(v.Bytes[offs[i]:offs[i+1]])
		}
	}
}

func castToBools(v *coldata.Vec, r []byte) {
	switch v.Type {
	case coldata.Int64:
		x := v.Ints[:len(r)]
		for i := range r {
			r[i] = b2u8(x[i] != 0)
		}
	case coldata.Float64:
		x := v.Floats[:len(r)]
		for i := range r {
			r[i] = b2u8(x[i] != 0)
		}
	case coldata.String:
		offs := v.Offsets[:len(r)+1]
		for i := range r {
			r[i] = b2u8(ParseFloatPrefix(v.Bytes[offs[i]:offs[i+1]]) != 0)
		}
	}
}

// castToStrings formats rows of a number or boolean vector. Formatting a
// number costs more than copying it, so the CPU appends each row once into a
// growing buffer instead of formatting twice (sizes, then fill); NULL rows
// come out empty.
func castToStrings(v *coldata.Vec, rows int) (*coldata.Vec, error) {
	out := &coldata.Vec{Type: coldata.String, Len: rows, Offsets: make([]int32, rows+1)}
	offs := out.Offsets
	nulls := v.Nulls
	var buf []byte
	switch v.Type {
	case coldata.Bool:
		buf = make([]byte, 0, rows)
		for i, b := range v.Bools[:rows] {
			if validAt(nulls, i) {
				buf = append(buf, '0'+b2u8(b != 0))
			}
			offs[i+1] = int32(len(buf))
		}
	case coldata.Int64:
		buf = make([]byte, 0, 8*rows)
		for i, x := range v.Ints[:rows] {
			if validAt(nulls, i) {
				buf = strconv.AppendInt(buf, x, 10)
				if len(buf) > math.MaxInt32 {
					return nil, checkStringSize(len(buf))
				}
			}
			offs[i+1] = int32(len(buf))
		}
	case coldata.Float64:
		buf = make([]byte, 0, 8*rows)
		for i, x := range v.Floats[:rows] {
			if validAt(nulls, i) {
				buf = AppendFloat(buf, x)
				if len(buf) > math.MaxInt32 {
					return nil, checkStringSize(len(buf))
				}
			}
			offs[i+1] = int32(len(buf))
		}
	}
	out.Bytes = buf
	return out, nil
}

// FloatToInt rounds half away from zero, clamping to the BIGINT range (NaN
// is 0), as CAST(x AS SIGNED) does.
func FloatToInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 9.223372036854775807e18:
		return math.MaxInt64
	case f <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(math.Round(f))
}

// ParseIntPrefix reads the integer at the start of s (after whitespace), as
// MySQL converts a string to BIGINT: '12abc' is 12, '3.7' is 3, 'abc' is 0;
// out-of-range values clamp.
func ParseIntPrefix(s []byte) int64 {
	x, _ := parseIntPrefixEnd(s)
	return x
}

// parseIntPrefixEnd is ParseIntPrefix and the index in s where the
// number ends (-1 when s starts with no digit), for MySQL's warning on
// text that is not wholly a number.
func parseIntPrefixEnd(s []byte) (int64, int) {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var u uint64
	over := false
	start := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		u = u*10 + d
	}
	end := i
	if i == start {
		end = -1
	}
	switch {
	case neg && (over || u > 1<<63):
		return math.MinInt64, end
	case neg:
		return -int64(u), end
	case over || u > math.MaxInt64:
		return math.MaxInt64, end
	}
	return int64(u), end
}

// pow10tab holds the powers of ten a float64 represents exactly.
var pow10tab = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseFloatPrefix reads the longest number at the start of s (after
// whitespace): '1e3x' is 1000, '.5' is 0.5, '-' and 'abc' are 0. Short
// decimals (at most 15 significant digits, no exponent) are converted
// exactly without strconv: one correctly rounded division of two exact
// values.
func ParseFloatPrefix(s []byte) float64 {
	f, _ := parseFloatPrefixEnd(s)
	return f
}

// parseFloatPrefixEnd is ParseFloatPrefix and the index in s where the
// number ends (-1 when s holds no digit before it), for MySQL's warning
// on text that is not wholly a number.
func parseFloatPrefixEnd(s []byte) (float64, int) {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		mant = mant*10 + uint64(s[i]-'0')
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			mant = mant*10 + uint64(s[i]-'0')
			digits++
			frac++
		}
	}
	if digits == 0 {
		return 0, -1
	}
	end := exponentEnd(s, i)
	if end == i && digits <= 15 {
		f := float64(mant) / pow10tab[frac]
		if neg {
			f = -f
		}
		return f, end
	}
	// Out of range: ParseFloat returns ±Inf (or 0) with an error we ignore.
	f, _ := strconv.ParseFloat(string(s[start:end]), 64)
	return f, end
}

// exponentEnd is the end of an exponent (e or E, a sign, digits) at s[i:],
// or i where none is there.
func exponentEnd(s []byte, i int) int {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j {
		return i
	}
	return k
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// AppendFloat formats a DOUBLE as gsql prints it (MySQL's style): the
// shortest digits that read back to the same value, plain notation for
// decimal exponents in [-4, 15), else d.ddde[-]x without a plus sign or
// leading exponent zeros (1e20, 1.5e-7); negative zero is -0. NaN and
// infinities, which MySQL never produces, print as NaN, Infinity and
// -Infinity.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // -d.ddde±xx
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	// Split into significant digits and the decimal exponent.
	var digs [24]byte
	nd := 0
	k := 0
	for ; s[k] != 'e'; k++ {
		if s[k] != '.' {
			digs[nd] = s[k]
			nd++
		}
	}
	exp := 0
	eneg := s[k+1] == '-'
	for _, c := range s[k+2:] {
		exp = exp*10 + int(c-'0')
	}
	if eneg {
		exp = -exp
	}
	d := digs[:nd]
	switch {
	case exp >= 15 || exp < -4:
		dst = append(dst, d[0])
		if nd > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	case exp < 0:
		dst = append(dst, '0', '.')
		for z := -exp - 1; z > 0; z-- {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	case nd <= exp+1:
		dst = append(dst, d...)
		for z := exp + 1 - nd; z > 0; z-- {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, d[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, d[exp+1:]...)
}
