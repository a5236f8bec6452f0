package operators

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/spill"
)

// The host partitions of a device operator that ran out of device memory
// (a device join's build side, a device GROUP BY's input), shared by
// device_join_partitioned.go and device_aggregate_partitioned.go: rows
// are downloaded and routed on the host by a seeded hash of their key
// columns into P partitions (a power of two, each sized to a share of the
// device's free memory), held as host batches while the operator's
// partitions together stay within its MemoryLimit and written to disk
// through package spill past it (as the CPU's SpillAggregate and
// SpillJoin do), and handed back one partition at a time, uploaded in
// large pieces. EXPLAIN ANALYZE shows spilled_partitions and
// spilled_bytes.

const (
	// oomBuildShare: a partition's device work may take this fraction of
	// the device memory free when the operator splits.
	oomBuildShare = 4
	// maxOOMPartitions bounds P: past it a partition that still does not
	// fit goes to the host.
	maxOOMPartitions = 1024
	// oomSplitDepth bounds the splits one row goes through: a partition
	// still too large is split again, with another hash, while this
	// allows, and then goes to the host.
	oomSplitDepth = 3
)

// oomPartitionBytes, when positive, stands in for the device memory a
// partition may take (tests over the fake driver).
var oomPartitionBytes atomic.Int64

// SetOOMPartitionBytes sets the device bytes a partition of a device join
// or GROUP BY split after an out-of-memory error may take, in place of a
// share of the device's free memory (0: the device's); it returns a
// function restoring the previous value. For tests.
func SetOOMPartitionBytes(n int64) (restore func()) {
	old := oomPartitionBytes.Swap(n)
	return func() { oomPartitionBytes.Store(old) }
}

