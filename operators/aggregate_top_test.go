package operators

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// topGroupsByWord picks the groups a stable sort by value followed by a
// LIMIT reads, ties included (values drawn from a few, so most compare
// equal), and with ties asked for, every group tied with the k-th too.
func TestTopGroupsByWordIsStableSortPrefix(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{1, 2, 10, 1000, 20000} {
		for _, spread := range []int64{1, 3, 1 << 40} {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = r.Int63n(spread) - spread/2
			}
			for _, desc := range []bool{true, false} {
				for _, k := range []int{1, 3, 10, n - 1, n} {
					if k < 1 {
						continue
					}
					order := make([]int, n)
					for i := range order {
						order[i] = i
					}
					sort.SliceStable(order, func(a, b int) bool {
						if desc {
							return vals[order[a]] > vals[order[b]]
						}
						return vals[order[a]] < vals[order[b]]
					})
					want := slices.Clone(order[:min(k, n)])
					slices.Sort(want)
					word := func(g int) uint64 {
						w := gpuexec.IntWord(vals[g])
						if desc {
							w = ^w
						}
						return w
					}
					got := topGroupsByWord(n, k, word, nil)
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d spread=%d desc=%v k=%d: got %v, want %v", n, spread, desc, k, got[:min(len(got), 10)], want[:min(len(want), 10)])
					}
					kth := vals[order[min(k, n)-1]]
					for _, g := range order[min(k, n):] {
						if vals[g] == kth {
							want = append(want, g)
						}
					}
					slices.Sort(want)
					got = topGroupsByWord(n, k, word, func(uint64) bool { return true })
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d spread=%d desc=%v k=%d with ties: got %d groups, want %d", n, spread, desc, k, len(got), len(want))
					}
				}
			}
		}
	}
}

