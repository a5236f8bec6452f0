package planner

import (
	"errors"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/sql"
)

// scopeCol is a column visible to expressions: input column Index.
type scopeCol struct {
	Table string
	Name  string
	Type  coldata.Type
	Index int
	// hidden columns (the second copy of a USING column) are reachable only
	// by qualified name and are left out of *.
	hidden bool
}

var boolType = coldata.Bool

// scope resolves column names of the current input.
type scope struct{ cols []scopeCol }

func (s *scope) resolve(qual, name string) (*expr.ColumnRef, error) {
	var found *scopeCol
	for i := range s.cols {
		c := &s.cols[i]
		if !strings.EqualFold(c.Name, name) {
			continue
		}
		if qual != "" && !strings.EqualFold(c.Table, qual) {
			continue
		}
		if qual == "" && c.hidden {
			continue
		}
		if found != nil {
			return nil, errorf(AmbiguousColumn, name, "column %q is ambiguous", name)
		}
		found = c
	}
	if found == nil {
		full := name
		if qual != "" {
			full = qual + "." + name
		}
		return nil, errorf(UnknownColumn, full, "unknown column %q", full)
	}
	return &expr.ColumnRef{Index: found.Index, Name: found.Name, T: found.Type}, nil
}

// aggregateNames are functions that need GROUP BY support.
var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"group_concat": true, "std": true, "stddev": true, "variance": true, "bit_and": true, "bit_or": true,
	"bool_and": true, "bool_or": true, "any_value": true,
	"stddev_pop": true, "stddev_samp": true, "var_pop": true, "var_samp": true,
	"median": true, "quantile_cont": true, "quantile": true, "quantile_disc": true,
}

