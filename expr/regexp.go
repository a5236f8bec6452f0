package expr

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"

	"github.com/gsqlengine/gsql/coldata"
)

// Regular expressions, MySQL 8's functions with RE2 syntax (Go's regexp):
//
//   - regexp_like(s, p[, flags]) (also s REGEXP p, s RLIKE p): whether p
//     matches anywhere in s.
//   - regexp_replace(s, p, r[, pos[, occurrence[, flags]]]): s with matches
//     of p from character pos on replaced by r (occurrence 0: every match,
//     else only the n-th); $1 or \1 in r is a group.
//   - regexp_substr(s, p[, pos[, occurrence[, flags]]]): the occurrence-th
//     match from pos, NULL when there is none.
//   - regexp_instr(s, p[, pos[, occurrence[, return_option[, flags]]]]):
//     the character position of that match (return_option 1: just after
//     it), 0 when there is none.
//
// Flags: c case-sensitive (the default: gsql compares bytewise), i
// case-insensitive, m multi-line, n '.' matches newlines; the last of c/i
// wins. A NULL argument gives NULL; an invalid pattern or flag, or a
// position below 1, is an error. Patterns are compiled once per distinct
// value of a batch.

// ErrRegexp is an invalid pattern or flag.
var ErrRegexp = fmt.Errorf("invalid regular expression")

func init() {
	s, i64, b := coldata.String, coldata.Int64, coldata.Bool
	Register(&Function{Name: "regexp_like", MinArgs: 2, MaxArgs: 3, Check: Fixed(b, s, s, s), Eval: regexpLike})
	Register(&Function{Name: "regexp_replace", MinArgs: 3, MaxArgs: 6, Check: Fixed(s, s, s, s, i64, i64, s), Eval: regexpReplace})
	Register(&Function{Name: "regexp_substr", MinArgs: 2, MaxArgs: 5, Check: Fixed(s, s, s, i64, i64, s), Eval: regexpSubstr})
	Register(&Function{Name: "regexp_instr", MinArgs: 2, MaxArgs: 6, Check: Fixed(i64, s, s, i64, i64, i64, s), Eval: regexpInstr})
	Alias("rlike", "regexp_like")
}

// RegexpSource is the RE2 source of pattern p under MySQL's match flags
// (c case-sensitive, i case-insensitive, the last of the two winning; m
// multi-line; n '.' matches newlines), as Go's regexp and the GPU engine
// compile it; an unknown flag is an ErrRegexp.
func RegexpSource(p, flags string) (string, error) {
	prefix := ""
	ci := false
	for _, f := range flags {
		switch f {
		case 'c':
			ci = false
		case 'i':
			ci = true
		case 'm':
			prefix += "m"
		case 'n':
			prefix += "s"
		default:
			return "", fmt.Errorf("%w: unknown match flag %q", ErrRegexp, f)
		}
	}
	if ci {
		prefix += "i"
	}
	if prefix == "" {
		return p, nil
	}
	return "(?" + prefix + ")" + p, nil
}

// regexCache compiles each distinct (pattern, flags) of a batch once.
type regexCache map[string]*regexp.Regexp

func (c regexCache) get(p, flags []byte) (*regexp.Regexp, error) {
	key := string(flags) + "\x00" + string(p)
	if re, ok := c[key]; ok {
		return re, nil
	}
	src, err := RegexpSource(string(p), string(flags))
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrRegexp, p, err)
	}
	c[key] = re
	return re, nil
}

// maxRegexArgs is the most arguments a regexp function takes.
const maxRegexArgs = 7

// regexRow is one row's arguments, read without allocating: strs[k] is
// string argument k as a view of its vector (valid while the vector is),
// ints[k] integer argument k; n is how many arguments there are.
type regexRow struct {
	strs [maxRegexArgs][]byte
	ints [maxRegexArgs]int64
	n    int
}

// str is string argument k.
func (r *regexRow) str(k int) []byte { return r.strs[k] }

// optInt is optional integer argument k (def when absent).
func (r *regexRow) optInt(k int, def int64) int64 {
	if k < r.n {
		return r.ints[k]
	}
	return def
}

