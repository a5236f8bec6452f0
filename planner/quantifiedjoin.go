package planner

import (
	"github.com/xwb1989/sqlparser"
)

// Correlated quantified comparisons as joins. A top-level conjunct of WHERE
// x op ANY|ALL (SELECT v FROM tables WHERE k1 = outer1 AND ... AND p), op
// one of <, <=, >, >=, needs of each outer row's S only its extreme (MIN
// or MAX of v), whether it is empty and how many NULLs it holds. Those are
// correlated scalar aggregates, which scalarjoin.go plans as LEFT JOINs
// with the subquery grouped by its correlation keys (SUM(1) counts the
// rows, NULL for no group, i.e. an empty S). The conjunct then becomes
//
//	ANY: CASE WHEN x op ext THEN TRUE WHEN n IS NULL THEN FALSE
//	          WHEN x IS NULL OR nulls > 0 THEN NULL ELSE FALSE END
//	ALL: CASE WHEN n IS NULL THEN TRUE WHEN NOT (x op ext) THEN FALSE
//	          WHEN x IS NULL OR nulls > 0 THEN NULL ELSE TRUE END
//
// with ext MIN(v) for > ANY and < ALL (and their -= forms), MAX(v) for the
// others: the definition of quantified.go, exactly, in one pass over S
// instead of one run of S per distinct outer value. Other shapes keep the
// per-row path.

// planQuantifiedJoins rewrites the qualifying conjuncts of where.
func (b *binder) planQuantifiedJoins(where sqlparser.Expr, input Node, sc *scope) (sqlparser.Expr, Node, *scope) {
	terms := andTerms(where)
	for i, c := range terms {
		cmp, ok := unparen(c).(*sqlparser.ComparisonExpr)
		if !ok {
			continue
		}
		q, all, ok := quantifiedOperand(cmp.Right)
		if !ok || q == nil || hasSubquery(cmp.Left) || isRowValue(cmp.Left) {
			continue
		}
		fn := comparisonFuncs[cmp.Operator]
		switch fn {
		case "<", "<=", ">", ">=":
		default:
			continue
		}
		sel, ok := q.Select.(*sqlparser.Select)
		if !ok || len(sel.SelectExprs) != 1 || sel.Distinct != "" || len(sel.GroupBy) > 0 || sel.Having != nil ||
			sel.Limit != nil || len(sel.OrderBy) > 0 {
			continue
		}
		ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
		if !ok || hasAggregate(ae.Expr) || hasSubquery(ae.Expr) {
			continue
		}
		v := ae.Expr
		greater := fn == ">" || fn == ">="
		extName := "max"
		if greater != all {
			extName = "min"
		}
		one := sqlparser.NewIntVal([]byte("1"))
		zero := sqlparser.NewIntVal([]byte("0"))
		aggs := []sqlparser.Expr{
			aggCall("sum", one),
			aggCall(extName, v),
			aggCall("sum", &sqlparser.CaseExpr{Whens: []*sqlparser.When{{Cond: &sqlparser.IsExpr{Operator: sqlparser.IsNullStr, Expr: v}, Val: one}}, Else: zero}),
		}
		cols := make([]sqlparser.Expr, len(aggs))
		in, isc := input, sc
		failed := false
		for k, agg := range aggs {
			s := *sel
			s.SelectExprs = sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: agg}}
			j, col, nsc, ok := b.scalarJoin(&sqlparser.Subquery{Select: &s}, in, isc)
			if !ok {
				failed = true
				break
			}
			in, isc, cols[k] = j, nsc, col
		}
		if failed {
			continue
		}
		input, sc = in, isc
		n, ext, nulls := cols[0], cols[1], cols[2]
		x := cmp.Left
		opx := &sqlparser.ComparisonExpr{Operator: cmp.Operator, Left: x, Right: ext}
		undecided := &sqlparser.OrExpr{
			Left:  &sqlparser.IsExpr{Operator: sqlparser.IsNullStr, Expr: x},
			Right: &sqlparser.ComparisonExpr{Operator: sqlparser.GreaterThanStr, Left: nulls, Right: zero},
		}
		empty := &sqlparser.IsExpr{Operator: sqlparser.IsNullStr, Expr: n}
		var whens []*sqlparser.When
		if all {
			whens = []*sqlparser.When{
				{Cond: empty, Val: sqlparser.BoolVal(true)},
				{Cond: &sqlparser.NotExpr{Expr: opx}, Val: sqlparser.BoolVal(false)},
				{Cond: undecided, Val: &sqlparser.NullVal{}},
			}
		} else {
			whens = []*sqlparser.When{
				{Cond: opx, Val: sqlparser.BoolVal(true)},
				{Cond: empty, Val: sqlparser.BoolVal(false)},
				{Cond: undecided, Val: &sqlparser.NullVal{}},
			}
		}
		terms[i] = &sqlparser.CaseExpr{Whens: whens, Else: sqlparser.BoolVal(all)}
	}
	out := terms[0]
	for _, t := range terms[1:] {
		out = &sqlparser.AndExpr{Left: out, Right: t}
	}
	return out, input, sc
}

// aggCall is the parsed form of name(arg).
func aggCall(name string, arg sqlparser.Expr) *sqlparser.FuncExpr {
	return &sqlparser.FuncExpr{Name: sqlparser.NewColIdent(name), Exprs: sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: arg}}}
}
