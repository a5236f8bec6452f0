package expr

import "encoding/binary"

// Eight rows at a time. A BOOLEAN vector holds one byte per row, 0 or 1,
// so eight rows are one little-endian uint64 whose bytes are 0 or 1, and
// one byte of a validity bitmap covers the same eight rows. The kernels
// below combine whole words and move between the two forms with
// expandBits (bitmap byte -> word) and packBits (word -> bitmap byte).

// ones8 has the low bit of every byte set: eight TRUE rows.
const ones8 = 0x0101010101010101

// expandBits[m] has byte k set to bit k of m.
var expandBits = func() (t [256]uint64) {
	for m := range t {
		for k := 0; k < 8; k++ {
			t[m] |= uint64(m>>k&1) << (8 * k)
		}
	}
	return t
}()

// packBits returns the byte whose bit k is the low bit of byte k of w;
// the other bits of w's bytes must be 0. The multiplier has bit 56-7k set
// for k in 0..7, which moves bit 8k to bit 56+k; no two of the 64 partial
// products land on the same bit, so nothing carries.
func packBits(w uint64) byte {
	return byte((w * 0x0102040810204080) >> 56)
}

// loadWord is rows i..i+7 of a BOOLEAN vector's bytes.
func loadWord(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i : i+8]) }

// storeWord writes rows i..i+7.
func storeWord(b []byte, i int, w uint64) { binary.LittleEndian.PutUint64(b[i:i+8], w) }

// validWord is the validity of rows 8j..8j+7 as a word of 0/1 bytes:
// all valid when nulls is nil.
func validWord(nulls []byte, j int) uint64 {
	if nulls == nil {
		return ones8
	}
	return expandBits[nulls[j]]
}

// andOrWords is the three-valued AND (isAnd) or OR of the n rows of x and
// y with validity bitmaps xn and yn (nil: no NULLs), into r. It returns
// the result's validity bitmap, nil when no row is NULL. A row is TRUE
// only when valid and 1 (a NULL row's data is ignored); the result's NULL
// rows hold 0.
func andOrWords(x, y, r []byte, xn, yn []byte, n int, isAnd bool) []byte {
	x, y, r = x[:n], y[:n], r[:n]
	if xn == nil && yn == nil {
		i := 0
		if isAnd {
			for ; i+8 <= n; i += 8 {
				storeWord(r, i, loadWord(x, i)&loadWord(y, i))
			}
			for ; i < n; i++ {
				r[i] = x[i] & y[i]
			}
		} else {
			for ; i+8 <= n; i += 8 {
				storeWord(r, i, loadWord(x, i)|loadWord(y, i))
			}
			for ; i < n; i++ {
				r[i] = x[i] | y[i]
			}
		}
		return nil
	}
	valid := make([]byte, (n+7)>>3)
	var missing byte // OR of the complements of valid's bytes: 0 when none is NULL
	full := n >> 3
	for j := 0; j < full; j++ {
		i := j << 3
		va, vb := validWord(xn, j), validWord(yn, j)
		p, q := loadWord(x, i), loadWord(y, i)
		ta, tb := p&va, q&vb                 // definitely TRUE
		fa, fb := (p^ones8)&va, (q^ones8)&vb // definitely FALSE
		var res, ok uint64
		if isAnd {
			res = ta & tb
			ok = fa | fb | res
		} else {
			res = ta | tb
			ok = res | (fa & fb)
		}
		storeWord(r, i, res)
		v := packBits(ok)
		valid[j] = v
		missing |= ^v
	}
	for i := full << 3; i < n; i++ {
		va, vb := b2u8(validAt(xn, i)), b2u8(validAt(yn, i))
		p, q := x[i], y[i]
		ta, tb := p&va, q&vb
		fa, fb := (p^1)&va, (q^1)&vb
		var res, ok byte
		if isAnd {
			res = ta & tb
			ok = fa | fb | res
		} else {
			res = ta | tb
			ok = res | (fa & fb)
		}
		r[i] = res
		valid[i>>3] |= ok << (uint(i) & 7)
		missing |= (ok ^ 1)
	}
	if missing == 0 {
		return nil
	}
	return valid
}

// xorWords sets r[i] = x[i] ^ k for every row of x.
func xorWords(r, x []byte, k byte) {
	n := len(x)
	r = r[:n]
	kw := uint64(k) * ones8
	i := 0
	for ; i+8 <= n; i += 8 {
		storeWord(r, i, loadWord(x, i)^kw)
	}
	for ; i < n; i++ {
		r[i] = x[i] ^ k
	}
}

// AppendTrue appends to sel the rows i of a BOOLEAN filter mask where
// bools[i] is non-zero (TRUE) and nulls (nil: no NULLs) marks i valid,
// in order, and returns the extended slice. Eight rows are taken at a
// time: a word with no TRUE row (most of them, under a selective filter)
// is skipped whole, and the rows of the others are written without a
// branch per row.
func AppendTrue(sel []int, bools, nulls []byte) []int {
	n := len(bools)
	base := len(sel)
	if cap(sel)-base < n {
		grown := make([]int, base, base+n)
		copy(grown, sel)
		sel = grown
	}
	out := sel[:base+n]
	k := base
	const low7 = 0x7f7f7f7f7f7f7f7f
	i := 0
	for ; i+8 <= n; i += 8 {
		w := loadWord(bools, i)
		w = ((w&low7 + low7) | w) >> 7 & ones8 // 1 in each non-zero byte, else 0
		if nulls != nil {
			w &= expandBits[nulls[i>>3]]
		}
		if w == 0 {
			continue
		}
		for b := 0; b < 8; b++ {
			out[k] = i + b
			k += int(w >> (8 * b) & 1)
		}
	}
	for ; i < n; i++ {
		out[k] = i
		k += int(b2u8(bools[i] != 0 && validAt(nulls, i)))
	}
	return out[:k]
}

// orWords sets r[i] |= x[i] for every row of r.
func orWords(r, x []byte) {
	n := len(r)
	x = x[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		storeWord(r, i, loadWord(r, i)|loadWord(x, i))
	}
	for ; i < n; i++ {
		r[i] |= x[i]
	}
}
