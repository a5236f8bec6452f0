//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// oomPast is an out-of-memory error for a device step over more than
// max rows: the tests below cap what fits by rows, so that the
// partitions' own device work runs on the GPU's kernels.
func oomPast(rows, most int) error {
	return fmt.Errorf("capped: %w", &memory.OutOfMemoryError{Requested: uint64(rows) << 10, Limit: uint64(most) << 10})
}

// requireNoFiles fails unless dir is empty.
func requireNoFiles(t *testing.T, dir string) {
	t.Helper()
	if es, err := os.ReadDir(dir); err != nil || len(es) > 0 {
		t.Errorf("%s holds %d entries (%v) after the operator closed", dir, len(es), err)
	}
}

// TestCUDAGroupByPartitionedAfterOOM: a GROUP BY whose grouping (the
// device's GroupByTop, capped at 100,000 rows a batch) runs out of device
// memory is grouped by partition on the GPU, its partitions split again
// where they still do not fit and written to disk past MemoryLimit: plain
// aggregates with many groups, DISTINCT aggregates, quantiles and an
// ORDER BY COUNT(*) DESC LIMIT cut answer as the CPU's HashAggregate.
func TestCUDAGroupByPartitionedAfterOOM(t *testing.T) {
	rt := openRuntime(t, false)
	defer operators.SetOOMPartitionBytes(32 << 20)()
	data := newAggTable(600_000, 43)
	var parts []*coldata.Batch
	for lo := 0; lo < data.Len; lo += 150_000 {
		parts = append(parts, coldata.SliceBatch(data, lo, min(lo+150_000, data.Len)))
	}
	ref := func(i int) *expr.ColumnRef {
		return &expr.ColumnRef{Index: i, Name: newAggNames[i], T: data.Cols[i].Type}
	}
	i, d, dec, b, s := ref(2), ref(3), ref(5), ref(6), ref(7)
	capped := func(ctx context.Context, dev *gpuexec.Device, in *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
		if in.Len > 100_000 {
			return nil, oomPast(in.Len, 100_000)
		}
		return dev.GroupByTop(ctx, in, keys, aggs, top)
	}
	for _, c := range []struct {
		name string
		aggs []opspec.AggSpec
		top  *opspec.TopGroups
	}{
		{"plain", []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggSum, Arg: i, Type: coldata.Int64},
			{Kind: opspec.AggMin, Arg: d, Type: coldata.Float64}, {Kind: opspec.AggMax, Arg: s, Type: coldata.String},
			{Kind: opspec.AggSum, Arg: dec, Type: opspec.AggResultType(opspec.AggSum, dec.T)}}, nil},
		{"distinct", []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggCount, Arg: i, Type: coldata.Int64, Distinct: true},
			{Kind: opspec.AggSum, Arg: i, Type: coldata.Int64, Distinct: true}, {Kind: opspec.AggMax, Arg: b, Type: coldata.Bool}}, nil},
		{"quantiles", []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggQuantileDisc, Arg: i, Quantile: 0.5, Type: coldata.Int64}, {Kind: opspec.AggQuantileCont, Arg: d, Quantile: 0.25, Type: coldata.Float64}}, nil},
		{"top", []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggSum, Arg: i, Type: coldata.Int64}},
			&opspec.TopGroups{Agg: 0, Desc: true, Limit: 20}},
	} {
		for _, spillTo := range []bool{false, true} {
			name := fmt.Sprintf("%s spill %v", c.name, spillTo)
			ctx := context.Background()
			cpu := &operators.HashAggregate{Input: &operators.Materialized{Batches: parts}, Keys: []expr.Expr{ref(0)}, Aggs: c.aggs}
			wb, err := operators.Drain(ctx, cpu)
			if err != nil {
				t.Fatal(err)
			}
			st := &operators.Stats{}
			h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: parts}, RT: rt},
				RT: rt, Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: c.aggs, Stats: st, Top: c.top, GroupOn: capped}
			dir := t.TempDir()
			if spillTo {
				h.MemoryLimit, h.Spill, h.SpillDir = 32<<20, true, dir
			}
			gb, err := operators.Drain(ctx, h)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n := 1 + len(c.aggs)
			if c.top == nil {
				if w, g := sortedRows(wb, n), sortedRows(gb, n); w != g {
					t.Fatalf("%s: GPU and CPU groups differ (%d and %d lines)", name, strings.Count(g, "\n"), strings.Count(w, "\n"))
				}
			} else {
				w, g := coldata.Concat(wb, n), coldata.Concat(gb, n)
				wc, gc := slices.Clone(w.Cols[1].Ints[:w.Len]), slices.Clone(g.Cols[1].Ints[:g.Len])
				slices.SortFunc(wc, func(a, b int64) int { return int(b - a) })
				slices.SortFunc(gc, func(a, b int64) int { return int(b - a) })
				if g.Len != c.top.Limit || !slices.Equal(gc, wc[:c.top.Limit]) {
					t.Fatalf("%s: %d groups, counts %v, want %v", name, g.Len, gc, wc[:c.top.Limit])
				}
			}
			t.Logf("%s: oom_partitions=%d oom_resplits=%d oom_splits=%d host_group_oom=%d spilled_partitions=%d spilled_bytes=%d peak_host_bytes=%d",
				name, st.OOMPartitions.Load(), st.OOMResplits.Load(), st.OOMSplits.Load(), st.HostGroupOOM.Load(),
				st.SpillPartitions.Load(), st.SpillBytes.Load(), st.PeakHostBytes.Load())
			if st.OOMPartitions.Load() < 2 || st.HostGroupOOM.Load() != 0 {
				t.Errorf("%s: want the groups partitioned, every partition on the GPU", name)
			}
			if spillTo && st.SpillBytes.Load() == 0 {
				t.Errorf("%s: nothing spilled", name)
			}
			requireNoFiles(t, dir)
		}
	}
}

