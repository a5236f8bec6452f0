package planner

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Correlated scalar aggregates as joins. A top-level conjunct of WHERE
// that compares with (SELECT agg-expr FROM tables WHERE k1 = outer1 AND
// ... AND p), where the correlation is equalities between expressions of
// the subquery's tables and columns of the enclosing query, is planned as
// a LEFT JOIN with
//
//	SELECT agg-expr, k1, ... FROM tables WHERE p GROUP BY k1, ...
//
// on k1 = outer1 ..., the comparison then reading the joined value (TPC-H
// Q2, Q17, Q20). Each group is the subquery's answer for the outer rows
// with those key values; an outer row with no group gets NULL, which is
// what SUM, AVG, MIN and MAX of no rows are, so only those aggregates, and
// arithmetic over them and constants, qualify; a bare COUNT qualifies too,
// read as COALESCE(value, 0) (COUNT of no rows is 0). Everything else
// keeps subquery.go's per-row path.
//
// A select list's scalar subquery of that form is planned the same way
// (planSelectScalarJoins) when the query has no GROUP BY, aggregate or
// window function of its own: SELECT o.k, (SELECT COUNT(*) FROM l WHERE
// l.k = o.k AND l.q < 24) FROM o joins o with the counts per key instead
// of running the subquery once per row of o.

// planScalarJoins rewrites the qualifying comparisons of where; the
// returned scope names the joined values.
func (b *binder) planScalarJoins(where sqlparser.Expr, input Node, sc *scope) (sqlparser.Expr, Node, *scope, error) {
	terms := andTerms(where)
	for i, c := range terms {
		cmp, ok := unparen(c).(*sqlparser.ComparisonExpr)
		if !ok {
			continue
		}
		switch cmp.Operator {
		case sqlparser.EqualStr, sqlparser.LessThanStr, sqlparser.GreaterThanStr, sqlparser.LessEqualStr,
			sqlparser.GreaterEqualStr, sqlparser.NotEqualStr:
		default:
			continue
		}
		for side, operand := range []sqlparser.Expr{cmp.Left, cmp.Right} {
			q, ok := unparen(operand).(*sqlparser.Subquery)
			if !ok {
				continue
			}
			j, col, nsc, ok := b.scalarJoin(q, input, sc)
			if !ok {
				continue
			}
			input, sc = j, nsc
			nc := *cmp
			if side == 0 {
				nc.Left = col
			} else {
				nc.Right = col
			}
			terms[i] = &nc
			break
		}
	}
	out := terms[0]
	for _, t := range terms[1:] {
		out = &sqlparser.AndExpr{Left: out, Right: t}
	}
	return out, input, sc, nil
}

