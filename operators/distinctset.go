package operators

import (
	"math/bits"
	"math/rand/v2"

	"github.com/gsqlengine/gsql/hashmix"
)

// pairSet is the set of (group, value) pairs a DISTINCT aggregate over a
// 64-bit integer argument (BIGINT, and the types stored as one: DATE,
// TIMESTAMP, ...) has seen. It replaces the generic hashTable, whose
// column-wise key storage, ids and string-capable probing a pair of
// integers does not need: slots hold the pair itself, probed linearly,
// so that a batch is one allocation-free loop of a hash, a load and a
// compare per row (cf. the typed hash tables of vectorised engines).
// Without GROUP BY every group is 0.
//
// A slot keeps the pair's group and, instead of its value, the value's
// key (pairKey): a mix of the value that is one-to-one for a given
// group, so (group, key) pairs are as distinct as (group, value) pairs,
// and that is also the pair's hash. Growing then moves slots without
// hashing anything again, and pairParts hashes a row once, when staging.
type pairSet struct {
	slots []pairSlot
	mask  uint64
	n     int
	seed  uint64
	// touched sums the slots insertKeys loads ahead of its inserts, so
	// that the compiler keeps those loads.
	touched uint32
}

// pairSlot is one slot: a value's key and its group plus one (0: empty).
type pairSlot struct {
	k uint64
	g uint32
}

func newPairSet() *pairSet { return newPairSetSize(1024) }

// newPairSetSize returns an empty pairSet of n slots (a power of two).
func newPairSetSize(n int) *pairSet {
	return &pairSet{slots: make([]pairSlot, n), mask: uint64(n - 1), seed: rand.Uint64() | 1}
}

