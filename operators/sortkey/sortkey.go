// Package sortkey sorts rows by normalized keys: every row's ORDER BY
// keys encoded once into one byte string whose bytewise order is the
// rows' order (DuckDB sorts so too), so that a comparison is one memcmp
// instead of a walk over the keys with a type switch per key. The host
// sorts of ORDER BY (operators.Sort, the device sort's host fallback) and
// of window partitions (operators/window) share it; sorting 28K rows of
// four keys (TPC-H Q16's output) took 34 ms through a row comparator.
// Keys whose values code into 128 bits together, text keys as the ranks
// of their distinct values, skip the byte strings: each row is one or two
// words, radix sorted (packed.go; Q16's rows in 1 ms, not 10).
//
// Each key is a flag byte (NULL or not, where the column has a NULL)
// then, for a value, its encoding: BIGINT as its big-endian offset from
// the column's minimum in the bytes its range needs; DOUBLE the IEEE bits
// made order-preserving (-0 as 0, every NaN one value above +Inf, as
// ORDER BY orders them); DECIMAL the high word as BIGINT then the low
// word (or, when every value fits 64 bits, as BIGINT); strings, past the bytes every value of the column starts with,
// with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, so that no
// encoding is a prefix of another. DESC inverts the key's bytes; an
// explicit NULLS FIRST/LAST places the flag outside that inversion.
package sortkey

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// Key is one sort key: a column, its direction and where its NULLs go
// (NullsDefault: before every value, after them with Desc).
type Key struct {
	Vec   *coldata.Vec
	Desc  bool
	Nulls opspec.NullOrder
}

// Sortable reports whether keys of type t have an encoding.
func Sortable(t coldata.Type) bool {
	switch t.Physical() {
	case coldata.Bool, coldata.Int64, coldata.Float64, coldata.String, coldata.Decimal:
		return true
	}
	return false
}

// sortEntry is one row to sort: the first sixteen bytes of its key (most
// comparisons end there) and its position in the rows sorted.
type sortEntry struct {
	prefix, prefix2 uint64
	row             int32
}

// prefixBytes is how much of a key the entries hold: a partition key
// of a window takes the first eight bytes alone (every row of a partition
// ties there).
const prefixBytes = 16

// Sort orders rows (row numbers of the keys' columns) by keys, stably:
// rows that tie keep their order in rows. It reports ok=false, rows
// untouched, when a key's type has no encoding. Keys that pack into 128
// bits sort as packed words (sortPacked), others by their normalized
// byte strings.
func Sort(ctx context.Context, keys []Key, rows []int) (ok bool, err error) {
	n := len(rows)
	if int64(n) > math.MaxInt32 {
		return false, nil
	}
	for _, k := range keys {
		if !Sortable(k.Vec.Type) {
			return false, nil
		}
	}
	if done, err := sortPacked(ctx, keys, rows); done || err != nil {
		return true, err
	}
	return true, sortEncoded(ctx, keys, rows)
}

// sortEncoded sorts rows by keys, stably, by their normalized keys: the
// entries' 16-byte prefixes, then the rest of the keys' bytes.
func sortEncoded(ctx context.Context, keys []Key, rows []int) error {
	n := len(rows)
	arena, offs, err := encode(ctx, keys, rows)
	if err != nil {
		return err
	}
	entries := make([]sortEntry, n)
	for i := range entries {
		if i%cancelCheckRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key := arena[offs[i]:offs[i+1]]
		var p [prefixBytes]byte
		copy(p[:], key)
		entries[i] = sortEntry{prefix: binary.BigEndian.Uint64(p[:8]), prefix2: binary.BigEndian.Uint64(p[8:]), row: int32(i)}
	}
	compare := func(a, b sortEntry) int {
		if a.prefix != b.prefix {
			if a.prefix < b.prefix {
				return -1
			}
			return 1
		}
		if a.prefix2 != b.prefix2 {
			if a.prefix2 < b.prefix2 {
				return -1
			}
			return 1
		}
		ka, kb := arena[offs[a.row]:offs[a.row+1]], arena[offs[b.row]:offs[b.row+1]]
		if len(ka) > prefixBytes || len(kb) > prefixBytes {
			if c := bytes.Compare(ka[min(prefixBytes, len(ka)):], kb[min(prefixBytes, len(kb)):]); c != 0 {
				return c
			}
		}
		return int(a.row - b.row)
	}
	if err := sortParallel(ctx, entries, compare); err != nil {
		return err
	}
	sorted := make([]int, n)
	for i, e := range entries {
		sorted[i] = rows[e.row]
	}
	copy(rows, sorted)
	return nil
}

