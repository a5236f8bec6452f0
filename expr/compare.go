package expr

import (
	"bytes"
	"encoding/binary"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// Comparisons =, <> (alias !=), <, <=, >, >= and the NULL-safe <=>, MySQL
// rules (see compareType): two strings compare bytewise, numbers against
// numbers as BIGINT (both BIGINT/BOOLEAN) or DOUBLE, a string against a
// number as DOUBLE ('1' = 1, 'abc' = 0). The result is BOOLEAN, NULL when
// either side is NULL, except for <=> which is never NULL. NaN (which MySQL
// never produces) is unequal to everything.
//
// Loops are specialised per operator, type and shape; a constant left-hand
// side is turned into a constant right-hand side by flipping the operator,
// so `col = 'x'` and `'x' = col` run the same loop.

type cmpOp uint8

const (
	cmpEQ cmpOp = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
)

var cmpNames = [...]string{cmpEQ: "=", cmpNE: "<>", cmpLT: "<", cmpLE: "<=", cmpGT: ">", cmpGE: ">="}

// flip is the operator that gives the same answer with the operands swapped.
func (op cmpOp) flip() cmpOp {
	return [...]cmpOp{cmpEQ: cmpEQ, cmpNE: cmpNE, cmpLT: cmpGT, cmpLE: cmpGE, cmpGT: cmpLT, cmpGE: cmpLE}[op]
}

// holds tells whether the operator accepts an ordering result c (-1, 0, 1).
func (op cmpOp) holds(c int) bool {
	switch op {
	case cmpEQ:
		return c == 0
	case cmpNE:
		return c != 0
	case cmpLT:
		return c < 0
	case cmpLE:
		return c <= 0
	case cmpGT:
		return c > 0
	}
	return c >= 0
}

func compareCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	return coldata.Bool, sameTypes(compareType(args), len(args)), nil
}

func init() {
	for op := cmpEQ; op <= cmpGE; op++ {
		op := op
		Register(&Function{Name: cmpNames[op], Infix: true, MinArgs: 2, MaxArgs: 2, Check: compareCheck,
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				return compareVecs(op, args[0], args[1], n)
			}})
	}
	Alias("!=", "<>")
	Register(&Function{Name: "<=>", Infix: true, MinArgs: 2, MaxArgs: 2, Check: compareCheck,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return nullSafeEqual(args[0], args[1], n)
		}})
}

// unifyCompare converts a and b to their comparison type when they differ
// (only direct calls that skipped Check need it).
func unifyCompare(a, b *coldata.Vec, n int) (*coldata.Vec, *coldata.Vec, error) {
	if a.Type == b.Type && a.Type != coldata.Bool {
		return a, b, nil
	}
	t := compareType([]coldata.Type{a.Type, b.Type})
	var err error
	if a, err = castVec(a, t, n); err != nil {
		return nil, nil, err
	}
	if b, err = castVec(b, t, n); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// compareVecs evaluates a op b over n rows.
func compareVecs(op cmpOp, a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	a, b, err := unifyCompare(a, b, n)
	if err != nil {
		return nil, err
	}
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(coldata.Bool, nil, n), nil
	}
	if a.Const && b.Const {
		out := coldata.NewVec(coldata.Bool, 1)
		compareInto(op, one(a), one(b), out.Bools)
		return constOf(out, n), nil
	}
	var out *coldata.Vec
	switch a.Type.Physical() {
	case coldata.Int64, coldata.Float64, coldata.Decimal, coldata.String:
		out = coldata.AllocVec(coldata.Bool, n) // compareInto writes every row
	default:
		out = coldata.NewVec(coldata.Bool, n)
	}
	out.Nulls = CombineNulls([]*coldata.Vec{a, b}, n)
	compareInto(op, a, b, out.Bools)
	return out, nil
}

