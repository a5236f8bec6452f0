package expr

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Conditionals: CASE, IF, IFNULL, COALESCE, NULLIF, GREATEST, LEAST — the
// copy_if_else kernels. Every argument is evaluated as a whole vector first;
// the kernel then decides, column at a time, which argument each row takes
// (a pick vector, narrowed through a selection of still-undecided rows) and
// gathers the rows in one pass, strings in two (sizes from the chosen
// argument, then a copy into the pre-sized buffer). When every row picks the
// same argument that vector is returned as it is.
//
//   - case(c1, v1, c2, v2, ..., [else]): an odd argument count means the
//     last is ELSE. Conditions convert to BOOLEAN; a NULL or FALSE condition
//     falls through; no ELSE gives NULL. The result type is Unify(values).
//   - if(c, a, b) is case(c, a, b); ifnull(a, b) and coalesce(a, ...) give
//     the first non-NULL argument (type Unify(args)).
//   - nullif(a, b) has a's type and is NULL where a = b (compared as = does).
//   - greatest/least compare as comparisons do (compareType) and are NULL
//     when any argument is NULL (MySQL).

func init() {
	Register(&Function{Name: "case", MinArgs: 2, MaxArgs: -1, Check: caseCheck, Eval: evalCase})
	Register(&Function{Name: "if", MinArgs: 3, MaxArgs: 3,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			t := Unify(args[1:]...)
			return t, []coldata.Type{coldata.Bool, t, t}, nil
		},
		Eval: evalCase})
	unified := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := Unify(args...)
		return t, sameTypes(t, len(args)), nil
	}
	Register(&Function{Name: "coalesce", MinArgs: 1, MaxArgs: -1, Check: unified, Eval: evalCoalesce})
	Register(&Function{Name: "ifnull", MinArgs: 2, MaxArgs: 2, Check: unified, Eval: evalCoalesce})
	Register(&Function{Name: "nullif", MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return args[0], []coldata.Type{args[0], args[1]}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalNullIf(args[0], args[1], n) }})
	extreme := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := compareType(args)
		return t, sameTypes(t, len(args)), nil
	}
	Register(&Function{Name: "greatest", MinArgs: 2, MaxArgs: -1, Check: extreme,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalExtreme(args, n, true) }})
	Register(&Function{Name: "least", MinArgs: 2, MaxArgs: -1, Check: extreme,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalExtreme(args, n, false) }})
}

func caseCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	if len(args) < 2 {
		return 0, nil, fmt.Errorf("CASE needs at least one WHEN")
	}
	var vals []coldata.Type
	for i := 1; i < len(args); i += 2 {
		vals = append(vals, args[i])
	}
	if len(args)%2 == 1 {
		vals = append(vals, args[len(args)-1])
	}
	t := Unify(vals...)
	want := make([]coldata.Type, len(args))
	for i := range args {
		if i%2 == 0 && i+1 < len(args) {
			want[i] = coldata.Bool
		} else {
			want[i] = t
		}
	}
	return t, want, nil
}

// resultType is the type of a value list: the Unify of its members.
func resultType(vals []*coldata.Vec) coldata.Type {
	types := make([]coldata.Type, len(vals))
	for i, v := range vals {
		types[i] = v.Type
	}
	return Unify(types...)
}

// Pick vectors hold, per row, 0 for NULL or k+1 for argument k.

// pickFirst sets pick[i] = kk for the rows where vals is TRUE and nulls
// valid (vals nil: every valid row), scanning every row; it returns the
// undecided rows in sel (reusing its storage). The loops are branch-free:
// random conditions would defeat the branch predictor.
func pickFirst(pick []int32, kk int32, vals, nulls []byte, sel []int32) []int32 {
	sel = sel[:cap(sel)]
	cnt := 0
	switch {
	case vals == nil:
		for i := range pick {
			take := int32(nulls[i>>3]>>(uint(i)&7)) & 1
			pick[i] += take * (kk - pick[i])
			sel[cnt] = int32(i)
			cnt += int(take ^ 1)
		}
	case nulls == nil:
		for i, b := range vals[:len(pick)] {
			take := int32(b & 1)
			pick[i] += take * (kk - pick[i])
			sel[cnt] = int32(i)
			cnt += int(take ^ 1)
		}
	default:
		for i, b := range vals[:len(pick)] {
			take := int32(b & (nulls[i>>3] >> (uint(i) & 7)) & 1)
			pick[i] += take * (kk - pick[i])
			sel[cnt] = int32(i)
			cnt += int(take ^ 1)
		}
	}
	return sel[:cnt]
}

