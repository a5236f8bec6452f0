package operators

import (
	"context"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// DECIMAL SUM and AVG over few groups take the narrow int64 partial sums
// when every value of a run is narrow and the 128-bit adds otherwise: the
// sums equal a reference added row by row in 128 bits, for narrow values
// of both signs, runs with one wide value, and batches of every length
// around the lanes' pairing (odd, even, one row).
func TestNarrowDecimalSums(t *testing.T) {
	d := coldata.DecimalOf(18, 2)
	rng := rand.New(rand.NewSource(4))
	for _, tc := range []struct {
		name  string
		wide  int // one row in wide is a value past the narrow bound (0: none)
		sizes []int
	}{
		{"narrow", 0, []int{1, 2, 3, 4095, 4096, 4097, 100, 9000}},
		{"some wide", 37, []int{50, 3000, 4096, 7}},
	} {
		var batches []*coldata.Batch
		want := map[int64]decimal.Int128{}
		counts := map[int64]int64{}
		for _, n := range tc.sizes {
			g, v := coldata.NewVec(coldata.Int64, n), coldata.NewVec(d, n)
			for i := 0; i < n; i++ {
				g.Ints[i] = int64(rng.Intn(5))
				x := rng.Int63n(1<<50) - 1<<49
				if tc.wide > 0 && rng.Intn(tc.wide) == 0 {
					x = rng.Int63n(1<<62) - 1<<61
				}
				v.Decs[i] = decimal.FromInt64(x)
				sum, ok := want[g.Ints[i]].Add(v.Decs[i])
				if !ok {
					t.Fatal("reference overflow")
				}
				want[g.Ints[i]] = sum
				counts[g.Ints[i]]++
			}
			batches = append(batches, coldata.NewBatch([]*coldata.Vec{g, v}, n))
		}
		arg := &expr.ColumnRef{Index: 1, T: d}
		h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: []expr.Expr{&expr.ColumnRef{Index: 0, T: coldata.Int64}},
			Aggs: []opspec.AggSpec{{Kind: opspec.AggSum, Arg: arg, Type: opspec.AggResultType(opspec.AggSum, d)}, {Kind: opspec.AggCount, Arg: arg, Type: coldata.Int64}}}
		out, err := Drain(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		got := coldata.Concat(out, 3)
		if got.Len != len(want) {
			t.Fatalf("%s: %d groups, want %d", tc.name, got.Len, len(want))
		}
		for i := 0; i < got.Len; i++ {
			k := got.Cols[0].Ints[i]
			if s := got.Cols[1].Dec(i); s != want[k] {
				t.Errorf("%s: group %d: sum %s, want %s", tc.name, k, s.String(2), want[k].String(2))
			}
			if c := got.Cols[2].Ints[i]; c != counts[k] {
				t.Errorf("%s: group %d: count %d, want %d", tc.name, k, c, counts[k])
			}
		}
	}
}
