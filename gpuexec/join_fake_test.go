package gpuexec

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// Go twins of the join kernels (kernels/hash.cu) for the fake driver:
// the same slots, sort keys, runs, block sums and pair positions, so that
// the host side of the grouped build and of the probe (buffers, launches,
// the heavy-row expansion) runs without a GPU. Keys hash with FNV here,
// not the kernels' hash: build and probe only need to agree.

func init() {
	fakeTwins["gsql_join_insert"] = twinJoinInsert
	fakeTwins["gsql_join_ranges"] = twinJoinRanges
	fakeTwins["gsql_join_unique_ranges"] = twinJoinUniqueRanges
	fakeTwins["gsql_join_count"] = twinJoinCount
	fakeTwins["gsql_scan_pairs"] = twinScanPairs
	fakeTwins["gsql_join_fill"] = twinJoinFill
	fakeTwins["gsql_join_expand"] = twinJoinExpand
}

// twinSerial is GSQL_JOIN_SERIAL.
const twinSerial = 16

// fakeRowKey reads row r of the nk GCol records at desc: whether a key
// column is NULL, and the key's bytes (equal keys, equal bytes).
func fakeRowKey(f *fakeDriver, desc uint64, nk int64, r int64) (null bool, key []byte, err error) {
	words, err := fakeU64(f, desc, 5*nk)
	if err != nil {
		return false, nil, err
	}
	for c := int64(0); c < nk; c++ {
		w := words[5*c : 5*c+5]
		if w[1] != 0 {
			bit := int64(w[2]) + r
			b, err := f.slice(DevicePtr(w[1]+uint64(bit>>3)), 1)
			if err != nil {
				return false, nil, err
			}
			if b[0]>>(bit&7)&1 == 0 {
				return true, nil, nil
			}
		}
		var v []byte
		switch coldata.Type(w[0]) {
		case coldata.Bool:
			v, err = f.slice(DevicePtr(w[4]+uint64(r)), 1)
		case coldata.String:
			var o []byte
			if o, err = f.slice(DevicePtr(w[3]+uint64(4*r)), 8); err == nil {
				lo, hi := binary.LittleEndian.Uint32(o), binary.LittleEndian.Uint32(o[4:])
				v, err = f.slice(DevicePtr(w[4]+uint64(lo)), uint64(hi-lo))
				key = binary.LittleEndian.AppendUint32(key, hi-lo)
			}
		case coldata.Decimal:
			v, err = f.slice(DevicePtr(w[4]+uint64(16*r)), 16)
		default:
			v, err = f.slice(DevicePtr(w[4]+uint64(8*r)), 8)
			if coldata.Type(w[0]) == coldata.Float64 && binary.LittleEndian.Uint64(v)<<1 == 0 {
				v = make([]byte, 8) // -0.0 joins 0.0
			}
		}
		if err != nil {
			return false, nil, err
		}
		key = append(key, v...)
	}
	return false, key, nil
}

func twinHash(key []byte) uint64 {
	h := fnv.New64a()
	h.Write(key)
	return h.Sum64()
}

