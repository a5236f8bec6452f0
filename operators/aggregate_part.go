package operators

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Partitioned GROUP BY. Inserting new groups into one hash table runs on
// one goroutine (ids must follow first appearance), which bounds GROUP BY
// with many groups. Past partRowsMin input rows, the rows of each batch are
// instead split by the top bits of their key's hash into a power-of-two
// number of parts, each with its own hash table and accumulators and run
// by one goroutine. A group's rows all land in one part, in row order, so
// its accumulators see the same values in the same order as on the single
// table (float sums and integer overflow come out identical; partials
// from the ranges of aggregate_ranges.go, if the single table had them,
// merge into its states before the parts take them). Ranges of each
// batch's rows are hashed and routed on all cores. Each part counts its
// new groups and their keys' bytes; the batch's new groups are admitted
// (MaxGroups, MemoryLimit) together after it, and past a limit they are
// admitted again one by one in row order, for the error the single table
// gives (the statement fails, so the groups inserted past the limit do
// not matter). Each part remembers its groups' first rows; the output
// merges the parts' groups back into order of first appearance
// (aggregate_merge.go).

// partRowsMin is the input size past which GROUP BY goes partitioned, once
// it has partGroupsMin groups: with few groups new keys are rare, and the
// single table (probed in parallel) is faster than routing rows to parts.
// With partGroupsMin groups from at most four rows each it goes
// partitioned at once.
const (
	partRowsMin   = 1 << 18
	partGroupsMin = 1 << 14
)

// partsPerProc is how many parts the partitioned path keeps per core.
// Each part runs on a goroutine of its own and the batch waits for the
// last: with a part per core, the part holding a frequent key (ClickBench's
// Zipf UserIDs) kept the others idle, and the cores ran half the time.
// Four per core spread that load and keep each part's table smaller
// (bench --suite clickbench Q17 and Q19 on 16 cores,
// docs/benchlog/2026-11-26-tpch-cpu-goal-met.md).
const partsPerProc = 4

// partState is the partitioned path's state in the parent HashAggregate.
type partState struct {
	threshold int // tests only: overrides partRowsMin and partGroupsMin
	segGroups int // tests only: overrides mergeSegmentGroups
	rowsSeen  int
	orderBase int64 // order key of the batch's row 0
	shift     uint  // part of a hash: h >> shift
	hashes    []uint64
	isNew     []bool
	vecs      []*coldata.Vec
	// In a part: its rows of the batch, those that created groups, the
	// order key of each group, and the first update error (by aggregate).
	sel     []int32
	created []int32
	first   []int64
	err     error
	errAgg  int
	merged  bool // tests: the output came from parts
	// In a part: its index, and the key bytes of the batch's new groups.
	partID   int
	newBytes int
	// route's row lists, per range of rows and part, and how many
	// ranges the parts' sel still have to gather (0: none).
	routeLists [][]int32
	routed     int
}

// wantParts reports whether to go partitioned before a batch of n rows.
func (h *HashAggregate) wantParts(n int) bool {
	rows, groups := partRowsMin, partGroupsMin
	switch {
	case h.threshold > 0:
		rows, groups = h.threshold, 0
	case h.table.n >= groups && 4*h.table.n >= h.rowsSeen:
		// A quarter of the rows so far made new groups: later batches
		// will insert many too, which the parts do on every core
		// (ClickBench Q33: every row its own group).
		rows = 0
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
		if spec.Distinct || spec.Kind == opspec.AggGroupConcat || spec.Kind == opspec.AggQuantileCont || spec.Kind == opspec.AggQuantileDisc {
			return false
		}
	}
	return true
}

