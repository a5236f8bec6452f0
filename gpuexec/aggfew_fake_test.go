package gpuexec_test

// DeviceHashAggregate over batches too large together to concatenate (the
// limit made tiny), on a fake device: batches with few groups for their
// rows are grouped one by one and their partials merged on the host,
// batches with many are grouped by hash partition, and input that
// changes from few to many groups takes both. The fake driver runs no
// generated kernels, so the grouping and the partitioning are host twins
// (hostGroupByTop, hostPartitionRows); TestCUDAAggFewGroups runs the same
// shapes on the device.

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/bits"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// hostGroupByTop is hostGroupBy under GroupByTop's cut to the first K
// groups (the only cut these tests ask for).
func hostGroupByTop(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
	p, err := hostGroupBy(ctx, d, b, keys, aggs)
	if err != nil || top == nil || top.K >= p.Keys.Len {
		return p, err
	}
	if top.Agg != -1 || top.Key {
		return nil, fmt.Errorf("hostGroupByTop: no twin for a cut by a term")
	}
	k := top.K
	for i, c := range p.Keys.Cols {
		b := coldata.NewBuilder(c.Type, k)
		for g := 0; g < k; g++ {
			b.AppendFrom(c, g)
		}
		p.Keys.Cols[i] = b.Finish()
	}
	p.Keys.Len = k
	for a := range p.Aggs {
		st := &p.Aggs[a]
		st.Count, st.Lo, st.Hi = st.Count[:k], st.Lo[:k], st.Hi[:k]
		if st.Float != nil {
			st.Float = st.Float[:k]
		}
	}
	return p, nil
}

// hostPartitionRows is PartitionRows on the host: rows stably reordered
// by a hash of their keys' top bits, the row numbers (plus base) added.
func hostPartitionRows(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, parts int, base int64) (*gpuexec.PartitionedRows, error) {
	hb, err := d.Download(ctx, b)
	if err != nil {
		return nil, err
	}
	defer hb.ReleaseOwner()
	keyCols := make([]*coldata.Vec, len(keys))
	for i, k := range keys {
		keyCols[i] = hb.Cols[k]
	}
	shift := 64 - bits.TrailingZeros(uint(parts))
	of := make([]int, hb.Len)
	var key []byte
	for r := range of {
		key = opspec.AppendRowKey(key[:0], keyCols, r)
		h := fnv.New64a()
		h.Write(key)
		of[r] = int(h.Sum64() >> shift)
	}
	order := make([]int, hb.Len)
	for r := range order {
		order[r] = r
	}
	slices.SortStableFunc(order, func(a, b int) int { return of[a] - of[b] })
	out := &gpuexec.PartitionedRows{Bounds: make([]int, parts+1)}
	for _, r := range order {
		out.Bounds[of[r]+1]++
	}
	for p := 1; p <= parts; p++ {
		out.Bounds[p] += out.Bounds[p-1]
	}
	cols := make([]*coldata.Vec, 0, len(hb.Cols)+1)
	for _, c := range hb.Cols {
		nb := coldata.NewBuilder(c.Type, hb.Len)
		for _, r := range order {
			nb.AppendFrom(c, r)
		}
		cols = append(cols, nb.Finish())
	}
	rows := coldata.NewBuilder(coldata.Int64, hb.Len)
	for _, r := range order {
		rows.AppendInt(base + int64(r))
	}
	cols = append(cols, rows.Finish())
	if out.Batch, err = d.Upload(ctx, coldata.NewBatch(cols, hb.Len)); err != nil {
		return nil, err
	}
	return out, nil
}

// fewManyBatches builds batches of sizes[i] rows (columns: 0 BIGINT key,
// 1 VARCHAR key, 2 BIGINT value, 3 DOUBLE value); row r of batch i takes
// one of groups(i, r)
// distinct values of column 0, some NULL, and the VARCHAR key takes 3.
func fewManyBatches(sizes []int, groups func(i, r int) int) []*coldata.Batch {
	var out []*coldata.Batch
	row := 0
	for i, n := range sizes {
		bs := []*coldata.Builder{coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n),
			coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n)}
		for r := 0; r < n; r++ {
			x := (row * 7919) % 1_000_003
			if x%97 == 0 {
				bs[0].AppendNull()
			} else {
				bs[0].AppendInt(int64(x%groups(i, r)) * 3)
			}
			bs[1].AppendString([]string{"A", "N", "R"}[x%3])
			if x%13 == 0 {
				bs[2].AppendNull()
			} else {
				bs[2].AppendInt(int64(x%2001) - 1000)
			}
			bs[3].AppendFloat(float64(x%101) - 50) // exact sums in any order
			row++
		}
		cols := make([]*coldata.Vec, len(bs))
		for c, b := range bs {
			cols[c] = b.Finish()
		}
		out = append(out, coldata.NewBatch(cols, n))
	}
	return out
}

