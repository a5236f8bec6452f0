package clienttest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/server/mysql"
)

// TestLongData sends a prepared statement's parameter with
// COM_STMT_SEND_LONG_DATA: go-sql-driver does so for a value of at least
// maxAllowedPacket / (parameters + 1) bytes. (go-mysql-org/go-mysql's
// server fails this one: docs/SERVER.md, "Why the wire protocol is our
// own".)
func TestLongData(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "&maxAllowedPacket=4096")
	mustExec(t, db, `CREATE TABLE l (k BIGINT, v VARCHAR)`)
	long := strings.Repeat("long data ✓ ", 2000)
	if _, err := db.Exec(`INSERT INTO l VALUES (?, ?)`, int64(1), long); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRow(`SELECT v FROM l WHERE k = ? AND v = ?`, int64(1), long).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != long {
		t.Fatalf("got %d bytes, want %d", len(got), len(long))
	}
}

// TestLeaveMidResult: clients that leave while a large result streams
// (the driver closes its connection when the context ends) cost the
// server nothing: it stays up, its connections close, and the next
// client is served.
func TestLeaveMidResult(t *testing.T) {
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	makeBig(t, db)
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := db.QueryContext(ctx, `SELECT x.a, y.a FROM big x, big y WHERE y.a < 50`)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 10 && rows.Next(); n++ {
		}
		cancel()
		rows.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.srv.Conns() > 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := s.srv.Conns(); n > 1 {
		t.Fatalf("%d server connections still open", n)
	}
	var one int
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("after: %d, %v", one, err)
	}
}
