package expr

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/errkind"
)

// Function is one entry of the registry: a type rule and a CPU kernel. The
// CPU kernel is the oracle that every GPU implementation is tested against.
type Function struct {
	// Name is the lower-case SQL name (or operator symbol, such as "+").
	Name string
	// Infix marks binary operators, for printing.
	Infix bool
	// MinArgs and MaxArgs bound the argument count; MaxArgs < 0 is variadic.
	MinArgs, MaxArgs int
	// Check returns the result type for the given argument types and the
	// type each argument must be converted to first (same length as args).
	Check func(args []coldata.Type) (ret coldata.Type, argTypes []coldata.Type, err error)
	// Eval computes the function for n rows. Arguments may be constant
	// vectors. The result has n rows (or is constant).
	Eval func(args []*coldata.Vec, n int) (*coldata.Vec, error)
	// EvalW, when set, is Eval for a function that gives MySQL warnings
	// (an invalid date in text, a division by zero): it adds them to w,
	// which may be nil. Register derives Eval from it.
	EvalW func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error)
	// Bind, when set, refines the result type from the bound arguments
	// (a literal argument that names a type, as CAST to DECIMAL(p,s)); it
	// runs after Check and the implicit casts.
	Bind func(args []Expr) (coldata.Type, error)
	// Volatile functions are never folded into constants at plan time
	// (their value depends on state, such as an outer row of a correlated
	// subquery).
	Volatile bool
}

var (
	regMu    sync.RWMutex
	registry = map[string]*Function{}
	aliases  = map[string]string{}
)

// Register adds f to the registry; it panics on a duplicate name, which is a
// programming error caught by any test.
func Register(f *Function) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[f.Name]; dup {
		panic("expr: duplicate function " + f.Name)
	}
	if f.Eval == nil && f.EvalW != nil {
		f.Eval = func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return f.EvalW(args, n, nil) }
	}
	registry[f.Name] = f
}

// Alias makes alias another name for the registered function target.
func Alias(alias, target string) {
	regMu.Lock()
	defer regMu.Unlock()
	aliases[alias] = target
}

// Lookup finds a function by SQL name, case-insensitively.
func Lookup(name string) (*Function, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	n := strings.ToLower(name)
	if t, ok := aliases[n]; ok {
		n = t
	}
	f, ok := registry[n]
	return f, ok
}

