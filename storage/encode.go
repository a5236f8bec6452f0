package storage

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// colEncoding is gsql's own lightweight encoding of an integer-like
// column (BIGINT, DATE, TIMESTAMP, DECIMAL whose values fit 64 bits) in a
// compressed segment: the values are stored as unsigned integers of Width
// bytes (1, 2 or 4), each Base plus the code (frame of reference, "for"),
// or each the previous value plus Step plus the code ("delta", for sorted
// keys). Decoding is a widening loop, many GB/s per core, where LZ4 runs
// at 1 to 2 GB/s on such columns (BenchmarkDecompress), and the narrow
// codes compress further with the segment's codec. The Arrow IPC file
// holds the codes as a UInt8/16/32 column; the manifest keeps the
// encoding, so such a file is read right only through the manifest.
type colEncoding struct {
	Kind  string `json:"kind"` // "for" or "delta"
	Width int    `json:"width"`
	Base  int64  `json:"base"`
	Step  int64  `json:"step,omitempty"`
}

// storedType is the Arrow type of an encoded column's codes.
func (e *colEncoding) storedType() arrow.DataType {
	switch e.Width {
	case 1:
		return arrow.PrimitiveTypes.Uint8
	case 2:
		return arrow.PrimitiveTypes.Uint16
	}
	return arrow.PrimitiveTypes.Uint32
}

func (e *colEncoding) valid() error {
	if (e.Kind != "for" && e.Kind != "delta") || (e.Width != 1 && e.Width != 2 && e.Width != 4) {
		return fmt.Errorf("unknown column encoding %s/%d", e.Kind, e.Width)
	}
	return nil
}

// storedSchema is the schema of a segment's Arrow file: encoded columns
// hold their codes.
func storedSchema(schema *arrow.Schema, encs []*colEncoding) (*arrow.Schema, error) {
	if encs == nil {
		return schema, nil
	}
	if len(encs) != schema.NumFields() {
		return nil, fmt.Errorf("%d column encodings for %d columns", len(encs), schema.NumFields())
	}
	fields := append([]arrow.Field(nil), schema.Fields()...)
	for i, e := range encs {
		if e == nil {
			continue
		}
		if err := e.valid(); err != nil {
			return nil, err
		}
		if _, ok := int64Values(fields[i].Type); !ok {
			return nil, fmt.Errorf("column %q: type %s cannot be encoded", fields[i].Name, fields[i].Type)
		}
		fields[i].Type = e.storedType()
	}
	return arrow.NewSchema(fields, nil), nil
}

// int64Values reports whether columns of dt are encodable and how wide a
// value is in bytes.
func int64Values(dt arrow.DataType) (width int, ok bool) {
	switch dt.ID() {
	case arrow.INT64, arrow.TIMESTAMP:
		return 8, true
	case arrow.DATE32:
		return 4, true
	case arrow.DECIMAL128:
		return 16, true
	}
	return 0, false
}

// valuesOf reads a column's values as int64s, null slots holding the
// value before them (so that they cost nothing to encode); ok is false
// when a value does not fit 64 bits.
func valuesOf(a arrow.Array) (vals []int64, ok bool) {
	n := a.Len()
	vals = make([]int64, n)
	switch c := a.(type) {
	case *array.Int64:
		copy(vals, c.Int64Values())
	case *array.Timestamp:
		for i, v := range c.TimestampValues() {
			vals[i] = int64(v)
		}
	case *array.Date32:
		for i, v := range c.Date32Values() {
			vals[i] = int64(v)
		}
	case *array.Decimal128:
		for i := 0; i < n; i++ {
			v := c.Value(i)
			lo, hi := v.LowBits(), v.HighBits()
			if c.IsValid(i) && hi != int64(lo)>>63 {
				return nil, false
			}
			vals[i] = int64(lo)
		}
	default:
		return nil, false
	}
	if a.NullN() > 0 {
		first := -1
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				first = i
				break
			}
		}
		if first < 0 {
			return nil, false
		}
		for i := 0; i < n; i++ {
			switch {
			case i < first:
				vals[i] = vals[first]
			case a.IsNull(i):
				vals[i] = vals[i-1]
			}
		}
	}
	return vals, true
}

// widthOf is the bytes a code of span needs (0: more than 4).
func widthOf(span uint64) int {
	switch b := bits.Len64(span); {
	case b <= 8:
		return 1
	case b <= 16:
		return 2
	case b <= 32:
		return 4
	}
	return 0
}

