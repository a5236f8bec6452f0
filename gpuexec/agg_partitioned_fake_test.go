package gpuexec_test

// A device GROUP BY that runs out of device memory groups partition by
// partition (operators/device_aggregate_partitioned.go), on a fake
// device whose grouping (a host twin) fails past a number of rows.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// groupFits is a GroupOn twin that runs out of device memory for a batch
// of more than fits rows (fits < 0: for every batch) and groups smaller
// ones on the host, cutting them under a top-groups cut by a COUNT(*)
// (the one such cut these tests ask for) or to the first K. calls counts
// its calls.
func groupFits(fits int, calls *int) func(context.Context, *gpuexec.Device, *gpuexec.DeviceBatch, []int, []gpuexec.GroupAgg, *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
	return func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
		if calls != nil {
			*calls++
		}
		if fits < 0 || b.Len > fits {
			return nil, fmt.Errorf("group: %w", &memory.OutOfMemoryError{Requested: uint64(b.Len) << 10, Limit: uint64(max(fits, 0)) << 10})
		}
		if top == nil || top.Agg < 0 {
			return hostGroupByTop(ctx, d, b, keys, aggs, top)
		}
		if top.Key || aggs[top.Agg].Kind != gpuexec.GroupCountStar {
			return nil, fmt.Errorf("groupFits: no twin for this cut")
		}
		p, err := hostGroupBy(ctx, d, b, keys, aggs)
		if err != nil || top.K >= p.Keys.Len {
			return p, err
		}
		// The K largest (smallest) counts, ties by first appearance, kept
		// in first-appearance order.
		cnt := p.Aggs[top.Agg].Count
		idx := make([]int, p.Keys.Len)
		for g := range idx {
			idx[g] = g
		}
		sort.SliceStable(idx, func(a, b int) bool {
			if top.Desc {
				return cnt[idx[a]] > cnt[idx[b]]
			}
			return cnt[idx[a]] < cnt[idx[b]]
		})
		keep := idx[:top.K]
		slices.Sort(keep)
		return keepGroups(p, keep), nil
	}
}

// keepGroups is the partial of p's groups keep, in that order.
func keepGroups(p *gpuexec.GroupPartial, keep []int) *gpuexec.GroupPartial {
	out := &gpuexec.GroupPartial{Aggs: make([]gpuexec.AggPartial, len(p.Aggs)), Keys: coldata.GatherBatch(p.Keys, keep)}
	pick64 := func(v []int64) []int64 {
		if v == nil {
			return nil
		}
		o := make([]int64, len(keep))
		for i, g := range keep {
			o[i] = v[g]
		}
		return o
	}
	for a := range p.Aggs {
		st, o := &p.Aggs[a], &out.Aggs[a]
		o.Count, o.Hi = pick64(st.Count), pick64(st.Hi)
		if st.Lo != nil {
			o.Lo = make([]uint64, len(keep))
			for i, g := range keep {
				o.Lo[i] = st.Lo[g]
			}
		}
		if st.Float != nil {
			o.Float = make([]float64, len(keep))
			for i, g := range keep {
				o.Float[i] = st.Float[g]
			}
		}
	}
	return out
}

// sortedRows is rowKeys of b, sorted.
func sortedRows(b *coldata.Batch) []string {
	r := rowKeys(b)
	slices.Sort(r)
	return r
}

// aggRun runs h (through NextDevice when device) and checks that it left
// no device memory held.
func aggRun(t *testing.T, dev *gpuexec.Device, h *operators.DeviceHashAggregate, device bool) *coldata.Batch {
	t.Helper()
	inUse := gpuexec.InUse(dev)
	got := runDeviceAggregate(t, h, device)
	if u := gpuexec.InUse(dev); u != inUse {
		t.Errorf("%d bytes of device memory held after the GROUP BY, want %d", u, inUse)
	}
	return got
}

