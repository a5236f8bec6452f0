package gpuexec

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Admission lets queries onto a shared device by shares of its memory:
// each query reserves a bounded share (an estimate of what it will hold)
// before its first device work, and queries whose shares do not fit wait
// in arrival order. Without it every query of a busy device starts at
// once, the pool runs dry and all of them wait for memory or fall back
// together; with it the ones admitted run at full speed and the rest wait
// their turn (or, in auto mode, give up waiting and run on the CPU).
// A reservation is a promise made before work starts, not a limit on
// allocations: the pool and the quotas still bound what is held.
type Admission struct {
	mu               sync.Mutex
	capacity         uint64
	used             uint64
	queue            list.List // *Ticket waiting, first come first
	admitted, waited uint64
	waitNanos        int64
	timeouts         uint64
}

// AdmissionShare bounds one query's reservation as a fraction of the
// capacity: a single large query never holds the whole device, so at
// least this many of them (and small ones besides) run at once.
var AdmissionShare = 0.25

// MinAdmission is the least a query reserves: its kernels' launches,
// scratch and results take memory even when it reads nothing.
const MinAdmission = 1 << 20

// ErrAdmissionWait is a query that waited for its share of device memory
// past the bound it was given; it holds nothing and is out of the queue.
var ErrAdmissionWait = errors.New("gpu: admission wait past its bound")

// NewAdmission returns an admission queue over capacity bytes.
func NewAdmission(capacity uint64) *Admission {
	return &Admission{capacity: max(capacity, MinAdmission)}
}

// Ticket is one query's place: waiting, then holding its share until
// Release.
type Ticket struct {
	a       *Admission
	bytes   uint64
	ready   chan struct{} // closed when granted
	el      *list.Element // in a.queue while waiting
	granted bool
	done    bool
}

// Bytes is the share the ticket reserves.
func (t *Ticket) Bytes() uint64 { return t.bytes }

// Share is the reservation of a query estimated to hold want bytes: at
// least MinAdmission, at most AdmissionShare of the capacity.
func (a *Admission) Share(want uint64) uint64 {
	limit := max(uint64(float64(a.capacity)*AdmissionShare), MinAdmission)
	return min(max(want, MinAdmission), limit)
}

// Admit reserves Share(want) for a query, waiting behind the queries that
// came before it until the share fits. It waits at most bound (<= 0: as
// long as ctx lives); past the bound it returns an error wrapping
// ErrAdmissionWait. Cancelling ctx gives the place up at once (and the
// queries behind move up). waited is the time spent in the queue.
func (a *Admission) Admit(ctx context.Context, want uint64, bound time.Duration) (t *Ticket, waited time.Duration, err error) {
	t = &Ticket{a: a, bytes: a.Share(want), ready: make(chan struct{})}
	a.mu.Lock()
	if a.queue.Len() == 0 && a.used+t.bytes <= a.capacity {
		// Nobody waits and it fits: in at once, without a timer.
		a.used += t.bytes
		t.granted = true
		a.admitted++
		a.mu.Unlock()
		return t, 0, nil
	}
	t.el = a.queue.PushBack(t)
	a.mu.Unlock()
	start := time.Now()
	var timeout <-chan time.Time
	if bound > 0 {
		tm := time.NewTimer(bound)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-t.ready:
		waited = time.Since(start)
		a.noteWait(waited, false)
		return t, waited, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timeout:
		err = fmt.Errorf("%w: waited %s for %d bytes of device memory (%d of %d reserved, %d queries queued)",
			ErrAdmissionWait, bound, t.bytes, a.InUse(), a.capacity, a.Waiting())
	}
	waited = time.Since(start)
	if a.leave(t) {
		// Granted while giving up: keep it, the query may run.
		a.noteWait(waited, false)
		return t, waited, nil
	}
	a.noteWait(waited, errors.Is(err, ErrAdmissionWait))
	return nil, waited, err
}

// leave takes a waiting ticket out of the queue; it reports false when
// the ticket was granted meanwhile (then it stays granted).
func (a *Admission) leave(t *Ticket) (granted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.granted {
		return true
	}
	a.queue.Remove(t.el)
	t.el, t.done = nil, true
	// The head may have been the one that did not fit: those behind it
	// may fit now.
	a.grantLocked()
	return false
}

func (a *Admission) noteWait(d time.Duration, timedOut bool) {
	a.mu.Lock()
	a.waited++
	a.waitNanos += int64(d)
	if timedOut {
		a.timeouts++
	}
	a.mu.Unlock()
}

// grantLocked admits waiting tickets in order while the head fits. It
// never skips the head for a smaller one behind it: a large query would
// otherwise wait for ever behind a stream of small ones.
func (a *Admission) grantLocked() {
	for el := a.queue.Front(); el != nil; el = a.queue.Front() {
		t := el.Value.(*Ticket)
		// An empty device admits anything: a share never exceeds the
		// capacity, but be safe against a shrunk one.
		if a.used+t.bytes > a.capacity && a.used > 0 {
			return
		}
		a.queue.Remove(el)
		t.el, t.granted = nil, true
		a.used += t.bytes
		a.admitted++
		close(t.ready)
	}
}

// Release gives the ticket's share back and admits the queries it lets
// in. Releasing twice, or a nil ticket, does nothing.
func (t *Ticket) Release() {
	if t == nil {
		return
	}
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.done || !t.granted {
		return
	}
	t.done = true
	a.used -= t.bytes
	a.grantLocked()
}

// Capacity is the bytes the queue hands out.
func (a *Admission) Capacity() uint64 { return a.capacity }

// InUse is the bytes reserved by admitted queries.
func (a *Admission) InUse() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// Waiting is the number of queries in the queue.
func (a *Admission) Waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.queue.Len()
}

// AdmissionStats count the queue's work.
type AdmissionStats struct {
	Capacity, InUse uint64
	Waiting         int
	// Admitted counts queries let in; Waited those that queued first
	// (and gave up or not), WaitTime their time in the queue; TimedOut
	// those that waited past their bound.
	Admitted, Waited, TimedOut uint64
	WaitTime                   time.Duration
}

// Stats reads the queue's counters.
func (a *Admission) Stats() AdmissionStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AdmissionStats{Capacity: a.capacity, InUse: a.used, Waiting: a.queue.Len(),
		Admitted: a.admitted, Waited: a.waited, TimedOut: a.timeouts, WaitTime: time.Duration(a.waitNanos)}
}

// Admission is the device's admission queue, shared by every handle of
// the state: its capacity is the pool's limit, else the device's memory.
func (d *Device) Admission() *Admission {
	d.admitOnce.Do(func() {
		c := d.opts.PoolLimit
		if c == 0 {
			c = d.info.TotalMemory
		}
		d.admit = NewAdmission(c)
	})
	return d.admit
}

// AdmitQuery reserves the share of a query estimated to hold want bytes
// on the device (see Admission.Admit), capped by the handle's own quota;
// the time it queued counts in the query's waits (a ForQuery handle).
func (d *Device) AdmitQuery(ctx context.Context, want uint64, bound time.Duration) (*Ticket, error) {
	if d.user != nil && d.user.limit > 0 {
		want = min(want, d.user.limit)
	}
	t, waited, err := d.Admission().Admit(ctx, want, bound)
	if waited > 0 && d.waits != nil {
		d.waits.Admission.add(waited)
	}
	return t, err
}
