package sql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
)

// rewriter rebuilds a statement's text from its tokens for the stock
// parser, replacing the forms it rejects with plain function calls, and
// remembers where every output byte came from so that the parser's error
// positions map back to the user's text.
type rewriter struct {
	src  string
	out  strings.Builder
	segs []segment
	// args numbers the statement's '?' placeholders (by source offset) in
	// the order they appear in the user's text, which the rewrites may
	// change (TRIM(x FROM s) becomes trim(s, x)).
	args map[int]int
}

// segment maps output bytes [out, out+n) to source offset src (exact when
// the bytes were copied, else every byte maps to src). A text that stands
// for a source token (a placeholder's :vN, a rewritten function's name)
// records the token's length in srcN.
type segment struct {
	out, src, n int
	srcN        int
	exact       bool
}

func (r *rewriter) emitSrc(t token) {
	if t.synth != "" {
		r.emitText(t.synth, t.start)
		return
	}
	if n, ok := r.args[t.start]; ok && t.typ == sqlparser.VALUE_ARG {
		r.emitFor(fmt.Sprintf(":v%d", n), t)
		return
	}
	if t.typ == sqlparser.STRING {
		if s, changed := keepPatternEscapes(r.src[t.start:t.end]); changed {
			r.emitFor(s, t)
			return
		}
	}
	r.space()
	r.segs = append(r.segs, segment{out: r.out.Len(), src: t.start, n: t.end - t.start, exact: true})
	r.out.WriteString(r.src[t.start:t.end])
}

// keepPatternEscapes doubles the backslash of \% and \_ in a quoted string
// literal's text. MySQL keeps those two sequences as written (backslash
// included), so that LIKE, whose default escape character is the
// backslash, sees a literal % or _; the stock parser would decode them to
// a bare % or _, a wildcard. Other escapes (\n, \', \\, ...) are left to
// the parser.
func keepPatternEscapes(lit string) (string, bool) {
	if !strings.Contains(lit, `\%`) && !strings.Contains(lit, `\_`) {
		return lit, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' || i+1 >= len(lit) {
			b.WriteByte(c)
			continue
		}
		next := lit[i+1]
		if next == '%' || next == '_' {
			b.WriteString(`\\`)
			changed = true
		} else {
			b.WriteByte(c)
		}
		b.WriteByte(next)
		i++
	}
	return b.String(), changed
}

// emitFor emits s in place of source token t.
func (r *rewriter) emitFor(s string, t token) {
	r.space()
	r.segs = append(r.segs, segment{out: r.out.Len(), src: t.start, n: len(s), srcN: t.end - t.start})
	r.out.WriteString(s)
}

func (r *rewriter) emitText(s string, at int) {
	r.space()
	r.segs = append(r.segs, segment{out: r.out.Len(), src: at, n: len(s)})
	r.out.WriteString(s)
}

func (r *rewriter) space() {
	if r.out.Len() > 0 {
		r.out.WriteByte(' ')
	}
}

// srcOffset maps an offset of the rewritten text to the user's text.
func (r *rewriter) srcOffset(off int) int {
	best := 0
	for _, s := range r.segs {
		if off >= s.out && off < s.out+s.n {
			if s.exact {
				return s.src + off - s.out
			}
			return s.src
		}
		if s.out <= off {
			best = s.src + s.n
			if !s.exact {
				best = s.src + s.srcN
			}
		}
	}
	return best
}

