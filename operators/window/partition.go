package window

import (
	"bytes"
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/operators/sortkey"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// partitioned is the input sorted for one window: partitions and, within
// each, peer groups (rows equal on every ORDER BY key). Positions are
// sorted positions; perm maps them to input rows.
type partitioned struct {
	n    int
	perm []int // sorted position -> input row (nil: identity)
	inv  []int // input row -> sorted position (nil: identity)
	// partStart/partEnd bound each row's partition, peerStart/peerEnd its
	// peer group ([start, end) in sorted positions).
	partStart, partEnd []int
	peerStart, peerEnd []int
	// orderIn holds the ORDER BY keys' values in input order; orderAt
	// gathers one into sorted order when a RANGE frame needs it.
	orderIn   []*coldata.Vec
	order     []*coldata.Vec
	orderKeys []winspec.Key
}

// orderAt is ORDER BY key i's values in sorted order.
func (p *partitioned) orderAt(i int) *coldata.Vec {
	if p.order[i] == nil {
		p.order[i] = p.gather(p.orderIn[i])
	}
	return p.order[i]
}

// newPartitioned sorts b's rows by the partition keys, then the order keys
// (stable, so ties keep input order).
func newPartitioned(ctx context.Context, b *coldata.Batch, partition []expr.Expr, order []winspec.Key) (*partitioned, error) {
	n := b.Len
	p := &partitioned{n: n, orderKeys: order}
	var pv, ov []*coldata.Vec
	for _, e := range partition {
		v, err := expr.Eval(e, b)
		if err != nil {
			return nil, err
		}
		pv = append(pv, v)
	}
	if !wordTypes(pv) {
		// Text or DECIMAL partition keys sort as their partition's number
		// (GROUP BY's hash table): only which rows share a partition
		// matters, not the partitions' order, since results go back to
		// input order. A sort by long text keys compared every pair of a
		// partition's rows past their 16-byte prefixes (random seed
		// 1217's r034, PARTITION BY p_type: a quarter of the query).
		ids, _, err := operators.GroupRows(ctx, pv, n)
		if err != nil {
			return nil, err
		}
		idv := coldata.NewVec(coldata.Int64, n)
		for i, g := range ids {
			idv.Ints[i] = int64(g)
		}
		pv = []*coldata.Vec{idv}
	}
	for _, k := range order {
		v, err := expr.Eval(k.Expr, b)
		if err != nil {
			return nil, err
		}
		ov = append(ov, v)
	}
	var packed *packedOrder
	if len(pv)+len(ov) > 0 {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		keys := sortKeys(pv, ov, order)
		var cancelled error
		if allWords(keys) {
			packed, cancelled = packedSortRows(ctx, perm, keys, len(pv))
		}
		if packed == nil && cancelled == nil {
			cancelled = sortRows(ctx, perm, keys, len(pv))
		}
		if cancelled != nil {
			return nil, cancelled
		}
		sorted := true
		for i, r := range perm {
			if r != i {
				sorted = false
				break
			}
		}
		if !sorted {
			p.perm = perm
			p.inv = make([]int, n)
			for pos, r := range perm {
				p.inv[r] = pos
			}
		}
	}
	p.orderIn, p.order = ov, make([]*coldata.Vec, len(ov))
	// Whole-vector boundary marks: newPart[i] when row i starts a
	// partition, newPeer[i] when it starts a peer group.
	newPart := make([]bool, n)
	newPart[0] = true
	var newPeer []bool
	if packed != nil {
		// The packed words hold every key: the partition keys in the
		// bits above the order keys'.
		newPeer = make([]bool, n)
		newPeer[0] = true
		words, shift := packed.words, packed.orderBits
		for i := 1; i < n; i++ {
			newPart[i] = shift < 64 && words[i]>>shift != words[i-1]>>shift
			newPeer[i] = words[i] != words[i-1]
		}
	} else {
		for _, v := range pv {
			p.markSorted(v, newPart)
		}
		newPeer = slices.Clone(newPart)
		for i, v := range ov {
			if p.order[i] != nil {
				markDiffs(p.order[i], newPeer)
			} else {
				p.markSorted(v, newPeer)
			}
		}
	}
	p.partStart, p.partEnd = spans(newPart)
	if len(ov) == 0 {
		// No ORDER BY: a partition's rows are all peers (read only).
		p.peerStart, p.peerEnd = p.partStart, p.partEnd
	} else {
		p.peerStart, p.peerEnd = spans(newPeer)
	}
	return p, nil
}

// markSorted marks in diff the sorted positions where v (in input order)
// differs from the row before: text, integers and DECIMALs are compared
// through perm, not gathered into sorted order first (copying 1.6M
// strings took half of a window's ordering, random suite r002); a RANGE
// frame that needs the sorted values gathers them then (orderAt).
func (p *partitioned) markSorted(v *coldata.Vec, diff []bool) {
	var differ func(a, b int) bool
	switch v.Type.Physical() {
	case coldata.String:
		differ = func(a, b int) bool { return !bytes.Equal(v.Str(a), v.Str(b)) }
	case coldata.Int64:
		differ = func(a, b int) bool { return v.Ints[a] != v.Ints[b] }
	case coldata.Decimal:
		differ = func(a, b int) bool { return v.Decs[a] != v.Decs[b] }
	}
	if p.perm == nil || differ == nil || v.Const {
		markDiffs(p.gather(v), diff)
		return
	}
	perm := p.perm
	mark := func(lo, hi int) {
		for i := max(lo, 1); i < hi; i++ {
			if diff[i] {
				continue
			}
			a, b := perm[i], perm[i-1]
			if v.Nulls != nil {
				an, bn := v.IsNull(a), v.IsNull(b)
				if an != bn {
					diff[i] = true
				}
				if an || bn {
					continue
				}
			}
			diff[i] = differ(a, b)
		}
	}
	// Each mark reads two rows at random (the permutation's): ranges on
	// every core.
	parts := min(runtime.GOMAXPROCS(0), len(perm)/markRangeRows)
	if parts <= 1 {
		mark(0, len(perm))
		return
	}
	var wg sync.WaitGroup
	for c := 0; c < parts; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mark(c*len(perm)/parts, (c+1)*len(perm)/parts)
		}()
	}
	wg.Wait()
}