// bindExpr turns a parsed expression into a bound one over sc.
func (b *binder) bindExpr(e sqlparser.Expr, sc *scope) (expr.Expr, error) {
	if b.agg != nil {
		if bound, ok, err := b.agg.intercept(b, e); ok {
			return bound, err
		}
	}
	switch x := e.(type) {
	case *sqlparser.ColName:
		ref, err := sc.resolve(x.Qualifier.Name.String(), x.Name.String())
		if err != nil {
			if outer, ok, oerr := b.outerRef(x); ok {
				return outer, oerr
			}
		}
		return ref, err
	case *sqlparser.ValuesFuncExpr:
		// ON DUPLICATE KEY UPDATE's VALUES(col): the new row's col
		// (BindInsert); elsewhere there is no such column.
		if x.Name == nil {
			return nil, errorf(Unsupported, "VALUES", "not supported: VALUES() without a column")
		}
		ref, err := sc.resolve(ValuesTable, x.Name.Name.String())
		if err != nil {
			name := x.Name.Name.String()
			return nil, errorf(UnknownColumn, name, "unknown column %q in VALUES()", name)
		}
		return ref, nil
	case *sqlparser.SQLVal:
		return b.bindVal(x)
	case *sqlparser.NullVal:
		return &expr.Literal{Value: nil, T: coldata.Null}, nil
	case sqlparser.BoolVal:
		return &expr.Literal{Value: bool(x), T: coldata.Bool}, nil
	case *sqlparser.ParenExpr:
		return b.bindExpr(x.Expr, sc)
	case *sqlparser.AndExpr:
		return b.call("and", sc, x.Left, x.Right)
	case *sqlparser.OrExpr:
		return b.call("or", sc, x.Left, x.Right)
	case *sqlparser.NotExpr:
		return b.call("not", sc, x.Expr)
	case *sqlparser.ComparisonExpr:
		return b.bindComparison(x, sc)
	case *sqlparser.RangeCond:
		return b.bindRange(x, sc)
	case *sqlparser.IsExpr:
		name := map[string]string{
			sqlparser.IsNullStr: "is_null", sqlparser.IsNotNullStr: "is_not_null",
			sqlparser.IsTrueStr: "is_true", sqlparser.IsNotTrueStr: "is_not_true",
			sqlparser.IsFalseStr: "is_false", sqlparser.IsNotFalseStr: "is_not_false",
		}[x.Operator]
		if name == "" {
			return nil, errorf(Unsupported, "", "not supported: IS operator %q", x.Operator)
		}
		return b.call(name, sc, x.Expr)
	case *sqlparser.BinaryExpr:
		switch x.Operator {
		case sqlparser.PlusStr, sqlparser.MinusStr:
			e, _, err := b.bindArith(x, sc)
			return e, err
		case sqlparser.MultStr, sqlparser.DivStr, sqlparser.IntDivStr, sqlparser.ModStr:
			return b.call(x.Operator, sc, x.Left, x.Right)
		}
		return nil, errorf(Unsupported, "", "not supported: operator %s", x.Operator)
	case *sqlparser.UnaryExpr:
		switch x.Operator {
		case sqlparser.UMinusStr:
			// Fold negative numeric literals so that -9223372036854775808 stays BIGINT.
			if v, ok := x.Expr.(*sqlparser.SQLVal); ok && (v.Type == sqlparser.IntVal || v.Type == sqlparser.FloatVal) {
				return b.bindVal(&sqlparser.SQLVal{Type: v.Type, Val: append([]byte{'-'}, v.Val...)})
			}
			return b.call("neg", sc, x.Expr)
		case sqlparser.UPlusStr:
			return b.bindExpr(x.Expr, sc)
		case sqlparser.BangStr:
			return b.call("not", sc, x.Expr)
		}
		return nil, errorf(Unsupported, "", "not supported: unary operator %s", strings.TrimSpace(x.Operator))
	case *sqlparser.FuncExpr:
		return b.bindFunc(x, sc)
	case *sqlparser.CaseExpr:
		return b.bindCase(x, sc)
	case *sqlparser.ConvertExpr:
		t, ok := coldata.ParseType(x.Type.Type)
		if !ok {
			return nil, errorf(TypeMismatch, x.Type.Type, "unknown type %s in CAST", x.Type.Type)
		}
		if t.Fsp() >= 0 {
			// CAST(x AS DATETIME(n)): the precision is the cast's argument.
			e, err := b.bindExpr(x.Expr, sc)
			if err != nil {
				return nil, err
			}
			return b.apply(expr.CastFuncName(t), e, &expr.Literal{Value: int64(t.Fsp()), T: coldata.Int64})
		}
		return b.call(expr.CastFuncName(t), sc, x.Expr)
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{x.Name, x.From}
		if x.To != nil {
			args = append(args, x.To)
		}
		return b.call("substring", sc, args...)
	case *sqlparser.Subquery:
		return b.scalarSubquery(x, sc)
	case *sqlparser.ExistsExpr:
		return b.existsSubquery(x.Subquery, sc)
	case *sqlparser.GroupConcatExpr:
		return nil, errorf(TypeMismatch, "group_concat", "aggregate GROUP_CONCAT is not allowed here")
	case *sqlparser.CollateExpr:
		return nil, errorf(Unsupported, "", "not supported: COLLATE (strings compare bytewise)")
	case *sqlparser.IntervalExpr:
		return nil, errorf(TypeMismatch, "", "INTERVAL is only allowed in date arithmetic (d + INTERVAL n unit, DATE_ADD, DATE_SUB)")
	}
	return nil, errorf(Unsupported, "", "not supported: expression %s", sqlparser.String(e))
}

