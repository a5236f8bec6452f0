package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// DeviceAggregate is a GROUP BY whose hash table lives on the GPU: its input
// (a Compute producing the key columns then the aggregate arguments) runs
// on the device, each device batch is grouped there, and the groups come
// to the host, where batches' partials are merged. Its output is on the
// host, unless a device operator reads it (gpuInput places it on the GPU):
// then the groups stay on the device whenever the device finishes every
// aggregate and groups the input at once, and are uploaded otherwise.
type DeviceAggregate struct {
	placed
	Input Node
	// Orig is the aggregate as bound (for EXPLAIN and the output columns).
	Orig *Aggregate
	// Aggs are Orig's aggregates with arguments referring to Input's
	// columns (after the NKeys key columns).
	Aggs  []opspec.AggSpec
	NKeys int
	// Phase is "partial" or "final" for the two halves of a GROUP BY
	// merged across devices (place_exchanges); "" for a whole one.
	Phase string
}

// Columns implements Node.
func (g *DeviceAggregate) Columns() []Column { return g.Orig.Columns() }

// Inputs implements Node.
func (g *DeviceAggregate) Inputs() []Node { return []Node{g.Input} }

func (g *DeviceAggregate) describe() string {
	d := g.Orig.describe()
	if g.Phase != "" {
		d += " " + g.Phase
	}
	if g.Dev == GPU {
		return d + " (hash table on the gpu, groups kept on the gpu)"
	}
	return d + " (hash table on the gpu, groups merged on the host)"
}

// DeviceJoin is an equi-join on the GPU (INNER or LEFT without a residual
// condition, semi or anti with or without one): the right side is hashed
// on the device and left batches probe it; output batches stay on the
// device.
type DeviceJoin struct {
	placed
	Orig                *Join
	Left, Right         Node
	LeftKeys, RightKeys []int
	// Cond is a semi or anti join's residual condition (Orig.Cond).
	Cond expr.Expr
}

// Columns implements Node.
func (j *DeviceJoin) Columns() []Column { return j.Orig.Columns() }

// Inputs implements Node.
func (j *DeviceJoin) Inputs() []Node { return []Node{j.Left, j.Right} }

func (j *DeviceJoin) describe() string {
	o := *j.Orig
	o.Cond = j.Cond
	return o.describe() + " (gpu hash table)"
}

// groupable reports whether the device hashes and compares values of t.
func groupable(t coldata.Type) bool {
	t = t.Physical()
	return t == coldata.Bool || t == coldata.Int64 || t == coldata.Float64 || t == coldata.String || t == coldata.Decimal
}

// placeAggregate puts a GROUP BY on the GPU when every aggregate has a
// device implementation and the keys and arguments compute on the device;
// ok false leaves it to the CPU.
func placeAggregate(a *Aggregate, opts PlaceOptions) (Node, string, error) {
	var outs []expr.Expr
	var cols []Column
	for _, k := range a.Keys {
		if !groupable(k.Type()) {
			return nil, fmt.Sprintf("the device does not hash GROUP BY keys of type %s", k.Type()), nil
		}
		outs = append(outs, k)
		cols = append(cols, Column{Name: k.String(), Type: k.Type()})
	}
	aggs := make([]opspec.AggSpec, len(a.Aggs))
	for i, s := range a.Aggs {
		aggs[i] = s
		if s.Arg != nil {
			aggs[i].Arg = &expr.ColumnRef{Index: len(outs), Name: s.Arg.String(), T: s.Arg.Type()}
			outs = append(outs, s.Arg)
			cols = append(cols, Column{Name: s.Arg.String(), Type: s.Arg.Type()})
		}
	}
	if opts.Aggregates == nil {
		return nil, "no device GROUP BY here", nil
	}
	if err := opts.Aggregates(aggs); err != nil {
		return nil, err.Error(), nil
	}
	input, pred := a.Input, expr.Expr(nil)
	if f, ok := input.(*Filter); ok && !pinnedNode(f) {
		input, pred = f.Input, f.Pred
	}
	if len(outs) == 0 {
		// COUNT(*) alone: any one column carries the row count.
		ic := input.Columns()
		if len(ic) == 0 && pred == nil {
			// Nothing to read: the host adds the batches' row counts,
			// which is faster than any upload. Say so in EXPLAIN.
			in, err := place(input, opts)
			if err != nil {
				return nil, "", err
			}
			c := withInputs(a, []Node{toSide(in, CPU)}).(*Aggregate)
			c.Why = "reads no columns, counts the table's rows"
			return c, "", nil
		}
		if len(ic) == 0 || !groupable(ic[0].Type) {
			return nil, "no column the device can count rows of", nil
		}
		outs = []expr.Expr{&expr.ColumnRef{Index: 0, Name: ic[0].Name, T: ic[0].Type}}
		cols = []Column{ic[0]}
	}
	fused, err := opts.Supported(input.Columns(), pred, outs)
	if err != nil {
		return nil, "keys or arguments: " + err.Error(), nil
	}
	in, err := place(input, opts)
	if err != nil {
		return nil, "", err
	}
	c := &Compute{Input: gpuInput(in), Pred: pred, Exprs: outs, Out: cols, Fused: fused && opts.Fusion}
	c.Dev = GPU
	g := &DeviceAggregate{Input: c, Orig: a, Aggs: aggs, NKeys: len(a.Keys)}
	g.Dev = CPU
	return g, "", nil
}

