package wire

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// echoHandler answers "sleep" by waiting for cancellation and any other
// statement with one row holding its text.
type echoHandler struct{ cancelled chan struct{} }

func (h *echoHandler) Split(text string) ([]string, error)  { return strings.Split(text, ";"), nil }
func (h *echoHandler) Params(*Session, string) (int, error) { return 0, nil }
func (h *echoHandler) UseDB(*Session, string) error         { return nil }
func (h *echoHandler) Run(ctx context.Context, s *Session, stmt string, args []any) (Result, error) {
	if stmt == "sleep" {
		<-ctx.Done()
		close(h.cancelled)
		return Result{}, ctx.Err()
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Append(stmt)
	col := b.NewArray()
	rec := array.NewRecord(schema, []arrow.Array{col}, 1)
	rdr, _ := array.NewRecordReader(schema, []arrow.Record{rec})
	return Result{Rows: rdr}, nil
}

func startServer(t *testing.T, cfg Config, h Handler) (*Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(cfg, h)
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return srv, l.Addr().String()
}

// rawClient speaks the protocol by hand, to send what real clients never do.
type rawClient struct {
	t   *testing.T
	c   net.Conn
	r   *bufio.Reader
	seq uint8
}

func dial(t *testing.T, addr string) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	rc := &rawClient{t: t, c: c, r: bufio.NewReader(c)}
	if g := rc.read(); len(g) == 0 || g[0] != 10 {
		t.Fatalf("greeting %q", g)
	}
	return rc
}

func (rc *rawClient) read() []byte {
	rc.t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(rc.r, hdr[:]); err != nil {
		rc.t.Fatalf("read: %v", err)
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	rc.seq = hdr[3] + 1
	p := make([]byte, n)
	if _, err := io.ReadFull(rc.r, p); err != nil {
		rc.t.Fatalf("read: %v", err)
	}
	return p
}

func (rc *rawClient) write(p []byte) {
	rc.t.Helper()
	hdr := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), rc.seq}
	rc.seq++
	if _, err := rc.c.Write(append(hdr, p...)); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// closed reports whether the server closed the connection (after any
// packets it sent first).
func (rc *rawClient) closed() bool {
	_, err := io.ReadAll(rc.r)
	return err == nil || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "reset")
}

func handshakeResponseBytes(user, plugin string) []byte {
	b := appendUint32(nil, capProtocol41|capSecureConnection|capPluginAuth|capMultiStatements)
	b = appendUint32(b, 1<<24)
	b = append(b, charsetUTF8MB4)
	b = append(b, make([]byte, 23)...)
	b = append(b, user...)
	b = append(b, 0, 0) // user's NUL, empty auth response
	b = append(b, plugin...)
	return append(b, 0)
}

func (rc *rawClient) login() {
	rc.t.Helper()
	rc.write(handshakeResponseBytes("root", CachingSHA2))
	if p := rc.read(); p[0] != 0 {
		rc.t.Fatalf("login: %q", p)
	}
}

func errCode(p []byte) int {
	if len(p) < 3 || p[0] != 0xff {
		return -1
	}
	return int(p[1]) | int(p[2])<<8
}

func TestMalformedHandshake(t *testing.T) {
	srv, addr := startServer(t, Config{}, &echoHandler{})
	cases := []struct {
		name string
		send []byte
	}{
		{"empty", []byte{}},
		{"short", []byte{1, 2, 3}},
		{"no protocol 4.1", append(appendUint32(nil, capSecureConnection), make([]byte, 28)...)},
		{"user without NUL", append(handshakeResponseBytes("", "")[:32], 'r', 'o')},
		{"auth length past end", append(handshakeResponseBytes("root", "")[:37], 200, 1, 2)},
		{"SSL request without TLS", append(appendUint32(nil, capProtocol41|capSSL), make([]byte, 28)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := dial(t, addr)
			rc.write(c.send)
			if p := rc.read(); errCode(p) != ErHandshake {
				t.Fatalf("got %q, want error %d", p, ErHandshake)
			}
			if !rc.closed() {
				t.Fatal("connection left open")
			}
		})
	}
	t.Run("wrong sequence id", func(t *testing.T) {
		rc := dial(t, addr)
		rc.seq = 9
		rc.write(handshakeResponseBytes("root", CachingSHA2))
		if !rc.closed() {
			t.Fatal("connection left open")
		}
	})
	// The server still serves.
	rc := dial(t, addr)
	rc.login()
	rc.seq = 0
	rc.write([]byte{comPing})
	if p := rc.read(); p[0] != 0 {
		t.Fatalf("ping: %q", p)
	}
	_ = srv
}

