package window

import (
	"context"
	"errors"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// DeviceOperator computes window functions over device batches, the GPU
// form of Operator: the input stays on the device. When every partition
// and ORDER BY key is a type the device sorts and every frame one it
// computes (ROWS, or RANGE without offsets), the device sorts the keys
// and finds the partitions, peer groups and frames itself
// (gpuexec.SortWindow); otherwise only the keys travel to the host, which
// sorts them (as DeviceSort does) and finds them there. The functions
// run on the device (kernels/window.cu): positions for the ranking
// functions, a gather for LAG/LEAD/FIRST_VALUE/LAST_VALUE/NTH_VALUE, and
// segmented scans, prefix differences or short per-row loops for the
// aggregates (AVG of integers finished there as MySQL's DECIMAL). An aggregate the device has no form for (MIN/MAX of text or
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
	// hostOrders counts the orderings sorted on the host, hostAggs the
	// aggregates computed there (tests).
	hostOrders, hostAggs int
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
		ord, err := o.order(ctx, all, i)
		if err != nil {
			return nil, err
		}
		key := winspec.OrderIdentity(&o.Funcs[i])
		for j := i; j < len(o.Funcs); j++ {
			if done[j] || winspec.OrderIdentity(&o.Funcs[j]) != key {
				continue
			}
			done[j] = true
			b, err := o.compute(ctx, all, ord, &o.Funcs[j])
			if err != nil {
				ord.l.Release()
				return nil, fmt.Errorf("%s: %w", o.Funcs[j].Kind, err)
			}
			owners = append(owners, b)
			results[j] = b.Cols[0]
		}
		ord.l.Release()
	}
	cols := append(append([]gpuexec.DeviceVec(nil), all.Cols[:o.NCols]...), results...)
	return gpuexec.Combine(cols, all.Len, owners...)
}

// ordering is one window ordering: its layout on the device and the
// host's arrays of it (partitioned), which a layout built on the device
// has only once a host fallback asks for them (hostView).
type ordering struct {
	l *gpuexec.WindowLayout
	p *partitioned
	// device: the device sorted the keys, and computes the frames.
	device bool
}

// order builds the ordering of function i and of the later functions
// with the same partition and order keys: on the device when it sorts
// every key's type and computes every frame of those functions, else by
// sorting the keys on the host.
func (o *DeviceOperator) order(ctx context.Context, all *gpuexec.DeviceBatch, i int) (*ordering, error) {
	f := &o.Funcs[i]
	if o.deviceOrderable(all, i) {
		var keys []gpuexec.WindowKey
		for _, e := range f.Partition {
			// Partitions sort ascending, NULLs first (sortKeys).
			keys = append(keys, gpuexec.WindowKey{Col: all.Cols[colIndex(e)], NullsFirst: true})
		}
		for _, k := range f.Order {
			keys = append(keys, gpuexec.WindowKey{Col: all.Cols[colIndex(k.Expr)], Desc: k.Desc, NullsFirst: nullsFirst(k)})
		}
		l, err := o.RT.Dev.SortWindow(ctx, all.Len, keys, len(f.Partition))
		switch {
		case err == nil:
			o.launched(int64(l.Launches))
			return &ordering{l: l, device: true}, nil
		case !errors.Is(err, gpuexec.ErrLongTextKey):
			return nil, err
		}
		// A string past gpuexec.MaxTextSortBytes: the host sorts.
	}
	o.hostOrders++
	p, l, err := o.hostOrder(ctx, all, f)
	if err != nil {
		return nil, err
	}
	return &ordering{l: l, p: p}, nil
}

// hostOrderOnly makes every ordering sort on the host (benchmarks compare
// the two paths).
var hostOrderOnly = false

// nullsFirst is where k's NULLs sort (sortKeys' rule).
func nullsFirst(k winspec.Key) bool {
	if k.Nulls != opspec.NullsDefault {
		return k.Nulls == opspec.NullsFirst
	}
	return !k.Desc
}

// deviceOrderable reports whether the device builds function i's
// ordering: every key's type is one it sorts, and every frame of the
// functions sharing the ordering is one it computes (as the plan says,
// winspec.HostSortReason; the key columns' types are checked again here).
func (o *DeviceOperator) deviceOrderable(all *gpuexec.DeviceBatch, i int) bool {
	if hostOrderOnly || winspec.HostSortReason(o.Funcs, i) != "" {
		return false
	}
	f := &o.Funcs[i]
	for _, e := range f.Partition {
		if !gpuexec.WindowSortable(all.Cols[colIndex(e)].Type) {
			return false
		}
	}
	for _, k := range f.Order {
		if !gpuexec.WindowSortable(all.Cols[colIndex(k.Expr)].Type) {
			return false
		}
	}
	return true
}

// deviceFrame is frame fr as the device computes it: ROWS with
// non-negative integer offsets, or RANGE without offsets (a RANGE offset
// compares key values: the host computes it). ok is false for the others.
func deviceFrame(fr winspec.Frame) (rows bool, start, end gpuexec.WindowBound, ok bool) {
	rows = fr.Unit == winspec.Rows
	bound := func(b winspec.Bound) (gpuexec.WindowBound, bool) {
		switch b.Kind {
		case winspec.UnboundedPreceding:
			return gpuexec.WindowBound{Kind: gpuexec.WindowUnboundedPreceding}, true
		case winspec.UnboundedFollowing:
			return gpuexec.WindowBound{Kind: gpuexec.WindowUnboundedFollowing}, true
		case winspec.CurrentRow:
			return gpuexec.WindowBound{Kind: gpuexec.WindowCurrentRow}, true
		}
		k, isInt := b.Offset.(int64)
		if !rows || !isInt || k < 0 {
			return gpuexec.WindowBound{}, false
		}
		if b.Kind == winspec.Preceding {
			return gpuexec.WindowBound{Kind: gpuexec.WindowPreceding, Offset: k}, true
		}
		return gpuexec.WindowBound{Kind: gpuexec.WindowFollowing, Offset: k}, true
	}
	start, ok1 := bound(fr.Start)
	end, ok2 := bound(fr.End)
	return rows, start, end, ok1 && ok2
}

