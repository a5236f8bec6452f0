package operators

import (
	"encoding/binary"
	"fmt"
	"github.com/gsqlengine/gsql/decimal"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/hashmix"
)

// hashTable maps tuples of key values to dense ids (0, 1, 2, ... in order of
// first insertion). It serves GROUP BY (id = group), COUNT(DISTINCT) (keys =
// group id and value) and the build side of hash joins.
//
// The layout follows vectorised engines: keys are stored column by column
// (fixed-width values as int64 words, strings in one byte arena with
// offsets), and an open-addressing slot array with linear probing holds, per
// slot, the upper 32 bits of the key's hash (a tag that rejects most
// mismatches without touching the keys) and the id plus one (0 = empty).
// A batch is hashed one key column at a time, then probed in two passes: a
// walk of the slots for every row, then a column-at-a-time comparison of the
// candidates' keys (one-column keys without NULLs compare inside the walk).
// Probing only reads the table, so large batches probe in parallel parts.
// The rows that miss are then inserted together on one goroutine, in row
// order, so that ids stay in order of first appearance whatever the
// parallelism (insertAbsent: slots first, then the new keys appended and
// checked a column at a time).
type hashTable struct {
	types  []coldata.Type
	cols   []tableCol
	hashes []uint64 // per id, for growing
	slots  []uint64
	mask   uint64
	n      int
	seed   uint64
	// weakHash (tests only) keeps 4 bits of each hash, so that tags and
	// home slots collide and the mismatch paths run.
	weakHash bool
	// partRows (tests only) overrides parallelRows.
	partRows int

	// Per-batch scratch, reused: hashes, and one prober per part of a
	// batch probed in parallel.
	h       []uint64
	probers []prober
	slow    []int32
	// insertAbsent's: the rows that created ids, and the rows (and ids)
	// whose tuples are to be checked.
	newRows   []int32
	guessRows []int32
	guessIDs  []uint32
	guessDiff []bool
}

// prober holds one goroutine's probe scratch. Probing only reads the
// table, so parts of a batch probe in parallel; insertions then follow on
// one goroutine, in row order.
type prober struct {
	t        *hashTable
	rows     []int32 // probeRange's rows
	candRows []int32
	candIDs  []uint32
	diff     []bool
	slow     []int32
}

// tableCol holds one key column of all stored tuples.
type tableCol struct {
	fixed []int64 // Bool (0/1), Int64, Float64 (bits, -0 stored as 0)
	nulls []bool  // nil until the first NULL key
	arena []byte  // String data
	offs  []int   // String: n+1 offsets into arena
	// negZero lists the ids whose first Float64 key was -0: -0 and 0 are one
	// key, and the output shows the value seen first.
	negZero []uint32
}

// keyVec is one key column of a batch, prepared for hashing and comparing.
type keyVec struct {
	t       coldata.Type
	fixed   []int64 // Int64 data, or converted Bool/Float64 values
	floats  []float64
	nulls   []byte // validity bitmap; nil when no row is NULL
	allNull bool   // the Null type
	offs    []int32
	bytes   []byte
	scratch []int64
	// gather's buffers.
	gfloats []float64
	gnulls  []byte
	goffs   []int32
	gbytes  []byte
}

const (
	tagMask   = uint64(0xffffffff00000000)
	negZero64 = int64(-1 << 63) // math.Float64bits(-0)
	nullHash  = 0x9e3779b97f4a7c15
	hashSeed  = 0x243f6a8885a308d3
)

func newHashTable(types []coldata.Type) *hashTable {
	t := &hashTable{types: types, cols: make([]tableCol, len(types)), seed: rand.Uint64()}
	for i, ty := range types {
		if keyKind(ty) == coldata.String {
			t.cols[i].offs = []int{0}
		}
	}
	t.slots = make([]uint64, 16)
	t.mask = 15
	return t
}

// prepare points kv at vector v (n rows), converting values whose stored
// form differs from the vector's.
func (kv *keyVec) prepare(v *coldata.Vec, n int) {
	if v.Const {
		v = v.Materialize()
	}
	*kv = keyVec{t: v.Type, nulls: v.Nulls, scratch: kv.scratch, gfloats: kv.gfloats, gnulls: kv.gnulls, goffs: kv.goffs, gbytes: kv.gbytes}
	switch v.Type.Physical() {
	case coldata.Null:
		kv.allNull = true
	case coldata.Int64:
		kv.fixed = v.Ints[:n]
	case coldata.Bool:
		kv.fixed = kv.grow(n)
		for i, b := range v.Bools[:n] {
			kv.fixed[i] = int64(b)
		}
	case coldata.Float64:
		kv.fixed = kv.grow(n)
		kv.floats = v.Floats[:n]
		for i, f := range kv.floats {
			if f == 0 {
				f = 0 // -0 and 0 are one key
			}
			kv.fixed[i] = int64(math.Float64bits(f))
		}
	case coldata.String:
		kv.offs, kv.bytes = v.Offsets, v.Bytes
	case coldata.Decimal:
		// Decimal keys are their 16 bytes, hashed and compared as strings.
		kv.t = coldata.String
		if cap(kv.goffs) < n+1 {
			kv.goffs = make([]int32, n+1)
		}
		kv.offs = kv.goffs[:n+1]
		for i := range kv.offs {
			kv.offs[i] = int32(16 * i)
		}
		if n > 0 {
			kv.bytes = unsafe.Slice((*byte)(unsafe.Pointer(&v.Decs[0])), 16*n)
		} else {
			kv.bytes = nil
		}
	}
}

