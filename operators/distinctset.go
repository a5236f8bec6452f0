package operators

import (
	"math/bits"
	"math/rand/v2"
)

// pairSet is the set of (group, value) pairs a DISTINCT aggregate over a
// 64-bit integer argument (BIGINT, and the types stored as one: DATE,
// TIMESTAMP, ...) has seen. It replaces the generic hashTable, whose
// column-wise key storage, ids and string-capable probing a pair of
// integers does not need: slots hold the pair itself, probed linearly,
// so that a batch is one allocation-free loop of a hash, a load and a
// compare per row (cf. the typed hash tables of vectorised engines).
// Without GROUP BY every group is 0.
type pairSet struct {
	slots []pairSlot
	mask  uint64
	n     int
	seed  uint64
}

// pairSlot is one slot: the value and its group plus one (0: empty).
type pairSlot struct {
	v int64
	g uint32
}

func newPairSet() *pairSet { return newPairSetSize(1024) }

// newPairSetSize returns an empty pairSet of n slots (a power of two).
func newPairSetSize(n int) *pairSet {
	return &pairSet{slots: make([]pairSlot, n), mask: uint64(n - 1), seed: rand.Uint64() | 1}
}

// hash mixes a pair into a slot hash.
func (s *pairSet) hash(g uint32, v int64) uint64 {
	return fmix64(uint64(v)*0x9e3779b97f4a7c15 ^ (uint64(g)<<32 | uint64(g)) ^ s.seed)
}

// insert adds the pairs (gids[i], vals[i]) for rows i in [0, len(vals))
// that are not NULL (nulls is the values' validity bitmap, nil when none
// is NULL; gids nil means group 0) and appends to created, in row order,
// the rows whose pair was not in the set.
func (s *pairSet) insert(gids []uint32, vals []int64, nulls []byte, created []int32) []int32 {
	for i, v := range vals {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		var g uint32
		if gids != nil {
			g = gids[i]
		}
		if s.add(g, v) {
			created = append(created, int32(i))
		}
	}
	return created
}

// add inserts one pair and reports whether it was new.
func (s *pairSet) add(g uint32, v int64) bool { return s.addHashed(g, v, s.hash(g, v)) }

// addHashed is add with the pair's hash h.
func (s *pairSet) addHashed(g uint32, v int64, h uint64) bool {
	tag := g + 1
	for j := h & s.mask; ; j = (j + 1) & s.mask {
		sl := &s.slots[j]
		if sl.g == 0 {
			sl.v, sl.g = v, tag
			s.n++
			if uint64(s.n)*4 > uint64(len(s.slots))*3 {
				s.grow()
			}
			return true
		}
		if sl.g == tag && sl.v == v {
			return false
		}
	}
}

// grow doubles the slots (quadruples them past 64K: each growth
// rewrites every pair into fresh memory, which costs as much as the
// inserts themselves for sets of a million pairs) and reinserts every
// pair.
func (s *pairSet) grow() {
	old := s.slots
	factor := 2
	if len(old) >= 1<<16 {
		factor = 4
	}
	s.slots = pairSlotPool.getZeroed(factor * len(old))
	s.mask = uint64(len(s.slots) - 1)
	for _, sl := range old {
		if sl.g == 0 {
			continue
		}
		j := s.hash(sl.g-1, sl.v) & s.mask
		for s.slots[j].g != 0 {
			j = (j + 1) & s.mask
		}
		s.slots[j] = sl
	}
	pairSlotPool.put(old)
}

// release returns the slots to their pool; the set is empty afterwards.
func (s *pairSet) release() {
	pairSlotPool.put(s.slots)
	s.slots, s.mask, s.n = nil, 0, 0
}

var pairSlotPool = slicePool[pairSlot]{size: 16}

