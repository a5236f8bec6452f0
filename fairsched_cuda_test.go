//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/gpuexec"
)

// TestGPUFairLargeAndSmall runs large and many small queries at once on
// one GPU (their work takes the context thread in turn, each admitted
// with its share of device memory) and checks every answer against the
// CPU's. A strict database and an auto one with a tiny admission bound
// (whose queries may run on the CPU instead) share the device. Run on a
// GPU machine (-tags cuda); it checks answers, not timing.
func TestGPUFairLargeAndSmall(t *testing.T) {
	const large, small = 3_000_000, 5_000
	cpu := openFair(t, gsql.Options{Device: "cpu"}, large, small)
	want := map[string]string{}
	for _, q := range append(append([]string{}, fairLarge...), fairSmall...) {
		want[q] = strings.Join(rowsOf(t, cpu, q), "\n")
	}
	strict := openFair(t, gsql.Options{Device: "gpu"}, large, small)
	auto := openFair(t, gsql.Options{Device: "auto", AutoGPUMinRows: -1, AdmissionWait: 1}, large, small)
	if strict.Stats().GPU == nil {
		t.Skip("no GPU")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	check := func(db *gsql.DB, q string) {
		got, err := queryText(ctx, db, q)
		if err != nil {
			errs <- fmt.Errorf("%s: %w", q, err)
			return
		}
		if got != want[q] {
			errs <- fmt.Errorf("%s:\ngot  %q\nwant %q", q, got, want[q])
		}
	}
	for _, db := range []*gsql.DB{strict, auto} {
		for _, q := range fairLarge {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < 3; r++ {
					check(db, q)
				}
			}()
		}
		for g := 0; g < 12; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < 20; r++ {
					check(db, fairSmall[(g+r)%len(fairSmall)])
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 5 {
			t.Error(err)
		}
	}
	if st := strict.Stats().GPU; st == nil || st.Launches == 0 {
		t.Fatalf("the strict database ran nothing on the GPU: %+v", st)
	}
	t.Logf("waits on the device: %+v; auto fallbacks %d", strict.Stats().GPU.Waits, auto.Stats().CPUFallbacks)
}

// TestGPUAdmissionWait fills the device's admission queue from outside
// (a handle on the same shared device state): an auto query then waits
// past its bound and runs on the CPU, saying so in EXPLAIN ANALYZE, and a
// strict one waits until a share comes back; both answer as the CPU does.
func TestGPUAdmissionWait(t *testing.T) {
	dev, err := gpuexec.Open(gpuexec.Options{}) // the state the databases below share
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer dev.Close()
	const q = "SELECT visibility, COUNT(*), MIN(name) FROM people GROUP BY visibility ORDER BY visibility"
	cpu := openFair(t, gsql.Options{Device: "cpu"}, 300_000, 10)
	want := strings.Join(rowsOf(t, cpu, q), "\n")
	auto := openFair(t, gsql.Options{Device: "auto", AutoGPUMinRows: -1, AdmissionWait: 50 * time.Millisecond}, 300_000, 10)
	strict := openFair(t, gsql.Options{Device: "gpu"}, 300_000, 10)
	// Strict compiles the query's kernels now, for both (one kernel
	// cache): auto would otherwise run on the CPU while they compile.
	if got := strings.Join(rowsOf(t, strict, q), "\n"); got != want {
		t.Fatalf("strict: %q, want %q", got, want)
	}
	waitCompiles(t, strict)
	adm := dev.Admission()
	var held []*gpuexec.Ticket
	for adm.InUse()+adm.Share(adm.Capacity()) <= adm.Capacity() {
		tk, _, err := adm.Admit(context.Background(), adm.Capacity(), 0)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tk)
	}
	defer func() {
		for _, tk := range held {
			tk.Release()
		}
	}()
	lines := rowsOf(t, auto, "EXPLAIN ANALYZE "+q)
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "admission wait past its 50ms bound") || !strings.HasSuffix(lines[0], ": ran on the cpu") {
		t.Fatalf("EXPLAIN ANALYZE while the device is full:\n%s", strings.Join(lines, "\n"))
	}
	if got, err := queryText(context.Background(), auto, q); err != nil || got != want {
		t.Fatalf("auto while the device is full: %q, %v; want %q", got, err, want)
	}
	go func() {
		time.Sleep(100 * time.Millisecond) // past auto's bound: strict waits on
		held[0].Release()
	}()
	if got, err := queryText(context.Background(), strict, q); err != nil || got != want {
		t.Fatalf("strict after waiting: %q, %v; want %q", got, err, want)
	}
	if st := strict.Stats().GPU; st == nil || st.Admission.TimedOut == 0 || st.Admission.Waited < 2 {
		t.Errorf("admission stats %+v", st)
	}
}
