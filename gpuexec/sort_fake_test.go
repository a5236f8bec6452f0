package gpuexec

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
)

// Go twins of the sort and quantile kernels (kernels/sort.cu) and of the
// scan they use (kernels/window.cu, without partition starts), for the
// fake driver: each does what its kernel does over the same buffers, block
// by block where the blocks matter (a tile's histogram, its scatter in
// input order), so that the host side of the sort (passes, scan layout,
// buffer swaps, scratch) runs without a GPU. They do not test the CUDA
// code itself: the cuda tests do.

// fakeTwins are kernels the fake driver runs by name (fake_test.go).
var fakeTwins = map[string]func(f *fakeDriver, grid Dim3, args []uint64) error{
	"gsql_sort_range":    twinSortRange,
	"gsql_sort_hist":     twinSortHist,
	"gsql_sort_scatter":  twinSortScatter,
	"gsql_sort_iota":     twinSortIota,
	"gsql_win_scan_tile": twinScanTile,
	"gsql_win_scan_tiles": func(f *fakeDriver, _ Dim3, a []uint64) error {
		add, err := twinScanAdd(a[0], a[1])
		if err != nil {
			return err
		}
		ntiles := int64(a[2])
		tv, err1 := fakeU64(f, a[3], ntiles)
		carry, err2 := fakeU64(f, a[5], ntiles)
		if err := firstErr(err1, err2); err != nil {
			return err
		}
		var acc uint64 // 0 is the identity of both sums
		for t := range tv {
			carry[t] = acc
			acc = add(acc, tv[t])
		}
		return nil
	},
	"gsql_win_scan_apply": func(f *fakeDriver, _ Dim3, a []uint64) error {
		add, err := twinScanAdd(a[0], a[1])
		if err != nil {
			return err
		}
		n := int64(a[2])
		if a[3] != 0 {
			return fmt.Errorf("twin scan: partition starts")
		}
		carry, err1 := fakeU64(f, a[4], (n+winTile-1)/winTile)
		out, err2 := fakeU64(f, a[5], n)
		if err := firstErr(err1, err2); err != nil {
			return err
		}
		for s := int64(winTile); s < n; s++ {
			out[s] = add(carry[s/winTile], out[s])
		}
		return nil
	},
	"gsql_q_rank":     twinQRank,
	"gsql_q_keys":     twinQKeys,
	"gsql_q_pack":     twinQPack,
	"gsql_q_group_of": twinQGroupOf,
	"gsql_q_bounds":   twinQBounds,
	"gsql_q_pick":     twinQPick,
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// fakeView is n elements of T at device address p.
func fakeView[T any](f *fakeDriver, p uint64, n int64) ([]T, error) {
	if n <= 0 {
		return nil, nil
	}
	var z T
	b, err := f.slice(DevicePtr(p), uint64(n)*uint64(unsafe.Sizeof(z)))
	if err != nil {
		return nil, err
	}
	if uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(z) != 0 {
		return nil, fmt.Errorf("fake view: unaligned address %#x", p)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n), nil
}

func fakeU64(f *fakeDriver, p uint64, n int64) ([]uint64, error) { return fakeView[uint64](f, p, n) }
func fakeI64(f *fakeDriver, p uint64, n int64) ([]int64, error)  { return fakeView[int64](f, p, n) }
func fakeU32(f *fakeDriver, p uint64, n int64) ([]uint32, error) { return fakeView[uint32](f, p, n) }
func fakeI32(f *fakeDriver, p uint64, n int64) ([]int32, error)  { return fakeView[int32](f, p, n) }

func twinSortRange(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[1])
	keys, err1 := fakeU64(f, a[0], n)
	r, err2 := fakeU64(f, a[2], 4)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for _, k := range keys {
		r[0], r[1] = min(r[0], k), max(r[1], k)
		r[2] &= k
		r[3] |= k
	}
	return nil
}

func sortDigit(k, sub uint64, shift uint64) int { return int((k - sub) >> shift & 0xff) }

func twinSortHist(f *fakeDriver, grid Dim3, a []uint64) error {
	n, sub, shift, nblocks := int64(a[1]), a[2], a[3], int64(a[4])
	if int64(grid.X) != nblocks {
		return fmt.Errorf("twin hist: %d blocks for %d tiles", grid.X, nblocks)
	}
	keys, err1 := fakeU64(f, a[0], n)
	counts, err2 := fakeI64(f, a[5], 256*nblocks)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for b := int64(0); b < nblocks; b++ {
		var h [256]int64
		for i := b * sortTile; i < min(n, (b+1)*sortTile); i++ {
			h[sortDigit(keys[i], sub, shift)]++
		}
		for d := range h {
			counts[int64(d)*nblocks+b] = h[d]
		}
	}
	return nil
}