// matching returns the index of the ')' closing the '(' at toks[open].
func matching(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].typ {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits toks at depth-0 tokens for which sep is true.
func splitTop(toks []token, sep func(token) bool) (parts [][]token, seps []token) {
	depth := 0
	cur := []token{}
	for _, t := range toks {
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 && sep(t) {
			parts = append(parts, cur)
			seps = append(seps, t)
			cur = []token{}
			continue
		}
		cur = append(cur, t)
	}
	return append(parts, cur), seps
}

// rewrite emits toks, rewriting special forms.
func (r *rewriter) rewrite(toks []token) *Error {
	casts, nulls := r.castStarts(toks), r.nullsStarts(toks)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if it, ok := nulls[i]; ok {
			last, err := r.nullsItemOut(toks, i, it)
			if err != nil {
				return err
			}
			i = last
			continue
		}
		if op, ok := casts[i]; ok {
			end := castEnd(toks, op)
			if err := r.castOp(toks, i, op, end); err != nil {
				return err
			}
			i = end - 1
			continue
		}
		if t.typ == '(' && i+1 < len(toks) && (toks[i+1].typ == sqlparser.WITH || toks[i+1].is(r.src, "with")) {
			// A subquery with its own WITH (cte.go).
			if j := matching(toks, i); j > 0 {
				inner, err := expandWith(r.src, toks[i+1:j])
				if err != nil {
					return err
				}
				r.emitSrc(t)
				if err := r.rewrite(inner); err != nil {
					return err
				}
				r.emitSrc(toks[j])
				i = j
				continue
			}
		}
		if marker, ok := r.quantifierAt(toks, i); ok {
			// x op ANY|SOME|ALL (subquery) (quantified.go).
			end, err := r.quantifiedOut(toks, i, marker)
			if err != nil {
				return err
			}
			i = end
			continue
		}
		if t.typ == sqlparser.UNION {
			last, done, err := r.unionOperandOut(toks, i)
			if err != nil {
				return err
			}
			if done {
				i = last
				continue
			}
		}
		if isSetOp(r, t) && i > 0 {
			last, err := r.setOpOut(toks, i)
			if err != nil {
				return err
			}
			i = last
			continue
		}
		if end, ok := r.withinGroupAt(toks, i); ok {
			// PERCENTILE_CONT(q) WITHIN GROUP (ORDER BY x) (quantile.go).
			if err := r.withinGroupOut(toks, i, end); err != nil {
				return err
			}
			i = end
			continue
		}
		if end, ok := r.overAt(toks, i); ok {
			// A window function call (window.go).
			if err := r.overOut(toks, i, end); err != nil {
				return err
			}
			i = end
			continue
		}
		if callEnd, filterEnd, ok := r.filterAt(toks, i); ok {
			if err := r.filterOut(toks, i, callEnd, filterEnd); err != nil {
				return err
			}
			i = filterEnd
			continue
		}
		if r.isCastOp(t) {
			return newError(ErrSyntax, r.src, t.start, "nothing to cast before '%s'", t.text(r.src))
		}
		if name, n, ok := tableFunction(r.src, toks, i); ok {
			r.emitText(name, t.start)
			i += n - 1
			continue
		}
		if i > 0 && toks[i-1].typ == sqlparser.SELECT && (t.is(r.src, "all") || t.is(r.src, "distinctrow")) {
			// SELECT ALL is the default and DISTINCTROW is MySQL's
			// DISTINCT; the stock grammar rejects the first and reads the
			// second as a column name.
			if t.is(r.src, "distinctrow") {
				r.emitText("distinct", t.start)
			}
			continue
		}
		if i > 1 && toks[i-1].typ == '(' && t.typ == sqlparser.ALL && i+1 < len(toks) && toks[i+1].typ != ')' &&
			(toks[i-2].typ == sqlparser.ID || toks[i-2].typ >= sqlparser.LEX_ERROR) {
			// SUM(ALL x), COUNT(ALL x): ALL is the default quantifier of
			// an aggregate's argument; the stock grammar knows only
			// DISTINCT there.
			continue
		}
		if t.typ == sqlparser.STRING && i+1 < len(toks) && toks[i+1].typ == sqlparser.STRING {
			// MySQL concatenates adjacent literals ('a' 'b' is 'ab'); the
			// stock grammar reads the second as an alias or fails.
			val := append([]byte(nil), t.val...)
			j := i + 1
			for ; j < len(toks) && toks[j].typ == sqlparser.STRING; j++ {
				val = append(val, toks[j].val...)
			}
			r.emitText(sqlparser.String(sqlparser.NewStrVal(val)), t.start)
			i = j - 1
			continue
		}
		if isCompositeUnit(r, t) && i > 0 {
			// INTERVAL '1 2' DAY_HOUR: the stock tokenizer reserves the
			// composite units without a grammar rule (temporal.go).
			r.emitFor("`"+strings.ToLower(t.text(r.src))+"`", t)
			continue
		}
		if text, ok := r.quotedIntervalAt(toks, i); ok {
			// INTERVAL '3 days' (temporal.go).
			if text == "" {
				return newError(ErrSyntax, r.src, toks[i+1].start, "unknown INTERVAL unit in %s", toks[i+1].text(r.src))
			}
			r.emitFor(text, t)
			i++
			continue
		}
		if fn, ok := r.typedLiteralAt(toks, i); ok {
			// DATE '2024-01-05' and friends (temporal.go).
			r.emitFor("`"+fn+"`", t)
			r.emitText("(", t.end)
			r.emitSrc(toks[i+1])
			r.emitText(")", toks[i+1].end)
			i++
			continue
		}
		if i+2 < len(toks) && toks[i+1].typ == '(' && toks[i+2].typ != ')' && isClockKeyword(t) {
			// NOW(3)'s keyword spellings: CURRENT_TIMESTAMP(3),
			// UTC_TIME(3) ...; the stock grammar takes only ().
			if j := matching(toks, i+1); j > 0 {
				parts, seps := splitTop(toks[i+2:j], func(x token) bool { return x.typ == ',' })
				if err := r.call(strings.ToLower(t.text(r.src)), t, toks[j], seps, parts...); err != nil {
					return err
				}
				i = j
				continue
			}
		}
		if i+1 < len(toks) && toks[i+1].typ == '(' && (t.typ == sqlparser.ID || t.is(r.src, "extract")) {
			if j := matching(toks, i+1); j > 0 {
				done, err := r.temporalCall(t, toks[i+2:j], toks[j])
				if err != nil {
					return err
				}
				if done {
					i = j
					continue
				}
			}
		}
		if i+1 < len(toks) && toks[i+1].typ == '(' && r.isSpecial(t) {
			j := matching(toks, i+1)
			if j > 0 {
				done, err := r.special(t, toks[i+2:j], toks[j])
				if err != nil {
					return err
				}
				if done {
					i = j
					continue
				}
			}
		}
		r.emitSrc(t)
	}
	return nil
}

