package operators

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// TestMergePositions checks the parallel merge of the parts' order keys
// against a sort of all of them: parts of very different sizes, empty
// parts, keys clustered in one part, one segment or many.
func TestMergePositions(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, tc := range []struct {
		name   string
		parts  int
		keys   int
		skew   bool // runs of keys in one part
		groups int  // segGroups
	}{
		{"one part", 1, 1000, false, 16},
		{"two parts one segment", 2, 1000, false, 1 << 20},
		{"four parts many segments", 4, 5000, false, 16},
		{"sixteen parts skewed", 16, 20000, true, 32},
		{"more parts than keys", 8, 5, false, 1},
		{"no keys", 4, 0, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(tc.keys + tc.parts)))
			firsts := make([][]int64, tc.parts)
			var all []int64
			key, part := int64(0), 0
			for i := 0; i < tc.keys; i++ {
				key += 1 + rng.Int63n(5)
				if !tc.skew || rng.Intn(50) == 0 {
					part = rng.Intn(tc.parts)
				}
				firsts[part] = append(firsts[part], key)
				all = append(all, key)
			}
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			pos, err := mergePositions(context.Background(), firsts, tc.groups)
			if err != nil {
				t.Fatal(err)
			}
			for p, f := range firsts {
				for i, k := range f {
					want, _ := slices.BinarySearch(all, k)
					if int(pos[p][i]) != want {
						t.Fatalf("part %d group %d (key %d): position %d, want %d", p, i, k, pos[p][i], want)
					}
				}
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mergePositions(ctx, [][]int64{{1, 2}, {3}}, 1); err == nil {
		t.Fatal("a cancelled merge did not fail")
	}
}

// TestPartitionedTopMatchesSingleTable checks that a partitioned GROUP BY
// under Top (ORDER BY COUNT LIMIT) builds only the groups it reads and
// gives the single table's rows, ties in order of first appearance.
func TestPartitionedTopMatchesSingleTable(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	batches := partTestBatches(rand.New(rand.NewSource(3)), 8, 3000, 4000, false)
	keySets := map[string][]expr.Expr{
		"int":          {partCol(0, coldata.Int64)},
		"string":       {partCol(1, coldata.String)},
		"float":        {partCol(2, coldata.Float64)},
		"int,string":   {partCol(0, coldata.Int64), partCol(1, coldata.String)},
		"null literal": {&expr.Literal{Value: nil, T: coldata.Null}, partCol(0, coldata.Int64)},
	}
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggSum, Arg: partCol(4, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(1, coldata.String), Type: coldata.Int64},
		{Kind: opspec.AggAvg, Arg: partCol(5, coldata.Float64), Type: coldata.Float64},
		{Kind: opspec.AggMin, Arg: partCol(4, coldata.Int64), Type: coldata.Int64},
	}
	for kn, keys := range keySets {
		for _, top := range []opspec.TopGroups{{Agg: 1, Desc: true, Limit: 10}, {Agg: 2, Limit: 7}, {Agg: 1, Desc: true, Limit: 1}} {
			t.Run(fmt.Sprintf("%s/%+v", kn, top), func(t *testing.T) {
				run := func(threshold int, cut *opspec.TopGroups) ([]*coldata.Batch, *HashAggregate) {
					h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: keys, Aggs: aggs, Top: cut}
					h.partState.threshold, h.partState.segGroups = threshold, 64
					s := &Sort{Input: h, Keys: []opspec.SortKey{{Col: len(keys) + top.Agg, Desc: top.Desc}}, NCols: len(keys) + len(aggs), Limit: int64(top.Limit)}
					out, err := Drain(context.Background(), s)
					if err != nil {
						t.Fatal(err)
					}
					return out, h
				}
				want, _ := run(1<<30, &top)
				full, _ := run(1, nil)
				got, h := run(1, &top)
				if !h.merged {
					t.Fatal("the partitioned path did not run")
				}
				if h.ngroups != top.Limit {
					t.Fatalf("%d groups built, want %d", h.ngroups, top.Limit)
				}
				cut := func(bs []*coldata.Batch) []*coldata.Batch {
					b := coldata.Concat(bs, len(keys)+len(aggs))
					return []*coldata.Batch{coldata.SliceBatch(b, 0, min(b.Len, top.Limit))}
				}
				sameBatches(t, cut(got), cut(want))
				sameBatches(t, cut(full), cut(want))
			})
		}
	}
}

// TestPrefixSums checks the blockwise parallel prefix sum against a
// running sum, at lengths around its block size.
func TestPrefixSums(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 1000, 1 << 16, 3<<16 + 5, 10<<16 - 1} {
		x := make([]int, n)
		want := make([]int, n)
		s := 0
		for i := range x {
			x[i] = rng.Intn(100)
			s += x[i]
			want[i] = s
		}
		prefixSums(x)
		if !slices.Equal(x, want) {
			t.Fatalf("n=%d: prefix sums differ", n)
		}
	}
}

// TestPartitionedEmptyParts checks parts that end with no groups (the
// string MIN/MAX of a part 0 without groups once went missing), or with
// no rows in the last batch: three groups over eight parts, and a last
// batch of one row.
func TestPartitionedEmptyParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: partCol(1, coldata.String), Type: coldata.String},
		{Kind: opspec.AggMax, Arg: partCol(1, coldata.String), Type: coldata.String},
		{Kind: opspec.AggSum, Arg: partCol(4, coldata.Int64), Type: coldata.Int64},
	}
	keys := []expr.Expr{partCol(0, coldata.Int64)}
	for seed := 0; seed < 5; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		batches := append(partTestBatches(rng, 6, 3000, 2, false), partTestBatches(rng, 1, 1, 2, false)...)
		want, _, werr := runPartAgg(batches, keys, aggs, 0, 0)
		got, merged, gerr := runPartAgg(batches, keys, aggs, 1, 0)
		if werr != nil || gerr != nil {
			t.Fatalf("errors %v, %v", gerr, werr)
		}
		if !merged {
			t.Fatal("the partitioned path did not run")
		}
		sameBatches(t, got, want)
	}
}
