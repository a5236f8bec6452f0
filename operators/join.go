package operators

import (
	"context"
	"fmt"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/opspec"
)

// HashJoin joins Left and Right. Rows pair up when their equi-keys are equal
// (NULL keys never match) and the residual condition Cond (over the left
// columns followed by the right columns) is TRUE. Without keys every pair is
// a candidate (nested loop). The right input is materialised and hashed;
// the left input streams. Output comes per left batch: the matching pairs
// in left row order (for one left row, in build order), then a left
// join's unmatched rows; a semi or anti join keeps left rows in order. A
// batch's keys are resolved, its residual condition evaluated and its
// output gathered on every CPU (join_probe.go, join_gather.go).
type HashJoin struct {
	Left, Right         Operator
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	Kind                opspec.JoinKind
	LeftCols            int
	RightTypes          []coldata.Type
	// MaxBuildRows bounds the materialised right side (0: unbounded).
	MaxBuildRows int
	// MemoryLimit bounds the estimated bytes of the build side and its hash
	// table (0: unbounded).
	MemoryLimit uint64
	// stateBytes estimates the build side's bytes (StateBytes).
	stateBytes uint64
	// Parallel lets the join read its streamed input on another goroutine
	// and probe its batches on probeWorkers goroutines (join_parallel.go);
	// the planner sets it where both inputs are host operators only.
	Parallel bool

	build *coldata.Batch
	// table maps each distinct build key to an id, in order of first
	// appearance: one hash table, or for a large build side a radix
	// partitioned one (join_partition.go). build is reordered by id (build
	// order kept within an id, rows with NULL keys dropped): the rows of id
	// g are start[g] to start[g+1]-1, and row g when unique.
	table  joinIndex
	start  []int32
	unique bool
	// keyFromLeft maps a build column to the key whose probe values it
	// equals in every match (-1: none); nil when no column does.
	keyFromLeft []int
	// condCols flags the columns Cond reads (nil without Cond).
	condCols []bool

	// ps is the probe scratch of batches probed on the calling goroutine
	// (and of the hashed left side's markLeft); par, once started, probes
	// the left batches on several goroutines (join_parallel.go).
	ps  probeState
	par *parallelProbe
	// owned remembers the returned batches' own buffers (release.go).
	owned ownedBatches

	// Semi and anti joins first read some of both inputs (see start):
	// leftBuf holds left batches read ahead, rightBuf right batches read
	// ahead and not yet built.
	leftBuf, rightBuf []*coldata.Batch
	rightDone         bool
	// buildLeft: the left input was small and is hashed instead (build is
	// then the left rows, in order; order lists them grouped by key), the
	// right input streams and marks lmatched; done is set once the left
	// rows are emitted.
	buildLeft bool
	order     []int
	lmatched  []bool
	done      bool
}

// maxPairs bounds the candidate pairs formed at once, so that a nested loop
// join over large inputs works in slices of bounded memory.
const maxPairs = 1 << 16

// Open implements Operator.
func (j *HashJoin) Open(ctx context.Context) error {
	j.stopParallel()
	j.build, j.table, j.start, j.keyFromLeft = nil, nil, nil, nil
	j.ps, j.par = probeState{}, nil
	j.condCols = nil
	if j.Cond != nil {
		j.condCols = make([]bool, j.LeftCols+len(j.RightTypes))
		for c := range expr.Columns(j.Cond) {
			if c >= 0 && c < len(j.condCols) {
				j.condCols[c] = true
			}
		}
	}
	j.leftBuf, j.rightBuf, j.rightDone = nil, nil, false
	j.buildLeft, j.order, j.lmatched, j.done = false, nil, nil, false
	if err := j.Left.Open(ctx); err != nil {
		return err
	}
	return j.Right.Open(ctx)
}

// StateBytes is the estimated host memory of the hashed side: its rows and
// their table entries (what MemoryLimit bounds), for EXPLAIN ANALYZE.
func (j *HashJoin) StateBytes() uint64 { return j.stateBytes }

