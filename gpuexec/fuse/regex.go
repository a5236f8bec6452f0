package fuse

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// The GPU side of REGEXP_LIKE, REGEXP_INSTR, REGEXP_SUBSTR and
// REGEXP_REPLACE. A literal pattern (with its literal match flags and, for
// REGEXP_REPLACE, its literal replacement) is compiled here, once, by
// regexp/syntax exactly as package regexp compiles it on the CPU, and the
// program travels to the kernel as a string parameter: kernels differing
// only in the pattern share their code (up to the size class below). The
// device runs it with a Pike VM (rt/regex.cuh), which
// gives Go's leftmost-first matches.
//
// Program layout (little-endian int32 words; the bytes of literal
// replacement text at the end):
//
//	[0] status: 0 ok, 1 the pattern does not compile, 2 unknown match flag
//	[1] instructions  [2] start  [3] capture slots tracked
//	[4] 1 when the program is anchored at the start of the text
//	[5] word offset of the replacement template  [6] its pieces  [7] 0
//	[8...] instructions, 4 words each: op, out, arg, n (regexp/syntax's
//	       numbering, so pc 0 is the failing instruction); RUNE's arg is
//	       the word offset of n sorted [lo, hi] ranges
//	ranges, then the template: 3 words a piece (group, or -1 and the byte
//	offset and length of literal text)
//
// A pattern, flags or replacement that is not a literal keeps the call on
// the CPU (ErrNotFusable), as does a program over the device limits.

// Device limits of a regular-expression program.
const (
	// reMaxInst bounds a program's instructions in a fused kernel.
	reMaxInst = 256
	// reMaxCaps bounds the capture slots REGEXP_REPLACE tracks (groups
	// 0-9 referenced by its replacement).
	reMaxCaps = 20
	// reMaxLocal bounds the thread lists' local memory (bytes per GPU
	// thread).
	reMaxLocal = 16 << 10
	// reMaxWords bounds a program's size.
	reMaxWords = 1 << 14
	// The interpreter's regex operations are compiled once for every
	// pattern: programs of at most interpReInst instructions, and
	// REGEXP_REPLACE templates referencing groups 0-3.
	interpReInst = 64
	interpReCaps = 8
)

// Program opcodes (rt/regex.cuh's GSQL_RE_*).
const (
	reFail int32 = iota
	reAlt
	reCap
	reEmpty
	reNop
	reMatch
	reRune
	reRune1
	reAny
	reAnyNotNL
)

const reHdr = 8

// reProg is a compiled program.
type reProg struct {
	blob   string
	status int32
	ninst  int
	ncap   int // capture slots tracked (0, 2 or REGEXP_REPLACE's need)
}

// regexFns are the functions compiled here; the index of their flags
// argument and, for REGEXP_REPLACE, the replacement's.
var regexFns = map[string]struct{ flags, repl int }{
	"regexp_like":    {2, -1},
	"regexp_instr":   {5, -1},
	"regexp_substr":  {4, -1},
	"regexp_replace": {5, 2},
}

// regexArgTypes are the argument types of the REGEXP functions at their
// widest (the binder casts to them).
var regexArgTypes = map[string][]coldata.Type{
	"regexp_instr":   {coldata.String, coldata.String, coldata.Int64, coldata.Int64, coldata.Int64, coldata.String},
	"regexp_substr":  {coldata.String, coldata.String, coldata.Int64, coldata.Int64, coldata.String},
	"regexp_replace": {coldata.String, coldata.String, coldata.String, coldata.Int64, coldata.Int64, coldata.String},
}

// wideSignature is the one signature of n arguments, wider than the
// interpreter enumerates, that a function with fixed argument types takes
// (nil for others).
func wideSignature(name string, n int) []coldata.Type {
	if ts, ok := regexArgTypes[name]; ok && n <= len(ts) {
		return ts[:n]
	}
	return nil
}

