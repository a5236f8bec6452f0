package planner

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
	"github.com/gsqlengine/gsql/sql"
)

// Window computes window functions over its input (after WHERE, GROUP BY
// and HAVING, before the select list): its output is the input's columns
// followed by one column per function, rows in input order.
type Window struct {
	placed
	Input Node
	Funcs []winspec.Func
	Names []string
}

// Columns implements Node.
func (w *Window) Columns() []Column {
	out := append([]Column(nil), w.Input.Columns()...)
	for i, f := range w.Funcs {
		out = append(out, Column{Name: w.Names[i], Type: f.Type})
	}
	return out
}

// Inputs implements Node.
func (w *Window) Inputs() []Node { return []Node{w.Input} }

func (w *Window) describe() string {
	s := w.funcList()
	if some, _ := winspec.AnyHashed(w.Funcs, false); some {
		// Aggregates over whole partitions hash their keys instead of
		// sorting (operators/window, hashed.go).
		s += " (partition aggregates hashed)"
	}
	return s
}

func (w *Window) funcList() string {
	parts := make([]string, len(w.Funcs))
	for i := range w.Funcs {
		parts[i] = w.Funcs[i].String()
	}
	return "Window " + strings.Join(parts, ", ")
}

// winCtx collects the window functions of one SELECT. Each function's
// result is a column after the input's, whose index is known once every
// expression of the query is bound (an aggregate input may still grow).
type winCtx struct {
	funcs []winspec.Func
	names []string
	keys  []string
	refs  []*expr.ColumnRef
}

// hasWindow reports whether parsed expressions call a window function
// (outside subqueries, which have their own).
func hasWindow(nodes ...sqlparser.SQLNode) bool {
	found := false
	for _, n := range nodes {
		if n == nil {
			continue
		}
		sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			switch x := node.(type) {
			case *sqlparser.FuncExpr:
				if x.Name.Lowered() == sql.WindowMarker {
					found = true
				}
			case *sqlparser.Subquery:
				return false, nil
			}
			return !found, nil
		}, n)
	}
	return found
}

