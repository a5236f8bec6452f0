package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

func init() {
	fakeTwins["gsql_rows_i64"] = twinRowsI64
	fakeTwins["gsql_wl_str_range"] = twinWLStrRange
	fakeTwins["gsql_wl_pack_str"] = twinWLPackStr
}

// fakeTextCol reads a text column's strings and NULLs.
func fakeTextCol(f *fakeDriver, valid uint64, off int64, offs, data uint64, n int64) ([][]byte, []bool, error) {
	o, err := fakeView[int32](f, offs, n+1)
	if err != nil {
		return nil, nil, err
	}
	var bitmap []byte
	if valid != 0 {
		if bitmap, err = fakeView[byte](f, valid, (off+n+7)/8); err != nil {
			return nil, nil, err
		}
	}
	var chars []byte // data 0: the lengths alone are read
	if o[n] > 0 && data != 0 {
		if chars, err = fakeView[byte](f, data, int64(o[n])); err != nil {
			return nil, nil, err
		}
	}
	strs, nulls := make([][]byte, n), make([]bool, n)
	for i := int64(0); i < n; i++ {
		if bitmap != nil {
			b := off + i
			if nulls[i] = bitmap[b>>3]>>(b&7)&1 == 0; nulls[i] {
				continue
			}
		}
		if chars == nil {
			strs[i] = make([]byte, o[i+1]-o[i])
		} else {
			strs[i] = chars[o[i]:o[i+1]]
		}
	}
	return strs, nulls, nil
}

func twinWLStrRange(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[3])
	strs, nulls, err1 := fakeTextCol(f, a[0], int64(a[1]), a[2], 0, n)
	r, err2 := fakeU64(f, a[4], 3)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for i, s := range strs {
		if nulls[i] {
			r[2] = 1
			continue
		}
		r[0], r[1] = min(r[0], uint64(len(s))), max(r[1], uint64(len(s)))
	}
	return nil
}

