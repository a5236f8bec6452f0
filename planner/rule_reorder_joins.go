package planner

import (
	"math"
	"math/bits"
	"sort"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Join ordering, by example (TPC-H Q3 as written joins customer with
// orders first, then lineitem; estimated sizes decide instead):
//
//	Filter (c_custkey = o_custkey) AND (l_orderkey = o_orderkey) AND ...
//	  Inner NestedLoopJoin
//	    Inner NestedLoopJoin
//	      Scan customer
//	      Scan orders
//	    Scan lineitem
//	=>
//	Project (the columns in the written order)
//	  Inner HashJoin on l_orderkey = o_orderkey
//	    Scan lineitem
//	    Inner HashJoin on o_custkey = c_custkey
//	      Scan orders
//	      Scan customer
//
// Join ordering. ReorderJoins takes each maximal tree of inner joins (comma
// lists and JOIN ... ON alike, with the WHERE filter directly above them),
// flattens it into leaves and predicates, and rebuilds it in the order that
// minimises the sum of estimated intermediate result sizes (C_out): dynamic
// programming over connected subsets (DPsub) up to dpLimit leaves, greedy
// operator ordering above that. Two subtrees are joined only when a
// predicate connects them, so no cross product appears while a connected
// order exists; disconnected components are crossed last, smallest first.
// Outer joins, aggregates and derived tables are leaves (barriers); their
// insides are reordered on their own. A Project on top restores the column
// order the binder gave the tree, so nothing above notices.

// dpLimit is the most leaves ordered by dynamic programming (3^n pairs).
const dpLimit = 12

// Default selectivities where no statistics say better.
const (
	selEqConst = 0.1
	selRange   = 1.0 / 3
	selDefault = 0.5
	// selLike is a LIKE pattern's: TPC-H's '%green%' keeps 5% of parts
	// (Q9), 'PROMO%' 17% (Q14), '%BRASS' 20% (Q2). As the default 0.5
	// it made Q9 join lineitem with all orders before the few parts.
	selLike     = 0.1
	defaultRows = 1000
)

// joinLeaf is one input of a flattened join tree.
type joinLeaf struct {
	node   Node
	offset int // first column in the flattened column space
	ncols  int
	base   float64 // estimated rows it produces
	rows   float64 // estimated rows after the WHERE conjuncts over it alone
}

// joinPred is a conjunct over the flattened column space and the leaves it
// reads.
type joinPred struct {
	e      expr.Expr
	leaves uint64
	sel    float64
	// class is the equivalence class of an equality between columns of
	// two leaves (-1 for any other predicate): see equalityClasses.
	class int
}

// joinGraph is a flattened inner-join tree.
type joinGraph struct {
	leaves []joinLeaf
	preds  []joinPred
	ncols  int
	// classes lists, per equivalence class, its predicates by descending
	// selectivity; memo caches rows by leaf set.
	classes [][]int
	memo    map[uint64]float64
}

// joinPlan is a (sub)tree of the chosen order.
type joinPlan struct {
	set         uint64
	leaf        int // leaf index when left and right are nil
	left, right *joinPlan
	rows, cost  float64
}

// ReorderJoins rewrites every inner-join tree of three or more inputs into
// its cheapest estimated order.
func ReorderJoins(n Node) Node {
	if root, ok := innerJoinRoot(n); ok {
		g := &joinGraph{}
		g.flatten(root, 0)
		if len(g.leaves) >= 3 && len(g.leaves) <= 64 {
			return g.rebuild()
		}
	}
	out, _ := mapInputs(n, func(in Node) (Node, error) { return ReorderJoins(in), nil })
	return out
}

// innerJoinRoot reports whether n is an inner join or a filter over one.
func innerJoinRoot(n Node) (Node, bool) {
	switch x := n.(type) {
	case *Join:
		return n, x.Kind == opspec.InnerJoin
	case *Filter:
		_, ok := innerJoinRoot(x.Input)
		return n, ok
	}
	return nil, false
}

// shifted returns e with every column moved by off.
func shifted(e expr.Expr, off int) expr.Expr {
	if off == 0 || e == nil {
		return e
	}
	m := map[int]int{}
	for c := range expr.Columns(e) {
		m[c] = c + off
	}
	return expr.Remap(e, m)
}

// flatten adds n's leaves and predicates, n's columns starting at off.
func (g *joinGraph) flatten(n Node, off int) {
	if _, ok := innerJoinRoot(n); ok {
		switch x := n.(type) {
		case *Filter:
			g.flatten(x.Input, off)
			for _, p := range conjuncts(x.Pred) {
				g.addPred(shifted(p, off))
			}
			return
		case *Join:
			nl := len(x.Left.Columns())
			g.flatten(x.Left, off)
			g.flatten(x.Right, off+nl)
			eq, _ := expr.Lookup("=")
			for i := range x.LeftKeys {
				l := shifted(x.LeftKeys[i], off)
				r := shifted(x.RightKeys[i], off+nl)
				g.addPred(&expr.Call{Fn: eq, Args: []expr.Expr{l, r}, T: boolType})
			}
			for _, p := range conjuncts(x.Cond) {
				g.addPred(shifted(p, off))
			}
			return
		}
	}
	leaf := ReorderJoins(n)
	nc := len(leaf.Columns())
	r := math.Max(1, estimateRows(leaf))
	g.leaves = append(g.leaves, joinLeaf{node: leaf, offset: off, ncols: nc, base: r, rows: r})
	g.ncols = max(g.ncols, off+nc)
}

// addPred records a conjunct; leaves are known by then (flatten visits
// inputs before the predicates above them).
func (g *joinGraph) addPred(e expr.Expr) {
	g.preds = append(g.preds, joinPred{e: e})
}

// leafOf returns the leaf holding flattened column c.
func (g *joinGraph) leafOf(c int) int {
	i := sort.Search(len(g.leaves), func(i int) bool { return g.leaves[i].offset+g.leaves[i].ncols > c })
	return i
}

// analyse computes each predicate's leaves and selectivity.
func (g *joinGraph) analyse() {
	for i := range g.preds {
		p := &g.preds[i]
		p.leaves = 0
		for c := range expr.Columns(p.e) {
			p.leaves |= 1 << g.leafOf(c)
		}
		if bits.OnesCount64(p.leaves) == 1 {
			li := bits.TrailingZeros64(p.leaves)
			p.sel = selectivityWith(p.e, g.leafStats(li))
			l := &g.leaves[li]
			l.rows = math.Max(1, l.rows*p.sel)
		}
	}
	for i := range g.preds {
		if p := &g.preds[i]; bits.OnesCount64(p.leaves) >= 2 {
			p.sel = g.selectivity(p)
		}
	}
	g.correlateKeys()
	g.equalityClasses()
}

// equalityClasses groups the equalities between columns of two leaves by
// the set of columns they make equal. Of a class's equalities inside a
// join only a spanning tree of its leaves is independent: with
// l.suppkey = ps.suppkey and ps.suppkey = s.suppkey, l.suppkey =
// s.suppkey holds already, and counting its selectivity again shrank a
// lineitem x partsupp x supplier x part join written with every pairwise
// key (547,000 rows) to an estimate of 1 row, made it the build side of
// the joins above and copied it whole twice. rows counts, of each class,
// the spanning tree of the largest selectivities (Kruskal's, over leaves):
// the equalities may differ there because correlateKeys counts a
// composite key's weaker column as 1, and overestimating is the safe side.
func (g *joinGraph) equalityClasses() {
	u := columnSets{}
	cols := make([][2]int, len(g.preds))
	for i := range g.preds {
		p := &g.preds[i]
		p.class = -1
		a, b, ok := columnEquality(p.e)
		if !ok || bits.OnesCount64(p.leaves) != 2 {
			continue
		}
		cols[i] = [2]int{a, b}
		u.union(a, b)
		p.class = 0
	}
	ids := map[int]int{}
	g.classes = nil
	for i := range g.preds {
		p := &g.preds[i]
		if p.class < 0 {
			continue
		}
		root := u.find(cols[i][0])
		id, ok := ids[root]
		if !ok {
			id = len(g.classes)
			ids[root] = id
			g.classes = append(g.classes, nil)
		}
		p.class = id
		g.classes[id] = append(g.classes[id], i)
	}
	for _, c := range g.classes {
		sort.SliceStable(c, func(i, j int) bool { return g.preds[c[i]].sel > g.preds[c[j]].sel })
	}
	g.memo = map[uint64]float64{}
}

// columnEquality returns the columns of an equality between two columns
// of one type (across types, a comparison through a conversion need not
// be transitive).
func columnEquality(e expr.Expr) (int, int, bool) {
	c, ok := e.(*expr.Call)
	if !ok || c.Fn.Name != "=" || len(c.Args) != 2 {
		return 0, 0, false
	}
	a, oka := c.Args[0].(*expr.ColumnRef)
	b, okb := c.Args[1].(*expr.ColumnRef)
	if !oka || !okb || a.T != b.T {
		return 0, 0, false
	}
	return a.Index, b.Index, true
}

// columnSets is a union-find over flattened columns.
type columnSets map[int]int

func (u columnSets) find(c int) int {
	p, ok := u[c]
	if !ok || p == c {
		return c
	}
	r := u.find(p)
	u[c] = r
	return r
}

func (u columnSets) union(a, b int) { u[u.find(a)] = u.find(b) }

// equalWithin groups the columns that the class equalities inside set a,
// or inside set b, make equal: a join of a with b needs, of a class's
// equalities between them, only one per group they connect. The others
// hold once those do (l.suppkey = ps.suppkey with ps.suppkey = s.suppkey
// below makes l.suppkey = s.suppkey a second hash key that keeps no row
// out).
func (g *joinGraph) equalWithin(a, b uint64) columnSets {
	u := columnSets{}
	for _, pr := range g.preds {
		if pr.class < 0 || (pr.leaves&^a != 0 && pr.leaves&^b != 0) {
			continue
		}
		x, y, _ := columnEquality(pr.e)
		u.union(x, y)
	}
	return u
}

// leafStats resolves flattened columns of leaf l to its table's column
// statistics.
func (g *joinGraph) leafStats(l int) statsFunc {
	leaf := g.leaves[l]
	return func(col int) (colStat, bool) { return columnStat(leaf.node, col-leaf.offset) }
}

// correlateKeys keeps, of several equalities between the same two leaves,
// only the most selective one's selectivity: the others count as 1. The
// columns of a composite key are correlated (partsupp's (partkey, suppkey)
// pairs are 80,000 of the 20,000 x 1,000 possible at scale factor 0.1), so
// multiplying the selectivities as if independent underestimates the join
// by up to the product of the others (TPC-H Q9: 2,400 rows estimated for
// lineitem x partsupp, 600,000 actual), and an underestimated join is then
// made the build side of everything above it. Overestimating instead
// costs little: the join is ordered later.
func (g *joinGraph) correlateKeys() {
	best := map[uint64]int{}
	for i := range g.preds {
		p := &g.preds[i]
		if bits.OnesCount64(p.leaves) != 2 || !isEquality(p.e) {
			continue
		}
		b, ok := best[p.leaves]
		switch {
		case !ok:
			best[p.leaves] = i
		case p.sel < g.preds[b].sel:
			g.preds[b].sel = 1
			best[p.leaves] = i
		default:
			p.sel = 1
		}
	}
}

// isEquality reports whether e is an = comparison.
func isEquality(e expr.Expr) bool {
	c, ok := e.(*expr.Call)
	return ok && c.Fn.Name == "=" && len(c.Args) == 2
}

// selectivity estimates the fraction of rows a predicate keeps. An
// equality between two leaves keeps 1/max(distinct values) of the pairs;
// a side's distinct values are its rows (the foreign-key case), fewer when
// the column is an integer column of a table whose zone maps bound its
// range.
func (g *joinGraph) selectivity(p *joinPred) float64 {
	if bits.OnesCount64(p.leaves) == 2 {
		if c, ok := p.e.(*expr.Call); ok && c.Fn.Name == "=" && len(c.Args) == 2 {
			la, oka := g.singleLeaf(c.Args[0])
			lb, okb := g.singleLeaf(c.Args[1])
			if oka && okb && la != lb {
				return 1 / math.Max(joinDistinct(g.distinct(la, c.Args[0]), g.distinct(lb, c.Args[1])))
			}
		}
	}
	return predSelectivity(p.e)
}

// keyStats are a join key's estimated distinct values over its leaf's
// base rows and, when its table's statistics (or, without them, zone maps
// of an integer key) bound it, its range and its distinct values over the
// whole table (domain: before the leaf's filters).
type keyStats struct {
	ndv, domain float64
	lo, hi      float64
	bounded     bool
}

// joinDistinct are the distinct values of an equality's two sides as the
// join sees them. A range-derived count is only a bound (dates kept as
// yyyymmdd integers span 69,130 values and hold 2,557), and under the
// usual containment assumption a side whose range lies within the
// other's has no more distinct values than the other's table holds (its
// domain: the other side's filters do not shrink this side's values):
// without it SSB's
// lineorder x dates was estimated at 2.2M rows instead of 60M and joined
// first, and TPC-H's lineitem x orders at a quarter of its size.
func joinDistinct(a, b keyStats) (float64, float64) {
	na, nb := a.ndv, b.ndv
	if a.bounded && b.bounded {
		if b.lo <= a.lo && a.hi <= b.hi {
			na = math.Min(na, b.domain)
		}
		if a.lo <= b.lo && b.hi <= a.hi {
			nb = math.Min(nb, a.domain)
		}
	}
	return na, nb
}

// distinct estimates the distinct values of e over leaf l's base rows:
// the table's distinct count (its sketch) where it has statistics, at
// most the leaf's rows.
func (g *joinGraph) distinct(l int, e expr.Expr) keyStats {
	leaf := g.leaves[l]
	n := leaf.base
	ref, ok := e.(*expr.ColumnRef)
	if !ok {
		return keyStats{ndv: n}
	}
	t, tc, ok := tableColumn(leaf.node, ref.Index-leaf.offset)
	if !ok {
		return keyStats{ndv: n}
	}
	if d, ok := t.Distinct(tc); ok {
		st := keyStats{ndv: math.Max(1, math.Min(n, d)), domain: math.Max(1, math.Min(float64(t.Rows), d))}
		st.lo, st.hi, st.bounded = t.Range(tc)
		return st
	}
	return zoneKeyStats(t, tc, n)
}

// zoneKeyStats bounds an integer key's distinct values by its range in
// the zone maps, for tables without statistics.
func zoneKeyStats(t *catalog.Table, tc int, n float64) keyStats {
	if len(t.Zones) == 0 {
		return keyStats{ndv: n}
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, zs := range t.Zones {
		if tc >= len(zs) {
			return keyStats{ndv: n}
		}
		z := zs[tc]
		if z.MinI == nil || z.MaxI == nil {
			if z.Nulls >= 0 && z.MinF == nil && z.MinS == nil && z.MaxI == nil {
				continue // an all-NULL record adds no value
			}
			return keyStats{ndv: n}
		}
		lo, hi = min(lo, *z.MinI), max(hi, *z.MaxI)
	}
	if lo > hi {
		return keyStats{ndv: n}
	}
	span := float64(hi) - float64(lo) + 1
	st := keyStats{ndv: math.Min(n, span), lo: float64(lo), hi: float64(hi), bounded: true,
		domain: math.Min(float64(t.Rows), span)}
	st.ndv, st.domain = math.Max(1, st.ndv), math.Max(1, st.domain)
	return st
}

// singleLeaf returns the one leaf e reads, if it reads exactly one.
func (g *joinGraph) singleLeaf(e expr.Expr) (int, bool) {
	leaf := -1
	for c := range expr.Columns(e) {
		l := g.leafOf(c)
		if leaf >= 0 && l != leaf {
			return 0, false
		}
		leaf = l
	}
	return leaf, leaf >= 0
}

// predSelectivity is the textbook guess for a predicate's selectivity.
func predSelectivity(e expr.Expr) float64 {
	c, ok := e.(*expr.Call)
	if !ok {
		return selDefault
	}
	switch c.Fn.Name {
	case "and":
		s := 1.0
		for _, a := range c.Args {
			s *= predSelectivity(a)
		}
		return s
	case "or":
		s := 0.0
		for _, a := range c.Args {
			s += predSelectivity(a)
		}
		return math.Min(1, s)
	case "=":
		return selEqConst
	case "<", "<=", ">", ">=":
		return selRange
	case "like":
		return selLike
	case "not":
		if len(c.Args) == 1 {
			return 1 - predSelectivity(c.Args[0])
		}
	}
	return selDefault
}

// joinKeyDistinct is the distinct values of equi-join j's most selective
// key, the larger side's: each pair of rows matches with probability one
// over it (containment: the side with fewer values finds its values on
// the other). A key's distinct values come from its table's statistics
// (or, without them, its table's rows: a key column of the table), never
// more than its side's estimated rows l or r; a computed key counts its
// side's rows. Without statistics TPC-H Q2's subquery (partsupp joined
// with one region's suppliers) was estimated at 1 row, as the smaller
// side's estimate, so that no rule thought it worth reducing.
func joinKeyDistinct(j *Join, l, r float64) float64 {
	best := 0.0
	for i := range j.LeftKeys {
		lref, lok := j.LeftKeys[i].(*expr.ColumnRef)
		rref, rok := j.RightKeys[i].(*expr.ColumnRef) // over the right side's own columns
		dl, dr := l, r
		if lok {
			dl = keyDistinct(j.Left, lref.Index, l)
		}
		if rok {
			dr = keyDistinct(j.Right, rref.Index, r)
		}
		best = math.Max(best, math.Max(dl, dr))
	}
	if best == 0 {
		return math.Max(l, r)
	}
	return best
}

// keyDistinct estimates the distinct values of column c of n, which has
// about rows rows: those of the table column it reads (keySource follows
// it down through filters, column projections and joins), at most rows.
func keyDistinct(n Node, c int, rows float64) float64 {
	src, sc := keySource(n, c)
	if src == nil {
		return rows
	}
	scan, _ := scanBelow(src)
	if scan.Table == nil || sc >= len(scan.Cols) {
		return rows
	}
	d, ok := scan.Table.Distinct(scan.Cols[sc])
	if !ok {
		d = float64(scan.Table.Rows)
	}
	return math.Max(1, math.Min(d, rows))
}

// estimateRows guesses how many rows n produces.
func estimateRows(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		return float64(x.Table.Rows)
	case *Values:
		return float64(len(x.Rows))
	case *Filter:
		return estimateRows(x.Input) * selectivityWith(x.Pred, nodeStats(x.Input))
	case *Limit:
		return math.Min(float64(x.Count), estimateRows(x.Input))
	case *Aggregate:
		if len(x.Keys) == 0 {
			return 1
		}
		return groupEstimate(x.Input, x.Keys, estimateRows(x.Input))
	case *Distinct:
		in := estimateRows(x.Input)
		cols := x.Input.Columns()
		keys := make([]expr.Expr, len(cols))
		for i, c := range cols {
			keys[i] = &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}
		}
		return groupEstimate(x.Input, keys, in)
	case *Join:
		l, r := estimateRows(x.Left), estimateRows(x.Right)
		if x.Kind == opspec.SemiJoin && len(x.LeftKeys) > 0 {
			// The left rows whose key the right side holds: about the share
			// of the left's keys the right one has, at most all of them.
			// Half of TPC-H Q18's orders x customer (7.5M at SF10) stood
			// for the 624 orders over 300 items: the join above it was
			// sized too large for the GPU under an 8 GiB pool.
			dl, dr := 1.0, 0.0
			for i := range x.LeftKeys {
				lref, lok := x.LeftKeys[i].(*expr.ColumnRef)
				rref, rok := x.RightKeys[i].(*expr.ColumnRef)
				if !lok || !rok {
					return l / 2
				}
				dl = math.Max(dl, keyDistinct(x.Left, lref.Index, l))
				dr = math.Max(dr, keyDistinct(x.Right, rref.Index, r))
			}
			return math.Max(1, l*math.Min(0.5, dr/dl))
		}
		if x.Kind == opspec.SemiJoin || x.Kind == opspec.AntiJoin {
			return l / 2 // at most the left rows, once each
		}
		// A condition besides the keys keeps its share of the pairs: TPC-H
		// Q7's two nations (625 pairs, 2 kept) made the joins above them
		// 300 times too large, and a 1.2M-row build side "33 GiB".
		sel := 1.0
		if x.Cond != nil {
			sel = selectivityWith(x.Cond, nodeStats(x))
		}
		out := l * r * sel
		if len(x.LeftKeys) > 0 {
			out /= math.Max(1, joinKeyDistinct(x, l, r))
		}
		if x.Kind == opspec.LeftJoin {
			out = math.Max(out, l)
		}
		return out
	}
	ins := n.Inputs()
	if len(ins) == 0 {
		return defaultRows
	}
	s := 0.0
	for _, in := range ins {
		s += estimateRows(in)
	}
	return s
}

// groupEstimate guesses how many groups a GROUP BY (or DISTINCT) of in
// rows makes: the product of its keys' distinct values where every key
// is a table column with statistics, at most in; a tenth of in
// otherwise. The flat tenth made a SELECT DISTINCT over lineitem's
// columns including its key (every row its own group) ten times too
// small, and so the build side of the joins above it.
func groupEstimate(input Node, keys []expr.Expr, in float64) float64 {
	groups := 1.0
	for _, k := range keys {
		ref, ok := k.(*expr.ColumnRef)
		if !ok {
			return math.Max(1, in/10)
		}
		src, sc := keySource(input, ref.Index)
		if src == nil {
			return math.Max(1, in/10)
		}
		scan, _ := scanBelow(src)
		if scan == nil || scan.Table == nil || sc >= len(scan.Cols) {
			return math.Max(1, in/10)
		}
		d, ok := scan.Table.Distinct(scan.Cols[sc])
		if !ok {
			return math.Max(1, in/10)
		}
		groups *= d
	}
	return math.Max(1, math.Min(groups, in))
}

// rows estimates the size of the join of the leaves in set: the leaves'
// rows times the selectivities of the predicates between them, of each
// equality class only those of a spanning tree (equalityClasses).
func (g *joinGraph) rows(set uint64) float64 {
	if r, ok := g.memo[set]; ok {
		return r
	}
	r := 1.0
	for s := set; s != 0; s &= s - 1 {
		r *= g.leaves[bits.TrailingZeros64(s)].rows
	}
	for _, p := range g.preds {
		if p.class < 0 && p.leaves&set == p.leaves && bits.OnesCount64(p.leaves) >= 2 {
			r *= p.sel
		}
	}
	var comp [64]uint64 // the leaves joined to each leaf so far
	for _, c := range g.classes {
		for s := set; s != 0; s &= s - 1 {
			i := bits.TrailingZeros64(s)
			comp[i] = 1 << i
		}
		for _, pi := range c {
			p := &g.preds[pi]
			if p.leaves&set != p.leaves {
				continue
			}
			a := bits.TrailingZeros64(p.leaves)
			b := 63 - bits.LeadingZeros64(p.leaves)
			if comp[a]&(1<<b) != 0 {
				continue // implied by the equalities counted already
			}
			r *= p.sel
			merged := comp[a] | comp[b]
			for m := merged; m != 0; m &= m - 1 {
				comp[bits.TrailingZeros64(m)] = merged
			}
		}
	}
	r = math.Max(1, r)
	if g.memo != nil {
		g.memo[set] = r
	}
	return r
}

// connects reports whether a predicate joins a to b.
func (g *joinGraph) connects(a, b uint64) bool {
	for _, p := range g.preds {
		if p.leaves&a != 0 && p.leaves&b != 0 && p.leaves&^(a|b) == 0 {
			return true
		}
	}
	return false
}

// order chooses the join tree.
func (g *joinGraph) order() *joinPlan {
	var comps []*joinPlan
	for _, c := range g.components() {
		var p *joinPlan
		if bits.OnesCount64(c) <= dpLimit {
			p = g.dp(c)
		}
		if p == nil {
			p = g.greedy(c)
		}
		comps = append(comps, p)
	}
	// Cross products between components last, smallest results first.
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].rows < comps[j].rows })
	out := comps[0]
	for _, c := range comps[1:] {
		out = g.join(out, c)
	}
	return out
}

