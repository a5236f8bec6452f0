package fuse

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gsqlengine/gsql/expr"
)

// stringCall generates the string functions. It returns (nil, nil) for a
// name it does not know.
func (g *gen) stringCall(name string, c *expr.Call, args []*val) (*val, error) {
	null := func() string { return g.nullOf(args) }
	sv := func(i int) string { return g.asSV(args[i]).c }
	switch name {
	case "replace":
		g.warpFrom(WarpMinReplace)
	case "upper", "lower", "contains":
		g.warpFrom(WarpMinScan)
	case "right", "substring", "reverse", "repeat", "space", "lpad", "rpad", "strcmp":
		g.warpAvoid = true
	}
	switch name {
	case "length":
		if args[0].kind == kGen {
			return &val{kind: kInt, c: g.declare(kInt, 0, "(int64_t)("+args[0].size+")"), null: args[0].null}, nil
		}
		if args[0].kind == kRope {
			return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(int64_t)rope_size(%s)", args[0].c)), null: args[0].null}, nil
		}
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(int64_t)%s.n", sv(0))), null: args[0].null}, nil
	case "char_length":
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("char_len(%s)", sv(0))), null: args[0].null}, nil
	case "ascii":
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("ascii_of(%s)", sv(0))), null: args[0].null}, nil
	case "strcmp":
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("strcmp3(%s, %s)", sv(0), sv(1))), null: null()}, nil
	case "substring":
		if len(args) == 2 {
			return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("substring3(%s, %s, 0, false)", sv(0), args[1].c)), null: null()}, nil
		}
		return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("substring3(%s, %s, %s, true)", sv(0), args[1].c, args[2].c)), null: null()}, nil
	case "left", "right":
		return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("%s(%s, %s)", name, sv(0), countArg(args[1]))), null: null()}, nil
	case "split_part", "substring_index":
		s, d := sv(0), sv(1)
		// A literal count's sign is part of the kernel's shape: the code
		// for the other direction is left out.
		sign := 0
		if l := args[2].lit; l != nil {
			if n, ok := l.Value.(int64); ok && n > 0 {
				sign = 1
			} else if ok && n < 0 {
				sign = -1
			}
		}
		return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("%s<%d>(%s, %s, %s, %s)", name, sign, s, d, countArg(args[2]), g.findCache(s, d))), null: null()}, nil
	case "trim", "ltrim", "rtrim":
		rem := "space_sv()"
		if len(args) == 2 {
			rem = sv(1)
		}
		fn := map[string]string{"trim": "trim2", "ltrim": "ltrim2", "rtrim": "rtrim2"}[name]
		return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("%s(%s, %s)", fn, sv(0), rem)), null: null()}, nil
	case "locate":
		if len(args) == 2 {
			return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("locate3(%s, %s, 1, false)", sv(0), sv(1))), null: null()}, nil
		}
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("locate3(%s, %s, %s, true)", sv(0), sv(1), args[2].c)), null: null()}, nil
	case "instr":
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("locate3(%s, %s, 1, false)", sv(1), sv(0))), null: null()}, nil
	case "starts_with", "ends_with", "contains":
		return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("%s(%s, %s)", name, sv(0), sv(1))), null: null()}, nil
	case "like":
		return g.like(c, args)
	case "concat":
		n := 0
		for _, a := range args {
			n += ropeCap(a)
		}
		r := g.tmp()
		g.emit("Rope<%d> %s; %s.k = 0;", n, r, r)
		for _, a := range args {
			g.emit("rope_append(%s, %s);", r, g.asRope(a, ropeCap(a)))
		}
		return &val{kind: kRope, c: r, null: null(), n: n}, nil
	case "concat_ws":
		// NULL separator gives NULL; NULL arguments are skipped.
		n := 0
		for _, a := range args[1:] {
			n += 2 * ropeCap(a)
		}
		r, first := g.tmp(), g.tmp()
		g.emit("Rope<%d> %s; %s.k = 0; bool %s = true;", n, r, r, first)
		sep := g.asSV(args[0])
		for _, a := range args[1:] {
			g.emit("if (!%s) { if (!%s) rope_append(%s, rope_of<1>(%s)); %s = false; rope_append(%s, %s); }",
				nullFlag(a), first, r, sep.c, first, r, g.asRope(a, ropeCap(a)))
		}
		return &val{kind: kRope, c: r, null: nullFlag(args[0]), n: n}, nil
	case "upper", "lower":
		g.needsCase = true
		s := sv(0)
		m := "upper_map(a)"
		if name == "lower" {
			m = "lower_map(a)"
		}
		upper := name == "upper"
		return &val{kind: kGen, null: args[0].null,
			size:  fmt.Sprintf("casemap_size(%s, %s)", s, m),
			write: func(dst string) string { return fmt.Sprintf("casemap_write(%s, %s, %v, %s);", s, m, upper, dst) }}, nil
	case "replace":
		s, from, to := sv(0), sv(1), sv(2)
		// MySQL reads the replacement only when there is a match: a NULL
		// one makes the row NULL only then (expr.strReplace).
		rnull := g.nullOf(args[:2])
		if args[2].null != "false" {
			n := g.tmp()
			g.emit("bool %s = %s || (%s && %s.n > 0 && contains(%s, %s));", n, rnull, nullFlag(args[2]), from, s, from)
			rnull = n
		}
		return &val{kind: kGen, null: rnull,
			size:  fmt.Sprintf("replace_size(%s, %s, %s)", s, from, to),
			write: func(dst string) string { return fmt.Sprintf("replace_write(%s, %s, %s, %s);", s, from, to, dst) }}, nil
	case "reverse":
		s := sv(0)
		return &val{kind: kGen, null: args[0].null,
			size:  s + ".n",
			write: func(dst string) string { return fmt.Sprintf("reverse_write(%s, %s);", s, dst) }}, nil
	case "repeat":
		s, n, nl := sv(0), args[1].c, null()
		size := g.tmp()
		// The CPU kernel fails a result over 1 GiB; so does this one. A
		// NULL row's count is whatever its slot holds (device memory is not
		// cleared): it sizes nothing.
		g.emit("int64_t %s = %s ? 0 : repeat_size(%s, %s);", size, nl, s, n)
		g.emit("if (%s > (int64_t)(1 << 30)) err = GSQL_ERR_TOO_LONG;", size)
		return &val{kind: kGen, null: nl,
			size:  fmt.Sprintf("(int32_t)(%s > (int64_t)(1 << 30) ? 0 : %s)", size, size),
			write: func(dst string) string { return fmt.Sprintf("repeat_write(%s, %s, %s);", s, n, dst) }}, nil
	case "space":
		n := args[0].c
		return &val{kind: kGen, null: args[0].null,
			size:  fmt.Sprintf("(int32_t)(%s < 0 ? 0 : (%s > (1 << 30) ? 0 : %s))", n, n, n),
			write: func(dst string) string { return fmt.Sprintf("repeat_write(space_sv(), %s, %s);", n, dst) }}, nil
	case "lpad", "rpad":
		s, n, pad := sv(0), args[1].c, sv(2)
		size, pnull := g.tmp(), g.tmp()
		g.emit("bool %s; int32_t %s = pad_size(%s, %s, %s, &%s);", pnull, size, s, n, pad, pnull)
		allNull := g.tmp()
		g.emit("bool %s = %s || %s;", allNull, null(), pnull)
		left := name == "lpad"
		return &val{kind: kGen, null: allNull, size: size,
			write: func(dst string) string { return fmt.Sprintf("pad_write(%s, %s, %s, %v, %s);", s, n, pad, left, dst) }}, nil
	}
	return nil, nil
}