// Names lists every registered function and alias name (for completion and docs).
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	for n := range aliases {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ArgError is a wrong argument count or type in a function call.
type ArgError struct {
	Func string
	Msg  string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("function %s: %s", strings.ToUpper(e.Func), e.Msg)
}

// ErrorKind implements errkind.Kinded.
func (e *ArgError) ErrorKind() errkind.Kind { return errkind.FunctionArguments }

// NewCall type-checks a call of f, inserting implicit casts, and returns the
// bound expression. Calls whose arguments are all literals are left for the
// planner's constant folding.
func NewCall(f *Function, args []Expr) (Expr, error) {
	if len(args) < f.MinArgs || (f.MaxArgs >= 0 && len(args) > f.MaxArgs) {
		want := fmt.Sprintf("%d", f.MinArgs)
		switch {
		case f.MaxArgs < 0:
			want = fmt.Sprintf("at least %d", f.MinArgs)
		case f.MaxArgs != f.MinArgs:
			want = fmt.Sprintf("%d to %d", f.MinArgs, f.MaxArgs)
		}
		return nil, &ArgError{Func: f.Name, Msg: fmt.Sprintf("expects %s arguments, got %d", want, len(args))}
	}
	types := make([]coldata.Type, len(args))
	for i, a := range args {
		// Functions see a DATETIME(n) as TIMESTAMP (a cast that only
		// retypes the vector); conversions see the declared precision,
		// which CAST(... AS CHAR) prints.
		types[i] = a.Type()
		if !strings.HasPrefix(f.Name, "cast_to_") {
			types[i] = types[i].Plain()
		}
	}
	ret, want, err := f.Check(types)
	if err != nil {
		return nil, &ArgError{Func: f.Name, Msg: err.Error()}
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		out[i] = a
		if want != nil && want[i] != a.Type() {
			convert := CastTo
			if comparesOnce[f.Name] {
				// A comparison reads text that is no date as the zero
				// date, not NULL (cmpdate.go).
				convert = CompareCastTo
			}
			c, err := convert(a, want[i])
			if err != nil {
				return nil, &ArgError{Func: f.Name, Msg: err.Error()}
			}
			markOnce(f, a, c)
			out[i] = c
		}
	}
	if f.Bind != nil {
		if ret, err = f.Bind(out); err != nil {
			return nil, &ArgError{Func: f.Name, Msg: err.Error()}
		}
	}
	if ret == coldata.Timestamp && picksValue[f.Name] {
		// COALESCE(a, b) of DATETIME(3) values is a DATETIME(3).
		var temporal []coldata.Type
		for _, a := range args {
			if a.Type().IsTemporal() {
				temporal = append(temporal, a.Type())
			}
		}
		if t, ok := sameDatetimePrecision(temporal); ok {
			// The values already have t's precision: the cast only
			// retypes the result.
			return CastTo(&Call{Fn: f, Args: out, T: ret}, t)
		}
	}
	return &Call{Fn: f, Args: out, T: ret}, nil
}

// onceIDs draws the numbers of Once calls.
var onceIDs atomic.Uint64

// comparesOnce are the comparisons whose constant text MySQL reads as a
// date or datetime once per statement (Arg_comparator caches it), so
// that it warns once however many rows it compares.
var comparesOnce = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "<=>": true, "in": true}

// markOnce marks c, comparison f's conversion of argument a, as a Once
// call when a is constant text (no column, nothing volatile) and c reads
// it as a date or datetime.
func markOnce(f *Function, a, c Expr) {
	call, ok := c.(*Call)
	if !comparesOnce[f.Name] || !ok || a.Type() != coldata.String || !call.T.IsTemporal() || !IsConstant(a) {
		return
	}
	volatile := false
	Walk(a, func(x Expr) {
		if c, ok := x.(*Call); ok && c.Fn.Volatile {
			volatile = true
		}
	})
	if !volatile {
		call.Once = onceIDs.Add(1)
	}
}

// CastFuncName is the registry name of the conversion to t.
func CastFuncName(t coldata.Type) string {
	switch t.Plain() {
	case coldata.Bool:
		return "cast_to_boolean"
	case coldata.Int64:
		return "cast_to_bigint"
	case coldata.Float64:
		return "cast_to_double"
	case coldata.String:
		return "cast_to_varchar"
	case coldata.Date:
		return "cast_to_date"
	case coldata.Timestamp:
		return "cast_to_timestamp"
	}
	if t.IsDecimal() {
		return "cast_to_decimal"
	}
	return "cast_to_null"
}

// CastTo converts e to type t: NULL literals are simply retyped, other
// expressions are wrapped in the registered cast function.
func CastTo(e Expr, t coldata.Type) (Expr, error) {
	if e.Type() == t {
		return e, nil
	}
	if l, ok := e.(*Literal); ok && l.Value == nil {
		return &Literal{Value: nil, T: t}, nil
	}
	if l, ok := e.(*Literal); ok && l.Text != "" && t.IsDecimal() {
		// From the literal's text, not its DOUBLE: every digit counts.
		if v, ok := decimal.Parse(l.Text, t.Scale()); ok && v.Fits(t.Precision()) {
			return &Literal{Value: v, T: t}, nil
		}
	}
	f, ok := Lookup(CastFuncName(t))
	if !ok {
		return nil, fmt.Errorf("cannot convert %s to %s", e.Type(), t)
	}
	if t.IsDecimal() {
		return &Call{Fn: f, Args: DecimalCastArgs(e, t), T: t}, nil
	}
	if fsp := e.Type().Fsp(); fsp >= 0 && t == coldata.String {
		// The text of a DATETIME(n) has n digits: the inner cast gives the
		// vector its precision whatever the operator below kept of it.
		if ts, ok := Lookup(CastFuncName(coldata.Timestamp)); ok {
			e = &Call{Fn: ts, Args: []Expr{e, &Literal{Value: int64(fsp), T: coldata.Int64}}, T: e.Type()}
		}
	}
	if fsp := t.Fsp(); fsp >= 0 {
		return &Call{Fn: f, Args: []Expr{e, &Literal{Value: int64(fsp), T: coldata.Int64}}, T: t}, nil
	}
	return &Call{Fn: f, Args: []Expr{e}, T: t}, nil
}

