package gpuexec_test

// A partition of a device join or GROUP BY split after a device OOM that
// still does not fit is split again with another hash before it goes to
// the CPU; one whose rows all have one key goes to the CPU at once.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestFakeJoinSplitsPartitionsAgain: with a partition budget that the
// first split's partitions pass (the estimate is low) and builds that
// fit past 400 rows, the partitions are split again and join on the
// device, every kind answering as a nested-loop join; a right side of one
// key joins on the host at once, without splits that cannot spread it.
func TestFakeJoinSplitsPartitionsAgain(t *testing.T) {
	defer operators.SetTinyRows(0)()
	defer operators.SetHostGathers(true)()
	defer operators.SetOOMPartitionBytes(64 << 10)()
	dev, rt := tinyDevice(t)
	left, right, lparts, rparts := oomJoinData(41)
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	// One key: every right row's k is 7 (NULL where it was).
	one := tinyColumns(types, right.Len, func(c, r int) any {
		if c == 0 {
			if right.Cols[0].IsNull(r) {
				return nil
			}
			return int64(7)
		}
		return right.Cols[c].Value(r)
	})
	inUse := gpuexec.InUse(dev)
	for _, c := range []struct {
		name    string
		right   *coldata.Batch
		resplit bool
	}{{"many keys", right, true}, {"one key", one, false}} {
		var rparts2 []*coldata.Batch
		if c.right == right {
			rparts2 = rparts
		} else {
			rparts2 = []*coldata.Batch{coldata.SliceBatch(one, 0, 700), coldata.SliceBatch(one, 700, one.Len)}
		}
		kc := tinyJoinCase{"bigint", []int{0}, []int{0}}
		for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
			name := fmt.Sprintf("%s kind %d", c.name, kind)
			want := nestedJoin(left, c.right, kc, kind, 3, 3, func(int, int) bool { return true })
			j := &operators.DeviceHashJoin{
				Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
				Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts2}, RT: rt},
				RT:    rt, LeftKeys: kc.left, RightKeys: kc.right, Kind: kind,
				LeftTypes: types, RightTypes: types, RightInTypes: types, Stats: &operators.Stats{},
				BuildOn: buildPastRows(400), MemoryLimit: 1 << 30, SpillDir: t.TempDir(),
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
			if st.OOMPartitions.Load() < 2 || (st.OOMResplits.Load() > 0) != c.resplit {
				t.Errorf("%s: oom_partitions=%d oom_resplits=%d, want split again %v", name, st.OOMPartitions.Load(), st.OOMResplits.Load(), c.resplit)
			}
			if c.resplit == (st.HostJoinOOM.Load() == 1) {
				t.Errorf("%s: host_join_oom=%d", name, st.HostJoinOOM.Load())
			}
			if u := gpuexec.InUse(dev); u != inUse {
				t.Errorf("%s: %d bytes of device memory held after the join, want %d", name, u, inUse)
			}
		}
	}
}

// TestFakeAggSplitsPartitionsAgain: a GROUP BY's partitions that still do
// not fit are split again by their own GROUP BY and grouped on the
// device; with quantiles over one key's rows (no halves, no spreading),
// the partition goes to the CPU at once.
func TestFakeAggSplitsPartitionsAgain(t *testing.T) {
	defer operators.SetTinyRows(0)()
	defer operators.SetOOMPartitionBytes(1 << 20)()
	defer func(f int) { operators.AggFewRows = f }(operators.AggFewRows)
	operators.AggFewRows = 16
	dev, rt := tinyDevice(t)
	batches := fewManyBatches([]int{3000, 2500}, func(int, int) int { return 1_000_000 })
	aggs := fewManyAggs()
	want := cpuAggregate(t, batches, []int{0}, aggs)
	st := &operators.Stats{}
	h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt},
		RT: rt, Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: aggs, Stats: st, GroupOn: groupFits(1000, nil)}
	got := aggRun(t, dev, h, false)
	if w, g := sortedRows(want), sortedRows(got); !slices.Equal(w, g) {
		t.Fatalf("%d groups, want %d", len(g), len(w))
	}
	if st.OOMPartitions.Load() != 2 || st.OOMResplits.Load() == 0 || st.HostGroupOOM.Load() != 0 {
		t.Errorf("oom_partitions=%d oom_resplits=%d host_group_oom=%d, want 2 partitions split again on the device",
			st.OOMPartitions.Load(), st.OOMResplits.Load(), st.HostGroupOOM.Load())
	}

	f := &expr.ColumnRef{Index: 3, Name: "f", T: coldata.Float64}
	qaggs := []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggQuantileCont, Arg: f, Quantile: 0.5, Type: coldata.Float64}}
	// One key: the rows whose VARCHAR key is "A", grouped by it.
	var ones []*coldata.Batch
	for _, b := range batches {
		var idx []int
		for r := 0; r < b.Len; r++ {
			if string(b.Cols[1].Str(r)) == "A" {
				idx = append(idx, r)
			}
		}
		ones = append(ones, coldata.GatherBatch(b, idx))
	}
	want = cpuAggregate(t, ones, []int{1}, qaggs)
	st = &operators.Stats{}
	h = &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: ones}, RT: rt},
		RT: rt, Keys: []int{1}, KeyTypes: []coldata.Type{coldata.String}, Aggs: qaggs, Stats: st, GroupOn: groupFits(1000, nil)}
	got = aggRun(t, dev, h, false)
	if w, g := sortedRows(want), sortedRows(got); !slices.Equal(w, g) {
		t.Fatalf("one key: %v, want %v", g, w)
	}
	if st.OOMPartitions.Load() != 2 || st.OOMResplits.Load() != 0 || st.HostGroupOOM.Load() != 1 {
		t.Errorf("one key: oom_partitions=%d oom_resplits=%d host_group_oom=%d, want its partition on the CPU at once",
			st.OOMPartitions.Load(), st.OOMResplits.Load(), st.HostGroupOOM.Load())
	}
}
