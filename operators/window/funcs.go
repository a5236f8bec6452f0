package window

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// compute evaluates one function over the sorted rows and returns its
// result in input row order.
func (p *partitioned) compute(ctx context.Context, b *coldata.Batch, f *winspec.Func) (*coldata.Vec, error) {
	args := make([]*coldata.Vec, len(f.Args))
	for i, a := range f.Args {
		v, err := expr.Eval(a, b)
		if err != nil {
			return nil, err
		}
		args[i] = p.gather(v)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *coldata.Vec
	switch f.Kind {
	case winspec.RowNumber, winspec.Rank, winspec.DenseRank, winspec.Ntile:
		ints, err := p.ranking(f)
		if err != nil {
			return nil, err
		}
		out = &coldata.Vec{Type: coldata.Int64, Len: p.n, Ints: ints}
	case winspec.PercentRank, winspec.CumeDist:
		out = &coldata.Vec{Type: coldata.Float64, Len: p.n, Floats: p.distribution(f.Kind)}
	case winspec.Lag, winspec.Lead:
		out = p.offset(f, args)
	default:
		lo, hi, err := p.frames(f.Frame)
		if err != nil {
			return nil, err
		}
		switch f.Kind {
		case winspec.FirstValue, winspec.LastValue, winspec.NthValue:
			out = p.value(f, args[0], lo, hi)
		case winspec.CountStar:
			out = countStar(lo, hi)
		default:
			if out, err = aggregate(f.Kind, f.Type, args[0], p.partStart, lo, hi); err != nil {
				return nil, err
			}
		}
	}
	return p.scatter(out), nil
}

// ranking computes ROW_NUMBER, RANK, DENSE_RANK and NTILE.
func (p *partitioned) ranking(f *winspec.Func) ([]int64, error) {
	out := make([]int64, p.n)
	switch f.Kind {
	case winspec.RowNumber:
		for i := range out {
			out[i] = int64(i - p.partStart[i] + 1)
		}
	case winspec.Rank:
		for i := range out {
			out[i] = int64(p.peerStart[i] - p.partStart[i] + 1)
		}
	case winspec.DenseRank:
		var r int64
		for i := range out {
			switch {
			case i == p.partStart[i]:
				r = 1
			case i == p.peerStart[i]:
				r++
			}
			out[i] = r
		}
	case winspec.Ntile:
		if f.N <= 0 {
			return nil, fmt.Errorf("NTILE needs a positive number of buckets, got %d", f.N)
		}
		// size rows in n buckets: the first size%n buckets hold one row
		// more than the others (SQL's rule).
		for i := range out {
			size, k := int64(p.partEnd[i]-p.partStart[i]), int64(i-p.partStart[i])
			n := min(f.N, size)
			small, big := size/n, size%n
			if k < big*(small+1) {
				out[i] = k/(small+1) + 1
			} else {
				out[i] = big + (k-big*(small+1))/small + 1
			}
		}
	}
	return out, nil
}

// distribution computes PERCENT_RANK ((rank-1)/(rows-1)) and CUME_DIST
// (rows up to the last peer / rows).
func (p *partitioned) distribution(k winspec.Kind) []float64 {
	out := make([]float64, p.n)
	for i := range out {
		size := float64(p.partEnd[i] - p.partStart[i])
		if k == winspec.CumeDist {
			out[i] = float64(p.peerEnd[i]-p.partStart[i]) / size
		} else if size > 1 {
			out[i] = float64(p.peerStart[i]-p.partStart[i]) / (size - 1)
		}
	}
	return out
}

// offset computes LAG and LEAD: the value N rows before or after, in the
// partition, else the default (NULL without one).
func (p *partitioned) offset(f *winspec.Func, args []*coldata.Vec) *coldata.Vec {
	v := args[0]
	var def *coldata.Vec
	if len(args) > 1 {
		def = args[1]
	}
	n := int(min(f.N, int64(p.n)))
	if f.Kind == winspec.Lag {
		n = -n
	}
	bld := coldata.NewBuilder(f.Type, p.n)
	for i := 0; i < p.n; i++ {
		j := i + n
		switch {
		case j >= p.partStart[i] && j < p.partEnd[i]:
			bld.AppendFrom(v, j)
		case def != nil:
			bld.AppendFrom(def, i)
		default:
			bld.AppendNull()
		}
	}
	return bld.Finish()
}

// value computes FIRST_VALUE, LAST_VALUE and NTH_VALUE over each frame;
// an empty frame (or one shorter than N) gives NULL.
func (p *partitioned) value(f *winspec.Func, v *coldata.Vec, lo, hi []int) *coldata.Vec {
	bld := coldata.NewBuilder(f.Type, p.n)
	for i := 0; i < p.n; i++ {
		j := -1
		switch f.Kind {
		case winspec.FirstValue:
			j = lo[i]
		case winspec.LastValue:
			j = hi[i] - 1
		case winspec.NthValue:
			if f.N >= 1 && f.N <= int64(hi[i]-lo[i]) {
				j = lo[i] + int(f.N) - 1
			}
		}
		if j < lo[i] || j >= hi[i] {
			bld.AppendNull()
			continue
		}
		bld.AppendFrom(v, j)
	}
	return bld.Finish()
}

// countStar counts the rows of each frame.
func countStar(lo, hi []int) *coldata.Vec {
	out := make([]int64, len(lo))
	for i := range out {
		out[i] = int64(hi[i] - lo[i])
	}
	return &coldata.Vec{Type: coldata.Int64, Len: len(lo), Ints: out}
}
