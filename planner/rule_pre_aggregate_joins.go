package planner

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// The plans (TPC-H Q13):
//
//	HashAggregate keys: c_custkey aggs: count(o_orderkey)
//	  Left HashJoin on c_custkey = o_custkey
//	    Scan customer [c_custkey]
//	    Filter (o_comment NOT LIKE ...)
//	      Scan orders [o_orderkey o_custkey o_comment]
//	=>
//	Project c_custkey, coalesce(sum(count(o_orderkey)), 0) AS count(o_orderkey)
//	  HashAggregate keys: c_custkey aggs: sum(count(o_orderkey))
//	    Left HashJoin on c_custkey = o_custkey
//	      Scan customer [c_custkey]
//	      HashAggregate keys: o_custkey aggs: count(o_orderkey)
//	        Filter (o_comment NOT LIKE ...)
//	          Scan orders [o_orderkey o_custkey o_comment]
//
// The reasoning follows.
//
// Counting below a left join. TPC-H Q13 counts each customer's orders:
//
//	SELECT c_custkey, COUNT(o_orderkey)
//	FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND ...
//	GROUP BY c_custkey
//
// Planned as written, the join hashes every order (15M at SF10, gathered
// by key) and emits a row per order, which the aggregate then groups
// again. When the aggregate groups by columns of the preserved (left) side
// only and every aggregate is a COUNT of a right-side value, the counts
// can be taken per right key first, below the join:
//
//	SELECT c_custkey, COALESCE(SUM(n), 0)
//	FROM customer LEFT JOIN (SELECT o_custkey, COUNT(o_orderkey) AS n
//	                         FROM orders WHERE ... GROUP BY o_custkey) o
//	     ON c_custkey = o_custkey
//	GROUP BY c_custkey
//
// A left row meets at most one pre-counted row (the right side is grouped
// by the whole join key), so a group's SUM adds, per left row, the count
// of its matches, which is what COUNT counted over the joined rows; a
// left row without matches adds NULL, and a group of such rows only has
// COALESCE's 0, as COUNT of the NULL-extended rows gave. The left rows
// come in the same order, so the groups keep their order of first
// appearance. COUNT(*) and COUNT(DISTINCT) are left alone (the first
// counts the NULL-extended row, the second cannot add up partial counts).

// preAggRatio: the right side is pre-counted when it is estimated to have
// at least this many times the left side's rows (a right key matching
// about one row gains nothing from a second aggregate).
const preAggRatio = 2

// PreAggregateJoins rewrites, everywhere in n, an aggregate of COUNTs of
// right-side values grouped by left-side columns over a left join into
// one over the join with the right side counted per join key. It runs on
// plans for the host (the database's placement step): on the GPU the join
// and the grouping of its rows are cheaper than a second aggregate.
func PreAggregateJoins(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return PreAggregateJoins(in), nil })
	a, ok := out.(*Aggregate)
	if !ok {
		return out
	}
	if r := preAggregate(a); r != nil {
		return r
	}
	return out
}

// preAggregate returns a's rewrite, or nil when a does not qualify.
func preAggregate(a *Aggregate) Node {
	j, ok := a.Input.(*Join)
	if !ok || j.Kind != opspec.LeftJoin || j.Cond != nil || len(j.LeftKeys) == 0 || len(a.Aggs) == 0 {
		return nil
	}
	nl := len(j.Left.Columns())
	for _, k := range a.Keys {
		if volatile(k) || !refsBelow(k, 0, nl) {
			return nil
		}
	}
	for _, k := range j.RightKeys {
		if volatile(k) {
			return nil
		}
	}
	rightCols := j.Right.Columns()
	nr := len(rightCols)
	for _, s := range a.Aggs {
		if s.Kind != opspec.AggCount || s.Distinct || s.Arg == nil || volatile(s.Arg) || !refsBelow(s.Arg, nl, nl+nr) {
			return nil
		}
	}
	if estimateRows(j.Right) < preAggRatio*estimateRows(j.Left) {
		return nil
	}

	// The right side counted per join key: keys first, then a count per
	// aggregate, each over right-side columns.
	shift := make(map[int]int, nr)
	for c := 0; c < nr; c++ {
		shift[nl+c] = c
	}
	inner := &Aggregate{Input: j.Right, Keys: j.RightKeys}
	for i, s := range a.Aggs {
		inner.Aggs = append(inner.Aggs, opspec.AggSpec{Kind: opspec.AggCount, Arg: expr.Remap(s.Arg, shift), Type: coldata.Int64})
		inner.AggNames = append(inner.AggNames, a.AggNames[i])
	}
	nk := len(j.RightKeys)
	innerCols := inner.Columns()
	keyRefs := make([]expr.Expr, nk)
	for i := range keyRefs {
		keyRefs[i] = &expr.ColumnRef{Index: i, Name: innerCols[i].Name, T: innerCols[i].Type}
	}
	join := &Join{placed: j.placed, Kind: opspec.LeftJoin, Left: j.Left, Right: inner, LeftKeys: j.LeftKeys, RightKeys: keyRefs}

	// The outer aggregate adds the partial counts up; a project turns the
	// SUM of no match into 0 and keeps a's columns.
	outer := &Aggregate{placed: a.placed, Input: join, Keys: a.Keys}
	for i := range a.Aggs {
		c := nl + nk + i
		outer.Aggs = append(outer.Aggs, opspec.AggSpec{Kind: opspec.AggSum, Arg: &expr.ColumnRef{Index: c, Name: innerCols[nk+i].Name, T: coldata.Int64}, Type: coldata.Int64})
		outer.AggNames = append(outer.AggNames, fmt.Sprintf("sum(%s)", a.AggNames[i]))
	}
	coalesce, ok := expr.Lookup("coalesce")
	if !ok {
		return nil
	}
	cols, sums := a.Columns(), outer.Columns()
	exprs := make([]expr.Expr, len(cols))
	for i, c := range sums {
		ref := &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}
		if i < len(a.Keys) {
			exprs[i] = ref
			continue
		}
		e, err := expr.NewCall(coalesce, []expr.Expr{ref, &expr.Literal{Value: int64(0), T: coldata.Int64}})
		if err != nil || e.Type() != coldata.Int64 {
			return nil
		}
		exprs[i] = e
	}
	return &Project{placed: a.placed, Input: outer, Exprs: exprs, Out: cols}
}

// refsBelow reports whether every column e reads is in [lo, hi).
func refsBelow(e expr.Expr, lo, hi int) bool {
	for c := range expr.Columns(e) {
		if c < lo || c >= hi {
			return false
		}
	}
	return true
}