// keyKind is how keys of type t are stored: decimals as strings.
func keyKind(t coldata.Type) coldata.Type {
	if t.IsDecimal() {
		return coldata.String
	}
	return t
}

// prepareAs is prepare for a table column of type t: a vector of the Null
// type is all NULL keys of type t, and any other type mismatch an error
// (stored keys would no longer line up).
func (kv *keyVec) prepareAs(v *coldata.Vec, n int, t coldata.Type) error {
	if v.Type == t {
		kv.prepare(v, n)
		return nil
	}
	if v.Type != coldata.Null {
		return fmt.Errorf("internal error: a %s key evaluated to %s values", t, v.Type)
	}
	*kv = keyVec{t: t, allNull: true, scratch: kv.scratch}
	return nil
}

func (kv *keyVec) grow(n int) []int64 {
	if cap(kv.scratch) < n {
		int64Pool.put(kv.scratch)
		kv.scratch = int64Pool.get(n)
	}
	return kv.scratch[:n]
}

// release returns kv's own buffers (not the vector it points at) to their
// pools.
func (kv *keyVec) release() {
	int64Pool.put(kv.scratch)
	bytePool.put(kv.gbytes)
	int32Pool.put(kv.goffs)
	*kv = keyVec{}
}

func (kv *keyVec) isNull(r int) bool {
	return kv.allNull || (kv.nulls != nil && kv.nulls[r>>3]&(1<<(r&7)) == 0)
}

// keyBytes returns the length of row r's AppendRowKey encoding, for memory
// accounting.
func (kv *keyVec) keyBytes(r int) int {
	if kv.isNull(r) {
		return 1
	}
	switch kv.t {
	case coldata.Bool:
		return 2
	case coldata.String:
		l := int(kv.offs[r+1] - kv.offs[r])
		n := 1
		for x := uint64(l); x >= 0x80; x >>= 7 {
			n++
		}
		return 1 + n + l
	}
	return 9
}

// keysBytes is the total of keyBytes over rows of keys.
func keysBytes(keys []keyVec, rows []int32) int {
	n := 0
	for c := range keys {
		for _, r := range rows {
			n += keys[c].keyBytes(int(r))
		}
	}
	return n
}

// mum folds the 128-bit product of a and b to 64 bits (wyhash's mixer).
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashBytes hashes a string key: 16 bytes per multiplication, short
// strings with one or two overlapping loads. It is cheaper than maphash for
// the short strings keys usually are; hashmix.Mix64 then spreads its bits.
func hashBytes(b []byte, seed uint64) uint64 {
	const k1, k2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(b)
	seed ^= uint64(n) * k2
	var x, y uint64
	switch {
	case n == 0:
		return seed
	case n < 4:
		x = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	case n <= 8:
		x = uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n <= 16:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	default:
		rest := b
		for len(rest) > 16 {
			seed = mum(binary.LittleEndian.Uint64(rest)^k1, binary.LittleEndian.Uint64(rest[8:])^seed)
			rest = rest[16:]
		}
		x, y = binary.LittleEndian.Uint64(b[n-16:]), binary.LittleEndian.Uint64(b[n-8:])
	}
	return mum(x^k1, y^seed^k2)
}

// hashRows hashes rows [0, len(h)) of keys into h, in parallel parts of
// at least parallelRows rows.
func (t *hashTable) hashRows(keys []keyVec, h []uint64) {
	n := len(h)
	workers := max(min(runtime.GOMAXPROCS(0), n/parallelRows), 1)
	step := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*step, min((w+1)*step, n)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.hashRange(keys, h, lo, hi)
		}()
	}
	wg.Wait()
}

