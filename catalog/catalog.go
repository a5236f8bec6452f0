// Package catalog keeps gsql's tables: named schemas whose rows are stored
// as immutable Arrow record batches in host memory.
//
// Tables are values: a change (INSERT, DROP) publishes a new *Table under the
// catalog's lock, so a query that has looked a table up keeps reading a
// consistent snapshot while others write. Every change bumps the table's
// version, which the device-resident cache uses to drop stale copies.
package catalog

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/errkind"
)

// Column describes one column of a table.
type Column struct {
	Name    string
	Type    coldata.Type
	NotNull bool
	// Default is the column's DEFAULT expression as written (a literal,
	// CURRENT_TIMESTAMP, a parenthesised expression), "" when it has
	// none: an INSERT that gives the column no value evaluates it.
	Default string
	// AutoIncrement numbers the rows an INSERT gives no value (NULL, 0 or
	// none) from one past the column's largest value.
	AutoIncrement bool
}

// Table is an immutable snapshot of a table's schema and rows.
type Table struct {
	Name    string
	Columns []Column
	// Keys are the PRIMARY KEY (first) and UNIQUE constraints of CREATE
	// TABLE (unique.go); unique indexes are the catalog's.
	Keys    []Key
	Records []arrow.Record
	// Zones holds each record's zone maps (Zones[i][c] for record i,
	// column c), or is nil when they are unknown; scans use them to skip
	// records a filter excludes.
	Zones [][]Zone
	// Stats holds each column's statistics over all records (stats.go),
	// or is nil when they are unknown (a database written before they
	// were kept): the planner then guesses.
	Stats []ColumnStats
	Rows  int64
	// Version increases with every change; (Name, Version) identifies data.
	Version uint64
	// conv keeps the vectors scans convert from Records (nil: convert on
	// every scan).
	conv *convCache
}

// convCache keeps the vector of each record column that a scan has
// converted, so that later scans do not convert it again: a DATE column is
// widened to 64 bits and a validity bitmap is copied on every conversion
// (TPC-H Q4 at scale factor 0.1 spent a third of its time there). Records
// are immutable and key the entries, so tables that share records may
// share the cache.
type convCache struct {
	mu   sync.Mutex
	vecs map[convKey]*coldata.Vec
}

type convKey struct {
	rec arrow.Record
	col int
}

func newConvCache() *convCache { return &convCache{vecs: map[convKey]*coldata.Vec{}} }

// vec returns column col of rec converted, from the cache when there. The
// caller gets its own copy of the Vec header; the data is shared and, like
// all scan output, read-only.
func (c *convCache) vec(rec arrow.Record, col int) (*coldata.Vec, error) {
	k := convKey{rec, col}
	c.mu.Lock()
	v, ok := c.vecs[k]
	c.mu.Unlock()
	if !ok {
		a, err := coldata.RecordColumn(rec, col)
		if err != nil {
			return nil, err
		}
		if v, err = coldata.FromArrow(a); err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.ColumnName(col), err)
		}
		if fsp := coldata.FieldFsp(rec.Schema().Field(col)); fsp >= 0 && v.Type == coldata.Timestamp {
			v.Type = coldata.TimestampOf(fsp) // DATETIME(n): the schema holds n
		}
		c.mu.Lock()
		c.vecs[k] = v
		c.mu.Unlock()
	}
	cp := *v
	return &cp, nil
}

// ColumnIndex finds a column by name, case-insensitively, or returns -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Schema returns the table's Arrow schema.
func (t *Table) Schema() *arrow.Schema { return Schema(t.Columns) }

// Schema builds an Arrow schema for columns.
func Schema(cols []Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = coldata.ArrowField(c.Name, c.Type, !c.NotNull)
	}
	return arrow.NewSchema(fields, nil)
}

// Batches returns the table's rows as column batches; data is shared with
// the stored records, not copied.
func (t *Table) Batches() ([]*coldata.Batch, error) { return t.ColumnBatches(nil) }

