package operators

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

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
	// lend (LendSelections) is Select for a GROUP BY: outputs may be
	// constants too, and a batch whose kept rows are fewer than one in
	// 1<<selMinKeptShift is gathered here, on the workers, as without
	// Select (the aggregate would gather it on one goroutine). Its
	// selections come from intPool and go back when the batch does, and
	// the input batch a lent one views then goes back to the input.
	lend bool
	// noLend, set by the consumer while the workers run, turns lend off:
	// a GROUP BY gone partitioned gathers the rows of every batch.
	noLend atomic.Bool
	lent   struct {
		sync.Mutex
		views map[*coldata.Batch]lentView
	}

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

// lentView is what a batch lent as a view of an input batch holds.
type lentView struct {
	sel []int // from intPool (nil: all rows)
	in  *coldata.Batch
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
	var kept []int // the rows selectRows left to gather
	if p.Select {
		r, ok := p.selectRows(b)
		if ok {
			return r
		}
		kept = r.sel
	}
	in := b
	if p.pred != nil {
		// The selection is dead once the columns are gathered: pooled,
		// it is not 8 fresh bytes a row per batch.
		var f *coldata.Batch
		var err error
		if kept != nil {
			f = gatherColumns(b, kept, p.need)
		} else {
			sel := intPool.get(b.Len)[:0]
			f, sel, err = filterColumns(p.pred, b, sel, p.need, p.warn)
			kept = sel
		}
		intPool.put(kept)
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
	if p.lend {
		p.lent.Lock()
		lv, ok := p.lent.views[b]
		delete(p.lent.views, b)
		p.lent.Unlock()
		if ok {
			intPool.put(lv.sel)
			releaseInput(p.Input, lv.in, live)
			return
		}
	}
	p.owned.release(b, live)
}

// selectRows is compute with Select: the kept rows of b's columns that
// Exprs (column references, or constants with lend) name, as a view and
// a selection. With lend, a batch that keeps too few rows for its
// consumer to read them through a selection is left to compute (ok
// false).
func (p *ParallelCompute) selectRows(b *coldata.Batch) (_ parallelResult, ok bool) {
	cols := make([]*coldata.Vec, len(p.Exprs))
	for i, e := range p.Exprs {
		if lit, isLit := e.(*expr.Literal); isLit && p.lend {
			cols[i] = coldata.NewConst(lit.T, lit.Value, b.Len)
			continue
		}
		ref, isRef := e.(*expr.ColumnRef)
		if !isRef || ref.Index < 0 || ref.Index >= len(b.Cols) {
			return parallelResult{err: fmt.Errorf("selecting rows: output %d is not an input column", i)}, true
		}
		cols[i] = b.Cols[ref.Index]
	}
	view := &coldata.Batch{Cols: cols, Len: b.Len}
	if p.Pred == nil {
		return parallelResult{b: view}, true
	}
	// The selection lives until the consumer gathers (or, with lend,
	// hands the batch back).
	var sel []int
	if p.lend {
		sel = intPool.get(b.Len)[:0]
	} else {
		sel = make([]int, 0, b.Len/8)
	}
	sel, all, err := selectTrue(p.pred, b, sel, p.warn)
	switch {
	case err != nil:
		return parallelResult{err: err}, true
	case p.lend && !all && len(sel) > 0 && (len(sel)<<selMinKeptShift < b.Len || p.noLend.Load()):
		return parallelResult{sel: sel}, false // to gather
	case len(sel) == 0 && !all:
		if p.lend {
			intPool.put(sel)
			releaseInput(p.Input, b, nil)
		}
		return parallelResult{}, true
	case all:
		if !p.lend {
			return parallelResult{b: view}, true
		}
		intPool.put(sel)
		sel = nil
	}
	if p.lend {
		p.lent.Lock()
		if p.lent.views == nil {
			p.lent.views = map[*coldata.Batch]lentView{}
		}
		p.lent.views[view] = lentView{sel, b}
		p.lent.Unlock()
	}
	return parallelResult{b: view, sel: sel}, true
}

// NextSelection returns the next batch as a batch and the rows of it that
// are the output (nil: all): with Select, the rows are not gathered.
func (p *ParallelCompute) NextSelection(ctx context.Context) (*coldata.Batch, []int, error) {
	if !p.Select {
		// Next, which remembers the batch's own buffers for the
		// consumer to hand back.
		b, err := p.Next(ctx)
		return b, nil, err
	}
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
	if p.lend {
		p.releaseBatch(r.b, nil) // gathered: the view is dead
	}
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
	p.lent.Lock()
	p.lent.views = nil
	p.lent.Unlock()
	return p.Input.Close()
}
