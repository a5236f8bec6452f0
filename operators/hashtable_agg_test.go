package operators_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestHashAggregateMatchesReference compares GROUP BY (no key, a nullable
// BIGINT key, and BIGINT plus VARCHAR keys) against a row-at-a-time
// reference: groups in order of first appearance, float sums added in row
// order, NULL arguments skipped, DISTINCT on (group, value). Some batches
// have only NULL arguments, some none.
func TestHashAggregateMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const domain = 300
	var batches []*coldata.Batch
	for bi := 0; bi < 6; bi++ {
		n := 1 + rng.Intn(2000)
		nullEvery := []int{1, 0, 5}[bi%3] // all, none, some NULL
		k1, k2 := coldata.NewBuilder(tInt, n), coldata.NewBuilder(tStr, n)
		x, f, s := coldata.NewBuilder(tInt, n), coldata.NewBuilder(tFloat, n), coldata.NewBuilder(tStr, n)
		for i := 0; i < n; i++ {
			if rng.Intn(9) == 0 {
				k1.AppendNull()
			} else {
				k1.AppendInt(int64(rng.Intn(domain)))
			}
			k2.AppendString(fmt.Sprint("k", rng.Intn(4)))
			if nullEvery > 0 && rng.Intn(nullEvery) == 0 {
				x.AppendNull()
				f.AppendNull()
				s.AppendNull()
				continue
			}
			x.AppendInt(int64(rng.Intn(50) - 25))
			f.AppendFloat(rng.NormFloat64())
			s.AppendString(fmt.Sprint("v", rng.Intn(30)))
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{k1.Finish(), k2.Finish(), x.Finish(), f.Finish(), s.Finish()}, n))
	}
	xi, xf, xs := colRef(2, tInt), colRef(3, tFloat), colRef(4, tStr)
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: tInt},
		{Kind: opspec.AggCount, Arg: xi, Type: tInt},
		{Kind: opspec.AggSum, Arg: xi, Type: tInt},
		{Kind: opspec.AggSum, Arg: xf, Type: tFloat},
		{Kind: opspec.AggAvg, Arg: xi, Type: tFloat},
		{Kind: opspec.AggMin, Arg: xi, Type: tInt},
		{Kind: opspec.AggMax, Arg: xf, Type: tFloat},
		{Kind: opspec.AggMin, Arg: xs, Type: tStr},
		{Kind: opspec.AggMax, Arg: xs, Type: tStr},
		{Kind: opspec.AggCount, Arg: xs, Distinct: true, Type: tInt},
		{Kind: opspec.AggSum, Arg: xi, Distinct: true, Type: tInt},
	}
	type acc struct {
		star, cnt, sum, cntDist, sumDist int64
		fsum                             float64
		fn                               int64
		minI                             any
		maxF                             any
		minS, maxS                       any
		seenS                            map[string]bool
		seenX                            map[int64]bool
	}
	for _, nkeys := range []int{0, 1, 2} {
		keys := []expr.Expr{colRef(0, tInt), colRef(1, tStr)}[:nkeys]
		var order []string
		groups := map[string]*acc{}
		keyVals := map[string][]any{}
		for _, b := range batches {
			for r := 0; r < b.Len; r++ {
				var kv []any
				for c := 0; c < nkeys; c++ {
					kv = append(kv, b.Cols[c].Value(r))
				}
				k := fmt.Sprint(kv)
				a := groups[k]
				if a == nil {
					a = &acc{seenS: map[string]bool{}, seenX: map[int64]bool{}}
					groups[k] = a
					order = append(order, k)
					keyVals[k] = kv
				}
				a.star++
				if v := b.Cols[2].Value(r); v != nil {
					x := v.(int64)
					a.cnt++
					a.sum += x
					if a.minI == nil || x < a.minI.(int64) {
						a.minI = x
					}
					if !a.seenX[x] {
						a.seenX[x] = true
						a.sumDist += x
					}
				}
				if v := b.Cols[3].Value(r); v != nil {
					x := v.(float64)
					a.fsum += x
					a.fn++
					if a.maxF == nil || x > a.maxF.(float64) {
						a.maxF = x
					}
				}
				if v := b.Cols[4].Value(r); v != nil {
					x := v.(string)
					if a.minS == nil || x < a.minS.(string) {
						a.minS = x
					}
					if a.maxS == nil || x > a.maxS.(string) {
						a.maxS = x
					}
					if !a.seenS[x] {
						a.seenS[x] = true
						a.cntDist++
					}
				}
			}
		}
		var want [][]any
		for _, k := range order {
			a := groups[k]
			row := append([]any(nil), keyVals[k]...)
			var sum, fsum, avg, sumDist any
			if a.cnt > 0 {
				sum, avg, sumDist = a.sum, float64(a.sum)/float64(a.cnt), a.sumDist
			}
			if a.fn > 0 {
				fsum = a.fsum
			}
			row = append(row, a.star, a.cnt, sum, fsum, avg, a.minI, a.maxF, a.minS, a.maxS, a.cntDist, sumDist)
			want = append(want, row)
		}
		agg := &operators.HashAggregate{Input: src(batches...), Keys: keys, Aggs: aggs}
		checkRows(t, fmt.Sprintf("%d keys", nkeys), run(t, agg), want)
	}
}

// TestHashAggregateNullTypedKeyBatch: a batch whose VARCHAR key evaluates
// to a vector of the NULL type groups with the other NULL keys.
func TestHashAggregateNullTypedKeyBatch(t *testing.T) {
	in := src(
		mkBatch(mkVec(tStr, "a", nil)),
		mkBatch(coldata.NewConst(coldata.Null, nil, 2)),
		mkBatch(mkVec(tStr, "a", "b")),
	)
	agg := &operators.HashAggregate{Input: in, Keys: []expr.Expr{colRef(0, tStr)},
		Aggs: []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: tInt}}}
	checkRows(t, "NULL-typed key batch", run(t, agg), [][]any{r("a", 2), r(nil, 3), r("b", 1)})
}
