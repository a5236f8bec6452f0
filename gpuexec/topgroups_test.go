package gpuexec

import (
	"cmp"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// topCase is one ordering term over n groups: the partial holding them,
// the top asking for it (Desc, NullsFirst set by the test), and the SQL
// order of the groups' values (null says which are NULL).
type topCase struct {
	name string
	top  GroupTop
	aggs []GroupAgg
	p    *GroupPartial
	null func(g int) bool
	cmp  func(a, b int) int
}

func topCases(rng *rand.Rand, n int) []topCase {
	ints := []int64{math.MinInt64, math.MinInt64 + 1, -5, -1, 0, 1, 2, 7, math.MaxInt64 - 1, math.MaxInt64}
	anyInt := func() int64 {
		if rng.Intn(2) == 0 {
			return ints[rng.Intn(len(ints))]
		}
		return rng.Int63n(2000) - 1000
	}
	floats := []float64{math.Inf(-1), -1e300, -2.5, -1, math.Copysign(0, -1), 0, 1e-300, 1, 2.5, 3, 1e300, math.Inf(1)}
	counts := func(zeroes bool) []int64 {
		c := make([]int64, n)
		for g := range c {
			c[g] = 1 + rng.Int63n(5)
			if zeroes && rng.Intn(6) == 0 {
				c[g] = 0
			}
		}
		return c
	}
	keys := &coldata.Batch{Len: n}
	var out []topCase
	// COUNT: never NULL, 0 included.
	{
		c := counts(true)
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{{Count: c}}}
		out = append(out, topCase{name: "COUNT", top: GroupTop{Agg: 0}, aggs: []GroupAgg{{Kind: GroupCount}}, p: p,
			null: func(int) bool { return false }, cmp: func(a, b int) int { return cmp.Compare(c[a], c[b]) }})
	}
	// SUM of BIGINT (128-bit state, every sum within int64) and MIN of
	// BIGINT: the ends of int64 share words with their neighbours.
	for _, k := range []GroupAggKind{GroupSumInt, GroupMinInt} {
		c := counts(true)
		lo, hi := make([]uint64, n), make([]int64, n)
		for g := range lo {
			v := anyInt()
			lo[g], hi[g] = uint64(v), v>>63
		}
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{{Count: c, Lo: lo, Hi: hi}}}
		out = append(out, topCase{name: "BIGINT kind " + string(rune('0'+k)), top: GroupTop{Agg: 0}, aggs: []GroupAgg{{Kind: k}}, p: p,
			null: func(g int) bool { return c[g] == 0 }, cmp: func(a, b int) int { return cmp.Compare(int64(lo[a]), int64(lo[b])) }})
	}
	// DOUBLE sums, MINs and AVGs: -0 equals 0, infinities order.
	for _, avg := range []bool{false, true} {
		c := counts(true)
		f := make([]float64, n)
		for g := range f {
			f[g] = floats[rng.Intn(len(floats))]
		}
		val := func(g int) float64 {
			if avg {
				return f[g] / float64(c[g])
			}
			return f[g]
		}
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{{Count: c, Float: f}}}
		out = append(out, topCase{name: "DOUBLE", top: GroupTop{Agg: 0, Avg: avg}, aggs: []GroupAgg{{Kind: GroupSumFloat}}, p: p,
			null: func(g int) bool { return c[g] == 0 }, cmp: func(a, b int) int { return cmp.Compare(val(a), val(b)) }})
	}
	// MIN of BOOL.
	{
		c := counts(true)
		lo := make([]uint64, n)
		for g := range lo {
			lo[g] = uint64(rng.Intn(2))
		}
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{{Count: c, Lo: lo}}}
		out = append(out, topCase{name: "BOOL", top: GroupTop{Agg: 0}, aggs: []GroupAgg{{Kind: GroupMinBool}}, p: p,
			null: func(g int) bool { return c[g] == 0 }, cmp: func(a, b int) int { return cmp.Compare(lo[a], lo[b]) }})
	}
	// DECIMAL sums (192-bit states within 38 digits, past int64 too) and
	// their AVG at 4 more digits, rounded half away from zero.
	for _, avg := range []bool{false, true} {
		c := counts(true)
		lo, hi, top := make([]uint64, n), make([]int64, n), make([]int64, n)
		vals := make([]*big.Int, n)
		for g := range lo {
			v := decimal.FromInt64(anyInt())
			if !avg && rng.Intn(4) == 0 {
				v, _ = v.Mul(decimal.FromInt64(1 << 40)) // past int64: clamped
			}
			lo[g], hi[g], top[g] = v.Lo, v.Hi, v.Hi>>63
			x := new(big.Int).Lsh(big.NewInt(v.Hi), 64)
			vals[g] = x.Add(x, new(big.Int).SetUint64(v.Lo))
			if avg && c[g] > 0 {
				vals[g] = roundHalfAway(new(big.Int).Mul(vals[g], big.NewInt(10_000)), c[g])
			}
		}
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{{Count: c, Lo: lo, Hi: hi, Top: top}}}
		gt := GroupTop{Agg: 0, Avg: avg}
		if avg {
			gt.AvgScale = 4
		}
		out = append(out, topCase{name: "DECIMAL", top: gt, aggs: []GroupAgg{{Kind: GroupSumDec}}, p: p,
			null: func(g int) bool { return c[g] == 0 }, cmp: func(a, b int) int { return vals[a].Cmp(vals[b]) }})
	}
	// Keys: BIGINT and DOUBLE with NULLs.
	{
		iv := coldata.NewVec(coldata.Int64, n)
		fv := coldata.NewVec(coldata.Float64, n)
		iv.Nulls, fv.Nulls = coldata.NewValidBitmap(n), coldata.NewValidBitmap(n)
		for g := 0; g < n; g++ {
			iv.Ints[g] = anyInt()
			fv.Floats[g] = floats[rng.Intn(len(floats))]
			if rng.Intn(7) == 0 {
				coldata.ClearBit(iv.Nulls, g)
			}
			if rng.Intn(7) == 0 {
				coldata.ClearBit(fv.Nulls, g)
			}
		}
		kb := &coldata.Batch{Len: n, Cols: []*coldata.Vec{iv, fv}}
		p := &GroupPartial{Keys: kb}
		out = append(out,
			topCase{name: "BIGINT key", top: GroupTop{Agg: 0, Key: true}, p: p, null: iv.IsNull,
				cmp: func(a, b int) int { return cmp.Compare(iv.Ints[a], iv.Ints[b]) }},
			topCase{name: "DOUBLE key", top: GroupTop{Agg: 1, Key: true}, p: p, null: fv.IsNull,
				cmp: func(a, b int) int { return cmp.Compare(fv.Floats[a], fv.Floats[b]) }})
	}
	return out
}

