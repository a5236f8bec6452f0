package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/spill"
)

// groupByState names the GROUP BY's state in its memory-limit errors.
const groupByState = "GROUP BY state"

// SpillAggregate is a GROUP BY that survives grouping state larger than
// its MemoryLimit, as DuckDB's out-of-core hash aggregate does. It runs
// Agg, the in-memory HashAggregate; when Agg stops at its state limit
// before any output, it reads its input again, splits the rows by a hash
// of the group keys into spillFanout partitions on disk (package spill),
// and runs an aggregate like Agg over one partition at a time. A group's
// rows all land in one partition, so each partition's groups are final;
// a partition still too large is split again with another hash.
//
// The output comes partition by partition: the groups' order differs from
// Agg's first-appearance order, which no query without ORDER BY may rely
// on. Agg's Top and FirstGroups cuts stay sound per partition: the groups
// one cut keeps include every group the cut over all of them would keep.
type SpillAggregate struct {
	Agg *HashAggregate
	// Dir is the directory spill directories are made in ("": the
	// system's temporary directory).
	Dir string
	// Stats, when set, counts the partitions and bytes spilled.
	Stats *Stats
	// SplitAtOnce skips the in-memory attempt: the input goes straight to
	// partitions (its caller already knows the groups do not fit).
	SplitAtOnce bool

	produced bool
	spilling bool
	sp       spillSplitter
	queue    []spillPart
	cur      *HashAggregate
	curPart  spillPart
	peak     uint64 // the largest partition's state
}

// spillPart is one partition waiting to be (or being) aggregated.
type spillPart struct {
	parts *spill.Partitions
	i     int
	depth int // splits that made it: 1 for the first
}

// Open opens the in-memory aggregate.
func (s *SpillAggregate) Open(ctx context.Context) error {
	s.cleanup()
	s.produced, s.spilling = false, false
	return s.Agg.Open(ctx)
}

// Next returns the next batch of groups.
func (s *SpillAggregate) Next(ctx context.Context) (*coldata.Batch, error) {
	if !s.spilling && s.SplitAtOnce && len(s.Agg.Keys) > 0 {
		if err := s.startSpill(ctx); err != nil {
			return nil, err
		}
	}
	if !s.spilling {
		b, err := s.Agg.Next(ctx)
		if err == nil || s.produced || len(s.Agg.Keys) == 0 || !isGroupStateLimit(err) {
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
				if !isGroupStateLimit(err) || s.curPart.depth >= spillMaxDepth {
					return nil, err
				}
				// Too large still: split this partition again, with the
				// next depth's hash.
				s.cur.Close()
				s.cur = nil
				if err := s.split(ctx, s.curPart.parts.Reader(s.curPart.i), s.curPart.depth+1); err != nil {
					return nil, err
				}
				if err := s.curPart.parts.Remove(s.curPart.i); err != nil {
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
			if err := s.curPart.parts.Remove(s.curPart.i); err != nil {
				return nil, err
			}
		}
		if len(s.queue) == 0 {
			return nil, nil
		}
		s.curPart, s.queue = s.queue[0], s.queue[1:]
		if s.curPart.parts.Rows(s.curPart.i) == 0 {
			continue
		}
		agg := s.partitionAggregate(s.curPart.parts.Reader(s.curPart.i))
		if err := agg.Open(ctx); err != nil {
			agg.Close()
			return nil, err
		}
		s.cur = agg
	}
}

// StateBytes is the largest grouping state held in memory at once: the
// in-memory attempt's, or a partition's.
func (s *SpillAggregate) StateBytes() uint64 { return max(s.Agg.StateBytes(), s.peak) }

// partitionAggregate is an aggregate like Agg over one partition's rows.
func (s *SpillAggregate) partitionAggregate(in Operator) *HashAggregate {
	a := s.Agg
	return &HashAggregate{Input: in, Keys: a.Keys, Aggs: a.Aggs, MaxGroups: a.MaxGroups,
		MemoryLimit: a.MemoryLimit, FirstGroups: a.FirstGroups, Top: a.Top}
}

// startSpill abandons the in-memory attempt and splits the whole input.
func (s *SpillAggregate) startSpill(ctx context.Context) error {
	s.spilling = true
	// Close releases the attempt's state and closes the input, which
	// Open then starts again from its first row.
	if err := s.Agg.Close(); err != nil {
		return err
	}
	if err := s.sp.start(s.Dir); err != nil {
		return fmt.Errorf("GROUP BY spill: %w", err)
	}
	return s.split(ctx, s.Agg.Input, 1)
}

// split queues in's rows as spillFanout partitions by group key.
func (s *SpillAggregate) split(ctx context.Context, in Operator, depth int) error {
	parts, err := s.sp.split(ctx, in, s.Agg.Keys, false, depth, "agg")
	if err != nil {
		return fmt.Errorf("GROUP BY spill: %w", err)
	}
	if parts == nil {
		return nil
	}
	s.sp.count(s.Stats)
	// Depth first: the split partitions go before the rest, so that the
	// files of one split are read and removed before the next is written.
	next := make([]spillPart, 0, spillFanout+len(s.queue))
	for i := 0; i < spillFanout; i++ {
		next = append(next, spillPart{parts: parts, i: i, depth: depth})
	}
	s.queue = append(next, s.queue...)
	return nil
}

// isGroupStateLimit reports the error of a GROUP BY state past its byte
// limit (not past MaxGroups, a cap the user set on the groups).
func isGroupStateLimit(err error) bool { return isStateLimit(err, groupByState) }

// cleanup closes the partition being read and removes the spill files.
func (s *SpillAggregate) cleanup() error {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
	s.queue = nil
	return s.sp.remove()
}

// Close closes the aggregate and removes its spill files.
func (s *SpillAggregate) Close() error {
	err := s.cleanup()
	if cerr := s.Agg.Close(); err == nil {
		err = cerr
	}
	return err
}

// PeakHostBytes is the most host memory the spill's write buffers held
// (the state's own, StateBytes, is counted beside it).
func (s *SpillAggregate) PeakHostBytes() int64 { return s.sp.peak }
