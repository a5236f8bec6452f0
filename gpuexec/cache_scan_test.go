package gpuexec

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/memory"
)

func TestChunkEnd(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	hb := randBatch(r, 5000)
	for i, c := range hb.Cols {
		if c.Const {
			hb.Cols[i] = c.Materialize()
		}
	}
	whole := rangeBytes(hb, 0, hb.Len)
	for _, budget := range []uint64{1, 4 << 10, 16 << 10, 100 << 10, whole - 1, whole, 1 << 40} {
		lo, chunks := 0, 0
		for lo < hb.Len {
			hi := chunkEnd(hb, lo, budget)
			if hi <= lo || hi > hb.Len {
				t.Fatalf("budget %d: chunk [%d, %d) of %d", budget, lo, hi, hb.Len)
			}
			if hi-lo > 1 && rangeBytes(hb, lo, hi) > budget {
				t.Fatalf("budget %d: chunk [%d, %d) takes %d bytes", budget, lo, hi, rangeBytes(hb, lo, hi))
			}
			if hi < hb.Len && hi-lo >= 8 && hi%8 != 0 {
				t.Fatalf("budget %d: chunk end %d is not a multiple of 8", budget, hi)
			}
			// The bound holds for the real packed size.
			if n, err := PackedSize(coldata.SliceBatch(hb, lo, hi)); err != nil || n > rangeBytes(hb, lo, hi) {
				t.Fatalf("budget %d: packed size %d (%v) over the bound %d", budget, n, err, rangeBytes(hb, lo, hi))
			}
			lo, chunks = hi, chunks+1
		}
		if budget >= whole && chunks != 1 {
			t.Fatalf("budget %d >= %d: %d chunks", budget, whole, chunks)
		}
		if budget == 16<<10 && chunks < 10 {
			t.Fatalf("budget %d: only %d chunks for %d bytes", budget, chunks, whole)
		}
	}
}

