package planner

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// aggCtx binds expressions above a GROUP BY: group keys and aggregates
// become references to the Aggregate node's output columns.
type aggCtx struct {
	from    *scope
	node    *Aggregate
	aliases map[string]expr.Expr // select-list aliases, for HAVING
	// origins are the input's column origins (nil until a column outside
	// the keys needs them: functional dependence).
	origins []Origin
}

var aggKinds = map[string]opspec.AggKind{
	"count": opspec.AggCount, "sum": opspec.AggSum, "avg": opspec.AggAvg,
	"min": opspec.AggMin, "max": opspec.AggMax,
	// BOOL_AND/BOOL_OR are MIN/MAX of a BOOLEAN (FALSE < TRUE, NULLs
	// skipped); ANY_VALUE may pick any of the group's values: the least.
	"bool_and": opspec.AggMin, "bool_or": opspec.AggMax, "any_value": opspec.AggMin,
	// MySQL: STD, STDDEV and VARIANCE are the population forms.
	"std": opspec.AggStddevPop, "stddev": opspec.AggStddevPop, "stddev_pop": opspec.AggStddevPop,
	"stddev_samp": opspec.AggStddevSamp, "variance": opspec.AggVarPop, "var_pop": opspec.AggVarPop,
	"var_samp": opspec.AggVarSamp,
	// MEDIAN(x) is QUANTILE_CONT(x, 0.5); PERCENTILE_CONT(q) WITHIN GROUP
	// (ORDER BY x) reaches here as QUANTILE_CONT(x, q) (sql/quantile.go).
	"median": opspec.AggQuantileCont, "quantile_cont": opspec.AggQuantileCont, "quantile": opspec.AggQuantileCont,
	"quantile_disc": opspec.AggQuantileDisc,
}

// boolAggs take a BOOLEAN argument (others are converted as by CAST).
var boolAggs = map[string]bool{"bool_and": true, "bool_or": true}

// hasAggregate reports whether a parsed expression calls an aggregate.
func hasAggregate(nodes ...sqlparser.SQLNode) bool {
	found := false
	for _, n := range nodes {
		if n == nil {
			continue
		}
		sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			switch x := node.(type) {
			case *sqlparser.FuncExpr:
				if aggregateNames[strings.ToLower(x.Name.String())] {
					found = true
				}
			case *sqlparser.GroupConcatExpr:
				found = true
			case *sqlparser.Subquery:
				return false, nil
			}
			return !found, nil
		}, n)
	}
	return found
}

// intercept binds e if it is a group key or an aggregate; ok is false when
// e must be bound by the ordinary rules (whose parts are intercepted again).
func (a *aggCtx) intercept(b *binder, e sqlparser.Expr) (expr.Expr, bool, error) {
	if hasWindow(e) {
		// Window functions run after grouping: their parts are
		// intercepted one by one (bindwindow.go).
		return nil, false, nil
	}
	switch x := e.(type) {
	case *sqlparser.FuncExpr:
		if kind, isAgg := aggKinds[strings.ToLower(x.Name.String())]; isAgg {
			ref, err := a.bindAggregate(b, kind, x)
			return ref, true, err
		}
		if aggregateNames[strings.ToLower(x.Name.String())] {
			return nil, true, errorf(Unsupported, x.Name.String(), "not supported: aggregate %s", strings.ToUpper(x.Name.String()))
		}
	case *sqlparser.GroupConcatExpr:
		ref, err := a.bindGroupConcat(b, x)
		return ref, true, err
	case *sqlparser.ParenExpr, *sqlparser.SQLVal, *sqlparser.NullVal, sqlparser.BoolVal:
		return nil, false, nil
	}
	if hasAggregate(e) {
		return nil, false, nil
	}
	saved := b.agg
	b.agg = nil
	bound, err := b.bindExpr(e, a.from)
	b.agg = saved
	if err != nil {
		c, isCol := e.(*sqlparser.ColName)
		if isCol && c.Qualifier.IsEmpty() {
			if al, ok := a.aliases[strings.ToLower(c.Name.String())]; ok {
				return al, true, nil
			}
		}
		if !isCol {
			// Bind the parts one by one: one may be a select-list alias
			// (HAVING total > 3), intercepted on its own.
			return nil, false, nil
		}
		return nil, true, err
	}
	s, key := bound.String(), expr.Key(bound)
	for i, k := range a.node.Keys {
		if expr.Key(k) == key {
			return &expr.ColumnRef{Index: i, Name: s, T: k.Type()}, true, nil
		}
	}
	if expr.IsConstant(bound) {
		return bound, true, nil
	}
	if c, ok := e.(*sqlparser.ColName); ok {
		if c.Qualifier.IsEmpty() {
			if al, ok := a.aliases[strings.ToLower(c.Name.String())]; ok {
				return al, true, nil
			}
		}
		ref, err := a.column(bound, sqlparser.String(c))
		return ref, true, err
	}
	return nil, false, nil
}

