package gpuexec

import "sync"

// scheduler makes the queries that share a context thread take it in
// turn. Every CUDA call of a query runs there as one closure (an upload,
// a kernel sequence over a batch, a download); submitted straight to the
// driver they run in arrival order, so a query with many goroutines (a
// parallel scan, an exchange) queues many closures, and a small query's
// few wait behind all of them. Here each query has a lane of its waiting
// closures and the lanes with work are served round-robin, one closure
// each.
//
// At most one scheduled closure is handed to the driver and not yet
// started (the baton); when it starts, the next one is picked. Handing on
// at the start rather than the end keeps the thread's own waits (await,
// which serves closures while a compile loads its module) from
// deadlocking on a baton held by the closure that waits, and leaves the
// thread a closure ready the moment the current one ends.
type scheduler struct {
	mu    sync.Mutex
	baton bool             // a closure was handed to the driver and has not started
	lanes map[*Waits]*lane // lanes with waiting closures
	ring  []*lane          // the same lanes, in turn order
}

type lane struct {
	key     *Waits
	waiting []chan struct{} // each closed to let its closure go to the driver
}

// do runs fn on the context thread in the turn of query key; drv.do runs
// it. Called off the context thread only.
func (s *scheduler) do(drv driver, key *Waits, fn func() error) error {
	s.mu.Lock()
	if s.baton {
		turn := make(chan struct{})
		l := s.lanes[key]
		if l == nil {
			l = &lane{key: key}
			if s.lanes == nil {
				s.lanes = map[*Waits]*lane{}
			}
			s.lanes[key] = l
			s.ring = append(s.ring, l)
		}
		l.waiting = append(l.waiting, turn)
		s.mu.Unlock()
		<-turn // the baton is ours now
	} else {
		s.baton = true
		s.mu.Unlock()
	}
	started := false
	err := drv.do(func() error {
		started = true
		s.next()
		return fn()
	})
	if !started {
		// The driver refused it (closed): pass the baton on regardless.
		s.next()
	}
	return err
}

// next hands the baton to the head of the next lane in turn, or drops it
// when nothing waits.
func (s *scheduler) next() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ring) == 0 {
		s.baton = false
		return
	}
	l := s.ring[0]
	s.ring = s.ring[1:]
	turn := l.waiting[0]
	l.waiting = l.waiting[1:]
	if len(l.waiting) > 0 {
		s.ring = append(s.ring, l) // to the back: the others go first
	} else {
		delete(s.lanes, l.key)
	}
	close(turn)
}

// queued is the number of closures waiting for their turn.
func (s *scheduler) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.ring {
		n += len(l.waiting)
	}
	return n
}
