package sortkey

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/opspec"
)

// refCompare is the reference order of two rows of one key: NULLs by the
// key's placement, strings bytewise, a DOUBLE NaN above +Inf and equal to
// other NaNs, -0 equal to 0, DESC reversing the values.
func refCompare(k Key, a, b int) int {
	v := k.Vec
	an, bn := v.IsNull(a), v.IsNull(b)
	if an || bn {
		if an && bn {
			return 0
		}
		nullsFirst := !k.Desc
		if k.Nulls != opspec.NullsDefault {
			nullsFirst = k.Nulls == opspec.NullsFirst
		}
		if an == nullsFirst {
			return -1
		}
		return 1
	}
	var c int
	switch v.Type.Physical() {
	case coldata.Float64:
		x, y := v.Float(a), v.Float(b)
		switch {
		case x != x && y != y:
		case x != x:
			c = 1
		case y != y:
			c = -1
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	case coldata.String:
		c = bytes.Compare(v.Str(a), v.Str(b))
	default:
		c = opspec.CompareValues(v, a, v, b)
	}
	if k.Desc {
		return -c
	}
	return c
}

// refSort is the reference: a stable sort of rows by keys.
func refSort(keys []Key, rows []int) {
	slices.SortStableFunc(rows, func(a, b int) int {
		for _, k := range keys {
			if c := refCompare(k, a, b); c != 0 {
				return c
			}
		}
		return 0
	})
}

// tpchTypes are TPC-H's p_type values, which share their first words.
var tpchTypes = func() []string {
	var out []string
	for _, a := range []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"} {
		for _, b := range []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"} {
			for _, c := range []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"} {
				out = append(out, a+" "+b+" "+c)
			}
		}
	}
	return out
}()

// colGen makes a column of n rows: value(i) gives row i's value, nil for
// NULL.
func colGen(t coldata.Type, n int, value func(i int) any) *coldata.Vec {
	b := coldata.NewBuilder(t, n)
	for i := 0; i < n; i++ {
		switch x := value(i).(type) {
		case nil:
			b.AppendNull()
		case int64:
			b.AppendInt(x)
		case float64:
			b.AppendFloat(x)
		case bool:
			b.AppendBool(x)
		case string:
			b.AppendString(x)
		case decimal.Int128:
			b.AppendDec(x)
		default:
			panic(fmt.Sprintf("colGen: %T", x))
		}
	}
	return b.Finish()
}

// q16Cols are n rows shaped like TPC-H Q16's output: supplier_cnt,
// p_brand, p_type, p_size.
func q16Cols(r *rand.Rand, n int) []*coldata.Vec {
	sizes := []int64{49, 14, 23, 45, 19, 3, 36, 9}
	return []*coldata.Vec{
		colGen(coldata.Int64, n, func(int) any { return int64(1 + r.Intn(4)*4 + r.Intn(3)) }),
		colGen(coldata.String, n, func(int) any { return fmt.Sprintf("Brand#%d%d", 1+r.Intn(5), 1+r.Intn(5)) }),
		colGen(coldata.String, n, func(int) any { return tpchTypes[r.Intn(len(tpchTypes))] }),
		colGen(coldata.Int64, n, func(int) any { return sizes[r.Intn(len(sizes))] }),
	}
}

