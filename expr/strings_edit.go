package expr

import (
	"bytes"

	"github.com/gsqlengine/gsql/coldata"
)

// ---- CONCAT, CONCAT_WS, REPLACE, TRIM, LPAD, RPAD, REPEAT, SPACE ----

// strConcat is CONCAT(s...): NULL when any argument is NULL.
func strConcat(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	size := func(i int) int {
		sz := 0
		for _, a := range args {
			sz += len(a.Str(i))
		}
		return sz
	}
	fill := func(i int, dst []byte) {
		d := 0
		for _, a := range args {
			d += copy(dst[d:], a.Str(i))
		}
	}
	return strBuild(n, CombineNulls(args, n), strMaxBytes, size, fill)
}

// strConcatWS is CONCAT_WS(sep, s...): NULL when sep is NULL; NULL
// arguments are skipped (no separator for them), empty strings are not;
// all arguments NULL gives "".
func strConcatWS(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if err := strCheckArgs(args, n, coldata.String); err != nil {
		return nil, err
	}
	sep, vals := args[0], args[1:]
	if sep.Type == coldata.Null || (sep.Const && sep.IsNull(0)) {
		return strNullResult(coldata.String, n), nil
	}
	valid := CombineNulls(args[:1], n)
	size := func(i int) int {
		sz, k := 0, 0
		for _, a := range vals {
			if a.Type == coldata.Null || a.IsNull(i) {
				continue
			}
			sz += len(a.Str(i))
			k++
		}
		if k > 1 {
			sz += (k - 1) * len(sep.Str(i))
		}
		return sz
	}
	fill := func(i int, dst []byte) {
		d, k := 0, 0
		sp := sep.Str(i)
		for _, a := range vals {
			if a.Type == coldata.Null || a.IsNull(i) {
				continue
			}
			if k > 0 {
				d += copy(dst[d:], sp)
			}
			d += copy(dst[d:], a.Str(i))
			k++
		}
	}
	return strBuild(n, valid, strMaxBytes, size, fill)
}

// strReplace is REPLACE(s, from, to): every non-overlapping occurrence of
// from, found left to right bytewise, becomes to; an empty from leaves s.
// As in MySQL, the replacement is read only when there is a match: with an
// empty or absent from a NULL to leaves s, and only a row with a match
// and a NULL to is NULL.
func strReplace(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args[:2], n, coldata.String); r != nil || err != nil {
		return r, err
	}
	if err := strCheckArgs(args[2:], n, coldata.String); err != nil {
		return nil, err
	}
	src, from, to := args[0], args[1], args[2]
	toNull := func(i int) bool { return to.Type == coldata.Null || to.IsNull(i) }
	valid := CombineNulls(args[:2], n)
	if to.Type == coldata.Null || to.Nulls != nil {
		for i := 0; i < n; i++ {
			if !validAt(valid, i) || !toNull(i) {
				continue
			}
			if f := from.Str(i); len(f) > 0 && bytes.Contains(src.Str(i), f) {
				if valid == nil {
					valid = coldata.NewValidBitmap(n)
				}
				coldata.ClearBit(valid, i)
			}
		}
	}
	size := func(i int) int {
		s, f := src.Str(i), from.Str(i)
		if len(f) == 0 || toNull(i) {
			return len(s) // nothing to replace (a NULL replacement with a match is a NULL row)
		}
		c := bytes.Count(s, f)
		return len(s) + c*(len(to.Str(i))-len(f))
	}
	fill := func(i int, dst []byte) {
		s, f := src.Str(i), from.Str(i)
		if len(f) == 0 || toNull(i) {
			copy(dst, s)
			return
		}
		t := to.Str(i)
		d := 0
		for {
			k := bytes.Index(s, f)
			if k < 0 {
				copy(dst[d:], s)
				return
			}
			d += copy(dst[d:], s[:k])
			d += copy(dst[d:], t)
			s = s[k+len(f):]
		}
	}
	return strBuild(n, valid, strMaxGrowBytes, size, fill)
}

const (
	strTrimLeading = 1 << iota
	strTrimTrailing
)

var strSpace1 = []byte{' '}

// strTrimSpan removes repeated whole occurrences of r from the leading
// and/or trailing side of s (leading first, as MySQL's TRIM(BOTH) does).
func strTrimSpan(s, r []byte, sides int) (lo, hi int) {
	lo, hi = 0, len(s)
	if len(r) == 0 {
		return
	}
	if len(r) == 1 {
		c := r[0]
		if sides&strTrimLeading != 0 {
			for lo < hi && s[lo] == c {
				lo++
			}
		}
		if sides&strTrimTrailing != 0 {
			for hi > lo && s[hi-1] == c {
				hi--
			}
		}
		return
	}
	if sides&strTrimLeading != 0 {
		for bytes.HasPrefix(s[lo:hi], r) {
			lo += len(r)
		}
	}
	if sides&strTrimTrailing != 0 {
		for bytes.HasSuffix(s[lo:hi], r) {
			hi -= len(r)
		}
	}
	return
}

