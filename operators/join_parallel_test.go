package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestHashJoinParallelProbe probes many left batches of uneven sizes on
// one to eight goroutines, with the one-table and the partitioned index,
// and checks every join kind's rows, in order, against the nested-loop
// reference: the output must not depend on which goroutine probed what.
//
// A semi or anti join whose left side is small hashes it and streams the
// right batches instead (join_buildleft.go), marking on the goroutines:
// the second dataset.
func TestHashJoinParallelProbe(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	batches := func(count, maxRows, domain int) []*coldata.Batch {
		var bs []*coldata.Batch
		for i := 0; i < count; i++ {
			bs = append(bs, joinTestBatch(rng, 1+rng.Intn(maxRows), domain, nil, true))
		}
		return bs
	}
	type dataset struct {
		name     string
		lbs, rbs []*coldata.Batch
	}
	sets := []dataset{
		{"many left batches", batches(40, 300, 500), batches(3, 250, 400)},
		{"many right batches", batches(3, 60, 300), batches(40, 200, 300)},
	}
	types := []coldata.Type{tInt, tStr, tFloat, tBool, tInt}
	kinds := []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin}
	for _, ds := range sets {
		lbs, rbs := ds.lbs, ds.rbs
		build := coldata.Concat(rbs, len(types))
		for _, partitioned := range []bool{false, true} {
			for _, workers := range []int{1, 2, 8} {
				t.Run(fmt.Sprintf("%s/partitioned=%v/workers=%d", ds.name, partitioned, workers), func(t *testing.T) {
					if partitioned {
						defer operators.SetJoinPartitioning(1, 16, 64)()
					}
					defer operators.SetProbeWorkers(workers)()
					for _, keys := range [][]int{{0}, {1, 3}} {
						for _, kind := range kinds {
							for ci := 0; ci < 2; ci++ {
								var lk, rk []expr.Expr
								for _, k := range keys {
									lk = append(lk, colRef(k, types[k]))
									rk = append(rk, colRef(k, types[k]))
								}
								j := &operators.HashJoin{
									Left: src(lbs...), Right: src(rbs...), LeftKeys: lk, RightKeys: rk,
									Kind: kind, LeftCols: len(types), RightTypes: types, Parallel: true,
								}
								cond := func(*coldata.Batch, int, int) bool { return true }
								if ci == 1 {
									j.Cond = fn(t, ">", colRef(len(types)+4, tInt), colRef(4, tInt))
									cond = func(l *coldata.Batch, lr, rr int) bool {
										return build.Cols[4].Int(rr) > l.Cols[4].Int(lr)
									}
								}
								name := fmt.Sprintf("keys %v kind %d cond %d", keys, kind, ci)
								checkRows(t, name, run(t, j), nestedJoinRef(lbs, build, keys, kind, cond))
							}
						}
					}
				})
			}
		}
	}
}

// panicOp returns batches, then panics.
type panicOp struct {
	operators.Operator
	left int
}

func (p *panicOp) Next(ctx context.Context) (*coldata.Batch, error) {
	if p.left == 0 {
		panic("left input broke")
	}
	p.left--
	return p.Operator.Next(ctx)
}

// TestHashJoinParallelProbeFailures checks that with several probing
// goroutines an error of the left input reaches the join's reader after
// the batches before it, a panic there is raised on the reader's
// goroutine (where a statement turns it into an error) instead of
// crashing the process, and a join closed half read stops its goroutines.
func TestHashJoinParallelProbeFailures(t *testing.T) {
	defer operators.SetProbeWorkers(4)()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(3))
	var lbs []*coldata.Batch
	for i := 0; i < 20; i++ {
		lbs = append(lbs, joinTestBatch(rng, 100, 50, nil, false))
	}
	build := joinTestBatch(rng, 60, 50, nil, false)
	types := []coldata.Type{tInt, tStr, tFloat, tBool, tInt}
	join := func(left operators.Operator) *operators.HashJoin {
		return &operators.HashJoin{
			Left: left, Right: src(build), LeftKeys: []expr.Expr{colRef(0, tInt)}, RightKeys: []expr.Expr{colRef(0, tInt)},
			Kind: opspec.SemiJoin, LeftCols: len(types), RightTypes: types, Parallel: true,
		}
	}

	t.Run("error", func(t *testing.T) {
		boom := errors.New("boom")
		j := join(&failOp{batches: 7, nextErr: boom})
		j.LeftKeys = []expr.Expr{colRef(0, tInt)}
		j.LeftCols = 1
		if err := j.Open(ctx); err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		rows := 0
		var err error
		for {
			var b *coldata.Batch
			if b, err = j.Next(ctx); err != nil || b == nil {
				break
			}
			rows += b.Len
		}
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
		// failOp's rows are all 1, and the build side's keys lie in
		// [0, 50): each batch before the error keeps its row or not alike.
		if rows != 0 && rows != 7 {
			t.Errorf("%d rows before the error, want 0 or 7", rows)
		}
	})

	t.Run("right input error", func(t *testing.T) {
		// One left row against many right batches: the left side is
		// hashed and the failing right input streams.
		boom := errors.New("boom")
		j := &operators.HashJoin{
			Left: src(mkBatch(mkVec(tInt, 2))), Right: &failOp{batches: 25, nextErr: boom},
			LeftKeys: []expr.Expr{colRef(0, tInt)}, RightKeys: []expr.Expr{colRef(0, tInt)},
			Kind: opspec.AntiJoin, LeftCols: 1, RightTypes: []coldata.Type{tInt}, Parallel: true,
		}
		if err := j.Open(ctx); err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if b, err := j.Next(ctx); !errors.Is(err, boom) {
			t.Fatalf("Next = %v, %v; want the right input's error", b, err)
		}
	})

	t.Run("panic", func(t *testing.T) {
		j := join(&panicOp{Operator: src(lbs...), left: 5})
		if err := j.Open(ctx); err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		var got any
		func() {
			defer func() { got = recover() }()
			for {
				b, err := j.Next(ctx)
				if err != nil {
					t.Errorf("Next: %v, want a panic", err)
					return
				}
				if b == nil {
					t.Error("the join ended, want a panic")
					return
				}
			}
		}()
		if s, ok := got.(string); !ok || !strings.Contains(s, "left input broke") {
			t.Fatalf("recovered %v, want the left input's panic", got)
		}
	})

	t.Run("close half read", func(t *testing.T) {
		before := runtime.NumGoroutine()
		for i := 0; i < 10; i++ {
			j := join(src(lbs...))
			if err := j.Open(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := j.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
		}
		// Close waits for the join's goroutines; let any others settle.
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("%d goroutines after closing the joins, %d before", n, before)
		}
	})
}