// compareInto writes a op b for len(r) rows into r, ignoring NULLs.
func compareInto(op cmpOp, a, b *coldata.Vec, r []byte) {
	if a.Const && !b.Const {
		a, b, op = b, a, op.flip()
	}
	n := len(r)
	switch a.Type.Physical() {
	case coldata.Int64:
		if b.Const {
			cmpOrderedVC(op, a.Ints[:n], b.Ints[0], r)
		} else {
			cmpOrderedVV(op, a.Ints[:n], b.Ints[:n], r)
		}
	case coldata.Float64:
		if b.Const {
			cmpOrderedVC(op, a.Floats[:n], b.Floats[0], r)
		} else {
			cmpOrderedVV(op, a.Floats[:n], b.Floats[:n], r)
		}
	case coldata.Decimal:
		if b.Const {
			cmpDecimalsVC(op, a.Decs[:n], b.Decs[0], r)
		} else {
			cmpDecimalsVV(op, a.Decs[:n], b.Decs[:n], r)
		}
	case coldata.String:
		if b.Const {
			cmpStringsVC(op, a.Offsets[:n+1], a.Bytes, b.Str(0), r)
		} else {
			cmpStringsVV(op, a, b, r)
		}
	}
}

// cmpDecimalsVC compares a DECIMAL column with a constant of the same
// scale (TPC-H Q6's discount and quantity ranges), one loop per operator.
// When the constant is an int64 the rows are first compared as int64s
// (cmpDecimals64VC), which also tells whether every row is one; else, or
// when some row is not, a 128-bit value orders by its signed high word,
// then its unsigned low word.
func cmpDecimalsVC(op cmpOp, x []decimal.Int128, k decimal.Int128, r []byte) {
	r = r[:len(x)]
	if k64, ok := smallDec(k); ok && cmpDecimals64VC(op, x, k64, r) {
		return
	}
	switch op {
	case cmpEQ:
		for i, v := range x {
			r[i] = b2u8(v == k)
		}
	case cmpNE:
		for i, v := range x {
			r[i] = b2u8(v != k)
		}
	case cmpLT:
		for i, v := range x {
			r[i] = b2u8(v.Hi < k.Hi || (v.Hi == k.Hi && v.Lo < k.Lo))
		}
	case cmpLE:
		for i, v := range x {
			r[i] = b2u8(v.Hi < k.Hi || (v.Hi == k.Hi && v.Lo <= k.Lo))
		}
	case cmpGT:
		for i, v := range x {
			r[i] = b2u8(v.Hi > k.Hi || (v.Hi == k.Hi && v.Lo > k.Lo))
		}
	case cmpGE:
		for i, v := range x {
			r[i] = b2u8(v.Hi > k.Hi || (v.Hi == k.Hi && v.Lo >= k.Lo))
		}
	}
}

// cmpDecimals64VC is cmpDecimalsVC for a constant k that is an int64,
// comparing each row's low word as an int64. Every row is compared
// without a branch, and the loop ORs together each row's high word XOR
// the sign extension of its low word: zero exactly when every row is an
// int64 (then the answers are right); otherwise it returns false and r
// is to be recomputed.
func cmpDecimals64VC(op cmpOp, x []decimal.Int128, k int64, r []byte) bool {
	r = r[:len(x)]
	var bad int64
	switch op {
	case cmpEQ:
		for i, v := range x {
			lo := int64(v.Lo)
			bad |= v.Hi ^ lo>>63
			r[i] = b2u8(lo == k)
		}
	case cmpNE:
		for i, v := range x {
			lo := int64(v.Lo)
			bad |= v.Hi ^ lo>>63
			r[i] = b2u8(lo != k)
		}
	case cmpLT:
		for i, v := range x {
			lo := int64(v.Lo)
			bad |= v.Hi ^ lo>>63
			r[i] = b2u8(lo < k)
		}
	case cmpLE:
		for i, v := range x {
			lo := int64(v.Lo)
			bad |= v.Hi ^ lo>>63
			r[i] = b2u8(lo <= k)
		}
	case cmpGT:
		for i, v := range x {
			lo := int64(v.Lo)
			bad |= v.Hi ^ lo>>63
			r[i] = b2u8(lo > k)
		}
	case cmpGE:
		for i, v := range x {
			lo := int64(v.Lo)
			bad |= v.Hi ^ lo>>63
			r[i] = b2u8(lo >= k)
		}
	}
	return bad == 0
}

