package gpuexec

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Go twins of the window aggregate kernels (kernels/window.cu:
// gsql_win_load, gsql_win_agg) for the fake driver, so that
// WindowLayout.Aggregate's host side (modes, scans, result types, the
// overflow flag) runs without a GPU. The scans' twins are in
// sort_fake_test.go. The cuda tests check the CUDA code itself.

func init() {
	fakeTwins["gsql_win_load"] = twinWinLoad
	fakeTwins["gsql_win_agg"] = twinWinAgg
}

// twinWinIdent is gsql_win_ident: the identity word of a scan.
func twinWinIdent(ty, op uint64) uint64 {
	switch {
	case op == winSum:
		return 0 // 0 and 0.0 alike
	case ty == winF64 && op == winMin:
		return math.Float64bits(math.Inf(1))
	case ty == winF64:
		return math.Float64bits(math.Inf(-1))
	case op == winMin:
		return math.MaxInt64
	}
	return 1 << 63
}

// twinWinComb is gsql_win_comb: a (earlier rows) combined with b.
func twinWinComb(ty, op, a, b uint64) uint64 {
	if ty == winF64 {
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		switch op {
		case winSum:
			return math.Float64bits(x + y)
		case winMin:
			if y < x {
				return b
			}
			return a
		}
		if y > x {
			return b
		}
		return a
	}
	x, y := int64(a), int64(b)
	switch op {
	case winSum:
		return a + b
	case winMin:
		return uint64(min(x, y))
	}
	return uint64(max(x, y))
}

func twinWinRow(perm []int32, s int64) int64 {
	if perm == nil {
		return s
	}
	return int64(perm[s])
}

// gsql_win_load(n, perm, data, valid, voff, argty, ty, op, vals, cnt,
// fvals)
func twinWinLoad(f *fakeDriver, _ Dim3, a []uint64) error {
	n, voff, argty, ty, op := int64(a[0]), int64(a[4]), a[5], a[6], a[7]
	var perm []int32
	var err error
	if a[1] != 0 {
		if perm, err = fakeI32(f, a[1], n); err != nil {
			return err
		}
	}
	vals, err1 := fakeU64(f, a[8], n)
	cnt, err2 := fakeI64(f, a[9], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	var fvals []float64
	if a[10] != 0 {
		if fvals, err = fakeView[float64](f, a[10], n); err != nil {
			return err
		}
	}
	for s := int64(0); s < n; s++ {
		r := twinWinRow(perm, s)
		ok := true
		if a[3] != 0 {
			b, err := fakeView[byte](f, a[3]+uint64((voff+r)>>3), 1)
			if err != nil {
				return err
			}
			ok = b[0]>>((voff+r)&7)&1 == 1
		}
		v := twinWinIdent(ty, op)
		if ok && argty != winArgValidity {
			if argty == winArgBool {
				b, err := fakeView[byte](f, a[2]+uint64(r), 1)
				if err != nil {
					return err
				}
				v = 0
				if b[0] != 0 {
					v = 1
				}
			} else {
				w, err := fakeU64(f, a[2]+8*uint64(r), 1)
				if err != nil {
					return err
				}
				v = w[0]
			}
		}
		vals[s], cnt[s] = v, 0
		if ok {
			cnt[s] = 1
		}
		if fvals != nil {
			fvals[s] = 0
			if ok {
				fvals[s] = float64(int64(v))
			}
		}
	}
	return nil
}

// gsql_win_agg(kind, mode, ty, op, out_ty, n, perm, lo, hi, vals, scan,
// cnt, fsum, out, valid, overflow, p10)
func twinWinAgg(f *fakeDriver, _ Dim3, a []uint64) error {
	kind, mode, ty, op, outTy, n := WindowAggKind(a[0]), WindowAggMode(a[1]), a[2], a[3], a[4], int64(a[5])
	p10 := a[16]
	var perm []int32
	var err error
	if a[6] != 0 {
		if perm, err = fakeI32(f, a[6], n); err != nil {
			return err
		}
	}
	lo, err1 := fakeI32(f, a[7], n)
	hi, err2 := fakeI32(f, a[8], n)
	vals, err3 := fakeU64(f, a[9], n)
	cnt, err4 := fakeI64(f, a[11], n)
	overflow, err5 := fakeI32(f, a[15], 1)
	if err := firstErr(err1, err2, err3, err4, err5); err != nil {
		return err
	}
	var scan []uint64
	var fsum []float64
	if a[10] != 0 {
		if scan, err = fakeU64(f, a[10], n); err != nil {
			return err
		}
	}
	if a[12] != 0 {
		if fsum, err = fakeView[float64](f, a[12], n); err != nil {
			return err
		}
	}
	var valid []uint32
	if a[14] != 0 {
		if valid, err = fakeU32(f, a[14], (n+31)/32); err != nil {
			return err
		}
	}
	width := map[uint64]int64{winOutInt64: 8, winOutFloat64: 8, winOutBool: 1, winOutDec: 16}[outTy]
	out, err := fakeView[byte](f, a[13], width*n)
	if err != nil {
		return err
	}
	put := func(r int64, w uint64) {
		for k := range width {
			out[width*r+k] = byte(w >> (8 * k))
		}
	}
	at := func(xs []int64, i int64) int64 {
		if i < 0 {
			return 0
		}
		return xs[i]
	}
	for s := int64(0); s < n; s++ {
		r := twinWinRow(perm, s)
		x, y := int64(lo[s]), int64(hi[s])
		c := int64(0)
		if y > x {
			c = at(cnt, y-1) - at(cnt, x-1)
		}
		if kind == WindowCount {
			put(r, uint64(c))
			continue
		}
		if c == 0 {
			continue
		}
		var v uint64
		var fv float64
		switch {
		case ty == winI64 && op == winSum:
			check := 0.0
			if mode == WindowLoop {
				for j := x; j < y; j++ {
					v += vals[j]
					check += float64(int64(vals[j]))
				}
			} else {
				v = scan[y-1]
				check = fsum[y-1]
				if x > 0 {
					v -= scan[x-1]
					check -= fsum[x-1]
				}
			}
			if math.Abs(check) > 4e18 {
				overflow[0] = 1
				continue
			}
			fv = float64(int64(v))
		case mode == WindowLoop:
			v = twinWinIdent(ty, op)
			for j := x; j < y; j++ {
				v = twinWinComb(ty, op, v, vals[j])
			}
		default:
			v = scan[y-1]
		}
		if ty == winF64 {
			fv = math.Float64frombits(v)
		} else if !(ty == winI64 && op == winSum) {
			fv = float64(int64(v))
		}
		switch {
		case outTy == winOutDec:
			sum := decimal.FromInt64(int64(v))
			d, ok := twinIntAvg(sum, c, p10)
			if !ok {
				overflow[0] = 1
				continue
			}
			put(r, d.Lo)
			for k := range int64(8) {
				out[16*r+8+k] = byte(uint64(d.Hi) >> (8 * k))
			}
		case outTy == winOutInt64:
			put(r, v)
		case outTy == winOutFloat64:
			if kind == WindowAvg {
				fv /= float64(c)
			} else if ty != winF64 {
				fv = float64(int64(v))
			}
			put(r, math.Float64bits(fv))
		default:
			b := uint64(0)
			if v != 0 {
				b = 1
			}
			put(r, b)
		}
		valid[r>>5] |= 1 << (r & 31)
	}
	return nil
}

// windowAggRef is an aggregate over frames [lo, hi) of sorted positions
// (rows perm[s]), by plain arithmetic: COUNT, SUM of integers (nil and
// false when a sum passes BIGINT), AVG of integers as DECIMAL t (exact,
// rounded half away from zero) or as DOUBLE.
func windowAggRef(kind WindowAggKind, v *coldata.Vec, perm, lo, hi []int, t coldata.Type) (*coldata.Vec, bool) {
	n := len(lo)
	res := make([]any, n)
	for s := range n {
		var c int64
		sum := decimal.Int128{}
		for j := lo[s]; j < hi[s]; j++ {
			r := perm[j]
			if v.IsNull(r) {
				continue
			}
			c++
			x := int64(0)
			if v.Type == coldata.Bool {
				x = int64(v.Bools[r])
			} else {
				x = v.Ints[r]
			}
			sum, _ = sum.Add(decimal.FromInt64(x))
		}
		switch {
		case kind == WindowCount:
			res[perm[s]] = c
		case c == 0:
		case kind == WindowSum:
			x, ok := sum.Int64()
			if !ok {
				return nil, false
			}
			res[perm[s]] = x
		case t.IsDecimal():
			d, _ := sum.Rescale(0, t.Scale())
			d, _ = d.DivRound(decimal.FromInt64(c))
			res[perm[s]] = d
		default:
			res[perm[s]] = sum.Float64(0) / float64(c)
		}
	}
	b := coldata.NewBuilder(t, n)
	for _, x := range res {
		b.AppendValue(x)
	}
	return b.Finish(), true
}

// TestFakeWindowAggregate runs WindowLayout.Aggregate's integer sums
// over the fake device: COUNT, SUM and AVG (DOUBLE, and DECIMAL as MySQL
// averages integers) of BIGINT and BOOLEAN arguments with NULLs, over
// moving, running and whole-partition frames, by prefix differences and
// by per-row loops, against windowAggRef.
func TestFakeWindowAggregate(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	runWindowAggregate(t, d, 5000)
	if f.launches["gsql_win_agg"] == 0 || f.launches["gsql_win_load"] == 0 {
		t.Fatalf("kernels not used: %v", f.launches)
	}
	requireNoLeak(t, d, "window aggregate")
}

// runWindowAggregate checks WindowLayout.Aggregate against windowAggRef
// over n random rows (TestFakeWindowAggregate's cases).
func runWindowAggregate(t *testing.T, d *Device, n int) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(38))
	vb, bb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Bool, n)
	for range n {
		if rng.Intn(6) == 0 {
			vb.AppendNull()
		} else {
			vb.AppendInt(rng.Int63n(1<<40) - 1<<39)
		}
		if rng.Intn(5) == 0 {
			bb.AppendNull()
		} else {
			bb.AppendBool(rng.Intn(3) == 0)
		}
	}
	hb := coldata.NewBatch([]*coldata.Vec{vb.Finish(), bb.Finish()}, n)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	// Partitions of random sizes in a random permutation of the rows.
	perm := rng.Perm(n)
	ps, pe := make([]int, n), make([]int, n)
	for s := 0; s < n; {
		e := min(n, s+1+rng.Intn(300))
		for i := s; i < e; i++ {
			ps[i], pe[i] = s, e
		}
		s = e
	}
	l, err := d.NewWindowLayout(ctx, perm, ps, pe, ps, pe)
	if err != nil {
		t.Fatal(err)
	}
	frame := func(back, ahead int) (lo, hi []int) {
		lo, hi = make([]int, n), make([]int, n)
		for s := range n {
			lo[s], hi[s] = ps[s], pe[s]
			if back >= 0 {
				lo[s] = max(ps[s], s-back)
			}
			if ahead >= 0 {
				hi[s] = max(lo[s], min(pe[s], s+ahead+1))
			}
		}
		return lo, hi
	}
	dec := coldata.DecimalOf(38, 4)
	for _, fr := range []struct {
		name        string
		back, ahead int
	}{{"3 preceding to 1 following", 3, 1}, {"running", -1, 0}, {"whole partition", -1, -1}, {"current row to 200 following", 0, 200}} {
		lo, hi := frame(fr.back, fr.ahead)
		dfr, err := l.Frame(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			kind WindowAggKind
			arg  int
			out  coldata.Type
			mode WindowAggMode
		}{
			{WindowCount, 0, coldata.Int64, WindowDiff},
			{WindowSum, 0, coldata.Int64, WindowDiff},
			{WindowSum, 1, coldata.Int64, WindowLoop},
			{WindowAvg, 0, coldata.Float64, WindowDiff},
			{WindowAvg, 0, dec, WindowDiff},
			{WindowAvg, 0, dec, WindowLoop},
			{WindowAvg, 1, dec, WindowDiff},
		} {
			want, _ := windowAggRef(tc.kind, hb.Cols[tc.arg], perm, lo, hi, tc.out)
			res, err := l.Aggregate(ctx, WindowAgg{Kind: tc.kind, Arg: db.Cols[tc.arg], Frame: dfr, Mode: tc.mode, Out: tc.out})
			if err != nil {
				t.Fatalf("%s: %d of column %d: %v", fr.name, tc.kind, tc.arg, err)
			}
			got, err := d.Download(ctx, res)
			res.Release()
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := sameRows(want, got.Cols[0]); !ok {
				t.Fatalf("%s: %d of column %d into %s, row %d: got %v, want %v", fr.name, tc.kind, tc.arg, tc.out, r,
					got.Cols[0].Value(r), want.Value(r))
			}
		}
	}
	l.Release()
	db.Release()
}