func (j *HashJoin) buildSide(ctx context.Context) error {
	var batches []*coldata.Batch
	rows := 0
	var bytes uint64
	pre := j.rightBuf
	j.rightBuf = nil
	for {
		var b *coldata.Batch
		if len(pre) > 0 {
			b, pre = pre[0], pre[1:]
		} else if !j.rightDone {
			var err error
			if b, err = j.Right.Next(ctx); err != nil {
				return err
			}
		}
		if b == nil {
			break
		}
		rows += b.Len
		if j.MaxBuildRows > 0 && rows > j.MaxBuildRows {
			return memory.StateUnitLimit(joinBuildState, j.MaxBuildRows, "rows")
		}
		bytes += batchBytes(b) + 48*uint64(b.Len)
		j.stateBytes = bytes
		if j.MemoryLimit > 0 && bytes > j.MemoryLimit {
			return memory.StateLimit(joinBuildState, j.MemoryLimit, rows, "rows")
		}
		batches = append(batches, b)
	}
	if len(batches) == 0 {
		cols := make([]*coldata.Vec, len(j.RightTypes))
		for i, t := range j.RightTypes {
			cols[i] = coldata.NewVec(t, 0)
		}
		j.build = &coldata.Batch{Cols: cols}
	} else {
		build, err := coldata.ConcatCheck(batches, len(j.RightTypes), ctx.Err)
		if err != nil {
			return err
		}
		j.build = build
	}
	if len(j.RightKeys) == 0 {
		return nil
	}
	keys, err := evalAll(j.RightKeys, j.build)
	if err != nil {
		return err
	}
	for i, k := range keys {
		if lt := j.LeftKeys[i].Type(); lt != k.Type && lt != coldata.Null && k.Type != coldata.Null {
			return fmt.Errorf("internal error: join key %d compares %s with %s", i, lt, k.Type)
		}
	}
	if j.build.Len >= joinPartitionMinRows {
		// A large build side: radix partitioned, built in parallel (see
		// join_partition.go), its rows reordered by id as below.
		x, start, order, unique, err := buildPartIndex(ctx, keys, j.build.Len)
		if err != nil {
			return err
		}
		j.table, j.start, j.unique = x, start, unique
		if !isIdentity(order, j.build.Len) {
			if j.build, err = gatherBuild(ctx, j.build, order); err != nil {
				return err
			}
		}
		j.setKeyFromLeft()
		return nil
	}
	var order []int
	var table *hashTable
	if table, j.start, order, err = groupKeys(ctx, keys, j.build.Len); err != nil {
		return err
	}
	j.table = flatIndex{table}
	ng := table.n
	j.unique = true
	for g := 0; g < ng && j.unique; g++ {
		j.unique = j.start[g+1] == int32(g+1)
	}
	// Matches then gather from consecutive rows per key, and for unique
	// keys need no lookup besides the hash table.
	// Unique keys without NULLs get ids in row order: the rows are in
	// place already, and copying them would only cost (a primary key's
	// build side, most of TPC-H's joins).
	if !isIdentity(order, j.build.Len) {
		j.build = coldata.GatherBatch(j.build, order)
	}
	j.setKeyFromLeft()
	return nil
}

// groupKeys hashes the rows' keys and groups the rows by key: group g's
// rows are order[start[g]:start[g+1]], in row order (a counting sort);
// rows with a NULL key never match and are left out.
func groupKeys(ctx context.Context, keys []*coldata.Vec, n int) (*hashTable, []int32, []int, error) {
	types := make([]coldata.Type, len(keys))
	for i, k := range keys {
		types[i] = k.Type
	}
	kvs := make([]keyVec, len(keys))
	for i, k := range keys {
		kvs[i].prepare(k, n)
	}
	table := newHashTable(types)
	ids := make([]uint32, n)
	const chunk = 1 << 16
	for lo := 0; lo < n; lo += chunk {
		// Building a big table takes a while: stay cancellable.
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		if err := table.findOrInsert(kvs, lo, min(lo+chunk, n), ids, nil, nil); err != nil {
			return nil, nil, nil, fmt.Errorf("join build side: %w", err)
		}
	}
	null := nullRows(kvs, n)
	ng := table.n
	start := make([]int32, ng+1)
	for r, g := range ids {
		if null == nil || !null[r] {
			start[g+1]++
		}
	}
	for g := 0; g < ng; g++ {
		start[g+1] += start[g]
	}
	order := make([]int, start[ng])
	fill := slices.Clone(start[:ng])
	for r, g := range ids {
		if null == nil || !null[r] {
			order[fill[g]] = r
			fill[g]++
		}
	}
	return table, start, order, nil
}

