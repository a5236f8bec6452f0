package expr

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

func TestPackExpandBits(t *testing.T) {
	for m := 0; m < 256; m++ {
		w := expandBits[m]
		for k := 0; k < 8; k++ {
			if got := byte(w >> (8 * k)); got != byte(m>>k&1) {
				t.Fatalf("expandBits[%#x] byte %d = %d", m, k, got)
			}
		}
		if got := packBits(w); got != byte(m) {
			t.Fatalf("packBits(expandBits[%#x]) = %#x", m, got)
		}
	}
}

// TestAndOrWords checks AND and OR against the truth tables for lengths
// around the eight-row words (the tails run row by row) and every layout
// of NULLs: none, on either side, on both, a bitmap present with no NULL
// in it, and every row NULL.
func TestAndOrWords(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	ref := func(isAnd bool, a, b any) any {
		dom, other := false, true // AND: FALSE dominates
		if !isAnd {
			dom, other = true, false
		}
		if a == dom || b == dom {
			return dom
		}
		if a == nil || b == nil {
			return nil
		}
		return other
	}
	type layout struct {
		name         string
		nullA, nullB func(i int) bool
		emptyBitmap  bool // give both sides an all-valid bitmap
	}
	never := func(int) bool { return false }
	some := func(i int) bool { return i%3 == 1 || i%7 == 0 }
	always := func(int) bool { return true }
	layouts := []layout{
		{"no-nulls", never, never, false},
		{"nulls-left", some, never, false},
		{"nulls-right", never, some, false},
		{"nulls-both", some, func(i int) bool { return i%5 == 2 }, false},
		{"bitmaps-all-valid", never, never, true},
		{"all-null-left", always, never, false},
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100} {
		for _, l := range layouts {
			for _, isAnd := range []bool{true, false} {
				name := fmt.Sprintf("n=%d/%s/and=%v", n, l.name, isAnd)
				av, bv := make([]any, n), make([]any, n)
				for i := 0; i < n; i++ {
					av[i], bv[i] = r.Intn(2) == 1, r.Intn(2) == 1
					if l.nullA(i) {
						av[i] = nil
					}
					if l.nullB(i) {
						bv[i] = nil
					}
				}
				a, b := scVec(coldata.Bool, av...), scVec(coldata.Bool, bv...)
				if l.emptyBitmap {
					a.Nulls, b.Nulls = coldata.NewValidBitmap(n), coldata.NewValidBitmap(n)
				}
				out, err := andOr(a, b, n, isAnd)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				anyNull := false
				for i := 0; i < n; i++ {
					want := ref(isAnd, av[i], bv[i])
					anyNull = anyNull || want == nil
					if got := out.Value(i); got != want {
						t.Fatalf("%s: row %d: %v op %v = %v, want %v", name, i, av[i], bv[i], got, want)
					}
					if want != true && out.Bools[i] != 0 {
						t.Fatalf("%s: row %d: data byte %d under a non-TRUE result", name, i, out.Bools[i])
					}
				}
				if !anyNull && out.Nulls != nil {
					t.Errorf("%s: a validity bitmap without a NULL row", name)
				}
			}
		}
	}
}

// TestNotWords checks NOT over lengths around the word size.
func TestNotWords(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 17, 64, 65} {
		vals := make([]any, n)
		for i := range vals {
			switch i % 3 {
			case 0:
				vals[i] = true
			case 1:
				vals[i] = false
			}
		}
		out, err := notVec(scVec(coldata.Bool, vals...), n)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			var want any
			if v != nil {
				want = !v.(bool)
			}
			if got := out.Value(i); got != want {
				t.Fatalf("n=%d: NOT %v = %v, want %v", n, v, got, want)
			}
		}
	}
}

// appendTrueRows is the plain definition of AppendTrue.
func appendTrueRows(sel []int, bools, nulls []byte) []int {
	for i, x := range bools {
		if x != 0 && validAt(nulls, i) {
			sel = append(sel, i)
		}
	}
	return sel
}

