package gsql

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/storage"
)

// TableMemory is one table's memory. Bytes are its Arrow buffers on the
// host, each counted once however many of its batches share it (slices
// of one import, a table copied from another without copying data), of
// which Mapped are read from an on-disk database's memory maps (page
// cache the kernel may drop and read again) and the rest are in the
// heap. A compressed segment counts its compressed bytes as mapped and
// the columns that queries have decompressed (on first read) as heap.
// Device is what the table holds resident in the GPU's table cache (0
// when it is not resident, or the database runs on the CPU).
type TableMemory struct {
	Name   string
	Rows   int64
	Bytes  int64
	Mapped int64
	Device int64
}

// Heap is the table's host bytes that are not mapped from disk.
func (t TableMemory) Heap() int64 { return t.Bytes - t.Mapped }

// TableMemory returns table name's memory (see TableMemory), or an
// error naming a table that does not exist.
func (db *DB) TableMemory(name string) (TableMemory, error) {
	if db.closed.Load() {
		return TableMemory{}, ErrClosed
	}
	t, err := db.cat.Get(name)
	if err != nil {
		return TableMemory{}, fmt.Errorf("table memory: %w", err)
	}
	tm := db.tableMemory(name, t, bufferSet{})
	tm.Device = int64(db.residentCache().TableBytes(name))
	return tm, nil
}

// residentCache is the GPU's table cache when the database has opened
// it, else nil (which holds nothing).
func (db *DB) residentCache() *gpuexec.TableCache {
	if db.Device() != "gpu" {
		return nil
	}
	rt, err := db.gpu()
	if err != nil {
		return nil
	}
	return rt.Cache
}

// tableMemory measures t's host bytes; seen holds the buffers counted
// already (by this table or, for a total, by others) and gains t's.
func (db *DB) tableMemory(name string, t *catalog.Table, seen bufferSet) TableMemory {
	tm := TableMemory{Name: name, Rows: t.Rows}
	for _, rec := range t.Records {
		// A compressed segment: its compressed bytes are mapped, and
		// the columns queries have read are decompressed in the heap.
		// Reading its columns here would decompress them.
		if heap, mapped, ok := storage.RecordMemory(rec); ok {
			tm.Bytes += heap + mapped
			tm.Mapped += mapped
			continue
		}
		n := seen.addRecord(rec)
		tm.Bytes += n
		if db.store != nil && db.store.Mapped(rec) {
			tm.Mapped += n
		}
	}
	return tm
}

// bufferSet remembers the Arrow buffers counted so far by the address of
// their first byte, with the longest length seen there (a buffer and a
// slice of it from its start share the address).
type bufferSet map[uintptr]int64

// addRecord adds rec's buffers, children included, and returns the bytes
// not counted before.
func (s bufferSet) addRecord(rec arrow.Record) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += s.addData(c.Data())
	}
	return n
}

func (s bufferSet) addData(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		n += s.add(b)
	}
	for _, c := range d.Children() {
		n += s.addData(c)
	}
	// Dictionary returns a typed nil for plain arrays: ask the type.
	if _, ok := d.DataType().(*arrow.DictionaryType); ok {
		n += s.addData(d.Dictionary())
	}
	return n
}

func (s bufferSet) add(b *memory.Buffer) int64 {
	if b == nil || b.Len() == 0 {
		return 0
	}
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b.Bytes())))
	old := s[at]
	if int64(b.Len()) <= old {
		return 0
	}
	s[at] = int64(b.Len())
	return int64(b.Len()) - old
}