// A HashAggregate with Top, under the same sort and limit, answers as
// without it: many groups, values that tie, every state kind the cut
// compacts, ordering by COUNT, SUM, AVG, MIN, MAX (BIGINT, DOUBLE,
// DECIMAL) or the key, NULLs either end, a second term; a string MIN
// keeps every group (not cut) and still agrees.
func TestHashAggregateTopMatchesFullSort(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(8))
	const n = 30000
	// Three batches: partitioned, the first builds the single table and
	// the later ones go to the parts.
	var batches []*coldata.Batch
	for range 3 {
		const m = n / 3
		decT := coldata.DecimalOf(12, 2)
		kb, vb, sb := coldata.NewBuilder(coldata.Int64, m), coldata.NewBuilder(coldata.Int64, m), coldata.NewBuilder(coldata.String, m)
		db, fb := coldata.NewBuilder(decT, m), coldata.NewBuilder(coldata.Float64, m)
		for i := 0; i < m; i++ {
			if r.Intn(500) == 0 {
				kb.AppendNull()
			} else {
				kb.AppendInt(int64(r.Intn(12000)))
			}
			if r.Intn(9) == 0 {
				vb.AppendNull()
				db.AppendNull()
			} else {
				vb.AppendInt(int64(r.Intn(1000) - 500))
				db.AppendDec(decimal.FromInt64(int64(r.Intn(100_000) - 50_000)))
			}
			sb.AppendString(string(rune('a' + r.Intn(26))))
			fb.AppendFloat(float64(r.Intn(40)-20) / 4)
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{kb.Finish(), vb.Finish(), sb.Finish(), db.Finish(), fb.Finish()}, m))
	}
	key := &expr.ColumnRef{Index: 0, T: coldata.Int64}
	v := &expr.ColumnRef{Index: 1, T: coldata.Int64}
	s := &expr.ColumnRef{Index: 2, T: coldata.String}
	d := &expr.ColumnRef{Index: 3, T: coldata.DecimalOf(12, 2)}
	f := &expr.ColumnRef{Index: 4, T: coldata.Float64}
	count := opspec.AggSpec{Kind: opspec.AggCountStar, Type: coldata.Int64}
	for _, tc := range []struct {
		name string
		aggs []opspec.AggSpec
		top  opspec.TopGroups
		cut  bool
		// sort is the ORDER BY when not the top's term alone.
		sort []opspec.SortKey
	}{
		{"count desc", []opspec.AggSpec{count, {Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}, {Kind: opspec.AggAvg, Arg: v, Type: coldata.Float64}, {Kind: opspec.AggMin, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 0, Desc: true, Limit: 10}, true, nil},
		{"count(v) asc with offset", []opspec.AggSpec{{Kind: opspec.AggMax, Arg: v, Type: coldata.Int64}, {Kind: opspec.AggCount, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 1, Limit: 25}, true, nil},
		{"string MIN keeps every group", []opspec.AggSpec{count, {Kind: opspec.AggMin, Arg: s, Type: coldata.String}}, opspec.TopGroups{Agg: 0, Desc: true, Limit: 7}, false, nil},
		{"sum desc", []opspec.AggSpec{count, {Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 1, Desc: true, Limit: 10}, true, nil},
		{"sum asc, NULL sums first", []opspec.AggSpec{{Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}, count}, opspec.TopGroups{Agg: 0, Limit: 40}, true, nil},
		{"avg desc NULLS FIRST", []opspec.AggSpec{count, {Kind: opspec.AggAvg, Arg: v, Type: coldata.Float64}}, opspec.TopGroups{Agg: 1, Desc: true, Nulls: opspec.NullsFirst, Limit: 30}, true, nil},
		{"min asc NULLS LAST, ties", []opspec.AggSpec{count, {Kind: opspec.AggMin, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 1, Nulls: opspec.NullsLast, Limit: 10}, true, nil},
		{"max of a DOUBLE desc, then the key", []opspec.AggSpec{count, {Kind: opspec.AggMax, Arg: f, Type: coldata.Float64}}, opspec.TopGroups{Agg: 1, Desc: true, Ties: true, Limit: 10}, true,
			[]opspec.SortKey{{Col: 2, Desc: true}, {Col: 0}}},
		{"DECIMAL sum desc", []opspec.AggSpec{count, {Kind: opspec.AggSum, Arg: d, Type: expr.DecimalSumType(d.T)}}, opspec.TopGroups{Agg: 1, Desc: true, Limit: 10}, true, nil},
		{"DECIMAL avg asc", []opspec.AggSpec{count, {Kind: opspec.AggAvg, Arg: d, Type: expr.DecimalAvgType(d.T)}}, opspec.TopGroups{Agg: 1, Limit: 10}, true, nil},
		{"key desc", []opspec.AggSpec{count, {Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 0, Key: true, Desc: true, Limit: 10}, true, nil},
		{"key asc, NULL key first", []opspec.AggSpec{count}, opspec.TopGroups{Agg: 0, Key: true, Limit: 5}, true, nil},
	} {
		keys := tc.sort
		if keys == nil {
			col := 1 + tc.top.Agg
			if tc.top.Key {
				col = tc.top.Agg
			}
			keys = []opspec.SortKey{{Col: col, Desc: tc.top.Desc, Nulls: tc.top.Nulls}}
		}
		run := func(top *opspec.TopGroups, parts bool) ([]string, int) {
			t.Helper()
			h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: []expr.Expr{key}, Aggs: tc.aggs, Top: top}
			if parts {
				h.threshold = n / 2
			}
			sorted := &Sort{Input: h, Keys: keys, NCols: 1 + len(tc.aggs), Limit: int64(tc.top.Limit)}
			if err := sorted.Open(ctx); err != nil {
				t.Fatal(err)
			}
			defer sorted.Close()
			var rows []string
			for {
				b, err := sorted.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if b == nil {
					break
				}
				for i := 0; i < b.Len && len(rows) < tc.top.Limit; i++ {
					var f []string
					for _, c := range b.Cols {
						f = append(f, fmt.Sprint(c.Value(i)))
					}
					rows = append(rows, strings.Join(f, "|"))
				}
			}
			if h.merged != parts {
				t.Fatalf("%s: partitioned %v, want %v", tc.name, h.merged, parts)
			}
			return rows, h.ngroups
		}
		want, all := run(nil, false)
		for _, parts := range []bool{false, true} {
			got, kept := run(&tc.top, parts)
			if !slices.Equal(got, want) {
				t.Errorf("%s (parts %v):\ngot  %v\nwant %v", tc.name, parts, got, want)
			}
			if cut := kept < all; cut != tc.cut {
				t.Errorf("%s (parts %v): %d of %d groups built, cut %v, want %v", tc.name, parts, kept, all, cut, tc.cut)
			}
		}
	}
}
