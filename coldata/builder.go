package coldata

import "github.com/gsqlengine/gsql/decimal"

// Builder appends rows to a new vector. It is for operators that produce rows
// one at a time (gather, sort, values); expression kernels write vectors
// directly in two passes instead.
type Builder struct {
	v     *Vec
	n     int
	nulls bool
}

// NewBuilder returns a builder for a vector of type t with room for capHint rows.
func NewBuilder(t Type, capHint int) *Builder {
	v := &Vec{Type: t}
	switch t.Physical() {
	case Bool:
		v.Bools = make([]byte, 0, capHint)
	case Int64:
		v.Ints = make([]int64, 0, capHint)
	case Float64:
		v.Floats = make([]float64, 0, capHint)
	case String:
		v.Offsets = make([]int32, 1, capHint+1)
	case Decimal:
		v.Decs = make([]decimal.Int128, 0, capHint)
	}
	v.Nulls = make([]byte, 0, BitmapLen(capHint))
	return &Builder{v: v}
}

// Len is the number of rows appended so far.
func (b *Builder) Len() int { return b.n }

func (b *Builder) pushValid(valid bool) {
	if b.n&7 == 0 {
		b.v.Nulls = append(b.v.Nulls, 0)
	}
	if valid {
		b.v.Nulls[b.n>>3] |= 1 << (b.n & 7)
	} else {
		b.nulls = true
	}
	b.n++
}

// AppendNull appends a NULL row.
func (b *Builder) AppendNull() {
	v := b.v
	switch v.Type.Physical() {
	case Bool:
		v.Bools = append(v.Bools, 0)
	case Int64:
		v.Ints = append(v.Ints, 0)
	case Float64:
		v.Floats = append(v.Floats, 0)
	case String:
		v.Offsets = append(v.Offsets, int32(len(v.Bytes)))
	case Decimal:
		v.Decs = append(v.Decs, decimal.Int128{})
	}
	b.pushValid(false)
}

// AppendDec appends a decimal (scaled by the vector's scale).
func (b *Builder) AppendDec(x decimal.Int128) {
	b.v.Decs = append(b.v.Decs, x)
	b.pushValid(true)
}

// AppendBool appends a boolean.
func (b *Builder) AppendBool(x bool) {
	c := byte(0)
	if x {
		c = 1
	}
	b.v.Bools = append(b.v.Bools, c)
	b.pushValid(true)
}

// AppendInt appends an integer.
func (b *Builder) AppendInt(x int64) {
	b.v.Ints = append(b.v.Ints, x)
	b.pushValid(true)
}

// AppendFloat appends a double.
func (b *Builder) AppendFloat(x float64) {
	b.v.Floats = append(b.v.Floats, x)
	b.pushValid(true)
}

// AppendBytes appends a string.
func (b *Builder) AppendBytes(x []byte) {
	b.v.Bytes = append(b.v.Bytes, x...)
	b.v.Offsets = append(b.v.Offsets, int32(len(b.v.Bytes)))
	b.pushValid(true)
}

// AppendString appends a string.
func (b *Builder) AppendString(x string) {
	b.v.Bytes = append(b.v.Bytes, x...)
	b.v.Offsets = append(b.v.Offsets, int32(len(b.v.Bytes)))
	b.pushValid(true)
}

// AppendValue appends a Go value as returned by Vec.Value (nil is NULL).
func (b *Builder) AppendValue(x any) {
	switch y := x.(type) {
	case nil:
		b.AppendNull()
	case bool:
		b.AppendBool(y)
	case int64:
		b.AppendInt(y)
	case float64:
		b.AppendFloat(y)
	case string:
		b.AppendString(y)
	case []byte:
		b.AppendBytes(y)
	case decimal.Int128:
		b.AppendDec(y)
	default:
		panic("coldata: AppendValue of unsupported type")
	}
}

