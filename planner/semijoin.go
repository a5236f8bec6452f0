package planner

import (
	"github.com/gsqlengine/gsql/opspec"
	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// EXISTS and NOT EXISTS as joins. A top-level conjunct of WHERE that is
// [NOT] EXISTS (SELECT ... FROM tables WHERE p), with p reading columns of
// the enclosing query, becomes a semi (anti) join of the enclosing FROM
// with the subquery's tables on p: p's equalities between the two sides
// are hash keys, the rest a residual condition (TPC-H Q4, Q21, Q22). The
// per-row path of subquery.go would run the subquery once per distinct
// outer value, each time over all of its tables. Anything else — an
// aggregate, GROUP BY, LIMIT, a derived table or a subquery inside, no
// correlation at all — keeps that path.

// planExistsJoins takes the EXISTS conjuncts of where that it can turn into
// joins over input and returns what remains of where.
func (b *binder) planExistsJoins(where sqlparser.Expr, input Node, sc *scope) (sqlparser.Expr, Node, error) {
	return joinConjuncts(where, input, func(c sqlparser.Expr, input Node) (Node, bool, error) {
		sub, anti := existsOperand(c)
		if sub == nil {
			return nil, false, nil
		}
		return b.existsJoin(sub, anti, input, sc)
	})
}

// joinConjuncts offers each top-level conjunct of where to plan, which
// turns it into a join over input (ok) or leaves it; it returns the
// conjuncts left, ANDed (nil for none), and the input with the joins.
func joinConjuncts(where sqlparser.Expr, input Node, plan func(c sqlparser.Expr, input Node) (Node, bool, error)) (sqlparser.Expr, Node, error) {
	var rest []sqlparser.Expr
	for _, c := range andTerms(where) {
		j, ok, err := plan(c, input)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			input = j
			continue
		}
		rest = append(rest, c)
	}
	if len(rest) == 0 {
		return nil, input, nil
	}
	out := rest[0]
	for _, r := range rest[1:] {
		out = &sqlparser.AndExpr{Left: out, Right: r}
	}
	return out, input, nil
}

// andTerms splits e at its top-level ANDs.
func andTerms(e sqlparser.Expr) []sqlparser.Expr {
	switch x := e.(type) {
	case *sqlparser.AndExpr:
		return append(andTerms(x.Left), andTerms(x.Right)...)
	case *sqlparser.ParenExpr:
		if _, ok := x.Expr.(*sqlparser.AndExpr); ok {
			return andTerms(x.Expr)
		}
	}
	return []sqlparser.Expr{e}
}

// existsOperand returns the subquery of EXISTS (q) or NOT EXISTS (q).
func existsOperand(e sqlparser.Expr) (q *sqlparser.Subquery, anti bool) {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	switch x := e.(type) {
	case *sqlparser.ExistsExpr:
		return x.Subquery, false
	case *sqlparser.NotExpr:
		if q, anti := existsOperand(x.Expr); q != nil {
			return q, !anti
		}
	}
	return nil, false
}

// existsJoin plans [NOT] EXISTS (q) over input as a semi (anti) join; ok
// is false when q does not have the simple correlated form.
func (b *binder) existsJoin(q *sqlparser.Subquery, anti bool, input Node, sc *scope) (Node, bool, error) {
	sel, ok := q.Select.(*sqlparser.Select)
	if !ok || sel.Where == nil || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Limit != nil || sel.Lock != "" {
		return nil, false, nil
	}
	if hasAggregate(sel.SelectExprs) || hasSubquery(sel.Where.Expr) {
		return nil, false, nil
	}
	for _, te := range sel.From {
		a, ok := te.(*sqlparser.AliasedTableExpr)
		if !ok {
			return nil, false, nil
		}
		if _, ok := a.Expr.(sqlparser.TableName); !ok {
			return nil, false, nil
		}
	}
	sub, corr := b.subBinder(sc)
	inner, isc, err := sub.planFrom(sel.From)
	if err != nil {
		return nil, false, nil // the per-row path reports it
	}
	pred, err := sub.bindExpr(sel.Where.Expr, isc)
	if err != nil {
		return nil, false, nil
	}
	if pred, err = expr.CastTo(pred, coldata.Bool); err != nil {
		return nil, false, nil
	}
	if len(corr.refs) == 0 || len(corr.deep) > 0 {
		return nil, false, nil // uncorrelated: runs once; deep columns: per row
	}
	b.usedArgs = max(b.usedArgs, sub.usedArgs)
	outer := map[*expr.Function]*expr.ColumnRef{}
	for i, fn := range corr.fns {
		outer[fn] = corr.refs[i]
	}
	nl := len(input.Columns())
	var innerOnly, cond []expr.Expr
	for _, c := range conjuncts(pred) {
		if volatileExcept(c, outer) {
			return nil, false, nil
		}
		if !readsOuter(c, outer) {
			innerOnly = append(innerOnly, c)
			continue
		}
		cond = append(cond, joinSide(c, outer, nl))
	}
	if len(innerOnly) > 0 {
		inner = &Filter{Input: inner, Pred: conjoin(innerOnly)}
	}
	kind := opspec.SemiJoin
	if anti {
		kind = opspec.AntiJoin
	}
	j := &Join{Kind: kind, Left: input, Right: inner}
	j.setCondition(conjoin(cond), nl)
	return j, true, nil
}

// hasSubquery reports whether e contains a subquery.
func hasSubquery(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.Subquery); ok {
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// readsOuter reports whether e reads an outer column.
func readsOuter(e expr.Expr, outer map[*expr.Function]*expr.ColumnRef) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) {
		if c, ok := x.(*expr.Call); ok && outer[c.Fn] != nil {
			found = true
		}
	})
	return found
}

// volatileExcept reports whether e calls a volatile function other than
// the outer-column readers.
func volatileExcept(e expr.Expr, outer map[*expr.Function]*expr.ColumnRef) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) {
		if c, ok := x.(*expr.Call); ok && c.Fn.Volatile && outer[c.Fn] == nil {
			found = true
		}
	})
	return found
}

// joinSide rewrites a subquery predicate over the join of the enclosing
// input (nl columns, first) and the subquery's tables: outer columns read
// the left side, the subquery's own columns move right by nl.
func joinSide(e expr.Expr, outer map[*expr.Function]*expr.ColumnRef, nl int) expr.Expr {
	switch x := e.(type) {
	case *expr.ColumnRef:
		c := *x
		c.Index += nl
		return &c
	case *expr.Call:
		if ref := outer[x.Fn]; ref != nil {
			c := *ref
			return &c
		}
		args := make([]expr.Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = joinSide(a, outer, nl)
		}
		return &expr.Call{Fn: x.Fn, Args: args, T: x.T, Once: x.Once}
	}
	return e
}
