package expr

import (
	"unicode"
	"unicode/utf8"

	"github.com/gsqlengine/gsql/coldata"
)

// ---- UPPER, LOWER, REVERSE ----

var strUpperTab, strLowerTab [256]byte

func init() {
	for i := range strUpperTab {
		c := byte(i)
		strUpperTab[i], strLowerTab[i] = c, c
		if c >= 'a' && c <= 'z' {
			strUpperTab[i] = c - 'a' + 'A'
		}
		if c >= 'A' && c <= 'Z' {
			strLowerTab[i] = c - 'A' + 'a'
		}
	}
}

func strUpper(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strCaseMap(args, n, &strUpperTab, unicode.ToUpper)
}

func strLower(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strCaseMap(args, n, &strLowerTab, unicode.ToLower)
}

// strCaseMap maps each character through conv (ASCII through tab). Invalid
// bytes are copied unchanged. A non-ASCII character's mapping may change its
// byte length, so such rows are sized first.
func strCaseMap(args []*coldata.Vec, n int, tab *[256]byte, conv func(rune) rune) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	src := args[0]
	valid := CombineNulls(args, n)
	if !src.Const {
		// Whole-vector fast path: all bytes ASCII, the layout is unchanged.
		base := src.Offsets[0]
		in := src.Bytes[base:src.Offsets[n]]
		if strIsASCII(in) {
			offs := make([]int32, n+1)
			for i := range offs {
				offs[i] = src.Offsets[i] - base
			}
			buf := make([]byte, len(in))
			for k, c := range in {
				buf[k] = tab[c]
			}
			return &coldata.Vec{Type: coldata.String, Len: n, Nulls: valid, Offsets: offs, Bytes: buf}, nil
		}
	}
	size := func(i int) int {
		s := src.Str(i)
		if strIsASCII(s) {
			return len(s)
		}
		sz := 0
		for k := 0; k < len(s); {
			if s[k] < utf8.RuneSelf {
				sz++
				k++
				continue
			}
			r, w := utf8.DecodeRune(s[k:])
			k += w
			if r == utf8.RuneError && w == 1 {
				sz++
			} else {
				sz += utf8.RuneLen(conv(r))
			}
		}
		return sz
	}
	fill := func(i int, dst []byte) {
		s := src.Str(i)
		d := 0
		for k := 0; k < len(s) && d < len(dst); {
			c := s[k]
			if c < utf8.RuneSelf {
				dst[d] = tab[c]
				d++
				k++
				continue
			}
			r, w := utf8.DecodeRune(s[k:])
			if r == utf8.RuneError && w == 1 {
				dst[d] = c
				d++
			} else {
				d += utf8.EncodeRune(dst[d:], conv(r))
			}
			k += w
		}
	}
	return strBuild(n, valid, strMaxBytes, size, fill)
}

// strReverse is REVERSE(s), by characters (an invalid byte is one character).
func strReverse(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.String, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	src := args[0]
	size := func(i int) int { return len(src.Str(i)) }
	fill := func(i int, dst []byte) {
		s := src.Str(i)
		end := len(dst)
		for k := 0; k < len(s); {
			if s[k] < utf8.RuneSelf {
				end--
				dst[end] = s[k]
				k++
				continue
			}
			w := strCharWidth(s, k)
			end -= w
			copy(dst[end:end+w], s[k:k+w])
			k += w
		}
	}
	return strBuild(n, CombineNulls(args, n), strMaxBytes, size, fill)
}