// hashRange fills h[lo:hi] with the hashes of rows [lo, hi), one key
// column at a time.
//
// Each string column hashes under a seed of its own: the first column's
// hash is not mixed before the next one's is XORed in, and under one
// seed the tuples (x, y) and (y, x) of two string columns hashed alike,
// all 64 bits (GROUP BY origin, destination: every such pair a collision
// for the comparisons to sort out).
func (t *hashTable) hashRange(keys []keyVec, h []uint64, lo, hi int) {
	first := 0
	if len(keys) > 0 && !keys[0].allNull && keys[0].t != coldata.String && keys[0].nulls == nil {
		// A first fixed-width key without NULLs hashes as the loop
		// below would from hashSeed, in one pass.
		hh, f := h[lo:hi], keys[0].fixed[lo:hi]
		f = f[:len(hh)]
		for i := range hh {
			hh[i] = hashmix.Mix64(hashSeed ^ uint64(f[i]))
		}
		first = 1
	} else {
		for r := lo; r < hi; r++ {
			h[r] = hashSeed
		}
	}
	for c := first; c < len(keys); c++ {
		kv := &keys[c]
		seed := t.seed + uint64(c)*nullHash
		switch {
		case kv.allNull:
			// As the NULLs of the loops below hash.
			for r := lo; r < hi; r++ {
				if kv.t == coldata.String && c == 0 {
					h[r] = nullHash
				} else {
					h[r] = hashmix.Mix64(h[r] ^ nullHash)
				}
			}
		case kv.t == coldata.String && kv.nulls == nil:
			bs, offs := kv.bytes, kv.offs
			if c == 0 {
				// hashBytes mixes well enough on its own for a first column.
				for r := lo; r < hi; r++ {
					h[r] = hashBytes(bs[offs[r]:offs[r+1]], seed)
				}
				continue
			}
			for r := lo; r < hi; r++ {
				h[r] = hashmix.Mix64(h[r] ^ hashBytes(bs[offs[r]:offs[r+1]], seed))
			}
		case kv.t == coldata.String:
			// As above, with NULLs: the same rows hash the same either way.
			for r := lo; r < hi; r++ {
				x := uint64(nullHash)
				if !kv.isNull(r) {
					x = hashBytes(kv.bytes[kv.offs[r]:kv.offs[r+1]], seed)
				}
				if c == 0 {
					h[r] = x
				} else {
					h[r] = hashmix.Mix64(h[r] ^ x)
				}
			}
		case kv.nulls == nil:
			f := kv.fixed[lo:hi]
			hh := h[lo:hi]
			for i, x := range f {
				hh[i] = hashmix.Mix64(hh[i] ^ uint64(x))
			}
		default:
			for r := lo; r < hi; r++ {
				x := uint64(kv.fixed[r])
				if kv.isNull(r) {
					x = nullHash
				}
				h[r] = hashmix.Mix64(h[r] ^ x)
			}
		}
	}
	if t.weakHash {
		for r := lo; r < hi; r++ {
			h[r] &= 15
		}
	}
}

// fusedStringSlots is the largest table (in slots) probed for string keys
// with the comparison inside the walk.
const fusedStringSlots = 1 << 16

// noID marks a row whose tuple find did not find.
const noID = ^uint32(0)

// findOrInsert sets ids[r] for rows [lo, hi) of keys, inserting the tuples
// not yet stored. admit, when set, is called before each insertion (with
// the row) and may refuse it with an error. Rows that inserted their tuple
// are appended to created, in row order, when created is not nil.
func (t *hashTable) findOrInsert(keys []keyVec, lo, hi int, ids []uint32, admit func(r int) error, created *[]int32) error {
	h := t.hashAndProbe(keys, lo, hi, ids, true)
	return t.insertAbsent(keys, t.slow, h, ids, admit, created)
}

// findOrInsertRows is findOrInsert for rows (ascending) of keys already
// hashed (h[r]), probed on this goroutine.
func (t *hashTable) findOrInsertRows(keys []keyVec, rows []int32, h []uint64, ids []uint32, admit func(r int) error, created *[]int32) error {
	if len(t.probers) == 0 {
		t.probers = append(t.probers, prober{t: t})
	}
	p := &t.probers[0]
	p.probe(keys, h, rows, ids, true)
	return t.insertAbsent(keys, p.slow, h, ids, admit, created)
}

// find sets ids[r] for rows [lo, hi) to the stored tuple's id, or noID
// when the tuple is absent.
func (t *hashTable) find(keys []keyVec, lo, hi int, ids []uint32) {
	t.hashAndProbe(keys, lo, hi, ids, false)
}

// parallelRows is the fewest rows per goroutine when a batch is hashed and
// probed in parallel.
const parallelRows = 1 << 14

// hashAndProbe hashes rows [lo, hi) and probes them (see probe), in
// parallel parts when the batch is large; with insert, t.slow then lists
// the rows left to insert, in row order. It returns the hashes.
func (t *hashTable) hashAndProbe(keys []keyVec, lo, hi int, ids []uint32, insert bool) []uint64 {
	if cap(t.h) < hi {
		uint64Pool.put(t.h)
		t.h = uint64Pool.get(hi)
	}
	h := t.h[:hi]
	minRows := parallelRows
	if t.partRows > 0 {
		minRows = t.partRows
	}
	parts := max(min(runtime.GOMAXPROCS(0), (hi-lo)/minRows, 8), 1)
	for len(t.probers) < parts {
		t.probers = append(t.probers, prober{t: t})
	}
	if parts == 1 {
		t.hashRange(keys, h, lo, hi)
		t.probers[0].probeRange(keys, h, lo, hi, ids, insert)
		t.slow = append(t.slow[:0], t.probers[0].slow...)
		return h
	}
	var wg sync.WaitGroup
	step := (hi - lo + parts - 1) / parts
	for w := 0; w < parts; w++ {
		plo, phi := lo+w*step, min(lo+(w+1)*step, hi)
		if plo >= phi {
			t.probers[w].slow = t.probers[w].slow[:0]
			continue
		}
		wg.Add(1)
		go func(p *prober) {
			defer wg.Done()
			t.hashRange(keys, h, plo, phi)
			p.probeRange(keys, h, plo, phi, ids, insert)
		}(&t.probers[w])
	}
	wg.Wait()
	t.slow = t.slow[:0]
	for w := 0; w < parts; w++ {
		t.slow = append(t.slow, t.probers[w].slow...)
	}
	return h
}