// oomPartitionBudget is the device bytes one partition may take on d.
func oomPartitionBudget(d *gpuexec.Device) uint64 {
	if n := oomPartitionBytes.Load(); n > 0 {
		return uint64(n)
	}
	return d.MemoryFree() / oomBuildShare
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

// routeByHash, as routes' nulls, routes a row with a NULL key by its hash
// like any other (a GROUP BY's NULL group).
const routeByHash = -2

// keyRouter routes rows to n partitions by a hash of their key columns,
// its seed its own: a partition split again gets a new router, whose
// hash spreads the keys the old one put together.
type keyRouter struct {
	seed  maphash.Seed
	mask  uint64
	keys  []*coldata.Vec
	route []int
	// st is the partitions' first keys so far (oneKey).
	st routeState
}

// routeState is what routing learns of the partitions: first is each
// one's first key, mixed whether another key followed: a partition of one
// key cannot be split (oneKey).
type routeState struct {
	keyBuf []byte
	first  [][]byte
	mixed  []bool
}

// routeChunkRows is the least rows a goroutine routes: a batch of fewer
// than twice as many is routed on one (TPC-H Q18's GROUP BY of SF10's
// 60M lineitem rows spent seconds routing on one core).
var routeChunkRows = 1 << 16

func newKeyRouter(n int) *keyRouter {
	return &keyRouter{seed: maphash.MakeSeed(), mask: uint64(n - 1), st: routeState{first: make([][]byte, n), mixed: make([]bool, n)}}
}

// oneKey reports whether every row routed to partition i had one key.
func (r *keyRouter) oneKey(i int) bool { return r.st.first[i] != nil && !r.st.mixed[i] }

// routes is the partition of each row of b by its key columns keys. A row
// with a NULL key goes to partition nulls (-1: none; routeByHash: by its
// hash). The slice is reused by the next call. A large batch is routed by
// several goroutines, each over a range of rows.
func (r *keyRouter) routes(b *coldata.Batch, keys []int, nulls int) []int {
	r.keys = r.keys[:0]
	for _, k := range keys {
		r.keys = append(r.keys, b.Cols[k])
	}
	if cap(r.route) < b.Len {
		r.route = make([]int, b.Len)
	}
	r.route = r.route[:b.Len]
	workers := min(runtime.GOMAXPROCS(0), b.Len/routeChunkRows)
	if workers <= 1 {
		r.routeRange(0, b.Len, nulls, &r.st)
		return r.route
	}
	states := make([]routeState, workers)
	var wg sync.WaitGroup
	for w := range states {
		states[w] = routeState{first: make([][]byte, len(r.st.first)), mixed: make([]bool, len(r.st.mixed))}
		lo, hi := b.Len*w/workers, b.Len*(w+1)/workers
		wg.Add(1)
		go func(st *routeState) {
			defer wg.Done()
			r.routeRange(lo, hi, nulls, st)
		}(&states[w])
	}
	wg.Wait()
	for i := range r.st.first {
		for w := range states {
			st := &states[w]
			switch {
			case st.first[i] == nil:
			case r.st.first[i] == nil:
				r.st.first[i], r.st.mixed[i] = st.first[i], st.mixed[i]
			default:
				r.st.mixed[i] = r.st.mixed[i] || st.mixed[i] || !bytes.Equal(r.st.first[i], st.first[i])
			}
		}
	}
	return r.route
}

// routeRange routes rows [lo, hi) into r.route, learning into st.
func (r *keyRouter) routeRange(lo, hi, nulls int, st *routeState) {
rows:
	for row := lo; row < hi; row++ {
		if nulls != routeByHash {
			for _, k := range r.keys {
				if k.IsNull(row) {
					r.route[row] = nulls
					continue rows
				}
			}
		}
		st.keyBuf = opspec.AppendRowKey(st.keyBuf[:0], r.keys, row)
		i := int(maphash.Bytes(r.seed, st.keyBuf) & r.mask)
		switch {
		case st.first[i] == nil:
			st.first[i] = append([]byte{}, st.keyBuf...)
		case !st.mixed[i] && !bytes.Equal(st.first[i], st.keyBuf):
			st.mixed[i] = true
		}
		r.route[row] = i
	}
}

// partSpill is the host memory budget of one operator's partitions (its
// MemoryLimit, as the CPU's spilling operators take it; 0: none) and,
// once they pass it, the spill directory they go to, removed when the
// operator ends.
type partSpill struct {
	limit  uint64
	parent string
	stats  *Stats
	// held is the host memory of every set's partitions held, peak the
	// most it reached with the spill's write buffers.
	held, peak int64
	dir        *spill.Dir
	sets       int
}

func (sp *partSpill) grow(n int64) {
	sp.held += n
	sp.peak = max(sp.peak, sp.held)
}

// directory is the spill directory, made on first use.
func (sp *partSpill) directory() (*spill.Dir, error) {
	if sp.dir == nil {
		d, err := spill.NewDir(sp.parent)
		if err != nil {
			return nil, err
		}
		sp.dir = d
	}
	return sp.dir, nil
}

// remove deletes the spill directory, if one was made.
func (sp *partSpill) remove() error {
	if sp == nil || sp.dir == nil {
		return nil
	}
	err := sp.dir.Remove()
	sp.dir = nil
	return err
}

// hashParts is one side's rows split into partitions on the host: held
// in memory while every set of the operator together stays within its
// budget, then written to disk through package spill, that set's rows
// at once and its later ones as they come.
type hashParts struct {
	sp   *partSpill
	name string
	mem  [][]*coldata.Batch
	rows []int
	// bytes is each partition's host memory, held the sum of them.
	bytes []int64
	held  int64
	idx   [][]int
	// disk holds the partitions once they went to disk.
	disk *spill.Partitions
}

func newHashParts(sp *partSpill, what string, n int) *hashParts {
	sp.sets++
	return &hashParts{sp: sp, name: fmt.Sprintf("%s%d", what, sp.sets), mem: make([][]*coldata.Batch, n),
		rows: make([]int, n), bytes: make([]int64, n), idx: make([][]int, n)}
}

// len is the number of partitions.
func (p *hashParts) len() int { return len(p.mem) }

// add copies the rows of b to their partitions route[r] (negative: none),
// so that b's memory can go.
func (p *hashParts) add(b *coldata.Batch, route []int) error {
	if p.disk != nil {
		for _, i := range route {
			if i >= 0 {
				p.rows[i]++
			}
		}
		return p.disk.Add(b, route)
	}
	for i := range p.idx {
		p.idx[i] = p.idx[i][:0]
	}
	for r, i := range route {
		if i >= 0 {
			p.idx[i] = append(p.idx[i], r)
		}
	}
	for i, idx := range p.idx {
		if len(idx) == 0 {
			continue
		}
		part := coldata.GatherBatch(b, idx)
		n := part.HostBytes()
		p.mem[i] = append(p.mem[i], part)
		p.rows[i] += len(idx)
		p.bytes[i] += n
		p.held += n
		p.sp.grow(n)
	}
	if p.sp.limit > 0 && p.sp.held > int64(p.sp.limit) {
		return p.toDisk(b)
	}
	return nil
}

// toDisk writes the partitions held in memory to disk (b gives the
// columns' types), where the later rows go too.
func (p *hashParts) toDisk(b *coldata.Batch) error {
	dir, err := p.sp.directory()
	if err != nil {
		return err
	}
	types := make([]coldata.Type, len(b.Cols))
	for i, c := range b.Cols {
		types[i] = c.Type
	}
	// Hundreds of partitions buffer fewer rows each.
	flush := min(max(spillFlushRows*spillFanout/p.len(), 256), spillFlushRows)
	if p.disk, err = dir.NewPartitions(p.name, p.len(), types, flush); err != nil {
		return err
	}
	var route []int
	for i, bs := range p.mem {
		for _, part := range bs {
			for len(route) < part.Len {
				route = append(route, 0)
			}
			for r := range route[:part.Len] {
				route[r] = i
			}
			if err := p.disk.Add(part, route[:part.Len]); err != nil {
				return err
			}
		}
		p.mem[i], p.bytes[i] = nil, 0
	}
	p.sp.held -= p.held
	p.held = 0
	if st := p.sp.stats; st != nil {
		st.SpillPartitions.Add(int64(p.len()))
	}
	return nil
}

// finish ends the adds: partitions on disk are flushed and closed.
func (p *hashParts) finish() error {
	if p.disk == nil {
		return nil
	}
	err := p.disk.Finish()
	p.sp.peak = max(p.sp.peak, p.sp.held+p.disk.PeakBytes())
	if st := p.sp.stats; st != nil {
		st.SpillBytes.Store(p.sp.dir.BytesWritten())
	}
	return err
}

// source reads partition i's rows.
func (p *hashParts) source(i int) Operator {
	if p.disk != nil {
		return p.disk.Reader(i)
	}
	return &Materialized{Batches: p.mem[i]}
}

// release drops partition i's rows once read.
func (p *hashParts) release(i int) error {
	if p.disk != nil {
		return p.disk.Remove(i)
	}
	p.mem[i] = nil
	p.held -= p.bytes[i]
	p.sp.held -= p.bytes[i]
	p.bytes[i] = 0
	return nil
}

// partUpload is a device operator over a partition's host rows: its
// batches are uploaded together up to maxRows rows and maxBytes bytes,
// not one small piece at a time.
type partUpload struct {
	src               Operator
	rt                *DeviceRuntime
	maxRows, maxBytes int64
	ahead             *coldata.Batch
}

// Open implements DeviceOperator.
func (u *partUpload) Open(ctx context.Context) error {
	u.ahead = nil
	return u.src.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (u *partUpload) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	var hbs []*coldata.Batch
	var rows, bytes int64
	for {
		b := u.ahead
		u.ahead = nil
		if b == nil {
			var err error
			if b, err = u.src.Next(ctx); err != nil {
				return nil, err
			}
		}
		if b == nil {
			break
		}
		if b.Len == 0 {
			continue
		}
		n := b.HostBytes()
		if len(hbs) > 0 && (rows+int64(b.Len) > u.maxRows || bytes+n > u.maxBytes) {
			u.ahead = b
			break
		}
		hbs = append(hbs, b)
		rows, bytes = rows+int64(b.Len), bytes+n
	}
	if len(hbs) == 0 {
		return nil, nil
	}
	var db *gpuexec.DeviceBatch
	err := u.rt.Cache.RetryOOM(u.rt.waitCtx(ctx), func() (err error) {
		db, err = u.rt.Dev.UploadBatches(ctx, hbs)
		return err
	})
	return db, err
}

// Close implements DeviceOperator.
func (u *partUpload) Close() error {
	u.ahead = nil
	return u.src.Close()
}