// placeJoin puts an INNER, LEFT, semi or anti equi-join on the GPU when
// its keys have one device-hashable type per pair and compute on the
// device; an INNER join's residual condition becomes a GPU filter above
// it (the other kinds stay on the CPU with one).
func placeJoin(j *Join, opts PlaceOptions) (Node, string, error) {
	semi := j.Kind == opspec.SemiJoin || j.Kind == opspec.AntiJoin
	if len(j.LeftKeys) == 0 {
		return nil, "no equality keys to hash", nil
	}
	if j.Cond != nil && j.Kind == opspec.LeftJoin {
		return nil, "a LEFT JOIN with a condition besides its keys", nil
	}
	for i := range j.LeftKeys {
		t := j.LeftKeys[i].Type()
		if t != j.RightKeys[i].Type() {
			return nil, fmt.Sprintf("keys of types %s and %s", t, j.RightKeys[i].Type()), nil
		}
		if !groupable(t) {
			return nil, fmt.Sprintf("the device does not hash keys of type %s", t), nil
		}
	}
	for _, c := range j.Columns() {
		if c.Type == coldata.Null {
			return nil, "a column of NULL type", nil
		}
	}
	if j.Cond != nil {
		all := append(append([]Column(nil), j.Left.Columns()...), j.Right.Columns()...)
		if _, err := opts.Supported(all, j.Cond, nil); err != nil {
			return nil, "its condition: " + err.Error(), nil
		}
	}
	if b := joinDeviceBytes(j); opts.DeviceMemory > 0 && b > opts.DeviceMemory/4 {
		return nil, fmt.Sprintf("its build side takes %s, over a quarter of device memory", byteSize(b)), nil
	}
	side := func(n Node, keys []expr.Expr) (Node, []int, string, error) {
		var exprs []expr.Expr
		var cols []Column
		idx := make([]int, len(keys))
		allRefs := true
		for i, k := range keys {
			if r, ok := k.(*expr.ColumnRef); ok {
				idx[i] = r.Index
				continue
			}
			allRefs = false
		}
		if !allRefs {
			exprs = PassThrough(n.Columns())
			cols = append([]Column(nil), n.Columns()...)
			for i, k := range keys {
				idx[i] = len(exprs)
				exprs = append(exprs, k)
				cols = append(cols, Column{Name: k.String(), Type: k.Type()})
			}
			if _, err := opts.Supported(n.Columns(), nil, exprs); err != nil {
				return nil, nil, "join keys: " + err.Error(), nil
			}
		}
		p, err := place(n, opts)
		if err != nil {
			return nil, nil, "", err
		}
		if allRefs {
			return gpuInput(p), idx, "", nil
		}
		fused, _ := opts.Supported(n.Columns(), nil, exprs)
		c := &Compute{Input: gpuInput(p), Exprs: exprs, Out: cols, Fused: fused && opts.Fusion}
		c.Dev = GPU
		return c, idx, "", nil
	}
	left, lk, why, err := side(j.Left, j.LeftKeys)
	if err != nil || why != "" {
		return nil, why, err
	}
	right, rk, why, err := side(j.Right, j.RightKeys)
	if err != nil || why != "" {
		return nil, why, err
	}
	g := &DeviceJoin{Orig: j, Left: left, Right: right, LeftKeys: lk, RightKeys: rk}
	g.Dev = GPU
	if j.Cond == nil {
		return g, "", nil
	}
	if semi {
		g.Cond = j.Cond // evaluated over the probe's pairs
		return g, "", nil
	}
	fused, _ := opts.Supported(j.Columns(), j.Cond, nil)
	c := &Compute{Input: g, Pred: j.Cond, Fused: fused && opts.Fusion}
	c.Dev = GPU
	return c, "", nil
}

// ScannedBytes is scannedBytes for the executor: the estimate of device
// memory a query reserves before it starts (admission).
func ScannedBytes(n Node) uint64 { return scannedBytes(n) }

