package planner

import (
	"fmt"
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Exchange placement. With several GPUs open, a placed device plan is
// spread over them: large tables are read where their row groups live
// (balanced over the devices by rows), small ones on every device, and the
// operators above move rows only where the answer needs it:
//
//	SELECT k, COUNT(*) FROM big GROUP BY k ORDER BY 2 DESC LIMIT 5
//
//	Limit 5                            Limit 5
//	  Sort count DESC                    Sort count DESC
//	    HashAggregate keys: k     =>       Exchange gather (3 devices to device 0)
//	      Scan big                           Limit 5
//	                                           Sort count DESC
//	                                             HashAggregate keys: k
//	                                               Exchange repartition by k
//	                                                 Scan big (row groups balanced over 3 devices)
//
// Filters and projections run where their input is. A GROUP BY with keys
// repartitions its rows by key and finishes on every device (each group
// lives on one), unless its keys' zone maps promise few groups; then, as
// without keys, each device aggregates its rows and device 0 merges the
// partial groups (COUNT, SUM, MIN, MAX); DISTINCT aggregates of one
// column x (without keys, or with few groups) repartition by x first, so
// that each device's distinct values are its own and the devices' shares
// are even however skewed the keys. A join keeps its larger (left, probe) side where it
// is and broadcasts the smaller, or, when both are large, repartitions
// both by the join keys. ORDER BY ... LIMIT keeps each device's top rows
// before gathering; everything else gathers its input to device 0, and
// the plan's result is gathered before it leaves the device.

// DefaultSpreadRows is the table size from which a multi-device plan
// spreads a table's row groups over the devices; smaller tables are
// replicated on each (they are cheap to hold everywhere, and a join with
// them then moves nothing).
const DefaultSpreadRows = 1 << 20

// ExchangeOptions size a multi-device plan.
type ExchangeOptions struct {
	// Devices is the number of GPUs the plan runs on (< 2: none placed).
	Devices int
	// SpreadRows is the table size from which a table is spread (0:
	// DefaultSpreadRows).
	SpreadRows int64
}

// where says which devices a placed subtree's output is on.
type where uint8

const (
	onOne      where = iota // device 0 (or the host)
	spread                  // every device, each its own rows
	replicated              // every device, each all the rows
)

type exchanger struct {
	n      int
	spread int64
}

// PlaceExchanges spreads a placed plan over o.Devices GPUs.
func PlaceExchanges(n Node, o ExchangeOptions) Node {
	if o.Devices < 2 {
		return n
	}
	p := &exchanger{n: o.Devices, spread: o.SpreadRows}
	if p.spread <= 0 {
		p.spread = DefaultSpreadRows
	}
	return p.host(n)
}

// host rewrites a host-side subtree: the device subtrees below it end on
// one device.
func (p *exchanger) host(n Node) Node {
	switch x := n.(type) {
	case *Transfer:
		if !x.ToDevice {
			in, w := p.dev(x.Input)
			c := *x
			c.Input = p.one(in, w)
			return &c
		}
	case *DeviceAggregate:
		// Groups merged on the host: spread, the groups stay on the
		// devices and come down once gathered.
		in, w := p.dev(x.Input)
		if w != spread {
			c := *x
			c.Input = p.one(in, w)
			return &c
		}
		g := *x
		g.Dev, g.Why = GPU, ""
		out, ow := p.aggregate(&g, in, w)
		return toSide(p.one(out, ow), CPU)
	}
	if n.Placement() == GPU {
		in, w := p.dev(n)
		return p.one(in, w)
	}
	out, _ := mapInputs(n, func(in Node) (Node, error) { return p.host(in), nil })
	return out
}

// one makes a subtree's output one stream on device 0.
func (p *exchanger) one(n Node, w where) Node {
	switch w {
	case spread:
		return p.exchange(n, ExchangeGather, nil, true)
	case replicated:
		return unreplicate(n)
	}
	return n
}

func (p *exchanger) exchange(n Node, k ExchangeKind, keys []int, spread bool) *Exchange {
	e := &Exchange{Input: n, Kind: k, Keys: keys, Devices: p.n, Spread: spread}
	e.Dev = GPU
	return e
}

// unreplicate reads a replicated subtree's tables on device 0 alone.
func unreplicate(n Node) Node {
	if s, ok := n.(*Scan); ok && s.Replicated {
		c := *s
		c.Devices, c.Replicated = 0, false
		return &c
	}
	if t, ok := n.(*Transfer); ok && t.ToDevice {
		return n
	}
	out, _ := mapInputs(n, func(in Node) (Node, error) { return unreplicate(in), nil })
	return out
}

// dev rewrites a device subtree and says where its output is.
func (p *exchanger) dev(n Node) (Node, where) {
	switch x := n.(type) {
	case *Scan:
		if x.Table == nil {
			return n, onOne
		}
		c := *x
		c.Devices = p.n
		if x.Table.Rows < p.spread {
			c.Replicated = true
			return &c, replicated
		}
		return &c, spread
	case *Compute:
		in, w := p.dev(x.Input)
		return withInputs(x, []Node{in}), w
	case *Transfer:
		if x.ToDevice {
			return withInputs(x, []Node{p.host(x.Input)}), onOne
		}
	case *Limit:
		return p.limit(x)
	case *DeviceAggregate:
		in, w := p.dev(x.Input)
		return p.aggregate(x, in, w)
	case *DeviceJoin:
		return p.join(x)
	}
	// Any other device operator (a sort, a window, a union) runs once,
	// on device 0.
	out, _ := mapInputs(n, func(in Node) (Node, error) {
		d, w := p.dev(in)
		return p.one(d, w), nil
	})
	return out, onOne
}

// limit keeps each device's first Count+Offset rows (in order, under a
// sort) before gathering them, so that only those move.
func (p *exchanger) limit(x *Limit) (Node, where) {
	s, sorted := x.Input.(*Sort)
	below := x.Input
	if sorted {
		below = s.Input
	}
	in, w := p.dev(below)
	if w == spread && x.Count >= 0 {
		var local Node = in
		if sorted {
			local = withInputs(s, []Node{in})
		}
		l := *x
		l.Input, l.Count, l.Offset = local, x.Count+x.Offset, 0
		in = p.exchange(&l, ExchangeGather, nil, true)
	} else {
		in = p.one(in, w)
	}
	if sorted {
		in = withInputs(s, []Node{in})
	}
	return withInputs(x, []Node{in}), onOne
}

// aggregate places a device GROUP BY over in.
func (p *exchanger) aggregate(x *DeviceAggregate, in Node, w where) (Node, where) {
	if w != spread {
		return withInputs(x, []Node{p.one(in, w)}), onOne
	}
	split, at := splitAvgs(x)
	merge, byArg, ok := mergeAggs(split.Aggs, func(col int) string { return distinctRoot(in, col) })
	// With DISTINCT aggregates both plans repartition every row once (by
	// the keys, or by the DISTINCT column before merging); by the
	// DISTINCT column the devices get even shares however skewed the
	// keys (ClickBench's COUNT(DISTINCT UserID) GROUP BY RegionID put 60%
	// of 100M rows on one of two GPUs), so it is taken whenever the
	// groups are few enough to merge on device 0.
	few := x.NKeys > 0 && p.fewGroups(x, in)
	// Keys computed by an expression (a date bucket, a URL's domain) have
	// no zone maps, and usually far fewer values than rows, often skewed
	// ones: each device groups its own rows first and only the partial
	// groups are repartitioned by key, to be merged per device. Rows
	// repartitioned by such a key left one of two GPUs three quarters of
	// them (ClickBench q29's REGEXP_REPLACE domain at 100M rows).
	partialFirst := ok && byArg < 0 && !few && x.NKeys > 0 && computedKeys(in, x.NKeys)
	if x.NKeys > 0 && !partialFirst && (!ok || !few) {
		keys := make([]int, x.NKeys)
		for i := range keys {
			keys[i] = i
		}
		return withInputs(x, []Node{p.exchange(in, ExchangeRepartition, keys, true)}), spread
	}
	if !ok {
		return withInputs(x, []Node{p.one(in, w)}), onOne
	}
	if byArg >= 0 {
		in = p.exchange(in, ExchangeRepartition, []int{byArg}, true)
	}
	part := withInputs(split, []Node{in}).(*DeviceAggregate)
	part.Phase = "partial"
	cols := part.Columns()
	var above Node
	outAt := onOne
	if partialFirst {
		keys := make([]int, x.NKeys)
		for i := range keys {
			keys[i] = i
		}
		above, outAt = p.exchange(part, ExchangeRepartition, keys, true), spread
	} else {
		above = p.exchange(part, ExchangeGather, nil, true)
	}
	keys := make([]expr.Expr, x.NKeys)
	for i := range keys {
		keys[i] = &expr.ColumnRef{Index: i, Name: cols[i].Name, T: cols[i].Type}
	}
	for i := range merge {
		c := x.NKeys + i
		merge[i].Arg = &expr.ColumnRef{Index: c, Name: cols[c].Name, T: cols[c].Type}
	}
	orig := &Aggregate{Input: above, Keys: keys, Aggs: merge, AggNames: split.Orig.AggNames}
	final := &DeviceAggregate{Input: above, Orig: orig, Aggs: merge, NKeys: x.NKeys, Phase: "final"}
	final.Dev = GPU
	if split == x {
		return final, outAt
	}
	if avg, err := finishAvgs(x, final, at); err == nil {
		return avg, outAt
	}
	// (An AVG whose quotient cannot be written: its rows gathered.)
	return withInputs(x, []Node{p.one(in, w)}), onOne
}

// splitAvgs is x with each AVG of a DECIMAL or DOUBLE argument computed
// as a SUM and a COUNT of it, which merge across devices where AVG does
// not (finishAvgs divides them after the merge); at[i] is the position
// of x's aggregate i among the split ones (an AVG's SUM, its COUNT next).
// x itself when it has no such AVG.
func splitAvgs(x *DeviceAggregate) (*DeviceAggregate, []int) {
	var aggs, orig []opspec.AggSpec
	var names []string
	at := make([]int, len(x.Aggs))
	found := false
	for i, a := range x.Aggs {
		at[i] = len(aggs)
		o, name := x.Orig.Aggs[i], x.Orig.AggNames[i]
		if a.Kind != opspec.AggAvg {
			aggs, orig, names = append(aggs, a), append(orig, o), append(names, name)
			continue
		}
		t := a.Arg.Type()
		if !t.IsDecimal() && t != coldata.Float64 {
			return x, nil
		}
		found = true
		sum := opspec.AggSpec{Kind: opspec.AggSum, Arg: a.Arg, Distinct: a.Distinct, Type: opspec.AggResultType(opspec.AggSum, t)}
		count := opspec.AggSpec{Kind: opspec.AggCount, Arg: a.Arg, Distinct: a.Distinct, Type: coldata.Int64}
		osum, ocount := sum, count
		osum.Arg, ocount.Arg = o.Arg, o.Arg
		aggs, orig = append(aggs, sum, count), append(orig, osum, ocount)
		arg := o.Arg.String()
		if a.Distinct {
			arg = "DISTINCT " + arg
		}
		names = append(names, "sum("+arg+")", "count("+arg+")")
	}
	if !found {
		return x, nil
	}
	c := *x
	c.Aggs = aggs
	o := *x.Orig
	o.Aggs, o.AggNames = orig, names
	c.Orig = &o
	return &c, at
}

// finishAvgs computes x's columns from final, the merged split aggregate
// (splitAvgs): each AVG is its merged SUM over its merged COUNT, by the
// division's own rules (a DECIMAL's scale grows by 4, rounded half away
// from zero, as AVG's; NULL where no value was counted, the SUM being
// NULL then), cast to the AVG's type.
func finishAvgs(x *DeviceAggregate, final *DeviceAggregate, at []int) (Node, error) {
	cols := final.Columns()
	ref := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, Name: cols[i].Name, T: cols[i].Type} }
	exprs := make([]expr.Expr, 0, x.NKeys+len(x.Aggs))
	for k := 0; k < x.NKeys; k++ {
		exprs = append(exprs, ref(k))
	}
	div, ok := expr.Lookup("/")
	if !ok {
		return nil, fmt.Errorf("no division function")
	}
	for i, a := range x.Aggs {
		c := x.NKeys + at[i]
		if a.Kind != opspec.AggAvg {
			exprs = append(exprs, ref(c))
			continue
		}
		q, err := expr.NewCall(div, []expr.Expr{ref(c), ref(c + 1)})
		if err != nil {
			return nil, err
		}
		if q, err = expr.CastTo(q, a.Type); err != nil {
			return nil, err
		}
		exprs = append(exprs, q)
	}
	out := &Compute{Input: final, Exprs: exprs, Out: x.Columns(), Fused: true}
	out.Dev = GPU
	return out, nil
}

