package execbuild

import (
	"math"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
)

// Zone-map pruning: a CPU scan directly under a filter skips the table's
// records (on disk: segments) whose zone maps prove that no row passes the
// filter. Only conjuncts of the form `column op literal` (op one of = < <=
// > >=, BETWEEN being two of them) with the column's own type are used;
// anything else keeps the record.

// ScanSegments counts a scan's records: read and skipped by zone maps.
type ScanSegments struct {
	Total, Skipped int
	// Batches and BatchesSkipped count scan batches when an index's chunk
	// zone maps were used (Index names it).
	Batches, BatchesSkipped int
	Index                   string
}

// filtersOverScans maps each Scan directly under a Filter to its
// predicate.
func filtersOverScans(n planner.Node, out map[*planner.Scan]expr.Expr) {
	if f, ok := n.(*planner.Filter); ok {
		if s, ok := f.Input.(*planner.Scan); ok {
			out[s] = f.Pred
		}
	}
	for _, in := range n.Inputs() {
		filtersOverScans(in, out)
	}
}

// zoneExcludes reports whether no row of a record with zone maps zones
// (per table column) and rows rows can satisfy pred, a predicate over the
// scan's output columns (cols maps them to table columns).
func zoneExcludes(pred expr.Expr, cols []int, zones []catalog.Zone, rows int64) bool {
	c, ok := pred.(*expr.Call)
	if !ok || c.Fn == nil {
		return false
	}
	switch c.Fn.Name {
	case "and":
		for _, a := range c.Args {
			if zoneExcludes(a, cols, zones, rows) {
				return true
			}
		}
		return false
	case "or":
		for _, a := range c.Args {
			if !zoneExcludes(a, cols, zones, rows) {
				return false
			}
		}
		return len(c.Args) > 0
	case "=", "<", "<=", ">", ">=":
	default:
		return false
	}
	if len(c.Args) != 2 {
		return false
	}
	op := c.Fn.Name
	ref, lok := c.Args[0].(*expr.ColumnRef)
	lit, rok := c.Args[1].(*expr.Literal)
	if !lok || !rok {
		// literal op column: flip the comparison.
		ref, lok = c.Args[1].(*expr.ColumnRef)
		lit, rok = c.Args[0].(*expr.Literal)
		if !lok || !rok {
			return false
		}
		op = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
	}
	if ref.Index < 0 || ref.Index >= len(cols) || cols[ref.Index] >= len(zones) || lit.Value == nil {
		return false
	}
	z := zones[cols[ref.Index]]
	if z.Nulls == rows && rows > 0 {
		return true // every value is NULL: no comparison is true
	}
	var cmpMin, cmpMax int // sign of (value - min), (value - max)
	switch v := lit.Value.(type) {
	case int64:
		if ref.T != coldata.Int64 || lit.T != coldata.Int64 || z.MinI == nil || z.MaxI == nil {
			return false
		}
		cmpMin, cmpMax = cmp3(v, *z.MinI), cmp3(v, *z.MaxI)
	case float64:
		if ref.T != coldata.Float64 || lit.T != coldata.Float64 || z.MinF == nil || z.MaxF == nil || math.IsNaN(v) {
			return false
		}
		cmpMin, cmpMax = cmp3(v, *z.MinF), cmp3(v, *z.MaxF)
	case string:
		if ref.T != coldata.String || lit.T != coldata.String || z.MinS == nil || z.MaxS == nil {
			return false
		}
		cmpMin, cmpMax = cmp3(v, *z.MinS), cmp3(v, *z.MaxS)
	default:
		return false
	}
	switch op {
	case "=": // v outside [min, max]
		return cmpMin < 0 || cmpMax > 0
	case "<": // every value >= v
		return cmpMin <= 0
	case "<=":
		return cmpMin < 0
	case ">": // every value <= v
		return cmpMax >= 0
	case ">=":
		return cmpMax > 0
	}
	return false
}

func cmp3[T int64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
