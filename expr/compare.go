package expr

import (
	"bytes"

	"github.com/gsqlengine/gsql/coldata"
)

// compareType is the type both sides of a comparison convert to: strings
// compare as strings (bytewise), anything numeric against a string or a
// DOUBLE compares as DOUBLE, else as BIGINT — MySQL's rules.
func compareType(args []coldata.Type) coldata.Type {
	allStr := true
	for _, t := range args {
		if t != coldata.String && t != coldata.Null {
			allStr = false
		}
	}
	if allStr {
		for _, t := range args {
			if t == coldata.String {
				return coldata.String
			}
		}
	}
	return numericType(args)
}

func init() {
	type cmp struct {
		name string
		ok   func(c int) bool
	}
	for _, c := range []cmp{
		{"=", func(c int) bool { return c == 0 }},
		{"<>", func(c int) bool { return c != 0 }},
		{"<", func(c int) bool { return c < 0 }},
		{"<=", func(c int) bool { return c <= 0 }},
		{">", func(c int) bool { return c > 0 }},
		{">=", func(c int) bool { return c >= 0 }},
	} {
		c := c
		Register(&Function{Name: c.name, Infix: true, MinArgs: 2, MaxArgs: 2,
			Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
				return coldata.Bool, sameTypes(compareType(args), 2), nil
			},
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				return compareVecs(args[0], args[1], n, c.name, c.ok), nil
			}})
	}
	Alias("!=", "<>")
	Register(&Function{Name: "<=>", Infix: true, MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.Bool, sameTypes(compareType(args), 2), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			eq := compareVecs(args[0], args[1], n, "=", func(c int) bool { return c == 0 })
			out := coldata.NewVec(coldata.Bool, n)
			for i := 0; i < n; i++ {
				an, bn := args[0].IsNull(i), args[1].IsNull(i)
				if (an && bn) || (!an && !bn && eq.Bool(i)) {
					out.Bools[i] = 1
				}
			}
			return out, nil
		}})
}

// compareVecs compares two vectors of one type row by row. The common
// shapes (string or integer column against a constant) have their own loops.
func compareVecs(a, b *coldata.Vec, n int, op string, ok func(int) bool) *coldata.Vec {
	out := coldata.NewVec(coldata.Bool, n)
	out.Nulls = CombineNulls([]*coldata.Vec{a, b}, n)
	res := out.Bools
	switch a.Type {
	case coldata.String:
		if b.Const && !a.Const && (op == "=" || op == "<>") {
			needle := b.Str(0)
			want := byte(1)
			if op == "<>" {
				want = 0
			}
			offs, data := a.Offsets, a.Bytes
			for i := 0; i < n; i++ {
				s := data[offs[i]:offs[i+1]]
				if len(s) == len(needle) && bytes.Equal(s, needle) {
					res[i] = want
				} else {
					res[i] = 1 - want
				}
			}
			return out
		}
		for i := 0; i < n; i++ {
			if ok(bytes.Compare(a.Str(i), b.Str(i))) {
				res[i] = 1
			}
		}
	case coldata.Int64:
		if b.Const && !a.Const {
			y := b.Ints[0]
			for i, x := range a.Ints[:n] {
				if ok(cmpInt(x, y)) {
					res[i] = 1
				}
			}
			return out
		}
		for i := 0; i < n; i++ {
			if ok(cmpInt(a.Int(i), b.Int(i))) {
				res[i] = 1
			}
		}
	case coldata.Float64:
		for i := 0; i < n; i++ {
			x, y := a.Float(i), b.Float(i)
			c := 0
			switch {
			case x < y:
				c = -1
			case x > y:
				c = 1
			case x != y: // NaN compares unequal to everything
				c = 2
			}
			if c == 2 {
				if op == "<>" {
					res[i] = 1
				}
				continue
			}
			if ok(c) {
				res[i] = 1
			}
		}
	case coldata.Bool:
		for i := 0; i < n; i++ {
			if ok(int(a.Bools[idxOf(a, i)]) - int(b.Bools[idxOf(b, i)])) {
				res[i] = 1
			}
		}
	case coldata.Null:
		out.Nulls = make([]byte, coldata.BitmapLen(n))
	}
	return out
}

func idxOf(v *coldata.Vec, i int) int {
	if v.Const {
		return 0
	}
	return i
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