// AppendFrom appends row i of src, which must have the builder's type.
func (b *Builder) AppendFrom(src *Vec, i int) {
	if src.IsNull(i) {
		b.AppendNull()
		return
	}
	switch b.v.Type.Physical() {
	case Bool:
		b.v.Bools = append(b.v.Bools, src.Bools[src.idx(i)])
	case Int64:
		b.v.Ints = append(b.v.Ints, src.Int(i))
	case Float64:
		b.v.Floats = append(b.v.Floats, src.Float(i))
	case String:
		b.v.Bytes = append(b.v.Bytes, src.Str(i)...)
		b.v.Offsets = append(b.v.Offsets, int32(len(b.v.Bytes)))
	case Decimal:
		b.v.Decs = append(b.v.Decs, src.Dec(i))
	case Null:
		b.pushValid(false)
		return
	}
	b.pushValid(true)
}

// Finish returns the built vector; the builder must not be used afterwards.
func (b *Builder) Finish() *Vec {
	v := b.v
	v.Len = b.n
	if !b.nulls {
		v.Nulls = nil
	}
	if v.Type == Null {
		v.Nulls = make([]byte, BitmapLen(b.n))
	}
	b.v = nil
	return v
}

// Gather returns a new vector holding src's rows at the given indexes.
// The data buffer may be a recycled one (see Recycle); it is the
// caller's alone.
func Gather(src *Vec, idx []int) *Vec {
	n := len(idx)
	out := &Vec{Type: src.Type, Len: n}
	if src.Nulls != nil {
		out.Nulls = make([]byte, BitmapLen(n))
		for k, i := range idx {
			if !src.IsNull(i) {
				out.Nulls[k>>3] |= 1 << (k & 7)
			}
		}
	}
	if src.Const {
		switch src.Type.Physical() {
		case Bool:
			out.Bools = bytePool.get(n)
			fill(out.Bools, src.Bools[0])
		case Int64:
			out.Ints = int64Pool.get(n)
			fill(out.Ints, src.Ints[0])
		case Float64:
			out.Floats = floatPool.get(n)
			fill(out.Floats, src.Floats[0])
		case String:
			w := int(src.Offsets[1] - src.Offsets[0])
			out.Offsets = make([]int32, n+1)
			out.Bytes = make([]byte, 0, n*w)
			for k := 0; k < n; k++ {
				out.Bytes = append(out.Bytes, src.Bytes[src.Offsets[0]:src.Offsets[1]]...)
				out.Offsets[k+1] = int32((k + 1) * w)
			}
		case Decimal:
			out.Decs = decPool.get(n)
			fill(out.Decs, src.Decs[0])
		}
		return out
	}
	switch src.Type.Physical() {
	case Bool:
		out.Bools = bytePool.get(n)
		gatherInto(out.Bools, src.Bools, idx)
	case Int64:
		out.Ints = int64Pool.get(n)
		gatherInto(out.Ints, src.Ints, idx)
	case Float64:
		out.Floats = floatPool.get(n)
		gatherInto(out.Floats, src.Floats, idx)
	case String:
		gatherStrings(out, src, idx)
	case Decimal:
		out.Decs = decPool.get(n)
		gatherInto(out.Decs, src.Decs, idx)
	}
	return out
}

// gatherStrings sets out's offsets and bytes to src's strings at idx, in
// two passes: sizes into offsets, then the bytes into the pre-sized
// buffer, one copy per run of consecutive rows (a dense selection) or per
// row, short strings as one 16- or 32-byte move (at the buffers' ends,
// byte by byte).
func gatherStrings(out, src *Vec, idx []int) {
	n := len(idx)
	offs := make([]int32, n+1)
	so := src.Offsets
	total := int32(0)
	for k, i := range idx {
		total += so[i+1] - so[i]
		offs[k+1] = total
	}
	buf := make([]byte, total)
	out.Offsets, out.Bytes = offs, buf
	sb := src.Bytes
	// A selection that may be dense copies runs of consecutive rows at
	// once. A string of up to 16 or 32 bytes, away from the ends of both
	// buffers, copies as that many bytes at once: the bytes past its end
	// are the next strings' and are written again by them (a sort's
	// gather of 21-byte p_types called memmove per row).
	dense := n >= 16 && idx[n-1]-idx[0] < n+n/8
	nb, ns := int32(len(buf)), int32(len(sb))
	for k := 0; k < n; {
		i := idx[k]
		j := k + 1
		if dense {
			for j < n && idx[j] == i+(j-k) {
				j++
			}
		}
		lo, o := so[i], offs[k]
		if j > k+1 {
			copy(buf[o:offs[j]], sb[lo:so[i+(j-k)]])
			k = j
			continue
		}
		switch l := so[i+1] - lo; {
		case l <= 16 && o <= nb-16 && lo <= ns-16:
			*(*[16]byte)(buf[o : o+16]) = *(*[16]byte)(sb[lo : lo+16])
		case l <= 32 && o <= nb-32 && lo <= ns-32:
			// Two 16-byte moves: a 32-byte one calls memmove.
			*(*[16]byte)(buf[o : o+16]) = *(*[16]byte)(sb[lo : lo+16])
			*(*[16]byte)(buf[o+16 : o+32]) = *(*[16]byte)(sb[lo+16 : lo+32])
		case l <= 8:
			d := buf[o:offs[k+1]]
			for t := range d {
				d[t] = sb[lo+int32(t)]
			}
		default:
			copy(buf[o:offs[k+1]], sb[lo:lo+l])
		}
		k++
	}
}