// TestSortAgainstReference sorts table-driven key sets (many equal
// prefixes, NULLs under every placement, empty, multibyte and 64 KiB
// strings, DOUBLE edge values, BIGINT extremes, narrow and wide
// DECIMALs, constant and all-NULL columns) through Sort, the packed sort
// and the normalized-key sort, against refSort.
func TestSortAgainstReference(t *testing.T) {
	long := strings.Repeat("x", 1<<16)
	prefixed := []string{"", "a", "ab", "ab\x00", "ab\x00c", "abc", "MEDIUM POLISHED STEEL", "MEDIUM POLISHED TIN",
		"MEDIUM POLISHED", "MEDIUM POLISHED STEEL ", "\u00e9t\u00e9", "\u00e9t\u00e9s", "\u65e5\u672c", "\xff", "\xff\xff", "x"}
	longs := []string{long, long + "a", long + "b", long[:1<<16-1] + "y"}
	floats := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1.5, 2.25, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
	ints := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 42}
	type keyGen struct {
		t    coldata.Type
		gen  func(r *rand.Rand, i int) any
		cnst any // a constant column's value (the gen is unused)
	}
	withNulls := func(g func(r *rand.Rand, i int) any, oneIn int) func(r *rand.Rand, i int) any {
		return func(r *rand.Rand, i int) any {
			if r.Intn(oneIn) == 0 {
				return nil
			}
			return g(r, i)
		}
	}
	pick := func(r *rand.Rand, _ int) any {
		if r.Intn(40) == 0 {
			return longs[r.Intn(len(longs))]
		}
		return prefixed[r.Intn(len(prefixed))]
	}
	brand := func(r *rand.Rand, _ int) any { return fmt.Sprintf("Brand#%d%d", 1+r.Intn(5), 1+r.Intn(5)) }
	ptype := func(r *rand.Rand, _ int) any { return tpchTypes[r.Intn(len(tpchTypes))] }
	small := func(r *rand.Rand, _ int) any { return int64(r.Intn(13)) }
	extreme := func(r *rand.Rand, _ int) any { return ints[r.Intn(len(ints))] }
	float := func(r *rand.Rand, _ int) any { return floats[r.Intn(len(floats))] }
	boolean := func(r *rand.Rand, _ int) any { return r.Intn(2) == 0 }
	narrowDec := func(r *rand.Rand, _ int) any { return decimal.FromInt64(r.Int63n(1<<40) - 1<<39) }
	wideDec := func(r *rand.Rand, _ int) any {
		if r.Intn(3) == 0 {
			return decimal.Int128{Lo: r.Uint64(), Hi: r.Int63n(5) - 2}
		}
		return decimal.FromInt64(r.Int63n(2000) - 1000)
	}
	unique := func(r *rand.Rand, i int) any { return fmt.Sprintf("u%08d-%d", r.Intn(1<<30), i) }
	for _, tc := range []struct {
		name   string
		keys   []keyGen
		packed bool // the keys fit the packed sort
	}{
		{"q16", []keyGen{{t: coldata.Int64, gen: small}, {t: coldata.String, gen: brand}, {t: coldata.String, gen: ptype}, {t: coldata.Int64, gen: small}}, true},
		{"q16 nulls", []keyGen{{t: coldata.Int64, gen: withNulls(small, 5)}, {t: coldata.String, gen: withNulls(brand, 4)}, {t: coldata.String, gen: withNulls(ptype, 3)}, {t: coldata.Int64, gen: small}}, true},
		{"shared prefixes", []keyGen{{t: coldata.String, gen: withNulls(pick, 6)}, {t: coldata.String, gen: pick}}, true},
		{"int extremes", []keyGen{{t: coldata.Int64, gen: withNulls(extreme, 7)}, {t: coldata.Int64, gen: small}}, true},
		{"two 64-bit keys", []keyGen{{t: coldata.Int64, gen: extreme}, {t: coldata.Int64, gen: extreme}}, false},
		{"floats", []keyGen{{t: coldata.Float64, gen: withNulls(float, 5)}, {t: coldata.Bool, gen: withNulls(boolean, 3)}}, true},
		{"narrow decimal", []keyGen{{t: coldata.DecimalOf(15, 2), gen: withNulls(narrowDec, 6)}, {t: coldata.String, gen: ptype}}, true},
		{"wide decimal", []keyGen{{t: coldata.DecimalOf(38, 2), gen: withNulls(wideDec, 6)}, {t: coldata.String, gen: pick}}, false},
		{"constant and all NULL", []keyGen{{t: coldata.String, cnst: "k"}, {t: coldata.String, gen: func(*rand.Rand, int) any { return nil }},
			{t: coldata.Int64, cnst: int64(7)}, {t: coldata.String, gen: pick}, {t: coldata.Float64, gen: func(*rand.Rand, int) any { return nil }}}, true},
		{"over 64 bits", []keyGen{{t: coldata.Int64, gen: extreme}, {t: coldata.String, gen: withNulls(ptype, 3)}, {t: coldata.Int64, gen: withNulls(small, 2)}}, true},
		{"over 128 bits", []keyGen{{t: coldata.Int64, gen: extreme}, {t: coldata.Float64, gen: float}, {t: coldata.String, gen: pick}}, false},
		{"unique text", []keyGen{{t: coldata.String, gen: withNulls(unique, 9)}, {t: coldata.Int64, gen: small}}, true},
	} {
		r := rand.New(rand.NewSource(int64(len(tc.name))))
		for _, n := range []int{0, 1, 2, 7, 300, 5000} {
			vecs := make([]*coldata.Vec, len(tc.keys))
			for j, g := range tc.keys {
				if g.cnst != nil {
					vecs[j] = coldata.NewConst(g.t, g.cnst, n)
					continue
				}
				vecs[j] = colGen(g.t, n, func(i int) any { return g.gen(r, i) })
			}
			for trial := 0; trial < 6; trial++ {
				keys := make([]Key, len(vecs))
				for j, v := range vecs {
					keys[j] = Key{Vec: v, Desc: r.Intn(2) == 0, Nulls: opspec.NullOrder(r.Intn(3))}
				}
				// A subset of the rows, shuffled: rows are any row numbers.
				rows := r.Perm(n)[:n-r.Intn(n/4+1)]
				want := slices.Clone(rows)
				refSort(keys, want)
				check := func(path string, got []int) {
					t.Helper()
					if !slices.Equal(got, want) {
						i := 0
						for got[i] == want[i] {
							i++
						}
						t.Fatalf("%s n=%d trial %d: %s: position %d holds row %d, want row %d", tc.name, n, trial, path, i, got[i], want[i])
					}
				}
				got := slices.Clone(rows)
				if ok, err := Sort(context.Background(), keys, got); !ok || err != nil {
					t.Fatalf("%s: Sort: %v %v", tc.name, ok, err)
				}
				check("Sort", got)
				got = slices.Clone(rows)
				done, err := sortPacked(context.Background(), keys, got)
				if err != nil {
					t.Fatal(err)
				}
				if n >= 300 && done != tc.packed {
					t.Fatalf("%s n=%d: packed %v, want %v", tc.name, n, done, tc.packed)
				}
				if done {
					check("packed", got)
				}
				got = slices.Clone(rows)
				if err := sortEncoded(context.Background(), keys, got); err != nil {
					t.Fatal(err)
				}
				check("encoded", got)
			}
		}
	}
}

