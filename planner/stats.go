package planner

import (
	"math"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// Filter selectivity from column statistics, by example (SSB Q2.1):
//
//	s_region = 'AMERICA'          1/NDV(s_region) = 1/5
//	p_category = 'MFGR#12'        1/NDV(p_category) = 1/25
//	d_year IN (1997, 1998)        2/NDV(d_year) = 2/7
//	d_year >= 1992 AND d_year <= 1997
//	                              the covered part of d_year's range: 6/7
//
// The flat guesses (0.1 for every equality) made both dimension filters
// look alike, and the fact table met the 20% supplier filter before the 4%
// part filter. A column's statistics come from the table it is read from
// (catalog.ColumnStats: a HyperLogLog distinct count and the value range);
// columns of derived tables and expressions keep the guesses.

// colStat are the statistics of a column a plan reads from a table.
type colStat struct {
	ndv, rows float64
	lo, hi    float64
	ranged    bool
	// discrete: integer-like values (integers, DATE days), where a range
	// [a, b] holds b-a+1 of them.
	discrete bool
}

// tableColumn follows column col of n down to the table column it reads
// unchanged (through filters, column-selecting projections, sorts and
// limits) or whose values it keeps (a DISTINCT's column, a GROUP BY's key
// column, a join's column, NULLs added on an outer join's padded side:
// their values are a subset of the column's, so its distinct count and
// range bound theirs).
func tableColumn(n Node, col int) (*catalog.Table, int, bool) {
	for {
		switch x := n.(type) {
		case *Filter:
			n = x.Input
		case *Distinct:
			n = x.Input
		case *Sort:
			n = x.Input
		case *Limit:
			n = x.Input
		case *Join:
			if nl := len(x.Left.Columns()); col < nl {
				n = x.Left
			} else {
				n, col = x.Right, col-nl
			}
		case *Aggregate:
			if col < 0 || col >= len(x.Keys) {
				return nil, 0, false
			}
			ref, ok := x.Keys[col].(*expr.ColumnRef)
			if !ok {
				return nil, 0, false
			}
			n, col = x.Input, ref.Index
		case *Project:
			if col < 0 || col >= len(x.Exprs) {
				return nil, 0, false
			}
			ref, ok := x.Exprs[col].(*expr.ColumnRef)
			if !ok {
				return nil, 0, false
			}
			n, col = x.Input, ref.Index
		case *Scan:
			if col < 0 || col >= len(x.Cols) || x.Table == nil {
				return nil, 0, false
			}
			return x.Table, x.Cols[col], true
		default:
			return nil, 0, false
		}
	}
}

// columnStat returns the statistics of column col of n, if its table has
// them.
func columnStat(n Node, col int) (colStat, bool) {
	t, tc, ok := tableColumn(n, col)
	if !ok {
		return colStat{}, false
	}
	ndv, ok := t.Distinct(tc)
	if !ok {
		return colStat{}, false
	}
	st := colStat{ndv: ndv, rows: math.Max(1, float64(t.Rows))}
	st.lo, st.hi, st.ranged = t.Range(tc)
	if tc < len(t.Columns) {
		p := t.Columns[tc].Type
		st.discrete = p == coldata.Int64 || p == coldata.Date
	}
	return st, true
}

// statsFunc gives a column's statistics, false when there are none.
type statsFunc func(col int) (colStat, bool)

// nodeStats resolves the columns of n's output.
func nodeStats(n Node) statsFunc {
	return func(col int) (colStat, bool) { return columnStat(n, col) }
}

// literalNumber returns a literal's value as a double in the unit the
// column statistics use (DATE days, TIMESTAMP microseconds).
func literalNumber(e expr.Expr) (float64, bool) {
	l, ok := e.(*expr.Literal)
	if !ok {
		return 0, false
	}
	switch v := l.Value.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, !math.IsNaN(v)
	case decimal.Int128:
		return v.Float64(l.T.Scale()), true
	}
	return 0, false
}

// isConstant reports whether e is a non-NULL literal.
func isConstant(e expr.Expr) bool {
	l, ok := e.(*expr.Literal)
	return ok && l.Value != nil
}

