package execbuild

import (
	"fmt"
	"strings"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// Plans spread over several GPUs (planner.PlaceExchanges): the subtree
// below an exchange is built once per device, each copy over that
// device's runtime (its device and resident tables); the exchange's
// operator drains the copies and deals their rows out
// (operators.ExchangeSource).

// spreadOver sets up the devices of a multi-device build.
func (b *Built) spreadOver(o BuildOptions) error {
	if len(o.Devices) < 2 {
		return nil
	}
	if o.Transport == nil {
		return fmt.Errorf("internal error: a build over %d devices without a transport", len(o.Devices))
	}
	b.devs = make([]*operators.DeviceRuntime, len(o.Devices))
	b.group = &exchange.Group{Transport: o.Transport, Split: o.Split}
	for i, rt := range o.Devices {
		if i == 0 {
			b.devs[0] = b.GPU
		} else {
			b.devs[i] = rt.ForQuery(b.Waits)
		}
		b.group.Devices = append(b.group.Devices, b.devs[i].Dev)
	}
	b.exch = map[*planner.Exchange]*operators.ExchangeSource{}
	b.perDevice = map[planner.Node][]*operators.Stats{}
	return nil
}

// nodeStats is the statistics the device operator of n being built
// counts in: one per node, or in a spread build one per node and device,
// so that EXPLAIN ANALYZE can show each device's rows, time, bytes and
// launches beside their sum (statsOf).
func (b *Built) nodeStats(n planner.Node) *operators.Stats {
	if b.perDevice == nil {
		st := b.Stats[n]
		if st == nil {
			st = &operators.Stats{}
			b.Stats[n] = st
		}
		return st
	}
	per := b.perDevice[n]
	if per == nil {
		per = make([]*operators.Stats, len(b.devs))
		b.perDevice[n] = per
	}
	if per[b.on] == nil {
		per[b.on] = &operators.Stats{}
	}
	return per[b.on]
}

// statsOf is node n's statistics: its own, or the sum of its copies on
// every device (the time the longest copy's).
func (b *Built) statsOf(n planner.Node) (*operators.Stats, bool) {
	if per, ok := b.perDevice[n]; ok {
		return operators.MergeStats(per), true
	}
	st, ok := b.Stats[n]
	return st, ok
}

// DeviceStats is node n's statistics on each device of a spread plan,
// indexed as BuildOptions.Devices (nil where n did not run on a device):
// nil for nodes built once.
func (b *Built) DeviceStats(n planner.Node) []*operators.Stats {
	copies := 0
	for _, st := range b.perDevice[n] {
		if st != nil {
			copies++
		}
	}
	if copies < 2 {
		return nil
	}
	return b.perDevice[n]
}

// AllStats lists every statistics record of the build, each device's
// copy apart (for totals such as the query's compile wait).
func (b *Built) AllStats() []*operators.Stats {
	var out []*operators.Stats
	for _, st := range b.Stats {
		out = append(out, st)
	}
	for _, per := range b.perDevice {
		for _, st := range per {
			if st != nil {
				out = append(out, st)
			}
		}
	}
	return out
}

// deviceLine is EXPLAIN ANALYZE's list of a spread node's copies, by GPU
// ordinal: rows, time, bytes and launches on each device.
func (b *Built) deviceLine(n planner.Node) string {
	per := b.DeviceStats(n)
	if per == nil {
		return ""
	}
	var parts []string
	for i, st := range per {
		if st == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("gpu%d rows=%d time=%s bytes=%d launches=%d", b.devs[i].Dev.Info().Ordinal,
			st.Rows.Load(), st.Duration().Round(time.Microsecond), st.Bytes.Load(), st.Launches.Load()))
	}
	return " per_device=[" + strings.Join(parts, "; ") + "]"
}

// checkSpread fails when a plan spread over n devices meets a build
// with another number of them.
func (b *Built) checkSpread(n int) error {
	if n != len(b.devs) {
		return fmt.Errorf("internal error: plan spread over %d devices, %d open", n, len(b.devs))
	}
	return nil
}

// scanShare is the resident table a device scan reads: the whole table,
// or on a spread scan, the device's share of its row groups.
func (b *Built) scanShare(x *planner.Scan) (string, func() ([]*coldata.Batch, error), error) {
	t := x.Table
	// Only the scan's columns, from the table's cache of converted
	// columns: a scan the device cannot keep resident loads them on every
	// query, and converting every column of lineitem each time took TPC-H
	// Q1 at SF10 under an 8 GiB pool ~480 ms a run outside its operators.
	cols := x.Cols
	if cols == nil {
		cols = []int{}
	}
	load := func() ([]*coldata.Batch, error) { return t.ColumnBatches(cols) }
	if x.Devices < 2 || x.Replicated {
		return t.Name, load, nil
	}
	if err := b.checkSpread(x.Devices); err != nil {
		return "", nil, err
	}
	return operators.ShareName(t.Name, b.on, x.Devices), operators.RowGroupShare(load, b.on, x.Devices), nil
}

