package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/opspec"
)

// A semi or anti join hashes its right input and streams its left one,
// like every HashJoin. When the left input turns out small and the right
// one large (TPC-H Q4 and Q21: a few thousand orders against every
// lineitem), it hashes the left rows instead and streams the right input,
// marking each left row once some right row matches it (and passes Cond);
// at the end it emits the left rows marked (semi) or not (anti), in their
// input order, so the output is the same either way.
const (
	// buildLeftMaxRows bounds the left rows read ahead to decide (TPC-H
	// Q21 at SF10: 730K suppliers' late lines against 60M lineitems).
	buildLeftMaxRows = 1 << 22
	// buildLeftRatio: the left side is hashed when the right one has more
	// than this many times its rows.
	buildLeftRatio = 4
)

// begin prepares the join before the first output: an inner or left
// join builds its right side; a semi or anti join first reads ahead to
// choose which side to hash. It reads the two inputs in turn, the left
// while the right has more than buildLeftRatio times its rows so far and
// the right otherwise, so that it stops as soon as the side that decides
// ends and holds little more of the other: TPC-H Q18's semi join, six
// million joined rows against 57, once read ahead four million left rows
// (a quarter of SF1's tables in memory) before finding the right side
// tiny. The decision is the same as reading the left side first: hash
// the left when it ends within buildLeftMaxRows rows and the right has
// more than buildLeftRatio times them.
func (j *HashJoin) begin(ctx context.Context) error {
	if (j.Kind != opspec.SemiJoin && j.Kind != opspec.AntiJoin) || len(j.LeftKeys) == 0 {
		return j.buildSide(ctx)
	}
	lrows, rrows := 0, 0
	for {
		if lrows == 0 || rrows > buildLeftRatio*lrows {
			if lrows > buildLeftMaxRows {
				return j.buildSide(ctx)
			}
			b, err := j.Left.Next(ctx)
			if err != nil {
				return err
			}
			if b == nil {
				if lrows == 0 {
					// No left row: nothing to emit, and the right input
					// need not be read at all.
					j.build, j.buildLeft, j.done = &coldata.Batch{}, true, true
					return nil
				}
				return j.hashLeft(ctx)
			}
			j.leftBuf = append(j.leftBuf, b)
			lrows += b.Len
			continue
		}
		b, err := j.Right.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			j.rightDone = true
			return j.buildSide(ctx)
		}
		j.rightBuf = append(j.rightBuf, b)
		rrows += b.Len
	}
}

// hashLeft makes the read-ahead left rows the hashed side.
func (j *HashJoin) hashLeft(ctx context.Context) error {
	build, err := coldata.ConcatCheck(j.leftBuf, j.LeftCols, ctx.Err)
	if err != nil {
		return err
	}
	j.leftBuf = nil
	j.stateBytes = batchBytes(build) + 48*uint64(build.Len)
	if j.MemoryLimit > 0 {
		if bytes := j.stateBytes; bytes > j.MemoryLimit {
			return memory.StateLimit(joinBuildState, j.MemoryLimit, build.Len, "rows")
		}
	}
	keys, err := evalAll(j.LeftKeys, build)
	if err != nil {
		return err
	}
	n := build.Len
	if n >= joinPartitionMinRows {
		if j.table, j.start, j.order, _, err = buildPartIndex(ctx, keys, n); err != nil {
			return err
		}
	} else {
		var table *hashTable
		if table, j.start, j.order, err = groupKeys(ctx, keys, n); err != nil {
			return err
		}
		j.table = flatIndex{table}
	}
	j.build = build
	j.lmatched = make([]bool, n)
	j.buildLeft = true
	return nil
}

