package gpuexec

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// packOp is one region of a pack: where it goes in the packed buffer and
// how its bytes are produced from the source column.
type packOp struct {
	kind   byte // 'b' bitmap, 'c' plain copy, 'o' offsets rebase
	dst    Region
	src    DevicePtr
	srcBit int64 // bitmap: bit of src holding row 0
	rows   int64 // bitmap: bits
	delta  int64 // offsets: value added
}

// ChunkedPacker streams the packed form of a batch through a fixed device
// bounce buffer, chunk by chunk (libcudf's chunked_pack): call Next while
// HasNext, and copy each chunk out before the next call. Bytes between
// sub-buffers (alignment padding) are unspecified.
type ChunkedPacker struct {
	d      *Device
	b      *DeviceBatch
	layout PackLayout
	bounce *Buffer
	chunk  int64
	pos    int64
	ops    []packOp
}

// NewChunkedPacker prepares to pack b through bounce, which must hold at
// least MinBounceSize bytes (else ErrInvalidArgument). It reads the string
// columns' offset bounds from the device once.
func (d *Device) NewChunkedPacker(b *DeviceBatch, bounce *Buffer) (*ChunkedPacker, error) {
	if err := d.own(b); err != nil {
		return nil, err
	}
	if bounce == nil || bounce.size < MinBounceSize {
		size := uint64(0)
		if bounce != nil {
			size = bounce.size
		}
		return nil, invalidf("chunked pack: bounce buffer of %d bytes, need at least %d", size, MinBounceSize)
	}
	p := &ChunkedPacker{d: d, b: b, bounce: bounce, chunk: int64(bounce.size) &^ (Alignment - 1)}
	err := d.Do(func() error {
		bounds, err := d.stringBounds(b, []int{0, b.Len})
		if err != nil {
			return err
		}
		specs := make([]ColumnSpec, len(b.Cols))
		for i, c := range b.Cols {
			specs[i] = ColumnSpec{Type: c.Type, HasNulls: c.HasNulls()}
			if bb, ok := bounds[i]; ok {
				specs[i].Chars = int64(bb[1]) - int64(bb[0])
			}
		}
		if p.layout, err = NewPackLayout(b.Len, specs); err != nil {
			return err
		}
		for i, c := range b.Cols {
			cl := p.layout.Cols[i]
			if cl.Nulls.Present() {
				p.ops = append(p.ops, packOp{kind: 'b', dst: cl.Nulls, src: c.Nulls, srcBit: int64(c.NullOffset), rows: int64(c.Len)})
			}
			switch c.Type.Physical() {
			case coldata.Bool, coldata.Int64, coldata.Float64, coldata.Decimal:
				p.ops = append(p.ops, packOp{kind: 'c', dst: cl.Data, src: c.Data})
			case coldata.String:
				base := bounds[i][0]
				p.ops = append(p.ops, packOp{kind: 'o', dst: cl.Offsets, src: c.Offsets, delta: -int64(base)})
				p.ops = append(p.ops, packOp{kind: 'c', dst: cl.Data, src: c.Data + DevicePtr(base)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// TotalSize is the size of the whole packed batch.
func (p *ChunkedPacker) TotalSize() int64 { return p.layout.Size }

// Layout is the packed batch's layout.
func (p *ChunkedPacker) Layout() PackLayout { return p.layout }

// Metadata is the serialised layout, for UnpackHost or Unpack.
func (p *ChunkedPacker) Metadata() []byte {
	m, _ := p.layout.MarshalBinary()
	return m
}

// HasNext reports whether chunks remain.
func (p *ChunkedPacker) HasNext() bool { return p.pos < p.layout.Size }

// Next writes the next chunk into the bounce buffer (on the device's
// default stream) and returns its length. Calling it when HasNext is false
// returns ErrInvalidArgument.
func (p *ChunkedPacker) Next() (int64, error) {
	if !p.HasNext() {
		return 0, invalidf("chunked pack: no chunks left")
	}
	if err := p.b.check(); err != nil {
		return 0, err
	}
	var n int64
	err := p.d.Do(func() (err error) {
		n, err = p.nextOn()
		return err
	})
	return n, err
}

func (p *ChunkedPacker) nextOn() (int64, error) {
	d := p.d
	lo := p.pos
	hi := min(lo+p.chunk, p.layout.Size)
	for _, op := range p.ops {
		a, e := max(lo, op.dst.Off), min(hi, op.dst.Off+op.dst.Size)
		if a >= e {
			continue
		}
		rel := a - op.dst.Off
		dst := p.bounce.ptr + DevicePtr(a-lo)
		var err error
		switch op.kind {
		case 'c':
			err = d.drv.d2d(dst, op.src+DevicePtr(rel), uint64(e-a), d.stream.h)
		case 'o':
			cnt := (e - a) / 4
			err = d.launch1D("gsql_rebase_offsets", cnt, uint64(dst), uint64(op.src)+uint64(rel), uint64(cnt), uint64(op.delta))
		case 'b':
			bits := min(8*(e-a), op.rows-8*rel)
			var src uint64
			if op.src != 0 {
				src = uint64(op.src)
			}
			err = d.launch1D("gsql_copy_bits", e-a, uint64(dst), 0, src, uint64(op.srcBit+8*rel), uint64(bits))
		}
		if err != nil {
			return 0, fmt.Errorf("gpu: chunked pack at byte %d: %w", a, err)
		}
	}
	p.pos = hi
	return hi - lo, nil
}

// ChunkedPack streams b's packed form to the host through a device bounce
// buffer of bounceSize bytes (at least MinBounceSize) and a page-locked host
// buffer of the same size, handing each chunk to sink in order; the slice
// is reused after sink returns. It returns the pack metadata, with which
// UnpackHost rebuilds the batch from the concatenated chunks.
func (d *Device) ChunkedPack(ctx context.Context, b *DeviceBatch, bounceSize int, sink func(chunk []byte) error) ([]byte, error) {
	if bounceSize < MinBounceSize {
		return nil, invalidf("chunked pack: bounce buffer of %d bytes, need at least %d", bounceSize, MinBounceSize)
	}
	if err := d.own(b); err != nil {
		return nil, err
	}
	bounce, err := d.Alloc(uint64(bounceSize))
	if err != nil {
		return nil, err
	}
	defer bounce.Release()
	p, err := d.NewChunkedPacker(b, bounce)
	if err != nil {
		return nil, err
	}
	var host []byte
	if err := d.Do(func() (err error) { host, err = d.drv.hostAlloc(bounceSize); return err }); err != nil {
		return nil, err
	}
	defer d.Do(func() error { return d.drv.hostFree(host) })
	for p.HasNext() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var n int64
		err := d.Do(func() (err error) {
			if n, err = p.nextOn(); err != nil {
				return err
			}
			if err = d.drv.d2h(host[:n], bounce.ptr, d.stream.h); err != nil {
				return err
			}
			d.toHost.Add(uint64(n))
			return d.drv.syncStream(d.stream.h)
		})
		if err != nil {
			return nil, err
		}
		if err := sink(host[:n]); err != nil {
			return nil, err
		}
	}
	return p.Metadata(), nil
}
