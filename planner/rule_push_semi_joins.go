package planner

import (
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Pushing a semi join down, by example (TPC-H Q18, orders whose lineitems
// sum past a quantity):
//
//	Semi HashJoin on o_orderkey = l_orderkey
//	  Inner HashJoin on o_orderkey = l_orderkey
//	    Inner HashJoin on c_custkey = o_custkey
//	      Scan customer
//	      Scan orders
//	    Scan lineitem
//	  Project l_orderkey Filter (sum(l_quantity) > 300)
//	    HashAggregate keys: l_orderkey ...
//	=>
//	Inner HashJoin on o_orderkey = l_orderkey
//	  Inner HashJoin on c_custkey = o_custkey
//	    Scan customer
//	    Semi HashJoin on o_orderkey = l_orderkey
//	      Scan orders
//	      (the same right side)
//	  Scan lineitem
//
// A semi or anti join (EXISTS, IN, NOT EXISTS) keeps or drops each left
// row by its own columns alone, so when those columns (its keys and its
// condition's left side) all come from one input of an inner join below
// it, it can filter that input instead, before the join multiplies or
// widens its rows: Q18 joined 60M lineitems with their orders and
// customers to keep 777 rows; the pushed semi join keeps the 111 orders
// first. It moves onto an inner join's input only when that input is
// estimated no larger than the other (else it would test more rows than
// the join keeps); below a LEFT join only the preserved (left) side
// qualifies; it passes a filter or a projection of columns only on its
// way to a join. It runs before reorder_joins, which then orders the
// joins over the reduced input.

// PushSemiJoins moves every semi and anti join as far down its left input
// as the columns it reads allow.
func PushSemiJoins(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return PushSemiJoins(in), nil })
	j, ok := out.(*Join)
	if !ok || (j.Kind != opspec.SemiJoin && j.Kind != opspec.AntiJoin) {
		return out
	}
	if pushed := pushSemi(j); pushed != nil {
		return pushed
	}
	return out
}

// semiLeftColumns are the left columns semi join j reads (below nl: its
// left input's), or ok=false when a key or the condition is not only
// columns and constants (a volatile expression must run where it is).
func semiLeftColumns(j *Join, nl int) (cols []int, ok bool) {
	for _, k := range j.LeftKeys {
		if volatile(k) {
			return nil, false
		}
		for c := range expr.Columns(k) {
			cols = append(cols, c)
		}
	}
	if j.Cond != nil {
		if volatile(j.Cond) {
			return nil, false
		}
		for c := range expr.Columns(j.Cond) {
			if c < nl {
				cols = append(cols, c)
			}
		}
	}
	return cols, true
}

// pushSemi returns semi join j moved into its left input, or nil when it
// cannot move.
func pushSemi(j *Join) Node {
	nl := len(j.Left.Columns())
	cols, ok := semiLeftColumns(j, nl)
	if !ok {
		return nil
	}
	// moved is j over in, whose columns are the left input's from off
	// (in's column c is the left input's off + c), pushed further; with
	// further, nil when it cannot go below in.
	moved := func(in Node, off int, further bool) Node {
		m := map[int]int{}
		for _, c := range cols {
			m[c] = c - off
		}
		if j.Cond != nil {
			// The right side's columns follow in's instead of the left
			// input's.
			nin := len(in.Columns())
			for c := range expr.Columns(j.Cond) {
				if c >= nl {
					m[c] = c - nl + nin
				}
			}
		}
		s := &Join{Kind: j.Kind, Left: in, Right: j.Right, RightKeys: j.RightKeys,
			LeftKeys: remapAll(j.LeftKeys, m)}
		if j.Cond != nil {
			s.Cond = expr.Remap(j.Cond, m)
		}
		if p := pushSemi(s); p != nil {
			return p
		}
		if further {
			return nil
		}
		return s
	}
	switch x := j.Left.(type) {
	case *Filter:
		// Below a filter the semi join would test the rows the filter
		// drops: only worth it on the way to a join.
		in := moved(x.Input, 0, true)
		if in == nil {
			return nil
		}
		f := *x
		f.Input = in
		return &f
	case *Project:
		m := map[int]int{}
		for _, c := range cols {
			ref, ok := x.Exprs[c].(*expr.ColumnRef)
			if !ok {
				return nil
			}
			m[c] = ref.Index
		}
		s := &Join{Kind: j.Kind, Left: x.Input, Right: j.Right, RightKeys: j.RightKeys,
			LeftKeys: remapAll(j.LeftKeys, m)}
		if j.Cond != nil {
			// The right side's columns follow the input's instead of the
			// projection's.
			inner := len(x.Input.Columns())
			for c := range expr.Columns(j.Cond) {
				if c >= nl {
					m[c] = c - nl + inner
				}
			}
			s.Cond = expr.Remap(j.Cond, m)
		}
		q := pushSemi(s)
		if q == nil {
			return nil
		}
		p := *x
		p.Input = q
		return &p
	case *Join:
		if x.Kind != opspec.InnerJoin && x.Kind != opspec.LeftJoin {
			return nil
		}
		na := len(x.Left.Columns())
		left, right := true, true
		for _, c := range cols {
			if c < na {
				right = false
			} else {
				left = false
			}
		}
		// Over an inner join's input the semi join tests that input's
		// rows instead of the join's: fewer only when the input is the
		// smaller side (TPC-H Q21's EXISTS tests lineitem's columns, but
		// the join with one nation's suppliers keeps a 25th of them). A
		// LEFT join keeps every left row, so its left side is never more.
		smaller := func(c, other Node) bool {
			return x.Kind == opspec.LeftJoin || estimateRows(c) <= estimateRows(other)
		}
		switch {
		case left && len(cols) > 0 && smaller(x.Left, x.Right):
			c := *x
			c.Left = moved(x.Left, 0, false)
			return &c
		case right && len(cols) > 0 && x.Kind == opspec.InnerJoin && smaller(x.Right, x.Left):
			c := *x
			c.Right = moved(x.Right, na, false)
			return &c
		}
	}
	return nil
}
