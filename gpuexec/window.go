package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// WindowLayout is one window ordering on the device (kernels/window.cu):
// the permutation from sorted positions to input rows and each row's
// partition and peer-group spans, in sorted positions. The host computes
// it from the partition and order keys alone (NewWindowLayout), or the
// device sorts the keys itself (SortWindow, winlayout.go); the functions
// then run on the device and write their results in input row order.
type WindowLayout struct {
	d  *Device
	n  int
	sc *hashScratch
	// perm is nil when the rows are already in order.
	perm, ps, pe, qs, qe, ord *Buffer
	// Launches counts the kernels SortWindow and FrameOf ran.
	Launches int
}

// WindowFrame is every row's frame [Lo, Hi) in sorted positions.
type WindowFrame struct {
	lo, hi *Buffer
}

// WindowRank is a function of positions alone.
type WindowRank int64

const (
	WindowRowNumber WindowRank = iota
	WindowRankOf
	WindowDenseRank
	WindowNtile
	WindowPercentRank
	WindowCumeDist
	WindowCountStar
)

// WindowValue is a function that returns another row's value.
type WindowValue int64

const (
	WindowLag WindowValue = iota
	WindowLead
	WindowFirstValue
	WindowLastValue
	WindowNthValue
)

// WindowAggKind is an aggregate over a frame.
type WindowAggKind int64

const (
	WindowCount WindowAggKind = iota
	WindowSum
	WindowAvg
	WindowMin
	WindowMax
)

// WindowAggMode says how an aggregate covers its frames.
type WindowAggMode int64

const (
	// WindowRunning: every frame starts at its partition's start, so a
	// scan segmented at partition starts answers every row.
	WindowRunning WindowAggMode = iota
	// WindowLoop: each row combines its frame's values in row order (the
	// frames are short).
	WindowLoop
	// WindowDiff: a frame's integer sum is a difference of two prefix
	// sums (any frame).
	WindowDiff
)

// WindowAgg is one aggregate to compute.
type WindowAgg struct {
	Kind  WindowAggKind
	Arg   DeviceVec // BIGINT (or DATE/TIMESTAMP), DOUBLE or BOOLEAN; any type for COUNT
	Frame *WindowFrame
	Mode  WindowAggMode
	Out   coldata.Type // the result type: DECIMAL for AVG of integers (IntAvgType)
}

// IntAvgType reports whether the device writes AVG of integers as DECIMAL
// t: the exact sum times 10^scale over the count, rounded half away from
// zero (MySQL's AVG of integers). An average of int64 values fits in 19
// digits before the point, and 10^scale times a window sum in 128 bits.
func IntAvgType(t coldata.Type) bool {
	return t.IsDecimal() && t.Scale() <= 18 && t.Precision()-t.Scale() >= 19
}

// int32Bytes encodes positions (all below 2^31: a window's rows fit in one
// device batch) as little-endian int32s.
func int32Bytes(xs []int) []byte {
	raw := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(int32(x)))
	}
	return raw
}

// uploadInt32On copies xs to a new scratch buffer. Context thread only.
func (s *hashScratch) uploadInt32On(xs []int) (*Buffer, error) {
	b, err := s.alloc(uint64(4 * max(len(xs), 1)))
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return b, nil
	}
	raw := int32Bytes(xs)
	if err := s.d.drv.h2d(b.ptr, raw, s.d.stream.h); err != nil {
		return nil, err
	}
	s.d.toDevice.Add(uint64(len(raw)))
	// The host slice is pageable and reused by nobody, but the copy must
	// finish before raw can be collected.
	return b, s.d.drv.syncStream(s.d.stream.h)
}

