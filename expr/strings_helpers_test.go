package expr

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// strCase is one row of a string-function table: the arguments (string,
// int64/int or nil for NULL) and the expected value (string, int64, bool,
// nil for NULL, or strErr for an error).
type strCase struct {
	args []any
	want any
}

// strErr marks a case whose evaluation must fail.
type strErr struct{}

// strVec builds a non-constant vector of type t from Go values (nil = NULL).
func strVec(t coldata.Type, vals ...any) *coldata.Vec {
	b := coldata.NewBuilder(t, len(vals))
	for _, v := range vals {
		if i, ok := v.(int); ok {
			v = int64(i)
		}
		b.AppendValue(v)
	}
	return b.Finish()
}

// strConst builds a constant vector of n rows.
func strConst(t coldata.Type, v any, n int) *coldata.Vec {
	if i, ok := v.(int); ok {
		v = int64(i)
	}
	return coldata.NewConst(t, v, n)
}

// strFn looks up a registered function or fails the test.
func strFn(t *testing.T, name string) *Function {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("function %q is not registered", name)
	}
	return f
}

// strSig maps a signature such as "SIS" to argument types.
func strSig(sig string, nargs int) []coldata.Type {
	out := make([]coldata.Type, nargs)
	for i := range out {
		c := sig[len(sig)-1]
		if i < len(sig) {
			c = sig[i]
		}
		switch c {
		case 'S':
			out[i] = coldata.String
		case 'I':
			out[i] = coldata.Int64
		}
	}
	return out
}

func strNorm(v any) any {
	if i, ok := v.(int); ok {
		return int64(i)
	}
	return v
}

func strShow(v any) string {
	if s, ok := v.(string); ok && len(s) > 80 {
		return fmt.Sprintf("%q...(%d bytes)", s[:80], len(s))
	}
	return fmt.Sprintf("%#v", v)
}

// strCheckRow compares row i of got with want.
func strCheckRow(t *testing.T, ctx string, got *coldata.Vec, i int, want any) {
	t.Helper()
	g := got.Value(i)
	if !reflect.DeepEqual(g, strNorm(want)) {
		t.Errorf("%s: got %s, want %s", ctx, strShow(g), strShow(strNorm(want)))
	}
}

// strRunTable evaluates every case of a function table in four ways: all
// cases as one batch of non-constant columns, each case with every
// argument constant, each case with the first argument a non-constant
// column and the rest constant, and each case with the first argument
// constant and the rest non-constant columns.
func strRunTable(t *testing.T, name, sig string, cases []strCase) {
	t.Helper()
	f := strFn(t, name)
	// 1. One batch per argument count, columns non-constant.
	byArity := map[int][]int{}
	for k, c := range cases {
		byArity[len(c.args)] = append(byArity[len(c.args)], k)
	}
	for nargs, idx := range byArity {
		types := strSig(sig, nargs)
		hasErr := false
		for _, k := range idx {
			if _, ok := cases[k].want.(strErr); ok {
				hasErr = true
			}
		}
		if hasErr {
			continue // error cases run one by one below
		}
		args := make([]*coldata.Vec, nargs)
		for a := range args {
			vals := make([]any, len(idx))
			for r, k := range idx {
				vals[r] = cases[k].args[a]
			}
			args[a] = strVec(types[a], vals...)
		}
		got, err := f.Eval(args, len(idx))
		if err != nil {
			t.Errorf("%s batch of %d args: %v", name, nargs, err)
			continue
		}
		if got.Len != len(idx) && !got.Const {
			t.Errorf("%s batch: %d rows, want %d", name, got.Len, len(idx))
			continue
		}
		for r, k := range idx {
			strCheckRow(t, fmt.Sprintf("%s%v (batch row %d)", name, cases[k].args, r), got, r, cases[k].want)
		}
	}
	// 2-4. Constant and mixed argument vectors, 3 rows each.
	const n = 3
	for _, c := range cases {
		types := strSig(sig, len(c.args))
		for mode := 0; mode < 3; mode++ {
			args := make([]*coldata.Vec, len(c.args))
			for a, v := range c.args {
				col := (mode == 1 && a == 0) || (mode == 2 && a > 0)
				if col {
					args[a] = strVec(types[a], v, v, v)
				} else {
					args[a] = strConst(types[a], v, n)
				}
			}
			ctx := fmt.Sprintf("%s%v (mode %d)", name, c.args, mode)
			got, err := f.Eval(args, n)
			if _, wantErr := c.want.(strErr); wantErr {
				if err == nil {
					t.Errorf("%s: no error, want one", ctx)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", ctx, err)
				continue
			}
			for r := 0; r < n; r++ {
				strCheckRow(t, ctx, got, r, c.want)
			}
		}
	}
}
