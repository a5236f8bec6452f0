package expr

import (
	"errors"
	"fmt"
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/errkind"
)

// Shared machinery of the scalar operator kernels (casts, arithmetic,
// comparisons, logic, conditionals, math). The kernels work a whole vector at
// a time with loops specialised by type and by shape: column op column,
// column op constant, constant op column. Constant vectors store one value at
// index 0; the loops either hoist it out or index rows through a mask that is
// 0 for constants and all ones otherwise (row i lives at i&mask).

// ErrOutOfRange is a BIGINT result that does not fit, as MySQL reports it.
// Kernels wrap it with the offending operation: "BIGINT value is out of range
// in '(9223372036854775807 + 1)'".
var ErrOutOfRange = errkind.New(errkind.OutOfRange, "BIGINT value is out of range")

// errStringTooLarge is a string result over the 2 GiB an Arrow string vector
// with int32 offsets can hold.
var errStringTooLarge = errors.New("string result exceeds 2 GiB in one batch")

// numericType is the type arithmetic converts its arguments to: BIGINT when
// every argument is an integer, boolean or NULL, else DOUBLE (strings convert
// to DOUBLE, as in MySQL).
func numericType(args []coldata.Type) coldata.Type {
	for _, t := range args {
		if t == coldata.Float64 || t == coldata.String || t.IsDecimal() {
			// Functions without a decimal form compute decimals as DOUBLE.
			return coldata.Float64
		}
	}
	return coldata.Int64
}

// compareType is the type the arguments of a comparison (=, <, IN, NULLIF,
// GREATEST...) convert to: strings compare as strings (bytewise) when every
// non-NULL argument is a string; anything numeric against a string or a
// DOUBLE compares as DOUBLE; else as BIGINT — MySQL's rules.
func compareType(args []coldata.Type) coldata.Type {
	if t, ok := decimalCompareType(args); ok {
		// Decimals (and integers beside them) compare exactly.
		return t
	}
	if t := temporalOf(args); t != coldata.Null {
		// A date against a number compares as dates (MySQL converts the
		// other side); against text as DATETIMEs, since the text may hold
		// a time of day (DATE '2024-02-29' < '2024-02-29 12:00:00').
		if t == coldata.Date {
			for _, a := range args {
				if a == coldata.String {
					return coldata.Timestamp
				}
			}
		}
		return t
	}
	str, other := false, false
	for _, t := range args {
		switch t {
		case coldata.String:
			str = true
		case coldata.Null:
		default:
			other = true
		}
	}
	if str && !other {
		return coldata.String
	}
	return numericType(args)
}

// sameTypes returns n copies of t.
func sameTypes(t coldata.Type, n int) []coldata.Type {
	out := make([]coldata.Type, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// rowMask is the index mask of v: row i is stored at i&rowMask(v).
func rowMask(v *coldata.Vec) int {
	if v.Const {
		return 0
	}
	return -1
}

// isConstNull reports whether every row of v is NULL without looking at
// rows: a vector of the NULL type or a constant NULL.
func isConstNull(v *coldata.Vec) bool {
	return v.Type == coldata.Null || (v.Const && v.Nulls != nil && v.Nulls[0]&1 == 0)
}

// validAt reports whether storage index j is valid in bitmap nulls (nil: all
// valid).
func validAt(nulls []byte, j int) bool {
	return nulls == nil || nulls[j>>3]>>(uint(j)&7)&1 != 0
}

// nullsOf returns the validity bitmap of v's n rows as a non-constant vector
// needs it: nil when no row is NULL. A constant NULL gives an all-NULL bitmap.
func nullsOf(v *coldata.Vec, n int) []byte {
	if v.Nulls == nil {
		return nil
	}
	if v.Const {
		if v.Nulls[0]&1 != 0 {
			return nil
		}
		return make([]byte, coldata.BitmapLen(n))
	}
	return v.Nulls
}

// b2u8 is 1 for true and 0 for false.
func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// constOf turns a one-row result into a constant vector of n rows.
func constOf(v *coldata.Vec, n int) *coldata.Vec {
	c := *v
	if c.Nulls != nil {
		c.Nulls = []byte{c.Nulls[0] & 1}
	}
	c.Const, c.Len = true, n
	return &c
}

// one returns a view of constant vector v as a non-constant one-row vector
// (for computing a constant result once).
func one(v *coldata.Vec) *coldata.Vec {
	c := *v
	c.Len, c.Const = 1, false
	return &c
}

// newNullBitmap returns a validity bitmap of n rows, all NULL.
func newNullBitmap(n int) []byte { return make([]byte, coldata.BitmapLen(n)) }

// clearBits returns nulls (allocating an all-valid bitmap when nil) with the
// bits of rows where drop[i] != 0 cleared. nulls must be owned by the caller.
func clearBits(nulls []byte, drop []byte, n int) []byte {
	if nulls == nil {
		nulls = coldata.NewValidBitmap(n)
	}
	for i, d := range drop[:n] {
		if d != 0 {
			nulls[i>>3] &^= 1 << (uint(i) & 7)
		}
	}
	return nulls
}

// bytesToBitmap packs n one-byte flags into a validity bitmap; it returns
// nil when every flag is set.
func bytesToBitmap(valid []byte, n int) []byte {
	var out []byte
	for i, v := range valid[:n] {
		if v == 0 {
			if out == nil {
				out = coldata.NewValidBitmap(n)
			}
			out[i>>3] &^= 1 << (uint(i) & 7)
		}
	}
	return out
}

// checkStringSize fails when total bytes do not fit int32 offsets.
func checkStringSize(total int) error {
	if total > math.MaxInt32 {
		return fmt.Errorf("%w (%d bytes)", errStringTooLarge, total)
	}
	return nil
}