// NewWindowLayout uploads a window ordering of n rows: perm maps sorted
// positions to input rows (nil: the identity); the spans are each row's
// partition and peer group [start, end) in sorted positions.
func (d *Device) NewWindowLayout(ctx context.Context, perm, partStart, partEnd, peerStart, peerEnd []int) (*WindowLayout, error) {
	n := len(partStart)
	if n >= 1<<31-1 {
		return nil, invalidf("window of %d rows: more than a device batch holds", n)
	}
	if (perm != nil && len(perm) != n) || len(partEnd) != n || len(peerStart) != n || len(peerEnd) != n {
		return nil, invalidf("window layout: spans of unequal lengths")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// peer_ord: the number of peer groups before each row's, for DENSE_RANK.
	ord := make([]int, n)
	g := -1
	for i := range ord {
		if peerStart[i] == i {
			g++
		}
		ord[i] = g
	}
	l := &WindowLayout{d: d, n: n, sc: &hashScratch{d: d}}
	err := d.Do(func() error {
		var err error
		if perm != nil {
			if l.perm, err = l.sc.uploadInt32On(perm); err != nil {
				return err
			}
		}
		for _, x := range []struct {
			dst **Buffer
			src []int
		}{{&l.ps, partStart}, {&l.pe, partEnd}, {&l.qs, peerStart}, {&l.qe, peerEnd}, {&l.ord, ord}} {
			if *x.dst, err = l.sc.uploadInt32On(x.src); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		l.Release()
		return nil, fmt.Errorf("window layout: %w", err)
	}
	return l, nil
}

// Release frees the layout's buffers and its frames'.
func (l *WindowLayout) Release() {
	if l.sc != nil {
		l.d.Do(func() error {
			// Kernels reading the buffers may still be in flight.
			err := l.d.drv.syncStream(l.d.stream.h)
			l.sc.release()
			return err
		})
		l.sc = nil
	}
}

// Frame uploads every row's frame [lo, hi) (sorted positions). The layout
// owns the buffers.
func (l *WindowLayout) Frame(lo, hi []int) (*WindowFrame, error) {
	if len(lo) != l.n || len(hi) != l.n {
		return nil, invalidf("window frame of %d rows for a layout of %d", len(lo), l.n)
	}
	f := &WindowFrame{}
	err := l.d.Do(func() error {
		var err error
		if f.lo, err = l.sc.uploadInt32On(lo); err != nil {
			return err
		}
		f.hi, err = l.sc.uploadInt32On(hi)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("window frame: %w", err)
	}
	return f, nil
}

func bufPtr(b *Buffer) DevicePtr {
	if b == nil {
		return 0
	}
	return b.ptr
}

func (f *WindowFrame) ptrs() (DevicePtr, DevicePtr) {
	if f == nil {
		return 0, 0
	}
	return bufPtr(f.lo), bufPtr(f.hi)
}

// Rank computes a function of positions: BIGINT results (DOUBLE for
// PERCENT_RANK and CUME_DIST) in input row order. nArg is NTILE's bucket
// count (positive); COUNT(*) reads the frame.
func (l *WindowLayout) Rank(ctx context.Context, kind WindowRank, nArg int64, fr *WindowFrame) (*DeviceBatch, error) {
	if kind == WindowNtile && nArg <= 0 {
		return nil, invalidf("NTILE of %d buckets", nArg)
	}
	if kind == WindowCountStar && fr == nil {
		return nil, invalidf("COUNT(*) over a window without a frame")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := coldata.Int64
	if kind == WindowPercentRank || kind == WindowCumeDist {
		t = coldata.Float64
	}
	var out *DeviceBatch
	err := l.d.Do(func() error {
		buf, err := l.d.allocOn(uint64(8 * max(l.n, 1)))
		if err != nil {
			return err
		}
		lo, hi := fr.ptrs()
		if err := l.d.launchGrid("gsql_win_rank", l.d.strided(int64(l.n)), int64(kind), int64(l.n), nArg, bufPtr(l.perm),
			l.ps.ptr, l.pe.ptr, l.qs.ptr, l.qe.ptr, l.ord.ptr, lo, hi, buf.ptr, buf.ptr); err != nil {
			buf.Release()
			return err
		}
		out = &DeviceBatch{Cols: []DeviceVec{{Type: t, Len: l.n, Data: buf.ptr}}, Len: l.n, d: l.d, bufs: []*Buffer{buf}}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("window %d: %w", kind, err)
	}
	return out, nil
}

// ValueIndex computes, per input row, the row whose value LAG, LEAD,
// FIRST_VALUE, LAST_VALUE or NTH_VALUE returns (nArg: the offset or N),
// as int64 input rows for a gather; a row without one gets miss, plus its
// own row number when perRow (a per-row default stored after the values).
// The caller releases the buffer after the gather that reads it has run.
func (l *WindowLayout) ValueIndex(ctx context.Context, kind WindowValue, nArg int64, fr *WindowFrame, miss int64, perRow bool) (*Buffer, error) {
	if kind >= WindowFirstValue && fr == nil {
		return nil, invalidf("window value function without a frame")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var idx *Buffer
	err := l.d.Do(func() error {
		var err error
		if idx, err = l.d.allocOn(uint64(8 * max(l.n, 1))); err != nil {
			return err
		}
		lo, hi := fr.ptrs()
		pr := int64(0)
		if perRow {
			pr = 1
		}
		if err := l.d.launchGrid("gsql_win_index", l.d.strided(int64(l.n)), int64(kind), int64(l.n), nArg, bufPtr(l.perm),
			l.ps.ptr, l.pe.ptr, lo, hi, miss, pr, idx.ptr); err != nil {
			idx.Release()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("window value %d: %w", kind, err)
	}
	return idx, nil
}

// The scan types and operations of kernels/window.cu.
const (
	winI64 = 0
	winF64 = 1
	winSum = 0
	winMin = 1
	winMax = 2
	// The argument's storage gsql_win_load reads (winArgValidity: only
	// its validity, for COUNT) and the result's storage gsql_win_agg
	// writes.
	winArgInt64    = 0
	winArgFloat64  = 1
	winArgBool     = 2
	winArgValidity = 3
	winOutInt64    = 0
	winOutFloat64  = 1
	winOutBool     = 2
	winOutDec      = 3
	// winTile is GSQL_WIN_TILE.
	winTile = 2048
)

// ErrWindowOverflow means a frame's integer sum may not fit in a BIGINT:
// the caller computes that function exactly on the host (which raises the
// error if it truly does not fit).
var ErrWindowOverflow = fmt.Errorf("window sum may overflow BIGINT")

// Aggregate computes COUNT, SUM, AVG, MIN or MAX over every row's frame,
// in input row order. Integer sums take WindowDiff (any frame); DOUBLE
// sums and MIN/MAX take WindowRunning or WindowLoop as the caller finds
// the frames. It returns ErrWindowOverflow when an integer sum may not fit.
func (l *WindowLayout) Aggregate(ctx context.Context, a WindowAgg) (*DeviceBatch, error) {
	if a.Frame == nil {
		return nil, invalidf("window aggregate without a frame")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	argty, ty := int64(winArgInt64), int64(winI64)
	switch p := a.Arg.Type.Physical(); {
	case a.Kind == WindowCount:
		argty = winArgValidity
	case p == coldata.Int64:
	case p == coldata.Bool:
		argty = winArgBool
	case p == coldata.Float64:
		argty, ty = winArgFloat64, winF64
	default:
		return nil, invalidf("window %d of %s on the device", a.Kind, a.Arg.Type)
	}
	op := int64(winSum)
	switch a.Kind {
	case WindowMin:
		op = winMin
	case WindowMax:
		op = winMax
	}
	mode := a.Mode
	intSum := ty == winI64 && op == winSum && a.Kind != WindowCount
	if intSum && mode != WindowLoop {
		mode = WindowDiff
	}
	if !intSum && a.Kind != WindowCount && mode == WindowDiff {
		return nil, invalidf("window %d of %s by prefix differences", a.Kind, a.Arg.Type)
	}
	outTy, elem, p10 := int64(winOutInt64), uint64(8), uint64(0)
	switch a.Out.Physical() {
	case coldata.Int64:
	case coldata.Float64:
		outTy = winOutFloat64
	case coldata.Bool:
		outTy, elem = winOutBool, 1
	case coldata.Decimal:
		if a.Kind != WindowAvg || !intSum || !IntAvgType(a.Out) {
			return nil, invalidf("window %d of %s with a %s result", a.Kind, a.Arg.Type, a.Out)
		}
		outTy, elem, p10 = winOutDec, 16, pow10u64(a.Out.Scale())
	default:
		return nil, invalidf("window %d result of type %s", a.Kind, a.Out)
	}
	n := int64(l.n)
	if n == 0 {
		return nil, invalidf("window aggregate over no rows")
	}
	var out *DeviceBatch
	overflow := false
	err := l.d.Do(func() error {
		sc := &hashScratch{d: l.d}
		defer func() {
			// Scratch is read by kernels still in flight.
			l.d.drv.syncStream(l.d.stream.h)
			sc.release()
		}()
		vals, err := sc.alloc(uint64(8 * n))
		if err != nil {
			return err
		}
		cnt, err := sc.alloc(uint64(8 * n))
		if err != nil {
			return err
		}
		var fvals *Buffer
		if intSum && mode == WindowDiff {
			if fvals, err = sc.alloc(uint64(8 * n)); err != nil {
				return err
			}
		}
		data := a.Arg.Data
		if argty == winArgValidity {
			data = 0
		}
		cfg := l.d.strided(n)
		if err := l.d.launchGrid("gsql_win_load", cfg, n, bufPtr(l.perm), data, a.Arg.Nulls, int64(a.Arg.NullOffset),
			argty, ty, op, vals.ptr, cnt.ptr, bufPtr(fvals)); err != nil {
			return err
		}
		cscan, err := l.d.windowScanOn(sc, winI64, winSum, n, cnt.ptr, 0)
		if err != nil {
			return err
		}
		var scan, fscan DevicePtr
		switch {
		case a.Kind == WindowCount || mode == WindowLoop:
		case mode == WindowDiff:
			if scan, err = l.d.windowScanOn(sc, winI64, winSum, n, vals.ptr, 0); err != nil {
				return err
			}
			if fscan, err = l.d.windowScanOn(sc, winF64, winSum, n, fvals.ptr, 0); err != nil {
				return err
			}
		default:
			if scan, err = l.d.windowScanOn(sc, ty, op, n, vals.ptr, l.ps.ptr); err != nil {
				return err
			}
		}
		res, err := sc.alloc(elem * uint64(max(n, 1)))
		if err != nil {
			return err
		}
		var valid *Buffer
		if a.Kind != WindowCount {
			words := (n + 31) / 32
			if valid, err = sc.alloc(uint64(4 * max(words, 1))); err != nil {
				return err
			}
			if err := l.d.drv.memset8(valid.ptr, 0, uint64(4*max(words, 1)), l.d.stream.h); err != nil {
				return err
			}
		}
		flag, err := sc.alloc(8)
		if err != nil {
			return err
		}
		if err := l.d.drv.memset8(flag.ptr, 0, 8, l.d.stream.h); err != nil {
			return err
		}
		lo, hi := a.Frame.ptrs()
		if err := l.d.launchGrid("gsql_win_agg", cfg, int64(a.Kind), int64(mode), ty, op, outTy, n, bufPtr(l.perm), lo, hi,
			vals.ptr, scan, cscan, fscan, res.ptr, bufPtr(valid), flag.ptr, p10); err != nil {
			return err
		}
		raw := make([]byte, 4)
		if err := l.d.drv.d2h(raw, flag.ptr, l.d.stream.h); err != nil {
			return err
		}
		if err := l.d.drv.syncStream(l.d.stream.h); err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(raw) != 0 {
			overflow = true
			return nil
		}
		// The result buffers leave the scratch: the batch owns them.
		bufs := []*Buffer{res.Retain()}
		v := DeviceVec{Type: a.Out, Len: l.n, Data: res.ptr}
		if valid != nil {
			v.Nulls = valid.ptr
			bufs = append(bufs, valid.Retain())
		}
		out = &DeviceBatch{Cols: []DeviceVec{v}, Len: l.n, d: l.d, bufs: bufs}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("window aggregate %d: %w", a.Kind, err)
	}
	if overflow {
		return nil, ErrWindowOverflow
	}
	return out, nil
}

// pow10u64 is 10^s for s in [0, 19].
func pow10u64(s int) uint64 {
	p := uint64(1)
	for range s {
		p *= 10
	}
	return p
}

// windowScanOn scans n 8-byte words inclusively (restarting at partition
// starts when ps is given) into a new scratch buffer. Context thread only.
func (d *Device) windowScanOn(sc *hashScratch, ty, op, n int64, in, ps DevicePtr) (DevicePtr, error) {
	out, err := sc.alloc(uint64(8 * max(n, 1)))
	if err != nil {
		return 0, err
	}
	ntiles := (n + winTile - 1) / winTile
	tv, err := sc.alloc(uint64(8 * max(ntiles, 1)))
	if err != nil {
		return 0, err
	}
	tf, err := sc.alloc(uint64(4 * max(ntiles, 1)))
	if err != nil {
		return 0, err
	}
	carry, err := sc.alloc(uint64(8 * max(ntiles, 1)))
	if err != nil {
		return 0, err
	}
	if err := d.launchGrid("gsql_win_scan_tile", LaunchConfig{Grid: Dim3{int(ntiles), 1, 1}, Block: Dim3{256, 1, 1}},
		ty, op, n, in, ps, out.ptr, tv.ptr, tf.ptr); err != nil {
		return 0, err
	}
	if ntiles > 1 {
		if err := d.launchGrid("gsql_win_scan_tiles", LaunchConfig{Grid: Dim3{1, 1, 1}, Block: Dim3{1024, 1, 1}},
			ty, op, ntiles, tv.ptr, tf.ptr, carry.ptr); err != nil {
			return 0, err
		}
		if err := d.launchGrid("gsql_win_scan_apply", d.strided(n), ty, op, n, ps, carry.ptr, out.ptr); err != nil {
			return 0, err
		}
	}
	return out.ptr, nil
}
