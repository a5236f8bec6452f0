package operators

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// A device join whose build side does not fit the device (its
// concatenation or hash table runs out of memory even after the unused
// resident tables were evicted) joins partition by partition on the
// device (a grace hash join): the right input, already read, is
// downloaded and its rows split on the host by a hash of the join keys
// into P partitions (device_oom_parts.go), P a power of two chosen so
// that each partition's build (its bytes plus joinTableRowBytes a row of
// hash table) fits a quarter of the device's free memory; the whole left
// input is then read, downloaded and split by the same hash. Each
// partition in turn has its right rows uploaded and hashed (the same
// build as the whole side's, BuildOn included) and its left rows
// uploaded and probed by the usual probe, then its device memory is
// released. Equal keys land in the same partition, so the partitions'
// outputs together are the join's.
//
// Key semantics are the device join's: rows are routed by
// opspec.AppendRowKey, which reads -0.0 as 0.0 and strings bytewise.
// Right rows with a NULL key match nothing and are dropped; left rows with
// one go to partition 0 for a LEFT or anti join (the probe outputs them
// once, unmatched) and are dropped for an INNER or semi join.
//
// A partition whose build still runs out of memory (one heavy key, or
// memory other operators hold) is joined by the CPU HashJoin instead,
// that partition only (device_join_oom.go's hostStream over its host
// rows): a partition cannot be split again when one key fills it, so the
// simplest bound is the host. Both sides are held in host memory while
// together within the join's MemoryLimit, and go to disk past it
// (device_oom_parts.go), the spill directory removed when the join ends.
// EXPLAIN ANALYZE says oom_partitions=P, and host_join_oom=1 when some
// partition went to the host.

const (
	// joinTableRowBytes is a build row's hash table bytes beside its
	// columns (as the planner estimates a build side).
	joinTableRowBytes = 24
	// oomProbeRows is about the left rows one upload and probe takes: a
	// partition's left pieces are uploaded together up to it.
	oomProbeRows = 1 << 16
)

// partStream is a device join run partition by partition after its build
// side ran out of device memory.
type partStream struct {
	j *DeviceHashJoin
	n int
	// right and left are the partitions' host rows (right: every column
	// of the right input; left: every column of the left input), freed
	// as each partition is joined.
	right, left *hashParts
	// sp is their host memory budget and spill directory.
	sp *partSpill
	// p is the partition being joined, started whether its table is
	// built (or the partition is on the host).
	p       int
	started bool
	// lefts uploads p's left rows, probeQ holds the uploaded batches (or
	// their slices) still to probe.
	lefts  *partUpload
	probeQ []*gpuexec.DeviceBatch
	// host joins partition p on the host after its build ran out.
	host *hostStream
}

// joinPartitionedAfterOOM switches j to a partitioned join after its build
// side, right (the right input's batches, without a LEFT join's NULL
// row), failed for lack of device memory with cause. held is every device
// batch the build holds (right and the NULL row), released here once
// right is on the host so that the partitions have that memory.
func (j *DeviceHashJoin) joinPartitionedAfterOOM(ctx context.Context, right []*gpuexec.DeviceBatch, held *[]*gpuexec.DeviceBatch, cause error) error {
	if j.table != nil {
		j.table.Release()
		j.table = nil
	}
	if j.build != nil {
		j.build.Release()
		j.build = nil
	}
	j.swapped = false
	var rows int
	var bytes uint64
	for _, b := range right {
		rows += b.Len
		bytes += b.ColumnBytes()
	}
	n := oomPartitions(bytes+uint64(rows)*joinTableRowBytes, oomPartitionBudget(j.RT.Dev))
	sp := &partSpill{limit: j.MemoryLimit, parent: j.SpillDir, stats: j.Stats}
	s := &partStream{j: j, n: n, sp: sp, right: newHashParts(sp, "joinr", n), left: newHashParts(sp, "joinl", n)}
	if err := s.split(ctx, right, held, cause); err != nil {
		sp.remove()
		return err
	}
	j.parted = s
	if j.Stats != nil {
		j.Stats.OOMPartitions.Store(int64(n))
	}
	raisePeak(j.Stats, sp.peak)
	return nil
}

// split downloads the right input's batches and the whole left input and
// routes their rows to the partitions.
func (s *partStream) split(ctx context.Context, right []*gpuexec.DeviceBatch, held *[]*gpuexec.DeviceBatch, cause error) error {
	j := s.j
	r := newKeyRouter(s.n)
	for _, db := range right {
		hb, err := j.RT.Dev.Download(ctx, db)
		if err != nil {
			return fmt.Errorf("%w (partitioning the join after it: %v)", cause, err)
		}
		// Right rows with a NULL key match nothing.
		err = s.right.add(hb, r.routes(hb, j.RightKeys, -1))
		hb.ReleaseOwner()
		if err != nil {
			return fmt.Errorf("partitioned join: right side: %w", err)
		}
	}
	if err := s.right.finish(); err != nil {
		return fmt.Errorf("partitioned join: right side: %w", err)
	}
	for _, b := range *held {
		b.Release()
	}
	*held = nil
	// The whole left input now: the partitions are joined one after the
	// other, each with all of its left rows. A LEFT or anti join keeps
	// its rows with a NULL key, unmatched, in partition 0.
	nulls := -1
	if j.Kind == opspec.LeftJoin || j.Kind == opspec.AntiJoin {
		nulls = 0
	}
	for {
		db, err := j.nextLeftDevice(ctx)
		if err != nil {
			return fmt.Errorf("partitioned join after %v: %w", cause, err)
		}
		if db == nil {
			break
		}
		if db.Len == 0 {
			db.Release()
			continue
		}
		hb, err := j.RT.Dev.Download(ctx, db)
		db.Release()
		if err != nil {
			return fmt.Errorf("partitioned join: left side: %w", err)
		}
		err = s.left.add(hb, r.routes(hb, j.LeftKeys, nulls))
		hb.ReleaseOwner()
		if err != nil {
			return fmt.Errorf("partitioned join: left side: %w", err)
		}
	}
	if err := s.left.finish(); err != nil {
		return fmt.Errorf("partitioned join: left side: %w", err)
	}
	return nil
}

