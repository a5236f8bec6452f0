package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// partTestBatches builds batches of (nullable BIGINT, nullable VARCHAR,
// DOUBLE with -0/0 and NULLs, BOOLEAN, BIGINT near overflow or small,
// DOUBLE) with keys drawn from small domains.
func partTestBatches(rng *rand.Rand, nb, rows, domain int, bigInts bool) []*coldata.Batch {
	var out []*coldata.Batch
	for bi := 0; bi < nb; bi++ {
		n := 1 + rng.Intn(rows)
		bs := []*coldata.Builder{coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n),
			coldata.NewBuilder(coldata.Float64, n), coldata.NewBuilder(coldata.Bool, n),
			coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n)}
		for i := 0; i < n; i++ {
			if rng.Intn(13) == 0 {
				bs[0].AppendNull()
			} else {
				bs[0].AppendInt(int64(rng.Intn(domain)))
			}
			if rng.Intn(11) == 0 {
				bs[1].AppendNull()
			} else {
				bs[1].AppendString(fmt.Sprintf("k%d%s", rng.Intn(domain/4+1), strings.Repeat("x", rng.Intn(20))))
			}
			switch rng.Intn(8) {
			case 0:
				bs[2].AppendNull()
			case 1:
				bs[2].AppendFloat(math.Copysign(0, -1))
			case 2:
				bs[2].AppendFloat(0)
			default:
				bs[2].AppendFloat(float64(rng.Intn(domain)) / 4)
			}
			bs[3].AppendBool(rng.Intn(2) == 0)
			switch {
			case rng.Intn(17) == 0:
				bs[4].AppendNull()
			case bigInts:
				bs[4].AppendInt(math.MaxInt64/3 + rng.Int63n(1000))
			default:
				bs[4].AppendInt(rng.Int63n(2000) - 1000)
			}
			if rng.Intn(19) == 0 {
				bs[5].AppendNull()
			} else {
				bs[5].AppendFloat(rng.NormFloat64() * 1e6)
			}
		}
		cols := make([]*coldata.Vec, len(bs))
		for i, b := range bs {
			cols[i] = b.Finish()
		}
		out = append(out, coldata.NewBatch(cols, n))
	}
	return out
}

func partCol(i int, t coldata.Type) expr.Expr {
	return &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t}
}

// runPartAgg aggregates the batches with the partitioned path from
// threshold rows on (0: never).
func runPartAgg(batches []*coldata.Batch, keys []expr.Expr, aggs []opspec.AggSpec, threshold int, memLimit uint64) ([]*coldata.Batch, bool, error) {
	return runPartAggMax(batches, keys, aggs, threshold, memLimit, 0)
}

// runPartAggMax is runPartAgg with MaxGroups; the parts merge in segments
// of 64 groups.
func runPartAggMax(batches []*coldata.Batch, keys []expr.Expr, aggs []opspec.AggSpec, threshold int, memLimit uint64, maxGroups int) ([]*coldata.Batch, bool, error) {
	h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs, MemoryLimit: memLimit, MaxGroups: maxGroups}
	h.partState.threshold, h.partState.segGroups = threshold, 64
	if threshold == 0 {
		h.partState.threshold = math.MaxInt
	}
	out, err := Drain(context.Background(), h)
	return out, h.merged, err
}

// sameBatches compares results value by value, floats by their bits.
func sameBatches(t *testing.T, got, want []*coldata.Batch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d batches, want %d", len(got), len(want))
	}
	for bi := range got {
		g, w := got[bi], want[bi]
		if g.Len != w.Len || len(g.Cols) != len(w.Cols) {
			t.Fatalf("batch %d: %d rows x %d cols, want %d x %d", bi, g.Len, len(g.Cols), w.Len, len(w.Cols))
		}
		for c := range g.Cols {
			for r := 0; r < g.Len; r++ {
				gv, wv := g.Cols[c].Value(r), w.Cols[c].Value(r)
				gf, gok := gv.(float64)
				wf, wok := wv.(float64)
				if gok && wok {
					if math.Float64bits(gf) != math.Float64bits(wf) {
						t.Fatalf("row %d col %d: %v, want %v", r, c, gf, wf)
					}
					continue
				}
				if gv != wv && fmt.Sprint(gv) != fmt.Sprint(wv) {
					t.Fatalf("row %d col %d: %v, want %v", r, c, gv, wv)
				}
			}
		}
	}
}