// TestFakeAggPartitionedAfterOOM: a batch whose grouping does not fit is
// grouped in halves first; when the first half shows many groups (the
// host would merge them all), the input is grouped by partition instead,
// each partition's groups final, the answer the CPU's over NULL, text and
// two-column keys. With few groups the halves stand. When nothing fits,
// the partitions are split again as far as they go, then grouped on the
// CPU.
func TestFakeAggPartitionedAfterOOM(t *testing.T) {
	defer operators.SetTinyRows(0)() // the partitions through the twin too
	defer operators.SetOOMPartitionBytes(128 << 10)()
	defer func(f int) { operators.AggFewRows = f }(operators.AggFewRows)
	operators.AggFewRows = 16
	dev, rt := tinyDevice(t)
	aggs := fewManyAggs()
	for _, c := range []struct {
		name   string
		groups int
		keys   []int
		fits   int
		// parted: grouped by partition; host: some partition on the CPU.
		parted, host bool
	}{
		{"many groups", 1_000_000, []int{0}, 1000, true, false},
		{"many groups, two keys", 1_000_000, []int{1, 0}, 1000, true, false},
		{"few groups", 4, []int{0}, 1000, false, false},
		{"nothing fits", 1_000_000, []int{0}, -1, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			batches := fewManyBatches([]int{3000, 2500}, func(int, int) int { return c.groups })
			want := cpuAggregate(t, batches, c.keys, aggs)
			keyTypes := make([]coldata.Type, len(c.keys))
			for i, k := range c.keys {
				keyTypes[i] = batches[0].Cols[k].Type
			}
			st := &operators.Stats{}
			h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt},
				RT: rt, Keys: c.keys, KeyTypes: keyTypes, Aggs: aggs, Stats: st, GroupOn: groupFits(c.fits, nil), PartitionOn: hostPartitionRows}
			got := aggRun(t, dev, h, false)
			if w, g := sortedRows(want), sortedRows(got); !slices.Equal(w, g) {
				t.Fatalf("%d groups, want %d\ngot  %.5q\nwant %.5q", len(g), len(w), g, w)
			}
			if c.fits > 0 && st.OOMSplits.Load() == 0 {
				t.Errorf("the batch was not halved first")
			}
			p := st.OOMPartitions.Load()
			if c.parted != (p > 0) || (p > 0 && (p < 4 || p&(p-1) != 0)) {
				t.Errorf("oom_partitions=%d, want partitioned %v (a power of two, at least 4)", p, c.parted)
			}
			if (st.HostGroupOOM.Load() == 1) != c.host {
				t.Errorf("host_group_oom=%d, want on the host %v", st.HostGroupOOM.Load(), c.host)
			}
			if c.host && st.OOMResplits.Load() == 0 {
				t.Errorf("no partition was split again before the CPU grouped it")
			}
			if c.parted && st.PeakHostBytes.Load() == 0 {
				t.Errorf("the partitions' host bytes were not counted")
			}
		})
	}
}

// withBools appends to each batch a BOOLEAN column: whether column 2 is
// even (NULL where it is).
func withBools(batches []*coldata.Batch) []*coldata.Batch {
	out := make([]*coldata.Batch, len(batches))
	for i, b := range batches {
		bb := coldata.NewBuilder(coldata.Bool, b.Len)
		v := b.Cols[2]
		for r := 0; r < b.Len; r++ {
			if v.IsNull(r) {
				bb.AppendNull()
			} else {
				bb.AppendBool(v.Int(r)%2 == 0)
			}
		}
		out[i] = coldata.NewBatch(append(slices.Clone(b.Cols), bb.Finish()), b.Len)
	}
	return out
}

