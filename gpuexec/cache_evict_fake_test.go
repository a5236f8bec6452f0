package gpuexec

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

// evictTables are two tables of rows rows: column 0 a BIGINT key
// (0..rows-1 in a, reversed in b), columns 1 and 2 filler text of 100
// bytes a row.
func evictTables(rows int) map[string]*coldata.Batch {
	out := map[string]*coldata.Batch{}
	filler := strings.Repeat("x", 100)
	for _, name := range []string{"a", "b"} {
		key := coldata.NewBuilder(coldata.Int64, rows)
		for i := range rows {
			if name == "a" {
				key.AppendInt(int64(i))
			} else {
				key.AppendInt(int64(rows - 1 - i))
			}
		}
		cols := []*coldata.Vec{key.Finish()}
		for range 2 {
			bl := coldata.NewBuilder(coldata.String, rows)
			for range rows {
				bl.AppendString(filler)
			}
			cols = append(cols, bl.Finish())
		}
		out[name] = coldata.NewBatch(cols, rows)
	}
	return out
}

// scanAll reads every batch of a scan of cols and releases it, and
// returns the rows and whether the scan streamed.
func scanAll(t *testing.T, c *TableCache, name string, hb *coldata.Batch, cols []int) (rows int, streamed bool) {
	t.Helper()
	ctx := context.Background()
	s, err := c.Scan(ctx, name, 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }, cols)
	if err != nil {
		t.Fatalf("scan %s %v: %v", name, cols, err)
	}
	defer s.Close()
	streamed = s.Streamed()
	for {
		b, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("scan %s %v: %v", name, cols, err)
		}
		if b == nil {
			return rows, streamed
		}
		rows += b.Len
		b.Release()
	}
}

// TestAllocEvictsIdleColumns: two tables each keep part of their columns
// resident (their share), filling most of a small pool; a join of their
// key columns needs more than is left. Its allocations, made straight on
// the device (no RetryOOM around them), evict the idle columns (those no
// scan reads) and succeed; the keys the join reads stay; after the query
// the pool holds only what the cache counts.
func TestAllocEvictsIdleColumns(t *testing.T) {
	// Each table's share (512 KiB) holds its key and one filler column
	// (about 450,000 bytes), not the other filler; the two partial keeps
	// leave about 150 KiB of the pool free, less than the join needs.
	const limit = 1 << 20
	const rows = 4000
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 64 << 10})
	defer d.Close()
	ctx := context.Background()
	tables := evictTables(rows)
	c := NewTableCache(d, 1<<30)
	for _, name := range []string{"a", "b"} {
		n, streamed := scanAll(t, c, name, tables[name], []int{0, 1, 2})
		if n != rows || !streamed {
			t.Fatalf("%s: %d rows, streamed %v: want a partial keep", name, n, streamed)
		}
		if got := c.ResidentColumns(name); len(got) != 2 {
			t.Fatalf("%s: resident columns %v, want two", name, got)
		}
	}
	before := c.Stats()
	if free := limit - d.Stats().Memory.InUse; free > 200<<10 {
		t.Fatalf("the partial keeps leave %d bytes free: no pressure to test", free)
	}

	// The join: a's keys build, b's keys probe.
	open := func(name string) *DeviceBatch {
		s, err := c.Scan(ctx, name, 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{tables[name]}, nil }, []int{0})
		if err != nil || s.Streamed() {
			t.Fatalf("scan %s keys: %v (streamed %v)", name, err, s.Streamed())
		}
		defer s.Close()
		b, err := s.Next(ctx)
		if err != nil || b == nil {
			t.Fatalf("scan %s keys: %v", name, err)
		}
		return b
	}
	build, probe := open("a"), open("b")
	tab, err := d.BuildJoin(ctx, build, []int{0})
	if err != nil {
		t.Fatalf("build under pressure: %v (cache %+v, pool %+v)", err, c.Stats(), d.Stats().Memory)
	}
	pairs, err := tab.probe(ctx, probe, []int{0}, probeInner, -1)
	if err != nil {
		t.Fatalf("probe under pressure: %v (cache %+v, pool %+v)", err, c.Stats(), d.Stats().Memory)
	}
	if pairs.Len != rows {
		t.Fatalf("%d pairs, want %d", pairs.Len, rows)
	}
	pl, bl := downloadI64(t, d, pairs.Probe, pairs.Len), downloadI64(t, d, pairs.Build, pairs.Len)
	for i := range pl {
		if pl[i] != int64(rows-1)-bl[i] {
			t.Fatalf("pair %d: probe row %d, build row %d", i, pl[i], bl[i])
		}
	}
	pairs.Release()
	tab.Release()
	build.Release()
	probe.Release()

	st := c.Stats()
	t.Logf("cache before %+v after %+v; pool %+v", before, st, d.Stats().Memory)
	if st.PressureEvictions == before.PressureEvictions {
		t.Fatalf("no column evicted under pressure: %+v", st)
	}
	for _, name := range []string{"a", "b"} {
		if got := c.ResidentColumns(name); len(got) == 0 || got[len(got)-1] != 0 {
			t.Fatalf("%s: resident %v, want the key column kept (read last)", name, got)
		}
	}
	if inUse := d.Stats().Memory.InUse; inUse < st.Bytes || inUse > st.Bytes+uint64(st.Buffers)*4096 {
		t.Fatalf("pool: %d bytes in use, the cache holds %d", inUse, st.Bytes)
	}
	c.Clear()
	requireNoLeak(t, d, "join under pressure")
}

