package planner

import (
	"sort"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
)

// FoldConstants evaluates constant sub-expressions once at plan time and
// drops filters that are always true.
func FoldConstants(n Node) (Node, error) {
	switch x := n.(type) {
	case *Filter:
		in, err := FoldConstants(x.Input)
		if err != nil {
			return nil, err
		}
		pred, err := foldConstants(x.Pred)
		if err != nil {
			return nil, err
		}
		if l, ok := pred.(*expr.Literal); ok && l.Value == true {
			return in, nil
		}
		return &Filter{placed: x.placed, Input: in, Pred: pred}, nil
	case *Project:
		in, err := FoldConstants(x.Input)
		if err != nil {
			return nil, err
		}
		exprs := make([]expr.Expr, len(x.Exprs))
		for i, e := range x.Exprs {
			if exprs[i], err = foldConstants(e); err != nil {
				return nil, err
			}
		}
		return &Project{placed: x.placed, Input: in, Exprs: exprs, Out: x.Out}, nil
	case *Sort:
		in, err := FoldConstants(x.Input)
		if err != nil {
			return nil, err
		}
		return &Sort{placed: x.placed, Input: in, Keys: x.Keys}, nil
	case *Limit:
		in, err := FoldConstants(x.Input)
		if err != nil {
			return nil, err
		}
		return &Limit{placed: x.placed, Input: in, Count: x.Count, Offset: x.Offset}, nil
	case *Distinct:
		in, err := FoldConstants(x.Input)
		if err != nil {
			return nil, err
		}
		return &Distinct{placed: x.placed, Input: in}, nil
	case *Union:
		c := *x
		c.Parts = make([]Node, len(x.Parts))
		for i, p := range x.Parts {
			f, err := FoldConstants(p)
			if err != nil {
				return nil, err
			}
			c.Parts[i] = f
		}
		return &c, nil
	case *Join:
		l, err := FoldConstants(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := FoldConstants(x.Right)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Left, c.Right = l, r
		if x.Cond != nil {
			if c.Cond, err = foldConstants(x.Cond); err != nil {
				return nil, err
			}
		}
		return &c, nil
	case *Aggregate:
		in, err := FoldConstants(x.Input)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Input = in
		c.Keys = make([]expr.Expr, len(x.Keys))
		for i, k := range x.Keys {
			if c.Keys[i], err = foldConstants(k); err != nil {
				return nil, err
			}
		}
		c.Aggs = append([]operators.AggSpec(nil), x.Aggs...)
		for i := range c.Aggs {
			if c.Aggs[i].Arg != nil {
				if c.Aggs[i].Arg, err = foldConstants(c.Aggs[i].Arg); err != nil {
					return nil, err
				}
			}
		}
		return &c, nil
	}
	return n, nil
}

// PruneColumns makes every scan read only the columns the projection and
// filter above it use.
func PruneColumns(n Node) Node {
	switch x := n.(type) {
	case *Project:
		if in, remap := pruneBelow(x.Input, x.Exprs); remap != nil {
			return &Project{placed: x.placed, Input: in, Exprs: remapAll(x.Exprs, remap), Out: x.Out}
		}
		return &Project{placed: x.placed, Input: PruneColumns(x.Input), Exprs: x.Exprs, Out: x.Out}
	case *Filter:
		return &Filter{placed: x.placed, Input: PruneColumns(x.Input), Pred: x.Pred}
	case *Sort:
		return &Sort{placed: x.placed, Input: PruneColumns(x.Input), Keys: x.Keys}
	case *Limit:
		return &Limit{placed: x.placed, Input: PruneColumns(x.Input), Count: x.Count, Offset: x.Offset}
	case *Distinct:
		return &Distinct{placed: x.placed, Input: PruneColumns(x.Input)}
	case *Join:
		c := *x
		c.Left, c.Right = PruneColumns(x.Left), PruneColumns(x.Right)
		return &c
	case *Union:
		c := *x
		c.Parts = make([]Node, len(x.Parts))
		for i, p := range x.Parts {
			c.Parts[i] = PruneColumns(p)
		}
		return &c
	case *Aggregate:
		c := *x
		c.Aggs = append([]operators.AggSpec(nil), x.Aggs...)
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
		in, remap := pruneBelow(x.Input, uses)
		if remap == nil {
			c.Input = PruneColumns(x.Input)
			return &c
		}
		c.Input = in
		c.Keys = remapAll(x.Keys, remap)
		for i := range c.Aggs {
			if c.Aggs[i].Arg != nil {
				c.Aggs[i].Arg = expr.Remap(c.Aggs[i].Arg, remap)
			}
			order := make([]operators.AggOrder, len(c.Aggs[i].Order))
			for j, o := range c.Aggs[i].Order {
				order[j] = operators.AggOrder{Expr: expr.Remap(o.Expr, remap), Desc: o.Desc}
			}
			c.Aggs[i].Order = order
		}
		return &c
	}
	return n
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
	scan, filter := scanBelow(n)
	if scan == nil {
		return n, nil
	}
	used := map[int]bool{}
	for _, e := range uses {
		for c := range expr.Columns(e) {
			used[c] = true
		}
	}
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
	ns := &Scan{placed: scan.placed, Table: scan.Table, Alias: scan.Alias, Cols: cols}
	if filter != nil {
		return &Filter{placed: filter.placed, Input: ns, Pred: expr.Remap(filter.Pred, remap)}, remap
	}
	return ns, remap
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

// PushFilters moves the parts of a filter above a join into the join:
// predicates over one side become filters on that side, equalities between
// the sides become hash-join keys, and the rest the join's residual
// condition. For a left join only left-side predicates move.
func PushFilters(n Node) Node {
	switch x := n.(type) {
	case *Filter:
		in := PushFilters(x.Input)
		j, ok := in.(*Join)
		if !ok {
			return &Filter{placed: x.placed, Input: in, Pred: x.Pred}
		}
		c := *j
		nl := len(j.Left.Columns())
		var keep, toLeft, toRight, toJoin []expr.Expr
		for _, p := range conjuncts(x.Pred) {
			switch s := side(p, nl); {
			case s == 0:
				toLeft = append(toLeft, p)
			case s == 1 && j.Kind == operators.InnerJoin:
				toRight = append(toRight, p)
			case s == 2 && j.Kind == operators.InnerJoin:
				toJoin = append(toJoin, p)
			default:
				keep = append(keep, p)
			}
		}
		if len(toLeft) > 0 {
			c.Left = PushFilters(&Filter{Input: c.Left, Pred: conjoin(toLeft)})
		}
		if len(toRight) > 0 {
			shift := map[int]int{}
			for i := range j.Right.Columns() {
				shift[nl+i] = i
			}
			c.Right = PushFilters(&Filter{Input: c.Right, Pred: expr.Remap(conjoin(toRight), shift)})
		}
		if len(toJoin) > 0 {
			all := append(conjuncts(j.Cond), toJoin...)
			for i := range j.LeftKeys {
				shift := map[int]int{}
				for col := range expr.Columns(j.RightKeys[i]) {
					shift[col] = col + nl
				}
				eq, _ := expr.Lookup("=")
				all = append(all, &expr.Call{Fn: eq, Args: []expr.Expr{j.LeftKeys[i], expr.Remap(j.RightKeys[i], shift)}, T: boolType})
			}
			c.setCondition(conjoin(all), nl)
		}
		if len(keep) == 0 {
			return &c
		}
		return &Filter{placed: x.placed, Input: &c, Pred: conjoin(keep)}
	case *Project:
		c := *x
		c.Input = PushFilters(x.Input)
		return &c
	case *Sort:
		c := *x
		c.Input = PushFilters(x.Input)
		return &c
	case *Limit:
		c := *x
		c.Input = PushFilters(x.Input)
		return &c
	case *Distinct:
		c := *x
		c.Input = PushFilters(x.Input)
		return &c
	case *Aggregate:
		c := *x
		c.Input = PushFilters(x.Input)
		return &c
	case *Union:
		c := *x
		c.Parts = make([]Node, len(x.Parts))
		for i, p := range x.Parts {
			c.Parts[i] = PushFilters(p)
		}
		return &c
	case *Join:
		c := *x
		c.Left, c.Right = PushFilters(x.Left), PushFilters(x.Right)
		return &c
	}
	return n
}
