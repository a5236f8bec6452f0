package operators

import (
	"math"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// The CPU's top-groups cut (HashAggregate.Top) ranks the groups by the
// device's ordering words (gpuexec.GroupTop): an unsigned word per group
// whose order is the ORDER BY term's, NULLs at the end the term puts them,
// exact but at the clamped ends, where the cut keeps the K-th's ties.

// CPUTopCuts reports whether a CPU GROUP BY by keys of keyTypes with
// aggregates aggs cuts its groups under t: every aggregate's state is its
// accumulator words (no DISTINCT sets, strings, value lists), and t's
// term is a COUNT, SUM, AVG, MIN or MAX of a number, or a key that is not
// a string.
func CPUTopCuts(t *opspec.TopGroups, keyTypes []coldata.Type, aggs []opspec.AggSpec) bool {
	if t == nil || t.Limit < 1 || t.Agg < 0 || len(keyTypes) == 0 {
		return false
	}
	for _, spec := range aggs {
		switch spec.Kind {
		case opspec.AggCountStar, opspec.AggCount, opspec.AggSum, opspec.AggAvg, opspec.AggMin, opspec.AggMax:
		default:
			return false
		}
		if spec.Distinct || spec.Type.Physical() == coldata.String {
			return false
		}
	}
	if t.Key {
		return t.Agg < len(keyTypes) && keyTypes[t.Agg].Physical() != coldata.String
	}
	return t.Agg < len(aggs)
}

// topWordsCPU returns the ordering words under t of the n groups whose
// states st (stride words each) aggs and runs describe; intSum says the
// BIGINT sum of t's aggregate is in its words; key gives a key column.
// ok is false where a group has no word (a NaN, an AVG the host refuses):
// no cut then.
func topWordsCPU(t *opspec.TopGroups, aggs []opspec.AggSpec, off int, intSum bool, st []uint64, stride, n int,
	key func(c int) (*coldata.Vec, error)) (words []uint64, ok bool, err error) {
	words = make([]uint64, n)
	desc, nullsFirst := t.Desc, t.NullsFirst()
	if t.Key {
		v, err := key(t.Agg)
		if err != nil {
			return nil, false, err
		}
		for g := range words {
			w, null, ok := keyWordCPU(v, g)
			if !ok {
				return nil, false, nil
			}
			words[g] = gpuexec.TopPlace(w, null, desc, nullsFirst)
		}
		return words, true, nil
	}
	spec := aggs[t.Agg]
	for g := range words {
		w := g*stride + off
		var v uint64
		null, ok := false, true
		switch {
		case spec.Kind == opspec.AggCountStar || spec.Kind == opspec.AggCount:
			v = gpuexec.SmallWord(st[w])
		case st[w+1] == 0:
			null = true
		case spec.Kind == opspec.AggAvg && spec.Type.IsDecimal():
			avg, err := decimalAvg(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])}, int64(st[w+1]), spec.Arg.Type().Scale(), spec.Type)
			if err != nil {
				return nil, false, nil // the result raises it
			}
			v = decWord(avg)
		case spec.Kind == opspec.AggAvg:
			v, ok = gpuexec.FloatWord(math.Float64frombits(st[w]) / float64(st[w+1]))
		case spec.Type.IsDecimal():
			v = decWord(decimal.Int128{Lo: st[w], Hi: int64(st[w+2])})
		case spec.Kind == opspec.AggSum && spec.Type == coldata.Int64:
			if intSum {
				v = gpuexec.IntWord(int64(st[w]))
			} else {
				v = gpuexec.IntWord(0) // as the result builds it
			}
		case spec.Type.Physical() == coldata.Bool:
			v = gpuexec.SmallWord(min(st[w], 1))
		case spec.Type.Physical() == coldata.Int64:
			v = gpuexec.IntWord(int64(st[w]))
		case spec.Type.Physical() == coldata.Float64:
			v, ok = gpuexec.FloatWord(math.Float64frombits(st[w]))
		default:
			ok = false
		}
		if !ok {
			return nil, false, nil
		}
		words[g] = gpuexec.TopPlace(v, null, desc, nullsFirst)
	}
	return words, true, nil
}

// decWord is a DECIMAL's ascending word, clamped to int64's ends.
func decWord(d decimal.Int128) uint64 {
	i, fits := d.Int64()
	return gpuexec.ClampWord(uint64(i), fits, d.IsNeg())
}

// keyWordCPU is row g of key column v's ascending word, whether it is
// NULL, and false for a NaN or a string.
func keyWordCPU(v *coldata.Vec, g int) (w uint64, null, ok bool) {
	if v.IsNull(g) {
		return 0, true, true
	}
	switch v.Type.Physical() {
	case coldata.Bool:
		if v.Bool(g) {
			return gpuexec.SmallWord(1), false, true
		}
		return gpuexec.SmallWord(0), false, true
	case coldata.Int64:
		return gpuexec.IntWord(v.Int(g)), false, true
	case coldata.Float64:
		w, ok := gpuexec.FloatWord(v.Float(g))
		return w, false, ok
	case coldata.Decimal:
		return decWord(v.Dec(g)), false, true
	}
	return 0, false, false
}

// topGroupsByWord returns the first k of n groups in a stable sort by
// word(g), and past them every group whose word is the k-th's when
// ties(that word) says so, in ascending group order: a heap of the best
// k, whose root is the worst kept; a later group equal to it sorts after
// it, so only a strictly smaller word enters.
func topGroupsByWord(n, k int, word func(g int) uint64, ties func(kth uint64) bool) []int {
	better := func(a, b int) bool { // a sorts before b
		if wa, wb := word(a), word(b); wa != wb {
			return wa < wb
		}
		return a < b
	}
	heap := make([]int, 0, k)
	g := 0
	for ; g < n && len(heap) < k; g++ {
		heap = append(heap, g)
		for at := len(heap) - 1; at > 0; {
			up := (at - 1) / 2
			if !better(heap[up], heap[at]) {
				break
			}
			heap[up], heap[at] = heap[at], heap[up]
			at = up
		}
	}
	for ; g < n; g++ {
		if word(g) >= word(heap[0]) {
			continue
		}
		heap[0] = g
		for at := 0; ; {
			worst, l, r := at, 2*at+1, 2*at+2
			if l < len(heap) && better(heap[worst], heap[l]) {
				worst = l
			}
			if r < len(heap) && better(heap[worst], heap[r]) {
				worst = r
			}
			if worst == at {
				break
			}
			heap[at], heap[worst] = heap[worst], heap[at]
			at = worst
		}
	}
	if len(heap) == k && k < n && ties != nil {
		if kth := word(heap[0]); ties(kth) {
			kept := make(map[int]bool, len(heap))
			for _, g := range heap {
				kept[g] = true
			}
			for g := 0; g < n; g++ {
				if word(g) == kth && !kept[g] {
					heap = append(heap, g)
				}
			}
		}
	}
	sort.Ints(heap)
	return heap
}

// topTies says whether the cut under t keeps the ties of K-th word kth.
func topTies(t *opspec.TopGroups) func(kth uint64) bool {
	return func(kth uint64) bool { return t.Ties || gpuexec.TopLossy(kth, t.NullsFirst()) }
}
