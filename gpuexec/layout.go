package gpuexec

import (
	"encoding/binary"
	"math"

	"github.com/gsqlengine/gsql/coldata"
)

// Alignment is the byte alignment of every sub-buffer of a packed batch (as
// libcudf's contiguous_split uses), so that any kernel may use vector loads.
const Alignment = 256

// MinBounceSize is the smallest bounce buffer ChunkedPack accepts (1 MiB, as
// libcudf's chunked_pack requires).
const MinBounceSize = 1 << 20

// Region is a byte range inside a packed buffer. Off is -1 for a buffer the
// column does not have (a column without NULLs has no validity bitmap).
type Region struct {
	Off  int64
	Size int64
}

// Present reports whether the region exists.
func (r Region) Present() bool { return r.Off >= 0 }

var absent = Region{Off: -1}

// ColumnLayout places one column's buffers inside a packed buffer.
type ColumnLayout struct {
	Type    coldata.Type
	Len     int
	Nulls   Region // validity bitmap, BitmapLen(Len) bytes, bit offset 0
	Offsets Region // String: Len+1 int32 starting at 0
	Data    Region // Bool: Len bytes; Int64/Float64: 8*Len; String: chars
}

// PackLayout is the host metadata of a packed batch: where each column's
// buffers lie in the one contiguous buffer of Size bytes.
type PackLayout struct {
	Rows int
	Cols []ColumnLayout
	Size int64 // total bytes, a multiple of Alignment
}

// ColumnSpec is what a layout needs to know of one column.
type ColumnSpec struct {
	Type     coldata.Type
	HasNulls bool
	Chars    int64 // String: bytes of character data
}

// elemSize is the width in bytes of one fixed-width value (0 for String and
// Null).
func elemSize(t coldata.Type) int64 {
	switch t.Physical() {
	case coldata.Bool:
		return 1
	case coldata.Int64, coldata.Float64:
		return 8
	case coldata.Decimal:
		return 16
	}
	return 0
}

func alignUp(n int64) int64 { return (n + Alignment - 1) &^ (Alignment - 1) }

// NewPackLayout lays out rows rows of the given columns: per column the
// validity bitmap, then the offsets, then the data, each at a multiple of
// Alignment.
func NewPackLayout(rows int, cols []ColumnSpec) (PackLayout, error) {
	if rows < 0 {
		return PackLayout{}, invalidf("negative row count %d", rows)
	}
	l := PackLayout{Rows: rows, Cols: make([]ColumnLayout, len(cols))}
	var off int64
	place := func(size int64) Region {
		r := Region{Off: off, Size: size}
		off = alignUp(off + size)
		return r
	}
	for i, c := range cols {
		cl := ColumnLayout{Type: c.Type, Len: rows, Nulls: absent, Offsets: absent, Data: absent}
		switch c.Type.Physical() {
		case coldata.Null:
			cl.Nulls = place(int64(coldata.BitmapLen(rows)))
		case coldata.Bool, coldata.Int64, coldata.Float64, coldata.Decimal:
			if c.HasNulls {
				cl.Nulls = place(int64(coldata.BitmapLen(rows)))
			}
			cl.Data = place(elemSize(c.Type) * int64(rows))
		case coldata.String:
			if c.Chars < 0 || c.Chars > math.MaxInt32 {
				return PackLayout{}, invalidf("column %d: %d bytes of string data do not fit int32 offsets", i, c.Chars)
			}
			if c.HasNulls {
				cl.Nulls = place(int64(coldata.BitmapLen(rows)))
			}
			cl.Offsets = place(4 * (int64(rows) + 1))
			cl.Data = place(c.Chars)
		default:
			return PackLayout{}, invalidf("column %d: unsupported type %v", i, c.Type)
		}
		l.Cols[i] = cl
	}
	l.Size = off
	return l, nil
}

// metadata encoding: magic, version, rows, size, ncols, then per column
// type, len and the three regions, all little-endian.
var packMagic = [4]byte{'G', 'S', 'P', 'K'}

const (
	packVersion   = 1
	packHeaderLen = 4 + 4 + 8 + 8 + 4
	packColLen    = 4 + 8 + 6*8
)

// MarshalBinary serialises the layout (the "host metadata" of a packed
// batch).
func (l PackLayout) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, packHeaderLen+packColLen*len(l.Cols))
	b = append(b, packMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, packVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(l.Rows))
	b = binary.LittleEndian.AppendUint64(b, uint64(l.Size))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(l.Cols)))
	for _, c := range l.Cols {
		b = binary.LittleEndian.AppendUint32(b, uint32(c.Type))
		b = binary.LittleEndian.AppendUint64(b, uint64(c.Len))
		for _, r := range []Region{c.Nulls, c.Offsets, c.Data} {
			b = binary.LittleEndian.AppendUint64(b, uint64(r.Off))
			b = binary.LittleEndian.AppendUint64(b, uint64(r.Size))
		}
	}
	return b, nil
}

