package coldata

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/gsqlengine/gsql/decimal"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// ArrowType returns the Arrow data type gsql uses to store t.
func ArrowType(t Type) arrow.DataType {
	switch t {
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case Float64:
		return arrow.PrimitiveTypes.Float64
	case String:
		return arrow.BinaryTypes.String
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Timestamp:
		return timestampType
	}
	if t.IsTimestamp() {
		return timestampType
	}
	if t.IsDecimal() {
		return &arrow.Decimal128Type{Precision: int32(t.Precision()), Scale: int32(t.Scale())}
	}
	return arrow.Null
}

// timestampType is Arrow's timestamp[us] without a time zone: wall-clock
// values, as gsql's TIMESTAMP.
var timestampType = &arrow.TimestampType{Unit: arrow.Microsecond}

// timestampScale is the number of microseconds per unit of an Arrow
// timestamp or time unit (0 for nanoseconds, which divide instead).
func timestampScale(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1_000_000
	case arrow.Millisecond:
		return 1_000
	case arrow.Microsecond:
		return 1
	}
	return 0
}

// FromArrowType maps an Arrow type to the gsql type that stores it.
func FromArrowType(dt arrow.DataType) (Type, error) {
	switch dt.ID() {
	case arrow.BOOL:
		return Bool, nil
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return Int64, nil
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL256:
		return Float64, nil
	case arrow.DECIMAL128:
		d := dt.(*arrow.Decimal128Type)
		if d.Precision < 1 || d.Precision > 38 || d.Scale < 0 || d.Scale > d.Precision {
			return Float64, nil
		}
		return DecimalOf(int(d.Precision), int(d.Scale)), nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return String, nil
	case arrow.NULL:
		return Null, nil
	case arrow.DATE32, arrow.DATE64:
		return Date, nil
	case arrow.TIMESTAMP:
		return Timestamp, nil
	}
	return Null, fmt.Errorf("unsupported arrow type %s", dt)
}

// FromArrow returns a vector over arr's data. Int64, Float64 and String
// arrays whose offsets start at zero are shared without copying; other
// layouts are converted.
func FromArrow(arr arrow.Array) (*Vec, error) {
	t, err := FromArrowType(arr.DataType())
	if err != nil {
		return nil, err
	}
	n := arr.Len()
	v := &Vec{Type: t, Len: n}
	if arr.NullN() > 0 {
		v.Nulls = validity(arr)
	}
	switch a := arr.(type) {
	case *array.Int64:
		v.Ints = a.Int64Values()
	case *array.Float64:
		v.Floats = a.Float64Values()
	case *array.Boolean:
		v.Bools = make([]byte, n)
		for i := 0; i < n; i++ {
			if a.Value(i) {
				v.Bools[i] = 1
			}
		}
	case *array.String:
		offs := a.ValueOffsets()
		if offs[0] == 0 {
			v.Offsets = offs
			v.Bytes = a.ValueBytes()
		} else {
			v.Offsets = make([]int32, n+1)
			base := offs[0]
			for i := range v.Offsets {
				v.Offsets[i] = offs[i] - base
			}
			v.Bytes = a.ValueBytes()
		}
	case *array.Null:
		v.Nulls = make([]byte, BitmapLen(n))
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		raw := arrow.Int64Traits.CastFromBytes(a.Data().Buffers()[1].Bytes())[a.Data().Offset():][:n]
		if unit == arrow.Microsecond {
			v.Ints = raw
			break
		}
		v.Ints = make([]int64, n)
		if scale := timestampScale(unit); scale != 0 {
			for i, x := range raw {
				v.Ints[i] = x * scale
			}
		} else {
			for i, x := range raw {
				v.Ints[i] = floorDiv(x, 1000)
			}
		}
	case *array.Decimal128:
		if !t.IsDecimal() {
			v.Floats = make([]float64, n)
			sc := a.DataType().(*arrow.Decimal128Type).Scale
			for i := range v.Floats {
				v.Floats[i] = a.Value(i).ToFloat64(sc)
			}
			break
		}
		raw := a.Data().Buffers()[1].Bytes()
		v.Decs = unsafe.Slice((*decimal.Int128)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/16)[a.Data().Offset():][:n]
	case *array.Date32:
		v.Ints = make([]int64, n)
		for i := range v.Ints {
			v.Ints[i] = int64(a.Value(i))
		}
	case *array.Date64:
		v.Ints = make([]int64, n)
		for i := range v.Ints {
			v.Ints[i] = floorDiv(int64(a.Value(i)), 86_400_000)
		}
	default:
		// Generic, slower path for the remaining widths.
		b := NewBuilder(t, n)
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			switch x := arr.(type) {
			case *array.Int8:
				b.AppendInt(int64(x.Value(i)))
			case *array.Int16:
				b.AppendInt(int64(x.Value(i)))
			case *array.Int32:
				b.AppendInt(int64(x.Value(i)))
			case *array.Uint8:
				b.AppendInt(int64(x.Value(i)))
			case *array.Uint16:
				b.AppendInt(int64(x.Value(i)))
			case *array.Uint32:
				b.AppendInt(int64(x.Value(i)))
			case *array.Uint64:
				b.AppendInt(int64(x.Value(i)))
			case *array.Float32:
				b.AppendFloat(float64(x.Value(i)))
			case *array.Float16:
				b.AppendFloat(float64(x.Value(i).Float32()))
			case *array.Decimal128:
				dt := x.DataType().(*arrow.Decimal128Type)
				b.AppendFloat(x.Value(i).ToFloat64(dt.Scale))
			case *array.Decimal256:
				dt := x.DataType().(*arrow.Decimal256Type)
				b.AppendFloat(x.Value(i).ToFloat64(dt.Scale))
			case *array.LargeString:
				b.AppendString(x.Value(i))
			case *array.Binary:
				b.AppendBytes(x.Value(i))
			case *array.LargeBinary:
				b.AppendBytes(x.Value(i))
			default:
				return nil, fmt.Errorf("unsupported arrow array %T", arr)
			}
		}
		return b.Finish(), nil
	}
	return v, nil
}

