// Package expr holds bound, typed scalar expressions and the function
// registry that evaluates them a whole batch at a time.
//
// Every operator of SQL — arithmetic, comparison, logic, CASE, CAST, LIKE and
// the string functions — is a Call of a registered Function, so the CPU
// evaluator, the GPU kernel library and the fusing code generator all see one
// small tree shape: column references, literals and calls.
package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
)

// Expr is a bound expression with a known result type.
type Expr interface {
	Type() coldata.Type
	String() string
}

// ColumnRef reads column Index of the input batch.
type ColumnRef struct {
	Index int
	Name  string
	T     coldata.Type
}

// Type implements Expr.
func (c *ColumnRef) Type() coldata.Type { return c.T }

// String implements Expr.
func (c *ColumnRef) String() string { return c.Name }

// Literal is a constant. Value is nil (NULL), bool, int64, float64 or string.
type Literal struct {
	Value any
	T     coldata.Type
	// Text is the source text of a number written with a decimal point
	// ("100000000000000000.01"), so that a conversion to DECIMAL is exact
	// where the DOUBLE in Value is not (MySQL's exact-value literals).
	Text string
}

// Type implements Expr.
func (l *Literal) Type() coldata.Type { return l.T }

// String implements Expr.
func (l *Literal) String() string {
	if x, ok := l.Value.(decimal.Int128); ok {
		return x.String(l.T.Scale())
	}
	if x, ok := l.Value.(int64); ok {
		switch l.T.Plain() {
		case coldata.Date:
			return "DATE '" + datetime.FormatDate(x) + "'"
		case coldata.Timestamp:
			return "TIMESTAMP '" + datetime.FormatTimestamp(x) + "'"
		}
	}
	return FormatLiteral(l.Value)
}

// FormatLiteral renders a literal value as SQL text.
func FormatLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	}
	return fmt.Sprint(v)
}

// Call applies a registered function to arguments.
type Call struct {
	Fn   *Function
	Args []Expr
	T    coldata.Type
	// Once, when not zero, marks a conversion of a constant that MySQL
	// makes once per statement (a comparison's text read as a date): its
	// warnings are given once, not once per row. The number tells one
	// such call from another (NewCall draws it); copies keep it.
	Once uint64
}

// Type implements Expr.
func (c *Call) Type() coldata.Type { return c.T }

// String implements Expr.
func (c *Call) String() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	if c.Fn.Infix && len(parts) == 2 {
		return "(" + parts[0] + " " + c.Fn.Name + " " + parts[1] + ")"
	}
	return c.Fn.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Eval evaluates e over batch b and returns a vector of b.Len rows (which may
// be a constant vector).
func Eval(e Expr, b *coldata.Batch) (*coldata.Vec, error) { return EvalWarn(e, b, nil) }

// EvalWarn is Eval adding the warnings MySQL would give to w (nil: none).
func EvalWarn(e Expr, b *coldata.Batch, w *Warnings) (*coldata.Vec, error) {
	switch x := e.(type) {
	case *ColumnRef:
		return b.Cols[x.Index], nil
	case *Literal:
		return coldata.NewConst(x.T, x.Value, b.Len), nil
	case *Call:
		if x.Fn.Name == TryName {
			return evalTry(x, b)
		}
		args := make([]*coldata.Vec, len(x.Args))
		for i, a := range x.Args {
			v, err := EvalWarn(a, b, w)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		if x.Once != 0 && w != nil && b.Len > 0 && AllConst(args) {
			return evalOnce(x, args, b.Len, w)
		}
		out, err := evalCall(x.Fn, args, b.Len, w)
		return callResult(x, out, err, b.Len)
	}
	return nil, fmt.Errorf("internal error: cannot evaluate %T", e)
}

// Walk calls fn for e and every sub-expression, parents first.
func Walk(e Expr, fn func(Expr)) {
	fn(e)
	if c, ok := e.(*Call); ok {
		for _, a := range c.Args {
			Walk(a, fn)
		}
	}
}

// Columns returns the set of input column indexes e reads.
func Columns(e Expr) map[int]bool {
	cols := map[int]bool{}
	Walk(e, func(x Expr) {
		if c, ok := x.(*ColumnRef); ok {
			cols[c.Index] = true
		}
	})
	return cols
}

// IsConstant reports whether e reads no column.
func IsConstant(e Expr) bool { return len(Columns(e)) == 0 }

// Remap returns a copy of e with column indexes translated by m.
func Remap(e Expr, m map[int]int) Expr {
	switch x := e.(type) {
	case *ColumnRef:
		c := *x
		c.Index = m[x.Index]
		return &c
	case *Call:
		c := *x
		c.Args = make([]Expr, len(x.Args))
		for i, a := range x.Args {
			c.Args[i] = Remap(a, m)
		}
		return &c
	}
	return e
}

// evalOnce evaluates a Once call over constant arguments: one row, whose
// warnings go to w the first time the statement evaluates the call.
func evalOnce(x *Call, args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
	var local Warnings
	out, err := evalCall(x.Fn, args, 1, &local)
	if err == nil && w.first(x.Once) {
		w.Append(local.List()...)
	}
	out, err = callResult(x, out, err, 1)
	if err != nil {
		return nil, err
	}
	c := *out
	c.Const = true
	c.Len = n
	return &c, nil
}

// evalCall runs f's kernel; when every argument is constant it computes one
// row and returns a constant vector instead of n identical rows (and
// repeats that row's warnings n times, as MySQL warns per row).
func evalCall(f *Function, args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
	if n <= 1 || !AllConst(args) || f.Volatile {
		if f.EvalW != nil {
			return f.EvalW(args, n, w)
		}
		return f.Eval(args, n)
	}
	one := make([]*coldata.Vec, len(args))
	for i, a := range args {
		c := *a
		c.Len = 1
		one[i] = &c
	}
	var out *coldata.Vec
	var err error
	if f.EvalW != nil && w != nil {
		var local Warnings
		out, err = f.EvalW(one, 1, &local)
		w.addTimes(local.List(), n)
	} else {
		out, err = f.Eval(one, 1)
	}
	if err != nil {
		return nil, err
	}
	c := *out
	c.Const = true
	c.Len = n
	return &c, nil
}

// TryName is the registry name of TRY(expr) (and TRY_CAST): the
// expression, NULL on the rows where it fails instead of an error.
const TryName = "try"

func init() {
	Register(&Function{Name: TryName, MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return args[0], []coldata.Type{args[0]}, nil
		},
		// Eval sees evaluated arguments: the error already happened.
		// expr.Eval calls evalTry instead; this serves direct calls.
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return args[0], nil }})
}

