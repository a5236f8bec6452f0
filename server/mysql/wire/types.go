package wire

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
)

// MySQL column types (protocol values).
const (
	typeDecimal    = 0x00
	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeDouble     = 0x05
	typeNull       = 0x06
	typeTimestamp  = 0x07
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeDate       = 0x0a
	typeTime       = 0x0b
	typeDateTime   = 0x0c
	typeYear       = 0x0d
	typeVarChar    = 0x0f
	typeBit        = 0x10
	typeJSON       = 0xf5
	typeNewDecimal = 0xf6
	typeBlob       = 0xfc
	typeVarString  = 0xfd
	typeString     = 0xfe
)

// Column flags.
const (
	flagNotNull     = 1
	flagPriKey      = 2
	flagUniqueKey   = 4
	flagMultipleKey = 8
	flagBlob        = 16
	flagUnsigned    = 32
	flagBinary      = 128
	flagNoDefault   = 4096
	flagPartKey     = 16384
	flagNum         = 32768
)

// colType says how one Arrow type travels: its MySQL column definition
// and its text and binary row encodings (each appends one non-NULL value).
type colType struct {
	mysql    byte
	flags    uint16
	length   uint32
	decimals byte
	text     func(b []byte, a arrow.Array, i int) []byte
	bin      func(b []byte, a arrow.Array, i int) []byte
}

// colTypes is the one place where gsql's column types (as Arrow types at
// the API boundary) meet MySQL's. A new type is one line; a type missing
// here travels as VARCHAR text (Arrow's ValueStr).
var colTypes = map[arrow.Type]colType{
	arrow.BOOL:       {mysql: typeTiny, flags: flagNum, length: 1, text: boolText, bin: boolBin},
	arrow.INT64:      {mysql: typeLongLong, flags: flagNum, length: 20, text: int64Text, bin: int64Bin},
	arrow.FLOAT64:    {mysql: typeDouble, flags: flagNum, length: 22, decimals: 31, text: float64Text, bin: float64Bin},
	arrow.STRING:     {mysql: typeVarString, length: 1 << 24, text: stringText, bin: stringBin},
	arrow.DATE32:     {mysql: typeDate, flags: flagBinary, length: 10, text: date32Text, bin: date32Bin},
	arrow.TIMESTAMP:  {mysql: typeDateTime, flags: flagBinary, length: 26, decimals: 6, text: timestampText, bin: timestampBin},
	arrow.DECIMAL128: {mysql: typeNewDecimal, flags: flagNum, length: 65, decimals: 30, text: decimalText, bin: decimalText},
	arrow.NULL:       {mysql: typeNull, flags: flagBinary, text: valueStrText, bin: valueStrBin},
}

// fallbackType is VARCHAR text for Arrow types colTypes does not name.
var fallbackType = colType{mysql: typeVarString, length: 1 << 24, text: valueStrText, bin: valueStrBin}

func typeOf(f arrow.Field) colType {
	dt := f.Type
	if t, ok := colTypes[dt.ID()]; ok {
		if dec, ok := dt.(*arrow.Decimal128Type); ok {
			// Digits, a sign, and a point when there is a scale:
			// DECIMAL(10,2) is 12 wide, DECIMAL(10,0) 11, as MySQL says.
			t.length, t.decimals = uint32(dec.Precision)+1, byte(dec.Scale)
			if dec.Scale > 0 {
				t.length++
			}
		}
		if fsp := fieldFsp(f); fsp >= 0 {
			// DATETIME(n): n decimals, values printed with n digits.
			t.decimals, t.length = byte(fsp), 19
			if fsp > 0 {
				t.length += uint32(fsp) + 1
			}
			t.text = func(b []byte, a arrow.Array, i int) []byte {
				v := timestampMicros(a, i)
				return withLen(b, func(b []byte) []byte { return datetime.AppendTimestampFsp(b, v, fsp) })
			}
		}
		return t
	}
	return fallbackType
}

// fieldFsp is a DATETIME(n) column's n, which the engine keeps in the
// Arrow field's metadata under "gsql.fsp" (coldata.ArrowField; the wire
// protocol does not import the engine), -1 for other columns.
func fieldFsp(f arrow.Field) int {
	if f.Type.ID() != arrow.TIMESTAMP {
		return -1
	}
	i := f.Metadata.FindKey("gsql.fsp")
	if i < 0 {
		return -1
	}
	n, err := strconv.Atoi(f.Metadata.Values()[i])
	if err != nil || n < 0 || n > 6 {
		return -1
	}
	return n
}