// probeRange is probe for rows [lo, hi).
func (p *prober) probeRange(keys []keyVec, h []uint64, lo, hi int, ids []uint32, insert bool) {
	if t := p.t; t.n > 0 && len(keys) == 1 && keys[0].t != coldata.String && keys[0].nulls == nil && !keys[0].allNull && t.cols[0].nulls == nil {
		// One fixed-width key without NULLs: the walk reads the range's
		// rows in order, with no list of them.
		p.slow = p.slow[:0]
		p.probeFixedSpan(keys[0].fixed, h, lo, hi, ids, insert)
		return
	}
	if cap(p.rows) < hi-lo {
		int32Pool.put(p.rows)
		p.rows = int32Pool.get(hi - lo)
	}
	p.rows = p.rows[:hi-lo]
	for i := range p.rows {
		p.rows[i] = int32(lo + i)
	}
	p.probe(keys, h, p.rows, ids, insert)
}

// probe resolves the rows (ascending) whose tuples are stored, hashed
// h[r], writing ids[r]. The other rows get noID, and with insert go to
// p.slow in row order (insertAbsent's rows: no stored tuple equals theirs).
func (p *prober) probe(keys []keyVec, h []uint64, rows []int32, ids []uint32, insert bool) {
	t := p.t
	p.slow = p.slow[:0]
	if t.n == 0 {
		for _, r := range rows {
			ids[r] = noID
		}
		if insert {
			p.slow = append(p.slow, rows...)
		}
		return
	}
	if len(keys) == 1 && keys[0].nulls == nil && !keys[0].allNull && t.cols[0].nulls == nil {
		// One key column without NULLs: compare keys during the walk. For
		// strings only while the table is small: past the cache, the
		// separate passes below overlap more of the (dependent) misses.
		if keys[0].t != coldata.String {
			p.probeFixed(keys[0].fixed, h, rows, ids, insert)
			return
		}
		if len(t.slots) <= fusedStringSlots {
			p.probeString(&keys[0], h, rows, ids, insert)
			return
		}
	}
	if cap(p.candRows) < len(rows) {
		int32Pool.put(p.candRows)
		uint32Pool.put(p.candIDs)
		p.candRows, p.candIDs = int32Pool.get(len(rows)), uint32Pool.get(len(rows))
	}
	candRows, candIDs := p.candRows[:len(rows)], p.candIDs[:len(rows)]
	nc := 0
	slots, mask := t.slots, t.mask
	for _, r := range rows {
		hr := h[r]
		tag := hr & tagMask
		pos := hr & mask
		ids[r] = noID
		for {
			s := slots[pos]
			if s == 0 {
				if insert {
					p.slow = append(p.slow, r)
				}
				break
			}
			if s&tagMask == tag {
				candRows[nc], candIDs[nc] = r, uint32(s)-1
				nc++
				break
			}
			pos = (pos + 1) & mask
		}
	}
	p.candRows, p.candIDs = candRows[:nc], candIDs[:nc]
	mismatch := p.compare(keys)
	for i, r := range p.candRows {
		if !p.diff[i] {
			ids[r] = p.candIDs[i]
		}
	}
	if !mismatch {
		return
	}
	// A tag matched another key (rare): those rows walk on row at a
	// time, and those still not found join the rows to insert.
	for i, r := range p.candRows {
		if !p.diff[i] {
			continue
		}
		if ids[r] = t.findRow(keys, int(r), h[r]); ids[r] == noID && insert {
			p.slow = append(p.slow, r)
		}
	}
	if insert {
		slices.Sort(p.slow)
	}
}

// probeFixed is probe for one fixed-width key column without NULLs.
func (p *prober) probeFixed(fixed []int64, h []uint64, rows []int32, ids []uint32, insert bool) {
	t := p.t
	slots, mask, stored := t.slots, t.mask, t.cols[0].fixed
	for _, r := range rows {
		hr, x := h[r], fixed[r]
		tag := hr & tagMask
		pos := hr & mask
		for {
			s := slots[pos]
			if s == 0 {
				ids[r] = noID
				if insert {
					p.slow = append(p.slow, r)
				}
				break
			}
			if s&tagMask == tag && stored[uint32(s)-1] == x {
				ids[r] = uint32(s) - 1
				break
			}
			pos = (pos + 1) & mask
		}
	}
}

