package operators_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// benchRows is the size of the GROUP BY inputs and of the join's probe side.
const benchRows = 10_000_000

// benchStrings returns n distinct strings of varied length (some with
// multibyte UTF-8), deterministic for a seed.
func benchStrings(rng *rand.Rand, n int, prefix string) []string {
	words := []string{"alpha", "beta", "gamma", "délta", "epsilon", "zeta", "ēta", "theta", "/api/v1/items", "日本"}
	out := make([]string, n)
	for i := range out {
		w := words[rng.Intn(len(words))]
		out[i] = fmt.Sprintf("%s%s-%d%s", prefix, w, i, w[:rng.Intn(len(w)/2+1)])
	}
	return out
}

// stringVec builds a String vector of n rows picking from pool, with NULL
// for roughly one row in nullEvery (0: none).
func stringVec(rng *rand.Rand, n int, pool []string, nullEvery int) *coldata.Vec {
	b := coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		if nullEvery > 0 && rng.Intn(nullEvery) == 0 {
			b.AppendNull()
			continue
		}
		b.AppendString(pool[rng.Intn(len(pool))])
	}
	return b.Finish()
}

func intVec(rng *rand.Rand, n int, lo, hi int64) *coldata.Vec {
	v := coldata.NewVec(coldata.Int64, n)
	for i := range v.Ints {
		v.Ints[i] = lo + rng.Int63n(hi-lo)
	}
	return v
}

func floatVec(rng *rand.Rand, n int) *coldata.Vec {
	v := coldata.NewVec(coldata.Float64, n)
	for i := range v.Floats {
		v.Floats[i] = rng.NormFloat64() * 1000
	}
	return v
}

// groupData is the GROUP BY benchmark table: (skey VARCHAR ~1000 distinct,
// ikey BIGINT ~1000 distinct, wide BIGINT ~1M distinct, x BIGINT, f DOUBLE).
var groupData = sync.OnceValue(func() *coldata.Batch {
	rng := rand.New(rand.NewSource(7))
	pool := benchStrings(rng, 1000, "grp-")
	cols := []*coldata.Vec{
		stringVec(rng, benchRows, pool, 0),
		intVec(rng, benchRows, -500, 500),
		intVec(rng, benchRows, 0, 1_000_000),
		intVec(rng, benchRows, -1_000_000, 1_000_000),
		floatVec(rng, benchRows),
	}
	return coldata.NewBatch(cols, benchRows)
})

func benchAggregate(b *testing.B, keys []expr.Expr, aggs []opspec.AggSpec, wantGroups int) {
	data := groupData()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := countRows(b, &operators.HashAggregate{Input: &operators.Scan{Batches: []*coldata.Batch{data}, Cols: []int{0, 1, 2, 3, 4}}, Keys: keys, Aggs: aggs})
		if wantGroups > 0 && (n < wantGroups*9/10 || n > wantGroups) {
			b.Fatalf("%d groups, want about %d", n, wantGroups)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

func sumCountAvg() []opspec.AggSpec {
	x, f := colRef(3, tInt), colRef(4, tFloat)
	return []opspec.AggSpec{
		{Kind: opspec.AggSum, Arg: x, Type: tInt},
		{Kind: opspec.AggCountStar, Type: tInt},
		{Kind: opspec.AggAvg, Arg: f, Type: tFloat},
	}
}

// BenchmarkGroupByString: GROUP BY a string key of ~1000 values, SUM, COUNT(*), AVG over 10M rows.
func BenchmarkGroupByString(b *testing.B) {
	benchAggregate(b, []expr.Expr{colRef(0, tStr)}, sumCountAvg(), 1000)
}

// BenchmarkGroupByInt64: GROUP BY a BIGINT key of 1000 values.
func BenchmarkGroupByInt64(b *testing.B) {
	benchAggregate(b, []expr.Expr{colRef(1, tInt)}, sumCountAvg(), 1000)
}

// BenchmarkGroupByInt64Wide: GROUP BY a BIGINT key of ~1M values (the
// state no longer fits in cache).
func BenchmarkGroupByInt64Wide(b *testing.B) {
	benchAggregate(b, []expr.Expr{colRef(2, tInt)}, sumCountAvg(), 1_000_000)
}

// BenchmarkGroupByTwoKeys: GROUP BY (string, BIGINT), ~1M groups, through
// the general multi-column path.
func BenchmarkGroupByTwoKeys(b *testing.B) {
	benchAggregate(b, []expr.Expr{colRef(0, tStr), colRef(1, tInt)}, sumCountAvg(), 0)
}

// BenchmarkCountDistinct: COUNT(DISTINCT string key) and COUNT(DISTINCT
// wide BIGINT) without GROUP BY.
func BenchmarkCountDistinct(b *testing.B) {
	benchAggregate(b, nil, []opspec.AggSpec{
		{Kind: opspec.AggCount, Arg: colRef(0, tStr), Distinct: true, Type: tInt},
		{Kind: opspec.AggCount, Arg: colRef(2, tInt), Distinct: true, Type: tInt},
	}, 1)
}

// BenchmarkCountDistinctInt64: COUNT(DISTINCT wide BIGINT) without GROUP
// BY (ClickBench Q5's shape).
func BenchmarkCountDistinctInt64(b *testing.B) {
	benchAggregate(b, nil, []opspec.AggSpec{
		{Kind: opspec.AggCount, Arg: colRef(2, tInt), Distinct: true, Type: tInt},
	}, 1)
}

// BenchmarkGroupByCountDistinctInt64: GROUP BY a BIGINT key of 1000
// values with SUM, COUNT(*), AVG and COUNT(DISTINCT wide BIGINT)
// (ClickBench Q10's shape).
func BenchmarkGroupByCountDistinctInt64(b *testing.B) {
	aggs := append(sumCountAvg(), opspec.AggSpec{Kind: opspec.AggCount, Arg: colRef(2, tInt), Distinct: true, Type: tInt})
	benchAggregate(b, []expr.Expr{colRef(1, tInt)}, aggs, 1000)
}

// urlData is a table of 2M rows with one string column of ~500K distinct
// URL-like values of 40-90 bytes (ClickBench's GROUP BY URL).
var urlData = sync.OnceValue(func() *coldata.Batch {
	rng := rand.New(rand.NewSource(11))
	pool := benchStrings(rng, 500_000, "https://www.example.com/catalog/section/page?id=")
	const rows = 2_000_000
	return coldata.NewBatch([]*coldata.Vec{stringVec(rng, rows, pool, 0)}, rows)
})

// BenchmarkGroupByStringWide: GROUP BY a string key of ~500K long values
// with COUNT(*) (ClickBench Q34's shape): the table's key arena grows to
// tens of megabytes.
func BenchmarkGroupByStringWide(b *testing.B) {
	data := urlData()
	aggs := []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: tInt}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agg := &operators.HashAggregate{Input: &operators.Scan{Batches: []*coldata.Batch{data}, Cols: []int{0}}, Keys: []expr.Expr{colRef(0, tStr)}, Aggs: aggs}
		bs, err := operators.Drain(context.Background(), agg)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, x := range bs {
			n += x.Len
		}
		if n < 450_000 || n > 500_000 {
			b.Fatalf("%d groups, want about 500,000", n)
		}
	}
}