// roundHalfAway is x / c rounded half away from zero.
func roundHalfAway(x *big.Int, c int64) *big.Int {
	q, r := new(big.Int).QuoRem(x, big.NewInt(c), new(big.Int))
	if new(big.Int).Abs(new(big.Int).Lsh(r, 1)).Cmp(big.NewInt(c)) >= 0 {
		q.Add(q, big.NewInt(int64(x.Sign())))
	}
	return q
}

// TestTopWordsOrderAsSQL: the ordering words of every term order the
// groups as the SQL sort does (NULLs first or last, either direction):
// a smaller word is a group sorting strictly first, equal values share a
// word, and different values share one only at the clamped words that
// make the cut keep the ties (topLossy).
func TestTopWordsOrderAsSQL(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range topCases(rng, 300) {
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				top := c.top
				top.Desc, top.NullsFirst, top.K = desc, nullsFirst, 1
				words, ok := TopWords(&top, c.aggs, c.p)
				if !ok {
					t.Fatalf("%s: no words", c.name)
				}
				sql := func(a, b int) int {
					an, bn := c.null(a), c.null(b)
					switch {
					case an && bn:
						return 0
					case an != bn:
						if an == nullsFirst {
							return -1
						}
						return 1
					}
					if desc {
						return c.cmp(b, a)
					}
					return c.cmp(a, b)
				}
				for a := range words {
					for b := range words {
						s, w := sql(a, b), cmp.Compare(words[a], words[b])
						if w < 0 && s >= 0 || s == 0 && w != 0 || s < 0 && w > 0 || s != 0 && w == 0 && !TopLossy(words[a], nullsFirst) {
							t.Fatalf("%s desc=%v nullsFirst=%v: groups %d and %d: SQL %d, words %#x %#x", c.name, desc, nullsFirst, a, b, s, words[a], words[b])
						}
					}
				}
				// The cut over the words, then the SQL sort of the
				// survivors, gives the full sort's first K.
				order := make([]int, len(words))
				for g := range order {
					order[g] = g
				}
				full := slices.Clone(order)
				slices.SortStableFunc(full, sql)
				byWord := slices.Clone(order)
				slices.SortStableFunc(byWord, func(a, b int) int { return cmp.Compare(words[a], words[b]) })
				for _, k := range []int{1, 2, 5, 17, 100, 299, 300, 301} {
					top.K = k
					sorted := make([]uint64, len(byWord))
					for i, g := range byWord {
						sorted[i] = words[g]
					}
					kept := slices.Clone(byWord[:TopKeep(&top, sorted)])
					slices.Sort(kept) // group order, as the device returns them
					slices.SortStableFunc(kept, sql)
					want := full[:min(k, len(full))]
					if len(kept) < len(want) || !slices.Equal(kept[:len(want)], want) {
						t.Fatalf("%s desc=%v nullsFirst=%v K=%d: cut gives %v, full sort %v", c.name, desc, nullsFirst, k, kept[:min(len(kept), 10)], want[:min(len(want), 10)])
					}
				}
			}
		}
	}
}

