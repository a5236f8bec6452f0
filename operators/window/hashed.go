package window

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// The hashed path: functions that are all aggregates over their whole
// partition (winspec.Hashed) need no sort. The rows are numbered by
// partition with GROUP BY's hash table, each function is aggregated per
// partition in input row order (the order the stable sort leaves a
// partition's rows in without ORDER BY) and every row takes its
// partition's value. The results equal the sorted path's: exact integer
// and DECIMAL sums, DOUBLE sums added in the same order, MIN/MAX keeping
// the last of equal values, as the sorted path's deque does.

// hashedPartitions groups b's rows by the partition keys of f.
func hashedPartitions(ctx context.Context, b *coldata.Batch, f *winspec.Func) ([]uint32, int, error) {
	keys := make([]*coldata.Vec, len(f.Partition))
	for i, e := range f.Partition {
		v, err := expr.Eval(e, b)
		if err != nil {
			return nil, 0, err
		}
		keys[i] = v
	}
	return operators.GroupRows(ctx, keys, b.Len)
}

// partitionAggregate computes f (a winspec.PartitionAggregate) for every
// row of b from its partition's group id; groups is the number of
// partitions.
func partitionAggregate(ctx context.Context, b *coldata.Batch, f *winspec.Func, ids []uint32, groups int) (*coldata.Vec, error) {
	n := len(ids)
	cnt := make([]int64, groups)
	if f.Kind == winspec.CountStar {
		for _, g := range ids {
			cnt[g]++
		}
		return scatterInts(cnt, ids), nil
	}
	v, err := expr.Eval(f.Args[0], b)
	if err != nil {
		return nil, err
	}
	v = v.Materialize()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for r, g := range ids {
		if v.Nulls == nil || !v.IsNull(r) {
			cnt[g]++
		}
	}
	switch f.Kind {
	case winspec.Count:
		return scatterInts(cnt, ids), nil
	case winspec.Min, winspec.Max:
		return groupMinMax(f.Kind == winspec.Min, f.Type, v, ids, groups), nil
	case winspec.Sum, winspec.Avg:
	default:
		return nil, fmt.Errorf("internal error: %s is not a partition aggregate", f.Kind)
	}
	t := f.Type
	out := &coldata.Vec{Type: t, Len: n}
	anyEmpty := false
	for _, c := range cnt {
		anyEmpty = anyEmpty || c == 0
	}
	if anyEmpty {
		out.Nulls = coldata.NewValidBitmap(n)
		for r, g := range ids {
			if cnt[g] == 0 {
				coldata.ClearBit(out.Nulls, r)
			}
		}
	}
	switch v.Type.Physical() {
	case coldata.Int64, coldata.Bool:
		sums := make([]int128, groups)
		switch {
		case v.Type == coldata.Bool:
			for r, g := range ids {
				if !v.IsNull(r) {
					sums[g] = sums[g].add(int64(v.Bools[r]))
				}
			}
		case v.Nulls == nil:
			for r, g := range ids {
				sums[g] = sums[g].add(v.Ints[r])
			}
		default:
			for r, g := range ids {
				if !v.IsNull(r) {
					sums[g] = sums[g].add(v.Ints[r])
				}
			}
		}
		if f.Kind == winspec.Sum && t == coldata.Int64 {
			res := make([]int64, groups)
			for g, s := range sums {
				x, ok := s.int64()
				if !ok {
					return nil, fmt.Errorf("BIGINT value is out of range in SUM")
				}
				res[g] = x
			}
			out.Ints = make([]int64, n)
			for r, g := range ids {
				out.Ints[r] = res[g]
			}
			return out, nil
		}
		if f.Kind == winspec.Avg && t.IsDecimal() {
			res := make([]decimal.Int128, groups)
			for g, s := range sums {
				if cnt[g] > 0 {
					d, err := intAvg(s, cnt[g], t)
					if err != nil {
						return nil, err
					}
					res[g] = d
				}
			}
			out.Decs = make([]decimal.Int128, n)
			for r, g := range ids {
				out.Decs[r] = res[g]
			}
			return out, nil
		}
		res := make([]float64, groups)
		for g, s := range sums {
			res[g] = s.float64()
			if f.Kind == winspec.Avg && cnt[g] > 0 {
				res[g] /= float64(cnt[g])
			}
		}
		out.Floats = scatterFloats(res, ids)
		return out, nil
	case coldata.Decimal:
		res, err := groupDecimalSums(f.Kind, t, v, ids, cnt)
		if err != nil {
			return nil, err
		}
		out.Decs = make([]decimal.Int128, n)
		for r, g := range ids {
			out.Decs[r] = res[g]
		}
		return out, nil
	case coldata.Float64:
		// In row order, as the sorted path's running sum adds a
		// partition's rows (NULLs add nothing there either).
		res := make([]float64, groups)
		for r, g := range ids {
			if !v.IsNull(r) {
				res[g] += v.Floats[r]
			}
		}
		if f.Kind == winspec.Avg {
			for g, c := range cnt {
				if c > 0 {
					res[g] /= float64(c)
				}
			}
		}
		out.Floats = scatterFloats(res, ids)
		return out, nil
	}
	return nil, fmt.Errorf("%s of %s is not supported", f.Kind, v.Type)
}

