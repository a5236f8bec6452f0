package main

// Canonical rendering of Apache Arrow Go v17 records (gsql's results).
// canon_v18.go is the same code over arrow-go v18 (DuckDB's results): keep
// the two in step.

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// cellFunc appends the canonical text of row i of a column to dst.
type cellFunc func(dst []byte, i int) []byte

func cellsV17(arr arrow.Array) (cellFunc, error) {
	var f cellFunc
	switch a := arr.(type) {
	case *array.Null:
		return func(dst []byte, _ int) []byte { return appendNull(dst) }, nil
	case *array.String:
		f = func(dst []byte, i int) []byte { return appendString(dst, a.Value(i)) }
	case *array.LargeString:
		f = func(dst []byte, i int) []byte { return appendString(dst, a.Value(i)) }
	case *array.StringView:
		f = func(dst []byte, i int) []byte { return appendString(dst, a.Value(i)) }
	case *array.Binary:
		f = func(dst []byte, i int) []byte { return appendString(dst, string(a.Value(i))) }
	case *array.Boolean:
		f = func(dst []byte, i int) []byte { return appendBool(dst, a.Value(i)) }
	case *array.Int8:
		f = func(dst []byte, i int) []byte { return appendInt(dst, int64(a.Value(i))) }
	case *array.Int16:
		f = func(dst []byte, i int) []byte { return appendInt(dst, int64(a.Value(i))) }
	case *array.Int32:
		f = func(dst []byte, i int) []byte { return appendInt(dst, int64(a.Value(i))) }
	case *array.Int64:
		f = func(dst []byte, i int) []byte { return appendInt(dst, a.Value(i)) }
	case *array.Uint8:
		f = func(dst []byte, i int) []byte { return appendUint(dst, uint64(a.Value(i))) }
	case *array.Uint16:
		f = func(dst []byte, i int) []byte { return appendUint(dst, uint64(a.Value(i))) }
	case *array.Uint32:
		f = func(dst []byte, i int) []byte { return appendUint(dst, uint64(a.Value(i))) }
	case *array.Uint64:
		f = func(dst []byte, i int) []byte { return appendUint(dst, a.Value(i)) }
	case *array.Float32:
		f = func(dst []byte, i int) []byte { return appendFloat(dst, float64(a.Value(i))) }
	case *array.Float64:
		f = func(dst []byte, i int) []byte { return appendFloat(dst, a.Value(i)) }
	case *array.Date32:
		f = func(dst []byte, i int) []byte { return appendDate(dst, a.Value(i).FormattedString()) }
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		f = func(dst []byte, i int) []byte { return appendDecimal(dst, a.Value(i).BigInt(), scale) }
	case *array.Timestamp:
		per := microsPer(a.DataType().(*arrow.TimestampType).Unit.String())
		f = func(dst []byte, i int) []byte { return appendTimestamp(dst, int64(a.Value(i)), per) }
	default:
		return nil, fmt.Errorf("canonical rendering: unsupported column type %s", arr.DataType())
	}
	return func(dst []byte, i int) []byte {
		if arr.IsNull(i) {
			return appendNull(dst)
		}
		return f(dst, i)
	}, nil
}

// addRecordV17 adds every row of rec to the checksum.
func addRecordV17(c *Checksum, rec arrow.Record, scratch []byte) ([]byte, error) {
	cols := make([]cellFunc, rec.NumCols())
	for j := range cols {
		f, err := cellsV17(rec.Column(j))
		if err != nil {
			return scratch, fmt.Errorf("column %q: %w", rec.ColumnName(j), err)
		}
		cols[j] = f
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		scratch = scratch[:0]
		for j, f := range cols {
			if j > 0 {
				scratch = append(scratch, '\t')
			}
			scratch = f(scratch, i)
		}
		c.AddRow(scratch)
	}
	return scratch, nil
}

// bytesV17 is the size of an array's Arrow buffers (validity bitmap,
// offsets, values/chars), counting only the part of each buffer its rows use
// where the layout allows (strings: n+1 offsets and the referenced chars).
func bytesV17(arr arrow.Array) int64 {
	n := int64(arr.Len())
	var b int64
	if arr.NullN() > 0 {
		b += (n + 7) / 8
	}
	switch a := arr.(type) {
	case *array.String:
		if offs := a.ValueOffsets(); n > 0 && len(offs) > 0 {
			b += 4*(n+1) + int64(offs[len(offs)-1]-offs[0])
		}
		return b
	case *array.LargeString:
		if offs := a.ValueOffsets(); n > 0 && len(offs) > 0 {
			b += 8*(n+1) + offs[len(offs)-1] - offs[0]
		}
		return b
	case *array.Boolean:
		return b + (n+7)/8
	}
	if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok {
		return b + n*int64(fw.BitWidth()/8)
	}
	for _, buf := range arr.Data().Buffers() {
		if buf != nil {
			b += int64(buf.Len())
		}
	}
	return b
}

// recordBytesV17 sums bytesV17 over a record's columns.
func recordBytesV17(rec arrow.Record) int64 {
	var b int64
	for _, c := range rec.Columns() {
		b += bytesV17(c)
	}
	return b
}
