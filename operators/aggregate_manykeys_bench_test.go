package operators_test

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// manyKeysData is a SELECT DISTINCT over seven lineitem-like columns
// (random suite r050's shape): three BIGINTs that make almost every row
// its own group and four short low-cardinality strings, 400K rows in
// batches of 64K.
var manyKeysData = sync.OnceValue(func() []*coldata.Batch {
	rng := rand.New(rand.NewSource(11))
	const rows, batch = 400_000, 1 << 16
	pools := [][]string{
		{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"},
		{"AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB", "REG AIR"},
		{"O", "F"},
		{"A", "N", "R"},
	}
	var out []*coldata.Batch
	for lo := 0; lo < rows; lo += batch {
		n := min(batch, rows-lo)
		cols := []*coldata.Vec{intVec(rng, n, 0, 150_000), intVec(rng, n, 0, 20_000), intVec(rng, n, 0, 1_000)}
		for _, p := range pools {
			cols = append(cols, stringVec(rng, n, p, 0))
		}
		out = append(out, coldata.NewBatch(cols, n))
	}
	return out
})

// BenchmarkGroupBySevenKeys groups manyKeysData by all seven columns.
func BenchmarkGroupBySevenKeys(b *testing.B) {
	data := manyKeysData()
	keys := []expr.Expr{colRef(0, tInt), colRef(1, tInt), colRef(2, tInt)}
	for c := 3; c < 7; c++ {
		keys = append(keys, &expr.ColumnRef{Index: c, T: coldata.String})
	}
	rows := 0
	for _, d := range data {
		rows += d.Len
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := countRows(b, &operators.HashAggregate{Input: &operators.Materialized{Batches: data}, Keys: keys})
		if n < rows*9/10 {
			b.Fatalf("%d groups of %d rows", n, rows)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// partKeyData is a GROUP BY l_partkey's input (issue 40): 342K rows in
// batches of 64K, the key one of 20K part keys spread over 0..200K in
// random order, and an l_quantity-like BIGINT.
var partKeyData = sync.OnceValue(func() []*coldata.Batch {
	rng := rand.New(rand.NewSource(17))
	const rows, batch, groups = 342_000, 1 << 16, 20_000
	parts := rng.Perm(200_000)[:groups]
	var out []*coldata.Batch
	for lo := 0; lo < rows; lo += batch {
		n := min(batch, rows-lo)
		key := coldata.NewVec(coldata.Int64, n)
		for i := range key.Ints {
			key.Ints[i] = int64(parts[rng.Intn(groups)])
		}
		out = append(out, coldata.NewBatch([]*coldata.Vec{key, intVec(rng, n, 1, 51)}, n))
	}
	return out
})

// BenchmarkGroupByPartKey groups partKeyData by its key with SUM and
// COUNT(*): 20K groups, whose table stays in the second-level cache.
func BenchmarkGroupByPartKey(b *testing.B) {
	data := partKeyData()
	aggs := []opspec.AggSpec{{Kind: opspec.AggSum, Arg: colRef(1, tInt), Type: tInt}, {Kind: opspec.AggCountStar, Type: tInt}}
	rows := 0
	for _, d := range data {
		rows += d.Len
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := countRows(b, &operators.HashAggregate{Input: &operators.Materialized{Batches: data}, Keys: []expr.Expr{colRef(0, tInt)}, Aggs: aggs})
		if n < 19_000 || n > 20_000 {
			b.Fatalf("%d groups, want about 20,000", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
}