// gsql_join_insert(keys, nkeys, n, slots, rowhash, mask, slot_key, dup)
func twinJoinInsert(f *fakeDriver, _ Dim3, a []uint64) error {
	nk, n, mask := int64(a[1]), int64(a[2]), int64(a[5])
	slots, err1 := fakeI32(f, a[3], mask+1)
	rowhash, err2 := fakeU64(f, a[4], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	dup, err := fakeI32(f, a[7], 1)
	if err != nil {
		return err
	}
	var slotKey []uint64
	if a[6] != 0 {
		var err error
		if slotKey, err = fakeU64(f, a[6], n); err != nil {
			return err
		}
	}
	for r := int64(0); r < n; r++ {
		null, key, err := fakeRowKey(f, a[0], nk, r)
		if err != nil {
			return err
		}
		if null {
			if slotKey != nil {
				slotKey[r] = uint64(mask) + 1
			}
			continue
		}
		h := twinHash(key)
		rowhash[r] = h
		p := int64(h) & mask
		for {
			s := slots[p]
			if s == -1 {
				slots[p] = int32(r)
				break
			}
			_, sk, err := fakeRowKey(f, a[0], nk, int64(s))
			if err != nil {
				return err
			}
			if rowhash[s] == h && bytes.Equal(sk, key) {
				dup[0] = 1
				break
			}
			p = (p + 1) & mask
		}
		if slotKey != nil {
			slotKey[r] = uint64(p)
		}
	}
	return nil
}

// gsql_join_ranges(sorted, n, mask, ranges)
func twinJoinRanges(f *fakeDriver, _ Dim3, a []uint64) error {
	n, mask := int64(a[1]), int64(a[2])
	sorted, err1 := fakeU64(f, a[0], n)
	ranges, err2 := fakeI32(f, a[3], 2*(mask+1))
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for i, k := range sorted {
		if k > uint64(mask) {
			continue
		}
		if i == 0 || sorted[i-1] != k {
			ranges[2*k] = int32(i)
		}
		if i == len(sorted)-1 || sorted[i+1] != k {
			ranges[2*k+1] = int32(i + 1)
		}
	}
	return nil
}

// gsql_join_unique_ranges(slots, cap, ranges)
func twinJoinUniqueRanges(f *fakeDriver, _ Dim3, a []uint64) error {
	slots, err1 := fakeI32(f, a[0], int64(a[1]))
	ranges, err2 := fakeI32(f, a[2], 2*int64(a[1]))
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for p, s := range slots {
		if s != -1 {
			ranges[2*p], ranges[2*p+1] = s, s+1
		}
	}
	return nil
}

// gsql_join_count(pk, bk, nkeys, n, slots, rowhash, mask, ranges, left,
// cm, cu, start, block_sums, heavy)
func twinJoinCount(f *fakeDriver, grid Dim3, a []uint64) error {
	nk, n, mask, mode := int64(a[2]), int64(a[3]), int64(a[6]), int64(a[8])
	nblocks := (n + joinTile - 1) / joinTile
	if int64(grid.X) != nblocks {
		return fmt.Errorf("twin join count: %d blocks for %d tiles", grid.X, nblocks)
	}
	slots, err1 := fakeI32(f, a[4], mask+1)
	cm, err2 := fakeI32(f, a[9], n)
	cu, err3 := fakeI32(f, a[10], n)
	start, err4 := fakeI32(f, a[11], n)
	sums, err5 := fakeI64(f, a[12], 2*nblocks)
	heavy, err6 := fakeI64(f, a[13], 1)
	if err := firstErr(err1, err2, err3, err4, err5, err6); err != nil {
		return err
	}
	var ranges []int32
	if mode < probeSemi {
		var err error
		if ranges, err = fakeI32(f, a[7], 2*(mask+1)); err != nil {
			return err
		}
	}
	clear(sums)
	for i := int64(0); i < n; i++ {
		null, key, err := fakeRowKey(f, a[0], nk, i)
		if err != nil {
			return err
		}
		found, p := false, int64(0)
		if !null {
			p = int64(twinHash(key)) & mask
			for s := slots[p]; s != -1; s = slots[p] {
				_, bkey, err := fakeRowKey(f, a[1], nk, int64(s))
				if err != nil {
					return err
				}
				if bytes.Equal(key, bkey) {
					found = true
					break
				}
				p = (p + 1) & mask
			}
		}
		m, u := int32(0), int32(0)
		if mode >= probeSemi {
			if (mode == probeSemi) == found {
				u = 1
			}
		} else {
			if found {
				m = ranges[2*p+1] - ranges[2*p]
				start[i] = ranges[2*p]
			}
			if mode == probeLeft && m == 0 {
				u = 1
			}
		}
		cm[i], cu[i] = m, u
		if m > twinSerial {
			heavy[0] = 1
		}
		sums[2*(i/joinTile)] += int64(m)
		sums[2*(i/joinTile)+1] += int64(u)
	}
	return nil
}

// gsql_scan_pairs(sums, nblocks, totals)
func twinScanPairs(f *fakeDriver, _ Dim3, a []uint64) error {
	nblocks := int64(a[1])
	sums, err1 := fakeI64(f, a[0], 2*nblocks)
	totals, err2 := fakeI64(f, a[2], 2)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for c := int64(0); c < 2; c++ {
		var acc int64
		for b := int64(0); b < nblocks; b++ {
			v := sums[2*b+c]
			sums[2*b+c] = acc
			acc += v
		}
		totals[c] = acc
	}
	return nil
}

// gsql_join_fill(n, cm, cu, start, rows, block_sums, totals, off, li, ri,
// nullrow)
func twinJoinFill(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[0])
	nblocks := (n + joinTile - 1) / joinTile
	cm, err1 := fakeI32(f, a[1], n)
	cu, err2 := fakeI32(f, a[2], n)
	start, err3 := fakeI32(f, a[3], n)
	sums, err4 := fakeI64(f, a[5], 2*nblocks)
	totals, err5 := fakeI64(f, a[6], 2)
	off, err6 := fakeI64(f, a[7], n)
	if err := firstErr(err1, err2, err3, err4, err5, err6); err != nil {
		return err
	}
	li, err1 := fakeI64(f, a[8], totals[0]+totals[1])
	ri, err2 := fakeI64(f, a[9], totals[0]+totals[1])
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	var om, ou int64
	for i := int64(0); i < n; i++ {
		if i%joinTile == 0 {
			om, ou = sums[2*(i/joinTile)], totals[0]+sums[2*(i/joinTile)+1]
		}
		m := int64(cm[i])
		off[i] = om
		if m > 0 && m <= twinSerial {
			rows, err := fakeU32(f, a[4]+uint64(4*start[i]), m)
			if err != nil {
				return err
			}
			for k := int64(0); k < m; k++ {
				li[om+k], ri[om+k] = i, int64(rows[k])
			}
		}
		if cu[i] != 0 {
			li[ou], ri[ou] = i, int64(a[10])
			ou++
		}
		om += m
	}
	return nil
}

