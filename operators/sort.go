package operators

import (
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/opspec"
)

// Sort materialises its input and produces it ordered by Keys. NULLs sort
// first ascending and last descending (MySQL); the sort is stable.
type Sort struct {
	Input Operator
	Keys  []opspec.SortKey
	NCols int
	// Limit, when positive, is how many of the first rows are read (a
	// LIMIT above, its OFFSET included): only those are ordered, picked
	// with a heap, as the stable sort would order them.
	Limit int64

	sorted bool
	all    *coldata.Batch // the whole input
	perm   []int          // its rows in output order
	pos    int            // next output row
	// With a small Limit only the key columns are concatenated: src holds
	// the input batches, starts their first rows, and perm's rows are
	// gathered from them (all is nil).
	src    []*coldata.Batch
	sels   [][]int // the rows of src[i] the input passed (nil: all)
	starts []int
	// host counts the buffered input (which may view a table's own
	// buffers), then the concatenated copy and its permutation.
	host HostBytes
}

// PeakHostBytes is the most host memory the sort held at once.
func (s *Sort) PeakHostBytes() int64 { return s.host.Peak() }

// Open implements Operator.
func (s *Sort) Open(ctx context.Context) error {
	s.sorted, s.all, s.perm, s.pos, s.src, s.sels, s.starts = false, nil, nil, 0, nil, nil, nil
	s.host.ReleaseAll()
	return s.Input.Open(ctx)
}

// Next implements Operator.
func (s *Sort) Next(ctx context.Context) (*coldata.Batch, error) {
	if s.src != nil {
		return s.nextOfSources(ctx, nil)
	}
	if !s.sorted {
		var batches []*coldata.Batch
		var sels [][]int
		selSrc, selecting := s.Input.(selectionSource)
		selecting = selecting && s.Limit > 0
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var b *coldata.Batch
			var sel []int
			var err error
			if selecting {
				b, sel, err = selSrc.NextSelection(ctx)
			} else {
				b, err = s.Input.Next(ctx)
			}
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			batches, sels = append(batches, b), append(sels, sel)
			s.host.Grow(b.HostBytes() + 8*int64(len(sel)))
		}
		if done, err := s.topOfKeys(ctx, batches, sels); done || err != nil {
			return s.nextOfSources(ctx, err)
		}
		for i, sel := range sels {
			if sel != nil {
				batches[i] = coldata.GatherBatch(batches[i], sel)
			}
		}
		// The copy of a large input takes long enough that a cancel must
		// reach it too (TestCancelStopsLongQueriesQuickly).
		all, err := coldata.ConcatCheck(batches, s.NCols, ctx.Err)
		if err != nil {
			return nil, err
		}
		// The copy and the input are both live here; the input goes
		// once this returns.
		buffered := s.host.Held()
		if len(batches) == 1 && sels[0] == nil {
			buffered = 0 // the one input batch is sorted as it is
		} else {
			s.host.Grow(all.HostBytes())
		}
		var perm []int
		if s.Limit > 0 && s.Limit < int64(all.Len)/2 {
			cmp := rowComparator(all, s.Keys)
			perm, err = topRowsOf(ctx, all, s.Keys, int(s.Limit), cmp)
			if err != nil {
				return nil, err
			}
			sort.Ints(perm) // row order, which the stable sort keeps for ties
			if err := sortCancellable(ctx, perm, cmp); err != nil {
				return nil, err
			}
		} else if perm, err = orderOf(ctx, all, s.Keys); err != nil {
			return nil, err
		}
		s.host.Grow(8 * int64(len(perm)))
		s.host.Release(buffered)
		s.sorted, s.all, s.perm = true, all, perm
	}
	// Rows are gathered one output batch at a time: a cancelled query
	// stops between batches instead of after gathering the whole input.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.pos >= len(s.perm) {
		s.all, s.perm = nil, nil
		s.host.ReleaseAll()
		return nil, nil
	}
	end := min(s.pos+opspec.BatchSize, len(s.perm))
	out := coldata.GatherBatch(s.all, s.perm[s.pos:end])
	s.pos = end
	return out, nil
}

