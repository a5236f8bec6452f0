package expr_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// FuzzEval builds a random expression from the fuzz bytes over a random
// batch and checks the vectorised evaluation against a row-at-a-time
// reference: every row evaluated alone, as a one-row batch. The kernels'
// constant, sliced and whole-vector paths must all agree.
func FuzzEval(f *testing.F) {
	for _, seed := range [][]byte{{1, 2, 3}, {7, 0, 9, 4, 2}, {30, 31, 32, 33, 34, 35}, {200, 100, 50, 25, 12, 6, 3}} {
		f.Add(seed, int64(1))
	}
	names := []string{"+", "-", "*", "/", "div", "%", "=", "<>", "<", ">=", "<=>", "and", "or", "not", "is_null",
		"in", "case", "if", "ifnull", "coalesce", "nullif", "greatest", "least", "abs", "round", "cast_to_varchar",
		"cast_to_bigint", "cast_to_double", "length", "char_length", "upper", "lower", "substring", "left", "right",
		"concat", "concat_ws", "substring_index", "split_part", "locate", "replace", "trim", "lpad", "reverse",
		"starts_with", "contains", "like", "strcmp"}
	f.Fuzz(func(t *testing.T, prog []byte, seed int64) {
		if len(prog) > 64 {
			prog = prog[:64]
		}
		b := fusetest.Batch(40, seed)
		pos := 0
		next := func() int {
			if pos >= len(prog) {
				return 0
			}
			pos++
			return int(prog[pos-1])
		}
		var build func(depth int) expr.Expr
		build = func(depth int) expr.Expr {
			op := next()
			if depth > 3 || op%4 == 0 {
				switch op % 3 {
				case 0:
					return fusetest.Col(op % len(fusetest.Types))
				case 1:
					return fusetest.Lit(op%9 - 4)
				}
				return fusetest.Lit([]string{"", "a", " ", "é", "%a_", "ab"}[op%6])
			}
			fn, _ := expr.Lookup(names[op%len(names)])
			nargs := fn.MinArgs
			if fn.MaxArgs < 0 || fn.MaxArgs > nargs {
				nargs += next() % 2
			}
			args := make([]expr.Expr, nargs)
			for i := range args {
				args[i] = build(depth + 1)
			}
			e, err := expr.NewCall(fn, args)
			if err != nil {
				return fusetest.Col(fusetest.A)
			}
			return e
		}
		e := build(0)
		whole, err := expr.Eval(e, b)
		if err != nil {
			return // errors (overflow, too long) are allowed; panics are not
		}
		for i := 0; i < b.Len; i++ {
			row := coldata.GatherBatch(b, []int{i})
			one, err := expr.Eval(e, row)
			if err != nil {
				t.Fatalf("%s: row %d fails alone (%v) but not in the batch", e, i, err)
			}
			if !sameValue(whole.Value(i), one.Value(0)) {
				t.Fatalf("%s: row %d is %#v in the batch, %#v alone", e, i, whole.Value(i), one.Value(0))
			}
		}
	})
}

func sameValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok {
			return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
		}
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && (a == nil) == (b == nil)
}