// isClockKeyword reports whether t is a clock function the stock grammar
// reserves as a keyword.
func isClockKeyword(t token) bool {
	switch t.typ {
	case sqlparser.CURRENT_TIMESTAMP, sqlparser.CURRENT_TIME, sqlparser.CURRENT_DATE, sqlparser.LOCALTIME,
		sqlparser.LOCALTIMESTAMP, sqlparser.UTC_TIMESTAMP, sqlparser.UTC_TIME, sqlparser.UTC_DATE:
		return true
	}
	return false
}

// isSpecial reports whether t names one of the call forms that special
// rewrites.
func (r *rewriter) isSpecial(t token) bool {
	switch t.typ {
	case sqlparser.SUBSTRING, sqlparser.SUBSTR, sqlparser.CAST, sqlparser.CONVERT:
		return true
	}
	return t.is(r.src, "mid") || t.is(r.src, "substring") || t.is(r.src, "substr") || t.is(r.src, "position") || t.is(r.src, "trim") || t.is(r.src, "try_cast")
}

// maxNesting is the parser's limit on nested parentheses; deeper text is
// rejected before rewriting, which costs time in proportion to the depth.
const maxNesting = 200

// checkNesting reports the '(' at which toks nest maxNesting deep.
func checkNesting(src string, toks []token) *Error {
	depth := 0
	for _, t := range toks {
		switch t.typ {
		case '(':
			depth++
			if depth >= maxNesting {
				return newError(ErrSyntax, src, t.start, "expression nested too deeply")
			}
		case ')':
			depth--
		}
	}
	return nil
}

// call emits `name`(arg, arg, ...). seps are the source tokens that the
// commas between the arguments stand for (their positions are reported for
// errors there); nil maps them to the function's name.
func (r *rewriter) call(name string, at token, closing token, seps []token, args ...[]token) *Error {
	r.emitFor("`"+name+"`", at)
	r.emitText("(", at.end)
	for k, a := range args {
		if k > 0 {
			if k-1 < len(seps) {
				r.emitFor(",", seps[k-1])
			} else {
				r.emitText(",", at.end)
			}
		}
		if len(a) == 0 {
			off := closing.start
			if k < len(seps) {
				off = seps[k].start
			}
			return newError(ErrSyntax, r.src, off, "missing argument of %s", strings.ToUpper(name))
		}
		if err := r.rewrite(a); err != nil {
			return err
		}
	}
	r.emitSrc(closing)
	return nil
}

