package gpuexec_test

// The host partitions of a device join or GROUP BY split after it ran out
// of device memory go to disk past the operator's MemoryLimit
// (operators/device_oom_parts.go): the answers stand, EXPLAIN's counters
// show the spill, the spill directory is gone when the operator closes,
// and a failed write is a clean error.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/spill"
)

// oomJoinData is a left (k, s, v) and right (k, s, w) input with NULL,
// repeated and text keys, cut into batches.
func oomJoinData(seed int64) (left, right *coldata.Batch, lparts, rparts []*coldata.Batch) {
	rng := rand.New(rand.NewSource(seed))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	val := func(c int) any {
		if rng.Intn(8) == 0 {
			return nil
		}
		switch c {
		case 0:
			return int64(rng.Intn(300))
		case 1:
			return []string{"", "a", "b", "ab", "ba"}[rng.Intn(5)]
		}
		return int64(rng.Intn(1000))
	}
	left = tinyColumns(types, 2000, func(c, r int) any { return val(c) })
	right = tinyColumns(types, 1500, func(c, r int) any { return val(c) })
	for lo := 0; lo < left.Len; lo += 600 {
		lparts = append(lparts, coldata.SliceBatch(left, lo, min(left.Len, lo+600)))
	}
	for lo := 0; lo < right.Len; lo += 500 {
		rparts = append(rparts, coldata.SliceBatch(right, lo, min(right.Len, lo+500)))
	}
	return left, right, lparts, rparts
}

// buildPastRows is a BuildOn that runs out of device memory for a build
// of more than maxRows rows.
func buildPastRows(maxRows int) func(context.Context, *gpuexec.Device, *gpuexec.DeviceBatch, []int, bool) (*gpuexec.JoinTable, error) {
	return func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, withRows bool) (*gpuexec.JoinTable, error) {
		if b.Len > maxRows {
			return nil, fmt.Errorf("join build: %w", &memory.OutOfMemoryError{Requested: 1 << 30, Limit: 1 << 20})
		}
		if withRows {
			return d.BuildJoin(ctx, b, keys)
		}
		return d.BuildSemiJoin(ctx, b, keys)
	}
}

// requireEmptyDir fails unless dir holds nothing.
func requireEmptyDir(t *testing.T, dir string) {
	t.Helper()
	if es, err := os.ReadDir(dir); err != nil || len(es) > 0 {
		t.Errorf("%s holds %d entries (%v) after the operator closed", dir, len(es), err)
	}
}

// TestFakeJoinPartitionsSpill: a partitioned device join whose
// partitions pass its MemoryLimit writes them to disk and reads each back
// when its turn comes: every kind answers as a nested-loop join, with the
// partitions on the device and, past maxRows, on the host (read from
// disk too); spilled_partitions and spilled_bytes say so, and no file is
// left in the spill directory.
func TestFakeJoinPartitionsSpill(t *testing.T) {
	defer operators.SetTinyRows(0)()
	defer operators.SetHostGathers(true)()
	defer operators.SetOOMPartitionBytes(8 << 10)()
	dev, rt := tinyDevice(t)
	left, right, lparts, rparts := oomJoinData(31)
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	inUse := gpuexec.InUse(dev)
	for _, maxRows := range []int{1000, 10} {
		for _, kc := range []tinyJoinCase{{"bigint", []int{0}, []int{0}}, {"two keys", []int{1, 0}, []int{1, 0}}} {
			for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
				name := fmt.Sprintf("max %d rows, %s kind %d", maxRows, kc.name, kind)
				dir := t.TempDir()
				want := nestedJoin(left, right, kc, kind, 3, 3, func(int, int) bool { return true })
				j := &operators.DeviceHashJoin{
					Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
					Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
					RT:    rt, LeftKeys: kc.left, RightKeys: kc.right, Kind: kind,
					LeftTypes: types, RightTypes: types, RightInTypes: types, Stats: &operators.Stats{},
					BuildOn: buildPastRows(maxRows), MemoryLimit: 16 << 10, SpillDir: dir,
				}
				if kind == opspec.SemiJoin || kind == opspec.AntiJoin {
					j.RightTypes = nil
				}
				got := runDevice(t, dev, j)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
				}
				st := j.Stats
				if st.OOMPartitions.Load() < 2 || st.SpillPartitions.Load() == 0 || st.SpillBytes.Load() == 0 {
					t.Errorf("%s: oom_partitions=%d spilled_partitions=%d spilled_bytes=%d, want the partitions on disk",
						name, st.OOMPartitions.Load(), st.SpillPartitions.Load(), st.SpillBytes.Load())
				}
				if (st.HostJoinOOM.Load() == 1) != (maxRows == 10) {
					t.Errorf("%s: host_join_oom=%d", name, st.HostJoinOOM.Load())
				}
				requireEmptyDir(t, dir)
				if u := gpuexec.InUse(dev); u != inUse {
					t.Errorf("%s: %d bytes of device memory held after the join, want %d", name, u, inUse)
				}
			}
		}
	}
}

