package gpuexec

import (
	"container/list"
	"context"
	"slices"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
)

// TableCache keeps tables resident on the device across queries, keyed by
// table name and catalog version, least recently used first out under a
// byte budget. Only the columns scans read are uploaded: a table's entry
// holds parts, each an upload of some of its columns in the same row
// groups, and a scan that needs a column no part holds uploads just the
// missing ones (a wide table whose queries read a few columns takes the
// memory of those). A newer version of a table replaces the older;
// Invalidate drops a table (INSERT and DROP bump the catalog's version).
//
// Get hands out retained handles: eviction never frees memory a caller is
// still using, it only drops the cache's own reference.
type TableCache struct {
	d      *Device
	budget uint64

	mu      sync.Mutex
	lru     *list.List // of *cacheEntry, front = most recent
	entries map[string]*list.Element
	bytes   uint64
	stats   CacheStats
}

// CacheStats are a TableCache's counters.
type CacheStats struct {
	Hits, Misses, Evictions, Invalidations uint64
	// PressureEvictions counts the evictions (included in Evictions) made
	// because a device allocation ran out of memory; Retries the
	// allocations run again after such evictions.
	PressureEvictions, Retries uint64
	// Streamed counts scans of tables too large to keep resident, uploaded
	// chunk by chunk; Chunks the chunks they uploaded.
	Streamed, Chunks uint64
	// Adopted counts tables made resident from statement results already
	// on the device (no upload).
	Adopted uint64
	// ColumnUploads counts the uploads that added columns to a table
	// already (partly) resident.
	ColumnUploads uint64
	// ColumnEvictions counts the parts (columns uploaded together) of a
	// resident table dropped to make room for columns a scan reads.
	ColumnEvictions uint64
	Tables          int
	Batches         int // device batches (row groups) of the resident tables
	Bytes, Budget   uint64
}

// cacheEntry is one resident table version: its row groups' sizes and the
// parts that hold its columns.
type cacheEntry struct {
	name    string
	version uint64
	ncols   int   // the table's columns
	rows    []int // each row group's rows, the same in every part
	parts   []colPart
	bytes   uint64
}

// colPart is one upload of some of a table's columns: batches[g] holds
// row group g of those columns, in cols order.
type colPart struct {
	cols    []int
	batches []*DeviceBatch
}

