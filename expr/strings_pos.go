package expr

import (
	"bytes"
	"fmt"
	"math"

	"github.com/gsqlengine/gsql/coldata"
)

// ---- SUBSTRING, LEFT, RIGHT, SUBSTRING_INDEX, SPLIT_PART, LOCATE, INSTR ----

// strSubstringSpan is MySQL's SUBSTRING(s, pos, count): pos is 1-based in
// characters, 0 gives "", a negative pos counts from the end (and gives ""
// when it reaches before the start), count <= 0 gives "".
func strSubstringSpan(s []byte, pos, count int64) (lo, hi int) {
	if pos == 0 || count <= 0 {
		return 0, 0
	}
	if pos > 0 {
		return strCharRange(s, pos-1, count)
	}
	cl := strCharLen(s)
	if pos < -int64(cl) {
		return 0, 0
	}
	start := int64(cl) + pos
	if cl == len(s) { // ASCII: byte arithmetic
		end := int64(cl)
		if count < end-start {
			end = start + count
		}
		return int(start), int(end)
	}
	return strCharRange(s, start, count)
}

func strSubstring(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.Int64, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	pos := args[1]
	if len(args) == 2 {
		return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
			return strSubstringSpan(s, pos.Int(i), math.MaxInt64)
		})
	}
	cnt := args[2]
	return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
		return strSubstringSpan(s, pos.Int(i), cnt.Int(i))
	})
}

// strLeft is LEFT(s, n): the first n characters; n <= 0 gives "".
func strLeft(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	cnt := args[1]
	return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
		return 0, strCharOffset(s, cnt.Int(i))
	})
}

// strRight is RIGHT(s, n): the last n characters; n <= 0 gives "".
func strRight(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	cnt := args[1]
	return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
		k := cnt.Int(i)
		if k <= 0 {
			return 0, 0
		}
		cl := strCharLen(s)
		if k >= int64(cl) {
			return 0, len(s)
		}
		if cl == len(s) {
			return len(s) - int(k), len(s)
		}
		return strCharOffset(s, int64(cl)-k), len(s)
	})
}

// strSubstringIndexSpan is MySQL's SUBSTRING_INDEX(s, delim, count):
// count > 0 keeps what is left of the count-th delimiter from the left
// (searching left to right, non-overlapping); count < 0 keeps what is right
// of the |count|-th delimiter from the right (searching right to left, as
// MySQL's strrstr loop does); fewer delimiters give the whole string; count
// 0, an empty delimiter or an empty string give "". Matching is bytewise.
func strSubstringIndexSpan(s, d []byte, count int64) (lo, hi int) {
	if len(d) == 0 || count == 0 || len(s) == 0 {
		return 0, 0
	}
	if count > 0 {
		off := 0
		for {
			k := bytes.Index(s[off:], d)
			if k < 0 {
				return 0, len(s)
			}
			off += k
			count--
			if count == 0 {
				return 0, off
			}
			off += len(d)
		}
	}
	// A negative count counts from the end, but MySQL finds the
	// occurrences left to right without overlaps ('aa' in 'aaaaa' is at 0
	// and 2, not at 3) and keeps the text after the one -count from the
	// end; fewer occurrences than that keep the whole string.
	occ := int64(0)
	for off := 0; ; {
		k := bytes.Index(s[off:], d)
		if k < 0 {
			break
		}
		occ++
		off += k + len(d)
	}
	want := occ + count + 1 // the occurrence to cut after, from the left
	if want <= 0 {
		return 0, len(s)
	}
	off := 0
	for j := int64(1); ; j++ {
		off += bytes.Index(s[off:], d)
		if j == want {
			return off + len(d), len(s)
		}
		off += len(d)
	}
}

func strSubstringIndex(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.String, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	delim, cnt := args[1], args[2]
	return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
		return strSubstringIndexSpan(s, delim.Str(i), cnt.Int(i))
	})
}

