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
// A partition whose build still runs out of memory is split again, both
// sides, by a hash with another seed into partitions sized to the
// device's memory then, up to oomSplitDepth splits deep; past that, or
// when its right rows all have one key (which no split spreads), it is
// joined by the CPU HashJoin instead, that partition only
// (device_join_oom.go's hostStream over its host rows). Both sides are held in host memory while
// together within the join's MemoryLimit, and go to disk past it
// (device_oom_parts.go), the spill directory removed when the join ends.
// EXPLAIN ANALYZE says oom_partitions=P, oom_resplits=N for the
// partitions split again, and host_join_oom=1 when some partition went
// to the host.

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
	// sp is the partitions' host memory budget and spill directory.
	sp *partSpill
	// queue is the partitions still to join (a split's before the rest,
	// so that its files go before the next split writes more); cur is
	// the one being joined, started whether its table is built (or it
	// is on the host).
	queue   []oomPart
	cur     oomPart
	started bool
	// lefts uploads cur's left rows, probeQ holds the uploaded batches
	// (or their slices) still to probe.
	lefts  *partUpload
	probeQ []*gpuexec.DeviceBatch
	// host joins cur on the host after its build ran out.
	host *hostStream
}

// oomPart is partition i of both sides' split (right: every column of
// the right input; left: every column of the left input), depth splits
// deep; oneKey says its right rows all have one key, which no split
// spreads.
type oomPart struct {
	right, left *hashParts
	i, depth    int
	oneKey      bool
}

// where names the partition in errors.
func (p oomPart) where() string {
	return fmt.Sprintf("partition %d of %d (split %d)", p.i, p.right.len(), p.depth)
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
	s := &partStream{j: j, sp: &partSpill{limit: j.MemoryLimit, parent: j.SpillDir, stats: j.Stats}}
	// The right input's batches, downloaded; at their end the device
	// copies go, so that the whole left input can be read.
	k := 0
	nextRight := func() (*coldata.Batch, error) {
		if k == len(right) {
			releaseDeviceBatches(*held)
			*held = nil
			return nil, nil
		}
		k++
		hb, err := j.RT.Dev.DownloadInPieces(ctx, right[k-1])
		if err != nil {
			return nil, fmt.Errorf("%w (partitioning the join after it: %v)", cause, err)
		}
		return hb, nil
	}
	nextLeft := func() (*coldata.Batch, error) {
		for {
			db, err := j.nextLeftDevice(ctx)
			if err != nil || db == nil {
				return nil, err
			}
			if db.Len == 0 {
				db.Release()
				continue
			}
			hb, err := j.RT.Dev.DownloadInPieces(ctx, db)
			db.Release()
			return hb, err
		}
	}
	if err := s.split(n, 0, nextRight, nextLeft); err != nil {
		s.sp.remove()
		return fmt.Errorf("partitioned join after %v: %w", cause, err)
	}
	j.parted = s
	if j.Stats != nil {
		j.Stats.OOMPartitions.Store(int64(n))
	}
	raisePeak(j.Stats, s.sp.peak)
	return nil
}

// split routes the rows of the right batches nextRight yields, then of
// the left ones nextLeft yields, to n new partitions of each side,
// queued before the rest, depth splits deep.
func (s *partStream) split(n, depth int, nextRight, nextLeft func() (*coldata.Batch, error)) error {
	j := s.j
	right, left := newHashParts(s.sp, "joinr", n), newHashParts(s.sp, "joinl", n)
	r := newKeyRouter(n)
	// Right rows with a NULL key match nothing.
	if err := s.route(right, r, nextRight, j.RightKeys, -1); err != nil {
		return fmt.Errorf("right side: %w", err)
	}
	parts := make([]oomPart, n, n+len(s.queue))
	for i := range parts {
		parts[i] = oomPart{right: right, left: left, i: i, depth: depth, oneKey: r.oneKey(i)}
	}
	// A LEFT or anti join keeps its rows with a NULL key, unmatched, in
	// partition 0.
	nulls := -1
	if j.Kind == opspec.LeftJoin || j.Kind == opspec.AntiJoin {
		nulls = 0
	}
	if err := s.route(left, r, nextLeft, j.LeftKeys, nulls); err != nil {
		return fmt.Errorf("left side: %w", err)
	}
	s.queue = append(parts, s.queue...)
	return nil
}