// pairParts counts the distinct (group, value) pairs of a COUNT(DISTINCT)
// over a 64-bit integer argument on every core. The count does not depend
// on the order the pairs arrive in, so they need not insert in row order
// as pairSet.insert does. Each batch is cut into ranges of rows, one per
// worker; a range hashes its pairs and stages them in a chunk of its
// own, grouped by part (the top bits of their hashes). Once enough pairs are
// staged (pairFlushPairs, which bounds the staging memory) or the input
// ends, every part inserts its staged pairs into its own pairSet on some
// worker, and the pairs new to a part count towards their group. A part
// holds a fixed share of the pairs, so with more parts than workers each
// set stays small enough for the core's cache.
//
// Before staging, a range drops a pair equal to the last one it staged
// into the same slot of a small direct-mapped cache: that pair is in, or
// on its way to, its part's set, so the later copy could not be new.
// Frequent values (ClickBench's UserIDs follow a Zipf law) mostly end
// there.
type pairParts struct {
	sets    []*pairSet
	shift   uint // part of a hash: h >> shift
	grouped bool // pairs carry groups (GROUP BY); otherwise every group is 0
	workers int
	// chunks[r] holds what range r staged since the last flush, a chunk
	// per batch; staged counts the pairs in them all.
	chunks [][]stageChunk
	staged int
	// Per range, scratch: the kept rows' hashes and rows.
	hs   [][]uint64
	keep [][]int32
	// rangeStaged is how many pairs each range staged in the last batch.
	rangeStaged []int
	// caches[r] is range r's cache of recently staged pairs.
	caches [][]pairSlot
	// Per part, at a flush: the groups of its new pairs (grouped), or
	// how many there were.
	news   [][]uint32
	counts []uint64
	// flushPairs (tests only) replaces pairFlushPairs.
	flushPairs int
}

const (
	// pairFlushPairs is how many staged pairs make the parts insert them
	// (16 bytes each).
	pairFlushPairs = 1 << 20
	// pairStageRows is the fewest rows per range when staging a batch.
	pairStageRows = 1 << 12
	// pairCacheSlots is the size of a range's cache (16 bytes a slot).
	pairCacheSlots = 1 << 10
	// partsPerWorker is how many parts per worker pairParts and
	// stringParts keep: smaller sets, fitting a core's cache, for the
	// cost of more staging lists.
	partsPerWorker = 4
	// partSetSlots is the initial size of a part's set: a small input
	// should not pay for many parts.
	partSetSlots = 64
)

// newPairParts returns a pairParts run by workers goroutines, with
// partsPerWorker parts per worker rounded up to a power of two (at most
// 256). grouped says whether pairs carry groups.
func newPairParts(workers int, grouped bool) *pairParts {
	workers = max(workers, 1)
	np := 1 << bits.Len(uint(min(partsPerWorker*workers, 256)-1))
	seed := rand.Uint64() | 1
	pp := &pairParts{
		shift:       uint(64 - bits.TrailingZeros(uint(np))),
		grouped:     grouped,
		workers:     workers,
		chunks:      make([][]stageChunk, workers),
		hs:          make([][]uint64, workers),
		keep:        make([][]int32, workers),
		rangeStaged: make([]int, workers),
		caches:      make([][]pairSlot, workers),
		news:        make([][]uint32, np),
		counts:      make([]uint64, np),
	}
	for p := 0; p < np; p++ {
		s := newPairSetSize(partSetSlots)
		s.seed = seed // routing uses the sets' common hash
		pp.sets = append(pp.sets, s)
	}
	return pp
}

// part returns the part of a pair's hash (shift is 64 for one part: Go
// shifts a uint64 by 64 to 0).
func (pp *pairParts) part(h uint64) uint64 { return h >> pp.shift }

// add stages the pairs (gids[i], vals[i]) of the rows whose value is not
// NULL (nulls is the values' validity bitmap, nil when none is; gids nil
// means group 0), and flushes into st (as flush does) once enough are
// staged.
func (pp *pairParts) add(gids []uint32, vals []int64, nulls []byte, st []uint64, stride, off int) {
	n := len(vals)
	if n == 0 {
		return
	}
	nr := min(pp.workers, max(1, n/pairStageRows))
	step := (n + nr - 1) / nr
	nr = (n + step - 1) / step
	forEachIndex(nr, nr, func(r int) {
		pp.stageRange(r, gids, vals, nulls, r*step, min((r+1)*step, n))
	})
	for _, k := range pp.rangeStaged[:nr] {
		pp.staged += k
	}
	limit := pairFlushPairs
	if pp.flushPairs > 0 {
		limit = pp.flushPairs
	}
	if pp.staged >= limit {
		pp.flush(st, stride, off)
	}
}

// stageChunk is what a range staged from one batch: its pairs grouped
// by part, part p's at pairs[offs[p]:offs[p+1]].
type stageChunk struct {
	pairs []pairSlot
	offs  []int32
}

