package execbuild

import (
	"fmt"
	"maps"
	"math"
	"runtime"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/operators/window"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/planner"
)

// Built is an executable operator tree with per-node statistics.
type Built struct {
	Root  operators.Operator
	Stats map[planner.Node]*operators.Stats
	// GPU is the runtime device operators use (nil: CPU only): the
	// database's, through a handle of this query's (ForQuery).
	GPU *operators.DeviceRuntime
	// Waits counts what the query waited for on the shared device (nil
	// without a GPU); EXPLAIN ANALYZE prints it.
	Waits *gpuexec.Waits
	// Strict makes GPU operators fail rather than fall back.
	Strict bool
	// MemoryLimit caps the state of each GROUP BY and join (0: none).
	MemoryLimit uint64
	// TempDir is where a GROUP BY or join past MemoryLimit spills ("":
	// the system's temporary directory).
	TempDir string
	// Segments counts the records each CPU scan read and skipped by zone
	// maps (EXPLAIN ANALYZE).
	Segments map[planner.Node]*ScanSegments
	// prune holds the filter directly above each scan.
	prune map[*planner.Scan]expr.Expr
	// sortLimit holds the rows a LIMIT reads of the sort below it.
	sortLimit map[*planner.Sort]int64
	// aggLimit holds the groups a LIMIT without ORDER BY reads of the
	// aggregate below it (through projections).
	aggLimit map[*planner.Aggregate]int64
	// aggTop holds the groups an ORDER BY ... LIMIT reads of the GROUP BY
	// (an *Aggregate or a *DeviceAggregate) below it.
	aggTop map[planner.Node]*opspec.TopGroups
	// countedScans are scans of no column under an aggregate without
	// keys: their rows come as few batches as possible (rowCounts).
	countedScans map[*planner.Scan]bool
	// shared holds each shared CTE's operator by its CTERef.Key (cte.go).
	shared map[any]*operators.SharedResult
	// cteBody is the reference whose body was built, by key (cte.go).
	cteBody map[any]*planner.CTERef
	// work holds the working table of each recursive CTE by its WorkKey
	// (cte.go).
	work map[any]*operators.WorkTable
	// devs are the runtimes of a plan spread over several GPUs (devs[0]
	// is GPU's device); on is the one device operators are built for now
	// (exchange.go).
	devs  []*operators.DeviceRuntime
	on    int
	group *exchange.Group
	exch  map[*planner.Exchange]*operators.ExchangeSource
	// perDevice holds, in a spread build, each device operator's
	// statistics by node and device (nodeStats).
	perDevice map[planner.Node][]*operators.Stats
	twins     bool
}

// BuildOptions configure Build.
type BuildOptions struct {
	GPU         *operators.DeviceRuntime
	Strict      bool
	MemoryLimit uint64
	TempDir     string
	// Devices are the runtimes of every GPU a plan may spread over
	// (planner.Distribute), Devices[0] on GPU's device; Transport moves
	// batches between them and Split cuts batches by key hash (nil:
	// on the device).
	Devices   []*operators.DeviceRuntime
	Transport exchange.Transport
	Split     exchange.Splitter
	// HostTwins runs the device operators that launch generated kernels
	// (filters and projections, GROUP BY, joins, sorts) as their host
	// operators between a download and an upload: for the multi-device
	// tests over the fake driver, which runs no generated kernels; never
	// for queries.
	HostTwins bool
}

// Build turns a plan into operators. Plans with GPU nodes need rt.
func Build(n planner.Node, rt *operators.DeviceRuntime, strict bool) (*Built, error) {
	return BuildWith(n, BuildOptions{GPU: rt, Strict: strict})
}

