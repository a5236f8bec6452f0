package expr

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/hashmix"
)

// Three-valued logic, NULL tests and IN, MySQL semantics.
//
//   - and/or/xor/not convert their arguments to BOOLEAN (numbers: nonzero,
//     strings: nonzero numeric prefix). AND is FALSE if either side is FALSE,
//     else NULL if either is NULL, else TRUE; OR is TRUE if either is TRUE,
//     else NULL if either is NULL, else FALSE; XOR and NOT are NULL on NULL.
//   - is_null/is_not_null accept any type (no conversion) and is_true,
//     is_false, is_not_true, is_not_false test a BOOLEAN; none is ever NULL.
//   - in(x, v1, ...) is TRUE when x equals some vi, else NULL when x or any
//     vi is NULL, else FALSE; values compare as comparisons do (see
//     compareType). A list of constants is searched by a set built once per
//     batch (a linear scan for short lists).

func init() {
	boolCheck := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		return coldata.Bool, sameTypes(coldata.Bool, len(args)), nil
	}
	Register(&Function{Name: "and", Infix: true, MinArgs: 2, MaxArgs: 2, Check: boolCheck,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return andOr(args[0], args[1], n, true) }})
	Register(&Function{Name: "or", Infix: true, MinArgs: 2, MaxArgs: 2, Check: boolCheck,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return andOr(args[0], args[1], n, false) }})
	Register(&Function{Name: "xor", Infix: true, MinArgs: 2, MaxArgs: 2, Check: boolCheck,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return xorVecs(args[0], args[1], n) }})
	Register(&Function{Name: "not", MinArgs: 1, MaxArgs: 1, Check: boolCheck,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return notVec(args[0], n) }})

	Register(&Function{Name: "is_null", MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.Bool, []coldata.Type{args[0]}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return nullTest(args[0], n, true), nil }})
	Register(&Function{Name: "is_not_null", MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.Bool, []coldata.Type{args[0]}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return nullTest(args[0], n, false), nil }})
	// truthTest answers for (NULL, FALSE, TRUE).
	for name, answers := range map[string][3]byte{
		"is_true":      {0, 0, 1},
		"is_false":     {0, 1, 0},
		"is_not_true":  {1, 1, 0},
		"is_not_false": {1, 0, 1},
	} {
		answers := answers
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1, Check: boolCheck,
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return truthTest(args[0], n, answers) }})
	}

	Register(&Function{Name: "in", MinArgs: 2, MaxArgs: -1, Check: compareCheck, Eval: evalIn})
}

// toBoolVec converts v to BOOLEAN when a direct call skipped Check.
func toBoolVec(v *coldata.Vec, n int) (*coldata.Vec, error) {
	if v.Type == coldata.Bool {
		return v, nil
	}
	return castVec(v, coldata.Bool, n)
}

