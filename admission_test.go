package gsql

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
)

// admissionDB is a database whose SELECTs count as GPU attempts in mode
// (the testHooks seam) and wait in a 4 MiB admission queue that other
// queries fill: the returned tickets hold it all.
func admissionDB(t *testing.T, mode string, wait time.Duration) (*DB, *gpuexec.Admission, []*gpuexec.Ticket) {
	t.Helper()
	db, err := Open(Options{Device: "auto", AdmissionWait: wait})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{"CREATE TABLE t (a BIGINT)", "INSERT INTO t VALUES (3), (1), (2)"} {
		if _, err := db.Exec(context.Background(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.mu.Lock()
	db.requested = mode // without a GPU, the mode alone
	db.mu.Unlock()
	db.hooks.gpuAttempt = func(op operators.Operator) operators.Operator { return op }
	adm := gpuexec.NewAdmission(4 << 20) // shares of 1 MiB at most
	db.hooks.admission = adm
	var held []*gpuexec.Ticket
	for i := 0; i < 4; i++ {
		tk, _, err := adm.Admit(context.Background(), 1<<20, 0)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tk)
	}
	return db, adm, held
}

// planLines reads EXPLAIN's one string column.
func planLines(t *testing.T, rdr array.RecordReader) []string {
	t.Helper()
	defer rdr.Release()
	var lines []string
	for rdr.Next() {
		col := rdr.Record().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			lines = append(lines, col.Value(i))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestAdmissionWaitFallsBackInAuto: in auto mode a query that waits for
// its share past AdmissionWait runs on the CPU, and RanOn, EXPLAIN
// ANALYZE and Stats.CPUFallbacks say so; it holds no place afterwards.
func TestAdmissionWaitFallsBackInAuto(t *testing.T) {
	db, adm, _ := admissionDB(t, "auto", 20*time.Millisecond)
	ctx := context.Background()
	for run := 1; run <= 2; run++ { // the second from the plan cache
		rdr, err := db.Query(ctx, "SELECT a FROM t WHERE a > 1 ORDER BY a")
		if err != nil {
			t.Fatal(err)
		}
		on := rdr.(*opReader).RanOn()
		got, err := readAll(rdr)
		if err != nil || fmt.Sprint(got) != "[2 3]" {
			t.Fatalf("run %d: %v, %v", run, got, err)
		}
		if !strings.HasPrefix(on, "cpu: admission wait past its 20ms bound for a 1048576-byte share of device memory") {
			t.Errorf("run %d: RanOn %q", run, on)
		}
	}
	rdr, err := db.Query(ctx, "EXPLAIN ANALYZE SELECT a FROM t WHERE a > 1")
	if err != nil {
		t.Fatal(err)
	}
	lines := planLines(t, rdr)
	first := regexp.MustCompile(`^admission wait past its 20ms bound .*\(4194304 of 4194304 bytes reserved by other queries\): ran on the cpu$`)
	if len(lines) < 2 || !first.MatchString(lines[0]) || !strings.Contains(strings.Join(lines, "\n"), "rows=2") {
		t.Fatalf("EXPLAIN ANALYZE:\n%s", strings.Join(lines, "\n"))
	}
	if n := db.Stats().CPUFallbacks; n != 3 {
		t.Errorf("CPUFallbacks %d, want 3", n)
	}
	if st := adm.Stats(); st.Waiting != 0 || st.InUse != 4<<20 || st.TimedOut != 3 {
		t.Errorf("admission after the fallbacks: %+v", st)
	}
}

// TestAdmissionStrictWaits: with device gpu a query waits past the bound
// until a share comes back, then runs and gives its own back when its
// reader is done; a waiting query that is cancelled leaves the queue at
// once with the context's error.
func TestAdmissionStrictWaits(t *testing.T) {
	db, adm, held := admissionDB(t, "gpu", 10*time.Millisecond)
	go func() {
		time.Sleep(40 * time.Millisecond) // past the bound: strict waits on
		held[0].Release()
	}()
	rdr, err := db.Query(context.Background(), "SELECT a FROM t ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	if adm.InUse() != 4<<20 {
		t.Errorf("running query's share not reserved: %d in use", adm.InUse())
	}
	got, err := readAll(rdr)
	if err != nil || fmt.Sprint(got) != "[1 2 3]" {
		t.Fatalf("%v, %v", got, err)
	}
	if on := rdr.(*opReader).RanOn(); strings.Contains(on, "admission") {
		t.Errorf("RanOn %q", on)
	}
	if adm.InUse() != 3<<20 {
		t.Errorf("%d in use after the query, want its share back", adm.InUse())
	}

	// Fill the queue again, then cancel a waiting query.
	tk, _, err := adm.Admit(context.Background(), 1<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Release()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := db.Query(ctx, "SELECT a FROM t")
		errc <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); adm.Waiting() != 1; time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("the query never queued")
		}
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled query kept waiting")
	}
	if st := adm.Stats(); st.Waiting != 0 || st.InUse != 4<<20 {
		t.Errorf("after the cancel: %+v", st)
	}
	if db.Stats().CPUFallbacks != 0 {
		t.Errorf("strict mode fell back")
	}
}