// hostOrder brings f's partition and order keys to the host, sorts the
// rows there and uploads the layout.
func (o *DeviceOperator) hostOrder(ctx context.Context, all *gpuexec.DeviceBatch, f *winspec.Func) (*partitioned, *gpuexec.WindowLayout, error) {
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

// hostView returns the ordering's host arrays, downloading a layout the
// device built the first time a host fallback needs them.
func (ord *ordering) hostView(ctx context.Context) (*partitioned, error) {
	if ord.p != nil {
		return ord.p, nil
	}
	perm, ps, pe, qs, qe, err := ord.l.Spans(ctx)
	if err != nil {
		return nil, err
	}
	p := &partitioned{n: len(ps), perm: perm, partStart: ps, partEnd: pe, peerStart: qs, peerEnd: qe}
	if perm != nil {
		p.inv = make([]int, len(perm))
		for pos, r := range perm {
			p.inv[r] = pos
		}
	}
	ord.p = p
	return p, nil
}

// frame is f's frame on the device and, for a host ordering, on the host
// (lo and hi; nil until needed for a device ordering).
func (o *DeviceOperator) frame(ord *ordering, f *winspec.Func) (fr *gpuexec.WindowFrame, lo, hi []int, err error) {
	if ord.device {
		rows, start, end, _ := deviceFrame(f.Frame)
		o.launched(1)
		fr, err = ord.l.FrameOf(rows, start, end)
		return fr, nil, nil, err
	}
	if lo, hi, err = ord.p.frames(f.Frame); err != nil {
		return nil, nil, nil, err
	}
	fr, err = ord.l.Frame(lo, hi)
	return fr, lo, hi, err
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
func (o *DeviceOperator) compute(ctx context.Context, all *gpuexec.DeviceBatch, ord *ordering, f *winspec.Func) (*gpuexec.DeviceBatch, error) {
	l := ord.l
	var fr *gpuexec.WindowFrame
	var lo, hi []int
	if f.Kind.UsesFrame() {
		var err error
		if fr, lo, hi, err = o.frame(ord, f); err != nil {
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
	// hostFrames brings a device ordering's arrays and frame to the host
	// for the decisions and fallbacks that read them.
	hostFrames := func() (*partitioned, error) {
		p, err := ord.hostView(ctx)
		if err != nil || lo != nil {
			return p, err
		}
		lo, hi, err = l.Bounds(ctx, fr)
		return p, err
	}
	mode, ok, decided := frameAggMode(f.Kind, arg.Type, f.Frame)
	if !decided {
		p, err := hostFrames()
		if err != nil {
			return nil, err
		}
		mode, ok = deviceAggMode(f.Kind, arg.Type, p.partStart, lo, hi)
	}
	if ok {
		o.launched(4)
		b, err := l.Aggregate(ctx, gpuexec.WindowAgg{Kind: k, Arg: arg, Frame: fr, Mode: mode, Out: f.Type})
		if !errors.Is(err, gpuexec.ErrWindowOverflow) {
			return b, err
		}
	}
	p, err := hostFrames()
	if err != nil {
		return nil, err
	}
	return o.onHost(ctx, all, p, f, arg, lo, hi)
}

// frameAggMode is deviceAggMode's choice where the kind, the argument's
// type and the frame's shape alone decide it (every frame starting at
// its partition's start runs as a segmented scan); decided is false when
// the frames themselves must be read.
func frameAggMode(k winspec.Kind, t coldata.Type, fr winspec.Frame) (mode gpuexec.WindowAggMode, ok, decided bool) {
	phys := t.Physical()
	switch {
	case k == winspec.Count:
		return gpuexec.WindowDiff, true, true
	case (k == winspec.Sum || k == winspec.Avg) && (phys == coldata.Int64 || phys == coldata.Bool):
		return gpuexec.WindowDiff, true, true
	case phys != coldata.Int64 && phys != coldata.Float64 && phys != coldata.Bool:
		return 0, false, true
	case fr.Start.Kind == winspec.UnboundedPreceding:
		return gpuexec.WindowRunning, true, true
	}
	if w, ok := rowsFrameWidth(fr); ok && w <= 32 {
		// At most 32 rows a frame is within the loop's bound whatever the
		// partitions (deviceAggMode would pick a scan only where every
		// frame happens to start its partition; both are exact for MIN
		// and MAX, and the loop adds DOUBLEs in row order as the CPU does).
		return gpuexec.WindowLoop, true, true
	}
	return 0, false, false
}

// rowsFrameWidth is the most rows a ROWS frame between offsets (or the
// current row) holds; ok is false for other frames.
func rowsFrameWidth(fr winspec.Frame) (int64, bool) {
	if fr.Unit != winspec.Rows {
		return 0, false
	}
	rel := func(b winspec.Bound) (int64, bool) {
		if b.Kind == winspec.CurrentRow {
			return 0, true
		}
		k, ok := b.Offset.(int64)
		switch {
		case !ok || k < 0 || k > 1<<32:
			return 0, false
		case b.Kind == winspec.Preceding:
			return -k, true
		case b.Kind == winspec.Following:
			return k, true
		}
		return 0, false
	}
	a, ok1 := rel(fr.Start)
	b, ok2 := rel(fr.End)
	if !ok1 || !ok2 {
		return 0, false
	}
	return max(0, b+1-a), true
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
	o.hostAggs++
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
