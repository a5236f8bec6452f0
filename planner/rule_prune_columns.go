package planner

import (
	"maps"
	"sort"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// Column pruning. The binder scans every column of a table; this rule
// narrows each scan to the columns something above it reads (through
// filters, joins, windows and column-selecting projections), renumbering
// the references above:
//
//	SELECT b FROM t WHERE c > 1
//
//	Project b                     Project b
//	  Filter (c > 1)          =>    Filter (c > 1)
//	    Scan t [a b c d]              Scan t [b c]
//
// A join input's filter that reads columns the join does not need gets a
// Project above it that drops them (pruneJoinInput).

// PruneColumns makes every scan read only the columns the projection,
// aggregation and filter above it use.
func PruneColumns(n Node) Node {
	switch x := n.(type) {
	case *Project:
		if in, remap := pruneBelow(x.Input, x.Exprs); remap != nil {
			return &Project{placed: x.placed, Input: pruneInputs(in), Exprs: remapAll(x.Exprs, remap), Out: x.Out}
		}
	case *Aggregate:
		var uses []expr.Expr
		uses = append(uses, x.Keys...)
		for _, a := range x.Aggs {
			if a.Arg != nil {
				uses = append(uses, a.Arg)
			}
			for _, o := range a.Order {
				uses = append(uses, o.Expr)
			}
		}
		if in, remap := pruneBelow(x.Input, uses); remap != nil {
			c := *x
			c.Input = pruneInputs(in)
			c.Keys = remapAll(x.Keys, remap)
			c.Aggs = append([]opspec.AggSpec(nil), x.Aggs...)
			for i := range c.Aggs {
				if c.Aggs[i].Arg != nil {
					c.Aggs[i].Arg = expr.Remap(c.Aggs[i].Arg, remap)
				}
				order := make([]opspec.AggOrder, len(c.Aggs[i].Order))
				for j, o := range c.Aggs[i].Order {
					order[j] = opspec.AggOrder{Expr: expr.Remap(o.Expr, remap), Desc: o.Desc}
				}
				c.Aggs[i].Order = order
			}
			return &c
		}
	}
	out, _ := mapInputs(n, func(in Node) (Node, error) { return PruneColumns(in), nil })
	return out
}

// pruneInputs applies PruneColumns below n, a node pruneBelow made: the
// inputs of its joins and filters may hold projections and aggregates of
// their own (a grouped join's aggregate, a derived table).
func pruneInputs(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return PruneColumns(in), nil })
	return out
}

func remapAll(es []expr.Expr, remap map[int]int) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = expr.Remap(e, remap)
	}
	return out
}

// pruneBelow narrows a Scan or Filter(Scan) input to the columns that uses
// (and the filter) read. It returns the new input and the old-to-new column
// mapping, or a nil mapping when n is not such an input.
func pruneBelow(n Node, uses []expr.Expr) (Node, map[int]int) {
	used := map[int]bool{}
	for _, e := range uses {
		for c := range expr.Columns(e) {
			used[c] = true
		}
	}
	return pruneTo(n, used)
}

// pruneTo narrows n to the columns in used (indices into n's columns) plus
// what n itself reads: a Scan or Filter(Scan) reads fewer columns, a Join
// passes each side's share down (with its keys and condition) and
// renumbers. It returns the new node and the old-to-new column mapping,
// or a nil mapping when n is left as it is.
func pruneTo(n Node, used map[int]bool) (Node, map[int]int) {
	if j, ok := n.(*Join); ok {
		return pruneJoin(j, used)
	}
	if w, ok := n.(*Window); ok {
		return pruneWindow(w, used)
	}
	if p, ok := n.(*Project); ok && isPermutation(p) {
		return prunePermutation(p, used)
	}
	scan, filter := scanBelow(n)
	if scan == nil {
		if f, ok := n.(*Filter); ok {
			return pruneFilter(f, used)
		}
		return n, nil
	}
	used = maps.Clone(used)
	if filter != nil {
		for c := range expr.Columns(filter.Pred) {
			used[c] = true
		}
	}
	keep := make([]int, 0, len(used))
	for c := range used {
		keep = append(keep, c)
	}
	sort.Ints(keep)
	remap := map[int]int{}
	cols := make([]int, len(keep))
	for i, c := range keep {
		remap[c] = i
		cols[i] = scan.Cols[c]
	}
	ns := &Scan{placed: scan.placed, Table: scan.Table, Alias: scan.Alias, Cols: cols, Indexes: scan.Indexes}
	if filter != nil {
		return &Filter{placed: filter.placed, Input: ns, Pred: expr.Remap(filter.Pred, remap)}, remap
	}
	return ns, remap
}

// pruneFilter narrows the input of a filter over something other than a
// scan (a join: TPC-H Q17's comparison with the joined average) to the
// columns used above it and by its predicate.
func pruneFilter(f *Filter, used map[int]bool) (Node, map[int]int) {
	used = maps.Clone(used)
	for c := range expr.Columns(f.Pred) {
		used[c] = true
	}
	in, m := pruneTo(f.Input, used)
	if m == nil {
		return f, nil
	}
	return &Filter{placed: f.placed, Input: in, Pred: expr.Remap(f.Pred, m)}, m
}