// ColumnBatches is Batches with only the given columns converted (nil:
// all); the others are nil in every batch.
func (t *Table) ColumnBatches(cols []int) ([]*coldata.Batch, error) {
	out := make([]*coldata.Batch, 0, len(t.Records))
	for i := range t.Records {
		b, err := t.RecordColumns(i, cols)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// RecordColumns is ColumnBatches for record i alone. Converted columns are
// kept (see convCache) and shared with later scans.
func (t *Table) RecordColumns(i int, cols []int) (*coldata.Batch, error) {
	r := t.Records[i]
	if t.conv == nil || cols == nil {
		b, err := coldata.RecordColumnsToBatch(r, cols)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
		return b, nil
	}
	b := &coldata.Batch{Cols: make([]*coldata.Vec, r.NumCols()), Len: int(r.NumRows())}
	for _, c := range cols {
		if c < 0 || c >= len(b.Cols) {
			return nil, fmt.Errorf("table %s: column %d of a record of %d", t.Name, c, len(b.Cols))
		}
		if b.Cols[c] != nil {
			continue
		}
		v, err := t.conv.vec(r, c)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
		b.Cols[c] = v
	}
	return b, nil
}

// ObjectError reports a missing or duplicate table.
type ObjectError struct {
	Table  string
	Exists bool // true: already exists; false: does not exist
}

func (e *ObjectError) Error() string {
	if e.Exists {
		return fmt.Sprintf("table %q already exists", e.Table)
	}
	return fmt.Sprintf("table %q does not exist", e.Table)
}

// ErrorKind implements errkind.Kinded.
func (e *ObjectError) ErrorKind() errkind.Kind {
	if e.Exists {
		return errkind.TableExists
	}
	return errkind.BadTable
}

// NotNullError is a NULL for a column declared NOT NULL (MySQL's error
// 1048).
type NotNullError struct {
	Column string
	// Row is the 1-based row of the statement's input that holds the
	// NULL; 0 when the statement gives the column no value at all.
	Row int
}

// Error is MySQL's text for error 1048 with the row as context.
func (e *NotNullError) Error() string {
	if e.Row == 0 {
		return fmt.Sprintf("Column '%s' cannot be null (the statement gives it no value)", e.Column)
	}
	return fmt.Sprintf("Column '%s' cannot be null (row %d)", e.Column, e.Row)
}

// NoDefaultError is an INSERT that gives no value to a NOT NULL column
// without a DEFAULT (MySQL's error 1364 in its default strict mode).
type NoDefaultError struct{ Column string }

func (e *NoDefaultError) Error() string {
	return fmt.Sprintf("Field '%s' doesn't have a default value", e.Column)
}

// ErrorKind implements errkind.Kinded: errkind.NoDefault.
func (e *NoDefaultError) ErrorKind() errkind.Kind { return errkind.NoDefault }

// InvalidDefaultError is a DEFAULT that is not a value of its column
// (MySQL's error 1067), with why.
type InvalidDefaultError struct {
	Column string
	Err    error
}

func (e *InvalidDefaultError) Error() string {
	return fmt.Sprintf("Invalid default value for '%s': %v", e.Column, e.Err)
}

func (e *InvalidDefaultError) Unwrap() error { return e.Err }

// ErrorKind implements errkind.Kinded: errkind.InvalidDefault.
func (e *InvalidDefaultError) ErrorKind() errkind.Kind { return errkind.InvalidDefault }

// ImplicitDefault is the value MySQL stores for a NULL in a NOT NULL
// column of type t where it may not fail (INSERT IGNORE): 0, the empty string or
// FALSE. ok is false for DATE and TIMESTAMP, whose MySQL default is the
// zero date that gsql does not have.
func ImplicitDefault(t coldata.Type) (v any, ok bool) {
	switch {
	case t == coldata.Int64:
		return int64(0), true
	case t == coldata.Float64:
		return float64(0), true
	case t == coldata.Bool:
		return false, true
	case t == coldata.String:
		return "", true
	case t.IsDecimal():
		return decimal.Int128{}, true
	}
	return nil, false
}

// ErrorKind implements errkind.Kinded.
func (e *NotNullError) ErrorKind() errkind.Kind { return errkind.NotNull }

// Catalog is a thread-safe set of tables. Names are case-insensitive.
type Catalog struct {
	mu      sync.RWMutex
	tables  map[string]*Table
	views   map[string]view   // views.go
	indexes map[string]*Index // index.go
	version uint64
	// onChange is called (outside the lock) with a table name whenever its
	// data changes or it is dropped, e.g. to invalidate device copies.
	onChange []func(name string)
	// persist, when set, makes every change durable before it is published.
	persist Persister
}

// Persister makes catalog changes durable (the storage package implements
// it for on-disk databases). Commit is called with the catalog's write lock
// held, before the change is published: old is the table's current snapshot
// (nil when the table is created), new the snapshot about to be published
// (nil when the table is dropped). Commit may replace new's Records (and
// Zones) by others holding the same rows in the same order, e.g. small
// records merged or records read back from storage; the catalog publishes
// new as Commit leaves it. When Commit returns an error the change is not
// published and the statement fails.
type Persister interface {
	Commit(old, new *Table) error
}

// SetPersister makes p commit every later change. Tables already in the
// catalog (loaded from p's storage) are not committed again.
func (c *Catalog) SetPersister(p Persister) {
	c.mu.Lock()
	c.persist = p
	c.mu.Unlock()
}

// commitLocked hands a change to the persister; c.mu is held.
func (c *Catalog) commitLocked(old, nt *Table) error {
	if c.persist == nil {
		return nil
	}
	if err := c.persist.Commit(old, nt); err != nil {
		name := ""
		if nt != nil {
			name = nt.Name
		} else if old != nil {
			name = old.Name
		}
		return fmt.Errorf("commit %s: %w", name, err)
	}
	return nil
}

// New returns an empty catalog.
func New() *Catalog { return &Catalog{tables: map[string]*Table{}} }

func key(name string) string { return strings.ToLower(name) }

// OnChange registers fn to be told of every changed or dropped table.
func (c *Catalog) OnChange(fn func(name string)) {
	c.mu.Lock()
	c.onChange = append(c.onChange, fn)
	c.mu.Unlock()
}

func (c *Catalog) notify(name string) {
	c.mu.RLock()
	fns := c.onChange
	c.mu.RUnlock()
	for _, fn := range fns {
		fn(name)
	}
}

// Version increases with every change to any table or view: a plan bound
// while it held a value is still valid while it holds it.
func (c *Catalog) Version() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.version
}

// Get returns the current snapshot of a table.
func (c *Catalog) Get(name string) (*Table, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.tables[key(name)]
	if !ok {
		return nil, &ObjectError{Table: name}
	}
	return t, nil
}

// List returns the table names in sorted order.
func (c *Catalog) List() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.tables))
	for _, t := range c.tables {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// Create adds a table with the given columns and records. The records must
// match the columns' Arrow schema.
func (c *Catalog) Create(name string, cols []Column, recs []arrow.Record, ifNotExists bool) (created bool, err error) {
	return c.CreateKeyed(name, cols, nil, recs, ifNotExists)
}

// CreateKeyed is Create with the table's unique keys (KeyDefs resolves
// them); recs must not break them.
func (c *Catalog) CreateKeyed(name string, cols []Column, keys []Key, recs []arrow.Record, ifNotExists bool) (created bool, err error) {
	if err := checkColumns(cols); err != nil {
		return false, err
	}
	schema := Schema(cols)
	var rows int64
	for _, r := range recs {
		if !r.Schema().Equal(schema) {
			return false, fmt.Errorf("create %s: record schema %s does not match %s", name, r.Schema(), schema)
		}
		rows += r.NumRows()
	}
	if len(keys) > 0 {
		if _, err := KeySets(&Table{Name: name, Columns: cols, Records: recs, Rows: rows}, keys); err != nil {
			return false, err
		}
	}
	// Outside the lock: it reads every row.
	stats := ComputeStats(recs, len(cols))
	c.mu.Lock()
	if _, ok := c.views[key(name)]; ok {
		c.mu.Unlock()
		return false, &ViewError{Name: name, Msg: "is a view", Kind: errkind.TableExists}
	}
	if _, ok := c.tables[key(name)]; ok {
		c.mu.Unlock()
		if ifNotExists {
			return false, nil
		}
		return false, &ObjectError{Table: name, Exists: true}
	}
	nt := &Table{Name: name, Columns: cols, Keys: keys, Records: recs, Zones: zonesOf(recs), Stats: stats, Rows: rows, Version: c.version + 1, conv: newConvCache()}
	if err := c.commitLocked(nil, nt); err != nil {
		c.mu.Unlock()
		return false, err
	}
	c.version++
	for _, r := range nt.Records {
		r.Retain()
	}
	c.tables[key(name)] = nt
	c.mu.Unlock()
	c.notify(name)
	return true, nil
}

// Restore adds a table read from storage, with its records and zone maps
// as they are, without committing it to the persister. It is for loading a
// database before SetPersister.
func (c *Catalog) Restore(t *Table) error {
	if err := checkColumns(t.Columns); err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	schema := t.Schema()
	for _, r := range t.Records {
		if !r.Schema().Equal(schema) {
			return fmt.Errorf("table %s: record schema %s does not match %s", t.Name, r.Schema(), schema)
		}
	}
	if t.Zones != nil && len(t.Zones) != len(t.Records) {
		return fmt.Errorf("table %s: %d zone maps for %d records", t.Name, len(t.Zones), len(t.Records))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[key(t.Name)]; ok {
		return &ObjectError{Table: t.Name, Exists: true}
	}
	c.version++
	nt := *t
	nt.Version = c.version
	if nt.conv == nil {
		nt.conv = newConvCache()
	}
	c.tables[key(t.Name)] = &nt
	return nil
}

func checkColumns(cols []Column) error {
	seen := map[string]bool{}
	for _, col := range cols {
		k := key(col.Name)
		if col.Name == "" {
			return fmt.Errorf("column name must not be empty")
		}
		if seen[k] {
			return errkind.Errorf(errkind.DuplicateColumn, "duplicate column name %q", col.Name)
		}
		if col.Type == coldata.Null {
			return fmt.Errorf("column %q has no type", col.Name)
		}
		seen[k] = true
	}
	return nil
}

// Drop removes a table (DropTables of one name).
func (c *Catalog) Drop(name string, ifExists bool) (dropped bool, err error) {
	d, err := c.DropTables([]string{name}, ifExists)
	return len(d) > 0, err
}

// DropPersister is a Persister that drops several tables in one commit,
// with the views and indexes left after the drop.
type DropPersister interface {
	CommitDrop(tables []*Table, views []ViewDef, indexes []IndexDef) error
}

// DropTables removes tables in one change: all of them or, on any error
// (a missing table without ifExists, a view, a failed commit), none.
// Names that do not exist are skipped with ifExists; it returns the
// tables dropped.
func (c *Catalog) DropTables(names []string, ifExists bool) ([]string, error) {
	c.mu.Lock()
	var drop []*Table
	seen := map[string]bool{}
	for _, name := range names {
		k := key(name)
		t, ok := c.tables[k]
		if !ok {
			if _, isView := c.views[k]; isView {
				c.mu.Unlock()
				return nil, &ViewError{Name: name, Msg: "is a view (use DROP VIEW)"}
			}
			if ifExists {
				continue
			}
			c.mu.Unlock()
			return nil, &ObjectError{Table: name}
		}
		if !seen[k] {
			seen[k] = true
			drop = append(drop, t)
		}
	}
	if len(drop) == 0 {
		c.mu.Unlock()
		return nil, nil
	}
	// The schema after the drop: the dropped tables' indexes go with them.
	indexes := map[string]*Index{}
	for k, ix := range c.indexes {
		if !seen[key(ix.Table)] {
			indexes[k] = ix
		}
	}
	if err := c.commitDropLocked(drop, indexes); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	dropped := make([]string, len(drop))
	for i, t := range drop {
		delete(c.tables, key(t.Name))
		dropped[i] = t.Name
	}
	c.indexes = indexes
	c.version++
	c.mu.Unlock()
	// Records are not released: snapshots held by running queries may still
	// read them, and the garbage collector owns their memory.
	for _, name := range dropped {
		c.notify(name)
	}
	return dropped, nil
}

// commitDropLocked commits a drop of tables leaving indexes: in one commit
// where the persister can, else table by table; c.mu is held.
func (c *Catalog) commitDropLocked(drop []*Table, indexes map[string]*Index) error {
	if c.persist == nil {
		return nil
	}
	if dp, ok := c.persist.(DropPersister); ok {
		views, defs := c.schemaDefsLocked(indexes)
		if err := dp.CommitDrop(drop, views, defs); err != nil {
			return fmt.Errorf("commit drop of %d tables: %w", len(drop), err)
		}
		return nil
	}
	for _, t := range drop {
		if err := c.commitLocked(t, nil); err != nil {
			return err
		}
	}
	return nil
}

// smallRecord is the row count under which appended rows are merged into the
// table's last record, so that many single-row INSERTs do not leave a table
// of tiny batches.
const smallRecord = 64 << 10

// Append adds rows to a table atomically: readers see all of them or none.
func (c *Catalog) Append(name string, b *coldata.Batch) error {
	return c.AppendAt(name, 0, b)
}

// AppendAt is Append provided the table is still at version (0: any
// version): rows checked against the unique keys of that snapshot are
// appended only to it, else the statement fails with ErrConflict.
func (c *Catalog) AppendAt(name string, version uint64, b *coldata.Batch) error {
	_, err := c.AppendVersion(name, version, b)
	return err
}

// AppendVersion is AppendAt that also returns the table's version after
// the append (version itself when b has no rows), so that a caller can
// keep state about exactly that snapshot.
func (c *Catalog) AppendVersion(name string, version uint64, b *coldata.Batch) (uint64, error) {
	if b.Len == 0 {
		return version, nil
	}
	c.mu.Lock()
	t, ok := c.tables[key(name)]
	if !ok {
		c.mu.Unlock()
		return 0, &ObjectError{Table: name}
	}
	if version != 0 && t.Version != version {
		c.mu.Unlock()
		return 0, fmt.Errorf("%s: %w", name, ErrConflict)
	}
	if len(b.Cols) != len(t.Columns) {
		c.mu.Unlock()
		return 0, fmt.Errorf("insert into %s: %d columns for %d", name, len(b.Cols), len(t.Columns))
	}
	// Checked here: building the record would panic with the lock held.
	for i, v := range b.Cols {
		if v.Type != t.Columns[i].Type || v.Len != b.Len {
			c.mu.Unlock()
			return 0, fmt.Errorf("insert into %s: column %s: %d %s values for %d %s rows", name, t.Columns[i].Name, v.Len, v.Type, b.Len, t.Columns[i].Type)
		}
	}
	schema := t.Schema()
	recs := append([]arrow.Record(nil), t.Records...)
	var zones [][]Zone
	if t.Zones != nil && len(t.Zones) == len(t.Records) {
		zones = make([][]Zone, len(t.Zones), len(t.Zones)+1)
		copy(zones, t.Zones)
	}
	newRec := coldata.BatchToRecord(schema, b)
	// With a persister, the new rows stay a record of their own: storage
	// compacts its segments itself, without rewriting the last one on
	// every small INSERT.
	if n := len(recs); n > 0 && c.persist == nil && recs[n-1].NumRows() < smallRecord && int64(b.Len) < smallRecord {
		merged, err := mergeRecords(schema, recs[n-1], newRec)
		newRec.Release()
		if err != nil {
			c.mu.Unlock()
			return 0, fmt.Errorf("insert into %s: %w", name, err)
		}
		// The old last record stays referenced by older snapshots; the new
		// snapshot owns merged instead.
		recs[n-1] = merged
		if zones != nil {
			zones[n-1] = ComputeZones(merged)
		}
	} else {
		recs = append(recs, newRec)
		if zones != nil {
			zones = append(zones, ComputeZones(newRec))
		}
	}
	// A fresh cache: sharing t's would keep a merged-away last record's
	// conversions alive for as long as the table.
	nt := &Table{Name: t.Name, Columns: t.Columns, Keys: t.Keys, Records: recs, Zones: zones, Stats: withBatch(t.Stats, b), Rows: t.Rows + int64(b.Len), Version: c.version + 1, conv: newConvCache()}
	if err := c.commitLocked(t, nt); err != nil {
		c.mu.Unlock()
		return 0, fmt.Errorf("insert into %s: %w", name, err)
	}
	c.version++
	c.tables[key(name)] = nt
	c.mu.Unlock()
	c.notify(t.Name)
	return nt.Version, nil
}

func mergeRecords(schema *arrow.Schema, a, b arrow.Record) (arrow.Record, error) {
	ba, err := coldata.RecordToBatch(a)
	if err != nil {
		return nil, err
	}
	bb, err := coldata.RecordToBatch(b)
	if err != nil {
		return nil, err
	}
	m := coldata.Concat([]*coldata.Batch{ba, bb}, len(schema.Fields()))
	return coldata.BatchToRecord(schema, m), nil
}

// RecordsOf returns rows as a record reader over the table's schema.
func RecordsOf(t *Table) (array.RecordReader, error) {
	return array.NewRecordReader(t.Schema(), t.Records)
}

// ErrConflict reports a table changed by another statement between an
// UPDATE's or DELETE's read and its commit; nothing was changed.
var ErrConflict = errkind.New(errkind.Conflict, "table changed while the statement ran; run it again")

// Replace publishes recs (rows rows) as the whole content of table name,
// atomically, provided the table is still at version: an UPDATE or DELETE
// computes the new rows from that snapshot. Readers see the old or the new
// rows, never a mix; a failed commit changes nothing.
func (c *Catalog) Replace(name string, version uint64, recs []arrow.Record, rows int64) error {
	ncols := 0
	if len(recs) > 0 {
		ncols = int(recs[0].NumCols())
	}
	stats := ComputeStats(recs, ncols) // outside the lock: it reads every row
	c.mu.Lock()
	t, ok := c.tables[key(name)]
	if !ok {
		c.mu.Unlock()
		return &ObjectError{Table: name}
	}
	if t.Version != version {
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", name, ErrConflict)
	}
	zones := make([][]Zone, len(recs))
	for i, r := range recs {
		zones[i] = ComputeZones(r)
	}
	if len(recs) == 0 {
		stats = make([]ColumnStats, len(t.Columns))
	}
	nt := &Table{Name: t.Name, Columns: t.Columns, Keys: t.Keys, Records: recs, Zones: zones, Stats: stats, Rows: rows, Version: c.version + 1, conv: newConvCache()}
	if err := c.commitLocked(t, nt); err != nil {
		c.mu.Unlock()
		return err
	}
	c.version++
	c.tables[key(name)] = nt
	c.mu.Unlock()
	c.notify(t.Name)
	return nil
}
