package window

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// hashedFixture is n random rows: partition keys of every groupable kind
// (with NULLs, -0.0 beside 0.0, empty strings) and arguments of every
// type a partition aggregate takes (with NULLs).
//
//	col  name  type
//	0    k1    BIGINT, 7 values
//	1    k2    VARCHAR, 5 values ('' among them)
//	2    k3    DOUBLE, -0.0, 0.0, 1.5, NaN
//	3    k4    DECIMAL(12,2), 4 values
//	4    v     BIGINT, some near 2^58
//	5    f     DOUBLE, -0.0, 0.0 and fractions
//	6    d     DECIMAL(18,3)
//	7    s     VARCHAR
//	8    b     BOOLEAN
//	9    o     BIGINT, an order key with ties
//	10   dt    DATE
func hashedFixture(rng *rand.Rand, n int) *coldata.Batch {
	dk, dv := coldata.DecimalOf(12, 2), coldata.DecimalOf(18, 3)
	bs := []*coldata.Builder{
		coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n),
		coldata.NewBuilder(coldata.Float64, n), coldata.NewBuilder(dk, n),
		coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n),
		coldata.NewBuilder(dv, n), coldata.NewBuilder(coldata.String, n),
		coldata.NewBuilder(coldata.Bool, n), coldata.NewBuilder(coldata.Int64, n),
		coldata.NewBuilder(coldata.Date, n),
	}
	strs := []string{"", "a", "b", "ab", "zz"}
	for i := 0; i < n; i++ {
		null := func(c *coldata.Builder) bool {
			if rng.Intn(8) == 0 {
				c.AppendNull()
				return true
			}
			return false
		}
		if !null(bs[0]) {
			bs[0].AppendInt(int64(rng.Intn(7)) - 3)
		}
		if !null(bs[1]) {
			bs[1].AppendString(strs[rng.Intn(len(strs))])
		}
		if !null(bs[2]) {
			bs[2].AppendFloat([]float64{math.Copysign(0, -1), 0, 1.5, math.NaN()}[rng.Intn(4)])
		}
		if !null(bs[3]) {
			bs[3].AppendDec(decimal.FromInt64(int64(rng.Intn(4)*125 - 100)))
		}
		if !null(bs[4]) {
			x := int64(rng.Intn(2000) - 1000)
			if rng.Intn(100) == 0 {
				x = 1<<58 + x // sums past 2^53: exactness shows
			}
			bs[4].AppendInt(x)
		}
		if !null(bs[5]) {
			f := rng.NormFloat64() * 1e3
			switch rng.Intn(10) {
			case 0:
				f = math.Copysign(0, -1)
			case 1:
				f = 0
			}
			bs[5].AppendFloat(f)
		}
		if !null(bs[6]) {
			bs[6].AppendDec(decimal.FromInt64(rng.Int63n(1e12) - 5e11))
		}
		if !null(bs[7]) {
			bs[7].AppendString(fmt.Sprintf("s%d", rng.Intn(40)))
		}
		if !null(bs[8]) {
			bs[8].AppendBool(rng.Intn(2) == 0)
		}
		bs[9].AppendInt(int64(rng.Intn(10)))
		if !null(bs[10]) {
			bs[10].AppendInt(int64(18000 + rng.Intn(400)))
		}
	}
	cols := make([]*coldata.Vec, len(bs))
	for i, b := range bs {
		cols[i] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

var hashedCols = func() []*expr.ColumnRef {
	names := []string{"k1", "k2", "k3", "k4", "v", "f", "d", "s", "b", "o", "dt"}
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Float64, coldata.DecimalOf(12, 2), coldata.Int64,
		coldata.Float64, coldata.DecimalOf(18, 3), coldata.String, coldata.Bool, coldata.Int64, coldata.Date}
	out := make([]*expr.ColumnRef, len(names))
	for i := range names {
		out[i] = &expr.ColumnRef{Index: i, Name: names[i], T: types[i]}
	}
	return out
}()

// aggFunc builds kind(arg) OVER (PARTITION BY keys [ORDER BY o] frame)
// with the binder's result type.
func aggFunc(kind winspec.Kind, arg *expr.ColumnRef, keys []int, ordered bool, frame winspec.Frame) winspec.Func {
	f := winspec.Func{Kind: kind, Frame: frame, Type: coldata.Int64}
	for _, k := range keys {
		f.Partition = append(f.Partition, hashedCols[k])
	}
	if ordered {
		f.Order = []winspec.Key{{Expr: hashedCols[9], Desc: true}}
	}
	if kind == winspec.CountStar {
		return f
	}
	f.Args = []expr.Expr{arg}
	switch kind {
	case winspec.Sum:
		f.Type = opspec.AggResultType(opspec.AggSum, arg.T)
	case winspec.Avg:
		f.Type = opspec.AggResultType(opspec.AggAvg, arg.T)
		if arg.T == coldata.Int64 || arg.T == coldata.Bool {
			f.Type = coldata.DecimalOf(38, 4) // MySQL's AVG of integers
		}
	case winspec.Min, winspec.Max:
		f.Type = arg.T
	}
	return f
}

