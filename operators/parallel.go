package operators

import (
	"context"
	"fmt"
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
	// Select, set before Open when every Exprs is a column reference, makes
	// NextSelection pass each batch's kept rows as a selection of the
	// batch's columns instead of gathering them: a sort that keeps a few
	// rows gathers only those (ClickBench Q24 kept 10 of the rows whose 105
	// columns the filter gathered).
	Select bool

	need   []bool         // the input columns Exprs read
	pred   *expr.Program  // Pred's (nil without one)
	warn   *expr.Warnings // the statement's warnings (Open's context)
	prog   *expr.Program  // Exprs'
	cancel context.CancelFunc
	order  chan chan parallelResult
	wg     sync.WaitGroup
	// owned remembers the returned batches' own buffers (release.go).
	owned ownedBatches
}

type parallelResult struct {
	b   *coldata.Batch
	sel []int // with Select: the rows of b kept (nil: all)
	// owned lists b's vectors that no input column shares: gathered by
	// the filter or computed, the result's own.
	owned []*coldata.Vec
	err   error
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
	p.prog = expr.NewProgram(p.Exprs)
	p.warn = expr.WarningsOf(ctx)
	p.pred = nil
	if p.Pred != nil {
		p.pred = expr.NewProgram([]expr.Expr{p.Pred})
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
	if p.Select {
		return p.selectRows(b)
	}
	in := b
	if p.pred != nil {
		// The selection is dead once the columns are gathered: pooled,
		// it is not 8 fresh bytes a row per batch.
		sel := intPool.get(b.Len)[:0]
		f, sel, err := filterColumns(p.pred, b, sel, p.need, p.warn)
		intPool.put(sel)
		if err != nil || f == nil {
			if err == nil {
				releaseInput(p.Input, in, nil) // no row kept
			}
			return parallelResult{err: err}
		}
		b = f
	}
	out, err := projectBatch(p.prog, b, p.warn)
	if err != nil {
		return parallelResult{err: err}
	}
	if b != in {
		// The columns the filter gathered are this goroutine's: those
		// that no output is (read only by computed expressions, as
		// TPC-H Q1's l_tax) are dead.
		coldata.RecycleUnshared(b.Cols, out.Cols)
	}
	var owned []*coldata.Vec
	for i, v := range out.Cols {
		// Gathered columns and the results of calls that keep nothing
		// (Program.Owned) are the result's own, unless they share an
		// input column's data.
		if (b != in || p.prog.Owned(i)) && coldata.Recyclable(v) && !sharesAny(v, in.Cols) {
			owned = append(owned, v)
		}
	}
	// The input batch is dead but for the columns the output passes on.
	releaseInput(p.Input, in, out.Cols)
	return parallelResult{b: out, owned: owned}
}

// releaseBatch implements batchReleaser.
func (p *ParallelCompute) releaseBatch(b *coldata.Batch, live []*coldata.Vec) {
	p.owned.release(b, live)
}

// selectRows is compute with Select: the kept rows of b's columns that
// Exprs (column references) name, as a view and a selection.
func (p *ParallelCompute) selectRows(b *coldata.Batch) parallelResult {
	cols := make([]*coldata.Vec, len(p.Exprs))
	for i, e := range p.Exprs {
		ref, ok := e.(*expr.ColumnRef)
		if !ok || ref.Index < 0 || ref.Index >= len(b.Cols) {
			return parallelResult{err: fmt.Errorf("selecting rows: output %d is not an input column", i)}
		}
		cols[i] = b.Cols[ref.Index]
	}
	view := &coldata.Batch{Cols: cols, Len: b.Len}
	if p.Pred == nil {
		return parallelResult{b: view}
	}
	// The selection lives until the consumer gathers.
	sel, all, err := selectTrue(p.pred, b, make([]int, 0, b.Len/8), p.warn)
	switch {
	case err != nil:
		return parallelResult{err: err}
	case all:
		return parallelResult{b: view}
	case len(sel) == 0:
		return parallelResult{}
	}
	return parallelResult{b: view, sel: sel}
}

// NextSelection returns the next batch as a batch and the rows of it that
// are the output (nil: all): with Select, the rows are not gathered.
func (p *ParallelCompute) NextSelection(ctx context.Context) (*coldata.Batch, []int, error) {
	r, err := p.nextResult(ctx)
	return r.b, r.sel, err
}

// Next implements Operator.
func (p *ParallelCompute) Next(ctx context.Context) (*coldata.Batch, error) {
	r, err := p.nextResult(ctx)
	if err != nil {
		return nil, err
	}
	if r.sel == nil {
		p.owned.add(r.b, r.owned)
		return r.b, nil
	}
	g := coldata.GatherBatch(r.b, r.sel)
	p.owned.add(g, ownedCols(g.Cols, r.b.Cols))
	return g, nil
}

// nextResult returns the next result with rows, in input order.
func (p *ParallelCompute) nextResult(ctx context.Context) (parallelResult, error) {
	for {
		var fut chan parallelResult
		var ok bool
		select {
		case fut, ok = <-p.order:
		case <-ctx.Done():
			return parallelResult{}, ctx.Err()
		}
		if !ok {
			return parallelResult{}, ctx.Err()
		}
		var r parallelResult
		select {
		case r = <-fut:
		case <-ctx.Done():
			return parallelResult{}, ctx.Err()
		}
		if r.err != nil || r.b != nil {
			return r, r.err
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
	p.owned.reset()
	return p.Input.Close()
}
