package planner

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Sums of a shifted column. SUM(x + c), SUM(c + x) and SUM(x - c), for a
// BIGINT x and a BIGINT literal c, are SUM(x) + c * COUNT(x) (minus for
// x - c): the sum of a shifted column is its sum plus the shift once per
// non-NULL value, and NULL where SUM(x) is (no non-NULL x). ClickBench
// Q30 sums ResolutionWidth + k for 90 values of k:
//
//	SELECT SUM(ResolutionWidth), SUM(ResolutionWidth + 1), ... FROM hits
//
//	Project sum(ResolutionWidth), sum((ResolutionWidth + 1)) AS SUM(ResolutionWidth + 1), ...
//	  HashAggregate aggs: sum(ResolutionWidth), sum((ResolutionWidth + 1)), ...
//	=>
//	Project sum(ResolutionWidth), (sum(ResolutionWidth) + (1 * count(ResolutionWidth))) AS SUM(ResolutionWidth + 1), ...
//	  HashAggregate aggs: sum(ResolutionWidth), count(ResolutionWidth)
//
// two aggregates instead of a column per constant, each summed.
//
// The answers are the same, but an intermediate overflow is judged on
// other values: the rewritten sum errs when SUM(x) or the final value
// leaves BIGINT, the original when some x + c or a partial sum does.

// SumPlusConst rewrites the sums of shifted columns of every aggregate.
func SumPlusConst(n Node) (Node, error) {
	return rewriteAggregates(n, sumsPlusConst)
}

// sumsPlusConst is SumPlusConst for one aggregate. The new aggregate
// lists its aggregates in the old order, each sum replaced by SUM(x) and
// COUNT(x) (once per x, shared with equal aggregates already there).
func sumsPlusConst(a *Aggregate) (*Aggregate, []expr.Expr, error) {
	na := &Aggregate{placed: a.placed, Input: a.Input, Keys: a.Keys}
	nk := len(a.Keys)
	add := func(name string, spec opspec.AggSpec) expr.Expr {
		for i, s := range na.Aggs {
			if sameAgg(s, spec) {
				return &expr.ColumnRef{Index: nk + i, Name: na.AggNames[i], T: s.Type}
			}
		}
		na.Aggs = append(na.Aggs, spec)
		na.AggNames = append(na.AggNames, name)
		return &expr.ColumnRef{Index: nk + len(na.Aggs) - 1, Name: name, T: spec.Type}
	}
	defs := make([]expr.Expr, 0, nk+len(a.Aggs))
	for i, k := range a.Keys {
		defs = append(defs, &expr.ColumnRef{Index: i, Name: k.String(), T: k.Type()})
	}
	changed := false
	for i, s := range a.Aggs {
		x, c, lit, ok := shiftedSum(s)
		if !ok {
			defs = append(defs, add(a.AggNames[i], s))
			continue
		}
		sum := add("sum("+x.String()+")", opspec.AggSpec{Kind: opspec.AggSum, Arg: x, Type: coldata.Int64})
		count := add("count("+x.String()+")", opspec.AggSpec{Kind: opspec.AggCount, Arg: x, Type: coldata.Int64})
		mul, _ := expr.Lookup("*")
		shift, err := expr.NewCall(mul, []expr.Expr{lit, count})
		if err != nil {
			return nil, nil, err
		}
		e, err := expr.NewCall(c.Fn, []expr.Expr{sum, shift})
		if err != nil {
			return nil, nil, err
		}
		defs = append(defs, e)
		changed = true
	}
	if !changed {
		return nil, nil, nil
	}
	return na, defs, nil
}

// shiftedSum matches SUM(x + c), SUM(c + x) or SUM(x - c) of a BIGINT
// column expression x and a BIGINT literal c; call is the + or -.
func shiftedSum(spec opspec.AggSpec) (x expr.Expr, call *expr.Call, c *expr.Literal, ok bool) {
	if spec.Kind != opspec.AggSum || spec.Distinct || spec.Arg == nil || spec.Arg.Type() != coldata.Int64 {
		return nil, nil, nil, false
	}
	call, ok = spec.Arg.(*expr.Call)
	if !ok || len(call.Args) != 2 || (call.Fn.Name != "+" && call.Fn.Name != "-") {
		return nil, nil, nil, false
	}
	x, k := call.Args[0], call.Args[1]
	if _, ok := intLiteral(x); ok && call.Fn.Name == "+" {
		x, k = k, x
	}
	c, ok = intLiteral(k)
	if !ok || x.Type() != coldata.Int64 || expr.IsConstant(x) {
		return nil, nil, nil, false
	}
	if opspec.AggResultType(opspec.AggSum, x.Type()) != coldata.Int64 {
		return nil, nil, nil, false
	}
	return x, call, c, true
}

// intLiteral returns e as a non-NULL BIGINT literal.
func intLiteral(e expr.Expr) (*expr.Literal, bool) {
	l, ok := e.(*expr.Literal)
	if !ok || l.T != coldata.Int64 {
		return nil, false
	}
	if _, ok := l.Value.(int64); !ok {
		return nil, false
	}
	return l, true
}
