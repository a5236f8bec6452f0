package window

import (
	"bytes"
	"context"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// partitioned is the input sorted for one window: partitions and, within
// each, peer groups (rows equal on every ORDER BY key). Positions are
// sorted positions; perm maps them to input rows.
type partitioned struct {
	n    int
	perm []int // sorted position -> input row (nil: identity)
	inv  []int // input row -> sorted position (nil: identity)
	// partStart/partEnd bound each row's partition, peerStart/peerEnd its
	// peer group ([start, end) in sorted positions).
	partStart, partEnd []int
	peerStart, peerEnd []int
	// order holds the ORDER BY keys' values in sorted order.
	order     []*coldata.Vec
	orderKeys []winspec.Key
}

// newPartitioned sorts b's rows by the partition keys, then the order keys
// (stable, so ties keep input order).
func newPartitioned(ctx context.Context, b *coldata.Batch, partition []expr.Expr, order []winspec.Key) (*partitioned, error) {
	n := b.Len
	p := &partitioned{n: n, orderKeys: order}
	var pv, ov []*coldata.Vec
	for _, e := range partition {
		v, err := expr.Eval(e, b)
		if err != nil {
			return nil, err
		}
		pv = append(pv, v)
	}
	for _, k := range order {
		v, err := expr.Eval(k.Expr, b)
		if err != nil {
			return nil, err
		}
		ov = append(ov, v)
	}
	if len(pv)+len(ov) > 0 {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		cmp := comparator(pv, ov, order)
		calls := 0
		var cancelled error
		slices.SortStableFunc(perm, func(x, y int) int {
			if calls++; calls&(1<<16-1) == 0 && cancelled == nil {
				cancelled = ctx.Err()
			}
			if cancelled != nil {
				return 0 // finish quickly; the error is returned below
			}
			return cmp(x, y)
		})
		if cancelled != nil {
			return nil, cancelled
		}
		sorted := true
		for i, r := range perm {
			if r != i {
				sorted = false
				break
			}
		}
		if !sorted {
			p.perm = perm
			p.inv = make([]int, n)
			for pos, r := range perm {
				p.inv[r] = pos
			}
		}
	}
	p.order = make([]*coldata.Vec, len(ov))
	for i, v := range ov {
		p.order[i] = p.gather(v)
	}
	// Whole-vector boundary marks: newPart[i] when row i starts a
	// partition, newPeer[i] when it starts a peer group.
	newPart := make([]bool, n)
	newPart[0] = true
	for _, v := range pv {
		markDiffs(p.gather(v), newPart)
	}
	newPeer := slices.Clone(newPart)
	for _, v := range p.order {
		markDiffs(v, newPeer)
	}
	p.partStart, p.partEnd = spans(newPart)
	p.peerStart, p.peerEnd = spans(newPeer)
	return p, nil
}

// gather returns v's rows in sorted order (never a constant vector).
func (p *partitioned) gather(v *coldata.Vec) *coldata.Vec {
	if p.perm == nil {
		return v.Materialize()
	}
	return coldata.Gather(v, p.perm)
}

// scatter returns v (in sorted order) in input row order.
func (p *partitioned) scatter(v *coldata.Vec) *coldata.Vec {
	if p.inv == nil {
		return v
	}
	return coldata.Gather(v, p.inv)
}

// comparator orders input rows by partition keys (ascending) then order
// keys, NULLs as SQL orders them (MySQL's default: first ascending, last
// descending; or as NULLS FIRST/LAST says).
func comparator(pv, ov []*coldata.Vec, order []winspec.Key) func(i, j int) int {
	return func(i, j int) int {
		for _, v := range pv {
			if c := opspec.CompareValues(v, i, v, j); c != 0 {
				return c
			}
		}
		for k, v := range ov {
			key := order[k]
			if key.Nulls != opspec.NullsDefault {
				if an, bn := v.IsNull(i), v.IsNull(j); an != bn {
					if an == (key.Nulls == opspec.NullsFirst) {
						return -1
					}
					return 1
				}
			}
			if c := opspec.CompareValues(v, i, v, j); c != 0 {
				if key.Desc {
					return -c
				}
				return c
			}
		}
		return 0
	}
}

// markDiffs sets diff[i] where row i of v differs from row i-1 (NULLs
// equal to each other); v is not constant.
func markDiffs(v *coldata.Vec, diff []bool) {
	n := v.Len
	if v.Nulls != nil {
		for i := 1; i < n; i++ {
			if v.IsNull(i) != v.IsNull(i-1) {
				diff[i] = true
			}
		}
	}
	valid := func(i int) bool { return v.Nulls == nil || !v.IsNull(i) && !v.IsNull(i-1) }
	switch v.Type.Physical() {
	case coldata.Int64:
		xs := v.Ints[:n]
		for i := 1; i < n; i++ {
			if xs[i] != xs[i-1] && valid(i) {
				diff[i] = true
			}
		}
	case coldata.Float64:
		xs := v.Floats[:n]
		for i := 1; i < n; i++ {
			if xs[i] != xs[i-1] && valid(i) {
				diff[i] = true
			}
		}
	case coldata.Bool:
		xs := v.Bools[:n]
		for i := 1; i < n; i++ {
			if xs[i] != xs[i-1] && valid(i) {
				diff[i] = true
			}
		}
	case coldata.String:
		for i := 1; i < n; i++ {
			if valid(i) && !bytes.Equal(v.Str(i), v.Str(i-1)) {
				diff[i] = true
			}
		}
	case coldata.Null:
	default:
		for i := 1; i < n; i++ {
			if valid(i) && opspec.CompareValues(v, i, v, i-1) != 0 {
				diff[i] = true
			}
		}
	}
}

// spans turns start marks into each row's [start, end).
func spans(starts []bool) (start, end []int) {
	n := len(starts)
	start, end = make([]int, n), make([]int, n)
	s := 0
	for i := 0; i < n; i++ {
		if starts[i] {
			s = i
		}
		start[i] = s
	}
	e := n
	for i := n - 1; i >= 0; i-- {
		end[i] = e
		if starts[i] {
			e = i
		}
	}
	return start, end
}
