package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Scan produces stored batches, cut into slices of at most BatchSize rows and
// reduced to the needed columns. Slicing shares data.
type Scan struct {
	Batches []*coldata.Batch
	Cols    []int // columns to produce, in order
	bi, row int
}

// Open implements Operator.
func (s *Scan) Open(context.Context) error { s.bi, s.row = 0, 0; return nil }

// Next implements Operator.
func (s *Scan) Next(ctx context.Context) (*coldata.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for s.bi < len(s.Batches) {
		b := s.Batches[s.bi]
		if s.row >= b.Len {
			s.bi++
			s.row = 0
			continue
		}
		lo := s.row
		hi := min(lo+opspec.BatchSize, b.Len)
		if len(s.Cols) == 0 {
			// No column to slice: the rows are only counted.
			hi = b.Len
		}
		s.row = hi
		cols := make([]*coldata.Vec, len(s.Cols))
		for i, c := range s.Cols {
			cols[i] = coldata.Slice(b.Cols[c], lo, hi)
		}
		return &coldata.Batch{Cols: cols, Len: hi - lo}, nil
	}
	return nil, nil
}

// Close implements Operator.
func (s *Scan) Close() error { return nil }

// Values produces one fixed batch (SELECT without FROM, INSERT ... VALUES).
type Values struct {
	Batch *coldata.Batch
	done  bool
}

// Open implements Operator.
func (v *Values) Open(context.Context) error { v.done = false; return nil }

// Next implements Operator.
func (v *Values) Next(context.Context) (*coldata.Batch, error) {
	if v.done || v.Batch.Len == 0 {
		return nil, nil
	}
	v.done = true
	return v.Batch, nil
}

// Close implements Operator.
func (v *Values) Close() error { return nil }

// Filter keeps the rows for which Pred is TRUE (not FALSE, not NULL).
type Filter struct {
	Input Operator
	Pred  expr.Expr
	// Cols, when set, are the input columns the output keeps, in order:
	// only those are gathered.
	Cols []int
	sel  []int
	need []bool
	prog *expr.Program // Pred's
	// owned remembers the columns each returned batch gathered, for the
	// consumer to hand back (release.go).
	owned ownedBatches
	// lend, set by the consumer before Open (LendSelections), makes
	// NextSelection pass the kept rows of each input batch as a
	// selection of its columns, ungathered. lent is the last batch so
	// passed and the input batch it views, handed back to the input
	// when the consumer hands the view back.
	lend bool
	lent struct{ view, in *coldata.Batch }
}

// Open implements Operator.
func (f *Filter) Open(ctx context.Context) error {
	f.prog = expr.NewProgram([]expr.Expr{f.Pred})
	return f.Input.Open(ctx)
}

// Next implements Operator.
func (f *Filter) Next(ctx context.Context) (*coldata.Batch, error) {
	for {
		b, err := f.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		var out *coldata.Batch
		if f.prog == nil {
			f.prog = expr.NewProgram([]expr.Expr{f.Pred})
		}
		if f.Cols == nil {
			if out, f.sel, err = filterBatch(f.prog, b, f.sel, expr.WarningsOf(ctx)); err != nil {
				return nil, err
			}
			if out == nil {
				releaseInput(f.Input, b, nil) // no row kept
				continue
			}
			return f.pass(b, out), nil
		}
		if f.need == nil {
			f.need = make([]bool, len(b.Cols))
			for _, c := range f.Cols {
				f.need[c] = true
			}
		}
		if out, f.sel, err = filterColumns(f.prog, b, f.sel, f.need, expr.WarningsOf(ctx)); err != nil || out == nil {
			if err != nil {
				return nil, err
			}
			releaseInput(f.Input, b, nil)
			continue
		}
		cols := make([]*coldata.Vec, len(f.Cols))
		for i, c := range f.Cols {
			cols[i] = out.Cols[c]
		}
		return f.pass(b, &coldata.Batch{Cols: cols, Len: out.Len}), nil
	}
}

// NextSelection implements selectionSource. With lend set, it returns the
// input's next batch (its Cols, as a view) and the rows of it the
// predicate keeps (nil: all of them), without gathering them; the
// selection is the filter's scratch, valid until the next call. Without
// lend it is Next.
func (f *Filter) NextSelection(ctx context.Context) (*coldata.Batch, []int, error) {
	if !f.lend {
		b, err := f.Next(ctx)
		return b, nil, err
	}
	if f.prog == nil {
		f.prog = expr.NewProgram([]expr.Expr{f.Pred})
	}
	for {
		b, err := f.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, nil, err
		}
		var all bool
		if f.sel, all, err = selectTrue(f.prog, b, f.sel, expr.WarningsOf(ctx)); err != nil {
			return nil, nil, err
		}
		if !all && len(f.sel) == 0 {
			releaseInput(f.Input, b, nil) // no row kept
			continue
		}
		if b.Owner != nil {
			// Memory lent by the device goes back with the gathered
			// rows, as Next does.
			out, err := f.gathered(b, f.sel, all)
			return out, nil, err
		}
		view := b
		if f.Cols != nil {
			cols := make([]*coldata.Vec, len(f.Cols))
			for i, c := range f.Cols {
				cols[i] = b.Cols[c]
			}
			view = &coldata.Batch{Cols: cols, Len: b.Len}
		}
		f.lent.view, f.lent.in = view, b
		if all {
			return view, nil, nil
		}
		return view, f.sel, nil
	}
}

