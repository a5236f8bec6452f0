package operators_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
)

func parallelInput(rows int) *operators.Scan {
	a := coldata.NewBuilder(coldata.Int64, rows)
	s := coldata.NewBuilder(coldata.String, rows)
	for i := 0; i < rows; i++ {
		a.AppendInt(int64(i))
		if i%7 == 0 {
			s.AppendNull()
		} else {
			s.AppendString(fmt.Sprintf("row %d", i))
		}
	}
	b := &coldata.Batch{Cols: []*coldata.Vec{a.Finish(), s.Finish()}, Len: rows}
	return &operators.Scan{Batches: []*coldata.Batch{b}, Cols: []int{0, 1}}
}

func bind(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	f, ok := expr.Lookup(name)
	if !ok {
		t.Fatalf("no %s", name)
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestParallelComputeMatchesSequential(t *testing.T) {
	a := &expr.ColumnRef{Index: 0, Name: "a", T: coldata.Int64}
	s := &expr.ColumnRef{Index: 1, Name: "s", T: coldata.String}
	// Keep rows whose a is not a multiple of 3, in batches some of which
	// lose every row (a < 70000 also drops the second batch's tail).
	pred := bind(t, "and", bind(t, "<>", bind(t, "%", a, &expr.Literal{Value: int64(3), T: coldata.Int64}), &expr.Literal{Value: int64(0), T: coldata.Int64}),
		bind(t, "or", bind(t, "<", a, &expr.Literal{Value: int64(70000), T: coldata.Int64}), bind(t, ">", a, &expr.Literal{Value: int64(200000), T: coldata.Int64})))
	exprs := []expr.Expr{bind(t, "upper", s), bind(t, "*", a, &expr.Literal{Value: int64(2), T: coldata.Int64})}
	rows := 5*operators.BatchSize + 123
	ctx := context.Background()
	want, err := operators.Drain(ctx, &operators.Project{Input: &operators.Filter{Input: parallelInput(rows), Pred: pred}, Exprs: exprs})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 4} {
		got, err := operators.Drain(ctx, &operators.ParallelCompute{Input: parallelInput(rows), Pred: pred, Exprs: exprs, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		w, g := coldata.Concat(want, 2), coldata.Concat(got, 2)
		if w.Len != g.Len {
			t.Fatalf("workers=%d: %d rows, want %d", workers, g.Len, w.Len)
		}
		for c := 0; c < 2; c++ {
			for i := 0; i < w.Len; i++ {
				if w.Cols[c].Value(i) != g.Cols[c].Value(i) {
					t.Fatalf("workers=%d row %d col %d: %v, want %v", workers, i, c, g.Cols[c].Value(i), w.Cols[c].Value(i))
				}
			}
		}
	}
}

func TestParallelComputeCancelAndClose(t *testing.T) {
	s := &expr.ColumnRef{Index: 1, Name: "s", T: coldata.String}
	p := &operators.ParallelCompute{Input: parallelInput(8 * operators.BatchSize), Exprs: []expr.Expr{bind(t, "reverse", s)}, Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if b, err := p.Next(ctx); err != nil || b == nil {
		t.Fatalf("first batch: %v %v", b, err)
	}
	cancel()
	for {
		b, err := p.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			break
		}
		if b == nil {
			t.Fatal("ended without the cancellation error")
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing early, without reading, must not leak or block.
	q := &operators.ParallelCompute{Input: parallelInput(8 * operators.BatchSize), Exprs: []expr.Expr{bind(t, "reverse", s)}, Workers: 2}
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}