// TestFakeAggPartitionsSpill: a partitioned device GROUP BY whose input
// passes its MemoryLimit writes its partitions to disk; the groups are
// the CPU's, the spill is counted, no file is left.
func TestFakeAggPartitionsSpill(t *testing.T) {
	defer operators.SetTinyRows(0)()
	defer operators.SetOOMPartitionBytes(64 << 10)()
	dev, rt := tinyDevice(t)
	batches := fewManyBatches([]int{6000, 6000, 6000}, func(int, int) int { return 1_000_000 })
	v := &expr.ColumnRef{Index: 2, Name: "v", T: coldata.Int64}
	aggs := []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}}
	keys := []int{1, 0}
	want := cpuAggregate(t, batches, keys, aggs)
	dir := t.TempDir()
	st := &operators.Stats{}
	h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt},
		RT: rt, Keys: keys, KeyTypes: []coldata.Type{coldata.String, coldata.Int64}, Aggs: aggs, Stats: st,
		MemoryLimit: 200 << 10, Spill: true, SpillDir: dir, GroupOn: groupFits(1000, nil)}
	got := aggRun(t, dev, h, false)
	if w, g := sortedRows(want), sortedRows(got); !slices.Equal(w, g) {
		t.Fatalf("%d groups, want %d", len(g), len(w))
	}
	if st.OOMPartitions.Load() < 2 || st.SpillPartitions.Load() == 0 || st.SpillBytes.Load() == 0 {
		t.Errorf("oom_partitions=%d spilled_partitions=%d spilled_bytes=%d, want the partitions on disk",
			st.OOMPartitions.Load(), st.SpillPartitions.Load(), st.SpillBytes.Load())
	}
	if st.HostGroupOOM.Load() != 0 || st.Fallbacks.Load() != 0 {
		t.Errorf("host_group_oom=%d cpu_fallback_batches=%d, want every partition on the device", st.HostGroupOOM.Load(), st.Fallbacks.Load())
	}
	requireEmptyDir(t, dir)
}

// TestFakeOOMPartitionsDiskFull: a spill write that fails (a full disk)
// fails the join or GROUP BY with the disk-full error, its spill
// directory removed and its device memory released.
func TestFakeOOMPartitionsDiskFull(t *testing.T) {
	defer operators.SetTinyRows(0)()
	defer operators.SetHostGathers(true)()
	defer operators.SetOOMPartitionBytes(8 << 10)()
	defer spill.FailWrites(syscall.ENOSPC)()
	dev, rt := tinyDevice(t)
	_, _, lparts, rparts := oomJoinData(37)
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	batches := fewManyBatches([]int{3000, 2500}, func(int, int) int { return 1_000_000 })
	v := &expr.ColumnRef{Index: 2, Name: "v", T: coldata.Int64}
	inUse := gpuexec.InUse(dev)
	// drainOp runs op to its end, through next, and returns its error.
	drainOp := func(op interface {
		Open(context.Context) error
		Close() error
	}, next func(context.Context) (bool, error)) (err error) {
		ctx := context.Background()
		if err := op.Open(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if cerr := op.Close(); cerr != nil {
				t.Errorf("close: %v", cerr)
			}
		}()
		for {
			more, err := next(ctx)
			if err != nil || !more {
				return err
			}
		}
	}
	for _, c := range []struct {
		name string
		run  func(dir string) error
	}{
		{"join", func(dir string) error {
			j := &operators.DeviceHashJoin{
				Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
				Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
				RT:    rt, LeftKeys: []int{0}, RightKeys: []int{0}, Kind: opspec.LeftJoin,
				LeftTypes: types, RightTypes: types, RightInTypes: types, Stats: &operators.Stats{},
				BuildOn: buildPastRows(1000), MemoryLimit: 16 << 10, SpillDir: dir,
			}
			return drainOp(j, func(ctx context.Context) (bool, error) {
				b, err := j.NextDevice(ctx)
				if b != nil {
					b.Release()
				}
				return b != nil, err
			})
		}},
		{"group by", func(dir string) error {
			h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt},
				RT: rt, Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Stats: &operators.Stats{},
				Aggs:        []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggSum, Arg: v, Type: coldata.Int64}},
				MemoryLimit: 32 << 10, SpillDir: dir, GroupOn: groupFits(1000, nil)}
			return drainOp(h, func(ctx context.Context) (bool, error) {
				b, err := h.Next(ctx)
				return b != nil, err
			})
		}},
	} {
		dir := t.TempDir()
		err := c.run(dir)
		var full *spill.DiskFullError
		if !errors.As(err, &full) || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v, want the disk-full error", c.name, err)
		}
		requireEmptyDir(t, dir)
		if u := gpuexec.InUse(dev); u != inUse {
			t.Errorf("%s: %d bytes of device memory held, want %d", c.name, u, inUse)
		}
	}
}