// pairKey returns the key of value v in group g under seed: hashmix.Mix64 (a
// bijection) of v mixed with the seed and the group by xor, so one-to-one
// in v for each group and seed. Its low bits pick a pair's slot and its
// top bits pairParts' part. Two pairs of different groups whose values
// differ by exactly the groups' multiples of the constant (xor) share a
// key, and so a probe sequence, but stay apart in the set: a slot
// compares groups too.
func pairKey(seed uint64, g uint32, v int64) uint64 {
	return hashmix.Mix64(uint64(v) ^ seed ^ uint64(g)*0x9e3779b97f4a7c15)
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
func (s *pairSet) add(g uint32, v int64) bool {
	if s.full(1) {
		s.grow()
	}
	return s.put(pairSlot{k: pairKey(s.seed, g, v), g: g + 1})
}

// full reports whether the set must grow before taking k more pairs (at
// most three quarters of the slots are used).
func (s *pairSet) full(k int) bool { return uint64(s.n+k)*4 > uint64(len(s.slots))*3 }

// put inserts the slot's pair (the set has room) and reports whether it
// was new.
func (s *pairSet) put(p pairSlot) bool {
	for j := p.k & s.mask; ; j = (j + 1) & s.mask {
		sl := &s.slots[j]
		if sl.g == 0 {
			*sl = p
			s.n++
			return true
		}
		if sl.k == p.k && sl.g == p.g {
			return false
		}
	}
}

// insertBlock is how many pairs insertKeys loads the slots of before
// inserting them.
const insertBlock = 32

// insertKeys inserts the staged pairs ps (keys under the set's seed,
// groups plus one) and appends to news the group of each new one. Once
// the set outgrows a core's cache a pair's slot is mostly a miss, and
// inserting pair after pair the core seldom runs ahead to the next miss
// (the branch on whether a pair is new mispredicts), so the pairs go in
// blocks: a first loop loads every slot a block's pairs start at, loads
// the core overlaps, and a second inserts them, the slots now in cache
// (Go has no prefetch instruction). On hitsUsers-like data blocks of 32
// beat one pair at a time and blocks of 16, and tie with blocks of 64
// (BenchmarkPairPartsInsert).
func (s *pairSet) insertKeys(ps []pairSlot, news []uint32) []uint32 {
	for len(ps) > 0 {
		b := ps[:min(len(ps), insertBlock)]
		ps = ps[len(b):]
		for s.full(len(b)) {
			s.grow()
		}
		slots, mask := s.slots, s.mask
		t := s.touched
		for i := range b {
			t += slots[b[i].k&mask].g
		}
		s.touched = t
		for _, p := range b {
			if s.put(p) {
				if len(news) == cap(news) {
					news = uint32Pool.grow(news, 1)
				}
				news = append(news, p.g-1)
			}
		}
	}
	return news
}

// grow doubles the slots (quadruples them past 64K: each growth
// rewrites every pair into fresh memory, which costs as much as the
// inserts themselves for sets of a million pairs) and reinserts every
// pair by its key. Walking the old slots in order writes the new ones in
// as many ascending runs as the factor, not at random.
func (s *pairSet) grow() {
	old := s.slots
	factor := 2
	if len(old) >= 1<<16 {
		factor = 4
	}
	s.slots = pairSlotPool.getZeroed(factor * len(old))
	s.mask = uint64(len(s.slots) - 1)
	slots, mask := s.slots, s.mask
	for _, sl := range old {
		if sl.g == 0 {
			continue
		}
		j := sl.k & mask
		for slots[j].g != 0 {
			j = (j + 1) & mask
		}
		slots[j] = sl
	}
	pairSlotPool.put(old)
}

// release returns the slots to their pool; the set is empty afterwards.
func (s *pairSet) release() {
	pairSlotPool.put(s.slots)
	s.slots, s.mask, s.n = nil, 0, 0
}

var pairSlotPool = slicePool[pairSlot]{size: 16}

// keySet is the set of value keys (pairKey of group 0) of a
// COUNT(DISTINCT) without GROUP BY: a pairSet whose slots are the bare
// keys, half the size, which the input of a large set of distinct values
// misses in cache half as often. Key 0 marks an empty slot, so the key 0
// itself is recorded aside.
type keySet struct {
	slots   []uint64
	mask    uint64
	n       int // keys in the set, 0 included
	zero    bool
	touched uint64
}

func newKeySet(n int) *keySet { return &keySet{slots: make([]uint64, n), mask: uint64(n - 1)} }

// full reports whether the set must grow before taking k more keys.
func (s *keySet) full(k int) bool { return uint64(s.n+k)*4 > uint64(len(s.slots))*3 }

// insertKeys inserts the keys ks, in blocks as pairSet.insertKeys does,
// and returns how many were new.
func (s *keySet) insertKeys(ks []uint64) int {
	added := 0
	for len(ks) > 0 {
		b := ks[:min(len(ks), insertBlock)]
		ks = ks[len(b):]
		for s.full(len(b)) {
			s.grow()
		}
		slots, mask := s.slots, s.mask
		t := s.touched
		for _, k := range b {
			t += slots[k&mask]
		}
		s.touched = t
	keys:
		for _, k := range b {
			if k == 0 {
				if !s.zero {
					s.zero = true
					s.n++
					added++
				}
				continue
			}
			for j := k & mask; ; j = (j + 1) & mask {
				x := slots[j]
				if x == 0 {
					slots[j] = k
					s.n++
					added++
					continue keys
				}
				if x == k {
					continue keys
				}
			}
		}
	}
	return added
}

// grow grows the slots as pairSet.grow does.
func (s *keySet) grow() {
	old := s.slots
	factor := 2
	if len(old) >= 1<<16 {
		factor = 4
	}
	s.slots = uint64Pool.getZeroed(factor * len(old))
	s.mask = uint64(len(s.slots) - 1)
	slots, mask := s.slots, s.mask
	for _, k := range old {
		if k == 0 {
			continue
		}
		j := k & mask
		for slots[j] != 0 {
			j = (j + 1) & mask
		}
		slots[j] = k
	}
	uint64Pool.put(old)
}

// release returns the slots to their pool; the set is empty afterwards.
func (s *keySet) release() {
	uint64Pool.put(s.slots)
	s.slots, s.mask, s.n, s.zero = nil, 0, 0, false
}

// pairParts counts the distinct (group, value) pairs of a COUNT(DISTINCT)
// over a 64-bit integer argument on every core. The count does not depend
// on the order the pairs arrive in, so they need not insert in row order
// as pairSet.insert does. Each batch is cut into ranges of rows, one per
// worker; a range hashes its pairs into keys (pairKey) and stages them in
// a chunk of its own, grouped by part (the top bits of their keys). Once
// enough pairs are staged (pairFlushPairs, which bounds the staging
// memory) or the input ends, every part inserts its staged pairs into its
// own set on some worker, and the pairs new to a part count towards their
// group. A part holds a fixed share of the pairs, so with more parts than
// workers each set stays smaller. Without GROUP BY the parts' sets and
// chunks hold bare keys (keySet).
//
// Before staging, a range drops a pair equal to the last one it staged
// into the same slot of a small direct-mapped cache: that pair is in, or
// on its way to, its part's set, so the later copy could not be new.
// Frequent values (ClickBench's UserIDs follow a Zipf law) mostly end
// there.
type pairParts struct {
	psets   []*pairSet // per part, with GROUP BY
	ksets   []*keySet  // per part, without
	seed    uint64
	shift   uint // part of a key: k >> shift
	grouped bool // pairs carry groups (GROUP BY); otherwise every group is 0
	workers int
	// chunks[r] holds what range r staged since the last flush, a chunk
	// per batch; staged counts the pairs in them all.
	chunks [][]stageChunk
	staged int
	// Per range, scratch: the kept rows' keys and rows.
	ks   [][]uint64
	keep [][]int32
	// rangeStaged is how many pairs each range staged in the last batch.
	rangeStaged []int
	// Per range, its cache of recently staged pairs (pcaches, with GROUP
	// BY) or keys (kcaches, without).
	pcaches [][]pairSlot
	kcaches [][]uint64
	// Per part, at a flush: the groups at or above pairCountGroups of its
	// new pairs (grouped), or how many new pairs there were.
	news   [][]uint32
	counts []uint64
	// Per worker, at a flush: how many new pairs each group below
	// pairCountGroups has (grouped).
	wcounts [][]uint32
	// flushPairs (tests only) replaces pairFlushPairs.
	flushPairs int
}

const (
	// pairFlushPairs is how many staged pairs make the parts insert them
	// (16 bytes each, 8 without GROUP BY).
	pairFlushPairs = 1 << 20
	// pairStageRows is the fewest rows per range when staging a batch.
	pairStageRows = 1 << 12
	// pairCacheSlots is the size of a range's cache (16 bytes a slot, 8
	// without GROUP BY).
	pairCacheSlots = 1 << 10
	// partsPerWorker is how many parts per worker pairParts and
	// stringParts keep: smaller sets, fitting a core's cache, for the
	// cost of more staging lists.
	partsPerWorker = 4
	// partSetSlots is the initial size of a part's set: a small input
	// should not pay for many parts.
	partSetSlots = 64
	// pairCountGroups bounds the groups whose new pairs the workers of a
	// flush count themselves (a worker's counters: 4 bytes a group).
	pairCountGroups = 1 << 14
)

// newPairParts returns a pairParts run by workers goroutines, with
// partsPerWorker parts per worker rounded up to a power of two (at most
// 256). grouped says whether pairs carry groups.
func newPairParts(workers int, grouped bool) *pairParts {
	workers = max(workers, 1)
	np := 1 << bits.Len(uint(min(partsPerWorker*workers, 256)-1))
	pp := &pairParts{
		seed:        rand.Uint64() | 1,
		shift:       uint(64 - bits.TrailingZeros(uint(np))),
		grouped:     grouped,
		workers:     workers,
		chunks:      make([][]stageChunk, workers),
		ks:          make([][]uint64, workers),
		keep:        make([][]int32, workers),
		rangeStaged: make([]int, workers),
		pcaches:     make([][]pairSlot, workers),
		kcaches:     make([][]uint64, workers),
		news:        make([][]uint32, np),
		counts:      make([]uint64, np),
		wcounts:     make([][]uint32, workers),
	}
	for p := 0; p < np; p++ {
		if grouped {
			pp.psets = append(pp.psets, newPairSetSize(partSetSlots))
		} else {
			pp.ksets = append(pp.ksets, newKeySet(partSetSlots))
		}
	}
	return pp
}

// parts returns the number of parts.
func (pp *pairParts) parts() int { return len(pp.counts) }

// part returns the part of a pair's key (shift is 64 for one part: Go
// shifts a uint64 by 64 to 0).
func (pp *pairParts) part(k uint64) uint64 { return k >> pp.shift }

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

// stageChunk is what a range staged from one batch: its pairs (pairs,
// with GROUP BY) or keys (keys, without) grouped by part, part p's at
// [offs[p], offs[p+1]).
type stageChunk struct {
	pairs []pairSlot
	keys  []uint64
	offs  []int32
}

// stageRange stages rows [lo, hi) as range r: a first pass hashes the
// rows, drops those the cache holds and counts each part's, a second
// writes the pairs part by part into one chunk (one buffer per range
// and batch, from the pool, instead of a growing list per part).
func (pp *pairParts) stageRange(r int, gids []uint32, vals []int64, nulls []byte, lo, hi int) {
	np := pp.parts()
	if cap(pp.ks[r]) < hi-lo {
		pp.ks[r] = make([]uint64, hi-lo)
		pp.keep[r] = make([]int32, hi-lo)
	}
	ks, keep := pp.ks[r][:hi-lo], pp.keep[r][:hi-lo]
	offs := make([]int32, np+1)
	var k int
	if !pp.grouped {
		k = pp.keysRange(r, vals, nulls, lo, hi, ks, offs)
	} else {
		k = pp.pairsRange(r, gids, vals, nulls, lo, hi, ks, keep, offs)
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
	c := stageChunk{offs: offs}
	if !pp.grouped {
		c.keys = uint64Pool.get(k)
		for _, x := range ks[:k] {
			p := pp.part(x)
			c.keys[pos[p]] = x
			pos[p]++
		}
	} else {
		c.pairs = pairSlotPool.get(k)
		for j, x := range ks[:k] {
			var g uint32
			if gids != nil {
				g = gids[keep[j]]
			}
			p := pp.part(x)
			c.pairs[pos[p]] = pairSlot{k: x, g: g + 1}
			pos[p]++
		}
	}
	pp.chunks[r] = append(pp.chunks[r], c)
}

// keysRange is stageRange's first pass without GROUP BY (gids are
// ignored): it writes the
// kept rows' keys to ks, counts them per part in offs[p+1] and returns
// how many it kept. The cache's slot i starts as i^1, which no key of
// that slot (whose low bits are i) equals.
func (pp *pairParts) keysRange(r int, vals []int64, nulls []byte, lo, hi int, ks []uint64, offs []int32) int {
	cache := pp.kcaches[r]
	if cache == nil {
		cache = make([]uint64, pairCacheSlots)
		for i := range cache {
			cache[i] = uint64(i) ^ 1
		}
		pp.kcaches[r] = cache
	}
	seed, k := pp.seed, 0
	for i := lo; i < hi; i++ {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		x := pairKey(seed, 0, vals[i])
		c := &cache[x&(pairCacheSlots-1)]
		d := 0 // without a branch: whether a row is kept is a coin toss
		if *c != x {
			d = 1
		}
		*c = x
		ks[k] = x
		offs[pp.part(x)+1] += int32(d)
		k += d
	}
	return k
}

// pairsRange is keysRange with GROUP BY: it also lists the kept rows in
// keep, for their groups.
func (pp *pairParts) pairsRange(r int, gids []uint32, vals []int64, nulls []byte, lo, hi int, ks []uint64, keep, offs []int32) int {
	cache := pp.pcaches[r]
	if cache == nil {
		cache = make([]pairSlot, pairCacheSlots)
		pp.pcaches[r] = cache
	}
	seed, k := pp.seed, 0
	for i := lo; i < hi; i++ {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		var g uint32
		if gids != nil {
			g = gids[i]
		}
		x := pairKey(seed, g, vals[i])
		c := &cache[x&(pairCacheSlots-1)]
		d := 0
		if (c.k^x)|uint64(c.g^(g+1)) != 0 {
			d = 1
		}
		c.k, c.g = x, g+1
		ks[k], keep[k] = x, int32(i)
		offs[pp.part(x)+1] += int32(d)
		k += d
	}
	return k
}

// flush inserts the staged pairs into their parts' sets, the parts on
// all workers, and adds to each group's count word st[g*stride+off] its
// new pairs. A worker counts the new pairs of groups below
// pairCountGroups itself, into counters of its own that are added up
// once all parts are in: a flush of a million new pairs then does not
// leave one goroutine to count them while the others wait (ClickBench's
// RegionIDs are a few thousand groups). The new pairs of other groups
// are listed and counted after the parts, on one goroutine, as a worker's
// counters for a million groups would cost more than they save.
func (pp *pairParts) flush(st []uint64, stride, off int) {
	if pp.staged == 0 {
		return
	}
	parallelDo(pp.workers, pp.parts(), func(w, p int) {
		if !pp.grouped {
			s, cnt := pp.ksets[p], 0
			for r := range pp.chunks {
				for _, c := range pp.chunks[r] {
					cnt += s.insertKeys(c.keys[c.offs[p]:c.offs[p+1]])
				}
			}
			pp.counts[p] = uint64(cnt)
			return
		}
		s, news := pp.psets[p], pp.news[p][:0]
		for r := range pp.chunks {
			for _, c := range pp.chunks[r] {
				news = s.insertKeys(c.pairs[c.offs[p]:c.offs[p+1]], news)
			}
		}
		cnt, k := pp.wcounts[w], 0
		for _, g := range news {
			if g >= pairCountGroups {
				news[k] = g
				k++
				continue
			}
			if int(g) >= len(cnt) {
				cnt = append(cnt, make([]uint32, int(g)+1-len(cnt))...)
				cnt = cnt[:cap(cnt)]
			}
			cnt[g]++
		}
		pp.wcounts[w], pp.news[p] = cnt, news[:k]
	})
	pp.dropChunks()
	for p := range pp.counts {
		if !pp.grouped {
			st[off] += pp.counts[p]
			continue
		}
		for _, g := range pp.news[p] {
			st[int(g)*stride+off]++
		}
	}
	for _, cnt := range pp.wcounts {
		for g, c := range cnt {
			if c != 0 {
				st[g*stride+off] += uint64(c)
			}
		}
		clear(cnt)
	}
}

// dropChunks returns the staged chunks' buffers to their pools.
func (pp *pairParts) dropChunks() {
	for r, cs := range pp.chunks {
		for i := range cs {
			pairSlotPool.put(cs[i].pairs)
			uint64Pool.put(cs[i].keys)
			cs[i] = stageChunk{}
		}
		pp.chunks[r] = cs[:0]
	}
	pp.staged = 0
}

// size returns the number of distinct pairs inserted so far.
func (pp *pairParts) size() int {
	n := 0
	for _, s := range pp.psets {
		n += s.n
	}
	for _, s := range pp.ksets {
		n += s.n
	}
	return n
}

// release returns the sets' slots and the staging lists to their pools.
func (pp *pairParts) release() {
	for _, s := range pp.psets {
		s.release()
	}
	for _, s := range pp.ksets {
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
