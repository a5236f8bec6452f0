package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/opspec"
)

// sortKeysBatch is n rows of every key type with NULLs, ties, strings
// holding 0 bytes and sharing prefixes, DOUBLE edge values (NaN, ±0,
// ±Inf), DECIMALs of both signs and a constant column.
func sortKeysBatch(r *rand.Rand, n int) *coldata.Batch {
	ints := coldata.NewBuilder(coldata.Int64, n)
	strs := coldata.NewBuilder(coldata.String, n)
	floats := coldata.NewBuilder(coldata.Float64, n)
	bools := coldata.NewBuilder(coldata.Bool, n)
	decs := coldata.NewBuilder(coldata.Decimal, n)
	floatEdges := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1.5, 2.25, math.MaxFloat64, -math.MaxFloat64}
	for i := 0; i < n; i++ {
		if r.Intn(9) == 0 {
			ints.AppendNull()
		} else {
			ints.AppendInt([]int64{math.MinInt64, math.MaxInt64, -1, 0, 1, r.Int63n(40) - 20}[r.Intn(6)])
		}
		switch r.Intn(7) {
		case 0:
			strs.AppendNull()
		case 1:
			strs.AppendString("")
		case 2:
			strs.AppendString("ab\x00" + string(rune('a'+r.Intn(3))))
		case 3:
			strs.AppendString("ab")
		case 4:
			strs.AppendString("ab\x00")
		case 5:
			strs.AppendString("\u00e9t\u00e9" + string(rune('a'+r.Intn(3))))
		default:
			strs.AppendString(fmt.Sprintf("prefix-8%c", 'a'+r.Intn(26)))
		}
		if r.Intn(8) == 0 {
			floats.AppendNull()
		} else {
			floats.AppendFloat(floatEdges[r.Intn(len(floatEdges))])
		}
		if r.Intn(5) == 0 {
			bools.AppendNull()
		} else {
			bools.AppendBool(r.Intn(2) == 0)
		}
		if r.Intn(6) == 0 {
			decs.AppendNull()
		} else {
			d := decimal.FromInt64(r.Int63n(2000) - 1000)
			if r.Intn(4) == 0 {
				d = decimal.Int128{Lo: r.Uint64(), Hi: r.Int63n(5) - 2}
			}
			decs.AppendDec(d)
		}
	}
	// Column 6: DECIMALs that all fit 64 bits (sorted as narrowed BIGINTs).
	small := coldata.NewBuilder(coldata.Decimal, n)
	for i := 0; i < n; i++ {
		if r.Intn(7) == 0 {
			small.AppendNull()
		} else {
			small.AppendDec(decimal.FromInt64(r.Int63n(1<<40) - 1<<39))
		}
	}
	cols := []*coldata.Vec{ints.Finish(), strs.Finish(), floats.Finish(), bools.Finish(), decs.Finish(), coldata.NewConst(coldata.String, []byte("k"), n), small.Finish()}
	return coldata.NewBatch(cols, n)
}