// pruneJoin narrows both sides of a join to the columns used above it,
// its keys and its condition.
func pruneJoin(j *Join, used map[int]bool) (Node, map[int]int) {
	nl, nr := len(j.Left.Columns()), len(j.Right.Columns())
	if leftJoinRemovable(j, used) {
		in, m := pruneJoinInput(j.Left, used)
		if m == nil {
			m = identity(nl)
		}
		return in, m
	}
	left, right := map[int]bool{}, map[int]bool{}
	split := func(c int) {
		if c < nl {
			left[c] = true
		} else {
			right[c-nl] = true
		}
	}
	for c := range used {
		split(c)
	}
	if j.Cond != nil {
		for c := range expr.Columns(j.Cond) {
			split(c)
		}
	}
	for _, k := range j.LeftKeys {
		for c := range expr.Columns(k) {
			left[c] = true
		}
	}
	for _, k := range j.RightKeys {
		for c := range expr.Columns(k) {
			right[c] = true
		}
	}
	nlNode, lmap := pruneJoinInput(j.Left, left)
	nrNode, rmap := pruneJoinInput(j.Right, right)
	if lmap == nil && rmap == nil {
		return j, nil
	}
	if lmap == nil {
		lmap = identity(nl)
	}
	if rmap == nil {
		rmap = identity(nr)
	}
	newNL := len(nlNode.Columns())
	remap := make(map[int]int, len(lmap)+len(rmap))
	for o, c := range lmap {
		remap[o] = c
	}
	for o, c := range rmap {
		remap[nl+o] = newNL + c
	}
	c := *j
	c.Left, c.Right = nlNode, nrNode
	c.LeftKeys, c.RightKeys = remapAll(j.LeftKeys, lmap), remapAll(j.RightKeys, rmap)
	if j.Cond != nil {
		c.Cond = expr.Remap(j.Cond, remap)
	}
	return &c, remap
}

// pruneJoinInput is pruneTo for a join's input. A filtered scan whose
// filter reads columns that the join does not (TPC-H Q13's o_comment, Q4's
// and Q21's l_commitdate and l_receiptdate) gets a Project above the
// filter that drops them, so that the join does not materialise them (the
// Filter, or the ParallelCompute over a large table, then gathers only the
// columns kept; see columnsOfFilter). Tables of one batch are left alone.
func pruneJoinInput(n Node, used map[int]bool) (Node, map[int]int) {
	out, m := pruneTo(n, used)
	if m == nil || len(used) == 0 {
		return out, m
	}
	f, ok := out.(*Filter)
	if !ok {
		return out, m
	}
	if s, ok := f.Input.(*Scan); !ok || s.Table.Rows <= opspec.BatchSize || len(used) == len(f.Columns()) {
		return out, m
	}
	keep := make([]int, 0, len(used))
	for c := range used {
		keep = append(keep, c)
	}
	sort.Ints(keep)
	cols := f.Columns()
	p := &Project{Input: f}
	remap := make(map[int]int, len(keep))
	for i, c := range keep {
		pos := m[c]
		p.Exprs = append(p.Exprs, &expr.ColumnRef{Index: pos, Name: cols[pos].Name, T: cols[pos].Type})
		p.Out = append(p.Out, cols[pos])
		remap[c] = i
	}
	return p, remap
}

func identity(n int) map[int]int {
	m := make(map[int]int, n)
	for i := 0; i < n; i++ {
		m[i] = i
	}
	return m
}

// scanBelow matches Scan or Filter(Scan).
func scanBelow(n Node) (*Scan, *Filter) {
	switch x := n.(type) {
	case *Scan:
		return x, nil
	case *Filter:
		if s, ok := x.Input.(*Scan); ok {
			return s, x
		}
	}
	return nil, nil
}

// pruneWindow narrows a window's input to the columns used above it and by
// its functions.
func pruneWindow(w *Window, used map[int]bool) (Node, map[int]int) {
	nin := len(w.Input.Columns())
	in := map[int]bool{}
	for c := range used {
		if c < nin {
			in[c] = true
		}
	}
	for _, f := range w.Funcs {
		for _, e := range windowExprs(&f) {
			for c := range expr.Columns(e) {
				in[c] = true
			}
		}
	}
	newIn, m := pruneTo(w.Input, in)
	if m == nil {
		return w, nil
	}
	c := *w
	c.Input = newIn
	c.Funcs = make([]winspec.Func, len(w.Funcs))
	for i, f := range w.Funcs {
		c.Funcs[i] = remapWindowFunc(f, m)
	}
	remap := maps.Clone(m)
	newNin := len(newIn.Columns())
	for i := range w.Funcs {
		remap[nin+i] = newNin + i
	}
	return &c, remap
}

// windowExprs lists the expressions a window function reads.
func windowExprs(f *winspec.Func) []expr.Expr {
	out := append([]expr.Expr(nil), f.Args...)
	out = append(out, f.Partition...)
	for _, k := range f.Order {
		out = append(out, k.Expr)
	}
	return out
}

// remapWindowFunc returns f reading columns renumbered by m.
func remapWindowFunc(f winspec.Func, m map[int]int) winspec.Func {
	f.Args = remapAll(f.Args, m)
	f.Partition = remapAll(f.Partition, m)
	order := make([]winspec.Key, len(f.Order))
	for i, k := range f.Order {
		k.Expr = expr.Remap(k.Expr, m)
		order[i] = k
	}
	f.Order = order
	return f
}
