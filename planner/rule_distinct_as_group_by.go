package planner

// SELECT DISTINCT as a GROUP BY of every column, without aggregates:
//
//	SELECT COUNT(*) FROM (SELECT DISTINCT UserID FROM hits WHERE SearchPhrase <> '') u
//
//	HashAggregate aggs: count(*)
//	  Distinct
//	    Project UserID
//	=>
//	HashAggregate aggs: count(*)
//	  HashAggregate keys: UserID
//	    Project UserID
//
// The two give the same rows. The grouping one is the engine's tuned
// path: typed keys instead of encoded row strings, all cores on the CPU,
// a hash table on the GPU, and spilling past Options.MemoryLimit, where
// the Distinct operator has one map on one core and no device form. A
// Distinct right under a LIMIT stays: it streams its first rows, and the
// LIMIT stops it early.

// DistinctAsGroupBy rewrites every Distinct not directly under a Limit.
func DistinctAsGroupBy(n Node) Node {
	out, _ := distinctAsGroupBy(n, false)
	return out
}

func distinctAsGroupBy(n Node, underLimit bool) (Node, error) {
	_, isLimit := n.(*Limit)
	n, _ = mapInputs(n, func(in Node) (Node, error) { return distinctAsGroupBy(in, isLimit) })
	d, ok := n.(*Distinct)
	if !ok || underLimit {
		return n, nil
	}
	return &Aggregate{placed: d.placed, Input: d.Input, Keys: refs(d.Input.Columns())}, nil
}