// A table over a quarter of the pool limit is streamed in chunks that fit;
// the rows come back identical, each chunk's memory is freed before the
// next, and a small table is made resident as before.
func TestTableScanStreams(t *testing.T) {
	const limit = 2 << 20
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 256 << 10})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(12))
	big := []*coldata.Batch{randBatch(r, 30000), randBatch(r, 7), randBatch(r, 0), randBatch(r, 20000)}
	var total uint64
	for _, hb := range big {
		n, err := PackedSize(hb)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total <= limit {
		t.Fatalf("test table of %d bytes is not over the %d limit", total, limit)
	}
	c := NewTableCache(d, 1<<30)
	loads := 0
	load := func() ([]*coldata.Batch, error) { loads++; return big, nil }
	all := make([]int, len(big[0].Cols))
	for i := range all {
		all[i] = i
	}
	for _, cols := range [][]int{all, {3, 5, 6}, {1, 2, 3, 6}} {
		if n, _ := PackedSize(pick(big[0], cols)); n <= limit/residentShare {
			t.Fatalf("cols %v: %d bytes, not over the resident limit", cols, n)
		}
		s, err := c.Scan(ctx, "big", 1, load, cols)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Streamed() || s.ChunkBytes() == 0 || s.ChunkBytes() > limit/chunkShare {
			t.Fatalf("cols %v: streamed %v, chunks of %d bytes", cols, s.Streamed(), s.ChunkBytes())
		}
		h, row := 0, 0
		for {
			db, err := s.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if db == nil {
				break
			}
			for h < len(big) && row == big[h].Len {
				h, row = h+1, 0
			}
			if h == len(big) {
				t.Fatalf("cols %v: more rows than the table", cols)
			}
			if len(cols) > 0 && db.Bytes() > s.ChunkBytes() && db.Len > 1 {
				t.Fatalf("cols %v: chunk of %d bytes over %d", cols, db.Bytes(), s.ChunkBytes())
			}
			got, err := d.Download(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			want := coldata.SliceBatch(pick(big[h], cols), row, row+db.Len)
			requireEqualBatch(t, want, got, "chunk")
			row += db.Len
			db.Release()
			if st := d.Stats().Memory; st.InUse != 0 {
				t.Fatalf("cols %v: %d bytes in use after releasing a chunk", cols, st.InUse)
			}
		}
		for h < len(big) && row == big[h].Len {
			h, row = h+1, 0
		}
		if h != len(big) {
			t.Fatalf("cols %v: scan ended at batch %d row %d", cols, h, row)
		}
		if len(cols) > 0 && s.Chunks() < 4 {
			t.Fatalf("cols %v: %d chunks", cols, s.Chunks())
		}
		s.Close()
		if peak := d.Stats().Memory.Peak; peak > limit/2 {
			t.Fatalf("cols %v: peak %d bytes", cols, peak)
		}
	}
	st := c.Stats()
	if st.Streamed != 3 || st.Tables != 0 || loads != 3 || st.Chunks == 0 {
		t.Fatalf("stats %+v, %d loads", st, loads)
	}
	// Columns that fit are resident even when the whole table is not:
	// no columns at all (COUNT(*)), then two small ones.
	for _, cols := range [][]int{{}, {0, 4}} {
		s, err := c.Scan(ctx, "big", 1, load, cols)
		if err != nil || s.Streamed() {
			t.Fatalf("cols %v of the big table: %v, streamed %v", cols, err, s != nil && s.Streamed())
		}
		rows := 0
		for {
			db, err := s.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if db == nil {
				break
			}
			if len(db.Cols) != len(cols) {
				t.Fatalf("cols %v: a batch of %d columns", cols, len(db.Cols))
			}
			rows += db.Len
			db.Release()
		}
		s.Close()
		if rows != 50007 {
			t.Fatalf("cols %v: %d rows", cols, rows)
		}
	}
	if st := c.Stats(); st.Tables != 1 || st.ColumnUploads != 1 {
		t.Fatalf("stats after the resident columns %+v", st)
	}
	c.Clear()
	// A small table is resident: the second scan is a hit.
	small := []*coldata.Batch{randBatch(r, 100)}
	for i := 0; i < 2; i++ {
		s, err := c.Scan(ctx, "small", 1, func() ([]*coldata.Batch, error) { return small, nil }, []int{3})
		if err != nil || s.Streamed() {
			t.Fatalf("small table: %v, streamed %v", err, s.Streamed())
		}
		db, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Download(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, pick(small[0], []int{3}), got, "resident")
		db.Release()
		if db, err := s.Next(ctx); db != nil || err != nil {
			t.Fatalf("resident scan past the end: %v %v", db, err)
		}
		s.Close()
	}
	if st := c.Stats(); st.Hits != 1 || st.Tables != 1 || st.Batches != 1 {
		t.Fatalf("stats %+v", st)
	}
	c.Clear()
	requireNoLeak(t, d, "scan")
	// A cancelled context stops a streamed scan.
	s, err := c.Scan(ctx, "big", 1, load, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Next(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled scan: %v", err)
	}
	s.Close()
}

// A row range that cannot fit fails with an out-of-memory error naming the
// pool limit and the rows; nothing stays allocated.
func TestTableScanRowTooLarge(t *testing.T) {
	const limit = 1 << 20
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 256 << 10})
	defer d.Close()
	b := coldata.NewBuilder(coldata.String, 3)
	b.AppendString("a")
	b.AppendString(strings.Repeat("x", 2*limit))
	b.AppendString("c")
	hb := coldata.NewBatch([]*coldata.Vec{b.Finish()}, 3)
	c := NewTableCache(d, 1<<30)
	ctx := context.Background()
	s, err := c.Scan(ctx, "wide", 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }, []int{0})
	if err != nil || !s.Streamed() {
		t.Fatalf("scan: %v, streamed %v", err, s.Streamed())
	}
	defer s.Close()
	db, err := s.Next(ctx)
	if err != nil || db.Len != 1 {
		t.Fatalf("first row: %v", err)
	}
	db.Release()
	_, err = s.Next(ctx)
	if !errors.Is(err, memory.ErrOutOfMemory) || !strings.Contains(err.Error(), "pool limit") || !strings.Contains(err.Error(), "rows [1, 2)") {
		t.Fatalf("row over the limit: %v", err)
	}
	requireNoLeak(t, d, "row too large")
}