// fewGroupsMax bounds the groups a GROUP BY merges on one device.
const fewGroupsMax = 1 << 16

// fewGroups reports whether a keyed GROUP BY over in has few enough
// groups, by its key columns' zone maps, that merging every device's
// partial groups on device 0 moves less than repartitioning its rows:
// each device sends at most its groups, where a repartition sends
// (n-1)/n of the rows. Keys whose range is unknown (text, computed
// values, columns without zone maps) count as many.
func (p *exchanger) fewGroups(x *DeviceAggregate, in Node) bool {
	rows := PlacedRows(in)
	groups := 1.0
	for k := 0; k < x.NKeys; k++ {
		span, ok := keySpan(in, k)
		if !ok {
			return false
		}
		groups *= span + 1 // NULL is a group too
	}
	return groups <= fewGroupsMax && groups*float64(p.n) <= rows
}

// keySpan is how many values column col of n can take, followed through
// device filters and projections of plain columns down to a scan: two
// for a BOOLEAN, an integer column's range over its zone maps.
func keySpan(n Node, col int) (float64, bool) {
	for {
		c, ok := n.(*Compute)
		if !ok {
			break
		}
		if c.Exprs != nil {
			ref, isRef := c.Exprs[col].(*expr.ColumnRef)
			if !isRef {
				return 0, false
			}
			col = ref.Index
		}
		n = c.Input
	}
	s, ok := n.(*Scan)
	if !ok || s.Table == nil || col >= len(s.Cols) {
		return 0, false
	}
	tc := s.Cols[col]
	switch t := s.Table.Columns[tc].Type; {
	case t == coldata.Bool:
		return 2, true
	case t.Physical() != coldata.Int64 || t.IsDecimal():
		return 0, false
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, zs := range s.Table.Zones {
		if tc >= len(zs) {
			return 0, false
		}
		z := zs[tc]
		if z.MinI == nil || z.MaxI == nil {
			if z.MinF == nil && z.MinS == nil {
				continue // all NULL
			}
			return 0, false
		}
		lo, hi = min(lo, *z.MinI), max(hi, *z.MaxI)
	}
	if len(s.Table.Zones) == 0 || lo > hi {
		return 0, false
	}
	return float64(hi) - float64(lo) + 1, true
}

// mergeAggs gives the aggregates that merge per-device partial rows of
// aggs (COUNT adds up; SUM, MIN and MAX apply again), and, when some are
// DISTINCT, all over one column, that column (-1 otherwise): the rows
// must be repartitioned by it first, so that each value's rows are on one
// device and the devices' distinct values are disjoint; the other
// aggregates' partials merge all the same, each row being on one device.
// ok is false when some aggregate has no such merge (AVG, variance,
// GROUP_CONCAT...) or DISTINCT ones read columns of different roots
// (root: the value a column carries, so that a column projected twice,
// or cast to a DECIMAL without changing its distinct values, is one).
func mergeAggs(aggs []opspec.AggSpec, root func(col int) string) (merge []opspec.AggSpec, byArg int, ok bool) {
	byArg = -1
	var byRoot string
	for _, a := range aggs {
		m := opspec.AggSpec{Kind: a.Kind, Type: a.Type}
		switch a.Kind {
		case opspec.AggCountStar, opspec.AggCount:
			m.Kind = opspec.AggSum
		case opspec.AggSum, opspec.AggMin, opspec.AggMax:
		default:
			return nil, -1, false
		}
		if a.Distinct {
			c, isCol := a.Arg.(*expr.ColumnRef)
			if !isCol || (byArg >= 0 && root(c.Index) != byRoot) {
				return nil, -1, false
			}
			if byArg < 0 {
				byArg, byRoot = c.Index, root(c.Index)
			}
		}
		merge = append(merge, m)
	}
	return merge, byArg, true
}

// computedKeys reports whether the first nk columns of n (a GROUP BY's
// keys) are all computed by its projection (constants aside), none read
// from a column as it is: a plain column beside, such as a URL, keeps
// as many groups as it has values, which grouping first would not shrink.
func computedKeys(n Node, nk int) bool {
	c, ok := n.(*Compute)
	if !ok || c.Exprs == nil || nk > len(c.Exprs) {
		return false
	}
	computed := false
	for k := 0; k < nk; k++ {
		switch c.Exprs[k].(type) {
		case *expr.ColumnRef:
			return false
		case *expr.Literal:
		default:
			computed = true
		}
	}
	return computed
}

// distinctRoot names the values column col of n carries, for DISTINCT
// aggregates that may share a repartition: through a projection to the
// expression it computes, less a cast of a BIGINT to a DECIMAL of scale
// 0 (one value for one value, as SUM and AVG of an integer read it).
func distinctRoot(n Node, col int) string {
	c, ok := n.(*Compute)
	if !ok || c.Exprs == nil || col >= len(c.Exprs) {
		return fmt.Sprintf("#%d", col)
	}
	e := c.Exprs[col]
	if call, isCall := e.(*expr.Call); isCall && call.Fn != nil && call.Fn.Name == "cast_to_decimal" && len(call.Args) > 0 &&
		call.Args[0].Type() == coldata.Int64 && e.Type().IsDecimal() && e.Type().Scale() == 0 && e.Type().Precision() >= 19 {
		e = call.Args[0]
	}
	return e.String()
}

// join places a device join: the left (probe) side stays where it is
// when it is spread, the right comes to it (replicated tables are there
// already; others are broadcast, or repartitioned with the left side by
// the join keys when both are large).
func (p *exchanger) join(x *DeviceJoin) (Node, where) {
	l, lw := p.dev(x.Left)
	r, rw := p.dev(x.Right)
	with := func(l, r Node, w where) (Node, where) { return withInputs(x, []Node{l, r}), w }
	switch {
	case lw == spread && rw == replicated:
		return with(l, r, spread)
	case lw == spread && rw == onOne:
		return with(l, p.exchange(r, ExchangeBroadcast, nil, false), spread)
	case lw == spread && rw == spread:
		// A broadcast moves the right side to n-1 devices; a
		// repartition moves (n-1)/n of both sides. The sizes are the
		// sides' estimated rows (filters and GROUP BYs counted), so a
		// large table cut down by a selective filter is broadcast.
		lrows, rrows := PlacedRows(l), PlacedRows(r)
		if rrows*float64(p.n-1) > lrows && sameKeyTypes(x) {
			return with(p.exchange(l, ExchangeRepartition, x.LeftKeys, true), p.exchange(r, ExchangeRepartition, x.RightKeys, true), spread)
		}
		return with(l, p.exchange(r, ExchangeBroadcast, nil, true), spread)
	case lw == replicated && rw == replicated:
		return with(l, r, replicated)
	case x.Orig.Kind == opspec.InnerJoin && rw == spread && lw == replicated:
		// Each device joins all the left rows with its right rows.
		return with(l, r, spread)
	case x.Orig.Kind == opspec.InnerJoin && rw == spread:
		return with(p.exchange(l, ExchangeBroadcast, nil, false), r, spread)
	}
	return with(p.one(l, lw), p.one(r, rw), onOne)
}

// PlacedRows estimates how many rows a placed plan's node produces, as
// the join reordering guesses them for logical plans (estimateRows): a
// device filter keeps its predicate's textbook selectivity, a GROUP BY a
// tenth of its rows (one without keys, one row), a join with keys the
// larger side's rows. Exchanges, transfers and projections keep them.
func PlacedRows(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		if x.Table == nil {
			return defaultRows
		}
		return float64(x.Table.Rows)
	case *Compute:
		rows := PlacedRows(x.Input)
		if x.Pred != nil {
			rows *= predSelectivity(x.Pred)
		}
		return rows
	case *DeviceAggregate:
		if x.NKeys == 0 {
			return 1
		}
		return math.Max(1, PlacedRows(x.Input)/10)
	case *DeviceJoin:
		l, r := PlacedRows(x.Left), PlacedRows(x.Right)
		switch {
		case x.Orig.Kind == opspec.SemiJoin || x.Orig.Kind == opspec.AntiJoin:
			return l / 2
		case len(x.LeftKeys) == 0:
			return l * r
		case x.Orig.Kind == opspec.LeftJoin:
			return math.Max(l, l*r/math.Max(1, math.Max(l, r)))
		}
		return l * r / math.Max(1, math.Max(l, r))
	case *Limit:
		if x.Count >= 0 {
			return math.Min(float64(x.Count), PlacedRows(x.Input))
		}
		return PlacedRows(x.Input)
	case *Values, *Filter, *Aggregate, *Join:
		// Logical nodes (a host subtree): estimateRows.
	default:
		// Exchanges, transfers, projections, sorts, unions: their
		// inputs' rows.
		if ins := n.Inputs(); len(ins) > 0 {
			rows := 0.0
			for _, in := range ins {
				rows += PlacedRows(in)
			}
			return rows
		}
	}
	return estimateRows(n)
}

// sameKeyTypes reports whether both sides' join keys have one type each
// (a hash repartition sends equal values of one type to one device).
func sameKeyTypes(x *DeviceJoin) bool {
	lc, rc := x.Left.Columns(), x.Right.Columns()
	for i := range x.LeftKeys {
		if lc[x.LeftKeys[i]].Type != rc[x.RightKeys[i]].Type {
			return false
		}
	}
	return true
}
