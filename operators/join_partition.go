package operators

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
)

// A large join build side is radix partitioned: its keys are hashed once,
// the rows scattered into P = 2^k partitions by the top k bits of their
// hash, and each partition hashed into a table of its own, small enough to
// stay in a core's cache while it is built, on one goroutine per table and
// without locks. One table of millions of keys missed the cache on every
// insertion and probe, on one goroutine (TPC-H Q21's lineitem and orders
// at SF5: ~7.5M order keys, 64-128 MB of slots).
//
// Each partition's table numbers its keys itself; a map per partition
// turns them into global ids in order of the keys' first appearance in the
// build rows, the ids one table would have given. The join then sees one
// id space, as with one table: the build rows are grouped by id in the same
// order (for unique keys without NULLs, left in place) and a probe resolves
// each row to its id or noID. A probe batch is hashed once and its rows
// grouped by partition, and each goroutine resolves a run of partitions, so
// that the lookups of one partition's rows touch one small table in turn.
var (
	// joinPartitionMinRows is the fewest build rows that are partitioned;
	// smaller build sides keep one table.
	joinPartitionMinRows = 1 << 18
	// joinPartitionRows is the build rows aimed at per partition: the
	// number of partitions is the power of two that brings them closest
	// below it.
	joinPartitionRows = 1 << 15
	// joinPartitionProbeRows is the fewest probe rows per goroutine.
	joinPartitionProbeRows = 1 << 12
)

// maxJoinPartitions bounds the number of partitions.
const maxJoinPartitions = 1 << 14

// joinIndex maps the keys of a join's hashed side to dense ids.
type joinIndex interface {
	// keyTypes returns the key columns' types.
	keyTypes() []coldata.Type
	// find sets ids[r] for rows [0, n) of keys to the id of the row's
	// tuple, or noID when it is absent, on up to workers goroutines with
	// the caller's scratch s: an index is read-only once built, so
	// callers with their own scratch probe it at once. The result for a
	// row with a NULL key is undefined: callers clear those themselves.
	find(s *indexScratch, keys []keyVec, n int, ids []uint32, workers int)
	// release returns the index's buffers to their pools; it finds nothing
	// afterwards.
	release()
}

// flatIndex is one hash table holding every key (small build sides).
type flatIndex struct{ t *hashTable }

func (f flatIndex) keyTypes() []coldata.Type { return f.t.types }

// find implements joinIndex: hashed and probed in row ranges of at least
// parallelRows, each with its own prober.
func (f flatIndex) find(s *indexScratch, keys []keyVec, n int, ids []uint32, workers int) {
	t := f.t
	h := s.hashes(n)
	parts := max(min(workers, n/parallelRows, 8), 1)
	for len(s.probers) < parts {
		s.probers = append(s.probers, prober{t: t})
	}
	step := (n + parts - 1) / parts
	parallelDo(parts, parts, func(_, w int) {
		lo, hi := w*step, min((w+1)*step, n)
		if lo < hi {
			t.hashRange(keys, h, lo, hi)
			s.probers[w].probeRange(keys, h, lo, hi, ids, false)
		}
	})
}

func (f flatIndex) release() {}

// partIndex is a radix-partitioned join index: partition p (the hashes
// whose top bits are p) is tables[p], whose id i is global id gids[p][i].
type partIndex struct {
	types  []coldata.Type
	hasher *hashTable // hashes rows with the tables' seed
	shift  uint       // partition = hash >> shift
	tables []*hashTable
	gids   [][]uint32 // per partition: the global id of each table id
	// ents, for one fixed-width key column without NULLs, replaces the
	// tables' slots: per partition, open addressing over pairs of words,
	// a key and its global id plus one (0: empty), so that a probe reads
	// one cache line where slot, key and id map took three.
	ents [][]uint64
}

// indexScratch is one prober's scratch for joinIndex.find, reused across
// its batches: the goroutines that probe one index at once have one each.
type indexScratch struct {
	h []uint64
	// flatIndex: a prober per row range.
	probers []prober
	// partIndex: the batch's rows grouped by partition.
	counts  []int32 // per partition, then the start of its rows in sel
	sel     []int32 // the batch's rows grouped by partition, in row order
	workers []partWorker
}

// hashes returns the scratch's hash slice of n rows.
func (s *indexScratch) hashes(n int) []uint64 {
	if cap(s.h) < n {
		uint64Pool.put(s.h)
		s.h = uint64Pool.get(n)
	}
	s.h = s.h[:n]
	return s.h
}