func (b *binder) bindVal(v *sqlparser.SQLVal) (expr.Expr, error) {
	s := string(v.Val)
	switch v.Type {
	case sqlparser.StrVal:
		return &expr.Literal{Value: s, T: coldata.String}, nil
	case sqlparser.IntVal:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return &expr.Literal{Value: i, T: coldata.Int64}, nil
		}
		if lit, ok := exactLiteralOf(s); ok {
			return lit, nil // past BIGINT: DECIMAL, as in MySQL
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errorf(TypeMismatch, s, "bad number %s", s)
		}
		return &expr.Literal{Value: f, T: coldata.Float64}, nil
	case sqlparser.FloatVal:
		if lit, ok := exactLiteralOf(s); ok {
			return lit, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errorf(TypeMismatch, s, "bad number %s", s)
		}
		lit := &expr.Literal{Value: f, T: coldata.Float64}
		if !strings.ContainsAny(s, "eE") {
			lit.Text = s // exact when converted to DECIMAL
		}
		return lit, nil
	case sqlparser.HexNum:
		u, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 64)
		if err != nil {
			return nil, errorf(TypeMismatch, s, "bad hexadecimal number %s", s)
		}
		return &expr.Literal{Value: int64(u), T: coldata.Int64}, nil
	case sqlparser.HexVal:
		raw, err := v.HexDecode()
		if err != nil {
			return nil, errorf(TypeMismatch, s, "bad hexadecimal string %s", s)
		}
		return &expr.Literal{Value: string(raw), T: coldata.String}, nil
	case sqlparser.ValArg:
		n, err := strconv.Atoi(strings.TrimPrefix(s, ":v"))
		if err != nil || n < 1 {
			return nil, errorf(TypeMismatch, s, "bad placeholder %s", s)
		}
		if n > len(b.args) {
			return nil, errorf(TypeMismatch, s, "placeholder %d has no argument (%d given)", n, len(b.args))
		}
		b.usedArgs = max(b.usedArgs, n)
		return argLiteral(b.args[n-1])
	}
	return nil, errorf(Unsupported, s, "not supported: literal %s", s)
}

// argLiteral converts a Go argument to a literal.
func argLiteral(a any) (expr.Expr, error) {
	switch x := a.(type) {
	case nil:
		return &expr.Literal{Value: nil, T: coldata.Null}, nil
	case bool:
		return &expr.Literal{Value: x, T: coldata.Bool}, nil
	case int:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case int8:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case int16:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case int32:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case int64:
		return &expr.Literal{Value: x, T: coldata.Int64}, nil
	case uint8:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case uint16:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case uint32:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}, nil
	case float32:
		return &expr.Literal{Value: float64(x), T: coldata.Float64}, nil
	case float64:
		return &expr.Literal{Value: x, T: coldata.Float64}, nil
	case string:
		return &expr.Literal{Value: x, T: coldata.String}, nil
	case []byte:
		return &expr.Literal{Value: string(x), T: coldata.String}, nil
	case time.Time:
		// A time.Time is a TIMESTAMP of its wall clock in its location.
		if x.Year() < datetime.MinYear || x.Year() > datetime.MaxYear {
			return nil, errorf(TypeMismatch, "", "argument time %s is outside the years 1-9999", x)
		}
		return &expr.Literal{Value: wallMicros(x), T: coldata.Timestamp}, nil
	}
	return nil, errorf(TypeMismatch, "", "unsupported argument type %T", a)
}

// call binds args and applies the registered function name.
func (b *binder) call(name string, sc *scope, args ...sqlparser.Expr) (expr.Expr, error) {
	bound := make([]expr.Expr, len(args))
	for i, a := range args {
		e, err := b.bindExpr(a, sc)
		if err != nil {
			return nil, err
		}
		bound[i] = e
	}
	return b.apply(name, bound...)
}

// apply calls a registered function on bound arguments.
func (b *binder) apply(name string, args ...expr.Expr) (expr.Expr, error) {
	narrowDecimalLiterals(name, args)
	exactDecimalComparands(name, args)
	dateStringComparands(name, args)
	if e, ok, err := b.applyWide(name, args); ok {
		return e, err
	}
	f, ok := expr.Lookup(name)
	if !ok {
		return nil, errorf(UnknownFunction, name, "unknown function %s", strings.ToUpper(name))
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		var ae *expr.ArgError
		if errors.As(err, &ae) {
			return nil, errorf(TypeMismatch, name, "%s", ae.Error())
		}
		return nil, err
	}
	return b.readDateText(name, e)
}

var comparisonFuncs = map[string]string{
	sqlparser.EqualStr: "=", sqlparser.LessThanStr: "<", sqlparser.GreaterThanStr: ">",
	sqlparser.LessEqualStr: "<=", sqlparser.GreaterEqualStr: ">=", sqlparser.NotEqualStr: "<>",
	sqlparser.NullSafeEqualStr: "<=>",
}