// chooseEncoding picks the narrower of frame of reference and delta for
// vals (frame of reference on a tie: it decodes without a dependency from
// one value to the next), or nil when neither fits 4 bytes.
func chooseEncoding(vals []int64) *colEncoding {
	if len(vals) == 0 {
		return nil
	}
	lo, hi := vals[0], vals[0]
	dlo, dhi := int64(0), int64(0)
	for i, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
		if i > 0 {
			d := v - vals[i-1] // wrapping, as decoding adds it back
			if i == 1 {
				dlo, dhi = d, d
			}
			dlo, dhi = min(dlo, d), max(dhi, d)
		}
	}
	forW := widthOf(uint64(hi) - uint64(lo))
	deltaW := widthOf(uint64(dhi) - uint64(dlo))
	switch {
	case forW != 0 && (deltaW == 0 || forW <= deltaW):
		return &colEncoding{Kind: "for", Width: forW, Base: lo}
	case deltaW != 0:
		return &colEncoding{Kind: "delta", Width: deltaW, Base: vals[0], Step: dlo}
	}
	return nil
}

// encodeRecord returns rec with its integer-like columns replaced by
// their codes where that narrows them, and the encodings (nil when no
// column is encoded). The caller releases the returned record.
func encodeRecord(rec arrow.Record) (arrow.Record, []*colEncoding) {
	encs := make([]*colEncoding, rec.NumCols())
	cols := make([]arrow.Array, rec.NumCols())
	encoded := false
	for i, a := range rec.Columns() {
		cols[i] = a
		if _, ok := int64Values(a.DataType()); !ok || a.Len() == 0 {
			continue
		}
		vals, ok := valuesOf(a)
		if !ok {
			continue
		}
		e := chooseEncoding(vals)
		if e == nil {
			continue
		}
		codes := make([]byte, e.Width*len(vals))
		prev := e.Base
		for k, v := range vals {
			c := uint64(v - e.Base)
			if e.Kind == "delta" {
				c = uint64(v - prev - e.Step)
				if k == 0 {
					c = 0
				}
				prev = v
			}
			switch e.Width {
			case 1:
				codes[k] = byte(c)
			case 2:
				binary.LittleEndian.PutUint16(codes[2*k:], uint16(c))
			default:
				binary.LittleEndian.PutUint32(codes[4*k:], uint32(c))
			}
		}
		d := a.Data()
		if d.Offset() != 0 {
			continue // the bitmap would need its bits moved
		}
		nd := array.NewData(e.storedType(), a.Len(), []*memory.Buffer{d.Buffers()[0], memory.NewBufferBytes(codes)}, nil, a.NullN(), 0)
		cols[i] = array.MakeFromData(nd)
		nd.Release()
		encs[i] = e
		encoded = true
	}
	if !encoded {
		rec.Retain()
		return rec, nil
	}
	schema, _ := storedSchema(rec.Schema(), encs)
	out := array.NewRecord(schema, cols, rec.NumRows())
	for i, c := range cols {
		if encs[i] != nil {
			c.Release()
		}
	}
	return out, encs
}

// decode widens codes (the stored column's data buffer) into the values
// of a column of type dt with rows rows.
func (e *colEncoding) decode(dt arrow.DataType, codes []byte, rows int64) ([]byte, error) {
	if int64(len(codes)) < int64(e.Width)*rows {
		return nil, fmt.Errorf("%d bytes of codes for %d rows of width %d", len(codes), rows, e.Width)
	}
	vw, _ := int64Values(dt)
	n := int(rows)
	out := make([]byte, vw*n)
	if n == 0 {
		return out, nil
	}
	delta := e.Kind == "delta"
	switch e.Width {
	case 1:
		widenAll(out, vw, codes[:n], delta, e.Base, e.Step)
	case 2:
		widenAll(out, vw, bytesAs[uint16](codes[:2*n]), delta, e.Base, e.Step)
	default:
		widenAll(out, vw, bytesAs[uint32](codes[:4*n]), delta, e.Base, e.Step)
	}
	return out, nil
}

// widenAll writes the values of codes into out, values of vw bytes:
// base+code (frame of reference) or the running sum of step+code from
// base (delta; the first code is 0). A loop per value width, without a
// call or a switch per value.
func widenAll[C uint8 | uint16 | uint32](out []byte, vw int, codes []C, delta bool, base, step int64) {
	switch vw {
	case 4:
		vals := bytesAs[int32](out)[:len(codes)]
		if !delta {
			for k, c := range codes {
				vals[k] = int32(base + int64(c))
			}
			return
		}
		v := base - step
		for k, c := range codes {
			v += step + int64(c)
			vals[k] = int32(v)
		}
	case 8:
		vals := bytesAs[int64](out)[:len(codes)]
		if !delta {
			for k, c := range codes {
				vals[k] = base + int64(c)
			}
			return
		}
		v := base - step
		for k, c := range codes {
			v += step + int64(c)
			vals[k] = v
		}
	case 16:
		// decimal128.Num is the low 64 bits, then the high.
		vals := bytesAs[int64](out)[:2*len(codes)]
		v := base - step
		for k, c := range codes {
			if delta {
				v += step + int64(c)
			} else {
				v = base + int64(c)
			}
			vals[2*k], vals[2*k+1] = v, v>>63
		}
	}
}

// bytesAs views b as a slice of T (b's length a multiple of T's size;
// Arrow buffers and Go allocations of this size are aligned for T).
func bytesAs[T any](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
}
