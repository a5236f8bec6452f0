package gpuexec

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Waits counts what one query waited for on a device it shares with other
// queries and databases: the context thread (every CUDA call runs there),
// a kernel compile (its own, another query's, or another process's
// holding the cache lock), and pool memory that others held. EXPLAIN
// ANALYZE prints it, so that contention shows.
type Waits struct {
	Thread, Compile, Memory WaitCounter
	// Admission is the wait for the query's share of device memory
	// (admission.go) before its device work started.
	Admission WaitCounter
}

// WaitCounter is a number of waits and their total time.
type WaitCounter struct {
	n, nanos atomic.Int64
	// total is the device state's counter of the same kind, which every
	// query's waits also go to (Stats.Waits): a load harness reads what a
	// query waited for as the difference around it.
	total *WaitCounter
}

func (c *WaitCounter) add(d time.Duration) {
	c.n.Add(1)
	c.nanos.Add(int64(max(d, 0)))
	if c.total != nil {
		c.total.add(d)
	}
}

// link makes w's counters add to totals too (once: a Waits is one query's).
func (w *Waits) link(totals *Waits) {
	if w == nil || totals == nil || w == totals || w.Thread.total != nil {
		return
	}
	w.Thread.total, w.Compile.total, w.Memory.total = &totals.Thread, &totals.Compile, &totals.Memory
	w.Admission.total = &totals.Admission
}

// WaitTotals is a snapshot of waits: counts and times of each kind.
type WaitTotals struct {
	ThreadWaits, CompileWaits, MemoryWaits, AdmissionWaits int64
	Thread, Compile, Memory, Admission                     time.Duration
}

// Snapshot reads w's counters.
func (w *Waits) Snapshot() WaitTotals {
	return WaitTotals{
		ThreadWaits: w.Thread.Count(), CompileWaits: w.Compile.Count(), MemoryWaits: w.Memory.Count(),
		Thread: w.Thread.Total(), Compile: w.Compile.Total(), Memory: w.Memory.Total(),
		AdmissionWaits: w.Admission.Count(), Admission: w.Admission.Total(),
	}
}

// Count is the number of waits.
func (c *WaitCounter) Count() int64 { return c.n.Load() }

// Total is the time spent waiting.
func (c *WaitCounter) Total() time.Duration { return time.Duration(c.nanos.Load()) }

func (c *WaitCounter) String() string {
	return fmt.Sprintf("%d/%s", c.Count(), c.Total().Round(time.Microsecond))
}

// String is the EXPLAIN ANALYZE line: count/time of each kind of wait.
func (w *Waits) String() string {
	s := fmt.Sprintf("gpu waits: context_thread=%s compile=%s pool_memory=%s", &w.Thread, &w.Compile, &w.Memory)
	if w.Admission.Count() > 0 {
		// Only when it queued: most queries are admitted at once.
		s += fmt.Sprintf(" admission=%s", &w.Admission)
	}
	return s
}

type waitsKey struct{}

// WithWaits returns ctx carrying w, for the waits of calls that take a
// context but no query handle (TableCache.RetryOOM).
func WithWaits(ctx context.Context, w *Waits) context.Context {
	return context.WithValue(ctx, waitsKey{}, w)
}

// WaitsOf returns the Waits ctx carries, or nil.
func WaitsOf(ctx context.Context) *Waits {
	w, _ := ctx.Value(waitsKey{}).(*Waits)
	return w
}

// NoteCompileWait adds a wait for a compile (an operator that waited for
// its background compile) to the handle's query.
func (d *Device) NoteCompileWait(took time.Duration) {
	if d.waits != nil {
		d.waits.Compile.add(took)
	}
}

// Waits is the query's counter of a ForQuery handle, else nil.
func (d *Device) Waits() *Waits { return d.waits }
