package expr

import (
	"errors"
	"math"

	"github.com/gsqlengine/gsql/coldata"
)

// ErrOutOfRange is a BIGINT result that does not fit, as MySQL reports it.
var ErrOutOfRange = errors.New("BIGINT value is out of range")

// numericType is the type arithmetic and comparison convert numbers to:
// BIGINT when every argument is an integer, boolean or NULL, else DOUBLE
// (strings convert to DOUBLE, as in MySQL).
func numericType(args []coldata.Type) coldata.Type {
	for _, t := range args {
		if t == coldata.Float64 || t == coldata.String {
			return coldata.Float64
		}
	}
	return coldata.Int64
}

func sameTypes(t coldata.Type, n int) []coldata.Type {
	out := make([]coldata.Type, n)
	for i := range out {
		out[i] = t
	}
	return out
}

func init() {
	arith := func(name string, intOp func(a, b int64) (int64, bool), floatOp func(a, b float64) float64) {
		Register(&Function{Name: name, Infix: true, MinArgs: 2, MaxArgs: 2,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				t := numericType(args)
				return t, sameTypes(t, 2), nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				if args[0].Type == coldata.Int64 {
					return intBinary(args[0], args[1], n, intOp)
				}
				return floatBinary(args[0], args[1], n, floatOp), nil
			}})
	}
	arith("+", func(a, b int64) (int64, bool) {
		r := a + b
		return r, (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0)
	}, func(a, b float64) float64 { return a + b })
	arith("-", func(a, b int64) (int64, bool) {
		r := a - b
		return r, (a >= 0) != (b >= 0) && (r >= 0) != (a >= 0)
	}, func(a, b float64) float64 { return a - b })
	arith("*", func(a, b int64) (int64, bool) {
		if a == 0 || b == 0 {
			return 0, false
		}
		r := a * b
		return r, r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)
	}, func(a, b float64) float64 { return a * b })

	Register(&Function{Name: "/", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.Float64, sameTypes(coldata.Float64, 2), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return divLike(args[0], args[1], n, func(a, b float64) float64 { return a / b }), nil
		}})
	Register(&Function{Name: "%", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			t := numericType(args)
			return t, sameTypes(t, 2), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type == coldata.Float64 {
				return divLike(args[0], args[1], n, math.Mod), nil
			}
			return intDivLike(args[0], args[1], n, func(a, b int64) (int64, bool) {
				if b == -1 {
					return 0, false
				}
				return a % b, false
			})
		}})
	Alias("mod", "%")
	Register(&Function{Name: "div", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			t := numericType(args)
			return coldata.Int64, sameTypes(t, 2), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type == coldata.Float64 {
				// MySQL divides exactly and truncates: 7.5 DIV 2 = 3.
				q := divLike(args[0], args[1], n, func(a, b float64) float64 { return math.Trunc(a / b) })
				out := coldata.NewVec(coldata.Int64, q.Len)
				for i := 0; i < q.Len; i++ {
					f := q.Floats[i]
					if !q.IsNull(i) && (f >= 9.223372036854775807e18 || f < -9.223372036854775808e18) {
						return nil, ErrOutOfRange
					}
					out.Ints[i] = int64(f)
				}
				out.Nulls, out.Const, out.Len = q.Nulls, q.Const, q.Len
				return out, nil
			}
			return intDivLike(args[0], args[1], n, func(a, b int64) (int64, bool) {
				if b == -1 {
					return -a, a == math.MinInt64
				}
				return a / b, false
			})
		}})
	Register(&Function{Name: "neg", MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			t := numericType(args)
			return t, []coldata.Type{t}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			zero := coldata.NewConst(args[0].Type, int64(0), n)
			if args[0].Type == coldata.Float64 {
				out := coldata.NewVec(coldata.Float64, n)
				for i := 0; i < n; i++ {
					out.Floats[i] = -args[0].Float(i)
				}
				out.Nulls = CombineNulls(args, n)
				return out, nil
			}
			return intBinary(zero, args[0], n, func(a, b int64) (int64, bool) {
				return -b, b == math.MinInt64
			})
		}})
}

// intBinary applies op to two BIGINT vectors; op reports overflow, which is
// an error for non-NULL rows.
func intBinary(a, b *coldata.Vec, n int, op func(x, y int64) (int64, bool)) (*coldata.Vec, error) {
	out := coldata.NewVec(coldata.Int64, n)
	valid := CombineNulls([]*coldata.Vec{a, b}, n)
	out.Nulls = valid
	res := out.Ints
	overflow := false
	switch {
	case !a.Const && !b.Const:
		x, y := a.Ints[:n], b.Ints[:n]
		for i := range res {
			r, o := op(x[i], y[i])
			res[i] = r
			if o && (valid == nil || coldata.BitIsSet(valid, i)) {
				overflow = true
			}
		}
	case b.Const:
		y := b.Ints[0]
		for i := range res {
			r, o := op(a.Int(i), y)
			res[i] = r
			if o && (valid == nil || coldata.BitIsSet(valid, i)) {
				overflow = true
			}
		}
	default:
		x := a.Ints[0]
		for i := range res {
			r, o := op(x, b.Ints[i])
			res[i] = r
			if o && (valid == nil || coldata.BitIsSet(valid, i)) {
				overflow = true
			}
		}
	}
	if overflow {
		return nil, ErrOutOfRange
	}
	return out, nil
}

// floatBinary applies op to two DOUBLE vectors.
func floatBinary(a, b *coldata.Vec, n int, op func(x, y float64) float64) *coldata.Vec {
	out := coldata.NewVec(coldata.Float64, n)
	out.Nulls = CombineNulls([]*coldata.Vec{a, b}, n)
	res := out.Floats
	switch {
	case !a.Const && !b.Const:
		x, y := a.Floats[:n], b.Floats[:n]
		for i := range res {
			res[i] = op(x[i], y[i])
		}
	case b.Const:
		y := b.Floats[0]
		for i := range res {
			res[i] = op(a.Float(i), y)
		}
	default:
		x := a.Floats[0]
		for i := range res {
			res[i] = op(x, b.Floats[i])
		}
	}
	return out
}

// divLike is floatBinary where a zero divisor gives NULL.
func divLike(a, b *coldata.Vec, n int, op func(x, y float64) float64) *coldata.Vec {
	out := floatBinary(a, b, n, func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return op(x, y)
	})
	for i := 0; i < n; i++ {
		if b.Float(i) == 0 && !b.IsNull(i) {
			out.SetNull(i)
		}
	}
	return out
}

// intDivLike is intBinary where a zero divisor gives NULL.
func intDivLike(a, b *coldata.Vec, n int, op func(x, y int64) (int64, bool)) (*coldata.Vec, error) {
	out, err := intBinary(a, b, n, func(x, y int64) (int64, bool) {
		if y == 0 {
			return 0, false
		}
		return op(x, y)
	})
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if b.Int(i) == 0 && !b.IsNull(i) {
			out.SetNull(i)
		}
	}
	return out, nil
}
