package gpuexec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/gsqlengine/gsql/coldata"
)

// WindowKey is one key of a window ordering that SortWindow builds on the
// device: a partition key or an ORDER BY key, with its direction and where
// its NULLs sort.
type WindowKey struct {
	Col        DeviceVec
	Desc       bool
	NullsFirst bool
}

// WindowSortable reports whether SortWindow orders keys of type t: the
// fixed-width types the radix sort orders (gsql_order_key), and text,
// whose strings it packs whole when none is longer than
// MaxTextSortBytes (else ErrLongTextKey).
func WindowSortable(t coldata.Type) bool {
	return t != coldata.Null && (sortableType(t) || t.Physical() == coldata.String)
}

// ErrLongTextKey is SortWindow's answer when a text key holds a string
// longer than MaxTextSortBytes: the caller sorts the keys on the host.
var ErrLongTextKey = errors.New("gpu: a window's text key holds a string too long to sort on the device")

// wlField is one key's part of a packed sort word: rank (0 or 1) NULL-rank
// bits above width bits of the key's order word less kmin.
type wlField struct {
	key         int
	kmin        uint64
	rank, width int
}

// wlWord is one 64-bit sort word: its fields, most significant first, and
// pmask, the bits that hold partition keys.
type wlWord struct {
	fields []wlField
	pmask  uint64
}

// wlRange is a key's order words' range over its non-NULL rows (min >
// max: none) and whether a row is NULL (gsql_wl_range).
type wlRange struct {
	min, max uint64
	nulls    bool
}

// planWindowWords packs the fields of keys with ranges rng (the first
// nPart of them partition keys) into as few sort words as hold them, most
// significant first: each key needs the bits of its range, plus one for
// its NULL rank when it has NULLs; a key whose range is constant and has
// no NULL needs none. A 64-bit range with NULLs takes its rank bit and its
// value in two fields.
func planWindowWords(rng []wlRange, nPart int) []wlWord {
	var fields []wlField
	for k, r := range rng {
		f := wlField{key: k}
		if r.min <= r.max {
			f.kmin, f.width = r.min, bits.Len64(r.max-r.min)
		}
		if r.nulls {
			f.rank = 1
		}
		switch {
		case f.rank+f.width == 0:
			continue
		case f.rank+f.width > 64:
			fields = append(fields, wlField{key: k, rank: 1})
			f.rank = 0
		}
		fields = append(fields, f)
	}
	var words []wlWord
	used := 64
	for _, f := range fields {
		if used+f.rank+f.width > 64 {
			words = append(words, wlWord{})
			used = 0
		}
		w := &words[len(words)-1]
		w.fields = append(w.fields, f)
		used += f.rank + f.width
	}
	for i := range words {
		w := &words[i]
		shift := 0
		for j := len(w.fields) - 1; j >= 0; j-- {
			f := w.fields[j]
			if fb := f.rank + f.width; f.key < nPart && fb > 0 {
				w.pmask |= (uint64(math.MaxUint64) >> (64 - fb)) << shift
			}
			shift += f.rank + f.width
		}
	}
	return words
}

