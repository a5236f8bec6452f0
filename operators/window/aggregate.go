package window

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// aggregate computes COUNT, SUM, AVG, MIN or MAX of v (sorted) over each
// row's frame [lo, hi). Aggregates skip NULLs; an empty frame gives NULL
// (0 for COUNT). Frames never move backwards within a partition, which
// the running sums and the min/max deque rely on.
func aggregate(k winspec.Kind, t coldata.Type, v *coldata.Vec, partStart, lo, hi []int) (*coldata.Vec, error) {
	n := len(lo)
	cnt := make([]int64, n+1) // prefix counts of non-NULL values
	for i := 0; i < n; i++ {
		cnt[i+1] = cnt[i]
		if !v.IsNull(i) {
			cnt[i+1]++
		}
	}
	switch k {
	case winspec.Count:
		out := make([]int64, n)
		for i := range out {
			out[i] = cnt[hi[i]] - cnt[lo[i]]
		}
		return &coldata.Vec{Type: coldata.Int64, Len: n, Ints: out}, nil
	case winspec.Min, winspec.Max:
		return minMax(k == winspec.Min, t, v, partStart, lo, hi), nil
	case winspec.Sum, winspec.Avg:
	default:
		return nil, fmt.Errorf("internal error: %s is not an aggregate", k)
	}
	out := &coldata.Vec{Type: t, Len: n}
	nulls := coldata.NewValidBitmap(n)
	anyNull := false
	for i := 0; i < n; i++ {
		if cnt[hi[i]] == cnt[lo[i]] {
			coldata.ClearBit(nulls, i)
			anyNull = true
		}
	}
	if anyNull {
		out.Nulls = nulls
	}
	switch v.Type.Physical() {
	case coldata.Int64, coldata.Bool:
		// Exact 128-bit prefix sums: a frame's sum is a difference of two.
		pre := make([]int128, n+1)
		for i := 0; i < n; i++ {
			pre[i+1] = pre[i]
			if !v.IsNull(i) {
				x := int64(0)
				if v.Type == coldata.Bool {
					x = int64(v.Bools[i])
				} else {
					x = v.Ints[i]
				}
				pre[i+1] = pre[i+1].add(x)
			}
		}
		if k == winspec.Sum && t == coldata.Int64 {
			out.Ints = make([]int64, n)
			for i := range out.Ints {
				s := pre[hi[i]].sub(pre[lo[i]])
				x, ok := s.int64()
				if !ok {
					return nil, fmt.Errorf("BIGINT value is out of range in SUM")
				}
				out.Ints[i] = x
			}
			return out, nil
		}
		if k == winspec.Avg && t.IsDecimal() {
			out.Decs = make([]decimal.Int128, n)
			for i := range out.Decs {
				if c := cnt[hi[i]] - cnt[lo[i]]; c > 0 {
					d, err := intAvg(pre[hi[i]].sub(pre[lo[i]]), c, t)
					if err != nil {
						return nil, err
					}
					out.Decs[i] = d
				}
			}
			return out, nil
		}
		out.Floats = make([]float64, n)
		for i := range out.Floats {
			s := pre[hi[i]].sub(pre[lo[i]]).float64()
			if k == winspec.Avg {
				if c := cnt[hi[i]] - cnt[lo[i]]; c > 0 {
					s /= float64(c)
				}
			}
			out.Floats[i] = s
		}
		return out, nil
	case coldata.Decimal:
		return decimalSums(k, t, v, cnt, lo, hi, out)
	case coldata.Float64:
		out.Floats = floatSums(v, partStart, lo, hi)
		if k == winspec.Avg {
			for i := range out.Floats {
				if c := cnt[hi[i]] - cnt[lo[i]]; c > 0 {
					out.Floats[i] /= float64(c)
				}
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s of %s is not supported", k, v.Type)
}

// decimalSums fills out (NULLs already marked) with SUM or AVG of a
// DECIMAL v over each frame: exact 128-bit prefix sums, a frame's sum the
// difference of two; AVG rounds the sum over the count to t's scale, as
// GROUP BY's AVG does. A prefix past 128 bits is a range error, never a
// wrong sum.
func decimalSums(k winspec.Kind, t coldata.Type, v *coldata.Vec, cnt []int64, lo, hi []int, out *coldata.Vec) (*coldata.Vec, error) {
	n := len(lo)
	name := map[winspec.Kind]string{winspec.Sum: "SUM", winspec.Avg: "AVG"}[k]
	pre := make([]decimal.Int128, n+1)
	for i := 0; i < n; i++ {
		pre[i+1] = pre[i]
		if !v.IsNull(i) {
			s, ok := pre[i].Add(v.Decs[i])
			if !ok {
				return nil, fmt.Errorf("%w in %s", expr.ErrDecimalRange, name)
			}
			pre[i+1] = s
		}
	}
	out.Decs = make([]decimal.Int128, n)
	sc := v.Type.Scale()
	for i := range out.Decs {
		c := cnt[hi[i]] - cnt[lo[i]]
		if c == 0 {
			continue // NULL
		}
		s, ok := pre[hi[i]].Sub(pre[lo[i]])
		if ok && k == winspec.Avg {
			if s, ok = s.Rescale(sc, t.Scale()); ok {
				s, _ = s.DivRound(decimal.FromInt64(c))
			}
		}
		if !ok || !s.Fits(t.Precision()) {
			return nil, fmt.Errorf("%w in %s", expr.ErrDecimalRange, name)
		}
		out.Decs[i] = s
	}
	return out, nil
}

// intAvg is AVG of integers as MySQL gives it: the exact sum over the
// count as DECIMAL t (scale 4), rounded half away from zero.
func intAvg(sum int128, count int64, t coldata.Type) (decimal.Int128, error) {
	d := decimal.Int128{Lo: sum.lo, Hi: sum.hi}
	scaled, ok := d.Rescale(0, t.Scale())
	if ok {
		if d, ok = scaled.DivRound(decimal.FromInt64(count)); ok {
			ok = d.Fits(t.Precision())
		}
	}
	if !ok {
		return decimal.Int128{}, fmt.Errorf("%w in AVG", expr.ErrDecimalRange)
	}
	return d, nil
}

// floatSums sums v over each frame. Frames that all start at their
// partition's start are running sums, added in row order as GROUP BY adds
// them; short frames are summed row by row; long moving frames query a
// tree of partial sums (never subtracting, which would lose precision).
func floatSums(v *coldata.Vec, partStart, lo, hi []int) []float64 {
	n := len(lo)
	xs := make([]float64, n)
	for i := 0; i < n; i++ {
		if !v.IsNull(i) {
			xs[i] = v.Floats[i]
		}
	}
	out := make([]float64, n)
	running, work := true, 0
	for i := 0; i < n; i++ {
		running = running && lo[i] == partStart[i]
		work += hi[i] - lo[i]
	}
	switch {
	case running:
		acc, cur := 0.0, 0
		for i := 0; i < n; i++ {
			if i == partStart[i] {
				acc, cur = 0, i
			}
			for ; cur < hi[i]; cur++ {
				acc += xs[cur]
			}
			out[i] = acc
		}
	case work <= 32*n+1<<20:
		for i := 0; i < n; i++ {
			acc := 0.0
			for _, x := range xs[lo[i]:hi[i]] {
				acc += x
			}
			out[i] = acc
		}
	default:
		tree := make([]float64, 2*n)
		copy(tree[n:], xs)
		for i := n - 1; i > 0; i-- {
			tree[i] = tree[2*i] + tree[2*i+1]
		}
		for i := 0; i < n; i++ {
			acc := 0.0
			for l, r := lo[i]+n, hi[i]+n; l < r; l, r = l>>1, r>>1 {
				if l&1 == 1 {
					acc += tree[l]
					l++
				}
				if r&1 == 1 {
					r--
					acc += tree[r]
				}
			}
			out[i] = acc
		}
	}
	return out
}

// minMax computes MIN or MAX over moving frames with a monotonic deque of
// row positions: O(1) amortised per row for any frame.
func minMax(isMin bool, t coldata.Type, v *coldata.Vec, partStart, lo, hi []int) *coldata.Vec {
	n := len(lo)
	// better reports whether row a should replace row b in the deque.
	better := func(a, b int) bool {
		c := opspec.CompareValues(v, a, v, b)
		if isMin {
			return c <= 0
		}
		return c >= 0
	}
	dq := make([]int, 0, 64)
	head, cur := 0, 0
	bld := coldata.NewBuilder(t, n)
	for i := 0; i < n; i++ {
		if i == partStart[i] {
			dq, head, cur = dq[:0], 0, i
		}
		for ; cur < hi[i]; cur++ {
			if v.IsNull(cur) {
				continue
			}
			for len(dq) > head && better(cur, dq[len(dq)-1]) {
				dq = dq[:len(dq)-1]
			}
			dq = append(dq, cur)
		}
		for head < len(dq) && dq[head] < lo[i] {
			head++
		}
		if head == len(dq) {
			bld.AppendNull()
			continue
		}
		bld.AppendFrom(v, dq[head])
	}
	return bld.Finish()
}

// int128 is a two's-complement 128-bit integer: exact sums of BIGINTs.
type int128 struct {
	hi int64
	lo uint64
}

func (a int128) add(x int64) int128 {
	lo, carry := bits.Add64(a.lo, uint64(x), 0)
	return int128{hi: a.hi + x>>63 + int64(carry), lo: lo}
}

func (a int128) sub(b int128) int128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return int128{hi: a.hi - b.hi - int64(borrow), lo: lo}
}

func (a int128) int64() (int64, bool) {
	return int64(a.lo), a.hi == int64(a.lo)>>63
}

func (a int128) float64() float64 {
	if x, ok := a.int64(); ok {
		return float64(x)
	}
	return float64(a.hi)*math.Exp2(64) + float64(a.lo)
}