// probeFixedSpan is probeFixed for the rows [lo, hi): the keys, hashes
// and ids are read and written in order, without a list of rows and
// their bounds checks (GROUP BY l_partkey, 20K groups: issue 40).
func (p *prober) probeFixedSpan(fixed []int64, h []uint64, lo, hi int, ids []uint32, insert bool) {
	t := p.t
	slots, mask, stored := t.slots, t.mask, t.cols[0].fixed
	hs := h[lo:hi]
	fixed, ids = fixed[lo:hi], ids[lo:hi]
	fixed, ids = fixed[:len(hs)], ids[:len(hs)]
	for i, hr := range hs {
		x := fixed[i]
		tag, pos := hr&tagMask, hr&mask
		for {
			s := slots[pos]
			if s == 0 {
				ids[i] = noID
				if insert {
					p.slow = append(p.slow, int32(lo+i))
				}
				break
			}
			if s&tagMask == tag && stored[uint32(s)-1] == x {
				ids[i] = uint32(s) - 1
				break
			}
			pos = (pos + 1) & mask
		}
	}
}

// probeString is probe for one string key column without NULLs.
func (p *prober) probeString(kv *keyVec, h []uint64, rows []int32, ids []uint32, insert bool) {
	t := p.t
	slots, mask := t.slots, t.mask
	arena, offs := t.cols[0].arena, t.cols[0].offs
	for _, r := range rows {
		hr, x := h[r], kv.bytes[kv.offs[r]:kv.offs[r+1]]
		tag := hr & tagMask
		pos := hr & mask
		for {
			s := slots[pos]
			if s == 0 {
				ids[r] = noID
				if insert {
					p.slow = append(p.slow, r)
				}
				break
			}
			if s&tagMask == tag {
				g := uint32(s) - 1
				if equalBytes(arena[offs[g]:offs[g+1]], x) {
					ids[r] = g
					break
				}
			}
			pos = (pos + 1) & mask
		}
	}
}

// release returns p's scratch to its pools.
func (p *prober) release() {
	int32Pool.put(p.rows)
	int32Pool.put(p.candRows)
	uint32Pool.put(p.candIDs)
	p.rows, p.candRows, p.candIDs = nil, nil, nil
}

// compare checks the candidates (p.candRows against p.candIDs) one key
// column at a time, setting p.diff; it reports whether any differ.
func (p *prober) compare(keys []keyVec) bool {
	n := len(p.candRows)
	if cap(p.diff) < n {
		p.diff = make([]bool, n)
	}
	p.diff = p.diff[:n]
	return p.t.compareKeys(keys, p.candRows, p.candIDs[:n], p.diff)
}

// compareKeys compares the tuples of rows of keys with those stored under
// ids (row rows[i] with id ids[i]), one key column at a time, setting
// diff[i] where they differ; it reports whether any do.
func (t *hashTable) compareKeys(keys []keyVec, rows []int32, ids []uint32, diff []bool) bool {
	clear(diff)
	for c := range keys {
		kv, tc := &keys[c], &t.cols[c]
		switch {
		case kv.allNull:
			for i, g := range ids {
				if tc.nulls == nil || !tc.nulls[g] {
					diff[i] = true
				}
			}
		case kv.nulls != nil || tc.nulls != nil:
			for i, r := range rows {
				g := ids[i]
				rn, gn := kv.isNull(int(r)), tc.nulls != nil && tc.nulls[g]
				if rn != gn || (!rn && !tc.equal(kv, int(r), g)) {
					diff[i] = true
				}
			}
		case kv.t == coldata.String:
			arena, offs := tc.arena, tc.offs
			for i, r := range rows {
				g := ids[i]
				if !equalBytes(arena[offs[g]:offs[g+1]], kv.bytes[kv.offs[r]:kv.offs[r+1]]) {
					diff[i] = true
				}
			}
		default:
			fixed, stored := kv.fixed, tc.fixed
			for i, r := range rows {
				if stored[ids[i]] != fixed[r] {
					diff[i] = true
				}
			}
		}
	}
	for _, d := range diff {
		if d {
			return true
		}
	}
	return false
}

// appendKeyBytes appends src[lo:hi] to dst: a key of at most 16 bytes
// (most are) as one 16-byte copy when src holds 16 bytes from lo and dst
// has room for 16 more, which costs less than append's call to memmove
// (the bytes stored past the key are the next key's to overwrite). It is
// small enough to be inlined.
func appendKeyBytes(dst, src []byte, lo, hi int32) []byte {
	n := len(dst)
	if hi-lo <= 16 && int(lo)+16 <= len(src) && n+16 <= cap(dst) {
		s := src[lo : lo+16]
		*(*[16]byte)(dst[n : n+16]) = [16]byte(s)
		return dst[:n+int(hi-lo)]
	}
	return append(dst, src[lo:hi]...)
}

// equalBytes is bytes.Equal with the comparison of short strings (most
// keys) inlined as word loads.
func equalBytes(a, b []byte) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	le := binary.LittleEndian
	switch {
	case n < 4:
		// Bytes 0, n/2 and n-1 are all of them.
		return n == 0 || (a[0] == b[0] && a[n>>1] == b[n>>1] && a[n-1] == b[n-1])
	case n < 8:
		return le.Uint32(a) == le.Uint32(b) && le.Uint32(a[n-4:]) == le.Uint32(b[n-4:])
	case n <= 16:
		return le.Uint64(a) == le.Uint64(b) && le.Uint64(a[n-8:]) == le.Uint64(b[n-8:])
	case n <= 32:
		return le.Uint64(a) == le.Uint64(b) && le.Uint64(a[8:]) == le.Uint64(b[8:]) &&
			le.Uint64(a[n-16:]) == le.Uint64(b[n-16:]) && le.Uint64(a[n-8:]) == le.Uint64(b[n-8:])
	}
	return string(a) == string(b)
}

