package catalog

import (
	"fmt"
	"sort"
	"sync"

	"github.com/gsqlengine/gsql/errkind"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
)

// Indexes: CREATE INDEX name ON t (cols) keeps zone maps of the indexed
// columns for every ZoneChunkRows rows of each record (the record-level
// zones cover a whole record or on-disk segment, up to 1M rows), so that a
// scan under a filter on those columns skips the chunks no row of which
// can pass. They are computed when a scan first needs them for a record
// and kept while the record is part of the table. Index definitions (not
// their zone maps, which are rebuilt) are stored with the tables of an
// on-disk database, like views (SchemaPersister).

// ZoneChunkRows is the granularity of index zone maps: the operators'
// batch size, so a chunk is one scan batch.
const ZoneChunkRows = 1 << 16

// Index is one index definition and its chunk zone maps.
type Index struct {
	Name, Table string
	// Columns are the indexed columns' names, Cols their positions.
	Columns []string
	Cols    []int
	// Unique: CREATE UNIQUE INDEX, a key the table's rows keep unique
	// (unique.go).
	Unique bool

	mu sync.Mutex
	// zones maps each record of the table to its chunks' zone maps (one
	// slice per chunk, indexed by table column).
	zones map[arrow.Record][][]Zone
}

// IndexError reports a bad CREATE or DROP INDEX.
type IndexError struct {
	Msg string
	// Kind is the error's kind; zero means errkind.WrongObject.
	Kind errkind.Kind
}

func (e *IndexError) Error() string { return e.Msg }

// ErrorKind implements errkind.Kinded.
func (e *IndexError) ErrorKind() errkind.Kind {
	if e.Kind == errkind.Unknown {
		return errkind.WrongObject
	}
	return e.Kind
}

// CreateIndex adds index name on table's columns. Index names are unique
// in the database (as in SQLite and PostgreSQL).
func (c *Catalog) CreateIndex(name, table string, cols []string, ifNotExists bool) error {
	return c.CreateIndexDef(IndexDef{Name: name, Table: table, Columns: cols}, ifNotExists)
}

// CreateIndexDef is CreateIndex of a definition, which may be UNIQUE: the
// table's rows must then be unique in the indexed columns (else a
// DuplicateKeyError and nothing changes), and later writes keep them so.
func (c *Catalog) CreateIndexDef(def IndexDef, ifNotExists bool) error {
	name, table, cols := def.Name, def.Table, def.Columns
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.indexes[key(name)]; ok {
		if ifNotExists {
			return nil
		}
		return &IndexError{Msg: fmt.Sprintf("index %s already exists", name), Kind: errkind.IndexExists}
	}
	t, ok := c.tables[key(table)]
	if !ok {
		if _, isView := c.views[key(table)]; isView {
			return &IndexError{Msg: fmt.Sprintf("cannot index view %s", table)}
		}
		return &ObjectError{Table: table}
	}
	ix := &Index{Name: name, Table: t.Name, Unique: def.Unique}
	seen := map[int]bool{}
	for _, col := range cols {
		i := t.ColumnIndex(col)
		if i < 0 {
			return &IndexError{Msg: fmt.Sprintf("unknown column %q in table %s", col, t.Name), Kind: errkind.NoSuchColumn}
		}
		if seen[i] {
			return &IndexError{Msg: fmt.Sprintf("column %s appears twice in index %s", col, name), Kind: errkind.DuplicateColumn}
		}
		seen[i] = true
		ix.Columns = append(ix.Columns, t.Columns[i].Name)
		ix.Cols = append(ix.Cols, i)
	}
	if ix.Unique {
		// O(rows) under the lock: CREATE UNIQUE INDEX is rare, and no
		// write may slip between the check and the index.
		if _, err := KeySets(t, []Key{{Name: ix.Name, Columns: ix.Columns, Cols: ix.Cols}}); err != nil {
			return err
		}
	}
	if c.indexes == nil {
		c.indexes = map[string]*Index{}
	}
	c.indexes[key(name)] = ix
	if err := c.commitSchemaLocked(); err != nil {
		delete(c.indexes, key(name))
		return err
	}
	c.version++
	if ix.Unique {
		// A new snapshot version (same rows): a statement that checked
		// its rows against the keys of the old one fails to commit them
		// (AppendAt, Replace) instead of skipping this key.
		nt := *t
		nt.Version = c.version
		c.tables[key(t.Name)] = &nt
	}
	return nil
}

// DropIndex removes an index; table, when not empty, must be its table
// (MySQL's DROP INDEX name ON table).
func (c *Catalog) DropIndex(name, table string, ifExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ix, ok := c.indexes[key(name)]
	if !ok {
		if ifExists {
			return nil
		}
		return &IndexError{Msg: fmt.Sprintf("unknown index %s", name), Kind: errkind.NoSuchIndex}
	}
	if table != "" && key(table) != key(ix.Table) {
		return &IndexError{Msg: fmt.Sprintf("index %s is on table %s, not %s", name, ix.Table, table), Kind: errkind.NoSuchIndex}
	}
	delete(c.indexes, key(name))
	if err := c.commitSchemaLocked(); err != nil {
		c.indexes[key(name)] = ix
		return err
	}
	c.version++
	return nil
}

// dropIndexesLocked removes the indexes of a dropped table.
func (c *Catalog) dropIndexesLocked(table string) {
	dropped := false
	for k, ix := range c.indexes {
		if key(ix.Table) == key(table) {
			delete(c.indexes, k)
			dropped = true
		}
	}
	if dropped {
		// The table is gone already; an index left in the stored
		// definitions names a missing table and is skipped when the
		// database opens (Catalog.RestoreSchema).
		_ = c.commitSchemaLocked()
	}
}

// Indexes returns the indexes on table, by name.
func (c *Catalog) Indexes(table string) []*Index {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Index
	for _, ix := range c.indexes {
		if key(ix.Table) == key(table) {
			out = append(out, ix)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ChunkZones returns, for record i of snapshot t, the zone maps of each
// ZoneChunkRows-row chunk: the indexed columns' own, the record's zone for
// every other column (true of the chunk too). Records no longer in the
// table leave the cache.
func (ix *Index) ChunkZones(t *Table, i int) [][]Zone {
	rec := t.Records[i]
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if z, ok := ix.zones[rec]; ok {
		return z
	}
	live := make(map[arrow.Record][][]Zone, len(t.Records))
	for _, r := range t.Records {
		if z, ok := ix.zones[r]; ok {
			live[r] = z
		}
	}
	ix.zones = live
	var whole []Zone
	if len(t.Zones) == len(t.Records) {
		whole = t.Zones[i]
	} else {
		whole = make([]Zone, rec.NumCols()) // unknown: never excludes
	}
	n := rec.NumRows()
	var chunks [][]Zone
	for lo := int64(0); lo < n; lo += ZoneChunkRows {
		hi := min(lo+ZoneChunkRows, n)
		z := append([]Zone(nil), whole...)
		for c := range z {
			// The record's NULL count says nothing of the chunk's; its
			// min and max bound the chunk's values.
			z[c].Nulls = -1
		}
		for _, c := range ix.Cols {
			a, err := coldata.RecordColumn(rec, c)
			if err != nil {
				// Unknown: never excludes; the scan reports the error.
				z[c] = Zone{Nulls: -1}
				continue
			}
			col := array.NewSlice(a, lo, hi)
			z[c] = ColumnZone(col)
			col.Release()
		}
		chunks = append(chunks, z)
	}
	ix.zones[rec] = chunks
	return chunks
}
