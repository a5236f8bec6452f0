package sortkey

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// The packed sort: when every key's values map to small integer codes
// whose widths, with a bit for each key that has a NULL and the bits of
// a row's position, fit 128 bits, each row becomes one 64- or 128-bit
// word (the keys most significant first, the position in the low bits)
// and a least-significant-digit radix sort over the bits that vary
// orders the words; no comparison reads a key's bytes. BIGINT, DATE,
// TIMESTAMP, BOOL, DOUBLE and DECIMALs that fit 64 bits code as their
// offset from the column's minimum; text as the rank of its value among
// the column's distinct values (a hash table of them, then a sort of the
// few distinct strings). TPC-H Q16's ORDER BY supplier_cnt DESC, p_brand,
// p_type, p_size over its ~28K groups packs into 23 bits: three radix
// passes, where the normalized keys compared rows past their 16-byte
// prefixes (p_type's 'MEDIUM POLISHED ' is shared by five values).

// maxPackedBits is the widest packed word: two 64-bit halves.
const maxPackedBits = 128

// packedMinRows is the fewest rows sorted by radix; fewer sort their
// packed words by comparison.
const packedMinRows = 256

// radixDigitBits is the widest radix digit: 2048 counts stay in the
// first-level cache.
const radixDigitBits = 11

// field is one key's code: its NULL flag (when a row has a NULL) above
// width bits of value.
type field struct {
	k          Key
	flag       bool // rows carry a NULL flag bit
	nullsFirst bool
	width      uint // bits of the value's code
	span       uint64
	min        uint64 // int-like keys: the least value's word
	text       bool
	ids        []uint32 // text: each position's distinct value
	ranks      []uint32 // text: each distinct value's rank
}

// bitsOf is the field's width with its flag.
func (f *field) bitsOf() uint {
	if f.flag {
		return f.width + 1
	}
	return f.width
}