// equal compares a non-NULL key of row r with the non-NULL key of id g.
func (tc *tableCol) equal(kv *keyVec, r int, g uint32) bool {
	if kv.t == coldata.String {
		return equalBytes(tc.arena[tc.offs[g]:tc.offs[g+1]], kv.bytes[kv.offs[r]:kv.offs[r+1]])
	}
	return tc.fixed[g] == kv.fixed[r]
}

// rowEqual reports whether row r's tuple is the tuple of id g.
func (t *hashTable) rowEqual(keys []keyVec, r int, g uint32) bool {
	for c := range keys {
		kv, tc := &keys[c], &t.cols[c]
		rn, gn := kv.isNull(r), tc.nulls != nil && tc.nulls[g]
		if rn != gn {
			return false
		}
		if !rn && !tc.equal(kv, r, g) {
			return false
		}
	}
	return true
}

func (t *hashTable) findRow(keys []keyVec, r int, h uint64) uint32 {
	tag, pos := h&tagMask, h&t.mask
	for {
		s := t.slots[pos]
		if s == 0 {
			return noID
		}
		if s&tagMask == tag && t.rowEqual(keys, r, uint32(s)-1) {
			return uint32(s) - 1
		}
		pos = (pos + 1) & t.mask
	}
}

// insertAbsent inserts the tuples of rows (ascending), hashed h[r], none
// of which was stored when they were probed: rows with equal tuples share
// one new id, ids follow the order of each tuple's first row, and ids[r]
// is set for every row. admit, when set, is called with each new tuple's
// first row, in row order, and may refuse it with an error (the table
// then holds tuples past the refused one: the caller gives up on it).
// The rows that created ids are appended to created, when not nil.
//
// A batch at a time (cockroachdb's hash aggregator builds its table the
// same way): place walks the slots for each row, taking a row whose tag
// matches an id new in this call as that id's tuple (an older id cannot
// hold it); the new tuples' keys are then appended a column at a time,
// and the guesses checked by compareKeys, a column at a time. Should one
// be wrong (two new tuples whose hashes share the tag on one probe
// sequence: rare, except under weakHash), the call is undone and the rows
// placed again comparing each guess at once.
func (t *hashTable) insertAbsent(keys []keyVec, rows []int32, h []uint64, ids []uint32, admit func(r int) error, created *[]int32) error {
	if len(rows) == 0 {
		return nil
	}
	base := t.n
	newRows, err := t.place(keys, rows, h, ids, false)
	if err != nil {
		return err
	}
	t.appendKeys(keys, newRows, base)
	if n := len(t.guessRows); n > 0 {
		if cap(t.guessDiff) < n {
			t.guessDiff = make([]bool, n)
		}
		if t.compareKeys(keys, t.guessRows, t.guessIDs, t.guessDiff[:n]) {
			t.truncate(base)
			if newRows, err = t.place(keys, rows, h, ids, true); err != nil {
				return err
			}
		}
	}
	if admit != nil {
		for _, r := range newRows {
			if err := admit(int(r)); err != nil {
				return err
			}
		}
	}
	if created != nil {
		*created = append(*created, newRows...)
	}
	return nil
}

// place is insertAbsent's walk: it gives each of rows an id, new ids in
// the slots, and returns the rows that created them (t.newRows). A row
// whose tag matches a new id is listed in t.guessRows (and the id in
// t.guessIDs) to be checked, or, with exact, compared at once (each new
// tuple's key is then stored as it is placed) and the walk goes on past
// it when the tuples differ.
func (t *hashTable) place(keys []keyVec, rows []int32, h []uint64, ids []uint32, exact bool) ([]int32, error) {
	base := uint32(t.n)
	if cap(t.newRows) < len(rows) {
		t.releaseInsert()
		t.newRows, t.guessRows, t.guessIDs = int32Pool.get(len(rows)), int32Pool.get(len(rows)), uint32Pool.get(len(rows))
	}
	newRows := t.newRows[:0]
	t.guessRows, t.guessIDs = t.guessRows[:0], t.guessIDs[:0]
rows:
	for _, r := range rows {
		hr := h[r]
		tag, pos := hr&tagMask, hr&t.mask
		for {
			s := t.slots[pos]
			if s == 0 {
				break
			}
			if g := uint32(s) - 1; s&tagMask == tag && g >= base {
				if !exact {
					t.guessRows, t.guessIDs = append(t.guessRows, r), append(t.guessIDs, g)
					ids[r] = g
					continue rows
				}
				if t.rowEqual(keys, int(r), g) {
					ids[r] = g
					continue rows
				}
			}
			pos = (pos + 1) & t.mask
		}
		if t.n >= math.MaxInt32 {
			return nil, fmt.Errorf("hash table holds too many keys")
		}
		g := uint32(t.n)
		ids[r] = g
		newRows = append(newRows, r)
		if exact {
			t.appendKeys(keys, newRows[len(newRows)-1:], t.n)
		}
		t.hashes = append(uint64Pool.grow(t.hashes, 1), hr)
		t.n++
		t.slots[pos] = tag | uint64(g+1)
		// Small tables stay at most a quarter full (short walks, few
		// mispredicted exits); big ones half, to bound their memory.
		if 2*t.n > len(t.slots) || (len(t.slots) < 1<<16 && 4*t.n > len(t.slots)) {
			t.resize(2 * len(t.slots))
		}
	}
	t.newRows = newRows
	return newRows, nil
}

