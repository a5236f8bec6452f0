// Package limits applies a server's statement limits across its protocols:
// a cap on the statements the database runs at once, shared by every
// listener (MySQL and Flight SQL clients wait for the same slots), and a
// time after which a statement is cancelled.
package limits

import (
	"context"
	"sync"
	"time"

	"github.com/gsqlengine/gsql/errkind"
)

// Limits are the statement limits of one server. The zero value and nil
// limit nothing.
type Limits struct {
	slots   chan struct{}
	maxTime time.Duration
	// perConn caps the statements one connection runs at once (0: none);
	// running counts them per connection.
	perConn int
	mu      sync.Mutex
	running map[string]int
}

// ErrConnectionBusy refuses a statement of a connection already running
// the most statements a connection may (WithPerConnection).
var ErrConnectionBusy = errkind.New(errkind.Busy, "this connection already runs the most statements at once it may")

// WithPerConnection caps the statements one connection runs at once (0:
// no cap) and returns l. A statement past the cap is refused at once
// (ErrConnectionBusy) rather than queued: the connection's own running
// statements would otherwise have to finish first, which a client
// holding their streams open never lets happen. A MySQL connection runs
// one statement at a time anyway; a Flight SQL client multiplexes many
// calls over one gRPC connection.
func (l *Limits) WithPerConnection(n int) *Limits {
	l.perConn = n
	return l
}

// BeginFor is Begin for a statement of connection conn (any key naming
// it, such as its remote address): it also applies the per-connection cap.
func (l *Limits) BeginFor(ctx context.Context, conn string, session time.Duration) (context.Context, func(), error) {
	if l == nil || l.perConn <= 0 {
		return l.Begin(ctx, session)
	}
	l.mu.Lock()
	if l.running[conn] >= l.perConn {
		l.mu.Unlock()
		return nil, nil, ErrConnectionBusy
	}
	if l.running == nil {
		l.running = map[string]int{}
	}
	l.running[conn]++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if l.running[conn]--; l.running[conn] == 0 {
			delete(l.running, conn)
		}
		l.mu.Unlock()
	}
	ctx, done, err := l.Begin(ctx, session)
	if err != nil {
		leave()
		return nil, nil, err
	}
	return ctx, func() { done(); leave() }, nil
}

// New returns limits of at most maxQueries statements at once (0: no cap)
// and maxTime per statement (0: no limit).
func New(maxQueries int, maxTime time.Duration) *Limits {
	l := &Limits{maxTime: maxTime}
	if maxQueries > 0 {
		l.slots = make(chan struct{}, maxQueries)
	}
	return l
}

// MaxStatementTime is the statement time limit (0: none).
func (l *Limits) MaxStatementTime() time.Duration {
	if l == nil {
		return 0
	}
	return l.maxTime
}

// Begin waits for a statement slot while ctx allows and returns the
// statement's context, cancelled after the time limit (or after session,
// when it is positive and shorter: MySQL's max_execution_time). done
// releases the slot and the timer; call it once the statement's results
// are consumed.
func (l *Limits) Begin(ctx context.Context, session time.Duration) (context.Context, func(), error) {
	if l == nil {
		l = &Limits{}
	}
	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	release := func() {
		if l.slots != nil {
			<-l.slots
		}
	}
	limit := l.maxTime
	if session > 0 && (limit == 0 || session < limit) {
		limit = session
	}
	if limit <= 0 {
		return ctx, release, nil
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	return ctx, func() { cancel(); release() }, nil
}

// Running is the number of statements holding a slot (0 without a cap).
func (l *Limits) Running() int {
	if l == nil || l.slots == nil {
		return 0
	}
	return len(l.slots)
}