// An allocation that runs out of memory evicts resident tables no query
// holds, least recently used first, and is retried once; a table in use is
// never evicted for it.
func TestTableCacheRelievesPressure(t *testing.T) {
	const limit = 16 << 20
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 1 << 20})
	defer d.Close()
	c := NewTableCache(d, 1<<30)
	resident := threeResidentTables(t, c, 13)
	held := resident("b") // b is in use (and most recent); a is least recent
	one := c.Stats().Bytes / 3
	alloc := func(size uint64) (*Buffer, error) {
		var buf *Buffer
		err := c.RetryOOM(context.Background(), func() (err error) {
			buf, err = d.Alloc(size)
			return err
		})
		return buf, err
	}
	// Room for the request only once one table is gone.
	room := limit - d.Stats().Memory.Reserved
	buf, err := alloc(room + one/2)
	if err != nil {
		t.Fatalf("allocation under pressure: %v (stats %+v, pool %+v)", err, c.Stats(), d.Stats().Memory)
	}
	st := c.Stats()
	if st.PressureEvictions != 1 || st.Evictions != 1 || st.Retries != 1 || st.Tables != 2 {
		t.Fatalf("after one eviction: %+v (pool %+v)", st, d.Stats().Memory)
	}
	if _, ok := c.entries["a"]; ok {
		t.Fatal("the least recently used table a was kept")
	}
	buf.Release()
	// With c evicted too, b (held) is all that is left: an allocation that
	// needs b's memory fails naming the limit, and b stays resident.
	_, err = alloc(limit - one/2)
	if !errors.Is(err, memory.ErrOutOfMemory) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("allocation past the limit with b held: %v", err)
	}
	if _, ok := c.entries["b"]; !ok || c.Stats().PressureEvictions != 2 {
		t.Fatalf("stats %+v", c.Stats())
	}
	releaseAll(held)
	// Now b is free to go.
	buf, err = alloc(limit - one/2)
	if err != nil {
		t.Fatalf("allocation with b released: %v", err)
	}
	buf.Release()
	if st := c.Stats(); st.Tables != 0 || st.PressureEvictions != 3 || st.Retries != 3 {
		t.Fatalf("stats %+v", st)
	}
	// Errors other than out of memory evict nothing.
	releaseAll(resident("a"))
	if err := c.RetryOOM(context.Background(), func() error { return ErrClosed }); !errors.Is(err, ErrClosed) || c.Stats().Tables != 1 {
		t.Fatalf("other error: %v %+v", err, c.Stats())
	}
	c.Clear()
	requireNoLeak(t, d, "pressure")
	var nilCache *TableCache
	if nilCache.Relieve(0) != 0 || !errors.Is(nilCache.RetryOOM(context.Background(), func() error { return memory.ErrOutOfMemory }), memory.ErrOutOfMemory) {
		t.Fatal("nil cache")
	}
}

// A table that fits the residency threshold but not the pool's free memory
// (other tables held by queries) is streamed instead of failing.
func TestTableScanFallsBackToStreaming(t *testing.T) {
	const limit = 2 << 20
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 64 << 10})
	defer d.Close()
	ctx := context.Background()
	hog, err := d.Alloc(limit - limit/16)
	if err != nil {
		t.Fatal(err)
	}
	defer hog.Release()
	hb := randBatchLight(rand.New(rand.NewSource(14)), 12000)
	if n, _ := PackedSize(hb); n > limit/residentShare || n < limit/8 {
		t.Fatalf("table of %d bytes", n)
	}
	c := NewTableCache(d, 1<<30)
	s, err := c.Scan(ctx, "t", 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }, []int{0, 1})
	if err != nil || !s.Streamed() {
		t.Fatalf("scan: %v, streamed %v", err, s.Streamed())
	}
	rows := 0
	for {
		db, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if db == nil {
			break
		}
		got, err := d.Download(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, coldata.SliceBatch(pick(hb, []int{0, 1}), rows, rows+db.Len), got, "fallback chunk")
		rows += db.Len
		db.Release()
	}
	s.Close()
	if rows != hb.Len || c.Stats().Tables != 0 {
		t.Fatalf("%d rows, stats %+v", rows, c.Stats())
	}
}

