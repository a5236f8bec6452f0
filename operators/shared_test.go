package operators

import (
	"context"
	"errors"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// countingOp yields n one-row batches and counts its Opens.
type countingOp struct {
	n, i, opens int
	err         error
}

func (c *countingOp) Open(context.Context) error { c.opens++; c.i = 0; return nil }
func (c *countingOp) Next(context.Context) (*coldata.Batch, error) {
	if c.i >= c.n {
		return nil, c.err
	}
	c.i++
	b := coldata.NewBuilder(coldata.Int64, 1)
	b.AppendValue(int64(c.i))
	return coldata.NewBatch([]*coldata.Vec{b.Finish()}, 1), nil
}
func (c *countingOp) Close() error { return nil }

func TestSharedResult(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		n    int
		err  error
	}{
		{"rows", 3, nil},
		{"empty", 0, nil},
		{"error", 2, errors.New("boom")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &countingOp{n: tc.n, err: tc.err}
			sh := &SharedResult{Input: in}
			for r := 0; r < 3; r++ {
				s := &SharedScan{Src: sh}
				err := s.Open(ctx)
				if tc.err != nil {
					if !errors.Is(err, tc.err) {
						t.Fatalf("reader %d: err %v, want %v", r, err, tc.err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for {
					b, err := s.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if b == nil {
						break
					}
					got = append(got, b.Cols[0].Int(0))
				}
				s.Close()
				if len(got) != tc.n {
					t.Fatalf("reader %d: %v, want %d rows", r, got, tc.n)
				}
				for i, v := range got {
					if v != int64(i+1) {
						t.Fatalf("reader %d: %v", r, got)
					}
				}
			}
			if in.opens != 1 || sh.Runs.Load() != 1 {
				t.Errorf("input opened %d times, ran %d, want once", in.opens, sh.Runs.Load())
			}
		})
	}
}