// windowName is the column name of an unaliased window function: its
// source text (the marker keeps it).
func windowName(x *sqlparser.FuncExpr) (string, bool) {
	if x.Name.Lowered() != sql.WindowMarker || len(x.Exprs) < 2 {
		return "", false
	}
	if a, ok := x.Exprs[1].(*sqlparser.AliasedExpr); ok {
		if v, ok := a.Expr.(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal {
			return string(v.Val), true
		}
	}
	return "", false
}

var windowKinds = map[string]winspec.Kind{
	"row_number": winspec.RowNumber, "rank": winspec.Rank, "dense_rank": winspec.DenseRank,
	"percent_rank": winspec.PercentRank, "cume_dist": winspec.CumeDist, "ntile": winspec.Ntile,
	"lag": winspec.Lag, "lead": winspec.Lead, "first_value": winspec.FirstValue,
	"last_value": winspec.LastValue, "nth_value": winspec.NthValue,
	"count": winspec.Count, "sum": winspec.Sum, "avg": winspec.Avg, "min": winspec.Min, "max": winspec.Max,
	"bool_and": winspec.Min, "bool_or": winspec.Max, "any_value": winspec.Min,
}

// markerArgs returns the arguments of one of the window marker calls.
func markerArgs(e sqlparser.Expr, name string) (sqlparser.SelectExprs, error) {
	f, ok := e.(*sqlparser.FuncExpr)
	if !ok || f.Name.Lowered() != name {
		return nil, fmt.Errorf("internal error: malformed window marker (want %s, got %s)", name, sqlparser.String(e))
	}
	return f.Exprs, nil
}

func aliased(se sqlparser.SelectExpr) (sqlparser.Expr, bool) {
	a, ok := se.(*sqlparser.AliasedExpr)
	if !ok {
		return nil, false
	}
	return a.Expr, true
}

// markerInt reads an integer argument the dialect layer wrote.
func markerInt(se sqlparser.SelectExpr) int {
	e, _ := aliased(se)
	v, ok := e.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.IntVal || len(v.Val) != 1 {
		return -1
	}
	return int(v.Val[0] - '0')
}

// bindWindow binds a window function call (the dialect layer's marker) and
// returns a reference to its result column.
func (b *binder) bindWindow(x *sqlparser.FuncExpr, sc *scope) (expr.Expr, error) {
	text, _ := windowName(x)
	if b.win == nil {
		return nil, errorf(TypeMismatch, text, "window function %s is not allowed here (only in the select list and ORDER BY)", text)
	}
	if len(x.Exprs) != 6 {
		return nil, fmt.Errorf("internal error: malformed window marker %s", sqlparser.String(x))
	}
	nameExpr, _ := aliased(x.Exprs[0])
	nv, ok := nameExpr.(*sqlparser.SQLVal)
	if !ok {
		return nil, fmt.Errorf("internal error: malformed window marker %s", sqlparser.String(x))
	}
	name := strings.ToLower(string(nv.Val))
	upper := strings.ToUpper(name)
	kind, ok := windowKinds[name]
	if !ok {
		if aggregateNames[name] {
			return nil, errorf(Unsupported, name, "not supported: %s as a window function", upper)
		}
		return nil, errorf(UnknownFunction, name, "%s is not a window function or an aggregate (OVER needs one)", upper)
	}
	// Window functions see the query's rows after grouping; they cannot
	// nest (the dialect layer reports that with its position).
	win := b.win
	b.win = nil
	defer func() { b.win = win }()

	f := winspec.Func{Kind: kind}
	argExprs, err := markerArgs(exprOf(x.Exprs[2]), sql.WindowArgsMarker)
	if err != nil {
		return nil, err
	}
	if err := b.windowArgs(&f, name, argExprs, sc); err != nil {
		return nil, err
	}
	parts, err := markerArgs(exprOf(x.Exprs[3]), sql.WindowPartitionMarker)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		pe, _ := aliased(p)
		e, err := b.bindExpr(pe, sc)
		if err != nil {
			return nil, err
		}
		f.Partition = append(f.Partition, e)
	}
	keys, err := markerArgs(exprOf(x.Exprs[4]), sql.WindowOrderMarker)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		ke, _ := aliased(k)
		kargs, err := markerArgs(ke, sql.WindowKeyMarker)
		if err != nil || len(kargs) != 3 {
			return nil, fmt.Errorf("internal error: malformed window key %s", sqlparser.String(ke))
		}
		oe, _ := aliased(kargs[0])
		e, err := b.bindExpr(oe, sc)
		if err != nil {
			return nil, err
		}
		key := winspec.Key{Expr: e, Desc: markerInt(kargs[1]) == 1}
		switch markerInt(kargs[2]) {
		case 1:
			key.Nulls = opspec.NullsFirst
		case 2:
			key.Nulls = opspec.NullsLast
		}
		f.Order = append(f.Order, key)
	}
	frame, err := markerArgs(exprOf(x.Exprs[5]), sql.WindowFrameMarker)
	if err != nil || len(frame) != 5 {
		return nil, fmt.Errorf("internal error: malformed window frame %s", sqlparser.String(x.Exprs[5]))
	}
	if f.Frame, err = b.windowFrame(frame, &f, sc); err != nil {
		return nil, err
	}

	key := f.Identity()
	for i, k := range win.keys {
		if k == key {
			return win.refs[i], nil
		}
	}
	if text == "" {
		text = f.String()
	}
	ref := &expr.ColumnRef{Name: text, T: f.Type}
	win.funcs = append(win.funcs, f)
	win.names = append(win.names, text)
	win.keys = append(win.keys, key)
	win.refs = append(win.refs, ref)
	return ref, nil
}

func exprOf(se sqlparser.SelectExpr) sqlparser.Expr {
	e, _ := aliased(se)
	return e
}