func twinWLPackStr(f *fakeDriver, _ Dim3, a []uint64) error {
	chunk, bytes, desc, nullsFirst := int64(a[4]), int(a[5]), a[6] != 0, a[7] != 0
	kmin, rank, width, first, n := a[8], a[9], a[10], a[11] != 0, int64(a[12])
	if rank > 1 || width > 64 || rank+width > 64 || (rank+width == 64 && !first) || chunk >= 0 && (bytes < 1 || bytes > 8) {
		return fmt.Errorf("twin pack text: rank %d width %d first %v chunk %d bytes %d", rank, width, first, chunk, bytes)
	}
	strs, nulls, err1 := fakeTextCol(f, a[0], int64(a[1]), a[2], a[3], n)
	out, err2 := fakeU64(f, a[13], n)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	for i := range out {
		var v uint64
		if !nulls[i] && width > 0 {
			s := strs[i]
			k := uint64(len(s))
			if chunk >= 0 {
				k = 0
				for j := 0; j < bytes; j++ {
					k <<= 8
					if p := 8*int(chunk) + j; p < len(s) {
						k |= uint64(s[p])
					}
				}
			}
			if desc {
				k = ^k
			}
			v = k - kmin
			if width < 64 && v>>width != 0 {
				return fmt.Errorf("twin pack text: %#x past %d bits over %#x", k, width, kmin)
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

func twinRowsI64(f *fakeDriver, _ Dim3, a []uint64) error {
	n := int64(a[1])
	rows, err := fakeU32(f, a[0], n)
	if err != nil {
		return err
	}
	out, err := fakeI64(f, a[3], n)
	if err != nil {
		return err
	}
	for i := range out {
		out[i] = int64(a[2]) + int64(rows[i])
	}
	return nil
}

// TestFakeSortRows orders rows on the (fake) device by random keys of
// every type SortRows packs (BIGINT, DATE, DOUBLE with -0.0, NaN and
// infinities, DECIMAL, BOOLEAN, 64-bit extremes), with NULLs, ties, DESC,
// NULLS FIRST/LAST, several keys and keys that take several sort words,
// constant and all-NULL keys, under limits, and compares the rows with a
// stable sort on the host.
func TestFakeSortRows(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	runSortRowsCases(t, d, []int{1, 7, 3000, 9000})
	if f.launches["gsql_wl_gather"] == 0 || f.launches["gsql_rows_i64"] == 0 {
		t.Errorf("several sort words never gathered: %v", f.launches)
	}
	requireNoLeak(t, d, "sorted rows")
}

// runSortRowsCases is TestFakeSortRows' body over sorts of the given
// sizes (the cuda tests run it on the GPU).
func runSortRowsCases(t *testing.T, d *Device, sizes []int) {
	ctx := context.Background()
	type key struct {
		kind             string
		desc, nullsFirst bool
	}
	cases := []struct {
		name string
		keys []key
	}{
		{"one double", []key{{kind: "float"}}},
		{"double desc nulls first", []key{{kind: "float", desc: true, nullsFirst: true}}},
		{"ties then wide", []key{{kind: "small", desc: true}, {kind: "wide", nullsFirst: true}}},
		{"date, decimal, bool", []key{{kind: "date", nullsFirst: true}, {kind: "dec", desc: true}, {kind: "bool", nullsFirst: true}}},
		{"extremes and wide (two words)", []key{{kind: "extremes", desc: true, nullsFirst: true}, {kind: "wide"}, {kind: "float", desc: true}}},
		{"constant and all NULL", []key{{kind: "const"}, {kind: "allnull", desc: true}}},
		{"constant then small", []key{{kind: "const", desc: true}, {kind: "small"}}},
		{"short text", []key{{kind: "text8"}}},
		{"text desc, nulls first, then a number", []key{{kind: "text20", desc: true, nullsFirst: true}, {kind: "small"}}},
		{"number then text of 32 bytes", []key{{kind: "small", desc: true, nullsFirst: true}, {kind: "text32"}, {kind: "float"}}},
		{"empty and all-NULL text", []key{{kind: "textempty", desc: true}, {kind: "textnull"}, {kind: "text8", desc: true}}},
	}
	rng := rand.New(rand.NewSource(17))
	for _, n := range sizes {
		for _, tc := range cases {
			var cols []*coldata.Vec
			var ref []winRefKey
			for _, k := range tc.keys {
				v := sortCol(rng, k.kind, n)
				cols = append(cols, v)
				ref = append(ref, winRefKey{v, k.desc, k.nullsFirst})
			}
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			sort.SliceStable(want, func(a, b int) bool {
				for _, k := range ref {
					if c := k.cmp(want[a], want[b]); c != 0 {
						return c < 0
					}
				}
				return false
			})
			db, err := d.Upload(ctx, &coldata.Batch{Cols: cols, Len: n})
			if err != nil {
				t.Fatal(err)
			}
			var wk []WindowKey
			for i, k := range tc.keys {
				wk = append(wk, WindowKey{Col: db.Cols[i], Desc: k.desc, NullsFirst: k.nullsFirst})
			}
			for _, limit := range []int{0, 1, 5, n / 3, n, n + 4} {
				o, ok, err := d.SortRows(ctx, n, wk, limit)
				if err != nil || !ok {
					t.Fatalf("n %d, %s, limit %d: %v (sorted %v)", n, tc.name, limit, err, ok)
				}
				m := n
				if limit > 0 && limit < n {
					m = limit
				}
				raw := make([]byte, 8*o.Len)
				if err := d.CopyToHost(raw, o.Rows.Ptr(), nil); err != nil {
					t.Fatal(err)
				}
				got := make([]int, o.Len)
				for i := range got {
					got[i] = int(binary.LittleEndian.Uint64(raw[8*i:]))
				}
				if o.Len != m || !slices.Equal(got, want[:m]) {
					at := 0
					for at < min(len(got), m) && got[at] == want[at] {
						at++
					}
					t.Fatalf("n %d, %s, limit %d: %d rows, differ first at %d: %v, want %v", n, tc.name, limit, o.Len, at,
						got[at:min(len(got), at+8)], want[at:min(m, at+8)])
				}
				o.Release()
			}
			db.Release()
		}
	}
}

// TestFakeSortRowsErrors: sorts the device cannot run are refused with
// errors, not launched.
func TestFakeSortRowsErrors(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	b := coldata.NewBuilder(coldata.DecimalOf(30, 2), 2)
	b.AppendDec(decimal.FromInt64(1))
	b.AppendDec(decimal.FromInt64(2))
	db, err := d.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{b.Finish()}, Len: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	for _, tc := range []struct {
		name string
		n    int
		keys []WindowKey
	}{
		{"a DECIMAL(30,2) key", 2, []WindowKey{{Col: db.Cols[0]}}},
		{"no rows", 0, nil},
		{"a key of other rows", 3, []WindowKey{{Col: db.Cols[0]}}},
	} {
		if o, _, err := d.SortRows(ctx, tc.n, tc.keys, 0); err == nil {
			if o != nil {
				o.Release()
			}
			t.Errorf("%s: sorted on the device", tc.name)
		}
	}
}

// TestFakeSortRowsLongText: a text key with a string past
// MaxTextSortBytes is left to the host (ok false), with nothing leaked.
func TestFakeSortRowsLongText(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	for _, s := range []string{strings.Repeat("x", MaxTextSortBytes), strings.Repeat("x", MaxTextSortBytes+1)} {
		b := coldata.NewBuilder(coldata.String, 3)
		b.AppendString("a")
		b.AppendNull()
		b.AppendString(s)
		db, err := d.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{b.Finish()}, Len: 3})
		if err != nil {
			t.Fatal(err)
		}
		o, ok, err := d.SortRows(ctx, 3, []WindowKey{{Col: db.Cols[0], NullsFirst: true}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(s) <= MaxTextSortBytes; ok != want || (o != nil) != want {
			t.Errorf("%d bytes: sorted on the device %v, want %v", len(s), ok, want)
		}
		if o != nil {
			o.Release()
		}
		db.Release()
	}
	requireNoLeak(t, d, "sorted rows")
}

// sortCol is winCol with text kinds: text8, text20 and text32 (strings of
// up to that many bytes from a small alphabet with a zero byte, sharing
// prefixes, NULLs), textempty (empty strings and NULLs) and textnull (all
// NULL).
func sortCol(rng *rand.Rand, kind string, n int) *coldata.Vec {
	maxLen := map[string]int{"text8": 8, "text20": 20, "text32": 32, "textempty": 0, "textnull": 0}
	m, ok := maxLen[kind]
	if !ok {
		return winCol(rng, kind, n)
	}
	b := coldata.NewBuilder(coldata.String, n)
	prefixes := []string{"", "ab", "abcdefgh", "abcdefgh\x00"}
	for i := 0; i < n; i++ {
		if kind == "textnull" || rng.Intn(9) == 0 {
			b.AppendNull()
			continue
		}
		s := []byte(prefixes[rng.Intn(len(prefixes))])
		for len(s) < m && rng.Intn(4) != 0 {
			s = append(s, "\x00ab\xff"[rng.Intn(4)])
		}
		if len(s) > m {
			s = s[:m]
		}
		b.AppendString(string(s))
	}
	return b.Finish()
}