// components splits the leaves into the parts that predicates between two
// leaves connect. (A predicate over three or more leaves is applied where
// its leaves meet; it does not make them joinable pairwise.)
func (g *joinGraph) components() []uint64 {
	n := len(g.leaves)
	var out []uint64
	var seen uint64
	for i := 0; i < n; i++ {
		if seen&(1<<i) != 0 {
			continue
		}
		comp := uint64(1) << i
		for grown := true; grown; {
			grown = false
			for _, p := range g.preds {
				if p.leaves&comp != 0 && p.leaves&^comp != 0 && bits.OnesCount64(p.leaves) == 2 {
					comp |= p.leaves
					grown = true
				}
			}
		}
		seen |= comp
		out = append(out, comp)
	}
	return out
}

// leafPlan is the plan of one leaf.
func (g *joinGraph) leafPlan(i int) *joinPlan {
	return &joinPlan{set: 1 << i, leaf: i, rows: g.leaves[i].rows}
}

// join combines two plans.
func (g *joinGraph) join(a, b *joinPlan) *joinPlan {
	set := a.set | b.set
	r := g.rows(set)
	return &joinPlan{set: set, left: a, right: b, rows: r, cost: a.cost + b.cost + r}
}

// dp finds the cheapest tree for the connected leaf set all by dynamic
// programming over its connected subsets.
func (g *joinGraph) dp(all uint64) *joinPlan {
	best := map[uint64]*joinPlan{}
	for s := all; s != 0; s &= s - 1 {
		i := bits.TrailingZeros64(s)
		best[1<<i] = g.leafPlan(i)
	}
	// Subsets of all in increasing numeric order: every proper subset of s
	// comes before s.
	for s := (0 - all) & all; s != 0; s = (s - all) & all {
		if bits.OnesCount64(s) < 2 {
			continue
		}
		var b *joinPlan
		// Each split once: s1 holds s's lowest leaf.
		low := s & -s
		for s1 := (s - 1) & s; s1 != 0; s1 = (s1 - 1) & s {
			if s1&low == 0 {
				continue
			}
			s2 := s &^ s1
			p1, p2 := best[s1], best[s2]
			if p1 == nil || p2 == nil || !g.connects(s1, s2) {
				continue
			}
			if c := p1.cost + p2.cost; b == nil || c < b.cost-b.rows {
				b = g.join(p1, p2)
			}
		}
		if b != nil {
			best[s] = b
		}
	}
	return best[all]
}

