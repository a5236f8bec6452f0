package operators_test

import (
	"context"
	"math/rand"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// joinBuildRows is the size of the join benchmarks' build side.
const joinBuildRows = 1_000_000

// joinData holds the join benchmark tables: build (ikey BIGINT unique,
// skey VARCHAR unique, payload BIGINT) and probe (ikey, skey, x BIGINT)
// whose keys hit the build side 80% of the time.
type joinData struct {
	build, probe *coldata.Batch
	matches      int
}

var joinTables = sync.OnceValue(func() *joinData {
	rng := rand.New(rand.NewSource(11))
	// Keys 0..1.25M-1; the build side holds a shuffled 1M of them.
	const domain = joinBuildRows * 5 / 4
	names := benchStrings(rng, domain, "key-")
	perm := rng.Perm(domain)
	in := make([]bool, domain)
	bi, bs := coldata.NewVec(tInt, joinBuildRows), coldata.NewBuilder(tStr, joinBuildRows)
	for i := 0; i < joinBuildRows; i++ {
		k := perm[i]
		in[k] = true
		bi.Ints[i] = int64(k)*7919 - 3_000_000 // spread, negative too
		bs.AppendString(names[k])
	}
	build := coldata.NewBatch([]*coldata.Vec{bi, bs.Finish(), intVec(rng, joinBuildRows, 0, 1<<40)}, joinBuildRows)
	pi, ps := coldata.NewVec(tInt, benchRows), coldata.NewBuilder(tStr, benchRows)
	matches := 0
	for i := 0; i < benchRows; i++ {
		k := rng.Intn(domain)
		if in[k] {
			matches++
		}
		pi.Ints[i] = int64(k)*7919 - 3_000_000
		ps.AppendString(names[k])
	}
	probe := coldata.NewBatch([]*coldata.Vec{pi, ps.Finish(), intVec(rng, benchRows, 0, 1000)}, benchRows)
	return &joinData{build: build, probe: probe, matches: matches}
})

// benchJoin runs an inner join of the 10M probe rows against the 1M build
// rows on key column kc, producing the probe's key and x and the build's
// payload.
func benchJoin(b *testing.B, kc int, kt coldata.Type) {
	d := joinTables()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := &operators.HashJoin{
			Left:     &operators.Scan{Batches: []*coldata.Batch{d.probe}, Cols: []int{kc, 2}},
			Right:    &operators.Scan{Batches: []*coldata.Batch{d.build}, Cols: []int{kc, 2}},
			LeftKeys: []expr.Expr{colRef(0, kt)}, RightKeys: []expr.Expr{colRef(0, kt)},
			Kind: opspec.InnerJoin, LeftCols: 2, RightTypes: []coldata.Type{kt, tInt},
		}
		n := countRows(b, j)
		if n != d.matches {
			b.Fatalf("%d rows, want %d", n, d.matches)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// BenchmarkHashJoinInt64: 10M probe rows against 1M build rows on a BIGINT key.
func BenchmarkHashJoinInt64(b *testing.B) { benchJoin(b, 0, tInt) }

// BenchmarkHashJoinString: 10M probe rows against 1M build rows on a VARCHAR key.
func BenchmarkHashJoinString(b *testing.B) { benchJoin(b, 1, tStr) }

// BenchmarkSemiJoinFewKeysLeftHashed: a semi join whose small left side
// (20,000 rows over 200 keys) is hashed and marked by 2M right rows of
// the same keys: each right row meets a key of 100 left rows.
func BenchmarkSemiJoinFewKeysLeftHashed(b *testing.B) {
	const keys, leftRows, rightRows = 200, 20_000, 2_000_000
	mk := func(n int) *coldata.Batch {
		v := coldata.NewVec(tInt, n)
		for i := range v.Ints {
			v.Ints[i] = int64(i % keys)
		}
		return coldata.NewBatch([]*coldata.Vec{v}, n)
	}
	left := mk(leftRows)
	var right []*coldata.Batch
	for i := 0; i < rightRows/opspec.BatchSize; i++ {
		right = append(right, mk(opspec.BatchSize))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := &operators.HashJoin{
			Left:     &operators.Scan{Batches: []*coldata.Batch{left}, Cols: []int{0}},
			Right:    &operators.Scan{Batches: right, Cols: []int{0}},
			LeftKeys: []expr.Expr{colRef(0, tInt)}, RightKeys: []expr.Expr{colRef(0, tInt)},
			Kind: opspec.SemiJoin, LeftCols: 1, RightTypes: []coldata.Type{tInt},
		}
		n := countRows(b, j)
		if n != leftRows {
			b.Fatalf("%d rows, want %d", n, leftRows)
		}
	}
}

// countRows opens op, drains it and returns the rows it produced: the
// benchmarks' check that an operator did its whole work.
func countRows(b *testing.B, op operators.Operator) int {
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		b.Fatal(err)
	}
	defer op.Close()
	n := 0
	for {
		out, err := op.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if out == nil {
			return n
		}
		n += out.Len
	}
}