func (b *binder) bindComparison(x *sqlparser.ComparisonExpr, sc *scope) (expr.Expr, error) {
	if e, ok, err := b.bindQuantifiedOrRow(x, sc); ok {
		return e, err // quantified.go
	}
	if fn, ok := comparisonFuncs[x.Operator]; ok {
		return b.call(fn, sc, x.Left, x.Right)
	}
	switch x.Operator {
	case sqlparser.InStr, sqlparser.NotInStr:
		var in expr.Expr
		var err error
		switch r := x.Right.(type) {
		case sqlparser.ValTuple:
			in, err = b.call("in", sc, append([]sqlparser.Expr{x.Left}, r...)...)
		case *sqlparser.Subquery:
			in, err = b.inSubquery(x.Left, r, sc)
		default:
			return nil, errorf(Unsupported, "", "not supported: IN %s", sqlparser.String(x.Right))
		}
		if err != nil || x.Operator == sqlparser.InStr {
			return in, err
		}
		return b.apply("not", in)
	case sqlparser.RegexpStr, sqlparser.NotRegexpStr:
		like, err := b.call("regexp_like", sc, x.Left, x.Right)
		if err != nil || x.Operator == sqlparser.RegexpStr {
			return like, err
		}
		return b.apply("not", like)
	case sqlparser.LikeStr, sqlparser.NotLikeStr:
		args := []sqlparser.Expr{x.Left, x.Right}
		if x.Escape != nil {
			args = append(args, x.Escape)
		}
		like, err := b.call("like", sc, args...)
		if err != nil || x.Operator == sqlparser.LikeStr {
			return like, err
		}
		return b.apply("not", like)
	}
	return nil, errorf(Unsupported, "", "not supported: operator %s", strings.ToUpper(x.Operator))
}

// bindRange rewrites BETWEEN as two comparisons, which is its definition.
func (b *binder) bindRange(x *sqlparser.RangeCond, sc *scope) (expr.Expr, error) {
	l, err := b.bindExpr(x.Left, sc)
	if err != nil {
		return nil, err
	}
	from, err := b.bindExpr(x.From, sc)
	if err != nil {
		return nil, err
	}
	to, err := b.bindExpr(x.To, sc)
	if err != nil {
		return nil, err
	}
	if text, date := textOrDates([]expr.Expr{from, to}); text && date && l.Type() == coldata.String {
		// Text between a date and text (or two dates) compares as a
		// DATETIME, the bound of text too (MySQL 8's
		// Item_func_between::resolve_type, compare_as_dates_with_strings):
		// '' BETWEEN 'abc' AND d holds, both being the zero date.
		if l, err = expr.CompareCastTo(l, coldata.Timestamp); err != nil {
			return nil, errorf(TypeMismatch, "", "%v", err)
		}
	}
	b.lenientDates = true
	defer func() { b.lenientDates = false }()
	if x.Operator == sqlparser.BetweenStr {
		ge, err := b.apply(">=", l, from)
		if err != nil {
			return nil, err
		}
		le, err := b.apply("<=", l, to)
		if err != nil {
			return nil, err
		}
		return b.apply("and", ge, le)
	}
	lt, err := b.apply("<", l, from)
	if err != nil {
		return nil, err
	}
	gt, err := b.apply(">", l, to)
	if err != nil {
		return nil, err
	}
	return b.apply("or", lt, gt)
}

func (b *binder) bindFunc(x *sqlparser.FuncExpr, sc *scope) (expr.Expr, error) {
	name := strings.ToLower(x.Name.String())
	if name == sql.WindowMarker && x.Qualifier.IsEmpty() {
		return b.bindWindow(x, sc)
	}
	if !x.Qualifier.IsEmpty() {
		return nil, errorf(UnknownFunction, name, "unknown function %s.%s", x.Qualifier.String(), name)
	}
	if aggregateNames[name] {
		return nil, errorf(TypeMismatch, name, "aggregate %s is not allowed here", strings.ToUpper(name))
	}
	if x.Distinct {
		return nil, errorf(TypeMismatch, name, "DISTINCT is only allowed in aggregate functions")
	}
	if len(x.Exprs) <= 3 {
		raw := make([]sqlparser.Expr, 0, len(x.Exprs))
		for _, se := range x.Exprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok {
				raw = append(raw, ae.Expr)
			}
		}
		if len(raw) == len(x.Exprs) {
			if e, ok, err := b.bindDateFunc(name, raw, sc); ok {
				return e, err
			}
		}
	}
	if _, ok := expr.Lookup(name); !ok {
		return nil, errorf(UnknownFunction, name, "unknown function %s", strings.ToUpper(name))
	}
	args := make([]expr.Expr, 0, len(x.Exprs))
	for _, se := range x.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, errorf(TypeMismatch, name, "function %s: * is not a valid argument", strings.ToUpper(name))
		}
		e, err := b.bindExpr(ae.Expr, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return b.apply(name, args...)
}

