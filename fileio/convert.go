package fileio

import (
	"fmt"
	"github.com/gsqlengine/gsql/coldata"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// normalType returns the gsql storage type an Arrow type is read as, or an
// error when there is none.
func normalType(t arrow.DataType) (arrow.DataType, error) {
	switch t.ID() {
	case arrow.BOOL:
		return arrow.FixedWidthTypes.Boolean, nil
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return arrow.PrimitiveTypes.Int64, nil
	case arrow.DECIMAL128:
		if d := t.(*arrow.Decimal128Type); d.Precision >= 1 && d.Precision <= 38 && d.Scale >= 0 && d.Scale <= d.Precision {
			return t, nil
		}
		return arrow.PrimitiveTypes.Float64, nil
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL256:
		return arrow.PrimitiveTypes.Float64, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW,
		arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY,
		arrow.TIME32, arrow.TIME64, arrow.NULL:
		return arrow.BinaryTypes.String, nil
	case arrow.DATE32, arrow.DATE64:
		return arrow.FixedWidthTypes.Date32, nil
	case arrow.TIMESTAMP:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case arrow.DICTIONARY:
		return normalType(t.(*arrow.DictionaryType).ValueType)
	}
	return nil, fmt.Errorf("unsupported column type %s", t)
}

// normalSchema maps every field of s to its storage type (all nullable).
func normalSchema(s *arrow.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		t, err := normalType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		fields[i] = arrow.Field{Name: f.Name, Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil), nil
}

// normalRecord converts rec to schema (from normalSchema). Columns already of
// the right type are shared; the result must be released by the caller.
func normalRecord(schema *arrow.Schema, rec arrow.Record) (arrow.Record, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		c, err := normalArray(schema.Field(i).Type, rec.Column(i))
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", schema.Field(i).Name, err)
		}
		cols[i] = c
	}
	return array.NewRecord(schema, cols, rec.NumRows()), nil
}

func normalArray(to arrow.DataType, a arrow.Array) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), to) {
		a.Retain()
		return a, nil
	}
	if d, ok := a.(*array.Dictionary); ok {
		vals, err := normalArray(to, d.Dictionary())
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		return take(vals, d)
	}
	mem := memory.DefaultAllocator
	n := a.Len()
	switch to.ID() {
	case arrow.INT64:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			switch x := a.(type) {
			case *array.Int8:
				b.UnsafeAppend(int64(x.Value(i)))
			case *array.Int16:
				b.UnsafeAppend(int64(x.Value(i)))
			case *array.Int32:
				b.UnsafeAppend(int64(x.Value(i)))
			case *array.Uint8:
				b.UnsafeAppend(int64(x.Value(i)))
			case *array.Uint16:
				b.UnsafeAppend(int64(x.Value(i)))
			case *array.Uint32:
				b.UnsafeAppend(int64(x.Value(i)))
			case *array.Uint64:
				v := x.Value(i)
				if v > math.MaxInt64 {
					return nil, fmt.Errorf("row %d: value %d out of BIGINT range", i+1, v)
				}
				b.UnsafeAppend(int64(v))
			default:
				return nil, fmt.Errorf("cannot convert %s to BIGINT", a.DataType())
			}
		}
		return b.NewArray(), nil
	case arrow.FLOAT64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			switch x := a.(type) {
			case *array.Float16:
				b.UnsafeAppend(float64(x.Value(i).Float32()))
			case *array.Float32:
				b.UnsafeAppend(float64(x.Value(i)))
			case *array.Decimal128:
				b.UnsafeAppend(x.Value(i).ToFloat64(x.DataType().(*arrow.Decimal128Type).Scale))
			case *array.Decimal256:
				b.UnsafeAppend(x.Value(i).ToFloat64(x.DataType().(*arrow.Decimal256Type).Scale))
			default:
				return nil, fmt.Errorf("cannot convert %s to DOUBLE", a.DataType())
			}
		}
		return b.NewArray(), nil
	case arrow.DATE32, arrow.TIMESTAMP:
		// Dates in milliseconds and timestamps in other units (or with a
		// time zone: their UTC wall clock) convert through gsql's vector.
		v, err := coldata.FromArrow(a)
		if err != nil {
			return nil, err
		}
		if to.ID() == arrow.DATE32 {
			v.Type = coldata.Date
		}
		return coldata.ToArrow(v), nil
	case arrow.STRING:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			var s string
			switch x := a.(type) {
			case *array.LargeString:
				s = x.Value(i)
			case *array.StringView:
				s = x.Value(i)
			case *array.Binary:
				s = string(x.Value(i))
			case *array.LargeBinary:
				s = string(x.Value(i))
			case *array.BinaryView:
				s = string(x.Value(i))
			case *array.FixedSizeBinary:
				s = string(x.Value(i))
			default:
				s = a.ValueStr(i)
			}
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("row %d: invalid UTF-8 in %s value", i+1, a.DataType())
			}
			b.Append(s)
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("cannot convert %s to %s", a.DataType(), to)
}

// take expands a dictionary's (normalised) values by its indices.
func take(vals arrow.Array, d *array.Dictionary) (arrow.Array, error) {
	mem := memory.DefaultAllocator
	b := array.NewBuilder(mem, vals.DataType())
	defer b.Release()
	n := d.Len()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if d.IsNull(i) {
			b.AppendNull()
			continue
		}
		j := d.GetValueIndex(i)
		if j < 0 || j >= vals.Len() {
			return nil, fmt.Errorf("row %d: dictionary index %d out of range", i+1, j)
		}
		if vals.IsNull(j) {
			b.AppendNull()
			continue
		}
		switch v := vals.(type) {
		case *array.String:
			b.(*array.StringBuilder).Append(v.Value(j))
		case *array.Int64:
			b.(*array.Int64Builder).Append(v.Value(j))
		case *array.Float64:
			b.(*array.Float64Builder).Append(v.Value(j))
		case *array.Boolean:
			b.(*array.BooleanBuilder).Append(v.Value(j))
		default:
			return nil, fmt.Errorf("unsupported dictionary value type %s", vals.DataType())
		}
	}
	return b.NewArray(), nil
}
