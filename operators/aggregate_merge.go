package operators

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
)

// Merging the parts of a partitioned GROUP BY in parallel. Every group
// has an order key (the input row that created it, or its id in the table
// from before the parts), and each part's groups come in increasing order
// keys. A group's output position is the number of groups, in all parts,
// with a smaller order key. mergePositions finds every position with a
// k-way merge of the parts' order keys, cut into segments between sampled
// splitter keys so that the segments merge on all cores; the parts then
// scatter their keys and states to their positions, one goroutine each.

// mergeSegmentGroups is the fewest groups per merge segment.
const mergeSegmentGroups = 1 << 14

// mergePositions returns, for every part, its groups' output positions:
// firsts[p] holds part p's order keys, increasing and distinct over all
// parts. A segment holds at least segGroups groups (0: mergeSegmentGroups).
// ctx is checked between segments.
func mergePositions(ctx context.Context, firsts [][]int64, segGroups int) ([][]uint32, error) {
	if segGroups <= 0 {
		segGroups = mergeSegmentGroups
	}
	total := 0
	for _, f := range firsts {
		total += len(f)
	}
	pos := make([][]uint32, len(firsts))
	for p, f := range firsts {
		pos[p] = uint32Pool.get(len(f))
	}
	// Splitters: order keys sampled evenly from every part.
	segs := max(min(4*runtime.GOMAXPROCS(0), total/segGroups), 1)
	var samples []int64
	if segs > 1 {
		for _, f := range firsts {
			for j := 1; j < segs; j++ {
				if i := j * len(f) / segs; i < len(f) {
					samples = append(samples, f[i])
				}
			}
		}
		slices.Sort(samples)
		samples = slices.Compact(samples)
	}
	splitters := make([]int64, 0, segs-1)
	for j := 1; j < segs && len(samples) > 0; j++ {
		s := samples[j*len(samples)/segs]
		if len(splitters) == 0 || s > splitters[len(splitters)-1] {
			splitters = append(splitters, s)
		}
	}
	segs = len(splitters) + 1
	// bounds[s][p]: the first group of part p in segment s.
	bounds := make([][]int, segs+1)
	for s := range bounds {
		bounds[s] = make([]int, len(firsts))
		for p, f := range firsts {
			switch s {
			case 0:
			case segs:
				bounds[s][p] = len(f)
			default:
				v := splitters[s-1]
				bounds[s][p] = sort.Search(len(f), func(i int) bool { return f[i] >= v })
			}
		}
	}
	var wg workGroup
	var next int
	var mu sync.Mutex
	var err error
	workers := min(runtime.GOMAXPROCS(0), segs)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := make([]int, 0, len(firsts))
			cur := make([]int, len(firsts))
			for {
				mu.Lock()
				s := next
				next++
				if err == nil {
					err = ctx.Err()
				}
				stop := err != nil
				mu.Unlock()
				if stop || s >= segs {
					return
				}
				base := 0
				for _, b := range bounds[s] {
					base += b
				}
				copy(cur, bounds[s])
				mergeSegment(firsts, pos, cur, bounds[s+1], uint32(base), h)
			}
		}()
	}
	wg.Wait()
	if err != nil {
		for _, p := range pos {
			uint32Pool.put(p)
		}
		return nil, err
	}
	return pos, nil
}

