package coldata

import "github.com/apache/arrow/go/v17/arrow"

// ColumnLoader is a record whose columns are materialized on first use
// (a compressed segment of an on-disk database decompresses a column when
// a query first reads it). LoadColumn can fail, on damaged data; the
// record's Column method cannot report that, so readers that can fail go
// through RecordColumn.
type ColumnLoader interface {
	LoadColumn(i int) (arrow.Array, error)
}

// ColumnSizer is a record that knows a column's Arrow size without
// materializing it.
type ColumnSizer interface {
	ColumnBytes(i int) int64
}

// RecordColumn returns column i of rec, materializing it when rec is a
// ColumnLoader.
func RecordColumn(rec arrow.Record, i int) (arrow.Array, error) {
	if l, ok := rec.(ColumnLoader); ok {
		return l.LoadColumn(i)
	}
	return rec.Column(i), nil
}

// ColumnBytes is the length of column i's Arrow buffers (children
// included), without materializing a lazy column.
func ColumnBytes(rec arrow.Record, i int) int64 {
	if s, ok := rec.(ColumnSizer); ok {
		return s.ColumnBytes(i)
	}
	return dataBytes(rec.Column(i).Data())
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
