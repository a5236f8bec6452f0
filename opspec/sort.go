package opspec

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/gsqlengine/gsql/coldata"
)

// BatchSize is the number of rows the CPU operators aim for per batch: big
// enough to amortise per-batch work, small enough for intermediate vectors
// to stay in cache. A multiple of 8 so slices share validity bitmaps.
const BatchSize = 1 << 16

// SortKey orders by one input column.
type SortKey struct {
	Col  int
	Desc bool
	// Nulls places NULLs; the default is MySQL's (first ascending, last
	// descending).
	Nulls NullOrder
}

// NullOrder is ORDER BY's NULLS FIRST / NULLS LAST.
type NullOrder uint8

const (
	NullsDefault NullOrder = iota
	NullsFirst
	NullsLast
)

// CompareValues orders row i of a against row j of b (same type), with NULL
// smallest.
func CompareValues(a *coldata.Vec, i int, b *coldata.Vec, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	switch a.Type.Physical() {
	case coldata.Bool:
		return int(a.Bools[idx(a, i)]) - int(b.Bools[idx(b, j)])
	case coldata.Int64:
		x, y := a.Int(i), b.Int(j)
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
	case coldata.Float64:
		x, y := a.Float(i), b.Float(j)
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
	case coldata.String:
		return bytes.Compare(a.Str(i), b.Str(j))
	case coldata.Decimal:
		// Both sides have one type (the sort key's), so one scale.
		return a.Dec(i).Cmp(b.Dec(j))
	}
	return 0
}

// AppendRowKey appends an encoding of row i of cols to dst such that two rows
// encode equally exactly when they are equal in the SQL sense of grouping
// (NULLs equal each other, -0 equals 0).
func AppendRowKey(dst []byte, cols []*coldata.Vec, i int) []byte {
	for _, c := range cols {
		if c.IsNull(i) {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		switch c.Type.Physical() {
		case coldata.Bool:
			dst = append(dst, c.Bools[idx(c, i)])
		case coldata.Int64:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(c.Int(i)))
		case coldata.Float64:
			f := c.Float(i)
			if f == 0 {
				f = 0
			}
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
		case coldata.String:
			s := c.Str(i)
			dst = binary.AppendUvarint(dst, uint64(len(s)))
			dst = append(dst, s...)
		case coldata.Decimal:
			d := c.Dec(i)
			dst = binary.LittleEndian.AppendUint64(dst, d.Lo)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(d.Hi))
		}
	}
	return dst
}

func idx(v *coldata.Vec, i int) int {
	if v.Const {
		return 0
	}
	return i
}
