package expr

import (
	"fmt"
	"math"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// checkDecCompare evaluates a op b (vectors or constants of n rows, of
// one decimal type) and checks every row against Int128.Cmp.
func checkDecCompare(t *testing.T, op cmpOp, a, b *coldata.Vec, n int) {
	t.Helper()
	got, err := compareVecs(op, a, b, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		x, y := a.Dec(i), b.Dec(i)
		var want any
		if !a.IsNull(i) && !b.IsNull(i) {
			want = op.holds(x.Cmp(y))
		}
		if g := got.Value(i); g != want {
			t.Fatalf("row %d: %s %s %s = %v, want %v", i, x.String(2), cmpNames[op], y.String(2), g, want)
		}
	}
}

// TestDecimalCompareEdges runs every pair of decEdgeValues (int64 limits,
// negatives, values beyond 64 bits) and every operator through the
// comparison kernels: column against constant (either side), column
// against column, a NULL row, and a value beyond 64 bits in an otherwise
// small column (the int64 loop's answer must be thrown away).
func TestDecimalCompareEdges(t *testing.T) {
	ty := coldata.DecimalOf(38, 2)
	vals := append([]decimal.Int128{
		{Lo: 1 << 63, Hi: 0},  // 2^63: its low word alone reads as negative
		{Lo: 1 << 63, Hi: -1}, // math.MinInt64 written out
		{Lo: 5, Hi: -1},       // a large negative whose low word is small
	}, decEdgeValues...)
	for op := cmpEQ; op <= cmpGE; op++ {
		t.Run(cmpNames[op], func(t *testing.T) {
			for _, k := range vals {
				// A column of every value with a NULL row, against k.
				col := coldata.NewVec(ty, len(vals)+1)
				copy(col.Decs, vals)
				col.Decs[len(vals)] = k
				col.SetNull(len(vals))
				n := col.Len
				c := coldata.NewConst(ty, k, n)
				checkDecCompare(t, op, col, c, n)
				checkDecCompare(t, op, c, col, n)
				other := coldata.NewVec(ty, n)
				for i := range other.Decs {
					other.Decs[i] = k
				}
				checkDecCompare(t, op, col, other, n)
				checkDecCompare(t, op, other, col, n)
			}
		})
	}
}

// TestDecimalCompareShapes covers empty vectors, a NULL constant, two
// constants, and decimals of different scales (converted to the larger
// scale before the kernels run).
func TestDecimalCompareShapes(t *testing.T) {
	t2, t4 := coldata.DecimalOf(15, 2), coldata.DecimalOf(10, 4)
	for op := cmpEQ; op <= cmpGE; op++ {
		empty := coldata.NewVec(t2, 0)
		got, err := compareVecs(op, empty, coldata.NewConst(t2, decimal.FromInt64(5), 0), 0)
		if err != nil || got.Len != 0 {
			t.Fatalf("empty %s: %v, %d rows", cmpNames[op], err, got.Len)
		}
		got, err = compareVecs(op, empty, coldata.NewVec(t2, 0), 0)
		if err != nil || got.Len != 0 {
			t.Fatalf("empty %s empty: %v, %d rows", cmpNames[op], err, got.Len)
		}
		col := decVec(t, 15, 2, "0.05", "-0.07", "0.06", "")
		got, err = compareVecs(op, col, coldata.NewConst(t2, nil, 4), 4)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			if !got.IsNull(i) {
				t.Fatalf("%s NULL: row %d is not NULL", cmpNames[op], i)
			}
		}
		got, err = compareVecs(op, coldata.NewConst(t2, decimal.FromInt64(5), 4), coldata.NewConst(t2, decimal.FromInt64(7), 4), 4)
		if err != nil {
			t.Fatal(err)
		}
		if g, want := got.Value(3), op.holds(-1); g != want {
			t.Fatalf("0.05 %s 0.07 = %v, want %v", cmpNames[op], g, want)
		}
		// 0.0600 (scale 4) against the scale-2 column.
		k := coldata.NewConst(t4, decimal.FromInt64(600), 4)
		got, err = compareVecs(op, col, k, 4)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []int{-1, -1, 0} {
			if g, want := got.Value(i), op.holds(c); g != want {
				t.Fatalf("row %d %s 0.0600 = %v, want %v", i, cmpNames[op], g, want)
			}
		}
		if got.Value(3) != nil {
			t.Fatalf("NULL %s 0.0600 is not NULL", cmpNames[op])
		}
	}
}

