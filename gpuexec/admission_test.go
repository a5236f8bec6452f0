package gpuexec

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAdmissionShare: a query reserves its estimate, at least
// MinAdmission and at most AdmissionShare of the capacity.
func TestAdmissionShare(t *testing.T) {
	a := NewAdmission(64 << 20)
	for _, c := range []struct{ want, got uint64 }{
		{0, MinAdmission},
		{5 << 20, 5 << 20},
		{16 << 20, 16 << 20},
		{1 << 30, 16 << 20},
	} {
		if got := a.Share(c.want); got != c.got {
			t.Errorf("Share(%d) = %d, want %d", c.want, got, c.got)
		}
	}
}

// TestAdmissionFIFO: queries whose shares do not fit wait and are let in
// in arrival order as shares come back, never a later small one before
// the head.
func TestAdmissionFIFO(t *testing.T) {
	ctx := context.Background()
	a := NewAdmission(40 << 20) // shares up to 10 MiB: four at once
	var held []*Ticket
	for i := 0; i < 4; i++ {
		tk, waited, err := a.Admit(ctx, 10<<20, 0)
		if err != nil || waited != 0 {
			t.Fatalf("admit %d: waited %s, %v", i, waited, err)
		}
		held = append(held, tk)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	sizes := []uint64{10 << 20, 1 << 20, 10 << 20} // the small one second
	for i, size := range sizes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, _, err := a.Admit(ctx, size, 0)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			_ = tk // held to the end: the test releases only the first four
		}()
		waitFor(t, "the query to queue", func() bool { return a.Waiting() == i+1 })
	}
	admitted := func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), order...)
	}
	// 40 MiB reserved: the head (10 MiB) waits, and so does the 1 MiB one
	// behind it although it would fit after any release.
	held[0].Release()
	waitFor(t, "the head to be admitted", func() bool { return len(admitted()) == 1 })
	held[1].Release() // 31 MiB with the small one: the last waits
	waitFor(t, "the small one to be admitted", func() bool { return len(admitted()) == 2 })
	held[2].Release()
	waitFor(t, "the last to be admitted", func() bool { return len(admitted()) == 3 })
	wg.Wait()
	if got := admitted(); got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("admitted in order %v, want [0 1 2]", got)
	}
	if st := a.Stats(); st.Admitted != 7 || st.Waited != 3 || st.Waiting != 0 || st.InUse != 31<<20 {
		t.Errorf("stats %+v", st)
	}
	held[1].Release() // twice: nothing
	if got := a.InUse(); got != 31<<20 {
		t.Errorf("in use %d after a double release, want %d", got, 31<<20)
	}
}

// TestAdmissionCancelFreesPlace: cancelling a waiting query takes it out
// of the queue at once, and the query behind it, which now fits, goes in.
func TestAdmissionCancelFreesPlace(t *testing.T) {
	a := NewAdmission(8 << 20) // shares up to 2 MiB
	big, _, err := a.Admit(context.Background(), 2<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, _, err := a.Admit(context.Background(), 2<<20, 0); err != nil {
			t.Fatal(err)
		}
	}
	// 7 of 8 MiB reserved: a 2 MiB head waits, a 1 MiB one behind it too.
	if _, _, err := a.Admit(context.Background(), 1<<20, 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	headErr := make(chan error, 1)
	go func() {
		_, _, err := a.Admit(ctx, 2<<20, 0)
		headErr <- err
	}()
	waitFor(t, "the head to queue", func() bool { return a.Waiting() == 1 })
	next := make(chan error, 1)
	go func() {
		_, _, err := a.Admit(context.Background(), 1<<20, 0)
		next <- err
	}()
	waitFor(t, "the second to queue", func() bool { return a.Waiting() == 2 })
	cancel()
	if err := <-headErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	// The 1 MiB share fits in the 1 MiB left: in as soon as the head left.
	select {
	case err := <-next:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the query behind a cancelled one stayed queued")
	}
	if got, want := a.InUse(), uint64(8<<20); got != want {
		t.Errorf("in use %d, want %d (the cancelled query holds nothing)", got, want)
	}
	big.Release()
	if a.Waiting() != 0 {
		t.Errorf("%d still waiting", a.Waiting())
	}
}

// TestAdmissionBound: a query that waits past its bound gets
// ErrAdmissionWait and holds nothing; without a bound it waits on.
func TestAdmissionBound(t *testing.T) {
	a := NewAdmission(4 << 20) // shares up to 1 MiB
	var held []*Ticket
	for i := 0; i < 4; i++ {
		tk, _, err := a.Admit(context.Background(), 1<<20, 0)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tk)
	}
	tk, waited, err := a.Admit(context.Background(), 1<<20, 20*time.Millisecond)
	if !errors.Is(err, ErrAdmissionWait) || tk != nil || waited < 20*time.Millisecond {
		t.Fatalf("bounded wait: ticket %v, waited %s, err %v", tk, waited, err)
	}
	if a.Waiting() != 0 || a.InUse() != 4<<20 {
		t.Errorf("after the timeout: %d waiting, %d in use", a.Waiting(), a.InUse())
	}
	got := make(chan *Ticket, 1)
	go func() {
		tk, _, err := a.Admit(context.Background(), 1<<20, 0)
		if err != nil {
			t.Error(err)
		}
		got <- tk
	}()
	time.Sleep(30 * time.Millisecond) // past the bound above: still waiting
	if a.Waiting() != 1 {
		t.Fatalf("unbounded wait left the queue")
	}
	held[3].Release()
	if tk := <-got; tk == nil || tk.Bytes() != 1<<20 {
		t.Errorf("unbounded wait got %v", tk)
	}
	if st := a.Stats(); st.TimedOut != 1 {
		t.Errorf("timed out %d, want 1", st.TimedOut)
	}
}

// TestAdmitQueryCountsWait: a query handle's admission wait shows in its
// waits (EXPLAIN ANALYZE's line) and the device's totals; the device's
// queue is sized by its pool limit.
func TestAdmitQueryCountsWait(t *testing.T) {
	d, _ := newFakeDevice(t, Options{PoolLimit: 8 << 20})
	defer d.Close()
	if c := d.Admission().Capacity(); c != 8<<20 {
		t.Fatalf("capacity %d, want the pool limit", c)
	}
	var held []*Ticket
	for i := 0; i < 4; i++ {
		tk, err := d.AdmitQuery(context.Background(), 2<<20, 0)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tk)
	}
	w := &Waits{}
	q := d.ForQuery(w)
	go func() {
		time.Sleep(10 * time.Millisecond)
		held[0].Release()
	}()
	tk, err := q.AdmitQuery(context.Background(), 2<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	tk.Release()
	if w.Admission.Count() != 1 || w.Admission.Total() <= 0 || !strings.Contains(w.String(), " admission=1/") {
		t.Errorf("query waits %s", w)
	}
	if st := d.Stats(); st.Waits.AdmissionWaits != 1 {
		t.Errorf("device totals %+v", st.Waits)
	}
}
