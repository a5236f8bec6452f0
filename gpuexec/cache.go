package gpuexec

import (
	"container/list"
	"context"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
)

// TableCache keeps tables resident on the device across queries, keyed by
// table name and catalog version, least recently used first out under a
// byte budget. A newer version of a table replaces the older; Invalidate
// drops a table (INSERT and DROP bump the catalog's version).
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
	Adopted       uint64
	Tables        int
	Batches       int // device batches of the resident tables
	Bytes, Budget uint64
}

type cacheEntry struct {
	name    string
	version uint64
	batches []*DeviceBatch
	bytes   uint64
}

// NewTableCache returns a cache on d holding at most budget bytes of device
// memory.
func NewTableCache(d *Device, budget uint64) *TableCache {
	return &TableCache{d: d, budget: budget, lru: list.New(), entries: map[string]*list.Element{}}
}

// Get returns the device batches of table name at version, uploading the
// host batches load returns on a miss. The caller releases each returned
// batch. A table larger than the whole budget is uploaded and returned but
// not kept.
func (c *TableCache) Get(ctx context.Context, name string, version uint64, load func() ([]*coldata.Batch, error)) ([]*DeviceBatch, error) {
	if c.d == nil {
		return nil, ErrNoCUDA
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if out, ok, err := c.hitLocked(name, version); ok || err != nil {
		return out, err
	}
	hosts, err := load()
	if err != nil {
		return nil, err
	}
	groups := make([][]*coldata.Batch, len(hosts))
	for i, hb := range hosts {
		groups[i] = []*coldata.Batch{hb}
	}
	return c.keepLocked(ctx, name, version, groups)
}

// hitLocked returns retained handles on table name at version when it is
// resident (ok); otherwise it drops an older version and counts a miss.
func (c *TableCache) hitLocked(name string, version uint64) (out []*DeviceBatch, ok bool, err error) {
	if el, found := c.entries[name]; found {
		e := el.Value.(*cacheEntry)
		if e.version == version {
			out, err := retainAll(e.batches)
			if err != nil {
				return nil, false, err
			}
			c.lru.MoveToFront(el)
			c.stats.Hits++
			return out, true, nil
		}
		c.removeLocked(el)
		c.stats.Invalidations++
	}
	c.stats.Misses++
	return nil, false, nil
}

// keepLocked uploads a table's host batches, each group as one device
// batch, and keeps them under the budget
// (a table over the whole budget is returned, not kept). An upload that
// runs out of device memory evicts tables no query holds and is tried once
// more. c.mu is held.
func (c *TableCache) keepLocked(ctx context.Context, name string, version uint64, groups [][]*coldata.Batch) ([]*DeviceBatch, error) {
	e := &cacheEntry{name: name, version: version}
	for _, group := range groups {
		var db *DeviceBatch
		err := c.retryLocked(func() (err error) {
			db, err = c.d.UploadBatches(ctx, group)
			return err
		})
		if err != nil {
			releaseAll(e.batches)
			return nil, err
		}
		e.batches = append(e.batches, db)
		e.bytes += db.Bytes()
	}
	out, err := retainAll(e.batches)
	if err != nil {
		releaseAll(e.batches)
		return nil, err
	}
	if e.bytes > c.budget {
		releaseAll(e.batches) // the caller's handles keep the memory
		return out, nil
	}
	for c.bytes+e.bytes > c.budget && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
		c.stats.Evictions++
	}
	c.entries[name] = c.lru.PushFront(e)
	c.bytes += e.bytes
	return out, nil
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
	e := &cacheEntry{name: name, version: version, batches: batches}
	for _, b := range batches {
		e.bytes += b.Bytes()
	}
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

// Resident returns retained handles on table name's device batches when
// version is resident, without counting a hit or a miss.
func (c *TableCache) Resident(name string, version uint64) ([]*DeviceBatch, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[name]
	if !ok || el.Value.(*cacheEntry).version != version {
		return nil, false
	}
	out, err := retainAll(el.Value.(*cacheEntry).batches)
	return out, err == nil
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
		s.Batches += len(el.Value.(*cacheEntry).batches)
	}
	return s
}

func (c *TableCache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.name)
	c.bytes -= e.bytes
	releaseAll(e.batches)
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