// ScanPrepared reshapes only a table that becomes resident: a streamed one
// is read as loaded (no host copy of a table too big to keep).
func TestScanPreparedOnlyForResident(t *testing.T) {
	const limit = 2 << 20
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 256 << 10})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(13))
	big := []*coldata.Batch{randBatch(r, 30000), randBatch(r, 20000)}
	small := []*coldata.Batch{randBatch(r, 60), randBatch(r, 40)}
	c := NewTableCache(d, 1<<30)
	prepared := 0
	merge := func(bs []*coldata.Batch) [][]*coldata.Batch {
		prepared++
		return [][]*coldata.Batch{bs}
	}
	all := make([]int, len(big[0].Cols))
	for i := range all {
		all[i] = i
	}
	s, err := c.ScanPrepared(ctx, "big", 1, func() ([]*coldata.Batch, error) { return big, nil }, merge, all)
	if err != nil || !s.Streamed() {
		t.Fatalf("big table: %v, streamed %v", err, s != nil && s.Streamed())
	}
	s.Close()
	if prepared != 0 {
		t.Fatalf("a streamed table was prepared %d times", prepared)
	}
	s, err = c.ScanPrepared(ctx, "small", 1, func() ([]*coldata.Batch, error) { return small, nil }, merge, []int{1, 2})
	if err != nil || s.Streamed() {
		t.Fatalf("small table: %v", err)
	}
	db, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Download(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	db.Release()
	requireEqualBatch(t, pick(coldata.Concat(small, len(small[0].Cols)), []int{1, 2}), got, "prepared resident table")
	if db, err := s.Next(ctx); db != nil || err != nil {
		t.Fatalf("one merged batch expected, got more: %v %v", db, err)
	}
	s.Close()
	if prepared != 1 {
		t.Fatalf("the resident table was prepared %d times", prepared)
	}
}

// Batches already on the device become a table's resident copy without an
// upload; a newer version replaces them; one over the budget is released.
func TestTableCacheAdopt(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(31))
	c := NewTableCache(d, 1<<30)
	var host []*coldata.Batch
	var dev []*DeviceBatch
	for _, n := range []int{1000, 77} {
		hb := randBatch(r, n)
		db, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		host, dev = append(host, hb), append(dev, db)
	}
	if !c.Adopt("t", 7, dev) {
		t.Fatal("not adopted")
	}
	uploads := d.Stats().BytesToDevice
	noLoad := func() ([]*coldata.Batch, error) { return nil, fmt.Errorf("loaded: the adopted copy was not used") }
	got, err := c.Get(ctx, "t", 7, noLoad)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		hb, err := d.Download(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, host[i], hb, "adopted batch")
		g.Release()
	}
	if d.Stats().BytesToDevice != uploads {
		t.Fatal("an adopted table was uploaded")
	}
	if st := c.Stats(); st.Adopted != 1 || st.Hits != 1 || st.Tables != 1 {
		t.Fatalf("stats %+v", st)
	}
	if bs, ok := c.Resident("t", 7); !ok || len(bs) != 2 {
		t.Fatalf("resident: %v %d", ok, len(bs))
	} else {
		releaseAll(bs)
	}
	if _, ok := c.Resident("t", 8); ok {
		t.Fatal("another version is resident")
	}
	// Over the budget: released, not kept.
	small := NewTableCache(d, 16)
	db, err := d.Upload(ctx, host[0])
	if err != nil {
		t.Fatal(err)
	}
	if small.Adopt("u", 1, []*DeviceBatch{db}) {
		t.Fatal("a table over the budget was kept")
	}
	c.Clear()
	requireNoLeak(t, d, "adopted tables")
}