// UnmarshalPackLayout parses and validates metadata written by
// MarshalBinary. Corrupt metadata gives an error wrapping
// ErrInvalidArgument, never a panic.
func UnmarshalPackLayout(meta []byte) (PackLayout, error) {
	if len(meta) < packHeaderLen || [4]byte(meta[:4]) != packMagic {
		return PackLayout{}, invalidf("pack metadata: bad header")
	}
	le := binary.LittleEndian
	if v := le.Uint32(meta[4:]); v != packVersion {
		return PackLayout{}, invalidf("pack metadata: version %d, want %d", v, packVersion)
	}
	rows, size, ncols := le.Uint64(meta[8:]), le.Uint64(meta[16:]), le.Uint32(meta[24:])
	if rows > math.MaxInt32 || size > 1<<50 || size%Alignment != 0 {
		return PackLayout{}, invalidf("pack metadata: rows %d, size %d", rows, size)
	}
	if uint64(len(meta)) != packHeaderLen+uint64(ncols)*packColLen {
		return PackLayout{}, invalidf("pack metadata: %d bytes for %d columns", len(meta), ncols)
	}
	l := PackLayout{Rows: int(rows), Size: int64(size), Cols: make([]ColumnLayout, ncols)}
	p := meta[packHeaderLen:]
	for i := range l.Cols {
		c := ColumnLayout{Type: coldata.Type(le.Uint32(p)), Len: int(le.Uint64(p[4:]))}
		rs := make([]Region, 3)
		for k := range rs {
			rs[k] = Region{Off: int64(le.Uint64(p[12+16*k:])), Size: int64(le.Uint64(p[20+16*k:]))}
		}
		c.Nulls, c.Offsets, c.Data = rs[0], rs[1], rs[2]
		p = p[packColLen:]
		if err := c.validate(l.Size); err != nil {
			return PackLayout{}, invalidf("pack metadata: column %d: %v", i, err)
		}
		if c.Len != l.Rows {
			return PackLayout{}, invalidf("pack metadata: column %d has %d rows, batch %d", i, c.Len, l.Rows)
		}
		l.Cols[i] = c
	}
	return l, nil
}

type layoutError string

func (e layoutError) Error() string { return string(e) }

// validate checks that the column's regions are consistent with its type
// and length and lie inside a buffer of size bytes.
func (c ColumnLayout) validate(size int64) error {
	in := func(r Region) bool {
		return r.Off >= 0 && r.Size >= 0 && r.Off%Alignment == 0 && r.Off <= size && r.Size <= size-r.Off
	}
	n := int64(c.Len)
	if n < 0 {
		return layoutError("negative length")
	}
	switch c.Type.Physical() {
	case coldata.Null, coldata.Bool, coldata.Int64, coldata.Float64, coldata.String, coldata.Decimal:
	default:
		return layoutError("unknown type")
	}
	if c.Nulls.Present() || c.Type == coldata.Null {
		if !in(c.Nulls) || c.Nulls.Size != int64(coldata.BitmapLen(c.Len)) {
			return layoutError("bad validity region")
		}
	} else if c.Nulls != absent {
		return layoutError("bad validity region")
	}
	switch c.Type.Physical() {
	case coldata.Null:
		if c.Offsets != absent || c.Data != absent {
			return layoutError("NULL column with data")
		}
	case coldata.String:
		if !in(c.Offsets) || c.Offsets.Size != 4*(n+1) || !in(c.Data) || c.Data.Size > math.MaxInt32 {
			return layoutError("bad string regions")
		}
	default:
		if c.Offsets != absent || !in(c.Data) || c.Data.Size != elemSize(c.Type)*n {
			return layoutError("bad data region")
		}
	}
	return nil
}

// ValidateSplits checks split points the way libcudf's split does: each must
// lie in [0, rows] (ErrOutOfRange) and none may be less than the one before
// it (ErrInvalidArgument). Both errors are *SplitError.
func ValidateSplits(rows int, splits []int) error {
	prev := 0
	for i, s := range splits {
		if s < 0 || s > rows {
			return &SplitError{Index: i, Value: s, Rows: rows, Err: ErrOutOfRange}
		}
		if s < prev {
			return &SplitError{Index: i, Value: s, Rows: rows, Err: ErrInvalidArgument}
		}
		prev = s
	}
	return nil
}

// SplitRanges turns validated split points into len(splits)+1 row ranges
// [lo, hi): [0, s0), [s0, s1), ..., [sN-1, rows).
func SplitRanges(rows int, splits []int) ([][2]int, error) {
	if err := ValidateSplits(rows, splits); err != nil {
		return nil, err
	}
	out := make([][2]int, 0, len(splits)+1)
	lo := 0
	for _, s := range splits {
		out = append(out, [2]int{lo, s})
		lo = s
	}
	return append(out, [2]int{lo, rows}), nil
}

// CopyBits writes bits [srcBit, srcBit+n) of src to bits [dstBit,
// dstBit+n) of dst, least significant bit first. Bits of dst below dstBit
// in the first byte touched are kept; bits above the range in the last byte
// touched are cleared, so successive calls at increasing dstBit build a
// bitmap whose trailing bits are zero. A nil src stands for all ones (every
// row valid). It is the host twin of the gsql_copy_bits kernel and uses the
// same byte-window arithmetic.
func CopyBits(dst []byte, dstBit int64, src []byte, srcBit, n int64) {
	if n <= 0 {
		return
	}
	first, last := dstBit>>3, (dstBit+n+7)>>3
	srcLast := (srcBit + n - 1) >> 3
	end := dstBit + n
	for j := first; j < last; j++ {
		out := uint32(0xff)
		lo := j * 8
		if src != nil {
			s := srcBit + (lo - dstBit)
			sb, sh := s>>3, uint(s&7)
			var w uint32
			if sb >= 0 {
				w = uint32(src[sb])
			}
			if sh != 0 && sb+1 >= 0 && sb+1 <= srcLast {
				w |= uint32(src[sb+1]) << 8
			}
			out = (w >> sh) & 0xff
		}
		var keep uint32
		if lo < dstBit {
			keep = 1<<uint(dstBit-lo) - 1
		}
		valid := uint32(0xff)
		if lo+8 > end {
			valid = 1<<uint(end-lo) - 1
		}
		old := uint32(dst[j])
		dst[j] = byte(old&keep | out&valid&^keep)
	}
}