// read fills r with row i's arguments; false when one is NULL.
func (r *regexRow) read(args []*coldata.Vec, i int) bool {
	r.n = len(args)
	for k, a := range args {
		if a.Type == coldata.Null || a.IsNull(i) {
			return false
		}
		if a.Type == coldata.Int64 {
			r.ints[k] = a.Int(i)
		} else {
			r.strs[k] = a.Str(i)
		}
	}
	return true
}

// regexEach runs fn over the rows whose arguments are all non-NULL, giving
// the compiled pattern (args 1, with the flags argument at flagsAt when
// present) and the row's values; NULL rows get null(). A pattern (and
// flags) equal to the previous row's is not looked up again, so a
// constant pattern costs one comparison a row, and nothing is allocated
// per row.
func regexEach(args []*coldata.Vec, n, flagsAt int, null func(), fn func(re *regexp.Regexp, row *regexRow) error) error {
	if len(args) > maxRegexArgs {
		return fmt.Errorf("%w: %d arguments (at most %d)", ErrRegexp, len(args), maxRegexArgs)
	}
	cache := regexCache{}
	var (
		row                regexRow
		re                 *regexp.Regexp
		lastPat, lastFlags []byte
	)
	for i := 0; i < n; i++ {
		if !row.read(args, i) {
			null()
			continue
		}
		var flags []byte
		if flagsAt < row.n {
			flags = row.strs[flagsAt]
		}
		pat := row.strs[1]
		if re == nil || !bytes.Equal(pat, lastPat) || !bytes.Equal(flags, lastFlags) {
			var err error
			if re, err = cache.get(pat, flags); err != nil {
				return err
			}
			lastPat, lastFlags = pat, flags
		}
		if err := fn(re, &row); err != nil {
			return err
		}
	}
	return nil
}

