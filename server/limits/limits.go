// Package limits applies a server's statement limits across its protocols:
// a cap on the statements the database runs at once, shared by every
// listener (MySQL and Flight SQL clients wait for the same slots), and a
// time after which a statement is cancelled.
package limits

import (
	"context"
	"time"
)

// Limits are the statement limits of one server. The zero value and nil
// limit nothing.
type Limits struct {
	slots   chan struct{}
	maxTime time.Duration
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