// markRangeRows is the fewest rows a goroutine of markSorted takes.
const markRangeRows = 1 << 16

// gather returns v's rows in sorted order (never a constant vector).
func (p *partitioned) gather(v *coldata.Vec) *coldata.Vec {
	if p.perm == nil {
		return v.Materialize()
	}
	return coldata.Gather(v, p.perm)
}

// scatter returns v (in sorted order) in input row order.
func (p *partitioned) scatter(v *coldata.Vec) *coldata.Vec {
	if p.inv == nil {
		return v
	}
	return coldata.Gather(v, p.inv)
}

// sortKeys are the keys that order input rows: partition keys (ascending)
// then order keys, NULLs as SQL orders them (MySQL's default: first
// ascending, last descending; or as NULLS FIRST/LAST says).
func sortKeys(pv, ov []*coldata.Vec, order []winspec.Key) []sortKey {
	keys := make([]sortKey, 0, len(pv)+len(ov))
	for _, v := range pv {
		keys = append(keys, newSortKey(v, false, true))
	}
	for k, v := range ov {
		desc := order[k].Desc
		nullsFirst := !desc
		if n := order[k].Nulls; n != opspec.NullsDefault {
			nullsFirst = n == opspec.NullsFirst
		}
		keys = append(keys, newSortKey(v, desc, nullsFirst))
	}
	return keys
}

// wordTypes reports whether every vector's values have a word encoding
// (newSortKey).
func wordTypes(vs []*coldata.Vec) bool {
	for _, v := range vs {
		switch v.Type.Physical() {
		case coldata.Int64, coldata.Float64, coldata.Bool:
		default:
			return false
		}
	}
	return true
}

func allWords(keys []sortKey) bool {
	for _, k := range keys {
		if k.words == nil {
			return false
		}
	}
	return true
}