// Close implements Operator.
func (s *Sort) Close() error { s.host.ReleaseAll(); return s.Input.Close() }

// topOfKeys orders the first Limit rows of batches when they are few and
// the rows have columns besides the keys: only the key columns are
// concatenated, and only the rows kept are gathered from the batches
// (ClickBench Q24's SELECT * ... ORDER BY EventTime LIMIT 10 copied 105
// columns of every filtered row to keep 10). It reports whether it did.
// sels[i], when not nil, are the rows of batches[i] that are input rows
// (a selecting input's).
func (s *Sort) topOfKeys(ctx context.Context, batches []*coldata.Batch, sels [][]int) (bool, error) {
	var keyCols []int
	keys := make([]opspec.SortKey, len(s.Keys))
	for i, k := range s.Keys {
		j := slices.Index(keyCols, k.Col)
		if j < 0 {
			j = len(keyCols)
			keyCols = append(keyCols, k.Col)
		}
		keys[i] = k
		keys[i].Col = j
	}
	total := 0
	for i, b := range batches {
		if sels[i] != nil {
			total += len(sels[i])
		} else {
			total += b.Len
		}
	}
	if s.Limit <= 0 || s.Limit >= int64(total)/2 || len(keyCols) >= s.NCols || len(batches) == 0 {
		return false, nil
	}
	starts := make([]int, len(batches)+1)
	for i, b := range batches {
		n := b.Len
		if sels[i] != nil {
			n = len(sels[i])
		}
		starts[i+1] = starts[i] + n
	}
	// The batches split into runs of about equal rows, each run's best
	// Limit rows found on its own goroutine; the best of those, in input
	// order, are the best of all (ties too: each run keeps its earliest).
	// (ClickBench Q24 at 100M rows: docs/benchlog/2026-11-26-clickbench-gpu.md.)
	runs := min(runtime.GOMAXPROCS(0), len(batches), max(total/topRunRows, 1))
	bounds := make([]int, runs+1)
	for r, i := 1, 0; r <= runs; r++ {
		for i < len(batches) && starts[i] < total*r/runs {
			i++
		}
		bounds[r] = i
	}
	bounds[runs] = len(batches)
	cands := make([]*coldata.Batch, runs)
	rowsOf := make([][]int, runs)
	errs := make([]error, runs)
	var wg workGroup
	for r := 0; r < runs; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			lo, hi := bounds[r], bounds[r+1]
			narrow := make([]*coldata.Batch, 0, hi-lo)
			for i := lo; i < hi; i++ {
				b := batches[i]
				cols := make([]*coldata.Vec, len(keyCols))
				n := b.Len
				for j, c := range keyCols {
					cols[j] = b.Cols[c]
					if sels[i] != nil {
						cols[j], n = coldata.Gather(b.Cols[c], sels[i]), len(sels[i])
					}
				}
				narrow = append(narrow, &coldata.Batch{Cols: cols, Len: n})
			}
			if len(narrow) == 0 {
				cands[r] = &coldata.Batch{Cols: make([]*coldata.Vec, len(keyCols))}
				return
			}
			all, err := coldata.ConcatCheck(narrow, len(keyCols), ctx.Err)
			if err != nil {
				errs[r] = err
				return
			}
			perm := make([]int, all.Len)
			for i := range perm {
				perm[i] = i
			}
			if int(s.Limit) < all.Len {
				if perm, err = topRowsOf(ctx, all, keys, int(s.Limit), rowComparator(all, keys)); err != nil {
					errs[r] = err
					return
				}
				sort.Ints(perm)
			}
			cands[r] = coldata.GatherBatch(all, perm)
			for k := range perm {
				perm[k] += starts[lo]
			}
			rowsOf[r] = perm
		}(r)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return true, err
		}
	}
	var global []int
	var nonEmpty []*coldata.Batch
	for r := range cands {
		if len(rowsOf[r]) > 0 {
			nonEmpty = append(nonEmpty, cands[r])
			global = append(global, rowsOf[r]...)
		}
	}
	all, err := coldata.ConcatCheck(nonEmpty, len(keyCols), ctx.Err)
	if err != nil {
		return true, err
	}
	var perm []int
	if int(s.Limit) < all.Len {
		cmp := rowComparator(all, keys)
		if perm, err = topRowsOf(ctx, all, keys, int(s.Limit), cmp); err != nil {
			return true, err
		}
		sort.Ints(perm) // row order, which the stable sort keeps for ties
		if err := sortCancellable(ctx, perm, cmp); err != nil {
			return true, err
		}
	} else if perm, err = orderOf(ctx, all, keys); err != nil {
		return true, err
	}
	for i, c := range perm {
		perm[i] = global[c]
	}
	s.sorted, s.perm, s.src, s.sels, s.starts = true, perm, batches, sels, starts
	return true, nil
}