func fill[T any](dst []T, x T) {
	for i := range dst {
		dst[i] = x
	}
}

// gatherInto sets dst[k] = src[idx[k]]. A dense selection (most rows of
// a range kept, as a filter that drops a few rows gives) copies each run
// of consecutive indexes at once.
func gatherInto[T any](dst, src []T, idx []int) {
	n := len(idx)
	dst = dst[:n]
	if n >= 16 && idx[n-1]-idx[0] < n+n/8 && idx[0] >= 0 && idx[n-1] < len(src) {
		// At most n/8 gaps: runs average 8 rows or more.
		for k := 0; k < n; {
			i := idx[k]
			j := k + 1
			for j < n && idx[j] == i+(j-k) {
				j++
			}
			if j == k+1 {
				dst[k] = src[i] // a permutation's runs are single rows
			} else {
				copy(dst[k:j], src[i:i+(j-k)])
			}
			k = j
		}
		return
	}
	for k, i := range idx {
		dst[k] = src[i]
	}
}

// Slice returns rows [lo, hi) of v. When lo is a multiple of 8 the result
// shares v's data (string offsets then need not start at zero); otherwise
// the rows are copied.
func Slice(v *Vec, lo, hi int) *Vec {
	if v.Const {
		c := *v
		c.Len = hi - lo
		return &c
	}
	if lo == 0 && hi == v.Len {
		return v
	}
	if lo&7 != 0 {
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = lo + i
		}
		return Gather(v, idx)
	}
	out := &Vec{Type: v.Type, Len: hi - lo}
	if v.Nulls != nil {
		out.Nulls = v.Nulls[lo>>3 : BitmapLen(hi)]
	}
	switch v.Type.Physical() {
	case Bool:
		out.Bools = v.Bools[lo:hi]
	case Int64:
		out.Ints = v.Ints[lo:hi]
	case Float64:
		out.Floats = v.Floats[lo:hi]
	case String:
		out.Offsets = v.Offsets[lo : hi+1]
		out.Bytes = v.Bytes
	case Decimal:
		out.Decs = v.Decs[lo:hi]
	case Null:
		out.Nulls = make([]byte, BitmapLen(hi-lo))
	}
	return out
}

// GatherBatch applies Gather to every column of b.
func GatherBatch(b *Batch, idx []int) *Batch {
	cols := make([]*Vec, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = Gather(c, idx)
	}
	return &Batch{Cols: cols, Len: len(idx)}
}

// SliceBatch returns rows [lo, hi) of b.
func SliceBatch(b *Batch, lo, hi int) *Batch {
	cols := make([]*Vec, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = Slice(c, lo, hi)
	}
	return &Batch{Cols: cols, Len: hi - lo}
}

// Concat joins batches of ncols columns into one batch, copying data once.
func Concat(batches []*Batch, ncols int) *Batch {
	out, _ := ConcatCheck(batches, ncols, nil)
	return out
}

