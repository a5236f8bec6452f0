package gpuexec

import (
	"context"
	"encoding/binary"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

func init() {
	fakeTwins["gsql_rows_i64"] = twinRowsI64
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
	}
	rng := rand.New(rand.NewSource(17))
	for _, n := range sizes {
		for _, tc := range cases {
			var cols []*coldata.Vec
			var ref []winRefKey
			for _, k := range tc.keys {
				v := winCol(rng, k.kind, n)
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
				o, err := d.SortRows(ctx, n, wk, limit)
				if err != nil {
					t.Fatalf("n %d, %s, limit %d: %v", n, tc.name, limit, err)
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
	b := coldata.NewBuilder(coldata.String, 2)
	b.AppendString("a")
	b.AppendString("b")
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
		{"a text key", 2, []WindowKey{{Col: db.Cols[0]}}},
		{"no rows", 0, nil},
		{"a key of other rows", 3, []WindowKey{{Col: db.Cols[0]}}},
	} {
		if o, err := d.SortRows(ctx, tc.n, tc.keys, 0); err == nil {
			o.Release()
			t.Errorf("%s: sorted on the device", tc.name)
		}
	}
}