// topRunRows is the least rows a goroutine of topOfKeys takes (a
// variable for tests).
var topRunRows = 1 << 16

// nextOfSources returns the next output batch of a sort done by
// topOfKeys, gathering its rows from the input batches.
func (s *Sort) nextOfSources(ctx context.Context, err error) (*coldata.Batch, error) {
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.pos >= len(s.perm) {
		s.src, s.sels, s.starts, s.perm = nil, nil, nil, nil
		s.host.ReleaseAll()
		return nil, nil
	}
	end := min(s.pos+opspec.BatchSize, len(s.perm))
	rows := s.perm[s.pos:end]
	s.pos = end
	// Each output row's batch and row there, found once for every column.
	type loc struct{ batch, row int }
	locs := make([]loc, len(rows))
	for k, g := range rows {
		i := sort.SearchInts(s.starts, g+1) - 1
		r := g - s.starts[i]
		if s.sels[i] != nil {
			r = s.sels[i][r]
		}
		locs[k] = loc{i, r}
	}
	cols := make([]*coldata.Vec, s.NCols)
	for c := range cols {
		b := coldata.NewBuilder(s.src[0].Cols[c].Type, len(rows))
		for _, l := range locs {
			b.AppendFrom(s.src[l.batch].Cols[c], l.row)
		}
		cols[c] = b.Finish()
	}
	return &coldata.Batch{Cols: cols, Len: len(rows)}, nil
}

// topRowsOf is topRows over a batch's sort keys: when the first key is a
// 64-bit integer column (dates, timestamps and BIGINT included) or a
// string column, without NULLs, the k-th best of its values (of a
// string's first 8 bytes) is found first with typed comparisons, and only
// rows at least that good go to the general comparator (BenchmarkTopRowsOfInt,
// BenchmarkTopRowsOfString; ClickBench Q25-Q27 in
// docs/benchlog/2026-11-26-clickbench-gpu.md).
func topRowsOf(ctx context.Context, b *coldata.Batch, keys []opspec.SortKey, k int, cmp func(i, j int) int) ([]int, error) {
	n := b.Len
	if len(keys) == 0 || k <= 0 || k >= n {
		return topRows(ctx, n, k, cmp)
	}
	vals := orderPrefixes(b.Cols[keys[0].Col], n)
	if vals == nil {
		return topRows(ctx, n, k, cmp)
	}
	desc := keys[0].Desc
	bound := kthBest(vals, k, desc)
	better := func(x int64) bool { return (x < bound) != desc || x == bound }
	count := 0
	for _, x := range vals {
		if better(x) {
			count++
		}
	}
	if count >= n/2 { // the prefixes do not tell the rows apart
		return topRows(ctx, n, k, cmp)
	}
	cand := make([]int, 0, count)
	for i, x := range vals {
		if better(x) {
			cand = append(cand, i)
		}
	}
	top, err := topRows(ctx, len(cand), k, func(i, j int) int { return cmp(cand[i], cand[j]) })
	if err != nil {
		return nil, err
	}
	for i, c := range top {
		top[i] = cand[c]
	}
	return top, nil
}

