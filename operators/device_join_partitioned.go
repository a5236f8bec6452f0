package operators

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// A device join whose build side does not fit the device (its
// concatenation or hash table runs out of memory even after the unused
// resident tables were evicted) joins partition by partition on the
// device (a grace hash join): the right input, already read, is
// downloaded and its rows split on the host by a hash of the join keys
// into P partitions, P a power of two chosen so that each partition's
// build (its bytes plus joinTableRowBytes a row of hash table) fits a
// quarter of the device's free memory; the whole left input is then
// read, downloaded and split by the same hash. Each partition in turn
// has its right rows uploaded and hashed (the same build as the whole
// side's, BuildOn included) and its left rows uploaded and probed by the
// usual probe, then its device memory is released. Equal keys land in
// the same partition, so the partitions' outputs together are the join's.
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
// simplest bound is the host. Both sides are held in host memory; splitting
// them to the spill package's disk partitions is left to do. EXPLAIN
// ANALYZE says oom_partitions=P, and host_join_oom=1 when some partition
// went to the host.

const (
	// joinTableRowBytes is a build row's hash table bytes beside its
	// columns (as the planner estimates a build side).
	joinTableRowBytes = 24
	// oomBuildShare: a partition's build may take this fraction of the
	// device memory free when the join splits.
	oomBuildShare = 4
	// maxOOMPartitions bounds P: past it a partition that still does not
	// fit goes to the host.
	maxOOMPartitions = 1024
	// oomProbeRows is about the left rows one upload and probe takes: a
	// partition's left pieces are uploaded together up to it.
	oomProbeRows = 1 << 16
)

// oomPartitionBytes, when positive, stands in for the device memory a
// partition's build may take (tests over the fake driver).
var oomPartitionBytes atomic.Int64

// SetOOMPartitionBytes sets the build bytes a partition of a device join
// split after a build OOM may take, in place of a share of the device's
// free memory (0: the device's); it returns a function restoring the
// previous value. For tests.
func SetOOMPartitionBytes(n int64) (restore func()) {
	old := oomPartitionBytes.Swap(n)
	return func() { oomPartitionBytes.Store(old) }
}

// oomPartitions is the partitions (a power of two, at least 2) that a
// build of estimated bytes needs so that each part fits budget bytes.
func oomPartitions(bytes, budget uint64) int {
	if budget == 0 {
		return maxOOMPartitions
	}
	n := max((bytes+budget-1)/budget, 2)
	if n >= maxOOMPartitions {
		return maxOOMPartitions
	}
	return 1 << bits.Len64(n-1)
}

// partStream is a device join run partition by partition after its build
// side ran out of device memory.
type partStream struct {
	j *DeviceHashJoin
	n int
	// right and left are each partition's host rows (right: every column
	// of the right input; left: every column of the left input), freed
	// as the partition is joined; rightRows counts right's rows.
	right, left [][]*coldata.Batch
	rightRows   []int
	// p is the partition being joined, started whether its table is
	// built (or the partition is on the host).
	p       int
	started bool
	// queue is p's left pieces still to upload, probeQ the uploaded
	// batches (or their slices) still to probe.
	queue  []*coldata.Batch
	probeQ []*gpuexec.DeviceBatch
	// host joins partition p on the host after its build ran out.
	host *hostStream

	seed   maphash.Seed
	keyBuf []byte
	keys   []*coldata.Vec
	route  []int
	idx    [][]int
	// hostBytes is the host memory the partitions hold.
	hostBytes int64
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
	rhs, err := download(ctx, j.RT.Dev, right)
	if err != nil {
		return fmt.Errorf("%w (partitioning the join after it: %v)", cause, err)
	}
	for _, b := range *held {
		b.Release()
	}
	*held = nil
	var rows int
	var bytes uint64
	for _, b := range rhs {
		rows += b.Len
		bytes += uint64(b.HostBytes())
	}
	bytes += uint64(rows) * joinTableRowBytes
	budget := uint64(oomPartitionBytes.Load())
	if budget == 0 {
		budget = j.RT.Dev.MemoryFree() / oomBuildShare
	}
	n := oomPartitions(bytes, budget)
	s := &partStream{j: j, n: n, seed: maphash.MakeSeed(),
		right: make([][]*coldata.Batch, n), left: make([][]*coldata.Batch, n),
		rightRows: make([]int, n), idx: make([][]int, n)}
	for _, b := range rhs {
		s.split(b, j.RightKeys, false, s.right, s.rightRows)
	}
	// The whole left input now: the partitions are joined one after the
	// other, each with all of its left rows.
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
		keepNull := j.Kind == opspec.LeftJoin || j.Kind == opspec.AntiJoin
		s.split(hb, j.LeftKeys, keepNull, s.left, nil)
	}
	j.parted = s
	if j.Stats != nil {
		j.Stats.OOMPartitions.Store(int64(n))
	}
	raisePeak(j.Stats, s.hostBytes)
	return nil
}