// gathered is Next's result for input batch b whose kept rows are sel
// (all: every row).
func (f *Filter) gathered(b *coldata.Batch, sel []int, all bool) (*coldata.Batch, error) {
	var out *coldata.Batch
	switch {
	case all:
		out = b
	case f.Cols == nil:
		out = coldata.GatherBatch(b, sel)
	default:
		cols := make([]*coldata.Vec, len(b.Cols))
		for _, c := range f.Cols {
			if cols[c] == nil {
				cols[c] = coldata.Gather(b.Cols[c], sel)
			}
		}
		out = &coldata.Batch{Cols: cols, Len: len(sel)}
	}
	if f.Cols != nil {
		cols := make([]*coldata.Vec, len(f.Cols))
		for i, c := range f.Cols {
			cols[i] = out.Cols[c]
		}
		out = &coldata.Batch{Cols: cols, Len: out.Len}
	}
	return f.pass(b, out), nil
}

// pass returns out, the rows of in that passed: the input is done with
// but for the vectors out still shows, and out's gathered vectors are the
// filter's to recycle when its consumer hands out back. A filter over a
// scan's batches fed a GROUP BY fresh memory for every batch (a third of
// a 200K-row random query's time clearing new pages).
func (f *Filter) pass(in, out *coldata.Batch) *coldata.Batch {
	f.owned.add(out, ownedCols(out.Cols, in.Cols))
	releaseInput(f.Input, in, out.Cols)
	return out
}

// releaseBatch implements batchReleaser. A view NextSelection lent hands
// its input batch back to the input.
func (f *Filter) releaseBatch(b *coldata.Batch, live []*coldata.Vec) {
	if b != nil && b == f.lent.view {
		in := f.lent.in
		f.lent.view, f.lent.in = nil, nil
		releaseInput(f.Input, in, live)
		return
	}
	f.owned.release(b, live)
}

// LendSelections makes op, when it is a (possibly instrumented) Filter,
// or a ParallelCompute with a filter whose outputs are input columns and
// constants, pass its kept rows as selections to a consumer that reads
// them with NextSelection and hands each batch back before it asks for
// the next (a HashAggregate); it reports whether op is such an operator.
// Call it before Open.
func LendSelections(op Operator) bool { return lendSelections(op, true) }

// stopLending makes op, a ParallelCompute LendSelections set lending,
// gather the rows of the batches its workers compute from now on.
func stopLending(op Operator) {
	if in, ok := op.(*instrumented); ok {
		op = in.Operator
	}
	if p, ok := op.(*ParallelCompute); ok {
		p.noLend.Store(true)
	}
}

// lendSelections is LendSelections, for a ParallelCompute only with
// parallel (a consumer that reads every batch through its selection:
// one that would gather them itself is better served by the workers).
func lendSelections(op Operator, parallel bool) bool {
	if in, ok := op.(*instrumented); ok {
		op = in.Operator
	}
	switch x := op.(type) {
	case *Filter:
		x.lend = true
		return true
	case *ParallelCompute:
		if !parallel || x.Pred == nil {
			return false
		}
		for _, e := range x.Exprs {
			switch e.(type) {
			case *expr.ColumnRef, *expr.Literal:
			default:
				return false
			}
		}
		x.Select, x.lend = true, true
		return true
	}
	return false
}

// filterBatch keeps the rows of b where pred (a program of one
// expression) is TRUE, or returns nil when none is; sel is scratch for the
// selection; w takes the statement's warnings.
func filterBatch(pred *expr.Program, b *coldata.Batch, sel []int, w *expr.Warnings) (*coldata.Batch, []int, error) {
	return filterColumns(pred, b, sel, nil, w)
}

// filterColumns is filterBatch gathering only the columns need marks (nil:
// all of them); the others become constant NULLs of their type, for a
// consumer that reads only the marked columns.
func filterColumns(pred *expr.Program, b *coldata.Batch, sel []int, need []bool, w *expr.Warnings) (*coldata.Batch, []int, error) {
	sel, all, err := selectTrue(pred, b, sel, w)
	if err != nil {
		return nil, sel, err
	}
	switch {
	case all:
		return b, sel, nil
	case len(sel) == 0:
		return nil, sel, nil
	}
	return gatherColumns(b, sel, need), sel, nil
}

// gatherColumns returns rows sel of b's columns that need marks (nil: all
// of them), the others as constant NULLs of their type.
func gatherColumns(b *coldata.Batch, sel []int, need []bool) *coldata.Batch {
	if need == nil {
		return coldata.GatherBatch(b, sel)
	}
	cols := make([]*coldata.Vec, len(b.Cols))
	for i, c := range b.Cols {
		if i < len(need) && need[i] {
			cols[i] = coldata.Gather(c, sel)
		} else {
			cols[i] = coldata.NewConst(c.Type, nil, len(sel))
		}
	}
	return &coldata.Batch{Cols: cols, Len: len(sel)}
}