func regexpLike(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.Bool, n)
	err := regexEach(args, n, 2, out.AppendNull, func(re *regexp.Regexp, row *regexRow) error {
		out.AppendBool(re.Match(row.str(0)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}

// startByte is the byte offset of 1-based character position pos in s
// (len(s) when past the end); positions below 1 are an error.
func startByte(fn string, s []byte, pos int64) (int, error) {
	if pos < 1 {
		return 0, fmt.Errorf("%w in %s: position %d is out of range", ErrOutOfRange, fn, pos)
	}
	off := 0
	for k := int64(1); k < pos && off < len(s); k++ {
		_, w := utf8.DecodeRune(s[off:])
		off += w
	}
	return off, nil
}

// nthMatch returns the submatch indexes (relative to s) of the
// occurrence-th (1-based) match of re in s at or after byte from, or nil.
func nthMatch(re *regexp.Regexp, s []byte, from int, occurrence int64) []int {
	if occurrence < 1 {
		occurrence = 1
	}
	ms := re.FindAllSubmatchIndex(s[from:], int(min(occurrence, 1<<20)))
	if int64(len(ms)) < occurrence {
		return nil
	}
	m := ms[occurrence-1]
	for k := range m {
		if m[k] >= 0 {
			m[k] += from
		}
	}
	return m
}

var backref = regexp.MustCompile(`\\([0-9])`)

// anchoredAtStart reports whether every match of re starts at the
// beginning of the text (\A or ^ without the m flag), so that it matches
// at most once and ReplaceAll is one search and one expansion.
func anchoredAtStart(re *regexp.Regexp) bool {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return false
	}
	for p.Op == syntax.OpConcat || p.Op == syntax.OpCapture {
		if len(p.Sub) == 0 {
			return false
		}
		p = p.Sub[0]
	}
	return p.Op == syntax.OpBeginText
}

// withoutRestOfLine returns re less a final ".*$" (the rest of the line,
// then the end of the text) when re is anchored at the start and ends so,
// else nil. Where the rest of the text after a match of the shorter
// regex holds no newline, the full regex matches the same way up to the
// end of the text: ".*$" cannot fail there, so the first choice the
// shorter one makes is the full one's too. ClickBench Q29,
// '^https?://(?:www\.)?([^/]+)/.*$', then steps through the host name
// and not through the whole Referer.
func withoutRestOfLine(re *regexp.Regexp) *regexp.Regexp {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || p.Op != syntax.OpConcat || len(p.Sub) < 3 || p.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	k := len(p.Sub)
	star, end := p.Sub[k-2], p.Sub[k-1]
	if end.Op != syntax.OpEndText || star.Op != syntax.OpStar || star.Sub[0].Op != syntax.OpAnyCharNotNL {
		return nil
	}
	short := *p
	short.Sub = p.Sub[:k-2]
	out, err := regexp.Compile(short.String())
	if err != nil || out.NumSubexp() != re.NumSubexp() {
		return nil
	}
	return out
}

// matchToEnd is re.FindSubmatchIndex(s) for an re that short is re less
// its final ".*$" (withoutRestOfLine).
func matchToEnd(re, short *regexp.Regexp, s []byte) []int {
	m := short.FindSubmatchIndex(s)
	if m == nil {
		return nil // no start of a match: no match
	}
	if bytes.IndexByte(s[m[1]:], '\n') >= 0 {
		return re.FindSubmatchIndex(s)
	}
	m[1] = len(s)
	return m
}

func regexpReplace(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.String, n)
	var (
		lastRepl, tmpl []byte
		haveRepl       bool
		anchored       = map[*regexp.Regexp]bool{}
		shorter        = map[*regexp.Regexp]*regexp.Regexp{}
		buf            []byte
	)
	err := regexEach(args, n, 5, out.AppendNull, func(re *regexp.Regexp, row *regexRow) error {
		s := row.str(0)
		if r := row.str(2); !haveRepl || !bytes.Equal(r, lastRepl) {
			tmpl = backref.ReplaceAll(r, []byte("$${$1}"))
			lastRepl, haveRepl = r, true
		}
		from, err := startByte("regexp_replace", s, row.optInt(3, 1))
		if err != nil {
			return err
		}
		occurrence := row.optInt(4, 0)
		head, tail := s[:from], s[from:]
		buf = append(buf[:0], head...)
		var m []int
		if occurrence <= 0 {
			a, ok := anchored[re]
			if !ok {
				a = anchoredAtStart(re)
				anchored[re] = a
				if a {
					shorter[re] = withoutRestOfLine(re)
				}
			}
			if !a {
				buf = append(buf, re.ReplaceAll(tail, tmpl)...)
				out.AppendBytes(buf)
				return nil
			}
			// At most one match: one search and one expansion.
			if short := shorter[re]; short != nil {
				m = matchToEnd(re, short, tail)
			} else {
				m = re.FindSubmatchIndex(tail)
			}
		} else {
			m = nthMatch(re, tail, 0, occurrence)
		}
		if m == nil {
			out.AppendBytes(s)
			return nil
		}
		buf = append(buf, tail[:m[0]]...)
		buf = re.Expand(buf, tmpl, tail, m)
		buf = append(buf, tail[m[1]:]...)
		out.AppendBytes(buf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}

func regexpSubstr(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.String, n)
	err := regexEach(args, n, 4, out.AppendNull, func(re *regexp.Regexp, row *regexRow) error {
		s := row.str(0)
		from, err := startByte("regexp_substr", s, row.optInt(2, 1))
		if err != nil {
			return err
		}
		if m := nthMatch(re, s, from, row.optInt(3, 1)); m != nil {
			out.AppendBytes(s[m[0]:m[1]])
		} else {
			out.AppendNull()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}

func regexpInstr(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.Int64, n)
	err := regexEach(args, n, 5, out.AppendNull, func(re *regexp.Regexp, row *regexRow) error {
		s := row.str(0)
		from, err := startByte("regexp_instr", s, row.optInt(2, 1))
		if err != nil {
			return err
		}
		m := nthMatch(re, s, from, row.optInt(3, 1))
		switch {
		case m == nil:
			out.AppendInt(0)
		case row.optInt(4, 0) == 1:
			out.AppendInt(int64(utf8.RuneCount(s[:m[1]])) + 1)
		default:
			out.AppendInt(int64(utf8.RuneCount(s[:m[0]])) + 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}