// cmpDecimalsVV compares two DECIMAL columns of one scale: as int64s
// when every row of both is one (checked as cmpDecimals64VC does), else
// row by row in 128 bits.
func cmpDecimalsVV(op cmpOp, x, y []decimal.Int128, r []byte) {
	r = r[:len(x)]
	y = y[:len(x)]
	var bad int64
	tab := cmpTable(op)
	for i, v := range x {
		w := y[i]
		a, b := int64(v.Lo), int64(w.Lo)
		bad |= (v.Hi ^ a>>63) | (w.Hi ^ b>>63)
		// -1, 0 or 1 without a branch.
		r[i] = tab[1+int(b2u8(a > b))-int(b2u8(a < b))]
	}
	if bad == 0 {
		return
	}
	for i, v := range x {
		r[i] = tab[v.Cmp(y[i])+1]
	}
}

// cmpOrderedVV compares two columns; the type parameter gives one compiled
// loop per element type, with the operator applied directly.
func cmpOrderedVV[T int64 | float64](op cmpOp, x, y []T, r []byte) {
	y = y[:len(x)]
	r = r[:len(x)]
	switch op {
	case cmpEQ:
		for i, p := range x {
			r[i] = b2u8(p == y[i])
		}
	case cmpNE:
		for i, p := range x {
			r[i] = b2u8(p != y[i])
		}
	case cmpLT:
		for i, p := range x {
			r[i] = b2u8(p < y[i])
		}
	case cmpLE:
		for i, p := range x {
			r[i] = b2u8(p <= y[i])
		}
	case cmpGT:
		for i, p := range x {
			r[i] = b2u8(p > y[i])
		}
	case cmpGE:
		for i, p := range x {
			r[i] = b2u8(p >= y[i])
		}
	}
}

// cmpOrderedVC compares a column with a constant.
func cmpOrderedVC[T int64 | float64](op cmpOp, x []T, q T, r []byte) {
	r = r[:len(x)]
	switch op {
	case cmpEQ:
		for i, p := range x {
			r[i] = b2u8(p == q)
		}
	case cmpNE:
		for i, p := range x {
			r[i] = b2u8(p != q)
		}
	case cmpLT:
		for i, p := range x {
			r[i] = b2u8(p < q)
		}
	case cmpLE:
		for i, p := range x {
			r[i] = b2u8(p <= q)
		}
	case cmpGT:
		for i, p := range x {
			r[i] = b2u8(p > q)
		}
	case cmpGE:
		for i, p := range x {
			r[i] = b2u8(p >= q)
		}
	}
}

// cmpTable maps an ordering result c+1 (0, 1, 2) to the operator's answer.
func cmpTable(op cmpOp) [3]byte {
	return [3]byte{b2u8(op.holds(-1)), b2u8(op.holds(0)), b2u8(op.holds(1))}
}

// cmpStringsVC compares a string column (offsets, data) with a constant;
// = and <> test the length first and skip the byte comparison on a mismatch.
func cmpStringsVC(op cmpOp, offs []int32, data, needle []byte, r []byte) {
	r = r[:len(offs)-1]
	if op == cmpEQ || op == cmpNE {
		eq, ne := b2u8(op == cmpEQ), b2u8(op == cmpNE)
		ln := int32(len(needle))
		if ln <= 8 {
			eqStringsShort(offs, data, needle, r, ne)
			return
		}
		if ln <= eqWordsMax {
			eqStringsWords(offs, data, needle, r, ne)
			return
		}
		for i := range r {
			lo, hi := offs[i], offs[i+1]
			if hi-lo == ln && string(data[lo:hi]) == string(needle) {
				r[i] = eq
			} else {
				r[i] = ne
			}
		}
		return
	}
	tab := cmpTable(op)
	for i := range r {
		r[i] = tab[bytes.Compare(data[offs[i]:offs[i+1]], needle)+1]
	}
}

// eqStringsShort is = (ne 0) or <> (ne 1) against a needle of at most 8
// bytes, without branches on the data: each row's first 8 bytes are loaded
// as one word, masked to the needle's length and compared, and the length
// test is folded in arithmetically (random lengths would defeat the branch
// predictor).
func eqStringsShort(offs []int32, data, needle []byte, r []byte, ne byte) {
	ln := int32(len(needle))
	var nw uint64
	for k, c := range needle {
		nw |= uint64(c) << (8 * k)
	}
	mask := uint64(1)<<(8*uint(ln)) - 1
	if ln == 8 {
		mask = ^uint64(0)
	}
	safe := int32(len(data)) - 8 // rows starting at or before this can load 8 bytes
	for i := range r {
		lo, hi := offs[i], offs[i+1]
		var w uint64
		if lo <= safe {
			w = binary.LittleEndian.Uint64(data[lo:])
		} else {
			for k, c := range data[lo:hi] {
				w |= uint64(c) << (8 * k)
			}
		}
		r[i] = b2u8(w&mask == nw)&b2u8(hi-lo == ln) ^ ne
	}
}

