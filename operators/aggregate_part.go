package operators

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// Partitioned GROUP BY. Inserting new groups into one hash table runs on
// one goroutine (ids must follow first appearance), which bounds GROUP BY
// with many groups. Past partRowsMin input rows, the rows of each batch are
// instead split by the top bits of their key's hash into a power-of-two
// number of parts, each with its own hash table and accumulators and run
// by one goroutine. A group's rows all land in one part, in row order, so
// its accumulators see the same values in the same order as on the single
// table (float sums and integer overflow come out identical). Each part
// remembers its groups' first rows; the output merges the parts' groups
// back into order of first appearance. New groups are admitted (MaxGroups,
// MemoryLimit) by the consumer in row order, as on the single table.

// partRowsMin is the input size past which GROUP BY goes partitioned, once
// it has partGroupsMin groups: with few groups new keys are rare, and the
// single table (probed in parallel) is faster than routing rows to parts.
const (
	partRowsMin   = 1 << 18
	partGroupsMin = 1 << 14
)

// partState is the partitioned path's state in the parent HashAggregate.
type partState struct {
	threshold int // tests only: overrides partRowsMin and partGroupsMin
	rowsSeen  int
	orderBase int64 // order key of the batch's row 0
	shift     uint  // part of a hash: h >> shift
	hashes    []uint64
	isNew     []bool
	vecs      []*coldata.Vec
	// In a part: its rows of the batch, its keys gathered, their ids and
	// the rows that created groups, the order key of each group, and the
	// first update error (by aggregate).
	sel     []int32
	pkeys   []keyVec
	pids    []uint32
	created []int32
	first   []int64
	err     error
	errAgg  int
	merged  bool // tests: the output came from parts
}

// wantParts reports whether to go partitioned before a batch of n rows.
func (h *HashAggregate) wantParts(n int) bool {
	rows, groups := partRowsMin, partGroupsMin
	if h.threshold > 0 {
		rows, groups = h.threshold, 0
	}
	return h.rowsSeen+n > rows && h.table.n >= groups && h.canPartition()
}

// canPartition reports whether the partitioned path applies: keys, more
// than one CPU, and aggregates whose state lives per group in st or strs
// (DISTINCT and GROUP_CONCAT keep row-level state outside them).
func (h *HashAggregate) canPartition() bool {
	if h.table == nil || runtime.GOMAXPROCS(0) < 2 || h.FirstGroups > 0 {
		return false
	}
	for _, spec := range h.Aggs {
		if spec.Distinct || spec.Kind == AggGroupConcat || spec.Kind == AggQuantileCont || spec.Kind == AggQuantileDisc {
			return false
		}
	}
	return true
}

// startParts creates the parts and moves the groups built so far into
// them; their order keys are their ids, below every later row's.
func (h *HashAggregate) startParts() error {
	np := 1 << bits.Len(uint(min(runtime.GOMAXPROCS(0), 64)-1))
	h.shift = uint(64 - bits.TrailingZeros(uint(np)))
	h.parts = make([]*HashAggregate, np)
	for p := range h.parts {
		t := newHashTable(h.table.types)
		t.seed = h.table.seed // one hash routes a row and finds it in its part
		t.partRows = 1 << 30  // the parts already run in parallel
		c := &HashAggregate{Keys: h.Keys, Aggs: h.Aggs, table: t, stride: h.stride, runs: make([]aggRun, len(h.runs))}
		for a := range c.runs {
			c.runs[a].off = h.runs[a].off
		}
		c.pkeys = make([]keyVec, len(h.Keys))
		h.parts[p] = c
	}
	g := h.table.n
	if g == 0 {
		return nil
	}
	keys := make([]keyVec, len(h.Keys))
	for i := range keys {
		v, err := h.table.column(i)
		if err != nil {
			return err
		}
		if err := keys[i].prepareAs(v, g, h.table.types[i]); err != nil {
			return err
		}
	}
	h.route(keys, g)
	h.runParts(func(c *HashAggregate) {
		c.insertPart(keys, 0)
		for i, r := range c.sel {
			lid := int(c.pids[i])
			copy(c.st[lid*c.stride:(lid+1)*c.stride], h.st[int(r)*h.stride:(int(r)+1)*h.stride])
			for a := range c.runs {
				if h.runs[a].strs != nil {
					c.runs[a].strs[lid] = h.runs[a].strs[r]
				}
			}
		}
		for a := range c.runs {
			c.runs[a].intSum = h.runs[a].intSum
		}
	})
	for _, c := range h.parts {
		if c.err != nil {
			return c.err
		}
	}
	h.orderBase = int64(g)
	h.st = nil
	for a := range h.runs {
		h.runs[a].strs = nil
	}
	return nil
}

