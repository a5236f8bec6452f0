package operators

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// TestCombinePartitionsTopAnyTerm: partitions cut on their own by an
// ordering term (as the device cuts them: the first K by word, with the
// K-th's ties where asked), then combined, hold the full sort's first K
// groups in first-appearance order, for SUM, COUNT, MIN of a DOUBLE and a
// key with NULLs, both directions, NULLs either end, with and without a
// second ORDER BY term (which needs the first term's ties).
func TestCombinePartitionsTopAnyTerm(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const n, nparts = 400, 4
	// Group i has id i (key 0), first row firsts[i]; the values tie a lot.
	firsts := rng.Perm(10 * n)[:n]
	ks := make([]int64, n)
	knull := make([]bool, n)
	sums, counts := make([]int64, n), make([]int64, n)
	mins := make([]float64, n)
	for i := range ks {
		ks[i], knull[i] = rng.Int63n(20), rng.Intn(9) == 0
		sums[i], counts[i] = rng.Int63n(30)-15, rng.Int63n(4)
		mins[i] = float64(rng.Intn(25)) / 4
	}
	kinds := []gpuexec.GroupAgg{{Kind: gpuexec.GroupSumInt}, {Kind: gpuexec.GroupCount}, {Kind: gpuexec.GroupMinFloat}, {Kind: gpuexec.GroupMinInt}}
	// partition p holds the groups i%nparts == p, in first-appearance order.
	var outs []*gpuexec.GroupPartial
	for p := 0; p < nparts; p++ {
		var gs []int
		for i := p; i < n; i += nparts {
			gs = append(gs, i)
		}
		slices.SortFunc(gs, func(a, b int) int { return cmp.Compare(firsts[a], firsts[b]) })
		outs = append(outs, partialOf(gs, ks, knull, sums, counts, mins, firsts))
	}
	// value compares groups a and b on term (0 SUM, 1 COUNT, 2 MIN, -1 the
	// key); null says whether a group's term is NULL.
	null := func(term, g int) bool {
		if term < 0 {
			return knull[g]
		}
		return term != 1 && counts[g] == 0
	}
	value := func(term, a, b int) int {
		switch term {
		case 0:
			return cmp.Compare(sums[a], sums[b])
		case 1:
			return cmp.Compare(counts[a], counts[b])
		case 2:
			return cmp.Compare(mins[a], mins[b])
		}
		return cmp.Compare(ks[a], ks[b])
	}
	for _, term := range []int{0, 1, 2, -1} {
		for _, desc := range []bool{false, true} {
			for _, nulls := range []opspec.NullOrder{opspec.NullsDefault, opspec.NullsFirst, opspec.NullsLast} {
				for _, ties := range []bool{false, true} {
					for _, k := range []int{1, 3, 10, 50, n, n + 5} {
						ot := &opspec.TopGroups{Agg: term, Desc: desc, Nulls: nulls, Ties: ties, Limit: k}
						if term < 0 {
							ot.Agg, ot.Key = 1, true
						}
						nullsFirst := ot.NullsFirst()
						// The SQL order: the term, then (with ties) the id
						// descending, then first appearance.
						sql := func(a, b int) int {
							if an, bn := null(term, a), null(term, b); an != bn {
								if an == nullsFirst {
									return -1
								}
								return 1
							} else if !an {
								c := value(term, a, b)
								if desc {
									c = -c
								}
								if c != 0 {
									return c
								}
							}
							if ties {
								return cmp.Compare(b, a)
							}
							return cmp.Compare(firsts[a], firsts[b])
						}
						all := make([]int, n)
						for i := range all {
							all[i] = i
						}
						slices.SortFunc(all, sql)
						want := all[:min(k, n)]
						name := fmt.Sprintf("term %d desc=%v nulls=%d ties=%v K=%d", term, desc, nulls, ties, k)
						top := DeviceTop(ot, []coldata.Type{coldata.Int64, coldata.Int64}, []opspec.AggSpec{
							{Kind: opspec.AggSum, Type: coldata.Int64}, {Kind: opspec.AggCount, Type: coldata.Int64}, {Kind: opspec.AggMin, Type: coldata.Float64}}, kinds)
						if top == nil {
							t.Fatalf("%s: no device cut", name)
						}
						cut := make([]*gpuexec.GroupPartial, nparts)
						for p, o := range outs {
							cut[p] = cutLikeDevice(t, o, kinds, top)
						}
						got := combinePartitions(cut, kinds, top)
						ids := got.Keys.Cols[0].Ints[:got.Keys.Len]
						if !slices.IsSortedFunc(ids, func(a, b int64) int { return cmp.Compare(firsts[a], firsts[b]) }) {
							t.Fatalf("%s: groups out of first-appearance order", name)
						}
						kept := make([]int, len(ids))
						for i, id := range ids {
							kept[i] = int(id)
						}
						slices.SortFunc(kept, sql)
						if len(kept) < len(want) || !slices.Equal(kept[:len(want)], want) {
							t.Fatalf("%s: kept %d groups, first %v; full sort %v", name, len(kept), kept[:min(8, len(kept))], want[:min(8, len(want))])
						}
					}
				}
			}
		}
	}
}

