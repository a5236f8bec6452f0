package expr

import (
	"bytes"

	"github.com/gsqlengine/gsql/coldata"
)

// Three-valued logic, NULL tests and IN.

func init() {
	logic := func(name string, isAnd bool) {
		Register(&Function{Name: name, Infix: true, MinArgs: 2, MaxArgs: 2,
			Check: Fixed(coldata.Bool, coldata.Bool, coldata.Bool),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				a, b := args[0], args[1]
				out := coldata.NewVec(coldata.Bool, n)
				var nulls []byte
				for i := 0; i < n; i++ {
					an, bn := a.IsNull(i), b.IsNull(i)
					av, bv := !an && a.Bool(i), !bn && b.Bool(i)
					var v, null bool
					if isAnd {
						// FALSE wins; else NULL if either is NULL.
						falseSeen := (!an && !av) || (!bn && !bv)
						v, null = !falseSeen && !an && !bn, !falseSeen && (an || bn)
					} else {
						trueSeen := av || bv
						v, null = trueSeen, !trueSeen && (an || bn)
					}
					if v {
						out.Bools[i] = 1
					}
					if null {
						if nulls == nil {
							nulls = coldata.NewValidBitmap(n)
						}
						coldata.ClearBit(nulls, i)
					}
				}
				out.Nulls = nulls
				return out, nil
			}})
	}
	logic("and", true)
	logic("or", false)
	Register(&Function{Name: "xor", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: Fixed(coldata.Bool, coldata.Bool, coldata.Bool),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			out := coldata.NewVec(coldata.Bool, n)
			out.Nulls = CombineNulls(args, n)
			for i := 0; i < n; i++ {
				if args[0].Bool(i) != args[1].Bool(i) {
					out.Bools[i] = 1
				}
			}
			return out, nil
		}})
	Register(&Function{Name: "not", MinArgs: 1, MaxArgs: 1,
		Check: Fixed(coldata.Bool, coldata.Bool),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			out := coldata.NewVec(coldata.Bool, n)
			out.Nulls = CombineNulls(args, n)
			for i := 0; i < n; i++ {
				if !args[0].Bool(i) {
					out.Bools[i] = 1
				}
			}
			return out, nil
		}})
	test := func(name string, want func(null, val bool) bool, asBool bool) {
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				if asBool {
					return coldata.Bool, []coldata.Type{coldata.Bool}, nil
				}
				return coldata.Bool, []coldata.Type{args[0]}, nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				out := coldata.NewVec(coldata.Bool, n)
				for i := 0; i < n; i++ {
					null := args[0].IsNull(i)
					val := asBool && !null && args[0].Bool(i)
					if want(null, val) {
						out.Bools[i] = 1
					}
				}
				return out, nil
			}})
	}
	test("is_null", func(null, _ bool) bool { return null }, false)
	test("is_not_null", func(null, _ bool) bool { return !null }, false)
	test("is_true", func(null, v bool) bool { return !null && v }, true)
	test("is_false", func(null, v bool) bool { return !null && !v }, true)
	test("is_not_true", func(null, v bool) bool { return null || !v }, true)
	test("is_not_false", func(null, v bool) bool { return null || v }, true)

	Register(&Function{Name: "in", MinArgs: 2, MaxArgs: -1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.Bool, sameTypes(compareType(args), len(args)), nil
		},
		Eval: evalIn})
}

// evalIn is MySQL's IN: TRUE when x equals an item, else NULL when x or any
// item is NULL, else FALSE. A list of constants is hashed once.
func evalIn(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	x, list := args[0], args[1:]
	out := coldata.NewVec(coldata.Bool, n)
	var nulls []byte
	setNull := func(i int) {
		if nulls == nil {
			nulls = coldata.NewValidBitmap(n)
		}
		coldata.ClearBit(nulls, i)
	}
	allConst := AllConst(list)
	if allConst && x.Type != coldata.Float64 {
		set := map[string]struct{}{}
		listNull := false
		var key []byte
		for _, v := range list {
			if v.IsNull(0) {
				listNull = true
				continue
			}
			key = appendKey(key[:0], v, 0)
			set[string(key)] = struct{}{}
		}
		for i := 0; i < n; i++ {
			if x.IsNull(i) {
				setNull(i)
				continue
			}
			key = appendKey(key[:0], x, i)
			if _, ok := set[string(key)]; ok {
				out.Bools[i] = 1
			} else if listNull {
				setNull(i)
			}
		}
		out.Nulls = nulls
		return out, nil
	}
	for i := 0; i < n; i++ {
		if x.IsNull(i) {
			setNull(i)
			continue
		}
		found, sawNull := false, false
		for _, v := range list {
			if v.IsNull(i) {
				sawNull = true
				continue
			}
			if equalAt(x, i, v, i) {
				found = true
				break
			}
		}
		if found {
			out.Bools[i] = 1
		} else if sawNull {
			setNull(i)
		}
	}
	out.Nulls = nulls
	return out, nil
}

// appendKey encodes a non-NULL value for hashing (one type per list).
func appendKey(dst []byte, v *coldata.Vec, i int) []byte {
	switch v.Type {
	case coldata.String:
		return append(dst, v.Str(i)...)
	case coldata.Bool:
		return append(dst, v.Bools[idxOf(v, i)])
	}
	x := uint64(v.Int(i))
	return append(dst, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
}

// equalAt compares two non-NULL values of one type.
func equalAt(a *coldata.Vec, i int, b *coldata.Vec, j int) bool {
	switch a.Type {
	case coldata.String:
		return bytes.Equal(a.Str(i), b.Str(j))
	case coldata.Int64:
		return a.Int(i) == b.Int(j)
	case coldata.Float64:
		return a.Float(i) == b.Float(j)
	case coldata.Bool:
		return a.Bool(i) == b.Bool(j)
	}
	return false
}
