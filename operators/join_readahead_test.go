package operators_test

import (
	"context"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestSemiJoinReadAhead: a semi or anti join reads its inputs in turn to
// choose the side to hash, so a large left input against a small right
// one is not read ahead (TPC-H Q18 held four million joined rows so), and
// a small left one against a large right one still hashes the left side;
// the rows are the same either way.
func TestSemiJoinReadAhead(t *testing.T) {
	batches := func(n, rows int) []*coldata.Batch {
		var out []*coldata.Batch
		for i := 0; i < n; i++ {
			out = append(out, mkBatch(seqInts(i*rows, rows)))
		}
		return out
	}
	keys := []expr.Expr{colRef(0, tInt)}
	for _, tc := range []struct {
		name        string
		kind        opspec.JoinKind
		left, right []*coldata.Batch
		// most left and right batches read before the first output
		leftReads, rightReads int
		want                  int // rows out
	}{
		{"large left, small right", opspec.SemiJoin, batches(100, 100), []*coldata.Batch{mkBatch(mkVec(tInt, 1, 2, 3))}, 1, 2, 3},
		{"large left, small right, anti", opspec.AntiJoin, batches(100, 100), []*coldata.Batch{mkBatch(mkVec(tInt, 1, 2, 3))}, 1, 2, 9997},
		// The left side ends at 200 rows, the right has over 800: the
		// left is hashed and the right streams after it (to its end: the
		// output comes once every right row has marked the left ones).
		{"small left, large right", opspec.SemiJoin, batches(2, 100), batches(100, 100), 3, 101, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			left := &countingOp{Operator: src(tc.left...)}
			right := &countingOp{Operator: src(tc.right...)}
			j := &operators.HashJoin{Left: left, Right: right, LeftKeys: keys, RightKeys: keys, Kind: tc.kind,
				LeftCols: 1, RightTypes: []coldata.Type{tInt}}
			ctx := context.Background()
			if err := j.Open(ctx); err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			b, err := j.Next(ctx)
			if err != nil || b == nil {
				t.Fatalf("first batch: %v, %v", b, err)
			}
			if left.nexts > tc.leftReads || right.nexts > tc.rightReads {
				t.Errorf("read %d left and %d right batches before the first output, want at most %d and %d",
					left.nexts, right.nexts, tc.leftReads, tc.rightReads)
			}
			n := b.Len
			for {
				b, err := j.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if b == nil {
					break
				}
				n += b.Len
			}
			if n != tc.want {
				t.Errorf("%d rows, want %d", n, tc.want)
			}
		})
	}
}
