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

// A device GROUP BY that runs out of device memory (after the resident
// tables were evicted) and cannot be halved (quantiles, DISTINCT
// aggregates, halves that bottom out), or whose first half shows many
// groups that the host would have to merge, groups partition by
// partition: its input is read again, downloaded and split on the host by
// a hash of the group keys into P partitions (device_oom_parts.go), P
// sized so that each partition's rows and grouping state fit a quarter
// of the device's free memory. Each partition in turn is uploaded in
// large pieces and grouped by a DeviceHashAggregate of its own, so
// DISTINCT aggregates, quantiles and the halves work as over any input;
// every row of a group is in its partition, so its groups are final and
// the partitions' outputs together are the GROUP BY's, with no merge. A
// partition that still runs out of device memory is split again by its
// own GROUP BY, with another hash, up to oomSplitDepth splits deep
// (oom_resplits=N); past that, or when its rows all have one key, it is
// grouped by the CPU's HashAggregate (host_group_oom=1). The partitions
// go to disk past the GROUP BY's MemoryLimit, as the join's do. EXPLAIN
// ANALYZE says oom_partitions=P.
//
// The groups come out partition by partition, not in first-appearance
// order, which no query without ORDER BY may rely on. Under a Top each
// partition is cut on its own, and the groups all the cuts kept are cut
// again at the end: a cut over all groups keeps no group that its
// partition's cut dropped.

// aggStateRowBytes is the device bytes a row may add to a grouping per
// aggregate and for the hash table (every row its own group at worst).
const aggStateRowBytes = 16

// aggPartStream is a device GROUP BY run partition by partition.
type aggPartStream struct {
	h     *DeviceHashAggregate
	parts *hashParts
	// sp is the partitions' host memory budget and spill directory,
	// which own says this stream made (and removes).
	sp  *partSpill
	own bool
	// budget is the device bytes a partition may take.
	budget uint64
	// p is the partition being grouped by cur (on the CPU when onHost),
	// which has returned groups when produced.
	p                int
	cur              Operator
	onHost, produced bool
	// oneKey says which partitions' rows all have one key: split again,
	// they would not spread.
	oneKey []bool
	// cands holds, under a Top, the groups each partition's cut kept.
	cands []*coldata.Batch
	done  bool
}

// oomPartitionable reports whether a grouping that failed with err is
// run again by partition: a device out-of-memory error of the grouping
// itself (not of the input), with keys to partition by.
func (h *DeviceHashAggregate) oomPartitionable(err error) bool {
	return len(h.Keys) > 0 && !h.inputFailed && !h.oneKey && h.depth < oomSplitDepth && gpuexec.IsOutOfMemory(err)
}

// manyGroups reports whether parts, the partials of rows input rows, hold
// more groups than merging them on the host is worth (AggFewRows).
func (h *DeviceHashAggregate) manyGroups(parts []*gpuexec.GroupPartial, rows int) bool {
	if AggFewRows <= 0 {
		return false
	}
	groups := 0
	for _, p := range parts {
		groups += p.Keys.Len
	}
	return groups > rows/AggFewRows
}

// groupPartitionedAfterOOM reads the input again and splits it into the
// partitions that h.parted groups, after the grouping failed with cause.
func (h *DeviceHashAggregate) groupPartitionedAfterOOM(ctx context.Context, cause error) error {
	h.dropAhead()
	if err := h.Input.Close(); err != nil {
		return err
	}
	if err := h.Input.Open(ctx); err != nil {
		return err
	}
	// The failed attempt saw the input up to the failure: most often all
	// of it (one resident batch).
	budget := oomPartitionBudget(h.RT.Dev)
	bytes := h.seenBytes + h.seenRows*aggStateRowBytes*uint64(1+len(h.Aggs))
	n := oomPartitions(bytes, budget)
	// A partition's own GROUP BY shares its parent's budget and spill
	// directory, which the outermost removes.
	sp, own := h.oomSpill, h.oomSpill == nil
	if own {
		sp = &partSpill{limit: h.MemoryLimit, parent: h.SpillDir, stats: h.Stats}
	}
	s := &aggPartStream{h: h, sp: sp, own: own, parts: newHashParts(sp, "agg", n), budget: budget}
	if err := s.split(ctx, n, cause); err != nil {
		if own {
			sp.remove()
		}
		return err
	}
	h.parted = s
	switch {
	case h.Stats == nil:
	case h.depth == 0:
		h.Stats.OOMPartitions.Store(int64(n))
	default:
		h.Stats.OOMResplits.Add(1)
	}
	raisePeak(h.Stats, sp.peak)
	return nil
}

// split downloads the input read again and routes its rows to the n
// partitions.
func (s *aggPartStream) split(ctx context.Context, n int, cause error) error {
	h := s.h
	r := newKeyRouter(n)
	for {
		db, err := h.Input.NextDevice(ctx)
		if err != nil {
			return fmt.Errorf("partitioned GROUP BY after %v: %w", cause, err)
		}
		if db == nil {
			break
		}
		if db.Len == 0 {
			db.Release()
			continue
		}
		hb, err := h.RT.Dev.DownloadInPieces(ctx, db)
		db.Release()
		if err != nil {
			return fmt.Errorf("partitioned GROUP BY after %v: %w", cause, err)
		}
		err = s.parts.add(hb, r.routes(hb, h.Keys, routeByHash))
		hb.ReleaseOwner()
		if err != nil {
			return fmt.Errorf("partitioned GROUP BY: %w", err)
		}
	}
	if err := s.parts.finish(); err != nil {
		return fmt.Errorf("partitioned GROUP BY: %w", err)
	}
	s.oneKey = make([]bool, n)
	for i := range s.oneKey {
		s.oneKey[i] = r.oneKey(i)
	}
	return nil
}