// countArg is the C expression of a count argument (the part of
// SPLIT_PART and SUBSTRING_INDEX, the length of LEFT and RIGHT). A small
// literal count is written into the source, so that the compiler unrolls
// the search loop for it and folds the length tests (redact: fewer
// instructions per row; docs/benchlog/2026-11-23-redact-gpu.md);
// kernels differing in such a count compile separately. Other counts stay
// parameters.
func countArg(v *val) string {
	if v.lit != nil {
		if n, ok := v.lit.Value.(int64); ok && n >= -maxInlineCount && n <= maxInlineCount {
			return fmt.Sprintf("(int64_t)%d", n)
		}
	}
	return v.c
}

// maxInlineCount bounds the literal counts written into kernel sources
// (and so the number of kernels differing only in one).
const maxInlineCount = 16

// findCache returns the FindCache argument for searches of delimiter d in
// string s (C expressions): one cache per distinct pair in a row.
func (g *gen) findCache(s, d string) string {
	if g.opts.NoFindCache {
		return "(FindCache*)0"
	}
	key := s + "|" + d
	if c, ok := g.finds[key]; ok {
		return "&" + c
	}
	c := g.tmp()
	g.emit("FindCache %s; %s.first = -2; %s.last = -2;", c, c, c)
	g.finds[key] = c
	return "&" + c
}

// like generates LIKE. A literal pattern with a single leading and/or
// trailing % and no other wildcard becomes an equality, prefix, suffix or
// infix test; the needle replaces the pattern in the literal slot.
func (g *gen) like(c *expr.Call, args []*val) (*val, error) {
	esc := int32('\\')
	if len(args) == 3 {
		l := args[2].lit
		s, ok := literalString(l)
		if !ok || len(s) != 1 {
			return nil, fmt.Errorf("%w: LIKE escape must be a one-byte literal", ErrNotFusable)
		}
		esc = int32(s[0])
	}
	null := g.nullOf(args[:2])
	s := g.asSV(args[0]).c
	if p, ok := literalString(args[1].lit); ok && utf8.ValidString(p) {
		if kindName, needle, fast := likeFastPath(p, byte(esc)); fast {
			if slot := args[1].slot; args[1].lit != nil && slot >= 0 {
				// The needle gets a slot of its own: the pattern's slot may
				// be shared with an equal literal used as a plain string.
				fn := map[string]string{"eq": "sv_eq", "prefix": "starts_with", "suffix": "ends_with", "infix": "contains"}[kindName]
				if kindName == "infix" {
					g.warpFrom(WarpMinScan)
				}
				return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("%s(%s, %s)", fn, s, g.newStringSlot(needle))), null: null}, nil
			}
		}
	}
	g.warpAvoid = true
	return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("like_match(%s, %s, %d)", s, g.asSV(args[1]).c, esc)), null: null}, nil
}

func literalString(l *expr.Literal) (string, bool) {
	if l == nil {
		return "", false
	}
	s, ok := l.Value.(string)
	return s, ok
}

// likeFastPath classifies a pattern: "eq" (no wildcards), "prefix" (x%),
// "suffix" (%x) or "infix" (%x%), where x has no wildcard or escape.
func likeFastPath(p string, esc byte) (kind, needle string, ok bool) {
	lead := strings.HasPrefix(p, "%")
	trail := len(p) > 1 && strings.HasSuffix(p, "%")
	core := p
	if lead {
		core = core[1:]
	}
	if trail && len(core) > 0 {
		core = core[:len(core)-1]
	}
	if strings.ContainsAny(core, "%_") || strings.IndexByte(core, esc) >= 0 {
		return "", "", false
	}
	switch {
	case lead && trail:
		return "infix", core, true
	case lead:
		return "suffix", core, true
	case trail:
		return "prefix", core, true
	}
	return "eq", core, true
}