// evalTry evaluates a TRY: the whole batch at once, and when that fails,
// row by row, each failing row NULL.
func evalTry(c *Call, b *coldata.Batch) (*coldata.Vec, error) {
	arg := c.Args[0]
	if v, err := Eval(arg, b); err == nil {
		return strictCast(arg, b, v)
	}
	out := coldata.NewBuilder(c.T, b.Len)
	idx := []int{0}
	for i := 0; i < b.Len; i++ {
		idx[0] = i
		row := coldata.GatherBatch(b, idx)
		v, err := Eval(arg, row)
		if err == nil {
			v, err = strictCast(arg, row, v)
		}
		if err != nil || v.IsNull(0) {
			out.AppendNull()
			continue
		}
		out.AppendFrom(v, 0)
	}
	return out.Finish(), nil
}

// strictCast makes TRY_CAST of text to a number NULL where the text is not
// a number (CAST itself converts it leniently, MySQL's '12abc' = 12).
func strictCast(arg Expr, b *coldata.Batch, v *coldata.Vec) (*coldata.Vec, error) {
	call, ok := arg.(*Call)
	if !ok || call.Args[0].Type() != coldata.String {
		return v, nil
	}
	switch call.Fn.Name {
	case "cast_to_bigint", "cast_to_double", "cast_to_decimal":
	default:
		return v, nil
	}
	in, err := Eval(call.Args[0], b)
	if err != nil {
		return nil, err
	}
	out := v
	for i := 0; i < b.Len; i++ {
		if in.IsNull(i) || v.IsNull(i) {
			continue
		}
		s := strings.TrimSpace(string(in.Str(i)))
		var bad bool
		switch call.Fn.Name {
		case "cast_to_bigint":
			_, err := strconv.ParseInt(s, 10, 64)
			bad = err != nil
		default:
			_, err := strconv.ParseFloat(s, 64)
			bad = err != nil || strings.ContainsAny(s, "xXpP_")
		}
		if bad {
			if out == v {
				out = v.Materialize()
				if out == v {
					cp := *v
					out = &cp
				}
				if out.Nulls == nil {
					out.Nulls = coldata.NewValidBitmap(out.Len)
				} else {
					out.Nulls = append([]byte(nil), out.Nulls...)
				}
			}
			coldata.ClearBit(out.Nulls, i)
		}
	}
	return out, nil
}

// Key identifies an expression by its structure: columns by index and name
// (two inputs of a join may both be named "v"), literals by value and type,
// calls by function and arguments. Equal keys compute the same values.
func Key(e Expr) string {
	var b strings.Builder
	writeKey(&b, e)
	return b.String()
}

func writeKey(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *ColumnRef:
		// The name too: references bound before their index is known
		// (window results) must not match column 0.
		fmt.Fprintf(b, "$%d/%q", x.Index, x.Name)
	case *Literal:
		fmt.Fprintf(b, "%T:%q", x.Value, fmt.Sprint(x.Value))
	case *Call:
		b.WriteString(x.Fn.Name)
		b.WriteByte('(')
		for _, a := range x.Args {
			writeKey(b, a)
			b.WriteByte(',')
		}
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "?%T:%s", e, e.String())
	}
	b.WriteByte(':')
	b.WriteString(e.Type().String())
}
