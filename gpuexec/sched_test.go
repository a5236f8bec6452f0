package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitFor polls cond until it holds (or fails the test after a while):
// goroutines reaching a queue have no event to wait on.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestSchedulerTakesQueriesInTurn: with the context thread busy, a large
// query queues many closures (one per goroutine) and then small queries
// queue theirs; once the thread is free, the lanes are served round-robin
// one closure each, so the small queries' work runs before the large
// query's queue drains (in arrival order it would run last).
func TestSchedulerTakesQueriesInTurn(t *testing.T) {
	cases := []struct {
		name   string
		queued []struct {
			name string
			n    int
		} // in arrival order
		want string // the order the closures ran in, one letter each
	}{
		{name: "one small behind a large", queued: []struct {
			name string
			n    int
		}{{"L", 8}, {"S", 1}}, want: "LLSLLLLLL"},
		{name: "two small behind a large", queued: []struct {
			name string
			n    int
		}{{"L", 6}, {"S", 1}, {"T", 2}}, want: "LLSTLTLLL"},
		{name: "two large alternate", queued: []struct {
			name string
			n    int
		}{{"A", 4}, {"B", 4}}, want: "AABABABB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			drv := newThreadedDriver()
			d, err := newDevice(drv, Options{CacheDir: t.TempDir(), NoResultPool: true})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			gate := make(chan struct{})
			busy := make(chan struct{})
			go drv.do(func() error { close(busy); <-gate; return nil })
			<-busy
			var mu sync.Mutex
			var order strings.Builder
			var wg sync.WaitGroup
			total := 0
			for _, q := range c.queued {
				h := d.ForQuery(&Waits{})
				for i := 0; i < q.n; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						err := h.Do(func() error {
							mu.Lock()
							order.WriteString(q.name)
							mu.Unlock()
							return nil
						})
						if err != nil {
							t.Error(err)
						}
					}()
					total++
					// One at a time, so that arrival order is known: the
					// first holds the baton (handed to the busy thread),
					// the others wait in their lanes.
					waitFor(t, "the closure to queue", func() bool { return d.sched.queued() == total-1 })
				}
			}
			close(gate)
			wg.Wait()
			if got := order.String(); got != c.want {
				t.Errorf("ran in order %q, want %q", got, c.want)
			}
			if n := d.sched.queued(); n != 0 || d.sched.baton || len(d.sched.lanes) != 0 {
				t.Errorf("after the work: %d queued, baton %v, %d lanes", n, d.sched.baton, len(d.sched.lanes))
			}
		})
	}
}

// BenchmarkSchedulerSmallUnderLoad: the time a small query's trip to the
// context thread takes while a large query's 16 goroutines keep it busy
// with 200µs closures, taken in turn (the scheduler) or in arrival order
// (straight to the driver, as before it); "idle" is the trip alone, the
// scheduler's own cost. One iteration is one trip.
func BenchmarkSchedulerSmallUnderLoad(b *testing.B) {
	for _, mode := range []string{"turns", "arrival", "idle-turns", "idle-arrival"} {
		b.Run(mode, func(b *testing.B) {
			load := 16
			if strings.HasPrefix(mode, "idle-") {
				mode, load = strings.TrimPrefix(mode, "idle-"), 0
			}
			drv := newThreadedDriver()
			d, err := newDevice(drv, Options{CacheDir: b.TempDir(), NoResultPool: true})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			large, small := d.ForQuery(&Waits{}), d.ForQuery(&Waits{})
			spin := func() error {
				for start := time.Now(); time.Since(start) < 200*time.Microsecond; {
				}
				return nil
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for i := 0; i < load; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						if mode == "turns" {
							_ = large.Do(spin)
						} else {
							_ = drv.do(spin)
						}
					}
				}()
			}
			time.Sleep(time.Millisecond)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mode == "turns" {
					_ = small.Do(func() error { return nil })
				} else {
					_ = drv.do(func() error { return nil })
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
		})
	}
}

// TestSchedulerAwaitOnThread: a query's closure that waits on the
// context thread (await, as for another query's compile) for work that
// other queries must still bring to the thread does not deadlock on the
// turn: the turn passes on when a closure starts, and await serves the
// closures handed to the driver meanwhile.
func TestSchedulerAwaitOnThread(t *testing.T) {
	drv := newThreadedDriver()
	d, err := newDevice(drv, Options{CacheDir: t.TempDir(), NoResultPool: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	qa, qb, qc := d.ForQuery(&Waits{}), d.ForQuery(&Waits{}), d.ForQuery(&Waits{})
	loaded := make(chan struct{})
	waiting := make(chan struct{})
	finished := make(chan error, 1)
	go func() {
		finished <- qb.Do(func() error {
			close(waiting)
			drv.await(loaded) // B waits on the thread for A's load
			return nil
		})
	}()
	<-waiting
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ { // C queues work of its own meanwhile
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := qc.Do(func() error { return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	go func() {
		if err := qa.Do(func() error { return nil }); err != nil {
			t.Error(err)
		}
		close(loaded)
	}()
	select {
	case err := <-finished:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: the closure awaiting on the thread never finished")
	}
	wg.Wait()
}

// TestSchedulerConcurrentQueries: queries of several goroutines each
// upload and download batches through their own query handles on a
// device whose context thread is one goroutine (as CUDA's is), taking
// turns; every batch comes back as it went, and the turns end empty.
func TestSchedulerConcurrentQueries(t *testing.T) {
	drv := newThreadedDriver()
	d, err := newDevice(drv, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for q := 0; q < 6; q++ {
		h := d.ForQuery(&Waits{})
		workers, rows := 1, 200
		if q == 0 {
			workers, rows = 6, 20_000 // the large query
		}
		for g := 0; g < workers; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewSource(int64(q*100 + g)))
				for i := 0; i < 4; i++ {
					hb := randBatchLight(r, rows)
					db, err := h.Upload(ctx, hb)
					if err != nil {
						t.Error(err)
						return
					}
					got, err := h.Download(ctx, db)
					db.Release()
					if err != nil {
						t.Error(err)
						return
					}
					requireEqualBatch(t, hb, got, fmt.Sprintf("query %d worker %d batch %d", q, g, i))
				}
			}()
		}
	}
	wg.Wait()
	if n := d.sched.queued(); n != 0 || d.sched.baton || len(d.sched.lanes) != 0 {
		t.Errorf("after the work: %d queued, baton %v, %d lanes", n, d.sched.baton, len(d.sched.lanes))
	}
}