// The normalized keys order rows as rowComparator does (then by row, as
// the stable sort): every key type, both directions, the three NULL
// placements, several keys.
func TestNormalizedKeysMatchComparator(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(17))
	for _, n := range []int{0, 1, 7, 3000} {
		b := sortKeysBatch(r, n)
		for trial := 0; trial < 40; trial++ {
			var keys []opspec.SortKey
			for k := 0; k < 1+r.Intn(3); k++ {
				keys = append(keys, opspec.SortKey{Col: r.Intn(len(b.Cols)), Desc: r.Intn(2) == 0,
					Nulls: []opspec.NullOrder{opspec.NullsDefault, opspec.NullsFirst, opspec.NullsLast}[r.Intn(3)]})
			}
			cmp := rowComparator(b, keys)
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			if err := sortCancellable(ctx, want, cmp); err != nil {
				t.Fatal(err)
			}
			got, ok, err := sortByNormalizedKeys(ctx, b, keys)
			if err != nil || !ok {
				t.Fatalf("keys %v: ok=%v err=%v", keys, ok, err)
			}
			if !slices.Equal(got, want) {
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("n=%d keys %+v: position %d holds row %d, want row %d", n, keys, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// Over parallelSortRows rows the sort runs in parallel runs merged
// pairwise: the same order as the comparator's.
func TestNormalizedKeysParallelRuns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	ctx := context.Background()
	r := rand.New(rand.NewSource(23))
	b := sortKeysBatch(r, 150_000)
	for _, keys := range [][]opspec.SortKey{
		{{Col: 0}, {Col: 1, Desc: true}},
		{{Col: 2, Desc: true, Nulls: opspec.NullsLast}, {Col: 4}},
		{{Col: 3}, {Col: 5}},
		{{Col: 6, Desc: true}, {Col: 1}},
	} {
		want := make([]int, b.Len)
		for i := range want {
			want[i] = i
		}
		if err := sortCancellable(ctx, want, rowComparator(b, keys)); err != nil {
			t.Fatal(err)
		}
		got, _, err := sortByNormalizedKeys(ctx, b, keys)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("keys %+v: parallel runs order differs from the comparator's", keys)
		}
	}
}

// A cancelled sort stops with the context's error.
func TestNormalizedKeysCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := sortKeysBatch(rand.New(rand.NewSource(3)), 200_000)
	if _, _, err := sortByNormalizedKeys(ctx, b, []opspec.SortKey{{Col: 1}}); err == nil {
		t.Fatal("a cancelled sort returned no error")
	}
}

// BenchmarkSortRows sorts 28K and 1M rows on four keys (a count DESC, two
// strings, an integer: TPC-H Q16's ORDER BY) by normalized keys and by
// the row comparator.
func BenchmarkSortRows(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{28_000, 1_000_000} {
		r := rand.New(rand.NewSource(5))
		c, br, ty, sz := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			c.AppendInt(r.Int63n(13))
			br.AppendString(fmt.Sprintf("Brand#%d%d", 1+r.Intn(5), 1+r.Intn(5)))
			ty.AppendString(fmt.Sprintf("MEDIUM POLISHED %d", r.Intn(150)))
			sz.AppendInt(r.Int63n(50))
		}
		batch := coldata.NewBatch([]*coldata.Vec{c.Finish(), br.Finish(), ty.Finish(), sz.Finish()}, n)
		keys := []opspec.SortKey{{Col: 0, Desc: true}, {Col: 1}, {Col: 2}, {Col: 3}}
		b.Run(fmt.Sprintf("rows=%d/normalized", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := sortByNormalizedKeys(ctx, batch, keys); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("rows=%d/comparator", n), func(b *testing.B) {
			cmp := rowComparator(batch, keys)
			for i := 0; i < b.N; i++ {
				perm := make([]int, n)
				for j := range perm {
					perm[j] = j
				}
				if err := sortCancellable(ctx, perm, cmp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSortOperatorQ16 runs the Sort operator over rows shaped like
// TPC-H Q16's output (ORDER BY supplier_cnt DESC, p_brand, p_type,
// p_size: 18K groups at SF1, 28K at SF10), the output's gather included.
func BenchmarkSortOperatorQ16(b *testing.B) {
	ctx := context.Background()
	var types []string
	for _, a := range []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"} {
		for _, m := range []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"} {
			for _, c := range []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"} {
				types = append(types, a+" "+m+" "+c)
			}
		}
	}
	sizes := []int64{49, 14, 23, 45, 19, 3, 36, 9}
	for _, n := range []int{18_000, 28_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewSource(5))
			br, ty, sz, c := coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
			for i := 0; i < n; i++ {
				br.AppendString(fmt.Sprintf("Brand#%d%d", 1+r.Intn(5), 1+r.Intn(5)))
				ty.AppendString(types[r.Intn(len(types))])
				sz.AppendInt(sizes[r.Intn(len(sizes))])
				c.AppendInt(int64(1 + r.Intn(4)*4 + r.Intn(3)))
			}
			batch := coldata.NewBatch([]*coldata.Vec{br.Finish(), ty.Finish(), sz.Finish(), c.Finish()}, n)
			keys := []opspec.SortKey{{Col: 3, Desc: true}, {Col: 0}, {Col: 1}, {Col: 2}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s := &Sort{Input: &Materialized{Batches: []*coldata.Batch{batch}}, Keys: keys, NCols: 4}
				if _, err := Drain(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