// TestAppendTrue compares AppendTrue with the plain loop over lengths
// around the word size, densities from none to all, NULLs or not, mask
// bytes other than 0 and 1, and a selection that already holds rows.
func TestAppendTrue(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 63, 64, 65, 200} {
		for _, density := range []int{0, 1, 50, 100} {
			for _, withNulls := range []bool{false, true} {
				for _, prefix := range [][]int{nil, {-3, -2}} {
					bools := make([]byte, n)
					for i := range bools {
						if r.Intn(100) < density {
							bools[i] = 1
							if i%11 == 4 {
								bools[i] = 0x80 // any non-zero byte is TRUE
							}
						}
					}
					var nulls []byte
					if withNulls {
						nulls = coldata.NewValidBitmap(n)
						for i := 0; i < n; i += 3 {
							coldata.ClearBit(nulls, i)
						}
					}
					want := appendTrueRows(append([]int(nil), prefix...), bools, nulls)
					got := AppendTrue(append([]int(nil), prefix...), bools, nulls)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("n=%d density=%d nulls=%v: got %v, want %v", n, density, withNulls, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkAppendTrue turns Q6-like masks (2% and 50% TRUE) into
// selections, against the plain row loop.
func BenchmarkAppendTrue(b *testing.B) {
	r := rand.New(rand.NewSource(9))
	const n = 1 << 16
	for _, pct := range []int{2, 50} {
		bools := make([]byte, n)
		for i := range bools {
			bools[i] = b2u8(r.Intn(100) < pct)
		}
		sel := make([]int, 0, n)
		b.Run(fmt.Sprintf("words/%d%%", pct), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sel = AppendTrue(sel[:0], bools, nil)
			}
		})
		b.Run(fmt.Sprintf("rows/%d%%", pct), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sel = appendTrueRows(sel[:0], bools, nil)
			}
		})
	}
}

// TestInStringList compares IN over a string column and a list of
// constants with its definition, for lists of one to eight items of
// every length class the equality kernels have (empty, up to 8 bytes, 9
// to 24, longer), with NULL rows and a NULL in the list.
func TestInStringList(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	pool := []string{"", "AIR", "MAIL", "SHIP", "REG AIR", "DELIVER IN PERSON", "TAKE BACK RETURN",
		"a string of more than twenty-four bytes", "a string of more than twenty-four bytez", "MAIL "}
	const n = 200
	vals := make([]any, n)
	for i := range vals {
		vals[i] = pool[r.Intn(len(pool))]
		if i%9 == 4 {
			vals[i] = nil
		}
	}
	x := scVec(coldata.String, vals...)
	for _, size := range []int{1, 2, 4, 8} {
		for _, withNull := range []bool{false, true} {
			var items []any
			for k := 0; k < size; k++ {
				items = append(items, pool[r.Intn(len(pool))])
			}
			if withNull {
				items[size/2] = nil
			}
			args := []*coldata.Vec{x}
			for _, it := range items {
				args = append(args, coldata.NewConst(coldata.String, it, n))
			}
			got, err := scFn(t, "in").Eval(args, n)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var want any
				if v != nil {
					want = false
					for _, it := range items {
						if it == nil {
							if want == false {
								want = nil
							}
						} else if it == v {
							want = true
						}
					}
				}
				if g := got.Value(i); g != want {
					t.Fatalf("%q IN %q = %v, want %v", v, items, g, want)
				}
			}
		}
	}
}

// TestInConstListDirtyBuffer runs IN over batches large enough that the
// result comes from coldata's pool, after offering the pool a buffer of
// TRUE bytes: every path must write every row (a row left alone would
// read TRUE).
func TestInConstListDirtyBuffer(t *testing.T) {
	const n = 5000
	ints := coldata.NewVec(coldata.Int64, n)
	decs := coldata.NewVec(coldata.DecimalOf(15, 2), n)
	sb := coldata.NewBuilder(coldata.String, n)
	for i := 0; i < n; i++ {
		ints.Ints[i] = int64(i % 50)
		decs.Decs[i] = decimal.FromInt64(int64(i % 50))
		sb.AppendString(fmt.Sprintf("v%d", i%50))
	}
	strs := sb.Finish()
	list := func(ty coldata.Type, k int, mk func(j int) any) []*coldata.Vec {
		var out []*coldata.Vec
		for j := 0; j < k; j++ {
			out = append(out, coldata.NewConst(ty, mk(j), n))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		x     *coldata.Vec
		items []*coldata.Vec
	}{
		{"ints short", ints, list(coldata.Int64, 3, func(j int) any { return int64(j + 100) })},
		{"ints hashed", ints, list(coldata.Int64, 12, func(j int) any { return int64(j + 100) })},
		{"decimals", decs, list(coldata.DecimalOf(15, 2), 3, func(j int) any { return decimal.FromInt64(int64(j + 100)) })},
		{"strings short", strs, list(coldata.String, 3, func(j int) any { return fmt.Sprintf("w%d", j) })},
		{"strings hashed", strs, list(coldata.String, 12, func(j int) any { return fmt.Sprintf("w%d", j) })},
		{"strings all NULL", strs, list(coldata.String, 1, func(int) any { return nil })},
	} {
		dirty := coldata.AllocVec(coldata.Bool, n)
		for i := range dirty.Bools {
			dirty.Bools[i] = 1
		}
		coldata.Recycle(dirty)
		got, err := scFn(t, "in").Eval(append([]*coldata.Vec{tc.x}, tc.items...), n)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if v := got.Value(i); v == true {
				t.Fatalf("%s: row %d is TRUE, matching nothing", tc.name, i)
			}
		}
	}
}

// TestCaseDirtyBuffer runs CASE over batches whose result comes from
// coldata's pool after offering it a buffer of non-zero values: every row
// must come out as CASE defines it, NULL rows included.
func TestCaseDirtyBuffer(t *testing.T) {
	const n = 5000
	d := coldata.DecimalOf(15, 2)
	cond := coldata.NewVec(coldata.Bool, n)
	price := coldata.NewVec(d, n)
	for i := 0; i < n; i++ {
		cond.Bools[i] = byte(i % 3 & 1)
		price.Decs[i] = decimal.FromInt64(int64(i))
		if i%7 == 0 {
			cond.SetNull(i)
		}
	}
	for _, elseVal := range []any{nil, decimal.FromInt64(0)} {
		dirty := coldata.AllocVec(d, n)
		for i := range dirty.Decs {
			dirty.Decs[i] = decimal.FromInt64(-42)
		}
		coldata.Recycle(dirty)
		args := []*coldata.Vec{cond, price}
		args = append(args, coldata.NewConst(d, elseVal, n))
		got, err := scFn(t, "case").Eval(args, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			var want any = elseVal
			if i%7 != 0 && i%3&1 == 1 {
				want = decimal.FromInt64(int64(i))
			}
			if want == nil {
				if !got.IsNull(i) {
					t.Fatalf("else NULL: row %d = %v, want NULL", i, got.Value(i))
				}
				continue
			}
			if got.IsNull(i) || got.Decs[i] != want.(decimal.Int128) {
				t.Fatalf("else %v: row %d = %v, want %v", elseVal, i, got.Value(i), want)
			}
		}
	}
}