// orderPrefixes returns, for a key column without NULLs, int64s whose
// order agrees with the values' wherever they differ: the values of a
// 64-bit integer column, or a string's first 8 bytes big-endian (0
// padded, the sign bit flipped so that signed order is byte order). Nil
// for other columns.
func orderPrefixes(v *coldata.Vec, n int) []int64 {
	if v.Const || v.AnyNull(n) {
		return nil
	}
	switch v.Type.Physical() {
	case coldata.Int64:
		if len(v.Ints) < n {
			return nil
		}
		return v.Ints[:n]
	case coldata.String:
		if len(v.Offsets) < n+1 {
			return nil
		}
		prefix := func(i int) int64 {
			s := v.Bytes[v.Offsets[i]:v.Offsets[i+1]]
			var p uint64
			if len(s) >= 8 {
				p = binary.BigEndian.Uint64(s)
			} else {
				for j := 0; j < 8; j++ {
					p <<= 8
					if j < len(s) {
						p |= uint64(s[j])
					}
				}
			}
			return int64(p ^ 1<<63)
		}
		// Strings that mostly share their first 8 bytes (URLs) make no
		// useful bound: a sample of 64 rows with fewer than 4 distinct
		// prefixes skips computing them all.
		sample := make(map[int64]bool)
		for i := 0; i < n; i += max(1, n/64) {
			sample[prefix(i)] = true
		}
		if len(sample) < min(4, n) {
			return nil
		}
		out := make([]int64, n)
		for i := range out {
			out[i] = prefix(i)
		}
		return out
	}
	return nil
}

