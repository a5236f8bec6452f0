package window

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

func vec(t coldata.Type, vals ...any) *coldata.Vec {
	b := coldata.NewBuilder(t, len(vals))
	for _, v := range vals {
		if i, ok := v.(int); ok {
			v = int64(i)
		}
		b.AppendValue(v)
	}
	return b.Finish()
}

func values(v *coldata.Vec) []any {
	out := make([]any, v.Len)
	for i := range out {
		out[i] = v.Value(i)
	}
	return out
}

func ints(xs ...any) []any {
	for i, x := range xs {
		if n, ok := x.(int); ok {
			xs[i] = int64(n)
		}
	}
	return xs
}

// The fixture: p (partition), o (order key, ties and a NULL), v (BIGINT
// values with a NULL), f (DOUBLE), id.
//
//	row  p     o     v     f     id
//	0    a     1     10    1.5   0
//	1    a     2     20    NULL  1
//	2    b     1     5     2.5   2
//	3    a     2     NULL  3.0   3
//	4    a     NULL  7     0.5   4
//	5    b     3     1     4.0   5
//	6    NULL  4     100   1.0   6
//	7    a     5     3     2.0   7
//
// Partition a in order: 4 (NULL first, MySQL's default), 0, {1, 3}, 7.
func fixture() *coldata.Batch {
	return coldata.NewBatch([]*coldata.Vec{
		vec(coldata.String, "a", "a", "b", "a", "a", "b", nil, "a"),
		vec(coldata.Int64, 1, 2, 1, 2, nil, 3, 4, 5),
		vec(coldata.Int64, 10, 20, 5, nil, 7, 1, 100, 3),
		vec(coldata.Float64, 1.5, nil, 2.5, 3.0, 0.5, 4.0, 1.0, 2.0),
		vec(coldata.Int64, 0, 1, 2, 3, 4, 5, 6, 7),
	}, 8)
}

var (
	colP  = &expr.ColumnRef{Index: 0, Name: "p", T: coldata.String}
	colO  = &expr.ColumnRef{Index: 1, Name: "o", T: coldata.Int64}
	colV  = &expr.ColumnRef{Index: 2, Name: "v", T: coldata.Int64}
	colF  = &expr.ColumnRef{Index: 3, Name: "f", T: coldata.Float64}
	colID = &expr.ColumnRef{Index: 4, Name: "id", T: coldata.Int64}
)

func rows(k int64) winspec.Bound { return winspec.Bound{Kind: winspec.Preceding, Offset: k} }
func fol(k int64) winspec.Bound  { return winspec.Bound{Kind: winspec.Following, Offset: k} }

var (
	unbPre = winspec.Bound{Kind: winspec.UnboundedPreceding}
	unbFol = winspec.Bound{Kind: winspec.UnboundedFollowing}
	cur    = winspec.Bound{Kind: winspec.CurrentRow}
	byPO   = func(f winspec.Func) winspec.Func {
		f.Partition = []expr.Expr{colP}
		f.Order = []winspec.Key{{Expr: colO}}
		return f
	}
)