// TestStreamedScanHoldsNoColumns: between its chunks a streamed scan holds
// none of its table's resident columns, so pressure may evict them while
// it runs; the chunks after that upload them with the cold ones, and the
// scan reads the same rows.
func TestStreamedScanHoldsNoColumns(t *testing.T) {
	const limit = 1 << 20
	const rows = 4000
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 64 << 10})
	defer d.Close()
	ctx := context.Background()
	hb := evictTables(rows)["a"]
	c := NewTableCache(d, 1<<30)
	if _, streamed := scanAll(t, c, "a", hb, []int{0, 1, 2}); !streamed {
		t.Fatal("first scan not streamed")
	}
	cols := []int{2, 0, 1}
	s, err := c.Scan(ctx, "a", 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }, cols)
	if err != nil || !s.Streamed() {
		t.Fatalf("scan: %v (streamed %v)", err, s.Streamed())
	}
	defer s.Close()
	if res, up, str := s.Columns(); res != 2 || up != 0 || str != 1 {
		t.Fatalf("columns: %d resident, %d uploaded, %d streamed", res, up, str)
	}
	var got []*coldata.Batch
	for i := 0; ; i++ {
		if i == 1 {
			// After the first chunk: nothing holds the columns.
			if freed := c.Relieve(0); freed == 0 || c.Stats().Tables != 0 {
				t.Fatalf("mid-scan relief freed %d bytes, cache %+v", freed, c.Stats())
			}
		}
		b, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		h, err := d.Download(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		got = append(got, h)
	}
	if len(got) < 3 || s.Refetched() != len(got)-1 {
		t.Fatalf("%d chunks, %d refetched: want every chunk after the eviction", len(got), s.Refetched())
	}
	requireEqualBatch(t, pick(hb, cols), coldata.Concat(got, len(cols)), "scan across an eviction")
	s.Close()
	requireNoLeak(t, d, "scan across an eviction")
}

// TestConcurrentScansUnderPressure: scans of two tables from several
// goroutines on one context thread, under a pool their columns overfill:
// allocations evict idle columns while other scans hold the cache's lock
// (the reclaimer only tries it), nothing deadlocks, every scan reads every
// row or fails for memory the other scans hold (four scans' chunks and
// the columns they view can fill this pool: admission bounds that for
// queries), and the database's bytes in use settle to what the cache
// holds.
func TestConcurrentScansUnderPressure(t *testing.T) {
	const rows = 4000
	fr := newFakeRegistry()
	d, err := fr.open(Options{CacheDir: t.TempDir(), PoolLimit: 1 << 20, SlabSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tables := evictTables(rows)
	c := NewTableCache(d, 1<<30)
	ctx := context.Background()
	colSets := [][]int{{0, 1, 2}, {0, 1}, {2, 0}, {1}}
	errs := make(chan error, 8)
	var ooms atomic.Int32
	for w := range 4 {
		go func() {
			for i := range 15 {
				name := []string{"a", "b"}[(w+i)%2]
				cols := colSets[(w*3+i)%len(colSets)]
				s, err := c.Scan(ctx, name, 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{tables[name]}, nil }, cols)
				if IsOutOfMemory(err) {
					ooms.Add(1)
					continue
				}
				if err != nil {
					errs <- fmt.Errorf("worker %d scan %d of %s %v: %w", w, i, name, cols, err)
					return
				}
				n := 0
				for {
					b, err := s.Next(ctx)
					if IsOutOfMemory(err) {
						ooms.Add(1)
						n = rows
						break
					}
					if err != nil {
						s.Close()
						errs <- fmt.Errorf("worker %d scan %d of %s %v: %w", w, i, name, cols, err)
						return
					}
					if b == nil {
						break
					}
					n += b.Len
					b.Release()
				}
				s.Close()
				if n != rows {
					errs <- fmt.Errorf("worker %d scan %d of %s %v: %d rows", w, i, name, cols, n)
					return
				}
			}
			errs <- nil
		}()
	}
	timeout := time.After(60 * time.Second)
	for range 4 {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatal("scans not done after 60 s: deadlock?")
		}
	}
	st := c.Stats()
	t.Logf("%d of 60 scans out of memory; cache %+v", ooms.Load(), st)
	if ooms.Load() > 30 {
		t.Fatalf("%d of 60 scans out of memory", ooms.Load())
	}
	if inUse := d.InUse(); inUse < st.Bytes || inUse > st.Bytes+uint64(st.Buffers)*4096 {
		t.Fatalf("%d bytes in use by the database, the cache holds %d", inUse, st.Bytes)
	}
	c.Clear()
	if inUse := d.InUse(); inUse != 0 {
		t.Fatalf("%d bytes in use after Clear", inUse)
	}
}
