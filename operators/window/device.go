package window

import (
	"context"
	"errors"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// DeviceOperator computes window functions over device batches, the GPU
// form of Operator: the input stays on the device, and only the partition
// and ORDER BY keys travel to the host, which sorts them (as DeviceSort
// does) and finds the partitions, peer groups and frames. The functions
// run on the device (kernels/window.cu): positions for the ranking
// functions, a gather for LAG/LEAD/FIRST_VALUE/LAST_VALUE/NTH_VALUE, and
// segmented scans, prefix differences or short per-row loops for the
// aggregates. An aggregate the device has no form for (MIN/MAX of text or
// DECIMAL, a DOUBLE sum over long moving frames, an integer sum near the
// BIGINT limit) brings its argument to the host and runs Operator's code.
//
// Funcs refer to the input's columns by ColumnRef only (the planner
// computes other expressions below); the output is the input's first
// NCols columns followed by one column per function, in input row order.
type DeviceOperator struct {
	Input operators.DeviceOperator
	RT    *operators.DeviceRuntime
	NCols int
	Funcs []winspec.Func
	Stats *operators.Stats

	done    bool
	gathers map[coldata.Type]operators.Gatherer
}

// Open implements operators.DeviceOperator.
func (o *DeviceOperator) Open(ctx context.Context) error {
	o.done = false
	for i := range o.Funcs {
		if err := o.check(&o.Funcs[i]); err != nil {
			return err
		}
	}
	return o.Input.Open(ctx)
}

// check rejects a function whose expressions are not column references.
func (o *DeviceOperator) check(f *winspec.Func) error {
	exprs := append(append([]expr.Expr(nil), f.Args...), f.Partition...)
	for _, k := range f.Order {
		exprs = append(exprs, k.Expr)
	}
	for _, e := range exprs {
		if _, ok := e.(*expr.ColumnRef); !ok {
			return fmt.Errorf("internal error: device window over %s, not a column", e)
		}
	}
	return nil
}

// Close implements operators.DeviceOperator.
func (o *DeviceOperator) Close() error {
	for _, g := range o.gathers {
		g.Release()
	}
	o.gathers = nil
	return o.Input.Close()
}

func colIndex(e expr.Expr) int { return e.(*expr.ColumnRef).Index }

// NextDevice implements operators.DeviceOperator.
func (o *DeviceOperator) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if o.done {
		return nil, nil
	}
	o.done = true
	dev := o.RT.Dev
	var parts []*gpuexec.DeviceBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	rows := 0
	for {
		b, err := o.Input.NextDevice(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		rows += b.Len
		parts = append(parts, b)
	}
	if rows == 0 {
		return nil, nil
	}
	all := parts[0]
	if len(parts) > 1 {
		c, err := dev.Concatenate(parts)
		if err != nil {
			return nil, err
		}
		parts = append(parts, c)
		all = c
	}
	results := make([]gpuexec.DeviceVec, len(o.Funcs))
	owners := []*gpuexec.DeviceBatch{all}
	defer func() {
		for _, b := range owners[1:] {
			b.Release()
		}
	}()
	done := make([]bool, len(o.Funcs))
	for i := range o.Funcs {
		if done[i] {
			continue
		}
		if winspec.DeviceHashed(o.Funcs, i) { // no sort (device_hashed.go)
			b, err := o.hashed(ctx, all, i, done, results)
			if err != nil {
				return nil, err
			}
			if b != nil {
				owners = append(owners, b)
				continue
			}
		}
		p, layout, err := o.order(ctx, all, &o.Funcs[i])
		if err != nil {
			return nil, err
		}
		key := winspec.OrderIdentity(&o.Funcs[i])
		for j := i; j < len(o.Funcs); j++ {
			if done[j] || winspec.OrderIdentity(&o.Funcs[j]) != key {
				continue
			}
			done[j] = true
			b, err := o.compute(ctx, all, p, layout, &o.Funcs[j])
			if err != nil {
				layout.Release()
				return nil, fmt.Errorf("%s: %w", o.Funcs[j].Kind, err)
			}
			owners = append(owners, b)
			results[j] = b.Cols[0]
		}
		layout.Release()
	}
	cols := append(append([]gpuexec.DeviceVec(nil), all.Cols[:o.NCols]...), results...)
	return gpuexec.Combine(cols, all.Len, owners...)
}

// order brings f's partition and order keys to the host, sorts the rows
// there and uploads the layout.
func (o *DeviceOperator) order(ctx context.Context, all *gpuexec.DeviceBatch, f *winspec.Func) (*partitioned, *gpuexec.WindowLayout, error) {
	var cols []gpuexec.DeviceVec
	at := map[int]int{} // input column -> key batch column
	ref := func(e expr.Expr) expr.Expr {
		c := colIndex(e)
		k, ok := at[c]
		if !ok {
			k = len(cols)
			at[c] = k
			cols = append(cols, all.Cols[c])
		}
		return &expr.ColumnRef{Index: k, Name: e.String(), T: e.Type()}
	}
	var partition []expr.Expr
	for _, e := range f.Partition {
		partition = append(partition, ref(e))
	}
	var keys []winspec.Key
	for _, k := range f.Order {
		keys = append(keys, winspec.Key{Expr: ref(k.Expr), Desc: k.Desc, Nulls: k.Nulls})
	}
	hk := &coldata.Batch{Len: all.Len}
	if len(cols) > 0 {
		kb, err := gpuexec.Combine(cols, all.Len, all)
		if err != nil {
			return nil, nil, err
		}
		hk, err = o.RT.Dev.Download(ctx, kb)
		kb.Release()
		if err != nil {
			return nil, nil, err
		}
	}
	p, err := newPartitioned(ctx, hk, partition, keys)
	if err != nil {
		return nil, nil, err
	}
	l, err := o.RT.Dev.NewWindowLayout(ctx, p.perm, p.partStart, p.partEnd, p.peerStart, p.peerEnd)
	if err != nil {
		return nil, nil, err
	}
	return p, l, nil
}

var rankKinds = map[winspec.Kind]gpuexec.WindowRank{
	winspec.RowNumber: gpuexec.WindowRowNumber, winspec.Rank: gpuexec.WindowRankOf, winspec.DenseRank: gpuexec.WindowDenseRank,
	winspec.Ntile: gpuexec.WindowNtile, winspec.PercentRank: gpuexec.WindowPercentRank, winspec.CumeDist: gpuexec.WindowCumeDist,
	winspec.CountStar: gpuexec.WindowCountStar,
}

var valueKinds = map[winspec.Kind]gpuexec.WindowValue{
	winspec.Lag: gpuexec.WindowLag, winspec.Lead: gpuexec.WindowLead, winspec.FirstValue: gpuexec.WindowFirstValue,
	winspec.LastValue: gpuexec.WindowLastValue, winspec.NthValue: gpuexec.WindowNthValue,
}

var aggKinds = map[winspec.Kind]gpuexec.WindowAggKind{
	winspec.Count: gpuexec.WindowCount, winspec.Sum: gpuexec.WindowSum, winspec.Avg: gpuexec.WindowAvg,
	winspec.Min: gpuexec.WindowMin, winspec.Max: gpuexec.WindowMax,
}

// compute evaluates one function; the result is a one-column batch in
// input row order.
func (o *DeviceOperator) compute(ctx context.Context, all *gpuexec.DeviceBatch, p *partitioned, l *gpuexec.WindowLayout, f *winspec.Func) (*gpuexec.DeviceBatch, error) {
	var fr *gpuexec.WindowFrame
	var lo, hi []int
	if f.Kind.UsesFrame() {
		var err error
		if lo, hi, err = p.frames(f.Frame); err != nil {
			return nil, err
		}
		if fr, err = l.Frame(lo, hi); err != nil {
			return nil, err
		}
	}
	o.launched(1)
	if k, ok := rankKinds[f.Kind]; ok {
		if f.Kind == winspec.Ntile && f.N <= 0 {
			return nil, fmt.Errorf("NTILE needs a positive number of buckets, got %d", f.N)
		}
		return l.Rank(ctx, k, f.N, fr)
	}
	if k, ok := valueKinds[f.Kind]; ok {
		return o.value(ctx, all, l, k, f, fr)
	}
	k, ok := aggKinds[f.Kind]
	if !ok {
		return nil, fmt.Errorf("internal error: window function %s on the device", f.Kind)
	}
	arg := all.Cols[colIndex(f.Args[0])]
	if mode, ok := deviceAggMode(f.Kind, arg.Type, p.partStart, lo, hi); ok {
		o.launched(4)
		b, err := l.Aggregate(ctx, gpuexec.WindowAgg{Kind: k, Arg: arg, Frame: fr, Mode: mode, Out: f.Type})
		if !errors.Is(err, gpuexec.ErrWindowOverflow) {
			return b, err
		}
	}
	return o.onHost(ctx, all, p, f, arg, lo, hi)
}

// deviceAggMode picks how the device covers an aggregate's frames; ok is
// false when it has no form for it (the host computes it).
func deviceAggMode(k winspec.Kind, t coldata.Type, partStart, lo, hi []int) (gpuexec.WindowAggMode, bool) {
	phys := t.Physical()
	switch {
	case k == winspec.Count:
		return gpuexec.WindowDiff, true
	case (k == winspec.Sum || k == winspec.Avg) && (phys == coldata.Int64 || phys == coldata.Bool):
		return gpuexec.WindowDiff, true
	case phys != coldata.Int64 && phys != coldata.Float64 && phys != coldata.Bool:
		return 0, false
	}
	running, work := true, 0
	for i := range lo {
		running = running && lo[i] == partStart[i]
		work += hi[i] - lo[i]
	}
	switch {
	case running:
		return gpuexec.WindowRunning, true
	case work <= 32*len(lo)+1<<20:
		// The CPU's bound for summing frames row by row.
		return gpuexec.WindowLoop, true
	}
	return 0, false
}

// value gathers LAG/LEAD/FIRST_VALUE/LAST_VALUE/NTH_VALUE's rows: the
// argument column followed by LAG/LEAD's per-row default, or one NULL row.
func (o *DeviceOperator) value(ctx context.Context, all *gpuexec.DeviceBatch, l *gpuexec.WindowLayout, k gpuexec.WindowValue, f *winspec.Func, fr *gpuexec.WindowFrame) (*gpuexec.DeviceBatch, error) {
	dev := o.RT.Dev
	n := all.Len
	argB, err := gpuexec.Combine([]gpuexec.DeviceVec{all.Cols[colIndex(f.Args[0])]}, n, all)
	if err != nil {
		return nil, err
	}
	defer argB.Release()
	perRow := len(f.Args) > 1 && (f.Kind == winspec.Lag || f.Kind == winspec.Lead)
	var extra *gpuexec.DeviceBatch
	if perRow {
		extra, err = gpuexec.Combine([]gpuexec.DeviceVec{all.Cols[colIndex(f.Args[1])]}, n, all)
	} else {
		bld := coldata.NewBuilder(f.Type, 1)
		bld.AppendNull()
		extra, err = dev.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{bld.Finish()}, Len: 1})
	}
	if err != nil {
		return nil, err
	}
	defer extra.Release()
	src, err := dev.Concatenate([]*gpuexec.DeviceBatch{argB, extra})
	if err != nil {
		return nil, err
	}
	defer src.Release()
	nArg := f.N
	if f.Kind == winspec.Lag || f.Kind == winspec.Lead {
		nArg = min(f.N, int64(n))
	}
	idx, err := l.ValueIndex(ctx, k, nArg, fr, int64(n), perRow)
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	g, err := o.gatherOf(f.Type)
	if err != nil {
		return nil, err
	}
	out, err := g.RunGather(ctx, src, idx.Ptr(), n)
	if err != nil {
		return nil, err
	}
	// The gather reads idx and src in flight.
	if err := dev.Synchronize(); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

