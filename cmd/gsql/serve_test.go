package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	gsql "github.com/gsqlengine/gsql"
)

// syncBuffer is a log sink the server goroutine writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "--mysql ADDR or --flight ADDR is required"},
		{[]string{"--mysql", ":0", "--user", "u"}, "--user and --password-file go together"},
		{[]string{"--mysql", ":0", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--mysql", ":0", "--auth-plugin", "pam"}, "--auth-plugin"},
		{[]string{"--mysql", ":0", "--require-tls"}, "--require-tls needs"},
		{[]string{"--mysql", ":0", "--max-packet", "12"}, "--max-packet"},
		{[]string{"--mysql", ":0", "extra"}, "unexpected argument"},
		{[]string{"--mysql", ":0", "--max-queries", "-1"}, "cannot be negative"},
		{[]string{"--mysql", ":0", "--files", "/no/such/dir"}, "--files"},
		{[]string{"--mysql", ":0", "--memory-limit", "lots"}, "--memory-limit"},
	}
	for _, c := range cases {
		var errb syncBuffer
		if code := serve(context.Background(), c.args, &errb, nil); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// mysqlPacket reads one protocol packet.
func mysqlPacket(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(r, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func writePacket(t *testing.T, c net.Conn, seq byte, p []byte) {
	t.Helper()
	if _, err := c.Write(append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), seq}, p...)); err != nil {
		t.Fatal(err)
	}
}

// TestServe starts `gsql serve` on an on-disk database with both
// listeners, creates a table over the MySQL protocol, inserts into it over
// Flight SQL, stops it as a signal would, and finds the rows on disk.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 2)
	done := make(chan int, 1)
	var logs syncBuffer
	go func() {
		done <- serve(ctx, []string{"--mysql", "127.0.0.1:0", "--flight", "127.0.0.1:0", "--device", "cpu", "--data", dir}, &logs, func(a string) { addrc <- a })
	}()
	var addrs []string
	for len(addrs) < 2 {
		select {
		case a := <-addrc:
			addrs = append(addrs, a)
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, logs.String())
		}
	}
	addr := addrs[0]
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	if g := mysqlPacket(t, r); g[0] != 10 || !strings.Contains(string(g), "gsql") {
		t.Fatalf("greeting %q", g)
	}
	// HandshakeResponse41: protocol 4.1 + secure connection + plugin auth,
	// user "root", empty auth response.
	resp := []byte{0x00, 0x82, 0x08, 0x00, 0, 0, 0, 1, 45}
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, "root\x00\x00caching_sha2_password\x00"...)
	writePacket(t, c, 1, resp)
	if p := mysqlPacket(t, r); p[0] != 0 {
		t.Fatalf("login: %q", p)
	}
	writePacket(t, c, 0, []byte("\x03CREATE TABLE served (a BIGINT)"))
	if p := mysqlPacket(t, r); p[0] != 0 {
		t.Fatalf("CREATE TABLE: %q", p)
	}
	// The Flight SQL listener serves the same database.
	fc, err := flightsql.NewClient(addrs[1], nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := fc.ExecuteUpdate(context.Background(), "INSERT INTO served VALUES (1), (2)"); err != nil || n != 2 {
		t.Fatalf("Flight SQL insert: %d, %v", n, err)
	}
	fc.Close()
	cancel() // as SIGTERM does
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
	for _, want := range []string{"serving MySQL protocol", "connected", "shutting down", "stopped"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rdr, err := db.Query(context.Background(), "SELECT COUNT(*) FROM served")
	if err != nil {
		t.Fatalf("table made over the protocol is not on disk: %v", err)
	}
	defer rdr.Release()
	if !rdr.Next() || rdr.Record().Column(0).ValueStr(0) != "2" {
		t.Fatalf("rows inserted over Flight SQL are not on disk")
	}
}