// startParts creates the parts and moves the groups built so far into
// them; their order keys are their ids, below every later row's.
func (h *HashAggregate) startParts() error {
	// The parts take over the accumulators: the range partials merge
	// into them first.
	if err := h.mergeRanges(); err != nil {
		return err
	}
	h.noRanges = true
	np := 1 << bits.Len(uint(min(partsPerProc*runtime.GOMAXPROCS(0), 256)-1))
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
		c.partID = p
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
	ids := uint32Pool.get(g)
	defer uint32Pool.put(ids)
	h.runParts(func(c *HashAggregate) {
		c.insertPart(keys, h.hashes, ids, 0)
		for _, r := range c.sel {
			lid := int(ids[r])
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

// routeRows is the fewest rows per goroutine when route hashes a batch.
const routeRows = 1 << 13

// route hashes rows [0, n) of keys and lists each part's rows, in row
// order, for its sel: ranges of rows hash and list their rows per part on
// all cores; the parts' sel get their lengths, and runParts gathers the
// lists into them, each part on its goroutine.
func (h *HashAggregate) route(keys []keyVec, n int) {
	if cap(h.hashes) < n {
		uint64Pool.put(h.hashes)
		h.hashes = uint64Pool.get(n)
	}
	h.hashes = h.hashes[:n] // insertPart reads the hashes from here
	hs := h.hashes
	nr := max(min(runtime.GOMAXPROCS(0), n/routeRows), 1)
	step := (n + nr - 1) / nr
	np := len(h.parts)
	for len(h.routeLists) < nr*np {
		h.routeLists = append(h.routeLists, nil)
	}
	lists := h.routeLists[:nr*np]
	var wg workGroup
	for r := 0; r < nr; r++ {
		lo, hi := r*step, min((r+1)*step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			my := lists[r*np : (r+1)*np]
			for p := range my {
				my[p] = my[p][:0]
			}
			if lo >= hi {
				return
			}
			h.table.hashRange(keys, hs, lo, hi)
			for i, x := range hs[lo:hi] {
				p := x >> h.shift
				l := my[p]
				if len(l) == cap(l) {
					l = int32Pool.grow(l, 1) // pooled: the next query's lists
				}
				my[p] = append(l, int32(lo+i))
			}
		}()
	}
	wg.Wait()
	for p, c := range h.parts {
		c.created, c.err = c.created[:0], nil
		m := 0
		for r := 0; r < nr; r++ {
			m += len(lists[r*np+p])
		}
		if cap(c.sel) < m {
			int32Pool.put(c.sel)
			c.sel = int32Pool.get(m)
		}
		c.sel = c.sel[:m]
	}
	h.routed = nr
}

// runParts runs f on every part with rows, one goroutine each, and waits.
// After route, each part first fills its sel from route's lists.
func (h *HashAggregate) runParts(f func(c *HashAggregate)) {
	nr, np := h.routed, len(h.parts)
	h.routed = 0
	var wg workGroup
	for _, c := range h.parts {
		if len(c.sel) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := 0
			for r := 0; r < nr; r++ {
				at += copy(c.sel[at:], h.routeLists[r*np+c.partID])
			}
			f(c)
		}()
	}
	wg.Wait()
}

// insertPart finds or inserts the part's rows (c.sel of keys, hashed
// hashes[r], the parent's batch: the part reads its rows where they are)
// in its table, leaving their ids in ids[r] and the rows that created
// groups in c.created, and records those groups' order keys (base + row)
// and, in c.newBytes, the bytes of their keys.
func (c *HashAggregate) insertPart(keys []keyVec, hashes []uint64, ids []uint32, base int64) {
	c.created = c.created[:0]
	// admit is nil: the parent admits the batch's new groups together.
	if err := c.table.findOrInsertRows(keys, c.sel, hashes, ids, nil, &c.created); err != nil {
		c.err, c.errAgg = err, -1
		return
	}
	c.first = int64Pool.grow(c.first, len(c.created))
	for _, r := range c.created {
		c.first = append(c.first, base+int64(r))
	}
	c.newBytes = keysBytes(keys, c.created)
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
		if spec.Kind == opspec.AggCountStar {
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
		c.insertPart(h.keys, h.hashes, gids, h.orderBase)
		if c.err != nil {
			return
		}
		c.gids = gids
		for a, v := range h.vecs {
			if err := c.updateVec(a, v, b, n, c.sel, nil); err != nil {
				c.err, c.errAgg = err, a
				return
			}
		}
	})
	// Admit the batch's new groups: each part counted its own and their
	// keys' bytes.
	added, keyBytes := 0, 0
	for _, c := range h.parts {
		if c.err != nil && c.errAgg < 0 {
			return c.err
		}
		added += len(c.created)
		keyBytes += c.newBytes
	}
	cost := uint64(keyBytes + added*(64+64*len(h.Aggs)))
	if (h.MaxGroups > 0 && h.ngroups+added > h.MaxGroups) || (h.MemoryLimit > 0 && h.stateBytes+cost > h.MemoryLimit) {
		// Past a limit: admit the new groups in row order, as the single
		// table does, for its error.
		return h.admitInRowOrder(n)
	}
	h.ngroups += added
	h.stateBytes += cost
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

// admitInRowOrder admits the batch's new groups (n rows) one at a time
// in row order and returns the error of the one refused.
func (h *HashAggregate) admitInRowOrder(n int) error {
	if cap(h.isNew) < n {
		h.isNew = make([]bool, n)
	}
	isNew := h.isNew[:n]
	clear(isNew)
	for _, c := range h.parts {
		for _, r := range c.created {
			isNew[r] = true
		}
	}
	for r, x := range isNew {
		if x {
			if err := h.admitRow(r); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("internal error: GROUP BY parts over the limit admitted every group")
}

// topApplies reports whether cutTop cuts the output to Top's groups
// (CPUTopCuts) and there are more groups than the LIMIT reads.
func (h *HashAggregate) topApplies() bool {
	t := h.Top
	if t == nil || h.table == nil || h.ngroups <= t.Limit {
		return false
	}
	types := make([]coldata.Type, len(h.Keys))
	for i, k := range h.Keys {
		types[i] = k.Type()
	}
	return CPUTopCuts(t, types, h.Aggs)
}

// mergeParts gathers the parts' groups, in order of first appearance, into
// h.table and the accumulators, for result: every group's position comes
// from a parallel merge of the parts' order keys, and each part scatters
// its keys and states to theirs. Under Top, only the groups Top reads are
// gathered.
func (h *HashAggregate) mergeParts(ctx context.Context) error {
	total := 0
	for _, c := range h.parts {
		total += c.table.n
	}
	if total != h.ngroups {
		return fmt.Errorf("internal error: GROUP BY parts hold %d groups, %d admitted", total, h.ngroups)
	}
	firsts := make([][]int64, len(h.parts))
	srcs := make([]*hashTable, len(h.parts))
	for p, c := range h.parts {
		firsts[p], srcs[p] = c.first[:c.table.n], c.table
	}
	// Under Top only the picked groups need positions, and the order
	// keys alone order them: the merge of every group's is skipped
	// (ClickBench Q33: 10M groups for 10 rows).
	var sel, pos [][]uint32
	cut := false
	if h.topApplies() {
		var err error
		if sel, pos, total, cut, err = h.partsTop(firsts); err != nil {
			return err
		}
	}
	if !cut {
		var err error
		if pos, err = mergePositions(ctx, firsts, h.segGroups); err != nil {
			return err
		}
		defer func(all [][]uint32) {
			for _, p := range all {
				uint32Pool.put(p)
			}
		}(pos)
	}
	pre := h.table // the table from before the parts: only hashed since
	for a := range h.runs {
		for _, c := range h.parts {
			h.runs[a].intSum = h.runs[a].intSum || c.runs[a].intSum
		}
	}
	h.table = scatterTable(pre.types, srcs, sel, pos, total)
	stride := h.stride
	h.st = uint64Pool.get(total * stride) // every word is copied below
	for a := range h.runs {
		for _, c := range h.parts {
			if c.runs[a].strs != nil && h.runs[a].strs == nil { // a part may have no groups
				h.runs[a].strs = make([][]byte, total)
			}
		}
	}
	var wg workGroup
	for _, c := range h.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.scatterStates(h, sel, pos)
		}()
	}
	wg.Wait()
	h.ngroups = total
	// Every key and state is copied out: the parts' buffers go back to
	// their pools.
	pre.release()
	for _, c := range h.parts {
		c.gids = nil // the parent's
		c.releaseState(true)
		int64Pool.put(c.first)
		int32Pool.put(c.sel)
		c.first, c.sel = nil, nil
	}
	h.parts, h.merged = nil, true
	return nil
}

// scatterStates copies part c's states (its groups sel[c.partID], or all
// when sel is nil) to their positions in h's.
func (c *HashAggregate) scatterStates(h *HashAggregate, sel, pos [][]uint32) {
	stride, pp := h.stride, pos[c.partID]
	m := len(pp)
	if sel != nil {
		m = len(sel[c.partID])
	}
	for j := 0; j < m; j++ {
		lid, g := j, int(pp[j])
		if sel != nil {
			lid = int(sel[c.partID][j])
		}
		copy(h.st[g*stride:(g+1)*stride], c.st[lid*stride:(lid+1)*stride])
		for a := range h.runs {
			if h.runs[a].strs != nil {
				h.runs[a].strs[g] = c.runs[a].strs[lid]
			}
		}
	}
}

// partsTop picks the groups Top reads from the parts, given every group's
// order key (firsts, increasing within a part, distinct over all): each
// part's first Limit groups by Top's ordering word (ties in id order,
// which is order-key order; the Limit-th's ties too where Top keeps
// them), then the best Limit of those, ties by order key. It returns, per
// part, the picked ids (ascending) and their positions among the picked,
// in order-key order as the output keeps it, and how many were picked;
// cut is false when some group has no word (no cut).
func (h *HashAggregate) partsTop(firsts [][]int64) (sel, out [][]uint32, picked int, cut bool, err error) {
	t := h.Top
	stride, off := h.stride, 0
	intSum := false
	if !t.Key {
		off = h.runs[t.Agg].off
		for _, c := range h.parts {
			intSum = intSum || c.runs[t.Agg].intSum
		}
	}
	cands := make([][]int, len(h.parts))
	words := make([][]uint64, len(h.parts))
	oks := make([]bool, len(h.parts))
	errs := make([]error, len(h.parts))
	var wg workGroup
	for p, c := range h.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, ok, err := topWordsCPU(t, h.Aggs, off, intSum, c.st, stride, c.table.n, c.table.column)
			if err != nil || !ok {
				errs[p] = err
				return
			}
			words[p], oks[p] = w, true
			cands[p] = topGroupsByWord(c.table.n, t.Limit, func(g int) uint64 { return w[g] }, topTies(t))
		}()
	}
	wg.Wait()
	for p := range h.parts {
		if errs[p] != nil {
			return nil, nil, 0, false, errs[p]
		}
		if !oks[p] {
			return nil, nil, 0, false, nil
		}
	}
	type cand struct {
		part, lid int
		pos       int64
		word      uint64
	}
	var all []cand
	for p, cs := range cands {
		for _, lid := range cs {
			all = append(all, cand{p, lid, firsts[p][lid], words[p][lid]})
		}
	}
	// slices.SortFunc, not sort.Slice: with ties every group can be a
	// candidate (a GROUP BY URL whose top SUM is 0 for most of 109K
	// groups), and sort.Slice's reflective swaps took a quarter of it.
	slices.SortFunc(all, func(a, b cand) int {
		if c := cmp.Compare(a.word, b.word); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	keep := min(len(all), t.Limit)
	if keep < len(all) && topTies(t)(all[keep-1].word) {
		for keep < len(all) && all[keep].word == all[keep-1].word {
			keep++
		}
	}
	all = all[:keep]
	slices.SortFunc(all, func(a, b cand) int { return cmp.Compare(a.pos, b.pos) })
	sel = make([][]uint32, len(h.parts))
	out = make([][]uint32, len(h.parts))
	for g, x := range all {
		sel[x.part] = append(sel[x.part], uint32(x.lid))
		out[x.part] = append(out[x.part], uint32(g))
	}
	return sel, out, len(all), true, nil
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
	if (ar.distinct == nil && ar.dparts == nil) || h.table != nil || spec.Kind != opspec.AggCount {
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
