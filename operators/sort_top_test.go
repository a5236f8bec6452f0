package operators

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
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
			for _, keys := range [][]SortKey{
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
		keys := []SortKey{{Col: 0}}
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
	keys := []SortKey{{Col: 0}}
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