// buildExchange builds (once) the exchange's source, its input once per
// device (or once on device 0), and returns the reader of the device
// being built.
func (b *Built) buildExchange(x *planner.Exchange) (operators.DeviceOperator, error) {
	if err := b.checkSpread(x.Devices); err != nil {
		return nil, err
	}
	src := b.exch[x]
	if src == nil {
		// Its readers' rows and time count in st (buildDevice's
		// instrument, one per device).
		src = &operators.ExchangeSource{Group: b.group, Kind: x.Kind, Keys: x.Keys, Stats: make([]*operators.Stats, len(b.devs))}
		devices := 1
		if x.Spread {
			devices = len(b.devs)
		}
		for i := 0; i < devices; i++ {
			in, err := b.buildOn(x.Input, i)
			if err != nil {
				return nil, err
			}
			src.Inputs = append(src.Inputs, in)
		}
		b.exch[x] = src
	}
	// The bytes this device receives count in its copy's statistics.
	src.Stats[b.on] = b.nodeStats(x)
	return src.Output(b.on), nil
}

// buildOn builds n's device operators over device i.
func (b *Built) buildOn(n planner.Node, i int) (operators.DeviceOperator, error) {
	gpu, on := b.GPU, b.on
	b.GPU, b.on = b.devs[i], i
	defer func() { b.GPU, b.on = gpu, on }()
	return b.buildDevice(n)
}

// twin builds, with HostTwins, a device node that launches generated
// kernels as its host operator between a download and an upload.
func (b *Built) twin(n planner.Node, st *operators.Stats) (operators.DeviceOperator, bool, error) {
	if !b.twins {
		return nil, false, nil
	}
	var ins []planner.Node
	switch n.(type) {
	case *planner.Compute, *planner.DeviceAggregate, *planner.DeviceJoin, *planner.Sort:
		ins = n.Inputs()
	default:
		return nil, false, nil
	}
	host := make([]operators.Operator, len(ins))
	for i, in := range ins {
		d, err := b.buildDevice(in)
		if err != nil {
			return nil, true, err
		}
		host[i] = &operators.DeviceToHost{Input: d, RT: b.GPU, Stats: &operators.Stats{}}
	}
	refs := func(cols []planner.Column, idx []int) []expr.Expr {
		out := make([]expr.Expr, len(idx))
		for i, c := range idx {
			out[i] = &expr.ColumnRef{Index: c, Name: cols[c].Name, T: cols[c].Type}
		}
		return out
	}
	var op operators.Operator
	switch x := n.(type) {
	case *planner.Compute:
		op = host[0]
		if x.Pred != nil {
			op = &operators.Filter{Input: op, Pred: x.Pred}
		}
		if x.Exprs != nil {
			op = &operators.Project{Input: op, Exprs: x.Exprs}
		}
	case *planner.DeviceAggregate:
		keys := make([]int, x.NKeys)
		for i := range keys {
			keys[i] = i
		}
		op = &operators.HashAggregate{Input: host[0], Keys: refs(x.Input.Columns(), keys), Aggs: x.Aggs}
	case *planner.DeviceJoin:
		op = &operators.HashJoin{Left: host[0], Right: host[1], LeftKeys: refs(x.Left.Columns(), x.LeftKeys),
			RightKeys: refs(x.Right.Columns(), x.RightKeys), Cond: x.Cond, Kind: x.Orig.Kind,
			LeftCols: len(x.Left.Columns()), RightTypes: columnTypes(x.Right.Columns())}
		if out, all := len(x.Columns()), len(x.Left.Columns())+len(x.Right.Columns()); out < all && out > len(x.Left.Columns()) {
			// The device join drops the right side's extra columns.
			idx := make([]int, out)
			for i := range idx {
				idx[i] = i
			}
			cols := append(append([]planner.Column(nil), x.Left.Columns()...), x.Right.Columns()...)
			op = &operators.Project{Input: op, Exprs: refs(cols, idx)}
		}
	case *planner.Sort:
		op = &operators.Sort{Input: host[0], Keys: x.Keys, NCols: len(x.Columns())}
	}
	return operators.InstrumentDevice(&operators.HostToDevice{Input: op, RT: b.GPU, Stats: st}, st), true, nil
}