func fewManyAggs() []opspec.AggSpec {
	v := &expr.ColumnRef{Index: 2, Name: "v", T: coldata.Int64}
	f := &expr.ColumnRef{Index: 3, Name: "f", T: coldata.Float64}
	return []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: v, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: v, Type: coldata.Int64},
		{Kind: opspec.AggMin, Arg: v, Type: coldata.Int64},
		{Kind: opspec.AggMax, Arg: v, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: f, Type: coldata.Float64},
		{Kind: opspec.AggAvg, Arg: f, Type: coldata.Float64},
		{Kind: opspec.AggMax, Arg: f, Type: coldata.Float64},
	}
}

func TestFakeAggFewGroups(t *testing.T) {
	defer func(c, f, p int) { operators.AggConcatBytes, operators.AggFewRows, operators.AggProbeRows = c, f, p }(
		operators.AggConcatBytes, operators.AggFewRows, operators.AggProbeRows)
	operators.AggConcatBytes = 32 << 10 // every batch is over it
	devs, _ := gpuexec.FakeDevices(t, 1, nil)
	rt := &operators.DeviceRuntime{Dev: devs[0]}
	sizes := []int{3000, 2500, 3000, 1700}
	for _, c := range []struct {
		name   string
		groups func(i, r int) int
		keys   []int
		// few: the batches grouped one by one; partitioned: whether the
		// rest were grouped by partition; alone: the groupings outside
		// the partitions, without and with the first batch split.
		few         int64
		partitioned bool
		alone       [2]int
	}{
		{"few", func(int, int) int { return 4 }, []int{0}, 4, false, [2]int{4, 5}},
		{"few two keys", func(int, int) int { return 3 }, []int{1, 0}, 4, false, [2]int{4, 5}},
		// One probe (of the first batch, or its first 600 rows).
		{"many", func(int, int) int { return 1_000_000 }, []int{0}, 0, true, [2]int{1, 1}},
		{"many two keys", func(int, int) int { return 1_000_000 }, []int{1, 0}, 0, true, [2]int{1, 1}},
		// Few groups in the first batches, many from the third on.
		{"few then many", func(i, _ int) int { return []int{5, 5, 1_000_000, 1_000_000}[i] }, []int{0}, 2, true, [2]int{3, 4}},
		// Only the last has many: it is grouped on its own too.
		{"many last", func(i, _ int) int { return []int{5, 5, 5, 1_000_000}[i] }, []int{0}, 4, false, [2]int{4, 5}},
		// Few in the first batch's first 600 rows, many after: split, the
		// rest of it is grouped by partition with the other batches.
		{"many after the probe", func(i, r int) int {
			if i == 0 && r < 600 {
				return 5
			}
			return 1_000_000
		}, []int{0}, 0, true, [2]int{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			batches := fewManyBatches(sizes, c.groups)
			aggs := fewManyAggs()
			want := cpuAggregate(t, batches, c.keys, aggs)
			keyTypes := make([]coldata.Type, len(c.keys))
			for i, k := range c.keys {
				keyTypes[i] = batches[0].Cols[k].Type
			}
			// A device consumer (NextDevice) gets the same groups, merged
			// on the host and uploaded. At most one group per 256 rows is
			// few (11 for 3,000 rows); split: one per 16, the first batch
			// probed by its first 600 rows.
			for _, mode := range []struct{ device, split bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				device := mode.device
				operators.AggFewRows, operators.AggProbeRows = 256, 1<<30
				if mode.split {
					operators.AggFewRows, operators.AggProbeRows = 16, 600
				}
				st := &operators.Stats{}
				groupings := 0 // GroupOn calls
				group := func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
					groupings++
					return hostGroupByTop(ctx, d, b, keys, aggs, top)
				}
				h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt, OneByOne: true},
					RT: rt, Keys: c.keys, KeyTypes: keyTypes, Aggs: aggs, Stats: st, GroupOn: group, PartitionOn: hostPartitionRows}
				got := runDeviceAggregate(t, h, device)
				if w, g := rowKeys(want), rowKeys(got); !slices.Equal(w, g) {
					t.Fatalf("%+v: %d groups, want %d\ngot  %.5q\nwant %.5q", mode, len(g), len(w), g, w)
				}
				if n := st.BatchPartials.Load(); n != c.few {
					t.Errorf("%+v: %d batches grouped one by one, want %d", mode, n, c.few)
				}
				p := st.HashPartitions.Load()
				if (p > 0) != c.partitioned {
					t.Errorf("%+v: %d hash partitions, want partitioned %v", mode, p, c.partitioned)
				}
				// Each batch grouped once (the first in two pieces when
				// split); the piece that showed many groups once more, by
				// partition.
				w := c.alone[0] + int(p)
				if mode.split {
					w = c.alone[1] + int(p)
				}
				if groupings != w {
					t.Errorf("%+v: %d groupings (%d batches one by one, %d partitions)", mode, groupings, c.few, p)
				}
			}
		})
	}
}

