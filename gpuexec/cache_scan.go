package gpuexec

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
)

// How scans share device memory with the operators above them. A table is
// made resident only when it takes at most 1/residentShare of the device
// limit: the rest is working memory for the kernels over it (outputs,
// scratch, hash tables, the packed copy a download makes). Half, because
// the columns of a wide table that analytic queries read (ClickBench's
// 25 of 105 at 100M rows: ~28 GB) must stay resident on an 80 GB GPU,
// and an allocation that runs short evicts tables no query holds. A larger table
// is streamed: uploaded in row ranges of at most 1/chunkShare of the limit
// (less when the pool is busy), each freed when the operators above are
// done with it, so a query runs in memory far smaller than its table.
const (
	residentShare = 2
	chunkShare    = 8
	minChunkBytes = 64 << 10
	maxChunkBytes = 1 << 30 // also keeps string chunks far from int32 offsets
)

// MemoryLimit is the device memory gsql may use: the pool limit when one is
// set, else the GPU's memory (0 when unknown).
// On a shared device a database's limit is its quota (Open's PoolLimit).
func (d *Device) MemoryLimit() uint64 {
	if d.user != nil && d.user.limit > 0 {
		return d.user.limit
	}
	return d.poolLimit()
}

// MemoryFree is what is left of MemoryLimit (0 when none is, or when the
// limit is unknown).
func (d *Device) MemoryFree() uint64 {
	l, u := d.MemoryLimit(), d.memoryUsed()
	if u >= l {
		return 0
	}
	return l - u
}

// poolLimit is what the pool may reserve: its limit, else the GPU's memory.
func (s *deviceState) poolLimit() uint64 {
	if s.opts.PoolLimit > 0 {
		return s.opts.PoolLimit
	}
	return s.info.TotalMemory
}

// memoryUsed is the bytes in use counted against MemoryLimit: the
// database's own under a quota, else the pool's.
func (d *Device) memoryUsed() uint64 {
	if d.user != nil && d.user.limit > 0 {
		return d.InUse()
	}
	return d.alloc.Stats().InUse
}

// residentLimit is the largest table (packed bytes) a scan makes resident.
func (d *Device) residentLimit() uint64 {
	l := d.MemoryLimit()
	if l == 0 {
		return math.MaxUint64
	}
	return l / residentShare
}

// chunkBytes is the size of the row ranges a streamed scan uploads: an
// eighth of the limit, or a quarter of what the pool has left if that is
// less.
func (d *Device) chunkBytes() uint64 {
	l := d.MemoryLimit()
	if l == 0 {
		return maxChunkBytes
	}
	chunk := l / chunkShare
	if used := d.memoryUsed(); used >= l {
		chunk = 0
	} else if free := (l - used) / 4; free < chunk {
		chunk = free
	}
	return min(max(chunk, minChunkBytes), maxChunkBytes)
}

// PackedSize is the device memory Upload takes for hb.
func PackedSize(hb *coldata.Batch) (uint64, error) {
	_, specs, err := hostColumns(hb)
	if err != nil {
		return 0, err
	}
	l, err := NewPackLayout(hb.Len, specs)
	if err != nil {
		return 0, err
	}
	return allocSize(l), nil
}

// rangeBytes bounds the packed size of rows [lo, hi) of hb (no constant
// columns): each region rounded up to Alignment.
func rangeBytes(hb *coldata.Batch, lo, hi int) uint64 {
	n := uint64(hi - lo)
	const pad = Alignment
	var size uint64
	for _, v := range hb.Cols {
		if v.Nulls != nil || v.Type == coldata.Null {
			size += (n+7)/8 + pad
		}
		switch v.Type.Physical() {
		case coldata.Bool:
			size += n + pad
		case coldata.Int64, coldata.Float64:
			size += 8*n + pad
		case coldata.Decimal:
			size += 16*n + pad
		case coldata.String:
			size += 4*(n+1) + pad + uint64(v.Offsets[hi]-v.Offsets[lo]) + pad
		}
	}
	return size
}

// chunkEnd is where the chunk of hb starting at row lo ends: the most rows
// whose packed size stays within budget (at least one row), cut at a
// multiple of 8 rows so that the host slices share the table's memory.
func chunkEnd(hb *coldata.Batch, lo int, budget uint64) int {
	if rangeBytes(hb, lo, hb.Len) <= budget {
		return hb.Len
	}
	// rangeBytes grows with hi: find the last hi within budget.
	a, b := lo+1, hb.Len // rangeBytes(lo, b) > budget
	for a < b {
		m := a + (b-a+1)/2
		if m < b && rangeBytes(hb, lo, m) <= budget {
			a = m
		} else {
			b = m - 1
		}
	}
	if end := a &^ 7; end > lo {
		return end
	}
	return a
}

