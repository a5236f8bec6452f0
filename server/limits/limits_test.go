package limits

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSlotsAreShared(t *testing.T) {
	l := New(2, 0)
	ctx := context.Background()
	_, done1, err := l.Begin(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, done2, err := l.Begin(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Running() != 2 {
		t.Fatalf("running %d, want 2", l.Running())
	}
	// A third statement waits; its own context gives up.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, _, err := l.Begin(short, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third statement: %v, want to wait until its deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		_, done, err := l.Begin(ctx, 0)
		if err == nil {
			done()
		}
		got <- err
	}()
	done1()
	if err := <-got; err != nil {
		t.Fatalf("after a release: %v", err)
	}
	done2()
	if l.Running() != 0 {
		t.Fatalf("running %d after every release", l.Running())
	}
}

func TestStatementTime(t *testing.T) {
	cases := []struct {
		name         string
		max, session time.Duration
		want         time.Duration // 0: no deadline
	}{
		{"none", 0, 0, 0},
		{"server", time.Hour, 0, time.Hour},
		{"session shorter", time.Hour, time.Minute, time.Minute},
		{"session longer keeps the server's", time.Minute, time.Hour, time.Minute},
		{"session alone", 0, time.Minute, time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l *Limits
			if c.max > 0 {
				l = New(0, c.max)
			}
			ctx, done, err := l.Begin(context.Background(), c.session)
			if err != nil {
				t.Fatal(err)
			}
			defer done()
			dl, ok := ctx.Deadline()
			if ok != (c.want > 0) {
				t.Fatalf("deadline %v, want one: %v", dl, c.want > 0)
			}
			if ok {
				if left := time.Until(dl); left > c.want || left < c.want-time.Second {
					t.Fatalf("deadline in %v, want %v", left, c.want)
				}
			}
		})
	}
}

func TestDoneCancels(t *testing.T) {
	ctx, done, err := New(1, time.Hour).Begin(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	done()
	if ctx.Err() == nil {
		t.Fatal("the statement's context outlives done")
	}
}

func TestPerConnection(t *testing.T) {
	l := New(0, 0).WithPerConnection(2)
	ctx := context.Background()
	_, a1, err := l.BeginFor(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, a2, err := l.BeginFor(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.BeginFor(ctx, "a", 0); !errors.Is(err, ErrConnectionBusy) {
		t.Fatalf("third statement of one connection: %v", err)
	}
	// Another connection is not held back.
	_, b1, err := l.BeginFor(ctx, "b", 0)
	if err != nil {
		t.Fatalf("another connection: %v", err)
	}
	a1()
	_, a3, err := l.BeginFor(ctx, "a", 0)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	a2()
	a3()
	b1()
	if len(l.running) != 0 {
		t.Fatalf("connections left counted: %v", l.running)
	}
	// Without a per-connection cap BeginFor is Begin.
	if _, done, err := New(0, 0).BeginFor(ctx, "a", 0); err != nil {
		t.Fatal(err)
	} else {
		done()
	}
}
