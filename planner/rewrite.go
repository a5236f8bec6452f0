package planner

import (
	"sort"

	"github.com/gsqlengine/gsql/expr"
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
	}
	return n, nil
}

// PruneColumns makes every scan read only the columns the projection and
// filter above it use.
func PruneColumns(n Node) Node {
	switch x := n.(type) {
	case *Project:
		if scan, filter := scanBelow(x.Input); scan != nil {
			used := map[int]bool{}
			for _, e := range x.Exprs {
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
			var in Node = ns
			if filter != nil {
				in = &Filter{placed: filter.placed, Input: ns, Pred: expr.Remap(filter.Pred, remap)}
			}
			exprs := make([]expr.Expr, len(x.Exprs))
			for i, e := range x.Exprs {
				exprs[i] = expr.Remap(e, remap)
			}
			return &Project{placed: x.placed, Input: in, Exprs: exprs, Out: x.Out}
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
	}
	return n
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