// release returns the scratch's buffers to their pools.
func (s *indexScratch) release() {
	uint64Pool.put(s.h)
	int32Pool.put(s.sel)
	s.h, s.sel, s.counts = nil, nil, nil
	for i := range s.probers {
		s.probers[i].release()
	}
	s.probers = nil
	for w := range s.workers {
		wk := &s.workers[w]
		for c := range wk.keys {
			wk.keys[c].release()
		}
		wk.p.release()
	}
	s.workers = nil
}

// partWorker is one goroutine's scratch: its rows' keys (gathered, for
// the build and for probes of other keys), hashes and ids.
type partWorker struct {
	p    prober
	keys []keyVec
	h    []uint64
	ids  []uint32
	rows []int32 // 0, 1, 2, ...: the rows of a build partition
}

func (x *partIndex) keyTypes() []coldata.Type { return x.types }

// partitionCount returns the number of partitions for n build rows.
func partitionCount(n int) int {
	per := max(joinPartitionRows, 1)
	p := 1
	for p < maxJoinPartitions && p*per < n {
		p <<= 1
	}
	return p
}

// parallelDo runs fn(w, i) for i in [0, tasks) on up to workers goroutines
// (w is the goroutine's number), handing out tasks in order.
func parallelDo(workers, tasks int, fn func(w, i int)) {
	workers = max(min(workers, tasks), 1)
	if workers == 1 {
		for i := 0; i < tasks; i++ {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg workGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= tasks {
					return
				}
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}

// fixedKey reports whether keys is one fixed-width column without NULLs
// that its stored form compares as (not DOUBLE, whose -0 is recorded
// aside when stored).
func fixedKey(keys []keyVec) bool {
	if len(keys) != 1 {
		return false
	}
	kv := &keys[0]
	return !kv.allNull && kv.nulls == nil && kv.t != coldata.String && kv.floats == nil
}

// tableSlots returns a slot count that holds m keys without growing.
func tableSlots(m int) int {
	s := 1 << bits.Len(uint(max(4*m, 16)-1))
	if s > 1<<16 {
		s = max(1<<bits.Len(uint(2*m-1)), 1<<16)
	}
	return s
}

// buildPartIndex is groupKeys for a large build side: it hashes the n rows'
// keys into a partIndex and groups the rows by id (order[start[g]:
// start[g+1]] are id g's rows, in row order), leaving out rows with a NULL
// key. unique reports whether every id has one row.
func buildPartIndex(ctx context.Context, keys []*coldata.Vec, n int) (x *partIndex, start []int32, order []int, unique bool, err error) {
	if n > math.MaxInt32 {
		return nil, nil, nil, false, fmt.Errorf("join build side: %d rows exceed the hash join's limit of %d", n, math.MaxInt32)
	}
	types := make([]coldata.Type, len(keys))
	for i, k := range keys {
		types[i] = k.Type
	}
	kvs := make([]keyVec, len(keys))
	for i, k := range keys {
		kvs[i].prepare(k, n)
	}
	defer func() {
		for i := range kvs {
			kvs[i].release()
		}
	}()
	np := partitionCount(n)
	x = &partIndex{types: types, hasher: newHashTable(types), tables: make([]*hashTable, np)}
	fixed := fixedKey(kvs)
	if fixed {
		x.ents = make([][]uint64, np)
	}
	x.shift = uint(64 - bits.TrailingZeros(uint(np)))
	procs := max(runtime.GOMAXPROCS(0), 1)

	h := uint64Pool.get(n)
	defer uint64Pool.put(h)
	x.hasher.hashRows(kvs, h)
	null := nullRows(kvs, n)
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, false, err
	}

	// Scatter the rows (and their hashes, and a fixed key's values) into
	// their partitions, in row order within each: per chunk of rows a
	// histogram, then each chunk writes from its own offsets.
	chunks := max(min(procs, n/parallelRows), 1)
	step := (n + chunks - 1) / chunks
	hist := make([][]int32, chunks)
	parallelDo(procs, chunks, func(_, c int) {
		cnt := make([]int32, np)
		for r := c * step; r < min((c+1)*step, n); r++ {
			if null == nil || !null[r] {
				cnt[h[r]>>x.shift]++
			}
		}
		hist[c] = cnt
	})
	pstart := make([]int32, np+1) // partition p's rows are [pstart[p], pstart[p+1])
	for p := 0; p < np; p++ {
		at := pstart[p]
		for c := 0; c < chunks; c++ {
			at, hist[c][p] = at+hist[c][p], at
		}
		pstart[p+1] = at
	}
	total := int(pstart[np])
	prows := int32Pool.get(total)
	defer int32Pool.put(prows)
	ph := uint64Pool.get(total)
	defer uint64Pool.put(ph)
	var pkeys []int64
	if fixed {
		pkeys = int64Pool.get(total)
		defer int64Pool.put(pkeys)
	}
	parallelDo(procs, chunks, func(_, c int) {
		off := hist[c]
		for r := c * step; r < min((c+1)*step, n); r++ {
			if null != nil && null[r] {
				continue
			}
			hr := h[r]
			p := hr >> x.shift
			i := off[p]
			off[p]++
			prows[i], ph[i] = int32(r), hr
			if fixed {
				pkeys[i] = kvs[0].fixed[r]
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, false, err
	}

	// Build each partition's table; lids[i] is the id of row prows[i] in
	// its partition's table, and the first positions of the partition's
	// ids in turn, fpos[lo:lo+m], mark their rows in rowGid.
	lids := uint32Pool.get(total)
	defer uint32Pool.put(lids)
	fpos := int32Pool.get(total)
	defer int32Pool.put(fpos)
	rowGid := uint32Pool.getZeroed(n)
	defer uint32Pool.put(rowGid)
	workers := make([]partWorker, procs)
	var errMu sync.Mutex
	var firstErr error
	parallelDo(procs, np, func(w, p int) {
		if ctx.Err() != nil {
			return
		}
		lo, hi := int(pstart[p]), int(pstart[p+1])
		t := newHashTable(types)
		t.seed = x.hasher.seed
		x.tables[p] = t
		if fixed {
			x.ents[p], t.n = buildFixedEnts(pkeys[lo:hi], ph[lo:hi], lids[lo:hi])
		} else {
			t.slots = uint64Pool.getZeroed(tableSlots(hi - lo))
			t.mask = uint64(len(t.slots) - 1)
			wk := &workers[w]
			if len(wk.keys) != len(kvs) {
				wk.keys = make([]keyVec, len(kvs))
			}
			for c := range kvs {
				wk.keys[c].gather(&kvs[c], prows[lo:hi])
			}
			t.hashes = uint64Pool.get(hi - lo)[:0]
			wk.rows = wk.rows[:0]
			for i := range hi - lo {
				wk.rows = append(wk.rows, int32(i))
			}
			if err := t.insertAbsent(wk.keys, wk.rows, ph[lo:hi], lids[lo:hi], nil, nil); err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
				return
			}
			// Grows are over: the hashes are not needed again.
			uint64Pool.put(t.hashes)
			t.hashes = nil
			t.releaseInsert()
		}
		// Ids are numbered in order of first appearance, rows in row order.
		next := uint32(0)
		for i := lo; i < hi; i++ {
			if lids[i] == next {
				fpos[lo+int(next)] = int32(i)
				rowGid[prows[i]] = 1
				next++
			}
		}
	})
	for w := range workers {
		for c := range workers[w].keys {
			workers[w].keys[c].release()
		}
	}
	if firstErr != nil {
		x.release()
		return nil, nil, nil, false, fmt.Errorf("join build side: %w", firstErr)
	}
	if err := ctx.Err(); err != nil {
		x.release()
		return nil, nil, nil, false, err
	}

	// Global ids follow the first appearance of each key in the build
	// rows, as one table's do: the rows are then grouped by id exactly as
	// groupKeys groups them (for unique keys without NULLs, in place).
	firsts := make([]uint32, chunks+1)
	parallelDo(procs, chunks, func(_, c int) {
		k := uint32(0)
		for _, m := range rowGid[c*step : min((c+1)*step, n)] {
			k += m
		}
		firsts[c+1] = k
	})
	for c := 0; c < chunks; c++ {
		firsts[c+1] += firsts[c]
	}
	parallelDo(procs, chunks, func(_, c int) {
		g := firsts[c]
		rg := rowGid[c*step : min((c+1)*step, n)]
		for r, m := range rg {
			if m != 0 {
				rg[r] = g
				g++
			}
		}
	})
	ng := int(firsts[chunks])
	unique = ng == total
	x.gids = make([][]uint32, np)
	start = make([]int32, ng+1)
	order = make([]int, total)
	parallelDo(procs, np, func(_, p int) {
		lo, hi := int(pstart[p]), int(pstart[p+1])
		m := x.tables[p].n
		gm := make([]uint32, m)
		for l := range gm {
			gm[l] = rowGid[prows[fpos[lo+l]]]
		}
		x.gids[p] = gm
		if fixed {
			ents := x.ents[p]
			for i := 1; i < len(ents); i += 2 {
				if e := ents[i]; e != 0 {
					ents[i] = uint64(gm[e-1]) + 1
				}
			}
		}
		if unique {
			return
		}
		for _, l := range lids[lo:hi] {
			start[gm[l]+1]++
		}
	})
	if unique {
		// Every row with a key is its own group, numbered in row order:
		// the order is the rows with keys, written in sequence per chunk
		// (scattered through the partitions' ids, the writes missed the
		// cache on every row: TPC-H Q3's 7M orders).
		parallelDo(procs, chunks, func(_, c int) {
			g := firsts[c]
			for r := c * step; r < min((c+1)*step, n); r++ {
				if null == nil || !null[r] {
					order[g] = r
					g++
				}
			}
		})
		for g := range start {
			start[g] = int32(g)
		}
		return x, start, order, true, nil
	}
	for g := 0; g < ng; g++ {
		start[g+1] += start[g]
	}
	fill := slices.Clone(start[:ng])
	parallelDo(procs, np, func(_, p int) {
		lo, hi := int(pstart[p]), int(pstart[p+1])
		gm := x.gids[p]
		for i := lo; i < hi; i++ {
			g := gm[lids[i]]
			order[fill[g]] = int(prows[i])
			fill[g]++
		}
	})
	return x, start, order, false, nil
}

// buildFixedEnts hashes keys (one fixed-width column without NULLs, with
// hashes h) into a partition's entries (see partIndex.ents), holding
// local ids plus one for now, and sets ids; it returns the entries and
// the number of distinct keys.
func buildFixedEnts(keys []int64, h []uint64, ids []uint32) ([]uint64, int) {
	ents := uint64Pool.getZeroed(2 * tableSlots(len(keys)))
	mask := uint64(len(ents)/2 - 1)
	n := uint32(0)
	for i, x := range keys {
		pos := h[i] & mask
		for {
			e := ents[2*pos+1]
			if e == 0 {
				ents[2*pos], ents[2*pos+1] = uint64(x), uint64(n)+1
				ids[i] = n
				n++
				break
			}
			if int64(ents[2*pos]) == x {
				ids[i] = uint32(e) - 1
				break
			}
			pos = (pos + 1) & mask
		}
	}
	return ents, int(n)
}

// find implements joinIndex.
func (x *partIndex) find(s *indexScratch, keys []keyVec, n int, ids []uint32, maxWorkers int) {
	if n == 0 {
		return
	}
	np := len(x.tables)
	h := s.hashes(n)
	if maxWorkers > 1 {
		x.hasher.hashRows(keys, h)
	} else {
		x.hasher.hashRange(keys, h, 0, n)
	}

	// Group the rows by partition (a counting sort, stable).
	if len(s.counts) != np+1 {
		s.counts = make([]int32, np+1)
	}
	counts := s.counts
	clear(counts)
	shift := x.shift
	for _, hr := range h {
		counts[hr>>shift+1]++
	}
	for p := 0; p < np; p++ {
		counts[p+1] += counts[p]
	}
	if cap(s.sel) < n {
		int32Pool.put(s.sel)
		s.sel = int32Pool.get(n)
	}
	s.sel = s.sel[:n]
	sel := s.sel
	for r, hr := range h {
		p := hr >> shift
		sel[counts[p]] = int32(r)
		counts[p]++
	}
	// counts[p] is now the end of partition p's rows: shift it back to
	// their start.
	copy(counts[1:], counts[:np])
	counts[0] = 0

	// Split the partitions into runs of about equal rows, one per
	// goroutine.
	workers := max(min(maxWorkers, n/max(joinPartitionProbeRows, 1)), 1)
	for len(s.workers) < workers {
		s.workers = append(s.workers, partWorker{})
	}
	if workers == 1 {
		x.probeParts(s, &s.workers[0], keys, 0, np, ids)
		return
	}
	bounds := make([]int, workers+1)
	p := 0
	for w := 1; w < workers; w++ {
		target := int32(n * w / workers)
		for p < np && counts[p] < target {
			p++
		}
		bounds[w] = p
	}
	bounds[workers] = np
	var wg workGroup
	for w := 0; w < workers; w++ {
		if bounds[w] >= bounds[w+1] {
			continue
		}
		wg.Add(1)
		go func(wk *partWorker, p0, p1 int) {
			defer wg.Done()
			x.probeParts(s, wk, keys, p0, p1, ids)
		}(&s.workers[w], bounds[w], bounds[w+1])
	}
	wg.Wait()
}

// probeParts resolves the rows of partitions [p0, p1) of the grouped batch.
func (x *partIndex) probeParts(s *indexScratch, wk *partWorker, keys []keyVec, p0, p1 int, ids []uint32) {
	counts, sel, h := s.counts, s.sel, s.h
	end := func(p int) int { return int(counts[p+1]) }
	if x.ents != nil {
		// NULL probe keys (their rows' ids are the caller's to clear)
		// probe with whatever value lies under them.
		if keys[0].allNull {
			for _, r := range sel[counts[p0]:end(p1-1)] {
				ids[r] = noID
			}
			return
		}
		fixed := keys[0].fixed
		for p := p0; p < p1; p++ {
			ents := x.ents[p]
			mask := uint64(len(ents)/2 - 1)
			for _, r := range sel[counts[p]:end(p)] {
				k := fixed[r]
				pos := h[r] & mask
				id := noID
				for {
					e := ents[2*pos+1]
					if e == 0 {
						break
					}
					if int64(ents[2*pos]) == k {
						id = uint32(e) - 1
						break
					}
					pos = (pos + 1) & mask
				}
				ids[r] = id
			}
		}
		return
	}
	if kv := &keys[0]; len(keys) == 1 && kv.t == coldata.String && kv.nulls == nil && !kv.allNull {
		bs, koffs := kv.bytes, kv.offs
		for p := p0; p < p1; p++ {
			t := x.tables[p]
			slots, mask, gm := t.slots, t.mask, x.gids[p]
			arena, offs := t.cols[0].arena, t.cols[0].offs
			for _, r := range sel[counts[p]:end(p)] {
				hr, k := h[r], bs[koffs[r]:koffs[r+1]]
				tag, pos := hr&tagMask, hr&mask
				id := noID
				for {
					s := slots[pos]
					if s == 0 {
						break
					}
					if s&tagMask == tag {
						if g := uint32(s) - 1; equalBytes(arena[offs[g]:offs[g+1]], k) {
							id = gm[g]
							break
						}
					}
					pos = (pos + 1) & mask
				}
				ids[r] = id
			}
		}
		return
	}
	// Other keys: gather the run's keys and hashes, then probe each
	// partition's slice of them with the table's own prober.
	lo, hi := int(counts[p0]), end(p1-1)
	rows := sel[lo:hi]
	m := len(rows)
	if len(wk.keys) != len(keys) {
		wk.keys = make([]keyVec, len(keys))
	}
	for c := range keys {
		wk.keys[c].gather(&keys[c], rows)
	}
	if cap(wk.h) < m {
		wk.h = make([]uint64, m)
		wk.ids = make([]uint32, m)
	}
	wh, wids := wk.h[:m], wk.ids[:m]
	for i, r := range rows {
		wh[i] = h[r]
	}
	for p := p0; p < p1; p++ {
		plo, phi := int(counts[p])-lo, end(p)-lo
		if plo == phi {
			continue
		}
		wk.p.t = x.tables[p]
		wk.p.probeRange(wk.keys, wh, plo, phi, wids, false)
		gm := x.gids[p]
		for i := plo; i < phi; i++ {
			if g := wids[i]; g != noID {
				ids[rows[i]] = gm[g]
			} else {
				ids[rows[i]] = noID
			}
		}
	}
}

// release implements joinIndex.
func (x *partIndex) release() {
	for _, t := range x.tables {
		if t != nil {
			t.release()
		}
	}
	for _, e := range x.ents {
		uint64Pool.put(e)
	}
	x.ents, x.tables = nil, nil
}

// gatherBuild returns b's rows in order, gathering parts of it in
// parallel when it is large.
func gatherBuild(ctx context.Context, b *coldata.Batch, order []int) (*coldata.Batch, error) {
	parts := max(min(runtime.GOMAXPROCS(0), len(order)/(1<<16)), 1)
	if parts == 1 {
		return coldata.GatherBatch(b, order), nil
	}
	out := make([]*coldata.Batch, parts)
	step := (len(order) + parts - 1) / parts
	parallelDo(parts, parts, func(_, i int) {
		out[i] = coldata.GatherBatch(b, order[i*step:min((i+1)*step, len(order))])
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return coldata.ConcatCheck(out, len(b.Cols), ctx.Err)
}