// sortedCompute is the sorted path for one function, whatever Hashed says.
func sortedCompute(ctx context.Context, b *coldata.Batch, f *winspec.Func) (*coldata.Vec, error) {
	p, err := newPartitioned(ctx, b, f.Partition, f.Order)
	if err != nil {
		return nil, err
	}
	return p.compute(ctx, b, f)
}

// sameValues compares two result vectors exactly: DOUBLEs by their bits
// (NaN equal to NaN, -0 distinct from 0).
func sameValues(a, b *coldata.Vec) (int, bool) {
	if a.Len != b.Len || a.Type != b.Type {
		return -1, false
	}
	for i := 0; i < a.Len; i++ {
		if a.IsNull(i) != b.IsNull(i) {
			return i, false
		}
		if a.IsNull(i) {
			continue
		}
		if a.Type.Physical() == coldata.Float64 {
			if math.Float64bits(a.Float(i)) != math.Float64bits(b.Float(i)) {
				return i, false
			}
		} else if opspec.CompareValues(a, i, b, i) != 0 {
			return i, false
		}
	}
	return 0, true
}

// TestHashedMatchesSorted: every partition aggregate over whole
// partitions, computed by hashing, equals the sorted path's result over
// random rows, for every key kind and argument type.
func TestHashedMatchesSorted(t *testing.T) {
	ctx := context.Background()
	whole := winspec.Frame{Unit: winspec.Rows, Start: winspec.Bound{Kind: winspec.UnboundedPreceding},
		End: winspec.Bound{Kind: winspec.UnboundedFollowing}}
	peers := winspec.Frame{Unit: winspec.Range, Start: winspec.Bound{Kind: winspec.CurrentRow},
		End: winspec.Bound{Kind: winspec.CurrentRow}}
	frames := []struct {
		name    string
		ordered bool
		frame   winspec.Frame
	}{
		{"default", false, winspec.DefaultFrame(false)},
		{"ordered whole", true, whole},
		{"unordered rows whole", false, whole},
		{"unordered range current", false, peers},
	}
	keySets := [][]int{{0}, {1}, {2}, {3}, {0, 1}, {1, 2, 0}, {3, 1}}
	type call struct {
		kind winspec.Kind
		arg  int
	}
	calls := []call{{winspec.CountStar, 0}, {winspec.Count, 7}, {winspec.Count, 5}}
	for _, a := range []int{4, 5, 6, 8} {
		calls = append(calls, call{winspec.Sum, a}, call{winspec.Avg, a})
	}
	for _, a := range []int{4, 5, 6, 7, 8, 10} {
		calls = append(calls, call{winspec.Min, a}, call{winspec.Max, a})
	}
	rng := rand.New(rand.NewSource(40))
	for _, n := range []int{1, 2, 17, 3000} {
		b := hashedFixture(rng, n)
		for _, fr := range frames {
			for _, keys := range keySets {
				for _, c := range calls {
					f := aggFunc(c.kind, hashedCols[c.arg], keys, fr.ordered, fr.frame)
					name := fmt.Sprintf("n=%d/%s/%s", n, fr.name, f.String())
					funcs := []winspec.Func{f}
					want, err := sortedCompute(ctx, b, &f)
					if err != nil {
						t.Fatalf("%s: sorted: %v", name, err)
					}
					float := c.kind != winspec.CountStar && c.kind != winspec.Count && hashedCols[c.arg].T == coldata.Float64
					if h := winspec.Hashed(funcs, 0); h != !(fr.ordered && float) {
						t.Fatalf("%s: Hashed = %v", name, h)
					}
					got, err := Compute(ctx, b, funcs)
					if err != nil {
						t.Fatalf("%s: hashed: %v", name, err)
					}
					if i, ok := sameValues(got[0], want); !ok {
						t.Fatalf("%s: row %d: hashed %v, sorted %v", name, i, got[0].Value(max(i, 0)), want.Value(max(i, 0)))
					}
				}
			}
		}
	}
}