// ConcatCheck is Concat calling check (when not nil) before copying each
// input vector, and giving up with its error: a long copy of a cancelled
// query stops within one batch's copy.
func ConcatCheck(batches []*Batch, ncols int, check func() error) (*Batch, error) {
	total := 0
	for _, b := range batches {
		total += b.Len
	}
	out := &Batch{Cols: make([]*Vec, ncols), Len: total}
	for c := 0; c < ncols; c++ {
		vecs := make([]*Vec, 0, len(batches))
		for _, b := range batches {
			if b.Len > 0 {
				vecs = append(vecs, b.Cols[c])
			}
		}
		if len(vecs) == 0 && len(batches) > 0 {
			// Only empty batches: keep the column's type.
			out.Cols[c] = NewVec(batches[0].Cols[c].Type, 0)
			continue
		}
		v, err := concatVecs(vecs, total, check)
		if err != nil {
			return nil, err
		}
		out.Cols[c] = v
	}
	return out, nil
}

// ConcatVecs joins vectors of one type holding total rows together.
func ConcatVecs(vecs []*Vec, total int) *Vec {
	out, _ := concatVecs(vecs, total, nil)
	return out
}

func concatVecs(vecs []*Vec, total int, check func() error) (*Vec, error) {
	if len(vecs) == 1 && !vecs[0].Const {
		return vecs[0], nil
	}
	if len(vecs) == 0 {
		return &Vec{Type: Null, Len: 0}, nil
	}
	t := vecs[0].Type
	out := &Vec{Type: t, Len: total}
	hasNulls := false
	for _, v := range vecs {
		if v.Nulls != nil {
			hasNulls = true
		}
	}
	if hasNulls {
		out.Nulls = make([]byte, BitmapLen(total))
	}
	switch t.Physical() {
	case Bool:
		out.Bools = make([]byte, 0, total)
	case Int64:
		out.Ints = make([]int64, 0, total)
	case Float64:
		out.Floats = make([]float64, 0, total)
	case Decimal:
		out.Decs = make([]decimal.Int128, 0, total)
	case String:
		out.Offsets = make([]int32, 1, total+1)
		size := 0
		for _, v := range vecs {
			if v.Const {
				size += v.Len * len(v.Str(0))
			} else {
				size += int(v.Offsets[v.Len] - v.Offsets[0])
			}
		}
		out.Bytes = make([]byte, 0, size)
	}
	row := 0
	for _, v := range vecs {
		if check != nil {
			if err := check(); err != nil {
				return nil, err
			}
		}
		if v.Const {
			v = v.Materialize()
		}
		if hasNulls {
			for i := 0; i < v.Len; i++ {
				if !v.IsNull(i) {
					SetBit(out.Nulls, row+i)
				}
			}
		}
		switch t.Physical() {
		case Bool:
			out.Bools = append(out.Bools, v.Bools[:v.Len]...)
		case Int64:
			out.Ints = append(out.Ints, v.Ints[:v.Len]...)
		case Float64:
			out.Floats = append(out.Floats, v.Floats[:v.Len]...)
		case Decimal:
			out.Decs = append(out.Decs, v.Decs[:v.Len]...)
		case String:
			base := int32(len(out.Bytes)) - v.Offsets[0]
			out.Bytes = append(out.Bytes, v.Bytes[v.Offsets[0]:v.Offsets[v.Len]]...)
			for i := 1; i <= v.Len; i++ {
				out.Offsets = append(out.Offsets, v.Offsets[i]+base)
			}
		}
		row += v.Len
	}
	if t == Null {
		out.Nulls = make([]byte, BitmapLen(total))
	}
	return out, nil
}

// GatherNullable is Gather where a negative index produces a NULL row (the
// unmatched side of an outer join).
func GatherNullable(src *Vec, idx []int) *Vec {
	hasNeg := false
	for _, i := range idx {
		if i < 0 {
			hasNeg = true
			break
		}
	}
	if !hasNeg {
		return Gather(src, idx)
	}
	safe := make([]int, len(idx))
	for k, i := range idx {
		if i >= 0 {
			safe[k] = i
		}
	}
	var out *Vec
	if src.Len == 0 {
		out = NewConst(src.Type, nil, len(idx)).Materialize()
	} else {
		out = Gather(src, safe)
	}
	if out.Nulls == nil {
		out.Nulls = NewValidBitmap(len(idx))
	}
	for k, i := range idx {
		if i < 0 {
			ClearBit(out.Nulls, k)
		}
	}
	return out
}
