package gpuexec_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
)

// TestStreamedQuerySettles runs a fully streamed scan (every column
// larger than the resident share) under the operators that consume it (a
// LIMIT's views, the download at the top, synchronous and through the
// result pool) on a database's handle: afterwards the database's bytes in
// use (what `.stats` and TestGPUPoolLimit read) and the pool's are back
// where they started. The chunks are views, so each download packs them,
// reading string offsets through a scratch buffer; freeing that scratch
// around the buffer left its 512 bytes counted for the database.
func TestStreamedQuerySettles(t *testing.T) {
	const limit = 1 << 20
	const rows = 70000 // each column over the resident share (512 KiB)
	d := gpuexec.FakeDatabaseDevice(t, gpuexec.Options{PoolLimit: limit, SlabSize: 64 << 10})
	ctx := context.Background()
	ids := coldata.NewBuilder(coldata.Int64, rows)
	names := coldata.NewBuilder(coldata.String, rows)
	for i := range rows {
		ids.AppendInt(int64(i))
		if i%7 == 0 {
			names.AppendNull()
		} else {
			names.AppendString(fmt.Sprintf("name %d with some padding", i))
		}
	}
	hb := coldata.NewBatch([]*coldata.Vec{ids.Finish(), names.Finish()}, rows)
	rt := &operators.DeviceRuntime{Dev: d, Cache: gpuexec.NewTableCache(d, 1<<30)}
	startDB, startPool := d.InUse(), gpuexec.InUse(d)
	for _, results := range []bool{false, true} {
		for _, offset := range []int64{0, 1234} {
			scan := &operators.DeviceScan{RT: rt, Table: "t", Version: 1, Cols: []int{1, 0},
				Load: func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }}
			top := &operators.DeviceToHost{Input: operators.NewDeviceLimit(scan, -1, offset), RT: rt, Results: results}
			what := fmt.Sprintf("result pool %v, offset %d", results, offset)
			if err := top.Open(ctx); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !scan.Streamed() {
				t.Fatalf("%s: the scan is not streamed", what)
			}
			got, batches := 0, 0
			for {
				b, err := top.Next(ctx)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if b == nil {
					break
				}
				for r := 0; r < b.Len; r++ {
					row := got + r + int(offset)
					if id := b.Cols[1].Int(r); id != int64(row) {
						t.Fatalf("%s: row %d has id %d", what, row, id)
					}
					if null := b.Cols[0].IsNull(r); null != (row%7 == 0) || !null && string(b.Cols[0].Str(r)) != fmt.Sprintf("name %d with some padding", row) {
						t.Fatalf("%s: row %d: name %q (NULL %v)", what, row, b.Cols[0].Str(r), null)
					}
				}
				got += b.Len
				batches++
				b.ReleaseOwner()
			}
			if err := top.Close(); err != nil {
				t.Fatalf("%s: close: %v", what, err)
			}
			if got != rows-int(offset) || batches < 2 {
				t.Fatalf("%s: %d rows in %d batches", what, got, batches)
			}
			if st := rt.Cache.Stats(); st.Bytes != 0 {
				t.Fatalf("%s: %d bytes resident: the scan should stream every column", what, st.Bytes)
			}
			if db, pool := d.InUse(), gpuexec.InUse(d); db != startDB || pool != startPool {
				t.Fatalf("%s: %d bytes in use by the database, %d in the pool after the query; %d and %d before",
					what, db, pool, startDB, startPool)
			}
		}
	}
}

// A scan's load gives only its own columns (the others nil, as
// catalog.Table.ColumnBatches leaves them): grouped for the device and
// made resident, or streamed, the scan reads its columns' rows.
func TestScanLoadsOnlyItsColumns(t *testing.T) {
	const rows = 70000
	ids := coldata.NewBuilder(coldata.Int64, rows)
	names := coldata.NewBuilder(coldata.String, rows)
	for i := range rows {
		ids.AppendInt(int64(i))
		names.AppendString(fmt.Sprintf("n%d", i%100))
	}
	hb := coldata.NewBatch([]*coldata.Vec{nil, ids.Finish(), nil, names.Finish()}, rows)
	ctx := context.Background()
	for _, resident := range []bool{true, false} {
		limit := uint64(1 << 20) // each column over the resident share
		if resident {
			limit = 64 << 20
		}
		d := gpuexec.FakeDatabaseDevice(t, gpuexec.Options{PoolLimit: limit, SlabSize: 64 << 10})
		rt := &operators.DeviceRuntime{Dev: d, Cache: gpuexec.NewTableCache(d, 1<<30)}
		scan := &operators.DeviceScan{RT: rt, Table: "t", Version: 1, Cols: []int{3, 1}, Prepare: operators.GroupForDevice,
			Load: func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }}
		top := &operators.DeviceToHost{Input: scan, RT: rt}
		if err := top.Open(ctx); err != nil {
			t.Fatalf("resident %v: %v", resident, err)
		}
		if scan.Streamed() == resident {
			t.Fatalf("resident %v: streamed %v", resident, scan.Streamed())
		}
		got := 0
		for {
			b, err := top.Next(ctx)
			if err != nil {
				t.Fatalf("resident %v: %v", resident, err)
			}
			if b == nil {
				break
			}
			for r := 0; r < b.Len; r++ {
				row := got + r
				if b.Cols[1].Int(r) != int64(row) || string(b.Cols[0].Str(r)) != fmt.Sprintf("n%d", row%100) {
					t.Fatalf("resident %v: row %d: %d %q", resident, row, b.Cols[1].Int(r), b.Cols[0].Str(r))
				}
			}
			got += b.Len
			b.ReleaseOwner()
		}
		if err := top.Close(); err != nil {
			t.Fatal(err)
		}
		if got != rows {
			t.Fatalf("resident %v: %d rows", resident, got)
		}
	}
}