// TestFakeWindowAggregateLimits: an average whose frame sum may pass
// BIGINT is ErrWindowOverflow (the host then averages it exactly), and a
// DECIMAL result is refused but for AVG of integers with room for any
// average of BIGINTs.
func TestFakeWindowAggregateLimits(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	runWindowAggregateLimits(t, d)
}

// runWindowAggregateLimits is TestFakeWindowAggregateLimits on device d.
func runWindowAggregateLimits(t *testing.T, d *Device) {
	ctx := context.Background()
	hb := coldata.NewBatch([]*coldata.Vec{
		vecOf(coldata.Int64, int64(math.MaxInt64), int64(math.MaxInt64), int64(1)),
		vecOf(coldata.Float64, 1.5, 2.5, 3.5),
	}, 3)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	all := []int{0, 0, 0}
	l, err := d.NewWindowLayout(ctx, nil, all, []int{3, 3, 3}, all, []int{3, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := l.Frame([]int{0, 0, 0}, []int{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	dec := coldata.DecimalOf(38, 4)
	if _, err := l.Aggregate(ctx, WindowAgg{Kind: WindowAvg, Arg: db.Cols[0], Frame: fr, Out: dec}); !errors.Is(err, ErrWindowOverflow) {
		t.Errorf("average of a sum past BIGINT: %v, want ErrWindowOverflow", err)
	}
	for _, bad := range []WindowAgg{
		{Kind: WindowSum, Arg: db.Cols[0], Out: dec},
		{Kind: WindowAvg, Arg: db.Cols[0], Out: coldata.DecimalOf(20, 4)},
		{Kind: WindowAvg, Arg: db.Cols[1], Out: dec},
		{Kind: WindowMax, Arg: db.Cols[0], Out: dec},
	} {
		bad.Frame = fr
		if _, err := l.Aggregate(ctx, bad); err == nil || errors.Is(err, ErrWindowOverflow) {
			t.Errorf("%d of %s into %s: %v, want a refusal", bad.Kind, bad.Arg.Type, bad.Out, err)
		}
	}
	l.Release()
	db.Release()
	requireNoLeak(t, d, "window aggregate limits")
}