var reMemo = struct {
	sync.Mutex
	m map[string]*reProg
}{m: map[string]*reProg{}}

// compileRegex compiles pattern p with match flags as expr's regexCache
// does; repl is REGEXP_REPLACE's replacement (nil for the others).
func compileRegex(name, p, flags string, repl *string) (*reProg, error) {
	key := name + "\x00" + flags + "\x00" + p
	if repl != nil {
		key += "\x00" + *repl
	}
	reMemo.Lock()
	pr, ok := reMemo.m[key]
	reMemo.Unlock()
	if ok {
		return pr, nil
	}
	pr, err := buildRegex(name, p, flags, repl)
	if err != nil {
		return nil, err
	}
	reMemo.Lock()
	if len(reMemo.m) >= 4096 {
		reMemo.m = map[string]*reProg{}
	}
	reMemo.m[key] = pr
	reMemo.Unlock()
	return pr, nil
}

func statusProg(status int32) *reProg {
	w := make([]int32, reHdr)
	w[0] = status
	return &reProg{blob: wordsBlob(w, nil), status: status}
}

func wordsBlob(w []int32, tail []byte) string {
	b := make([]byte, 0, 4*len(w)+len(tail))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return string(append(b, tail...))
}

func buildRegex(name, p, flags string, repl *string) (*reProg, error) {
	// The match flags, as the CPU reads them.
	src, err := expr.RegexpSource(p, flags)
	if err != nil {
		return statusProg(2), nil
	}
	// regexp.Compile's steps (its compile(expr, syntax.Perl, false)).
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return statusProg(1), nil
	}
	capNames := re.CapNames()
	numSubexp := re.MaxCap()
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return statusProg(1), nil
	}
	// The capture slots worth tracking: none for REGEXP_LIKE, the match
	// for INSTR and SUBSTR, the groups the replacement names for REPLACE.
	ncap := 2
	var pieces []tmplPiece
	switch name {
	case "regexp_like":
		ncap = 0
	case "regexp_replace":
		pieces = parseTemplate(*repl, capNames, numSubexp)
		for _, pc := range pieces {
			if pc.group >= 0 && 2*pc.group+2 > ncap {
				ncap = 2*pc.group + 2
			}
		}
		if ncap > reMaxCaps {
			return nil, fmt.Errorf("%w: REGEXP_REPLACE names group %d (the GPU tracks at most %d)", ErrNotFusable, ncap/2-1, reMaxCaps/2-1)
		}
	}
	if len(prog.Inst) > reMaxInst {
		return nil, fmt.Errorf("%w: regular expression of %d instructions (GPU limit %d)", ErrNotFusable, len(prog.Inst), reMaxInst)
	}
	n := len(prog.Inst)
	w := make([]int32, reHdr+4*n)
	w[1], w[2], w[3] = int32(n), int32(prog.Start), int32(ncap)
	if prog.StartCond()&syntax.EmptyBeginText != 0 && prog.StartCond() != ^syntax.EmptyOp(0) {
		w[4] = 1
	}
	for pc, in := range prog.Inst {
		at := reHdr + 4*pc
		op, out, arg, cnt := reFail, int32(in.Out), int32(0), int32(0)
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			op, arg = reAlt, int32(in.Arg)
		case syntax.InstCapture:
			op, arg = reCap, int32(in.Arg)
			if int(in.Arg) >= ncap {
				op = reNop
			}
		case syntax.InstEmptyWidth:
			op, arg = reEmpty, int32(in.Arg)
		case syntax.InstNop:
			op = reNop
		case syntax.InstMatch:
			op = reMatch
		case syntax.InstFail:
			op = reFail
		case syntax.InstRune1:
			op, arg = reRune1, in.Rune[0]
		case syntax.InstRuneAny:
			op = reAny
		case syntax.InstRuneAnyNotNL:
			op = reAnyNotNL
		case syntax.InstRune:
			rs := runeRanges(in)
			op, arg, cnt = reRune, int32(len(w)), int32(len(rs)/2)
			w = append(w, rs...)
		default:
			return nil, fmt.Errorf("%w: regular-expression instruction %v", ErrNotFusable, in.Op)
		}
		w[at], w[at+1], w[at+2], w[at+3] = op, out, arg, cnt
	}
	var lit []byte
	if name == "regexp_replace" {
		w[5], w[6] = int32(len(w)), int32(len(pieces))
		base := 4 * (len(w) + 3*len(pieces))
		for _, pc := range pieces {
			if pc.group >= 0 {
				w = append(w, int32(pc.group), 0, 0)
				continue
			}
			w = append(w, -1, int32(base+len(lit)), int32(len(pc.text)))
			lit = append(lit, pc.text...)
		}
	}
	if len(w) > reMaxWords {
		return nil, fmt.Errorf("%w: regular-expression program of %d words (GPU limit %d)", ErrNotFusable, len(w), reMaxWords)
	}
	return &reProg{blob: wordsBlob(w, lit), ninst: n, ncap: ncap}, nil
}

