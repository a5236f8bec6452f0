package operators

import (
	"context"
	"encoding/binary"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// DeviceSort orders device batches: it concatenates them on the device,
// brings only the key columns to the host to compute the permutation there,
// and gathers every column into sorted order with one generated kernel, so
// the payload columns never leave the device.
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
}

// Open implements DeviceOperator.
func (s *DeviceSort) Open(ctx context.Context) error {
	s.done = false
	var err error
	if s.gather, err = prepareGather(s.RT.Dev, s.Types, s.Stats); err != nil {
		return err
	}
	return s.Input.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (s *DeviceSort) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
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
	all := parts[0]
	if len(parts) > 1 {
		c, err := s.RT.Dev.Concatenate(parts)
		if err != nil {
			return nil, err
		}
		parts = append(parts, c)
		all = c
	}
	var perm []int
	if s.Limit > 0 && s.Limit < int64(all.Len)/2 {
		// The device narrows the rows to the candidates for the LIMIT;
		// the host orders those.
		cand, p, ok, err := s.topOnDevice(ctx, all)
		if err != nil {
			return nil, err
		}
		if ok {
			parts = append(parts, cand)
			all, perm = cand, p
		}
	}
	if perm == nil {
		var err error
		if perm, err = s.hostOrder(ctx, all); err != nil {
			return nil, err
		}
	}
	return s.gatherRows(ctx, all, perm)
}

// keysOf downloads the sort keys of b, as a host batch whose columns are
// the keys in order, with the keys renumbered to them.
func (s *DeviceSort) keysOf(ctx context.Context, b *gpuexec.DeviceBatch) (*coldata.Batch, []opspec.SortKey, error) {
	keyCols := make([]gpuexec.DeviceVec, len(s.Keys))
	hostKeys := make([]opspec.SortKey, len(s.Keys))
	for i, k := range s.Keys {
		keyCols[i] = b.Cols[k.Col]
		hostKeys[i] = opspec.SortKey{Col: i, Desc: k.Desc, Nulls: k.Nulls}
	}
	kb, err := gpuexec.Combine(keyCols, b.Len, b)
	if err != nil {
		return nil, nil, err
	}
	hk, err := s.RT.Dev.Download(ctx, kb)
	kb.Release()
	return hk, hostKeys, err
}

// topOnDevice orders the first Limit rows of all from candidates the
// device picks by the first key (gpuexec.TopCandidates): the candidates'
// rows are gathered on the device and only their keys come to the host.
// It returns the gathered candidates and their order; ok is false when the
// device could not narrow the rows.
func (s *DeviceSort) topOnDevice(ctx context.Context, all *gpuexec.DeviceBatch) (cand *gpuexec.DeviceBatch, perm []int, ok bool, err error) {
	first := s.Keys[0]
	rows, ok, err := s.RT.Dev.TopCandidates(ctx, all.Cols[first.Col], first.Desc, int(s.Limit))
	if err != nil || !ok {
		return nil, nil, false, err
	}
	if cand, err = s.gatherRows(ctx, all, rows); err != nil {
		return nil, nil, false, err
	}
	// Candidates keep the input's order, so index order breaks ties as
	// row order does.
	hk, keys, err := s.keysOf(ctx, cand)
	if err != nil {
		cand.Release()
		return nil, nil, false, err
	}
	cmp := rowComparator(hk, keys)
	if perm, err = topRows(ctx, hk.Len, int(s.Limit), cmp); err == nil {
		sort.Ints(perm)
		err = sortCancellable(ctx, perm, cmp)
	}
	if err != nil {
		cand.Release()
		return nil, nil, false, err
	}
	return cand, perm, true, nil
}

// hostOrder downloads all's keys and returns the order of its rows the
// sort outputs (the first Limit of them when Limit is set).
func (s *DeviceSort) hostOrder(ctx context.Context, all *gpuexec.DeviceBatch) ([]int, error) {
	hk, hostKeys, err := s.keysOf(ctx, all)
	if err != nil {
		return nil, err
	}
	cmp := rowComparator(hk, hostKeys)
	var perm []int
	if s.Limit > 0 && s.Limit < int64(all.Len)/2 {
		if perm, err = topRowsOf(ctx, hk, hostKeys, int(s.Limit), cmp); err != nil {
			return nil, err
		}
		sort.Ints(perm)
	} else {
		perm = make([]int, all.Len)
		for i := range perm {
			perm[i] = i
		}
	}
	if err := sortCancellable(ctx, perm, cmp); err != nil {
		return nil, err
	}
	return perm, nil
}

// gatherRows gathers rows perm of all (every column) into a new device
// batch.
func (s *DeviceSort) gatherRows(ctx context.Context, all *gpuexec.DeviceBatch, perm []int) (*gpuexec.DeviceBatch, error) {
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
	out, err := s.gather.RunGather(ctx, all, buf.Ptr(), len(perm))
	if s.Stats != nil {
		s.Stats.Launches.Add(int64(s.gather.Launches()))
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
	if s.gather != nil {
		s.gather.Release()
		s.gather = nil
	}
	return s.Input.Close()
}