// Quantiles (no partial state: never halved) and DISTINCT aggregates
// (their values deduplicated per group) group by partition after the
// device ran out of memory, through Next and NextDevice: every group's
// rows are in one partition, so its quantiles and distinct values are
// whole there. (The partitions are small enough for the host's tiny path,
// the fake driver having no twin of the DISTINCT and quantile kernels.)
func TestFakeAggPartitionedQuantilesDistinct(t *testing.T) {
	defer operators.SetOOMPartitionBytes(128 << 10)()
	dev, rt := tinyDevice(t)
	batches := withBools(fewManyBatches([]int{3000, 2500}, func(int, int) int { return 400 }))
	v := &expr.ColumnRef{Index: 2, Name: "v", T: coldata.Int64}
	f := &expr.ColumnRef{Index: 3, Name: "f", T: coldata.Float64}
	bl := &expr.ColumnRef{Index: 4, Name: "b", T: coldata.Bool}
	for _, c := range []struct {
		name string
		aggs []opspec.AggSpec
	}{
		{"quantiles", []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggQuantileCont, Arg: f, Quantile: 0.5, Type: coldata.Float64},
			{Kind: opspec.AggQuantileDisc, Arg: v, Quantile: 0.25, Type: coldata.Int64},
		}},
		{"distinct", []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggCount, Arg: v, Type: coldata.Int64, Distinct: true},
			{Kind: opspec.AggSum, Arg: v, Type: coldata.Int64, Distinct: true},
			{Kind: opspec.AggMax, Arg: bl, Type: coldata.Bool},
		}},
	} {
		for _, device := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s device %v", c.name, device), func(t *testing.T) {
				keys := []int{0}
				want := cpuAggregate(t, batches, keys, c.aggs)
				st := &operators.Stats{}
				h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt},
					RT: rt, Keys: keys, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: c.aggs, Stats: st, GroupOn: groupFits(1000, nil)}
				got := aggRun(t, dev, h, device)
				if w, g := sortedRows(want), sortedRows(got); !slices.Equal(w, g) {
					t.Fatalf("%d groups, want %d\ngot  %.5q\nwant %.5q", len(g), len(w), g, w)
				}
				if st.OOMPartitions.Load() < 2 {
					t.Errorf("oom_partitions=%d, want the input partitioned", st.OOMPartitions.Load())
				}
			})
		}
	}
}

// TestFakeAggPartitionedTop: under ORDER BY COUNT(*) DESC LIMIT k each
// partition's grouping keeps its k largest groups, and the survivors of
// every partition are cut again: k groups come out, whose counts are the
// k largest of the CPU's groups.
func TestFakeAggPartitionedTop(t *testing.T) {
	defer operators.SetTinyRows(0)()
	defer operators.SetOOMPartitionBytes(128 << 10)()
	defer func(f int) { operators.AggFewRows = f }(operators.AggFewRows)
	operators.AggFewRows = 16
	dev, rt := tinyDevice(t)
	// 600 groups of 1 to 13 rows, and groups 1000..1011 of 20 to 42.
	var keys []any
	for g := 0; g < 600; g++ {
		for i := 0; i <= g*7%13; i++ {
			keys = append(keys, int64(g))
		}
	}
	for g := 0; g < 12; g++ {
		for i := 0; i < 20+2*g; i++ {
			keys = append(keys, int64(1000+g))
		}
	}
	keys = append(keys, nil, nil)
	perm := make([]int, len(keys))
	for i := range perm {
		perm[i] = i * 7919 % len(keys)
	}
	if len(keys)%7919 == 0 {
		t.Fatal("the permutation is not one")
	}
	all := tinyColumns([]coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64}, len(keys), func(c, r int) any {
		switch c {
		case 0:
			return keys[perm[r]]
		case 1:
			return "x"
		case 2:
			return int64(r % 50)
		}
		return float64(r % 9)
	})
	batches := []*coldata.Batch{coldata.SliceBatch(all, 0, 2000), coldata.SliceBatch(all, 2000, all.Len)}
	aggs := fewManyAggs()
	full := cpuAggregate(t, batches, []int{0}, aggs)
	counts := slices.Clone(full.Cols[1].Ints[:full.Len])
	slices.SortFunc(counts, func(a, b int64) int { return int(b - a) })
	const k = 5
	st := &operators.Stats{}
	h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt},
		RT: rt, Keys: []int{0}, KeyTypes: []coldata.Type{coldata.Int64}, Aggs: aggs, Stats: st,
		Top: &opspec.TopGroups{Agg: 0, Desc: true, Limit: k}, GroupOn: groupFits(1000, nil)}
	got := aggRun(t, dev, h, false)
	if got.Len != k {
		t.Fatalf("%d groups came out, want %d", got.Len, k)
	}
	gc := slices.Clone(got.Cols[1].Ints[:got.Len])
	slices.SortFunc(gc, func(a, b int64) int { return int(b - a) })
	if !slices.Equal(gc, counts[:k]) {
		t.Errorf("counts %v, want %v", gc, counts[:k])
	}
	in := map[string]bool{}
	for _, r := range rowKeys(full) {
		in[r] = true
	}
	for _, r := range rowKeys(got) {
		if !in[r] {
			t.Errorf("group %s is not the CPU's", r)
		}
	}
	if st.OOMPartitions.Load() < 2 {
		t.Errorf("oom_partitions=%d, want the input partitioned", st.OOMPartitions.Load())
	}
}
