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
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// topGroupsBy picks the groups a stable sort by value followed by a LIMIT
// reads, ties included (values drawn from a few, so most compare equal).
func TestTopGroupsByIsStableSortPrefix(t *testing.T) {
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
					got := topGroupsBy(n, k, desc, func(g int) int64 { return vals[g] })
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d spread=%d desc=%v k=%d: got %v, want %v", n, spread, desc, k, got[:min(len(got), 10)], want[:min(len(want), 10)])
					}
				}
			}
		}
	}
}

// A HashAggregate with Top, under the same sort and limit, answers as
// without it: many groups, counts that tie, every state kind the cut
// compacts; a string MIN keeps every group (not cut) and still agrees.
func TestHashAggregateTopMatchesFullSort(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(8))
	const n = 30000
	// Three batches: partitioned, the first builds the single table and
	// the later ones go to the parts.
	var batches []*coldata.Batch
	for range 3 {
		const m = n / 3
		kb, vb, sb := coldata.NewBuilder(coldata.Int64, m), coldata.NewBuilder(coldata.Int64, m), coldata.NewBuilder(coldata.String, m)
		for i := 0; i < m; i++ {
			kb.AppendInt(int64(r.Intn(12000)))
			if r.Intn(9) == 0 {
				vb.AppendNull()
			} else {
				vb.AppendInt(int64(r.Intn(1000) - 500))
			}
			sb.AppendString(string(rune('a' + r.Intn(26))))
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{kb.Finish(), vb.Finish(), sb.Finish()}, m))
	}
	key := &expr.ColumnRef{Index: 0, T: coldata.Int64}
	v := &expr.ColumnRef{Index: 1, T: coldata.Int64}
	s := &expr.ColumnRef{Index: 2, T: coldata.String}
	for _, tc := range []struct {
		name string
		aggs []opspec.AggSpec
		top  opspec.TopGroups
		cut  bool
	}{
		{"count desc", []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}, {Kind: opspec.AggAvg, Arg: v, Type: coldata.Float64}, {Kind: opspec.AggMin, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 0, Desc: true, Limit: 10}, true},
		{"count(v) asc with offset", []opspec.AggSpec{{Kind: opspec.AggMax, Arg: v, Type: coldata.Int64}, {Kind: opspec.AggCount, Arg: v, Type: coldata.Int64}}, opspec.TopGroups{Agg: 1, Limit: 25}, true},
		{"string MIN keeps every group", []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggMin, Arg: s, Type: coldata.String}}, opspec.TopGroups{Agg: 0, Desc: true, Limit: 7}, false},
	} {
		run := func(top *opspec.TopGroups, parts bool) ([]string, int) {
			t.Helper()
			h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: []expr.Expr{key}, Aggs: tc.aggs, Top: top}
			if parts {
				h.threshold = n / 2
			}
			sorted := &Sort{Input: h, Keys: []opspec.SortKey{{Col: 1 + tc.top.Agg, Desc: tc.top.Desc}}, NCols: 1 + len(tc.aggs), Limit: int64(tc.top.Limit)}
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