// special rewrites one function-call form; done is false when t( ... ) is
// not one of them.
func (r *rewriter) special(t token, args []token, closing token) (bool, *Error) {
	switch {
	case t.typ == sqlparser.SUBSTRING || t.typ == sqlparser.SUBSTR || t.is(r.src, "mid") || t.is(r.src, "substring") || t.is(r.src, "substr"):
		parts, seps := splitTop(args, func(x token) bool { return x.typ == ',' || x.typ == sqlparser.FROM || x.typ == sqlparser.FOR })
		if len(parts) < 2 || len(parts) > 3 {
			return true, newError(ErrSyntax, r.src, t.start, "SUBSTRING takes 2 or 3 arguments")
		}
		return true, r.call("substring", t, closing, seps, parts...)
	case t.is(r.src, "position"):
		parts, seps := splitTop(args, func(x token) bool { return x.typ == sqlparser.IN })
		if len(parts) != 2 {
			return false, nil
		}
		return true, r.call("locate", t, closing, seps, parts...)
	case t.is(r.src, "trim"):
		name := "trim"
		rest := args
		if len(rest) > 0 {
			switch {
			case rest[0].is(r.src, "both"):
				rest = rest[1:]
			case rest[0].is(r.src, "leading"):
				name, rest = "ltrim", rest[1:]
			case rest[0].is(r.src, "trailing"):
				name, rest = "rtrim", rest[1:]
			}
		}
		parts, seps := splitTop(rest, func(x token) bool { return x.typ == sqlparser.FROM })
		switch len(parts) {
		case 1:
			if name != "trim" || len(rest) != len(args) {
				return true, newError(ErrSyntax, r.src, closing.start, "expected FROM in TRIM")
			}
			targs, commas := splitTop(parts[0], func(x token) bool { return x.typ == ',' })
			return true, r.call("trim", t, closing, commas, targs...)
		case 2:
			if len(parts[1]) == 0 {
				return true, newError(ErrSyntax, r.src, closing.start, "missing argument of %s", strings.ToUpper(name))
			}
			if len(parts[0]) == 0 {
				return true, r.call(name, t, closing, nil, parts[1])
			}
			return true, r.call(name, t, closing, seps, parts[1], parts[0])
		}
		return true, newError(ErrSyntax, r.src, t.start, "malformed TRIM")
	case t.is(r.src, "try_cast"):
		// TRY_CAST(x AS t) is TRY(CAST(x AS t)): NULL where the cast fails.
		parts, _ := splitTop(args, func(x token) bool { return x.typ == sqlparser.AS })
		if len(parts) != 2 || len(parts[1]) == 0 {
			return true, newError(ErrSyntax, r.src, closing.start, "expected TRY_CAST(expr AS type)")
		}
		name, suffix, err := r.castName(parts[1])
		if err != nil {
			return true, err
		}
		r.emitFor("`try`", t)
		r.emitText("(", t.end)
		if err := r.castCall(name, suffix, t, closing, parts[0]); err != nil {
			return true, err
		}
		r.emitText(")", closing.end)
		return true, nil
	case t.typ == sqlparser.CAST:
		parts, _ := splitTop(args, func(x token) bool { return x.typ == sqlparser.AS })
		if len(parts) != 2 || len(parts[1]) == 0 {
			return true, newError(ErrSyntax, r.src, closing.start, "expected CAST(expr AS type)")
		}
		name, suffix, err := r.castName(parts[1])
		if err != nil {
			return true, err
		}
		return true, r.castCall(name, suffix, t, closing, parts[0])
	case t.typ == sqlparser.CONVERT:
		parts, _ := splitTop(args, func(x token) bool { return x.typ == ',' })
		_, using := splitTop(args, func(x token) bool { return x.typ == sqlparser.USING })
		if len(parts) == 1 && len(using) > 0 {
			return true, newError(ErrUnsupported, r.src, t.start, "not supported: CONVERT ... USING (gsql strings are always UTF-8)")
		}
		if len(parts) != 2 || len(parts[1]) == 0 {
			return true, newError(ErrSyntax, r.src, closing.start, "expected CONVERT(expr, type)")
		}
		name, suffix, err := r.castName(parts[1])
		if err != nil {
			return true, err
		}
		return true, r.castCall(name, suffix, t, closing, parts[0])
	}
	return false, nil
}