// andOr is three-valued AND (isAnd) or OR.
func andOr(a, b *coldata.Vec, n int, isAnd bool) (*coldata.Vec, error) {
	var err error
	if a, err = toBoolVec(a, n); err != nil {
		return nil, err
	}
	if b, err = toBoolVec(b, n); err != nil {
		return nil, err
	}
	if a.Const && b.Const {
		out, err := andOr(one(a), one(b), 1, isAnd)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	if a.Const {
		a, b = b, a
	}
	// A constant that decides alone: TRUE AND x = x, FALSE OR x = x,
	// FALSE AND x = FALSE, TRUE OR x = TRUE.
	if b.Const && (b.Nulls == nil || b.Nulls[0]&1 != 0) {
		if (b.Bools[0] != 0) == isAnd {
			return a, nil
		}
		return coldata.NewConst(coldata.Bool, !isAnd, n), nil
	}
	var out *coldata.Vec
	if b.Const {
		out = coldata.NewVec(coldata.Bool, n) // only some rows are written
	} else {
		out = coldata.AllocVec(coldata.Bool, n) // every row is written
	}
	r := out.Bools
	x := a.Bools[:n]
	if b.Const {
		// b is NULL: AND gives FALSE where a is FALSE, else NULL; OR gives
		// TRUE where a is TRUE, else NULL.
		valid := make([]byte, n)
		for i, p := range x {
			if validAt(a.Nulls, i) && (p != 0) != isAnd {
				valid[i] = 1
				r[i] = p
			}
		}
		out.Nulls = bytesToBitmap(valid, n)
		return out, nil
	}
	out.Nulls = andOrWords(x, b.Bools, r, a.Nulls, b.Nulls, n, isAnd)
	return out, nil
}

// xorVecs is a XOR b: NULL if either is NULL.
func xorVecs(a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	var err error
	if a, err = toBoolVec(a, n); err != nil {
		return nil, err
	}
	if b, err = toBoolVec(b, n); err != nil {
		return nil, err
	}
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(coldata.Bool, nil, n), nil
	}
	if a.Const && b.Const {
		return coldata.NewConst(coldata.Bool, (a.Bools[0] != 0) != (b.Bools[0] != 0), n), nil
	}
	if a.Const {
		a, b = b, a
	}
	out := coldata.NewVec(coldata.Bool, n)
	out.Nulls = CombineNulls([]*coldata.Vec{a, b}, n)
	r, x := out.Bools, a.Bools[:n]
	if b.Const {
		q := b.Bools[0]
		for i, p := range x {
			r[i] = p ^ q
		}
	} else {
		y := b.Bools[:n]
		for i, p := range x {
			r[i] = p ^ y[i]
		}
	}
	return out, nil
}