// windowArgs binds a window function's arguments and sets its result type.
func (b *binder) windowArgs(f *winspec.Func, name string, args sqlparser.SelectExprs, sc *scope) error {
	upper := strings.ToUpper(name)
	want := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			if lo == hi {
				return errorf(TypeMismatch, name, "function %s: expects %d argument(s), got %d", upper, lo, len(args))
			}
			return errorf(TypeMismatch, name, "function %s: expects %d to %d arguments, got %d", upper, lo, hi, len(args))
		}
		return nil
	}
	if len(args) == 1 {
		if _, ok := args[0].(*sqlparser.StarExpr); ok {
			if f.Kind != winspec.Count {
				return errorf(TypeMismatch, name, "function %s: * is only allowed in COUNT(*)", upper)
			}
			f.Kind, f.Type = winspec.CountStar, coldata.Int64
			return nil
		}
	}
	bound := make([]expr.Expr, len(args))
	for i, a := range args {
		ae, ok := aliased(a)
		if !ok {
			return errorf(TypeMismatch, name, "function %s: * is not a valid argument", upper)
		}
		e, err := b.bindExpr(ae, sc)
		if err != nil {
			return err
		}
		bound[i] = e
	}
	// constInt reads an argument that must be a constant integer >= lo.
	constInt := func(i int, what string, lo int64) (int64, error) {
		e, err := foldConstants(bound[i])
		if err != nil {
			return 0, err
		}
		l, ok := e.(*expr.Literal)
		if !ok || l.T != coldata.Int64 || l.Value == nil || l.Value.(int64) < lo {
			return 0, errorf(TypeMismatch, name, "function %s: %s must be an integer constant >= %d, got %s", upper, what, lo, bound[i])
		}
		return l.Value.(int64), nil
	}
	var err error
	switch f.Kind {
	case winspec.RowNumber, winspec.Rank, winspec.DenseRank, winspec.PercentRank, winspec.CumeDist:
		if err := want(0, 0); err != nil {
			return err
		}
		f.Type = coldata.Int64
		if f.Kind == winspec.PercentRank || f.Kind == winspec.CumeDist {
			f.Type = coldata.Float64
		}
	case winspec.Ntile:
		if err := want(1, 1); err != nil {
			return err
		}
		if f.N, err = constInt(0, "the number of buckets", 1); err != nil {
			return err
		}
		f.Type = coldata.Int64
	case winspec.Lag, winspec.Lead:
		if err := want(1, 3); err != nil {
			return err
		}
		f.N = 1
		if len(bound) > 1 {
			if f.N, err = constInt(1, "the offset", 0); err != nil {
				return err
			}
		}
		t := bound[0].Type()
		if len(bound) > 2 {
			t = expr.Unify(t, bound[2].Type())
		}
		if t == coldata.Null {
			t = coldata.String
		}
		v, err := expr.CastTo(bound[0], t)
		if err != nil {
			return errorf(TypeMismatch, name, "function %s: %v", upper, err)
		}
		f.Args = []expr.Expr{v}
		if len(bound) > 2 {
			d, err := expr.CastTo(bound[2], t)
			if err != nil {
				return errorf(TypeMismatch, name, "function %s: %v", upper, err)
			}
			f.Args = append(f.Args, d)
		}
		f.Type = t
	case winspec.FirstValue, winspec.LastValue, winspec.NthValue:
		if f.Kind == winspec.NthValue {
			if err := want(2, 2); err != nil {
				return err
			}
			if f.N, err = constInt(1, "N", 1); err != nil {
				return err
			}
		} else if err := want(1, 1); err != nil {
			return err
		}
		v := bound[0]
		if v.Type() == coldata.Null {
			v, _ = expr.CastTo(v, coldata.String)
		}
		f.Args, f.Type = []expr.Expr{v}, v.Type()
	default: // aggregates
		if err := want(1, 1); err != nil {
			return err
		}
		v := bound[0]
		switch {
		case name == "bool_and" || name == "bool_or":
			if v, err = expr.CastTo(v, coldata.Bool); err != nil {
				return errorf(TypeMismatch, name, "function %s: %v", upper, err)
			}
		case (f.Kind == winspec.Sum || f.Kind == winspec.Avg) && v.Type().IsTemporal():
			return errorf(TypeMismatch, name, "function %s: cannot add values of type %s", upper, v.Type())
		case (f.Kind == winspec.Sum || f.Kind == winspec.Avg) && (v.Type() == coldata.String || v.Type() == coldata.Null):
			if v, err = expr.CastTo(v, coldata.Float64); err != nil {
				return err
			}
		case v.Type() == coldata.Null:
			v, _ = expr.CastTo(v, coldata.String)
		}
		f.Args = []expr.Expr{v}
		switch f.Kind {
		case winspec.Count:
			f.Type = coldata.Int64
		case winspec.Sum:
			f.Type = opspec.AggResultType(opspec.AggSum, v.Type())
		case winspec.Avg:
			f.Type = coldata.Float64
			switch t := v.Type(); {
			case t.IsDecimal():
				f.Type = expr.DecimalAvgType(t)
			case t == coldata.Int64 || t == coldata.Bool:
				// MySQL averages integers exactly, as GROUP BY's AVG does
				// (bindagg.go): DECIMAL with scale 4. The argument stays an
				// integer: the operators sum it exactly and finish the sum
				// as a DECIMAL, with no cast per row.
				f.Type = expr.DecimalAvgType(coldata.DecimalOf(19, 0))
			}
		default:
			f.Type = v.Type()
		}
	}
	return nil
}

