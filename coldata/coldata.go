// Package coldata holds gsql's in-memory column format: typed vectors in the
// Arrow layout (validity bitmap, int32 offsets, data) grouped into batches.
//
// It is the currency every operator, expression kernel and device transfer
// deals in. Vectors are plain structs of slices so that hot loops index them
// directly; a vector may be a constant (one stored value standing for every
// row) so that literals are never broadcast.
package coldata

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/decimal"
)

// Type is a SQL value type as gsql stores it: a kind in the low byte and,
// for DECIMAL, the precision and scale above it (DecimalOf).
type Type uint32

const (
	// Null is the type of an untyped NULL literal; it never reaches storage.
	Null Type = iota
	Bool
	Int64
	Float64
	String
	// Date is a calendar date: days since 1970-01-01 in Ints (package
	// datetime has the calendar).
	Date
	// Timestamp is a date and time of day without a time zone:
	// microseconds since 1970-01-01 00:00:00 in Ints.
	Timestamp
	// Decimal is the kind of DECIMAL(p,s) (DecimalOf): exact values scaled
	// by 10^s, 128-bit integers in Decs. As a Type it stands for the
	// storage of every precision and scale (Physical).
	Decimal
)

// DecimalOf is DECIMAL(p,s); p in 1..38 and s in 0..p.
func DecimalOf(p, s int) Type { return Decimal | Type(p)<<8 | Type(s)<<16 }

// TimestampOf is DATETIME(fsp): a TIMESTAMP whose values are rounded to
// fsp (0-6) digits of a second and print with exactly that many. Plain
// Timestamp has no declared precision: it keeps microseconds and prints
// the digits a value has.
func TimestampOf(fsp int) Type { return Timestamp | Type(fsp+1)<<8 }

// Fsp is the declared fractional-second digits of a TIMESTAMP, -1 when
// it has none (and for other types).
func (t Type) Fsp() int {
	if t.Kind() != Timestamp {
		return -1
	}
	return int(t>>8&0xff) - 1
}

// IsTimestamp reports whether t is a TIMESTAMP of any precision.
func (t Type) IsTimestamp() bool { return t.Kind() == Timestamp }

// Plain is t without a TIMESTAMP's declared precision: the type that
// functions take and compute with (DATETIME(3) is TIMESTAMP to them).
func (t Type) Plain() Type {
	if t.Kind() == Timestamp {
		return Timestamp
	}
	return t
}

// Kind is t without its precision and scale.
func (t Type) Kind() Type { return t & 0xff }

// IsDecimal reports whether t is a DECIMAL of any precision.
func (t Type) IsDecimal() bool { return t.Kind() == Decimal }

// Precision is a DECIMAL's number of digits.
func (t Type) Precision() int { return int(t >> 8 & 0xff) }

// Scale is a DECIMAL's number of digits after the point.
func (t Type) Scale() int { return int(t >> 16 & 0xff) }

// String returns the SQL name of the type.
func (t Type) String() string {
	switch t {
	case Null:
		return "NULL"
	case Bool:
		return "BOOLEAN"
	case Int64:
		return "BIGINT"
	case Float64:
		return "DOUBLE"
	case String:
		return "VARCHAR"
	case Date:
		return "DATE"
	case Timestamp:
		return "TIMESTAMP"
	}
	if t.IsDecimal() {
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision(), t.Scale())
	}
	if fsp := t.Fsp(); fsp >= 0 {
		return fmt.Sprintf("DATETIME(%d)", fsp)
	}
	return fmt.Sprintf("Type(%d)", uint32(t))
}

// IsNumeric reports whether values of t take part in arithmetic.
func (t Type) IsNumeric() bool { return t == Int64 || t == Float64 || t == Bool || t.IsDecimal() }

// IsTemporal reports whether t is DATE or TIMESTAMP.
func (t Type) IsTemporal() bool { return t == Date || t.Kind() == Timestamp }

// Physical is the type whose storage t uses: BIGINT for DATE and
// TIMESTAMP, t itself otherwise. Code that moves, compares, hashes or
// sorts values without interpreting them switches on it.
func (t Type) Physical() Type {
	switch {
	case t == Date || t.Kind() == Timestamp:
		return Int64
	case t.IsDecimal():
		return Decimal
	}
	return t
}

// ParseType maps a SQL type name (any case, with or without a length such as
// VARCHAR(20)) to a Type. ok is false for names gsql does not know.
func ParseType(name string) (t Type, ok bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	args := ""
	if i := strings.IndexByte(n, '('); i >= 0 {
		args = n[i:]
		n = strings.TrimSpace(n[:i])
	}
	switch n {
	case "DECIMAL", "NUMERIC", "DEC", "FIXED":
		return parseDecimalArgs(args)
	case "TIMESTAMP", "DATETIME":
		if args != "" {
			return parseFspArgs(args)
		}
	}
	n = strings.TrimSuffix(n, " UNSIGNED")
	switch n {
	case "BOOLEAN", "BOOL":
		return Bool, true
	case "BIGINT", "INT", "INTEGER", "SMALLINT", "TINYINT", "MEDIUMINT", "SIGNED", "UNSIGNED", "SIGNED INTEGER", "UNSIGNED INTEGER":
		return Int64, true
	case "DOUBLE", "FLOAT", "REAL", "DOUBLE PRECISION":
		return Float64, true
	case "VARCHAR", "TEXT", "CHAR", "STRING", "CHARACTER", "CHARACTER VARYING", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "NCHAR", "NVARCHAR":
		return String, true
	case "DATE":
		return Date, true
	case "TIMESTAMP", "DATETIME", "TIMESTAMP WITHOUT TIME ZONE":
		return Timestamp, true
	}
	return Null, false
}

