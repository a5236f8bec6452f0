package gsql

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
)

// opReader streams an operator tree's batches as Arrow records.
type opReader struct {
	// timer brackets the query's device work (GPU queries only).
	timer   *gpuexec.Timer
	devTime time.Duration
	timed   bool
	stats   []*operators.Stats // the GPU plan's operators, for CompileTime
	refs    atomic.Int64
	// collect: when the query finishes, collect its garbage if there is
	// enough (querygc.go).
	collect bool
	ranOn   string // where the query ran: "gpu", "cpu", or why the CPU
	// fallback, set for a GPU attempt in auto mode until a batch is
	// handed out, runs the statement on the CPU instead when the attempt
	// runs out of device memory (fallback.go): the CPU plan's opened
	// operators, their context and where they ran.
	fallback func(cause error) (context.Context, operators.Operator, string, error)
	handed   bool // a batch went to the caller: never re-run
	// release gives back the GPU attempt's admission share (admission.go),
	// once its operators are closed; nil when it holds none.
	release func()
	// gpuDone, when set, is told that the GPU attempt finished without
	// falling back (the plan cache's CPU-plan memory).
	gpuDone func()
	// shared is the statement's store of CTE results, closed when the
	// reader finishes (nil: none of its own).
	shared *operators.SharedResults
	ctx    context.Context
	schema *arrow.Schema
	op     operators.Operator
	cur    arrow.Record
	err    error
	done   bool
}

var _ WarningReader = (*opReader)(nil)

// WarningReader is implemented by the readers Query returns for a
// SELECT: the warnings the statement gave so far (MySQL's SHOW
// WARNINGS), all of them once Next has returned false. Session.Warnings
// gives the same list for every kind of statement.
type WarningReader interface {
	array.RecordReader
	// Warnings are the first expr.MaxWarnings warnings, in order.
	Warnings() []Warning
	// WarningCount counts every warning, kept or not.
	WarningCount() int64
}

// Warnings implements WarningReader.
func (r *opReader) Warnings() []Warning { return expr.WarningsOf(r.ctx).List() }

// WarningCount implements WarningReader.
func (r *opReader) WarningCount() int64 { return expr.WarningsOf(r.ctx).Count() }

func newOpReader(ctx context.Context, schema *arrow.Schema, op operators.Operator) *opReader {
	r := &opReader{ctx: ctx, schema: schema, op: op}
	r.refs.Store(1)
	return r
}

func (r *opReader) Retain() { r.refs.Add(1) }

func (r *opReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.finish()
	}
}

func (r *opReader) finish() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if !r.done {
		r.done = true
		// r.op is nil after a fallback whose CPU plan failed to open:
		// the attempt's operators are closed already.
		if r.op != nil {
			if err := r.op.Close(); err != nil && r.err == nil {
				r.err = err
			}
		}
		r.giveBack()
		r.shared.Close()
		if r.gpuDone != nil && r.fallback != nil && r.err == nil {
			r.gpuDone() // still the GPU attempt, and it did not fail
		}
		// The operators' state is garbage now, also while the caller
		// still holds the reader.
		r.op = nil
		if r.collect {
			collectQueryGarbage()
		}
		if r.timer != nil {
			if t, err := r.timer.Stop(); err == nil {
				r.devTime, r.timed = t, true
			}
		}
	}
}

func (r *opReader) Schema() *arrow.Schema { return r.schema }

func (r *opReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done {
		return false
	}
	b, err := r.nextBatch()
	if err != nil && r.fallback != nil && !r.handed && shouldFallBack(r.ctx, err) {
		b, err = r.runOnCPU(err)
	}
	if err != nil {
		r.err = err
		r.finish()
		return false
	}
	if b == nil {
		r.finish()
		return false
	}
	for i, c := range b.Cols {
		if c.Type == coldata.Null {
			b.Cols[i] = coldata.NewConst(coldata.String, nil, b.Len)
		}
	}
	r.cur = coldata.BatchToRecord(r.schema, b)
	r.handed = true
	return true
}

// runOnCPU closes the GPU attempt that failed with cause (its device
// memory goes back before the CPU starts) and continues with the
// statement's CPU plan, returning its first batch.
func (r *opReader) runOnCPU(cause error) (*coldata.Batch, error) {
	fallback := r.fallback
	r.fallback = nil
	// The attempt failed: an error closing it says nothing more.
	_ = r.op.Close()
	r.op = nil
	r.giveBack()
	if r.timer != nil {
		_, _ = r.timer.Stop()
		r.timer = nil
	}
	r.stats = nil
	ctx, op, ranOn, err := fallback(cause)
	if err != nil {
		return nil, err
	}
	r.ctx, r.op, r.ranOn = ctx, op, ranOn
	return r.nextBatch()
}

func (r *opReader) Record() arrow.Record { return r.cur }

func (r *opReader) RecordBatch() arrow.Record { return r.cur }

func (r *opReader) Err() error { return r.err }

// rowsReader returns a reader over one small batch of string columns.
func rowsReader(names []string, cols []*coldata.Vec) array.RecordReader {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = coldata.ArrowField(n, cols[i].Type, true)
	}
	schema := arrow.NewSchema(fields, nil)
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len
	}
	var recs []arrow.Record
	if n > 0 {
		recs = append(recs, coldata.BatchToRecord(schema, &coldata.Batch{Cols: cols, Len: n}))
	}
	rdr, _ := array.NewRecordReader(schema, recs)
	return rdr
}

func (r *opReader) nextBatch() (b *coldata.Batch, err error) {
	defer recoverInternal(&err)
	return r.op.Next(r.ctx)
}

// RanOn says where the query's operators ran: "gpu" (some or all on the
// GPU), "cpu", or the CPU with the reason (auto mode while GPU kernels
// compile).
func (r *opReader) RanOn() string { return r.ranOn }

// DeviceTime is the GPU time between the query's start and the end of its
// results (ok false for queries that did not run on the GPU or did not run
// under DB.WithDeviceTiming, or before the reader is exhausted or
// released).
func (r *opReader) DeviceTime() (time.Duration, bool) {
	return r.devTime, r.timed && r.done
}

// CompileTime is the time the query waited for kernel compiles and the
// compile time that ran in the background while another tier answered
// (the shell's .timer prints both apart from the run time).
func (r *opReader) CompileTime() (wait, background time.Duration) {
	for _, st := range r.stats {
		wait += time.Duration(st.CompileWaitNanos.Load())
		background += time.Duration(st.CompileBackgroundNanos.Load())
	}
	return wait, background
}

type deviceTimingKey struct{}

// WithDeviceTiming returns a context under which queries measure their GPU
// time (the results' DeviceTime, the shell's .timer). It is off by
// default: the measurement costs two trips to the device's context thread,
// a tenth of a small query's time.
func (db *DB) WithDeviceTiming(ctx context.Context) context.Context {
	return context.WithValue(ctx, deviceTimingKey{}, true)
}

func deviceTimingOn(ctx context.Context) bool {
	on, _ := ctx.Value(deviceTimingKey{}).(bool)
	return on
}

// timeOnDevice starts bracketing the reader's device work with events.
func (r *opReader) timeOnDevice(d *gpuexec.Device) {
	if t, err := d.StartTimer(); err == nil {
		r.timer = t
	}
}

// giveBack releases the admission share, once.
func (r *opReader) giveBack() {
	if r.release != nil {
		r.release()
		r.release = nil
	}
}
