//go:build cuda

package gpuexec

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// TestCUDAGroupByTopWords: the groups GroupByTop keeps are those its host
// twin picks from every group (TopWords over GroupBy's states, a stable
// sort by word, TopKeep), in first-appearance order, for each ordering
// term the device has (COUNT, SUM, MIN, MAX and AVG of BIGINT, DOUBLE,
// BOOL and DECIMAL, and keys), both directions, NULLs either end, with
// and without ties, over values that tie, are NULL, sit at BIGINT's ends
// or are -0.0 and infinities. This checks gsql_top_word against TopWords
// word for word through what each keeps.
func TestCUDAGroupByTopWords(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(41))
	const n = 400_000
	key := coldata.NewVec(coldata.Int64, n)
	v := coldata.NewVec(coldata.Int64, n)
	f := coldata.NewVec(coldata.Float64, n)
	b := coldata.NewVec(coldata.Bool, n)
	dec := coldata.NewVec(coldata.DecimalOf(20, 2), n)
	for _, c := range []*coldata.Vec{key, v, f, dec} {
		c.Nulls = coldata.NewValidBitmap(n)
	}
	ends := []int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1}
	floats := []float64{math.Inf(-1), -2, math.Copysign(0, -1), 0, 0.5, 3, math.Inf(1)}
	for i := 0; i < n; i++ {
		key.Ints[i] = rng.Int63n(150_000) - 75_000
		if rng.Intn(1000) == 0 {
			coldata.ClearBit(key.Nulls, i)
		}
		if rng.Intn(7) == 0 {
			coldata.ClearBit(v.Nulls, i)
		} else if rng.Intn(50_000) == 0 {
			v.Ints[i] = ends[rng.Intn(len(ends))] / 4 // extreme, but no group's sum passes int64
		} else {
			v.Ints[i] = rng.Int63n(200) - 100
		}
		f.Floats[i] = floats[rng.Intn(len(floats))]
		if math.IsInf(f.Floats[i], 0) {
			// One infinity per group: both would sum to NaN, which
			// leaves every group (checked at the end).
			sign := int(key.Ints[i]&1)*2 - 1
			if key.IsNull(i) {
				sign = 1 // the NULL keys' group
			}
			f.Floats[i] = math.Inf(sign)
		}
		if rng.Intn(9) == 0 {
			coldata.ClearBit(f.Nulls, i)
		}
		b.Bools[i] = byte(rng.Intn(2))
		dec.Decs[i] = decimal.FromInt64(rng.Int63n(1_000_000) - 500_000)
		if rng.Intn(11) == 0 {
			coldata.ClearBit(dec.Nulls, i)
		}
	}
	// A few single-row groups at BIGINT's very ends, for MIN and MAX.
	for j, e := range ends {
		key.Ints[j], v.Ints[j] = 1_000_000+int64(j), e
		coldata.SetBit(key.Nulls, j)
		coldata.SetBit(v.Nulls, j)
	}
	in, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{key, v, f, b, dec}, n))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	aggs := []GroupAgg{{Kind: GroupCountStar}, {Kind: GroupCount, Arg: 1}, {Kind: GroupSumInt, Arg: 1}, {Kind: GroupMinInt, Arg: 1},
		{Kind: GroupMaxInt, Arg: 1}, {Kind: GroupSumFloat, Arg: 2}, {Kind: GroupMaxFloat, Arg: 2}, {Kind: GroupMinBool, Arg: 3},
		{Kind: GroupSumDec, Arg: 4}}
	keys := []int{0}
	all, err := d.GroupBy(ctx, in, keys, aggs)
	if err != nil {
		t.Fatal(err)
	}
	terms := []GroupTop{{Agg: 0}, {Agg: 1}, {Agg: 2}, {Agg: 2, Avg: true}, {Agg: 3}, {Agg: 4}, {Agg: 5}, {Agg: 5, Avg: true},
		{Agg: 6}, {Agg: 7}, {Agg: 8}, {Agg: 8, Avg: true, AvgScale: 4}, {Agg: 0, Key: true}}
	for _, term := range terms {
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				top := term
				top.Desc, top.NullsFirst, top.K = desc, nullsFirst, 1
				words, ok := TopWords(&top, aggs, all)
				if !ok {
					t.Fatalf("%+v: no words on the host", top)
				}
				order := make([]int, len(words))
				for g := range order {
					order[g] = g
				}
				slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(words[a], words[b]) })
				sorted := make([]uint64, len(order))
				for i, g := range order {
					sorted[i] = words[g]
				}
				for _, ties := range []bool{false, true} {
					for _, k := range []int{1, 10, 1000} {
						top.Ties, top.K = ties, k
						name := fmt.Sprintf("%+v", top)
						want := slices.Clone(order[:TopKeep(&top, sorted)])
						slices.Sort(want)
						got, err := d.GroupByTop(ctx, in, keys, aggs, &top)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if got.Keys.Len != len(want) {
							t.Fatalf("%s: %d groups kept, want %d", name, got.Keys.Len, len(want))
						}
						gk, ak := got.Keys.Cols[0], all.Keys.Cols[0]
						for j, g := range want {
							if gk.IsNull(j) != ak.IsNull(g) || !gk.IsNull(j) && gk.Int(j) != ak.Int(g) || got.Aggs[0].Count[j] != all.Aggs[0].Count[g] {
								t.Fatalf("%s: group %d is not the host's %d", name, j, g)
							}
						}
					}
				}
			}
		}
	}
	// A NaN leaves every group.
	f.Floats[5] = math.NaN()
	coldata.SetBit(f.Nulls, 5)
	nan, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{key, v, f, b, dec}, n))
	if err != nil {
		t.Fatal(err)
	}
	defer nan.Release()
	got, err := d.GroupByTop(ctx, nan, keys, aggs, &GroupTop{Agg: 5, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got.Keys.Len != all.Keys.Len {
		t.Errorf("with a NaN sum: %d groups kept, want all %d", got.Keys.Len, all.Keys.Len)
	}
}
