package gpuexec_test

// Device sorts and joins over tiny inputs run on the host (operators'
// device_tiny.go): the input downloaded, the CPU operator's code, the
// output uploaded, and no kernel launched. The fake driver runs no
// generated kernels, so these paths run here end to end (the device
// paths they replace need the gather kernels: TestCUDATinyOnHost in
// operators compares both on a GPU).

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// tinyColumns builds n rows of columns from gen(col, row) (nil: NULL).
func tinyColumns(types []coldata.Type, n int, gen func(c, r int) any) *coldata.Batch {
	cols := make([]*coldata.Vec, len(types))
	for c, t := range types {
		b := coldata.NewBuilder(t, n)
		for r := 0; r < n; r++ {
			if v := gen(c, r); v == nil {
				b.AppendNull()
			} else {
				b.AppendValue(v)
			}
		}
		cols[c] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

// runDevice opens op, reads its device batches to the end, downloads them
// and returns their rows in order.
func runDevice(t *testing.T, dev *gpuexec.Device, op operators.DeviceOperator) []string {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b, err := op.NextDevice(ctx)
		if err != nil {
			op.Close()
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		hb, err := dev.Download(ctx, b)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rowKeys(hb)...)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// hostRows returns every row of the CPU operator op, in order.
func hostRows(t *testing.T, op operators.Operator) []string {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var rows []string
	for {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return rows
		}
		rows = append(rows, rowKeys(b)...)
	}
}

func TestFakeTinySortOnHost(t *testing.T) {
	devs, _ := gpuexec.FakeDevices(t, 1, nil)
	dev := devs[0]
	rt := &operators.DeviceRuntime{Dev: dev}
	rng := rand.New(rand.NewSource(7))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.Int64}
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1.5, -2}
	const n = 23
	all := tinyColumns(types, n, func(c, r int) any {
		if c == 3 {
			return int64(r) // the row's number, so that ties show their order
		}
		if rng.Intn(5) == 0 {
			return nil
		}
		switch c {
		case 0:
			return int64(rng.Intn(6) - 2)
		case 1:
			return []string{"", "a", "ab", "b", "B", "ä"}[rng.Intn(6)]
		}
		return floats[rng.Intn(len(floats))]
	})
	halves := []*coldata.Batch{coldata.SliceBatch(all, 0, 9), coldata.SliceBatch(all, 9, n)}
	key := func(col int, desc bool, nulls opspec.NullOrder) opspec.SortKey {
		return opspec.SortKey{Col: col, Desc: desc, Nulls: nulls}
	}
	for _, keys := range [][]opspec.SortKey{
		{key(0, false, opspec.NullsDefault)},
		{key(0, true, opspec.NullsDefault)},
		{key(0, true, opspec.NullsFirst)},
		{key(0, false, opspec.NullsLast)},
		{key(1, false, opspec.NullsDefault), key(0, true, opspec.NullsDefault)},
		{key(1, true, opspec.NullsDefault)},
		{key(2, false, opspec.NullsDefault)},
		{key(2, true, opspec.NullsLast), key(1, false, opspec.NullsDefault)},
	} {
		for _, limit := range []int64{0, 3, 11, 100} {
			for _, parts := range [][]*coldata.Batch{{all}, halves} {
				name := fmt.Sprintf("%v limit %d, %d batches", keys, limit, len(parts))
				want := hostRows(t, &operators.Sort{Input: &operators.Materialized{Batches: parts}, Keys: keys, NCols: len(types), Limit: limit})
				if limit > 0 && int64(len(want)) > limit {
					want = want[:limit]
				}
				st := &operators.Stats{}
				before := gpuexec.FakeLaunches(dev)
				got := runDevice(t, dev, &operators.DeviceSort{Input: &operators.HostToDevice{Input: &operators.Materialized{Batches: parts}, RT: rt},
					RT: rt, Keys: keys, Types: types, Stats: st, Limit: limit})
				if !slices.Equal(got, want) {
					t.Fatalf("%s:\ngot  %q\nwant %q", name, got, want)
				}
				if l := gpuexec.FakeLaunches(dev) - before; l != 0 || st.Launches.Load() != 0 {
					t.Errorf("%s: %d launches (%d counted), want none", name, l, st.Launches.Load())
				}
				if st.HostOrders.Load() != 1 || st.HostOrderRows.Load() != n {
					t.Errorf("%s: %d host orders of %d rows, want 1 of %d", name, st.HostOrders.Load(), st.HostOrderRows.Load(), n)
				}
			}
		}
	}
}