// runDeviceAggregate runs h to its end through Next, or through NextDevice
// (its groups downloaded), and returns its rows.
func runDeviceAggregate(t *testing.T, h *operators.DeviceHashAggregate, device bool) *coldata.Batch {
	t.Helper()
	ctx := context.Background()
	if err := h.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var got []*coldata.Batch
	for {
		var b *coldata.Batch
		if device {
			db, err := h.NextDevice(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if db != nil {
				b, err = h.RT.Dev.Download(ctx, db)
				db.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
		} else {
			var err error
			if b, err = h.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if b == nil {
			break
		}
		got = append(got, b)
	}
	return coldata.Concat(got, len(h.Keys)+len(h.Aggs))
}

// A GROUP BY whose batch's hash table does not fit the device's memory
// groups the batch in halves (again while a half does not fit), their
// partials merged on the host, instead of failing: the groups are the
// CPU's, in first-appearance order. (Through NextDevice the whole batch
// first goes to GroupByOnDevice, which the fake driver cannot run.) With
// few groups for their rows the halves stand; many groups, or halves
// that bottom out, group by partition (TestFakeAggPartitionedAfterOOM).
func TestFakeAggSplitsOnOutOfMemory(t *testing.T) {
	defer func(f int) { operators.AggFewRows = f }(operators.AggFewRows)
	operators.AggFewRows = 4 // the halves' few groups: at most one per 4 rows
	devs, _ := gpuexec.FakeDevices(t, 1, nil)
	rt := &operators.DeviceRuntime{Dev: devs[0]}
	batches := fewManyBatches([]int{3000, 2500}, func(int, int) int { return 20 })
	keys := []int{0}
	aggs := fewManyAggs()
	want := cpuAggregate(t, batches, keys, aggs)
	keyTypes := []coldata.Type{batches[0].Cols[0].Type}
	for _, fits := range []int{1000, 200} {
		st := &operators.Stats{}
		group := func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg, top *gpuexec.GroupTop) (*gpuexec.GroupPartial, error) {
			if b.Len > fits {
				return nil, fmt.Errorf("group: %w", &memory.OutOfMemoryError{Requested: uint64(b.Len) << 10, Limit: uint64(fits) << 10})
			}
			return hostGroupByTop(ctx, d, b, keys, aggs, top)
		}
		h := &operators.DeviceHashAggregate{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: batches}, RT: rt, OneByOne: true},
			RT: rt, Keys: keys, KeyTypes: keyTypes, Aggs: aggs, Stats: st, GroupOn: group, PartitionOn: hostPartitionRows}
		got := runDeviceAggregate(t, h, false)
		if w, g := rowKeys(want), rowKeys(got); !slices.Equal(w, g) {
			t.Fatalf("fits %d: %d groups, want %d\ngot  %.5q\nwant %.5q", fits, len(g), len(w), g, w)
		}
		if st.OOMSplits.Load() == 0 || st.OOMPartitions.Load() != 0 {
			t.Errorf("fits %d: %d batches split, %d partitions: want halves only", fits, st.OOMSplits.Load(), st.OOMPartitions.Load())
		}
	}
}
