package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
)

// lifecycle is what host and device operators have in common.
type lifecycle interface {
	Open(ctx context.Context) error
	Close() error
}

// openAll opens every input, stopping at the first error.
func openAll[O lifecycle](ctx context.Context, ins []O) error {
	for _, in := range ins {
		if err := in.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// closeAll closes every input and returns the first error.
func closeAll[O lifecycle](ins []O) error {
	var first error
	for _, in := range ins {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// nextInTurn returns the next batch of input *cur, moving on to the next
// input when one is exhausted (the zero value at the very end).
func nextInTurn[B comparable](cur *int, n int, next func(i int) (B, error)) (B, error) {
	var none B
	for *cur < n {
		b, err := next(*cur)
		if err != nil {
			return none, err
		}
		if b != none {
			return b, nil
		}
		*cur++
	}
	return none, nil
}

// UnionAll produces the batches of each input in turn.
type UnionAll struct {
	Inputs []Operator
	cur    int
}

// Open implements Operator.
func (u *UnionAll) Open(ctx context.Context) error {
	u.cur = 0
	return openAll(ctx, u.Inputs)
}

// Next implements Operator.
func (u *UnionAll) Next(ctx context.Context) (*coldata.Batch, error) {
	return nextInTurn(&u.cur, len(u.Inputs), func(i int) (*coldata.Batch, error) { return u.Inputs[i].Next(ctx) })
}

// Close implements Operator.
func (u *UnionAll) Close() error { return closeAll(u.Inputs) }