// parallelSortRows is the fewest rows sorted in parallel runs: below it
// the goroutines cost more than they save.
const parallelSortRows = 1 << 14

// sortParallel sorts entries by compare (a total order: ties are
// broken by row): runs sorted on every core, then merged pairwise, each
// round's merges in parallel.
func sortParallel(ctx context.Context, entries []sortEntry, compare func(a, b sortEntry) int) error {
	runs := 1
	for runs < runtime.GOMAXPROCS(0) && len(entries)/(2*runs) >= parallelSortRows/2 {
		runs *= 2
	}
	bounds := make([]int, runs+1)
	for r := range bounds {
		bounds[r] = r * len(entries) / runs
	}
	errs := make([]error, runs)
	parallelDo(runs, func(r int) {
		errs[r] = sortCancellable(ctx, entries[bounds[r]:bounds[r+1]], compare)
	})
	if err := errors.Join(errs...); err != nil || runs == 1 {
		return err
	}
	src, dst := entries, make([]sortEntry, len(entries))
	for width := 1; width < runs; width *= 2 {
		if err := ctx.Err(); err != nil {
			return err
		}
		pairs := runs / (2 * width)
		parallelDo(pairs, func(m int) {
			lo, mid, hi := bounds[2*m*width], bounds[(2*m+1)*width], bounds[(2*m+2)*width]
			mergeEntries(dst[lo:hi], src[lo:mid], src[mid:hi], compare)
		})
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
	return nil
}

// mergeEntries merges the sorted a and b into dst.
func mergeEntries(dst, a, b []sortEntry, compare func(a, b sortEntry) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if compare(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// sortCancellable sorts entries by compare, stopping with the
// context's error when it is cancelled.
func sortCancellable(ctx context.Context, entries []sortEntry, compare func(a, b sortEntry) int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			sc, ok := r.(cancelled)
			if !ok {
				panic(r)
			}
			err = sc.err
		}
	}()
	calls := 0
	slices.SortFunc(entries, func(a, b sortEntry) int {
		calls++
		if calls&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				panic(cancelled{err})
			}
		}
		return compare(a, b)
	})
	return ctx.Err()
}

// keyPlan is how one sort key is encoded over a batch: whether rows carry
// the NULL flag (only when the column has a NULL: a flag every row shares
// orders nothing), and for BIGINT the value's offset from the column's
// minimum in as few bytes as its range needs (a count of 13 values is
// one byte, so the eight-byte prefix reaches the next key).
type keyPlan struct {
	k      Key
	flag   bool
	min    int64
	nbytes int  // BIGINT: bytes of x - min
	narrow bool // a DECIMAL whose values all fit 64 bits: as BIGINT
	skip   int  // text: the bytes every value starts with, left out
}

// int64At is row i of a BIGINT key, or of a DECIMAL one that fits 64 bits.
func (p *keyPlan) int64At(i int) int64 {
	if p.narrow {
		return int64(p.k.Vec.Dec(i).Lo)
	}
	return p.k.Vec.Int(i)
}