// castCall emits name(arg suffix) for CAST and CONVERT; suffix carries
// the precision and scale of a DECIMAL target.
func (r *rewriter) castCall(name, suffix string, at, closing token, arg []token) *Error {
	if suffix == "" {
		return r.call(name, at, closing, nil, arg)
	}
	if len(arg) == 0 {
		return newError(ErrSyntax, r.src, closing.start, "missing argument of CAST")
	}
	r.emitFor("`"+name+"`", at)
	r.emitText("(", at.end)
	if err := r.rewrite(arg); err != nil {
		return err
	}
	r.emitText(suffix, closing.start)
	r.emitSrc(closing)
	return nil
}

// castName maps the type of CAST/CONVERT to the registry's cast function
// and, for DECIMAL(p,s), the arguments that follow the value (", p, s").
func (r *rewriter) castName(typ []token) (string, string, *Error) {
	var words []token
	for k := 0; k < len(typ); k++ {
		if typ[k].typ == '(' {
			end := matching(typ, k)
			if end < 0 {
				end = len(typ) - 1
			}
			words = append(words, token{typ: '(', start: typ[k].start, end: typ[end].end})
			k = end
			continue
		}
		words = append(words, typ[k])
	}
	if len(words) == 2 && (words[0].is(r.src, "signed") || words[0].is(r.src, "unsigned")) && words[1].is(r.src, "int") {
		// MySQL's cast grammar takes SIGNED INT as well as SIGNED INTEGER.
		return "cast_to_bigint", "", nil
	}
	if fsp, ok := r.timeType(words); ok {
		// MySQL's TIME: gsql's TIME text, with fsp digits of a second.
		return "cast_to_time", fmt.Sprintf(", %d", fsp), nil
	}
	ct, n := parseTypeWords(r.src, words)
	if n == 0 {
		return "", "", newError(ErrSyntax, r.src, typ[0].start, "unknown type %s", typeText(r.src, words))
	}
	if n < len(words) && ct == coldata.String {
		// CHAR CHARACTER SET x / CHARSET x [COLLATE y]: gsql strings are
		// always UTF-8 and compare bytewise, so the clauses change nothing.
		n = skipCharset(r.src, words, n)
	}
	if n < len(words) {
		return "", "", newError(ErrSyntax, r.src, words[n].start, "near '%s': expected ')'", words[n].text(r.src))
	}
	if ct.IsDecimal() {
		return "cast_to_decimal", fmt.Sprintf(", %d, %d", ct.Precision(), ct.Scale()), nil
	}
	if fsp := ct.Fsp(); fsp >= 0 {
		// DATETIME(n): the precision follows the value.
		return "cast_to_timestamp", fmt.Sprintf(", %d", fsp), nil
	}
	switch ct {
	case coldata.Bool:
		return "cast_to_boolean", "", nil
	case coldata.Int64:
		return "cast_to_bigint", "", nil
	case coldata.Float64:
		return "cast_to_double", "", nil
	case coldata.Date:
		return "cast_to_date", "", nil
	case coldata.Timestamp:
		return "cast_to_timestamp", "", nil
	}
	return "cast_to_varchar", "", nil
}

// timeType reads TIME or TIME(n) (n from 0 to 6), CAST's TIME target.
func (r *rewriter) timeType(words []token) (int, bool) {
	if len(words) == 0 || len(words) > 2 || !words[0].is(r.src, "time") {
		return 0, false
	}
	if len(words) == 1 {
		return 0, true
	}
	if words[1].typ != '(' {
		return 0, false
	}
	inner := strings.TrimSpace(r.src[words[1].start+1 : words[1].end-1])
	if len(inner) != 1 || inner[0] < '0' || inner[0] > '6' {
		return 0, false
	}
	return int(inner[0] - '0'), true
}

// skipCharset returns the index after the CHARACTER SET x, CHARSET x,
// ASCII, UNICODE, BINARY and COLLATE y clauses of a string type that
// start at words[n].
func skipCharset(src string, words []token, n int) int {
	for n < len(words) {
		switch w := words[n]; {
		case w.is(src, "character") && n+2 < len(words) && words[n+1].is(src, "set") && words[n+2].typ != '(':
			n += 3
		case (w.is(src, "charset") || w.is(src, "collate")) && n+1 < len(words) && words[n+1].typ != '(':
			n += 2
		case w.is(src, "ascii") || w.is(src, "unicode") || w.is(src, "binary"):
			n++
		default:
			return n
		}
	}
	return n
}

