package planner

import (
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Constant folding. A constant sub-expression is computed once, at plan
// time, instead of once per batch, and a filter that is always true goes:
//
//	SELECT a + (2 * 3) FROM t WHERE 1 = 1
//
//	Project (a + (2 * 3))          Project (a + 6)
//	  Filter (1 = 1)          =>     Scan t [a]
//	    Scan t [a]
//
// Volatile calls (RAND(), a correlated subquery's outer values) are left
// alone; an error of a constant expression (an overflow) is the
// statement's error.

// foldAll folds each expression.
func foldAll(es []expr.Expr) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		f, err := foldConstants(e)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// FoldConstants evaluates constant sub-expressions once at plan time and
// drops filters that are always true.
func FoldConstants(n Node) (Node, error) {
	n, err := mapInputs(n, FoldConstants)
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *Filter:
		pred, err := foldConstants(x.Pred)
		if err != nil {
			return nil, err
		}
		if l, ok := pred.(*expr.Literal); ok && l.Value == true {
			return x.Input, nil
		}
		x.Pred = pred
	case *Project:
		if x.Exprs, err = foldAll(x.Exprs); err != nil {
			return nil, err
		}
	case *Join:
		if x.Cond != nil {
			if x.Cond, err = foldConstants(x.Cond); err != nil {
				return nil, err
			}
		}
	case *Aggregate:
		if x.Keys, err = foldAll(x.Keys); err != nil {
			return nil, err
		}
		x.Aggs = append([]opspec.AggSpec(nil), x.Aggs...)
		for i := range x.Aggs {
			if x.Aggs[i].Arg != nil {
				if x.Aggs[i].Arg, err = foldConstants(x.Aggs[i].Arg); err != nil {
					return nil, err
				}
			}
		}
	}
	return n, nil
}
