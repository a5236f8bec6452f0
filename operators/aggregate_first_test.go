package operators

import (
	"context"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// TestFirstGroups: with FirstGroups the aggregate returns at least that
// many groups (all of them when there are fewer), and each group it
// returns has the COUNT(*), SUM and COUNT(DISTINCT) of all of its rows,
// across batches where later keys are only looked up.
func TestFirstGroups(t *testing.T) {
	const rows, batchRows = 20000, 3000
	key := func(r int) int64 { return int64((r * 7919) % 997) }
	var batches []*coldata.Batch
	for lo := 0; lo < rows; lo += batchRows {
		n := min(batchRows, rows-lo)
		k, x := coldata.NewVec(coldata.Int64, n), coldata.NewVec(coldata.Int64, n)
		for i := 0; i < n; i++ {
			k.Ints[i], x.Ints[i] = key(lo+i), int64((lo+i)%13)
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{k, x}, n))
	}
	type want struct{ count, sum int64 }
	truth := map[int64]*want{}
	distinct := map[int64]map[int64]bool{}
	for r := 0; r < rows; r++ {
		k := key(r)
		if truth[k] == nil {
			truth[k], distinct[k] = &want{}, map[int64]bool{}
		}
		truth[k].count++
		truth[k].sum += int64(r % 13)
		distinct[k][int64(r%13)] = true
	}
	for _, first := range []int{1, 10, 500, 5000} {
		agg := &HashAggregate{
			Input: &Scan{Batches: batches, Cols: []int{0, 1}},
			Keys:  []expr.Expr{partCol(0, coldata.Int64)},
			Aggs: []opspec.AggSpec{
				{Kind: opspec.AggCountStar, Type: coldata.Int64},
				{Kind: opspec.AggSum, Arg: partCol(1, coldata.Int64), Type: coldata.Int64},
				{Kind: opspec.AggCount, Arg: partCol(1, coldata.Int64), Distinct: true, Type: coldata.Int64},
			},
			FirstGroups: first,
		}
		out, err := Drain(context.Background(), agg)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, b := range out {
			for i := 0; i < b.Len; i++ {
				k := b.Cols[0].Int(i)
				w := truth[k]
				if w == nil {
					t.Fatalf("FirstGroups %d: unknown group %d", first, k)
				}
				if c, s, d := b.Cols[1].Int(i), b.Cols[2].Int(i), b.Cols[3].Int(i); c != w.count || s != w.sum || d != int64(len(distinct[k])) {
					t.Errorf("FirstGroups %d: group %d has count %d sum %d distinct %d, want %d %d %d", first, k, c, s, d, w.count, w.sum, len(distinct[k]))
				}
				got++
			}
		}
		if got < min(first, len(truth)) {
			t.Errorf("FirstGroups %d: %d groups, want at least %d", first, got, min(first, len(truth)))
		}
		if first < 100 && got > first+firstGroupsRun {
			t.Errorf("FirstGroups %d: %d groups, want at most %d", first, got, first+firstGroupsRun)
		}
	}
}
