package gpuexec

import (
	"bytes"
	"context"
	"math/rand"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// threadedDriver is the fake driver with its context-thread work run by
// one goroutine, as the CUDA driver runs it on one locked OS thread, so
// that a lock taken on the context thread while another goroutine holds it
// and waits for the thread deadlocks here too. Page-locking sleeps, which
// widens the window in which a growing pool holds its lock.
type threadedDriver struct {
	*fakeDriver
	work   chan func()
	worker atomic.Int64
}

func newThreadedDriver() *threadedDriver {
	t := &threadedDriver{fakeDriver: newFakeDriver(), work: make(chan func())}
	started := make(chan struct{})
	go func() {
		t.worker.Store(goroutineID())
		close(started)
		for fn := range t.work {
			fn()
		}
	}()
	<-started
	return t
}

// goroutineID reads the calling goroutine's number from its stack header.
func goroutineID() int64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	id, _ := strconv.ParseInt(string(s[:bytes.IndexByte(s, ' ')]), 10, 64)
	return id
}

func (t *threadedDriver) onThread() bool { return goroutineID() == t.worker.Load() }

func (t *threadedDriver) do(fn func() error) error {
	if t.onThread() {
		return fn()
	}
	done := make(chan error, 1)
	t.work <- func() { done <- fn() }
	return <-done
}

func (t *threadedDriver) await(done <-chan struct{}) {
	if !t.onThread() {
		<-done
		return
	}
	for {
		select {
		case <-done:
			return
		case fn := <-t.work:
			fn()
		}
	}
}

func (t *threadedDriver) hostRegister(b []byte) error {
	time.Sleep(2 * time.Millisecond)
	return t.fakeDriver.hostRegister(b)
}

// A result download on the context thread and a lend from another
// goroutine (as WarmPools does at start) race for the first slab of the
// result pool: the lender grows the pool under its lock and page-locks on
// the context thread, so the download must not take that lock there (it
// did, and the regression suite hung with GSQL_TEST_DEVICE=gpu).
func TestResultPoolLendRacesDownload(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(3))
	hb := randBatchLight(r, 1000)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; i < 40; i++ {
			d, err := newDevice(newThreadedDriver(), Options{CacheDir: t.TempDir()})
			if err != nil {
				t.Error(err)
				return
			}
			db, err := d.Upload(ctx, hb)
			if err != nil {
				t.Error(err)
				return
			}
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				if blk := d.results.Lend(1); blk != nil {
					blk.Release()
				}
			}()
			go func() {
				defer wg.Done()
				got, err := d.DownloadResult(ctx, db)
				if err != nil {
					t.Error(err)
					return
				}
				got.ReleaseOwner()
			}()
			wg.Wait()
			db.Release()
			if err := d.Trim(); err != nil {
				t.Error(err)
			}
			d.Close()
		}
	}()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("deadlock: lend and download still waiting after 60 s\n%s", buf[:runtime.Stack(buf, true)])
	}
}