// validity copies arr's validity bitmap so that bit 0 is row 0.
func validity(arr arrow.Array) []byte {
	n := arr.Len()
	out := make([]byte, BitmapLen(n))
	buf := arr.Data().Buffers()[0]
	if buf == nil {
		return NewValidBitmap(n)
	}
	off := arr.Data().Offset()
	if off%8 == 0 {
		copy(out, buf.Bytes()[off/8:])
		if r := n & 7; r != 0 {
			out[len(out)-1] &= byte(1<<r) - 1
		}
		return out
	}
	bitutil.CopyBitmap(buf.Bytes(), off, n, out, 0)
	return out
}

// ToArrow builds an Arrow array holding v's rows. Fixed-width and string
// data are shared, not copied; booleans are packed into a bitmap.
func ToArrow(v *Vec) arrow.Array { return toArrow(v, nil) }

// toArrow is ToArrow whose shared buffers, when owner is not nil, each hold
// a reference to owner and drop it when Arrow releases them.
func toArrow(v *Vec, owner Owner) arrow.Array {
	if v.Const {
		v = v.Materialize()
		owner = nil
	}
	share := memory.NewBufferBytes
	if owner != nil {
		share = func(b []byte) *memory.Buffer {
			owner.Retain()
			return memory.NewBufferWithAllocator(b, ownedAllocator{owner})
		}
	}
	n := v.Len
	var nullBuf *memory.Buffer
	nullCount := 0
	if v.Nulls != nil {
		nullCount = n - bitutil.CountSetBits(v.Nulls, 0, n)
		if nullCount > 0 {
			nullBuf = share(v.Nulls)
		}
	}
	var data arrow.ArrayData
	switch v.Type.Kind() {
	case Date:
		days := make([]int32, n)
		for i, d := range v.Ints[:n] {
			days[i] = int32(d)
		}
		data = array.NewData(arrow.FixedWidthTypes.Date32, n, []*memory.Buffer{nullBuf, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(days))}, nil, nullCount, 0)
	case Timestamp:
		data = array.NewData(timestampType, n, []*memory.Buffer{nullBuf, share(arrow.Int64Traits.CastToBytes(v.Ints[:n]))}, nil, nullCount, 0)
	case Decimal:
		d := v.Decs[:n]
		var raw []byte
		if n > 0 {
			raw = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), 16*n)
		}
		data = array.NewData(ArrowType(v.Type), n, []*memory.Buffer{nullBuf, share(raw)}, nil, nullCount, 0)
	case Bool:
		bits := make([]byte, BitmapLen(n))
		for i := 0; i < n; i++ {
			if v.Bools[i] != 0 {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
		data = array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{nullBuf, memory.NewBufferBytes(bits)}, nil, nullCount, 0)
	case Int64:
		data = array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nullBuf, share(arrow.Int64Traits.CastToBytes(v.Ints[:n]))}, nil, nullCount, 0)
	case Float64:
		data = array.NewData(arrow.PrimitiveTypes.Float64, n, []*memory.Buffer{nullBuf, share(arrow.Float64Traits.CastToBytes(v.Floats[:n]))}, nil, nullCount, 0)
	case String:
		data = array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nullBuf, share(arrow.Int32Traits.CastToBytes(v.Offsets[:n+1])), share(v.Bytes)}, nil, nullCount, 0)
	default:
		if nullBuf != nil {
			nullBuf.Release()
		}
		return array.NewNull(n)
	}
	// NewData took its own references to the buffers; drop the ones made here.
	for _, b := range data.Buffers() {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// ownedAllocator is the allocator of Arrow buffers that share memory owned
// elsewhere: freeing such a buffer drops its reference to the owner. Arrow
// never grows the buffers of a built array; should anything ask, it gets
// Go memory.
type ownedAllocator struct{ owner Owner }

func (a ownedAllocator) Allocate(size int) []byte { return make([]byte, size) }

func (a ownedAllocator) Reallocate(size int, b []byte) []byte {
	out := make([]byte, size)
	copy(out, b)
	return out
}

func (a ownedAllocator) Free(b []byte) { a.owner.Release() }

// BatchToRecord converts a batch to an Arrow record with the given schema.
// A batch with an Owner passes it on: the record's buffers hold references
// to it, and the batch's own reference is released.
func BatchToRecord(schema *arrow.Schema, b *Batch) arrow.Record {
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = toArrow(c, b.Owner)
	}
	rec := array.NewRecord(schema, cols, int64(b.Len))
	for _, c := range cols {
		c.Release()
	}
	b.ReleaseOwner()
	return rec
}

