package operators

import (
	"context"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// ParallelCompute evaluates a filter (optional) and a projection over its
// input's batches on several goroutines and returns the results in input
// order. The input is read by one goroutine; the expression kernels are
// pure, so batches evaluate independently.
type ParallelCompute struct {
	Input   Operator
	Pred    expr.Expr // nil: no filter
	Exprs   []expr.Expr
	Workers int

	need   []bool // the input columns Exprs read
	cancel context.CancelFunc
	order  chan chan parallelResult
	wg     sync.WaitGroup
}

type parallelResult struct {
	b   *coldata.Batch
	err error
}

// Open implements Operator.
func (p *ParallelCompute) Open(ctx context.Context) error {
	if err := p.Input.Open(ctx); err != nil {
		return err
	}
	workers := max(p.Workers, 1)
	// A filtered batch gathers only the columns the projection reads.
	p.need = []bool{}
	for _, e := range p.Exprs {
		for c := range expr.Columns(e) {
			for len(p.need) <= c {
				p.need = append(p.need, false)
			}
			p.need[c] = true
		}
	}
	ctx, p.cancel = context.WithCancel(ctx)
	// Up to two batches per worker are in flight; the order channel keeps
	// their futures in input order.
	p.order = make(chan chan parallelResult, 2*workers)
	sem := make(chan struct{}, workers)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.order)
		for {
			b, err := p.Input.Next(ctx)
			fut := make(chan parallelResult, 1)
			if err != nil || b == nil {
				if err != nil {
					fut <- parallelResult{err: err}
					select {
					case p.order <- fut:
					case <-ctx.Done():
					}
				}
				return
			}
			select {
			case p.order <- fut:
			case <-ctx.Done():
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				fut <- parallelResult{err: ctx.Err()}
				return
			}
			p.wg.Add(1)
			go func(b *coldata.Batch) {
				defer p.wg.Done()
				defer func() { <-sem }()
				fut <- p.compute(b)
			}(b)
		}
	}()
	return nil
}

func (p *ParallelCompute) compute(b *coldata.Batch) parallelResult {
	if p.Pred != nil {
		// The selection is dead once the columns are gathered: pooled,
		// it is not 8 fresh bytes a row per batch.
		sel := intPool.get(b.Len)[:0]
		f, sel, err := filterColumns(p.Pred, b, sel, p.need)
		intPool.put(sel)
		if err != nil || f == nil {
			return parallelResult{err: err}
		}
		b = f
	}
	out, err := projectBatch(p.Exprs, b)
	return parallelResult{b: out, err: err}
}

// Next implements Operator.
func (p *ParallelCompute) Next(ctx context.Context) (*coldata.Batch, error) {
	for {
		var fut chan parallelResult
		var ok bool
		select {
		case fut, ok = <-p.order:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !ok {
			return nil, ctx.Err()
		}
		var r parallelResult
		select {
		case r = <-fut:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil || r.b != nil {
			return r.b, r.err
		}
		// Every row was filtered out: take the next batch.
	}
}

// Close implements Operator.
func (p *ParallelCompute) Close() error {
	if p.cancel != nil {
		p.cancel()
		// Drain so that the reader goroutine can finish.
		for range p.order {
		}
		p.wg.Wait()
		p.cancel = nil
	}
	return p.Input.Close()
}
