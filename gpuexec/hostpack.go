package gpuexec

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// hostColumn is a host vector checked and reduced to the byte ranges a pack
// copies.
type hostColumn struct {
	v     *coldata.Vec
	nulls []byte // BitmapLen(Len) bytes, or nil
	data  []byte // values (Bool/Int64/Float64) or chars (String)
	offs  []int32
	base  int32 // first offset (String)
}

func bytesOf[T int64 | float64 | int32 | decimal.Int128](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// hostColumns checks a host batch and gathers what packing it needs. Bad
// input (short slices, decreasing offsets, unknown types) gives an error
// wrapping ErrInvalidArgument, never a panic.
func hostColumns(b *coldata.Batch) ([]hostColumn, []ColumnSpec, error) {
	if b == nil {
		return nil, nil, invalidf("nil batch")
	}
	if b.Len < 0 {
		return nil, nil, invalidf("negative batch length %d", b.Len)
	}
	n := b.Len
	cols := make([]hostColumn, len(b.Cols))
	specs := make([]ColumnSpec, len(b.Cols))
	for i, v := range b.Cols {
		if v == nil {
			return nil, nil, invalidf("column %d is nil", i)
		}
		if v.Len != n {
			return nil, nil, invalidf("column %d has %d rows, batch %d", i, v.Len, n)
		}
		if v.Const {
			v = v.Materialize()
		}
		c := hostColumn{v: v}
		bl := coldata.BitmapLen(n)
		if v.Nulls != nil || v.Type == coldata.Null {
			if len(v.Nulls) < bl {
				return nil, nil, invalidf("column %d: validity bitmap of %d bytes for %d rows", i, len(v.Nulls), n)
			}
			c.nulls = v.Nulls[:bl]
		}
		switch v.Type.Physical() {
		case coldata.Null:
		case coldata.Bool:
			if len(v.Bools) < n {
				return nil, nil, invalidf("column %d: %d booleans for %d rows", i, len(v.Bools), n)
			}
			c.data = v.Bools[:n]
		case coldata.Int64:
			if len(v.Ints) < n {
				return nil, nil, invalidf("column %d: %d integers for %d rows", i, len(v.Ints), n)
			}
			c.data = bytesOf(v.Ints[:n])
		case coldata.Float64:
			if len(v.Floats) < n {
				return nil, nil, invalidf("column %d: %d floats for %d rows", i, len(v.Floats), n)
			}
			c.data = bytesOf(v.Floats[:n])
		case coldata.Decimal:
			if len(v.Decs) < n {
				return nil, nil, invalidf("column %d: %d decimals for %d rows", i, len(v.Decs), n)
			}
			c.data = bytesOf(v.Decs[:n])
		case coldata.String:
			offs := v.Offsets
			if n == 0 && len(offs) == 0 {
				offs = []int32{0}
			}
			if len(offs) < n+1 {
				return nil, nil, invalidf("column %d: %d offsets for %d rows", i, len(offs), n)
			}
			offs = offs[:n+1]
			lo, hi := offs[0], offs[n]
			if lo < 0 || hi < lo || int(hi) > len(v.Bytes) {
				return nil, nil, invalidf("column %d: offsets [%d, %d] outside %d bytes", i, lo, hi, len(v.Bytes))
			}
			c.offs, c.base, c.data = offs, lo, v.Bytes[lo:hi]
		default:
			return nil, nil, invalidf("column %d: unsupported type %v", i, v.Type)
		}
		cols[i] = c
		specs[i] = ColumnSpec{Type: v.Type, HasNulls: c.nulls != nil, Chars: int64(len(c.data))}
		if v.Type != coldata.String {
			specs[i].Chars = 0
		}
	}
	return cols, specs, nil
}

// hostPart is one host batch of a pack: its checked columns, its row
// count, and where its rows and (per string column) characters start in
// the packed batch.
type hostPart struct {
	cols      []hostColumn
	rows      int
	rowStart  int
	charStart []int64
}

// hostParts checks host batches that are packed together: the same number
// of columns of the same types. It returns their parts and the column
// specs of the concatenation.
func hostParts(hbs []*coldata.Batch) ([]hostPart, []ColumnSpec, error) {
	if len(hbs) == 0 {
		return nil, nil, invalidf("no batches")
	}
	parts := make([]hostPart, len(hbs))
	var specs []ColumnSpec
	rows := 0
	for k, hb := range hbs {
		cols, sp, err := hostColumns(hb)
		if err != nil {
			if len(hbs) > 1 {
				return nil, nil, fmt.Errorf("batch %d: %w", k, err)
			}
			return nil, nil, err
		}
		p := hostPart{cols: cols, rows: hb.Len, rowStart: rows, charStart: make([]int64, len(cols))}
		if k == 0 {
			specs = sp
		} else if len(sp) != len(specs) {
			return nil, nil, invalidf("batch %d has %d columns, batch 0 %d", k, len(sp), len(specs))
		}
		for i := range sp {
			if sp[i].Type != specs[i].Type {
				return nil, nil, invalidf("batch %d: column %d is %v, in batch 0 %v", k, i, sp[i].Type, specs[i].Type)
			}
			if k > 0 {
				p.charStart[i] = specs[i].Chars
				specs[i].Chars += sp[i].Chars
				// An empty part's bitmap adds nothing (as in coldata.Concat).
				specs[i].HasNulls = specs[i].HasNulls || (sp[i].HasNulls && hb.Len > 0)
			} else {
				specs[i].HasNulls = sp[i].HasNulls && (hb.Len > 0 || len(hbs) == 1)
			}
		}
		parts[k] = p
		rows += hb.Len
		if rows < 0 || rows > math.MaxInt32 {
			return nil, nil, invalidf("%d rows do not fit one device batch", rows)
		}
	}
	return parts, specs, nil
}

// copyTask is one piece of a pack: a memcpy, string offsets shifted by
// delta, or a column's validity bitmap assembled from its parts.
type copyTask struct {
	dst, src []byte
	offs     []int32
	delta    int32
	bitmap   []hostPart // with col: assemble column col's validity
	col      int
}

// columnSpan is the byte range [lo, hi) of the layout that column c's
// regions cover (lo == hi when it has none).
func columnSpan(cl ColumnLayout) (lo, hi int64) {
	lo, hi = -1, -1
	for _, r := range []Region{cl.Nulls, cl.Offsets, cl.Data} {
		if !r.Present() {
			continue
		}
		if lo < 0 || r.Off < lo {
			lo = r.Off
		}
		hi = max(hi, r.Off+r.Size)
	}
	if lo < 0 {
		return 0, 0
	}
	return lo, hi
}

// packColumns is packHost for columns [c0, c1) only, into dst holding
// the layout's bytes from base on.
func packColumns(l PackLayout, parts []hostPart, dst []byte, base int64, c0, c1 int) {
	// Split big copies into pieces so that all cores share the work.
	const piece = 4 << 20
	var tasks []copyTask
	total := 0
	addCopy := func(dst, src []byte) {
		for o := 0; o < len(src); o += piece {
			e := min(o+piece, len(src))
			tasks = append(tasks, copyTask{dst: dst[o:e], src: src[o:e]})
		}
		total += len(src)
	}
	// win is layout bytes [off, end); from, those from off on.
	win := func(off, end int64) []byte { return dst[off-base : end-base] }
	from := func(off int64) []byte { return dst[off-base:] }
	for i := c0; i < c1; i++ {
		cl := l.Cols[i]
		if cl.Nulls.Present() {
			tasks = append(tasks, copyTask{dst: win(cl.Nulls.Off, cl.Nulls.Off+cl.Nulls.Size), bitmap: parts, col: i})
			total += int(cl.Nulls.Size)
		}
		if cl.Offsets.Present() && cl.Len == 0 {
			tasks = append(tasks, copyTask{dst: win(cl.Offsets.Off, cl.Offsets.Off+4), offs: []int32{0}})
		}
		w := elemSize(cl.Type)
		for _, p := range parts {
			c := p.cols[i]
			if p.rows == 0 {
				continue
			}
			if cl.Offsets.Present() {
				out := win(cl.Offsets.Off, cl.Offsets.Off+cl.Offsets.Size)
				offs := c.offs[:p.rows]
				if p.rowStart+p.rows == cl.Len {
					offs = c.offs[:p.rows+1] // the last part writes the end offset
				}
				delta := int32(p.charStart[i]) - c.base
				const rowsPiece = piece / 4
				for o := 0; o < len(offs); o += rowsPiece {
					e := min(o+rowsPiece, len(offs))
					at := 4 * int64(p.rowStart+o)
					tasks = append(tasks, copyTask{dst: out[at : at+4*int64(e-o)], offs: offs[o:e], delta: delta})
				}
				total += 4 * len(offs)
				addCopy(from(cl.Data.Off+p.charStart[i]), c.data)
			} else if cl.Data.Present() {
				addCopy(from(cl.Data.Off+w*int64(p.rowStart)), c.data)
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if total < 16<<20 || workers < 2 {
		for _, t := range tasks {
			t.run()
		}
		return
	}
	ch := make(chan copyTask, len(tasks))
	for _, t := range tasks {
		ch <- t
	}
	close(ch)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range ch {
				t.run()
			}
		}()
	}
	wg.Wait()
}

func (t copyTask) run() {
	switch {
	case t.bitmap != nil:
		clear(t.dst) // bits past the last row stay 0
		for _, p := range t.bitmap {
			if nulls := p.cols[t.col].nulls; nulls != nil {
				copyBits(t.dst, p.rowStart, nulls, p.rows)
			} else {
				setBits(t.dst, p.rowStart, p.rows)
			}
		}
	case t.offs != nil:
		out := unsafe.Slice((*int32)(unsafe.Pointer(&t.dst[0])), len(t.offs))
		if t.delta == 0 {
			copy(out, t.offs)
			return
		}
		for i, o := range t.offs {
			out[i] = o + t.delta
		}
	default:
		copy(t.dst, t.src)
	}
}

// copyBits ORs bits [0, n) of src into dst starting at bit at (dst's bits
// there are 0).
func copyBits(dst []byte, at int, src []byte, n int) {
	base, shift, full := at>>3, uint(at&7), n>>3
	if shift == 0 {
		copy(dst[base:], src[:full])
	} else {
		for k, b := range src[:full] {
			dst[base+k] |= b << shift
			dst[base+k+1] |= b >> (8 - shift)
		}
	}
	for i := full << 3; i < n; i++ {
		if src[i>>3]&(1<<(i&7)) != 0 {
			j := at + i
			dst[j>>3] |= 1 << (j & 7)
		}
	}
}

// setBits sets bits [at, at+n) of dst.
func setBits(dst []byte, at, n int) {
	i, end := at, at+n
	for ; i < end && i&7 != 0; i++ {
		dst[i>>3] |= 1 << (i & 7)
	}
	for ; i+8 <= end; i += 8 {
		dst[i>>3] = 0xff
	}
	for ; i < end; i++ {
		dst[i>>3] |= 1 << (i & 7)
	}
}

// parallelCopy copies src into dst with several goroutines when it is big.
func parallelCopy(dst, src []byte) {
	const piece = 2 << 20
	workers := runtime.GOMAXPROCS(0)
	if len(src) < 4*piece || workers < 2 {
		copy(dst, src)
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, (len(src)+piece-1)/piece)
	for o := 0; o < len(src); o += piece {
		next <- o
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range next {
				e := min(o+piece, len(src))
				copy(dst[o:e], src[o:e])
			}
		}()
	}
	wg.Wait()
}

// UnpackHost rebuilds a host batch from pack metadata and the packed bytes
// (as Download, ChunkedPack or a D2H copy of a PackedBatch produce). The
// vectors alias data where its alignment allows (8-byte aligned data is
// never copied); corrupt metadata or short data give an error wrapping
// ErrInvalidArgument.
func UnpackHost(meta []byte, data []byte) (*coldata.Batch, error) {
	l, err := UnmarshalPackLayout(meta)
	if err != nil {
		return nil, err
	}
	return unpackHostLayout(l, data, true)
}

// unpackHostLayout builds host vectors over data; validate checks string
// offsets (skipped for data this package packed itself).
func unpackHostLayout(l PackLayout, data []byte, validate bool) (*coldata.Batch, error) {
	if int64(len(data)) < lastByte(l) {
		return nil, invalidf("packed data has %d bytes, layout needs %d", len(data), lastByte(l))
	}
	if len(data) > 0 && uintptr(unsafe.Pointer(&data[0]))%8 != 0 {
		data = append(make([]byte, 0, len(data)+8), data...)
	}
	region := func(r Region) []byte { return data[r.Off : r.Off+r.Size : r.Off+r.Size] }
	out := &coldata.Batch{Len: l.Rows, Cols: make([]*coldata.Vec, len(l.Cols))}
	for i, c := range l.Cols {
		v := &coldata.Vec{Type: c.Type, Len: c.Len}
		if c.Nulls.Present() {
			v.Nulls = region(c.Nulls)
		}
		n := c.Len
		switch c.Type.Physical() {
		case coldata.Bool:
			v.Bools = region(c.Data)
		case coldata.Int64:
			v.Ints = make([]int64, 0)
			if n > 0 {
				v.Ints = unsafe.Slice((*int64)(unsafe.Pointer(&data[c.Data.Off])), n)
			}
		case coldata.Float64:
			v.Floats = make([]float64, 0)
			if n > 0 {
				v.Floats = unsafe.Slice((*float64)(unsafe.Pointer(&data[c.Data.Off])), n)
			}
		case coldata.Decimal:
			v.Decs = make([]decimal.Int128, 0)
			if n > 0 {
				v.Decs = unsafe.Slice((*decimal.Int128)(unsafe.Pointer(&data[c.Data.Off])), n)
			}
		case coldata.String:
			v.Offsets = unsafe.Slice((*int32)(unsafe.Pointer(&data[c.Offsets.Off])), n+1)
			v.Bytes = region(c.Data)
			if !validate {
				break
			}
			if err := checkOffsets(v.Offsets, len(v.Bytes)); err != nil {
				return nil, invalidf("column %d: %v", i, err)
			}
		}
		out.Cols[i] = v
	}
	return out, nil
}

// lastByte is the end of the last region (the packed size less trailing
// padding): how many bytes of data UnpackHost needs.
func lastByte(l PackLayout) int64 {
	var end int64
	for _, c := range l.Cols {
		for _, r := range []Region{c.Nulls, c.Offsets, c.Data} {
			if r.Present() && r.Off+r.Size > end {
				end = r.Off + r.Size
			}
		}
	}
	return end
}

func checkOffsets(offs []int32, chars int) error {
	if len(offs) == 0 || offs[0] != 0 {
		return layoutError("string offsets do not start at 0")
	}
	prev := int32(0)
	for _, o := range offs {
		if o < prev {
			return layoutError("string offsets decrease")
		}
		prev = o
	}
	if int(prev) != chars {
		return layoutError("string offsets do not end at the chars length")
	}
	return nil
}
