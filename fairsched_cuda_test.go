//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	gsql "github.com/gsqlengine/gsql"
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
