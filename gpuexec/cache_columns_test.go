package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// colTable is a test table of four columns (INT with NULLs, text, INT,
// DOUBLE) in three host batches, and each column's packed size.
func colTable(seed int64) (hosts []*coldata.Batch, size []uint64) {
	r := rand.New(rand.NewSource(seed))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64}
	for _, n := range []int{5000, 3, 7001} {
		cols := make([]*coldata.Vec, len(types))
		for i, ty := range types {
			cols[i] = randVec(r, ty, n, i == 0)
		}
		hosts = append(hosts, coldata.NewBatch(cols, n))
	}
	size = make([]uint64, len(types))
	for _, hb := range hosts {
		for c := range types {
			n, _ := PackedSize(pick(hb, []int{c}))
			size[c] += n
		}
	}
	return hosts, size
}

// scanOnce scans cols of table t, checks the rows against the host
// batches and returns the bytes it uploaded and where its columns came
// from.
func scanOnce(t *testing.T, d *Device, c *TableCache, name string, hosts []*coldata.Batch,
	prepare func([]*coldata.Batch) [][]*coldata.Batch, cols []int) (uploaded uint64, res, up, streamed int) {
	t.Helper()
	before := d.Stats().BytesToDevice
	s, err := c.ScanPrepared(context.Background(), name, 1, func() ([]*coldata.Batch, error) { return hosts, nil }, prepare, cols)
	if err != nil {
		t.Fatalf("scan %v: %v (cache %+v)", cols, err, c.Stats())
	}
	want := pick(coldata.Concat(hosts, len(hosts[0].Cols)), cols)
	var got []*coldata.Batch
	for row := 0; ; {
		db, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if db == nil {
			break
		}
		// A partly streamed batch knows its text columns' bytes (operators
		// size their work by them), resident views included.
		for i, v := range db.Cols {
			w := want.Cols[i]
			if v.Type == coldata.String && s.Streamed() && v.Chars != int64(w.Offsets[row+db.Len]-w.Offsets[row]) {
				t.Fatalf("scan %v: column %d of rows [%d, %d) says %d bytes, has %d", cols, i, row, row+db.Len, v.Chars, w.Offsets[row+db.Len]-w.Offsets[row])
			}
		}
		hb, err := d.Download(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		db.Release()
		got = append(got, hb)
		row += hb.Len
	}
	res, up, streamed = s.Columns()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	requireEqualBatch(t, want, coldata.Concat(got, len(cols)), fmt.Sprintf("scan %v", cols))
	return d.Stats().BytesToDevice - before, res, up, streamed
}

// A scan uploads only the columns it reads, each kept as its own part; a
// scan of resident columns uploads nothing.
func TestScanUploadsOnlyReadColumns(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	hosts, size := colTable(51)
	c := NewTableCache(d, 1<<30)
	for _, step := range []struct {
		cols            []int
		bytes           uint64
		res, up         int
		residentColumns []int // least recently read first
	}{
		{[]int{1, 3}, size[1] + size[3], 0, 2, []int{1, 3}},
		{[]int{3, 1, 3}, 0, 2, 0, []int{1, 3}},
		{[]int{0, 3}, size[0], 1, 1, []int{1, 3, 0}},
		{[]int{}, 0, 0, 0, []int{1, 3, 0}},
	} {
		moved, res, up, streamed := scanOnce(t, d, c, "t", hosts, nil, step.cols)
		if moved != step.bytes || res != step.res || up != step.up || streamed != 0 {
			t.Fatalf("cols %v: uploaded %d bytes (want %d), columns %d resident %d uploaded %d streamed", step.cols, moved, step.bytes, res, up, streamed)
		}
		if got := c.ResidentColumns("t"); !slices.Equal(got, step.residentColumns) {
			t.Fatalf("cols %v: resident columns %v, want %v", step.cols, got, step.residentColumns)
		}
	}
	c.Clear()
	requireNoLeak(t, d, "read columns")
}

// Under a memory limit that holds a query's hot columns but not its whole
// table, the second run uploads nothing; a query whose columns do not all
// fit keeps the resident ones and streams only the others, beside views of
// the same rows, whether the row groups join host batches or not.
func TestScanHotColumnsUnderCap(t *testing.T) {
	runHotColumns(t, func(t *testing.T, opts Options) *Device {
		d, _ := newFakeDevice(t, opts)
		return d
	})
}

// runHotColumns is TestScanHotColumnsUnderCap on the devices open makes
// (the fake driver, or the GPU in cuda_test.go).
func runHotColumns(t *testing.T, open func(*testing.T, Options) *Device) {
	hosts, size := colTable(52)
	// The table's share (half the limit) holds columns 0 and 1, not 2 too;
	// the other half is room for the packed copy a download makes.
	limit := 2*(size[0]+size[1]+size[2]/2) + 32<<10
	if size[2] < 8<<10 {
		t.Fatalf("column 2 takes only %d bytes", size[2])
	}
	for _, prep := range []struct {
		name    string
		prepare func([]*coldata.Batch) [][]*coldata.Batch
	}{
		{"a group per batch", nil},
		{"one group", func(bs []*coldata.Batch) [][]*coldata.Batch { return [][]*coldata.Batch{bs} }},
		{"two groups", func(bs []*coldata.Batch) [][]*coldata.Batch { return [][]*coldata.Batch{bs[:2], bs[2:]} }},
	} {
		t.Run(prep.name, func(t *testing.T) {
			size := groupedSizes(hosts, prep.prepare)
			d := open(t, Options{PoolLimit: limit, SlabSize: 64 << 10, NoDiskCache: true})
			defer d.Close()
			c := NewTableCache(d, 1<<30)
			for i, step := range []struct {
				cols              []int
				bytes             uint64 // 0: none; 1: some, at most the streamed columns
				res, up, streamed int
				resident          []int
			}{
				{[]int{1, 0}, size[0] + size[1], 0, 2, 0, []int{0, 1}},
				{[]int{0, 1}, 0, 2, 0, 0, []int{0, 1}}, // warm: nothing moves
				{[]int{2, 0, 1}, 1, 2, 0, 1, []int{0, 1}},
				{[]int{0, 2, 1, 2}, 1, 2, 0, 1, []int{0, 1}}, // again: the hot columns stay
				{[]int{2}, size[2], 0, 1, 0, []int{1, 2}},    // 0 dropped for 2
				{[]int{2, 1}, 0, 2, 0, 0, []int{1, 2}},
			} {
				moved, res, up, streamed := scanOnce(t, d, c, "t", hosts, prep.prepare, step.cols)
				if res != step.res || up != step.up || streamed != step.streamed {
					t.Fatalf("step %d, cols %v: columns %d resident %d uploaded %d streamed", i, step.cols, res, up, streamed)
				}
				switch {
				case step.bytes == 1 && (moved == 0 || moved > size[2]+64<<10):
					t.Fatalf("step %d, cols %v: streamed %d bytes for a column of %d", i, step.cols, moved, size[2])
				case step.bytes != 1 && moved != step.bytes:
					t.Fatalf("step %d, cols %v: uploaded %d bytes, want %d", i, step.cols, moved, step.bytes)
				}
				if got := slices.Sorted(slices.Values(c.ResidentColumns("t"))); !slices.Equal(got, step.resident) {
					t.Fatalf("step %d: resident columns %v, want %v", i, got, step.resident)
				}
				if peak := d.Stats().Memory.Peak; peak > limit {
					t.Fatalf("step %d: peak %d over the limit %d", i, peak, limit)
				}
			}
			if st := c.Stats(); st.Streamed != 2 || st.Chunks < 2 || st.Evictions != 0 || st.ColumnEvictions != 1 {
				t.Fatalf("stats %+v", st)
			}
			c.Clear()
			requireNoLeak(t, d, "hot columns")
		})
	}
}

// Memory pressure evicts resident columns, least recently read first, of
// any table, not whole tables: a column a query keeps reading stays.
func TestCacheEvictsColumnsLRU(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	a, sizeA := colTable(53)
	b, _ := colTable(54)
	c := NewTableCache(d, 1<<30)
	scanOnce(t, d, c, "a", a, nil, []int{0, 2})
	scanOnce(t, d, c, "b", b, nil, []int{2})
	scanOnce(t, d, c, "a", a, nil, []int{0}) // a.0 is the most recent
	if freed := c.Relieve(1); freed < sizeA[2] {
		t.Fatalf("freed %d bytes", freed)
	}
	if ra, rb := c.ResidentColumns("a"), c.ResidentColumns("b"); !slices.Equal(ra, []int{0}) || !slices.Equal(rb, []int{2}) {
		t.Fatalf("after one eviction: a %v, b %v", ra, rb)
	}
	c.Relieve(1)
	if st := c.Stats(); st.Tables != 1 || st.PressureEvictions != 2 || !slices.Equal(c.ResidentColumns("a"), []int{0}) {
		t.Fatalf("after two evictions: %+v, a %v", st, c.ResidentColumns("a"))
	}
	// A column a scan holds is not evicted; the scan's rows stay valid.
	s, err := c.Scan(context.Background(), "a", 1, func() ([]*coldata.Batch, error) { return a, nil }, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if freed := c.Relieve(0); freed != 0 {
		t.Fatalf("freed %d bytes of a held column", freed)
	}
	got := downloadScan(t, d, s)
	s.Close()
	requireEqualBatch(t, pick(coldata.Concat(a, 4), []int{0}), coldata.Concat(got, 1), "held column")
	c.Clear()
	requireNoLeak(t, d, "lru columns")
}

// groupedSizes is each column's packed size over the row groups prepare
// makes of hosts (nil: a group per batch).
func groupedSizes(hosts []*coldata.Batch, prepare func([]*coldata.Batch) [][]*coldata.Batch) []uint64 {
	groups := [][]*coldata.Batch{}
	if prepare != nil {
		groups = prepare(hosts)
	} else {
		for _, hb := range hosts {
			groups = append(groups, []*coldata.Batch{hb})
		}
	}
	ncols := len(hosts[0].Cols)
	size := make([]uint64, ncols)
	for _, g := range groups {
		whole := coldata.Concat(g, ncols)
		for c := range size {
			n, _ := PackedSize(pick(whole, []int{c}))
			size[c] += n
		}
	}
	return size
}
