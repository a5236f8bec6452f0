package gpuexec

import (
	"fmt"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
)

// Go twins of the window layout kernels (kernels/winlayout.cu) for the
// fake driver: each does what its kernel does over the same buffers.

func init() {
	fakeTwins["gsql_wl_range"] = twinWLRange
	fakeTwins["gsql_wl_pack"] = twinWLPack
	fakeTwins["gsql_wl_gather"] = twinWLGather
	fakeTwins["gsql_wl_marks"] = twinWLMarks
	fakeTwins["gsql_wl_ends"] = twinWLEnds
	fakeTwins["gsql_wl_spans"] = twinWLSpans
	fakeTwins["gsql_wl_frame"] = twinWLFrame
}

// fakeKeyCol reads a key column's order words (gsql_order_key) and NULLs.
func fakeKeyCol(f *fakeDriver, ty coldata.Type, valid uint64, off int64, data uint64, desc bool, n int64) ([]uint64, []bool, error) {
	width := int64(8)
	switch ty {
	case coldata.Bool:
		width = 1
	case coldata.Decimal:
		width = 16
	}
	raw, err := fakeView[byte](f, data, width*n)
	if err != nil {
		return nil, nil, err
	}
	var bitmap []byte
	if valid != 0 {
		if bitmap, err = fakeView[byte](f, valid, (off+n+7)/8); err != nil {
			return nil, nil, err
		}
	}
	keys, nulls := make([]uint64, n), make([]bool, n)
	for i := int64(0); i < n; i++ {
		if bitmap != nil {
			b := off + i
			if nulls[i] = bitmap[b>>3]>>(b&7)&1 == 0; nulls[i] {
				continue
			}
		}
		v := uint64(raw[i])
		if width > 1 {
			v = *(*uint64)(unsafe.Pointer(&raw[width*i]))
		}
		keys[i] = OrderKey(ty, v, desc)
	}
	return keys, nulls, nil
}

func twinWLRange(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[5])
	keys, nulls, err1 := fakeKeyCol(f, coldata.Type(a[0]), a[1], int64(a[2]), a[3], a[4] != 0, n)
	r, err2 := fakeU64(f, a[6], 3)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for i, k := range keys {
		if nulls[i] {
			r[2] = 1
			continue
		}
		r[0], r[1] = min(r[0], k), max(r[1], k)
	}
	return nil
}