// pickNext is pickFirst over the undecided rows sel, compacted in place.
func pickNext(pick []int32, kk int32, vals, nulls []byte, sel []int32) []int32 {
	cnt := 0
	for _, i := range sel {
		b := byte(1)
		if vals != nil {
			b = vals[i]
		}
		if nulls != nil {
			b &= nulls[i>>3] >> (uint(i) & 7)
		}
		take := int32(b & 1)
		pick[i] += take * (kk - pick[i])
		sel[cnt] = i
		cnt += int(take ^ 1)
	}
	return sel[:cnt]
}

// evalCase evaluates case(c1, v1, ..., [else]) and if(c, a, b).
func evalCase(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	var conds, srcs []*coldata.Vec
	for i := 0; i+1 < len(args); i += 2 {
		conds = append(conds, args[i])
		srcs = append(srcs, args[i+1])
	}
	elsePick := int32(0)
	if len(args)%2 == 1 {
		srcs = append(srcs, args[len(args)-1])
		elsePick = int32(len(srcs))
	}
	t := resultType(srcs)
	var pick, sel []int32
	all := true // every row is still undecided
	for k, c := range conds {
		c, err := toBoolVec(c, n)
		if err != nil {
			return nil, err
		}
		if isConstNull(c) || (c.Const && c.Bools[0] == 0) {
			continue
		}
		kk := int32(k + 1)
		if c.Const { // TRUE: every undecided row takes v_k
			if all {
				return pickAll(srcs, kk, t, n)
			}
			for _, i := range sel {
				pick[i] = kk
			}
			sel = sel[:0]
			break
		}
		if all {
			all = false
			pick = make([]int32, n)
			if elsePick != 0 {
				for i := range pick {
					pick[i] = elsePick
				}
			}
			sel = pickFirst(pick, kk, c.Bools, c.Nulls, make([]int32, n))
		} else {
			sel = pickNext(pick, kk, c.Bools, c.Nulls, sel)
		}
		if len(sel) == 0 {
			break
		}
	}
	if all {
		return pickAll(srcs, elsePick, t, n)
	}
	return gatherPick(t, srcs, pick, n)
}

// pickAll returns argument k-1 (NULL for k = 0) for every row.
func pickAll(srcs []*coldata.Vec, k int32, t coldata.Type, n int) (*coldata.Vec, error) {
	if k == 0 || isConstNull(srcs[k-1]) {
		return coldata.NewConst(t, nil, n), nil
	}
	return castVec(srcs[k-1], t, n)
}

// evalCoalesce gives each row its first non-NULL argument.
func evalCoalesce(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	t := resultType(args)
	var pick, sel []int32
	all := true
	for k, a := range args {
		if isConstNull(a) {
			continue
		}
		kk := int32(k + 1)
		if a.Nulls == nil || a.Const { // never NULL
			if all {
				return pickAll(args, kk, t, n)
			}
			for _, i := range sel {
				pick[i] = kk
			}
			sel = sel[:0]
			break
		}
		if all {
			all = false
			pick = make([]int32, n)
			sel = pickFirst(pick, kk, nil, a.Nulls, make([]int32, n))
		} else {
			sel = pickNext(pick, kk, nil, a.Nulls, sel)
		}
		if len(sel) == 0 {
			break
		}
	}
	if all {
		return coldata.NewConst(t, nil, n), nil
	}
	return gatherPick(t, args, pick, n)
}

// evalNullIf is NULLIF(a, b): a, NULL where a = b.
func evalNullIf(a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	if isConstNull(a) || isConstNull(b) {
		return a, nil
	}
	ct := compareType([]coldata.Type{a.Type, b.Type})
	ca, err := castVec(a, ct, n)
	if err != nil {
		return nil, err
	}
	cb, err := castVec(b, ct, n)
	if err != nil {
		return nil, err
	}
	eq, err := compareVecs(cmpEQ, ca, cb, n)
	if err != nil {
		return nil, err
	}
	if eq.Const {
		if eq.Nulls == nil && eq.Bools[0] != 0 {
			return coldata.NewConst(a.Type, nil, n), nil
		}
		return a, nil
	}
	drop := make([]byte, n)
	any := false
	for i, e := range eq.Bools[:n] {
		if e != 0 && validAt(eq.Nulls, i) {
			drop[i] = 1
			any = true
		}
	}
	if !any {
		return a, nil
	}
	if a.Const {
		pick := make([]int32, n)
		for i, d := range drop {
			pick[i] = 1 - int32(d)
		}
		return gatherPick(a.Type, []*coldata.Vec{a}, pick, n)
	}
	out := *a // shares a's (immutable) data; only the validity changes
	var nulls []byte
	if a.Nulls != nil {
		nulls = append([]byte(nil), a.Nulls[:coldata.BitmapLen(n)]...)
	}
	out.Nulls = clearBits(nulls, drop, n)
	return &out, nil
}

