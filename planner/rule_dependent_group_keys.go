package planner

import "github.com/gsqlengine/gsql/expr"

// Dependent group keys. A GROUP BY key that is arithmetic (+, -, *) over
// literals and columns that are themselves keys splits no group those
// columns do not, so the aggregate groups by the columns alone and the
// key is computed after grouping. ClickBench Q36:
//
//	SELECT ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3, COUNT(*) AS c
//	FROM hits GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3 ...
//
//	Project ClientIP, ClientIP - 1, ..., count(*) AS c
//	  HashAggregate keys: ClientIP, (ClientIP - 1), (ClientIP - 2), (ClientIP - 3) aggs: count(*)
//	=>
//	Project ClientIP, (ClientIP - 1) AS ClientIP - 1, ..., count(*) AS c
//	  HashAggregate keys: ClientIP aggs: count(*)
//
// hashes one column instead of four. Constant keys (Q35's GROUP BY 1,
// URL) and repeated keys go too. At least one key always stays: without
// keys an aggregate of no rows gives one row.

// DependentGroupKeys drops the dependent keys of every aggregate.
func DependentGroupKeys(n Node) (Node, error) {
	return rewriteAggregates(n, dropDependentKeys)
}

// dropDependentKeys is DependentGroupKeys for one aggregate.
func dropDependentKeys(a *Aggregate) (*Aggregate, []expr.Expr, error) {
	if len(a.Keys) < 2 {
		return nil, nil, nil
	}
	kept := dependentKeys(a.Keys)
	if len(kept) == len(a.Keys) {
		return nil, nil, nil
	}
	na := &Aggregate{placed: a.placed, Input: a.Input, Keys: kept, Aggs: a.Aggs, AggNames: a.AggNames}
	// Where each input column that is a kept key lands, and each kept
	// key by its text.
	colAt, keyAt := map[int]int{}, map[string]int{}
	for i, k := range kept {
		if c, ok := k.(*expr.ColumnRef); ok {
			if _, dup := colAt[c.Index]; !dup {
				colAt[c.Index] = i
			}
		}
		if _, dup := keyAt[expr.Key(k)]; !dup {
			keyAt[expr.Key(k)] = i
		}
	}
	defs := make([]expr.Expr, 0, len(a.Keys)+len(a.Aggs))
	for _, k := range a.Keys {
		if i, ok := keyAt[expr.Key(k)]; ok {
			defs = append(defs, &expr.ColumnRef{Index: i, Name: k.String(), T: k.Type()})
			continue
		}
		// Arithmetic over kept key columns: the same expression over
		// the new aggregate's key columns.
		defs = append(defs, expr.Remap(k, colAt))
	}
	for i, s := range a.Aggs {
		defs = append(defs, &expr.ColumnRef{Index: len(kept) + i, Name: a.AggNames[i], T: s.Type})
	}
	return na, defs, nil
}

// dependentKeys returns the keys that no other key determines.
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