func twinWLPack(f *fakeDriver, _ Dim3, a []uint64) error {
	nullsFirst, kmin, rank, width, first, n := a[5] != 0, a[6], a[7], a[8], a[9] != 0, int64(a[10])
	if rank > 1 || width > 64 || rank+width > 64 || (rank+width == 64 && !first) {
		return fmt.Errorf("twin pack: rank %d width %d first %v", rank, width, first)
	}
	keys, nulls, err1 := fakeKeyCol(f, coldata.Type(a[0]), a[1], int64(a[2]), a[3], a[4] != 0, n)
	out, err2 := fakeU64(f, a[11], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for i := range out {
		var v uint64
		if !nulls[i] && width > 0 {
			v = keys[i] - kmin
			if width < 64 && v>>width != 0 {
				return fmt.Errorf("twin pack: key %#x past %d bits over %#x", keys[i], width, kmin)
			}
		}
		if rank == 1 && nulls[i] != nullsFirst {
			v |= 1 << width
		}
		prev := out[i]
		if first || rank+width >= 64 {
			prev = 0
		} else {
			prev <<= rank + width
		}
		out[i] = prev | v
	}
	return nil
}

func twinWLGather(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[2])
	rows, err1 := fakeU32(f, a[1], n)
	out, err2 := fakeU64(f, a[3], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for j, r := range rows {
		w, err := fakeU64(f, a[0]+8*uint64(r), 1)
		if err != nil {
			return err
		}
		out[j] = w[0]
	}
	return nil
}

func twinWLMarks(f *fakeDriver, _ Dim3, a []uint64) error {
	n, pmask, first := int64(a[2]), a[3], a[4] != 0
	pc, err1 := fakeI64(f, a[5], n)
	qc, err2 := fakeI64(f, a[6], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	var words []uint64
	var perm []uint32
	if a[0] != 0 {
		var err error
		if a[1] != 0 {
			if perm, err = fakeU32(f, a[1], n); err != nil {
				return err
			}
			sorted := make([]uint64, n)
			for s, r := range perm {
				w, err := fakeU64(f, a[0]+8*uint64(r), 1)
				if err != nil {
					return err
				}
				sorted[s] = w[0]
			}
			words = sorted
		} else if words, err = fakeU64(f, a[0], n); err != nil {
			return err
		}
	}
	b := func(x bool) int64 {
		if x {
			return 1
		}
		return 0
	}
	for s := int64(0); s < n; s++ {
		p, q := s == 0, s == 0
		if s > 0 && words != nil {
			x := words[s-1] ^ words[s]
			p, q = x&pmask != 0, x != 0
		}
		if first {
			pc[s], qc[s] = b(p), b(q)
		} else {
			pc[s] |= b(p)
			qc[s] |= b(q)
		}
	}
	return nil
}

func twinWLEnds(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[0])
	pc, err1 := fakeI64(f, a[1], n)
	qc, err2 := fakeI64(f, a[2], n)
	pcs, err3 := fakeI64(f, a[3], n)
	qcs, err4 := fakeI64(f, a[4], n)
	ps, err5 := fakeI32(f, a[5], n)
	pe, err6 := fakeI32(f, a[6], n)
	qs, err7 := fakeI32(f, a[7], n)
	qe, err8 := fakeI32(f, a[8], n)
	if err := firstErr(err1, err2, err3, err4, err5, err6, err7, err8); err != nil {
		return err
	}
	for s := int64(0); s < n; s++ {
		last := s == n-1
		if pc[s] != 0 {
			ps[pcs[s]-1] = int32(s)
		}
		if last || pc[s+1] != 0 {
			pe[pcs[s]-1] = int32(s + 1)
		}
		if qc[s] != 0 {
			qs[qcs[s]-1] = int32(s)
		}
		if last || qc[s+1] != 0 {
			qe[qcs[s]-1] = int32(s + 1)
		}
	}
	return nil
}

func twinWLSpans(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[0])
	pcs, err1 := fakeI64(f, a[1], n)
	qcs, err2 := fakeI64(f, a[2], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	var arr [9][]int32
	for i := range arr {
		var err error
		if arr[i], err = fakeI32(f, a[3+i], n); err != nil {
			return err
		}
	}
	for s := int64(0); s < n; s++ {
		p, q := pcs[s]-1, qcs[s]-1
		arr[4][s], arr[5][s], arr[6][s], arr[7][s] = arr[0][p], arr[1][p], arr[2][q], arr[3][q]
		arr[8][s] = int32(q)
	}
	return nil
}

func twinWLFrame(f *fakeDriver, _ Dim3, a []uint64) error {
	n, rows := int64(a[0]), a[1] != 0
	sk, so, ek, eo := WindowBoundKind(a[2]), int64(a[3]), WindowBoundKind(a[4]), int64(a[5])
	var arr [6][]int32
	for i := range arr {
		var err error
		if arr[i], err = fakeI32(f, a[6+i], n); err != nil {
			return err
		}
	}
	ps, pe, qs, qe := arr[0], arr[1], arr[2], arr[3]
	bound := func(k WindowBoundKind, off int64, s int64, start bool) int64 {
		switch k {
		case WindowUnboundedPreceding:
			return int64(ps[s])
		case WindowUnboundedFollowing:
			return int64(pe[s])
		case WindowCurrentRow:
			switch {
			case rows && start:
				return s
			case rows:
				return s + 1
			case start:
				return int64(qs[s])
			}
			return int64(qe[s])
		}
		pos := s + off
		if k == WindowPreceding {
			pos = s - off
		}
		if !start {
			pos++
		}
		return min(max(pos, int64(ps[s])), int64(pe[s]))
	}
	for s := int64(0); s < n; s++ {
		lo := bound(sk, so, s, true)
		arr[4][s], arr[5][s] = int32(lo), int32(max(lo, bound(ek, eo, s, false)))
	}
	return nil
}
