package planner

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
)

// Built is an executable operator tree with per-node statistics.
type Built struct {
	Root  operators.Operator
	Stats map[Node]*operators.Stats
}

// Build turns a plan into operators.
func Build(n Node) (*Built, error) {
	b := &Built{Stats: map[Node]*operators.Stats{}}
	root, err := b.build(n)
	if err != nil {
		return nil, err
	}
	b.Root = root
	return b, nil
}

func (b *Built) build(n Node) (operators.Operator, error) {
	var op operators.Operator
	switch x := n.(type) {
	case *Scan:
		batches, err := x.Table.Batches()
		if err != nil {
			return nil, err
		}
		op = &operators.Scan{Batches: batches, Cols: x.Cols}
	case *Values:
		batch, err := valuesBatch(x)
		if err != nil {
			return nil, err
		}
		op = &operators.Values{Batch: batch}
	case *Filter:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Filter{Input: in, Pred: x.Pred}
	case *Project:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Project{Input: in, Exprs: x.Exprs}
	case *Sort:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Sort{Input: in, Keys: x.Keys, NCols: len(x.Columns())}
	case *Limit:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Limit{Input: in, Count: x.Count, Offset: x.Offset}
	case *Distinct:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Distinct{Input: in}
	case *Join:
		l, err := b.build(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := b.build(x.Right)
		if err != nil {
			return nil, err
		}
		var rt []coldata.Type
		for _, c := range x.Right.Columns() {
			rt = append(rt, c.Type)
		}
		op = &operators.HashJoin{Left: l, Right: r, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys,
			Cond: x.Cond, Kind: x.Kind, LeftCols: len(x.Left.Columns()), RightTypes: rt}
	case *Union:
		u := &operators.UnionAll{}
		for _, part := range x.Parts {
			in, err := b.build(part)
			if err != nil {
				return nil, err
			}
			u.Inputs = append(u.Inputs, in)
		}
		op = u
	case *Aggregate:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.HashAggregate{Input: in, Keys: x.Keys, Aggs: x.Aggs}
	default:
		return nil, fmt.Errorf("internal error: cannot build %T", n)
	}
	st := &operators.Stats{}
	b.Stats[n] = st
	return operators.Instrument(op, st), nil
}

// valuesBatch evaluates constant rows into one batch.
func valuesBatch(v *Values) (*coldata.Batch, error) {
	n := len(v.Rows)
	cols := make([]*coldata.Vec, len(v.Out))
	for c := range v.Out {
		bld := coldata.NewBuilder(v.Out[c].Type, n)
		for _, row := range v.Rows {
			val, err := expr.Eval(row[c], &coldata.Batch{Len: 1})
			if err != nil {
				return nil, err
			}
			bld.AppendFrom(val, 0)
		}
		cols[c] = bld.Finish()
	}
	return &coldata.Batch{Cols: cols, Len: n}, nil
}