func TestCompute(t *testing.T) {
	defOrdered := winspec.DefaultFrame(true)
	for _, tc := range []struct {
		name string
		f    winspec.Func
		want []any
	}{
		{"row_number", byPO(winspec.Func{Kind: winspec.RowNumber, Type: coldata.Int64}), ints(2, 3, 1, 4, 1, 2, 1, 5)},
		{"rank", byPO(winspec.Func{Kind: winspec.Rank, Type: coldata.Int64}), ints(2, 3, 1, 3, 1, 2, 1, 5)},
		{"dense_rank", byPO(winspec.Func{Kind: winspec.DenseRank, Type: coldata.Int64}), ints(2, 3, 1, 3, 1, 2, 1, 4)},
		{"percent_rank", byPO(winspec.Func{Kind: winspec.PercentRank, Type: coldata.Float64}), []any{0.25, 0.5, 0.0, 0.5, 0.0, 1.0, 0.0, 1.0}},
		{"cume_dist", byPO(winspec.Func{Kind: winspec.CumeDist, Type: coldata.Float64}), []any{0.4, 0.8, 0.5, 0.8, 0.2, 1.0, 1.0, 1.0}},
		{"ntile 2", byPO(winspec.Func{Kind: winspec.Ntile, N: 2, Type: coldata.Int64}), ints(1, 1, 1, 2, 1, 2, 1, 2)},
		{"ntile 3", byPO(winspec.Func{Kind: winspec.Ntile, N: 3, Type: coldata.Int64}), ints(1, 2, 1, 2, 1, 2, 1, 3)},
		{"ntile more buckets than rows", byPO(winspec.Func{Kind: winspec.Ntile, N: 9, Type: coldata.Int64}), ints(2, 3, 1, 4, 1, 2, 1, 5)},
		{"lag", byPO(winspec.Func{Kind: winspec.Lag, N: 1, Args: []expr.Expr{colV}, Type: coldata.Int64}), ints(7, 10, nil, 20, nil, 5, nil, nil)},
		{"lead 2 default -1", byPO(winspec.Func{Kind: winspec.Lead, N: 2, Args: []expr.Expr{colV, &expr.Literal{Value: int64(-1), T: coldata.Int64}}, Type: coldata.Int64}),
			ints(nil, 3, -1, -1, 20, -1, -1, -1)},
		{"lag 0 is the row itself", byPO(winspec.Func{Kind: winspec.Lag, N: 0, Args: []expr.Expr{colV}, Type: coldata.Int64}), ints(10, 20, 5, nil, 7, 1, 100, 3)},
		{"lag default from a column", byPO(winspec.Func{Kind: winspec.Lag, N: 1, Args: []expr.Expr{colV, colID}, Type: coldata.Int64}), ints(7, 10, 2, 20, 4, 5, 6, nil)},
		{"first_value", byPO(winspec.Func{Kind: winspec.FirstValue, Args: []expr.Expr{colV}, Frame: defOrdered, Type: coldata.Int64}), ints(7, 7, 5, 7, 7, 5, 100, 7)},
		{"last_value default frame ends at the last peer", byPO(winspec.Func{Kind: winspec.LastValue, Args: []expr.Expr{colV}, Frame: defOrdered, Type: coldata.Int64}),
			ints(10, nil, 5, nil, 7, 1, 100, 3)},
		{"nth_value whole partition", byPO(winspec.Func{Kind: winspec.NthValue, N: 2, Args: []expr.Expr{colV}, Frame: winspec.Frame{Unit: winspec.Rows, Start: unbPre, End: unbFol}, Type: coldata.Int64}),
			ints(10, 10, 1, 10, 10, 1, nil, 10)},
		{"sum default frame includes peers", byPO(winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{colV}, Frame: defOrdered, Type: coldata.Int64}), ints(17, 37, 5, 37, 7, 6, 100, 40)},
		{"count default frame", byPO(winspec.Func{Kind: winspec.Count, Args: []expr.Expr{colV}, Frame: defOrdered, Type: coldata.Int64}), ints(2, 3, 1, 3, 1, 2, 1, 4)},
		{"count(*) default frame", byPO(winspec.Func{Kind: winspec.CountStar, Frame: defOrdered, Type: coldata.Int64}), ints(2, 4, 1, 4, 1, 2, 1, 5)},
		{"sum rows 1 preceding", byPO(winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{colV}, Frame: winspec.Frame{Unit: winspec.Rows, Start: rows(1), End: cur}, Type: coldata.Int64}),
			ints(17, 30, 5, 20, 7, 6, 100, 3)},
		{"min rows to the end", byPO(winspec.Func{Kind: winspec.Min, Args: []expr.Expr{colV}, Frame: winspec.Frame{Unit: winspec.Rows, Start: cur, End: unbFol}, Type: coldata.Int64}),
			ints(3, 3, 1, 3, 3, 1, 100, 3)},
		{"max rows following only", byPO(winspec.Func{Kind: winspec.Max, Args: []expr.Expr{colV}, Frame: winspec.Frame{Unit: winspec.Rows, Start: fol(1), End: fol(2)}, Type: coldata.Int64}),
			ints(20, 3, 1, 3, 20, nil, nil, nil)},
		{"avg whole partition", winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{colF}, Partition: []expr.Expr{colP}, Frame: winspec.DefaultFrame(false), Type: coldata.Float64},
			[]any{1.75, 1.75, 3.25, 1.75, 1.75, 3.25, 1.0, 1.75}},
		{"sum range offsets (NULL key: its peers)", byPO(winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{colV}, Frame: winspec.Frame{Unit: winspec.Range, Start: rows(1), End: fol(1)}, Type: coldata.Int64}),
			ints(30, 30, 5, 30, 7, 1, 100, 3)},
		{"sum range descending", winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{colV}, Order: []winspec.Key{{Expr: colO, Desc: true}}, Frame: winspec.Frame{Unit: winspec.Range, Start: cur, End: fol(2)}, Type: coldata.Int64},
			ints(15, 35, 15, 35, 7, 36, 121, 104)},
		{"sum range over a DOUBLE key", winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{colV}, Order: []winspec.Key{{Expr: colF}}, Frame: winspec.Frame{Unit: winspec.Range, Start: winspec.Bound{Kind: winspec.Preceding, Offset: 0.5}, End: cur}, Type: coldata.Int64},
			ints(110, 20, 8, 5, 7, 1, 107, 13)},
		{"count(*) range with a fractional offset", winspec.Func{Kind: winspec.CountStar, Order: []winspec.Key{{Expr: colO}}, Frame: winspec.Frame{Unit: winspec.Range, Start: winspec.Bound{Kind: winspec.Preceding, Offset: 1.5}, End: cur}, Type: coldata.Int64},
			ints(2, 4, 2, 4, 1, 3, 2, 2)},
		{"row_number nulls last", winspec.Func{Kind: winspec.RowNumber, Order: []winspec.Key{{Expr: colO, Nulls: opspec.NullsLast}, {Expr: colID}}, Type: coldata.Int64},
			ints(1, 3, 2, 4, 8, 5, 6, 7)},
		{"row_number desc nulls first", winspec.Func{Kind: winspec.RowNumber, Order: []winspec.Key{{Expr: colO, Desc: true, Nulls: opspec.NullsFirst}, {Expr: colID}}, Type: coldata.Int64},
			ints(7, 5, 8, 6, 1, 4, 3, 2)},
		{"running max of strings", winspec.Func{Kind: winspec.Max, Args: []expr.Expr{colP}, Order: []winspec.Key{{Expr: colID}}, Frame: defOrdered, Type: coldata.String},
			[]any{"a", "a", "b", "b", "b", "b", "b", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Compute(context.Background(), fixture(), []winspec.Func{tc.f})
			if err != nil {
				t.Fatal(err)
			}
			if got := values(out[0]); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s\n got %v\nwant %v", tc.f.String(), got, tc.want)
			}
		})
	}
}