// TestDecimalCompareRandom compares TPC-H-like columns (and negatives)
// with constants and columns over batches longer than a word, with NULLs.
func TestDecimalCompareRandom(t *testing.T) {
	ty := coldata.DecimalOf(15, 2)
	const n = 1000
	a, b := coldata.NewVec(ty, n), coldata.NewVec(ty, n)
	for i := 0; i < n; i++ {
		a.Decs[i] = decimal.FromInt64(int64(i*37%2001) - 1000)
		b.Decs[i] = decimal.FromInt64(int64(i*53%2001) - 1000)
		if i%17 == 3 {
			a.SetNull(i)
		}
	}
	for op := cmpEQ; op <= cmpGE; op++ {
		for _, k := range []int64{-1000, -1, 0, 5, 999, math.MaxInt64} {
			checkDecCompare(t, op, a, coldata.NewConst(ty, decimal.FromInt64(k), n), n)
		}
		checkDecCompare(t, op, a, b, n)
		t.Run(fmt.Sprintf("%s/beyond-64-bits", cmpNames[op]), func(t *testing.T) {
			c := coldata.NewVec(ty, n)
			copy(c.Decs, b.Decs)
			c.Decs[n-1] = decimal.Int128{Lo: 3, Hi: 1}
			checkDecCompare(t, op, c, coldata.NewConst(ty, decimal.FromInt64(0), n), n)
			checkDecCompare(t, op, a, c, n)
		})
	}
}

// TestEqStringsWords checks = and <> against needles of 9 to 65 bytes
// (the word loop, and the byte loop beyond it) over rows equal to the
// needle, differing in its first, a middle or its last byte, one byte
// shorter or longer, empty, and rows at the very end of the data, where
// the words cannot be loaded.
func TestEqStringsWords(t *testing.T) {
	for _, ln := range []int{9, 10, 15, 16, 17, 23, 24, 25, 31, 32, 33, 63, 64, 65} {
		needle := make([]byte, ln)
		for i := range needle {
			needle[i] = byte('a' + i%26)
		}
		flip := func(k int) string {
			b := append([]byte(nil), needle...)
			b[k] ^= 0x20
			return string(b)
		}
		rows := []string{string(needle), flip(0), flip(ln / 2), flip(ln - 1), string(needle[:ln-1]),
			string(needle) + "x", "", "x" + string(needle[1:]), string(needle)}
		// The last rows again at the end, for the bytewise tail.
		rows = append(rows, flip(ln-1), string(needle))
		for _, op := range []cmpOp{cmpEQ, cmpNE} {
			b := coldata.NewBuilder(coldata.String, len(rows))
			for _, s := range rows {
				b.AppendString(s)
			}
			v := b.Finish()
			got, err := compareVecs(op, v, coldata.NewConst(coldata.String, string(needle), len(rows)), len(rows))
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range rows {
				if want := (s == string(needle)) == (op == cmpEQ); got.Bool(i) != want {
					t.Fatalf("len %d: %q %s needle = %v, want %v", ln, s, cmpNames[op], got.Bool(i), want)
				}
			}
		}
	}
}

// TestDecimalCompareType holds the comparison type of decimals to the
// widest integer part and the largest scale, so that a column meets a
// literal of its scale without a cast of the column, and to 38 digits
// only where the two do not fit together.
func TestDecimalCompareType(t *testing.T) {
	d := coldata.DecimalOf
	for _, tc := range []struct {
		args []coldata.Type
		want coldata.Type
	}{
		{[]coldata.Type{d(15, 2), d(3, 2)}, d(15, 2)},
		{[]coldata.Type{d(3, 2), d(15, 2)}, d(15, 2)},
		{[]coldata.Type{d(12, 2), d(10, 4)}, d(14, 4)},
		{[]coldata.Type{d(15, 2), coldata.Int64}, d(21, 2)},
		{[]coldata.Type{d(15, 2), coldata.Null}, d(15, 2)},
		{[]coldata.Type{d(38, 0), d(38, 10)}, d(38, 10)},
		{[]coldata.Type{d(30, 0), d(12, 10)}, d(38, 10)},
	} {
		if got, ok := decimalCompareType(tc.args); !ok || got != tc.want {
			t.Errorf("compare type of %v: %v (%v), want %v", tc.args, got, ok, tc.want)
		}
	}
}