// Only the columns scans read become resident: a scan that needs more
// uploads just the missing ones as a new part; scans of any resident
// columns (in any order) are hits; a table over the budget is served but
// not kept; a newer version starts over.
func TestTableCacheColumnParts(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(41))
	host := []*coldata.Batch{randBatch(r, 3000), randBatch(r, 17), randBatch(r, 900)}
	loads := 0
	load := func() ([]*coldata.Batch, error) { loads++; return host, nil }
	merge := func(bs []*coldata.Batch) [][]*coldata.Batch { return [][]*coldata.Batch{bs[:2], bs[2:]} }
	c := NewTableCache(d, 1<<30)
	scan := func(cols []int, what string) {
		t.Helper()
		s, err := c.ScanPrepared(ctx, "t", 1, load, merge, cols)
		if err != nil || s.Streamed() {
			t.Fatalf("%s: %v", what, err)
		}
		defer s.Close()
		got := downloadScan(t, d, s)
		want := pick(coldata.Concat(host, len(host[0].Cols)), cols)
		requireEqualBatch(t, want, coldata.Concat(got, len(cols)), what)
	}
	colBytes := func(cols []int) uint64 {
		var n uint64
		for _, g := range [][]*coldata.Batch{host[:2], host[2:]} {
			for _, hb := range g {
				p, _ := PackedSize(pick(hb, cols))
				n += p
			}
		}
		return n
	}
	up := d.Stats().BytesToDevice
	scan([]int{1}, "one column")
	scan([]int{3, 1}, "a second column")
	moved := d.Stats().BytesToDevice - up
	if want := colBytes([]int{1}) + colBytes([]int{3}); moved > want+4096 {
		t.Fatalf("uploaded %d bytes for two columns of %d", moved, want)
	}
	up = d.Stats().BytesToDevice
	scan([]int{1, 3}, "resident columns, reordered")
	scan([]int{3, 3, 1}, "a column twice")
	scan([]int{}, "no columns")
	if d.Stats().BytesToDevice != up {
		t.Fatal("a scan of resident columns uploaded")
	}
	if st := c.Stats(); st.Hits != 3 || st.Misses != 2 || st.ColumnUploads != 1 || st.Tables != 1 || st.Batches != 2 {
		t.Fatalf("stats %+v", st)
	}
	// The table's device bytes are the cache's (its only table), about
	// those of the two columns uploaded; a table not resident holds none.
	if got, st, want := c.TableBytes("t"), c.Stats(), colBytes([]int{1})+colBytes([]int{3}); got != st.Bytes || got+4096 < want || got > want+4096 {
		t.Fatalf("TableBytes %d, cache %d, columns %d", got, st.Bytes, colBytes([]int{1})+colBytes([]int{3}))
	}
	var nilCache *TableCache
	if c.TableBytes("u") != 0 || nilCache.TableBytes("t") != 0 {
		t.Fatal("bytes of a table not resident")
	}
	if bs, ok := c.Resident("t", 1); ok {
		releaseAll(bs)
		t.Fatal("resident with columns missing")
	}
	all := make([]int, len(host[0].Cols))
	for i := range all {
		all[i] = i
	}
	scan(all, "every column")
	if bs, ok := c.Resident("t", 1); !ok || len(bs) != 2 || len(bs[0].Cols) != len(all) {
		t.Fatalf("resident: %v", ok)
	} else {
		releaseAll(bs)
	}
	// A newer version starts over.
	s, err := c.ScanPrepared(ctx, "t", 2, load, merge, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if st := c.Stats(); st.Invalidations != 1 || st.Bytes > colBytes([]int{1})+4096 {
		t.Fatalf("after a new version: %+v", st)
	}
	// A table over the budget is served, not kept.
	small := NewTableCache(d, colBytes([]int{1})+colBytes([]int{3})/2)
	for _, cols := range [][]int{{1}, {1, 3}} {
		s, err := small.ScanPrepared(ctx, "t", 1, load, merge, cols)
		if err != nil || s.Streamed() {
			t.Fatalf("small cache, cols %v: %v", cols, err)
		}
		n := 0
		for {
			db, err := s.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if db == nil {
				break
			}
			n += db.Len
			db.Release()
		}
		s.Close()
		if n != 3917 {
			t.Fatalf("small cache, cols %v: %d rows", cols, n)
		}
	}
	if st := small.Stats(); st.Tables != 1 || st.Bytes > colBytes([]int{1})+4096 {
		t.Fatalf("small cache kept %+v", st)
	}
	small.Clear()
	c.Clear()
	if c.TableBytes("t") != 0 {
		t.Fatal("bytes after Clear")
	}
	requireNoLeak(t, d, "column parts")
}

