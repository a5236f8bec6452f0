package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// probeKeys joins left batch lb whose rows resolved to build ids (noID:
// no match), queueing output batches: the matching pairs in left row
// order, and for one left row in build row order, then what finishBatch
// adds. Pairs are formed in slices of about maxPairs; a slice's residual
// condition is evaluated on the columns it reads alone, on every CPU, and
// only the pairs passing it are gathered, on every CPU too.
func (j *HashJoin) probeKeys(ctx context.Context, w *probeState, lb *coldata.Batch, ids []uint32, left, semi bool) error {
	if semi && j.Cond == nil {
		// A match is all a semi or anti join needs to know.
		for r, g := range ids {
			if g != noID {
				w.matched[r] = true
			}
		}
		j.finishBatch(w, lb, left, semi)
		return nil
	}
	li, ri := w.li[:0], w.ri[:0]
	if want := min(len(ids), maxPairs); cap(li) < want || cap(ri) < want {
		// Sized for a match per row up front, from the pool: appended
		// from empty, the pairs of every query's first batches grew by
		// doubling, a quarter of a 80K-row join's time copying them
		// (bench --suite random --seed 2029 r056).
		intPool.put(li)
		intPool.put(ri)
		li, ri = intPool.get(want)[:0], intPool.get(want)[:0]
	}
	for r, g := range ids {
		if r&(1<<12-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if g == noID {
			continue
		}
		li, ri = j.appendMatches(li, ri, r, g)
		if len(li) >= maxPairs {
			var err error
			if li, ri, err = j.emitPairs(ctx, w, lb, li, ri, left, semi); err != nil {
				return err
			}
		}
	}
	var err error
	if li, ri, err = j.emitPairs(ctx, w, lb, li, ri, left, semi); err != nil {
		return err
	}
	w.li, w.ri = li, ri
	j.finishBatch(w, lb, left, semi)
	return nil
}

// emitPairs filters the pairs (li[k], ri[k]) by Cond, marks their left
// rows matched and (but for semi and anti joins) queues their output. It
// returns li and ri emptied, for reuse.
func (j *HashJoin) emitPairs(ctx context.Context, w *probeState, lb *coldata.Batch, li, ri []int, left, semi bool) ([]int, []int, error) {
	if len(li) == 0 {
		return li, ri, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if j.Cond != nil {
		keep, err := j.condPairs(w, lb.Cols, li, j.build.Cols, ri)
		if err != nil {
			return nil, nil, err
		}
		k := 0
		for i, ok := range keep {
			if ok {
				li[k], ri[k] = li[i], ri[i]
				k++
			}
		}
		li, ri = li[:k], ri[:k]
	}
	if left {
		for _, l := range li {
			w.matched[l] = true
		}
	}
	if !semi && len(li) > 0 {
		w.out = append(w.out, j.combineMatches(w, lb, li, ri))
	}
	return li[:0], ri[:0], nil
}

// condPairs evaluates Cond over the pairs of rows li[k] of the left
// columns lcols and ri[k] of the right columns rcols, and reports which
// pass. The pairs' batch holds only the columns Cond reads (the others are
// NULL constants), and slices of the pairs evaluate on separate
// goroutines. The flags are scratch, valid until the next call.
func (j *HashJoin) condPairs(w *probeState, lcols []*coldata.Vec, li []int, rcols []*coldata.Vec, ri []int) ([]bool, error) {
	n := len(li)
	if cap(w.condKeep) < n {
		w.condKeep = make([]bool, n)
	}
	keep := w.condKeep[:n]
	eval := func(lo, hi int) error {
		cols := make([]*coldata.Vec, len(j.condCols))
		for c, need := range j.condCols {
			var src *coldata.Vec
			var idx []int
			if c < j.LeftCols {
				src, idx = lcols[c], li[lo:hi]
			} else {
				src, idx = rcols[c-j.LeftCols], ri[lo:hi]
			}
			if need {
				cols[c] = coldata.Gather(src, idx)
			} else {
				cols[c] = coldata.NewConst(src.Type, nil, hi-lo)
			}
		}
		mask, err := expr.Eval(j.Cond, &coldata.Batch{Cols: cols, Len: hi - lo})
		if err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			keep[i] = !mask.IsNull(i-lo) && mask.Bool(i-lo)
		}
		return nil
	}
	workers := min(w.workers(n), n/max(joinGatherRows, 1))
	if workers <= 1 {
		return keep, eval(0, n)
	}
	step := (n + workers - 1) / workers
	errs := make([]error, workers)
	var wg workGroup
	for k := 0; k < workers; k++ {
		lo, hi := k*step, min((k+1)*step, n)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = eval(lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return keep, nil
}

// appendMatches appends the pairs of left row r with the build rows of id
// g, in build row order.
func (j *HashJoin) appendMatches(li, ri []int, r int, g uint32) ([]int, []int) {
	if j.unique {
		return append(li, r), append(ri, int(g))
	}
	for m := j.start[g]; m < j.start[g+1]; m++ {
		li = append(li, r)
		ri = append(ri, int(m))
	}
	return li, ri
}
