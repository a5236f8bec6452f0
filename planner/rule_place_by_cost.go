package planner

import (
	"fmt"
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// The plans, in auto mode on a GPU database (a fact table of 10M rows,
// dimensions of 10):
//
//	Sort d_name
//	  Inner HashJoin on f_d = d_id
//	    Aggregate keys: f_d aggs: sum(f_v)
//	      Inner HashJoin on f_e = e_id
//	        Filter (f_v > 3)
//	          Scan fact [f_d f_e f_v] (10000000 rows)
//	        Filter (e_kind = 'a')
//	          Scan dim_e [e_id e_kind] (10 rows)
//	    Scan dim_d [d_id d_name] (10 rows)
//	=>
//	Sort d_name [cpu: auto, at most 120 rows in, 120 rows out: ...]
//	  Inner HashJoin on f_d = d_id [cpu: auto, at most 22 rows in, 120 rows out: ...]
//	    Aggregate keys: f_d aggs: sum(f_v)
//	      Inner HashJoin on f_e = e_id
//	        Filter (f_v > 3)
//	          Scan fact [f_d f_e f_v] (10000000 rows)
//	        Filter (e_kind = 'a') [cpu: auto, est 3 rows from 10 rows scanned: 13 rows of cpu work, under the 1563 one gpu operator costs]
//	          Scan dim_e [e_id e_kind] (10 rows)
//	    Scan dim_d [d_id d_name] (10 rows)
//
// and Place then runs the fact table's scan, filter, join and GROUP BY on
// the GPU, the filter of dim_e on the CPU, whose 3 rows go up
// (HostToDevice) for the device join to hash, and the join of the ten
// groups with dim_d and the sort on the CPU, the groups coming down as
// they would for the sort.
//
// Placement by cost, per fragment (issue 39 item 5). On the GPU every
// operator costs launches and a synchronisation or two (tens of µs)
// whatever its rows, on top of the query's fixed cost (a few ms: the
// device's turn, admission, the result's download); on the CPU an
// operator costs its rows. The database already keeps a whole query on
// the CPU when its scans read fewer than Options.AutoGPUMinRows rows (the
// fixed cost, in rows of CPU work; device.go, "auto: the query reads N
// rows"). This rule does the same for the parts of a larger query.
//
// Host fragments. A subtree whose estimated CPU work (the rows into and
// out of each of its operators: table statistics, distinct-count
// sketches and zone maps through estimateRows, the join reordering's
// estimator) is under what its operators would cost on the GPU
// (LaunchRows each, a 64th of MinRows: tens of µs against a few ms; a
// filter fused into the projection or GROUP BY above it is one operator
// with it) runs on the CPU, whole, and its result goes up to the device
// in one transfer when a device operator reads it. Transfers of small
// results are cheap (one copy per batch); the rule keeps a subtree on
// the host only when its estimated output is at most UploadBytes. A
// subtree whose estimate is unknown (a scan of no table, a recursive
// CTE's working table) is never moved. The subtrees are chosen from the
// root down: the first that is cheap on the CPU is kept there whole
// (Place does not look into it), so that the host and device parts of a
// plan meet at few transfers. When the root itself is cheap, the whole
// plan runs on the CPU (HostByCost) and the host-only placement rules run
// on it.
//
// Operators over a device fragment's few rows. From the root down, while
// each operator reads and makes fewer than LaunchRows rows by upper
// bounds (bound: table rows, the product of GROUP BY keys' distinct
// counts, cross products of join sides, LIMIT counts; never the
// estimates, which are far off above a few joins), the operator runs on
// the CPU over its inputs placed as before: its reader is on the host
// already, so its device input comes down where the result would have.
// A choice of columns or a LIMIT runs no kernel and follows its input.
//
// EXPLAIN shows each decision: the root of each host fragment `[cpu:
// auto, est N rows from M rows scanned: ...]`, its other operators
// `[cpu: auto, est N rows]`, an operator over few rows `[cpu: auto, at
// most N rows in, M rows out: ...]`, and the top of each device fragment
// `[gpu: auto, est N rows in]` (noteGPUFragments). Strict `gpu` mode and
// `cpu` mode never run the rule; with AutoGPUMinRows negative it does
// not run either.

// CostOptions steer PlaceByCost.
type CostOptions struct {
	// MinRows is the rows of CPU work the GPU's fixed cost per query
	// buys (Options.AutoGPUMinRows); 0 turns the rule off.
	MinRows int64
	// LaunchRows is the rows of CPU work one device operator costs (0:
	// MinRows/launchShare).
	LaunchRows float64
	// UploadBytes bounds the estimated output of a host fragment that a
	// device operator reads (0: DefaultUploadBytes).
	UploadBytes float64
}

// launchShare: a device operator's launches and synchronisations cost
// about a 64th of the per-query fixed cost (tens of µs against a few
// ms), so LaunchRows defaults to MinRows/launchShare (1563 rows at the
// default 100,000, rounded).
const launchShare = 64

// DefaultUploadBytes is the largest estimated output a host fragment
// uploads for a device operator by default: 1 MiB, about what one launch
// costs in copy time over PCIe.
const DefaultUploadBytes = 1 << 20

// fragCost is what the rule knows of one subtree.
type fragCost struct {
	ops     int     // operators that would run device work
	work    float64 // rows into and out of its operators (CPU work)
	out     float64 // estimated output rows
	scanned float64 // rows its scans read
	known   bool    // every leaf estimated
}

// PlaceByCost keeps the subtrees of n that are cheaper on the CPU than
// their operators' launches on the GPU there, whole, marked for Place and
// noted for EXPLAIN; the rest is placed as before. n is a logical plan.
func PlaceByCost(n Node, o CostOptions) Node {
	if o.MinRows <= 0 {
		return n
	}
	if o.LaunchRows <= 0 {
		o.LaunchRows = float64(o.MinRows) / launchShare
	}
	if o.UploadBytes <= 0 {
		o.UploadBytes = DefaultUploadBytes
	}
	p := &costPlacer{o: o, costs: map[Node]fragCost{}, upper: map[Node]bound{}}
	p.cost(n)
	return p.visit(n, true, true)
}

type costPlacer struct {
	o     CostOptions
	costs map[Node]fragCost
	upper map[Node]bound
}

// bound is an upper bound of a node's rows, when one is known.
type bound struct {
	rows  float64
	known bool
}

// cost computes (and remembers) the cost of every subtree of n.
func (p *costPlacer) cost(n Node) fragCost {
	if c, ok := p.costs[n]; ok {
		return c
	}
	c := fragCost{known: true}
	var in float64
	for _, child := range n.Inputs() {
		cc := p.cost(child)
		c.ops += cc.ops
		c.work += cc.work
		c.scanned += cc.scanned
		c.known = c.known && cc.known
		in += cc.out
	}
	switch x := n.(type) {
	case *Scan:
		if x.Table == nil {
			c.known = false
			break
		}
		c.out = float64(x.Table.Rows)
		c.scanned = c.out
	case *Values:
		c.out = float64(len(x.Rows))
	case *WorkScan:
		// A recursive CTE's rows depend on its iterations: unknown.
		c.known = false
	default:
		if !c.known {
			break
		}
		c.out = estimateRows(n)
		if costsLaunches(n) {
			c.ops++
			c.work += in + c.out
		}
	}
	p.costs[n] = c
	return c
}

// costsLaunches reports whether n would run device work of its own: a
// projection choosing columns and a LIMIT (a slice) run none.
func costsLaunches(n Node) bool {
	switch x := n.(type) {
	case *Project:
		return !onlyColumns(x.Exprs)
	case *Limit:
		return false
	}
	return true
}

// fusedFilter reports whether n's input is a filter that placement fuses
// into n's device work (counted once).
func fusedFilter(n Node) bool {
	switch x := n.(type) {
	case *Project:
		_, ok := x.Input.(*Filter)
		return ok
	case *Aggregate:
		_, ok := x.Input.(*Filter)
		return ok
	}
	return false
}

// operators is the subtree n's count of device operators, a filter fused into the
// operator above it counted once.
func (p *costPlacer) operators(n Node) int {
	k := p.costs[n].ops
	var walk func(Node)
	walk = func(m Node) {
		if fusedFilter(m) && costsLaunches(m) {
			k--
		}
		for _, in := range m.Inputs() {
			walk(in)
		}
	}
	walk(n)
	return max(k, 1)
}

// cheap reports whether the subtree n is cheaper on the CPU, and why.
func (p *costPlacer) cheap(n Node, root bool) (string, bool) {
	c := p.costs[n]
	if !c.known || c.ops == 0 {
		return "", false
	}
	k := p.operators(n)
	limit := float64(k) * p.o.LaunchRows
	if c.work >= limit {
		return "", false
	}
	bytes := c.out * outputRowBytes(n)
	if !root && bytes > p.o.UploadBytes {
		return "", false
	}
	ops := "one gpu operator costs"
	if k > 1 {
		ops = fmt.Sprintf("its %d gpu operators cost", k)
	}
	return fmt.Sprintf("auto, est %s from %s scanned: %s of cpu work, under the %s %s",
		rowsText(c.out), rowsText(c.scanned), rowsText(c.work), countText(limit), ops), true
}

// visit keeps the first cheap subtrees from the root down on the host,
// and, from the root down while the rows they read are bounded small,
// the operators over a device fragment's few rows (hostParent: n's
// reader runs on the host).
func (p *costPlacer) visit(n Node, root, hostParent bool) Node {
	if why, ok := p.cheap(n, root); ok {
		return p.pin(n, why)
	}
	if hostParent {
		if why, ok := p.smallOp(n); ok {
			out, _ := mapInputs(n, func(in Node) (Node, error) { return p.visit(in, false, true), nil })
			if w, ok := out.(interface{ hostOp(string) }); ok && out != n && costsLaunches(n) {
				// (A choice of columns or a LIMIT runs no kernel: it
				// follows its input, as placement has it.)
				w.hostOp(why)
			}
			return out
		}
	}
	fused := fusedFilter(n)
	out, _ := mapInputs(n, func(in Node) (Node, error) {
		if f, ok := in.(*Filter); ok && fused {
			// The filter runs in n's kernels on the device, where its
			// launches cost nothing: only what it reads is weighed.
			return mapInputs(f, func(x Node) (Node, error) { return p.visit(x, false, false), nil })
		}
		return p.visit(in, false, false), nil
	})
	return out
}

// smallOp reports whether the operator n itself, over a device
// fragment's result, is cheaper on the CPU: at most LaunchRows rows in
// and out by upper bounds (table rows, the product of GROUP BY keys'
// distinct counts, cross products, LIMITs), which estimates below a few
// joins are not. Its reader being on the host, it costs no transfer
// there: its input comes down in its place.
func (p *costPlacer) smallOp(n Node) (string, bool) {
	ins := n.Inputs()
	if len(ins) == 0 {
		return "", false
	}
	out := p.bound(n)
	if !out.known {
		return "", false
	}
	in := 0.0
	for _, x := range ins {
		b := p.bound(x)
		if !b.known {
			return "", false
		}
		in += b.rows
	}
	if in+out.rows >= p.o.LaunchRows {
		return "", false
	}
	return fmt.Sprintf("auto, at most %s in, %s out: under the %s one gpu operator costs",
		rowsText(in), rowsText(out.rows), countText(p.o.LaunchRows)), true
}

// bound is an upper bound of n's rows: exact for tables and literal
// rows, a GROUP BY's the product of its keys' distinct counts (sketches)
// or its input's, a join's the product of its sides' (a semi or anti
// join's its left side's), a LIMIT's its count, and other operators'
// their inputs'.
func (p *costPlacer) bound(n Node) bound {
	if b, ok := p.upper[n]; ok {
		return b
	}
	in := func(i int) bound { return p.bound(n.Inputs()[i]) }
	var b bound
	switch x := n.(type) {
	case *Scan:
		if x.Table != nil {
			b = bound{float64(x.Table.Rows), true}
		}
	case *Values:
		b = bound{float64(len(x.Rows)), true}
	case *WorkScan, *Recursive:
	case *Limit:
		b = in(0)
		if x.Count >= 0 && (!b.known || float64(x.Count) < b.rows) {
			b = bound{float64(x.Count), true}
		}
	case *Aggregate:
		b = in(0)
		if len(x.Keys) == 0 {
			b = bound{1, true}
		} else if g, ok := keysBound(x.Input, x.Keys); ok && (!b.known || g < b.rows) {
			b = bound{g, true}
		}
	case *Join:
		l, r := in(0), in(1)
		switch {
		case x.Kind == opspec.SemiJoin || x.Kind == opspec.AntiJoin:
			b = l
		case l.known && r.known:
			b = bound{math.Max(l.rows, l.rows*r.rows), true}
		}
	case *SetOp:
		b = in(0)
	default:
		ins := n.Inputs()
		if len(ins) == 0 {
			break
		}
		b = bound{0, true}
		for i := range ins {
			c := in(i)
			b.rows += c.rows
			b.known = b.known && c.known
		}
	}
	p.upper[n] = b
	return b
}

// keysBound is the product of the GROUP BY keys' distinct counts, when
// every key is a table column with statistics.
func keysBound(input Node, keys []expr.Expr) (float64, bool) {
	g := 1.0
	for _, k := range keys {
		ref, ok := k.(*expr.ColumnRef)
		if !ok {
			return 0, false
		}
		st, ok := columnStat(input, ref.Index)
		if !ok {
			return 0, false
		}
		// A key's NULLs make one group more; the sketch's error (about
		// 1.6%) is covered by a few percent more.
		g *= math.Ceil(st.ndv*1.05) + 1
	}
	return g, true
}

// pin returns a copy of the subtree n marked as a host fragment: its root
// says why, its other operators their estimates.
func (p *costPlacer) pin(n Node, why string) Node {
	out := p.noteHost(n)
	if w, ok := out.(interface{ pin(string) }); ok {
		w.pin(why)
	}
	return out
}

// noteHost copies the subtree n, each operator noting its estimate.
func (p *costPlacer) noteHost(n Node) Node {
	var out Node
	switch x := n.(type) {
	case *Scan:
		return n // read where its reader runs
	case *Values:
		c := *x
		out = &c
	default:
		if len(n.Inputs()) == 0 {
			return n
		}
		out, _ = mapInputs(n, func(in Node) (Node, error) { return p.noteHost(in), nil })
	}
	if w, ok := out.(interface{ setWhy(string) }); ok {
		w.setWhy("auto, est " + rowsText(p.costs[n].out))
	}
	return out
}

// pin marks a node as the root of a host fragment (PlaceByCost).
func (p *placed) pin(why string) { p.Why, p.pinned = why, true }

// hostOp marks a node as an operator PlaceByCost runs on the host over
// inputs placed as before.
func (p *placed) hostOp(why string) { p.Why, p.onHost = why, true }

// hostOpNode reports whether n is marked by hostOp.
func hostOpNode(n Node) bool {
	w, ok := n.(interface{ isHostOp() bool })
	return ok && w.isHostOp()
}

func (p *placed) isHostOp() bool { return p.onHost }

// pinnedNode reports whether n is the root of a host fragment.
func pinnedNode(n Node) bool {
	w, ok := n.(interface{ isPinned() bool })
	return ok && w.isPinned()
}

func (p *placed) isPinned() bool { return p.pinned }

// HostByCost reports whether PlaceByCost kept the whole plan n on the
// CPU.
func HostByCost(n Node) bool { return pinnedNode(n) }

// outputRowBytes estimates the bytes of one output row of n: the average width
// of the table column an output column reads, else its type's.
func outputRowBytes(n Node) float64 {
	w := 0.0
	for i, c := range n.Columns() {
		if t, tc, ok := tableColumn(n, i); ok && t.Rows > 0 {
			var b int64
			for _, rec := range t.Records {
				b += coldata.ColumnBytes(rec, tc)
			}
			w += float64(b) / float64(t.Rows)
			continue
		}
		w += typeWidth(c.Type)
	}
	return w
}

// typeWidth is a value's bytes on the device by type (text: a guess).
func typeWidth(t coldata.Type) float64 {
	switch t.Physical() {
	case coldata.Bool:
		return 1
	case coldata.Decimal:
		return 16
	case coldata.String:
		return 4 + 16
	}
	return 8
}

// rowsText renders an estimate of rows ("1 row", "25 rows").
func rowsText(r float64) string {
	n := countText(r)
	if n == "1" {
		return "1 row"
	}
	return n + " rows"
}

// countText renders an estimate as a whole number.
func countText(r float64) string {
	if math.IsInf(r, 0) || r > 1e18 {
		return "1e18+"
	}
	return fmt.Sprintf("%d", int64(math.Round(r)))
}

// noteGPUFragments notes at the top of each device fragment of a placed
// plan (a device node read by a host one) the rows it reads: the tables
// its scans read on the device and the estimated rows uploaded to it.
func noteGPUFragments(n Node) Node {
	return noteGPU(n, false)
}

func noteGPU(n Node, parentOnGPU bool) Node {
	onGPU := n.Placement() == GPU
	out, _ := mapInputs(n, func(in Node) (Node, error) { return noteGPU(in, onGPU), nil })
	if !onGPU || parentOnGPU {
		return out
	}
	if out == n {
		if s, ok := n.(*Scan); ok {
			c := *s
			out = &c
		} else {
			out = withInputs(n, n.Inputs())
		}
	}
	note := "auto, est " + rowsText(gpuRowsIn(n)) + " in"
	if w, ok := out.(interface{ why() string }); ok && w.why() != "" {
		note = w.why() + "; " + note
	}
	if w, ok := out.(interface{ setWhy(string) }); ok {
		w.setWhy(note)
	}
	return out
}

// gpuRowsIn is the rows a device fragment reads: its device scans'
// tables and its uploads' estimated rows.
func gpuRowsIn(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		if x.Table == nil {
			return defaultRows
		}
		return float64(x.Table.Rows)
	case *Transfer:
		if x.ToDevice {
			return PlacedRows(x.Input)
		}
	}
	rows := 0.0
	for _, in := range n.Inputs() {
		if in.Placement() == GPU || isUpload(in) {
			rows += gpuRowsIn(in)
		}
	}
	return rows
}

func isUpload(n Node) bool {
	t, ok := n.(*Transfer)
	return ok && t.ToDevice
}