// Functions over equal windows share one sort; functions reading columns
// of the same name (two tables' a) must not be confused.
func TestComputeSharesAndSeparates(t *testing.T) {
	b := coldata.NewBatch([]*coldata.Vec{vec(coldata.Int64, 3, 1, 2), vec(coldata.Int64, 1, 2, 3)}, 3)
	a0 := &expr.ColumnRef{Index: 0, Name: "a", T: coldata.Int64}
	a1 := &expr.ColumnRef{Index: 1, Name: "a", T: coldata.Int64}
	funcs := []winspec.Func{
		{Kind: winspec.RowNumber, Order: []winspec.Key{{Expr: a0}}, Type: coldata.Int64},
		{Kind: winspec.RowNumber, Order: []winspec.Key{{Expr: a1}}, Type: coldata.Int64},
		{Kind: winspec.Sum, Args: []expr.Expr{a0}, Order: []winspec.Key{{Expr: a0}}, Frame: winspec.DefaultFrame(true), Type: coldata.Int64},
		{Kind: winspec.Sum, Args: []expr.Expr{a1}, Order: []winspec.Key{{Expr: a0}}, Frame: winspec.DefaultFrame(true), Type: coldata.Int64},
	}
	out, err := Compute(context.Background(), b, funcs)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{ints(3, 1, 2), ints(1, 2, 3), ints(6, 1, 3), ints(6, 2, 5)}
	for i := range funcs {
		if got := values(out[i]); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%d %s: got %v want %v", i, funcs[i].String(), got, want[i])
		}
	}
	if funcs[0].Identity() == funcs[1].Identity() || funcs[2].Identity() == funcs[3].Identity() {
		t.Errorf("identities of calls over different columns collide")
	}
	if funcs[0].String() != funcs[1].String() {
		t.Errorf("String should render names only")
	}
}