// appendNarrow appends x - min, big-endian, in nbytes bytes.
func (p *keyPlan) appendNarrow(dst []byte, x int64) []byte {
	off := uint64(x) - uint64(p.min)
	for s := 8 * (p.nbytes - 1); s >= 0; s -= 8 {
		dst = append(dst, byte(off>>s))
	}
	return dst
}

// commonPrefix is the length of the bytes every non-NULL value of text
// column v over rows starts with ('Brand#' of TPC-H's brands): left out of the
// keys, so that their first eight bytes tell rows apart.
func commonPrefix(v *coldata.Vec, rows []int) int {
	var first []byte
	common := -1
	for _, i := range rows {
		if common == 0 {
			break
		}
		if v.IsNull(i) {
			continue
		}
		s := v.Str(i)
		if common < 0 {
			first, common = s, len(s)
			continue
		}
		m := min(common, len(s))
		j := 0
		for j < m && s[j] == first[j] {
			j++
		}
		common = j
	}
	return max(common, 0)
}

// planKeys plans each key's encoding over rows; width is a row's
// expected bytes.
func planKeys(ctx context.Context, keys []Key, rows []int) (plans []keyPlan, width int, err error) {
	plans = make([]keyPlan, len(keys))
	for j, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		v := k.Vec
		p := keyPlan{k: k, flag: anyNull(v, rows)}
		if p.flag {
			width++
		}
		switch v.Type.Physical() {
		case coldata.Bool:
			width++
		case coldata.Float64:
			width += 8
		case coldata.Decimal:
			// DECIMALs that all fit 64 bits (sums and prices do) encode
			// as BIGINTs narrowed to their range.
			p.narrow = true
			for _, i := range rows {
				if !v.IsNull(i) {
					if d := v.Dec(i); d.Hi != int64(d.Lo)>>63 {
						p.narrow = false
						break
					}
				}
			}
			if !p.narrow {
				width += 16
				break
			}
			fallthrough
		case coldata.Int64:
			lo, hi, any := int64(math.MaxInt64), int64(math.MinInt64), false
			for _, i := range rows {
				if !v.IsNull(i) {
					x := p.int64At(i)
					lo, hi, any = min(lo, x), max(hi, x), true
				}
			}
			if any {
				p.min = lo
				for span := uint64(hi) - uint64(lo); span > 0; span >>= 8 {
					p.nbytes++
				}
			}
			width += p.nbytes
		case coldata.String:
			p.skip = commonPrefix(v, rows)
			width += 2 // the terminator
			if v.Const {
				width += len(v.Str(0)) - p.skip
			} else if v.Len > 0 {
				width += max(len(v.Bytes)/v.Len-p.skip, 0) // the mean; escapes are rare
			}
		}
		plans[j] = p
	}
	return plans, width, nil
}

// encodeSortKeys encodes every row's keys: row i's key is
// arena[offs[i]:offs[i+1]].
// A cancelled query must stop within 100 ms (TestCancelStopsLongQueriesQuickly):
// the passes over the rows look at the context every cancelCheckRows rows.
const cancelCheckRows = 1 << 16

func encode(ctx context.Context, keys []Key, rows []int) ([]byte, []int, error) {
	plans, width, err := planKeys(ctx, keys, rows)
	if err != nil {
		return nil, nil, err
	}
	// Rows are encoded in ranges on every core (the encoding was a
	// third of a 1.6M-row window ordering, serial), each into its own
	// arena, then joined.
	n := len(rows)
	parts := 1
	for parts < runtime.GOMAXPROCS(0) && n/(2*parts) >= parallelSortRows {
		parts *= 2
	}
	offs := make([]int, n+1)
	arenas := make([][]byte, parts)
	errs := make([]error, parts)
	parallelDo(parts, func(c int) {
		lo, hi := c*n/parts, (c+1)*n/parts
		a := make([]byte, 0, width*(hi-lo))
		for i := lo; i < hi; i++ {
			if (i-lo)%cancelCheckRows == 0 {
				if err := ctx.Err(); err != nil {
					errs[c] = err
					return
				}
			}
			for j := range plans {
				a = plans[j].appendKey(a, rows[i])
			}
			offs[i+1] = len(a) // local to the range until joined
		}
		arenas[c] = a
	})
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	if parts == 1 {
		return arenas[0], offs, nil
	}
	total := 0
	for _, a := range arenas {
		total += len(a)
	}
	arena := make([]byte, total)
	base := 0
	for c, a := range arenas {
		copy(arena[base:], a)
		for i := c*n/parts + 1; i <= (c+1)*n/parts; i++ {
			offs[i] += base
		}
		base += len(a)
	}
	return arena, offs, nil
}