// runeRanges is an InstRune's character set as sorted [lo, hi] pairs: a
// single case-folded rune becomes its whole fold orbit (Inst.MatchRunePos).
func runeRanges(in syntax.Inst) []int32 {
	if len(in.Rune) == 1 {
		r0 := in.Rune[0]
		rs := []rune{r0}
		if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			for r1 := unicode.SimpleFold(r0); r1 != r0; r1 = unicode.SimpleFold(r1) {
				rs = append(rs, r1)
			}
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
		out := make([]int32, 0, 2*len(rs))
		for _, r := range rs {
			out = append(out, r, r)
		}
		return out
	}
	out := make([]int32, len(in.Rune))
	copy(out, in.Rune)
	return out
}

// tmplPiece is a part of a replacement: literal text or a group.
type tmplPiece struct {
	group int
	text  string
}

// backref is expr's rewrite of \1 into ${1}.
var backref = regexp.MustCompile(`\\([0-9])`)

// parseTemplate splits REGEXP_REPLACE's replacement as Regexp.Expand reads
// it (after expr's \N to ${N} rewrite): $N, ${N}, $name, ${name}, $$;
// groups that do not exist expand to nothing and are left out.
func parseTemplate(repl string, capNames []string, numSubexp int) []tmplPiece {
	t := backref.ReplaceAllString(repl, "$${$1}")
	var out []tmplPiece
	text := func(s string) {
		if s == "" {
			return
		}
		if k := len(out); k > 0 && out[k-1].group < 0 {
			out[k-1].text += s
			return
		}
		out = append(out, tmplPiece{group: -1, text: s})
	}
	if !strings.Contains(t, "$") {
		// ReplaceAllString takes a template without $ literally.
		text(t)
		return out
	}
	for len(t) > 0 {
		before, after, ok := strings.Cut(t, "$")
		if !ok {
			break
		}
		text(before)
		t = after
		if t != "" && t[0] == '$' {
			text("$")
			t = t[1:]
			continue
		}
		name, num, rest, ok := extractRef(t)
		if !ok {
			text("$")
			continue
		}
		t = rest
		g := -1
		if num >= 0 {
			g = num
		} else {
			for i, n := range capNames {
				if n == name {
					g = i
					break
				}
			}
		}
		if g >= 0 && g <= numSubexp {
			out = append(out, tmplPiece{group: g})
		}
	}
	text(t)
	return out
}