// SortWindow builds a window ordering of n rows on the device: the rows
// sorted by keys (the first nPart of them the partition keys), ties in
// input order, and every row's partition and peer group, as the host's
// sort of the same keys finds them (NULLs equal to each other; DOUBLE's
// -0.0 equal to 0.0 and every NaN one value, above +Inf). Only the keys'
// ranges and the sort's digit ranges come to the host. Every key's type
// must be WindowSortable. The caller releases the layout.
func (d *Device) SortWindow(ctx context.Context, n int, keys []WindowKey, nPart int) (*WindowLayout, error) {
	if n <= 0 || n >= 1<<31-1 {
		return nil, invalidf("window of %d rows on the device (at least one, fewer than 2^31)", n)
	}
	if nPart < 0 || nPart > len(keys) {
		return nil, invalidf("window of %d partition keys among %d", nPart, len(keys))
	}
	for i, k := range keys {
		if !WindowSortable(k.Col.Type) || k.Col.Len != n {
			return nil, invalidf("window key %d: %d rows of %s for a window of %d", i, k.Col.Len, k.Col.Type, n)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &WindowLayout{d: d, n: n, sc: &hashScratch{d: d}}
	if err := d.Do(func() error { return l.sortOn(ctx, keys, nPart) }); err != nil {
		l.Release()
		return nil, fmt.Errorf("window layout on the device: %w", err)
	}
	return l, nil
}

// sortOn builds l's buffers (SortWindow). Context thread only.
func (l *WindowLayout) sortOn(ctx context.Context, keys []WindowKey, nPart int) error {
	d, n := l.d, int64(l.n)
	sc := &hashScratch{d: d}
	defer func() {
		// Kernels reading the scratch may still be in flight.
		d.drv.syncStream(d.stream.h)
		sc.release()
	}()
	ks, err := d.sortKeysOn(ctx, sc, n, keys, nPart)
	if err != nil {
		return err
	}
	l.Launches += ks.launches
	if ks.long {
		return ErrLongTextKey
	}
	words, wbufs, rows, rowsBuf, sorted := ks.words, ks.wbufs, DevicePtr(0), ks.rows, ks.sorted
	if rowsBuf != nil {
		rows = rowsBuf.ptr
	}
	cfg := d.strided(n)
	pc, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return err
	}
	qc, err := sc.alloc(uint64(8 * n))
	if err != nil {
		return err
	}
	if len(words) == 0 {
		if err := d.launchGrid("gsql_wl_marks", cfg, DevicePtr(0), DevicePtr(0), n, uint64(0), int64(1), pc.ptr, qc.ptr); err != nil {
			return err
		}
		l.Launches++
	}
	for w, word := range words {
		src, perm := wbufs[w].ptr, rows
		if w == 0 {
			// The last sort's keys are word 0 in sorted order.
			src, perm = sorted, 0
		}
		if err := d.launchGrid("gsql_wl_marks", cfg, src, perm, n, word.pmask, boolArg(w == 0), pc.ptr, qc.ptr); err != nil {
			return err
		}
		l.Launches++
	}
	pcs, err := d.windowScanOn(sc, winI64, winSum, n, pc.ptr, 0)
	if err != nil {
		return err
	}
	qcs, err := d.windowScanOn(sc, winI64, winSum, n, qc.ptr, 0)
	if err != nil {
		return err
	}
	l.Launches += 2
	if n > winTile {
		l.Launches += 4
	}
	var by [4]*Buffer // partition start, end, peer start, end by number
	for i := range by {
		if by[i], err = sc.alloc(uint64(4 * n)); err != nil {
			return err
		}
	}
	if err := d.launchGrid("gsql_wl_ends", cfg, n, pc.ptr, qc.ptr, pcs, qcs, by[0].ptr, by[1].ptr, by[2].ptr, by[3].ptr); err != nil {
		return err
	}
	for _, dst := range []**Buffer{&l.ps, &l.pe, &l.qs, &l.qe, &l.ord} {
		if *dst, err = l.sc.alloc(uint64(4 * n)); err != nil {
			return err
		}
	}
	if err := d.launchGrid("gsql_wl_spans", cfg, n, pcs, qcs, by[0].ptr, by[1].ptr, by[2].ptr, by[3].ptr,
		l.ps.ptr, l.pe.ptr, l.qs.ptr, l.qe.ptr, l.ord.ptr); err != nil {
		return err
	}
	l.Launches += 2
	if rowsBuf != nil {
		// The sorted rows (uint32, below 2^31) are the permutation; the
		// layout keeps them past the scratch.
		l.perm = rowsBuf.Retain()
		l.sc.bufs = append(l.sc.bufs, l.perm)
	}
	return nil
}

// keySort is sortKeysOn's result, in scratch buffers: the keys' sort
// words (input order), the sorted rows (uint32; nil when no key varies:
// the input order is sorted) and word 0 in sorted order.
type keySort struct {
	words    []wlWord
	parts    []wlPart // what each field's key number (wlField.key) packs
	long     bool     // a text key too long to pack: nothing sorted
	wbufs    []*Buffer
	rows     *Buffer
	sorted   DevicePtr
	launches int
}

// sortKeysOn orders n rows stably by keys (the first nPart of them
// partition keys, which only mark the words' bits): each key's order
// words packed into as few sort words as its range needs
// (planWindowWords), then one stable radix sort per word, least
// significant first. SortWindow and SortRows share it. Context thread
// only.
func (d *Device) sortKeysOn(ctx context.Context, sc *hashScratch, n int64, keys []WindowKey, nPart int) (*keySort, error) {
	ks := &keySort{}
	var err error
	if ks.words, ks.parts, err = d.planKeysOn(sc, n, keys, nPart, &ks.launches); err != nil {
		return nil, err
	}
	if ks.parts == nil && len(keys) > 0 {
		ks.long = true
		return ks, nil
	}
	cfg := d.strided(n)
	ks.wbufs = make([]*Buffer, len(ks.words))
	for w, word := range ks.words {
		if ks.wbufs[w], err = sc.alloc(uint64(8 * n)); err != nil {
			return nil, err
		}
		for j, f := range word.fields {
			part := ks.parts[f.key]
			k := keys[part.key]
			c := k.Col
			if part.chunk == wlValue {
				err = d.launchGrid("gsql_wl_pack", cfg, int64(c.Type.Physical()), c.Nulls, int64(c.NullOffset), c.Data,
					boolArg(k.Desc), boolArg(k.NullsFirst), f.kmin, int64(f.rank), int64(f.width),
					boolArg(j == 0), n, ks.wbufs[w].ptr)
			} else {
				err = d.launchGrid("gsql_wl_pack_str", cfg, c.Nulls, int64(c.NullOffset), c.Offsets, c.Data,
					int64(part.chunk), int64(part.bytes), boolArg(k.Desc), boolArg(k.NullsFirst), f.kmin, int64(f.rank), int64(f.width),
					boolArg(j == 0), n, ks.wbufs[w].ptr)
			}
			if err != nil {
				return nil, err
			}
			ks.launches++
		}
	}
	// Least significant word first; each later sort is stable, so the
	// rows end ordered by every word, ties in input order.
	var rows DevicePtr
	for w := len(ks.words) - 1; w >= 0; w-- {
		in := ks.wbufs[w].ptr
		if rows != 0 {
			g, err := sc.alloc(uint64(8 * n))
			if err != nil {
				return nil, err
			}
			if err := d.launchGrid("gsql_wl_gather", cfg, in, rows, n, g.ptr); err != nil {
				return nil, err
			}
			ks.launches++
			in = g.ptr
		}
		run, err := d.radixSortOn(ctx, sc, in, rows, n)
		if err != nil {
			return nil, err
		}
		ks.launches += run.launches
		rows, ks.rows, ks.sorted = run.rows.ptr, run.rows, run.keys.ptr
	}
	return ks, nil
}

// MaxTextSortBytes is the longest string a text key of SortRows may hold
// for the device to order it: its bytes pack whole, 8 a sort word, with
// its length; a longer one leaves the sort to the host.
const MaxTextSortBytes = 32

// wlPart is the part of a key one planned field packs: a fixed-width
// key's order word (chunk wlValue), or of a text key the bytes
// [8*chunk, 8*chunk+bytes) big-endian (chunk >= 0) or its length
// (wlLength).
type wlPart struct {
	key, chunk, bytes int
}

const (
	wlValue  = -1
	wlLength = -2
)

// planKeysOn reads every key's range (one launch each, counted in
// launches; one copy back) and plans the sort words over the keys' parts
// (a text key packs as its 8-byte chunks and its length: strings compare
// as their zero-padded bytes, then lengths). parts is nil when a text key
// holds a string longer than MaxTextSortBytes. Context thread only.
func (d *Device) planKeysOn(sc *hashScratch, n int64, keys []WindowKey, nPart int, launches *int) (words []wlWord, parts []wlPart, err error) {
	if len(keys) == 0 {
		return nil, nil, nil
	}
	init := make([]uint64, 3*len(keys))
	for k := range keys {
		init[3*k] = math.MaxUint64
	}
	rb, err := sc.upload(init)
	if err != nil {
		return nil, nil, err
	}
	for k, key := range keys {
		c := key.Col
		if c.Type.Physical() == coldata.String {
			err = d.launchGrid("gsql_wl_str_range", d.strided(n), c.Nulls, int64(c.NullOffset), c.Offsets, n, rb.ptr+DevicePtr(24*k))
		} else {
			err = d.launchGrid("gsql_wl_range", d.strided(n), int64(c.Type.Physical()), c.Nulls, int64(c.NullOffset), c.Data,
				boolArg(key.Desc), n, rb.ptr+DevicePtr(24*k))
		}
		if err != nil {
			return nil, nil, err
		}
		*launches++
	}
	raw := make([]byte, 24*len(keys))
	if err := d.CopyToHost(raw, rb.ptr, nil); err != nil {
		return nil, nil, err
	}
	var rng []wlRange
	pPart := 0 // the parts of the partition keys
	for k, key := range keys {
		w := func(i int) uint64 { return binary.LittleEndian.Uint64(raw[24*k+8*i:]) }
		r := wlRange{min: w(0), max: w(1), nulls: w(2) != 0}
		if key.Col.Type.Physical() != coldata.String {
			rng, parts = append(rng, r), append(parts, wlPart{key: k, chunk: wlValue})
		} else {
			kr, kp, ok := textParts(k, r, key.Desc)
			if !ok {
				return nil, nil, nil
			}
			rng, parts = append(rng, kr...), append(parts, kp...)
		}
		if k < nPart {
			pPart = len(parts)
		}
	}
	return planWindowWords(rng, pPart), parts, nil
}

// textParts turns text key k's length range r (over its non-NULL rows;
// min > max: none) into the ranges and parts of its fields: a chunk per 8
// bytes of the longest string (the last as wide as its bytes), then the
// length; the first field carries the NULL rank. desc reverses each
// field's values (~v) as it does a fixed-width key's. ok is false past
// MaxTextSortBytes.
func textParts(k int, r wlRange, desc bool) (rng []wlRange, parts []wlPart, ok bool) {
	maxLen := uint64(0)
	if r.min <= r.max {
		maxLen = r.max
	}
	if maxLen > MaxTextSortBytes {
		return nil, nil, false
	}
	add := func(lo, hi uint64, p wlPart) {
		if desc {
			lo, hi = ^hi, ^lo
		}
		rng = append(rng, wlRange{min: lo, max: hi, nulls: r.nulls && len(rng) == 0})
		parts = append(parts, p)
	}
	for c := 0; uint64(8*c) < maxLen; c++ {
		b := min(8, int(maxLen)-8*c)
		add(0, math.MaxUint64>>(64-8*b), wlPart{key: k, chunk: c, bytes: b})
	}
	if r.min <= r.max {
		add(r.min, r.max, wlPart{key: k, chunk: wlLength})
	} else {
		// Every row NULL: the rank alone.
		rng = append(rng, r)
		parts = append(parts, wlPart{key: k, chunk: wlLength})
	}
	return rng, parts, true
}

// WindowBoundKind is one end of a frame.
type WindowBoundKind int64

const (
	WindowUnboundedPreceding WindowBoundKind = iota
	WindowPreceding
	WindowCurrentRow
	WindowFollowing
	WindowUnboundedFollowing
)

// WindowBound is a frame bound: Offset rows for WindowPreceding and
// WindowFollowing.
type WindowBound struct {
	Kind   WindowBoundKind
	Offset int64
}

// FrameOf computes every row's frame on the device from the layout's
// spans, as operators/window computes it on the host: ROWS (rows) or
// RANGE between start and end, where only ROWS has offsets (RANGE offsets
// compare key values: the host computes them). The layout owns the buffers.
func (l *WindowLayout) FrameOf(rows bool, start, end WindowBound) (*WindowFrame, error) {
	for _, b := range []WindowBound{start, end} {
		switch {
		case b.Kind < WindowUnboundedPreceding || b.Kind > WindowUnboundedFollowing:
			return nil, invalidf("window frame bound kind %d", b.Kind)
		case (b.Kind == WindowPreceding || b.Kind == WindowFollowing) && (!rows || b.Offset < 0):
			return nil, invalidf("window frame offset %d on the device (ROWS only, not negative)", b.Offset)
		}
	}
	n := int64(l.n)
	f := &WindowFrame{}
	err := l.d.Do(func() error {
		var err error
		if f.lo, err = l.sc.alloc(uint64(4 * n)); err != nil {
			return err
		}
		if f.hi, err = l.sc.alloc(uint64(4 * n)); err != nil {
			return err
		}
		l.Launches++
		// Offsets past n reach the same clamped positions as n.
		return l.d.launchGrid("gsql_wl_frame", l.d.strided(n), n, boolArg(rows), int64(start.Kind), min(start.Offset, n),
			int64(end.Kind), min(end.Offset, n), l.ps.ptr, l.pe.ptr, l.qs.ptr, l.qe.ptr, f.lo.ptr, f.hi.ptr)
	})
	if err != nil {
		return nil, fmt.Errorf("window frame: %w", err)
	}
	return f, nil
}

// Spans downloads the layout for host code: perm (nil for the identity)
// maps sorted positions to input rows; the spans are each row's partition
// and peer group [start, end) in sorted positions.
func (l *WindowLayout) Spans(ctx context.Context) (perm, partStart, partEnd, peerStart, peerEnd []int, err error) {
	out := make([][]int, 5)
	err = l.download(ctx, []*Buffer{l.perm, l.ps, l.pe, l.qs, l.qe}, out)
	if err != nil {
		return nil, nil, nil, nil, nil, fmt.Errorf("window layout: %w", err)
	}
	return out[0], out[1], out[2], out[3], out[4], nil
}

// Bounds downloads frame f's [lo, hi) (sorted positions).
func (l *WindowLayout) Bounds(ctx context.Context, f *WindowFrame) (lo, hi []int, err error) {
	out := make([][]int, 2)
	if err := l.download(ctx, []*Buffer{f.lo, f.hi}, out); err != nil {
		return nil, nil, fmt.Errorf("window frame: %w", err)
	}
	return out[0], out[1], nil
}

// download copies int32 buffers of l.n entries each into out (nil for a
// nil buffer).
func (l *WindowLayout) download(ctx context.Context, bufs []*Buffer, out [][]int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	raw := make([]byte, 4*l.n)
	return l.d.Do(func() error {
		for i, b := range bufs {
			if b == nil {
				continue
			}
			if err := l.d.CopyToHost(raw, b.ptr, nil); err != nil {
				return err
			}
			xs := make([]int, l.n)
			for j := range xs {
				xs[j] = int(int32(binary.LittleEndian.Uint32(raw[4*j:])))
			}
			out[i] = xs
		}
		return nil
	})
}