// TestSortPackedRadix128 sorts keys past 64 bits on enough rows for the
// radix sort of two-word rows, keys straddling the words.
func TestSortPackedRadix128(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	n := 20_000
	vecs := []*coldata.Vec{
		colGen(coldata.Int64, n, func(int) any { return r.Int63n(1 << 30) }),
		colGen(coldata.Int64, n, func(int) any {
			if r.Intn(5) == 0 {
				return nil
			}
			return r.Int63n(1<<40) - 1<<39
		}),
		colGen(coldata.String, n, func(int) any { return tpchTypes[r.Intn(len(tpchTypes))] }),
		colGen(coldata.Int64, n, func(int) any { return r.Int63n(3) }),
	}
	for trial := 0; trial < 4; trial++ {
		keys := make([]Key, len(vecs))
		for j, v := range vecs {
			keys[j] = Key{Vec: v, Desc: r.Intn(2) == 0, Nulls: opspec.NullOrder(r.Intn(3))}
		}
		rows := r.Perm(n)
		want := slices.Clone(rows)
		refSort(keys, want)
		if done, err := sortPacked(context.Background(), keys, rows); !done || err != nil {
			t.Fatalf("packed: %v %v", done, err)
		}
		if !slices.Equal(rows, want) {
			t.Fatalf("trial %d: the packed order differs from the reference", trial)
		}
	}
}

// TestSortPackedGivesUp: keys past 128 bits, a DECIMAL past 64 bits and
// text whose first rows are mostly distinct are left to the normalized
// keys, which Sort then orders as the reference does.
func TestSortPackedGivesUp(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	n := 3 * sampleRows
	unique := colGen(coldata.String, n, func(i int) any { return fmt.Sprintf("row %d of %d", r.Intn(n), i) })
	wide := colGen(coldata.DecimalOf(38, 0), n, func(int) any { return decimal.Int128{Lo: r.Uint64(), Hi: r.Int63n(3) - 1} })
	full := colGen(coldata.Int64, n, func(int) any { return r.Int63() - r.Int63() })
	few := colGen(coldata.String, n, func(int) any { return tpchTypes[r.Intn(len(tpchTypes))] })
	for _, tc := range []struct {
		name string
		keys []Key
	}{
		{"unique text", []Key{{Vec: unique}}},
		{"wide decimal", []Key{{Vec: few}, {Vec: wide, Desc: true}}},
		{"two 64-bit keys and text", []Key{{Vec: full}, {Vec: few, Desc: true}, {Vec: full, Desc: true}}},
	} {
		rows := r.Perm(n)
		if done, err := sortPacked(context.Background(), tc.keys, slices.Clone(rows)); done || err != nil {
			t.Fatalf("%s: packed %v %v, want left to the normalized keys", tc.name, done, err)
		}
		want := slices.Clone(rows)
		refSort(tc.keys, want)
		if ok, err := Sort(context.Background(), tc.keys, rows); !ok || err != nil || !slices.Equal(rows, want) {
			t.Fatalf("%s: Sort %v %v, or its order differs from the reference", tc.name, ok, err)
		}
	}
}

// BenchmarkSortQ16 sorts rows shaped like TPC-H Q16's output (ORDER BY
// supplier_cnt DESC, p_brand, p_type, p_size) by Sort and by the
// normalized keys alone.
func BenchmarkSortQ16(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{28_000, 1_000_000} {
		for _, path := range []string{"sort", "encoded"} {
			b.Run(fmt.Sprintf("rows=%d/%s", n, path), func(b *testing.B) {
				vecs := q16Cols(rand.New(rand.NewSource(5)), n)
				keys := []Key{{Vec: vecs[0], Desc: true}, {Vec: vecs[1]}, {Vec: vecs[2]}, {Vec: vecs[3]}}
				rows := make([]int, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for j := range rows {
						rows[j] = j
					}
					var err error
					if path == "sort" {
						_, err = Sort(ctx, keys, rows)
					} else {
						err = sortEncoded(ctx, keys, rows)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