// nextBuildLeft streams the right input through the hashed left rows,
// then returns the left rows kept.
func (j *HashJoin) nextBuildLeft(ctx context.Context) (*coldata.Batch, error) {
	if j.done {
		return nil, nil
	}
	if err := j.markRight(ctx); err != nil {
		return nil, err
	}
	j.done = true
	want := j.Kind == opspec.SemiJoin
	var keep []int
	for r, m := range j.lmatched {
		if m == want {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return nil, nil
	}
	if len(keep) == j.build.Len {
		return j.build, nil
	}
	return coldata.GatherBatch(j.build, keep), nil
}

// nextRight returns the next right batch (nil at the end).
func (j *HashJoin) nextRight(ctx context.Context) (*coldata.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(j.rightBuf) > 0 {
		rb := j.rightBuf[0]
		j.rightBuf = j.rightBuf[1:]
		return rb, nil
	}
	return j.Right.Next(ctx)
}

// markRight streams the right input through the hashed left rows, setting
// lmatched. The right batches are read here and marked on probeWorkers
// goroutines, each with its own scratch and its own marks, which are
// OR'ed at the end: which rows are marked does not depend on who marked
// them.
func (j *HashJoin) markRight(ctx context.Context) error {
	workers := max(probeWorkers(), 1)
	if workers == 1 || !j.Parallel {
		for {
			rb, err := j.nextRight(ctx)
			if err != nil || rb == nil {
				return err
			}
			if err := j.markLeft(ctx, &j.ps, j.lmatched, rb); err != nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *coldata.Batch, workers)
	marks := make([][]bool, workers)
	errs := make([]error, workers)
	var wg workGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A worker that stops early, by an error or a panic, stops
			// the reading.
			finished := false
			defer func() {
				if !finished {
					cancel()
				}
			}()
			w := &probeState{shared: true}
			defer w.release()
			for rb := range batches {
				if marks[k] == nil {
					marks[k] = make([]bool, len(j.lmatched))
				}
				if err := j.markLeft(ctx, w, marks[k], rb); err != nil {
					errs[k] = err
					return
				}
			}
			finished = true
		}()
	}
	var err error
	func() {
		// Every exit, a panic of the right input's included, lets the
		// workers finish before the scratch they read goes.
		defer func() {
			close(batches)
			wg.Wait()
		}()
		for {
			var rb *coldata.Batch
			if rb, err = j.nextRight(ctx); err != nil || rb == nil {
				return
			}
			select {
			case batches <- rb:
			case <-ctx.Done():
				err = ctx.Err()
				return
			}
		}
	}()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	if err != nil {
		return err
	}
	for _, m := range marks {
		for l, ok := range m {
			if ok {
				j.lmatched[l] = true
			}
		}
	}
	return nil
}

// markLeft sets matched[l] for the hashed left rows l that a row of the
// right batch rb matches, with w's scratch.
func (j *HashJoin) markLeft(ctx context.Context, w *probeState, matched []bool, rb *coldata.Batch) error {
	n := rb.Len
	keys, err := evalAll(j.RightKeys, rb)
	if err != nil {
		return err
	}
	if len(w.keys) != len(keys) {
		w.keys = make([]keyVec, len(keys))
	}
	types := j.table.keyTypes()
	for i, k := range keys {
		if types[i] == coldata.Null || k.Type == coldata.Null {
			return nil // one side's key is all NULL: nothing matches
		}
		if k.Type != types[i] {
			return fmt.Errorf("internal error: join key %d compares %s with %s", i, types[i], k.Type)
		}
		w.keys[i].prepare(k, n)
	}
	if cap(w.ids) < n {
		w.ids = make([]uint32, n)
	}
	ids := w.ids[:n]
	j.table.find(&w.find, w.keys, n, ids, w.workers(n))
	clearNullIDs(w.keys, ids)
	li, ri := w.li[:0], w.ri[:0]
	flush := func() error {
		if len(li) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		keep, err := j.condPairs(w, j.build.Cols, li, rb.Cols, ri)
		if err != nil {
			return err
		}
		for k, l := range li {
			if keep[k] {
				matched[l] = true
			}
		}
		li, ri = li[:0], ri[:0]
		return nil
	}
	for r, g := range ids {
		if g == noID {
			continue
		}
		rows := j.order[j.start[g]:j.start[g+1]]
		if j.Cond == nil {
			// A key's left rows are marked together, so once its first
			// is, all are: a key met again by many right rows costs one
			// look, not a walk over its left rows each time.
			if len(rows) > 0 && !matched[rows[0]] {
				for _, l := range rows {
					matched[l] = true
				}
			}
			continue
		}
		for _, l := range rows {
			if matched[l] {
				continue
			}
			li = append(li, l)
			ri = append(ri, r)
		}
		if len(li) >= maxPairs {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	w.li, w.ri = li, ri
	return nil
}