// scannedBytes is the Arrow size of the columns that the scans below n
// read: an upper bound of what n's rows take on the device when filters
// keep everything (projections can widen rows; joins are counted as the sum
// of their inputs).
// buildBytes estimates the device memory a join's build side n takes once
// hashed: its estimated rows times their width, plus the hash table
// (hashTableBytesPerRow). It once was the bytes n's scans read, which for a
// build side over a filtered join counts every column of the large table
// below the filter: TPC-H Q9 at SF10 under an 8 GiB pool "took 4.4 GiB"
// for 3.3M rows and ran its two largest joins on the CPU (4.7 s).
func buildBytes(n Node) uint64 {
	return heldBytes(n) + uint64(estimateRows(n)*hashTableBytesPerRow)
}

// heldBytes estimates the device memory n's rows take: its estimated rows
// times their width (a scan: the bytes it reads).
func heldBytes(n Node) uint64 {
	if s, ok := n.(*Scan); ok {
		return scannedBytes(s)
	}
	width := 0.0
	for i := range n.Columns() {
		width += columnWidth(n, i)
	}
	return uint64(estimateRows(n) * width)
}

// buildLeftRatio is the device join's (operators.deviceBuildLeftRatio): an
// INNER join whose right side has more than this many times the left's
// rows hashes the left rows and probes them with the right side.
const buildLeftRatio = 4

// joinDeviceBytes estimates the device memory a device join takes: its
// right side hashed, or, for an INNER join whose left side is estimated
// well under the right (which the device join then hashes instead), the
// right rows held unhashed and the left hashed. TPC-H Q18 at SF10 under an
// 8 GiB pool sized its join of 624 orders with lineitem by lineitem's hash
// table (2.7 GiB) and ran it on the CPU: 1.4 s of the query.
func joinDeviceBytes(j *Join) uint64 {
	right := buildBytes(j.Right)
	if j.Kind != opspec.InnerJoin || estimateRows(j.Left)*buildLeftRatio >= estimateRows(j.Right) {
		return right
	}
	return min(right, heldBytes(j.Right)+buildBytes(j.Left))
}

// hashTableBytesPerRow is what a device join's hash table adds per build
// row: 4-byte slots at two to four times the rows, and the rows' order by
// slot with its run marks.
const hashTableBytesPerRow = 24

// columnWidth estimates the bytes a row of column c of n takes: fixed for
// fixed-width types; for text, the average of the table column it comes
// from, else a guess.
func columnWidth(n Node, c int) float64 {
	t := n.Columns()[c].Type
	switch t.Physical() {
	case coldata.Bool:
		return 1
	case coldata.Decimal:
		return 16
	case coldata.String:
	default:
		return 8
	}
	for {
		switch x := n.(type) {
		case *Scan:
			if x.Table.Rows <= 0 || c >= len(x.Cols) {
				return textWidthGuess
			}
			var bytes int64
			for _, rec := range x.Table.Records {
				bytes += coldata.ColumnBytes(rec, x.Cols[c])
			}
			return float64(bytes) / float64(x.Table.Rows)
		case *Filter:
			n = x.Input
		case *Project:
			ref, ok := x.Exprs[c].(*expr.ColumnRef)
			if !ok {
				return textWidthGuess
			}
			n, c = x.Input, ref.Index
		case *Join:
			if nl := len(x.Left.Columns()); c >= nl {
				n, c = x.Right, c-nl
			} else {
				n = x.Left
			}
		default:
			return textWidthGuess
		}
	}
}

// textWidthGuess is a text column's bytes a row where no table says.
const textWidthGuess = 24

func scannedBytes(n Node) uint64 {
	s, ok := n.(*Scan)
	if !ok {
		var total uint64
		for _, in := range n.Inputs() {
			total += scannedBytes(in)
		}
		return total
	}
	var total uint64
	for _, rec := range s.Table.Records {
		for _, c := range s.Cols {
			total += uint64(coldata.ColumnBytes(rec, c))
		}
	}
	return total
}

// DeviceWindow computes window functions over device-resident rows: Input
// (the window's input on the device, followed by the key and argument
// expressions that are not plain columns) stays there; the device sorts
// the partition and ORDER BY keys, or (keys of other types, RANGE offset
// frames) they travel to the host to be sorted.
type DeviceWindow struct {
	placed
	Orig  *Window
	Input Node
	// Funcs are Orig's functions over Input's columns (ColumnRefs only).
	Funcs []winspec.Func
	// NCols is the number of Orig.Input's columns, which Input starts with.
	NCols int
}

// Columns implements Node.
func (w *DeviceWindow) Columns() []Column { return w.Orig.Columns() }

