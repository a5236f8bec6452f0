package operators_test

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
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
