package operators

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

func TestSlicePool(t *testing.T) {
	p := &slicePool[uint64]{size: 8}
	for _, tc := range []struct {
		name    string
		n       int
		wantCap int // 0: exactly n (not pooled)
	}{
		{name: "small", n: 100},
		{name: "below the minimum", n: poolMinBytes/8 - 1},
		{name: "minimum", n: poolMinBytes / 8, wantCap: poolMinBytes / 8},
		{name: "rounded up", n: poolMinBytes/8 + 1, wantCap: poolMinBytes / 4},
		{name: "large", n: 3 << 20, wantCap: 4 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := p.get(tc.n)
			want := tc.wantCap
			if want == 0 {
				want = tc.n
			}
			if len(s) != tc.n || cap(s) != want {
				t.Fatalf("get(%d): len %d cap %d, want len %d cap %d", tc.n, len(s), cap(s), tc.n, want)
			}
			z := p.getZeroed(tc.n)
			for i, x := range z {
				if x != 0 {
					t.Fatalf("getZeroed: element %d is %d", i, x)
				}
			}
		})
	}

	// A slice put back is handed out again (sync.Pool may drop it, e.g. on
	// a collection, so retry a few times), truncated to the new length.
	reused := false
	for try := 0; try < 10 && !reused; try++ {
		s := p.get(1 << 16)
		s[0] = 42
		p.put(s)
		u := p.get(1<<16 - 5)
		reused = &u[0] == &s[0] && len(u) == 1<<16-5 && cap(u) == 1<<16
	}
	if !reused {
		t.Fatalf("a pooled slice was never handed out again")
	}

	// grow keeps the contents and the length, and doubles.
	s := p.get(1 << 13)[:0]
	for i := 0; i < 100_000; i++ {
		s = append(p.grow(s, 1), uint64(i))
	}
	for i, x := range s {
		if x != uint64(i) {
			t.Fatalf("after grow: element %d is %d", i, x)
		}
	}
	if cap(s) != 1<<17 {
		t.Fatalf("cap %d after growing to 100,000 elements, want %d", cap(s), 1<<17)
	}

	// Slices of a capacity that is not a power of two are not kept.
	p.put(make([]uint64, 3<<14))
	if s := p.get(3 << 14); cap(s) != 1<<16 {
		t.Fatalf("get after putting an odd capacity: cap %d, want %d", cap(s), 1<<16)
	}
}

// TestAggregatePooledBuffersStayPrivate runs GROUP BYs (the single table,
// the partitioned path, DISTINCT pair sets, string and integer keys)
// large enough for their buffers to come from and go back to the pools,
// on several goroutines at once, and checks every result against the
// same query run alone; and that a finished aggregate's output, whose key
// columns alias its table, survives the queries that follow. A buffer
// pooled while still referenced, or put back twice, would show up as a
// result that changes under the other queries.
func TestAggregatePooledBuffersStayPrivate(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	batches := partTestBatches(rand.New(rand.NewSource(7)), 8, 40000, 60000, false)
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: partCol(4, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggAvg, Arg: partCol(5, coldata.Float64), Type: coldata.Float64},
		{Kind: opspec.AggMin, Arg: partCol(1, coldata.String), Type: coldata.String},
	}
	distinct := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggCount, Arg: partCol(4, coldata.Int64), Distinct: true, Type: coldata.Int64},
	}
	type query struct {
		name      string
		keys      []expr.Expr
		aggs      []opspec.AggSpec
		threshold int // 0: the single table
	}
	queries := []query{
		{name: "int single", keys: []expr.Expr{partCol(0, coldata.Int64)}, aggs: aggs},
		{name: "int parts", keys: []expr.Expr{partCol(0, coldata.Int64)}, aggs: aggs, threshold: 1},
		{name: "string parts", keys: []expr.Expr{partCol(1, coldata.String)}, aggs: aggs, threshold: 7000},
		{name: "int,string parts", keys: []expr.Expr{partCol(0, coldata.Int64), partCol(1, coldata.String)}, aggs: aggs, threshold: 1},
		{name: "float,int parts", keys: []expr.Expr{partCol(2, coldata.Float64), partCol(0, coldata.Int64)}, aggs: aggs, threshold: 1},
		{name: "distinct by string", keys: []expr.Expr{partCol(1, coldata.String)}, aggs: distinct},
		{name: "distinct", aggs: distinct},
	}
	run := func(q query) ([]*coldata.Batch, error) {
		out, merged, err := runPartAgg(batches, q.keys, q.aggs, q.threshold, 0)
		if err == nil && merged != (q.threshold > 0) {
			err = fmt.Errorf("partitioned path ran: %v, want %v", merged, q.threshold > 0)
		}
		return out, err
	}
	want := make([][]*coldata.Batch, len(queries))
	for i, q := range queries {
		out, err := run(q)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		want[i] = out
	}
	// The first results again, kept while everything below runs.
	kept, err := run(queries[1])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for it := 0; it < 2; it++ {
				for k := range queries {
					i := (k + w) % len(queries)
					got, err := run(queries[i])
					if err != nil {
						errs <- fmt.Errorf("%s: %v", queries[i].name, err)
						return
					}
					if err := diffBatches(got, want[i]); err != nil {
						errs <- fmt.Errorf("%s (worker %d, round %d): %v", queries[i].name, w, it, err)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := diffBatches(kept, want[1]); err != nil {
		t.Errorf("an output kept across later queries changed: %v", err)
	}
}

// diffBatches is sameBatches returning the first difference.
func diffBatches(got, want []*coldata.Batch) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d batches, want %d", len(got), len(want))
	}
	for bi := range got {
		g, w := got[bi], want[bi]
		if g.Len != w.Len || len(g.Cols) != len(w.Cols) {
			return fmt.Errorf("batch %d: %d rows x %d cols, want %d x %d", bi, g.Len, len(g.Cols), w.Len, len(w.Cols))
		}
		for c := range g.Cols {
			for r := 0; r < g.Len; r++ {
				gv, wv := g.Cols[c].Value(r), w.Cols[c].Value(r)
				if gf, ok := gv.(float64); ok {
					if wf, ok := wv.(float64); ok && math.Float64bits(gf) == math.Float64bits(wf) {
						continue
					}
				}
				if gv != wv && fmt.Sprint(gv) != fmt.Sprint(wv) {
					return fmt.Errorf("row %d col %d: %v, want %v", r, c, gv, wv)
				}
			}
		}
	}
	return nil
}

