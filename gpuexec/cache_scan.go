package gpuexec

import (
	"cmp"
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
// less. evictable bytes in use (idle resident columns, which any
// allocation that runs short evicts) count as left.
func (d *Device) chunkBytes(evictable uint64) uint64 {
	l := d.MemoryLimit()
	if l == 0 {
		return maxChunkBytes
	}
	chunk := l / chunkShare
	used := d.memoryUsed()
	used -= min(used, evictable)
	if used >= l {
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

// TableScan hands out a table's device batches one at a time. Columns
// resident in the cache are read from it; the others either become
// resident (while the table's resident columns take at most the resident
// share of the device) or are streamed: uploaded in row ranges of each row
// group when asked for, beside views of the same rows of the resident
// columns, so a query's hot columns stay on the device while its cold ones
// pass through. A streamed scan holds no resident column between chunks:
// each chunk takes its views from the cache, so the columns stay
// evictable under pressure, and a hot column evicted meanwhile is
// uploaded with the cold ones. Release every batch Next returns; Close the
// scan.
type TableScan struct {
	c    *TableCache
	cols []int

	resident []*DeviceBatch // retained handles, per row group, every column; nil when streaming
	i        int

	// Streaming: the table, the row groups' host batches (the cold
	// columns, then the hot ones) and where each scan column comes from:
	// hot[i] >= 0 is column hotCols[hot[i]] of the cache, else cold[i]
	// one of the uploaded chunk.
	name      string
	version   uint64
	rows      []int // each row group's rows
	groups    [][]*coldata.Batch
	ncold     int // the groups' first columns are the cold ones, then the hot
	hotCols   []int
	hot, cold []int
	refetched int // chunks whose hot columns had been evicted: uploaded
	chunk     uint64
	g, h, row int // next row group, host batch in it and row in that
	off       int // rows of group g before host batch h
	chunks    int

	resCols, upCols, streamCols int
}

// Scan opens a scan of table name at version over columns cols. A resident
// table is scanned from the cache; on a miss the missing columns are
// loaded and made resident while the table's columns take at most half of
// the device's memory limit (and the upload finds room), larger ones
// first; the rest are streamed in chunks sized from the limit and the
// pool's free bytes.
func (c *TableCache) Scan(ctx context.Context, name string, version uint64, load func() ([]*coldata.Batch, error), cols []int) (*TableScan, error) {
	return c.ScanPrepared(ctx, name, version, load, nil, cols)
}

// ScanPrepared is Scan where the table's batches are first grouped by
// prepare into row groups, each uploaded as one device batch (e.g. small
// host batches into device-sized ones, packed straight into the staging
// buffer). prepare must group a table's batches the same way whichever
// columns are read: the resident parts of different columns share the
// row groups (nil: each host batch is a group).
func (c *TableCache) ScanPrepared(ctx context.Context, name string, version uint64, load func() ([]*coldata.Batch, error),
	prepare func([]*coldata.Batch) [][]*coldata.Batch, cols []int) (*TableScan, error) {
	if c.d == nil {
		return nil, ErrNoCUDA
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &TableScan{c: c, cols: cols, resCols: len(unique(cols))}
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
	var groups [][]*coldata.Batch
	if prepare != nil {
		groups = prepare(hosts)
	} else {
		for _, hb := range hosts {
			groups = append(groups, []*coldata.Batch{hb})
		}
	}
	if e != nil && !slices.Equal(e.rows, groupRows(groups)) {
		// Grouped otherwise than the resident parts (cannot happen for one
		// version's batches): start the table over.
		c.dropEntryLocked(e)
		e = nil
	}
	// The columns to upload: those no part holds, each with its packed
	// size. They become resident, larger first, while they fit with the
	// table's resident columns in the resident share of the device.
	missing, have := (&cacheEntry{}).missing(cols), uint64(0)
	if e != nil {
		missing, have = e.missing(cols), e.bytes
	}
	size := make(map[int]uint64, len(missing))
	for _, hb := range hosts {
		for _, col := range missing {
			if col < 0 || col >= len(hb.Cols) {
				return nil, invalidf("table %s: column %d of %d", name, col, len(hb.Cols))
			}
			n, err := PackedSize(pick(hb, []int{col}))
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", name, err)
			}
			size[col] += n
		}
	}
	// Parts of the table that the scan does not read may go, least
	// recently read first, to keep more of its columns: they would be
	// uploaded now whether kept or streamed, and the next run of the query
	// then finds them.
	//
	// The limit is the table's own: the columns of other tables, and the
	// ones this table keeps when not all fit, cost a query nothing under
	// pressure, since an allocation that runs short evicts the idle ones
	// first (TableCache.reclaim). Bounding every table together instead
	// (and a partial keep to half of it) left fewer tables resident than
	// the pool holds.
	limit := c.tableLimit()
	if e != nil {
		have -= e.unreadBytes(cols)
	}
	byBytes := slices.Clone(missing)
	slices.SortStableFunc(byBytes, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	var keep, cold []int
	var need uint64
	for _, col := range byBytes {
		if have+size[col] <= limit {
			keep = append(keep, col)
			have += size[col]
			need += size[col]
		} else {
			cold = append(cold, col)
		}
	}
	if e != nil {
		c.dropUnreadLocked(e, cols, need)
	}
	slices.Sort(keep)
	slices.Sort(cold)
	hot := slices.DeleteFunc(unique(cols), func(col int) bool { return slices.Contains(cold, col) })
	if len(cold) == 0 || len(keep) > 0 {
		want := hot
		if len(cold) == 0 {
			want = cols // the scan's columns, in order
		}
		parts := make([][]int, len(keep))
		for i, col := range keep {
			parts[i] = []int{col}
		}
		out, err := c.keepLocked(ctx, e, name, version, groups, parts, want)
		switch {
		case err == nil && len(cold) == 0:
			s.resident, s.resCols, s.upCols = out, len(hot)-len(keep), len(keep)
			return s, nil
		case err == nil:
			// The chunks take their views from the cache (nextChunk).
			releaseAll(out)
			s.upCols = len(keep)
		case IsOutOfMemory(err):
			// No room even after evictions: stream what was to be kept.
			cold = append(cold, keep...)
			slices.Sort(cold)
			hot = slices.DeleteFunc(hot, func(col int) bool { return slices.Contains(keep, col) })
			keep = nil
		default:
			return nil, err
		}
	}
	if e := c.entries[name]; len(hot) > 0 && e != nil && e.version == version {
		c.touchLocked(e, hot)
	}
	// Stream the cold columns beside the hot ones, group by group.
	s.resCols, s.streamCols = len(hot)-len(keep), len(cold)
	s.name, s.version, s.hotCols, s.rows = name, version, hot, groupRows(groups)
	s.hot, s.cold = make([]int, len(cols)), make([]int, len(cols))
	for i, col := range cols {
		s.hot[i] = slices.Index(hot, col)
		s.cold[i] = slices.Index(cold, col)
	}
	// The host batches carry the hot columns too, after the cold ones:
	// only the cold ones are uploaded, but a chunk's rows are bounded by
	// the bytes of every column the operators above receive.
	s.groups = make([][]*coldata.Batch, len(groups))
	s.ncold = len(cold)
	for g, group := range groups {
		for _, hb := range group {
			picked := pick(hb, append(slices.Clone(cold), hot...))
			for i, v := range picked.Cols {
				if v.Const {
					picked.Cols[i] = v.Materialize()
				}
			}
			s.groups[g] = append(s.groups[g], picked)
		}
	}
	if s.groups == nil {
		s.groups = [][]*coldata.Batch{}
	}
	// Other tables' idle columns count as free (an allocation evicts
	// them); this table's hot ones are pinned by each chunk's views.
	s.chunk = c.d.chunkBytes(c.idleBytesLocked(name))
	c.stats.Streamed++
	return s, nil
}

// unique returns cols without repeats, in first-seen order.
func unique(cols []int) []int {
	var out []int
	for _, c := range cols {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// unread reports whether part p holds none of the columns cols.
func (p *colPart) unread(cols []int) bool {
	for _, col := range p.cols {
		if slices.Contains(cols, col) {
			return false
		}
	}
	return true
}

// unreadBytes is the bytes of e's parts that hold none of the columns cols.
func (e *cacheEntry) unreadBytes(cols []int) uint64 {
	var n uint64
	for _, p := range e.parts {
		if p.unread(cols) {
			n += p.bytes
		}
	}
	return n
}

// dropUnreadLocked makes room in table entry e for need more bytes under
// the table's limit by dropping its parts that hold none of the columns
// cols, least recently read first, no more than needed. Queries over a
// wide table with changing column sets thus keep the latest ones' columns
// resident instead of those the first queries read.
func (c *TableCache) dropUnreadLocked(e *cacheEntry, cols []int, need uint64) {
	limit := c.tableLimit()
	parts := slices.Clone(e.parts)
	slices.SortStableFunc(parts, func(a, b *colPart) int { return cmp.Compare(a.used, b.used) })
	for _, p := range parts {
		if e.bytes+need <= limit {
			return
		}
		if p.unread(cols) {
			c.dropPartLocked(e, p)
			c.stats.ColumnEvictions++
		}
	}
}

// pick returns the chosen columns of hb (constants stay constant).
func pick(hb *coldata.Batch, cols []int) *coldata.Batch {
	out := &coldata.Batch{Len: hb.Len, Cols: make([]*coldata.Vec, len(cols))}
	for i, c := range cols {
		out.Cols[i] = hb.Cols[c]
	}
	return out
}

// Streamed reports whether the scan uploads some of its columns chunk by
// chunk.
func (s *TableScan) Streamed() bool { return s.groups != nil }

// ChunkBytes is the size bound of a streamed scan's chunks (0: resident).
func (s *TableScan) ChunkBytes() uint64 { return s.chunk }

// Chunks is the number of chunks uploaded so far.
func (s *TableScan) Chunks() int { return s.chunks }

// Columns says where the scan's columns came from: already resident,
// uploaded and kept resident, streamed chunk by chunk.
func (s *TableScan) Columns() (resident, uploaded, streamed int) {
	return s.resCols, s.upCols, s.streamCols
}

// Next returns the next batch (nil at the end). A streamed chunk whose
// upload runs out of memory evicts unused resident columns and is tried
// once more; failing again, the error names the rows and the limit.
func (s *TableScan) Next(ctx context.Context) (*DeviceBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.groups == nil {
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
	for s.g < len(s.groups) {
		group := s.groups[s.g]
		if s.h >= len(group) {
			s.g, s.h, s.row, s.off = s.g+1, 0, 0, 0
			continue
		}
		if s.row >= group[s.h].Len {
			s.off += group[s.h].Len
			s.h, s.row = s.h+1, 0
			continue
		}
		return s.nextChunk(ctx, group)
	}
	return nil, nil
}

// nextChunk uploads the next rows of the current row group's cold columns,
// across its host batches while they (with the hot columns' bytes) fit the
// chunk size, and returns them with views of the same rows of its hot
// columns, taken from the cache now. When a hot column was evicted since
// the scan opened, the chunk uploads every column instead.
func (s *TableScan) nextChunk(ctx context.Context, group []*coldata.Batch) (*DeviceBatch, error) {
	start := s.off + s.row
	var pieces []*coldata.Batch // every column: cold, then hot
	var used uint64
	n := 0
	// The hot text columns' bytes in the chunk, known from the host
	// offsets: a view of the resident column cannot tell, and operators
	// size their work by it (DeviceBatch.ColumnBytes).
	chars := make([]int64, len(group[0].Cols)-s.ncold)
	for s.h < len(group) {
		hb := group[s.h]
		if s.row >= hb.Len {
			s.off += hb.Len
			s.h, s.row = s.h+1, 0
			continue
		}
		left := s.chunk - min(used, s.chunk)
		if len(pieces) > 0 && rangeBytes(hb, s.row, min(s.row+8, hb.Len)) > left {
			break
		}
		end := chunkEnd(hb, s.row, left)
		for j, v := range hb.Cols[s.ncold:] {
			if v.Type.Physical() == coldata.String {
				chars[j] += int64(v.Offsets[end] - v.Offsets[s.row])
			}
		}
		pieces = append(pieces, coldata.SliceBatch(hb, s.row, end))
		used += rangeBytes(hb, s.row, end)
		n += end - s.row
		s.row = end
		if end < hb.Len {
			break
		}
	}
	var hot *DeviceBatch
	if len(s.hotCols) > 0 {
		var err error
		if hot, err = s.hotRows(s.g, start, start+n); err != nil {
			return nil, fmt.Errorf("rows [%d, %d) of row group %d: %w", start, start+n, s.g, err)
		}
	}
	if hot != nil {
		defer hot.Release()
		for i, p := range pieces {
			pieces[i] = &coldata.Batch{Cols: p.Cols[:s.ncold], Len: p.Len}
		}
	} else if len(s.hotCols) > 0 {
		s.refetched++
	}
	var up *DeviceBatch
	err := s.c.RetryOOM(ctx, func() (err error) {
		up, err = s.c.d.UploadBatches(ctx, pieces)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows [%d, %d) of row group %d: %w", start, start+n, s.g, err)
	}
	defer up.Release()
	s.chunks++
	s.c.mu.Lock()
	s.c.stats.Chunks++
	if hot == nil && len(s.hotCols) > 0 {
		s.c.stats.Refetched++
	}
	s.c.mu.Unlock()
	owners := []*DeviceBatch{up}
	if hot != nil {
		owners = append(owners, hot)
	}
	vecs := make([]DeviceVec, len(s.cols))
	for i := range s.cols {
		switch {
		case s.hot[i] < 0:
			vecs[i] = up.Cols[s.cold[i]]
		case hot == nil: // uploaded after the cold columns
			vecs[i] = up.Cols[s.ncold+s.hot[i]]
		default:
			vecs[i] = hot.Cols[s.hot[i]]
			if vecs[i].Type.Physical() == coldata.String {
				vecs[i].Chars = chars[s.hot[i]]
			}
		}
	}
	return Combine(vecs, n, owners...)
}

// hotRows returns rows [lo, hi) of row group g of the scan's hot columns,
// views of the cache's parts, or nil when one of them is no longer
// resident (evicted, or the table changed).
func (s *TableScan) hotRows(g, lo, hi int) (*DeviceBatch, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[s.name]
	if e == nil || e.version != s.version || !slices.Equal(e.rows, s.rows) || len(e.missing(s.hotCols)) > 0 {
		return nil, nil
	}
	b, err := e.group(c.d, g, s.hotCols)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return Slice(b, lo, hi)
}

// Refetched is the number of chunks that uploaded hot columns evicted
// while the scan ran.
func (s *TableScan) Refetched() int { return s.refetched }

// Close releases the scan's handles on the resident table.
func (s *TableScan) Close() error {
	var first error
	for _, b := range s.resident {
		if err := b.Release(); err != nil && first == nil {
			first = err
		}
	}
	s.resident, s.groups = nil, nil
	return first
}