// column binds an input column that is not a group key: allowed when the
// grouped columns determine it (MySQL 8's functional dependence on a
// grouped PRIMARY KEY or UNIQUE NOT NULL key), error 1055 otherwise. A
// dependent column has one value per group, which ANY_VALUE (the least)
// reads without splitting groups.
func (a *aggCtx) column(bound expr.Expr, name string) (expr.Expr, error) {
	if ref, ok := bound.(*expr.ColumnRef); ok && a.dependent(ref) {
		return a.addAgg("any_value("+ref.String()+")", opspec.AggSpec{Kind: opspec.AggMin, Arg: ref, Type: ref.T}), nil
	}
	if len(a.node.Keys) == 0 {
		return nil, errorf(MixedAggregate, name, "In aggregated query without GROUP BY, the SELECT list contains nonaggregated column '%s'; this is incompatible with sql_mode=only_full_group_by", name)
	}
	return nil, errorf(NonGrouped, name, "column %q must appear in the GROUP BY clause or be used in an aggregate function (it does not depend on the grouped columns)", name)
}

// groupedColumn binds input column ref above the grouping: a group key,
// or a column the keys determine (column).
func (a *aggCtx) groupedColumn(ref *expr.ColumnRef) (expr.Expr, error) {
	key := expr.Key(ref)
	for i, k := range a.node.Keys {
		if expr.Key(k) == key {
			return &expr.ColumnRef{Index: i, Name: ref.Name, T: k.Type()}, nil
		}
	}
	return a.column(ref, ref.Name)
}

// dependent reports whether input column ref is functionally dependent
// on the group keys that are plain input columns.
func (a *aggCtx) dependent(ref *expr.ColumnRef) bool {
	if a.origins == nil {
		a.origins = Origins(a.node.Input)
	}
	if ref.Index < 0 || ref.Index >= len(a.origins) {
		return false
	}
	var grouped []Origin
	for _, k := range a.node.Keys {
		if c, ok := k.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(a.origins) {
			grouped = append(grouped, a.origins[c.Index])
		}
	}
	return a.origins[ref.Index].dependsOn(grouped)
}

// keyRef maps a column of the FROM scope that a correlated subquery reads
// to the group key holding it in the Aggregate's output.
func (a *aggCtx) keyRef(r *expr.ColumnRef) (expr.Expr, error) {
	for i, k := range a.node.Keys {
		if c, ok := k.(*expr.ColumnRef); ok && c.Index == r.Index {
			return &expr.ColumnRef{Index: i, Name: r.Name, T: k.Type()}, nil
		}
	}
	return nil, errorf(TypeMismatch, r.Name, "column %q must appear in the GROUP BY clause or be used in an aggregate function (it is read by a subquery)", r.Name)
}