func TestOversizedPacket(t *testing.T) {
	_, addr := startServer(t, Config{MaxPacket: 1024}, &echoHandler{})
	rc := dial(t, addr)
	rc.login()
	// A header announcing 1 MiB: refused before the body is read.
	rc.seq = 0
	rc.c.Write([]byte{0, 0, 0x10, 0, comQuery})
	if p := rc.read(); errCode(p) != ErNetPacketTooLarge {
		t.Fatalf("got %q, want error %d", p, ErNetPacketTooLarge)
	}
	if !rc.closed() {
		t.Fatal("connection left open")
	}
	// A query under the limit works on a new connection.
	rc = dial(t, addr)
	rc.login()
	rc.seq = 0
	rc.write(append([]byte{comQuery}, strings.Repeat("x", 1000)...))
	if p := rc.read(); p[0] != 1 {
		t.Fatalf("column count %q", p)
	}
}

func TestUnknownAndMalformedCommands(t *testing.T) {
	_, addr := startServer(t, Config{}, &echoHandler{})
	rc := dial(t, addr)
	rc.login()
	cases := []struct {
		cmd  []byte
		code int
	}{
		{[]byte{0x7f}, ErUnknownComError},
		{[]byte{comStmtExecute, 1}, ErMalformedPacket},
		{[]byte{comStmtExecute, 9, 0, 0, 0, 0, 1, 0, 0, 0}, ErUnknownStmtHandler},
		{[]byte{comProcessKill, 99, 0, 0, 0}, 1094},
	}
	for _, c := range cases {
		rc.seq = 0
		rc.write(c.cmd)
		if p := rc.read(); errCode(p) != c.code {
			t.Errorf("command %x: got %q, want error %d", c.cmd, p, c.code)
		}
	}
	rc.seq = 0
	rc.write([]byte{})
	if p := rc.read(); errCode(p) != ErMalformedPacket {
		t.Errorf("empty command: got %q", p)
	}
}

func TestDisconnectCancels(t *testing.T) {
	h := &echoHandler{cancelled: make(chan struct{})}
	srv, addr := startServer(t, Config{}, h)
	rc := dial(t, addr)
	rc.login()
	rc.seq = 0
	rc.write(append([]byte{comQuery}, "sleep"...))
	time.Sleep(50 * time.Millisecond)
	rc.c.Close()
	select {
	case <-h.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the running statement was not cancelled when the client left")
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Conns() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := srv.Conns(); n != 0 {
		t.Fatalf("%d connections left", n)
	}
}

func TestShutdownCancelsAfterDeadline(t *testing.T) {
	h := &echoHandler{cancelled: make(chan struct{})}
	srv, addr := startServer(t, Config{}, h)
	idle := dial(t, addr)
	idle.login()
	rc := dial(t, addr)
	rc.login()
	rc.seq = 0
	rc.write(append([]byte{comQuery}, "sleep"...))
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Shutdown took %v", d)
	}
	<-h.cancelled
	if p := rc.read(); errCode(p) != ErQueryInterrupted {
		t.Fatalf("running query got %q, want error %d", p, ErQueryInterrupted)
	}
	if !idle.closed() || !rc.closed() {
		t.Fatal("connections left open")
	}
}

// warnRows is a reader whose statement gave n warnings.
type warnRows struct {
	array.RecordReader
	n int64
}

func (r warnRows) WarningCount() int64 { return r.n }

// warnHandler answers every statement with echoHandler's row, its
// statement having given 70000 warnings (more than the packet holds).
type warnHandler struct{ echoHandler }

func (h *warnHandler) Run(ctx context.Context, s *Session, stmt string, args []any) (Result, error) {
	res, err := h.echoHandler.Run(ctx, s, stmt, args)
	res.Rows = warnRows{RecordReader: res.Rows, n: 70000}
	return res, err
}

// TestEOFWarnings: the EOF packet after a resultset's rows carries the
// warning count of the rows' statement (capped at 65535); the EOF after
// the column definitions carries none.
func TestEOFWarnings(t *testing.T) {
	_, addr := startServer(t, Config{}, &warnHandler{})
	rc := dial(t, addr)
	rc.login()
	rc.seq = 0
	rc.write(append([]byte{comQuery}, "SELECT x"...))
	var eofs [][]byte
	for len(eofs) < 2 {
		p := rc.read()
		if len(p) > 0 && p[0] == 0xfe && len(p) < 9 {
			eofs = append(eofs, p)
		}
	}
	if w := int(eofs[0][1]) | int(eofs[0][2])<<8; w != 0 {
		t.Errorf("EOF after the columns counts %d warnings, want 0", w)
	}
	if w := int(eofs[1][1]) | int(eofs[1][2])<<8; w != 65535 {
		t.Errorf("EOF after the rows counts %d warnings, want 65535", w)
	}
}