func unparen(e sqlparser.Expr) sqlparser.Expr {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

// subBinder is a binder for a subquery of the query bound in scope sc.
func (b *binder) subBinder(sc *scope) (*binder, *correlation) {
	corr := &correlation{outer: sc}
	return &binder{ctx: b.ctx, cat: b.cat, args: b.args, usedArgs: b.usedArgs, now: b.now, ctes: b.ctes, rules: b.rules, run: b.run, runOnce: b.runOnce,
		outer: append(append([]*scope(nil), b.outer...), sc), corr: corr, parent: b}, corr
}

// scalarJoin plans the scalar subquery q as a LEFT JOIN of input with its
// grouped form; col reads the joined value in the returned scope. ok is
// false when q does not qualify.
func (b *binder) scalarJoin(q *sqlparser.Subquery, input Node, sc *scope) (Node, sqlparser.Expr, *scope, bool) {
	sel, ok := q.Select.(*sqlparser.Select)
	if !ok || sel.Where == nil || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Limit != nil || sel.Lock != "" ||
		sel.Distinct != "" || len(sel.SelectExprs) != 1 || hasSubquery(sel.Where.Expr) {
		return nil, nil, nil, false
	}
	ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok || !hasAggregate(ae.Expr) {
		return nil, nil, nil, false
	}
	zeroOnEmpty := bareCount(ae.Expr)
	if !zeroOnEmpty && !nullOnEmpty(ae.Expr) {
		return nil, nil, nil, false
	}
	for _, te := range sel.From {
		a, ok := te.(*sqlparser.AliasedTableExpr)
		if !ok {
			return nil, nil, nil, false
		}
		if _, ok := a.Expr.(sqlparser.TableName); !ok {
			return nil, nil, nil, false
		}
	}
	// Sort the subquery's conjuncts into its own and the correlations.
	pb, corr := b.subBinder(sc)
	_, isc, err := pb.planFrom(sel.From)
	if err != nil {
		return nil, nil, nil, false
	}
	outer := func() map[*expr.Function]*expr.ColumnRef {
		m := map[*expr.Function]*expr.ColumnRef{}
		for i, fn := range corr.fns {
			m[fn] = corr.refs[i]
		}
		return m
	}
	var own, keys []sqlparser.Expr
	var refs []*expr.ColumnRef
	for _, c := range andTerms(sel.Where.Expr) {
		e, err := pb.bindExpr(c, isc)
		if err != nil {
			return nil, nil, nil, false
		}
		if !readsOuter(e, outer()) {
			own = append(own, c)
			continue
		}
		eq, ok := unparen(c).(*sqlparser.ComparisonExpr)
		if !ok || eq.Operator != sqlparser.EqualStr {
			return nil, nil, nil, false
		}
		l, err1 := pb.bindExpr(eq.Left, isc)
		r, err2 := pb.bindExpr(eq.Right, isc)
		if err1 != nil || err2 != nil {
			return nil, nil, nil, false
		}
		m := outer()
		key, o := eq.Left, r
		if readsOuter(l, m) {
			key, o = eq.Right, l
			if readsOuter(r, m) {
				return nil, nil, nil, false
			}
		}
		call, ok := o.(*expr.Call)
		if !ok || m[call.Fn] == nil {
			return nil, nil, nil, false // only a bare outer column
		}
		keys = append(keys, key)
		refs = append(refs, m[call.Fn])
	}
	if len(keys) == 0 {
		return nil, nil, nil, false
	}
	// The grouped subquery, uncorrelated.
	g := &sqlparser.Select{From: sel.From, GroupBy: sqlparser.GroupBy(keys)}
	g.SelectExprs = sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: ae.Expr, As: sqlparser.NewColIdent("gsql_value")}}
	for i, k := range keys {
		g.SelectExprs = append(g.SelectExprs, &sqlparser.AliasedExpr{Expr: k, As: sqlparser.NewColIdent(fmt.Sprintf("gsql_key%d", i))})
	}
	if len(own) > 0 {
		w := own[0]
		for _, o := range own[1:] {
			w = &sqlparser.AndExpr{Left: w, Right: o}
		}
		g.Where = sqlparser.NewWhere(sqlparser.WhereStr, w)
	}
	gb, gcorr := b.subBinder(sc)
	grouped, err := gb.planSelectStatement(g)
	if err != nil || gcorr.width() > 0 || len(corr.deep) > 0 {
		return nil, nil, nil, false
	}
	gcols := grouped.Columns()
	j := &Join{Kind: opspec.LeftJoin, Left: input, Right: grouped}
	for i, ref := range refs {
		if gcols[1+i].Type != ref.T {
			return nil, nil, nil, false
		}
		l := *ref
		j.LeftKeys = append(j.LeftKeys, &l)
		j.RightKeys = append(j.RightKeys, &expr.ColumnRef{Index: 1 + i, Name: gcols[1+i].Name, T: gcols[1+i].Type})
	}
	b.usedArgs = max(b.usedArgs, pb.usedArgs, gb.usedArgs)
	nl := len(input.Columns())
	name := fmt.Sprintf("gsql_subquery_%d", nl)
	nsc := &scope{cols: append([]scopeCol(nil), sc.cols...)}
	for i, c := range gcols {
		nsc.cols = append(nsc.cols, scopeCol{Table: name, Name: c.Name, Type: c.Type, Index: nl + i, hidden: true})
	}
	var col sqlparser.Expr = &sqlparser.ColName{Name: sqlparser.NewColIdent("gsql_value"), Qualifier: sqlparser.TableName{Name: sqlparser.NewTableIdent(name)}}
	if zeroOnEmpty {
		col = &sqlparser.FuncExpr{Name: sqlparser.NewColIdent("coalesce"), Exprs: sqlparser.SelectExprs{
			&sqlparser.AliasedExpr{Expr: col}, &sqlparser.AliasedExpr{Expr: sqlparser.NewIntVal([]byte("0"))}}}
	}
	return j, col, nsc, true
}

// bareCount reports whether e is COUNT(...) alone, which is 0 over no rows.
func bareCount(e sqlparser.Expr) bool {
	f, ok := unparen(e).(*sqlparser.FuncExpr)
	return ok && strings.EqualFold(f.Name.String(), "count")
}

// planSelectScalarJoins plans the select list's correlated scalar
// subqueries that qualify as joins with input (see the top of this file),
// returning the select statement with those subqueries replaced by the
// joined values (a copy: the statement itself is left as it was). The
// query must have no GROUP BY, aggregate or window function, whose
// binding would not see the joined values.
func (b *binder) planSelectScalarJoins(s *sqlparser.Select, input Node, sc *scope) (*sqlparser.Select, Node, *scope) {
	var changed sqlparser.SelectExprs
	for i, se := range s.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			continue
		}
		q, ok := unparen(ae.Expr).(*sqlparser.Subquery)
		if !ok {
			continue
		}
		j, col, nsc, ok := b.scalarJoin(q, input, sc)
		if !ok {
			continue
		}
		if changed == nil {
			changed = append(sqlparser.SelectExprs(nil), s.SelectExprs...)
		}
		na := *ae
		na.Expr = col
		if na.As.IsEmpty() {
			na.As = sqlparser.NewColIdent(exprName(ae.Expr)) // the column keeps its name
		}
		changed[i] = &na
		input, sc = j, nsc
	}
	if changed == nil {
		return s, input, sc
	}
	ns := *s
	ns.SelectExprs = changed
	return &ns, input, sc
}

// nullOnEmpty reports whether e is NULL over no rows because every path
// to a value goes through SUM, AVG, MIN or MAX: arithmetic over those
// aggregates and constants.
func nullOnEmpty(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.ParenExpr:
		return nullOnEmpty(x.Expr)
	case *sqlparser.SQLVal:
		return true
	case *sqlparser.BinaryExpr:
		switch x.Operator {
		case sqlparser.PlusStr, sqlparser.MinusStr, sqlparser.MultStr, sqlparser.DivStr:
			return nullOnEmpty(x.Left) && nullOnEmpty(x.Right)
		}
	case *sqlparser.FuncExpr:
		switch strings.ToLower(x.Name.String()) {
		case "sum", "avg", "min", "max":
			return true
		}
	}
	return false
}
