package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
)

// Conversions, MySQL style: CAST('12abc' AS SIGNED) is 12, 'abc' is 0, a
// DOUBLE rounds half away from zero to BIGINT, booleans are 1 and 0.

func init() {
	for _, t := range []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String} {
		target := t
		Register(&Function{Name: CastFuncName(target), MinArgs: 1, MaxArgs: 1,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				return target, []coldata.Type{args[0]}, nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return castVec(args[0], target, n), nil }})
	}
}

// castVec converts n rows of v to type t.
func castVec(v *coldata.Vec, t coldata.Type, n int) *coldata.Vec {
	if v.Type == t {
		return v
	}
	if v.Type == coldata.Null {
		return coldata.NewConst(t, nil, n)
	}
	rows := n
	if v.Const {
		rows = 1
	}
	var out *coldata.Vec
	switch t {
	case coldata.Int64:
		out = coldata.NewVec(coldata.Int64, rows)
		for i := 0; i < rows; i++ {
			out.Ints[i] = toInt(v, i)
		}
	case coldata.Float64:
		out = coldata.NewVec(coldata.Float64, rows)
		for i := 0; i < rows; i++ {
			out.Floats[i] = toFloat(v, i)
		}
	case coldata.Bool:
		out = coldata.NewVec(coldata.Bool, rows)
		for i := 0; i < rows; i++ {
			if toBool(v, i) {
				out.Bools[i] = 1
			}
		}
	case coldata.String:
		valid := v.Nulls
		if v.Const && v.IsNull(0) {
			valid = []byte{0}
		}
		var buf []byte
		out = BuildStrings(rows, valid,
			func(i int) int { buf = appendText(buf[:0], v, i); return len(buf) },
			func(i int, dst []byte) { buf = appendText(buf[:0], v, i); copy(dst, buf) })
	}
	if t != coldata.String && v.Nulls != nil {
		if v.Const {
			out.Nulls = append([]byte(nil), v.Nulls[0]&1)
		} else {
			out.Nulls = v.Nulls
		}
	}
	if v.Const {
		out.Const, out.Len = true, n
	}
	return out
}

// toInt reads row i as a BIGINT.
func toInt(v *coldata.Vec, i int) int64 {
	switch v.Type {
	case coldata.Int64:
		return v.Int(i)
	case coldata.Float64:
		return FloatToInt(v.Float(i))
	case coldata.Bool:
		if v.Bool(i) {
			return 1
		}
		return 0
	case coldata.String:
		return ParseIntPrefix(v.Str(i))
	}
	return 0
}

// toFloat reads row i as a DOUBLE.
func toFloat(v *coldata.Vec, i int) float64 {
	switch v.Type {
	case coldata.Int64:
		return float64(v.Int(i))
	case coldata.Float64:
		return v.Float(i)
	case coldata.Bool:
		if v.Bool(i) {
			return 1
		}
		return 0
	case coldata.String:
		return ParseFloatPrefix(v.Str(i))
	}
	return 0
}

// toBool reads row i as a BOOLEAN: nonzero is TRUE.
func toBool(v *coldata.Vec, i int) bool {
	switch v.Type {
	case coldata.Bool:
		return v.Bool(i)
	case coldata.Int64:
		return v.Int(i) != 0
	case coldata.Float64:
		return v.Float(i) != 0
	case coldata.String:
		return ParseFloatPrefix(v.Str(i)) != 0
	}
	return false
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

// ParseIntPrefix reads the integer at the start of s (after spaces), as
// MySQL converts a string to BIGINT: '12abc' is 12, '3.7' is 3, 'abc' is 0;
// out-of-range values clamp.
func ParseIntPrefix(s []byte) int64 {
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
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		u = u*10 + d
	}
	switch {
	case neg && (over || u > 1<<63):
		return math.MinInt64
	case neg:
		return -int64(u)
	case over || u > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(u)
}

// ParseFloatPrefix reads the longest number at the start of s (after
// spaces): '1e3x' is 1000, '.5' is 0.5, 'abc' is 0.
func ParseFloatPrefix(s []byte) float64 {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			end = k
		}
	}
	f, err := strconv.ParseFloat(string(s[start:end]), 64)
	if err != nil {
		// Out of range: ParseFloat returns ±Inf with the error.
		return f
	}
	return f
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// appendText appends row i as text.
func appendText(dst []byte, v *coldata.Vec, i int) []byte {
	switch v.Type {
	case coldata.String:
		return append(dst, v.Str(i)...)
	case coldata.Int64:
		return strconv.AppendInt(dst, v.Int(i), 10)
	case coldata.Float64:
		return AppendFloat(dst, v.Float(i))
	case coldata.Bool:
		if v.Bool(i) {
			return append(dst, '1')
		}
		return append(dst, '0')
	}
	return dst
}

// AppendFloat formats a DOUBLE as MySQL prints it: the shortest digits that
// round-trip, plain notation for exponents in [-4, 15), else d.ddde±x
// without a plus sign or leading exponent zeros (1e20, 1.5e-7).
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		return append(dst, '0')
	}
	exp := int(math.Floor(math.Log10(math.Abs(f))))
	if exp >= -4 && exp < 15 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, e, _ := strings.Cut(s, "e")
	sign := ""
	if strings.HasPrefix(e, "-") {
		sign = "-"
	}
	e = strings.TrimLeft(strings.TrimLeft(e, "+-"), "0")
	if e == "" {
		e = "0"
	}
	return append(dst, mant+"e"+sign+e...)
}
