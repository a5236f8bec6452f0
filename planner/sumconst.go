package planner

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// sumPlusConst rewrites SUM(x + c), SUM(c + x) and SUM(x - c), for a
// BIGINT x and a BIGINT literal c, as SUM(x) + c * COUNT(x) (minus for
// x - c): the sum of a shifted column is its sum plus the shift once per
// non-NULL value, and NULL where SUM(x) is (no non-NULL x). Many sums
// over one column and different constants (ClickBench Q30: 90 of
// ResolutionWidth + k) then share two aggregates, instead of computing a
// column per constant and summing each. It reports false when spec is
// not such a sum.
//
// The answers are the same, but an intermediate overflow is judged on
// other values: the rewritten sum errs when SUM(x) or the final value
// leaves BIGINT, the original when some x + c or a partial sum does.
func (a *aggCtx) sumPlusConst(spec opspec.AggSpec, e expr.Expr) (expr.Expr, bool, error) {
	if spec.Kind != opspec.AggSum || spec.Distinct || e.Type() != coldata.Int64 {
		return nil, false, nil
	}
	c, ok := e.(*expr.Call)
	if !ok || len(c.Args) != 2 || (c.Fn.Name != "+" && c.Fn.Name != "-") {
		return nil, false, nil
	}
	x, k := c.Args[0], c.Args[1]
	if _, ok := intLiteral(x); ok && c.Fn.Name == "+" {
		x, k = k, x
	}
	lit, ok := intLiteral(k)
	if !ok || x.Type() != coldata.Int64 || expr.IsConstant(x) {
		return nil, false, nil
	}
	if opspec.AggResultType(opspec.AggSum, x.Type()) != coldata.Int64 {
		return nil, false, nil
	}
	sum := a.addAgg("sum("+x.String()+")", opspec.AggSpec{Kind: opspec.AggSum, Arg: x, Type: coldata.Int64})
	count := a.addAgg("count("+x.String()+")", opspec.AggSpec{Kind: opspec.AggCount, Arg: x, Type: coldata.Int64})
	mul, _ := expr.Lookup("*")
	shift, err := expr.NewCall(mul, []expr.Expr{lit, count})
	if err != nil {
		return nil, false, err
	}
	out, err := expr.NewCall(c.Fn, []expr.Expr{sum, shift})
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
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
