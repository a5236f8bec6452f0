package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
)

// TopCandidates narrows an ORDER BY ... LIMIT k on the device: it returns,
// ascending, the rows of v (the first sort key, BIGINT-like or VARCHAR)
// whose order key (the value, or a string's first 8 bytes) is at least as
// good as the k-th best key. Every row of the first k of the sort is among
// them: a row with a worse key has k rows strictly before it. The keys are
// radix-sorted on the device and only the candidates' row numbers come
// back, where the host's bound read every key (ClickBench Q26 downloaded
// 12M phrases at 100M rows to keep 10). ok is false when v holds a NULL,
// its type has no such key, or the candidates are over half the rows (no
// gain): the caller sorts as before.
func (d *Device) TopCandidates(ctx context.Context, v DeviceVec, desc bool, k int) (rows []int, ok bool, err error) {
	phys := v.Type.Physical()
	if (phys != coldata.Int64 && phys != coldata.String) || v.Type == coldata.Null {
		return nil, false, nil
	}
	n := v.Len
	if k <= 0 || k >= n {
		return nil, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	err = d.Do(func() error {
		rows, ok, err = d.topCandidatesOn(ctx, v, desc, k)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("top candidates: %w", err)
	}
	return rows, ok, nil
}

func (d *Device) topCandidatesOn(ctx context.Context, v DeviceVec, desc bool, k int) ([]int, bool, error) {
	n := int64(v.Len)
	sc := &hashScratch{d: d}
	defer sc.release()
	keys, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return nil, false, err
	}
	flag, err := sc.upload([]uint64{0})
	if err != nil {
		return nil, false, err
	}
	descArg := int64(0)
	if desc {
		descArg = 1
	}
	if err := d.launchGrid("gsql_order_prefix", d.strided(n), int64(v.Type.Physical()), v.Nulls, int64(v.NullOffset), v.Offsets, v.Data,
		descArg, n, keys.ptr, flag.ptr); err != nil {
		return nil, false, err
	}
	var word [8]byte
	if err := d.CopyToHost(word[:4], flag.ptr, nil); err != nil {
		return nil, false, err
	}
	if binary.LittleEndian.Uint32(word[:4]) != 0 {
		return nil, false, nil // NULLs: the host orders them
	}
	run, err := d.radixSortOn(ctx, sc, keys.ptr, 0, n)
	if err != nil {
		return nil, false, err
	}
	at := func(i int64) (uint64, error) {
		if err := d.CopyToHost(word[:], run.keys.ptr+DevicePtr(8*i), nil); err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(word[:]), nil
	}
	bound, err := at(int64(k - 1))
	if err != nil {
		return nil, false, err
	}
	// The candidates are the sorted keys up to the last equal to the
	// bound: binary search for the first key above it.
	lo, hi := int64(k), n
	for lo < hi {
		mid := (lo + hi) / 2
		x, err := at(mid)
		if err != nil {
			return nil, false, err
		}
		if x <= bound {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo > n/2 {
		return nil, false, nil
	}
	raw := make([]byte, 4*lo)
	if err := d.CopyToHost(raw, run.rows.ptr, nil); err != nil {
		return nil, false, err
	}
	rows := make([]int, lo)
	for i := range rows {
		rows[i] = int(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	slices.Sort(rows)
	return rows, true, nil
}
