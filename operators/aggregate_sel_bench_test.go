package operators

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// selBenchRows is the size of the filtered GROUP BY benchmark's table.
const selBenchRows = 1 << 20

// selBenchData is its table: day BIGINT in [1, 31], flag BIGINT in [0,
// 100) (the filter's), width BIGINT, income BIGINT, and a timestamp-like
// BIGINT whose day a computed key takes.
var selBenchData = sync.OnceValue(func() *coldata.Batch {
	rng := rand.New(rand.NewSource(11))
	cols := make([]*coldata.Vec, 5)
	for c := range cols {
		cols[c] = coldata.NewVec(coldata.Int64, selBenchRows)
	}
	for i := 0; i < selBenchRows; i++ {
		cols[0].Ints[i] = 1 + rng.Int63n(31)
		cols[1].Ints[i] = rng.Int63n(100)
		cols[2].Ints[i] = 320 + rng.Int63n(3000)
		cols[3].Ints[i] = rng.Int63n(10)
		cols[4].Ints[i] = rng.Int63n(1 << 40)
	}
	return coldata.NewBatch(cols, selBenchRows)
})

// opaqueOp hides the operator it wraps from LendSelections: the
// aggregate reads it with Next, as before selections (batches handed back
// still reach it).
type opaqueOp struct{ Operator }

func (o opaqueOp) releaseBatch(b *coldata.Batch, live []*coldata.Vec) {
	releaseInput(o.Operator, b, live)
}

// BenchmarkFilterGroupBy is a filter keeping a fraction of the rows under
// a GROUP BY of 31 groups with SUM, COUNT(*), MAX and MIN (bench --suite
// random --seed 2029 r074's shape), the key a plain column or computed:
// "filter" gathers in the filter (every column, as before selections),
// "dense" in the aggregate (the columns it reads), "sel" reads the rows
// through the filter's selection; "parallel" is the filter of a
// ParallelCompute passing the columns through (parallelAggInput's, over
// a large scan), on all cores.
func BenchmarkFilterGroupBy(b *testing.B) {
	data := selBenchData()
	i64 := coldata.Int64
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggSum, Arg: partCol(2, i64), Type: i64},
		{Kind: opspec.AggCountStar, Type: i64},
		{Kind: opspec.AggMax, Arg: partCol(3, i64), Type: i64},
		{Kind: opspec.AggMin, Arg: partCol(3, i64), Type: i64},
	}
	keys := map[string]expr.Expr{
		"col":      partCol(0, i64),
		"computed": call("%", partCol(4, i64), &expr.Literal{Value: int64(31), T: i64}),
	}
	keys["none"] = nil
	for _, kn := range []string{"col", "computed", "col-parallel", "none-parallel"} {
		par := strings.HasSuffix(kn, "-parallel")
		kn = strings.TrimSuffix(kn, "-parallel")
		for _, pct := range []int64{5, 10, 15, 20, 25, 50, 75, 90, 99} {
			for _, mode := range []string{"filter", "dense", "sel"} {
				name := fmt.Sprintf("key=%s/kept=%d/%s", kn, pct, mode)
				if par {
					name = fmt.Sprintf("parallel/key=%s/kept=%d/%s", kn, pct, mode)
				}
				b.Run(name, func(b *testing.B) {
					pred := call("<", partCol(1, i64), &expr.Literal{Value: pct, T: i64})
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						scan := &Scan{Batches: []*coldata.Batch{data}, Cols: []int{0, 1, 2, 3, 4}}
						var in Operator = &Filter{Input: scan, Pred: pred}
						if par {
							var refs []expr.Expr
							for c := 0; c < 5; c++ {
								refs = append(refs, partCol(c, i64))
							}
							in = &ParallelCompute{Input: scan, Pred: pred, Exprs: refs, Workers: runtime.GOMAXPROCS(0)}
						}
						h := &HashAggregate{Aggs: aggs}
						if keys[kn] != nil {
							h.Keys = []expr.Expr{keys[kn]}
						}
						switch mode {
						case "filter":
							in = opaqueOp{in}
						case "dense":
							h.selHook = -1
						}
						h.Input = in
						out, err := Drain(context.Background(), h)
						if err != nil {
							b.Fatal(err)
						}
						if groups := map[bool]int{true: 31, false: 1}[h.Keys != nil]; len(out) != 1 || out[0].Len != groups {
							b.Fatalf("%d groups", out[0].Len)
						}
					}
					b.ReportMetric(float64(selBenchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
				})
			}
		}
	}
}