func twinSortScatter(f *fakeDriver, _ Dim3, a []uint64) error {
	n, sub, shift, nblocks := int64(a[2]), a[3], a[4], int64(a[5])
	keys, err1 := fakeU64(f, a[0], n)
	counts, err2 := fakeI64(f, a[6], 256*nblocks)
	scan, err3 := fakeI64(f, a[7], 256*nblocks)
	kout, err4 := fakeU64(f, a[8], n)
	rout, err5 := fakeU32(f, a[9], n)
	var rows []uint32
	var err6 error
	if a[1] != 0 {
		rows, err6 = fakeU32(f, a[1], n)
	}
	if err := firstErr(err1, err2, err3, err4, err5, err6); err != nil {
		return err
	}
	// The kernel's own steps, thread by thread: chunks of 256 rows, each
	// row ranked within its warp by the lanes below with its digit
	// (__match_any_sync), after the earlier warps' counts of that digit
	// (wcnt) and the earlier chunks' (start).
	const threads, warps, none = 256, 8, 256
	for b := int64(0); b < nblocks; b++ {
		var start [256]int64
		var wcnt [warps][256]uint32
		for d := range start {
			at := int64(d)*nblocks + b
			start[d] = scan[at] - counts[at]
		}
		for c := int64(0); c < sortTile/threads; c++ {
			var digit [threads]int
			for t := range digit {
				digit[t] = none
				if i := b*sortTile + c*threads + int64(t); i < n {
					digit[t] = sortDigit(keys[i], sub, shift)
				}
			}
			var peers, rank [threads]uint32
			for t := range digit {
				w, lane := t/32, t%32
				for l := 0; l < 32; l++ {
					if digit[32*w+l] == digit[t] {
						peers[t] |= 1 << l
					}
				}
				rank[t] = uint32(bits.OnesCount32(peers[t] & (1<<lane - 1)))
				if digit[t] != none && rank[t] == 0 {
					wcnt[w][digit[t]] = uint32(bits.OnesCount32(peers[t]))
				}
			}
			// __syncthreads
			for t, d := range digit {
				if d == none {
					continue
				}
				i := b*sortTile + c*threads + int64(t)
				at := start[d] + int64(rank[t])
				for w := 0; w < t/32; w++ {
					at += int64(wcnt[w][d])
				}
				kout[at] = keys[i]
				if rows != nil {
					rout[at] = rows[i]
				} else {
					rout[at] = uint32(i)
				}
			}
			// __syncthreads
			for t := 0; t < threads; t++ {
				var total uint32
				for w := 0; w < warps; w++ {
					total += wcnt[w][t]
					wcnt[w][t] = 0
				}
				start[t] += int64(total)
			}
		}
	}
	return nil
}

func twinSortIota(f *fakeDriver, _ Dim3, a []uint64) error {
	rows, err := fakeU32(f, a[0], int64(a[1]))
	for i := range rows {
		rows[i] = uint32(i)
	}
	return err
}

// twinScanAdd is the scans' combination of 8-byte words for the twins:
// sums of int64s (wrapping) or of doubles, without partition starts.
func twinScanAdd(ty, op uint64) (func(a, b uint64) uint64, error) {
	switch {
	case op != winSum:
	case ty == winI64:
		return func(a, b uint64) uint64 { return a + b }, nil
	case ty == winF64:
		return func(a, b uint64) uint64 {
			return math.Float64bits(math.Float64frombits(a) + math.Float64frombits(b))
		}, nil
	}
	return nil, fmt.Errorf("twin scan: type %d op %d", ty, op)
}

func twinScanTile(f *fakeDriver, grid Dim3, a []uint64) error {
	add, err := twinScanAdd(a[0], a[1])
	if err != nil {
		return err
	}
	if a[4] != 0 {
		return fmt.Errorf("twin scan: partition starts")
	}
	n := int64(a[2])
	ntiles := (n + winTile - 1) / winTile
	if int64(grid.X) != ntiles {
		return fmt.Errorf("twin scan: %d blocks for %d tiles", grid.X, ntiles)
	}
	in, err1 := fakeU64(f, a[3], n)
	out, err2 := fakeU64(f, a[5], n)
	tv, err3 := fakeU64(f, a[6], ntiles)
	tf, err4 := fakeI32(f, a[7], ntiles)
	if err := firstErr(err1, err2, err3, err4); err != nil {
		return err
	}
	for t := int64(0); t < ntiles; t++ {
		var acc uint64
		for s := t * winTile; s < min(n, (t+1)*winTile); s++ {
			acc = add(acc, in[s])
			out[s] = acc
		}
		tv[t], tf[t] = acc, 0
	}
	return nil
}

func twinQRank(f *fakeDriver, _ Dim3, a []uint64) error {
	groups := int64(a[1])
	occ, err := fakeI32(f, a[0], groups)
	if err != nil {
		return err
	}
	for j, s := range occ {
		r, err := fakeI32(f, a[2]+4*uint64(s), 1)
		if err != nil {
			return err
		}
		r[0] = int32(j)
	}
	return nil
}