// Inputs implements Node.
func (w *DeviceWindow) Inputs() []Node { return []Node{w.Input} }

func (w *DeviceWindow) describe() string {
	switch some, all := winspec.AnyHashed(w.Funcs, true); {
	case all:
		return w.Orig.funcList() + " (gpu: partition aggregates hashed)"
	case some:
		return w.Orig.funcList() + " (gpu: partition aggregates hashed; " + windowSortNote(w.Funcs) + ")"
	}
	return w.Orig.funcList() + " (gpu: " + windowSortNote(w.Funcs) + ")"
}

// windowSortNote says where a device window sorts its orderings: on the
// device, or on the host with the reason (winspec.HostSortReason).
func windowSortNote(funcs []winspec.Func) string {
	seen := map[string]bool{}
	var host []string
	device := 0
	for i := range funcs {
		id := winspec.OrderIdentity(&funcs[i])
		if seen[id] {
			continue
		}
		seen[id] = true
		if winspec.DeviceHashed(funcs, i) {
			continue // no sort
		}
		switch r := winspec.HostSortReason(funcs, i); {
		case r == "" && winspec.TextKeys(funcs, i):
			device++
			if !slices.Contains(host, "text past 32 bytes") {
				host = append(host, "text past 32 bytes")
			}
		case r == "":
			device++
		case !slices.Contains(host, r):
			host = append(host, r)
		}
	}
	switch {
	case len(host) == 0:
		return "keys sorted on the device"
	case device == 0:
		return "keys sorted on the host: " + strings.Join(host, ", ")
	}
	return "keys sorted on the device, and on the host for " + strings.Join(host, ", ")
}

// sortNote says where a device ORDER BY sorts its keys: on the device
// when every key's type is one its radix sort packs (the window
// orderings' types, winspec.DeviceKeyType, and text, whose strings pack
// whole up to gpuexec.MaxTextSortBytes: longer ones the host sorts; as
// operators.DeviceSortable), else on the host with the reason.
func sortNote(cols []Column, keys []opspec.SortKey) string {
	text := false
	for _, k := range keys {
		t := cols[k.Col].Type
		switch {
		case t != coldata.Null && t.Physical() == coldata.String:
			text = true
		case winspec.DeviceKeyType(t):
		default:
			return fmt.Sprintf("keys sorted on the host: a %s key", t)
		}
	}
	if text {
		return "keys sorted on the device, and on the host for text past 32 bytes"
	}
	return "keys sorted on the device"
}

// placeWindow puts window functions on the GPU when their keys and
// arguments compute there; ok false leaves them to the CPU.
func placeWindow(w *Window, opts PlaceOptions) (Node, string, error) {
	inCols := w.Input.Columns()
	outs := PassThrough(inCols)
	cols := append([]Column(nil), inCols...)
	extra := map[string]int{}
	toRef := func(e expr.Expr) expr.Expr {
		if c, ok := e.(*expr.ColumnRef); ok {
			return c
		}
		key := e.String() + "|" + e.Type().String()
		i, ok := extra[key]
		if !ok {
			i = len(outs)
			extra[key] = i
			outs = append(outs, e)
			cols = append(cols, Column{Name: e.String(), Type: e.Type()})
		}
		return &expr.ColumnRef{Index: i, Name: e.String(), T: e.Type()}
	}
	funcs := make([]winspec.Func, len(w.Funcs))
	for i, f := range w.Funcs {
		g := f
		g.Args = make([]expr.Expr, len(f.Args))
		for j, a := range f.Args {
			g.Args[j] = toRef(a)
		}
		g.Partition = make([]expr.Expr, len(f.Partition))
		for j, p := range f.Partition {
			g.Partition[j] = toRef(p)
		}
		g.Order = make([]winspec.Key, len(f.Order))
		for j, k := range f.Order {
			g.Order[j] = winspec.Key{Expr: toRef(k.Expr), Desc: k.Desc, Nulls: k.Nulls}
		}
		funcs[i] = g
	}
	for _, c := range cols {
		if c.Type == coldata.Null {
			return nil, "a window key or argument of NULL type", nil
		}
	}
	in, err := place(w.Input, opts)
	if err != nil {
		return nil, "", err
	}
	input := gpuInput(in)
	if len(outs) > len(inCols) {
		fused, err := opts.Supported(inCols, nil, outs)
		if err != nil {
			return nil, "window keys or arguments: " + err.Error(), nil
		}
		c := &Compute{Input: input, Exprs: outs, Out: cols, Fused: fused && opts.Fusion}
		c.Dev = GPU
		input = c
	}
	g := &DeviceWindow{Orig: w, Input: input, Funcs: funcs, NCols: len(inCols)}
	g.Dev = GPU
	return g, "", nil
}