// find returns the part and position holding table column col.
func (e *cacheEntry) find(col int) (part, pos int, ok bool) {
	for p, cp := range e.parts {
		for i, c := range cp.cols {
			if c == col {
				return p, i, true
			}
		}
	}
	return 0, 0, false
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
// Every column must be resident.
func (e *cacheEntry) assemble(cols []int) ([]*DeviceBatch, error) {
	out := make([]*DeviceBatch, 0, len(e.rows))
	for g, rows := range e.rows {
		vecs := make([]DeviceVec, len(cols))
		var owners []*DeviceBatch
		for i, c := range cols {
			p, pos, ok := e.find(c)
			if !ok {
				releaseAll(out)
				return nil, invalidf("table %s: column %d is not resident", e.name, c)
			}
			b := e.parts[p].batches[g]
			vecs[i] = b.Cols[pos]
			if !slices.Contains(owners, b) {
				owners = append(owners, b)
			}
		}
		if len(owners) == 0 && len(e.parts) > 0 { // no columns: keep the rows' owner alive anyway
			owners = append(owners, e.parts[0].batches[g])
		}
		b, err := Combine(vecs, rows, owners...)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		if b.d == nil {
			b.d = e.parts[0].batches[g].d
		}
		out = append(out, b)
	}
	return out, nil
}

// allCols returns the column numbers 0..n-1.
func allCols(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// bytes is the device memory the part's batches take.
func (p colPart) bytes() uint64 {
	var n uint64
	for _, b := range p.batches {
		n += b.Bytes()
	}
	return n
}

func (e *cacheEntry) release() {
	for _, p := range e.parts {
		releaseAll(p.batches)
	}
	e.parts = nil
}

// NewTableCache returns a cache on d holding at most budget bytes of device
// memory.
func NewTableCache(d *Device, budget uint64) *TableCache {
	c := &TableCache{d: d, budget: budget, lru: list.New(), entries: map[string]*list.Element{}}
	if d != nil {
		// Any allocation of d's database that runs short evicts what no
		// query holds first.
		d.SetRelief(c.tryRelieve)
	}
	return c
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
	if el, ok := c.entries[name]; ok && el.Value.(*cacheEntry).version == version {
		ncols = el.Value.(*cacheEntry).ncols
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
	return c.keepLocked(ctx, e, name, version, groups, cols)
}

// lookupLocked finds table name at version: with every column of cols
// resident it returns them assembled (ok, a hit); otherwise the entry to
// extend (nil when none: an older version is dropped) and a miss.
func (c *TableCache) lookupLocked(name string, version uint64, cols []int) (e *cacheEntry, out []*DeviceBatch, ok bool, err error) {
	if el, found := c.entries[name]; found {
		e = el.Value.(*cacheEntry)
		if e.version != version {
			c.removeLocked(el)
			c.stats.Invalidations++
			e = nil
		} else if len(e.missing(cols)) == 0 {
			out, err := e.assemble(cols)
			if err != nil {
				return nil, nil, false, err
			}
			c.lru.MoveToFront(el)
			c.stats.Hits++
			return e, out, true, nil
		}
	}
	c.stats.Misses++
	return e, nil, false, nil
}

// keepLocked uploads columns cols of a table's host batches, each group as
// one device batch, as a new part of entry e (a new entry when nil), and
// returns every column of cols assembled. The entry stays under the
// budget, evicting other tables; one over the whole budget is returned,
// not kept. An upload that runs out of device memory evicts tables no
// query holds (never e: its parts are held meanwhile) and is tried once
// more. c.mu is held.
func (c *TableCache) keepLocked(ctx context.Context, e *cacheEntry, name string, version uint64, groups [][]*coldata.Batch, cols []int) ([]*DeviceBatch, error) {
	missing := (&cacheEntry{}).missing(cols) // each column once, in order
	if e != nil {
		missing = e.missing(cols)
		// The entry's parts are held while the new one uploads, so that
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
	part := colPart{cols: missing}
	var rows []int
	var bytes uint64
	for _, group := range groups {
		picked := make([]*coldata.Batch, len(group))
		n := 0
		for i, hb := range group {
			picked[i] = &coldata.Batch{Len: hb.Len}
			for _, col := range missing {
				if col < 0 || col >= len(hb.Cols) {
					releaseAll(part.batches)
					return nil, invalidf("table %s: column %d of %d", name, col, len(hb.Cols))
				}
				picked[i].Cols = append(picked[i].Cols, hb.Cols[col])
			}
			n += hb.Len
		}
		var db *DeviceBatch
		err := c.retryLocked(func() (err error) {
			db, err = c.d.UploadBatches(ctx, picked)
			return err
		})
		if err != nil {
			releaseAll(part.batches)
			return nil, err
		}
		part.batches = append(part.batches, db)
		rows = append(rows, n)
		bytes += db.Bytes()
	}
	if e != nil && !slices.Equal(e.rows, rows) {
		// Grouped otherwise than the resident parts (cannot happen for one
		// version's batches): start the table over with what was read.
		if el, ok := c.entries[name]; ok && el.Value.(*cacheEntry) == e {
			c.removeLocked(el)
			c.stats.Invalidations++
		}
		releaseAll(part.batches)
		return c.keepLocked(ctx, nil, name, version, groups, cols)
	}
	if e == nil {
		e = &cacheEntry{name: name, version: version, rows: rows}
		if len(groups) > 0 && len(groups[0]) > 0 {
			e.ncols = len(groups[0][0].Cols)
		}
	}
	if e.bytes+bytes > c.budget {
		// Over the whole budget: served from a temporary entry, not kept.
		tmp := &cacheEntry{name: name, version: version, rows: rows, parts: []colPart{part}}
		for _, p := range e.parts {
			hs, err := retainAll(p.batches)
			if err != nil {
				tmp.release()
				return nil, err
			}
			tmp.parts = append(tmp.parts, colPart{cols: p.cols, batches: hs})
		}
		defer tmp.release()
		return tmp.assemble(cols)
	}
	el, resident := c.entries[name]
	for c.bytes+bytes > c.budget && c.lru.Len() > 0 {
		back := c.lru.Back()
		if resident && back == el {
			if c.lru.Len() == 1 {
				break
			}
			c.lru.MoveToFront(el)
			continue
		}
		c.removeLocked(back)
		c.stats.Evictions++
	}
	e.parts = append(e.parts, part)
	e.bytes += bytes
	c.bytes += bytes
	if resident {
		c.lru.MoveToFront(el)
		c.stats.ColumnUploads++
	} else {
		c.entries[name] = c.lru.PushFront(e)
	}
	return e.assemble(cols)
}

// Adopt makes batches, already on the device, the resident copy of table
// name at version (replacing any other version), taking ownership of them:
// a table written by a statement whose rows the GPU computed (CREATE TABLE
// AS SELECT, INSERT ... SELECT) is scanned next without an upload. The
// batches must hold the table's rows in order, every column. A table over
// the whole budget is not kept. It reports whether the table is resident.
func (c *TableCache) Adopt(name string, version uint64, batches []*DeviceBatch) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[name]; ok {
		c.removeLocked(el)
		c.stats.Invalidations++
	}
	e := &cacheEntry{name: name, version: version}
	part := colPart{batches: batches}
	if len(batches) > 0 {
		e.ncols = len(batches[0].Cols)
		part.cols = allCols(e.ncols)
	}
	for _, b := range batches {
		e.bytes += b.Bytes()
		e.rows = append(e.rows, b.Len)
	}
	e.parts = []colPart{part}
	if e.bytes > c.budget {
		releaseAll(batches)
		return false
	}
	for c.bytes+e.bytes > c.budget && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
		c.stats.Evictions++
	}
	c.entries[name] = c.lru.PushFront(e)
	c.bytes += e.bytes
	c.stats.Adopted++
	return true
}

// Resident returns retained handles on table name's device batches, every
// column, when version is resident with all of them, without counting a
// hit or a miss.
func (c *TableCache) Resident(name string, version uint64) ([]*DeviceBatch, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[name]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	cols := allCols(e.ncols)
	if e.version != version || len(e.missing(cols)) > 0 {
		return nil, false
	}
	out, err := e.assemble(cols)
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
		return el.Value.(*cacheEntry).bytes
	}
	return 0
}

// Invalidate drops every cached version of table name.
func (c *TableCache) Invalidate(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[name]; ok {
		c.removeLocked(el)
		c.stats.Invalidations++
	}
}

// Clear drops every table.
func (c *TableCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
	}
}

// Stats returns the cache's counters.
func (c *TableCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Tables, s.Bytes, s.Budget = c.lru.Len(), c.bytes, c.budget
	for el := c.lru.Front(); el != nil; el = el.Next() {
		s.Batches += len(el.Value.(*cacheEntry).rows)
	}
	return s
}

func (c *TableCache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
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
