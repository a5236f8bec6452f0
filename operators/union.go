package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
)

// UnionAll produces the batches of each input in turn.
type UnionAll struct {
	Inputs []Operator
	cur    int
}

// Open implements Operator.
func (u *UnionAll) Open(ctx context.Context) error {
	u.cur = 0
	for _, in := range u.Inputs {
		if err := in.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Next implements Operator.
func (u *UnionAll) Next(ctx context.Context) (*coldata.Batch, error) {
	for u.cur < len(u.Inputs) {
		b, err := u.Inputs[u.cur].Next(ctx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		u.cur++
	}
	return nil, nil
}

// Close implements Operator.
func (u *UnionAll) Close() error {
	var first error
	for _, in := range u.Inputs {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