// route adds every batch next yields to to by r's hash of keys.
func (s *partStream) route(to *hashParts, r *keyRouter, next func() (*coldata.Batch, error), keys []int, nulls int) error {
	for {
		b, err := next()
		if err != nil {
			return err
		}
		if b == nil {
			return to.finish()
		}
		err = to.add(b, r.routes(b, keys, nulls))
		b.ReleaseOwner()
		if err != nil {
			return err
		}
	}
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
		if !s.started {
			if len(s.queue) == 0 {
				return nil, nil
			}
			if err := s.start(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if len(s.probeQ) == 0 {
			db, err := s.lefts.NextDevice(ctx)
			if err != nil {
				return nil, fmt.Errorf("partitioned join, %s: left rows: %w", s.cur.where(), err)
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
			return nil, fmt.Errorf("partitioned join, %s: %w", s.cur.where(), err)
		}
		if !again && out != nil {
			return out, nil
		}
	}
}

// start builds the next partition's table on the device; when that runs
// out of memory the partition is split again or, one key's or split
// oomSplitDepth times, joined on the host. A partition whose output is
// empty (no left rows; no right rows for an INNER or semi join) is
// skipped.
func (s *partStream) start(ctx context.Context) error {
	j := s.j
	p := s.queue[0]
	s.queue, s.cur = s.queue[1:], p
	rows := p.right.rows[p.i]
	if p.left.rows[p.i] == 0 || (rows == 0 && (j.Kind == opspec.InnerJoin || j.Kind == opspec.SemiJoin)) {
		return errors.Join(p.right.release(p.i), p.left.release(p.i))
	}
	right, err := drain(ctx, p.right.source(p.i))
	if rerr := p.right.release(p.i); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("partitioned join, %s: right rows: %w", p.where(), err)
	}
	s.lefts = &partUpload{src: p.left.source(p.i), rt: j.RT, maxRows: oomProbeRows, maxBytes: math.MaxInt64}
	if err := s.lefts.Open(ctx); err != nil {
		return fmt.Errorf("partitioned join, %s: left rows: %w", p.where(), err)
	}
	s.started = true
	if rows == 0 && j.Kind == opspec.AntiJoin {
		return nil // no table: every row is kept
	}
	hbs := right
	if j.Kind == opspec.LeftJoin {
		hbs = append(hbs[:len(hbs):len(hbs)], j.nullRowBatch())
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
		return fmt.Errorf("partitioned join, %s: %w", p.where(), err)
	}
	// The left rows are read again from their start, by the split or
	// the host join.
	err = s.lefts.Close()
	s.lefts = nil
	if err != nil {
		return err
	}
	if !p.oneKey && rows > 1 && p.depth+1 < oomSplitDepth {
		s.started = false
		return s.splitAgain(ctx, right)
	}
	// One key's rows, or split as far as it goes: the host joins it.
	s.host = &hostStream{j: j, rhs: right, src: p.left.source(p.i)}
	if j.Stats != nil {
		j.Stats.HostJoinOOM.Store(1)
	}
	return nil
}

// splitAgain splits the current partition, whose build ran out of device
// memory, with a new hash into partitions sized to the device's memory
// now: right is its right rows, its left rows are read from their
// partition, which goes.
func (s *partStream) splitAgain(ctx context.Context, right []*coldata.Batch) error {
	j, p := s.j, s.cur
	var rows int
	var bytes uint64
	for _, b := range right {
		rows += b.Len
		bytes += uint64(b.HostBytes())
	}
	n := oomPartitions(bytes+uint64(rows)*joinTableRowBytes, oomPartitionBudget(j.RT.Dev))
	src := p.left.source(p.i)
	if err := src.Open(ctx); err != nil {
		return fmt.Errorf("partitioned join, %s: left rows: %w", p.where(), err)
	}
	k := 0
	err := s.split(n, p.depth+1, func() (*coldata.Batch, error) {
		if k == len(right) {
			return nil, nil
		}
		k++
		return right[k-1], nil
	}, func() (*coldata.Batch, error) { return src.Next(ctx) })
	if err = errors.Join(err, src.Close(), p.left.release(p.i)); err != nil {
		return fmt.Errorf("partitioned join, splitting %s again: %w", p.where(), err)
	}
	if j.Stats != nil {
		j.Stats.OOMResplits.Add(1)
	}
	raisePeak(j.Stats, s.sp.peak)
	return nil
}

// releaseDevice releases the current partition's device memory.
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

// endPartition releases what the current partition holds.
func (s *partStream) endPartition() error {
	s.releaseDevice()
	var err error
	if s.lefts != nil {
		err = s.lefts.Close()
		s.lefts = nil
	}
	if lerr := s.cur.left.release(s.cur.i); err == nil {
		err = lerr
	}
	s.started = false
	return err
}

// close ends the join, releasing what a partition still holds and
// removing the spill directory.
func (s *partStream) close() error {
	for _, b := range s.probeQ {
		b.Release()
	}
	s.probeQ, s.queue = nil, nil
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