func (t colType) charset() uint16 {
	if t.mysql == typeVarString {
		return charsetUTF8MB4
	}
	return charsetBinary
}

func boolText(b []byte, a arrow.Array, i int) []byte {
	if a.(*array.Boolean).Value(i) {
		return append(b, 1, '1')
	}
	return append(b, 1, '0')
}

func boolBin(b []byte, a arrow.Array, i int) []byte {
	if a.(*array.Boolean).Value(i) {
		return append(b, 1)
	}
	return append(b, 0)
}

// withLen writes a value of at most 250 bytes as a length-encoded string:
// appendValue writes it after a one-byte placeholder for its length.
func withLen(b []byte, appendValue func([]byte) []byte) []byte {
	at := len(b)
	b = appendValue(append(b, 0))
	b[at] = byte(len(b) - at - 1)
	return b
}

func int64Text(b []byte, a arrow.Array, i int) []byte {
	v := a.(*array.Int64).Value(i)
	return withLen(b, func(b []byte) []byte { return strconv.AppendInt(b, v, 10) })
}

func int64Bin(b []byte, a arrow.Array, i int) []byte {
	return appendUint64(b, uint64(a.(*array.Int64).Value(i)))
}

func float64Text(b []byte, a arrow.Array, i int) []byte {
	return withLen(b, func(b []byte) []byte { return appendFloat(b, a.(*array.Float64).Value(i)) })
}

// appendFloat writes a DOUBLE as MySQL does: the shortest text that
// reads back to the same value, exponent without '+' ("1e21").
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		return append(b, "nan"...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-15 || abs >= 1e15) {
		at := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		if j := strings.IndexByte(string(b[at:]), '+'); j >= 0 {
			b = append(b[:at+j], b[at+j+1:]...)
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

func float64Bin(b []byte, a arrow.Array, i int) []byte {
	return appendUint64(b, math.Float64bits(a.(*array.Float64).Value(i)))
}

func stringText(b []byte, a arrow.Array, i int) []byte {
	return appendLenEncString(b, a.(*array.String).Value(i))
}

func stringBin(b []byte, a arrow.Array, i int) []byte { return stringText(b, a, i) }

func date32Text(b []byte, a arrow.Array, i int) []byte {
	d := int64(a.(*array.Date32).Value(i))
	return withLen(b, func(b []byte) []byte { return datetime.AppendDate(b, d) })
}

func date32Bin(b []byte, a arrow.Array, i int) []byte {
	y, m, d := datetime.CivilFromDays(int64(a.(*array.Date32).Value(i)))
	b = append(b, 4)
	b = appendUint16(b, uint16(y))
	return append(b, byte(m), byte(d))
}

// timestampMicros reads a timestamp cell in microseconds (gsql's unit;
// other units are converted).
func timestampMicros(a arrow.Array, i int) int64 {
	v := int64(a.(*array.Timestamp).Value(i))
	switch a.DataType().(*arrow.TimestampType).Unit {
	case arrow.Second:
		return v * 1e6
	case arrow.Millisecond:
		return v * 1e3
	case arrow.Nanosecond:
		return v / 1e3
	}
	return v
}

func timestampText(b []byte, a arrow.Array, i int) []byte {
	t := timestampMicros(a, i)
	return withLen(b, func(b []byte) []byte { return datetime.AppendTimestamp(b, t) })
}

func timestampBin(b []byte, a arrow.Array, i int) []byte {
	days, us := datetime.SplitTimestamp(timestampMicros(a, i))
	y, m, d := datetime.CivilFromDays(days)
	b = append(b, 11)
	b = appendUint16(b, uint16(y))
	b = append(b, byte(m), byte(d), byte(us/3600e6), byte(us/60e6%60), byte(us/1e6%60))
	return appendUint32(b, uint32(us%1e6))
}

func valueStrText(b []byte, a arrow.Array, i int) []byte {
	return appendLenEncString(b, a.ValueStr(i))
}

func valueStrBin(b []byte, a arrow.Array, i int) []byte { return valueStrText(b, a, i) }

// decimalText writes a DECIMAL with all its scale digits (12.50, not
// 12.5), as MySQL sends NEWDECIMAL in both protocols.
func decimalText(b []byte, a arrow.Array, i int) []byte {
	d := a.(*array.Decimal128)
	v := d.Value(i)
	x := decimal.Int128{Lo: v.LowBits(), Hi: v.HighBits()}
	return appendLenEncString(b, x.String(int(d.DataType().(*arrow.Decimal128Type).Scale)))
}