// sortRows sorts perm (input rows) stably by keys, the first np of them
// the partition keys. Word keys sort by radix: the partition keys over all
// rows, then each partition by its order keys on its own, a segment that
// stays in cache where passes over every row for a random 64-bit key
// miss it at each scatter. Other keys sort by comparison, the input row
// breaking ties.
func sortRows(ctx context.Context, perm []int, keys []sortKey, np int) error {
	if !allWords(keys) {
		// Text keys: normalized keys, one memcmp a comparison (a
		// ROW_NUMBER over 1.6M joined rows ordered by a DECIMAL, a
		// BIGINT and a string took 5 s through the comparator).
		nk := make([]sortkey.Key, len(keys))
		for i, k := range keys {
			nulls := opspec.NullsLast
			if k.nullsFirst {
				nulls = opspec.NullsFirst
			}
			nk[i] = sortkey.Key{Vec: k.v, Desc: k.desc, Nulls: nulls}
		}
		if ok, err := sortkey.Sort(ctx, nk, perm); ok || err != nil {
			return err
		}
		return compareSortRows(ctx, perm, keys)
	}
	if np == 0 || np == len(keys) {
		return radixSortRows(ctx, perm, keys)
	}
	if err := radixSortRows(ctx, perm, keys[:np]); err != nil {
		return err
	}
	same := func(a, b int) bool {
		for k := range keys[:np] {
			key := &keys[k]
			if key.words[a] != key.words[b] || key.nulls && key.v.IsNull(a) != key.v.IsNull(b) {
				return false
			}
		}
		return true
	}
	for start := 0; start < len(perm); {
		end := start + 1
		for end < len(perm) && same(perm[start], perm[end]) {
			end++
		}
		if end-start > 1 {
			seg := perm[start:end]
			var err error
			if len(seg) >= segmentRadixRows {
				err = radixSortRows(ctx, seg, keys[np:])
			} else {
				err = compareSortRows(ctx, seg, keys[np:])
			}
			if err != nil {
				return err
			}
		}
		start = end
	}
	return nil
}

// packedSortRows sorts perm stably by keys (all words) when every key's
// range of values, plus a bit for its NULL rank, fits one 64-bit word
// together: each row's keys packed, most significant first, beside its
// row number, then a radix sort over the packed words' varying bytes,
// reading and writing the pairs in order. A window over a GROUP BY's
// output (a day, a count, a counter: 34 bits) sorts this way in a few
// sequential passes, where a pass per key byte reading words[row] at
// random cost 10x. It returns nil when the keys do not fit; np of them are
// partition keys.
func packedSortRows(ctx context.Context, perm []int, keys []sortKey, np int) (*packedOrder, error) {
	n := len(perm)
	if n < 2 || n > math.MaxUint32 {
		return nil, nil
	}
	type field struct {
		min   uint64
		width uint // bits of the value
		nulls bool
	}
	fields := make([]field, len(keys))
	total := uint(0)
	for k := range keys {
		key := &keys[k]
		lo, hi, any := uint64(math.MaxUint64), uint64(0), false
		for _, r := range perm {
			if key.nulls && key.v.IsNull(r) {
				continue
			}
			w := key.words[r]
			lo, hi, any = min(lo, w), max(hi, w), true
		}
		f := field{nulls: key.nulls}
		if any {
			f.min, f.width = lo, uint(bits.Len64(hi-lo))
		}
		total += f.width
		if f.nulls {
			total++
		}
		if total > 64 {
			return nil, nil
		}
		fields[k] = f
	}
	orderBits := uint(0)
	for _, f := range fields[np:] {
		orderBits += f.width
		if f.nulls {
			orderBits++
		}
	}
	type pair struct {
		key uint64
		row uint32
	}
	a, b := make([]pair, n), make([]pair, n)
	and, or := uint64(math.MaxUint64), uint64(0)
	for i, r := range perm {
		var packed uint64
		for k := range keys {
			key, f := &keys[k], &fields[k]
			var v uint64
			null := f.nulls && key.v.IsNull(r)
			if !null {
				v = key.words[r] - f.min
			}
			if f.nulls {
				rank := uint64(0)
				if null != key.nullsFirst {
					rank = 1
				}
				packed = packed<<1 | rank
			}
			packed = packed<<f.width | v
		}
		a[i] = pair{packed, uint32(r)}
		and &= packed
		or |= packed
	}
	// Digits of up to 11 bits over the bits that vary: 34 varying bits
	// take 4 passes instead of 5 bytes' worth.
	vary := and ^ or
	lo, hi := uint(bits.TrailingZeros64(vary)), uint(bits.Len64(vary))
	counts := make([]int, 1<<packedDigitBits)
	for shift := lo; shift < hi; shift += packedDigitBits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		mask := uint64(1)<<min(packedDigitBits, hi-shift) - 1
		clear(counts)
		for i := range a {
			counts[a[i].key>>shift&mask]++
		}
		sum := 0
		for d, c := range counts {
			counts[d] = sum
			sum += c
		}
		for i := range a {
			d := a[i].key >> shift & mask
			b[counts[d]] = a[i]
			counts[d]++
		}
		a, b = b, a
	}
	out := &packedOrder{words: make([]uint64, n), orderBits: orderBits}
	for i := range a {
		perm[i] = int(a[i].row)
		out.words[i] = a[i].key
	}
	return out, nil
}