// addAgg registers an aggregate (once per distinct spelling) and returns a
// reference to its output column.
func (a *aggCtx) addAgg(name string, spec opspec.AggSpec) expr.Expr {
	for i, s := range a.node.Aggs {
		if sameAgg(s, spec) {
			return &expr.ColumnRef{Index: len(a.node.Keys) + i, Name: a.node.AggNames[i], T: s.Type}
		}
	}
	a.node.Aggs = append(a.node.Aggs, spec)
	a.node.AggNames = append(a.node.AggNames, name)
	return &expr.ColumnRef{Index: len(a.node.Keys) + len(a.node.Aggs) - 1, Name: name, T: spec.Type}
}

func (a *aggCtx) bindArg(b *binder, e sqlparser.Expr) (expr.Expr, error) {
	if hasAggregate(e) {
		return nil, errorf(TypeMismatch, "", "aggregate functions cannot be nested: %s", sqlparser.String(e))
	}
	if hasWindow(e) {
		return nil, errorf(TypeMismatch, "", "window functions are not allowed in the argument of an aggregate")
	}
	saved := b.agg
	b.agg = nil
	defer func() { b.agg = saved }()
	return b.bindExpr(e, a.from)
}

func (a *aggCtx) bindAggregate(b *binder, kind opspec.AggKind, x *sqlparser.FuncExpr) (expr.Expr, error) {
	name := strings.ToUpper(x.Name.String())
	spec := opspec.AggSpec{Kind: kind, Distinct: x.Distinct}
	quantile := kind == opspec.AggQuantileCont || kind == opspec.AggQuantileDisc
	switch {
	case quantile && name == "MEDIAN":
		if len(x.Exprs) != 1 {
			return nil, errorf(TypeMismatch, name, "function MEDIAN: expects 1 argument, got %d", len(x.Exprs))
		}
		spec.Quantile = 0.5
	case quantile:
		if len(x.Exprs) == 3 {
			// PERCENTILE_*(q) WITHIN GROUP (ORDER BY x DESC), from the
			// dialect layer.
			spec.Order = []opspec.AggOrder{{Desc: true}}
		} else if len(x.Exprs) != 2 {
			return nil, errorf(TypeMismatch, name, "function %s: expects 2 arguments (value, fraction), got %d", name, len(x.Exprs))
		}
		q, err := quantileFraction(b, x.Exprs[1])
		if err != nil {
			return nil, errorf(TypeMismatch, name, "function %s: %v", name, err)
		}
		spec.Quantile = q
		x = &sqlparser.FuncExpr{Name: x.Name, Distinct: x.Distinct, Exprs: x.Exprs[:1]}
	case len(x.Exprs) != 1:
		return nil, errorf(TypeMismatch, name, "function %s: expects 1 argument, got %d", name, len(x.Exprs))
	}
	if spec.Distinct && (quantile || kind >= opspec.AggVarPop) {
		return nil, errorf(Unsupported, name, "not supported: DISTINCT in %s", name)
	}
	label := strings.ToLower(name) + "("
	if x.Distinct {
		label += "DISTINCT "
	}
	switch arg := x.Exprs[0].(type) {
	case *sqlparser.StarExpr:
		if kind != opspec.AggCount || x.Distinct {
			return nil, errorf(TypeMismatch, name, "function %s: * is only allowed in COUNT(*)", name)
		}
		spec.Kind = opspec.AggCountStar
		spec.Type = coldata.Int64
		return a.addAgg("count(*)", spec), nil
	case *sqlparser.AliasedExpr:
		e, err := a.bindArg(b, arg.Expr)
		if err != nil {
			return nil, err
		}
		if kind == opspec.AggSum || kind == opspec.AggAvg {
			// SUM(a/3) adds the quotients at MySQL's intermediate
			// precision, then rounds to the type of SUM of a/3 (binddiv.go).
			if w, ok := b.peelWide(e); ok {
				spec.Arg = w
				spec.Type = opspec.AggResultType(kind, w.Type())
				ref := a.addAgg(label+w.String()+")", spec)
				return expr.CastTo(ref, opspec.AggResultType(kind, e.Type()))
			}
		}
		if boolAggs[strings.ToLower(name)] && e.Type() != coldata.Bool {
			if e, err = expr.CastTo(e, coldata.Bool); err != nil {
				return nil, errorf(TypeMismatch, name, "function %s: %v", name, err)
			}
		}
		if kind >= opspec.AggVarPop && kind <= opspec.AggQuantileCont && kind != opspec.AggQuantileDisc {
			// Statistics are DOUBLE, as in MySQL and DuckDB.
			if e.Type().IsTemporal() {
				return nil, errorf(TypeMismatch, name, "function %s: cannot average values of type %s", name, e.Type())
			}
			if e, err = expr.CastTo(e, coldata.Float64); err != nil {
				return nil, errorf(TypeMismatch, name, "function %s: %v", name, err)
			}
		}
		if (kind == opspec.AggSum || kind == opspec.AggAvg) && e.Type().IsTemporal() {
			return nil, errorf(TypeMismatch, name, "function %s: cannot add values of type %s", strings.ToUpper(name), e.Type())
		}
		if (kind == opspec.AggSum || kind == opspec.AggAvg) && (e.Type() == coldata.String || e.Type() == coldata.Null) {
			if e, err = expr.CastTo(e, coldata.Float64); err != nil {
				return nil, err
			}
		}
		if kind == opspec.AggAvg && (e.Type() == coldata.Int64 || e.Type() == coldata.Bool) {
			// MySQL averages integers exactly: AVG(1, 2) is 1.5000, DECIMAL
			// with scale 4 (div_precision_increment).
			if e, err = expr.CastTo(e, coldata.DecimalOf(19, 0)); err != nil {
				return nil, err
			}
		}
		spec.Arg = e
		spec.Type = opspec.AggResultType(spec.Kind, e.Type())
		if spec.Type == coldata.Null {
			spec.Type = coldata.String
			if spec.Arg, err = expr.CastTo(e, coldata.String); err != nil {
				return nil, err
			}
		}
		key := label + e.String()
		if quantile {
			// Quantiles with other fractions or orders are other aggregates.
			key += fmt.Sprintf(", %v", spec.Quantile)
			if len(spec.Order) > 0 {
				key += ", desc"
			}
		}
		return a.addAgg(key+")", spec), nil
	}
	return nil, errorf(TypeMismatch, name, "function %s: bad argument", name)
}

