package operators

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// DeviceSort orders device batches: it concatenates them on the device,
// sorts the keys there when every key's type is one the device's radix
// sort packs (DeviceSortable; else it brings only the key columns to the
// host to compute the permutation), and gathers every column into sorted
// order with one generated kernel, so the payload columns never leave the
// device. Under a LIMIT the device first narrows the rows to candidates
// by the first key (gpuexec.TopCandidates) and only those are sorted.
type DeviceSort struct {
	Input DeviceOperator
	RT    *DeviceRuntime
	Keys  []opspec.SortKey
	Types []coldata.Type
	Stats *Stats
	// Limit, when positive, is how many of the first rows a LIMIT above
	// reads: only those are ordered and gathered (Sort.Limit).
	Limit int64

	gather gatherer
	done   bool
	// keyGather gathers the key columns alone (the candidates of a batch
	// among several); prepared when first needed.
	keyGather gatherer
	// parts and order are a sort over several batches while its rows are
	// gathered, a chunk at a time (nextChunk).
	parts []*gpuexec.DeviceBatch
	order *partOrder
}

// Open implements DeviceOperator.
func (s *DeviceSort) Open(ctx context.Context) error {
	s.done = false
	s.releaseParts()
	var err error
	if s.gather, err = prepareGather(s.RT.Dev, s.Types, s.Stats); err != nil {
		return err
	}
	return s.Input.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (s *DeviceSort) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if s.parts != nil {
		return s.nextChunk(ctx)
	}
	if s.done {
		return nil, nil
	}
	s.done = true
	var parts []*gpuexec.DeviceBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for {
		b, err := s.Input.NextDevice(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		parts = append(parts, b)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	parts = dropEmpty(parts)
	if len(parts) > 1 && !s.tiny(parts) {
		// Several batches (a resident table's row groups): the keys are
		// ordered across them and the rows gathered from where they are,
		// so the other columns are never concatenated.
		if err := s.orderParts(ctx, parts); err != nil {
			return nil, err
		}
		s.parts, parts = parts, nil
		return s.nextChunk(ctx)
	}
	all := parts[0]
	if all.Len == 0 {
		return all.Retain()
	}
	if s.tiny(parts) {
		return s.sortOnHost(ctx, parts)
	}
	if s.Limit > 0 && s.Limit < int64(all.Len)/2 {
		// The device narrows the rows to the candidates for the LIMIT;
		// only those are ordered.
		cand, ok, err := s.candidates(ctx, all)
		if err != nil {
			return nil, err
		}
		if ok {
			parts = append(parts, cand)
			all = cand
			if s.tiny(parts[len(parts)-1:]) {
				// Few candidates: ordered on the host, as a tiny input.
				return s.sortOnHost(ctx, parts[len(parts)-1:])
			}
		}
	}
	if keys, ok := s.deviceKeys(all, s.Keys); ok {
		return s.sortOnDevice(ctx, all, keys)
	}
	perm, err := s.hostOrder(ctx, all, s.Keys)
	if err != nil {
		return nil, err
	}
	return s.gatherRows(ctx, all, perm)
}

// sortKeysOnHost makes DeviceSort order every input's keys on the host
// (SetSortKeysOnHost).
var sortKeysOnHost atomic.Bool

// SetSortKeysOnHost makes a device ORDER BY sort its keys on the host even
// when the device could (benchmarks compare the two paths); the returned
// function restores the previous setting.
func SetSortKeysOnHost(on bool) (restore func()) {
	old := sortKeysOnHost.Swap(on)
	return func() { sortKeysOnHost.Store(old) }
}

// DeviceSortable reports whether DeviceSort orders keys of type t on the
// device (gpuexec.SortRows): the fixed-width types its radix sort packs,
// and text (whose strings past gpuexec.MaxTextSortBytes the host sorts).
func DeviceSortable(t coldata.Type) bool { return gpuexec.RowSortable(t) }

// deviceKeys returns b's sort keys (sortKeys: s.Keys, or the keys
// renumbered over a batch of key columns) for gpuexec.SortRows, NULLs placed as
// the host's rowComparator places them; ok is false when a key's type is
// one the device does not order or b is past its size.
func (s *DeviceSort) deviceKeys(b *gpuexec.DeviceBatch, sortKeys []opspec.SortKey) (keys []gpuexec.WindowKey, ok bool) {
	if sortKeysOnHost.Load() || b.Len >= math.MaxInt32 {
		return nil, false
	}
	keys = make([]gpuexec.WindowKey, len(sortKeys))
	for i, k := range sortKeys {
		c := b.Cols[k.Col]
		if !DeviceSortable(c.Type) {
			return nil, false
		}
		// NULLs compare below every value, so DESC puts them last unless
		// NULLS FIRST/LAST says.
		nullsFirst := !k.Desc
		if k.Nulls != opspec.NullsDefault {
			nullsFirst = k.Nulls == opspec.NullsFirst
		}
		keys[i] = gpuexec.WindowKey{Col: c, Desc: k.Desc, NullsFirst: nullsFirst}
	}
	return keys, true
}

// sortOnDevice orders all by keys on the device (gpuexec.SortRows) and
// gathers the rows the sort outputs (the first Limit when set) there: no
// key leaves the device.
func (s *DeviceSort) sortOnDevice(ctx context.Context, all *gpuexec.DeviceBatch, keys []gpuexec.WindowKey) (*gpuexec.DeviceBatch, error) {
	limit := 0
	if s.Limit > 0 && s.Limit < int64(all.Len) {
		limit = int(s.Limit)
	}
	order, ok, err := s.RT.Dev.SortRows(ctx, all.Len, keys, limit)
	if err != nil {
		return nil, fmt.Errorf("ORDER BY: %w", err)
	}
	if !ok {
		// A text key too long to pack: the host sorts the keys.
		perm, err := s.hostOrder(ctx, all, s.Keys)
		if err != nil {
			return nil, err
		}
		return s.gatherRows(ctx, all, perm)
	}
	defer order.Release()
	if s.Stats != nil {
		s.Stats.Launches.Add(int64(order.Launches))
	}
	return s.gatherIndex(ctx, all, order.Rows.Ptr(), order.Len)
}

// keyColumns returns a view of b holding only the columns of keys, in
// order, and keys renumbered to that view.
func keyColumns(b *gpuexec.DeviceBatch, keys []opspec.SortKey) (*gpuexec.DeviceBatch, []opspec.SortKey, error) {
	keyCols := make([]gpuexec.DeviceVec, len(keys))
	renumbered := make([]opspec.SortKey, len(keys))
	for i, k := range keys {
		keyCols[i] = b.Cols[k.Col]
		renumbered[i] = opspec.SortKey{Col: i, Desc: k.Desc, Nulls: k.Nulls}
	}
	kb, err := gpuexec.Combine(keyCols, b.Len, b)
	if err != nil {
		return nil, nil, err
	}
	return kb, renumbered, nil
}

// keysOf downloads the sort keys of b, as a host batch whose columns are
// the keys in order, with the keys renumbered to them.
func (s *DeviceSort) keysOf(ctx context.Context, b *gpuexec.DeviceBatch, keys []opspec.SortKey) (*coldata.Batch, []opspec.SortKey, error) {
	kb, hostKeys, err := keyColumns(b, keys)
	if err != nil {
		return nil, nil, err
	}
	hk, err := s.RT.Dev.Download(ctx, kb)
	kb.Release()
	return hk, hostKeys, err
}

// candidates gathers, on the device, the rows of all that can be among
// the first Limit by the first key (gpuexec.TopCandidates), in input
// order, so that ties still break by row order. ok is false when the
// device could not narrow the rows.
func (s *DeviceSort) candidates(ctx context.Context, all *gpuexec.DeviceBatch) (cand *gpuexec.DeviceBatch, ok bool, err error) {
	first := s.Keys[0]
	rows, ok, err := s.RT.Dev.TopCandidates(ctx, all.Cols[first.Col], first.Desc, int(s.Limit))
	if err != nil || !ok {
		return nil, false, err
	}
	if cand, err = s.gatherRows(ctx, all, rows); err != nil {
		return nil, false, err
	}
	return cand, true, nil
}

// hostOrder downloads all's keys (columns of all, as keys name them) and
// returns the order of its rows the sort outputs (the first Limit of them
// when Limit is set).
func (s *DeviceSort) hostOrder(ctx context.Context, all *gpuexec.DeviceBatch, keys []opspec.SortKey) ([]int, error) {
	if s.Stats != nil {
		s.Stats.HostSorts.Add(1)
	}
	hk, hostKeys, err := s.keysOf(ctx, all, keys)
	if err != nil {
		return nil, err
	}
	return s.hostPerm(ctx, hk, hostKeys)
}

// hostPerm returns the order of hk's rows by keys (columns of hk) that
// the sort outputs, the first Limit of them when Limit is set: the CPU
// Sort's order, ties in row order.
func (s *DeviceSort) hostPerm(ctx context.Context, hk *coldata.Batch, hostKeys []opspec.SortKey) ([]int, error) {
	var perm []int
	var err error
	if s.Limit > 0 && s.Limit < int64(hk.Len)/2 {
		cmp := rowComparator(hk, hostKeys)
		if perm, err = topRowsOf(ctx, hk, hostKeys, int(s.Limit), cmp); err != nil {
			return nil, err
		}
		sort.Ints(perm)
		if err := sortCancellable(ctx, perm, cmp); err != nil {
			return nil, err
		}
	} else if perm, err = orderOf(ctx, hk, hostKeys); err != nil {
		return nil, err
	}
	if s.Limit > 0 && int64(len(perm)) > s.Limit {
		perm = perm[:s.Limit]
	}
	return perm, nil
}

// gatherRows gathers rows perm of all (every column) into a new device
// batch.
func (s *DeviceSort) gatherRows(ctx context.Context, all *gpuexec.DeviceBatch, perm []int) (*gpuexec.DeviceBatch, error) {
	return s.gatherRowsWith(ctx, s.gather, all, perm)
}

// gatherRowsWith gathers rows perm of in with g into a new device batch.
func (s *DeviceSort) gatherRowsWith(ctx context.Context, g gatherer, in *gpuexec.DeviceBatch, perm []int) (*gpuexec.DeviceBatch, error) {
	idx := make([]byte, 8*len(perm))
	for i, p := range perm {
		binary.LittleEndian.PutUint64(idx[8*i:], uint64(p))
	}
	buf, err := s.RT.Dev.Alloc(uint64(len(idx)))
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	if err := s.RT.Dev.CopyToDevice(buf.Ptr(), idx, nil); err != nil {
		return nil, err
	}
	return s.gatherIndexWith(ctx, g, in, buf.Ptr(), len(perm))
}

// gatherIndex gathers the n rows of all whose int64 row numbers idx holds
// on the device into a new device batch.
func (s *DeviceSort) gatherIndex(ctx context.Context, all *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error) {
	return s.gatherIndexWith(ctx, s.gather, all, idx, n)
}

// gatherIndexWith is gatherIndex with the gatherer g.
func (s *DeviceSort) gatherIndexWith(ctx context.Context, g gatherer, all *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error) {
	out, err := g.RunGather(ctx, all, idx, n)
	if s.Stats != nil {
		s.Stats.Launches.Add(int64(g.Launches()))
	}
	if err != nil {
		return nil, err
	}
	// The index buffer is read by the gather still in flight: it must live
	// until the stream passes it.
	if err := s.RT.Dev.Synchronize(); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Close implements DeviceOperator.
func (s *DeviceSort) Close() error {
	s.releaseParts()
	if s.gather != nil {
		s.gather.Release()
		s.gather = nil
	}
	if s.keyGather != nil {
		s.keyGather.Release()
		s.keyGather = nil
	}
	return s.Input.Close()
}