// sortPacked sorts rows by keys as packed words; done is false, rows
// untouched, when the keys do not fit maxPackedBits or a key's type has
// no packed code (a DECIMAL past 64 bits).
func sortPacked(ctx context.Context, keys []Key, rows []int) (done bool, err error) {
	n := len(rows)
	if n < 2 {
		return true, nil
	}
	rowBits := uint(bits.Len(uint(n - 1)))
	fields := make([]field, len(keys))
	defer func() {
		for j := range fields {
			if fields[j].ids != nil {
				u32Pool.put(fields[j].ids)
			}
		}
	}()
	total := rowBits
	// The fixed-width keys first: their widths bound the distinct text
	// values worth counting.
	for j, k := range keys {
		f := &fields[j]
		f.k = k
		f.flag = anyNull(k.Vec, rows)
		f.nullsFirst = !k.Desc
		if k.Nulls != opspec.NullsDefault {
			f.nullsFirst = k.Nulls == opspec.NullsFirst
		}
		if k.Vec.Type.Physical() == coldata.String {
			f.text = true
			if f.flag {
				total++
			}
			continue
		}
		if !f.planWord(ctx, rows) {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			return false, nil
		}
		total += f.bitsOf()
	}
	if total > maxPackedBits {
		return false, nil
	}
	// Text keys rank their values on a goroutine each, when they are
	// several and the rows many, each within the bits left by the
	// others' flags and the fixed-width keys.
	var text []int
	for j := range fields {
		if fields[j].text {
			text = append(text, j)
		}
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	budget := maxPackedBits - total
	planned := make([]bool, len(text))
	if len(text) > 1 && n >= parallelSortRows {
		parallelDo(len(text), func(t int) { planned[t] = fields[text[t]].planText(ctx, rows, budget) })
	} else {
		for t, j := range text {
			if planned[t] = fields[j].planText(ctx, rows, budget); !planned[t] {
				break
			}
			budget -= fields[j].width
		}
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	for t, j := range text {
		if !planned[t] {
			return false, nil
		}
		total += fields[j].width
	}
	if total > maxPackedBits {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	// The words are packed a range of rows at a time, every key's code
	// in turn (the range's words stay in cache), looking at the context
	// between ranges: at millions of rows each pass over them is long
	// for a cancel to wait on.
	codes := u64Pool.get(n)
	defer u64Pool.put(codes)
	if total <= 64 {
		words := u64Pool.get(n)
		defer u64Pool.put(words)
		for lo := 0; lo < n; lo += cancelCheckRows {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			hi := min(lo+cancelCheckRows, n)
			w, c := words[lo:hi], codes[lo:hi]
			for i := range w {
				w[i] = uint64(lo + i)
			}
			off := total
			for j := range fields {
				f := &fields[j]
				if f.flag {
					off--
					f.flags(rows[lo:hi], c)
					for i, x := range c {
						w[i] |= x << off
					}
				}
				off -= f.width
				f.codes(lo, hi, rows, c)
				for i, x := range c {
					w[i] |= x << off
				}
			}
		}
		if n < packedMinRows {
			slices.Sort(words)
		} else if words, err = radix64(ctx, words, codes, rowBits); err != nil {
			return true, err
		}
		// codes is free again (radix64 may have returned it as words,
		// each read before it is written).
		return true, reorderRows(ctx, words, func(w uint64) uint64 { return w }, rows, codes, rowBits)
	}
	words := w128Pool.get(n)
	defer w128Pool.put(words)
	for lo := 0; lo < n; lo += cancelCheckRows {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		hi := min(lo+cancelCheckRows, n)
		w, c := words[lo:hi], codes[lo:hi]
		for i := range w {
			w[i] = word128{lo: uint64(lo + i)}
		}
		off := total
		for j := range fields {
			f := &fields[j]
			if f.flag {
				off--
				f.flags(rows[lo:hi], c)
				or128(w, c, off, 1)
			}
			off -= f.width
			f.codes(lo, hi, rows, c)
			or128(w, c, off, f.width)
		}
	}
	if n < packedMinRows {
		slices.SortFunc(words, func(a, b word128) int {
			if a.hi != b.hi {
				if a.hi < b.hi {
					return -1
				}
				return 1
			}
			if a.lo < b.lo {
				return -1
			}
			return 1
		})
	} else {
		buf := w128Pool.get(n)
		defer w128Pool.put(buf)
		if words, err = radix128(ctx, words, buf, rowBits); err != nil {
			return true, err
		}
	}
	return true, reorderRows(ctx, words, func(w word128) uint64 { return w.lo }, rows, codes, rowBits)
}

// reorderRows puts rows in the order of the sorted words, whose low
// rowBits bits (of low(w)) are each row's position, through scratch
// (len(rows) codes): rows is both read and written.
func reorderRows[W any](ctx context.Context, words []W, low func(W) uint64, rows []int, scratch []uint64, rowBits uint) error {
	n := len(rows)
	mask := uint64(1)<<rowBits - 1
	for lo := 0; lo < n; lo += cancelCheckRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := scratch[lo:min(lo+cancelCheckRows, n)]
		for i, w := range words[lo : lo+len(c)] {
			c[i] = uint64(rows[low(w)&mask])
		}
	}
	for i, c := range scratch[:n] {
		rows[i] = int(c)
	}
	return nil
}

// pool keeps a sort's buffers for the next: memory new to the process
// faults a page at a time, and a sort of 28K rows otherwise allocates a
// megabyte of it (the page faults were a third of the sort).
type pool[T any] struct{ p sync.Pool }

var (
	u64Pool  pool[uint64]
	u32Pool  pool[uint32]
	w128Pool pool[word128]
)

// get returns a slice of n elements, their values undefined.
func (p *pool[T]) get(n int) []T {
	if s, ok := p.p.Get().(*[]T); ok && cap(*s) >= n {
		return (*s)[:n]
	}
	return make([]T, n)
}

// put offers s to the next get; the caller must not touch it after.
func (p *pool[T]) put(s []T) {
	if cap(s) > 0 {
		p.p.Put(&s)
	}
}

// word128 is a packed row of more than 64 bits.
type word128 struct{ lo, hi uint64 }

// or128 ORs codes of width bits into words at bit off.
func or128(words []word128, codes []uint64, off, width uint) {
	switch {
	case width == 0:
	case off >= 64:
		for i, c := range codes {
			words[i].hi |= c << (off - 64)
		}
	case off+width <= 64:
		for i, c := range codes {
			words[i].lo |= c << off
		}
	default:
		for i, c := range codes {
			words[i].lo |= c << off
			words[i].hi |= c >> (64 - off)
		}
	}
}

// planWord plans an int-like key's code: the offset of its word from
// the least over rows. It reports false for a DECIMAL past 64 bits, or
// when ctx is done (the caller looks).
func (f *field) planWord(ctx context.Context, rows []int) bool {
	v := f.k.Vec
	word := f.wordOf()
	lo, hi, any := uint64(math.MaxUint64), uint64(0), false
	if v.Const {
		if !v.IsNull(0) {
			lo, hi, any = word(0), word(0), true
		}
		rows = nil
	}
	for start := 0; start < len(rows); start += cancelCheckRows {
		if ctx.Err() != nil {
			return false
		}
		chunk := rows[start:min(start+cancelCheckRows, len(rows))]
		if v.Type.Physical() == coldata.Decimal {
			for _, r := range chunk {
				if !v.IsNull(r) {
					if d := v.Dec(r); d.Hi != int64(d.Lo)>>63 {
						return false
					}
				}
			}
		}
		switch {
		case f.flag:
			for _, r := range chunk {
				if !v.IsNull(r) {
					w := word(r)
					lo, hi, any = min(lo, w), max(hi, w), true
				}
			}
		case v.Type.Physical() == coldata.Int64:
			ints := v.Ints
			for _, r := range chunk {
				w := uint64(ints[r]) ^ 1<<63
				lo, hi = min(lo, w), max(hi, w)
			}
			any = true
		default:
			for _, r := range chunk {
				w := word(r)
				lo, hi = min(lo, w), max(hi, w)
			}
			any = true
		}
	}
	if any {
		f.min, f.span = lo, hi-lo
		f.width = uint(bits.Len64(f.span))
	}
	return true
}

// wordOf returns the order-preserving unsigned word of a row's value
// for an int-like key.
func (f *field) wordOf() func(r int) uint64 {
	v := f.k.Vec
	switch v.Type.Physical() {
	case coldata.Bool:
		return func(r int) uint64 { return uint64(boolByte(v.Bool(r))) }
	case coldata.Int64:
		return func(r int) uint64 { return uint64(v.Int(r)) ^ 1<<63 }
	case coldata.Float64:
		return func(r int) uint64 { return sortableFloat(v.Float(r)) }
	case coldata.Decimal:
		return func(r int) uint64 { return v.Dec(r).Lo ^ 1<<63 }
	}
	panic("sortkey: no word for " + v.Type.String())
}

// planText ranks a text key's distinct values over rows, giving up (false)
// when they need more than budget bits (its flag's bit is counted
// already).
func (f *field) planText(ctx context.Context, rows []int, budget uint) bool {
	v := f.k.Vec
	if v.Const {
		return true // one value: no bits
	}
	limit := 1 << min(budget, 31)
	ids, reps, ok := distinctText(ctx, v, rows, f.flag, limit)
	if !ok {
		return false
	}
	d := len(reps)
	f.ids, f.ranks = ids, rankText(v, reps)
	if d > 0 {
		f.span = uint64(d - 1)
		f.width = uint(bits.Len64(f.span))
	}
	return true
}

// codes fills codes with the value codes of the positions [lo, hi) (of
// rows, and of the text ids), DESC inverted within the width (flags
// gives the NULL flags).
func (f *field) codes(lo, hi int, rows []int, codes []uint64) {
	v := f.k.Vec
	rows = rows[lo:hi]
	codes = codes[:len(rows)]
	switch {
	case f.width == 0:
		clear(codes)
	case f.text:
		for i, id := range f.ids[lo:hi] {
			codes[i] = uint64(f.ranks[id])
		}
	case !v.Const && !f.flag && v.Type.Physical() == coldata.Int64:
		ints, min := v.Ints, f.min
		for i, r := range rows {
			codes[i] = (uint64(ints[r]) ^ 1<<63) - min
		}
	default:
		word, min := f.wordOf(), f.min
		for i, r := range rows {
			if !f.flag || !v.IsNull(r) {
				codes[i] = word(r) - min
			}
		}
	}
	if f.k.Desc && f.width > 0 {
		for i := range codes {
			codes[i] = f.span - codes[i]
		}
	}
	if f.flag {
		// A NULL's value bits are zero: its flag alone orders it.
		for i, r := range rows {
			if v.IsNull(r) {
				codes[i] = 0
			}
		}
	}
}

// flags fills codes with each position's NULL flag, the bit above the
// value's: 0 for the rows placed first.
func (f *field) flags(rows []int, codes []uint64) {
	v := f.k.Vec
	null := uint64(1)
	if f.nullsFirst {
		null = 0
	}
	for i, r := range rows {
		if v.IsNull(r) {
			codes[i] = null
		} else {
			codes[i] = null ^ 1
		}
	}
}

// distinctText numbers the distinct non-NULL values of v at rows in order
// of first appearance: ids[i] is rows[i]'s (0 for a NULL), reps[id] a row
// holding it. It gives up (ok false) past limit values, when more than
// half of the first sampleRows rows are distinct (their ranks would sort
// the strings by comparison, as the normalized keys do with less memory
// and longer prefixes), or when ctx is done. A value is found
// by its fingerprint, compared inline: its length and four words that
// are all of a string of up to 32 bytes (overlapping loads: a string of
// 17 to 32 bytes is its first 16 and its last 16), a longer string's
// first and last 16 bytes, which then compares its bytes.
func distinctText(ctx context.Context, v *coldata.Vec, rows []int, nulls bool, limit int) (ids []uint32, reps []int32, ok bool) {
	ids = u32Pool.get(len(rows))
	size := 256
	slots := make([]uint32, size) // id+1; 0 empty
	mask := uint64(size - 1)
	var fps []fingerprint
	var hashes []uint64
	seed := maphash.MakeSeed()
	hseed := maphash.Bytes(seed, nil) ^ fpK1
	offs, data := v.Offsets, v.Bytes
	le := binary.LittleEndian
	for i, r := range rows {
		if i%cancelCheckRows == 0 && ctx.Err() != nil || i == sampleRows && 2*len(reps) > sampleRows {
			u32Pool.put(ids)
			return nil, nil, false
		}
		if nulls && v.IsNull(r) {
			ids[i] = 0
			continue
		}
		s := data[offs[r]:offs[r+1]]
		n := len(s)
		var w0, w1, w2, w3 uint64
		switch {
		case n == 0:
		case n < 4:
			w0 = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
		case n <= 8:
			w0 = uint64(le.Uint32(s))<<32 | uint64(le.Uint32(s[n-4:]))
		case n <= 16:
			w0, w1 = le.Uint64(s), le.Uint64(s[n-8:])
		default:
			w0, w1, w2, w3 = le.Uint64(s), le.Uint64(s[8:]), le.Uint64(s[n-16:]), le.Uint64(s[n-8:])
		}
		var h uint64
		switch {
		case n <= 16:
			h = mum(w0^hseed, w1^fpK2^uint64(n))
		case n <= fingerprintBytes:
			h = mum(mum(w0^hseed, w1^fpK2^uint64(n))^w2, w3^fpK1)
		default:
			h = maphash.Bytes(seed, s)
		}
		p := h & mask
		for {
			sl := slots[p]
			if sl == 0 {
				id := len(reps)
				if id >= limit {
					u32Pool.put(ids)
					return nil, nil, false
				}
				slots[p] = uint32(id + 1)
				reps, hashes = append(reps, int32(r)), append(hashes, h)
				fps = append(fps, fingerprint{n: n, w0: w0, w1: w1, w2: w2, w3: w3})
				ids[i] = uint32(id)
				if 2*len(reps) > size {
					size *= 4
					slots, mask = make([]uint32, size), uint64(size-1)
					for id, h := range hashes {
						q := h & mask
						for slots[q] != 0 {
							q = (q + 1) & mask
						}
						slots[q] = uint32(id + 1)
					}
				}
				break
			}
			id := sl - 1
			if fp := &fps[id]; fp.w0 == w0 && fp.w1 == w1 && fp.w2 == w2 && fp.w3 == w3 && fp.n == n {
				if n <= fingerprintBytes {
					ids[i] = id
					break
				}
				if q := reps[id]; bytes.Equal(data[offs[q]:offs[q+1]], s) {
					ids[i] = id
					break
				}
			}
			p = (p + 1) & mask
		}
	}
	return ids, reps, true
}

// sampleRows is how many rows distinctText reads before it judges the
// values' cardinality.
const sampleRows = 8192

// Multipliers of the fingerprints' hash (wyhash's).
const fpK1, fpK2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db

// mum folds the 128-bit product of a and b to 64 bits (wyhash's mixer).
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// fingerprintBytes is the longest string a fingerprint holds whole.
const fingerprintBytes = 32

// fingerprint is a distinct value's length and words (distinctText).
type fingerprint struct {
	w0, w1, w2, w3 uint64
	n              int
}

// rankText returns each distinct value's rank in bytewise order; reps[id]
// is a row holding value id.
func rankText(v *coldata.Vec, reps []int32) []uint32 {
	type entry struct {
		prefix uint64
		id     uint32
	}
	offs, data := v.Offsets, v.Bytes
	order := make([]entry, len(reps))
	for id, r := range reps {
		s := data[offs[r]:offs[r+1]]
		var p [8]byte
		copy(p[:], s)
		order[id] = entry{binary.BigEndian.Uint64(p[:]), uint32(id)}
	}
	slices.SortFunc(order, func(a, b entry) int {
		if a.prefix != b.prefix {
			if a.prefix < b.prefix {
				return -1
			}
			return 1
		}
		ra, rb := reps[a.id], reps[b.id]
		return bytes.Compare(data[offs[ra]:offs[ra+1]], data[offs[rb]:offs[rb+1]])
	})
	ranks := make([]uint32, len(reps))
	for rank, e := range order {
		ranks[e.id] = uint32(rank)
	}
	return ranks
}

// digitPlan splits the bits [lo, hi) into passes of at most
// radixDigitBits, as even as they go.
func digitPlan(lo, hi uint) (shifts []uint, width uint) {
	if hi <= lo {
		return nil, 0
	}
	span := hi - lo
	passes := (span + radixDigitBits - 1) / radixDigitBits
	width = (span + passes - 1) / passes
	for s := lo; s < hi; s += width {
		shifts = append(shifts, s)
	}
	return shifts, width
}

// varying returns the span of bits, at or above low, that differ between
// words whose AND is and and OR is or.
func varying(and, or uint64, low uint) (lo, hi uint) {
	vary := (and ^ or) &^ (uint64(1)<<low - 1)
	if vary == 0 {
		return 0, 0
	}
	return uint(bits.TrailingZeros64(vary)), uint(bits.Len64(vary))
}

// radix64 sorts words by their bits at and above low (the bits below are
// the positions, in order, so that the sort is stable): a
// least-significant-digit radix sort over the bits that vary, every
// pass's counts taken in one read. It returns the sorted slice, words or
// buf (of words' length).
func radix64(ctx context.Context, words, buf []uint64, low uint) ([]uint64, error) {
	and, or := uint64(math.MaxUint64), uint64(0)
	for _, w := range words {
		and &= w
		or |= w
	}
	shifts, width := digitPlan(varying(and, or, low))
	if len(shifts) == 0 {
		return words, nil
	}
	mask := uint64(1)<<width - 1
	counts := make([]int, len(shifts)<<width)
	for lo := 0; lo < len(words); lo += cancelCheckRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, w := range words[lo:min(lo+cancelCheckRows, len(words))] {
			for p, s := range shifts {
				counts[p<<width+int(w>>s&mask)]++
			}
		}
	}
	for p, s := range shifts {
		c := counts[p<<width : (p+1)<<width]
		sum := 0
		for d, k := range c {
			c[d] = sum
			sum += k
		}
		// A pass over millions of rows takes long enough to look at the
		// context inside it.
		for lo := 0; lo < len(words); lo += cancelCheckRows {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for _, w := range words[lo:min(lo+cancelCheckRows, len(words))] {
				d := w >> s & mask
				buf[c[d]] = w
				c[d]++
			}
		}
		words, buf = buf, words
	}
	return words, nil
}

// radix128 is radix64 for two-word rows: the low word's varying bits
// at and above low, then the high word's.
func radix128(ctx context.Context, words, buf []word128, low uint) ([]word128, error) {
	andLo, orLo, andHi, orHi := uint64(math.MaxUint64), uint64(0), uint64(math.MaxUint64), uint64(0)
	for _, w := range words {
		andLo &= w.lo
		orLo |= w.lo
		andHi &= w.hi
		orHi |= w.hi
	}
	for half := 0; half < 2; half++ {
		var shifts []uint
		var width uint
		if half == 0 {
			shifts, width = digitPlan(varying(andLo, orLo, low))
		} else {
			shifts, width = digitPlan(varying(andHi, orHi, 0))
		}
		mask := uint64(1)<<width - 1
		counts := make([]int, 1<<width)
		for _, s := range shifts {
			clear(counts)
			for lo := 0; lo < len(words); lo += cancelCheckRows {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				chunk := words[lo:min(lo+cancelCheckRows, len(words))]
				if half == 0 {
					for _, w := range chunk {
						counts[w.lo>>s&mask]++
					}
				} else {
					for _, w := range chunk {
						counts[w.hi>>s&mask]++
					}
				}
			}
			sum := 0
			for d, k := range counts {
				counts[d] = sum
				sum += k
			}
			for lo := 0; lo < len(words); lo += cancelCheckRows {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				chunk := words[lo:min(lo+cancelCheckRows, len(words))]
				if half == 0 {
					for _, w := range chunk {
						d := w.lo >> s & mask
						buf[counts[d]] = w
						counts[d]++
					}
				} else {
					for _, w := range chunk {
						d := w.hi >> s & mask
						buf[counts[d]] = w
						counts[d]++
					}
				}
			}
			words, buf = buf, words
		}
	}
	return words, nil
}
