package fileio

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// FitRecord returns rec with every buffer whose allocation is much larger
// than its contents copied into one of its exact size, and releases rec.
// Readers reserve ahead: pqarrow reserves a whole batch of values for a
// row group that holds fewer rows, and builders double their data, so a
// record kept for the life of a table would otherwise hold up to twice
// its bytes (TPC-H from Parquet: 2.0x). Buffers with little spare room
// are shared, not copied. Only records that own Go heap buffers should be
// fitted: a buffer over a memory map reaches to the map's end.
func FitRecord(rec arrow.Record) arrow.Record {
	fit := false
	for _, c := range rec.Columns() {
		fit = fit || loose(c.Data())
	}
	if !fit {
		return rec
	}
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := fitData(c.Data())
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecord(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// slack is true when buffer b's allocation exceeds its length by more
// than an eighth (and a page): worth a copy.
func slack(b *memory.Buffer) bool {
	if b == nil {
		return false
	}
	spare := cap(b.Buf()) - b.Len()
	return spare > 4096 && spare > b.Len()/8
}

func loose(d arrow.ArrayData) bool {
	for _, b := range d.Buffers() {
		if slack(b) {
			return true
		}
	}
	for _, c := range d.Children() {
		if loose(c) {
			return true
		}
	}
	dict := dictionary(d)
	return dict != nil && loose(dict)
}

// dictionary is d's dictionary or nil (Data.Dictionary returns a typed
// nil in an interface when there is none).
func dictionary(d arrow.ArrayData) arrow.ArrayData {
	if dd, ok := d.Dictionary().(*array.Data); ok && dd == nil {
		return nil
	}
	return d.Dictionary()
}

// fitData is d with its loose buffers copied; the caller releases it.
func fitData(d arrow.ArrayData) arrow.ArrayData {
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	for i, b := range d.Buffers() {
		if !slack(b) {
			bufs[i] = b
			continue
		}
		nb := memory.NewResizableBuffer(memory.DefaultAllocator)
		nb.Resize(b.Len())
		copy(nb.Bytes(), b.Bytes())
		bufs[i] = nb
		defer nb.Release() // NewData retains it
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = fitData(c)
		defer children[i].Release()
	}
	out := array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	if dict := dictionary(d); dict != nil {
		fd := fitData(dict)
		out.SetDictionary(fd)
		fd.Release()
	}
	return out
}