// RecordToBatch converts an Arrow record to a batch, sharing data where it can.
func RecordToBatch(rec arrow.Record) (*Batch, error) {
	return RecordColumnsToBatch(rec, nil)
}

// RecordColumnsToBatch is RecordToBatch for the given columns only (nil:
// all): the others are left nil in the batch. A scan converts only what
// it reads: DATE and BOOLEAN columns are widened on conversion, and a
// table scan of four columns of sixteen paid for all sixteen.
func RecordColumnsToBatch(rec arrow.Record, only []int) (*Batch, error) {
	cols := make([]*Vec, rec.NumCols())
	convert := func(i int) error {
		if cols[i] != nil {
			return nil
		}
		a, err := RecordColumn(rec, i)
		if err != nil {
			return err
		}
		v, err := FromArrow(a)
		if err != nil {
			return fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
		cols[i] = v
		return nil
	}
	if only == nil {
		for i := range cols {
			if err := convert(i); err != nil {
				return nil, err
			}
		}
	}
	for _, i := range only {
		if i < 0 || i >= len(cols) {
			return nil, fmt.Errorf("column %d of a record of %d", i, len(cols))
		}
		if err := convert(i); err != nil {
			return nil, err
		}
	}
	return &Batch{Cols: cols, Len: int(rec.NumRows())}, nil
}

// floorDiv is integer division rounding toward minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// fspKey is the Arrow field metadata key holding a DATETIME(n) column's
// n: Arrow's timestamp type has no room for it.
const fspKey = "gsql.fsp"

// ArrowField is the Arrow field of a column of type t, with a DATETIME(n)
// column's declared precision in its metadata.
func ArrowField(name string, t Type, nullable bool) arrow.Field {
	f := arrow.Field{Name: name, Type: ArrowType(t), Nullable: nullable}
	if fsp := t.Fsp(); fsp >= 0 {
		f.Metadata = arrow.NewMetadata([]string{fspKey}, []string{strconv.Itoa(fsp)})
	}
	return f
}

// FieldFsp is the declared fractional-second digits of a timestamp
// field made by ArrowField, -1 when it has none.
func FieldFsp(f arrow.Field) int {
	if f.Type.ID() != arrow.TIMESTAMP {
		return -1
	}
	i := f.Metadata.FindKey(fspKey)
	if i < 0 {
		return -1
	}
	n, err := strconv.Atoi(f.Metadata.Values()[i])
	if err != nil || n < 0 || n > 6 {
		return -1
	}
	return n
}

// FieldType is the gsql type of an Arrow field, its declared DATETIME
// precision included.
func FieldType(f arrow.Field) (Type, error) {
	t, err := FromArrowType(f.Type)
	if err == nil && t == Timestamp {
		if fsp := FieldFsp(f); fsp >= 0 {
			t = TimestampOf(fsp)
		}
	}
	return t, err
}
