package gsql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
)

// faultOp stands for a GPU plan's operator tree (the testHooks seam): it
// passes good batches through, then fails with err at Open (failAt -1)
// or at Next number failAt (0: the first), having read and dropped the
// batch it would have returned. held counts the trees opened and not yet
// closed: the device memory an attempt holds.
type faultOp struct {
	operators.Operator
	failAt int
	err    error
	cancel context.CancelFunc // called just before failing, when set
	held   *atomic.Int64
	nexts  int
}

func (f *faultOp) Open(ctx context.Context) error {
	if err := f.Operator.Open(ctx); err != nil {
		return err
	}
	f.held.Add(1)
	if f.failAt < 0 {
		return f.fail()
	}
	return nil
}

func (f *faultOp) fail() error {
	if f.cancel != nil {
		f.cancel()
	}
	return f.err
}

func (f *faultOp) Next(ctx context.Context) (*coldata.Batch, error) {
	b, err := f.Operator.Next(ctx)
	if err != nil {
		return nil, err
	}
	if f.nexts == f.failAt {
		return nil, f.fail()
	}
	f.nexts++
	return b, nil
}

func (f *faultOp) Close() error {
	f.held.Add(-1)
	return f.Operator.Close()
}

// deviceOOM is an allocation refused by a 1 MiB device pool, as gpuexec
// wraps it.
func deviceOOM() error {
	return fmt.Errorf("gpu: allocating 4096 bytes of device memory: %w", &memory.OutOfMemoryError{Requested: 4096, Limit: 1 << 20, InUse: 1 << 20})
}

// readAll reads a reader's first column (BIGINT) to the end.
func readAll(rdr array.RecordReader) ([]int64, error) {
	defer rdr.Release()
	var out []int64
	for rdr.Next() {
		col := rdr.Record().Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			out = append(out, col.Value(i))
		}
	}
	return out, rdr.Err()
}

// TestAutoFallbackOnDeviceOOM: in auto mode a SELECT whose GPU attempt
// runs out of device memory before handing out a batch runs again on the
// CPU (after the attempt is closed) and says so; after a batch, with
// another error, on cancellation, and in strict gpu or cpu mode the error
// stands.
func TestAutoFallbackOnDeviceOOM(t *testing.T) {
	const q = "SELECT a FROM t WHERE a > 1 ORDER BY a"
	want := []int64{2, 3}
	kernelFault := errors.New("gpu: kernel fault")
	cases := []struct {
		name     string
		device   string // requested mode
		failAt   int
		err      error
		cancel   bool
		fallback bool  // the answer comes from the CPU re-run
		wantErr  error // else: errors.Is the query's error
		wantKind errkind.Kind
	}{
		{name: "oom at open", device: "auto", failAt: -1, err: deviceOOM(), fallback: true},
		{name: "oom at first batch", device: "auto", failAt: 0, err: deviceOOM(), fallback: true},
		{name: "oom after a batch", device: "auto", failAt: 1, err: deviceOOM(), wantKind: errkind.OutOfMemory},
		{name: "other error", device: "auto", failAt: 0, err: kernelFault, wantErr: kernelFault},
		{name: "cancelled", device: "auto", failAt: 0, err: deviceOOM(), cancel: true, wantKind: errkind.OutOfMemory},
		{name: "strict gpu", device: "gpu", failAt: 0, err: deviceOOM(), wantKind: errkind.OutOfMemory},
		{name: "strict gpu at open", device: "gpu", failAt: -1, err: deviceOOM(), wantKind: errkind.OutOfMemory},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(Options{Device: "auto"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, stmt := range []string{"CREATE TABLE t (a BIGINT)", "INSERT INTO t VALUES (3)", "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)"} {
				if _, err := db.Exec(context.Background(), stmt); err != nil {
					t.Fatal(err)
				}
			}
			db.mu.Lock()
			db.requested = c.device // without a GPU, the mode alone
			db.mu.Unlock()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var held atomic.Int64
			attempts, cpuRuns := 0, 0
			db.hooks.gpuAttempt = func(op operators.Operator) operators.Operator {
				attempts++
				f := &faultOp{Operator: op, failAt: c.failAt, err: c.err, held: &held}
				if c.cancel {
					f.cancel = cancel
				}
				return f
			}
			db.hooks.beforeCPU = func() {
				cpuRuns++
				if n := held.Load(); n != 0 {
					t.Errorf("the CPU run starts while %d GPU attempts hold their memory", n)
				}
			}
			for run := 1; run <= 2; run++ { // the second run uses the cached plan
				rdr, err := db.Query(ctx, q)
				var got []int64
				if err == nil {
					got, err = readAll(rdr)
				}
				if c.fallback {
					if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("run %d: %v, %v; want %v", run, got, err, want)
					}
					if on := rdr.(*opReader).RanOn(); !strings.HasPrefix(on, "cpu: the gpu was out of memory (needed 4096 bytes over a limit of 1048576 bytes, waited 0s)") {
						t.Errorf("run %d: RanOn %q", run, on)
					}
				} else {
					if err == nil {
						t.Fatalf("run %d: no error, rows %v", run, got)
					}
					if c.wantErr != nil && !errors.Is(err, c.wantErr) {
						t.Fatalf("run %d: error %v, want %v", run, err, c.wantErr)
					}
					if c.wantErr == nil && errkind.Of(err) != c.wantKind {
						t.Fatalf("run %d: error %v of kind %v, want %v", run, err, errkind.Of(err), c.wantKind)
					}
				}
				if held.Load() != 0 {
					t.Fatalf("run %d: %d attempts left open", run, held.Load())
				}
				if c.cancel {
					break
				}
			}
			runs := 2
			if c.cancel {
				runs = 1
			}
			wantFallbacks := 0
			if c.fallback {
				wantFallbacks = runs
			}
			if runs == 2 && db.Stats().Plans.Hits == 0 {
				t.Fatal("the second run did not use the cached plan")
			}
			if attempts != runs || cpuRuns != wantFallbacks || db.Stats().CPUFallbacks != uint64(wantFallbacks) {
				t.Fatalf("%d attempts, %d CPU runs, Stats.CPUFallbacks %d; want %d, %d", attempts, cpuRuns, db.Stats().CPUFallbacks, runs, wantFallbacks)
			}
		})
	}
}