// windowFrame binds the frame clause (the marker's five arguments).
func (b *binder) windowFrame(args sqlparser.SelectExprs, f *winspec.Func, sc *scope) (winspec.Frame, error) {
	unit := markerInt(args[0])
	if unit == 0 {
		return winspec.DefaultFrame(len(f.Order) > 0), nil
	}
	fr := winspec.Frame{Unit: winspec.Rows}
	if unit == 2 {
		fr.Unit = winspec.Range
	}
	for k, bd := range []*winspec.Bound{&fr.Start, &fr.End} {
		kind := markerInt(args[1+2*k])
		if kind < 0 || kind > sql.BoundUnboundedFollowing {
			return fr, fmt.Errorf("internal error: malformed window frame bound")
		}
		bd.Kind = winspec.BoundKind(kind)
		if bd.Kind != winspec.Preceding && bd.Kind != winspec.Following {
			continue
		}
		oe, _ := aliased(args[2+2*k])
		e, err := b.bindExpr(oe, sc)
		if err != nil {
			return fr, err
		}
		if e, err = foldConstants(e); err != nil {
			return fr, err
		}
		l, ok := e.(*expr.Literal)
		if !ok || l.Value == nil {
			return fr, errorf(TypeMismatch, "", "a window frame offset must be a constant, got %s", e)
		}
		if d, ok := l.Value.(decimal.Int128); ok {
			if fr.Unit == winspec.Range && len(f.Order) == 1 && f.Order[0].Expr.Type().IsDecimal() {
				// Over a DECIMAL key the offset stays exact: the frame
				// compares key ∓ offset in decimal.
				if d.IsNeg() {
					return fr, errorf(TypeMismatch, "", "a window frame offset must not be negative, got %s", e)
				}
				bd.Offset = l
				continue
			}
			// 1.5 is an exact DECIMAL literal; RANGE offsets over other
			// keys are DOUBLE.
			l = &expr.Literal{Value: d.Float64(l.T.Scale()), T: coldata.Float64}
		}
		switch v := l.Value.(type) {
		case int64:
			if v < 0 {
				return fr, errorf(TypeMismatch, "", "a window frame offset must not be negative, got %d", v)
			}
		case float64:
			if fr.Unit == winspec.Rows {
				return fr, errorf(TypeMismatch, "", "a ROWS frame offset must be an integer, got %s", e)
			}
			if !(v >= 0) {
				return fr, errorf(TypeMismatch, "", "a window frame offset must not be negative, got %s", e)
			}
		default:
			return fr, errorf(TypeMismatch, "", "a window frame offset must be a number, got %s", e)
		}
		bd.Offset = l.Value
		if fr.Unit == winspec.Range {
			if t := f.Order[0].Expr.Type(); t != coldata.Int64 && t != coldata.Float64 && !t.IsDecimal() {
				return fr, errorf(TypeMismatch, "", "RANGE with an offset needs a numeric ORDER BY column, not %s", t)
			}
		}
	}
	return fr, nil
}

// placeWindows puts the Window node of a SELECT's window functions over
// input and fixes their result columns' indexes.
func (w *winCtx) placeWindows(input Node) Node {
	if w == nil || len(w.funcs) == 0 {
		return input
	}
	n := len(input.Columns())
	for i, r := range w.refs {
		r.Index = n + i
	}
	return &Window{Input: input, Funcs: w.funcs, Names: w.names}
}