func (a *aggCtx) bindGroupConcat(b *binder, x *sqlparser.GroupConcatExpr) (expr.Expr, error) {
	spec := opspec.AggSpec{Kind: opspec.AggGroupConcat, Distinct: x.Distinct != "", Separator: ",", Type: coldata.String}
	if x.Separator != "" {
		// The parser keeps the clause's text: " separator 'X'".
		spec.Separator = strings.TrimSuffix(strings.TrimPrefix(x.Separator, " separator '"), "'")
	}
	var parts []expr.Expr
	for _, se := range x.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, errorf(TypeMismatch, "group_concat", "GROUP_CONCAT: * is not a valid argument")
		}
		e, err := a.bindArg(b, ae.Expr)
		if err != nil {
			return nil, err
		}
		parts = append(parts, e)
	}
	// Several arguments are concatenated, as in MySQL.
	arg := parts[0]
	if len(parts) > 1 || arg.Type() != coldata.String {
		var err error
		if arg, err = b.apply("concat", parts...); err != nil {
			return nil, err
		}
	}
	spec.Arg = arg
	for _, o := range x.OrderBy {
		e, err := a.bindArg(b, o.Expr)
		if err != nil {
			return nil, err
		}
		spec.Order = append(spec.Order, opspec.AggOrder{Expr: e, Desc: o.Direction == sqlparser.DescScr})
	}
	return a.addAgg(strings.ToLower(sqlparser.String(x)), spec), nil
}