// bindCase turns both CASE forms into the registry's "case" function:
// case(cond1, val1, cond2, val2, ..., [else]).
func (b *binder) bindCase(x *sqlparser.CaseExpr, sc *scope) (expr.Expr, error) {
	var operand expr.Expr
	if x.Expr != nil {
		e, err := b.bindExpr(x.Expr, sc)
		if err != nil {
			return nil, err
		}
		operand = e
	}
	var args []expr.Expr
	for _, w := range x.Whens {
		cond, err := b.bindExpr(w.Cond, sc)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			cond, err = b.apply("=", operand, cond)
			if err != nil {
				return nil, err
			}
		}
		val, err := b.bindExpr(w.Val, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, cond, val)
	}
	if x.Else != nil {
		e, err := b.bindExpr(x.Else, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return b.apply("case", args...)
}

// foldConstants evaluates every call whose arguments are all literals.
func foldConstants(e expr.Expr) (expr.Expr, error) {
	c, ok := e.(*expr.Call)
	if !ok {
		return e, nil
	}
	if c.Fn.Name == expr.TryName {
		return foldTry(c)
	}
	args := make([]expr.Expr, len(c.Args))
	allLit := true
	for i, a := range c.Args {
		f, err := foldConstants(a)
		if err != nil {
			return nil, err
		}
		args[i] = f
		if _, lit := f.(*expr.Literal); !lit {
			allLit = false
		}
	}
	nc := &expr.Call{Fn: c.Fn, Args: args, T: c.T, Once: c.Once}
	if !allLit || c.Fn.Volatile {
		return nc, nil
	}
	var w expr.Warnings
	v, err := expr.EvalWarn(nc, &coldata.Batch{Len: 1}, &w)
	if err != nil {
		return nil, errorf(TypeMismatch, c.Fn.Name, "%v", err)
	}
	if w.Count() > 0 {
		// MySQL warns each time the statement runs (per row): the call
		// stays, to warn at run time, over its folded arguments.
		return nc, nil
	}
	return &expr.Literal{Value: v.Value(0), T: c.T}, nil
}

// exprName is the column name MySQL gives an unaliased select expression.
func exprName(e sqlparser.Expr) string {
	if c, ok := e.(*sqlparser.ColName); ok {
		return c.Name.String()
	}
	// Window functions, casts and typed literals print as written, not as
	// the dialect layer's marker and cast calls.
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, n sqlparser.SQLNode) {
		if f, ok := n.(*sqlparser.FuncExpr); ok {
			if name, ok := windowName(f); ok {
				buf.WriteString(name)
				return
			}
			if writtenCall(buf, f) {
				return
			}
		}
		if iv, ok := n.(*sqlparser.IntervalExpr); ok {
			buf.Myprintf("INTERVAL %v %s", iv.Expr, strings.ToUpper(iv.Unit))
			return
		}
		n.Format(buf)
	})
	buf.Myprintf("%v", e)
	return buf.String()
}