// TestHashedSharedWindow: functions sharing a window are hashed together
// only when all of them are partition aggregates; a ROW_NUMBER beside
// them keeps the sort for the whole window, and results agree either way.
func TestHashedSharedWindow(t *testing.T) {
	ctx := context.Background()
	b := hashedFixture(rand.New(rand.NewSource(41)), 500)
	whole := winspec.DefaultFrame(false)
	cnt := aggFunc(winspec.CountStar, nil, []int{0, 1}, false, whole)
	sum := aggFunc(winspec.Sum, hashedCols[4], []int{0, 1}, false, whole)
	avg := aggFunc(winspec.Avg, hashedCols[5], []int{0, 1}, false, whole)
	rn := winspec.Func{Kind: winspec.RowNumber, Partition: cnt.Partition, Type: coldata.Int64}
	other := aggFunc(winspec.Max, hashedCols[7], []int{2}, false, whole)
	for _, tc := range []struct {
		name   string
		funcs  []winspec.Func
		hashed []bool
	}{
		{"all aggregates", []winspec.Func{cnt, sum, avg}, []bool{true, true, true}},
		{"with row_number", []winspec.Func{cnt, rn, sum}, []bool{false, false, false}},
		{"two windows", []winspec.Func{cnt, rn, other}, []bool{false, false, true}},
	} {
		for i := range tc.funcs {
			if got := winspec.Hashed(tc.funcs, i); got != tc.hashed[i] {
				t.Errorf("%s: Hashed(%d) = %v, want %v", tc.name, i, got, tc.hashed[i])
			}
		}
		got, err := Compute(ctx, b, tc.funcs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range tc.funcs {
			want, err := sortedCompute(ctx, b, &tc.funcs[i])
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := sameValues(got[i], want); !ok {
				t.Errorf("%s: %s differs at row %d", tc.name, tc.funcs[i].String(), r)
			}
		}
	}
}

// TestHashedErrors: a BIGINT SUM past the type and a DECIMAL sum past its
// precision are errors on the hashed path as on the sorted one.
func TestHashedErrors(t *testing.T) {
	ctx := context.Background()
	key := &expr.ColumnRef{Index: 0, Name: "k", T: coldata.Int64}
	big := &expr.ColumnRef{Index: 1, Name: "v", T: coldata.Int64}
	dt := coldata.DecimalOf(38, 0)
	dec := &expr.ColumnRef{Index: 2, Name: "d", T: dt}
	huge, _ := decimal.Parse("99999999999999999999999999999999999999", 0)
	b := coldata.NewBatch([]*coldata.Vec{
		vec(coldata.Int64, 1, 1, 2),
		vec(coldata.Int64, int64(math.MaxInt64), int64(1), int64(5)),
		vec(dt, huge, huge, decimal.FromInt64(1)),
	}, 3)
	for _, tc := range []struct {
		f    winspec.Func
		want string
	}{
		{winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{big}, Partition: []expr.Expr{key}, Frame: winspec.DefaultFrame(false),
			Type: coldata.Int64}, "out of range"},
		{winspec.Func{Kind: winspec.Sum, Args: []expr.Expr{dec}, Partition: []expr.Expr{key}, Frame: winspec.DefaultFrame(false),
			Type: opspec.AggResultType(opspec.AggSum, dt)}, "SUM"},
	} {
		if !winspec.Hashed([]winspec.Func{tc.f}, 0) {
			t.Fatalf("%s not hashed", tc.f.String())
		}
		_, err := Compute(ctx, b, []winspec.Func{tc.f})
		_, serr := sortedCompute(ctx, b, &tc.f)
		if err == nil || serr == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: hashed error %v, sorted error %v", tc.f.String(), err, serr)
		}
	}
	// AVG of the same BIGINTs fits: the exact sum, as a DOUBLE.
	avg := winspec.Func{Kind: winspec.Avg, Args: []expr.Expr{big}, Partition: []expr.Expr{key}, Frame: winspec.DefaultFrame(false),
		Type: coldata.Float64}
	got, err := Compute(ctx, b, []winspec.Func{avg})
	if err != nil {
		t.Fatal(err)
	}
	if want := (float64(math.MaxInt64) + 1) / 2; got[0].Floats[0] != want || got[0].Floats[2] != 5 {
		t.Errorf("avg: %v", values(got[0]))
	}
}

// TestHashedCancelled: a cancelled context stops the hashed path.
func TestHashedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := hashedFixture(rand.New(rand.NewSource(42)), 100)
	f := aggFunc(winspec.CountStar, nil, []int{0}, false, winspec.DefaultFrame(false))
	if _, err := Compute(ctx, b, []winspec.Func{f}); err == nil {
		t.Fatal("no error from a cancelled context")
	}
}
