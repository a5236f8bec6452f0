package planner

import "github.com/gsqlengine/gsql/expr"

// dependentKeys drops the GROUP BY keys that other keys determine: a key
// that is arithmetic (+, -, *) over literals and columns that are
// themselves keys splits no group those columns do not, so the
// aggregate groups by the columns alone, and the select list computes
// the expression from the key column after grouping (the aggregate
// binder binds an expression that is no key by its parts). ClickBench
// Q36, GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3,
// then hashes one column instead of four. Constant keys (Q35's GROUP BY
// 1, URL) and repeated keys are dropped too.
// At least one key always stays: without keys an aggregate of no rows
// gives one row.
func dependentKeys(keys []expr.Expr) []expr.Expr {
	cols := map[int]bool{}
	for _, k := range keys {
		if c, ok := k.(*expr.ColumnRef); ok {
			cols[c.Index] = true
		}
	}
	var out []expr.Expr
	seen := map[string]bool{}
	for _, k := range keys {
		key := expr.Key(k)
		if seen[key] {
			continue
		}
		if _, isCol := k.(*expr.ColumnRef); !isCol && arithmeticOf(k, cols) {
			continue
		}
		seen[key] = true
		out = append(out, k)
	}
	if len(out) == 0 {
		return keys[:1]
	}
	return out
}

// arithmeticOf reports whether e is +, - and * over literals and the
// columns in cols.
func arithmeticOf(e expr.Expr, cols map[int]bool) bool {
	switch x := e.(type) {
	case *expr.Literal:
		return true
	case *expr.ColumnRef:
		return cols[x.Index]
	case *expr.Call:
		switch x.Fn.Name {
		case "+", "-", "*":
		default:
			return false
		}
		for _, a := range x.Args {
			if !arithmeticOf(a, cols) {
				return false
			}
		}
		return true
	}
	return false
}
