package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// A device join whose build side does not fit the device's memory joins
// partition by partition (device_join_partitioned.go); a partition whose
// build still does not fit joins on the host: its right rows are hashed by
// the CPU HashJoin and its left rows stream through it a batch at a time,
// each output batch uploaded for the operators above. The planner keeps
// joins whose estimated build side is over a quarter of the device's
// memory on the CPU from the start; this is for estimates that were low
// and for memory other operators of the query hold. EXPLAIN ANALYZE says
// host_join_oom=1.

// hostStream is a device join (or one partition of it) running on the
// host after its build ran out of device memory.
type hostStream struct {
	j   *DeviceHashJoin
	rhs []*coldata.Batch
	hj  *HashJoin
	nl  int
	// first is the left batch read to size the host join, until the join
	// reads it.
	first *coldata.Batch
	done  bool
	// src, when set, is the left rows of a partition held on the host
	// (device_join_partitioned.go), read instead of the left input;
	// opened says it was opened.
	src    Operator
	opened bool
}

// nextLeftDevice is the next left batch: one read ahead, else the input's
// (nil at its end).
func (j *DeviceHashJoin) nextLeftDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if len(j.leftBuf) > 0 {
		b := j.leftBuf[0]
		j.leftBuf = j.leftBuf[1:]
		return b, nil
	}
	if j.leftExhausted {
		return nil, nil
	}
	b, err := j.Left.NextDevice(ctx)
	if b == nil && err == nil {
		j.leftExhausted = true
	}
	return b, err
}

// nextLeftHost is the next left batch downloaded (nil at the end).
func (s *hostStream) nextLeftHost(ctx context.Context) (*coldata.Batch, error) {
	if s.src != nil {
		if !s.opened {
			s.opened = true
			if err := s.src.Open(ctx); err != nil {
				return nil, err
			}
		}
		return s.src.Next(ctx)
	}
	for {
		db, err := s.j.nextLeftDevice(ctx)
		if err != nil || db == nil {
			return nil, err
		}
		if db.Len == 0 {
			db.Release()
			continue
		}
		hb, err := s.j.RT.Dev.DownloadInPieces(ctx, db)
		db.Release()
		if err != nil {
			return nil, fmt.Errorf("join on the host: %w", err)
		}
		return hb, nil
	}
}

// next returns the join's next output batch on the device (nil at the
// end).
func (s *hostStream) next(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if s.done {
		return nil, nil
	}
	if s.hj == nil {
		first, err := s.nextLeftHost(ctx)
		if err != nil {
			return nil, err
		}
		if first == nil {
			// No left rows: every kind's output is made of left rows.
			s.done = true
			return nil, nil
		}
		s.first, s.nl = first, len(first.Cols)
		s.hj = s.j.hostHashJoin(&hostLeft{s: s}, first, s.rhs)
		if err := s.hj.Open(ctx); err != nil {
			return nil, err
		}
	}
	for {
		b, err := s.hj.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			s.done = true
			return nil, nil
		}
		if b.Len == 0 {
			continue
		}
		out := s.j.deviceColumns(b, s.nl)
		var db *gpuexec.DeviceBatch
		err = s.j.RT.Cache.RetryOOM(s.j.RT.waitCtx(ctx), func() (err error) {
			db, err = s.j.RT.Dev.Upload(ctx, out)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("join on the host: %w", err)
		}
		return db, nil
	}
}

// close ends the host join.
func (s *hostStream) close() error {
	var err error
	if s.hj != nil {
		err = s.hj.Close()
	}
	if s.opened {
		s.opened = false
		if cerr := s.src.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// hostLeft feeds the host join the device join's left input, downloaded
// a batch at a time.
type hostLeft struct{ s *hostStream }

// Open implements Operator.
func (l *hostLeft) Open(context.Context) error { return nil }

// Next implements Operator.
func (l *hostLeft) Next(ctx context.Context) (*coldata.Batch, error) {
	if b := l.s.first; b != nil {
		l.s.first = nil
		return b, nil
	}
	return l.s.nextLeftHost(ctx)
}

// Close implements Operator: the device join closes its left input.
func (l *hostLeft) Close() error { return nil }
