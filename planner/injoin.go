package planner

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/xwb1989/sqlparser"
)

// x IN (SELECT v ...) as a semi join, x NOT IN (...) as an anti join. A
// top-level conjunct of WHERE whose
// subquery reads no outer column keeps a row of the enclosing FROM when
// some row of the subquery has v = x: a semi join on x = v, NULLs on
// either side matching nothing, as IN's NULL (or FALSE) drops the row
// just the same. The join runs where the rest of the plan runs (a device
// hash table in a GPU plan) and reads the subquery's rows once, streamed.
// A subquery estimated to return few rows keeps the other path: it runs
// once while binding and becomes a list of literals, which zone maps can
// prune with and which costs no hash table.

// inListMaxRows is the estimated subquery size up to which x IN (SELECT
// ...) stays a list of literals.
const inListMaxRows = 256

// planInJoins rewrites the qualifying IN conjuncts of where over input and
// returns what remains of where.
func (b *binder) planInJoins(where sqlparser.Expr, input Node, sc *scope) (sqlparser.Expr, Node, error) {
	return joinConjuncts(where, input, func(c sqlparser.Expr, input Node) (Node, bool, error) {
		return b.inJoin(c, input, sc)
	})
}

// inJoin plans conjunct c over input as a semi join (IN) or an anti join
// (NOT IN); ok is false when c is not one over a large uncorrelated
// one-column subquery.
func (b *binder) inJoin(c sqlparser.Expr, input Node, sc *scope) (Node, bool, error) {
	cmp, ok := unparen(c).(*sqlparser.ComparisonExpr)
	if !ok || (cmp.Operator != sqlparser.InStr && cmp.Operator != sqlparser.NotInStr) || isRowValue(cmp.Left) || hasSubquery(cmp.Left) {
		return nil, false, nil
	}
	notIn := cmp.Operator == sqlparser.NotInStr
	q, ok := cmp.Right.(*sqlparser.Subquery)
	if !ok {
		return nil, false, nil
	}
	// Planning has no side effects: a subquery that does not qualify is
	// planned again, and its errors reported, by the expression path.
	sq, err := b.planSubquery(q, sc)
	if err != nil || sq.corr != nil || len(sq.cols) != 1 || estimateRows(sq.plan) <= inListMaxRows {
		return nil, false, nil
	}
	l, err := b.bindExpr(cmp.Left, sc)
	if err != nil {
		return nil, false, nil
	}
	if volatile(l) {
		return nil, false, nil
	}
	// Compare in one type, as the "in" function would.
	t := expr.Unify(l.Type(), sq.cols[0].Type)
	if (l.Type() == coldata.String) != (sq.cols[0].Type == coldata.String) {
		t = coldata.Float64
	}
	if dt, ok := dateTextType(l.Type(), sq.cols[0].Type); ok {
		t = dt
	}
	if l, err = expr.CompareCastTo(l, t); err != nil {
		return nil, false, nil
	}
	inner := sq.plan
	if sq.cols[0].Type != t {
		inner = castCompared(inner, []Column{{Name: sq.cols[0].Name, Type: t}})
	}
	nl := len(input.Columns())
	eq, err := b.apply("=", l, &expr.ColumnRef{Index: nl, Name: sq.cols[0].Name, T: t})
	if err != nil {
		return nil, false, nil
	}
	kind := opspec.SemiJoin
	if notIn {
		kind = opspec.AntiJoin
	}
	j := &Join{Kind: kind, Left: input, Right: inner}
	j.setCondition(eq, nl)
	if len(j.LeftKeys) != 1 {
		return nil, false, nil
	}
	if !notIn {
		return j, true, nil
	}
	keep, err := b.notInNulls(sq, inner, l)
	if err != nil {
		return nil, false, err
	}
	return &Filter{Input: j, Pred: keep}, true, nil
}

// notInNulls is the condition NOT IN adds to an anti join's rows: x NOT
// IN (S) is TRUE only when S is empty, or when x is not NULL and S holds
// no NULL (a NULL on either side makes a missing match NULL, not TRUE).
// S's row and NULL counts come from one aggregate over it, run once
// while binding, as an uncorrelated scalar subquery is.
func (b *binder) notInNulls(sq *subquery, inner Node, x expr.Expr) (expr.Expr, error) {
	col := inner.Columns()[0]
	counts := &subquery{exec: sq.exec, plan: &Aggregate{Input: inner,
		Aggs: []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggCount, Arg: &expr.ColumnRef{Index: 0, Name: col.Name, T: col.Type}, Type: coldata.Int64},
		},
		AggNames: []string{"count(*)", "count(" + col.Name + ")"}}}
	batches, err := counts.run(b.ctx)
	if err != nil {
		return nil, err
	}
	var rows, values int64
	for _, bt := range batches {
		if bt.Len > 0 {
			rows, values = bt.Cols[0].Int(0), bt.Cols[1].Int(0)
		}
	}
	switch {
	case rows == 0:
		return &expr.Literal{Value: true, T: coldata.Bool}, nil
	case values < rows:
		return &expr.Literal{Value: false, T: coldata.Bool}, nil
	}
	return b.apply("is_not_null", x)
}
