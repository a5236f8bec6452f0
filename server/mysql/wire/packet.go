package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxPayload is the largest payload one packet carries; a longer one is
// split into packets of this size followed by a shorter (maybe empty) one.
const maxPayload = 1<<24 - 1

// ErrPacketTooLarge is a client packet longer than the server's limit.
var ErrPacketTooLarge = errors.New("mysql: packet too large")

// ErrSequence is a packet whose sequence id is not the expected one.
var ErrSequence = errors.New("mysql: packet out of order")

// packetReader reads logical packets (joining 16 MiB splits) and checks
// sequence ids.
type packetReader struct {
	r     *bufio.Reader
	seq   *uint8 // shared with the writer: one sequence per command
	limit int    // largest logical payload accepted
	hdr   [4]byte
}

// readPacket returns the next logical payload. It fails with
// ErrPacketTooLarge before reading a payload past the limit, so a client
// cannot make the server allocate more than limit bytes.
func (p *packetReader) readPacket() ([]byte, error) {
	var out []byte
	for {
		if _, err := io.ReadFull(p.r, p.hdr[:]); err != nil {
			return nil, err
		}
		n := int(p.hdr[0]) | int(p.hdr[1])<<8 | int(p.hdr[2])<<16
		if p.hdr[3] != *p.seq {
			return nil, fmt.Errorf("%w: sequence id %d, want %d", ErrSequence, p.hdr[3], *p.seq)
		}
		*p.seq++
		if len(out)+n > p.limit {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrPacketTooLarge, p.limit)
		}
		start := len(out)
		out = append(out, make([]byte, n)...)
		if _, err := io.ReadFull(p.r, out[start:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if n < maxPayload {
			if out == nil {
				out = []byte{}
			}
			return out, nil
		}
	}
}

// packetWriter frames payloads into packets on a buffered writer; Flush
// sends them. Results are written row by row and flushed when the buffer
// fills, so a large result streams.
type packetWriter struct {
	w   *bufio.Writer
	seq *uint8
}

// writePacket writes one logical payload, split as the protocol requires.
func (p *packetWriter) writePacket(payload []byte) error {
	for {
		n := len(payload)
		if n > maxPayload {
			n = maxPayload
		}
		hdr := [4]byte{byte(n), byte(n >> 8), byte(n >> 16), *p.seq}
		*p.seq++
		if _, err := p.w.Write(hdr[:]); err != nil {
			return err
		}
		if _, err := p.w.Write(payload[:n]); err != nil {
			return err
		}
		payload = payload[n:]
		if n < maxPayload {
			return nil
		}
	}
}

func (p *packetWriter) flush() error { return p.w.Flush() }

// Length-encoded integers and strings, and fixed-width little-endian
// integers, as the protocol writes them.

func appendLenEnc(b []byte, v uint64) []byte {
	switch {
	case v < 251:
		return append(b, byte(v))
	case v < 1<<16:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v < 1<<24:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return append(b, 0xfe, byte(v), byte(v>>8), byte(v>>16), byte(v>>24),
		byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

func appendLenEncString(b []byte, s string) []byte {
	return append(appendLenEnc(b, uint64(len(s))), s...)
}

func appendUint16(b []byte, v uint16) []byte { return append(b, byte(v), byte(v>>8)) }
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}
func appendUint64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24),
		byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// errShort is a payload that ends inside a field.
var errShort = errors.New("mysql: malformed packet")

// decoder reads fields from a payload; the first failure sticks in err.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}

func (d *decoder) bytes(n int) []byte {
	if n < 0 || len(d.b) < n {
		d.fail()
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint8() uint8 {
	b := d.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (d *decoder) uint16() uint16 {
	b := d.bytes(2)
	if b == nil {
		return 0
	}
	return uint16(b[0]) | uint16(b[1])<<8
}

func (d *decoder) uint32() uint32 {
	b := d.bytes(4)
	if b == nil {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func (d *decoder) uint64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func (d *decoder) lenEnc() uint64 {
	switch c := d.uint8(); {
	case c < 0xfb:
		return uint64(c)
	case c == 0xfc:
		return uint64(d.uint16())
	case c == 0xfd:
		b := d.bytes(3)
		if b == nil {
			return 0
		}
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16
	case c == 0xfe:
		return d.uint64()
	default:
		d.fail()
		return 0
	}
}

func (d *decoder) lenEncBytes() []byte {
	n := d.lenEnc()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	return d.bytes(int(n))
}

// nulString reads up to a 0 byte (consumed).
func (d *decoder) nulString() string {
	for i, c := range d.b {
		if c == 0 {
			s := string(d.b[:i])
			d.b = d.b[i+1:]
			return s
		}
	}
	d.fail()
	return ""
}