// gsql_join_expand(n, matched, off, cm, start, rows, li, ri)
func twinJoinExpand(f *fakeDriver, _ Dim3, a []uint64) error {
	n, matched := int64(a[0]), int64(a[1])
	off, err1 := fakeI64(f, a[2], n)
	cm, err2 := fakeI32(f, a[3], n)
	start, err3 := fakeI32(f, a[4], n)
	li, err4 := fakeI64(f, a[6], matched)
	ri, err5 := fakeI64(f, a[7], matched)
	if err := firstErr(err1, err2, err3, err4, err5); err != nil {
		return err
	}
	for k := int64(0); k < matched; k++ {
		lo, hi := int64(0), n-1
		for lo < hi {
			mid := (lo + hi + 1) >> 1
			if off[mid] <= k {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if cm[lo] <= twinSerial {
			continue
		}
		r, err := fakeU32(f, a[5]+uint64(4*(int64(start[lo])+k-off[lo])), 1)
		if err != nil {
			return err
		}
		li[k], ri[k] = lo, int64(r[0])
	}
	return nil
}

// joinSide is one side of a join test: n rows whose key is drawn from
// [0, keys), NULL with probability nulls; as BIGINT or as VARCHAR
// ("k<value>").
type joinSide struct {
	n, keys int
	nulls   float64
}

// joinKeys draws a side's keys: nil for a NULL key.
func joinKeys(rng *rand.Rand, s joinSide) []*int64 {
	out := make([]*int64, s.n)
	for i := range out {
		if rng.Float64() < s.nulls {
			continue
		}
		v := int64(rng.Intn(s.keys))
		out[i] = &v
	}
	return out
}

// joinBatch is a batch of (row number, key) for keys.
func joinBatch(keys []*int64, str bool) *coldata.Batch {
	t := coldata.Int64
	if str {
		t = coldata.String
	}
	b := coldata.NewBuilder(t, len(keys))
	pos := coldata.NewBuilder(coldata.Int64, len(keys))
	for i, k := range keys {
		pos.AppendInt(int64(i))
		switch {
		case k == nil:
			b.AppendNull()
		case str:
			b.AppendString(fmt.Sprintf("k%d", *k))
		default:
			b.AppendInt(*k)
		}
	}
	return &coldata.Batch{Cols: []*coldata.Vec{pos.Finish(), b.Finish()}, Len: len(keys)}
}

// refPairs is the CPU's answer for a probe in mode: matched pairs in
// probe-row order, each row's matches in build-row order, then the
// unmatched (LEFT) or kept (semi, anti) rows.
func refPairs(probe, build []*int64, mode int64, nullRow int64) (lp, bp []int64) {
	rows := map[int64][]int64{}
	for r, k := range build {
		if k != nil {
			rows[*k] = append(rows[*k], int64(r))
		}
	}
	var ul []int64
	for i, k := range probe {
		var m []int64
		if k != nil {
			m = rows[*k]
		}
		if mode == probeSemi || mode == probeAnti {
			if (len(m) > 0) == (mode == probeSemi) {
				ul = append(ul, int64(i))
			}
			continue
		}
		for _, r := range m {
			lp, bp = append(lp, int64(i)), append(bp, r)
		}
		if len(m) == 0 && mode == probeLeft {
			ul = append(ul, int64(i))
		}
	}
	for _, i := range ul {
		lp = append(lp, i)
		if mode == probeLeft {
			bp = append(bp, nullRow)
		} else {
			bp = append(bp, 0)
		}
	}
	return lp, bp
}

func downloadI64(t testing.TB, d *Device, b *Buffer, n int) []int64 {
	t.Helper()
	raw := make([]byte, 8*n)
	if n > 0 {
		if err := d.CopyToHost(raw, b.Ptr(), nil); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return out
}

// joinCase is a join test: the probe and build sides' key shapes.
type joinCase struct {
	name         string
	probe, build joinSide
	str          bool
}

// runJoinCases builds and probes every case in every mode, with the
// grouped table and the semi table, and compares the pairs, in order,
// with refPairs'.
func runJoinCases(t *testing.T, d *Device, cases []joinCase, seed int64) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(seed))
	for _, c := range cases {
		pk, bk := joinKeys(rng, c.probe), joinKeys(rng, c.build)
		// A LEFT join's build side ends with an all-NULL row.
		bk = append(bk, nil)
		nullRow := int64(len(bk) - 1)
		pb, err := d.Upload(ctx, joinBatch(pk, c.str))
		if err != nil {
			t.Fatal(err)
		}
		bb, err := d.Upload(ctx, joinBatch(bk, c.str))
		if err != nil {
			t.Fatal(err)
		}
		for _, semi := range []bool{false, true} {
			build := d.BuildJoin
			if semi {
				build = d.BuildSemiJoin
			}
			tab, err := build(ctx, bb, []int{1})
			if err != nil {
				t.Fatalf("%s: build: %v", c.name, err)
			}
			modes := []int64{probeInner, probeLeft, probeSemi, probeAnti}
			if semi {
				modes = modes[2:]
			}
			for _, mode := range modes {
				pairs, err := tab.probe(ctx, pb, []int{1}, mode, nullRow)
				if err != nil {
					t.Fatalf("%s mode %d: %v", c.name, mode, err)
				}
				gl := downloadI64(t, d, pairs.Probe, pairs.Len)
				gb := downloadI64(t, d, pairs.Build, pairs.Len)
				wl, wb := refPairs(pk, bk, mode, nullRow)
				if !slices.Equal(gl, wl) || (mode < probeSemi && !slices.Equal(gb, wb)) {
					t.Errorf("%s (semi table %v) mode %d: %d pairs, want %d; first difference at %d",
						c.name, semi, mode, len(gl), len(wl), firstDiff(gl, gb, wl, wb))
				}
				pairs.Release()
			}
			tab.Release()
		}
		pb.Release()
		bb.Release()
	}
	requireNoLeak(t, d, "join")
}

func firstDiff(gl, gb, wl, wb []int64) int {
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] || (len(gb) > i && len(wb) > i && gb[i] != wb[i]) {
			return i
		}
	}
	return min(len(gl), len(wl))
}

