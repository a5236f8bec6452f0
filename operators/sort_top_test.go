package operators

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// topRowsOf, with its typed first-key bound, picks the rows topRows picks
// with the general comparator alone: ties on the first key (few distinct
// values), a second key, both directions, NULLs (no bound), constants.
func TestTopRowsOfMatchesTopRows(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 5, 100, 20000} {
		for _, spread := range []int64{2, 50, 1 << 50} {
			a, b := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n)
			withNulls := coldata.NewBuilder(coldata.Int64, n)
			for i := 0; i < n; i++ {
				a.AppendInt(r.Int63n(spread) - spread/2)
				// Strings that tie on their first 8 bytes, are shorter
				// than 8, or hold a 0 byte.
				switch r.Intn(5) {
				case 4:
					b.AppendString("\u00e9t\u00e9 " + string(rune('a'+r.Intn(3)))) // bytes over 0x7f
				case 0:
					b.AppendString(string(rune('a' + r.Intn(5))))
				case 1:
					b.AppendString("prefix-8" + string(rune('a'+r.Intn(26))))
				case 2:
					b.AppendString("ab\x00" + string(rune('a'+r.Intn(3))))
				default:
					b.AppendString("")
				}
				if r.Intn(7) == 0 {
					withNulls.AppendNull()
				} else {
					withNulls.AppendInt(r.Int63n(spread))
				}
			}
			av := a.Finish()
			// Column 4: column 0's values under a bitmap with every bit set,
			// as device results carry (the typed bound still applies).
			valid := *av
			valid.Nulls = make([]byte, coldata.BitmapLen(n))
			for i := range valid.Nulls {
				valid.Nulls[i] = 0xff
			}
			batch := coldata.NewBatch([]*coldata.Vec{av, b.Finish(), withNulls.Finish(), coldata.NewConst(coldata.Int64, int64(3), n), &valid}, n)
			for _, keys := range [][]opspec.SortKey{
				{{Col: 0}}, {{Col: 0, Desc: true}}, {{Col: 0}, {Col: 1, Desc: true}}, {{Col: 0, Desc: true}, {Col: 1}},
				{{Col: 2}}, {{Col: 2, Desc: true}}, {{Col: 3}, {Col: 0}}, {{Col: 4, Desc: true}, {Col: 1}},
				{{Col: 1}}, {{Col: 1, Desc: true}}, {{Col: 1}, {Col: 0, Desc: true}},
			} {
				cmp := rowComparator(batch, keys)
				for _, k := range []int{1, 3, 10, n / 3, n - 1} {
					if k < 1 {
						continue
					}
					want, err := topRows(ctx, n, k, cmp)
					if err != nil {
						t.Fatal(err)
					}
					got, err := topRowsOf(ctx, batch, keys, k, cmp)
					if err != nil {
						t.Fatal(err)
					}
					slices.Sort(want)
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d spread=%d keys=%v k=%d: got %v, want %v", n, spread, keys, k, got[:min(len(got), 10)], want[:min(len(want), 10)])
					}
				}
			}
		}
	}
}

func BenchmarkTopRowsOfString(b *testing.B) {
	const n = 1_200_000
	r := rand.New(rand.NewSource(1))
	// Phrases that differ in their first 8 bytes, and URLs that share
	// them (the bound cannot help; its cost is the price of trying).
	for _, shape := range []string{"phrases", "shared prefix"} {
		v := coldata.NewBuilder(coldata.String, n)
		for i := 0; i < n; i++ {
			if shape == "phrases" {
				v.AppendString(fmt.Sprintf("%x search", r.Int63()))
			} else {
				v.AppendString(fmt.Sprintf("https://example.com/%x", r.Int63()))
			}
		}
		batch := coldata.NewBatch([]*coldata.Vec{v.Finish()}, n)
		keys := []opspec.SortKey{{Col: 0}}
		cmp := rowComparator(batch, keys)
		b.Run(shape+"/general", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				topRows(context.Background(), n, 10, cmp)
			}
		})
		b.Run(shape+"/bounded", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				topRowsOf(context.Background(), batch, keys, 10, cmp)
			}
		})
	}
}

