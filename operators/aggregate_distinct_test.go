package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// TestCountDistinctOnCores checks COUNT(DISTINCT) over BIGINT and VARCHAR
// arguments with NULLs, with and without GROUP BY, on batches large
// enough to be cut into ranges: the output on one core (one pairSet or
// table, in row order) and on several (staged parts) is the same, and
// without GROUP BY it is a Go map's count.
func TestCountDistinctOnCores(t *testing.T) {
	batches := partTestBatches(rand.New(rand.NewSource(5)), 6, 30000, 20000, false)
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCount, Arg: partCol(0, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(1, coldata.String), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(4, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: partCol(4, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: &expr.Literal{Value: nil, T: coldata.Null}, Distinct: true, Type: coldata.Int64},
	}
	run := func(procs int, keys []expr.Expr) []*coldata.Batch {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs}
		out, err := Drain(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for name, keys := range map[string][]expr.Expr{"no keys": nil, "BOOLEAN key": {partCol(3, coldata.Bool)}, "VARCHAR key": {partCol(1, coldata.String)}} {
		t.Run(name, func(t *testing.T) {
			want := run(1, keys)
			for _, procs := range []int{2, 4, 7} {
				sameBatches(t, run(procs, keys), want)
			}
			if keys != nil {
				return
			}
			ints, ints4, strs := map[int64]bool{}, map[int64]bool{}, map[string]bool{}
			for _, b := range batches {
				for r := 0; r < b.Len; r++ {
					if !b.Cols[0].IsNull(r) {
						ints[b.Cols[0].Ints[r]] = true
					}
					if !b.Cols[1].IsNull(r) {
						strs[string(b.Cols[1].Str(r))] = true
					}
					if !b.Cols[4].IsNull(r) {
						ints4[b.Cols[4].Ints[r]] = true
					}
				}
			}
			got := want[0]
			for c, n := range map[int]int{0: len(ints), 1: len(strs), 3: len(ints4), 5: 0} {
				if v := got.Cols[c].Value(0); v != int64(n) {
					t.Errorf("column %d: %v, want %d", c, v, n)
				}
			}
		})
	}
}

// TestCoalescedBatchesMatch checks that joining small input batches
// changes no output: groups in first-appearance order, integer sums,
// MIN/MAX of strings, GROUP_CONCAT's row order, COUNT(DISTINCT) and the
// groups a LIMIT without ORDER BY keeps, with a batch whose key column is
// of the Null type (which is not joined with the others) and one of a
// single row.
func TestCoalescedBatchesMatch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	batches := partTestBatches(rand.New(rand.NewSource(9)), 12, 300, 40, false)
	nullKeys := coldata.NewBatch(append([]*coldata.Vec{coldata.NewConst(coldata.Null, nil, 3)}, coldata.SliceBatch(batches[0], 0, 3).Cols[1:]...), 3)
	batches = append(batches[:5], append([]*coldata.Batch{nullKeys, coldata.SliceBatch(batches[1], 0, 1)}, batches[5:]...)...)
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: partCol(4, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: partCol(1, coldata.String), Type: coldata.String},
		{Kind: opspec.AggMax, Arg: partCol(0, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(4, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: opspec.AggGroupConcat, Arg: partCol(1, coldata.String), Separator: ",", Type: coldata.String},
		{Kind: opspec.AggAvg, Arg: partCol(4, coldata.Int64), Type: coldata.Float64},
	}
	for name, keys := range map[string][]expr.Expr{"no keys": nil, "BIGINT key": {partCol(0, coldata.Int64)}, "two keys": {partCol(0, coldata.Int64), partCol(3, coldata.Bool)}} {
		for _, first := range []int{0, 5} {
			t.Run(fmt.Sprintf("%s first=%d", name, first), func(t *testing.T) {
				run := func(hook int) ([]*coldata.Batch, bool) {
					h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs}
					h.coalesceHook = hook
					if keys != nil {
						h.FirstGroups = first
					}
					out, err := Drain(context.Background(), h)
					if err != nil {
						t.Fatal(err)
					}
					return out, h.carry == nil && len(h.pending) == 0
				}
				want, _ := run(-1)
				for _, hook := range []int{1, 100, 400} {
					got, empty := run(hook)
					if !empty {
						t.Fatalf("batches left pending")
					}
					sameBatches(t, got, want)
				}
			})
		}
	}
}

// TestCountDistinctBigintReference checks COUNT(DISTINCT BIGINT) through
// HashAggregate, with GROUP BY a nullable BIGINT key and without, on one
// core (pairSet in row order) and several (pairParts, whose ranges and
// parts the batches' sizes exercise), against a Go map per group: Zipf-
// skewed values, frequent ones the staging caches drop, NULL values and
// keys, and the extremes of int64. (Flushes during the input are
// TestPairParts' and TestPairPartsRandomized's.)
func TestCountDistinctBigintReference(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	zipf := rand.NewZipf(rng, 1.1, 3, 50000)
	var batches []*coldata.Batch
	type pair struct {
		k    int64
		kNul bool
		v    int64
	}
	seen := map[pair]bool{}
	for bi := 0; bi < 8; bi++ {
		n := []int{1, 700, 3*pairStageRows + 1, 60000}[bi%4]
		kb, vb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			var p pair
			if rng.Intn(50) == 0 {
				kb.AppendNull()
				p.kNul = true
			} else {
				p.k = int64(zipf.Uint64() % 300)
				kb.AppendInt(p.k)
			}
			switch rng.Intn(20) {
			case 0:
				vb.AppendNull()
				continue
			case 1:
				p.v = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.Intn(4)]
			default:
				p.v = int64(zipf.Uint64()) * 7919
			}
			vb.AppendInt(p.v)
			seen[p] = true
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{kb.Finish(), vb.Finish()}, n))
	}
	aggs := []opspec.AggSpec{{Kind: opspec.AggCount, Arg: partCol(1, coldata.Int64), Distinct: true, Type: coldata.Int64}}
	for _, grouped := range []bool{false, true} {
		want := map[pair]int64{} // per key (v 0)
		distinct := map[pair]bool{}
		for p := range seen {
			if !grouped {
				p.k, p.kNul = 0, false
			}
			distinct[p] = true
		}
		for p := range distinct {
			p.v = 0
			want[p]++
		}
		var keys []expr.Expr
		if grouped {
			keys = []expr.Expr{partCol(0, coldata.Int64)}
		}
		for _, procs := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("grouped=%v,procs=%d", grouped, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs}
				out, err := Drain(context.Background(), h)
				if err != nil {
					t.Fatal(err)
				}
				got := map[pair]int64{}
				for _, b := range out {
					for r := 0; r < b.Len; r++ {
						var p pair
						c := b.Cols[0]
						if grouped {
							if c.IsNull(r) {
								p.kNul = true
							} else {
								p.k = c.Ints[r]
							}
							c = b.Cols[1]
						}
						got[p] = c.Value(r).(int64)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%d groups, want %d", len(got), len(want))
				}
				for p, w := range want {
					if got[p] != w {
						t.Fatalf("group %+v: %d distinct values, want %d", p, got[p], w)
					}
				}
			})
		}
	}
}

// A large batch after small pending ones is consumed as it comes, not
// copied to join them: the small ones before it are joined alone.
func TestCoalesceLeavesLargeBatches(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var all *coldata.Batch
	for seed := int64(1); all == nil || all.Len < 600; seed++ {
		all = partTestBatches(rand.New(rand.NewSource(seed)), 1, 2000, 40, false)[0]
	}
	small := func(lo int) *coldata.Batch { return coldata.SliceBatch(all, lo, lo+10) }
	big := coldata.SliceBatch(all, 100, 600)
	in := []*coldata.Batch{small(0), small(10), big, small(20), small(30), small(40)}
	h := &HashAggregate{Input: &Materialized{Batches: in}, Keys: []expr.Expr{partCol(0, coldata.Int64)}, Aggs: []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}}}
	h.coalesceHook = 100
	ctx := context.Background()
	if err := h.Input.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var lens []int
	for {
		b, _, err := h.nextInput(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		if b.Len == big.Len && b != big {
			t.Errorf("the large batch was copied")
		}
		lens = append(lens, b.Len)
	}
	if want := []int{20, 500, 30}; !slices.Equal(lens, want) {
		t.Errorf("batches of %v rows, want %v", lens, want)
	}
}