// A resident table's parts that a scan does not read are dropped, oldest
// first, when that makes room for the scan's columns; when it cannot, the
// scan streams and the parts stay.
func TestTableScanDropsUnreadColumns(t *testing.T) {
	const limit = 512 << 10 // resident: at most 256 KiB, two of the columns
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 64 << 10})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(15))
	const rows = 12000 // 96,000 bytes a column
	var cols []*coldata.Vec
	for range 4 {
		cols = append(cols, randVec(r, coldata.Int64, rows, false))
	}
	hb := coldata.NewBatch(cols, rows)
	if two, _ := PackedSize(pick(hb, []int{0, 1})); two > limit/residentShare {
		t.Fatalf("two columns take %d bytes", two)
	}
	if three, _ := PackedSize(pick(hb, []int{0, 1, 2})); three <= limit/residentShare {
		t.Fatalf("three columns take %d bytes", three)
	}
	c := NewTableCache(d, 1<<30)
	load := func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil }
	for _, step := range []struct {
		cols      []int
		streamed  bool
		evictions uint64
		resident  [][]int // the parts after the scan, oldest first
	}{
		{[]int{0, 1}, false, 0, [][]int{{0, 1}}},
		{[]int{2}, false, 1, [][]int{{2}}},           // {0, 1} dropped
		{[]int{2, 3}, false, 1, [][]int{{2}, {3}}},   // fits beside {2}
		{[]int{0, 2, 3}, true, 1, [][]int{{2}, {3}}}, // every part read: stream
		{[]int{0}, false, 2, [][]int{{3}, {0}}},      // {2} dropped, {3} kept
		{[]int{3, 0}, false, 2, [][]int{{3}, {0}}},   // a hit
		{[]int{1, 2, 3}, true, 2, [][]int{{3}, {0}}}, // no room even without {0}
	} {
		s, err := c.Scan(ctx, "t", 1, load, step.cols)
		if err != nil {
			t.Fatalf("cols %v: %v", step.cols, err)
		}
		if s.Streamed() != step.streamed {
			t.Fatalf("cols %v: streamed %v", step.cols, s.Streamed())
		}
		got := downloadScan(t, d, s)
		s.Close()
		requireEqualBatch(t, pick(hb, step.cols), coldata.Concat(got, len(step.cols)), fmt.Sprintf("cols %v", step.cols))
		if st := c.Stats(); st.ColumnEvictions != step.evictions {
			t.Fatalf("cols %v: %d column evictions, want %d", step.cols, st.ColumnEvictions, step.evictions)
		}
		c.mu.Lock()
		var parts [][]int
		if el, ok := c.entries["t"]; ok {
			for _, p := range el.Value.(*cacheEntry).parts {
				parts = append(parts, p.cols)
			}
		}
		c.mu.Unlock()
		if fmt.Sprint(parts) != fmt.Sprint(step.resident) {
			t.Fatalf("cols %v: resident parts %v, want %v", step.cols, parts, step.resident)
		}
		// Dropped parts are freed (the pool rounds each allocation up).
		if st, inUse := c.Stats(), d.Stats().Memory.InUse; inUse < st.Bytes || inUse > st.Bytes+uint64(len(parts))*4096 {
			t.Fatalf("cols %v: cache counts %d bytes, the pool has %d in use", step.cols, st.Bytes, inUse)
		}
	}
	c.Clear()
	requireNoLeak(t, d, "dropped columns")
}

