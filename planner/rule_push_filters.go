package planner

import (
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Filter push-down. A filter above a join is split into its conjuncts:
// those over one side move below the join onto that side, equalities
// between the sides become hash-join keys, and the rest the join's
// residual condition:
//
//	SELECT * FROM a, b WHERE a.x = b.y AND a.k > 1 AND b.s = 'q'
//
//	Filter ((x = y) AND (k > 1) AND (s = 'q'))      Inner HashJoin on x = y
//	  Inner NestedLoopJoin                     =>     Filter (k > 1)
//	    Scan a [x k]                                    Scan a [x k]
//	    Scan b [y s]                                  Filter (s = 'q')
//	                                                    Scan b [y s]
//
// Under a LEFT JOIN only the left side's predicates move (the right
// side's decide which rows are NULL-extended). The rule runs twice: before
// reorder_joins, so that join ordering sees the filters on its leaves, and
// after it, over the new order.

// PushFilters moves the parts of a filter above a join into the join:
// predicates over one side become filters on that side, equalities between
// the sides become hash-join keys, and the rest the join's residual
// condition. For a left join only left-side predicates move.
func PushFilters(n Node) Node {
	switch x := n.(type) {
	case *Filter:
		in := PushFilters(x.Input)
		if p, ok := in.(*Project); ok && isPermutation(p) {
			return pushThroughPermutation(x, p)
		}
		j, ok := in.(*Join)
		if !ok {
			return &Filter{placed: x.placed, Input: in, Pred: x.Pred}
		}
		c := *j
		nl := len(j.Left.Columns())
		var keep, toLeft, toRight, toJoin []expr.Expr
		for _, p := range conjuncts(x.Pred) {
			switch s := side(p, nl); {
			case s == 0:
				toLeft = append(toLeft, p)
			case s == 1 && j.Kind == opspec.InnerJoin:
				toRight = append(toRight, p)
			case s == 2 && j.Kind == opspec.InnerJoin:
				toJoin = append(toJoin, p)
			default:
				keep = append(keep, p)
			}
		}
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
		if len(toJoin) > 0 {
			all := append(conjuncts(j.Cond), toJoin...)
			for i := range j.LeftKeys {
				shift := map[int]int{}
				for col := range expr.Columns(j.RightKeys[i]) {
					shift[col] = col + nl
				}
				eq, _ := expr.Lookup("=")
				all = append(all, &expr.Call{Fn: eq, Args: []expr.Expr{j.LeftKeys[i], expr.Remap(j.RightKeys[i], shift)}, T: boolType})
			}
			c.setCondition(conjoin(all), nl)
		}
		if len(keep) == 0 {
			return &c
		}
		return &Filter{placed: x.placed, Input: &c, Pred: conjoin(keep)}
	case *Join:
		if j := pushRightConds(x); j != x {
			return PushFilters(j)
		}
	}
	out, _ := mapInputs(n, func(in Node) (Node, error) { return PushFilters(in), nil })
	return out
}

// pushRightConds moves the conjuncts of a join's residual condition that
// read only the right input into a filter on that input: a right row
// failing one matches no left row, whatever the join kind (an outer
// join's unmatched left rows do not depend on it). TPC-H Q13's LEFT JOIN
// ... ON c_custkey = o_custkey AND o_comment NOT LIKE '...' then hashes
// only the orders kept, without their comments, and the join has no
// residual left: a plain hash join, which the GPU runs. An INNER join's
// left-only conjuncts likewise move to its left input. It returns j
// itself when nothing moves.
func pushRightConds(j *Join) *Join {
	if j.Cond == nil {
		return j
	}
	nl := len(j.Left.Columns())
	var keep, left, right []expr.Expr
	for _, p := range conjuncts(j.Cond) {
		switch s := side(p, nl); {
		case volatile(p):
			keep = append(keep, p)
		case s == 1:
			right = append(right, p)
		case s == 0 && j.Kind == opspec.InnerJoin:
			left = append(left, p)
		default:
			keep = append(keep, p)
		}
	}
	if len(left) == 0 && len(right) == 0 {
		return j
	}
	c := *j
	if len(left) > 0 {
		c.Left = &Filter{Input: j.Left, Pred: conjoin(left)}
	}
	if len(right) > 0 {
		shift := map[int]int{}
		for i := range j.Right.Columns() {
			shift[nl+i] = i
		}
		c.Right = &Filter{Input: j.Right, Pred: expr.Remap(conjoin(right), shift)}
	}
	c.Cond = conjoin(keep)
	return &c
}