// split routes b's rows to the partitions of to by the hash of their key
// columns keys, counting them in rows (when not nil). Rows with a NULL key
// go to partition 0 when keepNull, else nowhere.
func (s *partStream) split(b *coldata.Batch, keys []int, keepNull bool, to [][]*coldata.Batch, rows []int) {
	s.keys = s.keys[:0]
	for _, k := range keys {
		s.keys = append(s.keys, b.Cols[k])
	}
	s.route = s.route[:0]
	mask := uint64(s.n - 1)
rows:
	for r := 0; r < b.Len; r++ {
		for _, k := range s.keys {
			if k.IsNull(r) {
				if keepNull {
					s.route = append(s.route, 0)
				} else {
					s.route = append(s.route, -1)
				}
				continue rows
			}
		}
		s.keyBuf = opspec.AppendRowKey(s.keyBuf[:0], s.keys, r)
		s.route = append(s.route, int(maphash.Bytes(s.seed, s.keyBuf)&mask))
	}
	for p := range s.idx {
		s.idx[p] = s.idx[p][:0]
	}
	for r, p := range s.route {
		if p >= 0 {
			s.idx[p] = append(s.idx[p], r)
		}
	}
	for p, idx := range s.idx {
		if len(idx) == 0 {
			continue
		}
		// Copies, so that b's memory goes with it.
		part := coldata.GatherBatch(b, idx)
		s.hostBytes += part.HostBytes()
		to[p] = append(to[p], part)
		if rows != nil {
			rows[p] += len(idx)
		}
	}
	b.ReleaseOwner()
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
			if err != nil {
				return nil, err
			}
			s.p, s.started = s.p+1, false
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
			if len(s.queue) == 0 {
				s.finish()
				s.p, s.started = s.p+1, false
				continue
			}
			if err := s.upload(ctx); err != nil {
				return nil, err
			}
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
	left, right, rows := s.left[s.p], s.right[s.p], s.rightRows[s.p]
	s.left[s.p], s.right[s.p] = nil, nil
	if len(left) == 0 || (rows == 0 && (j.Kind == opspec.InnerJoin || j.Kind == opspec.SemiJoin)) {
		s.p++
		return nil
	}
	s.started = true
	if rows == 0 && j.Kind == opspec.AntiJoin {
		s.queue = left // no table: every row is kept
		return nil
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
	err := j.RT.Cache.RetryOOM(j.RT.waitCtx(ctx), func() (err error) {
		j.build, err = j.RT.Dev.UploadBatches(ctx, hbs)
		return err
	})
	if err == nil {
		err = j.hashBuild(ctx)
	}
	if err == nil {
		s.queue = left
		return nil
	}
	s.finish()
	if !gpuexec.IsOutOfMemory(err) {
		return fmt.Errorf("partitioned join, partition %d of %d: %w", s.p, s.n, err)
	}
	// Even this partition does not fit: it joins on the host.
	s.host = &hostStream{j: j, rhs: right, hostLeft: left, fromHost: true}
	if j.Stats != nil {
		j.Stats.HostJoinOOM.Store(1)
	}
	return nil
}

// upload puts the next of partition p's left pieces, up to about
// oomProbeRows rows, on the device as one batch to probe.
func (s *partStream) upload(ctx context.Context) error {
	n, rows := 0, 0
	for n < len(s.queue) && (n == 0 || rows+s.queue[n].Len <= oomProbeRows) {
		rows += s.queue[n].Len
		n++
	}
	hbs := s.queue[:n]
	var db *gpuexec.DeviceBatch
	err := s.j.RT.Cache.RetryOOM(s.j.RT.waitCtx(ctx), func() (err error) {
		db, err = s.j.RT.Dev.UploadBatches(ctx, hbs)
		return err
	})
	if err != nil {
		return fmt.Errorf("partitioned join, partition %d of %d: left rows: %w", s.p, s.n, err)
	}
	s.queue = s.queue[n:]
	s.probeQ = append(s.probeQ, db)
	return nil
}

// finish releases partition p's device memory.
func (s *partStream) finish() {
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

// close ends the join, releasing what a partition still holds.
func (s *partStream) close() error {
	for _, b := range s.probeQ {
		b.Release()
	}
	s.probeQ, s.queue, s.left, s.right = nil, nil, nil, nil
	s.finish()
	if s.host != nil {
		err := s.host.close()
		s.host = nil
		return err
	}
	return nil
}
