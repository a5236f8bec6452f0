package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

func roundTrip(t *testing.T, payloads ...[]byte) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	var wseq uint8
	pw := packetWriter{w: bufio.NewWriter(&buf), seq: &wseq}
	for _, p := range payloads {
		if err := pw.writePacket(p); err != nil {
			t.Fatal(err)
		}
	}
	pw.flush()
	var rseq uint8
	pr := packetReader{r: bufio.NewReader(&buf), seq: &rseq, limit: 1 << 26}
	var out [][]byte
	for range payloads {
		p, err := pr.readPacket()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if _, err := pr.readPacket(); err != io.EOF {
		t.Fatalf("after the last packet: %v, want EOF", err)
	}
	return out
}

func TestPacketFraming(t *testing.T) {
	big := bytes.Repeat([]byte("abcdefg"), maxPayload/7+3) // longer than one packet
	exact := bytes.Repeat([]byte{7}, maxPayload)           // needs an empty trailer
	cases := [][]byte{{}, []byte("x"), big, exact, []byte("after")}
	got := roundTrip(t, cases...)
	for i := range cases {
		if !bytes.Equal(got[i], cases[i]) {
			t.Errorf("payload %d: got %d bytes, want %d", i, len(got[i]), len(cases[i]))
		}
	}
}

func TestPacketErrors(t *testing.T) {
	cases := []struct {
		name  string
		input []byte
		limit int
		want  error
	}{
		{"too large", []byte{0xe8, 0x03, 0x00, 0x00}, 100, ErrPacketTooLarge},
		{"split past limit", append(append([]byte{0xff, 0xff, 0xff, 0}, make([]byte, maxPayload)...), 0x10, 0, 0, 1), maxPayload + 8, ErrPacketTooLarge},
		{"wrong sequence", []byte{1, 0, 0, 5, 'x'}, 100, ErrSequence},
		{"truncated header", []byte{1, 0}, 100, io.ErrUnexpectedEOF},
		{"truncated body", []byte{5, 0, 0, 0, 'x'}, 100, io.ErrUnexpectedEOF},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seq uint8
			pr := packetReader{r: bufio.NewReader(bytes.NewReader(c.input)), seq: &seq, limit: c.limit}
			_, err := pr.readPacket()
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestLenEnc(t *testing.T) {
	for _, v := range []uint64{0, 250, 251, 1<<16 - 1, 1 << 16, 1<<24 - 1, 1 << 24, 1<<64 - 1} {
		d := &decoder{b: appendLenEnc(nil, v)}
		if got := d.lenEnc(); got != v || d.err != nil || len(d.b) != 0 {
			t.Errorf("lenenc %d: got %d, err %v, %d left", v, got, d.err, len(d.b))
		}
	}
	d := &decoder{b: []byte{0xff}}
	d.lenEnc()
	if d.err == nil {
		t.Error("0xff is not a length")
	}
}

func TestAppendFloat(t *testing.T) {
	cases := map[float64]string{1.5: "1.5", 100000: "100000", 1e21: "1e21", -2.5e-20: "-2.5e-20", 0: "0", 0.1: "0.1"}
	for f, want := range cases {
		if got := string(appendFloat(nil, f)); got != want {
			t.Errorf("%v: got %q, want %q", f, got, want)
		}
	}
}

// FuzzPacketReader feeds arbitrary bytes to the packet reader and to the
// decoders of what clients send: none may panic, and the reader never
// returns more than its limit.
func FuzzPacketReader(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0x0e})
	f.Add([]byte{0xff, 0xff, 0xff, 0, 1})
	f.Add(append([]byte{40, 0, 0, 0}, handshakeResponseBytes("root", "caching_sha2_password")...))
	f.Add([]byte{20, 0, 0, 0, 0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		var seq uint8
		pr := packetReader{r: bufio.NewReader(bytes.NewReader(data)), seq: &seq, limit: 1 << 12}
		for {
			p, err := pr.readPacket()
			if err != nil {
				return
			}
			if len(p) > 1<<12 {
				t.Fatalf("payload of %d bytes past the limit", len(p))
			}
			parseHandshakeResponse(p)
			st := &stmt{params: 3}
			st.bind(&decoder{b: p})
			for _, typ := range []uint16{typeTiny, typeLongLong, typeDouble, typeDateTime, typeTime, typeNewDecimal, typeVarString} {
				decodeParam(&decoder{b: p}, typ)
			}
		}
	})
}
