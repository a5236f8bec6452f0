//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// sortBatches makes host batches of the sort test's columns: k BIGINT
// (ties, NULLs), f DOUBLE (-0.0, NaN, infinities, NULLs), d DATE, m
// DECIMAL(12,2), b BOOLEAN, s VARCHAR (NULLs), id (unique), l VARCHAR
// (some strings past gpuexec.MaxTextSortBytes: the host sorts those).
func sortBatches(sizes []int, seed int64) []*coldata.Batch {
	r := rand.New(rand.NewSource(seed))
	floats := []float64{math.Inf(-1), -2.5, math.Copysign(0, -1), 0, 1, 1e300, math.Inf(1), math.NaN()}
	id := 0
	var out []*coldata.Batch
	for _, n := range sizes {
		k, f, d := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n), coldata.NewBuilder(coldata.Date, n)
		m, b, s := coldata.NewBuilder(coldata.DecimalOf(12, 2), n), coldata.NewBuilder(coldata.Bool, n), coldata.NewBuilder(coldata.String, n)
		ids, l := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n)
		for i := 0; i < n; i++ {
			if r.Intn(10) == 0 {
				k.AppendNull()
			} else {
				k.AppendInt(int64(r.Intn(50)) - 25)
			}
			if r.Intn(12) == 0 {
				f.AppendNull()
			} else if r.Intn(2) == 0 {
				f.AppendFloat(floats[r.Intn(len(floats))])
			} else {
				f.AppendFloat(r.NormFloat64())
			}
			d.AppendInt(int64(19000 + r.Intn(400)))
			if r.Intn(15) == 0 {
				m.AppendNull()
			} else {
				m.AppendDec(decimal.FromInt64(int64(r.Intn(100000) - 50000)))
			}
			if r.Intn(7) == 0 {
				b.AppendNull()
			} else {
				b.AppendBool(r.Intn(2) == 0)
			}
			if r.Intn(9) == 0 {
				s.AppendNull()
			} else {
				s.AppendString(fmt.Sprintf("s%03d", r.Intn(300)))
			}
			ids.AppendInt(int64(id))
			id++
			l.AppendString(strings.Repeat("x", r.Intn(gpuexec.MaxTextSortBytes+2)))
		}
		out = append(out, coldata.NewBatch([]*coldata.Vec{k.Finish(), f.Finish(), d.Finish(), m.Finish(), b.Finish(), s.Finish(), ids.Finish(), l.Finish()}, n))
	}
	return out
}

// TestDeviceSortMatchesCPU runs DeviceSort over three device batches with
// keys of every type it sorts on the device (short text too; long text
// the host sorts), ascending and descending, NULLS FIRST/LAST, several keys,
// with and without a LIMIT, on the device path and the host path, and
// compares every output row with the CPU Sort's.
func TestDeviceSortMatchesCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	hosts := sortBatches([]int{70_000, 1, 130_000}, 5)
	var devs []*gpuexec.DeviceBatch
	for _, h := range hosts {
		db, err := rt.Dev.Upload(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Release()
		devs = append(devs, db)
	}
	types := make([]coldata.Type, len(hosts[0].Cols))
	for i, c := range hosts[0].Cols {
		types[i] = c.Type
	}
	rowsOf := func(bs []*coldata.Batch, limit int) []string {
		var out []string
		for _, b := range bs {
			for i := 0; i < b.Len; i++ {
				row := ""
				for _, c := range b.Cols {
					row += fmt.Sprintf("%v|", c.Value(i))
				}
				out = append(out, row)
			}
		}
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out
	}
	for _, keys := range [][]opspec.SortKey{
		{{Col: 0}},
		{{Col: 1, Desc: true}},
		{{Col: 1, Nulls: opspec.NullsLast}, {Col: 0, Desc: true}},
		{{Col: 2, Desc: true}, {Col: 3}, {Col: 4, Desc: true, Nulls: opspec.NullsFirst}},
		{{Col: 4}, {Col: 3, Desc: true, Nulls: opspec.NullsLast}, {Col: 1}},
		{{Col: 6, Desc: true}},
		{{Col: 0, Desc: true}, {Col: 6}},
		{{Col: 5}, {Col: 0}},
		{{Col: 5, Desc: true, Nulls: opspec.NullsFirst}, {Col: 1, Desc: true}},
		{{Col: 7, Desc: true}, {Col: 0}},
	} {
		for _, limit := range []int64{0, 1, 10, 1000, 150_000} {
			cpu := &operators.Sort{Input: &operators.Materialized{Batches: hosts}, Keys: keys, NCols: len(types), Limit: limit}
			all, err := operators.Drain(ctx, cpu)
			if err != nil {
				t.Fatal(err)
			}
			want := rowsOf(all, int(limit))
			for _, onHost := range []bool{false, true} {
				restore := operators.SetSortKeysOnHost(onHost)
				st := &operators.Stats{}
				ds := &operators.DeviceSort{Input: &batchesSource{bs: devs}, RT: rt, Keys: keys, Types: types, Limit: limit, Stats: st}
				if err := ds.Open(ctx); err != nil {
					t.Fatal(err)
				}
				var got []*coldata.Batch
				for {
					b, err := ds.NextDevice(ctx)
					if err != nil {
						t.Fatalf("keys %v limit %d: %v", keys, limit, err)
					}
					if b == nil {
						break
					}
					h, err := rt.Dev.Download(ctx, b)
					b.Release()
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, h)
				}
				ds.Close()
				restore()
				long := false
				for _, k := range keys {
					long = long || k.Col == 7
				}
				if hs := st.HostSorts.Load(); onHost && hs == 0 || !onHost && !long && hs != 0 {
					t.Errorf("keys %v limit %d host %v: %d host sorts", keys, limit, onHost, hs)
				}
				g := rowsOf(got, int(limit))
				if len(g) != len(want) {
					t.Fatalf("keys %v limit %d host %v: %d rows, want %d", keys, limit, onHost, len(g), len(want))
				}
				for i := range g {
					if g[i] != want[i] {
						t.Fatalf("keys %v limit %d host %v: row %d is %s, want %s", keys, limit, onHost, i, g[i], want[i])
					}
				}
			}
		}
	}
}

