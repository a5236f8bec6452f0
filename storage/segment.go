package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// minSpaceSavings is the share of a buffer that compression must save
// for the buffer to be stored compressed: one that saves less is stored
// as it is and read from the map without decoding (random 64-bit keys,
// the codes of a column encoded narrow).
const minSpaceSavings = 0.25

// encodeColumns turns colEncoding on (benchmarks compare without).
var encodeColumns = true

// writeSegment writes rec as an Arrow IPC file at path and fsyncs it. The
// file is created exclusively: segment names are never reused. A
// compressed segment's integer-like columns are written encoded (encs,
// see colEncoding).
func writeSegment(path string, rec arrow.Record, codec Codec) (size int64, encs []*colEncoding, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, nil, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	opts := codec.writerOptions()
	if opts != nil && encodeColumns {
		stored, e := encodeRecord(rec)
		defer stored.Release()
		rec, encs = stored, e
	}
	if opts != nil {
		opts = append(opts, ipc.WithMinSpaceSavings(minSpaceSavings))
	}
	w, err := ipc.NewFileWriter(f, append(opts, ipc.WithSchema(rec.Schema()))...)
	if err != nil {
		return 0, nil, err
	}
	if err := w.Write(rec); err != nil {
		return 0, nil, err
	}
	if err := w.Close(); err != nil {
		return 0, nil, err
	}
	if err := f.Sync(); err != nil {
		return 0, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	return st.Size(), encs, nil
}

var arrowMagic = []byte("ARROW1")

// segmentLayout is a parsed segment: where each column's buffers lie in
// the file, before any is decompressed.
type segmentLayout struct {
	// schema is the table's; stored, the file's (encoded columns hold
	// their codes, see colEncoding).
	schema, stored *arrow.Schema
	encs           []*colEncoding
	rows           int64
	// codec is Arrow's compression type of the body, -1 when plain.
	codec int64
	// raw[column][buffer] is the buffer's bytes in the file (compressed
	// when codec >= 0), nil for an empty one.
	raw   [][][]byte
	nulls []int64
	// meta is the CRC32 of the file outside the body: the schema, the
	// record batch message and the footer.
	meta uint32
}

// decodeSegment builds a record over data, the whole bytes of an Arrow IPC
// file holding one record batch of the given schema, every column
// decoded. Column buffers of a plain segment are slices of data, not
// copies: with data a memory map, the record reads straight from the page
// cache. Every offset read from the file is checked against data's bounds,
// so a damaged file gives an error, not a panic.
func decodeSegment(data []byte, schema *arrow.Schema, rows int64) (arrow.Record, error) {
	l, err := parseSegment(data, schema, nil, rows)
	if err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, schema.NumFields())
	for i := range cols {
		if cols[i], err = l.column(i); err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
	}
	rec := array.NewRecord(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// parseSegment finds the buffers of every column of the one record batch
// in data. The Arrow library's reader copies every buffer, so the file
// footer and the record batch message (flatbuffers) are walked here; only
// the few fields needed are read.
func parseSegment(data []byte, schema *arrow.Schema, encs []*colEncoding, rows int64) (*segmentLayout, error) {
	stored, err := storedSchema(schema, encs)
	if err != nil {
		return nil, err
	}
	n := len(data)
	if n < 2*len(arrowMagic)+4 || !bytes.Equal(data[:len(arrowMagic)], arrowMagic) || !bytes.Equal(data[n-len(arrowMagic):], arrowMagic) {
		return nil, fmt.Errorf("not an Arrow IPC file (bad magic)")
	}
	flen := int(int32(binary.LittleEndian.Uint32(data[n-10:])))
	if flen <= 0 || flen > n-10-8 {
		return nil, fmt.Errorf("bad footer length %d", flen)
	}
	footer := fb(data[n-10-flen : n-10])
	root, err := footer.root()
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	// Footer: version(0) schema(1) dictionaries(2) recordBatches(3).
	if dict, ok, err := footer.vector(root, 2, 24); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	} else if ok && dict.n > 0 {
		return nil, fmt.Errorf("dictionary batches are not supported")
	}
	blocks, ok, err := footer.vector(root, 3, 24)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if !ok || blocks.n != 1 {
		return nil, fmt.Errorf("want one record batch, file has %d", blocks.n)
	}
	// Block: offset int64, metaDataLength int32, pad, bodyLength int64.
	off := int64(binary.LittleEndian.Uint64(footer[blocks.at:]))
	metaLen := int64(int32(binary.LittleEndian.Uint32(footer[blocks.at+8:])))
	bodyLen := int64(binary.LittleEndian.Uint64(footer[blocks.at+16:]))
	if off < 8 || metaLen < 8 || bodyLen < 0 || off+metaLen+bodyLen > int64(n) || off%8 != 0 {
		return nil, fmt.Errorf("record batch block (offset %d, metadata %d, body %d) outside the file of %d bytes", off, metaLen, bodyLen, n)
	}
	meta := data[off : off+metaLen]
	body := data[off+metaLen : off+metaLen+bodyLen]
	l := &segmentLayout{schema: schema, stored: stored, encs: encs, rows: rows, codec: -1,
		meta: crc32.Update(crc32.ChecksumIEEE(data[:off+metaLen]), crc32.IEEETable, data[off+metaLen+bodyLen:])}
	// Encapsulated message: 0xFFFFFFFF, int32 length, flatbuffer Message.
	if binary.LittleEndian.Uint32(meta) != 0xFFFFFFFF {
		return nil, fmt.Errorf("record batch message: bad continuation marker")
	}
	mlen := int64(int32(binary.LittleEndian.Uint32(meta[4:])))
	if mlen <= 0 || 8+mlen > metaLen {
		return nil, fmt.Errorf("record batch message: bad length %d", mlen)
	}
	msg := fb(meta[8 : 8+mlen])
	mroot, err := msg.root()
	if err != nil {
		return nil, fmt.Errorf("record batch message: %w", err)
	}
	// Message: version(0) header_type(1) header(2) bodyLength(3).
	ht, err := msg.scalar(mroot, 1, 1)
	if err != nil {
		return nil, fmt.Errorf("record batch message: %w", err)
	}
	if ht != 3 { // MessageHeader.RecordBatch
		return nil, fmt.Errorf("message of type %d where a record batch belongs", ht)
	}
	rb, ok, err := msg.table(mroot, 2)
	if err != nil || !ok {
		return nil, fmt.Errorf("record batch message: no header (%v)", err)
	}
	// RecordBatch: length(0) nodes(1) buffers(2) compression(3).
	length, err := msg.scalar(rb, 0, 8)
	if err != nil {
		return nil, fmt.Errorf("record batch: %w", err)
	}
	if int64(length) != rows {
		return nil, fmt.Errorf("record batch has %d rows, the manifest says %d", int64(length), rows)
	}
	// BodyCompression: codec(0) method(1, 0 = every buffer on its own).
	if bc, compressed, err := msg.table(rb, 3); err != nil {
		return nil, fmt.Errorf("record batch compression: %w", err)
	} else if compressed {
		c, err := msg.scalar(bc, 0, 1)
		if err != nil {
			return nil, fmt.Errorf("record batch compression: %w", err)
		}
		if c != arrowLZ4Frame && c != arrowZstd {
			return nil, fmt.Errorf("unknown compression codec %d", c)
		}
		l.codec = int64(c)
		if method, err := msg.scalar(bc, 1, 1); err != nil || method != 0 {
			return nil, fmt.Errorf("record batch compression method %d is not supported (%v)", method, err)
		}
	}
	nodes, _, err := msg.vector(rb, 1, 16)
	if err != nil {
		return nil, fmt.Errorf("record batch nodes: %w", err)
	}
	bufs, _, err := msg.vector(rb, 2, 16)
	if err != nil {
		return nil, fmt.Errorf("record batch buffers: %w", err)
	}
	if nodes.n != schema.NumFields() {
		return nil, fmt.Errorf("record batch has %d columns, the manifest says %d", nodes.n, schema.NumFields())
	}
	fields := stored.Fields()
	l.raw = make([][][]byte, len(fields))
	l.nulls = make([]int64, len(fields))
	bi := 0
	for i, f := range fields {
		nlen := int64(binary.LittleEndian.Uint64(msg[nodes.at+16*i:]))
		nulls := int64(binary.LittleEndian.Uint64(msg[nodes.at+16*i+8:]))
		if nlen != rows || nulls < 0 || nulls > nlen {
			return nil, fmt.Errorf("column %q: %d rows with %d nulls in a batch of %d", f.Name, nlen, nulls, rows)
		}
		l.nulls[i] = nulls
		layout := f.Type.Layout().Buffers
		if _, nested := f.Type.(arrow.NestedType); nested || len(layout) == 0 {
			return nil, fmt.Errorf("column %q: type %s is not supported in storage", f.Name, f.Type)
		}
		l.raw[i] = make([][]byte, len(layout))
		for j := range layout {
			if bi >= bufs.n {
				return nil, fmt.Errorf("column %q: buffer %d missing", f.Name, j)
			}
			bo := int64(binary.LittleEndian.Uint64(msg[bufs.at+16*bi:]))
			bl := int64(binary.LittleEndian.Uint64(msg[bufs.at+16*bi+8:]))
			bi++
			if bo < 0 || bl < 0 || bo+bl > int64(len(body)) {
				return nil, fmt.Errorf("column %q: buffer %d (offset %d, %d bytes) outside the body of %d bytes", f.Name, j, bo, bl, len(body))
			}
			if bl > 0 {
				l.raw[i][j] = body[bo : bo+bl : bo+bl]
			}
		}
	}
	return l, nil
}

func (l *segmentLayout) encodingOf(i int) *colEncoding {
	if l.encs == nil {
		return nil
	}
	return l.encs[i]
}

// columnCRC is the CRC32 of column i's buffers as they lie in the file.
func (l *segmentLayout) columnCRC(i int) uint32 {
	var sum uint32
	for _, b := range l.raw[i] {
		sum = crc32.Update(sum, crc32.IEEETable, b)
	}
	return sum
}

// storedBytes is the length of column i's buffers in the file.
func (l *segmentLayout) storedBytes(i int) int64 {
	var n int64
	for _, b := range l.raw[i] {
		n += int64(len(b))
	}
	return n
}

// column builds column i, decompressing its buffers first when the
// segment is compressed (they then live in the heap, not the map).
func (l *segmentLayout) column(i int) (arrow.Array, error) {
	f := l.stored.Field(i)
	raw := l.raw[i]
	if l.codec >= 0 {
		out := make([][]byte, len(raw))
		for j, b := range raw {
			if b == nil {
				continue
			}
			var offsets []byte
			if j == 2 {
				offsets = out[1]
			}
			d, err := decompressBuffer(l.codec, b, bufferLimit(f.Type, j, l.rows, offsets))
			if err != nil {
				return nil, fmt.Errorf("column %q: buffer %d: %w", f.Name, j, err)
			}
			out[j] = d
		}
		raw = out
	}
	if e := l.encodingOf(i); e != nil {
		if len(raw) != 2 {
			return nil, fmt.Errorf("column %q: %d buffers of codes", f.Name, len(raw))
		}
		vals, err := e.decode(l.schema.Field(i).Type, raw[1], l.rows)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		raw = [][]byte{raw[0], vals}
		f = l.schema.Field(i)
	}
	buffers := make([]*memory.Buffer, len(raw))
	for j, b := range raw {
		if b != nil {
			buffers[j] = memory.NewBufferBytes(b)
		}
	}
	if err := checkBuffers(f.Type, buffers, l.rows, l.nulls[i]); err != nil {
		return nil, fmt.Errorf("column %q: %w", f.Name, err)
	}
	if l.nulls[i] == 0 {
		buffers[0] = nil
	}
	d := array.NewData(f.Type, int(l.rows), buffers, nil, int(l.nulls[i]), 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// checkBuffers checks that buffers are large enough for n values of dt, so
// that reading the array cannot run past them. String offsets are checked
// at both ends only: reading all of them would touch every page of a
// column, and opening must stay independent of the table's size.
func checkBuffers(dt arrow.DataType, bufs []*memory.Buffer, n, nulls int64) error {
	size := func(i int) int64 {
		if bufs[i] == nil {
			return 0
		}
		return int64(bufs[i].Len())
	}
	if nulls > 0 && size(0) < (n+7)/8 {
		return fmt.Errorf("validity bitmap of %d bytes for %d rows", size(0), n)
	}
	switch t := dt.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		if size(1) < 4*(n+1) {
			return fmt.Errorf("offsets of %d bytes for %d rows", size(1), n)
		}
		offs := bufs[1].Bytes()
		first := int32(binary.LittleEndian.Uint32(offs))
		last := int32(binary.LittleEndian.Uint32(offs[4*n:]))
		if first < 0 || last < first || int64(last) > size(2) {
			return fmt.Errorf("string offsets %d..%d outside %d bytes of data", first, last, size(2))
		}
	case arrow.FixedWidthDataType:
		if need := (int64(t.BitWidth())*n + 7) / 8; size(1) < need {
			return fmt.Errorf("data of %d bytes for %d rows of %s", size(1), n, dt)
		}
	default:
		return fmt.Errorf("type %s is not supported in storage", dt)
	}
	return nil
}

// fb is a flatbuffer with bounds-checked accessors.
type fb []byte

func (b fb) u32(at int) (int, error) {
	if at < 0 || at+4 > len(b) {
		return 0, fmt.Errorf("offset %d outside %d bytes", at, len(b))
	}
	return int(binary.LittleEndian.Uint32(b[at:])), nil
}

func (b fb) root() (int, error) { return b.u32(0) }

// field returns the absolute position of table t's field slot, or 0 when
// the field is absent.
func (b fb) field(t, slot int) (int, error) {
	if t < 0 || t+4 > len(b) {
		return 0, fmt.Errorf("table at %d outside %d bytes", t, len(b))
	}
	vt := t - int(int32(binary.LittleEndian.Uint32(b[t:])))
	if vt < 0 || vt+4 > len(b) {
		return 0, fmt.Errorf("vtable at %d outside %d bytes", vt, len(b))
	}
	vtSize := int(binary.LittleEndian.Uint16(b[vt:]))
	e := 4 + 2*slot
	if e+2 > vtSize {
		return 0, nil
	}
	if vt+e+2 > len(b) {
		return 0, fmt.Errorf("vtable at %d outside %d bytes", vt, len(b))
	}
	off := int(binary.LittleEndian.Uint16(b[vt+e:]))
	if off == 0 {
		return 0, nil
	}
	return t + off, nil
}

// scalar reads an unsigned little-endian field of width bytes (0 if absent).
func (b fb) scalar(t, slot, width int) (uint64, error) {
	p, err := b.field(t, slot)
	if err != nil || p == 0 {
		return 0, err
	}
	if p+width > len(b) {
		return 0, fmt.Errorf("field at %d outside %d bytes", p, len(b))
	}
	switch width {
	case 1:
		return uint64(b[p]), nil
	case 8:
		return binary.LittleEndian.Uint64(b[p:]), nil
	}
	return 0, fmt.Errorf("bad width %d", width)
}

// table follows an offset field to a sub-table.
func (b fb) table(t, slot int) (int, bool, error) {
	p, err := b.field(t, slot)
	if err != nil || p == 0 {
		return 0, false, err
	}
	rel, err := b.u32(p)
	if err != nil {
		return 0, false, err
	}
	return p + rel, true, nil
}

type fbVector struct{ at, n int }

// vector follows an offset field to a vector of structs of elem bytes and
// checks that all of it lies inside the buffer.
func (b fb) vector(t, slot, elem int) (fbVector, bool, error) {
	p, ok, err := b.table(t, slot)
	if err != nil || !ok {
		return fbVector{}, false, err
	}
	n, err := b.u32(p)
	if err != nil {
		return fbVector{}, false, err
	}
	if n < 0 || p+4+n*elem > len(b) {
		return fbVector{}, false, fmt.Errorf("vector of %d elements at %d outside %d bytes", n, p, len(b))
	}
	return fbVector{at: p + 4, n: n}, true, nil
}
