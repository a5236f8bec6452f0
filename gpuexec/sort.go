package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/gsqlengine/gsql/coldata"
)

// The device radix sort (kernels/sort.cu): a stable least-significant-digit
// sort of (uint64 key, uint32 row) pairs, 8 bits a pass, skipping the
// passes whose digit is the same for every key.

// sortTile is GSQL_SORT_TILE: the rows one block of the histogram and
// scatter kernels covers.
const sortTile = 256 * 16

// SortedPairs is the result of RadixSort: Len keys in ascending order
// (Keys, uint64 each) and the row each came from (Rows, uint32 each).
// Equal keys keep their input order.
type SortedPairs struct {
	Keys, Rows *Buffer
	Len        int
	// Passes counts the digit passes run (8 at most); Launches the
	// kernels.
	Passes, Launches int
}

// Release frees the sorted keys and rows.
func (p *SortedPairs) Release() {
	if p.Keys != nil {
		p.Keys.Release()
		p.Rows.Release()
		p.Keys, p.Rows = nil, nil
	}
}

// RadixSort sorts n pairs (keys[i], rows[i]) stably by key on the device.
// keys holds n uint64 words and is not modified; rows holds n uint32 row
// numbers, or is 0 for the identity (row i is i). The caller releases the
// result. One host synchronisation reads the keys' range.
func (d *Device) RadixSort(ctx context.Context, keys, rows DevicePtr, n int) (*SortedPairs, error) {
	if n < 0 || int64(n) > math.MaxInt32 {
		return nil, invalidf("radix sort of %d rows (a device sort holds fewer than 2^31)", n)
	}
	if n > 0 && keys == 0 {
		return nil, invalidf("radix sort of %d rows without keys", n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *SortedPairs
	err := d.Do(func() error {
		sc := &hashScratch{d: d}
		defer sc.release()
		r, err := d.radixSortOn(ctx, sc, keys, rows, int64(n))
		if err != nil {
			return err
		}
		// The result leaves the scratch: the caller owns it.
		out = &SortedPairs{Keys: r.keys.Retain(), Rows: r.rows.Retain(), Len: n, Passes: r.passes, Launches: r.launches}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("radix sort: %w", err)
	}
	return out, nil
}

// sortRun is radixSortOn's result: scratch buffers with the sorted keys
// and rows.
type sortRun struct {
	keys, rows       *Buffer
	passes, launches int
}

// radixSortOn sorts n pairs into buffers of sc (see RadixSort). Context
// thread only.
func (d *Device) radixSortOn(ctx context.Context, sc *hashScratch, keys, rows DevicePtr, n int64) (*sortRun, error) {
	run := &sortRun{}
	var err error
	var kb, rb [2]*Buffer
	for i := range kb {
		if kb[i], err = sc.alloc(uint64(8 * n)); err != nil {
			return nil, err
		}
		if rb[i], err = sc.alloc(uint64(4 * n)); err != nil {
			return nil, err
		}
	}
	run.keys, run.rows = kb[0], rb[0]
	if n == 0 {
		return run, nil
	}
	// The keys' range: min, max, AND, OR.
	rng, err := sc.upload([]uint64{math.MaxUint64, 0, math.MaxUint64, 0})
	if err != nil {
		return nil, err
	}
	if err := d.launchGrid("gsql_sort_range", d.strided(n), keys, n, rng.ptr); err != nil {
		return nil, err
	}
	run.launches++
	var raw [32]byte
	if err := d.CopyToHost(raw[:], rng.ptr, nil); err != nil {
		return nil, err
	}
	w := func(i int) uint64 { return binary.LittleEndian.Uint64(raw[8*i:]) }
	sub, shifts := radixPasses(w(0), w(1), w(2), w(3))
	if len(shifts) == 0 {
		// Every key is equal: the input order is sorted.
		if err := d.drv.d2d(kb[0].ptr, keys, uint64(8*n), d.stream.h); err != nil {
			return nil, err
		}
		if rows != 0 {
			return run, d.drv.d2d(rb[0].ptr, rows, uint64(4*n), d.stream.h)
		}
		run.launches++
		return run, d.launchGrid("gsql_sort_iota", d.strided(n), rb[0].ptr, n)
	}
	nblocks := (n + sortTile - 1) / sortTile
	counts, err := sc.alloc(uint64(8 * 256 * nblocks))
	if err != nil {
		return nil, err
	}
	tiles := LaunchConfig{Grid: Dim3{int(nblocks), 1, 1}, Block: Dim3{256, 1, 1}}
	inK, inR := keys, rows
	for p, shift := range shifts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := d.launchGrid("gsql_sort_hist", tiles, inK, n, sub, int64(shift), nblocks, counts.ptr); err != nil {
			return nil, err
		}
		scan, err := d.windowScanOn(sc, winI64, winSum, 256*nblocks, counts.ptr, 0)
		if err != nil {
			return nil, err
		}
		out := p & 1
		if err := d.launchGrid("gsql_sort_scatter", tiles, inK, inR, n, sub, int64(shift), nblocks, counts.ptr, scan,
			kb[out].ptr, rb[out].ptr); err != nil {
			return nil, err
		}
		run.launches += 3
		if 256*nblocks > winTile {
			run.launches += 2 // the scan's carry passes
		}
		run.passes++
		inK, inR = kb[out].ptr, rb[out].ptr
		run.keys, run.rows = kb[out], rb[out]
	}
	return run, nil
}

// radixPasses picks the digit passes of a sort of keys with range
// [lo, hi] whose bits AND to and and OR to or: the shifts of the digits
// that differ between keys (sub 0), or of the digits of key - lo up to
// hi - lo's highest bit (sub lo), whichever takes fewer passes.
func radixPasses(lo, hi, and, or uint64) (sub uint64, shifts []int) {
	var byBits []int
	diff := and ^ or
	for s := 0; s < 64; s += 8 {
		if (diff>>s)&0xff != 0 {
			byBits = append(byBits, s)
		}
	}
	var byRange []int
	for s := 0; s < bits.Len64(hi-lo); s += 8 {
		byRange = append(byRange, s)
	}
	if len(byRange) < len(byBits) {
		return lo, byRange
	}
	return 0, byBits
}

// OrderKey is the device's sort key of a fixed-width value (kernels/sort.cu,
// gsql_order_key), for host-side references: v holds the value's bits
// (BOOL 0/1; BIGINT, DATE, TIMESTAMP and DECIMAL of at most 18 digits the
// int64; DOUBLE its IEEE bits). Keys order as the values do (desc: the
// reverse); -0.0 and 0.0 are one key, and NaN sorts after +Inf.
func OrderKey(t coldata.Type, v uint64, desc bool) uint64 {
	var k uint64
	switch t.Physical() {
	case coldata.Bool:
		k = v & 0xff
	case coldata.Float64:
		if v<<1 == 0 {
			v = 0
		}
		if v&(1<<63-1) > 0x7ff0000000000000 {
			v = 0x7ff8000000000000
		}
		if v>>63 != 0 {
			k = ^v
		} else {
			k = v | 1<<63
		}
	default:
		k = v ^ 1<<63
	}
	if desc {
		return ^k
	}
	return k
}

// sortableType reports whether the device orders values of t
// (gsql_order_key): BOOL, the 64-bit integers (BIGINT, DATE, TIMESTAMP),
// DOUBLE, and DECIMAL of at most 18 digits, whose values are int64s.
func sortableType(t coldata.Type) bool {
	switch t.Physical() {
	case coldata.Bool, coldata.Int64, coldata.Float64:
		return true
	case coldata.Decimal:
		return t.Precision() <= 18
	}
	return false
}