// writtenCall prints the dialect layer's calls for CAST, typed literals
// and EXTRACT in their SQL form; false for other calls.
func writtenCall(buf *sqlparser.TrackedBuffer, f *sqlparser.FuncExpr) bool {
	name := f.Name.Lowered()
	if !f.Qualifier.IsEmpty() || len(f.Exprs) == 0 {
		return false
	}
	switch {
	case name == sql.DateLiteral || name == sql.TimestampLiteral:
		if len(f.Exprs) == 1 {
			kw := "DATE"
			if name == sql.TimestampLiteral {
				kw = "TIMESTAMP"
			}
			buf.Myprintf("%s %v", kw, f.Exprs[0])
			return true
		}
	case (name == sql.QuantifiedAny || name == sql.QuantifiedAll) && len(f.Exprs) == 1:
		buf.Myprintf("%s %v", quantifierName(name == sql.QuantifiedAll), f.Exprs[0])
		return true
	case name == "cast_to_decimal" && len(f.Exprs) == 3:
		buf.Myprintf("CAST(%v AS DECIMAL(%v,%v))", f.Exprs[0], f.Exprs[1], f.Exprs[2])
		return true
	case name == "cast_to_timestamp" && len(f.Exprs) == 2:
		buf.Myprintf("CAST(%v AS DATETIME(%v))", f.Exprs[0], f.Exprs[1])
		return true
	case strings.HasPrefix(name, "cast_to_") && len(f.Exprs) == 1:
		t := strings.ToUpper(strings.TrimPrefix(name, "cast_to_"))
		buf.Myprintf("CAST(%v AS %s)", f.Exprs[0], t)
		return true
	case name == "extract" && len(f.Exprs) == 2:
		if ae, ok := f.Exprs[0].(*sqlparser.AliasedExpr); ok {
			if v, ok := ae.Expr.(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal {
				buf.Myprintf("EXTRACT(%s FROM %v)", strings.ToUpper(string(v.Val)), f.Exprs[1])
				return true
			}
		}
	}
	return false
}

// intLiteral reads a LIMIT/OFFSET value.
func (b *binder) intLiteral(e sqlparser.Expr, what string) (int64, error) {
	bound, err := b.bindExpr(e, &scope{})
	if err != nil {
		return 0, err
	}
	l, ok := bound.(*expr.Literal)
	if !ok || l.T != coldata.Int64 || l.Value == nil {
		return 0, errorf(TypeMismatch, what, "%s must be a non-negative integer, got %s", what, bound)
	}
	n := l.Value.(int64)
	if n < 0 {
		return 0, errorf(TypeMismatch, what, "%s must be a non-negative integer, got %d", what, n)
	}
	return n, nil
}

// anyDecimal reports whether some argument is a DECIMAL.
func anyDecimal(args []expr.Expr) bool {
	for _, a := range args {
		if a.Type().IsDecimal() {
			return true
		}
	}
	return false
}

// narrowDecimalLiterals types an integer literal in arithmetic with a
// DECIMAL as a DECIMAL of its own digits (MySQL: DECIMAL(15,2) * 2 is
// DECIMAL(16,2), not the DECIMAL(34,2) a BIGINT column would give).
func narrowDecimalLiterals(name string, args []expr.Expr) {
	switch name {
	case "+", "-", "*", "/", "%":
	default:
		return
	}
	if !anyDecimal(args) && (name != "/" || !exactOperands(args)) {
		return
	}
	for i, a := range args {
		l, ok := a.(*expr.Literal)
		if !ok {
			continue
		}
		x, ok := l.Value.(int64)
		if !ok || l.T != coldata.Int64 {
			continue
		}
		digits := len(strconv.FormatInt(x, 10))
		if x < 0 {
			digits--
		}
		args[i] = &expr.Literal{Value: decimal.FromInt64(x), T: coldata.DecimalOf(digits, 0)}
	}
}

// exactOperands reports whether / over args divides exactly (no DOUBLE or
// text operand): 1/3 is then DECIMAL(5,4), as MySQL types it.
func exactOperands(args []expr.Expr) bool {
	for _, a := range args {
		switch t := a.Type(); {
		case t == coldata.Int64, t == coldata.Bool, t == coldata.Null, t.IsDecimal():
		default:
			return false
		}
	}
	return true
}

// dateStringComparands types a string literal compared with a DATE as a
// DATE when it holds no time of day (or only midnight): the comparison
// then stays on dates. A string with a time of day is left as text, and
// the comparison is done as TIMESTAMPs (expr's compareType), as MySQL
// compares them as DATETIME: DATE '2024-02-29' = '2024-02-29 12:34:56'
// is false.
func dateStringComparands(name string, args []expr.Expr) {
	switch name {
	case "=", "<>", "<", "<=", ">", ">=", "<=>", "in":
	default:
		return
	}
	date := false
	for _, a := range args {
		switch a.Type() {
		case coldata.Timestamp:
			return
		case coldata.Date:
			date = true
		}
	}
	if !date {
		return
	}
	for i, a := range args {
		l, ok := a.(*expr.Literal)
		if !ok || l.T != coldata.String {
			continue
		}
		text, _ := l.Value.(string)
		ts, ok := datetime.ParseTimestamp(text)
		if !ok {
			continue
		}
		if days, micros := datetime.SplitTimestamp(ts); micros == 0 {
			args[i] = &expr.Literal{Value: days, T: coldata.Date}
		}
	}
}

// exactDecimalComparands types a DOUBLE literal compared with a DECIMAL as
// the DECIMAL of its shortest decimal text (0.07, not 0.07000000000000000666),
// as MySQL types a literal written with a decimal point: the comparison is
// then exact, and the DECIMAL side is not converted to DOUBLE row by row
// (a large share of TPC-H Q6 on the CPU: BenchmarkTPCH in a CPU profile). The shortest text reads back as the
// same double, so a value equal to it compares equal either way.
func exactDecimalComparands(name string, args []expr.Expr) {
	switch name {
	case "=", "<>", "<", "<=", ">", ">=", "<=>":
	default:
		return
	}
	if !anyDecimal(args) {
		return
	}
	for i, a := range args {
		l, ok := a.(*expr.Literal)
		if !ok || l.T != coldata.Float64 {
			continue
		}
		f, ok := l.Value.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		text := l.Text
		if text == "" {
			text = strconv.FormatFloat(f, 'f', -1, 64)
		}
		text = strings.TrimPrefix(text, "+")
		scale := 0
		if dot := strings.IndexByte(text, '.'); dot >= 0 {
			scale = len(text) - dot - 1
		}
		digits := len(strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(text), "0"))
		precision := max(digits, scale, 1)
		if precision > decimal.MaxPrecision {
			continue
		}
		v, ok := decimal.Parse(text, scale)
		if !ok {
			continue
		}
		args[i] = &expr.Literal{Value: v, T: coldata.DecimalOf(precision, scale)}
	}
}