// greedy joins, step by step, the connected pair of subtrees with the
// smallest result (greedy operator ordering).
func (g *joinGraph) greedy(all uint64) *joinPlan {
	var trees []*joinPlan
	for s := all; s != 0; s &= s - 1 {
		trees = append(trees, g.leafPlan(bits.TrailingZeros64(s)))
	}
	for len(trees) > 1 {
		bi, bj, br := -1, -1, 0.0
		for i := range trees {
			for j := i + 1; j < len(trees); j++ {
				if !g.connects(trees[i].set, trees[j].set) {
					continue
				}
				r := g.rows(trees[i].set | trees[j].set)
				if bi < 0 || r < br {
					bi, bj, br = i, j, r
				}
			}
		}
		if bi < 0 {
			break // not connected: the caller's components prevent this
		}
		trees[bi] = g.join(trees[bi], trees[bj])
		trees = append(trees[:bj], trees[bj+1:]...)
	}
	out := trees[0]
	for _, t := range trees[1:] {
		out = g.join(out, t)
	}
	return out
}

// rebuild orders the graph and builds the plan, with a Project restoring
// the original column order when it changed.
func (g *joinGraph) rebuild() Node {
	g.analyse()
	p := g.order()
	var top []expr.Expr // predicates over no leaf
	for _, pr := range g.preds {
		if pr.leaves == 0 {
			top = append(top, pr.e)
		}
	}
	node, layout := g.build(p, top)
	identity := true
	for c, pos := range layout {
		if c != pos {
			identity = false
		}
	}
	if identity {
		return node
	}
	cols := node.Columns()
	proj := &Project{Input: node}
	for c := 0; c < g.ncols; c++ {
		pos := layout[c]
		proj.Exprs = append(proj.Exprs, &expr.ColumnRef{Index: pos, Name: cols[pos].Name, T: cols[pos].Type})
		proj.Out = append(proj.Out, cols[pos])
	}
	return proj
}

