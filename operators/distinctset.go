package operators

import (
	"math/bits"
	"math/rand/v2"
	"sync"
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

func newPairSet() *pairSet {
	return &pairSet{slots: make([]pairSlot, 1024), mask: 1023, seed: rand.Uint64() | 1}
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

// pairParts is a pairSet split by the top bit(s) of the pairs' hashes,
// so that a batch's pairs insert on several goroutines, one set each. It
// serves COUNT(DISTINCT), which only counts the new pairs: their order
// does not matter, so the new rows come part by part, not in row order.
type pairParts struct {
	sets  []*pairSet
	shift uint
	sel   [][]int32
	news  [][]int32
}

// pairPartsMinRows is the smallest batch pairParts splits; smaller ones
// insert on one goroutine.
const pairPartsMinRows = 16 << 10

func newPairParts(parts int) *pairParts {
	np := 1
	for np < parts {
		np *= 2
	}
	seed := newPairSet().seed
	pp := &pairParts{shift: uint(64 - bits.TrailingZeros(uint(np))), sel: make([][]int32, np), news: make([][]int32, np)}
	for p := 0; p < np; p++ {
		s := newPairSet()
		s.seed = seed // routing uses the sets' common hash
		pp.sets = append(pp.sets, s)
	}
	return pp
}

// insert is pairSet.insert over the parts; created gets the new rows
// grouped by part (each part's in row order).
func (pp *pairParts) insert(gids []uint32, vals []int64, nulls []byte, created []int32) []int32 {
	if len(pp.sets) == 1 || len(vals) < pairPartsMinRows {
		// One goroutine, still routed: a pair must always go to its part.
		for i, v := range vals {
			if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
				continue
			}
			var g uint32
			if gids != nil {
				g = gids[i]
			}
			h := pp.sets[0].hash(g, v)
			if pp.sets[h>>pp.shift&uint64(len(pp.sets)-1)].addHashed(g, v, h) {
				created = append(created, int32(i))
			}
		}
		return created
	}
	s0 := pp.sets[0]
	for p := range pp.sel {
		pp.sel[p] = pp.sel[p][:0]
	}
	for i, v := range vals {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		var g uint32
		if gids != nil {
			g = gids[i]
		}
		p := s0.hash(g, v) >> pp.shift & uint64(len(pp.sets)-1)
		pp.sel[p] = append(pp.sel[p], int32(i))
	}
	var wg sync.WaitGroup
	for p := range pp.sets {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			s, news := pp.sets[p], pp.news[p][:0]
			for _, i := range pp.sel[p] {
				var g uint32
				if gids != nil {
					g = gids[i]
				}
				if s.add(g, vals[i]) {
					news = append(news, i)
				}
			}
			pp.news[p] = news
		}(p)
	}
	wg.Wait()
	for _, news := range pp.news {
		created = append(created, news...)
	}
	return created
}