// groupDecimalSums is decimalSums per partition: exact 128-bit sums, AVG
// rounded to t's scale; a sum past 128 bits or t's precision is a range
// error.
func groupDecimalSums(k winspec.Kind, t coldata.Type, v *coldata.Vec, ids []uint32, cnt []int64) ([]decimal.Int128, error) {
	name := map[winspec.Kind]string{winspec.Sum: "SUM", winspec.Avg: "AVG"}[k]
	sums := make([]decimal.Int128, len(cnt))
	for r, g := range ids {
		if v.IsNull(r) {
			continue
		}
		s, ok := sums[g].Add(v.Decs[r])
		if !ok {
			return nil, fmt.Errorf("%w in %s", expr.ErrDecimalRange, name)
		}
		sums[g] = s
	}
	sc := v.Type.Scale()
	for g, c := range cnt {
		if c == 0 {
			sums[g] = decimal.Int128{}
			continue // NULL
		}
		s, ok := sums[g], true
		if k == winspec.Avg {
			if s, ok = s.Rescale(sc, t.Scale()); ok {
				s, _ = s.DivRound(decimal.FromInt64(c))
			}
		}
		if !ok || !s.Fits(t.Precision()) {
			return nil, fmt.Errorf("%w in %s", expr.ErrDecimalRange, name)
		}
		sums[g] = s
	}
	return sums, nil
}

// groupMinMax finds each partition's MIN or MAX row, the last of equal
// values in row order (the sorted path's deque keeps the last), and
// gives it to every row of the partition; a partition without values
// gets NULL.
func groupMinMax(isMin bool, t coldata.Type, v *coldata.Vec, ids []uint32, groups int) *coldata.Vec {
	best := make([]int, groups)
	for g := range best {
		best[g] = -1
	}
	for r, g := range ids {
		if v.IsNull(r) {
			continue
		}
		if b := best[g]; b >= 0 {
			c := opspec.CompareValues(v, r, v, b)
			if isMin && c > 0 || !isMin && c < 0 {
				continue
			}
		}
		best[g] = r
	}
	bld := coldata.NewBuilder(t, len(ids))
	for _, g := range ids {
		if b := best[g]; b >= 0 {
			bld.AppendFrom(v, b)
		} else {
			bld.AppendNull()
		}
	}
	return bld.Finish()
}

func scatterInts(perGroup []int64, ids []uint32) *coldata.Vec {
	out := make([]int64, len(ids))
	for r, g := range ids {
		out[r] = perGroup[g]
	}
	return &coldata.Vec{Type: coldata.Int64, Len: len(ids), Ints: out}
}

func scatterFloats(perGroup []float64, ids []uint32) []float64 {
	out := make([]float64, len(ids))
	for r, g := range ids {
		out[r] = perGroup[g]
	}
	return out
}

// computeHashed computes funcs[j] for j in group (functions sharing one
// window, all of them partition aggregates) into out, with one hash of
// the partition keys.
func computeHashed(ctx context.Context, b *coldata.Batch, funcs []winspec.Func, group []int, out []*coldata.Vec) error {
	ids, groups, err := hashedPartitions(ctx, b, &funcs[group[0]])
	if err != nil {
		return err
	}
	for _, j := range group {
		v, err := partitionAggregate(ctx, b, &funcs[j], ids, groups)
		if err != nil {
			return fmt.Errorf("%s: %w", funcs[j].Kind, err)
		}
		out[j] = v
	}
	return nil
}