// kthBest returns the k-th smallest of vals (largest when desc), counting
// repeats, for 0 < k <= len(vals): a heap of the best k values, whose
// root is the worst of them.
func kthBest(vals []int64, k int, desc bool) int64 {
	worse := func(a, b int64) bool { return (a > b) != desc && a != b }
	h := make([]int64, 0, k)
	for _, x := range vals[:k] {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(h[i], h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
	}
	replace := func(x int64) {
		h[0] = x
		for i := 0; ; {
			l, w := 2*i+1, i
			if l < len(h) && worse(h[l], h[w]) {
				w = l
			}
			if r := l + 1; r < len(h) && worse(h[r], h[w]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	// One predictable comparison per value: a value enters rarely.
	if desc {
		for _, x := range vals[k:] {
			if x > h[0] {
				replace(x)
			}
		}
	} else {
		for _, x := range vals[k:] {
			if x < h[0] {
				replace(x)
			}
		}
	}
	return h[0]
}

// topRows returns the k rows of n that a stable sort by cmp puts first
// (ties by row number), in no particular order: a max-heap of the best k
// so far, whose root is the worst of them.
func topRows(ctx context.Context, n, k int, cmp func(i, j int) int) ([]int, error) {
	worse := func(a, b int) bool { // a sorts after b
		if c := cmp(a, b); c != 0 {
			return c > 0
		}
		return a > b
	}
	h := make([]int, 0, k)
	down := func(i int) {
		for {
			l, w := 2*i+1, i
			if l < len(h) && worse(h[l], h[w]) {
				w = l
			}
			if r := l + 1; r < len(h) && worse(h[r], h[w]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for row := 0; row < n; row++ {
		if row&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(h) < k {
			h = append(h, row)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if worse(h[0], row) {
			h[0] = row
			down(0)
		}
	}
	return h, nil
}

// sortCancelled unwinds a sort whose context ended.
type sortCancelled struct{ err error }

// sortCancellable sorts perm stably (ties by row number: perm holds row
// numbers in ascending order when called), checking ctx every 64K
// comparisons so that a large sort stops promptly when its query is
// cancelled. pdqsort with the row number as the last key gives the stable
// order with fewer comparisons than a stable sort makes.
func sortCancellable(ctx context.Context, perm []int, cmp func(i, j int) int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			sc, ok := r.(sortCancelled)
			if !ok {
				panic(r)
			}
			err = sc.err
		}
	}()
	calls := 0
	slices.SortFunc(perm, func(a, b int) int {
		calls++
		if calls&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				panic(sortCancelled{err})
			}
		}
		if c := cmp(a, b); c != 0 {
			return c
		}
		return a - b
	})
	return ctx.Err()
}

// orderOf returns the rows of b in the order of keys, ties in row order:
// by normalized keys where every key's type has an encoding, else by
// comparing rows.
func orderOf(ctx context.Context, b *coldata.Batch, keys []opspec.SortKey) ([]int, error) {
	if perm, ok, err := sortByNormalizedKeys(ctx, b, keys); ok || err != nil {
		return perm, err
	}
	perm := make([]int, b.Len)
	for i := range perm {
		perm[i] = i
	}
	return perm, sortCancellable(ctx, perm, rowComparator(b, keys))
}

// rowComparator returns a three-way comparison of rows of b by keys.
func rowComparator(b *coldata.Batch, keys []opspec.SortKey) func(i, j int) int {
	return func(i, j int) int {
		for _, k := range keys {
			v := b.Cols[k.Col]
			if k.Nulls != opspec.NullsDefault {
				if an, bn := v.IsNull(i), v.IsNull(j); an != bn {
					if an == (k.Nulls == opspec.NullsFirst) {
						return -1
					}
					return 1
				}
			}
			c := orderCompare(v, i, j)
			if c != 0 {
				if k.Desc {
					return -c
				}
				return c
			}
		}
		return 0
	}
}

// orderCompare is CompareValues for ORDER BY: a DOUBLE NaN sorts above
// every other value (+Inf too) and equals other NaNs, a total order where
// CompareValues finds NaN equal to everything (and a sort's result would
// depend on its algorithm); the device's sort keys order them so too
// (gpuexec.OrderKey).
func orderCompare(v *coldata.Vec, i, j int) int {
	if v.Type.Physical() == coldata.Float64 && !v.IsNull(i) && !v.IsNull(j) {
		a, b := v.Float(i), v.Float(j)
		if an, bn := a != a, b != b; an || bn {
			switch {
			case an && bn:
				return 0
			case an:
				return 1
			}
			return -1
		}
	}
	return opspec.CompareValues(v, i, v, j)
}

func idx(v *coldata.Vec, i int) int {
	if v.Const {
		return 0
	}
	return i
}

// Distinct passes the first occurrence of every distinct row.
type Distinct struct {
	Input Operator
	seen  map[string]struct{}
	key   []byte
	sel   []int
	host  HostBytes // the seen keys
}

// distinctEntryBytes is a seen key's cost besides its bytes: its string
// header and its share of the map's buckets.
const distinctEntryBytes = 48

// PeakHostBytes is the most host memory the seen rows' keys held.
func (d *Distinct) PeakHostBytes() int64 { return d.host.Peak() }

// Open implements Operator.
func (d *Distinct) Open(ctx context.Context) error {
	d.seen = map[string]struct{}{}
	d.host.ReleaseAll()
	return d.Input.Open(ctx)
}

// Next implements Operator.
func (d *Distinct) Next(ctx context.Context) (*coldata.Batch, error) {
	for {
		b, err := d.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		d.sel = d.sel[:0]
		added := 0
		for i := 0; i < b.Len; i++ {
			d.key = opspec.AppendRowKey(d.key[:0], b.Cols, i)
			if _, ok := d.seen[string(d.key)]; ok {
				continue
			}
			d.seen[string(d.key)] = struct{}{}
			d.sel = append(d.sel, i)
			added += len(d.key) + distinctEntryBytes
		}
		d.host.Grow(int64(added))
		switch len(d.sel) {
		case 0:
			continue
		case b.Len:
			return b, nil
		}
		return coldata.GatherBatch(b, d.sel), nil
	}
}

// Close implements Operator.
func (d *Distinct) Close() error { d.seen = nil; d.host.ReleaseAll(); return d.Input.Close() }