// TestFakeJoinGroupedBuild runs the join's host side over the kernels'
// Go twins: heavy duplicate keys (the expansion), light ones, NULL keys,
// empty sides, BIGINT and VARCHAR keys.
func TestFakeJoinGroupedBuild(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	runJoinCases(t, d, []joinCase{
		{"small probe, heavy build", joinSide{n: 30, keys: 30, nulls: 0.1}, joinSide{n: 5000, keys: 25, nulls: 0.02}, false},
		{"small probe, heavy VARCHAR build", joinSide{n: 30, keys: 30, nulls: 0.1}, joinSide{n: 3000, keys: 25, nulls: 0.02}, true},
		{"large probe, heavy build", joinSide{n: 3000, keys: 30, nulls: 0.05}, joinSide{n: 500, keys: 25, nulls: 0.05}, false},
		{"light keys", joinSide{n: 2000, keys: 1500, nulls: 0.01}, joinSide{n: 1000, keys: 1500, nulls: 0.01}, false},
		{"unique keys", joinSide{n: 2000, keys: 4000, nulls: 0.01}, joinSide{n: 1000, keys: 1 << 40, nulls: 0.05}, false},
		{"one key", joinSide{n: 300, keys: 1}, joinSide{n: 2000, keys: 1}, false},
		{"all NULL build", joinSide{n: 100, keys: 5}, joinSide{n: 100, keys: 5, nulls: 1}, false},
		{"empty build", joinSide{n: 100, keys: 5}, joinSide{n: 0, keys: 5}, false},
		{"empty probe", joinSide{n: 0, keys: 5}, joinSide{n: 100, keys: 5}, false},
	}, 40)
	if f.launches["gsql_join_expand"] == 0 || f.launches["gsql_join_ranges"] == 0 || f.launches["gsql_join_unique_ranges"] == 0 {
		t.Fatalf("kernels not used: %v", f.launches)
	}
}