// strSplitPartSpan follows DuckDB, whose split_part(s, d, n) is the macro
// coalesce(string_split(s, d)[n], ""): s is split at the non-overlapping
// occurrences of d found left to right (bytewise); n is 1-based, negative n
// counts from the end (-1 is the last part); n = 0 and parts out of range
// give "" (DuckDB's list index 0 is NULL, which the coalesce turns into "").
// An empty delimiter splits s into characters (DuckDB's string_split
// does), so split_part('abc', "", 2) = 'b'.
func strSplitPartSpan(s, d []byte, n int64) (lo, hi int) {
	if n == 0 {
		return 0, 0
	}
	if len(d) == 0 {
		if n > 0 {
			return strCharRange(s, n-1, 1)
		}
		cl := int64(strCharLen(s))
		if n < -cl {
			return 0, 0
		}
		if cl == int64(len(s)) {
			return int(cl + n), int(cl + n + 1)
		}
		return strCharRange(s, cl+n, 1)
	}
	if n < 0 {
		if len(d) == 1 {
			// From the right; with a one-byte delimiter this equals the
			// left-to-right split.
			c := d[0]
			end := len(s)
			for part := int64(-1); ; part-- {
				k := bytes.LastIndexByte(s[:end], c)
				if part == n {
					return k + 1, end
				}
				if k < 0 {
					return 0, 0
				}
				end = k
			}
		}
		// A longer delimiter may overlap itself ('aa' in 'aaa'): count the
		// left-to-right occurrences and select the part from the left.
		parts := int64(bytes.Count(s, d)) + 1
		if n < -parts {
			return 0, 0
		}
		n = parts + n + 1
	}
	off := 0
	for part := int64(1); ; part++ {
		k := bytes.Index(s[off:], d)
		if part == n {
			if k < 0 {
				return off, len(s)
			}
			return off, off + k
		}
		if k < 0 {
			return 0, 0
		}
		off += k + len(d)
	}
}

func strSplitPart(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String, coldata.String, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	delim, part := args[1], args[2]
	return strSpans(n, CombineNulls(args, n), args[0], func(i int, s []byte) (int, int) {
		return strSplitPartSpan(s, delim.Str(i), part.Int(i))
	})
}

// strLocateRow is MySQL's LOCATE(sub, s, pos): the 1-based character
// position of the first occurrence of sub in s that starts at or after
// character pos, 0 when there is none or pos <= 0 or pos is past the end.
// An empty sub is found at pos itself when pos <= CHAR_LENGTH(s)+1.
// (MySQL returns the byte offset+1 there for multibyte strings, a bug we
// do not copy.) Matches are bytewise but only at character boundaries.
func strLocateRow(sub, s []byte, pos int64) int64 {
	if pos <= 0 || pos-1 > int64(len(s)) {
		return 0
	}
	from := strCharOffset(s, pos-1)
	chars := pos - 1
	if from == len(s) && pos > 1 && int64(strCharLen(s)) < pos-1 {
		return 0
	}
	if len(sub) == 0 {
		return pos
	}
	for {
		k := bytes.Index(s[from:], sub)
		if k < 0 {
			return 0
		}
		idx := from + k
		if !strIsCont(sub[0]) {
			// idx starts a character (see utf8.go).
			return chars + int64(strCharLen(s[from:idx])) + 1
		}
		p := from
		for p < idx {
			p += strCharWidth(s, p)
			chars++
		}
		if p == idx {
			return chars + 1
		}
		from = p // the match began inside a character: search on
	}
}

func strLocate(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Int64, args, n, coldata.String, coldata.String, coldata.Int64); r != nil || err != nil {
		return r, err
	}
	sub, s := args[0], args[1]
	valid := CombineNulls(args, n)
	out := strIntResult(n, valid)
	for i := 0; i < n; i++ {
		if strRowValid(valid, i) {
			pos := int64(1)
			if len(args) == 3 {
				pos = args[2].Int(i)
			}
			out.Ints[i] = strLocateRow(sub.Str(i), s.Str(i), pos)
		}
	}
	return out, nil
}

// strInstr is INSTR(s, sub) = LOCATE(sub, s).
func strInstr(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("internal error: INSTR takes 2 arguments, got %d", len(args))
	}
	return strLocate([]*coldata.Vec{args[1], args[0]}, n)
}
