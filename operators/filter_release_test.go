package operators_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// TestFilterBatchesHandedBack runs a GROUP BY and a join's probe over a
// Filter (all columns, and a subset), twice each, and checks every answer
// against sums taken here: the Filter hands the gathered buffers of each
// batch its consumer is done with to coldata's pools, and a buffer handed
// back while a batch still used it would be overwritten by later batches.
// The source columns must not change.
func TestFilterBatchesHandedBack(t *testing.T) {
	rows := 9*opspec.BatchSize + 123
	cols := []*coldata.Vec{coldata.NewVec(coldata.Int64, rows), coldata.NewVec(coldata.Int64, rows), coldata.NewVec(coldata.Float64, rows)}
	for i := 0; i < rows; i++ {
		cols[0].Ints[i] = int64(i*37%1013) % 17
		cols[1].Ints[i] = int64(i%211) - 100
		cols[2].Floats[i] = float64(i%97) / 8
	}
	src := &coldata.Batch{Cols: cols, Len: rows}
	before := fmt.Sprint(cols[0].Ints[:64], cols[1].Ints[rows-64:], cols[2].Floats[4000:4064])
	scan := func() operators.Operator {
		return &operators.Scan{Batches: []*coldata.Batch{src}, Cols: []int{0, 1, 2}}
	}
	k := &expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}
	n := &expr.ColumnRef{Index: 1, Name: "n", T: coldata.Int64}
	pred := bind(t, "<>", n, &expr.Literal{Value: int64(7), T: coldata.Int64})
	keep := func(i int) bool { return cols[1].Ints[i] != 7 }

	// GROUP BY k: COUNT(*), SUM(n), MAX(f), over every column and over
	// the filter's (k, n) only.
	type group struct {
		count, sum int64
		max        float64
	}
	want := map[int64]*group{}
	for i := 0; i < rows; i++ {
		if !keep(i) {
			continue
		}
		g := want[cols[0].Ints[i]]
		if g == nil {
			g = &group{max: -1}
			want[cols[0].Ints[i]] = g
		}
		g.count++
		g.sum += cols[1].Ints[i]
		g.max = max(g.max, cols[2].Floats[i])
	}
	ctx := context.Background()
	for _, narrow := range []bool{false, true} {
		for rep := 0; rep < 2; rep++ {
			f := &operators.Filter{Input: scan(), Pred: pred}
			aggs := []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}, {Kind: opspec.AggSum, Arg: n, Type: opspec.AggResultType(opspec.AggSum, coldata.Int64)}}
			if narrow {
				f.Cols = []int{0, 1}
			} else {
				aggs = append(aggs, opspec.AggSpec{Kind: opspec.AggMax, Arg: &expr.ColumnRef{Index: 2, Name: "f", T: coldata.Float64}, Type: coldata.Float64})
			}
			got, err := operators.Drain(ctx, &operators.HashAggregate{Input: f, Keys: []expr.Expr{k}, Aggs: aggs})
			if err != nil {
				t.Fatal(err)
			}
			g := coldata.Concat(got, len(aggs)+1)
			if g.Len != len(want) {
				t.Fatalf("narrow %v: %d groups, want %d", narrow, g.Len, len(want))
			}
			for r := 0; r < g.Len; r++ {
				w := want[g.Cols[0].Int(r)]
				if g.Cols[1].Int(r) != w.count || fmt.Sprint(g.Cols[2].Value(r)) != fmt.Sprint(w.sum) || (!narrow && g.Cols[3].Floats[r] != w.max) {
					t.Fatalf("narrow %v: group %d: %v %v, want %d %d %v", narrow, g.Cols[0].Int(r), g.Cols[1].Value(r), g.Cols[2].Value(r), w.count, w.sum, w.max)
				}
			}
		}
	}

	// The filtered rows probe a build of keys 0-9 (key k joins k*10):
	// each output row is (k, n, f, k, k*10).
	build := &coldata.Batch{Cols: []*coldata.Vec{coldata.NewVec(coldata.Int64, 10), coldata.NewVec(coldata.Int64, 10)}, Len: 10}
	for i := 0; i < 10; i++ {
		build.Cols[0].Ints[i], build.Cols[1].Ints[i] = int64(i), int64(i*10)
	}
	var wantRows []string
	for i := 0; i < rows; i++ {
		if keep(i) && cols[0].Ints[i] < 10 {
			wantRows = append(wantRows, fmt.Sprint(cols[0].Ints[i], cols[1].Ints[i], cols[2].Floats[i], cols[0].Ints[i]*10))
		}
	}
	sort.Strings(wantRows)
	for rep := 0; rep < 2; rep++ {
		j := &operators.HashJoin{Left: &operators.Filter{Input: scan(), Pred: pred},
			Right:    &operators.Scan{Batches: []*coldata.Batch{build}, Cols: []int{0, 1}},
			LeftKeys: []expr.Expr{k}, RightKeys: []expr.Expr{&expr.ColumnRef{Index: 0, Name: "b", T: coldata.Int64}},
			Kind: opspec.InnerJoin, LeftCols: 3, RightTypes: []coldata.Type{coldata.Int64, coldata.Int64}}
		got, err := operators.Drain(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		g := coldata.Concat(got, 5)
		var gotRows []string
		for r := 0; r < g.Len; r++ {
			gotRows = append(gotRows, fmt.Sprint(g.Cols[0].Int(r), g.Cols[1].Int(r), g.Cols[2].Floats[r], g.Cols[4].Int(r)))
		}
		sort.Strings(gotRows)
		if strings.Join(gotRows, "\n") != strings.Join(wantRows, "\n") {
			t.Fatalf("join: %d rows, want %d (or rows differ)", len(gotRows), len(wantRows))
		}
	}
	if after := fmt.Sprint(cols[0].Ints[:64], cols[1].Ints[rows-64:], cols[2].Floats[4000:4064]); after != before {
		t.Fatal("the source columns changed")
	}
}