// appendKeys stores the tuples of rows of keys as ids g0, g0+1, ..., one
// key column at a time.
func (t *hashTable) appendKeys(keys []keyVec, rows []int32, g0 int) {
	m := len(rows)
	for c := range keys {
		kv, tc := &keys[c], &t.cols[c]
		hasNulls := kv.allNull || kv.nulls != nil
		if tc.nulls == nil && hasNulls {
			for _, r := range rows {
				if kv.isNull(int(r)) {
					tc.nulls = make([]bool, g0, max(g0+m, 16))
					break
				}
			}
		}
		if tc.nulls != nil {
			tc.nulls = reserve(tc.nulls, m)
			for _, r := range rows {
				tc.nulls = append(tc.nulls, kv.isNull(int(r)))
			}
		}
		switch kv.t {
		case coldata.Null:
		case coldata.String:
			size := 0
			for _, r := range rows {
				if !hasNulls || !kv.isNull(int(r)) {
					size += int(kv.offs[r+1] - kv.offs[r])
				}
			}
			arena := bytePool.grow(tc.arena, size+16) // appendKeyBytes' room
			offs := intPool.grow(tc.offs, m)
			for _, r := range rows {
				if !hasNulls || !kv.isNull(int(r)) {
					arena = appendKeyBytes(arena, kv.bytes, kv.offs[r], kv.offs[r+1])
				}
				offs = append(offs, len(arena))
			}
			tc.arena, tc.offs = arena, offs
		default:
			old := len(tc.fixed)
			tc.fixed = int64Pool.grow(tc.fixed, m)[:old+m]
			dst := tc.fixed[old:]
			if !hasNulls {
				for i, r := range rows {
					dst[i] = kv.fixed[r]
				}
			} else {
				for i, r := range rows {
					dst[i] = 0
					if !kv.isNull(int(r)) {
						dst[i] = kv.fixed[r]
					}
				}
			}
			if kv.floats != nil {
				for i, r := range rows {
					if dst[i] == 0 && math.Signbit(kv.floats[r]) && !kv.isNull(int(r)) {
						tc.negZero = append(tc.negZero, uint32(g0+i))
					}
				}
			}
		}
	}
}

// truncate forgets the ids from n on: their keys and slots.
func (t *hashTable) truncate(n int) {
	for c := range t.cols {
		tc := &t.cols[c]
		if tc.nulls != nil {
			tc.nulls = tc.nulls[:n]
		}
		switch {
		case tc.offs != nil:
			tc.offs = tc.offs[:n+1]
			tc.arena = tc.arena[:tc.offs[n]]
		case tc.fixed != nil:
			tc.fixed = tc.fixed[:n]
		}
		for len(tc.negZero) > 0 && int(tc.negZero[len(tc.negZero)-1]) >= n {
			tc.negZero = tc.negZero[:len(tc.negZero)-1]
		}
	}
	t.n, t.hashes = n, t.hashes[:n]
	t.resize(len(t.slots))
}

// reserve returns s with room for extra more elements, doubling its
// capacity when it must grow: append grows large slices by a quarter,
// which copies a table's key arena and columns about four times over
// as they fill (GROUP BY URL), doubling about once.
func reserve[T any](s []T, extra int) []T {
	if len(s)+extra <= cap(s) {
		return s
	}
	ns := make([]T, len(s), max(2*cap(s), len(s)+extra, 16))
	copy(ns, s)
	return ns
}

// releaseInsert returns insertAbsent's scratch to its pools.
func (t *hashTable) releaseInsert() {
	int32Pool.put(t.newRows)
	int32Pool.put(t.guessRows)
	uint32Pool.put(t.guessIDs)
	t.newRows, t.guessRows, t.guessIDs = nil, nil, nil
}

// releaseProbe returns the slots and hashes to their pools: the table
// finds no key afterwards, but its key columns stay (the output may alias
// them).
func (t *hashTable) releaseProbe() {
	t.releaseInsert()
	uint64Pool.put(t.slots)
	uint64Pool.put(t.hashes)
	uint64Pool.put(t.h)
	t.slots, t.hashes, t.h, t.mask = nil, nil, nil, 0
	for i := range t.probers {
		t.probers[i].release()
	}
}

