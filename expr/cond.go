package expr

import (
	"bytes"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// Conditionals: CASE, IF, IFNULL, COALESCE, NULLIF, GREATEST, LEAST — the
// copy_if_else kernels: each output row is copied from the argument vector
// a mask selects, strings in two passes.

func init() {
	Register(&Function{Name: "case", MinArgs: 1, MaxArgs: -1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			var vals []coldata.Type
			for i := 1; i < len(args); i += 2 {
				vals = append(vals, args[i])
			}
			if len(args)%2 == 1 {
				vals = append(vals, args[len(args)-1])
			}
			t := Unify(vals...)
			want := make([]coldata.Type, len(args))
			for i := range args {
				switch {
				case i%2 == 0 && i+1 < len(args):
					want[i] = coldata.Bool
				default:
					want[i] = t
				}
			}
			if len(args) < 2 {
				return 0, nil, fmt.Errorf("CASE needs at least one WHEN")
			}
			return t, want, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			var conds, vals []*coldata.Vec
			for i := 0; i+1 < len(args); i += 2 {
				conds = append(conds, args[i])
				vals = append(vals, args[i+1])
			}
			var elseV *coldata.Vec
			if len(args)%2 == 1 {
				elseV = args[len(args)-1]
			}
			pick := make([]int32, n)
			for i := 0; i < n; i++ {
				pick[i] = -1
				for k, c := range conds {
					if !c.IsNull(i) && c.Bool(i) {
						pick[i] = int32(k)
						break
					}
				}
			}
			return choose(vals, elseV, pick, n)
		}})
	Register(&Function{Name: "if", MinArgs: 3, MaxArgs: 3,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			t := Unify(args[1:]...)
			return t, []coldata.Type{coldata.Bool, t, t}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			pick := make([]int32, n)
			for i := 0; i < n; i++ {
				pick[i] = 1
				if !args[0].IsNull(i) && args[0].Bool(i) {
					pick[i] = 0
				}
			}
			return choose(args[1:], nil, pick, n)
		}})
	coalesce := func(name string, min, max int) {
		Register(&Function{Name: name, MinArgs: min, MaxArgs: max,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				t := Unify(args...)
				return t, sameTypes(t, len(args)), nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				pick := make([]int32, n)
				for i := 0; i < n; i++ {
					pick[i] = -1
					for k, a := range args {
						if !a.IsNull(i) {
							pick[i] = int32(k)
							break
						}
					}
				}
				return choose(args, nil, pick, n)
			}})
	}
	coalesce("coalesce", 1, -1)
	coalesce("ifnull", 2, 2)
	Register(&Function{Name: "nullif", MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return args[0], []coldata.Type{args[0], args[1]}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			a, b := args[0], args[1]
			ct := compareType([]coldata.Type{a.Type, b.Type})
			ca, cb := castVec(a, ct, n), castVec(b, ct, n)
			eq := compareVecs(ca, cb, n, "=", func(c int) bool { return c == 0 })
			pick := make([]int32, n)
			for i := 0; i < n; i++ {
				if !eq.IsNull(i) && eq.Bool(i) {
					pick[i] = -1
				}
			}
			return choose([]*coldata.Vec{a}, nil, pick, n)
		}})
	extreme := func(name string, greater bool) {
		Register(&Function{Name: name, MinArgs: 2, MaxArgs: -1,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				t := compareType(args)
				return t, sameTypes(t, len(args)), nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				pick := make([]int32, n)
				for i := 0; i < n; i++ {
					best := int32(0)
					for k, a := range args {
						if a.IsNull(i) {
							best = -1
							break
						}
						c := compareAt(a, i, args[best], i)
						if (greater && c > 0) || (!greater && c < 0) {
							best = int32(k)
						}
					}
					pick[i] = best
				}
				return choose(args, nil, pick, n)
			}})
	}
	extreme("greatest", true)
	extreme("least", false)
}

// compareAt orders two non-NULL values of one type.
func compareAt(a *coldata.Vec, i int, b *coldata.Vec, j int) int {
	switch a.Type {
	case coldata.String:
		return bytes.Compare(a.Str(i), b.Str(j))
	case coldata.Int64:
		return cmpInt(a.Int(i), b.Int(j))
	case coldata.Float64:
		x, y := a.Float(i), b.Float(j)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	case coldata.Bool:
		return int(a.Bools[idxOf(a, i)]) - int(b.Bools[idxOf(b, j)])
	}
	return 0
}

// choose builds a vector whose row i is row i of vals[pick[i]], of elseV
// when pick[i] is -1 and elseV is set, else NULL.
func choose(vals []*coldata.Vec, elseV *coldata.Vec, pick []int32, n int) (*coldata.Vec, error) {
	t := coldata.Null
	for _, v := range vals {
		if v.Type != coldata.Null {
			t = v.Type
		}
	}
	if elseV != nil && elseV.Type != coldata.Null {
		t = elseV.Type
	}
	if t == coldata.Null {
		return coldata.NewConst(coldata.Null, nil, n), nil
	}
	src := func(i int) *coldata.Vec {
		if p := pick[i]; p >= 0 {
			return vals[p]
		}
		return elseV
	}
	valid := coldata.NewValidBitmap(n)
	anyNull := false
	for i := 0; i < n; i++ {
		if s := src(i); s == nil || s.Type == coldata.Null || s.IsNull(i) {
			coldata.ClearBit(valid, i)
			anyNull = true
		}
	}
	if !anyNull {
		valid = nil
	}
	if t == coldata.String {
		return BuildStrings(n, valid,
			func(i int) int { return len(src(i).Str(i)) },
			func(i int, dst []byte) { copy(dst, src(i).Str(i)) }), nil
	}
	out := coldata.NewVec(t, n)
	out.Nulls = valid
	for i := 0; i < n; i++ {
		s := src(i)
		if s == nil || s.Type == coldata.Null || s.IsNull(i) {
			continue
		}
		switch t {
		case coldata.Int64:
			out.Ints[i] = s.Int(i)
		case coldata.Float64:
			out.Floats[i] = s.Float(i)
		case coldata.Bool:
			out.Bools[i] = s.Bools[idxOf(s, i)]
		}
	}
	return out, nil
}
