package expr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/gsqlengine/gsql/coldata"
)

// LIKE with MySQL semantics over our binary collation: '%' matches any
// sequence of characters, '_' exactly one character (utf8.go's model), all
// else matches itself bytewise and case-sensitively, trailing spaces count.
// The escape character (default '\', or the one-character third argument;
// MySQL treats ESCAPE '' as the default) makes the next pattern character
// literal; an escape at the very end of the pattern is a literal itself.

type likeKind uint8

const (
	likeLit  likeKind = iota // a run of valid UTF-8 text: m.arena[lo:hi]
	likeByte                 // one invalid byte, which must be a whole character of s
	likeAny                  // '_'
	likeStar                 // '%' (runs collapsed)
)

type likeTok struct {
	kind   likeKind
	b      byte
	lo, hi int32
}

type likeMode uint8

const (
	likeGeneric likeMode = iota
	likeExact            // no wildcards: s == lit
	likePrefix           // lit%
	likeSuffix           // %lit
	likeInfix            // %lit%
	likeAll              // %
)

// likeMatcher is a compiled pattern. Its buffers are reused when one
// matcher compiles the pattern of every row.
type likeMatcher struct {
	toks  []likeTok
	arena []byte
	mode  likeMode
	lit   []byte
}

// likeDefaultEscape is MySQL's default escape character.
var likeDefaultEscape = []byte{'\\'}

// likeEscapeChar validates an ESCAPE argument: one character, or "" for
// the default.
func likeEscapeChar(e []byte) ([]byte, error) {
	if len(e) == 0 {
		return likeDefaultEscape, nil
	}
	if strCharWidth(e, 0) != len(e) {
		return nil, fmt.Errorf("ESCAPE must be a single character, got %q", e)
	}
	return e, nil
}

// compile turns pat into tokens, with esc (one character) as the escape.
func (m *likeMatcher) compile(pat, esc []byte) {
	m.toks = m.toks[:0]
	m.arena = m.arena[:0]
	inLit := false
	addLit := func(c []byte) {
		if !inLit {
			m.toks = append(m.toks, likeTok{kind: likeLit, lo: int32(len(m.arena))})
			inLit = true
		}
		m.arena = append(m.arena, c...)
		m.toks[len(m.toks)-1].hi = int32(len(m.arena))
	}
	for i := 0; i < len(pat); {
		w := strCharWidth(pat, i)
		c := pat[i : i+w]
		switch {
		case len(esc) > 0 && bytes.Equal(c, esc) && i+w < len(pat):
			i += w
			w = strCharWidth(pat, i)
			c = pat[i : i+w]
		case w == 1 && c[0] == '%':
			inLit = false
			if n := len(m.toks); n == 0 || m.toks[n-1].kind != likeStar {
				m.toks = append(m.toks, likeTok{kind: likeStar})
			}
			i++
			continue
		case w == 1 && c[0] == '_':
			inLit = false
			m.toks = append(m.toks, likeTok{kind: likeAny})
			i++
			continue
		}
		if w == 1 && c[0] >= utf8.RuneSelf {
			inLit = false
			m.toks = append(m.toks, likeTok{kind: likeByte, b: c[0]})
		} else {
			addLit(c)
		}
		i += w
	}
	m.classify()
}

// classify picks a fast path for the common pattern shapes.
func (m *likeMatcher) classify() {
	m.mode = likeGeneric
	t := m.toks
	lit := func(k int) bool { return t[k].kind == likeLit }
	star := func(k int) bool { return t[k].kind == likeStar }
	switch {
	case len(t) == 0:
		m.mode, m.lit = likeExact, nil
	case len(t) == 1 && lit(0):
		m.mode = likeExact
	case len(t) == 1 && star(0):
		m.mode = likeAll
	case len(t) == 2 && lit(0) && star(1):
		m.mode = likePrefix
	case len(t) == 2 && star(0) && lit(1):
		m.mode = likeSuffix
	case len(t) == 3 && star(0) && lit(1) && star(2):
		m.mode = likeInfix
	}
	if m.mode != likeGeneric && m.mode != likeAll && len(t) > 0 {
		for _, x := range t {
			if x.kind == likeLit {
				m.lit = m.arena[x.lo:x.hi]
			}
		}
	}
}