// release returns all of the table's buffers, key columns included, to
// their pools: only for a table that nothing references any more (its
// keys were copied elsewhere).
func (t *hashTable) release() {
	t.releaseProbe()
	for c := range t.cols {
		tc := &t.cols[c]
		int64Pool.put(tc.fixed)
		bytePool.put(tc.arena)
		intPool.put(tc.offs)
		tc.fixed, tc.arena, tc.offs = nil, nil, nil
	}
}

// resize makes the slot array size slots long and reinserts every id.
func (t *hashTable) resize(size int) {
	slots := uint64Pool.getZeroed(size)
	uint64Pool.put(t.slots)
	mask := uint64(len(slots) - 1)
	for g, h := range t.hashes {
		pos := h & mask
		for slots[pos] != 0 {
			pos = (pos + 1) & mask
		}
		slots[pos] = h&tagMask | uint64(g+1)
	}
	t.slots, t.mask = slots, mask
}

// column returns stored key column c as a vector of t.n rows.
func (t *hashTable) column(c int) (*coldata.Vec, error) {
	tc, n := &t.cols[c], t.n
	v := &coldata.Vec{Type: t.types[c], Len: n}
	switch v.Type.Physical() {
	case coldata.Null:
		v.Nulls = make([]byte, coldata.BitmapLen(n))
		return v, nil
	case coldata.Bool:
		v.Bools = make([]byte, n)
		for i, x := range tc.fixed {
			v.Bools[i] = byte(x)
		}
	case coldata.Int64:
		v.Ints = tc.fixed[:n:n]
	case coldata.Float64:
		v.Floats = make([]float64, n)
		for i, x := range tc.fixed {
			v.Floats[i] = math.Float64frombits(uint64(x))
		}
		for _, g := range tc.negZero {
			v.Floats[g] = math.Copysign(0, -1)
		}
	case coldata.String:
		if len(tc.arena) > math.MaxInt32 {
			return nil, fmt.Errorf("grouping keys hold more than %d bytes of strings", math.MaxInt32)
		}
		v.Offsets = make([]int32, n+1)
		for i, o := range tc.offs {
			v.Offsets[i] = int32(o)
		}
		v.Bytes = tc.arena
	case coldata.Decimal:
		v.Decs = make([]decimal.Int128, n)
		for i := range v.Decs {
			if o := tc.offs[i]; tc.offs[i+1]-o == 16 {
				v.Decs[i] = decimal.Int128{Lo: binary.LittleEndian.Uint64(tc.arena[o:]), Hi: int64(binary.LittleEndian.Uint64(tc.arena[o+8:]))}
			}
		}
	}
	if tc.nulls != nil {
		v.Nulls = coldata.NewValidBitmap(n)
		for i, null := range tc.nulls {
			if null {
				coldata.ClearBit(v.Nulls, i)
			}
		}
	}
	return v, nil
}

// gather points kv at rows of src (in order), copying them into kv's own
// buffers: a part of a batch for a partitioned GROUP BY.
func (kv *keyVec) gather(src *keyVec, rows []int32) {
	g := keyVec{t: src.t, allNull: src.allNull, scratch: kv.scratch,
		gfloats: kv.gfloats, gnulls: kv.gnulls, goffs: kv.goffs, gbytes: kv.gbytes}
	m := len(rows)
	if src.nulls != nil {
		nb := coldata.BitmapLen(m)
		if cap(g.gnulls) < nb {
			g.gnulls = make([]byte, nb)
		}
		g.nulls = g.gnulls[:nb]
		clear(g.nulls)
		for i, r := range rows {
			if !src.isNull(int(r)) {
				g.nulls[i>>3] |= 1 << (i & 7)
			}
		}
	}
	switch {
	case src.allNull:
	case src.t == coldata.String:
		if cap(g.goffs) < m+1 {
			int32Pool.put(g.goffs)
			g.goffs = int32Pool.get(m + 1)
		}
		g.offs = g.goffs[:m+1]
		size := 0
		for _, r := range rows {
			size += int(src.offs[r+1] - src.offs[r])
		}
		if cap(g.gbytes) < size+16 {
			// Sized up front and pooled: appending grew a part's copy of
			// a batch of URLs by a quarter at a time, every batch. (16:
			// appendKeyBytes' room.)
			bytePool.put(g.gbytes)
			g.gbytes = bytePool.get(size + 16)
		}
		g.bytes = g.gbytes[:0]
		g.offs[0] = 0
		for i, r := range rows {
			g.bytes = appendKeyBytes(g.bytes, src.bytes, src.offs[r], src.offs[r+1])
			g.offs[i+1] = int32(len(g.bytes))
		}
	default:
		g.fixed = g.grow(m)
		for i, r := range rows {
			g.fixed[i] = src.fixed[r]
		}
		if src.floats != nil {
			if cap(g.gfloats) < m {
				g.gfloats = make([]float64, m)
			}
			g.floats = g.gfloats[:m]
			for i, r := range rows {
				g.floats[i] = src.floats[r]
			}
		}
	}
	*kv = g
}