func twinQKeys(f *fakeDriver, _ Dim3, a []uint64) error {
	ty, nulls, nulloff, data, desc := coldata.Type(a[0]), a[1], int64(a[2]), a[3], a[4] != 0
	slotOf, rank, ngroups, n := a[5], a[6], int64(a[7]), int64(a[8])
	width := int64(8)
	switch ty {
	case coldata.Bool:
		width = 1
	case coldata.Decimal:
		width = 16
	}
	raw, err1 := fakeView[byte](f, data, width*n)
	key, err2 := fakeU64(f, a[9], n)
	grp, err3 := fakeI32(f, a[10], n)
	r, err4 := fakeU64(f, a[11], 2)
	if err := firstErr(err1, err2, err3, err4); err != nil {
		return err
	}
	var valid []byte
	if nulls != 0 {
		var err error
		if valid, err = fakeView[byte](f, nulls, (nulloff+n+7)/8); err != nil {
			return err
		}
	}
	var slots []int32
	if slotOf != 0 {
		var err error
		if slots, err = fakeI32(f, slotOf, n); err != nil {
			return err
		}
	}
	for i := int64(0); i < n; i++ {
		if valid != nil {
			b := nulloff + i
			if valid[b>>3]>>(b&7)&1 == 0 {
				key[i], grp[i] = 0, int32(ngroups)
				continue
			}
		}
		var v uint64
		switch width {
		case 1:
			v = uint64(raw[i])
		default:
			v = *(*uint64)(unsafe.Pointer(&raw[width*i]))
		}
		key[i] = OrderKey(ty, v, desc)
		grp[i] = 0
		if slots != nil {
			g, err := fakeI32(f, rank+4*uint64(slots[i]), 1)
			if err != nil {
				return err
			}
			grp[i] = g[0]
		}
		r[0], r[1] = min(r[0], key[i]), max(r[1], key[i])
	}
	return nil
}

func twinQPack(f *fakeDriver, _ Dim3, a []uint64) error {
	ngroups, kmin, vbits, with, n := int32(a[2]), a[3], a[4], a[5] != 0, int64(a[6])
	key, err1 := fakeU64(f, a[0], n)
	grp, err2 := fakeI32(f, a[1], n)
	out, err3 := fakeU64(f, a[7], n)
	if err := firstErr(err1, err2, err3); err != nil {
		return err
	}
	if with && vbits >= 64 {
		return fmt.Errorf("twin pack: %d value bits under a group", vbits)
	}
	for i := range out {
		v := key[i] - kmin
		if grp[i] == ngroups {
			v = 0
		}
		if with {
			out[i] = uint64(grp[i])<<vbits | v
		} else {
			out[i] = v
		}
	}
	return nil
}

func twinQGroupOf(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[2])
	rows, err1 := fakeU32(f, a[0], n)
	grp, err2 := fakeI32(f, a[1], n)
	out, err3 := fakeU64(f, a[3], n)
	if err := firstErr(err1, err2, err3); err != nil {
		return err
	}
	for j, r := range rows {
		out[j] = uint64(uint32(grp[r]))
	}
	return nil
}

func twinQBounds(f *fakeDriver, _ Dim3, a []uint64) error {
	shift, n := a[1], int64(a[2])
	skey, err := fakeU64(f, a[0], n)
	if err != nil {
		return err
	}
	at := func(p uint64, g uint64) ([]int32, error) { return fakeI32(f, p+4*g, 1) }
	for j := int64(0); j < n; j++ {
		g := skey[j] >> shift
		if j == 0 || skey[j-1]>>shift != g {
			s, err := at(a[3], g)
			if err != nil {
				return err
			}
			s[0] = int32(j)
		}
		if j == n-1 || skey[j+1]>>shift != g {
			e, err := at(a[4], g)
			if err != nil {
				return err
			}
			e[0] = int32(j + 1)
		}
	}
	return nil
}

func twinQPick(f *fakeDriver, _ Dim3, a []uint64) error {
	data, disc, q, groups := a[0], a[1] != 0, math.Float64frombits(a[2]), int64(a[6])
	start, err1 := fakeI32(f, a[3], groups)
	end, err2 := fakeI32(f, a[4], groups)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for g := int64(0); g < groups; g++ {
		s, c := int64(start[g]), int64(end[g])-int64(start[g])
		out, err := fakeU64(f, a[7]+8*uint64(g), 1)
		if err != nil {
			return err
		}
		if c <= 0 {
			out[0] = 0
			continue
		}
		row := func(k int64) (uint64, error) {
			r, err := fakeU32(f, a[5]+4*uint64(s+k), 1)
			if err != nil {
				return 0, err
			}
			return uint64(r[0]), nil
		}
		if disc {
			k := min(max(int64(math.Ceil(q*float64(c)))-1, 0), c-1)
			r, err := row(k)
			out[0] = r
			if err != nil {
				return err
			}
			continue
		}
		pos := q * float64(c-1)
		lo, hi := int64(math.Floor(pos)), int64(math.Ceil(pos))
		val := func(k int64) (float64, error) {
			r, err := row(k)
			if err != nil {
				return 0, err
			}
			v, err := fakeU64(f, data+8*r, 1)
			if err != nil {
				return 0, err
			}
			return math.Float64frombits(v[0]), nil
		}
		x, err1 := val(lo)
		y, err2 := val(hi)
		if err := firstErr(err1, err2); err != nil {
			return err
		}
		res := x
		if lo != hi {
			res = x + (pos-float64(lo))*(y-x)
		}
		out[0] = math.Float64bits(res)
	}
	return nil
}
