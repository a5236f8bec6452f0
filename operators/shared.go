package operators

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

// SharedResult runs its input once, on the first reader's Open, and keeps
// the batches for every SharedScan that reads it: a common table
// expression referenced more than once is computed once per statement.
//
// With a Key and a statement store in the context (WithSharedResults),
// the result is shared beyond one operator tree: the subqueries a
// statement runs while it is planned (a scalar subquery's value, an IN
// list) build trees of their own, and a CTE they read is computed by the
// first tree that opens it and read by every later one, the statement's
// main plan included.
type SharedResult struct {
	Input Operator
	// Key identifies the CTE within its statement (planner.CTERef.Key);
	// nil: shared by this operator tree's readers alone.
	Key any
	// Runs counts how often Input ran (tests and EXPLAIN ANALYZE).
	Runs atomic.Int64

	mu      sync.Mutex
	done    bool
	batches []*coldata.Batch
	err     error
	// from is the result of another operator tree of the statement that
	// this one reads (nil when it ran its own input or has not opened).
	from *SharedResult
	// elapsed is how long computing the result took, rows its rows.
	elapsed time.Duration
	rows    int64
	// host counts the kept batches, held until the statement ends.
	host HostBytes
}

// SharedResults is a statement's store of the CTE results its operator
// trees computed, by key. It lives as long as the statement: Close drops
// the results once the statement's reader is done with them.
type SharedResults struct {
	mu     sync.Mutex
	m      map[any]*SharedResult
	closed bool
}

type sharedResultsKey struct{}

// WithSharedResults returns ctx carrying a new statement store of shared
// results, which the caller closes when the statement ends; when ctx has
// one already (a statement inside another's run), ctx and nil: the inner
// statement shares the outer one's store.
func WithSharedResults(ctx context.Context) (context.Context, *SharedResults) {
	if _, ok := ctx.Value(sharedResultsKey{}).(*SharedResults); ok {
		return ctx, nil
	}
	s := &SharedResults{m: map[any]*SharedResult{}}
	return context.WithValue(ctx, sharedResultsKey{}, s), s
}

// Close drops the stored results; later claims find none and share
// nothing beyond their own tree.
func (r *SharedResults) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.m, r.closed = nil, true
	r.mu.Unlock()
}

// claim returns the result registered under key, registering s when there
// is none or the registered one failed.
func (r *SharedResults) claim(key any, s *SharedResult) *SharedResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return s
	}
	if o, ok := r.m[key]; ok && o != s && !o.failed() {
		return o
	}
	r.m[key] = s
	return s
}

// drop unregisters s (its run failed or was cancelled), so that a later
// tree computes the result again (the CPU plan after a GPU attempt ran
// out of device memory).
func (r *SharedResults) drop(key any, s *SharedResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[key] == s {
		delete(r.m, key)
	}
}

// failed reports whether s finished with an error. Only called by
// claim, while s is not computing or s.mu is free.
func (s *SharedResult) failed() bool {
	if !s.mu.TryLock() {
		return false // computing now: wait for it
	}
	defer s.mu.Unlock()
	return s.done && s.err != nil
}

// result computes the input on first use; ran says whether this call
// ran it.
func (s *SharedResult) result(ctx context.Context) (_ []*coldata.Batch, ran bool, _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.batches, false, s.err
	}
	var store *SharedResults
	if s.Key != nil {
		store, _ = ctx.Value(sharedResultsKey{}).(*SharedResults)
	}
	if store != nil {
		if o := store.claim(s.Key, s); o != s {
			b, _, err := o.result(ctx)
			if err == nil {
				s.batches, s.from, s.done = b, o, true
				return b, false, nil
			}
			if ctx.Err() != nil {
				return nil, false, err
			}
			// The other tree's run failed: run ours in its place.
			store.claim(s.Key, s)
		}
	}
	s.Runs.Add(1)
	s.host.ReleaseAll()
	start := time.Now()
	s.batches, s.err = drain(ctx, s.Input)
	s.elapsed, s.rows = time.Since(start), 0
	for _, b := range s.batches {
		s.host.Grow(b.HostBytes())
		s.rows += int64(b.Len)
	}
	if ctx.Err() == nil {
		// A cancelled run is not kept: another reader may retry.
		s.done = true
	}
	if store != nil && (s.err != nil || !s.done) {
		store.drop(s.Key, s)
	}
	return s.batches, true, s.err
}

// Reused says whether s read the result another operator tree of its
// statement computed (a subquery run while the statement was planned),
// with that run's rows and time.
func (s *SharedResult) Reused() (ok bool, rows int64, elapsed time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.from == nil {
		return false, 0, 0
	}
	return true, s.from.rows, s.from.elapsed
}

// drain runs op to the end and returns its batches.
func drain(ctx context.Context, op Operator) (out []*coldata.Batch, err error) {
	if err := op.Open(ctx); err != nil {
		op.Close()
		return nil, err
	}
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return out, nil
		}
		out = append(out, b)
	}
}

// SharedScan reads a SharedResult.
type SharedScan struct {
	Src     *SharedResult
	batches []*coldata.Batch
	i       int
	ran     bool // this reader computed the result
}

// Open implements Operator: the first reader computes the result.
func (s *SharedScan) Open(ctx context.Context) error {
	b, ran, err := s.Src.result(ctx)
	s.batches, s.i, s.ran = b, 0, s.ran || ran
	return err
}

// PeakHostBytes is the host memory of the shared result's batches, shown
// on the reference that computed it (the others read the same batches).
func (s *SharedScan) PeakHostBytes() int64 {
	if !s.ran {
		return 0
	}
	return s.Src.host.Peak()
}

// Next implements Operator.
func (s *SharedScan) Next(ctx context.Context) (*coldata.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.i >= len(s.batches) {
		return nil, nil
	}
	b := s.batches[s.i]
	s.i++
	return b, nil
}

// Close implements Operator.
func (s *SharedScan) Close() error { s.batches = nil; return nil }
