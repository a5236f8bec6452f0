package expr

import (
	"math"

	"github.com/gsqlengine/gsql/coldata"
)

// Numeric functions. Integer arguments stay integers where MySQL keeps them
// exact (ABS, ROUND and TRUNCATE of a BIGINT, SIGN); FLOOR and CEIL return
// BIGINT as they do for MySQL's exact values.

func init() {
	unaryFloat := func(name string, f func(float64) (float64, bool)) {
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1,
			Check: Fixed(coldata.Float64, coldata.Float64),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				out := coldata.NewVec(coldata.Float64, n)
				out.Nulls = CombineNulls(args, n)
				for i := 0; i < n; i++ {
					if args[0].IsNull(i) {
						continue
					}
					v, ok := f(args[0].Float(i))
					if !ok {
						out.SetNull(i)
						continue
					}
					out.Floats[i] = v
				}
				return out, nil
			}})
	}
	unaryFloat("sqrt", func(x float64) (float64, bool) { return math.Sqrt(x), x >= 0 })
	unaryFloat("exp", func(x float64) (float64, bool) { return math.Exp(x), true })
	unaryFloat("ln", func(x float64) (float64, bool) { return math.Log(x), x > 0 })
	unaryFloat("log10", func(x float64) (float64, bool) { return math.Log10(x), x > 0 })
	Register(&Function{Name: "pi", MinArgs: 0, MaxArgs: 0, Check: Fixed(coldata.Float64),
		Eval: func(_ []*coldata.Vec, n int) (*coldata.Vec, error) {
			return coldata.NewConst(coldata.Float64, math.Pi, n), nil
		}})
	Register(&Function{Name: "power", MinArgs: 2, MaxArgs: 2, Check: Fixed(coldata.Float64, coldata.Float64, coldata.Float64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			out := floatBinary(args[0], args[1], n, math.Pow)
			for i := 0; i < n; i++ {
				if f := out.Floats[i]; math.IsNaN(f) || math.IsInf(f, 0) {
					out.SetNull(i)
				}
			}
			return out, nil
		}})
	Alias("pow", "power")

	intOrFloat := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := numericType(args[:1])
		want := []coldata.Type{t}
		if len(args) > 1 {
			want = append(want, coldata.Int64)
		}
		return t, want, nil
	}
	Register(&Function{Name: "abs", MinArgs: 1, MaxArgs: 1, Check: intOrFloat,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if args[0].Type == coldata.Int64 {
				zero := coldata.NewConst(coldata.Int64, int64(0), n)
				return intBinary(args[0], zero, n, func(x, _ int64) (int64, bool) {
					if x < 0 {
						return -x, x == math.MinInt64
					}
					return x, false
				})
			}
			return mapFloat(args[0], n, math.Abs), nil
		}})
	Register(&Function{Name: "sign", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Int64, coldata.Float64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			out := coldata.NewVec(coldata.Int64, n)
			out.Nulls = CombineNulls(args, n)
			for i := 0; i < n; i++ {
				switch f := args[0].Float(i); {
				case f > 0:
					out.Ints[i] = 1
				case f < 0:
					out.Ints[i] = -1
				}
			}
			return out, nil
		}})
	rounding := func(name string, toward func(float64) float64) {
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 2, Check: intOrFloat,
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				digits := func(i int) int64 {
					if len(args) > 1 {
						return args[1].Int(i)
					}
					return 0
				}
				out := coldata.NewVec(args[0].Type, n)
				out.Nulls = CombineNulls(args, n)
				for i := 0; i < n; i++ {
					d := digits(i)
					if args[0].Type == coldata.Int64 {
						x := args[0].Int(i)
						if d >= 0 {
							out.Ints[i] = x
							continue
						}
						if d < -18 {
							out.Ints[i] = 0
							continue
						}
						p := int64(math.Pow10(int(-d)))
						out.Ints[i] = int64(toward(float64(x)/float64(p))) * p
						continue
					}
					x := args[0].Float(i)
					if d > 30 {
						out.Floats[i] = x
						continue
					}
					p := math.Pow10(int(d))
					out.Floats[i] = toward(x*p) / p
				}
				return out, nil
			}})
	}
	rounding("round", math.Round)
	rounding("truncate", math.Trunc)
	toInt := func(name string, f func(float64) float64) {
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				t := numericType(args)
				return coldata.Int64, []coldata.Type{t}, nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				if args[0].Type == coldata.Int64 {
					return args[0], nil
				}
				out := coldata.NewVec(coldata.Int64, n)
				out.Nulls = CombineNulls(args, n)
				for i := 0; i < n; i++ {
					out.Ints[i] = FloatToInt(f(args[0].Float(i)))
				}
				return out, nil
			}})
	}
	toInt("floor", math.Floor)
	toInt("ceil", math.Ceil)
	Alias("ceiling", "ceil")
}

func mapFloat(v *coldata.Vec, n int, f func(float64) float64) *coldata.Vec {
	out := coldata.NewVec(coldata.Float64, n)
	out.Nulls = CombineNulls([]*coldata.Vec{v}, n)
	for i := 0; i < n; i++ {
		out.Floats[i] = f(v.Float(i))
	}
	return out
}