// Flag bytes: a NULL sorts before every value unless NULLS LAST says
// otherwise (CompareValues' order, inverted by DESC with the value).
const (
	sortNullLow  = 0x00
	sortValue    = 0x01
	sortNullHigh = 0x02
)

// appendKey appends row i's encoding of the key.
func (p *keyPlan) appendKey(dst []byte, i int) []byte {
	v, k := p.k.Vec, p.k
	null := p.flag && v.IsNull(i)
	explicit := k.Nulls != opspec.NullsDefault
	if p.flag && explicit {
		switch {
		case !null:
			dst = append(dst, sortValue)
		case k.Nulls == opspec.NullsFirst:
			dst = append(dst, sortNullLow)
		default:
			dst = append(dst, sortNullHigh)
		}
		if null {
			return dst
		}
	}
	start := len(dst)
	if p.flag && !explicit {
		if null {
			dst = append(dst, sortNullLow)
		} else {
			dst = append(dst, sortValue)
		}
	}
	if !null {
		switch v.Type.Physical() {
		case coldata.Bool:
			dst = append(dst, boolByte(v.Bool(i)))
		case coldata.Int64:
			dst = p.appendNarrow(dst, v.Int(i))
		case coldata.Float64:
			dst = binary.BigEndian.AppendUint64(dst, sortableFloat(v.Float(i)))
		case coldata.Decimal:
			d := v.Dec(i)
			if p.narrow {
				dst = p.appendNarrow(dst, int64(d.Lo))
				break
			}
			dst = binary.BigEndian.AppendUint64(dst, uint64(d.Hi)^(1<<63))
			dst = binary.BigEndian.AppendUint64(dst, d.Lo)
		case coldata.String:
			for _, c := range v.Str(i)[p.skip:] {
				if c == 0 {
					dst = append(dst, 0, 0xff)
				} else {
					dst = append(dst, c)
				}
			}
			dst = append(dst, 0, 0)
		}
	}
	if k.Desc {
		for j := start; j < len(dst); j++ {
			dst[j] = ^dst[j]
		}
	}
	return dst
}

// sortableFloat maps f to bits whose unsigned order is orderCompare's:
// -0 equals 0 and every NaN is one value above +Inf.
func sortableFloat(f float64) uint64 {
	switch {
	case f != f:
		return math.MaxUint64
	case f == 0:
		f = 0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		return ^u
	}
	return u | 1<<63
}

// anyNull reports whether v is NULL at one of rows.
func anyNull(v *coldata.Vec, rows []int) bool {
	if !v.HasNulls() {
		return false
	}
	for _, i := range rows {
		if v.IsNull(i) {
			return true
		}
	}
	return false
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// cancelled carries a context's error out of a comparison, through the
// sort, to sortCancellable.
type cancelled struct{ err error }

// parallelDo runs fn(0..tasks-1) on a goroutine each and waits; a panic
// in one (never a cancelled: sortCancellable recovers those) is raised
// again here.
func parallelDo(tasks int, fn func(i int)) {
	if tasks <= 1 {
		for i := 0; i < tasks; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	for i := 0; i < tasks; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if panicked == nil {
						panicked = fmt.Sprintf("%v (in a sort worker)", r)
					}
					mu.Unlock()
				}
			}()
			fn(i)
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
