package gpuexec

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
)

// TableCache keeps table columns resident on the device across queries,
// keyed by table name and catalog version, under a byte budget. The unit
// of residency is a column: a table's entry holds parts, each one column
// (or, adopted, every column) uploaded over the table's row groups, which
// are the same whichever columns are loaded. A scan that needs a column
// no part holds uploads just the missing ones; the least recently read
// parts of any table go first when the budget or the pool runs short, so
// the columns queries keep reading stay while the others stream. A newer
// version of a table replaces the older; Invalidate drops a table (INSERT
// and DROP bump the catalog's version).
//
// Get hands out retained handles: eviction never frees memory a caller is
// still using, it only drops the cache's own reference.
type TableCache struct {
	d      *Device
	budget uint64

	mu      sync.Mutex
	entries map[string]*cacheEntry
	clock   uint64 // ticks at each read, for the parts' recency
	bytes   uint64
	stats   CacheStats
}

// CacheStats are a TableCache's counters.
type CacheStats struct {
	Hits, Misses, Invalidations uint64
	// Evictions counts the parts (columns) dropped for the budget or for
	// memory pressure, least recently read first.
	Evictions uint64
	// PressureEvictions counts the evictions (included in Evictions) made
	// because a device allocation ran out of memory; Retries the
	// allocations run again after such evictions.
	PressureEvictions, Retries uint64
	// Streamed counts scans that uploaded some of their columns chunk by
	// chunk (columns that did not fit beside the resident ones); Chunks
	// the chunks they uploaded; Refetched the chunks that uploaded hot
	// columns too, evicted under pressure while the scan ran.
	Streamed, Chunks, Refetched uint64
	// Adopted counts tables made resident from statement results already
	// on the device (no upload).
	Adopted uint64
	// ColumnUploads counts the uploads that added columns to a table
	// already (partly) resident.
	ColumnUploads uint64
	// ColumnEvictions counts the parts of a resident table dropped to make
	// room for other columns of the same table that a scan reads.
	ColumnEvictions uint64
	Tables          int
	Batches         int // row groups of the resident tables
	// Buffers counts the device batches the parts hold (a part's row
	// groups): one pool allocation each, for uploaded columns.
	Buffers       int
	Bytes, Budget uint64
}

// cacheEntry is one resident table version: its row groups' sizes and the
// parts that hold its columns.
type cacheEntry struct {
	name    string
	version uint64
	ncols   int   // the table's columns
	rows    []int // each row group's rows, the same in every part
	parts   []*colPart
	bytes   uint64
}

// colPart is one upload of some of a table's columns: batches[g] holds
// row group g of those columns, in cols order.
type colPart struct {
	cols    []int
	batches []*DeviceBatch
	bytes   uint64
	used    uint64 // the cache's clock when a scan last read it
}

// find returns the part and position holding table column col.
func (e *cacheEntry) find(col int) (part *colPart, pos int, ok bool) {
	for _, cp := range e.parts {
		for i, c := range cp.cols {
			if c == col {
				return cp, i, true
			}
		}
	}
	return nil, 0, false
}