func BenchmarkTopRowsOfInt(b *testing.B) {
	const n = 1_200_000
	r := rand.New(rand.NewSource(1))
	v := coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		v.AppendInt(1_700_000_000_000_000 + r.Int63n(30*86400*1_000_000))
	}
	batch := coldata.NewBatch([]*coldata.Vec{v.Finish()}, n)
	keys := []opspec.SortKey{{Col: 0}}
	cmp := rowComparator(batch, keys)
	for _, c := range []struct {
		name string
		top  func() ([]int, error)
	}{
		{"general", func() ([]int, error) { return topRows(context.Background(), n, 10, cmp) }},
		{"bounded", func() ([]int, error) { return topRowsOf(context.Background(), batch, keys, 10, cmp) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.top(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSortLimitGathersFromBatches: a Sort with a small Limit over several
// batches with columns besides its keys (concatenating only the keys and
// gathering the kept rows from the batches) gives the first rows of the
// full stable sort: ties, NULL keys, a key listed twice, constant columns.
func TestSortLimitGathersFromBatches(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(31))
	var batches []*coldata.Batch
	for _, n := range []int{700, 0, 1, 1300, 64} {
		k, s, p := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Float64, n)
		for i := 0; i < n; i++ {
			if r.Intn(9) == 0 {
				k.AppendNull()
			} else {
				k.AppendInt(int64(r.Intn(40)))
			}
			s.AppendString(fmt.Sprintf("s%d", r.Intn(6)))
			if r.Intn(5) == 0 {
				p.AppendNull()
			} else {
				p.AppendFloat(r.NormFloat64())
			}
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{k.Finish(), s.Finish(), p.Finish(), coldata.NewConst(coldata.String, "c", n)}, n))
	}
	rowsOf := func(bs []*coldata.Batch) []string {
		var out []string
		for _, b := range bs {
			for i := 0; i < b.Len; i++ {
				row := ""
				for _, c := range b.Cols {
					row += fmt.Sprintf("%v|", c.Value(i))
				}
				out = append(out, row)
			}
		}
		return out
	}
	for _, keys := range [][]opspec.SortKey{
		{{Col: 0}},
		{{Col: 0, Desc: true}},
		{{Col: 1}, {Col: 0, Desc: true, Nulls: opspec.NullsLast}},
		{{Col: 1, Desc: true}, {Col: 1}},
		{{Col: 2, Nulls: opspec.NullsFirst}},
	} {
		full := &Sort{Input: &Materialized{Batches: batches}, Keys: keys, NCols: 4}
		all, err := Drain(ctx, full)
		if err != nil {
			t.Fatal(err)
		}
		want := rowsOf(all)
		// One run of batches, then runs of a batch or two on 8 goroutines,
		// whose best rows merge (ties across runs included).
		for _, split := range []struct{ procs, runRows int }{{1, 1 << 16}, {8, 1}, {3, 500}} {
			defer func(p, r int) { runtime.GOMAXPROCS(p); topRunRows = r }(runtime.GOMAXPROCS(split.procs), topRunRows)
			topRunRows = split.runRows
			for _, limit := range []int64{1, 10, 333} {
				top := &Sort{Input: &Materialized{Batches: batches}, Keys: keys, NCols: 4, Limit: limit}
				got, err := Drain(ctx, top)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := rowsOf(got), want[:limit]; fmt.Sprint(g) != fmt.Sprint(w) {
					t.Fatalf("keys %v limit %d split %v:\n got %v\nwant %v", keys, limit, split, g, w)
				}
				if top.src != nil || top.perm != nil {
					t.Fatalf("keys %v limit %d: the sort kept its input after the end", keys, limit)
				}
			}
		}
	}
}