// mergeSegment merges the parts' groups [cur[p], end[p]) by order key,
// giving them positions from base on: a binary heap of the parts by their
// next order key. h is scratch.
func mergeSegment(firsts [][]int64, pos [][]uint32, cur, end []int, base uint32, h []int) {
	h = h[:0]
	less := func(a, b int) bool { return firsts[a][cur[a]] < firsts[b][cur[b]] }
	down := func(at int) {
		for {
			m, l, r := at, 2*at+1, 2*at+2
			if l < len(h) && less(h[l], h[m]) {
				m = l
			}
			if r < len(h) && less(h[r], h[m]) {
				m = r
			}
			if m == at {
				return
			}
			h[at], h[m] = h[m], h[at]
			at = m
		}
	}
	for p := range firsts {
		if cur[p] < end[p] {
			h = append(h, p)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	g := base
	for len(h) > 0 {
		p := h[0]
		// Runs of one part go without touching the heap.
		f, e, pp := firsts[p], end[p], pos[p]
		limit := int64(1<<63 - 1)
		if len(h) > 1 {
			limit = firsts[h[1]][cur[h[1]]]
			if len(h) > 2 && firsts[h[2]][cur[h[2]]] < limit {
				limit = firsts[h[2]][cur[h[2]]]
			}
		}
		i := cur[p]
		for i < e && f[i] < limit {
			pp[i] = g
			g++
			i++
		}
		cur[p] = i
		if i == e {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
}

// scatterTable returns a table of n keys (no slots: it only yields
// columns) holding, at position pos[p][j], key sel[p][j] of srcs[p] (all
// of srcs[p]'s keys in id order when sel is nil). Each part scatters on
// its own goroutine; strings take a second pass, after their offsets.
func scatterTable(types []coldata.Type, srcs []*hashTable, sel [][]uint32, pos [][]uint32, n int) *hashTable {
	t := newHashTable(types)
	t.n = n
	count := func(p int) int {
		if sel != nil {
			return len(sel[p])
		}
		return srcs[p].n
	}
	// at(ps, j) is the id of a part's j-th key to copy, ps its sel or nil.
	at := func(ps []uint32, j int) int {
		if ps != nil {
			return int(ps[j])
		}
		return j
	}
	partSel := func(p int) []uint32 {
		if sel != nil {
			return sel[p]
		}
		return nil
	}
	parallel := func(f func(p int)) {
		var wg workGroup
		for p := range srcs {
			if count(p) == 0 {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(p)
			}()
		}
		wg.Wait()
	}
	for c := range t.cols {
		tc := &t.cols[c]
		nulls, negZero := false, false
		for _, s := range srcs {
			nulls = nulls || s.cols[c].nulls != nil
			negZero = negZero || len(s.cols[c].negZero) > 0
		}
		if nulls {
			tc.nulls = make([]bool, n)
		}
		kind := keyKind(types[c])
		switch kind {
		case coldata.Null:
		case coldata.String:
			tc.offs = intPool.get(n + 1)
		default:
			tc.fixed = int64Pool.get(n) // every element is set below
		}
		negZeros := make([][]uint32, len(srcs))
		parallel(func(p int) {
			sc, pp, ps := &srcs[p].cols[c], pos[p], partSel(p)
			m := count(p)
			if sc.nulls != nil {
				for j := 0; j < m; j++ {
					tc.nulls[pp[j]] = sc.nulls[at(ps, j)]
				}
			}
			switch kind {
			case coldata.Null:
			case coldata.String:
				// Lengths first, at the next position's offset.
				for j := 0; j < m; j++ {
					i := at(ps, j)
					tc.offs[pp[j]+1] = sc.offs[i+1] - sc.offs[i]
				}
			default:
				if sel == nil {
					for j, x := range sc.fixed[:m] {
						tc.fixed[pp[j]] = x
					}
				} else {
					for j := 0; j < m; j++ {
						tc.fixed[pp[j]] = sc.fixed[at(ps, j)]
					}
				}
				if negZero {
					var nz []uint32
					k := 0
					for j := 0; j < m; j++ {
						i := uint32(at(ps, j))
						for k < len(sc.negZero) && sc.negZero[k] < i {
							k++
						}
						if k < len(sc.negZero) && sc.negZero[k] == i {
							nz = append(nz, pp[j])
						}
					}
					negZeros[p] = nz
				}
			}
		})
		if negZero {
			for _, nz := range negZeros {
				tc.negZero = append(tc.negZero, nz...)
			}
			slices.Sort(tc.negZero)
		}
		if kind != coldata.String {
			continue
		}
		tc.offs[0] = 0
		prefixSums(tc.offs)
		tc.arena = bytePool.get(tc.offs[n])
		parallel(func(p int) {
			sc, pp, ps := &srcs[p].cols[c], pos[p], partSel(p)
			for j, m := 0, count(p); j < m; j++ {
				i := at(ps, j)
				copy(tc.arena[tc.offs[pp[j]]:], sc.arena[sc.offs[i]:sc.offs[i+1]])
			}
		})
	}
	return t
}

// prefixSums replaces every element of x by the sum of it and those
// before it, in parallel blocks for a long slice.
func prefixSums(x []int) {
	const block = 1 << 16
	nb := (len(x) + block - 1) / block
	if nb <= 2 || runtime.GOMAXPROCS(0) < 2 {
		s := 0
		for i, v := range x {
			s += v
			x[i] = s
		}
		return
	}
	sums := make([]int, nb)
	var wg workGroup
	forBlocks := func(f func(b int, part []int)) {
		for b := 0; b < nb; b++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(b, x[b*block:min((b+1)*block, len(x))])
			}()
		}
		wg.Wait()
	}
	forBlocks(func(b int, part []int) {
		s := 0
		for i, v := range part {
			s += v
			part[i] = s
		}
		sums[b] = s
	})
	for b := 1; b < nb; b++ {
		sums[b] += sums[b-1]
	}
	forBlocks(func(b int, part []int) {
		if b == 0 {
			return
		}
		for i := range part {
			part[i] += sums[b-1]
		}
	})
}