// BenchmarkCountStarNoGroups is SELECT COUNT(*) over 10M rows in 192
// batches (ClickBench Q1): the count adds batch lengths, not rows.
func BenchmarkCountStarNoGroups(b *testing.B) {
	const rows, batches = 10_000_000, 192
	var in []*coldata.Batch
	for i := 0; i < batches; i++ {
		in = append(in, &coldata.Batch{Len: rows / batches})
	}
	b.SetBytes(rows)
	for i := 0; i < b.N; i++ {
		h := &operators.HashAggregate{Input: &operators.Materialized{Batches: in}, Aggs: []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}}}
		if err := h.Open(context.Background()); err != nil {
			b.Fatal(err)
		}
		out, err := h.Next(context.Background())
		if err != nil || out.Cols[0].Ints[0] != rows/batches*batches {
			b.Fatalf("%v %v", err, out)
		}
		h.Close()
	}
}

// BenchmarkSumNoGroups is SUM(BIGINT), COUNT(*), AVG(DOUBLE) over 10M
// rows without GROUP BY (ClickBench Q3's shape).
func BenchmarkSumNoGroups(b *testing.B) {
	benchAggregate(b, nil, sumCountAvg(), 1)
}

// fewGroupsData is TPC-H Q1's shape at 10M rows: two one-letter string
// keys making 4 groups, and three DECIMAL(12,2) columns.
var fewGroupsData = sync.OnceValue(func() *coldata.Batch {
	rng := rand.New(rand.NewSource(13))
	flags, status := []string{"A", "N", "R"}, []string{"F", "O"}
	fb, sb := coldata.NewBuilder(coldata.String, benchRows), coldata.NewBuilder(coldata.String, benchRows)
	for i := 0; i < benchRows; i++ {
		s := rng.Intn(2)
		f := 1 // N-O, or A-F, N-F, R-F
		if s == 0 {
			f = rng.Intn(3)
		}
		fb.AppendString(flags[f])
		sb.AppendString(status[s])
	}
	cols := []*coldata.Vec{fb.Finish(), sb.Finish()}
	for _, hi := range []int64{5000, 10_000_000, 10} {
		v := coldata.NewVec(decType, benchRows)
		for i := range v.Decs {
			v.Decs[i] = decimal.FromInt64(1 + rng.Int63n(hi))
		}
		cols = append(cols, v)
	}
	return coldata.NewBatch(cols, benchRows)
})

var decType = coldata.DecimalOf(12, 2)

// BenchmarkGroupByFewDecimal is TPC-H Q1's aggregate: GROUP BY two string
// keys (4 groups) with SUM and AVG of three DECIMAL columns and COUNT(*),
// over 10M rows.
func BenchmarkGroupByFewDecimal(b *testing.B) {
	data := fewGroupsData()
	sum, avg := expr.DecimalSumType(decType), expr.DecimalAvgType(decType)
	var aggs []opspec.AggSpec
	for c := 2; c < 5; c++ {
		aggs = append(aggs, opspec.AggSpec{Kind: opspec.AggSum, Arg: colRef(c, decType), Type: sum},
			opspec.AggSpec{Kind: opspec.AggAvg, Arg: colRef(c, decType), Type: avg})
	}
	aggs = append(aggs, opspec.AggSpec{Kind: opspec.AggCountStar, Type: tInt})
	keys := []expr.Expr{colRef(0, tStr), colRef(1, tStr)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agg := &operators.HashAggregate{Input: &operators.Scan{Batches: []*coldata.Batch{data}, Cols: []int{0, 1, 2, 3, 4}}, Keys: keys, Aggs: aggs}
		bs, err := operators.Drain(context.Background(), agg)
		if err != nil {
			b.Fatal(err)
		}
		if n := bs[0].Len; n != 4 {
			b.Fatalf("%d groups, want 4", n)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}