// TestDeviceSortChunksMatchCPU: a sort over several batches (one empty)
// gathers its output in chunks (DeviceBatchRows made small), each from
// several batches; the rows, in order, are the CPU Sort's, with and
// without a LIMIT, keys sorted on the device and on the host.
func TestDeviceSortChunksMatchCPU(t *testing.T) {
	defer func(n int) { operators.DeviceBatchRows = n }(operators.DeviceBatchRows)
	operators.DeviceBatchRows = 40_000
	rt := openRuntime(t, false)
	ctx := context.Background()
	hosts := sortBatches([]int{60_000, 0, 90_000, 25_000}, 8)
	var devs []*gpuexec.DeviceBatch
	for _, h := range hosts {
		db, err := rt.Dev.Upload(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Release()
		devs = append(devs, db)
	}
	types := make([]coldata.Type, len(hosts[0].Cols))
	for i, c := range hosts[0].Cols {
		types[i] = c.Type
	}
	rowsOf := func(bs []*coldata.Batch) []string {
		var out []string
		for _, b := range bs {
			for i := 0; i < b.Len; i++ {
				row := ""
				for _, c := range b.Cols {
					row += fmt.Sprintf("%v|", c.Value(i))
				}
				out = append(out, row)
			}
		}
		return out
	}
	for _, keys := range [][]opspec.SortKey{
		{{Col: 0}},
		{{Col: 5, Desc: true}, {Col: 1, Nulls: opspec.NullsLast}},
		{{Col: 6, Desc: true}},
		{{Col: 7}, {Col: 6, Desc: true}},
	} {
		for _, limit := range []int64{0, 7, 100_000} {
			all, err := operators.Drain(ctx, &operators.Sort{Input: &operators.Materialized{Batches: hosts}, Keys: keys, NCols: len(types), Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			want := rowsOf(all)
			if limit > 0 && int64(len(want)) > limit {
				want = want[:limit]
			}
			for _, onHost := range []bool{false, true} {
				restore := operators.SetSortKeysOnHost(onHost)
				ds := &operators.DeviceSort{Input: &batchesSource{bs: devs}, RT: rt, Keys: keys, Types: types, Limit: limit, Stats: &operators.Stats{}}
				if err := ds.Open(ctx); err != nil {
					t.Fatal(err)
				}
				var got []*coldata.Batch
				for {
					b, err := ds.NextDevice(ctx)
					if err != nil {
						t.Fatalf("keys %v limit %d: %v", keys, limit, err)
					}
					if b == nil {
						break
					}
					if b.Len > operators.DeviceBatchRows {
						t.Errorf("keys %v limit %d: an output batch of %d rows", keys, limit, b.Len)
					}
					h, err := rt.Dev.Download(ctx, b)
					b.Release()
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, h)
				}
				ds.Close()
				restore()
				g := rowsOf(got)
				if limit > 0 && int64(len(g)) > limit {
					g = g[:limit]
				}
				if len(g) != len(want) {
					t.Fatalf("keys %v limit %d host %v: %d rows, want %d", keys, limit, onHost, len(g), len(want))
				}
				for i := range g {
					if g[i] != want[i] {
						t.Fatalf("keys %v limit %d host %v: row %d is %s, want %s", keys, limit, onHost, i, g[i], want[i])
					}
				}
			}
		}
	}
}
