package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/spill"
)

// joinBuildState names a join's build side in its memory-limit errors.
const joinBuildState = "join build side"

// SpillJoin is a hash join that survives a build side larger than its
// MemoryLimit: a grace hash join, as DuckDB's out-of-core join is. It
// runs Join in memory; when Join stops at its state limit before any
// output, it reads both inputs again, splits each by the same hash of its
// join keys into spillFanout partitions on disk, and joins partition i of
// the left with partition i of the right, one pair at a time: rows whose
// keys are equal share a partition, and a left row's partners are all in
// its partition, so inner, left, semi and anti joins keep their meaning.
// A pair still too large is split again with another hash.
//
// The output comes partition by partition, not in the left input's
// order, which no query without ORDER BY may rely on.
type SpillJoin struct {
	Join *HashJoin
	// Dir is the directory spill directories are made in ("": the
	// system's temporary directory).
	Dir string
	// Stats, when set, counts the partitions and bytes spilled.
	Stats *Stats

	produced bool
	spilling bool
	sp       spillSplitter
	queue    []joinPart
	cur      *HashJoin
	curPart  joinPart
	peak     uint64 // the largest partition's build side
}

// joinPart is partition i of both sides (right is nil when the right
// side had no rows at all).
type joinPart struct {
	left, right *spill.Partitions
	i           int
	depth       int
}

// Open opens the in-memory join.
func (s *SpillJoin) Open(ctx context.Context) error {
	s.cleanup()
	s.produced, s.spilling = false, false
	return s.Join.Open(ctx)
}

// Next returns the next batch of joined rows.
func (s *SpillJoin) Next(ctx context.Context) (*coldata.Batch, error) {
	if !s.spilling {
		b, err := s.Join.Next(ctx)
		if err == nil || s.produced || len(s.Join.LeftKeys) == 0 || !isJoinStateLimit(err) {
			s.produced = s.produced || b != nil
			return b, err
		}
		if err := s.startSpill(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if s.cur != nil {
			b, err := s.cur.Next(ctx)
			if err != nil {
				if !isJoinStateLimit(err) || s.curPart.depth >= spillMaxDepth || s.curPart.right == nil {
					return nil, err
				}
				s.cur.Close()
				s.cur = nil
				p := s.curPart
				if err := s.split(ctx, p.left.Reader(p.i), p.right.Reader(p.i), p.depth+1); err != nil {
					return nil, err
				}
				if err := s.removePart(p); err != nil {
					return nil, err
				}
				continue
			}
			s.peak = max(s.peak, s.cur.StateBytes())
			if b != nil {
				return b, nil
			}
			s.cur.Close()
			s.cur = nil
			if err := s.removePart(s.curPart); err != nil {
				return nil, err
			}
		}
		if len(s.queue) == 0 {
			return nil, nil
		}
		s.curPart, s.queue = s.queue[0], s.queue[1:]
		p := s.curPart
		// Every kind outputs left rows only: no left rows, no output.
		if p.left.Rows(p.i) == 0 {
			if err := s.removePart(p); err != nil {
				return nil, err
			}
			continue
		}
		var right Operator = &Materialized{}
		if p.right != nil && p.right.Rows(p.i) > 0 {
			right = p.right.Reader(p.i)
		}
		j := s.Join
		pj := &HashJoin{Left: p.left.Reader(p.i), Right: right, LeftKeys: j.LeftKeys, RightKeys: j.RightKeys,
			Cond: j.Cond, Kind: j.Kind, LeftCols: j.LeftCols, RightTypes: j.RightTypes,
			MaxBuildRows: j.MaxBuildRows, MemoryLimit: j.MemoryLimit, Parallel: j.Parallel}
		if err := pj.Open(ctx); err != nil {
			pj.Close()
			return nil, err
		}
		s.cur = pj
	}
}

// StateBytes is the largest build side held in memory at once: the
// in-memory attempt's, or a partition's.
func (s *SpillJoin) StateBytes() uint64 { return max(s.Join.StateBytes(), s.peak) }

// startSpill abandons the in-memory attempt and splits both inputs.
func (s *SpillJoin) startSpill(ctx context.Context) error {
	s.spilling = true
	if err := s.Join.Close(); err != nil {
		return err
	}
	if err := s.sp.start(s.Dir); err != nil {
		return fmt.Errorf("join spill: %w", err)
	}
	return s.split(ctx, s.Join.Left, s.Join.Right, 1)
}

// split queues left's and right's rows as spillFanout partition pairs.
func (s *SpillJoin) split(ctx context.Context, left, right Operator, depth int) error {
	lp, err := s.sp.split(ctx, left, s.Join.LeftKeys, false, depth, "joinl")
	if err != nil {
		return fmt.Errorf("join spill: %w", err)
	}
	if lp == nil {
		return nil // no left rows: no output of any kind
	}
	rp, err := s.sp.split(ctx, right, s.Join.RightKeys, true, depth, "joinr")
	if err != nil {
		return fmt.Errorf("join spill: %w", err)
	}
	s.sp.count(s.Stats)
	if rp != nil {
		s.sp.count(s.Stats)
	}
	next := make([]joinPart, 0, spillFanout+len(s.queue))
	for i := 0; i < spillFanout; i++ {
		next = append(next, joinPart{left: lp, right: rp, i: i, depth: depth})
	}
	s.queue = append(next, s.queue...)
	return nil
}

// removePart deletes a partition pair's files once joined.
func (s *SpillJoin) removePart(p joinPart) error {
	err := p.left.Remove(p.i)
	if p.right != nil {
		if rerr := p.right.Remove(p.i); err == nil {
			err = rerr
		}
	}
	return err
}

// isJoinStateLimit reports the error of a join's build side past its byte
// limit (not past MaxBuildRows).
func isJoinStateLimit(err error) bool { return isStateLimit(err, joinBuildState) }

func (s *SpillJoin) cleanup() error {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
	s.queue = nil
	return s.sp.remove()
}

// Close closes the join and removes its spill files.
func (s *SpillJoin) Close() error {
	err := s.cleanup()
	if cerr := s.Join.Close(); err == nil {
		err = cerr
	}
	return err
}

// PeakHostBytes is the most host memory the spill's write buffers held
// (the state's own, StateBytes, is counted beside it).
func (s *SpillJoin) PeakHostBytes() int64 { return s.sp.peak }