// parseFspArgs reads DATETIME's "(n)", n in 0..6.
func parseFspArgs(args string) (Type, bool) {
	if !strings.HasPrefix(args, "(") || !strings.HasSuffix(args, ")") {
		return Null, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(args[1 : len(args)-1]))
	if err != nil || n < 0 || n > 6 {
		return Null, false
	}
	return TimestampOf(n), true
}

// parseDecimalArgs reads "(p,s)", "(p)" or "" (MySQL's DECIMAL(10,0)).
func parseDecimalArgs(args string) (Type, bool) {
	p, sc := 10, 0
	a := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(args), " UNSIGNED"), "UNSIGNED"))
	if a != "" {
		if !strings.HasPrefix(a, "(") || !strings.HasSuffix(a, ")") {
			return Null, false
		}
		parts := strings.Split(a[1:len(a)-1], ",")
		if len(parts) > 2 {
			return Null, false
		}
		var err error
		if p, err = strconv.Atoi(strings.TrimSpace(parts[0])); err != nil {
			return Null, false
		}
		if len(parts) == 2 {
			if sc, err = strconv.Atoi(strings.TrimSpace(parts[1])); err != nil {
				return Null, false
			}
		}
	}
	if p < 1 || p > 38 || sc < 0 || sc > p {
		return Null, false
	}
	return DecimalOf(p, sc), true
}

// Vec is one column of Len values in the Arrow layout.
//
// Exactly one of the data slices is used, chosen by Type. Nulls is a validity
// bitmap (bit i set = row i valid, least significant bit first); nil means no
// row is NULL. A Const vector stores a single value at index 0 that stands for
// all Len rows; accessors hide the difference.
type Vec struct {
	Type    Type
	Len     int
	Const   bool
	Nulls   []byte
	Bools   []byte // one byte per row, 0 or 1
	Ints    []int64
	Floats  []float64
	Offsets []int32 // Len+1 entries for String
	Bytes   []byte  // string data
	Decs    []decimal.Int128
}

// NewVec allocates a non-constant vector of n rows with no NULLs.
func NewVec(t Type, n int) *Vec {
	v := &Vec{Type: t, Len: n}
	switch t.Physical() {
	case Bool:
		v.Bools = make([]byte, n)
	case Int64:
		v.Ints = make([]int64, n)
	case Float64:
		v.Floats = make([]float64, n)
	case String:
		v.Offsets = make([]int32, n+1)
	case Decimal:
		v.Decs = make([]decimal.Int128, n)
	case Null:
		v.Nulls = make([]byte, BitmapLen(n))
	}
	return v
}

// NewConst returns a constant vector of n rows holding val, which must be nil
// (NULL), bool, int64, float64, string or []byte.
func NewConst(t Type, val any, n int) *Vec {
	v := &Vec{Type: t, Len: n, Const: true}
	switch x := val.(type) {
	case nil:
		v.Nulls = []byte{0}
		switch t.Physical() {
		case Bool:
			v.Bools = []byte{0}
		case Int64:
			v.Ints = []int64{0}
		case Float64:
			v.Floats = []float64{0}
		case String:
			v.Offsets = []int32{0, 0}
		case Decimal:
			v.Decs = []decimal.Int128{{}}
		}
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		v.Bools = []byte{b}
	case int64:
		v.Ints = []int64{x}
	case float64:
		v.Floats = []float64{x}
	case string:
		v.Bytes = []byte(x)
		v.Offsets = []int32{0, int32(len(x))}
	case []byte:
		v.Bytes = x
		v.Offsets = []int32{0, int32(len(x))}
	case decimal.Int128:
		v.Decs = []decimal.Int128{x}
	default:
		panic(fmt.Sprintf("coldata.NewConst: unsupported value %T", val))
	}
	return v
}

// idx maps a row to its storage index.
func (v *Vec) idx(i int) int {
	if v.Const {
		return 0
	}
	return i
}

// IsNull reports whether row i is NULL.
func (v *Vec) IsNull(i int) bool {
	if v.Nulls == nil {
		return false
	}
	j := v.idx(i)
	return v.Nulls[j>>3]&(1<<(j&7)) == 0
}

// HasNulls reports whether the vector may hold NULLs.
func (v *Vec) HasNulls() bool { return v.Nulls != nil }