// partialOf is the device partial of groups gs (in that order): keys id
// and k, aggregates SUM, COUNT, MIN of a DOUBLE and the first row.
func partialOf(gs []int, ks []int64, knull []bool, sums, counts []int64, mins []float64, firsts []int) *gpuexec.GroupPartial {
	m := len(gs)
	id, k := coldata.NewVec(coldata.Int64, m), coldata.NewVec(coldata.Int64, m)
	k.Nulls = coldata.NewValidBitmap(m)
	p := &gpuexec.GroupPartial{Keys: &coldata.Batch{Len: m, Cols: []*coldata.Vec{id, k}}, Aggs: make([]gpuexec.AggPartial, 4)}
	for a := range p.Aggs {
		p.Aggs[a].Count = make([]int64, m)
	}
	p.Aggs[0].Lo, p.Aggs[0].Hi = make([]uint64, m), make([]int64, m)
	p.Aggs[2].Float = make([]float64, m)
	p.Aggs[3].Lo = make([]uint64, m)
	for j, g := range gs {
		id.Ints[j], k.Ints[j] = int64(g), ks[g]
		if knull[g] {
			coldata.ClearBit(k.Nulls, j)
		}
		for a := range 3 {
			p.Aggs[a].Count[j] = counts[g]
		}
		p.Aggs[3].Count[j] = 1
		p.Aggs[0].Lo[j], p.Aggs[0].Hi[j] = uint64(sums[g]), sums[g]>>63
		p.Aggs[2].Float[j] = mins[g]
		p.Aggs[3].Lo[j] = uint64(firsts[g])
	}
	return p
}

// cutLikeDevice keeps the groups of o that GroupByTop keeps under top:
// the first K of a stable sort by word (and the K-th's ties where asked),
// in group order.
func cutLikeDevice(t *testing.T, o *gpuexec.GroupPartial, kinds []gpuexec.GroupAgg, top *gpuexec.GroupTop) *gpuexec.GroupPartial {
	words, ok := gpuexec.TopWords(top, kinds, o)
	if !ok {
		t.Fatal("no words")
	}
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(words[a], words[b]) })
	sorted := make([]uint64, len(order))
	for i, g := range order {
		sorted[i] = words[g]
	}
	kept := slices.Clone(order[:gpuexec.TopKeep(top, sorted)])
	slices.Sort(kept)
	refs := make([]groupRef, len(kept))
	for i, g := range kept {
		refs[i] = groupRef{g: g}
	}
	return takeGroups([]*gpuexec.GroupPartial{o}, refs, len(kinds))
}