// stageRange stages rows [lo, hi) as range r: a first pass hashes the
// rows, drops those the cache holds and counts each part's, a second
// writes the pairs part by part into one chunk (one buffer per range
// and batch, from the pool, instead of a growing list per part).
func (pp *pairParts) stageRange(r int, gids []uint32, vals []int64, nulls []byte, lo, hi int) {
	np := len(pp.sets)
	cache := pp.caches[r]
	if cache == nil {
		cache = make([]pairSlot, pairCacheSlots)
		pp.caches[r] = cache
	}
	if cap(pp.hs[r]) < hi-lo {
		pp.hs[r] = make([]uint64, hi-lo)
		pp.keep[r] = make([]int32, hi-lo)
	}
	hs, keep := pp.hs[r][:hi-lo], pp.keep[r][:hi-lo]
	offs := make([]int32, np+1)
	s0 := pp.sets[0]
	k := 0
	for i := lo; i < hi; i++ {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		var g uint32
		if gids != nil {
			g = gids[i]
		}
		v := vals[i]
		h := s0.hash(g, v)
		c := &cache[h&(pairCacheSlots-1)]
		if c.v == v && c.g == g+1 {
			continue
		}
		c.v, c.g = v, g+1
		hs[k], keep[k] = h, int32(i)
		offs[pp.part(h)+1]++
		k++
	}
	pp.rangeStaged[r] = k
	if k == 0 {
		return
	}
	for p := 1; p <= np; p++ {
		offs[p] += offs[p-1]
	}
	pos := make([]int32, np)
	copy(pos, offs[:np])
	pairs := pairSlotPool.get(k)
	for j, h := range hs[:k] {
		i := keep[j]
		var g uint32
		if gids != nil {
			g = gids[i]
		}
		p := pp.part(h)
		pairs[pos[p]] = pairSlot{v: vals[i], g: g + 1}
		pos[p]++
	}
	pp.chunks[r] = append(pp.chunks[r], stageChunk{pairs: pairs, offs: offs})
}

// flush inserts the staged pairs into their parts' sets, the parts on
// all workers, and adds to each group's count word st[g*stride+off] its
// new pairs.
func (pp *pairParts) flush(st []uint64, stride, off int) {
	if pp.staged == 0 {
		return
	}
	forEachIndex(len(pp.sets), pp.workers, func(p int) {
		s := pp.sets[p]
		news, cnt := pp.news[p][:0], uint64(0)
		for r := range pp.chunks {
			for _, c := range pp.chunks[r] {
				for _, sl := range c.pairs[c.offs[p]:c.offs[p+1]] {
					g := sl.g - 1
					if s.addHashed(g, sl.v, s.hash(g, sl.v)) {
						if pp.grouped {
							if len(news) == cap(news) {
								news = uint32Pool.grow(news, 1)
							}
							news = append(news, g)
						} else {
							cnt++
						}
					}
				}
			}
		}
		pp.news[p], pp.counts[p] = news, cnt
	})
	pp.dropChunks()
	for p := range pp.sets {
		if !pp.grouped {
			st[off] += pp.counts[p]
			continue
		}
		for _, g := range pp.news[p] {
			st[int(g)*stride+off]++
		}
	}
}

// dropChunks returns the staged chunks' buffers to their pool.
func (pp *pairParts) dropChunks() {
	for r, cs := range pp.chunks {
		for i := range cs {
			pairSlotPool.put(cs[i].pairs)
			cs[i] = stageChunk{}
		}
		pp.chunks[r] = cs[:0]
	}
	pp.staged = 0
}

// size returns the number of distinct pairs inserted so far.
func (pp *pairParts) size() int {
	n := 0
	for _, s := range pp.sets {
		n += s.n
	}
	return n
}

// release returns the sets' slots and the staging lists to their pools.
func (pp *pairParts) release() {
	for _, s := range pp.sets {
		s.release()
	}
	pp.dropChunks()
	for p, l := range pp.news {
		uint32Pool.put(l)
		pp.news[p] = nil
	}
	pp.staged = 0
}

// forEachIndex runs f(0) .. f(n-1) on up to workers goroutines, each
// taking the next index when done with one, and waits; a panic in f is
// raised again here (parallelDo's workGroup).
func forEachIndex(n, workers int, f func(i int)) {
	parallelDo(workers, n, func(_, i int) { f(i) })
}
