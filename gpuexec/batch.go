package gpuexec

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
)

// DeviceVec is one column in device memory, in coldata's layout. It is a
// view: the memory belongs to the DeviceBatch it came from.
type DeviceVec struct {
	Type coldata.Type
	Len  int
	// Nulls is the validity bitmap (bit set = valid, LSB first) or 0 when no
	// row is NULL; a Null-typed column always has one (all zero). Row i's bit
	// is bit NullOffset+i.
	Nulls      DevicePtr
	NullOffset int
	// Offsets (String only) holds Len+1 int32 offsets into Data; the first
	// need not be 0 in a view.
	Offsets DevicePtr
	// Data holds Len values (Bool: one byte each; Int64, Float64: 8 bytes)
	// already advanced to row 0, or a String column's chars.
	Data DevicePtr
	// Chars is a String column's byte count (last offset minus first) when
	// the host knows it without reading the offsets back; 0 when unknown.
	Chars int64
}

// HasNulls reports whether the column has a validity bitmap.
func (v DeviceVec) HasNulls() bool { return v.Nulls != 0 || v.Type == coldata.Null }

// slice returns rows [lo, hi) as a view.
func (v DeviceVec) slice(lo, hi int) DeviceVec {
	out := v
	out.Len = hi - lo
	if v.Nulls != 0 {
		bit := v.NullOffset + lo
		out.Nulls = v.Nulls + DevicePtr(bit>>3)
		out.NullOffset = bit & 7
	}
	switch v.Type.Physical() {
	case coldata.Bool, coldata.Int64, coldata.Float64, coldata.Decimal:
		out.Data = v.Data + DevicePtr(int64(lo)*elemSize(v.Type))
	case coldata.String:
		out.Offsets = v.Offsets + DevicePtr(4*lo)
		if lo != 0 || hi != v.Len {
			out.Chars = 0
		}
	}
	return out
}

// DeviceBatch is a set of equal-length device columns and the buffers that
// back them. Release it when done; views (Split, Slice, Retain) keep the
// buffers alive until they are released too.
type DeviceBatch struct {
	Cols []DeviceVec
	Len  int

	d        *Device
	bufs     []*Buffer
	layout   *PackLayout // set when Cols are the normalized pack of bufs[0]
	released atomic.Bool
}

// Device is the device the batch lives on (nil for batches made by Unpack).
func (b *DeviceBatch) Device() *Device { return b.d }

// Packed reports whether the batch is one contiguous normalized buffer (as
// Upload, Pack, ContiguousSplit and Concatenate make), so that Download and
// Pack need no device-side copy.
func (b *DeviceBatch) Packed() bool { return b.layout != nil }

// Bytes is the device memory the batch holds (its buffers' sizes).
func (b *DeviceBatch) Bytes() uint64 {
	var n uint64
	for _, buf := range b.bufs {
		n += buf.size
	}
	return n
}

// ColumnBytes is the size of the batch's columns themselves: what
// concatenating or partitioning them copies. A batch of a few columns
// viewing a resident table's packed buffer holds (Bytes) the whole
// buffer: at ClickBench's 30M rows, 12 GB behind 4 columns of 720 MB,
// which sent a GROUP BY down the per-batch path. A string column whose
// character count the host does not know counts as the buffers.
func (b *DeviceBatch) ColumnBytes() uint64 {
	var n uint64
	for _, c := range b.Cols {
		if c.HasNulls() {
			n += uint64(c.Len+7) / 8
		}
		switch c.Type.Physical() {
		case coldata.String:
			if c.Chars == 0 && c.Len > 0 {
				return b.Bytes()
			}
			n += 4*uint64(c.Len+1) + uint64(c.Chars)
		case coldata.Null:
		default:
			n += uint64(c.Len) * uint64(elemSize(c.Type))
		}
	}
	return min(n, b.Bytes())
}

// Retain returns another handle on the same columns; each handle is
// released separately.
func (b *DeviceBatch) Retain() (*DeviceBatch, error) {
	if b.released.Load() {
		return nil, ErrReleased
	}
	out := &DeviceBatch{Cols: append([]DeviceVec(nil), b.Cols...), Len: b.Len, d: b.d, layout: b.layout}
	for _, buf := range b.bufs {
		out.bufs = append(out.bufs, buf.Retain())
	}
	return out, nil
}

