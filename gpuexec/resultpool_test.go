package gpuexec

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
)

func schemaFor(b *coldata.Batch) *arrow.Schema {
	fields := make([]arrow.Field, len(b.Cols))
	for i, c := range b.Cols {
		fields[i] = arrow.Field{Name: string(rune('a' + i)), Type: coldata.ArrowType(c.Type), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// runResultPool is the result pool suite: results downloaded into lent
// page-locked memory equal the uploaded batch, records built over them
// hold the memory until released, and repeated results reuse the pool's
// slabs instead of growing it.
func runResultPool(t *testing.T, d *Device) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(17))
	base := d.Stats().Results
	for _, n := range []int{1, 9, 1000, 40000} {
		hb := randBatch(r, n)
		db, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		views, err := Split(db, []int{n / 3})
		if err != nil {
			t.Fatal(err)
		}
		for i, src := range append([]*DeviceBatch{db}, views...) {
			want := hb
			if i > 0 {
				lo, hi := 0, n/3
				if i == 2 {
					lo, hi = n/3, n
				}
				want = coldata.SliceBatch(hb, lo, hi)
			}
			got, err := d.DownloadResult(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			requireEqualBatch(t, want, got, "result download")
			if got.Owner == nil {
				t.Fatalf("%d rows: result not in pool memory (%+v)", n, d.Stats().Results)
			}
			rec := coldata.BatchToRecord(schemaFor(got), got)
			if got.Owner != nil {
				t.Fatal("BatchToRecord kept the batch's reference")
			}
			if lent := d.Stats().Results.Lent; lent != base.Lent+1 {
				t.Fatalf("%d blocks lent while a record holds one", lent)
			}
			wantRec := coldata.BatchToRecord(rec.Schema(), want)
			if !array.RecordApproxEqual(wantRec, rec, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Fatalf("%d rows: record over pool memory differs", n)
			}
			wantRec.Release()
			rec.Release()
			if st := d.Stats().Results; st.Lent != base.Lent || st.InUse != base.InUse {
				t.Fatalf("after release: %+v, base %+v", st, base)
			}
		}
		for _, v := range views {
			v.Release()
		}
		db.Release()
	}
	// Copies in flight together land in order; a cancelled one returns
	// its memory.
	var want []*coldata.Batch
	var copies []*ResultCopy
	for i := 0; i < 4; i++ {
		hb := randBatch(r, 5000+i)
		db, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.StartResult(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		want, copies = append(want, hb), append(copies, c)
	}
	copies[2].Cancel()
	for i, c := range copies {
		if i == 2 {
			continue
		}
		got, err := c.Wait()
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, want[i], got, "overlapped copy")
		got.ReleaseOwner()
		c.Cancel() // after Wait: a no-op
	}
	if _, err := copies[0].Wait(); err == nil {
		t.Fatal("a second Wait succeeded")
	}
	if st := d.Stats().Results; st.InUse != base.InUse || st.Lent != base.Lent {
		t.Fatalf("after overlapped copies: %+v", st)
	}
	requireNoLeak(t, d, "overlapped copies")
	// Repeated results of one size reuse the slab they first pinned.
	hb := randBatch(r, 50000)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	var reserved uint64
	for i := 0; i < 200; i++ {
		got, err := d.DownloadResult(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		coldata.BatchToRecord(schemaFor(got), got).Release()
		st := d.Stats().Results
		if i == 0 {
			reserved = st.Reserved
		} else if st.Reserved != reserved {
			t.Fatalf("download %d: pool grew from %d to %d bytes", i, reserved, st.Reserved)
		}
	}
	if st := d.Stats().Results; st.InUse != base.InUse || st.Lent != base.Lent {
		t.Fatalf("after the loop: %+v", st)
	}
}

func TestFakeResultPool(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	runResultPool(t, d)
	requireNoLeak(t, d, "result pool")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if f.hostLive != 0 {
		t.Fatalf("%d host buffers still registered", f.hostLive)
	}
}

// A result that does not fit the pool goes to Go memory, correctly.
func TestFakeResultPoolFull(t *testing.T) {
	d, _ := newFakeDevice(t, Options{ResultMemory: 1 << 20})
	defer d.Close()
	ctx := context.Background()
	hb := randBatch(rand.New(rand.NewSource(3)), 100000)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	got, err := d.DownloadResult(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	requireEqualBatch(t, hb, got, "fallback download")
	if got.Owner != nil {
		t.Fatal("a result over the limit came from the pool")
	}
	if st := d.Stats().Results; st.Fallbacks != 1 || st.Reserved > 1<<20 {
		t.Fatalf("stats %+v", st)
	}
	off, _ := newFakeDevice(t, Options{NoResultPool: true})
	defer off.Close()
	db2, err := off.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Release()
	if got, err := off.DownloadResult(ctx, db2); err != nil || got.Owner != nil {
		t.Fatalf("pool off: %v, owner %v", err, got.Owner)
	}
}

// Memory lent out when the device closes stays readable until released,
// and is unmapped then.
func TestFakeResultPoolOutlivesDevice(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	blk := d.results.Lend(3 << 20)
	if blk == nil {
		t.Fatal("no block")
	}
	mem := blk.Bytes()
	for i := range mem {
		mem[i] = byte(i * 7)
	}
	free := d.results.Lend(1 << 10)
	free.Release()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if f.hostLive != 0 {
		t.Fatalf("%d slabs still page-locked after close", f.hostLive)
	}
	for i := range mem {
		if mem[i] != byte(i*7) {
			t.Fatalf("byte %d changed after close", i)
		}
	}
	if st := d.Stats().Results; st.Reserved == 0 || st.Lent != 1 {
		t.Fatalf("before release: %+v", st)
	}
	blk.Release()
	if st := d.Stats().Results; st.Reserved != 0 || st.Lent != 0 {
		t.Fatalf("after release: %+v", st)
	}
	if d.results.Lend(100) != nil {
		t.Fatal("a closed device lent memory")
	}
}