// route hashes rows [0, n) of keys (in parallel parts) and lists each
// part's rows, in row order, in its sel.
func (h *HashAggregate) route(keys []keyVec, n int) {
	if cap(h.hashes) < n {
		uint64Pool.put(h.hashes)
		h.hashes = uint64Pool.get(n)
	}
	hs := h.hashes[:n]
	h.table.hashRows(keys, hs)
	for _, c := range h.parts {
		c.sel, c.created, c.err = c.sel[:0], c.created[:0], nil
	}
	for r, x := range hs {
		c := h.parts[x>>h.shift]
		c.sel = append(c.sel, int32(r))
	}
}

// runParts runs f on every part, one goroutine each, and waits.
func (h *HashAggregate) runParts(f func(c *HashAggregate)) {
	var wg sync.WaitGroup
	for _, c := range h.parts {
		if len(c.sel) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(c)
		}()
	}
	wg.Wait()
}

// insertPart finds or inserts the part's rows (c.sel of keys) in its
// table, leaving their ids in c.pids and the rows that created groups in
// c.created, and records those groups' order keys (base + row).
func (c *HashAggregate) insertPart(keys []keyVec, base int64) {
	m := len(c.sel)
	for i := range keys {
		c.pkeys[i].gather(&keys[i], c.sel)
	}
	if cap(c.pids) < m {
		uint32Pool.put(c.pids)
		c.pids = uint32Pool.get(m)
	}
	c.pids = c.pids[:m]
	c.created = c.created[:0]
	// admit is nil: the parent admits new groups in row order.
	if err := c.table.findOrInsert(c.pkeys, 0, m, c.pids, nil, &c.created); err != nil {
		c.err, c.errAgg = err, -1
		return
	}
	c.first = int64Pool.grow(c.first, len(c.created))
	for _, i := range c.created {
		c.first = append(c.first, base+int64(c.sel[i]))
	}
	c.ngroups = c.table.n
	c.growStates()
}

// consumeParts aggregates batch b (n rows, keys prepared in h.keys) on the
// parts. Errors come in the single table's order: new groups refused, then
// the first aggregate whose argument fails to evaluate or whose update
// fails, whichever aggregate comes first.
func (h *HashAggregate) consumeParts(b *coldata.Batch, n int) error {
	h.route(h.keys, n)
	h.vecs = h.vecs[:0]
	var evalErr error
	for _, spec := range h.Aggs {
		if spec.Kind == AggCountStar {
			h.vecs = append(h.vecs, nil)
			continue
		}
		v, err := evalArg(spec.Arg, b)
		if err != nil {
			evalErr = err
			break
		}
		h.vecs = append(h.vecs, v)
	}
	if cap(h.gids) < n {
		uint32Pool.put(h.gids)
		h.gids = uint32Pool.get(n)
	}
	h.gids = h.gids[:n]
	gids := h.gids
	h.runParts(func(c *HashAggregate) {
		c.insertPart(h.keys, h.orderBase)
		if c.err != nil {
			return
		}
		for i, r := range c.sel {
			gids[r] = c.pids[i]
		}
		c.gids = gids
		for a, v := range h.vecs {
			if err := c.updateVec(a, v, b, n, c.sel); err != nil {
				c.err, c.errAgg = err, a
				return
			}
		}
	})
	// Admit the new groups in row order.
	if cap(h.isNew) < n {
		h.isNew = make([]bool, n)
	}
	isNew := h.isNew[:n]
	clear(isNew)
	for _, c := range h.parts {
		if c.err != nil && c.errAgg < 0 {
			return c.err
		}
		for _, i := range c.created {
			isNew[c.sel[i]] = true
		}
	}
	for r, x := range isNew {
		if x {
			if err := h.admitRow(r); err != nil {
				return err
			}
		}
	}
	var first error
	firstAgg := len(h.Aggs)
	for _, c := range h.parts {
		if c.err != nil && c.errAgg < firstAgg {
			first, firstAgg = c.err, c.errAgg
		}
	}
	if first != nil {
		return first
	}
	if evalErr != nil {
		return evalErr
	}
	h.orderBase += int64(n)
	return nil
}

