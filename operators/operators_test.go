package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

var (
	tInt   = coldata.Int64
	tFloat = coldata.Float64
	tStr   = coldata.String
	tBool  = coldata.Bool
)

// mkVec builds a non-constant vector of type ty from Go values (nil: NULL;
// int: BIGINT).
func mkVec(ty coldata.Type, vals ...any) *coldata.Vec {
	b := coldata.NewBuilder(ty, len(vals))
	for _, v := range vals {
		if i, ok := v.(int); ok {
			v = int64(i)
		}
		b.AppendValue(v)
	}
	return b.Finish()
}

func mkBatch(cols ...*coldata.Vec) *coldata.Batch {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len
	}
	return coldata.NewBatch(cols, n)
}

func src(bs ...*coldata.Batch) operators.Operator { return &operators.Materialized{Batches: bs} }

func colRef(i int, ty coldata.Type) expr.Expr {
	return &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: ty}
}

func lit(v any, ty coldata.Type) expr.Expr {
	if i, ok := v.(int); ok {
		v = int64(i)
	}
	return &expr.Literal{Value: v, T: ty}
}

func fn(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	f, ok := expr.Lookup(name)
	if !ok {
		t.Fatalf("function %s not registered", name)
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

// rowsOf flattens batches into rows of Go values.
func rowsOf(bs []*coldata.Batch) [][]any {
	out := [][]any{}
	for _, b := range bs {
		for r := 0; r < b.Len; r++ {
			row := make([]any, len(b.Cols))
			for c, v := range b.Cols {
				row[c] = v.Value(r)
			}
			out = append(out, row)
		}
	}
	return out
}

func run(t *testing.T, op operators.Operator) [][]any {
	t.Helper()
	bs, err := operators.Drain(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b == nil || b.Len == 0 {
			t.Fatalf("operator produced an empty batch")
		}
		for _, c := range b.Cols {
			if c.Len != b.Len {
				t.Fatalf("column of %d rows in a batch of %d", c.Len, b.Len)
			}
		}
	}
	return rowsOf(bs)
}

// rowsSorted orders rows by their printed form (for operators whose output
// order is unspecified).
func rowsSorted(rows [][]any) [][]any {
	sort.SliceStable(rows, func(i, j int) bool { return fmt.Sprint(rows[i]) < fmt.Sprint(rows[j]) })
	return rows
}

func r(vals ...any) []any {
	for i, v := range vals {
		if x, ok := v.(int); ok {
			vals[i] = int64(x)
		}
	}
	return vals
}

func checkRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	if want == nil {
		want = [][]any{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func seqInts(lo, n int) *coldata.Vec {
	b := coldata.NewBuilder(tInt, n)
	for i := 0; i < n; i++ {
		b.AppendInt(int64(lo + i))
	}
	return b.Finish()
}

func TestScan(t *testing.T) {
	n := 2*opspec.BatchSize + 5
	ints := seqInts(0, n)
	sb := coldata.NewBuilder(tStr, n)
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			sb.AppendNull()
		} else {
			sb.AppendString(fmt.Sprint(i))
		}
	}
	big := mkBatch(ints, sb.Finish())
	small := mkBatch(mkVec(tInt, 7), mkVec(tStr, "seven"))
	empty := mkBatch(coldata.NewVec(tInt, 0), coldata.NewVec(tStr, 0))
	s := &operators.Scan{Batches: []*coldata.Batch{empty, big, empty, small}, Cols: []int{1, 0}}
	bs, err := operators.Drain(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var lens []int
	for _, b := range bs {
		lens = append(lens, b.Len)
		if len(b.Cols) != 2 || b.Cols[0].Type != tStr || b.Cols[1].Type != tInt {
			t.Fatalf("columns not selected in order: %d cols", len(b.Cols))
		}
	}
	if !reflect.DeepEqual(lens, []int{opspec.BatchSize, opspec.BatchSize, 5, 1}) {
		t.Errorf("batch sizes %v", lens)
	}
	// Slicing shares data.
	if &bs[1].Cols[1].Ints[0] != &ints.Ints[opspec.BatchSize] {
		t.Errorf("scan copied the second slice")
	}
	rows := rowsOf(bs)
	for _, i := range []int{0, 1, opspec.BatchSize, opspec.BatchSize + 10, n - 1} {
		var want any = fmt.Sprint(i)
		if i%10 == 0 {
			want = nil
		}
		if !reflect.DeepEqual(rows[i], []any{want, int64(i)}) {
			t.Errorf("row %d = %v", i, rows[i])
		}
	}
	checkRows(t, "last", rows[len(rows)-1:], [][]any{{"seven", int64(7)}})

	// Re-opening starts again; no columns gives row counts only.
	s2 := &operators.Scan{Batches: []*coldata.Batch{small, small}}
	if got := run(t, s2); len(got) != 2 || len(got[0]) != 0 {
		t.Errorf("zero-column scan: %v", got)
	}
	if got := run(t, s2); len(got) != 2 {
		t.Errorf("re-opened scan: %d rows", len(got))
	}
}

func TestValues(t *testing.T) {
	v := &operators.Values{Batch: mkBatch(mkVec(tInt, 1, 2))}
	checkRows(t, "values", run(t, v), [][]any{r(1), r(2)})
	checkRows(t, "values again", run(t, v), [][]any{r(1), r(2)})
	checkRows(t, "empty values", run(t, &operators.Values{Batch: mkBatch(coldata.NewVec(tInt, 0))}), nil)
}

func TestFilter(t *testing.T) {
	in := func() operators.Operator {
		return src(
			mkBatch(mkVec(tInt, 1, 5, nil, 3), mkVec(tStr, "a", "b", "c", "d")),
			mkBatch(mkVec(tInt, 0, 1), mkVec(tStr, "e", "f")),
			mkBatch(mkVec(tInt, 9, nil), mkVec(tStr, "g", nil)),
		)
	}
	for _, tc := range []struct {
		name string
		pred func(t *testing.T) expr.Expr
		want [][]any
	}{
		{"a > 2 drops NULL rows", func(t *testing.T) expr.Expr { return fn(t, ">", colRef(0, tInt), lit(2, tInt)) },
			[][]any{r(5, "b"), r(3, "d"), r(9, "g")}},
		{"NOT (a > 2) drops NULL rows too", func(t *testing.T) expr.Expr {
			return fn(t, "not", fn(t, ">", colRef(0, tInt), lit(2, tInt)))
		}, [][]any{r(1, "a"), r(0, "e"), r(1, "f")}},
		{"a IS NULL", func(t *testing.T) expr.Expr { return fn(t, "is_null", colRef(0, tInt)) },
			[][]any{r(nil, "c"), r(nil, nil)}},
		{"s = 'b' OR a = 0", func(t *testing.T) expr.Expr {
			return fn(t, "or", fn(t, "=", colRef(1, tStr), lit("b", tStr)), fn(t, "=", colRef(0, tInt), lit(0, tInt)))
		}, [][]any{r(5, "b"), r(0, "e")}},
		{"constant TRUE", func(t *testing.T) expr.Expr { return lit(true, tBool) },
			[][]any{r(1, "a"), r(5, "b"), r(nil, "c"), r(3, "d"), r(0, "e"), r(1, "f"), r(9, "g"), r(nil, nil)}},
		{"constant FALSE", func(t *testing.T) expr.Expr { return lit(false, tBool) }, nil},
		{"constant NULL", func(t *testing.T) expr.Expr { return lit(nil, tBool) }, nil},
		{"no row passes", func(t *testing.T) expr.Expr { return fn(t, ">", colRef(0, tInt), lit(100, tInt)) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRows(t, tc.name, run(t, &operators.Filter{Input: in(), Pred: tc.pred(t)}), tc.want)
		})
	}
	// A batch whose rows all pass is passed on as is.
	b := mkBatch(mkVec(tInt, 3, 4))
	f := &operators.Filter{Input: src(b), Pred: fn(t, ">", colRef(0, tInt), lit(2, tInt))}
	bs, err := operators.Drain(context.Background(), f)
	if err != nil || len(bs) != 1 || bs[0] != b {
		t.Errorf("all-pass filter did not pass the batch through: %v", err)
	}
	// Errors of the predicate surface.
	f = &operators.Filter{Input: src(mkBatch(mkVec(tInt, math.MaxInt64))), Pred: fn(t, ">", fn(t, "+", colRef(0, tInt), lit(1, tInt)), lit(0, tInt))}
	if _, err := operators.Drain(context.Background(), f); err == nil {
		t.Errorf("overflow in a filter predicate gave no error")
	}
}

func TestProject(t *testing.T) {
	in := src(mkBatch(mkVec(tInt, 1, nil, 3), mkVec(tStr, "a", "b", nil)), mkBatch(mkVec(tInt, 10), mkVec(tStr, "z")))
	p := &operators.Project{Input: in, Exprs: []expr.Expr{
		colRef(1, tStr),
		fn(t, "+", colRef(0, tInt), lit(1, tInt)),
		lit("k", tStr),
		fn(t, "concat", colRef(1, tStr), lit("!", tStr)),
		fn(t, "upper", lit("x", tStr)),
	}}
	checkRows(t, "project", run(t, p), [][]any{
		r("a", 2, "k", "a!", "X"),
		r("b", nil, "k", "b!", "X"),
		r(nil, 4, "k", nil, "X"),
		r("z", 11, "k", "z!", "X"),
	})
}

func TestLimit(t *testing.T) {
	in := func() operators.Operator {
		return src(mkBatch(seqInts(0, 5)), mkBatch(seqInts(5, 5)), mkBatch(seqInts(10, 5)))
	}
	span := func(lo, hi int) [][]any {
		var out [][]any
		for i := lo; i < hi; i++ {
			out = append(out, r(i))
		}
		return out
	}
	for _, tc := range []struct {
		count, offset int64
		want          [][]any
	}{
		{3, 0, span(0, 3)},
		{5, 0, span(0, 5)},
		{7, 0, span(0, 7)},
		{5, 3, span(3, 8)},
		{4, 8, span(8, 12)},
		{5, 5, span(5, 10)},
		{100, 12, span(12, 15)},
		{-1, 12, span(12, 15)},
		{-1, 0, span(0, 15)},
		{-1, 15, nil},
		{10, 20, nil},
		{0, 0, nil},
		{0, 3, nil},
		{1, 14, span(14, 15)},
	} {
		l := operators.NewLimit(in(), tc.count, tc.offset)
		checkRows(t, fmt.Sprintf("LIMIT %d OFFSET %d", tc.count, tc.offset), run(t, l), tc.want)
	}
	// The limit stops pulling once it has its rows.
	c := &countingOp{Operator: in()}
	checkRows(t, "limit 2", run(t, operators.NewLimit(c, 2, 0)), span(0, 2))
	if c.nexts != 1 {
		t.Errorf("LIMIT 2 pulled %d batches", c.nexts)
	}
}

// countingOp counts Next calls and Close calls of its input.
type countingOp struct {
	operators.Operator
	nexts, closes int
}

func (c *countingOp) Next(ctx context.Context) (*coldata.Batch, error) {
	c.nexts++
	return c.Operator.Next(ctx)
}

func (c *countingOp) Close() error { c.closes++; return c.Operator.Close() }

func TestSort(t *testing.T) {
	// (k int, s string, seq int) over two batches.
	in := func() operators.Operator {
		return src(
			mkBatch(mkVec(tInt, 2, nil, 1, 2, 1), mkVec(tStr, "b", "x", nil, "a", "c"), seqInts(0, 5)),
			mkBatch(mkVec(tInt, nil, 1, 2, 1), mkVec(tStr, "y", "c", "b", nil), seqInts(5, 4)),
		)
	}
	for _, tc := range []struct {
		name string
		keys []opspec.SortKey
		want [][]any
	}{
		{"k asc (nulls first, stable)", []opspec.SortKey{{Col: 0}}, [][]any{
			r(nil, "x", 1), r(nil, "y", 5), r(1, nil, 2), r(1, "c", 4), r(1, "c", 6), r(1, nil, 8),
			r(2, "b", 0), r(2, "a", 3), r(2, "b", 7)}},
		{"k desc (nulls last, stable)", []opspec.SortKey{{Col: 0, Desc: true}}, [][]any{
			r(2, "b", 0), r(2, "a", 3), r(2, "b", 7), r(1, nil, 2), r(1, "c", 4), r(1, "c", 6), r(1, nil, 8),
			r(nil, "x", 1), r(nil, "y", 5)}},
		{"k asc, s desc", []opspec.SortKey{{Col: 0}, {Col: 1, Desc: true}}, [][]any{
			r(nil, "y", 5), r(nil, "x", 1), r(1, "c", 4), r(1, "c", 6), r(1, nil, 2), r(1, nil, 8),
			r(2, "b", 0), r(2, "b", 7), r(2, "a", 3)}},
		{"s asc, seq desc", []opspec.SortKey{{Col: 1}, {Col: 2, Desc: true}}, [][]any{
			r(1, nil, 8), r(1, nil, 2), r(2, "a", 3), r(2, "b", 7), r(2, "b", 0), r(1, "c", 6), r(1, "c", 4),
			r(nil, "x", 1), r(nil, "y", 5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRows(t, tc.name, run(t, &operators.Sort{Input: in(), Keys: tc.keys, NCols: 3}), tc.want)
		})
	}

	// Floats and booleans; constant columns.
	fs := &operators.Sort{Input: src(mkBatch(mkVec(tFloat, 2.5, -1.0, nil, 0.0), mkVec(tBool, true, false, true, nil), coldata.NewConst(tStr, "c", 4))),
		Keys: []opspec.SortKey{{Col: 0, Desc: true}}, NCols: 3}
	checkRows(t, "floats desc", run(t, fs), [][]any{r(2.5, true, "c"), r(0.0, nil, "c"), r(-1.0, false, "c"), r(nil, true, "c")})
	bs := &operators.Sort{Input: src(mkBatch(mkVec(tBool, true, false, nil, true), seqInts(0, 4))), Keys: []opspec.SortKey{{Col: 0}}, NCols: 2}
	checkRows(t, "bools", run(t, bs), [][]any{r(nil, 2), r(false, 1), r(true, 0), r(true, 3)})

	// Empty input.
	checkRows(t, "empty", run(t, &operators.Sort{Input: src(), Keys: []opspec.SortKey{{Col: 0}}, NCols: 1}), nil)

	// Output is cut into batches of BatchSize.
	n := opspec.BatchSize + 100
	b := coldata.NewBuilder(tInt, n)
	for i := 0; i < n; i++ {
		b.AppendInt(int64((i * 7919) % n))
	}
	big := &operators.Sort{Input: src(mkBatch(b.Finish())), Keys: []opspec.SortKey{{Col: 0}}, NCols: 1}
	out, err := operators.Drain(context.Background(), big)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Len != opspec.BatchSize || out[1].Len != 100 {
		t.Fatalf("sorted output in %d batches", len(out))
	}
	for i, row := range rowsOf(out) {
		if row[0] != int64(i) {
			t.Fatalf("row %d = %v", i, row[0])
		}
	}
}

// TestSortLimit: a sort told how many rows its LIMIT reads returns exactly
// the first rows of the full stable sort, ties and NULLs included.
func TestSortLimit(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := 5000
	kb, sb := coldata.NewBuilder(tInt, n), coldata.NewBuilder(tStr, n)
	for i := 0; i < n; i++ {
		if rng.Intn(20) == 0 {
			kb.AppendNull()
		} else {
			kb.AppendInt(int64(rng.Intn(50)))
		}
		sb.AppendBytes([]byte(fmt.Sprintf("s%d", rng.Intn(7))))
	}
	batch := mkBatch(kb.Finish(), sb.Finish(), seqInts(0, n))
	for _, keys := range [][]opspec.SortKey{
		{{Col: 0}},
		{{Col: 0, Desc: true}},
		{{Col: 1}, {Col: 0, Desc: true, Nulls: opspec.NullsFirst}},
	} {
		full := run(t, &operators.Sort{Input: src(batch), Keys: keys, NCols: 3})
		for _, limit := range []int64{1, 7, 100, 2499, 2500, 4999, 6000} {
			got := run(t, &operators.Sort{Input: src(batch), Keys: keys, NCols: 3, Limit: limit})
			want := full[:min(int(limit), len(full))]
			if limit >= int64(n)/2 {
				want = full // no selection: the whole input is sorted
			}
			checkRows(t, fmt.Sprintf("keys %v limit %d", keys, limit), got[:len(want)], want)
		}
	}
}

func TestCompareValues(t *testing.T) {
	for _, tc := range []struct {
		a, b *coldata.Vec
		want int
	}{
		{mkVec(tInt, 1), mkVec(tInt, 2), -1},
		{mkVec(tInt, 2), mkVec(tInt, 2), 0},
		{mkVec(tInt, nil), mkVec(tInt, math.MinInt64), -1},
		{mkVec(tInt, 0), mkVec(tInt, nil), 1},
		{mkVec(tInt, nil), coldata.NewConst(tInt, nil, 1), 0},
		{mkVec(tFloat, -0.0), mkVec(tFloat, 0.0), 0},
		{mkVec(tFloat, 3.5), mkVec(tFloat, 2.0), 1},
		{mkVec(tStr, "a"), mkVec(tStr, "ab"), -1},
		{mkVec(tStr, "B"), mkVec(tStr, "a"), -1},
		{mkVec(tStr, "a "), mkVec(tStr, "a"), 1},
		{mkVec(tBool, true), coldata.NewConst(tBool, false, 1), 1},
	} {
		if got := opspec.CompareValues(tc.a, 0, tc.b, 0); got != tc.want {
			t.Errorf("CompareValues(%v, %v) = %d, want %d", tc.a.Value(0), tc.b.Value(0), got, tc.want)
		}
	}
}

func TestDistinct(t *testing.T) {
	in := src(
		mkBatch(mkVec(tInt, 1, 1, nil, 2, nil), mkVec(tFloat, 0.0, math.Copysign(0, -1), 1.0, nil, 1.0), mkVec(tStr, "a", "a", "", nil, "")),
		mkBatch(mkVec(tInt, 1, 2, 3), mkVec(tFloat, 0.0, nil, 1.0), mkVec(tStr, "a", nil, "a")),
		mkBatch(mkVec(tInt, 1), mkVec(tFloat, 0.0), mkVec(tStr, "a")),
	)
	checkRows(t, "distinct rows", run(t, &operators.Distinct{Input: in}), [][]any{
		r(1, 0.0, "a"), r(nil, 1.0, ""), r(2, nil, nil), r(3, 1.0, "a"),
	})
	// NULL and empty string differ; strings with embedded separators differ.
	in = src(mkBatch(mkVec(tStr, nil, "", nil, "a\x00b", "a", "a\x00b"), mkVec(tStr, "x", "x", "x", "", "\x00b", "")))
	checkRows(t, "distinct strings", run(t, &operators.Distinct{Input: in}), [][]any{
		r(nil, "x"), r("", "x"), r("a\x00b", ""), r("a", "\x00b"),
	})
	// Constant columns.
	in = src(mkBatch(coldata.NewConst(tInt, int64(4), 3), mkVec(tBool, true, true, false)))
	checkRows(t, "distinct const", run(t, &operators.Distinct{Input: in}), [][]any{r(4, true), r(4, false)})
}

func TestAggResultType(t *testing.T) {
	for _, tc := range []struct {
		k    opspec.AggKind
		arg  coldata.Type
		want coldata.Type
	}{
		{opspec.AggCountStar, coldata.Null, tInt},
		{opspec.AggCount, tStr, tInt},
		{opspec.AggSum, tInt, tInt},
		{opspec.AggSum, tBool, tInt},
		{opspec.AggSum, tFloat, tFloat},
		{opspec.AggAvg, tInt, tFloat},
		{opspec.AggMin, tStr, tStr},
		{opspec.AggMax, tBool, tBool},
		{opspec.AggGroupConcat, tInt, tStr},
	} {
		if got := opspec.AggResultType(tc.k, tc.arg); got != tc.want {
			t.Errorf("AggResultType(%d, %s) = %s, want %s", tc.k, tc.arg, got, tc.want)
		}
	}
}

func TestHashAggregate(t *testing.T) {
	// (g string, x int, f double, s string, b bool)
	in := func() operators.Operator {
		return src(
			mkBatch(mkVec(tStr, "a", "b", "a", nil, "b"), mkVec(tInt, 1, 10, 2, 7, nil), mkVec(tFloat, 0.5, 1.0, nil, 2.0, 4.0),
				mkVec(tStr, "p", "zz", "q", "n", "yy"), mkVec(tBool, true, false, false, nil, true)),
			mkBatch(mkVec(tStr, "a", nil, "c"), mkVec(tInt, 2, nil, nil), mkVec(tFloat, 1.5, nil, nil),
				mkVec(tStr, "r", nil, nil), mkVec(tBool, true, nil, nil)),
		)
	}
	g, x, f, s, bcol := colRef(0, tStr), colRef(1, tInt), colRef(2, tFloat), colRef(3, tStr), colRef(4, tBool)
	spec := func(k opspec.AggKind, arg expr.Expr) opspec.AggSpec {
		var at coldata.Type
		if arg != nil {
			at = arg.Type()
		}
		return opspec.AggSpec{Kind: k, Arg: arg, Type: opspec.AggResultType(k, at)}
	}
	distinct := func(a opspec.AggSpec) opspec.AggSpec { a.Distinct = true; return a }
	gc := func(arg expr.Expr, sep string, order ...opspec.AggOrder) opspec.AggSpec {
		a := spec(opspec.AggGroupConcat, arg)
		a.Separator, a.Order = sep, order
		return a
	}
	for _, tc := range []struct {
		name string
		keys []expr.Expr
		aggs []opspec.AggSpec
		want [][]any
	}{
		{"count star, count, sum, avg by g", []expr.Expr{g}, []opspec.AggSpec{
			spec(opspec.AggCountStar, nil), spec(opspec.AggCount, x), spec(opspec.AggSum, x), spec(opspec.AggAvg, x), spec(opspec.AggSum, f)},
			[][]any{
				r("a", 3, 3, 5, 5.0/3, 2.0),
				r("b", 2, 1, 10, 10.0, 5.0),
				r(nil, 2, 1, 7, 7.0, 2.0),
				r("c", 1, 0, nil, nil, nil),
			}},
		{"min/max of every type", []expr.Expr{g}, []opspec.AggSpec{
			spec(opspec.AggMin, x), spec(opspec.AggMax, x), spec(opspec.AggMin, f), spec(opspec.AggMax, f),
			spec(opspec.AggMin, s), spec(opspec.AggMax, s), spec(opspec.AggMin, bcol), spec(opspec.AggMax, bcol)},
			[][]any{
				r("a", 1, 2, 0.5, 1.5, "p", "r", false, true),
				r("b", 10, 10, 1.0, 4.0, "yy", "zz", false, true),
				r(nil, 7, 7, 2.0, 2.0, "n", "n", nil, nil),
				r("c", nil, nil, nil, nil, nil, nil, nil, nil),
			}},
		{"distinct aggregates", []expr.Expr{g}, []opspec.AggSpec{
			distinct(spec(opspec.AggCount, x)), distinct(spec(opspec.AggSum, x)), distinct(spec(opspec.AggAvg, x)),
			distinct(gc(fn(t, "cast_to_varchar", x), ",", opspec.AggOrder{Expr: x}))},
			[][]any{
				r("a", 2, 3, 1.5, "1,2"),
				r("b", 1, 10, 10.0, "10"),
				r(nil, 1, 7, 7.0, "7"),
				r("c", 0, nil, nil, nil),
			}},
		{"group_concat order and separator", []expr.Expr{g}, []opspec.AggSpec{
			gc(s, ","), gc(s, " | ", opspec.AggOrder{Expr: x, Desc: true}), gc(s, "", opspec.AggOrder{Expr: f}),
			gc(s, "-", opspec.AggOrder{Expr: bcol}, opspec.AggOrder{Expr: s, Desc: true})},
			[][]any{
				r("a", "p,q,r", "q | r | p", "qpr", "q-r-p"),
				r("b", "zz,yy", "zz | yy", "zzyy", "zz-yy"),
				r(nil, "n", "n", "n", "n"),
				r("c", nil, nil, nil, nil),
			}},
		{"no keys", nil, []opspec.AggSpec{
			spec(opspec.AggCountStar, nil), spec(opspec.AggCount, f), spec(opspec.AggSum, x), spec(opspec.AggMax, s), gc(g, ";")},
			[][]any{r(8, 5, 22, "zz", "a;b;a;b;a;c")}},
		{"two keys with NULLs", []expr.Expr{g, bcol}, []opspec.AggSpec{spec(opspec.AggCountStar, nil)},
			[][]any{r("a", true, 2), r("b", false, 1), r("a", false, 1), r(nil, nil, 2), r("b", true, 1), r("c", nil, 1)}},
		{"expression key", []expr.Expr{fn(t, "is_null", x)}, []opspec.AggSpec{spec(opspec.AggSum, f)},
			[][]any{r(false, 5.0), r(true, 4.0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRows(t, tc.name, run(t, &operators.HashAggregate{Input: in(), Keys: tc.keys, Aggs: tc.aggs}), tc.want)
		})
	}

	// Empty input: one row without keys (COUNT 0, others NULL); none with keys.
	emptyAggs := []opspec.AggSpec{spec(opspec.AggCountStar, nil), spec(opspec.AggCount, x), spec(opspec.AggSum, x),
		spec(opspec.AggAvg, x), spec(opspec.AggMin, s), gc(s, ",")}
	checkRows(t, "empty, no keys", run(t, &operators.HashAggregate{Input: src(), Aggs: emptyAggs}), [][]any{r(0, 0, nil, nil, nil, nil)})
	checkRows(t, "empty, keys", run(t, &operators.HashAggregate{Input: src(), Keys: []expr.Expr{g}, Aggs: emptyAggs}), nil)

	// SUM of BIGINT overflows with an error, in both directions; SUM of
	// doubles does not.
	for _, vals := range [][]any{{int64(math.MaxInt64), 1}, {int64(math.MinInt64), -1}, {int64(math.MaxInt64 - 5), 3, 3}} {
		agg := &operators.HashAggregate{Input: src(mkBatch(mkVec(tInt, vals...))), Aggs: []opspec.AggSpec{spec(opspec.AggSum, colRef(0, tInt))}}
		if _, err := operators.Drain(context.Background(), agg); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("SUM%v: error %v", vals, err)
		}
	}
	sumOK := &operators.HashAggregate{Input: src(mkBatch(mkVec(tInt, int64(math.MaxInt64), -1, 1))), Aggs: []opspec.AggSpec{spec(opspec.AggSum, colRef(0, tInt))}}
	checkRows(t, "SUM near the limit", run(t, sumOK), [][]any{r(int64(math.MaxInt64))})
	avgBig := &operators.HashAggregate{Input: src(mkBatch(mkVec(tInt, int64(math.MaxInt64), int64(math.MaxInt64)))), Aggs: []opspec.AggSpec{spec(opspec.AggAvg, colRef(0, tInt))}}
	checkRows(t, "AVG does not overflow", run(t, avgBig), [][]any{r(float64(math.MaxInt64))})

	// MaxGroups bounds the state.
	lim := &operators.HashAggregate{Input: src(mkBatch(seqInts(0, 10))), Keys: []expr.Expr{colRef(0, tInt)}, Aggs: []opspec.AggSpec{spec(opspec.AggCountStar, nil)}, MaxGroups: 5}
	if _, err := operators.Drain(context.Background(), lim); err == nil || !strings.Contains(err.Error(), "limit of 5 groups") {
		t.Errorf("MaxGroups error %v", err)
	}
	lim = &operators.HashAggregate{Input: src(mkBatch(seqInts(0, 5))), Keys: []expr.Expr{colRef(0, tInt)}, Aggs: []opspec.AggSpec{spec(opspec.AggCountStar, nil)}, MaxGroups: 5}
	if got := run(t, lim); len(got) != 5 {
		t.Errorf("5 groups within MaxGroups 5: %d rows", len(got))
	}
	// Float keys: -0 and 0 group together.
	fk := &operators.HashAggregate{Input: src(mkBatch(mkVec(tFloat, 0.0, math.Copysign(0, -1), nil, nil))), Keys: []expr.Expr{colRef(0, tFloat)}, Aggs: []opspec.AggSpec{spec(opspec.AggCountStar, nil)}}
	checkRows(t, "-0 = 0 groups", run(t, fk), [][]any{r(0.0, 2), r(nil, 2)})
}

func TestHashJoin(t *testing.T) {
	// left (id, name), right (id, val)
	left := func() operators.Operator {
		return src(
			mkBatch(mkVec(tInt, 1, 2, nil, 3), mkVec(tStr, "one", "two", "null", "three")),
			mkBatch(mkVec(tInt, 4, 2), mkVec(tStr, "four", "two again")),
		)
	}
	right := func() operators.Operator {
		return src(
			mkBatch(mkVec(tInt, 2, 3, nil), mkVec(tInt, 20, 30, 99)),
			mkBatch(mkVec(tInt, 2, 5), mkVec(tInt, 21, 50)),
		)
	}
	emptyRight := func() operators.Operator { return src() }
	rtypes := []coldata.Type{tInt, tInt}
	lkey, rkey := []expr.Expr{colRef(0, tInt)}, []expr.Expr{colRef(0, tInt)}
	for _, tc := range []struct {
		name  string
		kind  opspec.JoinKind
		right func() operators.Operator
		lkeys []expr.Expr
		rkeys []expr.Expr
		cond  func(t *testing.T) expr.Expr
		want  [][]any
	}{
		{"inner", opspec.InnerJoin, right, lkey, rkey, nil, [][]any{
			r(2, "two", 2, 20), r(2, "two", 2, 21), r(3, "three", 3, 30), r(2, "two again", 2, 20), r(2, "two again", 2, 21)}},
		{"left", opspec.LeftJoin, right, lkey, rkey, nil, [][]any{
			r(1, "one", nil, nil), r(2, "two", 2, 20), r(2, "two", 2, 21), r(nil, "null", nil, nil), r(3, "three", 3, 30),
			r(4, "four", nil, nil), r(2, "two again", 2, 20), r(2, "two again", 2, 21)}},
		{"inner with residual", opspec.InnerJoin, right, lkey, rkey,
			func(t *testing.T) expr.Expr { return fn(t, ">", colRef(3, tInt), lit(20, tInt)) },
			[][]any{r(2, "two", 2, 21), r(3, "three", 3, 30), r(2, "two again", 2, 21)}},
		{"left with residual", opspec.LeftJoin, right, lkey, rkey,
			func(t *testing.T) expr.Expr { return fn(t, "<>", colRef(1, tStr), lit("two", tStr)) },
			[][]any{r(1, "one", nil, nil), r(2, "two", nil, nil), r(nil, "null", nil, nil), r(3, "three", 3, 30),
				r(4, "four", nil, nil), r(2, "two again", 2, 20), r(2, "two again", 2, 21)}},
		{"nested loop inner", opspec.InnerJoin, right, nil, nil,
			func(t *testing.T) expr.Expr {
				return fn(t, ">=", colRef(3, tInt), fn(t, "*", colRef(0, tInt), lit(15, tInt)))
			},
			[][]any{r(1, "one", 2, 20), r(1, "one", 3, 30), r(1, "one", nil, 99), r(1, "one", 2, 21), r(1, "one", 5, 50),
				r(2, "two", 3, 30), r(2, "two", nil, 99), r(2, "two", 5, 50),
				r(3, "three", nil, 99), r(3, "three", 5, 50),
				r(4, "four", nil, 99),
				r(2, "two again", 3, 30), r(2, "two again", nil, 99), r(2, "two again", 5, 50)}},
		{"cross join", opspec.InnerJoin, func() operators.Operator { return src(mkBatch(mkVec(tInt, 7), mkVec(tInt, 8))) }, nil, nil, nil,
			[][]any{r(1, "one", 7, 8), r(2, "two", 7, 8), r(nil, "null", 7, 8), r(3, "three", 7, 8), r(4, "four", 7, 8), r(2, "two again", 7, 8)}},
		{"nested loop left", opspec.LeftJoin, right, nil, nil,
			func(t *testing.T) expr.Expr {
				return fn(t, "=", colRef(3, tInt), fn(t, "*", colRef(0, tInt), lit(10, tInt)))
			},
			[][]any{r(1, "one", nil, nil), r(2, "two", 2, 20), r(nil, "null", nil, nil), r(3, "three", 3, 30), r(4, "four", nil, nil), r(2, "two again", 2, 20)}},
		{"empty build inner", opspec.InnerJoin, emptyRight, lkey, rkey, nil, nil},
		{"empty build left", opspec.LeftJoin, emptyRight, lkey, rkey, nil, [][]any{
			r(1, "one", nil, nil), r(2, "two", nil, nil), r(nil, "null", nil, nil), r(3, "three", nil, nil), r(4, "four", nil, nil), r(2, "two again", nil, nil)}},
		{"empty build left nested loop", opspec.LeftJoin, emptyRight, nil, nil, nil, [][]any{
			r(1, "one", nil, nil), r(2, "two", nil, nil), r(nil, "null", nil, nil), r(3, "three", nil, nil), r(4, "four", nil, nil), r(2, "two again", nil, nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.right == nil {
				// No left rows: the right input is never read.
				fail := &failOp{nextErr: errors.New("right input read")}
				j := &operators.HashJoin{Left: src(), Right: fail, LeftKeys: tc.lkeys, RightKeys: tc.rkeys, Kind: tc.kind,
					LeftCols: 2, RightTypes: []coldata.Type{tInt, tInt}}
				checkRows(t, tc.name, run(t, j), nil)
				return
			}
			j := &operators.HashJoin{Left: left(), Right: tc.right(), LeftKeys: tc.lkeys, RightKeys: tc.rkeys, Kind: tc.kind, LeftCols: 2, RightTypes: rtypes}
			if tc.cond != nil {
				j.Cond = tc.cond(t)
			}
			// The order of join output is unspecified.
			checkRows(t, tc.name, rowsSorted(run(t, j)), rowsSorted(tc.want))
			// Every result column has the declared type.
			bs, err := operators.Drain(context.Background(), &operators.HashJoin{Left: left(), Right: tc.right(), LeftKeys: tc.lkeys, RightKeys: tc.rkeys, Kind: tc.kind, LeftCols: 2, RightTypes: rtypes, Cond: j.Cond})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bs {
				for c, want := range []coldata.Type{tInt, tStr, tInt, tInt} {
					if b.Cols[c].Type != want {
						t.Errorf("column %d has type %s", c, b.Cols[c].Type)
					}
				}
			}
		})
	}

	// String and multi-column keys; NULL in any key column never matches.
	l := src(mkBatch(mkVec(tStr, "a", "a", nil, "b"), mkVec(tInt, 1, nil, 1, 2)))
	rr := src(mkBatch(mkVec(tStr, "a", "a", nil, "b"), mkVec(tInt, 1, nil, 1, 3)))
	j := &operators.HashJoin{Left: l, Right: rr, LeftKeys: []expr.Expr{colRef(0, tStr), colRef(1, tInt)}, RightKeys: []expr.Expr{colRef(0, tStr), colRef(1, tInt)},
		Kind: opspec.InnerJoin, LeftCols: 2, RightTypes: []coldata.Type{tStr, tInt}}
	checkRows(t, "two-column keys", run(t, j), [][]any{r("a", 1, "a", 1)})

	// Nested loop over more than one slice of candidate pairs.
	const n = 300
	nl := &operators.HashJoin{Left: src(mkBatch(seqInts(0, n))), Right: src(mkBatch(seqInts(0, n))), Kind: opspec.InnerJoin, LeftCols: 1, RightTypes: []coldata.Type{tInt},
		Cond: fn(t, "<", colRef(0, tInt), colRef(1, tInt))}
	if got := run(t, nl); len(got) != n*(n-1)/2 {
		t.Errorf("nested loop of %d x %d with l < r: %d rows, want %d", n, n, len(got), n*(n-1)/2)
	}
	nl = &operators.HashJoin{Left: src(mkBatch(seqInts(0, n))), Right: src(mkBatch(seqInts(0, n))), Kind: opspec.LeftJoin, LeftCols: 1, RightTypes: []coldata.Type{tInt},
		Cond: fn(t, "<", colRef(0, tInt), colRef(1, tInt))}
	if got := run(t, nl); len(got) != n*(n-1)/2+1 || !reflect.DeepEqual(got[len(got)-1], r(n-1, nil)) {
		t.Errorf("left nested loop: %d rows, last %v", len(got), got[len(got)-1])
	}

	// The build side is bounded.
	big := &operators.HashJoin{Left: left(), Right: right(), LeftKeys: lkey, RightKeys: rkey, LeftCols: 2, RightTypes: rtypes, MaxBuildRows: 4}
	if _, err := operators.Drain(context.Background(), big); err == nil || !strings.Contains(err.Error(), "limit of 4 rows") {
		t.Errorf("MaxBuildRows error %v", err)
	}
}

func TestUnionAll(t *testing.T) {
	a := &countingOp{Operator: src(mkBatch(mkVec(tInt, 1, 2)))}
	b := &countingOp{Operator: src()}
	c := &countingOp{Operator: src(mkBatch(mkVec(tInt, 3)), mkBatch(mkVec(tInt, nil)))}
	u := &operators.UnionAll{Inputs: []operators.Operator{a, b, c}}
	checkRows(t, "union all", run(t, u), [][]any{r(1), r(2), r(3), r(nil)})
	if a.closes != 1 || b.closes != 1 || c.closes != 1 {
		t.Errorf("closes %d %d %d", a.closes, b.closes, c.closes)
	}
	checkRows(t, "union all again", run(t, u), [][]any{r(1), r(2), r(3), r(nil)})
	checkRows(t, "union of nothing", run(t, &operators.UnionAll{}), nil)

	// The first Close error is reported.
	e1, e2 := errors.New("one"), errors.New("two")
	u = &operators.UnionAll{Inputs: []operators.Operator{&failOp{closeErr: e1}, &failOp{closeErr: e2}}}
	if err := u.Close(); err != e1 {
		t.Errorf("Close = %v", err)
	}
}

// failOp fails where told to.
type failOp struct {
	openErr, nextErr, closeErr error
	closed                     int
	batches                    int
}

func (f *failOp) Open(context.Context) error { return f.openErr }
func (f *failOp) Next(context.Context) (*coldata.Batch, error) {
	if f.batches > 0 {
		f.batches--
		return mkBatch(mkVec(tInt, 1)), nil
	}
	if f.nextErr != nil {
		return nil, f.nextErr
	}
	return nil, nil
}
func (f *failOp) Close() error { f.closed++; return f.closeErr }

func TestDrain(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		op   *failOp
		want error
	}{
		{"open error", &failOp{openErr: boom}, boom},
		{"next error after a batch", &failOp{nextErr: boom, batches: 1}, boom},
		{"close error", &failOp{closeErr: boom, batches: 2}, boom},
		{"ok", &failOp{batches: 3}, nil},
	} {
		bs, err := operators.Drain(context.Background(), tc.op)
		if err != tc.want {
			t.Errorf("%s: err %v", tc.name, err)
		}
		if tc.op.closed != 1 {
			t.Errorf("%s: closed %d times", tc.name, tc.op.closed)
		}
		if tc.want == nil && len(bs) != 3 {
			t.Errorf("%s: %d batches", tc.name, len(bs))
		}
		if tc.name == "open error" || tc.name == "next error after a batch" {
			if bs != nil {
				t.Errorf("%s: batches returned with an error", tc.name)
			}
		}
	}
	// Errors pass through operators unchanged.
	for _, op := range []operators.Operator{
		&operators.Filter{Input: &failOp{nextErr: boom}, Pred: lit(true, tBool)},
		&operators.Project{Input: &failOp{nextErr: boom}},
		operators.NewLimit(&failOp{nextErr: boom}, 5, 0),
		&operators.Sort{Input: &failOp{nextErr: boom, batches: 1}, NCols: 1},
		&operators.Distinct{Input: &failOp{nextErr: boom}},
		&operators.HashAggregate{Input: &failOp{nextErr: boom, batches: 1}},
		&operators.HashJoin{Left: &failOp{nextErr: boom}, Right: src(), LeftCols: 1, RightTypes: []coldata.Type{tInt}},
		&operators.HashJoin{Left: src(), Right: &failOp{nextErr: boom}, LeftCols: 1, RightTypes: []coldata.Type{tInt}},
		&operators.UnionAll{Inputs: []operators.Operator{src(), &failOp{nextErr: boom}}},
	} {
		if _, err := operators.Drain(context.Background(), op); !errors.Is(err, boom) {
			t.Errorf("%T: err %v", op, err)
		}
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	table := []*coldata.Batch{mkBatch(seqInts(0, 10))}
	for _, op := range []operators.Operator{
		&operators.Scan{Batches: table, Cols: []int{0}},
		&operators.Filter{Input: &operators.Scan{Batches: table, Cols: []int{0}}, Pred: lit(true, tBool)},
		&operators.Sort{Input: src(table...), Keys: []opspec.SortKey{{Col: 0}}, NCols: 1},
		&operators.HashJoin{Left: src(table...), Right: src(table...), LeftKeys: []expr.Expr{colRef(0, tInt)}, RightKeys: []expr.Expr{colRef(0, tInt)}, LeftCols: 1, RightTypes: []coldata.Type{tInt}},
		&operators.HashAggregate{Input: &operators.Scan{Batches: table, Cols: []int{0}}, Aggs: []opspec.AggSpec{{Kind: opspec.AggCountStar, Type: tInt}}},
	} {
		_, err := operators.Drain(ctx, op)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%T with a cancelled context: %v", op, err)
		}
	}
	// Cancelling mid-scan stops at the next batch.
	ctx, cancel = context.WithCancel(context.Background())
	s := &operators.Scan{Batches: []*coldata.Batch{mkBatch(seqInts(0, 3)), mkBatch(seqInts(3, 3))}, Cols: []int{0}}
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Next(ctx); err != nil || b.Len != 3 {
		t.Fatalf("first batch: %v", err)
	}
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
}

func TestInstrument(t *testing.T) {
	st := &operators.Stats{}
	op := operators.Instrument(src(mkBatch(seqInts(0, 3)), mkBatch(seqInts(3, 4))), st)
	checkRows(t, "instrumented", run(t, op), [][]any{r(0), r(1), r(2), r(3), r(4), r(5), r(6)})
	if st.Rows.Load() != 7 || st.Batches.Load() != 2 || st.Duration() < 0 {
		t.Errorf("stats rows %d batches %d", st.Rows.Load(), st.Batches.Load())
	}
}

func TestMaterialized(t *testing.T) {
	m := &operators.Materialized{Batches: []*coldata.Batch{mkBatch(coldata.NewVec(tInt, 0)), mkBatch(mkVec(tInt, 1)), mkBatch(coldata.NewVec(tInt, 0))}}
	checkRows(t, "materialized skips empty batches", run(t, m), [][]any{r(1)})
}

func TestGroupForDevice(t *testing.T) {
	bs := []*coldata.Batch{mkBatch(mkVec(tInt, 1, 2), mkVec(tStr, "a", nil)), mkBatch(mkVec(tInt, 3), mkVec(tStr, "c"))}
	out := operators.GroupForDevice(bs)
	if len(out) != 1 || len(out[0]) != 2 || out[0][0] != bs[0] || out[0][1] != bs[1] {
		t.Fatalf("grouped into %v", out)
	}
	if len(operators.GroupForDevice(nil)) != 0 {
		t.Errorf("no batches gave output")
	}
	defer func(n int) { operators.DeviceBatchRows = n }(operators.DeviceBatchRows)
	operators.DeviceBatchRows = 3
	split := operators.GroupForDevice([]*coldata.Batch{bs[0], bs[1], bs[0]})
	if len(split) != 2 || len(split[0]) != 2 || len(split[1]) != 1 {
		t.Errorf("groups over DeviceBatchRows rows: %v", split)
	}
}

// Semi and anti joins keep left rows, once each, by whether some right row
// matches (keys equal, residual TRUE); a NULL key matches nothing.
func TestSemiAntiJoin(t *testing.T) {
	left := func() operators.Operator {
		return src(
			mkBatch(mkVec(tInt, 1, 2, nil, 3), mkVec(tStr, "one", "two", "null", "three")),
			mkBatch(mkVec(tInt, 4, 2), mkVec(tStr, "four", "two again")),
		)
	}
	right := func() operators.Operator {
		return src(
			mkBatch(mkVec(tInt, 2, 3, nil), mkVec(tInt, 20, 30, 99)),
			mkBatch(mkVec(tInt, 2, 5), mkVec(tInt, 21, 50)),
		)
	}
	lkey, rkey := []expr.Expr{colRef(0, tInt)}, []expr.Expr{colRef(0, tInt)}
	for _, tc := range []struct {
		name         string
		kind         opspec.JoinKind
		lkeys, rkeys []expr.Expr
		cond         func(t *testing.T) expr.Expr
		right        func() operators.Operator
		want         [][]any
	}{
		{"semi", opspec.SemiJoin, lkey, rkey, nil, right,
			[][]any{r(2, "two"), r(3, "three"), r(2, "two again")}},
		{"anti", opspec.AntiJoin, lkey, rkey, nil, right,
			[][]any{r(1, "one"), r(nil, "null"), r(4, "four")}},
		{"semi with residual", opspec.SemiJoin, lkey, rkey,
			func(t *testing.T) expr.Expr { return fn(t, ">", colRef(3, tInt), lit(25, tInt)) }, right,
			[][]any{r(3, "three")}},
		{"anti with residual", opspec.AntiJoin, lkey, rkey,
			func(t *testing.T) expr.Expr { return fn(t, ">", colRef(3, tInt), lit(25, tInt)) }, right,
			[][]any{r(1, "one"), r(2, "two"), r(nil, "null"), r(4, "four"), r(2, "two again")}},
		{"semi nested loop", opspec.SemiJoin, nil, nil,
			func(t *testing.T) expr.Expr { return fn(t, "<", colRef(0, tInt), colRef(2, tInt)) }, right,
			[][]any{r(1, "one"), r(2, "two"), r(3, "three"), r(4, "four"), r(2, "two again")}},
		{"semi empty probe", opspec.SemiJoin, lkey, rkey, nil, nil, nil},
		{"anti empty build", opspec.AntiJoin, lkey, rkey, nil, func() operators.Operator { return src() },
			[][]any{r(1, "one"), r(2, "two"), r(nil, "null"), r(3, "three"), r(4, "four"), r(2, "two again")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.right == nil {
				// No left rows: the right input is never read.
				fail := &failOp{nextErr: errors.New("right input read")}
				j := &operators.HashJoin{Left: src(), Right: fail, LeftKeys: tc.lkeys, RightKeys: tc.rkeys, Kind: tc.kind,
					LeftCols: 2, RightTypes: []coldata.Type{tInt, tInt}}
				checkRows(t, tc.name, run(t, j), nil)
				return
			}
			j := &operators.HashJoin{Left: left(), Right: tc.right(), LeftKeys: tc.lkeys, RightKeys: tc.rkeys, Kind: tc.kind,
				LeftCols: 2, RightTypes: []coldata.Type{tInt, tInt}}
			if tc.cond != nil {
				j.Cond = tc.cond(t)
			}
			got := run(t, j)
			checkRows(t, tc.name, rowsSorted(run(t, j)), rowsSorted(tc.want))
			// With many more right rows than left ones the join hashes the
			// left side instead: the same rows in the same order.
			big := &operators.HashJoin{Left: left(), Right: &operators.UnionAll{Inputs: []operators.Operator{tc.right(), src(
				mkBatch(seqInts(1000, 100), seqInts(0, 100)), mkBatch(mkVec(tInt, nil, 2000), mkVec(tInt, 7, 8)))}},
				LeftKeys: tc.lkeys, RightKeys: tc.rkeys, Kind: tc.kind, LeftCols: 2, RightTypes: []coldata.Type{tInt, tInt}, Cond: j.Cond}
			checkRows(t, tc.name+" (left hashed)", run(t, big), got)
			checkRows(t, tc.name+" (left hashed, reopened)", run(t, big), got)
		})
	}
}
