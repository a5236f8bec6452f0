package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

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
		r := lz4.NewReader(bytes.NewReader(frame))
		if _, err := io.ReadFull(r, out); err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown compression codec %d", codec)
	}
	return out, nil
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

// decompressColumns replaces every buffer of raw (raw[column][buffer], nil
// for an empty one) by its decompressed bytes, a column per core.
func decompressColumns(codec int64, fields []arrow.Field, raw [][][]byte, rows int64) error {
	errs := make([]error, len(fields))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(fields)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(fields); i = int(next.Add(1) - 1) {
				for j, b := range raw[i] {
					if b == nil {
						continue
					}
					var offsets []byte
					if j == 2 {
						offsets = raw[i][1]
					}
					out, err := decompressBuffer(codec, b, bufferLimit(fields[i].Type, j, rows, offsets))
					if err != nil {
						errs[i] = fmt.Errorf("column %q: buffer %d: %w", fields[i].Name, j, err)
						break
					}
					raw[i][j] = out
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
