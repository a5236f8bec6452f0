package operators

import (
	"bytes"
	"hash/maphash"
	"math/bits"

	"github.com/gsqlengine/gsql/coldata"
)

// stringSet is a set of byte strings for COUNT(DISTINCT) over a string
// argument: open addressing with linear probing over slots that hold a
// string's hash and its id plus one (0: empty), the strings themselves
// kept end to end in one arena. A probe compares hashes first and bytes
// only when they match.
type stringSet struct {
	slots []strSlot
	mask  uint64
	offs  []int // string id i is arena[offs[i]:offs[i+1]]
	arena []byte
	n     int
}

type strSlot struct {
	h  uint64
	id uint32
}

func newStringSet() *stringSet {
	return &stringSet{slots: make([]strSlot, partSetSlots), mask: partSetSlots - 1, offs: []int{0}}
}

// add inserts b, whose hash is h, and reports whether it was new.
func (s *stringSet) add(h uint64, b []byte) bool {
	for j := h & s.mask; ; j = (j + 1) & s.mask {
		sl := &s.slots[j]
		if sl.id == 0 {
			s.arena = append(s.arena, b...)
			s.offs = append(s.offs, len(s.arena))
			s.n++
			sl.h, sl.id = h, uint32(s.n)
			if s.n*4 > len(s.slots)*3 {
				s.grow()
			}
			return true
		}
		if sl.h == h {
			id := sl.id - 1
			if bytes.Equal(s.arena[s.offs[id]:s.offs[id+1]], b) {
				return false
			}
		}
	}
}

// grow doubles the slots and reinserts every string by its hash.
func (s *stringSet) grow() {
	old := s.slots
	s.slots = make([]strSlot, 2*len(old))
	s.mask = uint64(len(s.slots) - 1)
	for _, sl := range old {
		if sl.id == 0 {
			continue
		}
		j := sl.h & s.mask
		for s.slots[j].id != 0 {
			j = (j + 1) & s.mask
		}
		s.slots[j] = sl
	}
}

// stringParts counts the distinct strings of a COUNT(DISTINCT) without
// GROUP BY on every core, as pairParts counts integers: ranges of a
// batch's rows hash their strings and list each row by the top bits of
// its hash for one of the parts, then every part inserts its rows into
// its own stringSet. The rows point into the batch, so each batch
// inserts before the next comes. A range drops a row whose string equals
// the one last listed in the same slot of a small cache (the batch's
// other rows only), so a frequent value (ClickBench's SearchPhrase is
// empty on most rows) does not load one part with most of the rows.
type stringParts struct {
	sets    []*stringSet
	shift   uint
	seed    maphash.Seed
	workers int
	hs      []uint64
	lists   [][]int32 // lists[r*len(sets)+p]: range r's rows for part p
	caches  [][]strCacheSlot
	counts  []int
}

// strCacheSlot is a row listed recently: its hash and the row plus one.
type strCacheSlot struct {
	h   uint64
	row int32
}

const (
	// strCacheSlots is the size of a range's cache.
	strCacheSlots = 1 << 10
	// stringInsertRows is the fewest listed rows the parts insert on
	// several goroutines.
	stringInsertRows = 1 << 12
)

func newStringParts(workers int) *stringParts {
	workers = max(workers, 1)
	np := 1 << bits.Len(uint(min(partsPerWorker*workers, 256)-1))
	sp := &stringParts{
		shift:   uint(64 - bits.TrailingZeros(uint(np))),
		seed:    maphash.MakeSeed(),
		workers: workers,
		lists:   make([][]int32, workers*np),
		caches:  make([][]strCacheSlot, workers),
		counts:  make([]int, np),
	}
	for p := 0; p < np; p++ {
		sp.sets = append(sp.sets, newStringSet())
	}
	return sp
}

// add inserts the strings of rows [0, n) of v (a string vector, not
// constant) that are not NULL and returns how many were new.
func (sp *stringParts) add(v *coldata.Vec, n int) int {
	if n == 0 {
		return 0
	}
	if cap(sp.hs) < n {
		uint64Pool.put(sp.hs)
		sp.hs = uint64Pool.get(n)
	}
	hs := sp.hs[:n]
	nr := min(sp.workers, max(1, n/pairStageRows))
	step := (n + nr - 1) / nr
	nr = (n + step - 1) / step
	np := len(sp.sets)
	forEachIndex(nr, nr, func(r int) {
		sp.listRange(r, v, hs, r*step, min((r+1)*step, n))
	})
	listed := 0
	for _, l := range sp.lists[:nr*np] {
		listed += len(l)
	}
	workers := sp.workers
	if listed < stringInsertRows {
		workers = 1 // the cache left few rows: goroutines would cost more
	}
	forEachIndex(np, workers, func(p int) {
		s, cnt := sp.sets[p], 0
		for r := 0; r < nr; r++ {
			for _, i := range sp.lists[r*np+p] {
				if s.add(hs[i], v.Bytes[v.Offsets[i]:v.Offsets[i+1]]) {
					cnt++
				}
			}
		}
		sp.counts[p] = cnt
	})
	total := 0
	for _, c := range sp.counts {
		total += c
	}
	return total
}

// listRange hashes rows [lo, hi) of v into hs and lists them as range r.
func (sp *stringParts) listRange(r int, v *coldata.Vec, hs []uint64, lo, hi int) {
	np := len(sp.sets)
	lists := sp.lists[r*np : (r+1)*np]
	for p := range lists {
		lists[p] = lists[p][:0]
	}
	cache := sp.caches[r]
	if cache == nil {
		cache = make([]strCacheSlot, strCacheSlots)
		sp.caches[r] = cache
	} else {
		clear(cache) // rows of the last batch
	}
	offs, data, nulls := v.Offsets, v.Bytes, v.Nulls
	for i := lo; i < hi; i++ {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		b := data[offs[i]:offs[i+1]]
		h := maphash.Bytes(sp.seed, b)
		c := &cache[h&(strCacheSlots-1)]
		if c.row != 0 && c.h == h {
			j := c.row - 1
			if bytes.Equal(data[offs[j]:offs[j+1]], b) {
				continue
			}
		}
		c.h, c.row = h, int32(i+1)
		hs[i] = h
		p := h >> sp.shift
		lists[p] = append(lists[p], int32(i))
	}
}

// release drops the sets and returns the scratch to its pools.
func (sp *stringParts) release() {
	uint64Pool.put(sp.hs)
	sp.hs, sp.sets = nil, nil
}
