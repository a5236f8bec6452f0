// Package window computes SQL window functions on the CPU: ROW_NUMBER,
// RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD,
// FIRST_VALUE, LAST_VALUE, NTH_VALUE and the aggregates COUNT, SUM, AVG,
// MIN and MAX over ROWS or RANGE frames.
//
// The Operator materialises its input (a window needs a whole partition),
// then works one window specification at a time, in the manner of
// CockroachDB's colexecwindow: the rows are sorted by partition and order
// keys, a partitioner marks where partitions and peer groups start with
// whole-vector comparisons of neighbouring keys, frame bounds are computed
// for every row, and each function fills its result vector in sorted order
// with loops over whole vectors. Results go back to the input's row order,
// so the output is the input's rows, in input order, followed by one
// column per function.
package window

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// Operator computes Funcs over its input: the output has the input's
// NCols columns followed by one column per function, rows in input order.
type Operator struct {
	Input operators.Operator
	NCols int
	Funcs []winspec.Func

	done bool
	all  *coldata.Batch // input columns then results
	pos  int
	// host counts the buffered input, its concatenation and the results.
	host operators.HostBytes
}

// PeakHostBytes is the most host memory the operator held at once.
func (o *Operator) PeakHostBytes() int64 { return o.host.Peak() }

// Open implements operators.Operator.
func (o *Operator) Open(ctx context.Context) error {
	o.done, o.all, o.pos = false, nil, 0
	o.host.ReleaseAll()
	return o.Input.Open(ctx)
}

// Next implements operators.Operator.
func (o *Operator) Next(ctx context.Context) (*coldata.Batch, error) {
	if !o.done {
		if err := o.compute(ctx); err != nil {
			return nil, err
		}
		o.done = true
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.all == nil || o.pos >= o.all.Len {
		o.all = nil
		o.host.ReleaseAll()
		return nil, nil
	}
	end := min(o.pos+opspec.BatchSize, o.all.Len)
	out := coldata.SliceBatch(o.all, o.pos, end)
	o.pos = end
	return out, nil
}

// Close implements operators.Operator.
func (o *Operator) Close() error {
	o.all = nil
	o.host.ReleaseAll()
	return o.Input.Close()
}

func (o *Operator) compute(ctx context.Context) error {
	var batches []*coldata.Batch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := o.Input.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		batches = append(batches, b)
		o.host.Grow(b.HostBytes())
	}
	all, err := coldata.ConcatCheck(batches, o.NCols, ctx.Err)
	if err != nil {
		return err
	}
	if all.Len == 0 {
		return nil
	}
	// The input and its copy are both live until Compute is done.
	buffered := o.host.Held()
	if len(batches) > 1 { // one batch is passed on, not copied
		o.host.Grow(all.HostBytes())
	} else {
		buffered = 0
	}
	res, err := Compute(ctx, all, o.Funcs)
	if err != nil {
		return err
	}
	o.host.Grow((&coldata.Batch{Cols: res, Len: all.Len}).HostBytes())
	o.host.Release(buffered)
	cols := append(append(make([]*coldata.Vec, 0, len(all.Cols)+len(res)), all.Cols[:o.NCols]...), res...)
	o.all = &coldata.Batch{Cols: cols, Len: all.Len}
	return nil
}

// Compute evaluates funcs over the rows of b and returns one result vector
// per function, in b's row order. Functions with the same window share one
// sort, or one hash of the partition keys when they are all aggregates
// over whole partitions (hashed.go).
func Compute(ctx context.Context, b *coldata.Batch, funcs []winspec.Func) ([]*coldata.Vec, error) {
	out := make([]*coldata.Vec, len(funcs))
	done := make([]bool, len(funcs))
	for i := range funcs {
		if done[i] {
			continue
		}
		group := []int{i}
		key := winspec.OrderIdentity(&funcs[i])
		for j := i + 1; j < len(funcs); j++ {
			if !done[j] && winspec.OrderIdentity(&funcs[j]) == key {
				group = append(group, j)
			}
		}
		if winspec.Hashed(funcs, i) {
			if err := computeHashed(ctx, b, funcs, group, out); err != nil {
				return nil, err
			}
			for _, j := range group {
				done[j] = true
			}
			continue
		}
		p, err := newPartitioned(ctx, b, funcs[i].Partition, funcs[i].Order)
		if err != nil {
			return nil, err
		}
		for _, j := range group {
			done[j] = true
			v, err := p.compute(ctx, b, &funcs[j])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", funcs[j].Kind, err)
			}
			out[j] = v
		}
	}
	return out, nil
}
