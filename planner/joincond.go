package planner

import (
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
)

// PushJoinConditions moves the conjuncts of a join's residual condition
// that read only the right input into a filter on that input: a right row
// failing them can match no left row, so removing it first changes no
// answer of an INNER, LEFT, semi or anti join (for LEFT and anti joins a
// left row without matches is still kept). An INNER join's left-only
// conjuncts likewise move to its left input. A join left with equality
// keys alone is a plain hash join, which the GPU runs (TPC-H Q13's
// LEFT JOIN ... ON ... AND o_comment NOT LIKE '...').
func PushJoinConditions(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return PushJoinConditions(in), nil })
	j, ok := out.(*Join)
	if !ok || j.Cond == nil {
		return out
	}
	switch j.Kind {
	case operators.InnerJoin, operators.LeftJoin, operators.SemiJoin, operators.AntiJoin:
	default:
		return out
	}
	nl := len(j.Left.Columns())
	var keep, toLeft, toRight []expr.Expr
	for _, p := range conjuncts(j.Cond) {
		switch s := side(p, nl); {
		case volatile(p):
			keep = append(keep, p)
		case s == 1:
			toRight = append(toRight, p)
		case s == 0 && j.Kind == operators.InnerJoin:
			toLeft = append(toLeft, p)
		default:
			keep = append(keep, p)
		}
	}
	if len(toLeft) == 0 && len(toRight) == 0 {
		return out
	}
	c := *j
	c.Cond = conjoin(keep)
	if len(toLeft) > 0 {
		c.Left = PushFilters(&Filter{Input: c.Left, Pred: conjoin(toLeft)})
	}
	if len(toRight) > 0 {
		shift := map[int]int{}
		for i := range j.Right.Columns() {
			shift[nl+i] = i
		}
		c.Right = PushFilters(&Filter{Input: c.Right, Pred: expr.Remap(conjoin(toRight), shift)})
	}
	return &c
}