// TestTopWordsRefuse: a group without a word (a NaN, a BIGINT sum past
// int64, a DECIMAL sum past 38 digits) leaves the groups uncut.
func TestTopWordsRefuse(t *testing.T) {
	keys := &coldata.Batch{Len: 1}
	big38 := decimal.Int128{Lo: 0x098a224000000000, Hi: 0x4b3b4ca85a86c47a} // 10^38: 39 digits
	for _, c := range []struct {
		name string
		kind GroupAggKind
		avg  bool
		p    AggPartial
	}{
		{"NaN sum", GroupSumFloat, false, AggPartial{Count: []int64{1}, Float: []float64{math.NaN()}}},
		{"BIGINT sum past int64", GroupSumInt, false, AggPartial{Count: []int64{2}, Lo: []uint64{1}, Hi: []int64{1}}},
		{"DECIMAL sum past 38 digits", GroupSumDec, false, AggPartial{Count: []int64{2}, Lo: []uint64{big38.Lo}, Hi: []int64{big38.Hi}, Top: []int64{0}}},
		{"DECIMAL AVG of a sum past int64", GroupSumDec, true, AggPartial{Count: []int64{2}, Lo: []uint64{0}, Hi: []int64{1}, Top: []int64{0}}},
	} {
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{c.p}}
		if _, ok := TopWords(&GroupTop{Agg: 0, Avg: c.avg, K: 1}, []GroupAgg{{Kind: c.kind}}, p); ok {
			t.Errorf("%s: got words", c.name)
		}
	}
}

// TestTopKeepExactSmallWords: counts and BOOLs never reach the clamped
// words, so a K-th count of 0 (or a K-th FALSE) keeps K groups, not
// every group tied with it; a second ORDER BY term (Ties) keeps them all.
func TestTopKeepExactSmallWords(t *testing.T) {
	const n = 100
	keys := &coldata.Batch{Len: n}
	zeros := AggPartial{Count: make([]int64, n), Lo: make([]uint64, n)}
	falses := AggPartial{Count: make([]int64, n), Lo: make([]uint64, n)}
	for g := range falses.Count {
		falses.Count[g] = 1
	}
	for _, c := range []struct {
		kind GroupAggKind
		p    AggPartial
	}{{GroupCount, zeros}, {GroupMinBool, falses}} {
		p := &GroupPartial{Keys: keys, Aggs: []AggPartial{c.p}}
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				for _, ties := range []bool{false, true} {
					top := &GroupTop{Agg: 0, Desc: desc, NullsFirst: nullsFirst, Ties: ties, K: 3}
					words, ok := TopWords(top, []GroupAgg{{Kind: c.kind}}, p)
					if !ok {
						t.Fatal("no words")
					}
					want := 3
					if ties {
						want = n
					}
					if got := TopKeep(top, words); got != want {
						t.Errorf("kind %d desc=%v nullsFirst=%v ties=%v: kept %d, want %d", c.kind, desc, nullsFirst, ties, got, want)
					}
				}
			}
		}
	}
}