// TestFakeJoinPairLimit: a probe past its table's PairLimit is a
// *JoinSizeError with the exact pair count and leaves nothing allocated;
// the same rows probed as slices (views starting at any row, as a join
// that cuts its probe batch makes them) give, together and in order, the
// pairs of the whole.
func TestFakeJoinPairLimit(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(7))
	pk := joinKeys(rng, joinSide{n: 700, keys: 12, nulls: 0.05})
	bk := joinKeys(rng, joinSide{n: 900, keys: 10, nulls: 0.05})
	pb, err := d.Upload(ctx, joinBatch(pk, false))
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Release()
	bb, err := d.Upload(ctx, joinBatch(bk, false))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := d.BuildJoin(ctx, bb, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	bb.Release()
	defer tab.Release()
	wl, wb := refPairs(pk, bk, probeInner, 0)
	tab.PairLimit = int64(len(wl) - 1)
	_, err = tab.Probe(ctx, pb, []int{1}, false, 0)
	var size *JoinSizeError
	if !errors.As(err, &size) || size.Pairs != int64(len(wl)) || size.Rows != len(pk) || size.Limit != tab.PairLimit {
		t.Fatalf("probe past the limit: %v, want a JoinSizeError of %d pairs from %d rows", err, len(wl), len(pk))
	}
	tab.PairLimit = int64(len(wl)/5 + 1)
	var gl, gb []int64
	for lo := 0; lo < len(pk); {
		hi := len(pk)
		for {
			part, err := Slice(pb, lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			pairs, err := tab.Probe(ctx, part, []int{1}, false, 0)
			part.Release()
			if errors.As(err, &size) {
				hi = lo + (hi-lo)/2
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range downloadI64(t, d, pairs.Probe, pairs.Len) {
				gl = append(gl, r+int64(lo))
			}
			gb = append(gb, downloadI64(t, d, pairs.Build, pairs.Len)...)
			pairs.Release()
			break
		}
		lo = hi
	}
	if !slices.Equal(gl, wl) || !slices.Equal(gb, wb) {
		t.Fatalf("sliced probes: %d pairs, want %d; first difference at %d", len(gl), len(wl), firstDiff(gl, gb, wl, wb))
	}
}