// notVec is NOT a: NULL stays NULL.
func notVec(a *coldata.Vec, n int) (*coldata.Vec, error) {
	a, err := toBoolVec(a, n)
	if err != nil {
		return nil, err
	}
	if isConstNull(a) {
		return coldata.NewConst(coldata.Bool, nil, n), nil
	}
	rows := n
	if a.Const {
		rows = 1
	}
	out := coldata.AllocVec(coldata.Bool, rows) // every row is written
	xorWords(out.Bools, a.Bools[:rows], 1)
	if a.Nulls != nil {
		out.Nulls = a.Nulls[:coldata.BitmapLen(rows)]
	}
	if a.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

// nullTest is IS NULL (wantNull) or IS NOT NULL of any vector.
func nullTest(v *coldata.Vec, n int, wantNull bool) *coldata.Vec {
	switch {
	case isConstNull(v):
		return coldata.NewConst(coldata.Bool, wantNull, n)
	case v.Nulls == nil || v.Const:
		return coldata.NewConst(coldata.Bool, !wantNull, n)
	}
	out := coldata.NewVec(coldata.Bool, n)
	flip := b2u8(wantNull)
	for i := range out.Bools {
		out.Bools[i] = v.Nulls[i>>3]>>(uint(i)&7)&1 ^ flip
	}
	return out
}

// truthTest is IS [NOT] TRUE/FALSE: answers gives the result for NULL,
// FALSE and TRUE rows.
func truthTest(v *coldata.Vec, n int, answers [3]byte) (*coldata.Vec, error) {
	v, err := toBoolVec(v, n)
	if err != nil {
		return nil, err
	}
	if isConstNull(v) {
		return coldata.NewConst(coldata.Bool, answers[0] != 0, n), nil
	}
	if v.Const {
		return coldata.NewConst(coldata.Bool, answers[1+int(v.Bools[0]&1)] != 0, n), nil
	}
	out := coldata.NewVec(coldata.Bool, n)
	r := out.Bools
	for i, p := range v.Bools[:n] {
		k := 1 + int(p&1)
		if !validAt(v.Nulls, i) {
			k = 0
		}
		r[i] = answers[k]
	}
	return out, nil
}

// evalIn is MySQL's IN over vectors converted to one comparison type.
func evalIn(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	types := make([]coldata.Type, len(args))
	for i, a := range args {
		types[i] = a.Type
	}
	t := compareType(types)
	conv := make([]*coldata.Vec, len(args))
	allConst := true
	for i, a := range args {
		c, err := castVec(a, t, n)
		if err != nil {
			return nil, err
		}
		conv[i] = c
		if i > 0 && !c.Const {
			allConst = false
		}
	}
	x, list := conv[0], conv[1:]
	if isConstNull(x) {
		return coldata.NewConst(coldata.Bool, nil, n), nil
	}
	if x.Const && allConst {
		out, err := evalIn(oneAll(conv), 1)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	if allConst {
		return inConstList(x, list, n), nil
	}
	return inColumns(x, list, n), nil
}

func oneAll(vs []*coldata.Vec) []*coldata.Vec {
	out := make([]*coldata.Vec, len(vs))
	for i, v := range vs {
		out[i] = one(v)
	}
	return out
}

// inSetLinear is the list length up to which a scan beats hashing.
const inSetLinear = 8

// inWordsMinRows is the fewest rows for which a string column is
// compared with a short list one item at a time.
const inWordsMinRows = 64

// inConstList tests a column against a list of constants.
func inConstList(x *coldata.Vec, list []*coldata.Vec, n int) *coldata.Vec {
	listNull := false
	var items []*coldata.Vec
	for _, v := range list {
		if isConstNull(v) {
			listNull = true
		} else {
			items = append(items, v)
		}
	}
	out := coldata.AllocVec(coldata.Bool, n) // the loops below write every row
	r := out.Bools
	switch x.Type.Physical() {
	case coldata.Int64:
		vals := make([]int64, len(items))
		for i, v := range items {
			vals[i] = v.Ints[0]
		}
		if len(vals) <= inSetLinear {
			inOrdered(x.Ints[:n], vals, r)
		} else {
			inInts(x.Ints[:n], vals, r)
		}
	case coldata.Float64:
		vals := make([]float64, len(items))
		for i, v := range items {
			vals[i] = v.Floats[0]
		}
		inOrdered(x.Floats[:n], vals, r)
	case coldata.Decimal:
		clear(r)
		for i := range r {
			for _, v := range items {
				if x.Decs[i].Cmp(v.Decs[0]) == 0 {
					r[i] = 1
					break
				}
			}
		}
	case coldata.String:
		offs, data := x.Offsets[:n+1], x.Bytes
		if len(items) <= inSetLinear && len(items) > 0 && n >= inWordsMinRows {
			// One branch-free equality pass per item (Q12's l_shipmode IN
			// ('MAIL', 'SHIP')), ORed together: the row-by-row search
			// below mispredicts on every row of a column of mixed values.
			var eq []byte
			for k, v := range items {
				if k == 0 {
					cmpStringsVC(cmpEQ, offs, data, v.Str(0), r)
					continue
				}
				if eq == nil {
					eq = coldata.AllocVec(coldata.Bool, n).Bools
				}
				cmpStringsVC(cmpEQ, offs, data, v.Str(0), eq)
				orWords(r, eq)
			}
			if eq != nil {
				coldata.Recycle(&coldata.Vec{Type: coldata.Bool, Bools: eq})
			}
		} else if len(items) <= inSetLinear {
			clear(r)
			for i := range r {
				s := data[offs[i]:offs[i+1]]
				for _, v := range items {
					if string(s) == string(v.Str(0)) {
						r[i] = 1
						break
					}
				}
			}
		} else {
			set := make(map[string]struct{}, len(items))
			for _, v := range items {
				set[string(v.Str(0))] = struct{}{}
			}
			for i := range r {
				_, ok := set[string(data[offs[i]:offs[i+1]])]
				r[i] = b2u8(ok)
			}
		}
	default:
		clear(r)
	}
	// NULL where x is NULL, or where nothing matched and the list has a NULL.
	var valid []byte
	if x.Nulls != nil {
		valid = append([]byte(nil), x.Nulls[:coldata.BitmapLen(n)]...)
	}
	if listNull {
		if valid == nil {
			valid = coldata.NewValidBitmap(n)
		}
		for i, p := range r {
			if p == 0 {
				valid[i>>3] &^= 1 << (uint(i) & 7)
			}
		}
	}
	out.Nulls = valid
	return out
}

// inOrdered sets r[i] when x[i] is one of vals (NaN matches nothing).
func inOrdered[T int64 | float64](x, vals []T, r []byte) {
	r = r[:len(x)]
	if len(vals) <= inSetLinear {
		// Every item for every row: a loop of fixed length, where
		// stopping at the first match branches on the data.
		for i, p := range x {
			var hit byte
			for _, q := range vals {
				hit |= b2u8(p == q)
			}
			r[i] = hit
		}
		return
	}
	set := make(map[T]struct{}, len(vals))
	for _, q := range vals {
		set[q] = struct{}{}
	}
	for i, p := range x {
		_, ok := set[p]
		r[i] = b2u8(ok)
	}
}

// inBitmapSpan is the widest range of list values (max - min + 1) that
// inInts tests with a bitmap (128 KiB), one load per row; wider lists
// are hashed.
const inBitmapSpan = 1 << 20

// inInts sets r[i] when x[i] is one of vals, for lists longer than
// inSetLinear: a bitmap over the values' range where it is narrow (an IN
// list of keys a subquery produced: TPC-H keys, ids), else an
// open-addressing set probed without Go map overhead (100 ns a row for a
// 158-key list through map[int64]).
func inInts(x, vals []int64, r []byte) {
	r = r[:len(x)]
	lo, hi := vals[0], vals[0]
	for _, v := range vals[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	span := uint64(hi) - uint64(lo) // exact: hi >= lo
	if span < inBitmapSpan {
		bits := make([]uint64, span/64+1)
		for _, v := range vals {
			d := uint64(v) - uint64(lo)
			bits[d/64] |= 1 << (d % 64)
		}
		for i, p := range x {
			// Values outside [lo, hi] wrap past span.
			d := uint64(p) - uint64(lo)
			var hit byte
			if d <= span {
				hit = byte(bits[d/64] >> (d % 64) & 1)
			}
			r[i] = hit
		}
		return
	}
	size := 1
	for size < 2*len(vals) {
		size *= 2
	}
	mask := uint64(size - 1)
	slots := make([]int64, size)
	used := make([]bool, size)
	for _, v := range vals {
		h := hashmix.Mix64(uint64(v)) & mask
		for used[h] && slots[h] != v {
			h = (h + 1) & mask
		}
		slots[h], used[h] = v, true
	}
	for i, p := range x {
		h := hashmix.Mix64(uint64(p)) & mask
		var hit byte
		for used[h] {
			if slots[h] == p {
				hit = 1
				break
			}
			h = (h + 1) & mask
		}
		r[i] = hit
	}
}

// inColumns tests x against a list holding columns, one list item at a time
// over the rows not yet matched.
func inColumns(x *coldata.Vec, list []*coldata.Vec, n int) *coldata.Vec {
	out := coldata.NewVec(coldata.Bool, n)
	found := out.Bools
	sawNull := make([]byte, n)
	eq := make([]byte, n)
	for _, v := range list {
		if isConstNull(v) {
			for i := range sawNull {
				sawNull[i] = 1
			}
			continue
		}
		if x.Const && v.Const {
			var e [1]byte
			compareInto(cmpEQ, one(x), one(v), e[:])
			for i := range eq {
				eq[i] = e[0]
			}
		} else {
			compareInto(cmpEQ, x, v, eq)
		}
		m := rowMask(v)
		for i, e := range eq {
			if !validAt(v.Nulls, i&m) {
				sawNull[i] = 1
			} else {
				found[i] |= e
			}
		}
	}
	valid := make([]byte, n)
	mx := rowMask(x)
	for i, f := range found {
		valid[i] = b2u8(validAt(x.Nulls, i&mx) && (f != 0 || sawNull[i] == 0))
		found[i] = f & valid[i]
	}
	out.Nulls = bytesToBitmap(valid, n)
	return out
}
