package storage

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
)

// lazyRecord is the record of a compressed segment: a column's buffers are
// decompressed when a query first reads the column (LoadColumn, through
// coldata.RecordColumn), not at Open, so that opening costs the same
// whatever the data's size and a query of 3 columns of 16 decompresses 3.
// Decompressed columns are kept for later queries. Concurrent queries
// reading one column decompress it once (sync.Once per column).
//
// A damaged column is an error of the query that reads it: LoadColumn
// returns a CorruptError naming the table and the segment file, and the
// column keeps failing the same way; the other columns still read.
type lazyRecord struct {
	l     *segmentLayout
	file  string // the segment's path
	table string
	// crcs are the CRC32s of each column's stored bytes, checked before
	// decompressing (nil for segments written before they were kept).
	crcs []uint32
	cols []lazyColumn
	// zones are the segment's zone maps from its manifest entry (nil if
	// it has none), so that a table made of staged segments takes them
	// without decompressing every column to compute them again.
	zones []catalog.Zone
	// stats are the column statistics Stage computed (nil: none).
	stats []catalog.ColumnStats
	// heap counts the bytes decompressed so far.
	heap atomic.Int64
	refs atomic.Int64
}

// Zones returns the segment's zone maps, nil when the manifest has none
// (catalog.Zoned).
func (r *lazyRecord) Zones() []catalog.Zone { return r.zones }

// ColumnStats returns the statistics Stage computed, nil when there are
// none (catalog.StatsSource).
func (r *lazyRecord) ColumnStats() []catalog.ColumnStats { return r.stats }

type lazyColumn struct {
	once sync.Once
	arr  arrow.Array
	err  error
}

func newLazyRecord(l *segmentLayout, file, table string, crcs []uint32) *lazyRecord {
	r := &lazyRecord{l: l, file: file, table: table, cols: make([]lazyColumn, len(l.raw))}
	if len(crcs) == len(l.raw) {
		r.crcs = crcs
	}
	r.refs.Store(1)
	return r
}

// LoadColumn returns column i, decompressing it on first use
// (coldata.ColumnLoader).
func (r *lazyRecord) LoadColumn(i int) (arrow.Array, error) {
	if i < 0 || i >= len(r.cols) {
		return nil, fmt.Errorf("column %d of a record of %d", i, len(r.cols))
	}
	c := &r.cols[i]
	c.once.Do(func() {
		if r.crcs != nil {
			if got := r.l.columnCRC(i); got != r.crcs[i] {
				c.err = &CorruptError{File: r.file, Table: r.table, Err: fmt.Errorf("column %q: checksum mismatch (manifest says %08x, contents give %08x)", r.l.schema.Field(i).Name, r.crcs[i], got)}
				return
			}
		}
		arr, err := r.l.column(i)
		if err != nil {
			c.err = &CorruptError{File: r.file, Table: r.table, Err: err}
			return
		}
		c.arr = arr
		r.heap.Add(arrayBytes(arr.Data()))
	})
	return c.arr, c.err
}

// ColumnBytes is column i's Arrow size once decompressed, read from the
// buffers' headers without decompressing (coldata.ColumnSizer).
func (r *lazyRecord) ColumnBytes(i int) int64 {
	var n int64
	for _, b := range r.l.raw[i] {
		n += uncompressedLen(b)
	}
	return n
}

// memory is the bytes decompressed into the heap so far and the bytes of
// the compressed columns in the map.
func (r *lazyRecord) memory() (heap, mapped int64) {
	for i := range r.l.raw {
		mapped += r.l.storedBytes(i)
	}
	return r.heap.Load(), mapped
}

// column is LoadColumn for the arrow.Record methods, which cannot return
// an error: a damaged column panics with its CorruptError, which the
// query's recovery reports. Scans read columns through LoadColumn.
func (r *lazyRecord) column(i int) arrow.Array {
	a, err := r.LoadColumn(i)
	if err != nil {
		panic(err)
	}
	return a
}

func (r *lazyRecord) Schema() *arrow.Schema    { return r.l.schema }
func (r *lazyRecord) NumRows() int64           { return r.l.rows }
func (r *lazyRecord) NumCols() int64           { return int64(len(r.cols)) }
func (r *lazyRecord) Column(i int) arrow.Array { return r.column(i) }
func (r *lazyRecord) ColumnName(i int) string  { return r.l.schema.Field(i).Name }

// Retain and Release count references for the interface's sake: the
// buffers belong to the store's map and the Go heap, freed by the GC.
func (r *lazyRecord) Retain()  { r.refs.Add(1) }
func (r *lazyRecord) Release() { r.refs.Add(-1) }

func (r *lazyRecord) Columns() []arrow.Array {
	out := make([]arrow.Array, len(r.cols))
	for i := range out {
		out[i] = r.column(i)
	}
	return out
}

// materialized is an ordinary record over every column.
func (r *lazyRecord) materialized() arrow.Record {
	return array.NewRecord(r.l.schema, r.Columns(), r.l.rows)
}

func (r *lazyRecord) SetColumn(i int, col arrow.Array) (arrow.Record, error) {
	rec := r.materialized()
	defer rec.Release()
	return rec.SetColumn(i, col)
}

func (r *lazyRecord) NewSlice(i, j int64) arrow.Record {
	rec := r.materialized()
	defer rec.Release()
	return rec.NewSlice(i, j)
}

func (r *lazyRecord) MarshalJSON() ([]byte, error) {
	rec := r.materialized()
	defer rec.Release()
	return json.Marshal(rec)
}

// arrayBytes is the length of an array's buffers, children included.
func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}

// RecordMemory reports the host memory of a record a store returned: the
// bytes decompressed into the heap and the bytes read from the segment's
// memory map. ok is false for records that are not a compressed
// segment's; their Arrow buffers say it all.
func RecordMemory(rec arrow.Record) (heap, mapped int64, ok bool) {
	if r, is := rec.(*lazyRecord); is {
		heap, mapped = r.memory()
		return heap, mapped, true
	}
	return 0, 0, false
}
