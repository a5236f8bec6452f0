package window

import (
	"fmt"
	"math"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// frames computes every row's frame [lo[i], hi[i]) in sorted positions.
// Within a partition both ends never decrease from one row to the next
// (the aggregates rely on it), and hi >= lo (an empty frame has hi == lo).
func (p *partitioned) frames(f winspec.Frame) (lo, hi []int, err error) {
	n := p.n
	lo, hi = make([]int, n), make([]int, n)
	if f.Unit == winspec.Range && (f.Start.Kind == winspec.Preceding || f.Start.Kind == winspec.Following ||
		f.End.Kind == winspec.Preceding || f.End.Kind == winspec.Following) {
		if len(p.order) != 1 {
			return nil, nil, fmt.Errorf("RANGE with an offset needs exactly one ORDER BY key")
		}
		if t := p.orderIn[0].Type; t != coldata.Int64 && t != coldata.Float64 && t != coldata.Null && !t.IsDecimal() {
			return nil, nil, fmt.Errorf("RANGE with an offset needs a numeric ORDER BY key, not %s", t)
		}
	}
	for i := 0; i < n; i++ {
		a, err := p.bound(f, f.Start, i, true)
		if err != nil {
			return nil, nil, err
		}
		b, err := p.bound(f, f.End, i, false)
		if err != nil {
			return nil, nil, err
		}
		lo[i], hi[i] = a, max(a, b)
	}
	return lo, hi, nil
}

// bound is the sorted position where a frame starts (start: first row in
// it) or ends (first row after it) for row i.
func (p *partitioned) bound(f winspec.Frame, b winspec.Bound, i int, start bool) (int, error) {
	ps, pe := p.partStart[i], p.partEnd[i]
	clamp := func(x int) int { return min(max(x, ps), pe) }
	switch b.Kind {
	case winspec.UnboundedPreceding:
		return ps, nil
	case winspec.UnboundedFollowing:
		return pe, nil
	case winspec.CurrentRow:
		if f.Unit == winspec.Rows {
			if start {
				return i, nil
			}
			return i + 1, nil
		}
		if start {
			return p.peerStart[i], nil
		}
		return p.peerEnd[i], nil
	}
	if f.Unit == winspec.Rows {
		k, ok := b.Offset.(int64)
		if !ok || k < 0 {
			return 0, fmt.Errorf("frame offset must be a non-negative integer, got %v", b.Offset)
		}
		k = min(k, int64(p.n)) // keeps i±k in range
		pos := i
		if b.Kind == winspec.Preceding {
			pos -= int(k)
		} else {
			pos += int(k)
		}
		if !start {
			pos++
		}
		return clamp(pos), nil
	}
	return p.rangeBound(b, i, start)
}

// rangeBound is a RANGE offset bound: the frame holds the rows whose key is
// within the offset of row i's key. A row with a NULL key has its NULL
// peers as such a bound; rows with NULL keys are never within an offset of
// a non-NULL key.
func (p *partitioned) rangeBound(b winspec.Bound, i int, start bool) (int, error) {
	v := p.orderAt(0)
	if v.IsNull(i) {
		if start {
			return p.peerStart[i], nil
		}
		return p.peerEnd[i], nil
	}
	desc := p.orderKeys[0].Desc
	// The non-NULL rows of the partition are one run of it.
	ns, ne := p.partStart[i], p.partEnd[i]
	for ns < ne && v.IsNull(ns) {
		ns++
	}
	for ne > ns && v.IsNull(ne-1) {
		ne--
	}
	// Target value: key ∓ offset, toward earlier rows for PRECEDING.
	towardEarlier := b.Kind == winspec.Preceding
	subtract := towardEarlier != desc
	var before func(j int) bool // row j's key sorts before the target
	var equal func(j int) bool
	switch {
	case v.Type.IsDecimal():
		var err error
		if before, equal, err = decimalTarget(v, i, b.Offset, subtract, desc); err != nil {
			return 0, err
		}
	case v.Type == coldata.Int64:
		k, ok := b.Offset.(int64)
		if ok {
			if k < 0 {
				return 0, fmt.Errorf("RANGE offset must not be negative, got %d", k)
			}
			t := satAdd(v.Int(i), k, subtract)
			before = func(j int) bool { return (v.Int(j) < t) != desc && v.Int(j) != t }
			equal = func(j int) bool { return v.Int(j) == t }
			break
		}
		kf, ok := b.Offset.(float64)
		if !ok || kf < 0 || math.IsNaN(kf) {
			return 0, fmt.Errorf("RANGE offset must be a non-negative number, got %v", b.Offset)
		}
		t := float64(v.Int(i)) + kf
		if subtract {
			t = float64(v.Int(i)) - kf
		}
		before = func(j int) bool { x := float64(v.Int(j)); return (x < t) != desc && x != t }
		equal = func(j int) bool { return float64(v.Int(j)) == t }
	default:
		var kf float64
		switch x := b.Offset.(type) {
		case int64:
			kf = float64(x)
		case float64:
			kf = x
		default:
			return 0, fmt.Errorf("RANGE offset must be a number, got %v", b.Offset)
		}
		if kf < 0 || math.IsNaN(kf) {
			return 0, fmt.Errorf("RANGE offset must not be negative, got %v", b.Offset)
		}
		t := v.Float(i) + kf
		if subtract {
			t = v.Float(i) - kf
		}
		before = func(j int) bool { return (v.Float(j) < t) != desc && v.Float(j) != t }
		equal = func(j int) bool { return v.Float(j) == t }
	}
	if start {
		// First row not before the target.
		return ns + sort.Search(ne-ns, func(k int) bool { return !before(ns + k) }), nil
	}
	// First row after the target.
	return ns + sort.Search(ne-ns, func(k int) bool { j := ns + k; return !before(j) && !equal(j) }), nil
}

// satAdd returns x+k or x-k (k >= 0), saturating at the int64 limits.
func satAdd(x, k int64, subtract bool) int64 {
	if subtract {
		if x < math.MinInt64+k {
			return math.MinInt64
		}
		return x - k
	}
	if x > math.MaxInt64-k {
		return math.MaxInt64
	}
	return x + k
}

// decimalTarget compares DECIMAL keys with row i's key ∓ offset, exactly:
// key and offset at the larger of their scales. The offset is an integer,
// a DECIMAL literal (kept exact by the binder) or a DOUBLE.
func decimalTarget(v *coldata.Vec, i int, offset any, subtract, desc bool) (before, equal func(j int) bool, err error) {
	s := v.Type.Scale()
	var off decimal.Int128
	os := s
	switch x := offset.(type) {
	case int64:
		off, os = decimal.FromInt64(x), 0
	case *expr.Literal:
		d, ok := x.Value.(decimal.Int128)
		if !ok {
			return nil, nil, fmt.Errorf("RANGE offset must be a number, got %v", x)
		}
		off, os = d, x.T.Scale()
	case float64:
		d, ok := decimal.FromFloat64(x, s)
		if !ok || math.IsNaN(x) {
			return nil, nil, fmt.Errorf("RANGE offset %v does not fit the ORDER BY key's DECIMAL", x)
		}
		off = d
	default:
		return nil, nil, fmt.Errorf("RANGE offset must be a number, got %v", offset)
	}
	if off.IsNeg() {
		return nil, nil, fmt.Errorf("RANGE offset must not be negative, got %v", offset)
	}
	scale := max(s, os)
	at := func(j int) (decimal.Int128, bool) { return v.Dec(j).Rescale(s, scale) }
	key, ok1 := at(i)
	o, ok2 := off.Rescale(os, scale)
	var t decimal.Int128
	ok3 := false
	if ok1 && ok2 {
		if subtract {
			t, ok3 = key.Sub(o)
		} else {
			t, ok3 = key.Add(o)
		}
	}
	if !ok3 {
		return nil, nil, fmt.Errorf("%w: RANGE bound past DECIMAL's range", expr.ErrDecimalRange)
	}
	cmp := func(j int) int {
		x, ok := at(j)
		if !ok {
			return 0
		}
		return x.Cmp(t)
	}
	before = func(j int) bool { c := cmp(j); return c != 0 && (c < 0) != desc }
	equal = func(j int) bool { return cmp(j) == 0 }
	return before, equal, nil
}