// build turns a plan into nodes. It returns the node and, for each
// flattened column it produces, its position in the node's columns.
func (g *joinGraph) build(p *joinPlan, extra []expr.Expr) (Node, map[int]int) {
	if p.left == nil {
		l := g.leaves[p.leaf]
		layout := map[int]int{}
		for i := 0; i < l.ncols; i++ {
			layout[l.offset+i] = i
		}
		var own []expr.Expr
		for _, pr := range g.preds {
			if pr.leaves == p.set {
				own = append(own, expr.Remap(pr.e, layout))
			}
		}
		own = append(own, remapAll(extra, layout)...)
		if len(own) == 0 {
			return l.node, layout
		}
		return &Filter{Input: l.node, Pred: conjoin(own)}, layout
	}
	// The smaller input is the hash join's build (right) side.
	a, b := p.left, p.right
	if b.rows > a.rows {
		a, b = b, a
	}
	ln, ll := g.build(a, nil)
	rn, rl := g.build(b, nil)
	nl := len(ln.Columns())
	layout := ll
	for c, pos := range rl {
		layout[c] = nl + pos
	}
	var conds []expr.Expr
	eq := g.equalWithin(a.set, b.set)
	for _, pr := range g.preds {
		if pr.leaves&a.set != 0 && pr.leaves&b.set != 0 && pr.leaves&^p.set == 0 {
			if pr.class >= 0 {
				x, y, _ := columnEquality(pr.e)
				if eq.find(x) == eq.find(y) {
					continue // implied by the equalities below and those kept
				}
				eq.union(x, y)
			}
			conds = append(conds, expr.Remap(pr.e, layout))
		}
	}
	conds = append(conds, remapAll(extra, layout)...)
	j := &Join{Kind: opspec.InnerJoin, Left: ln, Right: rn}
	j.setCondition(conjoin(conds), nl)
	return j, layout
}