// next returns the join's next output batch on the device (nil at the
// end).
func (s *partStream) next(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	j := s.j
	for {
		if s.host != nil {
			b, err := s.host.next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			err = s.host.close()
			s.host = nil
			if err := errors.Join(err, s.endPartition()); err != nil {
				return nil, err
			}
			continue
		}
		if s.p >= s.n {
			return nil, nil
		}
		if !s.started {
			if err := s.start(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if len(s.probeQ) == 0 {
			db, err := s.lefts.NextDevice(ctx)
			if err != nil {
				return nil, fmt.Errorf("partitioned join, partition %d of %d: left rows: %w", s.p, s.n, err)
			}
			if db == nil {
				if err := s.endPartition(); err != nil {
					return nil, err
				}
				continue
			}
			s.probeQ = append(s.probeQ, db)
		}
		lb := s.probeQ[0]
		s.probeQ = s.probeQ[1:]
		if j.table == nil {
			// No right rows in the partition (only an anti join gets
			// here): every left row is kept.
			out, err := gpuexec.Combine(lb.Cols[:len(j.LeftTypes)], lb.Len, lb)
			lb.Release()
			return out, err
		}
		out, again, err := j.probeSplitting(ctx, &s.probeQ, lb)
		if err != nil {
			return nil, fmt.Errorf("partitioned join, partition %d of %d: %w", s.p, s.n, err)
		}
		if !again && out != nil {
			return out, nil
		}
	}
}

// start builds partition p's table on the device, or moves the partition
// to the host when that runs out of memory. A partition whose output is
// empty (no left rows; no right rows for an INNER or semi join) is
// skipped.
func (s *partStream) start(ctx context.Context) error {
	j := s.j
	p := s.p
	rows := s.right.rows[p]
	if s.left.rows[p] == 0 || (rows == 0 && (j.Kind == opspec.InnerJoin || j.Kind == opspec.SemiJoin)) {
		s.p++
		return errors.Join(s.right.release(p), s.left.release(p))
	}
	right, err := drain(ctx, s.right.source(p))
	if rerr := s.right.release(p); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("partitioned join, partition %d of %d: right rows: %w", p, s.n, err)
	}
	left := s.left.source(p)
	if err := s.openLeft(ctx, left); err != nil {
		return err
	}
	s.started = true
	if rows == 0 && j.Kind == opspec.AntiJoin {
		return nil // no table: every row is kept
	}
	hbs := right
	if j.Kind == opspec.LeftJoin {
		cols := make([]*coldata.Vec, len(j.RightInTypes))
		for i, t := range j.RightInTypes {
			bld := coldata.NewBuilder(t, 1)
			bld.AppendNull()
			cols[i] = bld.Finish()
		}
		hbs = append(hbs[:len(hbs):len(hbs)], &coldata.Batch{Cols: cols, Len: 1})
		j.nullRow = int64(rows)
	}
	err = j.RT.Cache.RetryOOM(j.RT.waitCtx(ctx), func() (err error) {
		j.build, err = j.RT.Dev.UploadBatches(ctx, hbs)
		return err
	})
	if err == nil {
		err = j.hashBuild(ctx)
	}
	if err == nil {
		return nil
	}
	s.releaseDevice()
	if !gpuexec.IsOutOfMemory(err) {
		return fmt.Errorf("partitioned join, partition %d of %d: %w", p, s.n, err)
	}
	// Even this partition does not fit: it joins on the host, its left
	// rows read again from the start.
	if err := s.lefts.Close(); err != nil {
		return err
	}
	s.lefts = nil
	s.host = &hostStream{j: j, rhs: right, src: left}
	if j.Stats != nil {
		j.Stats.HostJoinOOM.Store(1)
	}
	return nil
}

// openLeft starts uploading the partition's left rows from src.
func (s *partStream) openLeft(ctx context.Context, src Operator) error {
	s.lefts = &partUpload{src: src, rt: s.j.RT, maxRows: oomProbeRows, maxBytes: math.MaxInt64}
	if err := s.lefts.Open(ctx); err != nil {
		return fmt.Errorf("partitioned join, partition %d of %d: left rows: %w", s.p, s.n, err)
	}
	return nil
}

// releaseDevice releases partition p's device memory.
func (s *partStream) releaseDevice() {
	j := s.j
	if j.table != nil {
		j.table.Release()
		j.table = nil
	}
	if j.build != nil {
		j.build.Release()
		j.build = nil
	}
}

// endPartition releases what partition p holds and moves to the next.
func (s *partStream) endPartition() error {
	s.releaseDevice()
	var err error
	if s.lefts != nil {
		err = s.lefts.Close()
		s.lefts = nil
	}
	if lerr := s.left.release(s.p); err == nil {
		err = lerr
	}
	s.p, s.started = s.p+1, false
	return err
}

// close ends the join, releasing what a partition still holds.
func (s *partStream) close() error {
	for _, b := range s.probeQ {
		b.Release()
	}
	s.probeQ = nil
	s.releaseDevice()
	var err error
	if s.lefts != nil {
		err = s.lefts.Close()
		s.lefts = nil
	}
	if s.host != nil {
		if herr := s.host.close(); err == nil {
			err = herr
		}
		s.host = nil
	}
	if rerr := s.sp.remove(); err == nil {
		err = rerr
	}
	return err
}