// packedDigitBits is the radix of packedSortRows' passes: 2048 buckets,
// whose counts and write positions stay in the first-level cache.
const packedDigitBits = 11

// packedOrder is packedSortRows' result: each sorted row's packed keys,
// the order keys in the low orderBits bits.
type packedOrder struct {
	words     []uint64
	orderBits uint
}

// segmentRadixRows is the partition size from which its order keys sort by
// radix rather than by comparison.
const segmentRadixRows = 256

// compareSortRows sorts perm stably by keys with comparisons: an unstable
// sort with the input row as the last key is stable, and pdqsort's n log
// n comparisons beat a stable merge's n log² n.
func compareSortRows(ctx context.Context, perm []int, keys []sortKey) error {
	calls := 0
	var cancelled error
	slices.SortFunc(perm, func(x, y int) int {
		if calls++; calls&(1<<16-1) == 0 && cancelled == nil {
			cancelled = ctx.Err()
		}
		if cancelled != nil {
			return 0 // finish quickly; the error is returned below
		}
		for k := range keys {
			if c := keys[k].compare(x, y); c != 0 {
				return c
			}
		}
		return x - y
	})
	return cancelled
}

// radixSortRows sorts perm (input rows) stably by keys, all of them words:
// a least-significant-digit radix sort, the last key first, a byte at a
// time, skipping the bytes every row shares (a date key over a month
// varies in one). A key with NULLs adds a pass on its NULL rank after its
// words: the rank is the more significant.
func radixSortRows(ctx context.Context, perm []int, keys []sortKey) error {
	n := len(perm)
	// Each key's words travel with their rows, so that a pass reads its
	// input in order (a pass over perm read words[row] at random: 2 µs a
	// row over 612K rows); the histograms of every byte come from one read.
	cur, next := make([]wordRow, n), make([]wordRow, n)
	for k := len(keys) - 1; k >= 0; k-- {
		key := &keys[k]
		and, or := uint64(math.MaxUint64), uint64(0)
		for i, r := range perm {
			w := key.words[r]
			cur[i] = wordRow{w: w, row: r}
			and &= w
			or |= w
		}
		var shifts []uint
		for shift := uint(0); shift < 64; shift += 8 {
			if (and^or)>>shift&0xff != 0 {
				shifts = append(shifts, shift)
			}
		}
		hist := make([][256]int, len(shifts))
		for _, p := range cur {
			for s, shift := range shifts {
				hist[s][uint8(p.w>>shift)]++
			}
		}
		for s, shift := range shifts {
			if err := ctx.Err(); err != nil {
				return err
			}
			counts := &hist[s]
			sum := 0
			for d, c := range counts {
				counts[d] = sum
				sum += c
			}
			for _, p := range cur {
				d := uint8(p.w >> shift)
				next[counts[d]] = p
				counts[d]++
			}
			cur, next = next, cur
		}
		if key.nulls {
			// The NULL rank is more significant than the words: a stable
			// two-way partition after them.
			v, first := key.v, key.nullsFirst
			lowRank := func(row int) bool { return v.IsNull(row) == first }
			low := 0
			for _, p := range cur {
				if lowRank(p.row) {
					low++
				}
			}
			a, b := 0, low
			for _, p := range cur {
				if lowRank(p.row) {
					next[a] = p
					a++
				} else {
					next[b] = p
					b++
				}
			}
			cur, next = next, cur
		}
		for i, p := range cur {
			perm[i] = p.row
		}
	}
	return nil
}

// wordRow is a row and its word of the key being sorted.
type wordRow struct {
	w   uint64
	row int
}