// extractRef reads a group reference as regexp's extract does.
func extractRef(str string) (name string, num int, rest string, ok bool) {
	if str == "" {
		return
	}
	brace := false
	if str[0] == '{' {
		brace = true
		str = str[1:]
	}
	i := 0
	for i < len(str) {
		r, size := utf8.DecodeRuneInString(str[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			break
		}
		i += size
	}
	if i == 0 {
		return
	}
	name = str[:i]
	if brace {
		if i >= len(str) || str[i] != '}' {
			return
		}
		i++
	}
	num = 0
	for k := 0; k < len(name); k++ {
		if name[k] < '0' || '9' < name[k] || num >= 1e8 {
			num = -1
			break
		}
		num = num*10 + int(name[k]) - '0'
	}
	if name[0] == '0' && len(name) > 1 {
		num = -1
	}
	rest = str[i:]
	ok = true
	return
}

// regexArgString is a call's literal string argument k: ok false when it
// is not a literal; null when it is the NULL literal.
func regexArgString(c *expr.Call, k int) (s string, null, ok bool) {
	if k < 0 || k >= len(c.Args) {
		return "", false, true
	}
	l, isLit := c.Args[k].(*expr.Literal)
	if !isLit {
		return "", false, false
	}
	if l.Value == nil {
		return "", true, true
	}
	s, ok = l.Value.(string)
	return s, false, ok
}

// regexCallProgram compiles the program of a REGEXP call whose pattern,
// flags and replacement are literals; null is true when one of them is
// the NULL literal (the call is NULL on every row).
func regexCallProgram(c *expr.Call) (pr *reProg, null bool, err error) {
	name := c.Fn.Name
	at := regexFns[name]
	p, pnull, pok := regexArgString(c, 1)
	f, fnull, fok := regexArgString(c, at.flags)
	r, rnull, rok := regexArgString(c, at.repl)
	if !pok || !fok || !rok {
		return nil, false, fmt.Errorf("%w: %s needs a literal pattern, match flags and replacement on the GPU", ErrNotFusable, strings.ToUpper(name))
	}
	if pnull || fnull || rnull {
		return nil, true, nil
	}
	var repl *string
	if at.repl >= 0 {
		repl = &r
	}
	pr, err = compileRegex(name, p, f, repl)
	return pr, false, err
}

// reClass is the size class a program's kernel code is instantiated for:
// the instruction bound (a power of two from 32) and the capture slots.
func reClass(pr *reProg) (maxi, ncap int, err error) {
	maxi = 32
	for maxi < pr.ninst {
		maxi *= 2
	}
	ncap = pr.ncap
	local := 2*(4*maxi*(1+max(ncap, 1))) + 8*(maxi+2)
	if local > reMaxLocal {
		return 0, 0, fmt.Errorf("%w: regular expression needs %d bytes of thread lists (GPU limit %d)", ErrNotFusable, local, reMaxLocal)
	}
	return maxi, ncap, nil
}

// interpRegexCall rewrites a REGEXP call for the interpreter: the pattern
// argument becomes the compiled program (a string constant), which the
// interpreter's operation reads in place of the pattern. Calls of other
// functions come back unchanged.
func interpRegexCall(c *expr.Call) (*expr.Call, error) {
	if _, ok := regexFns[c.Fn.Name]; !ok {
		return c, nil
	}
	pr, null, err := regexCallProgram(c)
	if err != nil {
		return nil, err
	}
	args := append([]expr.Expr(nil), c.Args...)
	if null {
		args[1] = &expr.Literal{T: coldata.String}
		return &expr.Call{Fn: c.Fn, Args: args, T: c.T}, nil
	}
	if pr.status == 0 && (pr.ninst > interpReInst || pr.ncap > interpReCaps) {
		return nil, fmt.Errorf("%w: regular expression over the interpreter's limits (%d instructions, %d capture slots)", ErrNotFusable, interpReInst, interpReCaps)
	}
	args[1] = &expr.Literal{Value: pr.blob, T: coldata.String}
	return &expr.Call{Fn: c.Fn, Args: args, T: c.T}, nil
}

// regexCall generates the REGEXP functions; (nil, nil) for other names.
func (g *gen) regexCall(name string, c *expr.Call, args []*val) (*val, error) {
	if _, ok := regexFns[name]; !ok {
		return nil, nil
	}
	// The engine walks a row one character at a time.
	g.warpAvoid = true
	var prog string
	var maxi, ncap int
	matcher := "ReGeneric"
	if _, isReg := c.Args[1].(*regArg); isReg {
		// An interpreter operation: the register holds the program
		// (interpRegexCall), of the interpreter's size class.
		prog = g.asSV(args[1]).c
		maxi, ncap = interpReInst, 2
		switch name {
		case "regexp_like":
			ncap = 0
		case "regexp_replace":
			ncap = interpReCaps
		}
	} else {
		pr, null, err := regexCallProgram(c)
		if err != nil {
			return nil, err
		}
		if null {
			k := kindOf(c.T)
			return &val{kind: k, c: zeroOf(k), null: "true"}, nil
		}
		if pr.status == 0 {
			if maxi, ncap, err = reClass(pr); err != nil {
				return nil, err
			}
			matcher = g.regexMatcher(pr)
		} else if maxi, ncap = 32, 2; name == "regexp_like" {
			ncap = 0
		}
		prog = g.newStringSlot(pr.blob)
	}
	null := g.nullOf(args)
	s := g.asSV(args[0]).c
	// A pattern or flag the CPU rejects fails every row with arguments.
	g.emit("if (!%s && err == 0) err = re_status(%s);", null, prog)
	intArg := func(k int, def string) string {
		if k < len(args) {
			return asInt(args[k])
		}
		return def
	}
	switch name {
	case "regexp_like":
		return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("!%s && re_like<%d, %s>(%s, %s)", null, maxi, matcher, s, prog)), null: null}, nil
	case "regexp_substr", "regexp_instr":
		b := g.tmp()
		g.emit("int32_t %s_b, %s_e; re_find<%d, %s>(%s, %s, %s, %s, %s, err, &%s_b, &%s_e);", b, b, maxi, matcher, s, prog, intArg(2, "1"), intArg(3, "1"), null, b, b)
		if name == "regexp_substr" {
			rnull := g.tmp()
			g.emit("bool %s = %s || %s_b < 0;", rnull, null, b)
			return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("%s ? sv_make(\"\", 0) : sv_make(%s.p + %s_b, %s_e - %s_b)", rnull, s, b, b, b)), null: rnull}, nil
		}
		at := fmt.Sprintf("%s_b", b)
		if len(args) > 4 {
			at = fmt.Sprintf("(%s == 1 ? %s_e : %s_b)", asInt(args[4]), b, b)
		}
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("%s_b < 0 ? (int64_t)0 : re_rune_count(%s, %s) + 1", b, s, at)), null: null}, nil
	}
	// regexp_replace
	pos, occ := intArg(3, "1"), intArg(4, "0")
	g.emit("if (!%s && %s < 1 && err == 0) err = GSQL_ERR_REGEXP_POS;", null, pos)
	return &val{kind: kGen, null: null,
		size: fmt.Sprintf("(%s ? 0 : re_replace<%d, %d, %s>(%s, %s, %s, %s, (char*)0))", null, maxi, ncap, matcher, s, prog, pos, occ),
		write: func(dst string) string {
			return fmt.Sprintf("if (!%s) re_replace<%d, %d, %s>(%s, %s, %s, %s, %s);", null, maxi, ncap, matcher, s, prog, pos, occ, dst)
		}}, nil
}

// regexMatcher declares the generated matcher of program pr in the
// kernel's source (once per program) and returns its name.
func (g *gen) regexMatcher(pr *reProg) string {
	if g.matchers == nil {
		g.matchers = map[string]string{}
	}
	if name, ok := g.matchers[pr.blob]; ok {
		return name
	}
	name := fmt.Sprintf("ReMatch%d", len(g.matchers))
	g.matchers[pr.blob] = name
	g.decls.WriteString(matcherSource(pr, name))
	g.decls.WriteByte('\n')
	return name
}
