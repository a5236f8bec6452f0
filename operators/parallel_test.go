package operators_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

func parallelInput(rows int) *operators.Scan {
	a := coldata.NewBuilder(coldata.Int64, rows)
	s := coldata.NewBuilder(coldata.String, rows)
	for i := 0; i < rows; i++ {
		a.AppendInt(int64(i))
		if i%7 == 0 {
			s.AppendNull()
		} else {
			s.AppendString(fmt.Sprintf("row %d", i))
		}
	}
	b := &coldata.Batch{Cols: []*coldata.Vec{a.Finish(), s.Finish()}, Len: rows}
	return &operators.Scan{Batches: []*coldata.Batch{b}, Cols: []int{0, 1}}
}

func bind(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	f, ok := expr.Lookup(name)
	if !ok {
		t.Fatalf("no %s", name)
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestParallelComputeMatchesSequential(t *testing.T) {
	a := &expr.ColumnRef{Index: 0, Name: "a", T: coldata.Int64}
	s := &expr.ColumnRef{Index: 1, Name: "s", T: coldata.String}
	// Keep rows whose a is not a multiple of 3, in batches some of which
	// lose every row (a < 70000 also drops the second batch's tail).
	pred := bind(t, "and", bind(t, "<>", bind(t, "%", a, &expr.Literal{Value: int64(3), T: coldata.Int64}), &expr.Literal{Value: int64(0), T: coldata.Int64}),
		bind(t, "or", bind(t, "<", a, &expr.Literal{Value: int64(70000), T: coldata.Int64}), bind(t, ">", a, &expr.Literal{Value: int64(200000), T: coldata.Int64})))
	exprs := []expr.Expr{bind(t, "upper", s), bind(t, "*", a, &expr.Literal{Value: int64(2), T: coldata.Int64})}
	rows := 5*opspec.BatchSize + 123
	ctx := context.Background()
	want, err := operators.Drain(ctx, &operators.Project{Input: &operators.Filter{Input: parallelInput(rows), Pred: pred}, Exprs: exprs})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 4} {
		got, err := operators.Drain(ctx, &operators.ParallelCompute{Input: parallelInput(rows), Pred: pred, Exprs: exprs, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		w, g := coldata.Concat(want, 2), coldata.Concat(got, 2)
		if w.Len != g.Len {
			t.Fatalf("workers=%d: %d rows, want %d", workers, g.Len, w.Len)
		}
		for c := 0; c < 2; c++ {
			for i := 0; i < w.Len; i++ {
				if w.Cols[c].Value(i) != g.Cols[c].Value(i) {
					t.Fatalf("workers=%d row %d col %d: %v, want %v", workers, i, c, g.Cols[c].Value(i), w.Cols[c].Value(i))
				}
			}
		}
	}
}

func TestParallelComputeCancelAndClose(t *testing.T) {
	s := &expr.ColumnRef{Index: 1, Name: "s", T: coldata.String}
	p := &operators.ParallelCompute{Input: parallelInput(8 * opspec.BatchSize), Exprs: []expr.Expr{bind(t, "reverse", s)}, Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if b, err := p.Next(ctx); err != nil || b == nil {
		t.Fatalf("first batch: %v %v", b, err)
	}
	cancel()
	for {
		b, err := p.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			break
		}
		if b == nil {
			t.Fatal("ended without the cancellation error")
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing early, without reading, must not leak or block.
	q := &operators.ParallelCompute{Input: parallelInput(8 * opspec.BatchSize), Exprs: []expr.Expr{bind(t, "reverse", s)}, Workers: 2}
	if err := q.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}

// A filter under a sort with a small LIMIT passes its kept rows as
// selections (SelectRowsOf) when its outputs are several plain columns
// besides the sort's keys: the rows are those of the gathering filter
// under the same sort, its Next still gathers, and the instrumented rows
// count the kept rows; an output with few other columns, or a computed
// one, keeps gathering.
func TestSortOverSelectingFilter(t *testing.T) {
	ctx := context.Background()
	a := &expr.ColumnRef{Index: 0, Name: "a", T: coldata.Int64}
	s := &expr.ColumnRef{Index: 1, Name: "s", T: coldata.String}
	pred := bind(t, "<>", bind(t, "%", a, &expr.Literal{Value: int64(5), T: coldata.Int64}), &expr.Literal{Value: int64(0), T: coldata.Int64})
	// Six outputs: the sort key (s, descending) and five others.
	exprs := []expr.Expr{s, a, s, a, a, s}
	keys := []opspec.SortKey{{Col: 0, Desc: true}}
	rows := 3*opspec.BatchSize + 77
	sorted := func(selecting bool) ([]*coldata.Batch, *operators.Stats) {
		pc := &operators.ParallelCompute{Input: parallelInput(rows), Pred: pred, Exprs: exprs, Workers: 2}
		st := &operators.Stats{}
		in := operators.Instrument(pc, st)
		if selecting && !operators.SelectRowsOf(in, keys) {
			t.Fatal("SelectRowsOf refused six plain columns")
		}
		got, err := operators.Drain(ctx, &operators.Sort{Input: in, Keys: keys, NCols: len(exprs), Limit: 9})
		if err != nil {
			t.Fatal(err)
		}
		return got, st
	}
	want, _ := sorted(false)
	got, st := sorted(true)
	w, g := coldata.Concat(want, len(exprs)), coldata.Concat(got, len(exprs))
	if w.Len != 9 || g.Len != 9 {
		t.Fatalf("%d and %d rows, want 9", w.Len, g.Len)
	}
	for c := range exprs {
		for i := 0; i < w.Len; i++ {
			if w.Cols[c].Value(i) != g.Cols[c].Value(i) {
				t.Fatalf("row %d col %d: %v, want %v", i, c, g.Cols[c].Value(i), w.Cols[c].Value(i))
			}
		}
	}
	if kept := int64(rows - (rows+4)/5); st.Rows.Load() != kept {
		t.Fatalf("instrumented rows %d, want the %d kept", st.Rows.Load(), kept)
	}
	// Next of a selecting filter gathers.
	pc := &operators.ParallelCompute{Input: parallelInput(rows), Pred: pred, Exprs: exprs, Workers: 2}
	operators.SelectRowsOf(pc, keys)
	all, err := operators.Drain(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	if n := coldata.Concat(all, len(exprs)).Len; n != rows-(rows+4)/5 {
		t.Fatalf("a selecting filter's Next passed %d rows", n)
	}
	for _, c := range []struct {
		name  string
		exprs []expr.Expr
	}{
		{"few other columns", []expr.Expr{s, a, a}},
		{"a computed column", []expr.Expr{s, a, a, a, a, bind(t, "upper", s)}},
	} {
		if operators.SelectRowsOf(&operators.ParallelCompute{Input: parallelInput(10), Pred: pred, Exprs: c.exprs}, keys) {
			t.Errorf("%s: selecting", c.name)
		}
	}
}

// TestComputeRecyclesOnlyDeadVectors runs TPC-H Q1's computation (a
// filter, then price, price*(1-disc) and that times (1+tax); tax is read
// only by the computed expression, so its gathered copy is recycled, as
// are 1-disc and 1+tax) through ParallelCompute and Filter+Project, keeps
// every output batch, and compares each row with int64 arithmetic on the
// source data, which must come out unchanged: a buffer recycled while an
// output or the input still used it would be overwritten by later
// batches.
func TestComputeRecyclesOnlyDeadVectors(t *testing.T) {
	rows := 6*opspec.BatchSize + 77
	d := coldata.DecimalOf(15, 2)
	cols := []*coldata.Vec{coldata.NewVec(coldata.Int64, rows), coldata.NewVec(d, rows), coldata.NewVec(d, rows), coldata.NewVec(d, rows)}
	for i := 0; i < rows; i++ {
		cols[0].Ints[i] = int64(i % 97)
		cols[1].Decs[i] = decimal.FromInt64(int64(100000 + i*7%1000003))
		cols[2].Decs[i] = decimal.FromInt64(int64(i % 11))
		cols[3].Decs[i] = decimal.FromInt64(int64(i % 9))
	}
	src := &coldata.Batch{Cols: cols, Len: rows}
	snapshot := func() string { return fmt.Sprint(cols[1].Decs[:50], cols[2].Decs[rows-50:], cols[3].Decs[1000:1050]) }
	before := snapshot()
	day := &expr.ColumnRef{Index: 0, Name: "day", T: coldata.Int64}
	price := &expr.ColumnRef{Index: 1, Name: "price", T: d}
	disc := &expr.ColumnRef{Index: 2, Name: "disc", T: d}
	tax := &expr.ColumnRef{Index: 3, Name: "tax", T: d}
	one := &expr.Literal{Value: int64(1), T: coldata.Int64}
	discPrice := bind(t, "*", price, bind(t, "-", one, disc))
	exprs := []expr.Expr{price, discPrice, bind(t, "*", discPrice, bind(t, "+", one, tax))}
	pred := bind(t, "<", day, &expr.Literal{Value: int64(95), T: coldata.Int64}) // keeps 95 rows in 97
	ctx := context.Background()
	scan := func() operators.Operator {
		return &operators.Scan{Batches: []*coldata.Batch{src}, Cols: []int{0, 1, 2, 3}}
	}
	check := func(name string, out []*coldata.Batch) {
		t.Helper()
		g := coldata.Concat(out, 3)
		k := 0
		for i := 0; i < rows; i++ {
			if cols[0].Ints[i] >= 95 {
				continue
			}
			p, dc, tx := int64(cols[1].Decs[i].Lo), int64(cols[2].Decs[i].Lo), int64(cols[3].Decs[i].Lo)
			want := []int64{p, p * (100 - dc), p * (100 - dc) * (100 + tx)}
			for c, w := range want {
				if got := g.Cols[c].Dec(k); got != decimal.FromInt64(w) {
					t.Fatalf("%s: row %d column %d: %s, want %d", name, k, c, got.String(0), w)
				}
			}
			k++
		}
		if k != g.Len {
			t.Fatalf("%s: %d rows, want %d", name, g.Len, k)
		}
	}
	for _, workers := range []int{1, 2, 4} {
		got, err := operators.Drain(ctx, &operators.ParallelCompute{Input: scan(), Pred: pred, Exprs: exprs, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("workers=%d", workers), got)
	}
	got, err := operators.Drain(ctx, &operators.Project{Input: &operators.Filter{Input: scan(), Pred: pred}, Exprs: exprs})
	if err != nil {
		t.Fatal(err)
	}
	check("filter+project", got)
	if snapshot() != before {
		t.Fatalf("the source data changed")
	}
}

// A HashAggregate over a ParallelCompute hands each consumed batch back,
// and the buffers that batch owned serve the next batches: the answers
// equal those over a Filter and a Project, and the source columns (passed
// through unfiltered, or read by computed outputs) never change.
func TestAggregateReleasesParallelComputeBatches(t *testing.T) {
	rows := 7*opspec.BatchSize + 301
	d := coldata.DecimalOf(15, 2)
	cols := []*coldata.Vec{coldata.NewVec(coldata.Int64, rows), coldata.NewVec(d, rows), coldata.NewVec(coldata.Int64, rows), coldata.NewVec(coldata.Float64, rows)}
	for i := 0; i < rows; i++ {
		cols[0].Ints[i] = int64(i*31%1009) % 13
		cols[1].Decs[i] = decimal.FromInt64(int64(1000 + i*7%100003))
		cols[2].Ints[i] = int64(i%101) - 50
		cols[3].Floats[i] = float64(i%89) / 4
	}
	src := &coldata.Batch{Cols: cols, Len: rows}
	copies := make([]*coldata.Vec, len(cols))
	for c, v := range cols {
		copies[c] = coldata.Concat([]*coldata.Batch{{Cols: []*coldata.Vec{v}, Len: rows}}, 1).Cols[0]
	}
	k := &expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}
	price := &expr.ColumnRef{Index: 1, Name: "price", T: d}
	n := &expr.ColumnRef{Index: 2, Name: "n", T: coldata.Int64}
	f := &expr.ColumnRef{Index: 3, Name: "f", T: coldata.Float64}
	two := &expr.Literal{Value: int64(2), T: coldata.Int64}
	exprs := []expr.Expr{k, price, bind(t, "*", price, two), n, bind(t, "+", n, two), f, bind(t, "*", f, f)}
	out := func(i int) expr.Expr { return &expr.ColumnRef{Index: i, T: exprs[i].Type()} }
	aggs := []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: coldata.Int64}}
	for i := 1; i < len(exprs); i++ {
		kind := opspec.AggSum
		if exprs[i].Type() == coldata.Float64 {
			kind = opspec.AggMax // exact in any order
		}
		aggs = append(aggs, opspec.AggSpec{Kind: kind, Arg: out(i), Type: opspec.AggResultType(kind, exprs[i].Type())})
	}
	ctx := context.Background()
	scan := func() operators.Operator {
		return &operators.Scan{Batches: []*coldata.Batch{src}, Cols: []int{0, 1, 2, 3}}
	}
	answer := func(in operators.Operator) string {
		t.Helper()
		got, err := operators.Drain(ctx, &operators.HashAggregate{Input: in, Keys: []expr.Expr{out(0)}, Aggs: aggs})
		if err != nil {
			t.Fatal(err)
		}
		return sortedRows(got, len(aggs)+1)
	}
	for _, pred := range []expr.Expr{nil, bind(t, "<>", n, &expr.Literal{Value: int64(7), T: coldata.Int64})} {
		var want string
		if pred == nil {
			want = answer(&operators.Project{Input: scan(), Exprs: exprs})
		} else {
			want = answer(&operators.Project{Input: &operators.Filter{Input: scan(), Pred: pred}, Exprs: exprs})
		}
		for _, workers := range []int{1, 3} {
			for rep := 0; rep < 2; rep++ {
				if got := answer(&operators.ParallelCompute{Input: scan(), Pred: pred, Exprs: exprs, Workers: workers}); got != want {
					t.Fatalf("pred %v, workers %d: got\n%s\nwant\n%s", pred != nil, workers, got, want)
				}
			}
		}
	}
	for c := range cols {
		for i := 0; i < rows; i++ {
			if fmt.Sprint(cols[c].Value(i)) != fmt.Sprint(copies[c].Value(i)) {
				t.Fatalf("source column %d row %d changed: %v, was %v", c, i, cols[c].Value(i), copies[c].Value(i))
			}
		}
	}
}

// Batches flow back through a join too: an aggregate hands the join's
// gathered output back, and the join hands back each ParallelCompute
// batch it probed. The answers equal those of the same join drained
// first (nothing handed back), on one goroutine and probing in parallel,
// for every join kind, and the source columns never change.
func TestAggregateReleasesThroughJoin(t *testing.T) {
	rows := 5*opspec.BatchSize + 77
	d := coldata.DecimalOf(15, 2)
	cols := []*coldata.Vec{coldata.NewVec(coldata.Int64, rows), coldata.NewVec(d, rows), coldata.NewVec(coldata.Int64, rows)}
	for i := 0; i < rows; i++ {
		cols[0].Ints[i] = int64(i*7919) % 1500
		cols[1].Decs[i] = decimal.FromInt64(int64(1 + i*13%99991))
		cols[2].Ints[i] = int64(i % 23)
	}
	// Build keys 0, 2, 4, ... (half the probe keys match), then every
	// key (a semi join passes each probe batch on whole).
	const nb = 1500
	bk, bv := coldata.NewVec(coldata.Int64, nb), coldata.NewVec(coldata.Int64, nb)
	for i := 0; i < nb; i++ {
		bk.Ints[i], bv.Ints[i] = int64(2*i), int64(i%17)
	}
	src := &coldata.Batch{Cols: cols, Len: rows}
	var build *coldata.Batch
	var before string
	k := &expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}
	price := &expr.ColumnRef{Index: 1, Name: "price", T: d}
	n := &expr.ColumnRef{Index: 2, Name: "n", T: coldata.Int64}
	exprs := []expr.Expr{k, bind(t, "*", price, &expr.Literal{Value: int64(3), T: coldata.Int64}), n}
	pred := bind(t, "<>", n, &expr.Literal{Value: int64(5), T: coldata.Int64})
	ctx := context.Background()
	rightTypes := []coldata.Type{coldata.Int64, coldata.Int64}
	join := func(kind opspec.JoinKind, parallel bool) operators.Operator {
		left := &operators.ParallelCompute{Input: &operators.Scan{Batches: []*coldata.Batch{src}, Cols: []int{0, 1, 2}}, Pred: pred, Exprs: exprs, Workers: 3}
		return &operators.HashJoin{Left: left, Right: &operators.Scan{Batches: []*coldata.Batch{build}, Cols: []int{0, 1}},
			LeftKeys: []expr.Expr{k}, RightKeys: []expr.Expr{&expr.ColumnRef{Index: 0, T: coldata.Int64}},
			Kind: kind, LeftCols: 3, RightTypes: rightTypes, Parallel: parallel}
	}
	answer := func(in operators.Operator, kind opspec.JoinKind) string {
		t.Helper()
		keys := []expr.Expr{&expr.ColumnRef{Index: 2, T: coldata.Int64}}
		if kind == opspec.InnerJoin || kind == opspec.LeftJoin {
			keys = append(keys, &expr.ColumnRef{Index: 4, T: coldata.Int64})
		}
		aggs := []opspec.AggSpec{
			{Kind: opspec.AggCountStar, Type: coldata.Int64},
			{Kind: opspec.AggSum, Arg: &expr.ColumnRef{Index: 1, T: exprs[1].Type()}, Type: opspec.AggResultType(opspec.AggSum, exprs[1].Type())},
			{Kind: opspec.AggMax, Arg: &expr.ColumnRef{Index: 0, T: coldata.Int64}, Type: coldata.Int64},
		}
		got, err := operators.Drain(ctx, &operators.HashAggregate{Input: in, Keys: keys, Aggs: aggs})
		if err != nil {
			t.Fatal(err)
		}
		return sortedRows(got, len(keys)+len(aggs))
	}
	for _, step := range []int{2, 1} {
		for i := 0; i < nb; i++ {
			bk.Ints[i] = int64(step * i)
		}
		build = &coldata.Batch{Cols: []*coldata.Vec{bk, bv}, Len: nb}
		before = fmt.Sprint(cols[0].Ints[:40], cols[1].Decs[rows-40:], cols[2].Ints[1000:1040], bk.Ints[:10], bv.Ints[:10])
		for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
			for rep := 0; rep < 3; rep++ {
				checkJoinRelease(t, join, answer, kind, step)
			}
		}
		if after := fmt.Sprint(cols[0].Ints[:40], cols[1].Decs[rows-40:], cols[2].Ints[1000:1040], bk.Ints[:10], bv.Ints[:10]); after != before {
			t.Fatalf("the source data changed")
		}
	}
}

func checkJoinRelease(t *testing.T, join func(opspec.JoinKind, bool) operators.Operator, answer func(operators.Operator, opspec.JoinKind) string, kind opspec.JoinKind, step int) {
	t.Helper()
	ctx := context.Background()
	{
		drained, err := operators.Drain(ctx, join(kind, false))
		if err != nil {
			t.Fatal(err)
		}
		want := answer(&operators.Materialized{Batches: drained}, kind)
		for _, parallel := range []bool{false, true} {
			if got := answer(join(kind, parallel), kind); got != want {
				t.Fatalf("build keys step %d, kind %v, parallel %v: got\n%s\nwant\n%s", step, kind, parallel, got, want)
			}
		}
	}
}

// sortedRows renders the rows of batches of ncols columns as text, one
// line a row, sorted: an aggregate's groups compared whatever their order.
func sortedRows(batches []*coldata.Batch, ncols int) string {
	g := coldata.Concat(batches, ncols)
	var lines []string
	for i := 0; i < g.Len; i++ {
		var f []string
		for _, c := range g.Cols {
			f = append(f, fmt.Sprint(c.Value(i)))
		}
		lines = append(lines, strings.Join(f, "|"))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