// BenchmarkGroupByRepeated runs the same GROUP BY (1M rows, ~500K int64
// groups, partitioned) again and again, as a bench or a dashboard does:
// with pooled buffers, runs after the first reuse the memory the first
// touched (B/op shows what each run still allocates).
func BenchmarkGroupByRepeated(b *testing.B) {
	const rows = 1 << 20
	rng := rand.New(rand.NewSource(1))
	var batches []*coldata.Batch
	for lo := 0; lo < rows; lo += opspec.BatchSize {
		k := coldata.NewBuilder(coldata.Int64, opspec.BatchSize)
		v := coldata.NewBuilder(coldata.Int64, opspec.BatchSize)
		for i := 0; i < opspec.BatchSize; i++ {
			k.AppendInt(rng.Int63n(rows / 2))
			v.AppendInt(rng.Int63n(1000))
		}
		batches = append(batches, coldata.NewBatch([]*coldata.Vec{k.Finish(), v.Finish()}, opspec.BatchSize))
	}
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
		{Kind: opspec.AggSum, Arg: partCol(1, coldata.Int64), Type: coldata.Int64},
		{Kind: opspec.AggAvg, Arg: partCol(1, coldata.Int64), Type: coldata.Float64},
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h := &HashAggregate{Input: &Materialized{Batches: batches}, Keys: []expr.Expr{partCol(0, coldata.Int64)}, Aggs: aggs}
		if _, err := Drain(context.Background(), h); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAggregateCountSumAvgColumns checks the outputs countSumAvg builds
// straight from the states: counts, BIGINT and DOUBLE sums and averages,
// NULL for a group whose values are all NULL, and the aggregates it
// leaves to the builder (MIN) next to them.
func TestAggregateCountSumAvgColumns(t *testing.T) {
	keys := coldata.NewBuilder(coldata.Int64, 6)
	ints := coldata.NewBuilder(coldata.Int64, 6)
	floats := coldata.NewBuilder(coldata.Float64, 6)
	for _, r := range []struct {
		k int64
		i any
		f any
	}{{1, nil, nil}, {2, int64(5), 1.5}, {1, nil, nil}, {2, int64(-2), nil}, {3, int64(7), 0.25}, {2, nil, 3.0}} {
		keys.AppendInt(r.k)
		if r.i == nil {
			ints.AppendNull()
		} else {
			ints.AppendInt(r.i.(int64))
		}
		if r.f == nil {
			floats.AppendNull()
		} else {
			floats.AppendFloat(r.f.(float64))
		}
	}
	in := coldata.NewBatch([]*coldata.Vec{keys.Finish(), ints.Finish(), floats.Finish()}, 6)
	h := &HashAggregate{Input: &Materialized{Batches: []*coldata.Batch{in}}, Keys: []expr.Expr{partCol(0, coldata.Int64)},
		Aggs: []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggCount, Arg: partCol(1, coldata.Int64), Type: coldata.Int64},
			{Kind: opspec.AggSum, Arg: partCol(1, coldata.Int64), Type: coldata.Int64},
			{Kind: opspec.AggSum, Arg: partCol(2, coldata.Float64), Type: coldata.Float64},
			{Kind: opspec.AggAvg, Arg: partCol(1, coldata.Int64), Type: coldata.Float64},
			{Kind: opspec.AggAvg, Arg: partCol(2, coldata.Float64), Type: coldata.Float64},
			{Kind: opspec.AggMin, Arg: partCol(1, coldata.Int64), Type: coldata.Int64},
		}}
	out, err := Drain(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(1), int64(2), int64(0), nil, nil, nil, nil, nil},
		{int64(2), int64(3), int64(2), int64(3), 4.5, 1.5, 2.25, int64(-2)},
		{int64(3), int64(1), int64(1), int64(7), 0.25, 7.0, 0.25, int64(7)},
	}
	if len(out) != 1 || out[0].Len != len(want) {
		t.Fatalf("got %d batches, want one of %d rows", len(out), len(want))
	}
	for r, row := range want {
		for c, w := range row {
			if got := out[0].Cols[c].Value(r); got != w {
				t.Errorf("row %d col %d: %v (%T), want %v (%T)", r, c, got, got, w, w)
			}
		}
	}
}