// selectTrue evaluates pred over b and returns the rows where it is TRUE
// appended to sel[:0], or all when every row is (sel then says nothing).
func selectTrue(pred *expr.Program, b *coldata.Batch, sel []int, w *expr.Warnings) (_ []int, all bool, _ error) {
	res, err := pred.EvalWarn(b, w)
	if err != nil {
		return sel, false, err
	}
	mask := res[0]
	if mask.Const {
		return sel[:0], !mask.IsNull(0) && mask.Bool(0), nil
	}
	sel = expr.AppendTrue(sel[:0], mask.Bools[:b.Len], mask.Nulls)
	// The mask is dead once read, unless it is (or shares) a column of b.
	if pred.Owned(0) {
		coldata.RecycleUnshared(res, b.Cols)
	}
	return sel, len(sel) == b.Len && b.Len > 0, nil
}

// Close implements Operator.
func (f *Filter) Close() error {
	f.owned.reset()
	f.lent.view, f.lent.in = nil, nil
	return f.Input.Close()
}

// Project computes one output column per expression.
type Project struct {
	Input Operator
	Exprs []expr.Expr
	prog  *expr.Program
}

// Open implements Operator.
func (p *Project) Open(ctx context.Context) error {
	p.prog = expr.NewProgram(p.Exprs)
	return p.Input.Open(ctx)
}

// Next implements Operator.
func (p *Project) Next(ctx context.Context) (*coldata.Batch, error) {
	b, err := p.Input.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	if p.prog == nil {
		p.prog = expr.NewProgram(p.Exprs)
	}
	return projectBatch(p.prog, b, expr.WarningsOf(ctx))
}

// projectBatch evaluates one output column per expression of prog,
// adding the warnings MySQL gives to w.
func projectBatch(prog *expr.Program, b *coldata.Batch, w *expr.Warnings) (*coldata.Batch, error) {
	cols, err := prog.EvalWarn(b, w)
	if err != nil {
		return nil, err
	}
	return &coldata.Batch{Cols: cols, Len: b.Len}, nil
}

// Close implements Operator.
func (p *Project) Close() error { return p.Input.Close() }

// limitWindow tracks LIMIT/OFFSET over a stream of batches; the host and
// device limits share it.
type limitWindow struct {
	Count, Offset int64
	seen, emitted int64
}

func (w *limitWindow) reset() { w.seen, w.emitted = 0, 0 }

// full reports whether every row the limit keeps has been passed.
func (w *limitWindow) full() bool { return w.Count >= 0 && w.emitted >= w.Count }

// cut returns the rows [lo, hi) of the next batch of n rows to keep.
func (w *limitWindow) cut(n int) (lo, hi int) {
	l, h := int64(0), int64(n)
	if w.seen < w.Offset {
		l = min(w.Offset-w.seen, h)
	}
	w.seen += int64(n)
	if w.Count >= 0 {
		h = min(h, l+w.Count-w.emitted)
	}
	if h <= l {
		return 0, 0
	}
	w.emitted += h - l
	return int(l), int(h)
}

// Limit skips Offset rows and then passes at most Count rows (Count < 0: all).
type Limit struct {
	Input Operator
	limitWindow
}

// NewLimit returns a limit over input.
func NewLimit(input Operator, count, offset int64) *Limit {
	return &Limit{Input: input, limitWindow: limitWindow{Count: count, Offset: offset}}
}

// Open implements Operator.
func (l *Limit) Open(ctx context.Context) error {
	l.reset()
	return l.Input.Open(ctx)
}

// Next implements Operator.
func (l *Limit) Next(ctx context.Context) (*coldata.Batch, error) {
	for !l.full() {
		b, err := l.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		lo, hi := l.cut(b.Len)
		switch {
		case hi == lo:
			b.ReleaseOwner()
			continue
		case lo == 0 && hi == b.Len:
			return b, nil
		}
		out := coldata.SliceBatch(b, lo, hi)
		out.Owner = b.Owner // the slice may share the owned memory
		return out, nil
	}
	return nil, nil
}

// Close implements Operator.
func (l *Limit) Close() error { return l.Input.Close() }

// Materialized produces a fixed list of batches (results computed earlier).
type Materialized struct {
	Batches []*coldata.Batch
	i       int
}

// Open implements Operator.
func (m *Materialized) Open(context.Context) error { m.i = 0; return nil }

// Next implements Operator.
func (m *Materialized) Next(ctx context.Context) (*coldata.Batch, error) {
	for m.i < len(m.Batches) {
		b := m.Batches[m.i]
		m.i++
		if b.Len > 0 {
			return b, nil
		}
	}
	return nil, nil
}

// Close implements Operator.
func (m *Materialized) Close() error { return nil }