// nullRows flags the rows where some key is NULL; nil when there are none.
func nullRows(kvs []keyVec, n int) []bool {
	var null []bool
	for i := range kvs {
		kv := &kvs[i]
		if !kv.allNull && kv.nulls == nil {
			continue
		}
		if null == nil {
			null = make([]bool, n)
		}
		for r := 0; r < n; r++ {
			if kv.isNull(r) {
				null[r] = true
			}
		}
	}
	return null
}

func evalAll(es []expr.Expr, b *coldata.Batch) ([]*coldata.Vec, error) {
	out := make([]*coldata.Vec, len(es))
	for i, e := range es {
		v, err := expr.Eval(e, b)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func anyNull(vs []*coldata.Vec, r int) bool {
	for _, v := range vs {
		if v.IsNull(r) {
			return true
		}
	}
	return false
}

// Next implements Operator.
func (j *HashJoin) Next(ctx context.Context) (*coldata.Batch, error) {
	if j.build == nil {
		if err := j.begin(ctx); err != nil {
			return nil, err
		}
	}
	if j.buildLeft {
		return j.nextBuildLeft(ctx)
	}
	if j.par == nil && j.Parallel && probeWorkers() > 1 {
		j.startParallel(ctx)
	}
	if j.par != nil {
		b, owned, err := j.par.next(ctx)
		j.owned.add(b, owned)
		return b, err
	}
	w := &j.ps
	for {
		if len(w.out) > 0 {
			b := w.out[0]
			j.owned.add(b, w.outOwned[0])
			w.out, w.outOwned = w.out[1:], w.outOwned[1:]
			return b, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var lb *coldata.Batch
		if len(j.leftBuf) > 0 {
			lb, j.leftBuf = j.leftBuf[0], j.leftBuf[1:]
		} else {
			var err error
			if lb, err = j.Left.Next(ctx); err != nil || lb == nil {
				return nil, err
			}
		}
		w.out = w.out[:0]
		if err := j.probe(ctx, w, lb); err != nil {
			return nil, err
		}
		w.outOwned = j.ownOutputs(lb, w.out)
	}
}

// ownOutputs lists, for each output batch of left batch lb, the vectors
// that are the join's own (gathered for it, not lb's nor the build's),
// for its consumer to hand back (release.go), and hands lb back to the
// left input unless an output is lb itself (a semi join keeping every
// row).
func (j *HashJoin) ownOutputs(lb *coldata.Batch, outs []*coldata.Batch) [][]*coldata.Vec {
	owned := make([][]*coldata.Vec, len(outs))
	passed := false
	for i, b := range outs {
		if b == lb {
			passed = true
			continue
		}
		owned[i] = ownedCols(b.Cols, lb.Cols, j.build.Cols)
	}
	if !passed {
		releaseInput(j.Left, lb, nil)
	}
	return owned
}

// releaseBatch implements batchReleaser.
func (j *HashJoin) releaseBatch(b *coldata.Batch, live []*coldata.Vec) {
	j.owned.release(b, live)
}

// probe joins one left batch with w's scratch, appending output batches
// to w.out. Pairs come in left row order, and for one left row in build
// row order. It only reads the join's state, so that goroutines with
// their own probeState probe batches at once.
func (j *HashJoin) probe(ctx context.Context, w *probeState, lb *coldata.Batch) error {
	n := lb.Len
	var ids []uint32
	if len(j.LeftKeys) > 0 {
		keys, err := evalAll(j.LeftKeys, lb)
		if err != nil {
			return err
		}
		w.leftKeys = keys
		if len(w.keys) != len(keys) {
			w.keys = make([]keyVec, len(keys))
		}
		types := j.table.keyTypes()
		for i, k := range keys {
			if types[i] == coldata.Null {
				// The build keys are all NULL: nothing matches.
				w.keys[i] = keyVec{t: coldata.Null, allNull: true}
				continue
			}
			if err := w.keys[i].prepareAs(k, n, types[i]); err != nil {
				return err
			}
		}
		if cap(w.ids) < n {
			w.ids = make([]uint32, n)
		}
		ids = w.ids[:n]
		j.table.find(&w.find, w.keys, n, ids, w.workers(n))
		clearNullIDs(w.keys, ids)
	}
	left := j.Kind != opspec.InnerJoin // unmatched rows matter
	semi := j.Kind == opspec.SemiJoin || j.Kind == opspec.AntiJoin
	if left {
		if cap(w.matched) < n {
			w.matched = make([]bool, n)
		}
		w.matched = w.matched[:n]
		clear(w.matched)
	}
	if ids != nil {
		return j.probeKeys(ctx, w, lb, ids, left, semi)
	}
	li, ri := w.li[:0], w.ri[:0]
	flush := func() error {
		if len(li) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		out, sel, err := j.pairs(w, lb, li, ri)
		if err != nil {
			return err
		}
		if left {
			if j.Cond == nil {
				for _, l := range li {
					w.matched[l] = true
				}
			}
			for _, s := range sel {
				w.matched[li[s]] = true
			}
		}
		if out != nil && out.Len > 0 && !semi {
			w.out = append(w.out, out)
		}
		li, ri = li[:0], ri[:0]
		return nil
	}
	for r := 0; r < n; r++ {
		if r&(1<<12-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if ids != nil {
			g := ids[r]
			if g == noID {
				continue
			}
			li, ri = j.appendMatches(li, ri, r, g)
		} else {
			for m := 0; m < j.build.Len; m++ {
				li = append(li, r)
				ri = append(ri, m)
				if len(li) >= maxPairs {
					if err := flush(); err != nil {
						return err
					}
				}
			}
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
	j.finishBatch(w, lb, left, semi)
	return nil
}

// clearNullIDs sets the ids of the rows with a NULL key to noID: a NULL
// key matches nothing, not even a stored NULL.
func clearNullIDs(keys []keyVec, ids []uint32) {
	for i := range keys {
		kv := &keys[i]
		if kv.allNull || kv.nulls != nil {
			for r := range ids {
				if kv.isNull(r) {
					ids[r] = noID
				}
			}
		}
	}
}

// finishBatch queues what a left batch adds once its pairs are out: the
// rows a semi or anti join keeps, or the unmatched rows of a left join.
func (j *HashJoin) finishBatch(w *probeState, lb *coldata.Batch, left, semi bool) {
	if semi {
		keep := w.keep[:0]
		for r, m := range w.matched {
			if m == (j.Kind == opspec.SemiJoin) {
				keep = append(keep, r)
			}
		}
		w.keep = keep
		switch len(keep) {
		case 0:
		case lb.Len:
			w.out = append(w.out, lb)
		default:
			jobs := make([]gatherJob, len(lb.Cols))
			for c, v := range lb.Cols {
				jobs[c] = gatherJob{v, keep}
			}
			w.out = append(w.out, &coldata.Batch{Cols: gatherVecs(jobs, len(keep), w.workers(len(keep))), Len: len(keep)})
		}
		return
	}
	if left {
		var un []int
		for r, m := range w.matched {
			if !m {
				un = append(un, r)
			}
		}
		if len(un) > 0 {
			nulls := make([]int, len(un))
			for i := range nulls {
				nulls[i] = -1
			}
			w.out = append(w.out, j.combine(lb, un, nulls))
		}
	}
}

// pairs forms the candidate pairs and keeps those passing Cond; sel lists
// the kept pair positions (nil without Cond: all of them).
func (j *HashJoin) pairs(w *probeState, lb *coldata.Batch, li, ri []int) (*coldata.Batch, []int, error) {
	b := j.combineMatches(w, lb, li, ri)
	if j.Cond == nil {
		return b, nil, nil
	}
	mask, err := expr.Eval(j.Cond, b)
	if err != nil {
		return nil, nil, err
	}
	var sel []int
	for i := 0; i < b.Len; i++ {
		if !mask.IsNull(i) && mask.Bool(i) {
			sel = append(sel, i)
		}
	}
	if len(sel) == b.Len {
		return b, sel, nil
	}
	return coldata.GatherBatch(b, sel), sel, nil
}

func (j *HashJoin) combine(lb *coldata.Batch, li, ri []int) *coldata.Batch {
	cols := make([]*coldata.Vec, 0, j.LeftCols+len(j.RightTypes))
	for _, c := range lb.Cols {
		cols = append(cols, coldata.Gather(c, li))
	}
	for _, c := range j.build.Cols {
		cols = append(cols, coldata.GatherNullable(c, ri))
	}
	return &coldata.Batch{Cols: cols, Len: len(li)}
}

// combineMatches is combine for matching pairs (every ri >= 0). A build
// column that is itself a key equals the probe's key in every pair, and
// for types whose equal values are identical (not DOUBLE: -0 = 0) it is
// gathered from the probe key, in probe order, instead of at random from
// the build side.
func (j *HashJoin) combineMatches(w *probeState, lb *coldata.Batch, li, ri []int) *coldata.Batch {
	jobs := make([]gatherJob, 0, j.LeftCols+len(j.RightTypes))
	for _, c := range lb.Cols {
		jobs = append(jobs, gatherJob{c, li})
	}
	for c, v := range j.build.Cols {
		if j.keyFromLeft != nil {
			if k := j.keyFromLeft[c]; k >= 0 {
				jobs = append(jobs, gatherJob{w.leftKeys[k], li})
				continue
			}
		}
		jobs = append(jobs, gatherJob{v, ri})
	}
	return &coldata.Batch{Cols: gatherVecs(jobs, len(li), w.workers(len(li))), Len: len(li)}
}

// setKeyFromLeft finds the build columns that combineMatches may take from
// the probe keys.
func (j *HashJoin) setKeyFromLeft() {
	j.keyFromLeft = nil
	for i, rk := range j.RightKeys {
		cr, ok := rk.(*expr.ColumnRef)
		if !ok || cr.Index < 0 || cr.Index >= len(j.build.Cols) {
			continue
		}
		t := j.build.Cols[cr.Index].Type
		if (t != coldata.Int64 && t != coldata.String && t != coldata.Bool) || j.LeftKeys[i].Type() != t || cr.T != t {
			continue
		}
		if j.keyFromLeft == nil {
			j.keyFromLeft = make([]int, len(j.build.Cols))
			for c := range j.keyFromLeft {
				j.keyFromLeft[c] = -1
			}
		}
		if j.keyFromLeft[cr.Index] < 0 {
			j.keyFromLeft[cr.Index] = i
		}
	}
}

// Close implements Operator.
func (j *HashJoin) Close() error {
	// The probing goroutines stop before the index they read is released.
	j.stopParallel()
	j.ps.release()
	j.owned.reset()
	if j.table != nil {
		j.table.release()
	}
	j.build, j.table, j.start = nil, nil, nil
	j.leftBuf, j.rightBuf, j.order, j.lmatched = nil, nil, nil, nil
	err := j.Left.Close()
	if err2 := j.Right.Close(); err == nil {
		err = err2
	}
	return err
}

// batchBytes estimates the memory a batch's columns hold.
func batchBytes(b *coldata.Batch) uint64 { return uint64(b.HostBytes()) }

// isIdentity reports whether order lists 0 to n-1 in order.
func isIdentity(order []int, n int) bool {
	if len(order) != n {
		return false
	}
	for i, r := range order {
		if r != i {
			return false
		}
	}
	return true
}