// downloadScan reads every batch of s to the host, releasing each.
func downloadScan(t *testing.T, d *Device, s *TableScan) []*coldata.Batch {
	t.Helper()
	ctx := context.Background()
	var got []*coldata.Batch
	for {
		db, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if db == nil {
			return got
		}
		hb, err := d.Download(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		db.Release()
		got = append(got, hb)
	}
}

// Under a database's quota, any allocation that runs short (not only one
// wrapped in RetryOOM) first evicts the database's resident tables that no
// query holds; a held table stays, and an allocation made while the cache's
// lock is taken fails rather than waiting for it.
func TestAllocRelievesResidentTables(t *testing.T) {
	const limit = 16 << 20
	d := FakeDatabaseDevice(t, Options{PoolLimit: limit, SlabSize: 1 << 20})
	c := NewTableCache(d, 1<<30)
	resident := threeResidentTables(t, c, 29)
	held := resident("b")
	one := c.Stats().Bytes / 3
	if one == 0 || d.InUse() < 3*one {
		t.Fatalf("tables not resident: %+v, %d in use", c.Stats(), d.InUse())
	}
	// The cache's lock taken (an upload in progress): nothing is evicted.
	c.mu.Lock()
	if _, err := d.Alloc(limit - one/2); !errors.Is(err, memory.ErrOutOfMemory) {
		c.mu.Unlock()
		t.Fatalf("allocation with the cache locked: %v", err)
	}
	c.mu.Unlock()
	if st := c.Stats(); st.Tables != 3 || st.PressureEvictions != 0 {
		t.Fatalf("evicted under the cache's lock: %+v", st)
	}
	// Room only once a and c are gone; b is held.
	buf, err := d.Alloc(limit - d.InUse() + 3*one/2)
	if err != nil {
		t.Fatalf("allocation under pressure: %v (stats %+v)", err, c.Stats())
	}
	if st := c.Stats(); st.Tables != 1 || st.PressureEvictions != 2 {
		t.Fatalf("after the relief: %+v", st)
	}
	if _, ok := c.entries["b"]; !ok {
		t.Fatal("the held table b was evicted")
	}
	buf.Release()
	releaseAll(held)
	c.Clear()
	requireNoLeak(t, d, "relief")
}

// A streamed table of many small host batches goes up several batches to
// a chunk (one upload each), not one batch a chunk; the rows come back in
// order, and no chunk passes the chunk size.
func TestTableScanCoalescesSmallBatches(t *testing.T) {
	const limit = 2 << 20
	d, _ := newFakeDevice(t, Options{PoolLimit: limit, SlabSize: 256 << 10})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(31))
	var small []*coldata.Batch
	for i := 0; i < 60; i++ {
		small = append(small, randBatch(r, 500+r.Intn(400)))
	}
	c := NewTableCache(d, 1<<30)
	cols := []int{0, 1, 2, 3, 4, 5, 6}
	s, err := c.Scan(ctx, "small", 1, func() ([]*coldata.Batch, error) { return small, nil }, cols)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Streamed() {
		t.Fatal("the table is resident: make it larger")
	}
	var got []*coldata.Batch
	for {
		db, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if db == nil {
			break
		}
		if db.Bytes() > s.ChunkBytes() {
			t.Fatalf("chunk of %d bytes over %d", db.Bytes(), s.ChunkBytes())
		}
		hb, err := d.Download(ctx, db)
		db.Release()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, hb)
	}
	var picked []*coldata.Batch
	for _, hb := range small {
		picked = append(picked, pick(hb, cols))
	}
	requireEqualBatch(t, coldata.Concat(picked, len(cols)), coldata.Concat(got, len(cols)), "coalesced scan")
	if n := s.Chunks(); n >= len(small)/2 || n < 2 {
		t.Fatalf("%d host batches in %d chunks", len(small), n)
	}
	t.Logf("%d host batches in %d chunks of at most %d bytes", len(small), s.Chunks(), s.ChunkBytes())
}

// threeResidentTables makes tables a, b and c (one column of 120,000
// random rows each, from seed) resident in c, a first, none held, and
// returns a function that scans one and hands out its retained batches.
func threeResidentTables(t *testing.T, c *TableCache, seed int64) func(name string) []*DeviceBatch {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed))
	tables := map[string][]*coldata.Batch{}
	for _, name := range []string{"a", "b", "c"} {
		tables[name] = []*coldata.Batch{randBatchLight(r, 120000)}
	}
	resident := func(name string) []*DeviceBatch {
		t.Helper()
		s, err := c.Scan(ctx, name, 1, func() ([]*coldata.Batch, error) { return tables[name], nil }, []int{0})
		if err != nil || s.Streamed() {
			t.Fatalf("scan %s: %v, streamed %v", name, err, s.Streamed())
		}
		out := s.resident
		s.resident = nil
		return out
	}
	for _, name := range []string{"a", "b", "c"} {
		releaseAll(resident(name))
	}
	return resident
}
