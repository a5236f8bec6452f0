package gsql

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/operators"
)

// TestCPUPlanMemory: in auto mode a cached statement whose GPU attempts
// ran out of device memory cpuPlanAfter times in a row runs its CPU plan
// without an attempt for cpuPlanFor, and RanOn and EXPLAIN (ANALYZE) say
// so; a GPU run that goes through restarts the count, and once the time
// is up the GPU plan is tried again.
func TestCPUPlanMemory(t *testing.T) {
	const q = "SELECT a FROM t WHERE a > 1 ORDER BY a"
	cases := []struct {
		name string
		runs string // each run's attempt: o runs out of device memory, g goes through
		cpu  bool   // the next run uses the remembered CPU plan
	}{
		{name: "three in a row", runs: "ooo", cpu: true},
		{name: "after a success", runs: "gooo", cpu: true},
		{name: "two only", runs: "oo"},
		{name: "broken by a success", runs: "oogoo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(Options{Device: "auto"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			for _, stmt := range []string{"CREATE TABLE t (a BIGINT)", "INSERT INTO t VALUES (3), (1), (2)"} {
				if _, err := db.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			db.mu.Lock()
			db.requested = "auto"
			db.mu.Unlock()
			var held atomic.Int64
			attempts := 0
			oom := false
			db.hooks.gpuAttempt = func(op operators.Operator) operators.Operator {
				attempts++
				if !oom {
					return op
				}
				return &faultOp{Operator: op, failAt: -1, err: deviceOOM(), held: &held}
			}
			run := func(i int) string {
				t.Helper()
				rdr, err := db.Query(ctx, q)
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				on := rdr.(*opReader).RanOn()
				got, err := readAll(rdr)
				if err != nil || fmt.Sprint(got) != "[2 3]" {
					t.Fatalf("run %d: %v, %v", i, got, err)
				}
				return on
			}
			for i, r := range c.runs {
				oom = r == 'o'
				run(i)
			}
			if attempts != len(c.runs) {
				t.Fatalf("%d attempts in %d runs", attempts, len(c.runs))
			}
			oom = true
			on := run(len(c.runs))
			const remembered = "cpu: its gpu plan ran out of device memory 3 times in a row; the cpu plan is remembered until "
			if !c.cpu {
				if attempts != len(c.runs)+1 || strings.HasPrefix(on, remembered) {
					t.Fatalf("no CPU plan to remember, yet the run made %d attempts in all and ran on %q", attempts, on)
				}
				return
			}
			if attempts != len(c.runs) || !strings.HasPrefix(on, remembered) {
				t.Fatalf("remembered CPU plan: %d attempts, RanOn %q", attempts, on)
			}
			// With the GPU plan evicted from the cache, the memory holds.
			db.plans.mu.Lock()
			db.plans.entries, db.plans.order = nil, nil
			db.plans.mu.Unlock()
			if on := run(len(c.runs)); attempts != len(c.runs) || !strings.HasPrefix(on, remembered) {
				t.Fatalf("remembered CPU plan after eviction: %d attempts, RanOn %q", attempts, on)
			}
			if n := db.Stats().Plans.CPURuns; n != 2 {
				t.Errorf("Plans.CPURuns %d, want 2", n)
			}
			for _, ex := range []struct{ stmt, first string }{
				{"EXPLAIN " + q, "cpu plan: its gpu plan ran out of device memory 3 times in a row"},
				{"EXPLAIN ANALYZE " + q, "ran on the cpu: its gpu plan ran out of device memory 3 times in a row"},
			} {
				rdr, err := db.Query(ctx, ex.stmt)
				if err != nil {
					t.Fatal(err)
				}
				lines := planLines(t, rdr)
				if len(lines) < 2 || !strings.HasPrefix(lines[0], ex.first) || strings.Contains(strings.Join(lines, "\n"), "GPU") {
					t.Errorf("%s:\n%s", ex.stmt, strings.Join(lines, "\n"))
				}
			}
			if attempts != len(c.runs) {
				t.Fatalf("EXPLAIN made a GPU attempt")
			}
			// Time up: the GPU plan is tried again (and succeeds).
			db.plans.mu.Lock()
			for _, m := range db.plans.memos {
				m.until = time.Now().Add(-time.Second)
			}
			db.plans.mu.Unlock()
			oom = false
			if on := run(len(c.runs) + 1); on != "gpu" && on != "cpu" || attempts != len(c.runs)+1 {
				t.Fatalf("after the time: %d attempts, RanOn %q", attempts, on)
			}
			if held.Load() != 0 {
				t.Fatalf("%d attempts left open", held.Load())
			}
		})
	}
}
