package expr

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Test harness of the scalar operator kernels. Every case is run in several
// layouts so that each specialised loop is reached: all arguments as
// columns (every case of a table in one batch), all arguments constant, and
// each argument constant in turn with the others as columns. Calls are bound
// with NewCall, so the implicit casts the binder inserts run too.

// scCase is one row of a function table: arguments (nil = NULL, int,
// int64, float64, bool, string) and the expected value (nil = NULL, or
// scErr / scApprox).
type scCase struct {
	args []any
	want any
}

// scErr expects evaluation to fail with ErrOutOfRange.
type scErr struct{}

// scApprox expects a DOUBLE within 1e-12 relative of v.
type scApprox float64

// scTypes maps a signature such as "IF" to types: N null, B bool, I bigint,
// F double, S varchar; the last letter repeats.
func scTypes(sig string, n int) []coldata.Type {
	out := make([]coldata.Type, n)
	for i := range out {
		c := sig[len(sig)-1]
		if i < len(sig) {
			c = sig[i]
		}
		out[i] = map[byte]coldata.Type{'N': coldata.Null, 'B': coldata.Bool, 'I': coldata.Int64,
			'F': coldata.Float64, 'S': coldata.String}[c]
	}
	return out
}

// scNorm turns ints into int64.
func scNorm(v any) any {
	if i, ok := v.(int); ok {
		return int64(i)
	}
	return v
}

// scVec builds a non-constant vector of type t (nil = NULL).
func scVec(t coldata.Type, vals ...any) *coldata.Vec {
	if t == coldata.Null {
		v := coldata.NewVec(coldata.Null, len(vals))
		return v
	}
	b := coldata.NewBuilder(t, len(vals))
	for _, v := range vals {
		b.AppendValue(scNorm(v))
	}
	return b.Finish()
}

// scFn looks a function up or fails.
func scFn(t testing.TB, name string) *Function {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("function %q is not registered", name)
	}
	return f
}

// scBind binds name over arguments: constant positions become literals,
// the others column references to batch columns of the given types.
func scBind(t testing.TB, name string, types []coldata.Type, vals []any, constAt func(int) bool) (Expr, error) {
	t.Helper()
	args := make([]Expr, len(types))
	col := 0
	for j, ty := range types {
		if constAt(j) {
			args[j] = &Literal{Value: scNorm(vals[j]), T: ty}
			continue
		}
		args[j] = &ColumnRef{Index: col, Name: fmt.Sprintf("c%d", j), T: ty}
		col++
	}
	return NewCall(scFn(t, name), args)
}