// AnyNull reports whether any of the first n rows is NULL: HasNulls
// without the false positive of a bitmap whose bits are all set (a device
// result keeps the bitmap of a column that may hold NULLs).
func (v *Vec) AnyNull(n int) bool {
	if v.Nulls == nil || n <= 0 {
		return false
	}
	if v.Const {
		return v.IsNull(0)
	}
	full := n >> 3
	for _, b := range v.Nulls[:full] {
		if b != 0xff {
			return true
		}
	}
	for i := full << 3; i < n; i++ {
		if v.Nulls[i>>3]&(1<<(i&7)) == 0 {
			return true
		}
	}
	return false
}

// SetNull marks row i NULL, allocating the bitmap on first use.
func (v *Vec) SetNull(i int) {
	if v.Nulls == nil {
		v.Nulls = NewValidBitmap(v.Len)
	}
	v.Nulls[i>>3] &^= 1 << (i & 7)
}

// Bool returns row i of a Bool vector.
func (v *Vec) Bool(i int) bool { return v.Bools[v.idx(i)] != 0 }

// Int returns row i of an Int64 vector.
func (v *Vec) Int(i int) int64 { return v.Ints[v.idx(i)] }

// Float returns row i of a Float64 vector.
func (v *Vec) Float(i int) float64 { return v.Floats[v.idx(i)] }

// Dec returns row i of a DECIMAL vector (scaled by 10^scale).
func (v *Vec) Dec(i int) decimal.Int128 { return v.Decs[v.idx(i)] }

// Str returns row i of a String vector; the slice aliases the vector's data.
func (v *Vec) Str(i int) []byte {
	j := v.idx(i)
	return v.Bytes[v.Offsets[j]:v.Offsets[j+1]]
}

// Value returns row i as a Go value (nil for NULL).
func (v *Vec) Value(i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.Type.Physical() {
	case Bool:
		return v.Bool(i)
	case Int64:
		return v.Int(i)
	case Float64:
		return v.Float(i)
	case String:
		return string(v.Str(i))
	case Decimal:
		return v.Dec(i)
	}
	return nil
}

// Materialize returns a non-constant copy of a constant vector (or v itself).
func (v *Vec) Materialize() *Vec {
	if !v.Const {
		return v
	}
	b := NewBuilder(v.Type, v.Len)
	for i := 0; i < v.Len; i++ {
		b.AppendFrom(v, 0)
	}
	return b.Finish()
}

// Batch is a set of equal-length columns.
type Batch struct {
	Cols []*Vec
	Len  int
	// Owner, when not nil, owns memory the vectors point into that is not
	// Go's (page-locked result memory lent by the GPU backend). The batch
	// holds one reference: whoever consumes the batch passes it on (Arrow
	// records built by BatchToRecord take their own) or releases it.
	Owner Owner
}

// HostBytes is the host memory a batch's vectors view: validity, values,
// offsets, and the string bytes its rows use. Vectors that are slices of
// a larger one count only their rows; it costs a few additions per
// column, never a pass over the rows (operators count what they hold
// with it a batch at a time).
func (b *Batch) HostBytes() int64 {
	var n int64
	for _, v := range b.Cols {
		n += int64(len(v.Nulls) + len(v.Bools) + 8*len(v.Ints) + 8*len(v.Floats) + 4*len(v.Offsets) + 16*len(v.Decs))
		if v.Type.Physical() == String && !v.Const && v.Len > 0 && len(v.Offsets) > v.Len {
			n += int64(v.Offsets[v.Len] - v.Offsets[0])
		}
	}
	return n
}

// Owner is reference-counted ownership of memory outside the Go heap; the
// memory returns to its pool when the last reference is released.
type Owner interface {
	Retain()
	Release()
}

// ReleaseOwner drops the batch's reference to its memory owner, if any.
// The vectors must not be read afterwards.
func (b *Batch) ReleaseOwner() {
	if b != nil && b.Owner != nil {
		b.Owner.Release()
		b.Owner = nil
	}
}

// NewBatch returns a batch over cols, all of which must have n rows.
func NewBatch(cols []*Vec, n int) *Batch { return &Batch{Cols: cols, Len: n} }

// BitmapLen is the number of bytes a bitmap of n bits needs.
func BitmapLen(n int) int { return (n + 7) >> 3 }

// NewValidBitmap returns a bitmap with the first n bits set.
func NewValidBitmap(n int) []byte {
	b := make([]byte, BitmapLen(n))
	for i := range b {
		b[i] = 0xff
	}
	if r := n & 7; r != 0 {
		b[len(b)-1] = byte(1<<r) - 1
	}
	return b
}

// BitIsSet reports whether bit i of bitmap b is set.
func BitIsSet(b []byte, i int) bool { return b[i>>3]&(1<<(i&7)) != 0 }

// SetBit sets bit i of b.
func SetBit(b []byte, i int) { b[i>>3] |= 1 << (i & 7) }

// ClearBit clears bit i of b.
func ClearBit(b []byte, i int) { b[i>>3] &^= 1 << (i & 7) }
