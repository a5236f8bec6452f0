package expr

import (
	"bytes"
	"fmt"
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
