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

// TestSharedResultsAcrossTrees: SharedResults with one key in one
// statement store (the operator trees of a statement's subqueries and of
// its plan) run the input once; a failed run is not kept, so the next
// tree runs its own; without a store, or once it is closed, each tree
// runs its own.
func TestSharedResultsAcrossTrees(t *testing.T) {
	read := func(ctx context.Context, sh *SharedResult) (int, error) {
		s := &SharedScan{Src: sh}
		defer s.Close()
		if err := s.Open(ctx); err != nil {
			return 0, err
		}
		n := 0
		for {
			b, err := s.Next(ctx)
			if err != nil || b == nil {
				return n, err
			}
			n += b.Len
		}
	}
	key := new(int)
	ctx, store := WithSharedResults(context.Background())
	if inner, none := WithSharedResults(ctx); inner != ctx || none != nil {
		t.Fatal("a nested statement made a store of its own")
	}
	first, second := &countingOp{n: 3}, &countingOp{n: 3}
	a, b := &SharedResult{Input: first, Key: key}, &SharedResult{Input: second, Key: key}
	for _, sh := range []*SharedResult{a, b, b} {
		if n, err := read(ctx, sh); err != nil || n != 3 {
			t.Fatalf("read %d rows, %v", n, err)
		}
	}
	if first.opens != 1 || second.opens != 0 {
		t.Fatalf("inputs opened %d and %d times, want 1 and 0", first.opens, second.opens)
	}
	if ok, rows, _ := b.Reused(); !ok || rows != 3 {
		t.Fatalf("Reused() = %v, %d", ok, rows)
	}

	// A failed run is dropped: the next tree runs its own input.
	ctx2, store2 := WithSharedResults(context.Background())
	boom := errors.New("boom")
	bad, good := &SharedResult{Input: &countingOp{n: 1, err: boom}, Key: key}, &SharedResult{Input: &countingOp{n: 2}, Key: key}
	if _, err := read(ctx2, bad); !errors.Is(err, boom) {
		t.Fatalf("failed run: %v", err)
	}
	if n, err := read(ctx2, good); err != nil || n != 2 {
		t.Fatalf("after a failed run: %d rows, %v", n, err)
	}
	store2.Close()

	// A closed store shares nothing.
	store.Close()
	c := &SharedResult{Input: &countingOp{n: 1}, Key: key}
	if n, err := read(ctx, c); err != nil || n != 1 || c.Runs.Load() != 1 {
		t.Fatalf("closed store: %d rows, %v, %d runs", n, err, c.Runs.Load())
	}
}