// match reports whether s matches the compiled pattern. The generic path
// is the iterative wildcard algorithm that backtracks only to the last '%'
// (O(len(s) * tokens) at worst, never exponential), with bytes.Index to jump
// to the next occurrence of the literal that follows a '%'. Since literal
// runs are valid UTF-8 and positions are character boundaries, bytewise
// comparison equals character comparison (see utf8.go).
func (m *likeMatcher) match(s []byte) bool {
	switch m.mode {
	case likeExact:
		return bytes.Equal(s, m.lit)
	case likePrefix:
		return bytes.HasPrefix(s, m.lit)
	case likeSuffix:
		return bytes.HasSuffix(s, m.lit)
	case likeInfix:
		return bytes.Contains(s, m.lit)
	case likeAll:
		return true
	}
	toks := m.toks
	si, ti := 0, 0
	star, starS := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case likeStar:
				if ti == len(toks)-1 {
					return true
				}
				star, ti = ti, ti+1
				if nt := &toks[ti]; nt.kind == likeLit {
					k := bytes.Index(s[si:], m.arena[nt.lo:nt.hi])
					if k < 0 {
						return false
					}
					si += k
				}
				starS = si
				continue
			case likeLit:
				if l := m.arena[t.lo:t.hi]; bytes.HasPrefix(s[si:], l) {
					si += len(l)
					ti++
					continue
				}
			case likeByte:
				if si < len(s) && s[si] == t.b && strCharWidth(s, si) == 1 {
					si++
					ti++
					continue
				}
			case likeAny:
				if si < len(s) {
					si += strCharWidth(s, si)
					ti++
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		// Mismatch: let the last '%' swallow one more character.
		if star < 0 || starS >= len(s) {
			return false
		}
		starS += strCharWidth(s, starS)
		si, ti = starS, star+1
		if nt := &toks[ti]; nt.kind == likeLit {
			k := bytes.Index(s[si:], m.arena[nt.lo:nt.hi])
			if k < 0 {
				return false
			}
			si += k
			starS = si
		}
	}
}

// likeEval is like(s, pattern[, escape]) -> BOOLEAN.
func likeEval(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Bool, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	src, pat := args[0], args[1]
	valid := CombineNulls(args, n)
	out := strBoolResult(n, valid)
	esc := likeDefaultEscape
	constEsc := len(args) < 3 || args[2].Const
	if len(args) == 3 && args[2].Const {
		e, err := likeEscapeChar(args[2].Str(0))
		if err != nil {
			return nil, err
		}
		esc = e
	}
	m := &likeMatcher{}
	if pat.Const && constEsc {
		m.compile(pat.Str(0), esc)
		if !src.Const && m.scanColumn(src.Offsets[:n+1], src.Bytes, valid, out.Bools[:n]) {
			return out, nil
		}
		for i := 0; i < n; i++ {
			if strRowValid(valid, i) && m.match(src.Str(i)) {
				out.Bools[i] = 1
			}
		}
		return out, nil
	}
	// A pattern per row: recompile only when pattern or escape changes.
	var lastPat, lastEsc []byte
	compiled := false
	for i := 0; i < n; i++ {
		if !strRowValid(valid, i) {
			continue
		}
		p := pat.Str(i)
		if !constEsc {
			e, err := likeEscapeChar(args[2].Str(i))
			if err != nil {
				return nil, err
			}
			esc = e
		}
		if !compiled || !bytes.Equal(p, lastPat) || !bytes.Equal(esc, lastEsc) {
			m.compile(p, esc)
			lastPat, lastEsc, compiled = p, esc, true
		}
		if m.match(src.Str(i)) {
			out.Bools[i] = 1
		}
	}
	return out, nil
}

// Whole-column search. A row can match a pattern only if it contains
// each literal of the pattern, so for a pattern with a literal somewhere
// inside it ('%special%requests%': TPC-H Q13) the rows are not searched
// one by one. Instead the column's contiguous bytes are searched for one
// or two adjacent bytes of a literal, those rarest in a sample of the
// data: a single byte with bytes.IndexByte (SIMD, but a call per
// occurrence, so only for a byte seldom there), a pair eight positions
// a step (likePairs). Each occurrence that completes the literal inside
// one row makes that row a candidate, which the matcher then decides, and
// the search resumes at the next row. Rows the search passes over do not
// match. Literal runs are valid UTF-8, so the search is bytewise as the
// matcher's is.

const (
	// likeScanMinBytes is the least column data worth sampling.
	likeScanMinBytes = 1 << 10
	// likeScanSample is how many bytes the frequencies come from.
	likeScanSample = 4 << 10
	// likeByteShare: search for a single byte when it is at most
	// 1/likeByteShare of the sample.
	likeByteShare = 256
	// likeRowsPerHit: and only when it occurs at most once in that many
	// rows (of the sample's mean length), a pair too: each occurrence
	// that completes the literal costs a call of the matcher on the
	// whole row, and a search that stops in most rows costs more than
	// matching them one by one.
	likeRowsPerHit = 4
)

// likeNeedle is what scanColumn searches for: lit[at] (and lit[at+1]
// when pair) of one literal of the pattern.
type likeNeedle struct {
	lit  []byte
	at   int
	pair bool
}

