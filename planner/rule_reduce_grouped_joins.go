package planner

import (
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Reducing a grouped join, by example (TPC-H Q17, the correlated
// AVG(l_quantity) joined by part key):
//
//	Left HashJoin on p_partkey = l_partkey
//	  Inner HashJoin on l_partkey = p_partkey
//	    Scan lineitem
//	    Filter (p_brand = 'Brand#23') ...
//	      Scan part
//	  HashAggregate keys: l_partkey aggs: avg(l_quantity)
//	    Scan lineitem
//	=>
//	Left HashJoin on p_partkey = l_partkey
//	  (the same left side)
//	  HashAggregate keys: l_partkey aggs: avg(l_quantity)
//	    Semi HashJoin on l_partkey = p_partkey
//	      Scan lineitem
//	      Filter (p_brand = 'Brand#23') ...
//	        Scan part
//
// Grouped joins reduced by the other side's keys. scalarjoin.go plans a
// correlated scalar aggregate as a join with the aggregate grouped by the
// correlation keys (TPC-H Q17: AVG(l_quantity) GROUP BY l_partkey, joined
// on p_partkey = l_partkey). Only the groups whose keys the other side
// holds can join, and a group's rows all share its key, so the
// aggregate's input may keep just the rows whose key some row of the
// other side's key source has: a semi join with that source (a filtered
// scan, a superset of the keys that reach the join). Q17 then averages
// the lineitems of the 0.1% of parts that pass its filter, not all of
// them.

// reduceRatio: the aggregate's input is reduced when the key source is
// estimated to have fewer than 1/reduceRatio of its rows.
const reduceRatio = 4

// ReduceGroupedJoins adds those semi joins below the aggregates of left
// and inner joins on their grouping keys.
func ReduceGroupedJoins(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return ReduceGroupedJoins(in), nil })
	j, ok := out.(*Join)
	if !ok || (j.Kind != opspec.LeftJoin && j.Kind != opspec.InnerJoin) {
		return out
	}
	for i := range j.LeftKeys {
		if r := reduceGrouped(j.Right, j.RightKeys[i], j.Left, j.LeftKeys[i]); r != nil {
			c := *j
			c.Right = r
			return &c
		}
		// An inner join (a LEFT one outer_to_inner turned, reordered)
		// may have the aggregate on its left.
		if j.Kind != opspec.InnerJoin {
			continue
		}
		if l := reduceGrouped(j.Left, j.LeftKeys[i], j.Right, j.RightKeys[i]); l != nil {
			c := *j
			c.Left = l
			return &c
		}
	}
	return out
}

// reduceGrouped returns grouped (an input of a join) with its aggregate
// reduced by the join key groupedKey, whose other side's key otherKey
// comes from a scan of other, or nil when the key does not qualify.
func reduceGrouped(grouped Node, groupedKey expr.Expr, other Node, otherKey expr.Expr) Node {
	lref, ok := otherKey.(*expr.ColumnRef)
	if !ok {
		return nil
	}
	rref, ok := groupedKey.(*expr.ColumnRef)
	if !ok {
		return nil
	}
	// The grouped input: an Aggregate, or a Project over one that passes
	// the key column through.
	var proj *Project
	agg, ok := grouped.(*Aggregate)
	col := rref.Index
	if !ok {
		if proj, ok = grouped.(*Project); !ok {
			return nil
		}
		if agg, ok = proj.Input.(*Aggregate); !ok || col >= len(proj.Exprs) {
			return nil
		}
		ref, ok := proj.Exprs[col].(*expr.ColumnRef)
		if !ok {
			return nil
		}
		col = ref.Index
	}
	if col >= len(agg.Keys) {
		return nil // an aggregate value, not a grouping key
	}
	src, scol := keySource(other, lref.Index)
	if src == nil {
		return nil
	}
	key := agg.Keys[col]
	st := src.Columns()[scol].Type
	if key.Type() != st || volatile(key) || estimateRows(src)*reduceRatio >= estimateRows(agg.Input) {
		return nil
	}
	semi := &Join{Kind: opspec.SemiJoin, Left: agg.Input, Right: copyLeaf(src),
		LeftKeys: []expr.Expr{key}, RightKeys: []expr.Expr{&expr.ColumnRef{Index: scol, Name: src.Columns()[scol].Name, T: st}}}
	na := *agg
	na.Input = semi
	if proj == nil {
		return &na
	}
	np := *proj
	np.Input = &na
	return &np
}

// keySource follows column c of n down to the scan (or filtered scan)
// that produces it, through filters, column-selecting projections and the
// preserved sides of joins. It returns nil when c is computed or comes
// from anything else.
func keySource(n Node, c int) (Node, int) {
	for {
		if s, f := scanBelow(n); s != nil {
			if f != nil {
				return f, c
			}
			return s, c
		}
		switch x := n.(type) {
		case *Filter:
			n = x.Input
		case *Project:
			ref, ok := x.Exprs[c].(*expr.ColumnRef)
			if !ok {
				return nil, 0
			}
			n, c = x.Input, ref.Index
		case *Join:
			nl := len(x.Left.Columns())
			switch {
			case c < nl:
				n = x.Left
			case x.Kind == opspec.InnerJoin:
				n, c = x.Right, c-nl
			default:
				return nil, 0 // an outer join's right side may be NULL
			}
		default:
			return nil, 0
		}
	}
}

// copyLeaf copies a Scan or Filter(Scan), so that the plan holds no node
// twice.
func copyLeaf(n Node) Node {
	s, f := scanBelow(n)
	ns := *s
	if f == nil {
		return &ns
	}
	nf := *f
	nf.Input = &ns
	return &nf
}
