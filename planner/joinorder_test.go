package planner

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// randomGraph builds a join graph of n one-column leaves with random row
// counts: a random spanning tree of equalities (so it is connected) plus
// extra edges.
func randomGraph(t *testing.T, r *rand.Rand, n, extra int) *joinGraph {
	g := &joinGraph{ncols: n}
	for i := 0; i < n; i++ {
		rows := float64(1 + r.Intn(10000))
		g.leaves = append(g.leaves, joinLeaf{node: &Values{}, offset: i, ncols: 1, base: rows, rows: rows})
	}
	col := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, T: coldata.Int64} }
	for i := 1; i < n; i++ {
		g.addPred(call(t, "=", col(r.Intn(i)), col(i)))
	}
	for k := 0; k < extra; k++ {
		a, b := r.Intn(n), r.Intn(n)
		if a != b {
			g.addPred(call(t, "=", col(a), col(b)))
		}
	}
	g.analyse()
	return g
}

// checkConnected fails when a join of p combines two subtrees that no
// predicate links (a cross product), and returns the leaves p covers.
func checkConnected(t *testing.T, g *joinGraph, p *joinPlan) {
	t.Helper()
	if p.left == nil {
		return
	}
	if !g.connects(p.left.set, p.right.set) {
		t.Fatalf("cross product between %b and %b", p.left.set, p.right.set)
	}
	if p.left.set&p.right.set != 0 || p.left.set|p.right.set != p.set {
		t.Fatalf("bad split of %b: %b %b", p.set, p.left.set, p.right.set)
	}
	checkConnected(t, g, p.left)
	checkConnected(t, g, p.right)
}

func TestJoinOrderSearch(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, tc := range []struct{ n, extra int }{{3, 0}, {5, 2}, {8, 0}, {10, 5}, {12, 3}} {
		for trial := 0; trial < 5; trial++ {
			g := randomGraph(t, r, tc.n, tc.extra)
			all := uint64(1)<<tc.n - 1
			dp, gr := g.dp(all), g.greedy(all)
			if dp == nil || dp.set != all || gr.set != all {
				t.Fatalf("n=%d: plans do not cover every leaf", tc.n)
			}
			checkConnected(t, g, dp)
			checkConnected(t, g, gr)
			// Dynamic programming is exact over connected orders; greedy
			// can only match it.
			if dp.cost > gr.cost*(1+1e-9) {
				t.Errorf("n=%d: dp cost %g above greedy's %g", tc.n, dp.cost, gr.cost)
			}
		}
	}
}

func TestJoinOrderComponents(t *testing.T) {
	g := &joinGraph{ncols: 4}
	for i, rows := range []float64{100, 10, 1000, 5} {
		g.leaves = append(g.leaves, joinLeaf{node: &Values{}, offset: i, ncols: 1, base: rows, rows: rows})
	}
	col := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, T: coldata.Int64} }
	g.addPred(call(t, "=", col(0), col(2)))
	g.addPred(call(t, "=", col(1), col(3)))
	g.addPred(call(t, ">", col(3), lit(1)))
	g.analyse()
	comps := g.components()
	if len(comps) != 2 || comps[0] != 0b0101 || comps[1] != 0b1010 {
		t.Fatalf("components %b", comps)
	}
	if math.Abs(g.leaves[3].rows-5.0/3) > 1e-9 {
		t.Errorf("filtered leaf rows %g", g.leaves[3].rows)
	}
	p := g.order()
	// The two connected parts join inside, and are crossed once at the top.
	if p.left.set|p.right.set != 0b1111 || g.connects(p.left.set, p.right.set) {
		t.Fatalf("top join %b x %b", p.left.set, p.right.set)
	}
	checkConnected(t, g, p.left)
	checkConnected(t, g, p.right)
}

// BenchmarkJoinOrderDP12 orders twelve leaves with many predicates (the
// dynamic programming's worst size).
func BenchmarkJoinOrderDP12(b *testing.B) {
	t := &testing.T{}
	g := randomGraph(t, rand.New(rand.NewSource(3)), 12, 60)
	all := uint64(1)<<12 - 1
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if g.dp(all) == nil {
			b.Fatal("no plan")
		}
	}
}