// parseRewritten runs the stock parser over the rewritten tokens of a
// SELECT/INSERT statement.
func parseRewritten(src string, toks []token) (sqlparser.Statement, *Error) {
	r := &rewriter{src: src, args: map[int]int{}}
	for i, t := range toks {
		switch {
		case t.typ == sqlparser.VALUE_ARG && t.text(src) == "?":
			r.args[t.start] = len(r.args) + 1
		case r.isCastOp(t) && r.castOperandStart(toks, i) >= 0:
			// x::type, PostgreSQL's cast (pgcast.go).
		case t.typ == sqlparser.VALUE_ARG || t.typ == sqlparser.LIST_ARG:
			// Only ? binds an argument: the planner numbers arguments by
			// the :vN names given to the ?s, which a named one (:x, or a
			// :v1 typed by the user) would break.
			return nil, newError(ErrUnsupported, src, t.start, "not supported: named parameter %s (use ?)", t.text(src))
		}
	}
	if err := checkNesting(src, toks); err != nil {
		return nil, err
	}
	if err := checkRowWidths(src, toks); err != nil {
		return nil, err
	}
	toks, werr := expandWindows(src, toks)
	if werr != nil {
		return nil, werr
	}
	if toks, werr = expandDerivedColumns(src, toks); werr != nil {
		return nil, werr
	}
	if err := r.checkWindows(toks); err != nil {
		return nil, err
	}
	if err := r.rewrite(toks); err != nil {
		return nil, err
	}
	// The trailing blank tells an error at the last token (the parser
	// stops on the blank after it) from one at the end of the text.
	text := r.out.String() + " "
	st, err := parseStock(text)
	if err != nil {
		return nil, r.syntaxError(text, err)
	}
	return st, nil
}

// parseStock calls the library's parser, recovering from its panics.
func parseStock(text string) (st sqlparser.Statement, err error) {
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, errStockPanic
		}
	}()
	return sqlparser.Parse(text)
}

var errStockPanic = errors.New("syntax error")

// syntaxError converts the library's "syntax error at position N [near
// 'x']" for the rewritten text into an Error at the user's line and column
// of the token the parser stopped at. N-1 is the offset just after that
// token.
func (r *rewriter) syntaxError(text string, err error) *Error {
	pos := len(text)
	if i := strings.Index(err.Error(), " at position "); i >= 0 {
		rest := err.Error()[i+len(" at position "):]
		n, k := 0, 0
		for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' && n < len(text)+1 {
			n = n*10 + int(rest[k]-'0')
			k++
		}
		if k > 0 {
			pos = n - 1
		}
	}
	end := strings.TrimRight(text, " ")
	if pos >= len(text) || pos < 0 {
		return newError(ErrSyntax, r.src, r.srcOffset(len(end)), "unexpected end of statement")
	}
	var bad *token
	toks := lex(text)
	for k := range toks {
		if toks[k].end <= pos {
			bad = &toks[k]
		}
	}
	if bad == nil {
		return newError(ErrSyntax, r.src, r.srcOffset(pos), "unexpected input")
	}
	off := r.srcOffset(bad.start)
	near := bad.text(text)
	if s, ok := r.segmentAt(bad.start); ok && bad.end-s.out <= s.n {
		switch {
		case s.exact:
			near = r.src[off : off+bad.end-bad.start]
		case s.srcN > 0 && bad.start == s.out && bad.end == s.out+s.n:
			near = r.src[s.src : s.src+s.srcN]
		}
	}
	if strings.HasPrefix(err.Error(), "max nesting level") {
		return newError(ErrSyntax, r.src, off, "expression nested too deeply")
	}
	return newError(ErrSyntax, r.src, off, "near '%s'", near)
}

// segmentAt returns the segment holding output offset off.
func (r *rewriter) segmentAt(off int) (segment, bool) {
	for _, s := range r.segs {
		if off >= s.out && off < s.out+s.n {
			return s, true
		}
	}
	return segment{}, false
}