// sortKey is one key of the window's sort, read without a type switch per
// comparison: BIGINT-like, DOUBLE and BOOL keys as order-preserving words
// (descending ones inverted), other types through CompareValues.
type sortKey struct {
	words      []uint64 // nil: compare v's values
	v          *coldata.Vec
	nulls      bool // v has NULLs
	desc       bool
	nullsFirst bool
}

func newSortKey(v *coldata.Vec, desc, nullsFirst bool) sortKey {
	k := sortKey{v: v, nulls: v.Nulls != nil, desc: desc, nullsFirst: nullsFirst}
	var word func(i int) uint64
	switch v.Type.Physical() {
	case coldata.Int64:
		word = func(i int) uint64 { return uint64(v.Int(i)) ^ 1<<63 }
	case coldata.Float64:
		word = func(i int) uint64 {
			f := v.Float(i)
			if f == 0 {
				f = 0 // -0 equals 0
			}
			b := math.Float64bits(f)
			if b&(1<<63) != 0 {
				return ^b
			}
			return b | 1<<63
		}
	case coldata.Bool:
		word = func(i int) uint64 { return uint64(v.Bools[k.row(i)]) }
	default:
		return k
	}
	k.words = make([]uint64, v.Len)
	var mask uint64
	if desc {
		mask = math.MaxUint64
	}
	for i := range k.words {
		if !k.nulls || !v.IsNull(i) {
			k.words[i] = word(i) ^ mask
		}
	}
	return k
}

func (k *sortKey) row(i int) int {
	if k.v.Const {
		return 0
	}
	return i
}

func (k *sortKey) compare(i, j int) int {
	if k.nulls {
		an, bn := k.v.IsNull(i), k.v.IsNull(j)
		if an || bn {
			switch {
			case an == bn:
				return 0
			case an == k.nullsFirst:
				return -1
			}
			return 1
		}
	}
	if k.words != nil {
		a, b := k.words[i], k.words[j]
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	c := opspec.CompareValues(k.v, i, k.v, j)
	if k.desc {
		return -c
	}
	return c
}

// markDiffs sets diff[i] where row i of v differs from row i-1 (NULLs
// equal to each other); v is not constant.
func markDiffs(v *coldata.Vec, diff []bool) {
	n := v.Len
	if v.Nulls != nil {
		for i := 1; i < n; i++ {
			if v.IsNull(i) != v.IsNull(i-1) {
				diff[i] = true
			}
		}
	}
	valid := func(i int) bool { return v.Nulls == nil || !v.IsNull(i) && !v.IsNull(i-1) }
	switch v.Type.Physical() {
	case coldata.Int64:
		xs := v.Ints[:n]
		for i := 1; i < n; i++ {
			if xs[i] != xs[i-1] && valid(i) {
				diff[i] = true
			}
		}
	case coldata.Float64:
		// NaNs of one bit pattern are peers (they sort together, and
		// GROUP BY groups them); -0 and 0 are too.
		xs := v.Floats[:n]
		for i := 1; i < n; i++ {
			if xs[i] != xs[i-1] && math.Float64bits(xs[i]) != math.Float64bits(xs[i-1]) && valid(i) {
				diff[i] = true
			}
		}
	case coldata.Bool:
		xs := v.Bools[:n]
		for i := 1; i < n; i++ {
			if xs[i] != xs[i-1] && valid(i) {
				diff[i] = true
			}
		}
	case coldata.String:
		for i := 1; i < n; i++ {
			if valid(i) && !bytes.Equal(v.Str(i), v.Str(i-1)) {
				diff[i] = true
			}
		}
	case coldata.Null:
	default:
		for i := 1; i < n; i++ {
			if valid(i) && opspec.CompareValues(v, i, v, i-1) != 0 {
				diff[i] = true
			}
		}
	}
}

// spans turns start marks into each row's [start, end).
func spans(starts []bool) (start, end []int) {
	n := len(starts)
	start, end = make([]int, n), make([]int, n)
	s := 0
	for i := 0; i < n; i++ {
		if starts[i] {
			s = i
		}
		start[i] = s
	}
	e := n
	for i := n - 1; i >= 0; i-- {
		end[i] = e
		if starts[i] {
			e = i
		}
	}
	return start, end
}
