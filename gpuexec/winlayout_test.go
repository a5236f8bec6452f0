package gpuexec

import (
	"bytes"
	"context"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// TestPlanWindowWords: keys pack into as few 64-bit words as hold their
// ranges and NULL ranks, partition bits marked, a 64-bit key with NULLs
// split in two fields, constant keys left out.
func TestPlanWindowWords(t *testing.T) {
	full := wlRange{min: 0, max: math.MaxUint64}
	for _, tc := range []struct {
		name   string
		rng    []wlRange
		nPart  int
		widths [][]int // per word, per field: rank+width
		pmasks []uint64
	}{
		{"day and count", []wlRange{{min: 10, max: 40}, {min: 5, max: 1 << 20}}, 1, [][]int{{5, 20}}, []uint64{0x1f << 20}},
		{"nulls add a bit", []wlRange{{min: 3, max: 3, nulls: true}, {min: 0, max: 255, nulls: true}}, 1, [][]int{{1, 9}}, []uint64{1 << 9}},
		{"constant key", []wlRange{{min: 7, max: 7}, {min: 0, max: 1}}, 0, [][]int{{1}}, []uint64{0}},
		{"all NULL", []wlRange{{min: math.MaxUint64, max: 0, nulls: true}}, 1, [][]int{{1}}, []uint64{1}},
		{"full range with NULLs", []wlRange{{min: 0, max: 3}, {min: 0, max: math.MaxUint64, nulls: true}}, 1,
			[][]int{{2, 1}, {64}}, []uint64{0b110, 0}},
		{"two full words", []wlRange{full, full}, 2, [][]int{{64}, {64}}, []uint64{math.MaxUint64, math.MaxUint64}},
		{"no keys", nil, 0, nil, nil},
	} {
		words := planWindowWords(tc.rng, tc.nPart)
		var widths [][]int
		var pmasks []uint64
		for _, w := range words {
			var ws []int
			for _, f := range w.fields {
				ws = append(ws, f.rank+f.width)
			}
			widths = append(widths, ws)
			pmasks = append(pmasks, w.pmask)
		}
		if !slices.EqualFunc(widths, tc.widths, slices.Equal) || !slices.Equal(pmasks, tc.pmasks) {
			t.Errorf("%s: words %v masks %#x, want %v %#x", tc.name, widths, pmasks, tc.widths, tc.pmasks)
		}
	}
}

// winCol makes a key column of n rows: kind picks the values.
func winCol(rng *rand.Rand, kind string, n int) *coldata.Vec {
	t := coldata.Int64
	switch kind {
	case "float":
		t = coldata.Float64
	case "bool":
		t = coldata.Bool
	case "dec":
		t = coldata.DecimalOf(12, 2)
	case "date":
		t = coldata.Date
	}
	b := coldata.NewBuilder(t, n)
	floats := []float64{math.Inf(-1), -2.5, math.Copysign(0, -1), 0, 1, 1e300, math.Inf(1), math.NaN()}
	for i := 0; i < n; i++ {
		null := rng.Intn(9) == 0
		switch kind {
		case "const":
			b.AppendInt(42)
			continue
		case "allnull":
			b.AppendNull()
			continue
		}
		if null {
			b.AppendNull()
			continue
		}
		switch kind {
		case "small":
			b.AppendInt(int64(rng.Intn(5)) - 2)
		case "date":
			b.AppendInt(int64(19000 + rng.Intn(30)))
		case "wide":
			b.AppendInt(int64(rng.Uint64()>>uint(rng.Intn(64))) * int64(1-2*rng.Intn(2)))
		case "extremes":
			b.AppendInt([]int64{math.MinInt64, -1, 0, math.MaxInt64}[rng.Intn(4)])
		case "float":
			b.AppendFloat(floats[rng.Intn(len(floats))])
		case "bool":
			b.AppendBool(rng.Intn(2) == 0)
		case "dec":
			b.AppendDec(decimal.FromInt64(int64(rng.Intn(2000) - 1000)))
		}
	}
	return b.Finish()
}

// winCmp compares rows i and j of v ascending (NULLs aside): DOUBLE's
// -0.0 equals 0.0, NaNs equal each other and sort above +Inf.
func winCmp(v *coldata.Vec, i, j int) int {
	switch v.Type.Physical() {
	case coldata.Float64:
		a, b := v.Float(i), v.Float(j)
		an, bn := a != a, b != b
		switch {
		case an || bn:
			if an == bn {
				return 0
			}
			if an {
				return 1
			}
			return -1
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	case coldata.Bool:
		a, b := v.Bool(i), v.Bool(j)
		switch {
		case a == b:
			return 0
		case b:
			return -1
		}
		return 1
	case coldata.Decimal:
		return v.Dec(i).Cmp(v.Dec(j))
	case coldata.String:
		return bytes.Compare(v.Str(i), v.Str(j))
	}
	a, b := v.Int(i), v.Int(j)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type winRefKey struct {
	v                *coldata.Vec
	desc, nullsFirst bool
}

func (k winRefKey) cmp(i, j int) int {
	in, jn := k.v.IsNull(i), k.v.IsNull(j)
	switch {
	case in && jn:
		return 0
	case in || jn:
		if in == k.nullsFirst {
			return -1
		}
		return 1
	}
	c := winCmp(k.v, i, j)
	if k.desc {
		return -c
	}
	return c
}

// winRef is the layout a stable sort by keys gives (the first nPart the
// partition keys): perm, spans and peer-group numbers.
func winRef(n int, keys []winRefKey, nPart int) (perm, ps, pe, qs, qe, ord []int) {
	perm = make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool {
		for _, k := range keys {
			if c := k.cmp(perm[a], perm[b]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	differ := func(ks []winRefKey, s int) bool {
		for _, k := range ks {
			if k.cmp(perm[s-1], perm[s]) != 0 {
				return true
			}
		}
		return false
	}
	newPart, newPeer := make([]bool, n), make([]bool, n)
	for s := range newPart {
		newPart[s] = s == 0 || differ(keys[:nPart], s)
		newPeer[s] = s == 0 || differ(keys, s)
	}
	spansOf := func(starts []bool) ([]int, []int) {
		st, en := make([]int, n), make([]int, n)
		for s := range st {
			if starts[s] {
				st[s] = s
			} else {
				st[s] = st[s-1]
			}
		}
		for s := n - 1; s >= 0; s-- {
			if s == n-1 || starts[s+1] {
				en[s] = s + 1
			} else {
				en[s] = en[s+1]
			}
		}
		return st, en
	}
	ps, pe = spansOf(newPart)
	qs, qe = spansOf(newPeer)
	ord = make([]int, n)
	g := -1
	for s := range ord {
		if newPeer[s] {
			g++
		}
		ord[s] = g
	}
	return perm, ps, pe, qs, qe, ord
}

// winRefFrame is every row's frame as operators/window bounds it.
func winRefFrame(rows bool, start, end WindowBound, ps, pe, qs, qe []int) (lo, hi []int) {
	n := len(ps)
	bound := func(b WindowBound, s int, isStart bool) int {
		switch b.Kind {
		case WindowUnboundedPreceding:
			return ps[s]
		case WindowUnboundedFollowing:
			return pe[s]
		case WindowCurrentRow:
			if rows && isStart {
				return s
			} else if rows {
				return s + 1
			} else if isStart {
				return qs[s]
			}
			return qe[s]
		}
		k := int(min(b.Offset, int64(n)))
		pos := s + k
		if b.Kind == WindowPreceding {
			pos = s - k
		}
		if !isStart {
			pos++
		}
		return min(max(pos, ps[s]), pe[s])
	}
	lo, hi = make([]int, n), make([]int, n)
	for s := range lo {
		lo[s] = bound(start, s, true)
		hi[s] = max(lo[s], bound(end, s, false))
	}
	return lo, hi
}

// TestFakeSortWindow builds window layouts on the (fake) device from
// random keys with NULLs, ties, DESC and NULLS FIRST/LAST, one or many
// partition keys, wide keys that take several sort words and constant
// or all-NULL keys, and compares the permutation, the spans, the peer
// numbers and frames with a stable sort on the host.
func TestFakeSortWindow(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	runSortWindowCases(t, d, []int{1, 7, 3000, 9000})
	if f.launches["gsql_wl_gather"] == 0 || f.launches["gsql_sort_scatter"] == 0 {
		t.Errorf("several sort words never gathered: %v", f.launches)
	}
	requireNoLeak(t, d, "window layouts")
}

// runSortWindowCases is TestFakeSortWindow's body over windows of the
// given sizes (the cuda tests run it on the GPU).
func runSortWindowCases(t *testing.T, d *Device, sizes []int) {
	ctx := context.Background()
	type key struct {
		kind             string
		desc, nullsFirst bool
	}
	cases := []struct {
		name  string
		part  []key
		order []key
	}{
		{"day, count desc", []key{{kind: "date", nullsFirst: true}}, []key{{kind: "small", desc: true}}},
		{"order only", nil, []key{{kind: "float"}, {kind: "small", desc: true, nullsFirst: true}}},
		{"partition only", []key{{kind: "small", nullsFirst: true}, {kind: "bool", nullsFirst: true}}, nil},
		{"wide keys", []key{{kind: "wide", nullsFirst: true}}, []key{{kind: "extremes", desc: true}, {kind: "wide"}}},
		{"decimal and bool", []key{{kind: "dec", nullsFirst: true}}, []key{{kind: "bool", desc: true, nullsFirst: true}, {kind: "float", desc: true}}},
		{"constant and all NULL", []key{{kind: "const", nullsFirst: true}}, []key{{kind: "allnull"}, {kind: "const", desc: true}}},
		{"no keys", nil, nil},
	}
	frames := []struct {
		rows       bool
		start, end WindowBound
	}{
		{false, WindowBound{Kind: WindowUnboundedPreceding}, WindowBound{Kind: WindowCurrentRow}},
		{true, WindowBound{Kind: WindowUnboundedPreceding}, WindowBound{Kind: WindowCurrentRow}},
		{false, WindowBound{Kind: WindowUnboundedPreceding}, WindowBound{Kind: WindowUnboundedFollowing}},
		{true, WindowBound{Kind: WindowPreceding, Offset: 3}, WindowBound{Kind: WindowFollowing, Offset: 2}},
		{true, WindowBound{Kind: WindowFollowing, Offset: 2}, WindowBound{Kind: WindowPreceding, Offset: 1}},
		{false, WindowBound{Kind: WindowCurrentRow}, WindowBound{Kind: WindowUnboundedFollowing}},
		{true, WindowBound{Kind: WindowPreceding, Offset: math.MaxInt64}, WindowBound{Kind: WindowCurrentRow}},
	}
	rng := rand.New(rand.NewSource(11))
	for _, n := range sizes {
		for _, tc := range cases {
			keys := append(append([]key(nil), tc.part...), tc.order...)
			var cols []*coldata.Vec
			var ref []winRefKey
			for _, k := range keys {
				v := winCol(rng, k.kind, n)
				cols = append(cols, v)
				ref = append(ref, winRefKey{v, k.desc, k.nullsFirst})
			}
			var l *WindowLayout
			var db *DeviceBatch
			if len(cols) > 0 {
				var err error
				if db, err = d.Upload(ctx, &coldata.Batch{Cols: cols, Len: n}); err != nil {
					t.Fatal(err)
				}
			}
			var wk []WindowKey
			for i, k := range keys {
				wk = append(wk, WindowKey{Col: db.Cols[i], Desc: k.desc, NullsFirst: k.nullsFirst})
			}
			l, err := d.SortWindow(ctx, n, wk, len(tc.part))
			if err != nil {
				t.Fatalf("n %d, %s: %v", n, tc.name, err)
			}
			perm, ps, pe, qs, qe, err := l.Spans(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ords := make([][]int, 1)
			if err := l.download(ctx, []*Buffer{l.ord}, ords); err != nil {
				t.Fatal(err)
			}
			if perm == nil {
				perm = make([]int, n)
				for i := range perm {
					perm[i] = i
				}
			}
			wPerm, wps, wpe, wqs, wqe, word := winRef(n, ref, len(tc.part))
			for _, c := range []struct {
				what      string
				got, want []int
			}{{"perm", perm, wPerm}, {"partStart", ps, wps}, {"partEnd", pe, wpe}, {"peerStart", qs, wqs}, {"peerEnd", qe, wqe}, {"peerOrd", ords[0], word}} {
				if !slices.Equal(c.got, c.want) {
					at := 0
					for at < n && c.got[at] == c.want[at] {
						at++
					}
					t.Fatalf("n %d, %s: %s differs first at %d: %v, want %v", n, tc.name, c.what, at, c.got[at:min(n, at+8)], c.want[at:min(n, at+8)])
				}
			}
			for _, fr := range frames {
				wf, err := l.FrameOf(fr.rows, fr.start, fr.end)
				if err != nil {
					t.Fatal(err)
				}
				lo, hi, err := l.Bounds(ctx, wf)
				if err != nil {
					t.Fatal(err)
				}
				wlo, whi := winRefFrame(fr.rows, fr.start, fr.end, wps, wpe, wqs, wqe)
				if !slices.Equal(lo, wlo) || !slices.Equal(hi, whi) {
					t.Fatalf("n %d, %s: frame %+v differs", n, tc.name, fr)
				}
			}
			l.Release()
			if db != nil {
				db.Release()
			}
		}
	}
}

// TestFakeSortWindowErrors: invalid layouts and frames are refused with
// errors, not launched.
func TestFakeSortWindowErrors(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	// A DECIMAL of more than 18 digits is no key the device sorts.
	b := coldata.NewBuilder(coldata.DecimalOf(30, 2), 2)
	b.AppendDec(decimal.FromInt64(1))
	b.AppendDec(decimal.FromInt64(2))
	db, err := d.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{b.Finish()}, Len: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	if _, err := d.SortWindow(ctx, 2, []WindowKey{{Col: db.Cols[0]}}, 1); err == nil {
		t.Error("a DECIMAL(30,2) key sorted on the device")
	}
	if _, err := d.SortWindow(ctx, 0, nil, 0); err == nil {
		t.Error("a window of no rows")
	}
	l, err := d.SortWindow(ctx, 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := l.FrameOf(false, WindowBound{Kind: WindowPreceding, Offset: 1}, WindowBound{Kind: WindowCurrentRow}); err == nil {
		t.Error("a RANGE offset framed on the device")
	}
	if _, err := l.FrameOf(true, WindowBound{Kind: WindowPreceding, Offset: -1}, WindowBound{Kind: WindowCurrentRow}); err == nil {
		t.Error("a negative ROWS offset")
	}
}