// isPermutation reports whether p only reorders or selects its input's
// columns (the Project ReorderJoins puts above a reordered tree).
func isPermutation(p *Project) bool {
	for _, e := range p.Exprs {
		if _, ok := e.(*expr.ColumnRef); !ok {
			return false
		}
	}
	return true
}

// prunePermutation narrows a column-selecting Project, and its input, to
// the columns used above it.
func prunePermutation(p *Project, used map[int]bool) (Node, map[int]int) {
	in := map[int]bool{}
	for c := range used {
		in[p.Exprs[c].(*expr.ColumnRef).Index] = true
	}
	newIn, m := pruneTo(p.Input, in)
	if m == nil {
		return p, nil
	}
	keep := make([]int, 0, len(used))
	for c := range used {
		keep = append(keep, c)
	}
	sort.Ints(keep)
	remap := map[int]int{}
	np := &Project{placed: p.placed, Input: newIn}
	for i, c := range keep {
		remap[c] = i
		np.Exprs = append(np.Exprs, expr.Remap(p.Exprs[c], m))
		np.Out = append(np.Out, p.Out[c])
	}
	return np, remap
}

// pushThroughPermutation moves filter f below the column-selecting Project
// p (so that PushFilters carries it on into the join below).
func pushThroughPermutation(f *Filter, p *Project) Node {
	m := map[int]int{}
	for c := range expr.Columns(f.Pred) {
		m[c] = p.Exprs[c].(*expr.ColumnRef).Index
	}
	c := *p
	c.Input = PushFilters(&Filter{placed: f.placed, Input: p.Input, Pred: expr.Remap(f.Pred, m)})
	return &c
}