// BuildWith is Build with every option.
func BuildWith(n planner.Node, o BuildOptions) (*Built, error) {
	b := &Built{Stats: map[planner.Node]*operators.Stats{}, GPU: o.GPU, Strict: o.Strict, MemoryLimit: o.MemoryLimit, TempDir: o.TempDir,
		Segments: map[planner.Node]*ScanSegments{}, prune: map[*planner.Scan]expr.Expr{}}
	if o.GPU != nil {
		b.Waits = &gpuexec.Waits{}
		b.GPU = o.GPU.ForQuery(b.Waits)
		b.twins = o.HostTwins
		if err := b.spreadOver(o); err != nil {
			return nil, err
		}
	}
	filtersOverScans(n, b.prune)
	root, err := b.build(n)
	if err != nil {
		return nil, err
	}
	b.Root = root
	return b, nil
}

func (b *Built) build(n planner.Node) (operators.Operator, error) {
	if n.Placement() == planner.GPU {
		return nil, fmt.Errorf("internal error: %T on the GPU without a DeviceToHost above it", n)
	}
	var op operators.Operator
	var fused planner.Node // a node op computes besides n
	switch x := n.(type) {
	case *planner.Scan:
		batches, err := b.scanBatches(x)
		if err != nil {
			return nil, err
		}
		if len(x.Cols) == 0 && b.countedScans[x] {
			batches = rowCounts(batches)
		}
		op = &operators.Scan{Batches: batches, Cols: x.Cols}
	case *planner.Values:
		batch, err := valuesBatch(x)
		if err != nil {
			return nil, err
		}
		op = &operators.Values{Batch: batch}
	case *planner.Filter:
		if par := b.parallelFilter(x); par != nil {
			return par, nil
		}
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Filter{Input: in, Pred: x.Pred}
	case *planner.Project:
		if par := b.parallel(x); par != nil {
			return par, nil
		}
		if f, cols := columnsOfFilter(x); f != nil {
			in, err := b.build(f.Input)
			if err != nil {
				return nil, err
			}
			op, fused = &operators.Filter{Input: in, Pred: f.Pred, Cols: cols}, f
			break
		}
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Project{Input: in, Exprs: x.Exprs}
	case *planner.Sort:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		if b.sortLimit[x] > 0 {
			// A filter below passes its kept rows ungathered; the sort
			// gathers only the LIMIT's rows.
			operators.SelectRowsOf(in, x.Keys)
		}
		op = &operators.Sort{Input: in, Keys: x.Keys, NCols: len(x.Columns()), Limit: b.sortLimit[x]}
	case *planner.Limit:
		b.noteSortLimit(x)
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = operators.NewLimit(in, x.Count, x.Offset)
	case *planner.Distinct:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.Distinct{Input: in}
	case *planner.Join:
		l, err := b.build(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := b.build(x.Right)
		if err != nil {
			return nil, err
		}
		join := &operators.HashJoin{Left: l, Right: r, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys,
			Cond: x.Cond, Kind: x.Kind, LeftCols: len(x.Left.Columns()), RightTypes: columnTypes(x.Right.Columns()), MemoryLimit: b.MemoryLimit,
			Parallel: allOnCPU(x.Left) && allOnCPU(x.Right)}
		op = join
		if b.MemoryLimit > 0 && len(x.LeftKeys) > 0 {
			// Past the limit, both sides go to disk by partition.
			op = &operators.SpillJoin{Join: join, Dir: b.TempDir}
		}
	case *planner.CTERef:
		sh, err := b.sharedResult(x)
		if err != nil {
			return nil, err
		}
		op = &operators.SharedScan{Src: sh}
	case *planner.Recursive:
		r, err := b.buildRecursive(x)
		if err != nil {
			return nil, err
		}
		op = r
	case *planner.WorkScan:
		wt, ok := b.work[x.WorkKey()]
		if !ok {
			return nil, fmt.Errorf("internal error: working table of %s read outside its recursion", x.Name)
		}
		op = &operators.WorkScan{Table: wt}
	case *planner.Window:
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &window.Operator{Input: in, NCols: len(x.Input.Columns()), Funcs: x.Funcs}
	case *planner.SetOp:
		l, err := b.build(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := b.build(x.Right)
		if err != nil {
			return nil, err
		}
		op = &operators.SetOp{Left: l, Right: r, Except: x.Except, All: x.All}
	case *planner.Union:
		u := &operators.UnionAll{}
		for _, part := range x.Parts {
			in, err := b.build(part)
			if err != nil {
				return nil, err
			}
			u.Inputs = append(u.Inputs, in)
		}
		op = u
	case *planner.Aggregate:
		if s, ok := x.Input.(*planner.Scan); ok && len(s.Cols) == 0 && len(x.Keys) == 0 {
			// Aggregates over no column read only the row count.
			if b.countedScans == nil {
				b.countedScans = map[*planner.Scan]bool{}
			}
			b.countedScans[s] = true
		}
		in, keys, aggs := b.parallelAggInput(x)
		if in == nil {
			var err error
			if in, err = b.build(x.Input); err != nil {
				return nil, err
			}
		}
		agg := &operators.HashAggregate{Input: in, Keys: keys, Aggs: aggs, MemoryLimit: b.MemoryLimit, FirstGroups: int(b.aggLimit[x]), Top: b.aggTop[x]}
		op = agg
		if b.MemoryLimit > 0 && len(keys) > 0 {
			// Past the limit, the groups go to disk by partition.
			op = &operators.SpillAggregate{Agg: agg, Dir: b.TempDir}
		}
	case *planner.DeviceAggregate:
		return b.buildDeviceAggregate(x)
	case *planner.Transfer:
		if x.ToDevice {
			return nil, fmt.Errorf("internal error: host operator above HostToDevice")
		}
		st := &operators.Stats{}
		b.Stats[n] = st
		in, err := b.buildDevice(x.Input)
		if err != nil {
			return nil, err
		}
		return operators.Instrument(&operators.DeviceToHost{Input: in, RT: b.GPU, Stats: st}, st), nil
	default:
		return nil, fmt.Errorf("internal error: cannot build %T on the CPU", n)
	}
	st := &operators.Stats{}
	b.Stats[n] = st
	if fused != nil {
		b.Stats[fused] = st
	}
	switch sp := op.(type) {
	case *operators.SpillAggregate:
		sp.Stats = st
	case *operators.SpillJoin:
		sp.Stats = st
	}
	return operators.Instrument(op, st), nil
}

// noteSortLimit tells the sort directly below a LIMIT (ORDER BY ...
// LIMIT) how many rows it reads, so that it orders only those.
func (b *Built) noteSortLimit(l *planner.Limit) {
	if l.Count < 0 || l.Count > math.MaxInt32 || l.Offset > math.MaxInt32 {
		return
	}
	b.noteAggLimit(l)
	s, ok := l.Input.(*planner.Sort)
	if !ok {
		return
	}
	if b.sortLimit == nil {
		b.sortLimit = map[*planner.Sort]int64{}
	}
	b.sortLimit[s] = l.Count + l.Offset
	b.noteAggTop(s, l.Count+l.Offset)
}

// noteAggTop tells a GROUP BY under an ORDER BY ... LIMIT whose first
// term is one of its aggregates or keys (only projections, with that term
// a plain column, and transfers between them) how many groups the sort
// reads and by what, so that only those leave the device
// (operators.DeviceHashAggregate.Top; a CPU one cuts under a COUNT:
// HashAggregate.Top). Further terms ask for the first term's ties.
func (b *Built) noteAggTop(s *planner.Sort, limit int64) {
	if len(s.Keys) == 0 || limit < 1 {
		return
	}
	col, n := s.Keys[0].Col, s.Input
	// through maps col through a projection's expressions.
	through := func(exprs []expr.Expr, in planner.Node) bool {
		ref, ok := exprs[col].(*expr.ColumnRef)
		if ok {
			col, n = ref.Index, in
		}
		return ok
	}
walk:
	for {
		switch x := n.(type) {
		case *planner.Project:
			if !through(x.Exprs, x.Input) {
				return
			}
		case *planner.Compute:
			if x.Pred != nil {
				return
			}
			if x.Exprs == nil {
				n = x.Input
			} else if !through(x.Exprs, x.Input) {
				return
			}
		case *planner.Transfer:
			n = x.Input
		case *planner.Exchange:
			// A gather of per-device groupings: each device's groups are
			// its own (repartitioned by key), so the top groups overall
			// are among each device's top groups.
			if x.Kind != planner.ExchangeGather {
				return
			}
			n = x.Input
		default:
			break walk
		}
	}
	var nkeys int
	var aggs []opspec.AggSpec
	switch a := n.(type) {
	case *planner.DeviceAggregate:
		nkeys, aggs = a.NKeys, a.Aggs
	case *planner.Aggregate:
		nkeys, aggs = len(a.Keys), a.Aggs
	default:
		return
	}
	if nkeys == 0 || col < 0 || col >= nkeys+len(aggs) {
		return
	}
	first := s.Keys[0]
	top := &opspec.TopGroups{Agg: col, Key: true, Desc: first.Desc, Nulls: first.Nulls, Ties: len(s.Keys) > 1, Limit: int(limit)}
	if col >= nkeys {
		spec := aggs[col-nkeys]
		switch spec.Kind {
		case opspec.AggCount, opspec.AggCountStar, opspec.AggSum, opspec.AggAvg, opspec.AggMin, opspec.AggMax:
		default:
			return
		}
		if spec.Distinct {
			return
		}
		top.Agg, top.Key = col-nkeys, false
	}
	if b.aggTop == nil {
		b.aggTop = map[planner.Node]*opspec.TopGroups{}
	}
	b.aggTop[n] = top
}

// noteAggLimit tells a grouped aggregate below a LIMIT without ORDER BY
// (only projections between them, and transfers and filter-free computes
// above a device one) how many groups the LIMIT reads: any that many
// groups, each with all of its rows, are a right answer
// (operators.HashAggregate.FirstGroups, DeviceHashAggregate.Top).
func (b *Built) noteAggLimit(l *planner.Limit) {
	n := l.Input
	limit := l.Count + l.Offset
	for {
		p, ok := n.(*planner.Project)
		if !ok {
			break
		}
		n = p.Input
	}
	if a, ok := n.(*planner.Aggregate); ok && len(a.Keys) > 0 && limit > 0 {
		if b.aggLimit == nil {
			b.aggLimit = map[*planner.Aggregate]int64{}
		}
		b.aggLimit[a] = limit
		return
	}
	for {
		switch x := n.(type) {
		case *planner.Project:
			n = x.Input
			continue
		case *planner.Compute:
			if x.Pred == nil {
				n = x.Input
				continue
			}
		case *planner.Transfer:
			n = x.Input
			continue
		case *planner.Exchange:
			// Any limit groups of each device are enough: the gather
			// then holds at least limit whole groups.
			if x.Kind == planner.ExchangeGather {
				n = x.Input
				continue
			}
		}
		break
	}
	if a, ok := n.(*planner.DeviceAggregate); ok && a.NKeys > 0 && limit > 0 {
		if b.aggTop == nil {
			b.aggTop = map[planner.Node]*opspec.TopGroups{}
		}
		b.aggTop[n] = &opspec.TopGroups{Agg: -1, Limit: int(limit)}
	}
}

// buildDevice builds the GPU operators of a plan subtree.
func (b *Built) buildDevice(n planner.Node) (operators.DeviceOperator, error) {
	if b.GPU == nil {
		return nil, fmt.Errorf("plan needs a GPU but none is open")
	}
	st := b.nodeStats(n)
	if op, ok, err := b.twin(n, st); ok || err != nil {
		return op, err
	}
	var op operators.DeviceOperator
	switch x := n.(type) {
	case *planner.Scan:
		t := x.Table
		name, load, err := b.scanShare(x)
		if err != nil {
			return nil, err
		}
		op = &operators.DeviceScan{RT: b.GPU, Table: name, Version: t.Version, Cols: x.Cols, Stats: st,
			Load: load, Prepare: operators.GroupForDevice}
	case *planner.Exchange:
		e, err := b.buildExchange(x)
		if err != nil {
			return nil, err
		}
		op = e
	case *planner.Compute:
		in, err := b.buildDevice(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.DeviceCompute{Input: in, RT: b.GPU, Types: columnTypes(x.Input.Columns()), Pred: x.Pred, Exprs: x.Exprs, Fused: x.Fused, Stats: st, Strict: b.Strict}
	case *planner.Limit:
		b.noteSortLimit(x)
		in, err := b.buildDevice(x.Input)
		if err != nil {
			return nil, err
		}
		op = operators.NewDeviceLimit(in, x.Count, x.Offset)
	case *planner.Sort:
		in, err := b.buildDevice(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.DeviceSort{Input: in, RT: b.GPU, Keys: x.Keys, Types: columnTypes(x.Columns()), Stats: st, Limit: b.sortLimit[x]}
	case *planner.Union:
		u := &operators.DeviceUnionAll{}
		for _, p := range x.Parts {
			in, err := b.buildDevice(p)
			if err != nil {
				return nil, err
			}
			u.Inputs = append(u.Inputs, in)
		}
		op = u
	case *planner.DeviceWindow:
		in, err := b.buildDevice(x.Input)
		if err != nil {
			return nil, err
		}
		op = &window.DeviceOperator{Input: in, RT: b.GPU, NCols: x.NCols, Funcs: x.Funcs, Stats: st}
	case *planner.DeviceAggregate:
		a, ast, err := b.deviceAggregate(x)
		if err != nil {
			return nil, err
		}
		return operators.InstrumentDevice(a, ast), nil
	case *planner.DeviceJoin:
		j, err := b.buildDeviceJoin(x, st)
		if err != nil {
			return nil, err
		}
		op = j
	case *planner.Transfer:
		if !x.ToDevice {
			return nil, fmt.Errorf("internal error: device operator above DeviceToHost")
		}
		in, err := b.build(x.Input)
		if err != nil {
			return nil, err
		}
		op = &operators.HostToDevice{Input: in, RT: b.GPU, Stats: st}
	default:
		return nil, fmt.Errorf("internal error: cannot build %T on the GPU", n)
	}
	return operators.InstrumentDevice(op, st), nil
}

// allOnCPU reports whether every node of n's subtree runs on the CPU: an
// operator that reads its input on other goroutines, and may stop them
// mid-batch, keeps to inputs without device batches in flight.
func allOnCPU(n planner.Node) bool {
	if n.Placement() != planner.CPU {
		return false
	}
	for _, in := range n.Inputs() {
		if !allOnCPU(in) {
			return false
		}
	}
	return true
}

// readsLargeTable reports whether n's subtree scans a table of at least
// parallelRows rows.
func readsLargeTable(n planner.Node) bool {
	if s, ok := n.(*planner.Scan); ok {
		return s.Table.Rows >= parallelRows
	}
	for _, in := range n.Inputs() {
		if readsLargeTable(in) {
			return true
		}
	}
	return false
}

// columnsOfFilter matches a Project that only selects columns of a CPU
// Filter (pruneJoinInput's), which one Filter that gathers only those
// columns computes; it returns the filter and the columns.
func columnsOfFilter(p *planner.Project) (*planner.Filter, []int) {
	f, ok := p.Input.(*planner.Filter)
	if !ok || p.Placement() != planner.CPU || f.Placement() != planner.CPU || !planner.IsPermutation(p) {
		return nil, nil
	}
	cols := make([]int, len(p.Exprs))
	for i, e := range p.Exprs {
		cols[i] = e.(*expr.ColumnRef).Index
	}
	return f, cols
}

// valuesBatch evaluates constant rows into one batch.
func valuesBatch(v *planner.Values) (*coldata.Batch, error) {
	n := len(v.Rows)
	cols := make([]*coldata.Vec, len(v.Out))
	for c := range v.Out {
		bld := coldata.NewBuilder(v.Out[c].Type, n)
		for _, row := range v.Rows {
			val, err := expr.Eval(row[c], &coldata.Batch{Len: 1})
			if err != nil {
				return nil, err
			}
			bld.AppendFrom(val, 0)
		}
		cols[c] = bld.Finish()
	}
	return &coldata.Batch{Cols: cols, Len: n}, nil
}

// parallelRows is the table size from which a projection over a scan runs
// its batches on all cores.
const parallelRows = 4 * opspec.BatchSize

// parallel builds a projection (with the filter below it, if any) straight
// over a large table scan as a ParallelCompute, or returns nil.
func (b *Built) parallel(p *planner.Project) operators.Operator {
	return b.parallelOver(p, p.Input, p.Exprs)
}

// parallelFilter builds a filter straight over a large table scan as a
// ParallelCompute keeping every column, or returns nil: a filter below a
// join (TPC-H Q3, Q7: the dates of lineitem and orders) ran on one
// goroutine.
func (b *Built) parallelFilter(f *planner.Filter) operators.Operator {
	cols := f.Columns()
	exprs := make([]expr.Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}
	}
	return b.parallelOver(f, f, exprs)
}

// parallelOver builds node, computing exprs over below (a filter or not)
// as a ParallelCompute when below reads a large table on the CPU, or
// returns nil. Above a scan or a join (TPC-H Q9's year and profit per
// joined row) the batches then evaluate on every core.
func (b *Built) parallelOver(node, below planner.Node, exprs []expr.Expr) operators.Operator {
	workers := runtime.GOMAXPROCS(0)
	filter, _ := below.(*planner.Filter)
	input := below
	if filter != nil {
		input = filter.Input
	}
	if workers < 2 || node.Placement() != planner.CPU || (filter != nil && filter.Placement() != planner.CPU) || !allOnCPU(input) || !readsLargeTable(input) {
		return nil
	}
	if p, ok := node.(*planner.Project); ok && filter == nil && planner.IsPermutation(p) {
		return nil // nothing to compute
	}
	for _, e := range exprs {
		if planner.Volatile(e) {
			return nil
		}
	}
	var pred expr.Expr
	if filter != nil {
		if planner.Volatile(filter.Pred) {
			return nil
		}
		pred = filter.Pred
	}
	in, err := b.build(input)
	if err != nil {
		return nil
	}
	st := &operators.Stats{}
	b.Stats[node] = st
	if filter != nil {
		b.Stats[filter] = st
	}
	return operators.Instrument(&operators.ParallelCompute{Input: in, Pred: pred, Exprs: exprs, Workers: workers}, st)
}

// parallelAggInput evaluates the computed grouping keys and aggregate
// arguments of an aggregate straight over a large table scan (filtered or
// not) on all cores, as a ParallelCompute that passes the scan's columns
// through and appends one column per computed expression; it returns that
// input and the keys and aggregates rewritten to read those columns. It
// returns a nil input (and x's own keys and aggregates) when nothing is
// computed or the input is not such a scan: the aggregate then evaluates
// them itself, one batch after another. A CPU profile (bench --engines
// gsql-cpu --cpuprofile) showed the string expressions of GROUP BY
// SPLIT_PART(url, '/', 3) and of COUNT(DISTINCT LOWER(...)) as most of the
// CPU time, on one core (TestParallelAggregateInputMatchesSerial checks
// the answers).
func (b *Built) parallelAggInput(x *planner.Aggregate) (operators.Operator, []expr.Expr, []opspec.AggSpec) {
	workers := runtime.GOMAXPROCS(0)
	scan, filter := planner.ScanBelow(x.Input)
	if workers < 2 || scan == nil || scan.Placement() != planner.CPU || scan.Table.Rows < parallelRows ||
		(filter != nil && planner.Volatile(filter.Pred)) {
		return nil, x.Keys, x.Aggs
	}
	var pre []expr.Expr
	for i, c := range x.Input.Columns() {
		pre = append(pre, &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type})
	}
	passed := len(pre)
	computed := func(e expr.Expr) expr.Expr {
		if _, ok := e.(*expr.Call); !ok || planner.Volatile(e) {
			return e
		}
		pre = append(pre, e)
		return &expr.ColumnRef{Index: len(pre) - 1, Name: e.String(), T: e.Type()}
	}
	keys := make([]expr.Expr, len(x.Keys))
	for i, k := range x.Keys {
		keys[i] = computed(k)
	}
	aggs := append([]opspec.AggSpec(nil), x.Aggs...)
	for i := range aggs {
		if inner := operators.IntAsDecimalArg(&aggs[i]); inner != nil {
			// The integer is computed here, its widening to DECIMAL
			// left to the aggregate's sum (cheaper than a cast per row).
			c := *aggs[i].Arg.(*expr.Call)
			c.Args = append([]expr.Expr{computed(inner)}, c.Args[1:]...)
			aggs[i].Arg = &c
		} else if aggs[i].Arg != nil {
			aggs[i].Arg = computed(aggs[i].Arg)
		}
	}
	if len(pre) == passed && filter == nil {
		// Nothing to compute or filter: the aggregate reads the scan.
		// (A filter alone still runs on every core, and gathers only the
		// columns the aggregate reads: none for COUNT(*).)
		return nil, x.Keys, x.Aggs
	}
	// A scan column that no key or aggregate reads directly (only the
	// filter or a computed expression does) passes through as a constant
	// NULL, so that the filter does not gather it (TPC-H Q1's l_shipdate
	// and, once computed, its prices).
	used := map[int]bool{}
	for _, k := range keys {
		maps.Copy(used, expr.Columns(k))
	}
	for _, a := range aggs {
		if a.Arg != nil {
			maps.Copy(used, expr.Columns(a.Arg))
		}
		for _, o := range a.Order {
			maps.Copy(used, expr.Columns(o.Expr))
		}
	}
	for i := 0; i < passed; i++ {
		if !used[i] {
			pre[i] = &expr.Literal{T: pre[i].Type()}
		}
	}
	var pred expr.Expr
	if filter != nil {
		pred = filter.Pred
	}
	in, err := b.build(scan)
	if err != nil {
		return nil, x.Keys, x.Aggs
	}
	st := &operators.Stats{}
	if filter != nil {
		b.Stats[filter] = st
	}
	return operators.Instrument(&operators.ParallelCompute{Input: in, Pred: pred, Exprs: pre, Workers: workers}, st), keys, aggs
}

// columnTypes is the types of a plan's columns, as operators take them.
func columnTypes(cs []planner.Column) []coldata.Type {
	out := make([]coldata.Type, len(cs))
	for i, c := range cs {
		out[i] = c.Type
	}
	return out
}

// rowCounts is a scan of no columns under COUNT(*) as few batches as the
// row counts allow: one per segment cost the aggregate a batch each (COUNT(*) over 100M rows in 2,560 segments took 46
// ms, where the rows are known).
func rowCounts(batches []*coldata.Batch) []*coldata.Batch {
	if len(batches) < 2 {
		return batches
	}
	var out []*coldata.Batch
	n := 0
	for _, bt := range batches {
		if n+bt.Len > math.MaxInt32 {
			out = append(out, &coldata.Batch{Len: n})
			n = 0
		}
		n += bt.Len
	}
	return append(out, &coldata.Batch{Len: n})
}