// TableScan hands out a table's device batches one at a time: the resident
// copy's batches, or, for a table too large to keep resident, the chunks
// of a streamed scan, each uploaded when asked for. Only the chosen columns
// are returned (and, when streaming, uploaded). Release every batch Next
// returns; Close the scan.
type TableScan struct {
	c    *TableCache
	cols []int

	resident []*DeviceBatch // retained handles; nil when streaming
	i        int

	hosts  []*coldata.Batch // streaming: the table's batches, chosen columns only
	chunk  uint64
	h, row int // next host batch and row
	chunks int
}

// Scan opens a scan of table name at version over columns cols. A resident
// table is scanned from the cache; on a miss the table is loaded and made
// resident when it takes at most half of the device's memory limit
// (and the upload finds room), else streamed in chunks sized from the limit
// and the pool's free bytes.
func (c *TableCache) Scan(ctx context.Context, name string, version uint64, load func() ([]*coldata.Batch, error), cols []int) (*TableScan, error) {
	return c.ScanPrepared(ctx, name, version, load, nil, cols)
}

// ScanPrepared is Scan where the batches of a table that becomes resident
// are first grouped by prepare, each group uploaded as one device batch
// (e.g. small host batches into device-sized ones, packed straight into
// the staging buffer); a streamed table is read as load returns it.
func (c *TableCache) ScanPrepared(ctx context.Context, name string, version uint64, load func() ([]*coldata.Batch, error),
	prepare func([]*coldata.Batch) [][]*coldata.Batch, cols []int) (*TableScan, error) {
	if c.d == nil {
		return nil, ErrNoCUDA
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &TableScan{c: c, cols: cols}
	e, out, ok, err := c.lookupLocked(name, version, cols)
	if err != nil {
		return nil, err
	}
	if ok {
		s.resident = out
		return s, nil
	}
	hosts, err := load()
	if err != nil {
		return nil, err
	}
	// The columns to upload: those no part holds. They become resident
	// when they, with the table's resident columns, take at most the
	// resident share of the device.
	missing, have := (&cacheEntry{}).missing(cols), uint64(0)
	if e != nil {
		missing, have = e.missing(cols), e.bytes
	}
	var total uint64
	for _, hb := range hosts {
		for _, col := range missing {
			if col < 0 || col >= len(hb.Cols) {
				return nil, invalidf("table %s: column %d of %d", name, col, len(hb.Cols))
			}
		}
		n, err := PackedSize(pick(hb, missing))
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		total += n
	}
	if e != nil && have+total > c.d.residentLimit() {
		have = c.dropUnreadLocked(e, cols, total)
	}
	if have+total <= c.d.residentLimit() {
		var kept [][]*coldata.Batch
		if prepare != nil {
			kept = prepare(hosts)
		} else {
			for _, hb := range hosts {
				kept = append(kept, []*coldata.Batch{hb})
			}
		}
		out, err := c.keepLocked(ctx, e, name, version, kept, cols)
		if err == nil {
			s.resident = out
			return s, nil
		}
		if !IsOutOfMemory(err) {
			return nil, err
		}
		// No room for the columns even after evictions: stream them.
	}
	for _, hb := range hosts {
		pick := make([]*coldata.Vec, len(cols))
		for i, col := range cols {
			if col < 0 || col >= len(hb.Cols) {
				return nil, invalidf("table %s: column %d of %d", name, col, len(hb.Cols))
			}
			v := hb.Cols[col]
			if v.Const {
				v = v.Materialize()
			}
			pick[i] = v
		}
		s.hosts = append(s.hosts, &coldata.Batch{Cols: pick, Len: hb.Len})
	}
	if s.hosts == nil {
		s.hosts = []*coldata.Batch{}
	}
	s.chunk = c.d.chunkBytes()
	c.stats.Streamed++
	return s, nil
}

// dropUnreadLocked makes room in table entry e for need more bytes by
// dropping its parts that hold none of the columns cols, oldest first, and
// returns the entry's bytes. It drops nothing when even dropping them all
// would leave no room: the scan then streams and the parts stay for the
// queries that read them. Queries over a wide table with changing column
// sets thus keep the latest ones' columns resident instead of streaming
// every column the first queries left behind.
func (c *TableCache) dropUnreadLocked(e *cacheEntry, cols []int, need uint64) uint64 {
	limit := c.d.residentLimit()
	unread := func(p colPart) bool {
		for _, col := range p.cols {
			if slices.Contains(cols, col) {
				return false
			}
		}
		return true
	}
	var droppable uint64
	for _, p := range e.parts {
		if unread(p) {
			droppable += p.bytes()
		}
	}
	if e.bytes-droppable+need > limit {
		return e.bytes
	}
	kept := e.parts[:0]
	for _, p := range e.parts {
		if e.bytes+need > limit && unread(p) {
			n := p.bytes()
			releaseAll(p.batches)
			e.bytes -= n
			c.bytes -= n
			c.stats.ColumnEvictions++
			continue
		}
		kept = append(kept, p)
	}
	clear(e.parts[len(kept):])
	e.parts = kept
	return e.bytes
}

// pick returns the chosen columns of hb (constants stay constant).
func pick(hb *coldata.Batch, cols []int) *coldata.Batch {
	out := &coldata.Batch{Len: hb.Len, Cols: make([]*coldata.Vec, len(cols))}
	for i, c := range cols {
		out.Cols[i] = hb.Cols[c]
	}
	return out
}

// Streamed reports whether the scan uploads the table chunk by chunk.
func (s *TableScan) Streamed() bool { return s.hosts != nil }

// ChunkBytes is the size bound of a streamed scan's chunks (0: resident).
func (s *TableScan) ChunkBytes() uint64 { return s.chunk }

// Chunks is the number of chunks uploaded so far.
func (s *TableScan) Chunks() int { return s.chunks }

// Next returns the next batch (nil at the end). A streamed chunk whose
// upload runs out of memory evicts unused resident tables and is tried once
// more; failing again, the error names the rows and the limit.
func (s *TableScan) Next(ctx context.Context) (*DeviceBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.hosts == nil {
		for s.i < len(s.resident) {
			b := s.resident[s.i] // the scan's columns, in order
			s.i++
			if b.Len == 0 {
				continue
			}
			return Combine(append([]DeviceVec(nil), b.Cols...), b.Len, b)
		}
		return nil, nil
	}
	for s.h < len(s.hosts) {
		hb := s.hosts[s.h]
		if s.row >= hb.Len {
			s.h, s.row = s.h+1, 0
			continue
		}
		lo := s.row
		if lo == 0 {
			if db, next, err := s.coalesced(ctx); db != nil || err != nil {
				if err != nil {
					return nil, err
				}
				s.h, s.row = next, 0
				s.chunks++
				s.c.mu.Lock()
				s.c.stats.Chunks++
				s.c.mu.Unlock()
				return db, nil
			}
		}
		hi := chunkEnd(hb, lo, s.chunk)
		part := coldata.SliceBatch(hb, lo, hi)
		var db *DeviceBatch
		err := s.c.RetryOOM(ctx, func() (err error) {
			db, err = s.c.d.Upload(ctx, part)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("rows [%d, %d) of %d: %w", lo, hi, hb.Len, err)
		}
		s.row = hi
		s.chunks++
		s.c.mu.Lock()
		s.c.stats.Chunks++
		s.c.mu.Unlock()
		return db, nil
	}
	return nil, nil
}

// maxCoalescedRows bounds the rows of a chunk made of several host
// batches, far below what a device batch may hold (2^31).
const maxCoalescedRows = 1 << 24

// coalesced uploads the whole host batches from s.h on that fit one chunk
// together as one device batch, and returns the index of the host batch
// after them. It returns nil (and no error) when s.h alone is more than a
// chunk, or is the only one that fits, so that Next cuts or uploads it as
// before; when the larger upload runs out of memory, nil too, so that the
// batches go one at a time. Tables arrive in batches of some 64K rows
// (generators, Parquet row groups): streamed one a chunk, TPC-H SF10's
// lineitem under an 8 GiB pool took 960 uploads and 2,880 launches in Q1
// (6.7 GB/s), where a chunk may hold 1 GiB.
func (s *TableScan) coalesced(ctx context.Context) (*DeviceBatch, int, error) {
	first := s.hosts[s.h]
	total, rows := rangeBytes(first, 0, first.Len), first.Len
	if total > s.chunk {
		return nil, 0, nil
	}
	group := []*coldata.Batch{first}
	next := s.h + 1
	for ; next < len(s.hosts); next++ {
		hb := s.hosts[next]
		n := rangeBytes(hb, 0, hb.Len)
		if total+n > s.chunk || rows+hb.Len > maxCoalescedRows {
			break
		}
		if hb.Len > 0 {
			group = append(group, hb)
		}
		total, rows = total+n, rows+hb.Len
	}
	if len(group) < 2 {
		return nil, 0, nil
	}
	var db *DeviceBatch
	err := s.c.RetryOOM(ctx, func() (err error) {
		db, err = s.c.d.UploadBatches(ctx, group)
		return err
	})
	if IsOutOfMemory(err) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("host batches [%d, %d): %w", s.h, next, err)
	}
	return db, next, nil
}

// Close releases the scan's handles on the resident table.
func (s *TableScan) Close() error {
	var first error
	for _, b := range s.resident {
		if err := b.Release(); err != nil && first == nil {
			first = err
		}
	}
	s.resident, s.hosts = nil, nil
	return first
}