// Release drops the batch's references to its buffers; memory goes back to
// the pool when no view holds it any more. A second Release returns
// ErrReleased.
func (b *DeviceBatch) Release() error {
	if b.released.Swap(true) {
		return ErrReleased
	}
	var first error
	for _, buf := range b.bufs {
		if err := buf.Release(); err != nil && first == nil {
			first = err
		}
	}
	b.bufs = nil
	return first
}

func (b *DeviceBatch) check() error {
	if b == nil {
		return invalidf("nil batch")
	}
	if b.released.Load() {
		return ErrReleased
	}
	return nil
}

// Slice returns rows [lo, hi) of b as a view (no copy). It needs no device
// work.
func Slice(b *DeviceBatch, lo, hi int) (*DeviceBatch, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if lo < 0 || hi > b.Len || lo > hi {
		return nil, rangef("slice [%d, %d) of a batch of %d rows", lo, hi, b.Len)
	}
	out := &DeviceBatch{Cols: make([]DeviceVec, len(b.Cols)), Len: hi - lo, d: b.d}
	for i, c := range b.Cols {
		out.Cols[i] = c.slice(lo, hi)
	}
	if lo == 0 && hi == b.Len {
		out.layout = b.layout
	}
	for _, buf := range b.bufs {
		out.bufs = append(out.bufs, buf.Retain())
	}
	return out, nil
}

