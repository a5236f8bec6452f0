package operators_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// spillInput is n rows (key, value) over keys distinct keys, in batches of
// 1000 rows.
func spillInput(n, keys int) operators.Operator {
	var bs []*coldata.Batch
	for lo := 0; lo < n; lo += 1000 {
		m := min(1000, n-lo)
		k := coldata.NewBuilder(tInt, m)
		v := coldata.NewBuilder(tInt, m)
		for i := lo; i < lo+m; i++ {
			k.AppendInt(int64(i*7919) % int64(keys))
			v.AppendInt(int64(i))
		}
		bs = append(bs, mkBatch(k.Finish(), v.Finish()))
	}
	return src(bs...)
}

func spillAgg(in operators.Operator, limit uint64) *operators.HashAggregate {
	v := colRef(1, tInt)
	return &operators.HashAggregate{Input: in, Keys: []expr.Expr{colRef(0, tInt)}, MemoryLimit: limit, Aggs: []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: tInt},
		{Kind: opspec.AggSum, Arg: v, Type: opspec.AggResultType(opspec.AggSum, tInt)},
		{Kind: opspec.AggMax, Arg: v, Type: tInt},
	}}
}

// TestSpillAggregate: groups far past the limit come out as they do in
// memory, through splits two deep; what cannot be split keeps its error;
// no file stays behind.
func TestSpillAggregate(t *testing.T) {
	want := rowsSorted(run(t, spillAgg(spillInput(60000, 20000), 0)))
	for _, tc := range []struct {
		name      string
		limit     uint64
		minSplits int64 // partitions written, at least
		err       bool
	}{
		{"one split", 1 << 20, 32, false},
		{"two deep", 64 << 10, 64, false},
		{"limit below one group", 100, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st := &operators.Stats{}
			op := &operators.SpillAggregate{Agg: spillAgg(spillInput(60000, 20000), tc.limit), Dir: dir, Stats: st}
			bs, err := operators.Drain(context.Background(), op)
			if tc.err {
				var oom *memory.OutOfMemoryError
				if !errors.As(err, &oom) {
					t.Fatalf("err = %v, want the GROUP BY state limit", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				checkRows(t, "spilled groups", rowsSorted(rowsOf(bs)), want)
				if got := st.SpillPartitions.Load(); got < tc.minSplits || st.SpillBytes.Load() == 0 {
					t.Errorf("spilled %d partitions (%d bytes), want at least %d", got, st.SpillBytes.Load(), tc.minSplits)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// TestSpillAggregateCancel: a query cancelled while it spills stops with
// the context's error and removes its files.
func TestSpillAggregateCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	op := &operators.SpillAggregate{Agg: spillAgg(&cancelAfter{Operator: spillInput(60000, 20000), n: 40, cancel: cancel}, 64<<10), Dir: dir}
	_, err := operators.Drain(ctx, op)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// cancelAfter cancels its context once it has passed n batches.
type cancelAfter struct {
	operators.Operator
	n      int
	cancel func()
}

func (c *cancelAfter) Next(ctx context.Context) (*coldata.Batch, error) {
	if c.n--; c.n < 0 {
		c.cancel()
		return nil, ctx.Err()
	}
	return c.Operator.Next(ctx)
}

// joinSide is n rows (key, payload): keys over keys values, every
// eleventh NULL.
func joinSide(n, keys, mul int) operators.Operator {
	var bs []*coldata.Batch
	for lo := 0; lo < n; lo += 1000 {
		m := min(1000, n-lo)
		k := coldata.NewBuilder(tInt, m)
		v := coldata.NewBuilder(tInt, m)
		for i := lo; i < lo+m; i++ {
			if i%11 == 0 {
				k.AppendNull()
			} else {
				k.AppendInt(int64(i*mul) % int64(keys))
			}
			v.AppendInt(int64(i))
		}
		bs = append(bs, mkBatch(k.Finish(), v.Finish()))
	}
	return src(bs...)
}

// TestSpillJoin: every join kind past the limit answers as in memory,
// NULL keys included, through splits two deep, and leaves no file.
func TestSpillJoin(t *testing.T) {
	join := func(kind opspec.JoinKind, limit uint64) *operators.HashJoin {
		return &operators.HashJoin{Left: joinSide(8000, 3000, 7), Right: joinSide(30000, 3000, 13),
			LeftKeys: []expr.Expr{colRef(0, tInt)}, RightKeys: []expr.Expr{colRef(0, tInt)},
			Kind: kind, LeftCols: 2, RightTypes: []coldata.Type{tInt, tInt}, MemoryLimit: limit}
	}
	for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
		want := rowsSorted(run(t, join(kind, 0)))
		for _, limit := range []uint64{256 << 10, 16 << 10} {
			dir := t.TempDir()
			st := &operators.Stats{}
			got := rowsSorted(run(t, &operators.SpillJoin{Join: join(kind, limit), Dir: dir, Stats: st}))
			checkRows(t, fmt.Sprintf("kind %d limit %d", kind, limit), got, want)
			if st.SpillPartitions.Load() == 0 {
				t.Errorf("kind %d limit %d: nothing spilled", kind, limit)
			}
			if limit == 16<<10 && st.SpillPartitions.Load() <= 64 {
				t.Errorf("kind %d: %d partitions at 16 KiB, want a second split", kind, st.SpillPartitions.Load())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		}
	}
}
