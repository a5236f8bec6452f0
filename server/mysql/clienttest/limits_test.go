package clienttest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/server/mysql"
)

func TestStatementTimeLimits(t *testing.T) {
	s := start(t, mysql.Config{MaxStatementTime: 300 * time.Millisecond})
	db := s.open(t, "root", "")
	db.SetMaxOpenConns(1)
	makeBig(t, db)
	for _, c := range []struct {
		name, set string
		within    time.Duration
	}{
		{"server limit", "", 3 * time.Second},
		{"session max_execution_time", "SET max_execution_time = 50", 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.set != "" {
				mustExec(t, db, c.set)
			}
			start := time.Now()
			_, err := db.Exec(slowQuery)
			if me := mysqlErr(t, err); me.Number != 3024 {
				t.Fatalf("got %v, want 3024", me)
			}
			if d := time.Since(start); d > c.within {
				t.Fatalf("stopped after %v", d)
			}
		})
	}
	// Quick statements still run.
	var one int
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("%d %v", one, err)
	}
}

func TestConnectionAndQueryLimits(t *testing.T) {
	cfg := mysql.Config{MaxQueries: 1}
	cfg.MaxConnections = 2
	s := start(t, cfg)
	db := s.open(t, "root", "")
	makeBig(t, db)
	ctx := context.Background()
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// A third connection is refused.
	if _, err := db.Conn(ctx); err == nil {
		t.Fatal("third connection accepted")
	} else if me := mysqlErr(t, err); me.Number != 1040 {
		t.Fatalf("got %v, want 1040", me)
	}
	// With one statement slot, b waits while a runs the slow query.
	var aID int64
	if err := a.QueryRowContext(ctx, `SELECT CONNECTION_ID()`).Scan(&aID); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := a.ExecContext(ctx, slowQuery); errc <- err }()
	time.Sleep(300 * time.Millisecond) // a holds the slot by then

	waitCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = b.ExecContext(waitCtx, `SELECT 1`)
	cancel()
	if err == nil {
		t.Fatal("a second statement ran beside the first with MaxQueries = 1")
	}
	// b's connection is gone (the driver closes on cancel); KILL QUERY
	// from a fresh one frees the slot, then statements run again.
	b.Close()
	deadline := time.Now().Add(2 * time.Second)
	for s.srv.Conns() > 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	mustExec(t, db, fmt.Sprintf(`KILL QUERY %d`, aID))
	if me := mysqlErr(t, <-errc); me.Number != 1317 {
		t.Fatalf("killed query: %v", me)
	}
	var one int
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the kill: %d %v", one, err)
	}
}