// TestAutoFallbackCPUMode: with device cpu no statement is a GPU attempt.
func TestAutoFallbackCPUMode(t *testing.T) {
	db, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.hooks.gpuAttempt = func(op operators.Operator) operators.Operator {
		t.Error("a cpu database made a GPU attempt")
		return op
	}
	rdr, err := db.Query(context.Background(), "SELECT 1")
	if err == nil {
		_, err = readAll(rdr)
	}
	if err != nil || db.Stats().CPUFallbacks != 0 {
		t.Fatalf("%v, %d fallbacks", err, db.Stats().CPUFallbacks)
	}
}

// TestAutoFallbackExplainAnalyze: EXPLAIN ANALYZE of a statement whose
// GPU attempt ran out of memory shows the CPU plan it ran, after a first
// line saying why; its warnings are the CPU run's alone.
func TestAutoFallbackExplainAnalyze(t *testing.T) {
	db, err := Open(Options{Device: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, stmt := range []string{"CREATE TABLE t (a BIGINT)", "INSERT INTO t VALUES (0), (1), (2)"} {
		if _, err := db.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	var held atomic.Int64
	db.hooks.gpuAttempt = func(op operators.Operator) operators.Operator {
		return &faultOp{Operator: op, failAt: 0, err: deviceOOM(), held: &held}
	}
	db.hooks.beforeCPU = func() {
		if held.Load() != 0 {
			t.Error("the CPU run starts before the GPU attempt is closed")
		}
	}
	rdr, err := db.Query(ctx, "EXPLAIN ANALYZE SELECT 10 / a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rdr.Next() {
		col := rdr.Record().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			lines = append(lines, col.Value(i))
		}
	}
	rdr.Release()
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 2 || lines[0] != "ran on the cpu: the gpu was out of memory (needed 4096 bytes over a limit of 1048576 bytes, waited 0s)" ||
		!strings.Contains(strings.Join(lines, "\n"), "rows=3") {
		t.Fatalf("EXPLAIN ANALYZE:\n%s", strings.Join(lines, "\n"))
	}
	if db.Stats().CPUFallbacks != 1 || !strings.Contains(db.Stats().String(), "auto: 1 statements ran on the cpu") {
		t.Fatalf("stats %+v", db.Stats())
	}
	// A query's warnings come from the CPU run alone, though the attempt
	// evaluated (and warned about) its first batch too.
	rdr, err = db.Query(ctx, "SELECT 10 / a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	for rdr.Next() {
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if n := rdr.(WarningReader).WarningCount(); n != 1 {
		t.Fatalf("%d warnings, want 1 (division by 0 once)", n)
	}
	rdr.Release()
	if n := db.session.WarningCount(); n != 1 {
		t.Fatalf("session counts %d warnings, want 1", n)
	}
}