// mergeParts gathers the parts' groups, in order of first appearance, into
// h.table and the accumulators, for result.
func (h *HashAggregate) mergeParts(ctx context.Context) error {
	total := 0
	for _, c := range h.parts {
		total += c.table.n
	}
	if total != h.ngroups {
		return fmt.Errorf("internal error: GROUP BY parts hold %d groups, %d admitted", total, h.ngroups)
	}
	// The order of first appearance: the part of each group in turn (a
	// part's groups come in its id order).
	order := make([]uint8, total)
	next := make([]int, len(h.parts))
	for g := range order {
		if g&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		// The part whose next group appeared first (few parts: a scan).
		best := -1
		for p, c := range h.parts {
			if next[p] < c.table.n && (best < 0 || c.first[next[p]] < h.parts[best].first[next[best]]) {
				best = p
			}
		}
		order[g] = uint8(best)
		next[best]++
	}
	srcs := make([]*hashTable, len(h.parts))
	for p, c := range h.parts {
		srcs[p] = c.table
	}
	pre := h.table // the table from before the parts: only hashed since
	h.table = mergeTables(pre.types, srcs, order)
	stride := h.stride
	h.st = uint64Pool.get(total * stride) // every word is copied below
	for a := range h.runs {
		for _, c := range h.parts {
			h.runs[a].intSum = h.runs[a].intSum || c.runs[a].intSum
		}
		if h.parts[0].runs[a].strs != nil {
			h.runs[a].strs = make([][]byte, total)
		}
	}
	clear(next)
	for g, p := range order {
		c, lid := h.parts[p], next[p]
		next[p]++
		copy(h.st[g*stride:(g+1)*stride], c.st[lid*stride:(lid+1)*stride])
		for a := range h.runs {
			if h.runs[a].strs != nil {
				h.runs[a].strs[g] = c.runs[a].strs[lid]
			}
		}
	}
	// Every key and state is copied out: the parts' buffers go back to
	// their pools.
	pre.release()
	for _, c := range h.parts {
		c.gids = nil // the parent's
		c.releaseState(true)
		int64Pool.put(c.first)
		c.first = nil
	}
	h.parts, h.merged = nil, true
	return nil
}

// evalArg evaluates an aggregate's argument for the parts, which share it:
// constants materialised and booleans as 0/1 integers (as updateVec would
// convert them, once per part).
func evalArg(e expr.Expr, b *coldata.Batch) (*coldata.Vec, error) {
	v, err := expr.Eval(e, b)
	if err != nil {
		return nil, err
	}
	if v.Const {
		v = v.Materialize()
	}
	if v.Type == coldata.Bool {
		ints := make([]int64, b.Len)
		for i, x := range v.Bools[:b.Len] {
			ints[i] = int64(x)
		}
		v = &coldata.Vec{Type: coldata.Int64, Len: b.Len, Ints: ints, Nulls: v.Nulls}
	}
	return v, nil
}

// countDistinctParts runs COUNT(DISTINCT) without GROUP BY on a keyParts
// once its input passes partRowsMin rows and it holds partGroupsMin values:
// the count does not depend on the order values arrive in, so the values
// may insert in parallel. It reports whether it took the batch.
func (h *HashAggregate) countDistinctParts(a int, v *coldata.Vec, n int) (bool, error) {
	spec, ar := &h.Aggs[a], &h.runs[a]
	if (ar.distinct == nil && ar.dparts == nil) || h.table != nil || spec.Kind != AggCount {
		return false, nil
	}
	if ar.dparts == nil {
		rows, values := partRowsMin, partGroupsMin
		if h.threshold > 0 {
			rows, values = h.threshold, 0
		}
		ar.dseen += n
		if ar.dseen <= rows || ar.distinct.n < values || runtime.GOMAXPROCS(0) < 2 {
			return false, nil
		}
		kp, err := newKeyParts(ar.distinct)
		if err != nil {
			return false, err
		}
		ar.dparts, ar.distinct, h.merged = kp, nil, true
	}
	if err := ar.dkeys[0].prepareAs(v, n, ar.dparts.tables[0].types[0]); err != nil {
		return true, err
	}
	added, err := ar.dparts.insert(ar.dkeys[:1], n, func(r int32) bool { return !v.IsNull(int(r)) })
	if err != nil {
		return true, err
	}
	h.st[ar.off] += uint64(added)
	return true, nil
}