// scShow renders a value for messages.
func scShow(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

// scMatch compares a result row with the expectation.
// scDec is an expected DECIMAL written as text; its digits after the
// point give the scale the result is compared at.
type scDec string

func scMatch(got, want any) bool {
	want = scNorm(want)
	switch w := want.(type) {
	case scDec:
		scale := 0
		if dot := strings.IndexByte(string(w), '.'); dot >= 0 {
			scale = len(w) - dot - 1
		}
		v, ok := decimal.Parse(string(w), scale)
		return ok && got == v
	case scApprox:
		g, ok := got.(float64)
		return ok && math.Abs(g-float64(w)) <= 1e-12*math.Max(1, math.Abs(float64(w)))
	case float64:
		g, ok := got.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(w) {
			return math.IsNaN(g)
		}
		return g == w && math.Signbit(g) == math.Signbit(w)
	}
	return got == want
}

// scEval binds and evaluates one layout over a batch of n rows whose
// column arguments take their values from rows(j).
func scEval(t testing.TB, name string, types []coldata.Type, vals []any, n int, constAt func(int) bool, rows func(j int) []any) (*coldata.Vec, error) {
	t.Helper()
	e, err := scBind(t, name, types, vals, constAt)
	if err != nil {
		return nil, err
	}
	var cols []*coldata.Vec
	for j, ty := range types {
		if !constAt(j) {
			cols = append(cols, scVec(ty, rows(j)...))
		}
	}
	if len(cols) == 0 {
		cols = append(cols, scVec(coldata.Int64, make([]any, n)...))
	}
	out, err := Eval(e, coldata.NewBatch(cols, n))
	if err != nil {
		return nil, err
	}
	if out.Len != n {
		t.Fatalf("%s: result has %d rows, want %d", e, out.Len, n)
	}
	return out, nil
}

// scRun checks every case of a table in every layout.
func scRun(t *testing.T, name, sig string, cases []scCase) {
	t.Helper()
	var good []scCase
	for _, c := range cases {
		if _, isErr := c.want.(scErr); !isErr {
			good = append(good, c)
		}
	}
	// All cases as rows of one batch of columns.
	if len(good) > 0 {
		types := scTypes(sig, len(good[0].args))
		out, err := scEval(t, name, types, good[0].args, len(good), func(int) bool { return false }, func(j int) []any {
			col := make([]any, len(good))
			for i, c := range good {
				col[i] = c.args[j]
			}
			return col
		})
		if err != nil {
			t.Fatalf("%s%v as columns: %v", name, good[0].args, err)
		}
		for i, c := range good {
			if got := out.Value(i); !scMatch(got, c.want) {
				t.Errorf("%s%v (columns, row %d) = %s, want %s", name, c.args, i, scShow(got), scShow(c.want))
			}
		}
	}
	// Each case alone: all constant, and each argument constant in turn.
	const n = 3
	for _, c := range cases {
		types := scTypes(sig, len(c.args))
		layouts := []func(int) bool{func(int) bool { return true }, func(int) bool { return false }}
		for k := range c.args {
			k := k
			layouts = append(layouts, func(j int) bool { return j == k })
		}
		for li, constAt := range layouts {
			out, err := scEval(t, name, types, c.args, n, constAt, func(j int) []any {
				return []any{c.args[j], c.args[j], c.args[j]}
			})
			if _, wantErr := c.want.(scErr); wantErr {
				if !errors.Is(err, ErrOutOfRange) {
					t.Errorf("%s%v (layout %d): error %v, want ErrOutOfRange", name, c.args, li, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s%v (layout %d): %v", name, c.args, li, err)
				continue
			}
			for i := 0; i < n; i++ {
				if got := out.Value(i); !scMatch(got, c.want) {
					t.Errorf("%s%v (layout %d, row %d) = %s, want %s", name, c.args, li, i, scShow(got), scShow(c.want))
					break
				}
			}
		}
	}
}

// scEval1 evaluates name over constant arguments and returns the value.
func scEval1(t *testing.T, name, sig string, args ...any) any {
	t.Helper()
	types := scTypes(sig, len(args))
	out, err := scEval(t, name, types, args, 1, func(int) bool { return true }, nil)
	if err != nil {
		t.Fatalf("%s%v: %v", name, args, err)
	}
	return out.Value(0)
}

// TestScalarBinding checks the implicit conversions NewCall inserts.
func TestScalarBinding(t *testing.T) {
	lit := func(v any) Expr {
		v = scNorm(v)
		switch v.(type) {
		case nil:
			return &Literal{T: coldata.Null}
		case bool:
			return &Literal{Value: v, T: coldata.Bool}
		case int64:
			return &Literal{Value: v, T: coldata.Int64}
		case float64:
			return &Literal{Value: v, T: coldata.Float64}
		}
		return &Literal{Value: v, T: coldata.String}
	}
	cases := []struct {
		fn    string
		args  []any
		ret   coldata.Type
		want  any
		casts int // implicit cast calls inserted
	}{
		{"+", []any{"3", 4}, coldata.Float64, 7.0, 2},
		{"+", []any{1, "1"}, coldata.Float64, 2.0, 2}, // MySQL: 1+'1' = 2
		{"+", []any{1, 2}, coldata.Int64, int64(3), 0},
		{"+", []any{true, 2}, coldata.Int64, int64(3), 1},
		{"+", []any{nil, 2}, coldata.Int64, nil, 0},
		{"*", []any{1.5, 2}, coldata.Float64, 3.0, 1},
		{"/", []any{3, 5}, coldata.DecimalOf(23, 4), scDec("0.6000"), 2}, // MySQL: 3/5 = 0.6000
		{"div", []any{"7.5", 2}, coldata.Int64, int64(3), 2},
		{"=", []any{1, "1"}, coldata.Bool, true, 2},
		{"=", []any{"0.0", 0}, coldata.Bool, true, 2}, // MySQL: '0.0' = 0
		{"=", []any{"a", "a"}, coldata.Bool, true, 0},
		{"=", []any{0, "x6"}, coldata.Bool, true, 2}, // MySQL: 0 = 'x6'
		{">", []any{7, "6x"}, coldata.Bool, true, 2},
		{"<", []any{true, 2}, coldata.Bool, true, 1},
		{"and", []any{1, "0"}, coldata.Bool, false, 2},
		{"or", []any{0, 2.5}, coldata.Bool, true, 2},
		{"is_null", []any{"x"}, coldata.Bool, false, 0},
		{"is_true", []any{5}, coldata.Bool, true, 1},
		{"in", []any{2, "2", 3}, coldata.Bool, true, 3},
		{"in", []any{"b", "a", "b"}, coldata.Bool, true, 0},
		{"case", []any{true, 1, "x"}, coldata.String, "1", 1},
		{"case", []any{false, 1, 2.5}, coldata.Float64, 2.5, 1},
		{"case", []any{1, 10, 20}, coldata.Int64, int64(10), 1},
		{"case", []any{nil, 10}, coldata.Int64, nil, 0},
		{"if", []any{0, 1, "no"}, coldata.String, "no", 2},
		{"ifnull", []any{nil, "yes"}, coldata.String, "yes", 0},
		{"coalesce", []any{nil, 1, 2.5}, coldata.Float64, 1.0, 1},
		{"nullif", []any{1, "1"}, coldata.Int64, nil, 0},
		{"greatest", []any{1, 2.5}, coldata.Float64, 2.5, 1},
		{"greatest", []any{7, "5"}, coldata.Float64, 7.0, 2},
		{"least", []any{"B", "A", "C"}, coldata.String, "A", 0},
		{"abs", []any{"-3"}, coldata.Float64, 3.0, 1},
		{"round", []any{2, 1.6}, coldata.Int64, int64(2), 1},
		{"floor", []any{1.5}, coldata.Float64, 1.0, 0},
		{"sqrt", []any{4}, coldata.Float64, 2.0, 1},
		{"sign", []any{true}, coldata.Int64, int64(1), 1},
		{"cast_to_bigint", []any{"12abc"}, coldata.Int64, int64(12), 0},
		{"mod", []any{29, 9}, coldata.Int64, int64(2), 0},
		{"!=", []any{1, 2}, coldata.Bool, true, 0},
		{"pow", []any{2, -2}, coldata.Float64, 0.25, 2},
		{"ceiling", []any{-1.23}, coldata.Float64, -1.0, 0},
	}
	for _, c := range cases {
		args := make([]Expr, len(c.args))
		for i, a := range c.args {
			args[i] = lit(a)
		}
		e, err := NewCall(scFn(t, c.fn), args)
		if err != nil {
			t.Errorf("%s%v: %v", c.fn, c.args, err)
			continue
		}
		if e.Type() != c.ret {
			t.Errorf("%s%v bound as %s, want %s", c.fn, c.args, e.Type(), c.ret)
		}
		casts := 0
		Walk(e, func(x Expr) {
			if call, ok := x.(*Call); ok && strings.HasPrefix(call.Fn.Name, "cast_to_") && x != e {
				casts++
			}
		})
		if casts != c.casts {
			t.Errorf("%s%v: %d implicit casts in %s, want %d", c.fn, c.args, casts, e, c.casts)
		}
		out, err := Eval(e, coldata.NewBatch(nil, 2))
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		for i := 0; i < 2; i++ {
			if got := out.Value(i); !scMatch(got, c.want) {
				t.Errorf("%s row %d = %s, want %s", e, i, scShow(got), scShow(c.want))
			}
		}
	}
}

// TestScalarArity checks argument-count errors of the bound calls.
func TestScalarArity(t *testing.T) {
	one := &Literal{Value: int64(1), T: coldata.Int64}
	for _, c := range []struct {
		fn string
		n  int
	}{{"+", 1}, {"+", 3}, {"neg", 2}, {"case", 1}, {"if", 2}, {"ifnull", 3}, {"coalesce", 0},
		{"nullif", 1}, {"greatest", 1}, {"in", 1}, {"not", 2}, {"round", 3}, {"truncate", 1}, {"pi", 1},
		{"cast_to_double", 2}} {
		args := make([]Expr, c.n)
		for i := range args {
			args[i] = one
		}
		if _, err := NewCall(scFn(t, c.fn), args); err == nil {
			t.Errorf("%s with %d arguments: no error", c.fn, c.n)
		}
	}
}

// scRandVec makes a random vector of type t with NULLs, edge values and
// optionally constant.
func scRandVec(r *rand.Rand, t coldata.Type, n int) *coldata.Vec {
	ints := []int64{0, 1, -1, 2, 7, -7, math.MaxInt64, math.MinInt64, 1 << 40, 100}
	floats := []float64{0, -0.0, 0.5, -2.5, 1e300, -1e-300, math.Inf(1), math.NaN(), 3.75, 1e20}
	strs := []string{"", "0", "1", "12abc", " 3.7", "abc", "1e3", "-9223372036854775809", "ü", "9e999"}
	gen := func() any {
		if r.Intn(5) == 0 {
			return nil
		}
		switch t {
		case coldata.Bool:
			return r.Intn(2) == 0
		case coldata.Int64:
			return ints[r.Intn(len(ints))]
		case coldata.Float64:
			return floats[r.Intn(len(floats))]
		case coldata.String:
			return strs[r.Intn(len(strs))]
		}
		return nil
	}
	if t == coldata.Null {
		return coldata.NewConst(coldata.Null, nil, n)
	}
	if r.Intn(4) == 0 {
		return coldata.NewConst(t, gen(), n)
	}
	vals := make([]any, n)
	for i := range vals {
		vals[i] = gen()
	}
	return scVec(t, vals...)
}

// TestScalarNoPanic runs every kernel of this area directly (without Check,
// so argument types may not match) on random vectors: errors are fine,
// panics are not, and results must have n rows of a known type.
func TestScalarNoPanic(t *testing.T) {
	names := []string{"cast_to_bigint", "cast_to_double", "cast_to_varchar", "cast_to_boolean",
		"+", "-", "*", "/", "div", "%", "neg", "=", "<>", "<", "<=", ">", ">=", "<=>",
		"and", "or", "xor", "not", "is_null", "is_not_null", "is_true", "is_false", "is_not_true",
		"is_not_false", "in", "case", "if", "ifnull", "coalesce", "nullif", "greatest", "least",
		"abs", "round", "floor", "ceil", "sqrt", "power", "sign", "pi", "exp", "ln", "log10", "truncate"}
	types := []coldata.Type{coldata.Null, coldata.Bool, coldata.Int64, coldata.Float64, coldata.String}
	r := rand.New(rand.NewSource(1))
	for _, name := range names {
		f := scFn(t, name)
		for iter := 0; iter < 300; iter++ {
			nargs := f.MinArgs
			if f.MaxArgs != f.MinArgs {
				nargs += r.Intn(3)
				if f.MaxArgs >= 0 && nargs > f.MaxArgs {
					nargs = f.MaxArgs
				}
			}
			n := r.Intn(20) // empty batches included
			args := make([]*coldata.Vec, nargs)
			for i := range args {
				args[i] = scRandVec(r, types[r.Intn(len(types))], n)
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s panicked on %v: %v", name, scDescribe(args), p)
					}
				}()
				out, err := f.Eval(args, n)
				if err != nil {
					return
				}
				if out.Len != n {
					t.Fatalf("%s on %v: %d rows, want %d", name, scDescribe(args), out.Len, n)
				}
				for i := 0; i < n; i++ {
					_ = out.Value(i)
				}
			}()
		}
	}
}

func scDescribe(args []*coldata.Vec) string {
	var parts []string
	for _, a := range args {
		vals := make([]string, 0, a.Len)
		for i := 0; i < a.Len && i < 4; i++ {
			vals = append(vals, fmt.Sprint(a.Value(i)))
		}
		parts = append(parts, fmt.Sprintf("%s(const=%v)[%s]", a.Type, a.Const, strings.Join(vals, ",")))
	}
	return strings.Join(parts, " ")
}

// TestScalarTypedDifferential checks, on random typed columns, that every
// binary kernel agrees row by row with itself evaluated on one row at a
// time as constants (the two take different loops).
func TestScalarTypedDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	types := []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String}
	for _, name := range []string{"+", "-", "*", "/", "div", "%", "=", "<>", "<", "<=", ">", ">=", "<=>",
		"and", "or", "xor", "in", "ifnull", "nullif", "greatest", "least", "power", "round", "truncate"} {
		f := scFn(t, name)
		for iter := 0; iter < 200; iter++ {
			ta, tb := types[r.Intn(len(types))], types[r.Intn(len(types))]
			ret, want, err := f.Check([]coldata.Type{ta, tb})
			if err != nil {
				t.Fatal(err)
			}
			n := 1 + r.Intn(30)
			a, b := scRandVec(r, want[0], n), scRandVec(r, want[1], n)
			out, err := f.Eval([]*coldata.Vec{a, b}, n)
			for i := 0; i < n; i++ {
				ca := coldata.NewConst(want[0], a.Value(i), 1)
				cb := coldata.NewConst(want[1], b.Value(i), 1)
				o1, err1 := f.Eval([]*coldata.Vec{ca, cb}, 1)
				if err1 != nil {
					if err == nil {
						// A whole-vector run may only succeed when the row is
						// NULL there: errors come from non-NULL rows.
						t.Fatalf("%s(%v, %v): row error %v but vector ok", name, a.Value(i), b.Value(i), err1)
					}
					continue
				}
				if err != nil {
					continue
				}
				if out.Type != ret && out.Type != coldata.Null {
					t.Fatalf("%s: type %s, want %s", name, out.Type, ret)
				}
				if g, w := out.Value(i), o1.Value(0); !scMatch(g, w) {
					t.Fatalf("%s(%v, %v): vector %s, row %s", name, a.Value(i), b.Value(i), scShow(g), scShow(w))
				}
			}
		}
	}
}