// eqWordsMax is the longest needle eqStringsWords compares.
const eqWordsMax = 24

// eqStringsWords is eqStringsShort for a needle of 9 to eqWordsMax bytes
// (TPC-H Q19's l_shipinstruct = 'DELIVER IN PERSON'): each row is
// compared as the needle's two or three words, at offsets 0 (and 8) and
// one ending at the needle's end (overlapping the one before), XORed and
// ORed together, with the length test folded in: no branch depends on
// the data, where testing the length first mispredicts on columns of
// mixed lengths. Rows too near the end of the data to load every word
// are compared bytewise.
func eqStringsWords(offs []int32, data, needle []byte, r []byte, ne byte) {
	ln := int32(len(needle))
	le := binary.LittleEndian
	n0, nl := le.Uint64(needle), le.Uint64(needle[ln-8:])
	last := ln - 8
	// The rows from m on start too near the end of the data to load
	// every word (offsets never decrease, so they are a suffix).
	safe := int32(len(data)) - max(ln, 16)
	m := len(r)
	for m > 0 && offs[m-1] > safe {
		m--
	}
	if ln <= 16 {
		for i := range r[:m] {
			lo := offs[i]
			w := data[lo:]
			diff := (le.Uint64(w) ^ n0) | (le.Uint64(w[last:]) ^ nl)
			r[i] = b2u8(diff == 0)&b2u8(offs[i+1]-lo == ln) ^ ne
		}
	} else {
		n1 := le.Uint64(needle[8:])
		for i := range r[:m] {
			lo := offs[i]
			w := data[lo:]
			diff := (le.Uint64(w) ^ n0) | (le.Uint64(w[8:]) ^ n1) | (le.Uint64(w[last:]) ^ nl)
			r[i] = b2u8(diff == 0)&b2u8(offs[i+1]-lo == ln) ^ ne
		}
	}
	for i := m; i < len(r); i++ {
		r[i] = b2u8(string(data[offs[i]:offs[i+1]]) == string(needle)) ^ ne
	}
}

// cmpStringsVV compares two string columns.
func cmpStringsVV(op cmpOp, a, b *coldata.Vec, r []byte) {
	n := len(r)
	ao, bo := a.Offsets[:n+1], b.Offsets[:n+1]
	ad, bd := a.Bytes, b.Bytes
	if op == cmpEQ || op == cmpNE {
		eq := op == cmpEQ
		for i := range r {
			r[i] = b2u8((string(ad[ao[i]:ao[i+1]]) == string(bd[bo[i]:bo[i+1]])) == eq)
		}
		return
	}
	tab := cmpTable(op)
	for i := range r {
		r[i] = tab[bytes.Compare(ad[ao[i]:ao[i+1]], bd[bo[i]:bo[i+1]])+1]
	}
}

// nullSafeEqual is a <=> b: TRUE when both are NULL or both are equal,
// FALSE otherwise; never NULL.
func nullSafeEqual(a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	a, b, err := unifyCompare(a, b, n)
	if err != nil {
		return nil, err
	}
	an, bn := isConstNull(a), isConstNull(b)
	switch {
	case an && bn:
		return coldata.NewConst(coldata.Bool, true, n), nil
	case an || bn:
		// x <=> NULL is x IS NULL.
		other := a
		if an {
			other = b
		}
		return nullTest(other, n, true), nil
	}
	if a.Const && b.Const {
		out := coldata.NewVec(coldata.Bool, 1)
		compareInto(cmpEQ, one(a), one(b), out.Bools)
		return constOf(out, n), nil
	}
	out := coldata.NewVec(coldata.Bool, n)
	r := out.Bools
	compareInto(cmpEQ, a, b, r)
	if a.Nulls == nil && b.Nulls == nil {
		return out, nil
	}
	ma, mb := rowMask(a), rowMask(b)
	for i := range r {
		va, vb := validAt(a.Nulls, i&ma), validAt(b.Nulls, i&mb)
		if !va || !vb {
			r[i] = b2u8(va == vb)
		}
	}
	return out, nil
}
