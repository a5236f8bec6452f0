package expr

import (
	"fmt"
	"regexp"
	"strings"
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

func (c regexCache) get(p, flags string) (*regexp.Regexp, error) {
	key := flags + "\x00" + p
	if re, ok := c[key]; ok {
		return re, nil
	}
	src, err := RegexpSource(p, flags)
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

// regexArgs reads row i's arguments; ok is false when one is NULL.
func regexArgs(args []*coldata.Vec, i int) (vals []any, ok bool) {
	vals = make([]any, len(args))
	for k, a := range args {
		if a.Type == coldata.Null || a.IsNull(i) {
			return nil, false
		}
		if a.Type == coldata.Int64 {
			vals[k] = a.Int(i)
		} else {
			vals[k] = string(a.Str(i))
		}
	}
	return vals, true
}

// regexEach runs fn over the rows whose arguments are all non-NULL, giving
// the compiled pattern (args 1, with the flags argument at flagsAt when
// present) and the row's values; NULL rows get null().
func regexEach(args []*coldata.Vec, n, flagsAt int, null func(), fn func(re *regexp.Regexp, vals []any) error) error {
	cache := regexCache{}
	for i := 0; i < n; i++ {
		vals, ok := regexArgs(args, i)
		if !ok {
			null()
			continue
		}
		flags := ""
		if flagsAt < len(vals) {
			flags = vals[flagsAt].(string)
		}
		re, err := cache.get(vals[1].(string), flags)
		if err != nil {
			return err
		}
		if err := fn(re, vals); err != nil {
			return err
		}
	}
	return nil
}

func regexpLike(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.Bool, n)
	err := regexEach(args, n, 2, out.AppendNull, func(re *regexp.Regexp, v []any) error {
		out.AppendBool(re.MatchString(v[0].(string)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}

// startByte is the byte offset of 1-based character position pos in s
// (len(s) when past the end); positions below 1 are an error.
func startByte(fn string, s string, pos int64) (int, error) {
	if pos < 1 {
		return 0, fmt.Errorf("%w in %s: position %d is out of range", ErrOutOfRange, fn, pos)
	}
	off := 0
	for k := int64(1); k < pos && off < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[off:])
		off += w
	}
	return off, nil
}

// optInt is optional integer argument k (def when absent).
func optInt(v []any, k int, def int64) int64 {
	if k < len(v) {
		return v[k].(int64)
	}
	return def
}

// nthMatch returns the submatch indexes (relative to s) of the
// occurrence-th (1-based) match of re in s at or after byte from, or nil.
func nthMatch(re *regexp.Regexp, s string, from int, occurrence int64) []int {
	if occurrence < 1 {
		occurrence = 1
	}
	ms := re.FindAllStringSubmatchIndex(s[from:], int(min(occurrence, 1<<20)))
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

func regexpReplace(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.String, n)
	err := regexEach(args, n, 5, out.AppendNull, func(re *regexp.Regexp, v []any) error {
		s, repl := v[0].(string), backref.ReplaceAllString(v[2].(string), "$${$1}")
		from, err := startByte("regexp_replace", s, optInt(v, 3, 1))
		if err != nil {
			return err
		}
		occurrence := optInt(v, 4, 0)
		head, tail := s[:from], s[from:]
		if occurrence <= 0 {
			out.AppendString(head + re.ReplaceAllString(tail, repl))
			return nil
		}
		m := nthMatch(re, tail, 0, occurrence)
		if m == nil {
			out.AppendString(s)
			return nil
		}
		var b strings.Builder
		b.WriteString(head)
		b.WriteString(tail[:m[0]])
		b.Write(re.ExpandString(nil, repl, tail, m))
		b.WriteString(tail[m[1]:])
		out.AppendString(b.String())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}

func regexpSubstr(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	out := coldata.NewBuilder(coldata.String, n)
	err := regexEach(args, n, 4, out.AppendNull, func(re *regexp.Regexp, v []any) error {
		s := v[0].(string)
		from, err := startByte("regexp_substr", s, optInt(v, 2, 1))
		if err != nil {
			return err
		}
		if m := nthMatch(re, s, from, optInt(v, 3, 1)); m != nil {
			out.AppendString(s[m[0]:m[1]])
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
	err := regexEach(args, n, 5, out.AppendNull, func(re *regexp.Regexp, v []any) error {
		s := v[0].(string)
		from, err := startByte("regexp_instr", s, optInt(v, 2, 1))
		if err != nil {
			return err
		}
		m := nthMatch(re, s, from, optInt(v, 3, 1))
		switch {
		case m == nil:
			out.AppendInt(0)
		case optInt(v, 4, 0) == 1:
			out.AppendInt(int64(utf8.RuneCountInString(s[:m[1]])) + 1)
		default:
			out.AppendInt(int64(utf8.RuneCountInString(s[:m[0]])) + 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Finish(), nil
}