// picksValue are the functions whose result is one of their arguments'
// values: over DATETIME(n) values of one n, the result keeps n.
var picksValue = map[string]bool{"coalesce": true, "ifnull": true, "if": true, "case": true, "nullif": true, "greatest": true, "least": true}

// sameDatetimePrecision is DATETIME(n) when every non-NULL type is that
// one type.
func sameDatetimePrecision(types []coldata.Type) (coldata.Type, bool) {
	out := coldata.Null
	for _, t := range types {
		switch {
		case t == coldata.Null:
		case t.Fsp() < 0 || (out != coldata.Null && t != out):
			return 0, false
		default:
			out = t
		}
	}
	return out, out != coldata.Null
}

// Fixed returns a Check rule for a function whose arguments are converted to
// the given parameter types (the last one repeats for variadic functions)
// and whose result is ret.
func Fixed(ret coldata.Type, params ...coldata.Type) func([]coldata.Type) (coldata.Type, []coldata.Type, error) {
	return func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		want := make([]coldata.Type, len(args))
		for i := range args {
			if i < len(params) {
				want[i] = params[i]
			} else {
				want[i] = params[len(params)-1]
			}
		}
		return ret, want, nil
	}
}

// Unify returns the common type of values of the given types, as CASE,
// COALESCE and UNION need it: any string makes a string, else any double a
// double, else any integer an integer, else boolean. NULL types are ignored.
func Unify(types ...coldata.Type) coldata.Type {
	if t, ok := unifyDecimal(types); ok {
		return t
	}
	if t, ok := sameDatetimePrecision(types); ok {
		return t // UNION of DATETIME(3) columns stays DATETIME(3)
	}
	if t := temporalOf(types); t != coldata.Null {
		// Dates and timestamps unify with each other (as TIMESTAMP);
		// mixed with anything else, values become strings, as MySQL's
		// CASE and UNION do.
		for _, x := range types {
			if x != coldata.Null && !x.IsTemporal() {
				return coldata.String
			}
		}
		return t
	}
	out := coldata.Null
	for _, t := range types {
		switch {
		case t == coldata.Null:
		case t == coldata.String || out == coldata.String:
			out = coldata.String
		case t == coldata.Float64 || out == coldata.Float64:
			out = coldata.Float64
		case t == coldata.Int64 || out == coldata.Int64:
			out = coldata.Int64
		default:
			out = coldata.Bool
		}
	}
	return out
}

// CombineNulls returns the validity bitmap of rows where every argument is
// non-NULL, or nil when no argument has NULLs. A constant NULL argument makes
// every row NULL.
func CombineNulls(args []*coldata.Vec, n int) []byte {
	var out []byte
	for _, a := range args {
		if a.Nulls == nil {
			continue
		}
		if out == nil {
			out = coldata.NewValidBitmap(n)
		}
		if a.Const {
			if a.IsNull(0) {
				for i := range out {
					out[i] = 0
				}
			}
			continue
		}
		for i := range out {
			out[i] &= a.Nulls[i]
		}
	}
	return out
}

// AllConst reports whether every argument is a constant vector.
func AllConst(args []*coldata.Vec) bool {
	for _, a := range args {
		if !a.Const {
			return false
		}
	}
	return true
}