// TestJoinOrderCompositeKey checks that two equalities between the same
// two leaves (a composite key) count only the more selective one, while an
// equality to a third leaf still counts.
func TestJoinOrderCompositeKey(t *testing.T) {
	g := &joinGraph{ncols: 5}
	// leaf 0: lineitem(partkey, suppkey), leaf 1: partsupp(partkey,
	// suppkey), leaf 2: part(partkey).
	for _, l := range []struct {
		off, ncols int
		rows       float64
	}{{0, 2, 600000}, {2, 2, 80000}, {4, 1, 20000}} {
		g.leaves = append(g.leaves, joinLeaf{node: &Values{}, offset: l.off, ncols: l.ncols, base: l.rows, rows: l.rows})
	}
	col := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, T: coldata.Int64} }
	g.addPred(call(t, "=", col(0), col(2)))
	g.addPred(call(t, "=", col(1), col(3)))
	g.addPred(call(t, "=", col(0), col(4)))
	g.analyse()
	// Without zone maps each equality's selectivity is 1/max(rows).
	if got, want := g.rows(0b011), 80000.0; math.Abs(got-want) > 1e-6 {
		t.Errorf("lineitem x partsupp: %g rows estimated, want %g", got, want)
	}
	if got, want := g.rows(0b101), 20000.0; math.Abs(got-want) > 1e-6 {
		t.Errorf("lineitem x part: %g rows estimated, want %g", got, want)
	}
	if got, want := g.rows(0b111), 80000.0*20000/600000; math.Abs(got-want) > 1e-6 {
		t.Errorf("all three: %g rows estimated, want %g", got, want)
	}
}

// TestJoinOrderEqualityClass checks that equalities implied by others
// (a triangle of keys, written pairwise) are not counted again: of each
// class of equal columns only a spanning tree of the leaves counts, the
// equalities of largest selectivity first.
func TestJoinOrderEqualityClass(t *testing.T) {
	g := &joinGraph{ncols: 6}
	// leaf 0: lineitem(partkey, suppkey), leaf 1: partsupp(partkey,
	// suppkey), leaf 2: supplier(suppkey), leaf 3: part(partkey).
	for _, l := range []struct {
		off, ncols int
		rows       float64
	}{{0, 2, 600000}, {2, 2, 80000}, {4, 1, 1000}, {5, 1, 20000}} {
		g.leaves = append(g.leaves, joinLeaf{node: &Values{}, offset: l.off, ncols: l.ncols, base: l.rows, rows: l.rows})
	}
	col := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, T: coldata.Int64} }
	for _, e := range [][2]int{{0, 2}, {1, 3}, {1, 4}, {3, 4}, {0, 5}, {2, 5}} {
		g.addPred(call(t, "=", col(e[0]), col(e[1])))
	}
	g.analyse()
	if len(g.classes) != 2 {
		t.Fatalf("%d classes, want 2 (partkey, suppkey)", len(g.classes))
	}
	// Without zone maps an equality keeps 1/max(rows): lineitem x
	// partsupp on partkey 1/600,000 (suppkey, the composite key's other
	// column, counts 1), partsupp x supplier 1/80,000, partsupp x part
	// 1/80,000; lineitem's equalities with supplier and part are implied.
	for _, tc := range []struct {
		set  uint64
		want float64
	}{
		{0b0111, 600000.0 * 80000 * 1000 / 600000 / 80000},
		{0b1011, 600000.0 * 80000 * 20000 / 600000 / 80000},
		{0b1111, 600000.0 * 80000 * 1000 * 20000 / 600000 / 80000 / 80000},
		// Without partsupp, lineitem's own equalities with supplier and
		// part count.
		{0b1101, 600000.0 * 1000 * 20000 / 600000 / 600000},
	} {
		if got := g.rows(tc.set); math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("leaves %04b: %g rows estimated, want %g", tc.set, got, tc.want)
		}
	}
}

// joinDistinct caps a side's range-derived distinct values by the other
// side's table when its range lies within the other's (containment), and
// never by the other side's filtered count.
func TestJoinDistinctContainment(t *testing.T) {
	dates := keyStats{ndv: 2557, domain: 2557, lo: 19920101, hi: 19981231, bounded: true}
	orderdate := keyStats{ndv: 69131, domain: 69131, lo: 19920101, hi: 19981231, bounded: true}
	for _, tc := range []struct {
		name   string
		a, b   keyStats
		na, nb float64
	}{
		// SSB's lineorder x dates: yyyymmdd keys span 69,131 values and
		// hold 2,557; the fact side has no more than the dimension's.
		{"dates", orderdate, dates, 2557, 2557},
		{"dates swapped", dates, orderdate, 2557, 2557},
		// A filter on small leaves small.k 3.3 values of its 10; mid.j's 7
		// values, within small.k's range, stay 7.
		{"filtered other side", keyStats{ndv: 7, domain: 7, lo: 0, hi: 6, bounded: true},
			keyStats{ndv: 10.0 / 3, domain: 10, lo: 0, hi: 9, bounded: true}, 7, 10.0 / 3},
		{"disjoint ranges", keyStats{ndv: 50, domain: 50, lo: 0, hi: 49, bounded: true},
			keyStats{ndv: 10, domain: 10, lo: 100, hi: 109, bounded: true}, 50, 10},
		{"no zone maps", keyStats{ndv: 6e6, domain: 6e6}, keyStats{ndv: 1.5e6, domain: 1.5e6}, 6e6, 1.5e6},
	} {
		na, nb := joinDistinct(tc.a, tc.b)
		if math.Abs(na-tc.na) > 1e-9 || math.Abs(nb-tc.nb) > 1e-9 {
			t.Errorf("%s: %g, %g; want %g, %g", tc.name, na, nb, tc.na, tc.nb)
		}
	}
}