// evalExtreme is GREATEST (greater) or LEAST: NULL if any argument is NULL.
func evalExtreme(args []*coldata.Vec, n int, greater bool) (*coldata.Vec, error) {
	types := make([]coldata.Type, len(args))
	for i, a := range args {
		types[i] = a.Type
	}
	t := compareType(types)
	conv := make([]*coldata.Vec, len(args))
	for i, a := range args {
		if isConstNull(a) {
			return coldata.NewConst(t, nil, n), nil
		}
		c, err := castVec(a, t, n)
		if err != nil {
			return nil, err
		}
		conv[i] = c
	}
	if AllConst(conv) {
		out, err := evalExtreme(oneAll(conv), 1, greater)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	valid := CombineNulls(conv, n)
	switch t.Physical() {
	case coldata.Int64:
		out := coldata.NewVec(t, n)
		extremeInto(out.Ints, conv, func(v *coldata.Vec) []int64 { return v.Ints }, greater)
		out.Nulls = valid
		return out, nil
	case coldata.Float64:
		out := coldata.NewVec(coldata.Float64, n)
		extremeInto(out.Floats, conv, func(v *coldata.Vec) []float64 { return v.Floats }, greater)
		out.Nulls = valid
		return out, nil
	}
	// Strings: pick the winning argument per row, then gather.
	pick := make([]int32, n)
	for i := range pick {
		pick[i] = 1
	}
	want := 1
	if !greater {
		want = -1
	}
	for k := 1; k < len(conv); k++ {
		v := conv[k]
		for i, p := range pick {
			var c int
			if t.IsDecimal() {
				c = v.Dec(i).Cmp(conv[p-1].Dec(i))
			} else {
				c = bytes.Compare(v.Str(i), conv[p-1].Str(i))
			}
			if c == want {
				pick[i] = int32(k + 1)
			}
		}
	}
	for i := range pick {
		if !validAt(valid, i) {
			pick[i] = 0
		}
	}
	return gatherPick(t, conv, pick, n)
}

// extremeInto folds every argument into r with max (greater) or min.
func extremeInto[T int64 | float64](r []T, args []*coldata.Vec, data func(*coldata.Vec) []T, greater bool) {
	first, m := data(args[0]), rowMask(args[0])
	for i := range r {
		r[i] = first[i&m]
	}
	for _, a := range args[1:] {
		x := data(a)
		if a.Const {
			q := x[0]
			if greater {
				for i, p := range r {
					if q > p {
						r[i] = q
					}
				}
			} else {
				for i, p := range r {
					if q < p {
						r[i] = q
					}
				}
			}
			continue
		}
		x = x[:len(r)]
		if greater {
			for i, p := range r {
				if x[i] > p {
					r[i] = x[i]
				}
			}
		} else {
			for i, p := range r {
				if x[i] < p {
					r[i] = x[i]
				}
			}
		}
	}
}

// gsrc is one argument as the gather loops read it: data, a validity
// bitmap (never nil) and the row mask (0 for constants). Slot 0 stands for
// NULL: a one-row constant whose only row is NULL.
type gsrc[T any] struct {
	data  []T
	nulls []byte
	mask  int
}

// gatherSources prepares the argument table of a gather; get extracts the
// typed data of a vector.
func gatherSources[T any](srcs []*coldata.Vec, n int, get func(*coldata.Vec) []T) []gsrc[T] {
	out := make([]gsrc[T], len(srcs)+1)
	out[0] = gsrc[T]{data: make([]T, 1), nulls: []byte{0}}
	for k, s := range srcs {
		g := &out[k+1]
		if s == nil || isConstNull(s) {
			*g = out[0]
			continue
		}
		g.data, g.mask, g.nulls = get(s), rowMask(s), s.Nulls
		if g.nulls == nil {
			if s.Const {
				g.nulls = []byte{1}
			} else {
				g.nulls = coldata.NewValidBitmap(n)
			}
		}
	}
	return out
}

// gatherInto copies row i of the picked argument into r[i] and its
// validity bit into bm (zeroed, n bits); it reports whether any row is NULL.
func gatherInto[T any](r []T, bm []byte, pick []int32, g []gsrc[T]) bool {
	for i, p := range pick[:len(r)] {
		s := &g[p]
		j := i & s.mask
		r[i] = s.data[j]
		bm[i>>3] |= (s.nulls[j>>3] >> (uint(j) & 7) & 1) << (uint(i) & 7)
	}
	return !allValid(bm, len(r))
}

// allValid reports whether the first n bits of bm are set.
func allValid(bm []byte, n int) bool {
	full := n >> 3
	for _, b := range bm[:full] {
		if b != 0xff {
			return false
		}
	}
	if r := n & 7; r != 0 {
		return bm[full]&(1<<r-1) == 1<<r-1
	}
	return true
}

// gatherPick builds a vector of type t whose row i is row i of argument
// pick[i]-1, NULL where pick[i] is 0 or the chosen row is NULL.
func gatherPick(t coldata.Type, srcs []*coldata.Vec, pick []int32, n int) (*coldata.Vec, error) {
	if t == coldata.Null {
		return coldata.NewConst(coldata.Null, nil, n), nil
	}
	conv := make([]*coldata.Vec, len(srcs))
	for k, s := range srcs {
		if s != nil && !isConstNull(s) && s.Type != t {
			var err error
			if s, err = castVec(s, t, n); err != nil {
				return nil, err
			}
		}
		conv[k] = s
	}
	bm := make([]byte, coldata.BitmapLen(n))
	// gatherInto writes every row (a NULL one too), so the buffers may
	// come from coldata's pool.
	var out *coldata.Vec
	var anyNull bool
	switch t.Physical() {
	case coldata.Int64:
		out = coldata.AllocVec(t, n)
		anyNull = gatherInto(out.Ints, bm, pick, gatherSources(conv, n, func(v *coldata.Vec) []int64 { return v.Ints }))
	case coldata.Float64:
		out = coldata.AllocVec(t, n)
		anyNull = gatherInto(out.Floats, bm, pick, gatherSources(conv, n, func(v *coldata.Vec) []float64 { return v.Floats }))
	case coldata.Bool:
		out = coldata.AllocVec(t, n)
		anyNull = gatherInto(out.Bools, bm, pick, gatherSources(conv, n, func(v *coldata.Vec) []byte { return v.Bools }))
	case coldata.Decimal:
		out = coldata.AllocVec(t, n)
		anyNull = gatherInto(out.Decs, bm, pick, gatherSources(conv, n, func(v *coldata.Vec) []decimal.Int128 { return v.Decs }))
	case coldata.String:
		var err error
		if out, anyNull, err = gatherStrings(conv, pick, bm, n); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("internal error: cannot gather %s", t)
	}
	if anyNull {
		out.Nulls = bm
	}
	return out, nil
}

// strSrc is a string argument as gatherStrings reads it.
type strSrc struct {
	offs  []int32
	data  []byte
	nulls []byte
	mask  int
}

// gatherStrings is gatherPick's two passes for strings: sizes of the chosen
// rows scanned into offsets (NULL rows are empty), then one copy per row
// into the final buffer.
func gatherStrings(srcs []*coldata.Vec, pick []int32, bm []byte, n int) (*coldata.Vec, bool, error) {
	g := make([]strSrc, len(srcs)+1)
	g[0] = strSrc{offs: []int32{0, 0}, nulls: []byte{0}}
	for k, s := range srcs {
		d := &g[k+1]
		if s == nil || isConstNull(s) {
			*d = g[0]
			continue
		}
		d.offs, d.data, d.mask, d.nulls = s.Offsets, s.Bytes, rowMask(s), s.Nulls
		if s.Const {
			// One value: keep 8 readable bytes after it for the word copy.
			v := s.Str(0)
			d.data = append(append(make([]byte, 0, len(v)+8), v...), make([]byte, 8)...)
			d.offs = []int32{0, int32(len(v))}
		}
		if d.nulls == nil {
			if s.Const {
				d.nulls = []byte{1}
			} else {
				d.nulls = coldata.NewValidBitmap(n)
			}
		}
	}
	out := &coldata.Vec{Type: coldata.String, Len: n, Offsets: make([]int32, n+1)}
	o := out.Offsets
	total := 0
	for i, p := range pick[:n] {
		s := &g[p]
		j := i & s.mask
		v := s.nulls[j>>3] >> (uint(j) & 7) & 1
		bm[i>>3] |= v << (uint(i) & 7)
		total += int(s.offs[j+1]-s.offs[j]) * int(v)
		if total > 1<<31-1 {
			return nil, false, checkStringSize(total)
		}
		o[i+1] = int32(total)
	}
	// Rows of up to 8 bytes are moved as one 8-byte word (no call): the
	// bytes written past a row's end belong to the rows after it, which are
	// written later, and the 8 spare bytes at the end are sliced off.
	buf := make([]byte, total+8)
	for i, p := range pick[:n] {
		lo, hi := o[i], o[i+1]
		if hi == lo {
			continue
		}
		s := &g[p]
		st := s.offs[i&s.mask]
		if hi-lo <= 8 && int(st)+8 <= len(s.data) {
			binary.LittleEndian.PutUint64(buf[lo:], binary.LittleEndian.Uint64(s.data[st:]))
		} else {
			copy(buf[lo:hi], s.data[st:])
		}
	}
	out.Bytes = buf[:total:total]
	return out, !allValid(bm, n), nil
}