// next returns the next partition's groups (nil at the end).
func (s *aggPartStream) next(ctx context.Context) (*coldata.Batch, error) {
	h := s.h
	for {
		if s.cur != nil {
			b, err := s.cur.Next(ctx)
			if err != nil && !s.onHost && !s.produced && gpuexec.IsOutOfMemory(err) {
				if err := s.startHost(ctx); err != nil {
					return nil, err
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("partitioned GROUP BY, partition %d of %d: %w", s.p, s.parts.len(), err)
			}
			if b != nil {
				s.produced = true
				if b.Len == 0 {
					continue
				}
				if h.Top != nil {
					s.cands = append(s.cands, b)
					continue
				}
				return b, nil
			}
			err = errors.Join(s.cur.Close(), s.parts.release(s.p))
			s.cur = nil
			s.p++
			if err != nil {
				return nil, err
			}
			continue
		}
		if s.p >= s.parts.len() {
			return s.end()
		}
		if s.parts.rows[s.p] == 0 {
			s.p++
			continue
		}
		if err := s.startDevice(ctx); err != nil {
			return nil, err
		}
	}
}

// startDevice starts partition p's grouping on the device.
func (s *aggPartStream) startDevice(ctx context.Context) error {
	h := s.h
	in := &partUpload{src: s.parts.source(s.p), rt: h.RT, maxRows: math.MaxInt32, maxBytes: int64(s.budget)}
	sub := &DeviceHashAggregate{Input: in, RT: h.RT, Keys: h.Keys, KeyTypes: h.KeyTypes, Aggs: h.Aggs,
		MemoryLimit: h.MemoryLimit, Stats: h.Stats, Top: h.Top, Spill: h.Spill, SpillDir: h.SpillDir,
		GroupOn: h.GroupOn, PartitionOn: h.PartitionOn, depth: h.depth + 1, oomSpill: s.sp, oneKey: s.oneKey[s.p]}
	s.cur, s.onHost, s.produced = sub, false, false
	if err := sub.Open(ctx); err != nil {
		return fmt.Errorf("partitioned GROUP BY, partition %d of %d: %w", s.p, s.parts.len(), err)
	}
	return nil
}

// startHost groups partition p on the CPU after its device grouping ran
// out of memory.
func (s *aggPartStream) startHost(ctx context.Context) error {
	h := s.h
	if err := s.cur.Close(); err != nil {
		return err
	}
	s.cur, s.onHost = h.hostAggregate(s.parts.source(s.p)), true
	if h.Stats != nil {
		h.Stats.HostGroupOOM.Store(1)
	}
	if err := s.cur.Open(ctx); err != nil {
		return fmt.Errorf("partitioned GROUP BY, partition %d of %d on the host: %w", s.p, s.parts.len(), err)
	}
	return nil
}

// end returns, under a Top, the groups the cut over every partition's
// survivors keeps; then nil.
func (s *aggPartStream) end() (*coldata.Batch, error) {
	h := s.h
	if s.done || h.Top == nil {
		return nil, nil
	}
	s.done = true
	if len(s.cands) == 0 {
		return nil, nil
	}
	b := coldata.Concat(s.cands, len(h.Keys)+len(h.Aggs))
	s.cands = nil
	b = cutTopGroups(h.Top, len(h.Keys), b)
	if h.Stats != nil {
		h.Stats.TopGroups.Store(int64(b.Len) + 1)
	}
	return b, nil
}

// close ends the grouping, dropping the partitions still held.
func (s *aggPartStream) close() error {
	var err error
	if s.cur != nil {
		err = s.cur.Close()
		s.cur = nil
	}
	for i := s.p; i < s.parts.len(); i++ {
		s.parts.release(i)
	}
	s.cands = nil
	if s.own {
		if rerr := s.sp.remove(); err == nil {
			err = rerr
		}
	}
	return err
}

// hostAggregate is the CPU's GROUP BY like h over in's host batches
// (spilling past MemoryLimit when h.Spill).
func (h *DeviceHashAggregate) hostAggregate(in Operator) Operator {
	agg := &HashAggregate{Input: in, Keys: h.keyExprs(), Aggs: h.Aggs, MemoryLimit: h.MemoryLimit, Top: h.Top}
	if h.Spill {
		return &SpillAggregate{Agg: agg, Dir: h.SpillDir, Stats: h.Stats}
	}
	return agg
}

// cutTopGroups keeps the groups of b (finished: keys, then aggregates)
// that the cut t keeps: the K first by the term's value, NULLs where the
// term puts them, and the K-th's ties where the cut keeps them. A value
// with no ordering word (a string, a NaN) leaves every group.
func cutTopGroups(t *opspec.TopGroups, nkeys int, b *coldata.Batch) *coldata.Batch {
	if t == nil || t.Limit < 1 || b.Len <= t.Limit {
		return b
	}
	if t.Agg < 0 {
		return coldata.SliceBatch(b, 0, t.Limit)
	}
	col := nkeys + t.Agg
	if t.Key {
		col = t.Agg
	}
	v := b.Cols[col]
	words := make([]uint64, b.Len)
	for g := range words {
		w, null, ok := keyWordCPU(v, g)
		if !ok {
			return b
		}
		words[g] = gpuexec.TopPlace(w, null, t.Desc, t.NullsFirst())
	}
	keep := topGroupsByWord(b.Len, t.Limit, func(g int) uint64 { return words[g] }, topTies(t))
	return coldata.GatherBatch(b, keep)
}