// Split cuts b at the given rows into len(splits)+1 views without copying:
// [0, s0), [s0, s1), ..., [sN-1, rows). Splits outside [0, rows] give
// ErrOutOfRange and decreasing splits ErrInvalidArgument (*SplitError).
func Split(b *DeviceBatch, splits []int) ([]*DeviceBatch, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	ranges, err := SplitRanges(b.Len, splits)
	if err != nil {
		return nil, err
	}
	out := make([]*DeviceBatch, len(ranges))
	for i, r := range ranges {
		if out[i], err = Slice(b, r[0], r[1]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PackedBatch is a batch in one contiguous device buffer plus its host
// metadata (libcudf's packed_columns / packed_table).
type PackedBatch struct {
	*DeviceBatch
	Layout PackLayout
}

// Metadata is the serialised layout, for Unpack and UnpackHost.
func (p *PackedBatch) Metadata() []byte {
	m, _ := p.Layout.MarshalBinary()
	return m
}

// Data is the address of the contiguous buffer (0 when it is empty).
func (p *PackedBatch) Data() DevicePtr {
	if len(p.bufs) == 0 {
		return 0
	}
	return p.bufs[0].ptr
}

// Size is the contiguous buffer's length in bytes.
func (p *PackedBatch) Size() int64 { return p.Layout.Size }

// viewsOf builds the column views of layout l over a buffer at base.
func viewsOf(l PackLayout, base DevicePtr) []DeviceVec {
	cols := make([]DeviceVec, len(l.Cols))
	at := func(r Region) DevicePtr {
		if !r.Present() {
			return 0
		}
		return base + DevicePtr(r.Off)
	}
	for i, c := range l.Cols {
		cols[i] = DeviceVec{Type: c.Type, Len: c.Len, Nulls: at(c.Nulls), Offsets: at(c.Offsets), Data: at(c.Data)}
		if c.Type == coldata.String && c.Data.Present() {
			cols[i].Chars = c.Data.Size
		}
	}
	return cols
}

// Unpack rebuilds views over packed device data from its metadata; it
// allocates no device memory and owns none: the views must not outlive
// data. Corrupt metadata gives an error wrapping ErrInvalidArgument.
func Unpack(meta []byte, data DevicePtr) (*DeviceBatch, error) {
	l, err := UnmarshalPackLayout(meta)
	if err != nil {
		return nil, err
	}
	if data == 0 && l.Size > 0 {
		return nil, invalidf("unpack: nil data for %d bytes", l.Size)
	}
	return &DeviceBatch{Cols: viewsOf(l, data), Len: l.Rows, layout: &l}, nil
}

// allocSize is the device allocation for layout l: at least Alignment bytes
// when there are columns, so that even empty regions have non-zero
// addresses (a zero Nulls pointer means "no bitmap").
func allocSize(l PackLayout) uint64 {
	if len(l.Cols) > 0 && l.Size < Alignment {
		return Alignment
	}
	return uint64(l.Size)
}

func (d *Device) packedBatch(l PackLayout, buf *Buffer) *PackedBatch {
	b := &DeviceBatch{Cols: viewsOf(l, buf.ptr), Len: l.Rows, d: d, bufs: []*Buffer{buf}}
	lc := l
	b.layout = &lc
	return &PackedBatch{DeviceBatch: b, Layout: l}
}

func (d *Device) own(b *DeviceBatch) error {
	if err := b.check(); err != nil {
		return err
	}
	if b.d != nil && b.d.deviceState != d.deviceState {
		return invalidf("batch belongs to another device")
	}
	return nil
}

// Upload copies a host batch to the device: the whole batch is packed into
// one page-locked staging buffer and sent with one host-to-device copy.
// Constant vectors are materialised; string offsets are rebased to 0.
func (d *Device) Upload(ctx context.Context, hb *coldata.Batch) (*DeviceBatch, error) {
	if hb == nil {
		return nil, invalidf("nil batch")
	}
	return d.UploadBatches(ctx, []*coldata.Batch{hb})
}

// UploadBatches copies host batches with the same columns to the device as
// one device batch, their rows in order, as Upload does one: each part is
// packed straight into the staging buffer (by several goroutines), with no
// host copy of their concatenation.
func (d *Device) UploadBatches(ctx context.Context, hbs []*coldata.Batch) (*DeviceBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	parts, specs, err := hostParts(hbs)
	if err != nil {
		return nil, err
	}
	rows := 0
	for _, hb := range hbs {
		rows += hb.Len
	}
	l, err := NewPackLayout(rows, specs)
	if err != nil {
		return nil, err
	}
	var out *PackedBatch
	err = d.Do(func() error {
		buf, err := d.allocOn(allocSize(l))
		if err != nil {
			return err
		}
		if l.Size > 0 {
			stage, err := d.stagingOn(int(l.Size))
			if err == nil && stage != nil {
				err = d.packAndSendOn(l, parts, stage, buf.ptr)
			} else if err == nil {
				err = d.uploadByColumnOn(l, parts, buf.ptr)
			}
			if err != nil {
				d.alloc.Free(uint64(buf.ptr))
				return fmt.Errorf("gpu: upload of %d bytes: %w", l.Size, err)
			}
		}
		out = d.packedBatch(l, buf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.DeviceBatch, nil
}

// uploadPiece is about the bytes of one host-to-device copy of a staged
// pack: each piece goes while the next is packed, so that the DMA runs
// beside the host copy instead of after all of it (a streamed scan of a
// table the capped pool cannot keep resident uploads one chunk after
// another: TPC-H Q1 at SF10 under 8 GiB moved 4.9 GB at 7 GB/s with the
// two in turn). A variable so that tests can compare the two.
var uploadPiece int64 = 16 << 20

// packAndSendOn packs the layout's columns into stage (page-locked, the
// layout's size) in pieces of whole columns of about uploadPiece bytes,
// starting each piece's copy to dst as soon as it is packed, and waits
// for the copies. Context thread only.
func (d *Device) packAndSendOn(l PackLayout, parts []hostPart, stage []byte, dst DevicePtr) error {
	var sent int64
	c0 := 0
	for c := range l.Cols {
		_, hi := columnSpan(l.Cols[c])
		last := c == len(l.Cols)-1
		if !last && hi-sent < uploadPiece {
			continue
		}
		if last {
			hi = l.Size
		}
		packColumns(l, parts, stage, 0, c0, c+1)
		if hi > sent {
			if err := d.drv.h2d(dst+DevicePtr(sent), stage[sent:hi], d.stream.h); err != nil {
				// Copies already started read stage: they end before it is reused.
				_ = d.drv.syncStream(d.stream.h)
				return err
			}
		}
		c0, sent = c+1, max(sent, hi)
	}
	d.toDevice.Add(uint64(l.Size))
	return d.drv.syncStream(d.stream.h)
}

// uploadByColumnOn sends a pack larger than the staging buffer one
// column at a time through it (a column's regions are contiguous), instead
// of packing the whole batch into pageable memory first: a 100M-row table
// made GBs of garbage per upload that way. A column larger than the
// staging limit itself still goes through Go memory. Context thread only.
func (d *Device) uploadByColumnOn(l PackLayout, parts []hostPart, dst DevicePtr) error {
	for c, cl := range l.Cols {
		lo, hi := columnSpan(cl)
		if hi == lo {
			continue
		}
		stage, err := d.stagingOn(int(hi - lo))
		if err != nil {
			return err
		}
		if stage == nil {
			stage = make([]byte, hi-lo)
		}
		packColumns(l, parts, stage, lo, c, c+1)
		if err := d.drv.h2d(dst+DevicePtr(lo), stage, d.stream.h); err != nil {
			return err
		}
		d.toDevice.Add(uint64(hi - lo))
		if err := d.drv.syncStream(d.stream.h); err != nil {
			return err
		}
	}
	return nil
}

// Download copies a device batch to the host with one device-to-host copy
// (a batch that is not packed is packed on the device first). The host
// vectors share one Go allocation.
func (d *Device) Download(ctx context.Context, b *DeviceBatch) (*coldata.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := d.own(b); err != nil {
		return nil, err
	}
	var out *coldata.Batch
	err := d.Do(func() error {
		src := b
		var l PackLayout
		if b.layout != nil {
			l = *b.layout
		} else {
			p, err := d.packOn(b)
			if err != nil {
				return err
			}
			defer p.Release()
			src, l = p.DeviceBatch, p.Layout
		}
		host := make([]byte, l.Size)
		if l.Size > 0 {
			if err := d.copyOutOn(host, viewBase(src, l)); err != nil {
				return fmt.Errorf("gpu: download of %d bytes: %w", l.Size, err)
			}
		}
		var err error
		out, err = unpackHostLayout(l, host, false)
		return err
	})
	return out, err
}

// minPieceRows bounds DownloadInPieces' halving: below it a batch comes
// down whole or not at all.
const minPieceRows = 1 << 12

// DownloadInPieces is Download for the out-of-memory paths of the
// operators, which download what they could not process on a full device:
// a batch that is not packed is packed on the device first, a second copy
// of its bytes, and when that copy finds no room (a capped pool, or one
// too fragmented for one large block) the batch comes down in halves,
// halves of halves down to minPieceRows rows, joined on the host.
func (d *Device) DownloadInPieces(ctx context.Context, b *DeviceBatch) (*coldata.Batch, error) {
	hb, err := d.Download(ctx, b)
	if err == nil || !IsOutOfMemory(err) || b.Len < 2*minPieceRows {
		return hb, err
	}
	mid := b.Len / 2
	var parts []*coldata.Batch
	defer func() {
		for _, p := range parts {
			p.ReleaseOwner()
		}
	}()
	for _, r := range [][2]int{{0, mid}, {mid, b.Len}} {
		half, err := Slice(b, r[0], r[1])
		if err != nil {
			return nil, err
		}
		p, err := d.DownloadInPieces(ctx, half)
		half.Release()
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return coldata.ConcatCheck(parts, len(b.Cols), ctx.Err)
}

// downloadChunk is the piece size of pipelined downloads: two pieces of
// page-locked staging take turns, one filling by DMA while the other is
// copied into Go memory on all cores. The host copy (page faults of fresh
// memory included) is the slow side, so the DMA hides behind it.
var downloadChunk = 32 << 20 // a variable so that tests can force many pieces

// copyOutOn copies len(host) bytes from src into host through the pinned
// staging buffer, overlapping the device-to-host copy of one piece with the
// host copy of the previous one. Runs on the context thread.
func (d *Device) copyOutOn(host []byte, src DevicePtr) error {
	n := len(host)
	chunk := min(n, downloadChunk)
	stage, err := d.stagingOn(2 * chunk)
	if err != nil {
		return err
	}
	if stage == nil { // staging limit below two pieces: pageable copy
		if err := d.drv.d2h(host, src, d.stream.h); err != nil {
			return err
		}
		if err := d.drv.syncStream(d.stream.h); err != nil {
			return err
		}
		d.toHost.Add(uint64(n))
		return nil
	}
	pieces := [2][]byte{stage[:chunk], stage[chunk : 2*chunk]}
	if err := d.drv.d2h(pieces[0][:chunk], src, d.stream.h); err != nil {
		return err
	}
	for off, i := 0, 0; off < n; i++ {
		size := min(chunk, n-off)
		if err := d.drv.syncStream(d.stream.h); err != nil { // piece i landed
			return err
		}
		if next := off + size; next < n {
			m := min(chunk, n-next)
			if err := d.drv.d2h(pieces[(i+1)%2][:m], src+DevicePtr(next), d.stream.h); err != nil {
				return err
			}
		}
		parallelCopy(host[off:off+size], pieces[i%2][:size])
		d.toHost.Add(uint64(size))
		off += size
	}
	return nil
}

// viewBase is the device address of a packed batch's buffer start.
func viewBase(b *DeviceBatch, l PackLayout) DevicePtr {
	for i, c := range l.Cols {
		v := b.Cols[i]
		switch {
		case c.Nulls.Present():
			return v.Nulls - DevicePtr(c.Nulls.Off)
		case c.Offsets.Present():
			return v.Offsets - DevicePtr(c.Offsets.Off)
		case c.Data.Present():
			return v.Data - DevicePtr(c.Data.Off)
		}
	}
	if len(b.bufs) > 0 {
		return b.bufs[0].ptr
	}
	return 0
}

// Pack copies b into one contiguous device buffer with normalized
// sub-buffers (256-byte aligned, bitmaps at bit 0, offsets from 0). A batch
// that is already packed is shared, not copied.
func (d *Device) Pack(b *DeviceBatch) (*PackedBatch, error) {
	if err := d.own(b); err != nil {
		return nil, err
	}
	var p *PackedBatch
	err := d.Do(func() (err error) {
		p, err = d.packOn(b)
		return err
	})
	return p, err
}

func (d *Device) packOn(b *DeviceBatch) (*PackedBatch, error) {
	if b.layout != nil {
		r, err := b.Retain()
		if err != nil {
			return nil, err
		}
		return &PackedBatch{DeviceBatch: r, Layout: *b.layout}, nil
	}
	ps, err := d.contiguousSplitOn(b, nil)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// ContiguousSplit splits b like Split, but deep-copies each range into its
// own contiguous buffer (libcudf's contiguous_split): bitmaps shifted to bit
// 0, string offsets rebased to 0.
func (d *Device) ContiguousSplit(b *DeviceBatch, splits []int) ([]*PackedBatch, error) {
	if err := d.own(b); err != nil {
		return nil, err
	}
	if err := ValidateSplits(b.Len, splits); err != nil {
		return nil, err
	}
	var out []*PackedBatch
	err := d.Do(func() (err error) {
		out, err = d.contiguousSplitOn(b, splits)
		return err
	})
	return out, err
}

// readOffsetsOn reads the int32 at each device address with one gather
// kernel and one small copy back. Context thread only.
func (d *Device) readOffsetsOn(addrs []DevicePtr) ([]int32, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	n := len(addrs)
	scratch, err := d.allocOn(uint64(8*n + 4*n))
	if err != nil {
		return nil, err
	}
	// Through the buffer, so that the database's bytes in use go back
	// too: the pool's Free alone left 512 bytes counted for every packed
	// download of a batch with text (streamed chunks are views, packed
	// on the way out).
	defer scratch.Release()
	a := make([]uint64, n)
	for i, p := range addrs {
		a[i] = uint64(p)
	}
	out := make([]int32, n)
	s := d.stream.h
	outPtr := scratch.ptr + DevicePtr(8*n)
	if err := d.drv.h2d(scratch.ptr, unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*n), s); err != nil {
		return nil, err
	}
	if err := d.launch1D("gsql_gather_i32", int64(n), uint64(outPtr), uint64(scratch.ptr), uint64(n)); err != nil {
		return nil, err
	}
	if err := d.drv.d2h(bytesOf(out), outPtr, s); err != nil {
		return nil, err
	}
	if err := d.drv.syncStream(s); err != nil {
		return nil, fmt.Errorf("gpu: reading string offsets: %w", err)
	}
	return out, nil
}

// stringBounds reads, for every String column of b, the offsets at the
// given rows: bounds[col][k] = offsets[rows[k]].
func (d *Device) stringBounds(b *DeviceBatch, rows []int) (map[int][]int32, error) {
	var addrs []DevicePtr
	var strCols []int
	for i, c := range b.Cols {
		if c.Type != coldata.String {
			continue
		}
		strCols = append(strCols, i)
		for _, r := range rows {
			addrs = append(addrs, c.Offsets+DevicePtr(4*r))
		}
	}
	vals, err := d.readOffsetsOn(addrs)
	if err != nil {
		return nil, err
	}
	out := make(map[int][]int32, len(strCols))
	for k, i := range strCols {
		out[i] = vals[k*len(rows) : (k+1)*len(rows)]
	}
	return out, nil
}

// copyColumnOn enqueues copying rows [lo, lo+n) of src into the column at
// dst (a normalized layout), writing the bitmap from bit dstRow and the
// offsets from entry dstRow with charsAt added. base is src's offset at lo.
func (d *Device) copyColumnOn(dst ColumnLayout, dstBase DevicePtr, dstRow int, charsAt int64, src DeviceVec, lo, n int, base int32, chars int64) error {
	s := d.stream.h
	if dst.Nulls.Present() && n > 0 {
		var srcBits DevicePtr
		if src.Nulls != 0 {
			srcBits = src.Nulls
		}
		if err := d.launch1D("gsql_copy_bits", int64(n+7)/8+1,
			uint64(dstBase)+uint64(dst.Nulls.Off), uint64(dstRow),
			uint64(srcBits), uint64(src.NullOffset+lo), uint64(n)); err != nil {
			return err
		}
	}
	switch src.Type.Physical() {
	case coldata.Bool, coldata.Int64, coldata.Float64, coldata.Decimal:
		w := elemSize(src.Type)
		if n > 0 {
			return d.drv.d2d(dstBase+DevicePtr(dst.Data.Off+int64(dstRow)*w), src.Data+DevicePtr(int64(lo)*w), uint64(int64(n)*w), s)
		}
	case coldata.String:
		delta := charsAt - int64(base)
		if err := d.launch1D("gsql_rebase_offsets", int64(n+1),
			uint64(dstBase)+uint64(dst.Offsets.Off)+uint64(4*dstRow), uint64(src.Offsets)+uint64(4*lo),
			uint64(n+1), uint64(delta)); err != nil {
			return err
		}
		if chars > 0 {
			return d.drv.d2d(dstBase+DevicePtr(dst.Data.Off+charsAt), src.Data+DevicePtr(base), uint64(chars), s)
		}
	}
	return nil
}

func (d *Device) contiguousSplitOn(b *DeviceBatch, splits []int) ([]*PackedBatch, error) {
	ranges, err := SplitRanges(b.Len, splits)
	if err != nil {
		return nil, err
	}
	rows := make([]int, 0, len(ranges)+1)
	for _, r := range ranges {
		rows = append(rows, r[0])
	}
	rows = append(rows, b.Len)
	bounds, err := d.stringBounds(b, rows)
	if err != nil {
		return nil, err
	}
	out := make([]*PackedBatch, 0, len(ranges))
	fail := func(err error) ([]*PackedBatch, error) {
		for _, p := range out {
			p.Release()
		}
		return nil, err
	}
	for k, r := range ranges {
		lo, n := r[0], r[1]-r[0]
		specs := make([]ColumnSpec, len(b.Cols))
		for i, c := range b.Cols {
			specs[i] = ColumnSpec{Type: c.Type, HasNulls: c.HasNulls()}
			if bs, ok := bounds[i]; ok {
				specs[i].Chars = int64(bs[k+1]) - int64(bs[k])
				if specs[i].Chars < 0 {
					return fail(invalidf("column %d: string offsets decrease between rows %d and %d", i, r[0], r[1]))
				}
			}
		}
		l, err := NewPackLayout(n, specs)
		if err != nil {
			return fail(err)
		}
		buf, err := d.allocOn(allocSize(l))
		if err != nil {
			return fail(err)
		}
		p := d.packedBatch(l, buf)
		out = append(out, p)
		for i, c := range b.Cols {
			var base int32
			if bs, ok := bounds[i]; ok {
				base = bs[k]
			}
			if err := d.copyColumnOn(l.Cols[i], buf.ptr, 0, 0, c, lo, n, base, specs[i].Chars); err != nil {
				return fail(err)
			}
		}
	}
	return out, nil
}

// Concatenate joins batches with the same column types into one new packed
// batch: data copied, string offsets rebased, validity bitmaps merged (a
// batch without NULLs contributes set bits). The inputs are left as they
// are.
func (d *Device) Concatenate(bs []*DeviceBatch) (*DeviceBatch, error) {
	if len(bs) == 0 {
		return nil, invalidf("concatenate: no batches")
	}
	for i, b := range bs {
		if err := d.own(b); err != nil {
			return nil, fmt.Errorf("concatenate: batch %d: %w", i, err)
		}
		if len(b.Cols) != len(bs[0].Cols) {
			return nil, invalidf("concatenate: batch %d has %d columns, batch 0 has %d", i, len(b.Cols), len(bs[0].Cols))
		}
		for c := range b.Cols {
			if b.Cols[c].Type != bs[0].Cols[c].Type {
				return nil, invalidf("concatenate: batch %d column %d is %v, batch 0 has %v", i, c, b.Cols[c].Type, bs[0].Cols[c].Type)
			}
		}
	}
	var out *DeviceBatch
	err := d.Do(func() error {
		p, err := d.concatenateOn(bs)
		if err == nil {
			out = p.DeviceBatch
		}
		return err
	})
	return out, err
}

func (d *Device) concatenateOn(bs []*DeviceBatch) (*PackedBatch, error) {
	ncols := len(bs[0].Cols)
	total := 0
	for _, b := range bs {
		total += b.Len
		if total > math.MaxInt32 {
			return nil, invalidf("concatenate: more than %d rows", math.MaxInt32)
		}
	}
	bounds := make([]map[int][]int32, len(bs))
	for i, b := range bs {
		var err error
		if bounds[i], err = d.stringBounds(b, []int{0, b.Len}); err != nil {
			return nil, err
		}
	}
	specs := make([]ColumnSpec, ncols)
	for c := 0; c < ncols; c++ {
		specs[c].Type = bs[0].Cols[c].Type
		for i, b := range bs {
			if b.Cols[c].HasNulls() {
				specs[c].HasNulls = true
			}
			if bb, ok := bounds[i][c]; ok {
				specs[c].Chars += int64(bb[1]) - int64(bb[0])
			}
		}
	}
	l, err := NewPackLayout(total, specs)
	if err != nil {
		return nil, fmt.Errorf("concatenate: %w", err)
	}
	buf, err := d.allocOn(allocSize(l))
	if err != nil {
		return nil, err
	}
	p := d.packedBatch(l, buf)
	for c := 0; c < ncols; c++ {
		cl := l.Cols[c]
		if cl.Offsets.Present() && total == 0 {
			if err := d.drv.memset8(buf.ptr+DevicePtr(cl.Offsets.Off), 0, 4, d.stream.h); err != nil {
				p.Release()
				return nil, err
			}
		}
		row, chars := 0, int64(0)
		for i, b := range bs {
			if b.Len == 0 {
				continue
			}
			var base int32
			var n int64
			if bb, ok := bounds[i][c]; ok {
				base, n = bb[0], int64(bb[1])-int64(bb[0])
			}
			if err := d.copyColumnOn(cl, buf.ptr, row, chars, b.Cols[c], 0, b.Len, base, n); err != nil {
				p.Release()
				return nil, err
			}
			row += b.Len
			chars += n
		}
	}
	return p, nil
}