// TestCUDAJoinPartitionsSpillAndSplit: a device join whose builds fit
// 20,000 rows at most is partitioned, its large partitions split again,
// the partitions written to disk past MemoryLimit; every kind answers as
// the CPU's HashJoin over NULL and repeated keys.
func TestCUDAJoinPartitionsSpillAndSplit(t *testing.T) {
	rt := openRuntime(t, false)
	defer operators.SetOOMPartitionBytes(1 << 20)()
	rng := rand.New(rand.NewSource(47))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	gen := func(n int) *coldata.Batch {
		bs := []*coldata.Builder{coldata.NewBuilder(types[0], n), coldata.NewBuilder(types[1], n), coldata.NewBuilder(types[2], n)}
		for r := 0; r < n; r++ {
			if rng.Intn(20) == 0 {
				bs[0].AppendNull()
			} else {
				bs[0].AppendInt(int64(rng.Intn(60_000)))
			}
			bs[1].AppendString(fmt.Sprintf("v%d", rng.Intn(1000)))
			bs[2].AppendInt(int64(r))
		}
		return coldata.NewBatch([]*coldata.Vec{bs[0].Finish(), bs[1].Finish(), bs[2].Finish()}, n)
	}
	cut := func(b *coldata.Batch, step int) []*coldata.Batch {
		var out []*coldata.Batch
		for lo := 0; lo < b.Len; lo += step {
			out = append(out, coldata.SliceBatch(b, lo, min(lo+step, b.Len)))
		}
		return out
	}
	lparts, rparts := cut(gen(200_000), 65_536), cut(gen(150_000), 50_000)
	capped := func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, withRows bool) (*gpuexec.JoinTable, error) {
		if b.Len > 20_000 {
			return nil, oomPast(b.Len, 20_000)
		}
		if withRows {
			return d.BuildJoin(ctx, b, keys)
		}
		return d.BuildSemiJoin(ctx, b, keys)
	}
	key := func(i int) []expr.Expr {
		return []expr.Expr{&expr.ColumnRef{Index: 0, Name: fmt.Sprint("k", i), T: coldata.Int64}}
	}
	for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
		ctx := context.Background()
		cpu := &operators.HashJoin{Left: &operators.Materialized{Batches: lparts}, Right: &operators.Materialized{Batches: rparts},
			LeftKeys: key(0), RightKeys: key(1), Kind: kind, LeftCols: 3, RightTypes: types}
		wb, err := operators.Drain(ctx, cpu)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		st := &operators.Stats{}
		j := &operators.DeviceHashJoin{
			Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
			Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
			RT:    rt, LeftKeys: []int{0}, RightKeys: []int{0}, Kind: kind,
			LeftTypes: types, RightTypes: types, RightInTypes: types, Stats: st,
			BuildOn: capped, MemoryLimit: 2 << 20, SpillDir: dir,
		}
		ncols := 6
		if kind == opspec.SemiJoin || kind == opspec.AntiJoin {
			j.RightTypes, ncols = nil, 3
		}
		gb := drainDevice(t, rt, j)
		if w, g := sortedRows(wb, ncols), sortedRows(gb, ncols); w != g {
			t.Fatalf("kind %d: GPU and CPU rows differ (%d and %d lines)", kind, strings.Count(g, "\n"), strings.Count(w, "\n"))
		}
		t.Logf("kind %d: oom_partitions=%d oom_resplits=%d host_join_oom=%d spilled_partitions=%d spilled_bytes=%d",
			kind, st.OOMPartitions.Load(), st.OOMResplits.Load(), st.HostJoinOOM.Load(), st.SpillPartitions.Load(), st.SpillBytes.Load())
		if st.OOMPartitions.Load() < 2 || st.SpillBytes.Load() == 0 {
			t.Errorf("kind %d: want the join partitioned and spilled", kind)
		}
		requireNoFiles(t, dir)
	}
}
