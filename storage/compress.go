package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Codec is how a database compresses the bodies of the segments it
// writes: Arrow IPC body compression, buffer by buffer, which any Arrow
// reader understands. Segments of every codec read back: a database
// written uncompressed opens unchanged, and one database may hold
// segments of several codecs.
type Codec string

const (
	// CodecNone writes buffers as they are: a scan reads them from the
	// memory map without a copy.
	CodecNone Codec = "none"
	// CodecLZ4 writes LZ4 frames: fast to decompress, a smaller ratio.
	CodecLZ4 Codec = "lz4"
	// CodecZstd writes Zstandard frames: a higher ratio, slower to
	// decompress.
	CodecZstd Codec = "zstd"
)

// ParseCodec reads a codec name ("" is CodecNone).
func ParseCodec(s string) (Codec, error) {
	switch Codec(s) {
	case "", CodecNone:
		return CodecNone, nil
	case CodecLZ4, CodecZstd:
		return Codec(s), nil
	}
	return "", fmt.Errorf("unknown compression %q (none, lz4 or zstd)", s)
}

// writerOptions are the IPC writer's options for c.
func (c Codec) writerOptions() []ipc.Option {
	switch c {
	case CodecLZ4:
		return []ipc.Option{ipc.WithLZ4()}
	case CodecZstd:
		return []ipc.Option{ipc.WithZstd()}
	}
	return nil
}

// Arrow's CompressionType values in a record batch's BodyCompression.
const (
	arrowLZ4Frame = 0
	arrowZstd     = 1
)

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
})

// decompressBuffer returns one buffer of a compressed record batch: an
// int64 of its length uncompressed (-1: stored as it is), then the
// codec's frame. A stored buffer is a slice of buf, not a copy. A length
// over limit (what the column's rows can need) is damage, refused before
// anything is allocated.
func decompressBuffer(codec int64, buf []byte, limit int64) ([]byte, error) {
	if len(buf) < 8 {
		return nil, fmt.Errorf("compressed buffer of %d bytes has no length", len(buf))
	}
	n := int64(binary.LittleEndian.Uint64(buf))
	frame := buf[8:]
	if n == -1 {
		return frame, nil
	}
	if n < 0 || n > limit {
		return nil, fmt.Errorf("compressed buffer claims %d bytes, its rows need at most %d", n, limit)
	}
	out := make([]byte, n)
	switch codec {
	case arrowZstd:
		dec, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		got, err := dec.DecodeAll(frame, out[:0])
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if int64(len(got)) != n || (n > 0 && &got[0] != &out[0]) {
			return nil, fmt.Errorf("zstd: %d bytes, the buffer says %d", len(got), n)
		}
	case arrowLZ4Frame:
		if err := lz4Frame(out, frame); err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown compression codec %d", codec)
	}
	return out, nil
}

// LZ4 frame format constants (lz4 frame format specification 1.6).
const (
	lz4Magic         = 0x184D2204
	lz4FlagVersion   = 0xC0 // two bits, must read 01
	lz4FlagIndep     = 0x20 // blocks are independent
	lz4FlagBlockSum  = 0x10 // a checksum follows each block
	lz4FlagSize      = 0x08 // the header holds the content size
	lz4FlagSum       = 0x04 // a content checksum follows the end mark
	lz4FlagDictID    = 0x01 // the header names a dictionary
	lz4BlockRawBit   = 1 << 31
	lz4MaxBlockBytes = 4 << 20
)