// pickNeedle chooses the byte or pair of the pattern's literals rarest
// in sample, rows of rowLen bytes on average; ok is false when none is
// rare enough.
func (m *likeMatcher) pickNeedle(sample []byte, rowLen int) (nd likeNeedle, ok bool) {
	var freq [256]int
	for _, c := range sample {
		freq[c]++
	}
	bestByte, bestPair := len(sample)+1, len(sample)+1
	var byteN, pairN likeNeedle
	for _, t := range m.toks {
		if t.kind != likeLit {
			continue
		}
		l := m.arena[t.lo:t.hi]
		for j, c := range l {
			if f := freq[c]; f < bestByte || (f == bestByte && len(l) > len(byteN.lit)) {
				byteN, bestByte = likeNeedle{lit: l, at: j}, f
			}
		}
		for j := 0; j+1 < len(l); j++ {
			if freq[l[j]] >= bestPair || freq[l[j+1]] >= bestPair {
				continue // the pair is no rarer than either byte
			}
			if f := bytes.Count(sample, l[j:j+2]); f < bestPair {
				pairN, bestPair = likeNeedle{lit: l, at: j, pair: true}, f
			}
		}
	}
	rare := func(count, share int) bool {
		return count*share <= len(sample) && count*rowLen*likeRowsPerHit <= len(sample)
	}
	switch {
	case byteN.lit == nil:
		return nd, false
	case rare(bestByte, likeByteShare):
		return byteN, true
	case pairN.lit != nil && rare(bestPair, 1):
		return pairN, true
	}
	return nd, false
}

// scanColumn writes into r (zeroed by the caller) whether each row
// matches, for rows offs[i]..offs[i+1] of data valid in the bitmap valid
// (nil: all); NULL rows are left 0. It returns false, having written
// nothing, when the pattern or the data does not suit the search.
func (m *likeMatcher) scanColumn(offs []int32, data []byte, valid []byte, r []byte) bool {
	if m.mode != likeInfix && m.mode != likeGeneric {
		return false
	}
	n := len(r)
	start, end := int(offs[0]), int(offs[n])
	if end-start < likeScanMinBytes {
		return false
	}
	nd, ok := m.pickNeedle(data[start:min(end, start+likeScanSample)], (end-start)/n)
	if !ok {
		return false
	}
	// The literal is the whole pattern's test for %lit%.
	whole := m.mode == likeInfix
	lit, at := nd.lit, nd.at
	c := lit[at]
	var c2 byte
	if nd.pair {
		c2 = lit[at+1]
	}
	row := 0
	for pos := start; pos < end; {
		var h int
		if nd.pair {
			h = likePairs(data, pos, end, c, c2)
		} else if h = bytes.IndexByte(data[pos:end], c); h >= 0 {
			h += pos
		}
		if h < 0 {
			break
		}
		for int(offs[row+1]) <= h {
			row++
		}
		lo, hi := int(offs[row]), int(offs[row+1])
		ls := h - at // where the literal would start
		if ls < lo || ls+len(lit) > hi || !bytes.Equal(data[ls:ls+len(lit)], lit) {
			pos = h + 1
			continue
		}
		if strRowValid(valid, row) && (whole || m.match(data[lo:hi])) {
			r[row] = 1
		}
		pos = hi // the row is decided
	}
	return true
}

// likePairs returns the first position p in [pos, end-1) with data[p] =
// c1 and data[p+1] = c2, or -1. It tests eight positions a step: the
// eight bytes at p XORed with c1 in every byte, ORed with the eight at
// p+1 XORed with c2, have a zero byte exactly where the pair starts, and
// (z - 0x01..01) &^ z & 0x80..80 flags every zero byte of z (and, through
// a borrow, possibly a byte above one: a flag is only a candidate, checked
// below).
func likePairs(data []byte, pos, end int, c1, c2 byte) int {
	const lo8, hi8 = 0x0101010101010101, 0x8080808080808080
	k1, k2 := uint64(c1)*lo8, uint64(c2)*lo8
	if w := data[pos:end]; len(w) >= 16 {
		// cur holds the eight bytes at p, next the eight after them; the
		// bytes at p+1 are cur>>8 | next<<56.
		cur := binary.LittleEndian.Uint64(w)
		for len(w) >= 16 {
			next := binary.LittleEndian.Uint64(w[8:16])
			z := (cur ^ k1) | ((cur>>8 | next<<56) ^ k2)
			if f := (z - lo8) &^ z & hi8; f != 0 {
				p0 := end - len(w)
				for ; f != 0; f &= f - 1 {
					if p := p0 + bits.TrailingZeros64(f)>>3; data[p] == c1 && data[p+1] == c2 {
						return p
					}
				}
			}
			cur = next
			w = w[8:]
		}
		pos = end - len(w)
	}
	for ; pos+1 < end; pos++ {
		if data[pos] == c1 && data[pos+1] == c2 {
			return pos
		}
	}
	return -1
}
