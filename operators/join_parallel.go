package operators

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
)

// Probing a hash join's left batches on several goroutines.
//
// Once the build side is hashed, the index, the build rows and the join's
// settings are only read, so left batches probe independently, each with
// its own scratch (probeState). One goroutine reads the left input; a
// batch goes to a worker as soon as one is free, and its output batches
// come back in input order, so the join's output is the same as on one
// goroutine. A chain of joins over a scan (TPC-H Q5, Q8, Q9) then runs as
// a pipeline with every stage on several cores: before this a join probed
// one batch at a time, parallel only inside a batch, and at TPC-H SF10
// its stages kept two of sixteen cores busy.

// probeState is the scratch of the goroutine probing a batch: the batch's
// keys and their ids, the candidate pairs, the rows matched, and the
// output batches of the batch.
type probeState struct {
	keys     []keyVec
	leftKeys []*coldata.Vec // the batch's key values
	ids      []uint32
	li, ri   []int
	matched  []bool
	keep     []int
	condKeep []bool
	find     indexScratch
	out      []*coldata.Batch
	outOwned [][]*coldata.Vec // per batch of out (ownOutputs)
	// shared: other goroutines probe batches beside this one, so a batch
	// of ordinary size keeps to its goroutine.
	shared bool
}

// parallelBatchRows is the smallest batch that a shared probeState still
// splits over every CPU (a batch from a large concatenation).
const parallelBatchRows = 1 << 18

// workers returns how many goroutines the state's work on n rows may use.
func (w *probeState) workers(n int) int {
	if w.shared && n < parallelBatchRows {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// release returns the state's pooled buffers.
func (w *probeState) release() {
	intPool.put(w.li)
	intPool.put(w.ri)
	w.find.release()
	for c := range w.keys {
		w.keys[c].release()
	}
	*w = probeState{}
}

// probeWorkers is the number of goroutines that probe a join's batches;
// a variable so that tests can force one or several.
var probeWorkers = func() int { return runtime.GOMAXPROCS(0) }

// parallelProbe runs a join's probe over its left batches on several
// goroutines.
type parallelProbe struct {
	cancel context.CancelFunc
	// order holds each left batch's future in input order.
	order  chan chan probeResult
	wg     sync.WaitGroup
	states []*probeState
	cur    []*coldata.Batch // outputs of the current batch not yet returned
	// curOwned lists, per batch of cur, the vectors that are the join's
	// own (ownOutputs).
	curOwned [][]*coldata.Vec
}

// probeResult is what a left batch gave: its output batches, or an error,
// or the panic of the goroutine that probed it (raised again on the
// goroutine that reads the join, where the statement turns it into an
// error).
type probeResult struct {
	out      []*coldata.Batch
	owned    [][]*coldata.Vec // per batch of out (ownOutputs)
	err      error
	panicked any
}

// startParallel starts the goroutines that read and probe the left
// batches (the build side is ready).
func (j *HashJoin) startParallel(ctx context.Context) {
	workers := max(probeWorkers(), 1)
	ctx, cancel := context.WithCancel(ctx)
	p := &parallelProbe{cancel: cancel, order: make(chan chan probeResult, 2*workers)}
	free := make(chan *probeState, workers)
	for i := 0; i < workers; i++ {
		w := &probeState{shared: workers > 1}
		p.states = append(p.states, w)
		free <- w
	}
	j.par = p
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.order)
		for {
			fut := make(chan probeResult, 1)
			lb, r := j.nextLeft(ctx)
			if lb == nil {
				if r.err != nil || r.panicked != nil {
					fut <- r
					select {
					case p.order <- fut:
					case <-ctx.Done():
					}
				}
				return
			}
			select {
			case p.order <- fut:
			case <-ctx.Done():
				return
			}
			var w *probeState
			select {
			case w = <-free:
			case <-ctx.Done():
				fut <- probeResult{err: ctx.Err()}
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				r := j.probeOne(ctx, w, lb)
				free <- w
				fut <- r
			}()
		}
	}()
}

// nextLeft returns the next left batch (nil at the end or on an error,
// which r then holds), catching a panic of the left input.
func (j *HashJoin) nextLeft(ctx context.Context) (lb *coldata.Batch, r probeResult) {
	defer func() {
		if x := recover(); x != nil {
			lb, r = nil, probeResult{panicked: fmt.Sprintf("%v (in a join's left input)\n%s", x, debug.Stack())}
		}
	}()
	if len(j.leftBuf) > 0 {
		lb, j.leftBuf = j.leftBuf[0], j.leftBuf[1:]
		return lb, r
	}
	lb, err := j.Left.Next(ctx)
	if err != nil {
		return nil, probeResult{err: err}
	}
	return lb, r
}

// probeOne probes one left batch with w, catching a panic.
func (j *HashJoin) probeOne(ctx context.Context, w *probeState, lb *coldata.Batch) (r probeResult) {
	defer func() {
		if x := recover(); x != nil {
			r = probeResult{panicked: fmt.Sprintf("%v (in a join probe goroutine)\n%s", x, debug.Stack())}
		}
	}()
	w.out = nil
	err := j.probe(ctx, w, lb)
	r = probeResult{out: w.out, err: err}
	if err == nil {
		r.owned = j.ownOutputs(lb, w.out)
	}
	w.out = nil
	return r
}

// next returns the join's next output batch, in input order.
func (p *parallelProbe) next(ctx context.Context) (*coldata.Batch, []*coldata.Vec, error) {
	for {
		if len(p.cur) > 0 {
			b, owned := p.cur[0], p.curOwned[0]
			p.cur, p.curOwned = p.cur[1:], p.curOwned[1:]
			return b, owned, nil
		}
		var fut chan probeResult
		var ok bool
		select {
		case fut, ok = <-p.order:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if !ok {
			// The reader stops early only when the context ends.
			return nil, nil, ctx.Err()
		}
		var r probeResult
		select {
		case r = <-fut:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if r.panicked != nil {
			panic(r.panicked)
		}
		if r.err != nil {
			return nil, nil, r.err
		}
		p.cur, p.curOwned = r.out, r.owned
	}
}

// stopParallel stops the probing goroutines and waits for them, so that
// nothing reads the index or the left input afterwards.
func (j *HashJoin) stopParallel() {
	p := j.par
	if p == nil {
		return
	}
	j.par = nil
	p.cancel()
	p.wg.Wait()
	for _, w := range p.states {
		w.release()
	}
}
