package operators

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// workGroup is a sync.WaitGroup whose goroutines' panics reach the
// goroutine that waits: a goroutine defers Done, which catches its panic,
// and Wait raises the first one again, where the statement's recovery
// turns it into an error instead of a crash of the process.
type workGroup struct {
	sync.WaitGroup
	mu       sync.Mutex
	panicked any
}

// Done marks a goroutine finished. Deferred, it catches the goroutine's
// panic (recover works in the deferred function itself).
func (g *workGroup) Done() {
	if r := recover(); r != nil {
		g.mu.Lock()
		if g.panicked == nil {
			g.panicked = fmt.Sprintf("%v (in a worker goroutine)\n%s", r, debug.Stack())
		}
		g.mu.Unlock()
	}
	g.WaitGroup.Done()
}

// Wait waits for the goroutines and raises the first panic among them.
func (g *workGroup) Wait() {
	g.WaitGroup.Wait()
	if g.panicked != nil {
		panic(g.panicked)
	}
}
