package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Go twins of the GROUP BY table kernels (kernels/hash.cu: gsql_fill_u64,
// gsql_agg_insert, gsql_agg_update for COUNT, SUM, MIN and MAX of BIGINT,
// BOOLEAN and DOUBLE, gsql_agg_compact) and of gsql_win_hash_finish, for
// the fake driver: the same slots, first rows, counters and states, one
// row at a time, so that WindowHashed's host side (buffers, launches,
// the overflow flag) runs without a GPU. Keys hash with FNV here.

func init() {
	fakeTwins["gsql_fill_u64"] = twinFillU64
	fakeTwins["gsql_agg_insert"] = twinAggInsert
	fakeTwins["gsql_agg_update"] = twinAggUpdate
	fakeTwins["gsql_agg_compact"] = twinAggCompact
	fakeTwins["gsql_win_hash_finish"] = twinWinHashFinish
}

// gsql_fill_u64(dst, v, n)
func twinFillU64(f *fakeDriver, _ Dim3, a []uint64) error {
	dst, err := fakeU64(f, a[0], int64(a[2]))
	for i := range dst {
		dst[i] = a[1]
	}
	return err
}

// fakeColNull reads row r's validity in the GCol record w.
func fakeColNull(f *fakeDriver, w []uint64, r int64) (bool, error) {
	if w[1] == 0 {
		return false, nil
	}
	bit := int64(w[2]) + r
	b, err := f.slice(DevicePtr(w[1]+uint64(bit>>3)), 1)
	if err != nil {
		return false, err
	}
	return b[0]>>(bit&7)&1 == 0, nil
}

// fakeGroupKey encodes row r of the nk GCol records at desc so that rows
// of one group (NULL equal to NULL, -0.0 to 0.0) encode equally.
func fakeGroupKey(f *fakeDriver, desc uint64, nk int64, r int64) (string, error) {
	words, err := fakeU64(f, desc, 5*nk)
	if err != nil {
		return "", err
	}
	var key []byte
	for c := int64(0); c < nk; c++ {
		w := words[5*c : 5*c+5]
		null, err := fakeColNull(f, w, r)
		if err != nil {
			return "", err
		}
		if null {
			key = append(key, 0)
			continue
		}
		key = append(key, 1)
		var v []byte
		switch coldata.Type(w[0]) {
		case coldata.Bool:
			v, err = f.slice(DevicePtr(w[4]+uint64(r)), 1)
		case coldata.String:
			var o []byte
			if o, err = f.slice(DevicePtr(w[3]+uint64(4*r)), 8); err == nil {
				lo, hi := binary.LittleEndian.Uint32(o), binary.LittleEndian.Uint32(o[4:])
				key = binary.LittleEndian.AppendUint32(key, hi-lo)
				v, err = f.slice(DevicePtr(w[4]+uint64(lo)), uint64(hi-lo))
			}
		case coldata.Decimal:
			v, err = f.slice(DevicePtr(w[4]+uint64(16*r)), 16)
		default:
			v, err = f.slice(DevicePtr(w[4]+uint64(8*r)), 8)
			if err == nil && coldata.Type(w[0]) == coldata.Float64 && binary.LittleEndian.Uint64(v)<<1 == 0 {
				v = make([]byte, 8)
			}
		}
		if err != nil {
			return "", err
		}
		key = append(key, v...)
	}
	return string(key), nil
}

// gsql_agg_insert(keys, nkeys, n, slots, rowhash, mask, slot_of_row,
// first, used, limit, overflow)
func twinAggInsert(f *fakeDriver, _ Dim3, a []uint64) error {
	nk, n, mask, limit := int64(a[1]), int64(a[2]), int64(a[5]), int64(a[9])
	slots, err1 := fakeI32(f, a[3], mask+1)
	rowhash, err2 := fakeU64(f, a[4], n)
	slotOf, err3 := fakeI32(f, a[6], n)
	first, err4 := fakeI64(f, a[7], mask+1)
	used, err5 := fakeU32(f, a[8], 1)
	overflow, err6 := fakeI32(f, a[10], 1)
	if err := firstErr(err1, err2, err3, err4, err5, err6); err != nil {
		return err
	}
	keys := make([]string, n)
	for r := int64(0); r < n; r++ {
		k, err := fakeGroupKey(f, a[0], nk, r)
		if err != nil {
			return err
		}
		keys[r] = k
		h := twinHash([]byte(k))
		rowhash[r] = h
		slotOf[r] = -1
		if overflow[0] != 0 {
			continue
		}
		for p, probe := int64(h)&mask, int64(0); probe <= mask; p, probe = (p+1)&mask, probe+1 {
			s := slots[p]
			if s == -1 {
				if int64(used[0]) >= limit {
					overflow[0] = 1
					break
				}
				slots[p] = int32(r)
				used[0]++
				slotOf[r] = int32(p)
				break
			}
			if rowhash[s] == h && keys[s] == k {
				slotOf[r] = int32(p)
				break
			}
		}
		if p := slotOf[r]; p >= 0 {
			first[p] = min(first[p], r)
		}
	}
	return nil
}

// gsql_agg_update(aggs, naggs, slot_of_row, n); GAgg records of 10 words:
// kind, the argument's GCol, s0, s1, cnt, s2.
func twinAggUpdate(f *fakeDriver, _ Dim3, a []uint64) error {
	naggs, n := int64(a[1]), int64(a[3])
	desc, err1 := fakeU64(f, a[0], 10*naggs)
	slotOf, err2 := fakeI32(f, a[2], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for g := int64(0); g < naggs; g++ {
		w := desc[10*g : 10*g+10]
		kind, arg := GroupAggKind(w[0]), w[1:6]
		if kind > GroupMaxFloat {
			return fmt.Errorf("twin agg update: kind %d", kind)
		}
		cap := int64(0)
		for _, s := range slotOf {
			cap = max(cap, int64(s)+1)
		}
		cnt, err := fakeU64(f, w[8], cap)
		if err != nil {
			return err
		}
		var s0, s1 []uint64
		if kind >= GroupSumInt {
			if s0, err = fakeU64(f, w[6], cap); err != nil {
				return err
			}
		}
		if kind == GroupSumInt {
			if s1, err = fakeU64(f, w[7], cap); err != nil {
				return err
			}
		}
		for r := int64(0); r < n; r++ {
			slot := slotOf[r]
			if slot < 0 {
				continue
			}
			if kind != GroupCountStar {
				null, err := fakeColNull(f, arg, r)
				if err != nil {
					return err
				}
				if null {
					continue
				}
			}
			cnt[slot]++
			if kind <= GroupCount {
				continue
			}
			var x uint64
			if coldata.Type(arg[0]) == coldata.Bool {
				b, err := f.slice(DevicePtr(arg[4]+uint64(r)), 1)
				if err != nil {
					return err
				}
				x = uint64(b[0])
			} else {
				v, err := fakeU64(f, arg[4]+uint64(8*r), 1)
				if err != nil {
					return err
				}
				x = v[0]
			}
			fx, cur := math.Float64frombits(x), math.Float64frombits(s0[slot])
			switch kind {
			case GroupSumInt:
				lo, carry := bits.Add64(s0[slot], x, 0)
				s0[slot] = lo
				s1[slot] += uint64(int64(x)>>63) + carry
			case GroupSumFloat:
				s0[slot] = math.Float64bits(cur + fx)
			case GroupMinInt:
				s0[slot] = uint64(min(int64(s0[slot]), int64(x)))
			case GroupMaxInt:
				s0[slot] = uint64(max(int64(s0[slot]), int64(x)))
			case GroupMinFloat:
				if fx < cur {
					s0[slot] = x
				}
			case GroupMaxFloat:
				if fx > cur {
					s0[slot] = x
				}
			}
		}
	}
	return nil
}

// gsql_agg_compact(slots, cap, out, count)
func twinAggCompact(f *fakeDriver, _ Dim3, a []uint64) error {
	cap := int64(a[1])
	slots, err1 := fakeI32(f, a[0], cap)
	out, err2 := fakeI32(f, a[2], cap)
	count, err3 := fakeU32(f, a[3], 1)
	if err := firstErr(err1, err2, err3); err != nil {
		return err
	}
	for p, s := range slots {
		if s != -1 {
			out[count[0]] = int32(p)
			count[0]++
		}
	}
	return nil
}

// gsql_win_hash_finish(kind, avg, n, slot_of, cnt, s0, s1, out, valid,
// overflow, p10)
func twinWinHashFinish(f *fakeDriver, _ Dim3, a []uint64) error {
	kind, avg, n, p10 := GroupAggKind(a[0]), a[1] != 0, int64(a[2]), a[10]
	words := n
	if avg && p10 != 0 {
		words = 2 * n // DECIMAL results
	}
	slotOf, err1 := fakeI32(f, a[3], n)
	out, err2 := fakeU64(f, a[7], words)
	overflow, err3 := fakeI32(f, a[9], 1)
	if err := firstErr(err1, err2, err3); err != nil {
		return err
	}
	var valid []uint32
	if kind != GroupCountStar && kind != GroupCount {
		var err error
		if valid, err = fakeU32(f, a[8], (n+31)/32); err != nil {
			return err
		}
	}
	state := func(p uint64, slot int32) (uint64, error) {
		v, err := fakeU64(f, p+8*uint64(slot), 1)
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
	for i := int64(0); i < n; i++ {
		slot := slotOf[i]
		c, err := state(a[4], slot)
		if err != nil {
			return err
		}
		if kind == GroupCountStar || kind == GroupCount {
			out[i] = c
			continue
		}
		if c == 0 {
			continue
		}
		s0, err := state(a[5], slot)
		if err != nil {
			return err
		}
		switch {
		case kind == GroupSumInt:
			hi, err := state(a[6], slot)
			if err != nil {
				return err
			}
			fits := int64(hi) == int64(s0)>>63
			switch {
			case avg && p10 != 0:
				d, ok := twinIntAvg(decimal.Int128{Lo: s0, Hi: int64(hi)}, int64(c), p10)
				if !ok {
					overflow[0] = 1
					continue
				}
				out[2*i], out[2*i+1] = d.Lo, uint64(d.Hi)
			case avg:
				s := float64(int64(s0))
				if !fits {
					s = float64(int64(hi))*math.Exp2(64) + float64(s0)
				}
				out[i] = math.Float64bits(s / float64(c))
			case fits:
				out[i] = s0
			default:
				overflow[0] = 1
				continue
			}
		case kind == GroupSumFloat && avg:
			out[i] = math.Float64bits(math.Float64frombits(s0) / float64(c))
		default:
			out[i] = s0
		}
		valid[i>>5] |= 1 << (i & 31)
	}
	return nil
}

// twinIntAvg is gsql_win_int_avg behind gsql_win_hash_finish's overflow
// rule ((|high word| + 1) * p10 past 2^63): the sum times p10 over the
// count, rounded half away from zero (decimal's DivRound, which the
// kernel's division must equal).
func twinIntAvg(sum decimal.Int128, c int64, p10 uint64) (decimal.Int128, bool) {
	mhi := uint64(sum.Hi)
	if sum.Hi < 0 {
		mhi = ^mhi
	}
	if h, l := bits.Mul64(mhi+1, p10); h != 0 || l > 1<<63 {
		return decimal.Int128{}, false
	}
	m, ok := sum.Mul(decimal.Int128{Lo: p10})
	if !ok {
		return decimal.Int128{}, false
	}
	return m.DivRound(decimal.FromInt64(c))
}

// hashedRef computes the hashed window's expected results on the host:
// per partition (keys encoded as the CPU groups them) the aggregate of
// its rows, given to every row.
func hashedRef(b *coldata.Batch, keys []int, aggs []WindowHashAgg) ([]*coldata.Vec, error) {
	n := b.Len
	group := make([]int, n)
	ids := map[string]int{}
	for r := 0; r < n; r++ {
		var k []byte
		for _, c := range keys {
			v := b.Cols[c]
			if v.IsNull(r) {
				k = append(k, 0)
				continue
			}
			switch v.Type.Physical() {
			case coldata.Float64:
				x := v.Floats[r]
				if x == 0 {
					x = 0
				}
				k = binary.LittleEndian.AppendUint64(append(k, 1), math.Float64bits(x))
			case coldata.Int64:
				k = binary.LittleEndian.AppendUint64(append(k, 1), uint64(v.Ints[r]))
			case coldata.String:
				s := v.Str(r)
				k = append(binary.LittleEndian.AppendUint32(append(k, 1), uint32(len(s))), s...)
			default:
				return nil, fmt.Errorf("ref key of %s", v.Type)
			}
		}
		id, ok := ids[string(k)]
		if !ok {
			id = len(ids)
			ids[string(k)] = id
		}
		group[r] = id
	}
	out := make([]*coldata.Vec, len(aggs))
	for i, a := range aggs {
		g := len(ids)
		cnt := make([]int64, g)
		hi, lo := make([]int64, g), make([]uint64, g)
		fs := make([]float64, g)
		best := make([]int, g)
		for j := range best {
			best[j] = -1
		}
		var v *coldata.Vec
		if !a.CountStar {
			v = b.Cols[a.Arg]
		}
		for r := 0; r < n; r++ {
			if v != nil && v.IsNull(r) {
				continue
			}
			p := group[r]
			cnt[p]++
			if v == nil || a.Kind == WindowCount {
				continue
			}
			switch v.Type.Physical() {
			case coldata.Float64:
				fs[p] += v.Floats[r]
			case coldata.Int64, coldata.Bool:
				x := int64(0)
				if v.Type == coldata.Bool {
					x = int64(v.Bools[r])
				} else {
					x = v.Ints[r]
				}
				var carry uint64
				lo[p], carry = bits.Add64(lo[p], uint64(x), 0)
				hi[p] += x>>63 + int64(carry)
			}
			if bb := best[p]; bb < 0 || a.Kind == WindowMin && lessVal(v, r, bb) || a.Kind == WindowMax && lessVal(v, bb, r) {
				best[p] = r
			}
		}
		bld := coldata.NewBuilder(a.Out, n)
		for r := 0; r < n; r++ {
			p := group[r]
			switch {
			case a.CountStar || a.Kind == WindowCount:
				bld.AppendInt(cnt[p])
			case cnt[p] == 0:
				bld.AppendNull()
			case a.Kind == WindowMin || a.Kind == WindowMax:
				bld.AppendFrom(v, best[p])
			case v.Type.Physical() == coldata.Float64:
				s := fs[p]
				if a.Kind == WindowAvg {
					s /= float64(cnt[p])
				}
				bld.AppendFloat(s)
			default:
				fits := hi[p] == int64(lo[p])>>63
				if a.Kind == WindowSum {
					if !fits {
						return nil, ErrWindowOverflow
					}
					bld.AppendInt(int64(lo[p]))
					continue
				}
				if a.Out.IsDecimal() {
					// MySQL's AVG of integers, by decimal's own arithmetic.
					d, ok := decimal.Int128{Lo: lo[p], Hi: hi[p]}.Rescale(0, a.Out.Scale())
					if ok {
						d, ok = d.DivRound(decimal.FromInt64(cnt[p]))
					}
					if !ok {
						return nil, ErrWindowOverflow
					}
					bld.AppendDec(d)
					continue
				}
				s := float64(int64(lo[p]))
				if !fits {
					s = float64(hi[p])*math.Exp2(64) + float64(lo[p])
				}
				bld.AppendFloat(s / float64(cnt[p]))
			}
		}
		out[i] = bld.Finish()
	}
	return out, nil
}

func lessVal(v *coldata.Vec, x, y int) bool {
	if v.Type.Physical() == coldata.Float64 {
		return v.Floats[x] < v.Floats[y]
	}
	return v.Ints[x] < v.Ints[y]
}

// windowHashBatch is n rows: keys k1 BIGINT (NULLs), k2 VARCHAR (NULLs,
// the empty string), k3 DOUBLE (-0.0 beside 0.0, NULLs); arguments v BIGINT (NULLs), f
// DOUBLE (NULLs, small integers: sums exact in any order), b BOOLEAN,
// dt DATE, e BIGINT all NULL.
func windowHashBatch(rng *rand.Rand, n int) *coldata.Batch {
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.Int64, coldata.Float64,
		coldata.Bool, coldata.Date, coldata.Int64}
	bs := make([]*coldata.Builder, len(types))
	for i, t := range types {
		bs[i] = coldata.NewBuilder(t, n)
	}
	for r := 0; r < n; r++ {
		maybe := func(b *coldata.Builder, add func()) {
			if rng.Intn(7) == 0 {
				b.AppendNull()
			} else {
				add()
			}
		}
		maybe(bs[0], func() { bs[0].AppendInt(int64(rng.Intn(5))) })
		maybe(bs[1], func() { bs[1].AppendString([]string{"", "x", "yy"}[rng.Intn(3)]) })
		maybe(bs[2], func() { bs[2].AppendFloat([]float64{math.Copysign(0, -1), 0, 2.5}[rng.Intn(3)]) })
		maybe(bs[3], func() { bs[3].AppendInt(rng.Int63n(2000) - 1000) })
		maybe(bs[4], func() { bs[4].AppendFloat(float64(rng.Intn(200) - 100)) })
		maybe(bs[5], func() { bs[5].AppendBool(rng.Intn(2) == 0) })
		maybe(bs[6], func() { bs[6].AppendInt(int64(19000 + rng.Intn(30))) })
		bs[7].AppendNull()
	}
	cols := make([]*coldata.Vec, len(bs))
	for i, b := range bs {
		cols[i] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

// windowHashCases are the aggregates WindowHashed is tested with over
// windowHashBatch.
var windowHashCases = []WindowHashAgg{
	{CountStar: true, Out: coldata.Int64},
	{Kind: WindowCount, Arg: 3, Out: coldata.Int64},
	{Kind: WindowCount, Arg: 7, Out: coldata.Int64},
	{Kind: WindowSum, Arg: 3, Out: coldata.Int64},
	{Kind: WindowAvg, Arg: 3, Out: coldata.Float64},
	{Kind: WindowSum, Arg: 4, Out: coldata.Float64},
	{Kind: WindowAvg, Arg: 4, Out: coldata.Float64},
	{Kind: WindowSum, Arg: 5, Out: coldata.Int64},
	{Kind: WindowAvg, Arg: 5, Out: coldata.Float64},
	{Kind: WindowMin, Arg: 3, Out: coldata.Int64},
	{Kind: WindowMax, Arg: 3, Out: coldata.Int64},
	{Kind: WindowMin, Arg: 4, Out: coldata.Float64},
	{Kind: WindowMax, Arg: 4, Out: coldata.Float64},
	{Kind: WindowMax, Arg: 6, Out: coldata.Date},
	{Kind: WindowSum, Arg: 7, Out: coldata.Int64},
	// AVG of integers as MySQL gives it: DECIMAL with scale 4.
	{Kind: WindowAvg, Arg: 3, Out: coldata.DecimalOf(38, 4)},
	{Kind: WindowAvg, Arg: 5, Out: coldata.DecimalOf(38, 4)},
	{Kind: WindowAvg, Arg: 7, Out: coldata.DecimalOf(38, 4)},
}

// runWindowHashed checks WindowHashed against hashedRef over random
// batches, for several key sets (none included).
func runWindowHashed(t *testing.T, d *Device, sizes []int) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(40))
	for _, n := range sizes {
		hb := windowHashBatch(rng, n)
		db, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		for _, keys := range [][]int{{0}, {1}, {2}, {0, 1, 2}, {}} {
			name := fmt.Sprintf("n=%d keys=%v", n, keys)
			want, err := hashedRef(hb, keys, windowHashCases)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			res, err := d.WindowHashed(ctx, db, keys, windowHashCases)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := d.Download(ctx, res)
			res.Release()
			if err != nil {
				t.Fatal(err)
			}
			for i := range windowHashCases {
				if r, ok := sameRows(want[i], got.Cols[i]); !ok {
					t.Fatalf("%s agg %+v row %d: got %v, want %v", name, windowHashCases[i], r, got.Cols[i].Value(r), want[i].Value(r))
				}
			}
		}
		db.Release()
	}
}

// TestFakeWindowHashed runs the hashed window over the fake device: the
// GROUP BY table, the per-row finish, NULL partitions and empty groups.
func TestFakeWindowHashed(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	runWindowHashed(t, d, []int{1, 5, 300, 5000})
	if f.launches["gsql_win_hash_finish"] == 0 || f.launches["gsql_agg_insert"] == 0 {
		t.Fatalf("kernels not used: %v", f.launches)
	}
	requireNoLeak(t, d, "window hashed")
}

// TestFakeWindowHashedErrors: a BIGINT sum past the type is
// ErrWindowOverflow (the host then fails exactly); arguments the device
// has no state for, and bad columns, are refused.
func TestFakeWindowHashedErrors(t *testing.T) {
	ctx := context.Background()
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	hb := coldata.NewBatch([]*coldata.Vec{
		vecOf(coldata.Int64, int64(1), int64(1), int64(2)),
		vecOf(coldata.Int64, int64(math.MaxInt64), int64(1), int64(3)),
		vecOf(coldata.String, "a", "b", "c"),
	}, 3)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.WindowHashed(ctx, db, []int{0}, []WindowHashAgg{{Kind: WindowSum, Arg: 1, Out: coldata.Int64}}); err != ErrWindowOverflow {
		t.Errorf("overflowing sum: %v", err)
	}
	res, err := d.WindowHashed(ctx, db, []int{0}, []WindowHashAgg{{Kind: WindowAvg, Arg: 1, Out: coldata.Float64}})
	if err != nil {
		t.Fatalf("avg: %v", err)
	}
	got, err := d.Download(ctx, res)
	res.Release()
	if err != nil {
		t.Fatal(err)
	}
	if want := (float64(math.MaxInt64) + 1) / 2; got.Cols[0].Floats[0] != want || got.Cols[0].Floats[2] != 3 {
		t.Errorf("avg: %v", got.Cols[0].Floats)
	}
	// The DECIMAL average of a sum past BIGINT is exact: (2^63 - 1 + 1) / 2.
	res, err = d.WindowHashed(ctx, db, []int{0}, []WindowHashAgg{{Kind: WindowAvg, Arg: 1, Out: coldata.DecimalOf(38, 4)}})
	if err != nil {
		t.Fatalf("decimal avg: %v", err)
	}
	got, err = d.Download(ctx, res)
	res.Release()
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Cols[0]; g.Decs[0].String(4) != "4611686018427387904.0000" || g.Decs[1] != g.Decs[0] || g.Decs[2].String(4) != "3.0000" {
		t.Errorf("decimal avg: %v %v %v", g.Decs[0].String(4), g.Decs[1].String(4), g.Decs[2].String(4))
	}
	for _, bad := range []struct {
		keys []int
		agg  WindowHashAgg
	}{
		{[]int{0}, WindowHashAgg{Kind: WindowMin, Arg: 2, Out: coldata.String}},
		{[]int{0}, WindowHashAgg{Kind: WindowSum, Arg: 9, Out: coldata.Int64}},
		{[]int{7}, WindowHashAgg{CountStar: true, Out: coldata.Int64}},
		{[]int{0}, WindowHashAgg{Kind: WindowAvg, Arg: 1, Out: coldata.Int64}},
		// A DECIMAL result only for AVG of integers, with room for any
		// average of BIGINTs.
		{[]int{0}, WindowHashAgg{Kind: WindowAvg, Arg: 1, Out: coldata.DecimalOf(20, 4)}},
		{[]int{0}, WindowHashAgg{Kind: WindowSum, Arg: 1, Out: coldata.DecimalOf(38, 0)}},
	} {
		if _, err := d.WindowHashed(ctx, db, bad.keys, []WindowHashAgg{bad.agg}); err == nil {
			t.Errorf("%+v over keys %v: no error", bad.agg, bad.keys)
		}
	}
	db.Release()
	requireNoLeak(t, d, "window hashed errors")
}

func vecOf(t coldata.Type, vals ...any) *coldata.Vec {
	b := coldata.NewBuilder(t, len(vals))
	for _, v := range vals {
		b.AppendValue(v)
	}
	return b.Finish()
}

// sameRows compares two columns' rows: NULLs, and values (DOUBLEs by
// their bits); a missing bitmap equals one with every bit set.
func sameRows(want, got *coldata.Vec) (int, bool) {
	if want.Type != got.Type || want.Len != got.Len {
		return 0, false
	}
	for i := 0; i < want.Len; i++ {
		if want.IsNull(i) != got.IsNull(i) {
			return i, false
		}
		if want.IsNull(i) {
			continue
		}
		switch want.Type.Physical() {
		case coldata.Float64:
			if math.Float64bits(want.Floats[i]) != math.Float64bits(got.Floats[i]) {
				return i, false
			}
		case coldata.Decimal:
			if want.Decs[i] != got.Decs[i] {
				return i, false
			}
		default:
			if want.Ints[i] != got.Ints[i] {
				return i, false
			}
		}
	}
	return 0, true
}