func TestComputeSums(t *testing.T) {
	big := int64(math.MaxInt64)
	b := coldata.NewBatch([]*coldata.Vec{vec(coldata.Int64, big, 1, -1), vec(coldata.Int64, 0, 1, 2)}, 3)
	v := &expr.ColumnRef{Index: 0, Name: "v", T: coldata.Int64}
	o := &expr.ColumnRef{Index: 1, Name: "o", T: coldata.Int64}
	// The whole partition's sum fits although a running sum does not.
	out, err := Compute(context.Background(), b, []winspec.Func{{Kind: winspec.Sum, Args: []expr.Expr{v}, Frame: winspec.DefaultFrame(false), Type: coldata.Int64}})
	if err != nil {
		t.Fatal(err)
	}
	if got := values(out[0]); !reflect.DeepEqual(got, ints(big, big, big)) {
		t.Errorf("exact sum: got %v", got)
	}
	// AVG over BIGINTs is exact too.
	out, err = Compute(context.Background(), b, []winspec.Func{{Kind: winspec.Avg, Args: []expr.Expr{v}, Frame: winspec.DefaultFrame(false), Type: coldata.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Value(0).(float64); got != float64(big)/3 {
		t.Errorf("avg: got %v", got)
	}
	_, err = Compute(context.Background(), b, []winspec.Func{{Kind: winspec.Sum, Args: []expr.Expr{v}, Order: []winspec.Key{{Expr: o}}, Frame: winspec.DefaultFrame(true), Type: coldata.Int64}})
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("running sum past BIGINT: err %v", err)
	}
}

// TestComputeIntAvg: AVG of integers as DECIMAL(38,4), MySQL's type: the
// exact sum (past BIGINT too) over the count, rounded half away from zero
// at the fourth digit, over sorted frames and hashed whole partitions.
func TestComputeIntAvg(t *testing.T) {
	big := int64(math.MaxInt64)
	dec := coldata.DecimalOf(38, 4)
	v := &expr.ColumnRef{Index: 0, Name: "v", T: coldata.Int64}
	o := &expr.ColumnRef{Index: 1, Name: "o", T: coldata.Int64}
	p := &expr.ColumnRef{Index: 2, Name: "p", T: coldata.Int64}
	// 64 rows in partitions p = 0 and 1 of 32: v is 5 in the first row
	// of the first and -5 in the first of the second, else 0; o = row.
	vs, os, ps := make([]any, 64), make([]any, 64), make([]any, 64)
	for i := range vs {
		vs[i], os[i], ps[i] = 0, i, i/32
	}
	vs[0], vs[32] = 5, -5
	halves := coldata.NewBatch([]*coldata.Vec{vec(coldata.Int64, vs...), vec(coldata.Int64, os...), vec(coldata.Int64, ps...)}, 64)
	for _, tc := range []struct {
		name string
		b    *coldata.Batch
		f    winspec.Func
		want []string // rows 0, 1, 2 and the last
	}{
		{"whole, past BIGINT", coldata.NewBatch([]*coldata.Vec{vec(coldata.Int64, big, 1, -1), vec(coldata.Int64, 0, 1, 2)}, 3),
			winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{v}, Frame: winspec.DefaultFrame(false), Type: dec},
			[]string{"3074457345618258602.3333", "3074457345618258602.3333", "3074457345618258602.3333"}},
		{"running, past BIGINT", coldata.NewBatch([]*coldata.Vec{vec(coldata.Int64, big, 1, nil, -1), vec(coldata.Int64, 0, 1, 2, 3)}, 4),
			winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{v}, Order: []winspec.Key{{Expr: o}}, Frame: winspec.DefaultFrame(true), Type: dec},
			[]string{"9223372036854775807.0000", "4611686018427387904.0000", "4611686018427387904.0000", "3074457345618258602.3333"}},
		{"NULLs only", coldata.NewBatch([]*coldata.Vec{vec(coldata.Int64, nil, nil), vec(coldata.Int64, 0, 1)}, 2),
			winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{v}, Order: []winspec.Key{{Expr: o}}, Frame: winspec.DefaultFrame(true), Type: dec},
			[]string{"NULL", "NULL"}},
		// ±5/32 = ±0.15625: half away from zero at the fifth digit.
		{"hashed, half away from zero", halves,
			winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{v}, Partition: []expr.Expr{p}, Frame: winspec.DefaultFrame(false), Type: dec},
			[]string{"0.1563", "0.1563", "0.1563", "-0.1563"}},
		{"running, half away from zero", halves,
			winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{v}, Partition: []expr.Expr{p}, Order: []winspec.Key{{Expr: o}}, Frame: winspec.DefaultFrame(true), Type: dec},
			[]string{"5.0000", "2.5000", "1.6667", "-0.1563"}},
		{"moving 32 rows, half away from zero", halves,
			winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{v}, Partition: []expr.Expr{p}, Order: []winspec.Key{{Expr: o, Desc: true}}, Frame: winspec.Frame{Unit: winspec.Rows, Start: rows(31), End: cur}, Type: dec},
			[]string{"0.1563", "0.0000", "0.0000", "0.0000"}}, // rows 1 to 31 come before row 0
	} {
		out, err := Compute(context.Background(), tc.b, []winspec.Func{tc.f})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out[0].Type != dec {
			t.Fatalf("%s: type %s", tc.name, out[0].Type)
		}
		var got []string
		for _, r := range []int{0, 1, 2, tc.b.Len - 1}[:min(4, tc.b.Len)] {
			if out[0].IsNull(r) {
				got = append(got, "NULL")
			} else {
				got = append(got, out[0].Decs[r].String(4))
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// naive computes an aggregate by the definition of its frame: the set of
// rows of the partition whose position (ROWS; keys are unique) or key
// (RANGE) is within the bounds, with no sorting or sliding.
func naive(b *coldata.Batch, f winspec.Func) []any {
	p, o, v := b.Cols[0], b.Cols[1], b.Cols[2]
	n := b.Len
	desc := len(f.Order) > 0 && f.Order[0].Desc
	off := func(bd winspec.Bound) float64 {
		switch bd.Kind {
		case winspec.UnboundedPreceding:
			return math.Inf(-1)
		case winspec.UnboundedFollowing:
			return math.Inf(1)
		case winspec.CurrentRow:
			return 0
		}
		var k float64
		switch x := bd.Offset.(type) {
		case int64:
			k = float64(x)
		case float64:
			k = x
		}
		if bd.Kind == winspec.Preceding {
			return -k
		}
		return k
	}
	lo, hi := off(f.Frame.Start), off(f.Frame.End)
	// coord is a row's place along the frame axis.
	coord := func(j int) float64 {
		x := float64(o.Int(j))
		if f.Frame.Unit == winspec.Rows {
			x = 0
			for k := 0; k < n; k++ {
				if p.Int(k) == p.Int(j) && (o.Int(k) < o.Int(j)) != desc && o.Int(k) != o.Int(j) {
					x++
				}
			}
			return x
		}
		if desc {
			return -x
		}
		return x
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		ci := coord(i)
		var acc []int64
		for j := 0; j < n; j++ {
			if p.Int(j) != p.Int(i) {
				continue
			}
			if d := coord(j) - ci; d < lo || d > hi || v.IsNull(j) {
				continue
			}
			acc = append(acc, v.Int(j))
		}
		switch f.Kind {
		case winspec.Count:
			out[i] = int64(len(acc))
			continue
		}
		if len(acc) == 0 {
			continue
		}
		sort.Slice(acc, func(a, b int) bool { return acc[a] < acc[b] })
		var s int64
		for _, x := range acc {
			s += x
		}
		switch f.Kind {
		case winspec.Sum:
			out[i] = s
		case winspec.Avg:
			out[i] = float64(s) / float64(len(acc))
			if f.Type.IsDecimal() {
				d, _ := decimal.FromInt64(s).Rescale(0, f.Type.Scale())
				out[i], _ = d.DivRound(decimal.FromInt64(int64(len(acc))))
			}
		case winspec.Min:
			out[i] = acc[0]
		case winspec.Max:
			out[i] = acc[len(acc)-1]
		}
	}
	return out
}

// TestFramesAgainstDefinition checks sliding sums, the min/max deque and
// the frame bounds against naive on random data and frames.
func TestFramesAgainstDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	bound := func(start bool) winspec.Bound {
		switch rng.Intn(5) {
		case 0:
			if start {
				return unbPre
			}
			return unbFol
		case 1:
			return cur
		case 2:
			return rows(int64(rng.Intn(4)))
		}
		return fol(int64(rng.Intn(4)))
	}
	kinds := []winspec.Kind{winspec.Sum, winspec.Count, winspec.Min, winspec.Max, winspec.Avg}
	for iter := 0; iter < 400; iter++ {
		n := 1 + rng.Intn(40)
		unit := winspec.Unit(rng.Intn(2))
		pb, ob, vb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		perm := rng.Perm(n)
		for i := 0; i < n; i++ {
			pb.AppendValue(int64(rng.Intn(3)))
			if unit == winspec.Rows {
				ob.AppendValue(int64(perm[i])) // unique: positions are defined
			} else {
				ob.AppendValue(int64(rng.Intn(n/2+1) * 2)) // ties
			}
			if rng.Intn(6) == 0 {
				vb.AppendNull()
			} else {
				vb.AppendValue(int64(rng.Intn(100) - 50))
			}
		}
		b := coldata.NewBatch([]*coldata.Vec{pb.Finish(), ob.Finish(), vb.Finish()}, n)
		fr := winspec.Frame{Unit: unit, Start: bound(true), End: bound(false)}
		if fr.Start.Kind > fr.End.Kind || fr.Start.Kind == winspec.UnboundedFollowing || fr.End.Kind == winspec.UnboundedPreceding {
			continue // rejected by the parser
		}
		k := kinds[rng.Intn(len(kinds))]
		typ := coldata.Int64
		if k == winspec.Avg {
			// MySQL's DECIMAL average of integers, or a DOUBLE one.
			typ = []coldata.Type{coldata.DecimalOf(38, 4), coldata.Float64}[rng.Intn(2)]
		}
		f := winspec.Func{Kind: k, Args: []expr.Expr{&expr.ColumnRef{Index: 2, T: coldata.Int64}},
			Partition: []expr.Expr{&expr.ColumnRef{Index: 0, T: coldata.Int64}},
			Order:     []winspec.Key{{Expr: &expr.ColumnRef{Index: 1, T: coldata.Int64}, Desc: rng.Intn(2) == 0}},
			Frame:     fr, Type: typ}
		out, err := Compute(context.Background(), b, []winspec.Func{f})
		if err != nil {
			t.Fatalf("%s: %v", f.String(), err)
		}
		if got, want := values(out[0]), naive(b, f); !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d %s over p=%v o=%v v=%v:\n got %v\nwant %v", iter, f.String(), values(b.Cols[0]), values(b.Cols[1]), values(b.Cols[2]), got, want)
		}
	}
}

// source yields its batches one by one.
type source struct {
	batches []*coldata.Batch
	i       int
}

func (s *source) Open(context.Context) error { s.i = 0; return nil }
func (s *source) Next(context.Context) (*coldata.Batch, error) {
	if s.i >= len(s.batches) {
		return nil, nil
	}
	s.i++
	return s.batches[s.i-1], nil
}
func (s *source) Close() error { return nil }

func TestOperator(t *testing.T) {
	all := fixture()
	split := &source{batches: []*coldata.Batch{coldata.SliceBatch(all, 0, 3), coldata.SliceBatch(all, 3, 8)}}
	op := &Operator{Input: split, NCols: 5, Funcs: []winspec.Func{
		byPO(winspec.Func{Kind: winspec.RowNumber, Type: coldata.Int64}),
		{Kind: winspec.CountStar, Frame: winspec.DefaultFrame(false), Type: coldata.Int64},
	}}
	bs, err := operators.Drain(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, b := range bs {
		if len(b.Cols) != 7 {
			t.Fatalf("%d columns, want 7", len(b.Cols))
		}
		for r := 0; r < b.Len; r++ {
			got = append(got, []any{b.Cols[4].Value(r), b.Cols[5].Value(r), b.Cols[6].Value(r)})
		}
	}
	want := [][]any{}
	for i, rn := range ints(2, 3, 1, 4, 1, 2, 1, 5) {
		want = append(want, []any{int64(i), rn, int64(8)})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}

	// Empty input: no rows, no error.
	op = &Operator{Input: &source{}, NCols: 5, Funcs: []winspec.Func{{Kind: winspec.CountStar, Frame: winspec.DefaultFrame(false), Type: coldata.Int64}}}
	if bs, err := operators.Drain(context.Background(), op); err != nil || len(bs) != 0 {
		t.Errorf("empty input: %d batches, %v", len(bs), err)
	}

	// A cancelled query stops with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	op = &Operator{Input: &source{batches: []*coldata.Batch{all}}, NCols: 5, Funcs: []winspec.Func{byPO(winspec.Func{Kind: winspec.Rank, Type: coldata.Int64})}}
	if _, err := operators.Drain(ctx, op); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestNtileSizes(t *testing.T) {
	// Bucket sizes differ by at most one, larger buckets first.
	for size := 1; size <= 12; size++ {
		for nb := 1; nb <= 14; nb++ {
			b := coldata.NewBatch([]*coldata.Vec{coldata.NewConst(coldata.Int64, int64(0), size)}, size)
			out, err := Compute(context.Background(), b, []winspec.Func{{Kind: winspec.Ntile, N: int64(nb), Type: coldata.Int64}})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[int64]int{}
			prev := int64(1)
			for i := 0; i < size; i++ {
				x := out[0].Int(i)
				if x < prev || x > prev+1 {
					t.Fatalf("size %d, %d buckets: bucket %d after %d", size, nb, x, prev)
				}
				prev = x
				counts[x]++
			}
			want := min(nb, size)
			if len(counts) != want {
				t.Fatalf("size %d, %d buckets: %d buckets used", size, nb, len(counts))
			}
			for k := int64(1); k <= int64(want); k++ {
				exp := size / want
				if int(k) <= size%want {
					exp++
				}
				if counts[k] != exp {
					t.Fatalf("size %d, %d buckets: bucket %d has %d rows, want %d", size, nb, k, counts[k], exp)
				}
			}
		}
	}
}

func TestFuncString(t *testing.T) {
	for _, tc := range []struct {
		f    winspec.Func
		want string
	}{
		{byPO(winspec.Func{Kind: winspec.RowNumber}), "row_number() OVER (PARTITION BY p ORDER BY o)"},
		{winspec.Func{Kind: winspec.Lag, N: 2, Args: []expr.Expr{colV, &expr.Literal{Value: int64(0), T: coldata.Int64}}, Order: []winspec.Key{{Expr: colO, Desc: true, Nulls: opspec.NullsLast}}},
			"lag(v, 2, 0) OVER (ORDER BY o DESC NULLS LAST)"},
		{winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{colV}, Order: []winspec.Key{{Expr: colO}}, Frame: winspec.Frame{Unit: winspec.Rows, Start: rows(1), End: fol(2)}},
			"sum(v) OVER (ORDER BY o ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING)"},
		{winspec.Func{Kind: winspec.CountStar, Frame: winspec.DefaultFrame(false)}, "count(*) OVER (RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"},
		{winspec.Func{Kind: winspec.Ntile, N: 4, Order: []winspec.Key{{Expr: colO}}}, "ntile(4) OVER (ORDER BY o)"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("got %q want %q", got, tc.want)
		}
	}
}

// TestFloatSumPaths covers the three ways floatSums adds a frame: running,
// row by row, and the tree of partial sums for long moving frames (whole
// numbers, so every path is exact).
func TestFloatSumPaths(t *testing.T) {
	const n = 3000
	b := coldata.NewBuilder(coldata.Float64, n)
	for i := 0; i < n; i++ {
		if i%7 == 0 {
			b.AppendNull()
		} else {
			b.AppendValue(float64(i%13 - 6))
		}
	}
	v := b.Finish()
	partStart := make([]int, n)
	for _, width := range []int{0, 5, 2000} {
		lo, hi := make([]int, n), make([]int, n)
		for i := range lo {
			if width == 0 {
				lo[i], hi[i] = 0, i+1 // running
			} else {
				lo[i], hi[i] = max(0, i-width), min(n, i+width)
			}
		}
		got := floatSums(v, partStart, lo, hi)
		for i := range got {
			want := 0.0
			for j := lo[i]; j < hi[i]; j++ {
				if !v.IsNull(j) {
					want += v.Floats[j]
				}
			}
			if got[i] != want {
				t.Fatalf("width %d row %d: got %v want %v", width, i, got[i], want)
			}
		}
	}
}
