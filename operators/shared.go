package operators

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
)

// SharedResult runs its input once, on the first reader's Open, and keeps
// the batches for every SharedScan that reads it: a common table
// expression referenced more than once is computed once per statement.
type SharedResult struct {
	Input Operator
	// Runs counts how often Input ran (tests and EXPLAIN ANALYZE).
	Runs atomic.Int64

	mu      sync.Mutex
	done    bool
	batches []*coldata.Batch
	err     error
	// host counts the kept batches, held until the statement ends.
	host HostBytes
}

// result computes the input on first use; ran says whether this call
// ran it.
func (s *SharedResult) result(ctx context.Context) (_ []*coldata.Batch, ran bool, _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.batches, false, s.err
	}
	s.Runs.Add(1)
	s.host.ReleaseAll()
	s.batches, s.err = drain(ctx, s.Input)
	for _, b := range s.batches {
		s.host.Grow(b.HostBytes())
	}
	if ctx.Err() == nil {
		// A cancelled run is not kept: another reader may retry.
		s.done = true
	}
	return s.batches, true, s.err
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