// lz4Frame decompresses one LZ4 frame into out, which must be exactly the
// frame's content length. The blocks are decoded straight into out with
// lz4.UncompressBlock: the library's frame reader decodes each block into
// a buffer of its own and copies it out, which halved the rate (1.36 GB/s
// against about 3 on TPC-H columns, see BenchmarkDecompress). Checksums
// inside the frame are skipped, not verified: Arrow's writer writes none,
// and gsql checks each column's compressed bytes against the CRC32 its
// manifest keeps before decoding them. A frame this does not handle
// (dependent blocks, a dictionary) goes through the frame reader.
func lz4Frame(out, src []byte) error {
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != lz4Magic {
		return errors.New("not an LZ4 frame (bad magic)")
	}
	flg := src[4]
	if flg&lz4FlagVersion != 0x40 {
		return fmt.Errorf("LZ4 frame version bits %#x", flg>>6)
	}
	if flg&lz4FlagIndep == 0 || flg&lz4FlagDictID != 0 {
		return lz4FrameReader(out, src)
	}
	p := 6 // magic, FLG, BD
	if flg&lz4FlagSize != 0 {
		if len(src) < p+8 {
			return errors.New("LZ4 frame header cut short")
		}
		if n := binary.LittleEndian.Uint64(src[p:]); n != uint64(len(out)) {
			return fmt.Errorf("LZ4 frame holds %d bytes, the buffer says %d", n, len(out))
		}
		p += 8
	}
	p++ // header checksum
	pos := 0
	for {
		if len(src) < p+4 {
			return errors.New("LZ4 frame cut short (no end mark)")
		}
		size := binary.LittleEndian.Uint32(src[p:])
		p += 4
		if size == 0 {
			break
		}
		raw := size&lz4BlockRawBit != 0
		size &^= lz4BlockRawBit
		if size > lz4MaxBlockBytes || int(size) > len(src)-p {
			return fmt.Errorf("LZ4 block of %d bytes at %d outside the frame of %d", size, p, len(src))
		}
		block := src[p : p+int(size)]
		p += int(size)
		if flg&lz4FlagBlockSum != 0 {
			p += 4
		}
		if raw {
			if len(block) > len(out)-pos {
				return fmt.Errorf("LZ4 frame holds more than the buffer's %d bytes", len(out))
			}
			pos += copy(out[pos:], block)
			continue
		}
		n, err := lz4.UncompressBlock(block, out[pos:])
		if err != nil {
			return fmt.Errorf("block at %d: %w", p-int(size), err)
		}
		pos += n
	}
	if flg&lz4FlagSum != 0 {
		p += 4
	}
	if p > len(src) {
		return errors.New("LZ4 frame cut short (no content checksum)")
	}
	if pos != len(out) {
		return fmt.Errorf("LZ4 frame holds %d bytes, the buffer says %d", pos, len(out))
	}
	return nil
}

// lz4FrameReader decompresses an LZ4 frame with the library's reader.
func lz4FrameReader(out, src []byte) error {
	r := lz4.NewReader(bytes.NewReader(src))
	if _, err := io.ReadFull(r, out); err != nil {
		return err
	}
	// The frame must end where out does.
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		return fmt.Errorf("LZ4 frame holds more than the buffer's %d bytes", len(out))
	}
	return nil
}

// uncompressedLen is the length of a compressed buffer once decompressed,
// read from its header (0 for a damaged one).
func uncompressedLen(buf []byte) int64 {
	if len(buf) < 8 {
		return 0
	}
	switch n := int64(binary.LittleEndian.Uint64(buf)); {
	case n == -1:
		return int64(len(buf) - 8)
	case n >= 0:
		return n
	}
	return 0
}

// bufferLimit is the most bytes buffer j of a column of type dt with rows
// rows can hold uncompressed: what the rows need, with room for the
// writer's padding. A string column's bytes are bounded by its last
// offset, read from offsets, the column's decompressed offsets buffer.
func bufferLimit(dt arrow.DataType, j int, rows int64, offsets []byte) int64 {
	const pad = 64
	round := func(n int64) int64 { return (n+pad-1)/pad*pad + pad }
	if j == 0 {
		return round((rows + 7) / 8)
	}
	switch t := dt.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		if j == 1 {
			return round(4 * (rows + 1))
		}
		if int64(len(offsets)) < 4*(rows+1) {
			return 0
		}
		return round(int64(int32(binary.LittleEndian.Uint32(offsets[4*rows:]))))
	case arrow.FixedWidthDataType:
		return round((int64(t.BitWidth())*rows + 7) / 8)
	}
	return 0
}
