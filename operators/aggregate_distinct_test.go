package operators

import (
	"context"
	"math/rand"
	"runtime"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// TestCountDistinctOnCores checks COUNT(DISTINCT) over BIGINT and VARCHAR
// arguments with NULLs, with and without GROUP BY, on batches large
// enough to be cut into ranges: the output on one core (one pairSet or
// table, in row order) and on several (staged parts) is the same, and
// without GROUP BY it is a Go map's count.
func TestCountDistinctOnCores(t *testing.T) {
	batches := partTestBatches(rand.New(rand.NewSource(5)), 6, 30000, 20000, false)
	aggs := []AggSpec{
		{Kind: AggCount, Arg: partCol(0, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: AggCount, Arg: partCol(1, coldata.String), Distinct: true, Type: coldata.Int64},
		{Kind: AggCountStar, Type: coldata.Int64},
		{Kind: AggCount, Arg: partCol(4, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: AggSum, Arg: partCol(4, coldata.Int64), Distinct: true, Type: coldata.Int64},
		{Kind: AggCount, Arg: &expr.Literal{Value: nil, T: coldata.Null}, Distinct: true, Type: coldata.Int64},
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
