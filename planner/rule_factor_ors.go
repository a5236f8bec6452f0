package planner

import (
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// Factoring ORs. A conjunct common to every branch of an OR is taken out
// of it, which Kleene logic allows; TPC-H Q19 repeats its join equality
// in each of three branches:
//
//	WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12' AND ...)
//	   OR (p_partkey = l_partkey AND p_brand = 'Brand#23' AND ...)
//
//	Filter (((p_partkey = l_partkey) AND (p_brand = 'Brand#12'))
//	        OR ((p_partkey = l_partkey) AND (p_brand = 'Brand#23')))
//	  Inner NestedLoopJoin
//	=>
//	Filter ((p_partkey = l_partkey) AND ((p_brand = 'Brand#12') OR (p_brand = 'Brand#23')))
//	  Inner NestedLoopJoin
//
// push_filters then makes the equality a hash-join key instead of a
// condition checked on every pair of a nested loop.

// FactorOrs factors the ORs of every filter's predicate.
func FactorOrs(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return FactorOrs(in), nil })
	if f, ok := out.(*Filter); ok {
		if p := factorOrs(f.Pred); p != f.Pred {
			return &Filter{placed: f.placed, Input: f.Input, Pred: p}
		}
	}
	return out
}

// factorOrs rewrites (A AND B) OR (A AND C) as A AND (B OR C) in every
// top-level conjunct of pred, which Kleene logic allows. A conjunct common
// to all branches of an OR, such as TPC-H Q19's p_partkey = l_partkey,
// then becomes an ordinary conjunct: a hash-join key instead of a
// condition checked on every pair of a nested loop. If a branch consists
// of common conjuncts only, the OR is true wherever they are and reduces
// to them.
func factorOrs(pred expr.Expr) expr.Expr {
	cs := conjuncts(pred)
	changed := false
	var out []expr.Expr
	for _, c := range cs {
		f, ok := factorOr(c)
		changed = changed || ok
		out = append(out, conjuncts(f)...)
	}
	if !changed {
		return pred
	}
	return conjoin(out)
}

// factorOr factors one OR; ok says whether anything was common.
func factorOr(e expr.Expr) (expr.Expr, bool) {
	branches := disjuncts(e)
	if len(branches) < 2 {
		return e, false
	}
	terms := make([][]expr.Expr, len(branches))
	for i, b := range branches {
		terms[i] = conjuncts(b)
	}
	var common []expr.Expr
	for _, t := range terms[0] {
		inAll := !volatile(t)
		for _, other := range terms[1:] {
			inAll = inAll && containsExpr(other, t)
		}
		if inAll && !containsExpr(common, t) {
			common = append(common, t)
		}
	}
	if len(common) == 0 {
		return e, false
	}
	var rest []expr.Expr
	for _, ts := range terms {
		var left []expr.Expr
		for _, t := range ts {
			if !containsExpr(common, t) {
				left = append(left, t)
			}
		}
		if len(left) == 0 {
			// This branch is the common part alone: the OR adds nothing.
			return conjoin(common), true
		}
		rest = append(rest, conjoin(left))
	}
	or, _ := expr.Lookup("or")
	d := rest[0]
	for _, r := range rest[1:] {
		d = &expr.Call{Fn: or, Args: []expr.Expr{d, r}, T: boolType}
	}
	return conjoin(append(common, d)), true
}

// disjuncts splits a predicate at its top-level ORs.
func disjuncts(e expr.Expr) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn.Name == "or" {
		var out []expr.Expr
		for _, a := range c.Args {
			out = append(out, disjuncts(a)...)
		}
		return out
	}
	return []expr.Expr{e}
}

func containsExpr(list []expr.Expr, e expr.Expr) bool {
	for _, x := range list {
		if sameExpr(x, e) {
			return true
		}
	}
	return false
}

// sameExpr reports whether a and b are the same expression: the same
// columns (by position), literals and functions (by identity, so two
// subqueries never match).
func sameExpr(a, b expr.Expr) bool {
	switch x := a.(type) {
	case *expr.ColumnRef:
		y, ok := b.(*expr.ColumnRef)
		return ok && x.Index == y.Index && x.T == y.T
	case *expr.Literal:
		y, ok := b.(*expr.Literal)
		return ok && x.T == y.T && sameValue(x.Value, y.Value)
	case *expr.Call:
		y, ok := b.(*expr.Call)
		if !ok || x.Fn != y.Fn || x.T != y.T || len(x.Args) != len(y.Args) {
			return false
		}
		for i := range x.Args {
			if !sameExpr(x.Args[i], y.Args[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case decimal.Int128:
		y, ok := b.(decimal.Int128)
		return ok && x == y
	}
	return false
}