// strTrim is TRIM/LTRIM/RTRIM(s[, remstr]): without remstr only spaces
// (' ') are removed, as MySQL does; an empty remstr leaves s unchanged.
func strTrim(args []*coldata.Vec, n int, sides int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	if len(args) == 1 {
		return strSpans(n, CombineNulls(args, n), args[0], func(_ int, s []byte) (int, int) {
			return strTrimSpan(s, strSpace1, sides)
		})
	}
	rem := args[1]
	return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
		return strTrimSpan(s, rem.Str(i), sides)
	})
}

func strTrimBoth(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strTrim(args, n, strTrimLeading|strTrimTrailing)
}

func strTrimLeft(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strTrim(args, n, strTrimLeading)
}

func strTrimRight(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strTrim(args, n, strTrimTrailing)
}

// strFillCyclic fills dst with repetitions of pat (len(pat) > 0), doubling
// the copied region so long outputs cost O(log) copy calls.
func strFillCyclic(dst, pat []byte) {
	if len(dst) == 0 {
		return
	}
	k := copy(dst, pat)
	for k < len(dst) {
		k += copy(dst[k:], dst[:k])
	}
}

// strPad is LPAD/RPAD(s, len, pad) with MySQL semantics: the result has
// exactly len characters; a longer s is cut to its first len characters
// (for both functions); len < 0 gives NULL, and so does an empty pad when
// padding is needed. Results over strMaxGrowBytes are an error.
func strPad(args []*coldata.Vec, n int, left bool) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.Int64, coldata.String); r != nil || err != nil {
		return r, err
	}
	src, lenv, padv := args[0], args[1], args[2]
	constPad := padv.Const
	var cpad []byte
	var cpadChars int
	if constPad {
		cpad = padv.Str(0)
		cpadChars = strCharLen(cpad)
	}
	size := func(i int) int {
		l := lenv.Int(i)
		if l < 0 {
			return -1
		}
		s := src.Str(i)
		if l <= int64(len(s)) {
			// Possibly long enough already: cut at len characters.
			if off := strCharOffset(s, l); off < len(s) || int64(strCharLen(s)) >= l {
				return off
			}
		}
		pad, padChars := cpad, cpadChars
		if !constPad {
			pad = padv.Str(i)
			padChars = strCharLen(pad)
		}
		if padChars == 0 {
			return -1
		}
		if l > strMaxGrowBytes {
			return strMaxGrowBytes + 1 // every character takes a byte at least
		}
		need := l - int64(strCharLen(s))
		q, r := need/int64(padChars), need%int64(padChars)
		return len(s) + int(q)*len(pad) + strCharOffset(pad, r)
	}
	fill := func(i int, dst []byte) {
		s := src.Str(i)
		if len(dst) <= len(s) {
			copy(dst, s)
			return
		}
		pad := cpad
		if !constPad {
			pad = padv.Str(i)
		}
		np := len(dst) - len(s)
		if left {
			strFillCyclic(dst[:np], pad)
			copy(dst[np:], s)
		} else {
			copy(dst, s)
			strFillCyclic(dst[len(s):], pad)
		}
	}
	return strBuild(n, CombineNulls(args, n), strMaxGrowBytes, size, fill)
}

func strLpad(args []*coldata.Vec, n int) (*coldata.Vec, error) { return strPad(args, n, true) }

func strRpad(args []*coldata.Vec, n int) (*coldata.Vec, error) { return strPad(args, n, false) }

// strRepeat is REPEAT(s, n): s n times, "" for n <= 0; an error when the
// result would pass strMaxGrowBytes.
func strRepeat(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	src, cnt := args[0], args[1]
	size := func(i int) int {
		k, s := cnt.Int(i), src.Str(i)
		if k <= 0 || len(s) == 0 {
			return 0
		}
		if k > int64(strMaxGrowBytes/len(s)) {
			return strMaxGrowBytes + 1
		}
		return int(k) * len(s)
	}
	fill := func(i int, dst []byte) { strFillCyclic(dst, src.Str(i)) }
	return strBuild(n, CombineNulls(args, n), strMaxGrowBytes, size, fill)
}

// strSpace is SPACE(n): n spaces, "" for n <= 0.
func strSpace(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	cnt := args[0]
	size := func(i int) int {
		k := cnt.Int(i)
		if k <= 0 {
			return 0
		}
		if k > strMaxGrowBytes {
			return strMaxGrowBytes + 1
		}
		return int(k)
	}
	fill := func(_ int, dst []byte) { strFillCyclic(dst, strSpace1) }
	return strBuild(n, CombineNulls(args, n), strMaxGrowBytes, size, fill)
}
