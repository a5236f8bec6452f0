package gpuexec_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// A device join whose build side runs out of device memory joins
// partition by partition on the device: a build hook that fails past
// maxRows rows stands for a device on which the whole right side does not
// fit and its partitions do. Every kind (semi and anti with and without a
// residual) answers as a nested-loop join over NULL, duplicate, string and
// signed-zero keys; EXPLAIN's counter says how many partitions; no device
// memory is left held. With maxRows too small for the partitions, some
// are split again (oom_resplits) and join on the device; with no build
// fitting, every partition is split as far as it goes and joins on the
// host, and the answers stand.
func TestFakeJoinPartitionedAfterOOM(t *testing.T) {
	defer operators.SetTinyRows(0)()       // not the tiny inputs' host path
	defer operators.SetHostGathers(true)() // no twins of the gather kernels
	// About 55 bytes a right row with its table: 8 partitions of the
	// 1200 rows' ~66 KB.
	defer operators.SetOOMPartitionBytes(10 << 10)()
	const wantParts = 8
	dev, rt := tinyDevice(t)
	rng := rand.New(rand.NewSource(29))
	// Left: k, s, v (output), e (a key not output). Right: k, s
	// (output), w, x.
	ltypes := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.Int64}
	rtypes := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64}
	floats := []float64{math.Copysign(0, -1), 0, 1, 2.5, -3}
	val := func(t coldata.Type) any {
		if rng.Intn(7) == 0 {
			return nil
		}
		switch t {
		case coldata.Int64:
			return int64(rng.Intn(40))
		case coldata.String:
			return []string{"", "a", "b", "ab", "ba", "abc", "x"}[rng.Intn(7)]
		}
		return floats[rng.Intn(len(floats))]
	}
	left := tinyColumns(ltypes, 1500, func(c, r int) any { return val(ltypes[c]) })
	right := tinyColumns(rtypes, 1200, func(c, r int) any { return val(rtypes[c]) })
	var lparts, rparts []*coldata.Batch
	for lo := 0; lo < left.Len; lo += 400 {
		lparts = append(lparts, coldata.SliceBatch(left, lo, min(left.Len, lo+400)))
	}
	for lo := 0; lo < right.Len; lo += 500 {
		rparts = append(rparts, coldata.SliceBatch(right, lo, min(right.Len, lo+500)))
	}
	const nlOut, nrOut = 3, 2
	cond, condHolds := kBelowW(t, left, right, nlOut)
	// buildPast fails a build of more than maxRows rows for lack of
	// memory and builds smaller ones on the device, counting each.
	var built, refused atomic.Int64
	buildPast := func(maxRows int) func(context.Context, *gpuexec.Device, *gpuexec.DeviceBatch, []int, bool) (*gpuexec.JoinTable, error) {
		return func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, withRows bool) (*gpuexec.JoinTable, error) {
			if b.Len > maxRows {
				refused.Add(1)
				return nil, fmt.Errorf("join build: %w", &memory.OutOfMemoryError{Requested: 1 << 30, Limit: 1 << 20})
			}
			built.Add(1)
			if withRows {
				return d.BuildJoin(ctx, b, keys)
			}
			return d.BuildSemiJoin(ctx, b, keys)
		}
	}
	inUse := gpuexec.InUse(dev)
	mixed := map[bool]int{} // joins with partitions both on the device and on the host
	for _, maxRows := range []int{1000, 150, 0} {
		for _, kc := range []tinyJoinCase{
			{"bigint", []int{0}, []int{0}},
			{"text", []int{1}, []int{1}},
			{"two keys", []int{0, 1}, []int{0, 1}},
			{"key not output", []int{3}, []int{2}},
			{"double", []int{2}, []int{3}},
		} {
			for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
				for _, withCond := range []bool{false, true} {
					semi := kind == opspec.SemiJoin || kind == opspec.AntiJoin
					if withCond && !semi {
						continue // the device join takes a residual on semi and anti joins only
					}
					if withCond && maxRows > 0 {
						// The residual's filter and marks are generated
						// kernels, with no twins on the fake driver: on
						// the host only (the partitions' CPU path).
						continue
					}
					name := fmt.Sprintf("max %d rows, %s kind %d cond %v", maxRows, kc.name, kind, withCond)
					want := nestedJoin(left, right, kc, kind, nlOut, nrOut, func(l, r int) bool { return !withCond || condHolds(l, r) })
					j := &operators.DeviceHashJoin{
						Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
						Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
						RT:    rt, LeftKeys: kc.left, RightKeys: kc.right, Kind: kind,
						LeftTypes: ltypes[:nlOut], RightTypes: rtypes[:nrOut], RightInTypes: rtypes, Stats: &operators.Stats{},
						BuildOn: buildPast(maxRows),
					}
					if semi {
						j.RightTypes = nil
					}
					if withCond {
						j.Cond = cond
					}
					built.Store(0)
					refused.Store(0)
					got := runDevice(t, dev, j)
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
					}
					if n := j.Stats.OOMPartitions.Load(); n != wantParts {
						t.Errorf("%s: oom_partitions=%d, want %d", name, n, wantParts)
					}
					onHost := j.Stats.HostJoinOOM.Load() == 1
					if maxRows >= 1000 && (onHost || built.Load() == 0 || refused.Load() != 1) {
						t.Errorf("%s: %d builds on the device, %d refused, host %v: want the partitions on the device", name, built.Load(), refused.Load(), onHost)
					}
					if maxRows == 0 && (!onHost || built.Load() > 0) {
						t.Errorf("%s: %d builds on the device, host %v: want the partitions on the host", name, built.Load(), onHost)
					}
					if maxRows == 150 {
						mixed[j.Stats.OOMResplits.Load() > 0 && built.Load() > 1]++
					}
					if j.Stats.PeakHostBytes.Load() == 0 {
						t.Errorf("%s: the partitions' host bytes were not counted", name)
					}
					if u := gpuexec.InUse(dev); u != inUse {
						t.Errorf("%s: %d bytes of device memory held after the join, want %d", name, u, inUse)
					}
				}
			}
		}
	}
	// The hash seed varies, so not every join splits again: most should.
	if mixed[true] == 0 {
		t.Errorf("no join at 150 rows split a partition again and joined on the device (%d did not)", mixed[false])
	}
}
