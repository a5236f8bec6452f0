package opspec

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// AggKind is an aggregate function.
type AggKind uint8

const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
	AggGroupConcat
	// AggVarPop .. AggStddevSamp keep Welford's running mean and sum of
	// squared deviations (DOUBLE results; the sample forms are NULL for
	// fewer than two values).
	AggVarPop
	AggVarSamp
	AggStddevPop
	AggStddevSamp
	// AggQuantileCont and AggQuantileDisc keep a group's values and pick
	// the Quantile at the end: interpolated at position q*(n-1) (DOUBLE),
	// or the first value whose cumulative share reaches q (the argument's
	// type); Order[0].Desc sorts the values descending.
	AggQuantileCont
	AggQuantileDisc
)

// AggSpec is one aggregate computed per group.
type AggSpec struct {
	Kind     AggKind
	Arg      expr.Expr // nil for COUNT(*)
	Distinct bool
	// Separator and Order apply to GROUP_CONCAT.
	Separator string
	Order     []AggOrder
	// Type is the result type.
	Type coldata.Type
	// Quantile is the fraction of AggQuantileCont/Disc, in [0, 1].
	Quantile float64
}

// AggOrder orders GROUP_CONCAT values by an expression.
type AggOrder struct {
	Expr expr.Expr
	Desc bool
}

// AggResultType returns the result type of an aggregate over arg type t.
func AggResultType(k AggKind, t coldata.Type) coldata.Type {
	switch k {
	case AggCountStar, AggCount:
		return coldata.Int64
	case AggSum:
		if t.IsDecimal() {
			return expr.DecimalSumType(t)
		}
		if t == coldata.Int64 || t == coldata.Bool {
			return coldata.Int64
		}
		return coldata.Float64
	case AggAvg:
		if t.IsDecimal() {
			return expr.DecimalAvgType(t)
		}
		return coldata.Float64
	case AggGroupConcat:
		return coldata.String
	case AggVarPop, AggVarSamp, AggStddevPop, AggStddevSamp, AggQuantileCont:
		return coldata.Float64
	}
	return t
}

// TopGroups is an ORDER BY whose first term is aggregate Agg (or, with
// Key, group key Agg) with a LIMIT of Limit rows (its offset included)
// over a grouped aggregate's output; Agg -1 is a LIMIT without ORDER BY,
// which any Limit groups answer. Desc and Nulls are the term's; Ties says
// further terms follow, so every group tied with the Limit-th on this term
// must survive for them to order.
type TopGroups struct {
	Agg   int
	Key   bool
	Desc  bool
	Nulls NullOrder
	Ties  bool
	Limit int
}

// NullsFirst reports where the ordering term puts NULLs: MySQL's default
// is first ascending, last descending.
func (t *TopGroups) NullsFirst() bool {
	if t.Nulls == NullsDefault {
		return !t.Desc
	}
	return t.Nulls == NullsFirst
}