// groupKey resolves a GROUP BY item: an ordinal or alias of the select list,
// or an expression over the FROM columns.
func (b *binder) groupKey(g sqlparser.Expr, sc *scope, sel sqlparser.SelectExprs) (expr.Expr, error) {
	if v, ok := g.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal {
		n, err := b.intLiteral(v, "GROUP BY position")
		if err != nil || n < 1 || int(n) > len(sel) {
			return nil, errorf(UnknownColumn, string(v.Val), "unknown column %s in GROUP BY", v.Val)
		}
		ae, ok := sel[n-1].(*sqlparser.AliasedExpr)
		if !ok {
			return nil, errorf(TypeMismatch, string(v.Val), "GROUP BY %s refers to *", v.Val)
		}
		if hasAggregate(ae.Expr) {
			return nil, errorf(TypeMismatch, string(v.Val), "cannot group on an aggregate (GROUP BY %s)", v.Val)
		}
		return b.bindExpr(ae.Expr, sc)
	}
	if hasAggregate(g) {
		return nil, errorf(TypeMismatch, "", "cannot group on an aggregate: %s", sqlparser.String(g))
	}
	e, err := b.bindExpr(g, sc)
	if err == nil {
		return e, nil
	}
	if c, ok := g.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() {
		for _, se := range sel {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && strings.EqualFold(ae.As.String(), c.Name.String()) {
				if hasAggregate(ae.Expr) {
					return nil, errorf(TypeMismatch, c.Name.String(), "cannot group on an aggregate (%s)", c.Name.String())
				}
				return b.bindExpr(ae.Expr, sc)
			}
		}
	}
	return nil, err
}

// quantileFraction reads the constant fraction of a quantile aggregate.
func quantileFraction(b *binder, e sqlparser.SelectExpr) (float64, error) {
	ae, ok := e.(*sqlparser.AliasedExpr)
	if !ok {
		return 0, fmt.Errorf("the fraction must be a number")
	}
	bound, err := b.bindExpr(ae.Expr, &scope{})
	if err != nil {
		return 0, fmt.Errorf("the fraction must be a constant: %w", err)
	}
	if bound, err = foldConstants(bound); err != nil {
		return 0, err
	}
	l, ok := bound.(*expr.Literal)
	if !ok {
		return 0, fmt.Errorf("the fraction must be a constant")
	}
	var q float64
	switch v := l.Value.(type) {
	case int64:
		q = float64(v)
	case float64:
		q = v
	case decimal.Int128:
		q = v.Float64(l.T.Scale())
	default:
		return 0, fmt.Errorf("the fraction must be a number")
	}
	if q < 0 || q > 1 || q != q {
		return 0, fmt.Errorf("the fraction must be between 0 and 1, got %v", q)
	}
	return q, nil
}

// sameAgg reports whether two aggregates compute the same values (their
// arguments compared by structure, not by name: SUM(c1.v) and SUM(c3.v)
// differ).
func sameAgg(a, b opspec.AggSpec) bool {
	if a.Kind != b.Kind || a.Distinct != b.Distinct || a.Quantile != b.Quantile || a.Separator != b.Separator ||
		a.Type != b.Type || len(a.Order) != len(b.Order) || (a.Arg == nil) != (b.Arg == nil) {
		return false
	}
	if a.Arg != nil && expr.Key(a.Arg) != expr.Key(b.Arg) {
		return false
	}
	for i := range a.Order {
		if a.Order[i].Desc != b.Order[i].Desc || (a.Order[i].Expr == nil) != (b.Order[i].Expr == nil) {
			return false
		}
		if a.Order[i].Expr != nil && expr.Key(a.Order[i].Expr) != expr.Key(b.Order[i].Expr) {
			return false
		}
	}
	return true
}