// TestPartitionedAggregateMatchesSingleTable checks that the partitioned
// GROUP BY gives the single table's output exactly (groups in order of
// first appearance, float sums bit for bit, -0 keys, NULL groups) and its
// errors (SUM overflow, the memory limit), switching to parts before the
// first batch or after some.
func TestPartitionedAggregateMatchesSingleTable(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggSum, Arg: partCol(4, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: partCol(5, coldata.Float64), Type: coldata.Float64},
		{Kind: opspec.AggAvg, Arg: partCol(5, coldata.Float64), Type: coldata.Float64},
		{Kind: opspec.AggCount, Arg: partCol(1, coldata.String), Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: partCol(1, coldata.String), Type: coldata.String},
		{Kind: opspec.AggMax, Arg: partCol(5, coldata.Float64), Type: coldata.Float64},
		{Kind: opspec.AggSum, Arg: partCol(3, coldata.Bool), Type: coldata.Int64},
		{Kind: opspec.AggMax, Arg: partCol(3, coldata.Bool), Type: coldata.Bool},
		{Kind: opspec.AggMin, Arg: &expr.Literal{Value: int64(7), T: coldata.Int64}, Type: coldata.Int64},
	}
	keySets := map[string][]expr.Expr{
		"int":          {partCol(0, coldata.Int64)},
		"string":       {partCol(1, coldata.String)},
		"float":        {partCol(2, coldata.Float64)},
		"int,string":   {partCol(0, coldata.Int64), partCol(1, coldata.String)},
		"bool,float":   {partCol(3, coldata.Bool), partCol(2, coldata.Float64)},
		"null literal": {&expr.Literal{Value: nil, T: coldata.Null}, partCol(0, coldata.Int64)},
	}
	for _, tc := range []struct {
		name      string
		domain    int
		bigInts   bool
		threshold int
		memLimit  uint64
		maxGroups int
	}{
		{name: "from start", domain: 3000, threshold: 1},
		{name: "after batches", domain: 3000, threshold: 5000},
		{name: "few groups", domain: 8, threshold: 2000},
		{name: "overflow", domain: 2000, bigInts: true, threshold: 1},
		{name: "overflow after batches", domain: 2000, bigInts: true, threshold: 3000},
		{name: "memory limit", domain: 5000, threshold: 1, memLimit: 2_000_000},
		{name: "memory limit after batches", domain: 5000, threshold: 3000, memLimit: 2_000_000},
		{name: "max groups", domain: 5000, threshold: 1, maxGroups: 1500},
		{name: "max groups after batches", domain: 5000, threshold: 3000, maxGroups: 2500},
		{name: "max groups not reached", domain: 300, threshold: 1, maxGroups: 2500},
	} {
		for kn, keys := range keySets {
			t.Run(tc.name+"/"+kn, func(t *testing.T) {
				batches := partTestBatches(rand.New(rand.NewSource(int64(len(tc.name)+len(kn)))), 8, 3000, tc.domain, tc.bigInts)
				want, _, werr := runPartAggMax(batches, keys, aggs, 0, tc.memLimit, tc.maxGroups)
				got, merged, gerr := runPartAggMax(batches, keys, aggs, tc.threshold, tc.memLimit, tc.maxGroups)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("error %v, want %v", gerr, werr)
				}
				if (tc.bigInts || tc.memLimit > 0 || tc.maxGroups == 1500 || tc.maxGroups == 2500 && tc.domain > 2500) && werr == nil {
					t.Fatalf("the case should fail")
				}
				if werr == nil {
					if !merged {
						t.Fatalf("the partitioned path did not run")
					}
					sameBatches(t, got, want)
				}
			})
		}
	}
}

// TestPartitionedCountDistinctMatchesSingleTable checks COUNT(DISTINCT)
// without GROUP BY on split value sets against the single table, next to
// aggregates that stay on it (SUM(DISTINCT), COUNT(*)).
func TestPartitionedCountDistinctMatchesSingleTable(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCount, Arg: partCol(0, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(1, coldata.String), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(2, coldata.Float64), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(3, coldata.Bool), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: partCol(5, coldata.Float64), Distinct: true, Type: coldata.Float64},
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: &expr.Literal{Value: nil, T: coldata.Null}, Distinct: true, Type: coldata.Int64},
	}
	for _, tc := range []struct {
		name      string
		domain    int
		threshold int
	}{
		{name: "from start", domain: 5000, threshold: 1},
		{name: "after batches", domain: 5000, threshold: 4000},
		{name: "few values", domain: 6, threshold: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batches := partTestBatches(rand.New(rand.NewSource(int64(tc.domain))), 8, 3000, tc.domain, false)
			want, _, werr := runPartAgg(batches, nil, aggs, 0, 0)
			got, merged, gerr := runPartAgg(batches, nil, aggs, tc.threshold, 0)
			if werr != nil || gerr != nil {
				t.Fatalf("errors %v, %v", gerr, werr)
			}
			if !merged {
				t.Fatalf("the partitioned path did not run")
			}
			sameBatches(t, got, want)
		})
	}
}