func (o *DeviceOperator) gatherOf(t coldata.Type) (operators.Gatherer, error) {
	if g, ok := o.gathers[t]; ok {
		return g, nil
	}
	g, err := operators.PrepareGather(o.RT.Dev, []coldata.Type{t}, o.Stats)
	if err != nil {
		return nil, err
	}
	if o.gathers == nil {
		o.gathers = map[coldata.Type]operators.Gatherer{}
	}
	o.gathers[t] = g
	return g, nil
}

// onHost computes an aggregate with Operator's code: the argument comes
// to the host, the result goes back.
func (o *DeviceOperator) onHost(ctx context.Context, all *gpuexec.DeviceBatch, p *partitioned, f *winspec.Func, arg gpuexec.DeviceVec, lo, hi []int) (*gpuexec.DeviceBatch, error) {
	ab, err := gpuexec.Combine([]gpuexec.DeviceVec{arg}, all.Len, all)
	if err != nil {
		return nil, err
	}
	hb, err := o.RT.Dev.Download(ctx, ab)
	ab.Release()
	if err != nil {
		return nil, err
	}
	res, err := aggregate(f.Kind, f.Type, p.gather(hb.Cols[0]), p.partStart, lo, hi)
	if err != nil {
		return nil, err
	}
	return o.RT.Dev.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{p.scatter(res)}, Len: all.Len})
}

func (o *DeviceOperator) launched(n int64) {
	if o.Stats != nil {
		o.Stats.Launches.Add(n)
	}
}