// foldTry folds TRY(f(args)): the arguments of f are folded, and when all
// are constants the whole TRY is evaluated (a failure is NULL, not a
// planning error); f itself stays a call so that TRY sees what it wraps.
func foldTry(c *expr.Call) (expr.Expr, error) {
	inner, ok := c.Args[0].(*expr.Call)
	if !ok {
		return c, nil
	}
	args := make([]expr.Expr, len(inner.Args))
	allLit := true
	for i, a := range inner.Args {
		f, err := foldConstants(a)
		if err != nil {
			return &expr.Literal{Value: nil, T: c.T}, nil
		}
		args[i] = f
		_, lit := f.(*expr.Literal)
		allLit = allLit && lit
	}
	nc := &expr.Call{Fn: c.Fn, Args: []expr.Expr{&expr.Call{Fn: inner.Fn, Args: args, T: inner.T}}, T: c.T}
	if !allLit || inner.Fn.Volatile {
		return nc, nil
	}
	v, err := expr.Eval(nc, &coldata.Batch{Len: 1})
	if err != nil {
		return &expr.Literal{Value: nil, T: c.T}, nil
	}
	return &expr.Literal{Value: v.Value(0), T: c.T}, nil
}

// exactLiteralOf types a number written without an exponent as MySQL's
// exact-value literal: DECIMAL(p,s) with p the digits written (leading
// zeros count, as in MySQL: 0.1 is DECIMAL(2,1)) and s those after the
// point. A literal of more than 38 digits is left to DOUBLE (gsql's
// DECIMAL stops at 38 digits where MySQL's allows 65).
func exactLiteralOf(s string) (*expr.Literal, bool) {
	if strings.ContainsAny(s, "eE") {
		return nil, false
	}
	digits, scale := 0, 0
	dot := strings.IndexByte(s, '.')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			digits++
			if dot >= 0 && i > dot {
				scale++
			}
		}
	}
	if digits > decimal.MaxPrecision || digits == 0 {
		return nil, false
	}
	v, ok := decimal.Parse(s, scale)
	if !ok {
		return nil, false
	}
	return &expr.Literal{Value: v, T: coldata.DecimalOf(digits, scale)}, true
}