// missing returns the columns of cols that no part holds, each once, in
// ascending order.
func (e *cacheEntry) missing(cols []int) []int {
	var out []int
	for _, c := range cols {
		if _, _, ok := e.find(c); !ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// assemble returns, per row group, a batch of columns cols (in that
// order) viewing the parts that hold them; each holds its own references.
// Every column must be resident. d is the device of batches without
// columns.
func (e *cacheEntry) assemble(d *Device, cols []int) ([]*DeviceBatch, error) {
	out := make([]*DeviceBatch, 0, len(e.rows))
	for g := range e.rows {
		b, err := e.group(d, g, cols)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// group is row group g of assemble.
func (e *cacheEntry) group(d *Device, g int, cols []int) (*DeviceBatch, error) {
	vecs := make([]DeviceVec, len(cols))
	var owners []*DeviceBatch
	for i, c := range cols {
		p, pos, ok := e.find(c)
		if !ok {
			return nil, invalidf("table %s: column %d is not resident", e.name, c)
		}
		b := p.batches[g]
		vecs[i] = b.Cols[pos]
		if !slices.Contains(owners, b) {
			owners = append(owners, b)
		}
	}
	b, err := Combine(vecs, e.rows[g], owners...)
	if err != nil {
		return nil, err
	}
	if b.d == nil {
		b.d = d
	}
	return b, nil
}

// touch marks the parts holding any of cols as read now.
func (c *TableCache) touchLocked(e *cacheEntry, cols []int) {
	c.clock++
	for _, p := range e.parts {
		for _, col := range p.cols {
			if slices.Contains(cols, col) {
				p.used = c.clock
				break
			}
		}
	}
}

// allCols returns the column numbers 0..n-1.
func allCols(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (e *cacheEntry) release() {
	for _, p := range e.parts {
		releaseAll(p.batches)
	}
	e.parts = nil
}

// NewTableCache returns a cache on d holding at most budget bytes of device
// memory.
// It registers with d to evict idle columns when an allocation runs short
// (Device.OnMemoryPressure).
func NewTableCache(d *Device, budget uint64) *TableCache {
	c := &TableCache{d: d, budget: budget, entries: map[string]*cacheEntry{}}
	if d != nil {
		d.OnMemoryPressure(c.reclaim)
	}
	return c
}

// tableLimit is the most one table's resident columns may take: the
// budget, bounded by the resident share of the device's memory limit, so
// that a capped pool keeps room for the kernels over them.
func (c *TableCache) tableLimit() uint64 {
	if c.d == nil {
		return c.budget
	}
	return min(c.budget, c.d.residentLimit())
}

// Get returns the device batches of table name at version, every column,
// uploading the host batches load returns (each one device batch) for what
// is not resident. The caller releases each returned batch. A table larger
// than the whole budget is uploaded and returned but not kept.
func (c *TableCache) Get(ctx context.Context, name string, version uint64, load func() ([]*coldata.Batch, error)) ([]*DeviceBatch, error) {
	if c.d == nil {
		return nil, ErrNoCUDA
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ncols := -1
	if e, ok := c.entries[name]; ok && e.version == version {
		ncols = e.ncols
	}
	var hosts []*coldata.Batch
	if ncols < 0 { // not resident: the batches tell the columns
		var err error
		if hosts, err = load(); err != nil {
			return nil, err
		}
		ncols = 0
		if len(hosts) > 0 {
			ncols = len(hosts[0].Cols)
		}
	}
	cols := allCols(ncols)
	e, out, ok, err := c.lookupLocked(name, version, cols)
	if ok || err != nil {
		return out, err
	}
	if hosts == nil {
		if hosts, err = load(); err != nil {
			return nil, err
		}
	}
	groups := make([][]*coldata.Batch, len(hosts))
	for i, hb := range hosts {
		groups[i] = []*coldata.Batch{hb}
	}
	if e != nil && !slices.Equal(e.rows, groupRows(groups)) {
		c.dropEntryLocked(e)
		e = nil
	}
	add := (&cacheEntry{}).missing(cols)
	if e != nil {
		add = e.missing(cols)
	}
	return c.keepLocked(ctx, e, name, version, groups, [][]int{add}, cols)
}

// lookupLocked finds table name at version: with every column of cols
// resident it returns them assembled (ok, a hit); otherwise the entry to
// extend (nil when none: an older version is dropped) and a miss.
func (c *TableCache) lookupLocked(name string, version uint64, cols []int) (e *cacheEntry, out []*DeviceBatch, ok bool, err error) {
	if e = c.entries[name]; e != nil {
		if e.version != version {
			c.dropEntryLocked(e)
			e = nil
		} else if len(e.missing(cols)) == 0 {
			out, err := e.assemble(c.d, cols)
			if err != nil {
				return nil, nil, false, err
			}
			c.touchLocked(e, cols)
			c.stats.Hits++
			return e, out, true, nil
		}
	}
	c.stats.Misses++
	return e, nil, false, nil
}

// dropEntryLocked drops table entry e, counting an invalidation.
func (c *TableCache) dropEntryLocked(e *cacheEntry) {
	if c.entries[e.name] == e {
		c.removeLocked(e)
		c.stats.Invalidations++
	}
}

// groupRows returns each group's rows.
func groupRows(groups [][]*coldata.Batch) []int {
	rows := make([]int, len(groups))
	for g, group := range groups {
		for _, hb := range group {
			rows[g] += hb.Len
		}
	}
	return rows
}

// keepLocked uploads parts add of a table's host row groups (each part
// some columns, one device batch per group; a column a part gives the
// finest eviction) into entry e (a new entry when nil; e's row groups must
// be groups'), and returns columns want (resident or in add) assembled.
// The cache stays under its budget, evicting the least recently read
// parts of other tables; columns that would take the table over the whole
// budget are returned, not kept. An upload that runs
// out of device memory evicts parts no query holds (never e's: they are
// held meanwhile) and is tried once more. c.mu is held.
func (c *TableCache) keepLocked(ctx context.Context, e *cacheEntry, name string, version uint64, groups [][]*coldata.Batch, add [][]int, want []int) ([]*DeviceBatch, error) {
	if e != nil {
		// The entry's parts are held while the new ones upload, so that
		// relieving memory pressure cannot evict them.
		var held []*DeviceBatch
		for _, p := range e.parts {
			hs, err := retainAll(p.batches)
			if err != nil {
				releaseAll(held)
				return nil, err
			}
			held = append(held, hs...)
		}
		defer releaseAll(held)
	}
	var parts []*colPart
	dropParts := func() {
		for _, p := range parts {
			releaseAll(p.batches)
		}
	}
	var bytes uint64
	for _, cols := range add {
		part := &colPart{cols: cols}
		parts = append(parts, part)
		for _, group := range groups {
			picked := make([]*coldata.Batch, len(group))
			for i, hb := range group {
				picked[i] = &coldata.Batch{Len: hb.Len}
				for _, col := range cols {
					if col < 0 || col >= len(hb.Cols) {
						dropParts()
						return nil, invalidf("table %s: column %d of %d", name, col, len(hb.Cols))
					}
					picked[i].Cols = append(picked[i].Cols, hb.Cols[col])
				}
			}
			var db *DeviceBatch
			err := c.retryLocked(func() (err error) {
				db, err = c.d.UploadBatches(ctx, picked)
				return err
			})
			if err != nil {
				dropParts()
				return nil, err
			}
			part.batches = append(part.batches, db)
			part.bytes += db.Bytes()
		}
		bytes += part.bytes
	}
	defer dropParts() // the parts kept take their own references
	fresh := e == nil
	if fresh {
		e = &cacheEntry{name: name, version: version, rows: groupRows(groups)}
		if len(groups) > 0 && len(groups[0]) > 0 {
			e.ncols = len(groups[0][0].Cols)
		}
	}
	if e.bytes+bytes > c.budget {
		// Over the whole budget: served from a temporary entry, not kept.
		tmp := &cacheEntry{name: name, version: version, rows: e.rows}
		for _, p := range append(slices.Clone(e.parts), parts...) {
			hs, err := retainAll(p.batches)
			if err != nil {
				tmp.release()
				return nil, err
			}
			tmp.parts = append(tmp.parts, &colPart{cols: p.cols, batches: hs})
		}
		defer tmp.release()
		if fresh && len(add) == 0 { // no columns: remember the rows
			c.entries[name] = e
		}
		return tmp.assemble(c.d, want)
	}
	c.evictLocked(c.bytes+bytes-min(c.bytes+bytes, c.budget), e, false)
	for _, p := range parts {
		kept, err := retainAll(p.batches)
		if err != nil {
			return nil, err
		}
		e.parts = append(e.parts, &colPart{cols: p.cols, batches: kept, bytes: p.bytes})
	}
	e.bytes += bytes
	c.bytes += bytes
	if fresh {
		c.entries[name] = e
	} else if len(add) > 0 {
		c.stats.ColumnUploads++
	}
	c.touchLocked(e, want)
	return e.assemble(c.d, want)
}

// evictLocked drops parts, least recently read first, until need bytes
// are freed, never one of entry keep's (nil: any table's). Under pressure
// it skips the parts a query holds (dropping them would free nothing now)
// and counts PressureEvictions. It returns the bytes freed.
func (c *TableCache) evictLocked(need uint64, keep *cacheEntry, pressure bool) uint64 {
	var freed uint64
	for pressure && (need == 0 || freed < need) || !pressure && freed < need {
		var oldE *cacheEntry
		var old *colPart
		for _, e := range c.entries {
			if e == keep {
				continue
			}
			for _, p := range e.parts {
				if (old == nil || p.used < old.used) && !(pressure && p.inUse()) {
					oldE, old = e, p
				}
			}
		}
		if old == nil {
			break
		}
		c.dropPartLocked(oldE, old)
		if len(oldE.parts) == 0 {
			delete(c.entries, oldE.name)
		}
		freed += old.bytes
		c.stats.Evictions++
		if pressure {
			c.stats.PressureEvictions++
		}
	}
	return freed
}

// dropPartLocked releases part p of entry e (the entry stays, even
// without parts: the caller decides).
func (c *TableCache) dropPartLocked(e *cacheEntry, p *colPart) {
	e.parts = slices.DeleteFunc(e.parts, func(q *colPart) bool { return q == p })
	releaseAll(p.batches)
	e.bytes -= p.bytes
	c.bytes -= p.bytes
}

// Adopt makes batches, already on the device, the resident copy of table
// name at version (replacing any other version), taking ownership of them:
// a table written by a statement whose rows the GPU computed (CREATE TABLE
// AS SELECT, INSERT ... SELECT) is scanned next without an upload. The
// batches must hold the table's rows in order, every column (one part).
// A table over the whole budget is not kept. It reports whether the table
// is resident.
func (c *TableCache) Adopt(name string, version uint64, batches []*DeviceBatch) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[name]; ok {
		c.dropEntryLocked(e)
	}
	e := &cacheEntry{name: name, version: version}
	part := &colPart{batches: batches}
	if len(batches) > 0 {
		e.ncols = len(batches[0].Cols)
		part.cols = allCols(e.ncols)
	}
	for _, b := range batches {
		part.bytes += b.Bytes()
		e.rows = append(e.rows, b.Len)
	}
	e.parts, e.bytes = []*colPart{part}, part.bytes
	if e.bytes > c.budget {
		releaseAll(batches)
		return false
	}
	c.evictLocked(c.bytes+e.bytes-min(c.bytes+e.bytes, c.budget), nil, false)
	c.entries[name] = e
	c.bytes += e.bytes
	c.touchLocked(e, part.cols)
	c.stats.Adopted++
	return true
}

// Resident returns retained handles on table name's device batches, every
// column, when version is resident with all of them, without counting a
// hit or a miss.
func (c *TableCache) Resident(name string, version uint64) ([]*DeviceBatch, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[name]
	if !ok {
		return nil, false
	}
	cols := allCols(e.ncols)
	if e.version != version || len(e.missing(cols)) > 0 {
		return nil, false
	}
	out, err := e.assemble(c.d, cols)
	return out, err == nil
}

// TableBytes returns the device bytes table name holds resident (every
// uploaded column part of its cached version), 0 when none: the per-table
// figure of `.stats`.
func (c *TableCache) TableBytes(name string) uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[name]; ok {
		return el.bytes
	}
	return 0
}

// Invalidate drops every cached version of table name.
func (c *TableCache) Invalidate(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[name]; ok {
		c.dropEntryLocked(e)
	}
}

// Clear drops every table.
func (c *TableCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		c.removeLocked(e)
	}
}

// Stats returns the cache's counters.
func (c *TableCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Tables, s.Bytes, s.Budget = len(c.entries), c.bytes, c.budget
	for _, e := range c.entries {
		s.Batches += len(e.rows)
		for _, p := range e.parts {
			s.Buffers += len(p.batches)
		}
	}
	return s
}

// ResidentColumns returns the columns of table name's resident parts,
// least recently read first (nil when none is resident).
func (c *TableCache) ResidentColumns(name string) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[name]
	if !ok {
		return nil
	}
	parts := slices.Clone(e.parts)
	slices.SortStableFunc(parts, func(a, b *colPart) int { return cmp.Compare(a.used, b.used) })
	var out []int
	for _, p := range parts {
		out = append(out, p.cols...)
	}
	return out
}

func (c *TableCache) removeLocked(e *cacheEntry) {
	delete(c.entries, e.name)
	c.bytes -= e.bytes
	e.release()
}

func retainAll(bs []*DeviceBatch) ([]*DeviceBatch, error) {
	out := make([]*DeviceBatch, 0, len(bs))
	for _, b := range bs {
		r, err := b.Retain()
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func releaseAll(bs []*DeviceBatch) {
	for _, b := range bs {
		b.Release()
	}
}