// colAndConst splits a comparison into its column, its constant and the
// operator as seen from the column (5 > x is x < 5).
func colAndConst(c *expr.Call) (*expr.ColumnRef, expr.Expr, string, bool) {
	if len(c.Args) != 2 {
		return nil, nil, "", false
	}
	if ref, ok := c.Args[0].(*expr.ColumnRef); ok && isConstant(c.Args[1]) {
		return ref, c.Args[1], c.Fn.Name, true
	}
	if ref, ok := c.Args[1].(*expr.ColumnRef); ok && isConstant(c.Args[0]) {
		flip := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
		if op, ok := flip[c.Fn.Name]; ok {
			return ref, c.Args[0], op, true
		}
	}
	return nil, nil, "", false
}

// rangeFraction is the fraction of a column's values that `col op v` keeps,
// assuming them spread evenly over their range.
func rangeFraction(st colStat, op string, v float64) (float64, bool) {
	if !st.ranged {
		return 0, false
	}
	var below float64 // fraction of values < v (or <= v)
	if st.discrete {
		width := st.hi - st.lo + 1
		switch op {
		case "<", ">=":
			below = (math.Ceil(v) - st.lo) / width
		default: // "<=", ">"
			below = (math.Floor(v) - st.lo + 1) / width
		}
	} else {
		if st.hi <= st.lo {
			below = 0
			if v > st.lo || (v == st.lo && (op == "<=" || op == ">")) {
				below = 1
			}
		} else {
			below = (v - st.lo) / (st.hi - st.lo)
		}
	}
	below = math.Min(1, math.Max(0, below))
	if op == "<" || op == "<=" {
		return below, true
	}
	return 1 - below, true
}

// selectivityWith estimates the fraction of rows a predicate keeps, from
// column statistics where stats has them, else the textbook guesses.
func selectivityWith(e expr.Expr, stats statsFunc) float64 {
	c, ok := e.(*expr.Call)
	if !ok || stats == nil {
		return predSelectivity(e)
	}
	switch c.Fn.Name {
	case "and":
		return andSelectivity(c.Args, stats)
	case "or":
		s := 0.0
		for _, a := range c.Args {
			s += selectivityWith(a, stats)
		}
		return math.Min(1, s)
	case "not":
		if len(c.Args) == 1 {
			return 1 - selectivityWith(c.Args[0], stats)
		}
	case "=":
		if ref, _, _, ok := colAndConst(c); ok {
			if st, ok := stats(ref.Index); ok {
				return 1 / st.ndv
			}
		}
	case "in":
		if ref, ok := c.Args[0].(*expr.ColumnRef); ok {
			if st, ok := stats(ref.Index); ok {
				k := 0
				for _, a := range c.Args[1:] {
					if !isConstant(a) {
						return predSelectivity(e)
					}
					k++
				}
				return math.Min(1, float64(k)/st.ndv)
			}
		}
	case "<", "<=", ">", ">=":
		if s, _, _, ok := rangeSelectivity(c, stats); ok {
			return s
		}
	}
	return predSelectivity(e)
}

// rangeSelectivity estimates `col op constant` from col's range; upper
// tells whether it bounds col from above.
func rangeSelectivity(c *expr.Call, stats statsFunc) (sel float64, col int, upper, ok bool) {
	ref, k, op, ok := colAndConst(c)
	if !ok || op == "=" {
		return 0, 0, false, false
	}
	v, ok := literalNumber(k)
	if !ok {
		return 0, 0, false, false
	}
	st, ok := stats(ref.Index)
	if !ok {
		return 0, 0, false, false
	}
	f, ok := rangeFraction(st, op, v)
	if !ok {
		return 0, 0, false, false
	}
	return f, ref.Index, op == "<" || op == "<=", true
}

// andSelectivity multiplies the conjuncts' selectivities, except that the
// bounds of one column combine into the part of its range between them
// (x >= a AND x <= b keeps F(b) - F(a), not (1-F(a)) F(b)).
func andSelectivity(args []expr.Expr, stats statsFunc) float64 {
	type bounds struct {
		col          int
		lower, upper float64
	}
	var cols []bounds // in order of appearance, so the product is deterministic
	s := 1.0
	for _, a := range args {
		if c, ok := a.(*expr.Call); ok {
			if f, col, upper, ok := rangeSelectivity(c, stats); ok {
				i := 0
				for i < len(cols) && cols[i].col != col {
					i++
				}
				if i == len(cols) {
					cols = append(cols, bounds{col, 1, 1})
				}
				if upper {
					cols[i].upper = math.Min(cols[i].upper, f)
				} else {
					cols[i].lower = math.Min(cols[i].lower, f)
				}
				continue
			}
		}
		s *= selectivityWith(a, stats)
	}
	for _, b := range cols {
		s *= math.Max(0, b.lower+b.upper-1)
	}
	return s
}
