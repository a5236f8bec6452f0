package sql

import (
	"github.com/xwb1989/sqlparser"
)

// PostgreSQL's cast operator, x::type, which the stock grammar lexes as one
// list-argument token "::type". It binds tighter than any other operator,
// so its operand is the primary expression just before it: a literal, a
// (qualified) name, a parenthesised expression, a function call or another
// cast. The rewriter emits it as the registry's cast function, as it does
// CAST(x AS type).

// isCastOp reports whether t is the "::type" token.
func (r *rewriter) isCastOp(t token) bool {
	return t.typ == sqlparser.LIST_ARG && t.end-t.start > 2 && r.src[t.start:t.start+2] == "::"
}

// castOperandStart returns the index in toks where the operand of the cast
// operator at toks[c] begins, or -1 when nothing before it can be cast.
func (r *rewriter) castOperandStart(toks []token, c int) int {
	j := c - 1
	if j < 0 {
		return -1
	}
	t := toks[j]
	switch {
	case r.isCastOp(t):
		return r.castOperandStart(toks, j)
	case t.typ == ')':
		open := matchingBack(toks, j)
		if open < 0 {
			return -1
		}
		// A window function call: f(...) OVER (...).
		if open > 2 && toks[open-1].is(r.src, "over") && toks[open-2].typ == ')' {
			if fo := matchingBack(toks, open-2); fo > 0 && toks[fo-1].typ == sqlparser.ID {
				return fo - 1
			}
		}
		// A function call: the name before the parenthesis.
		if open > 0 && isCallName(toks[open-1]) {
			return open - 1
		}
		return open
	case t.typ == sqlparser.ID:
		if j >= 2 && toks[j-1].typ == '.' && toks[j-2].typ == sqlparser.ID {
			return j - 2
		}
		return j
	case t.typ == sqlparser.STRING || t.typ == sqlparser.INTEGRAL || t.typ == sqlparser.FLOAT ||
		t.typ == sqlparser.NULL || t.typ == sqlparser.TRUE || t.typ == sqlparser.FALSE ||
		t.typ == sqlparser.VALUE_ARG || t.typ == sqlparser.HEXNUM || t.typ == sqlparser.HEX:
		return j
	}
	return -1
}

// isCallName reports whether t can name a function called with (...).
func isCallName(t token) bool {
	switch t.typ {
	case sqlparser.ID, sqlparser.IF, sqlparser.LEFT, sqlparser.RIGHT, sqlparser.SUBSTRING, sqlparser.SUBSTR,
		sqlparser.CAST, sqlparser.CONVERT, sqlparser.REPLACE, sqlparser.MOD, sqlparser.VALUES:
		return true
	}
	return false
}

// matchingBack returns the index of the '(' that the ')' at close closes.
func matchingBack(toks []token, close int) int {
	depth := 0
	for i := close; i >= 0; i-- {
		switch toks[i].typ {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// castStarts maps the index where a cast's operand starts to the
// outermost cast operator over it (nil when toks has no cast operator, the
// common case: one pass over the tokens).
func (r *rewriter) castStarts(toks []token) map[int]int {
	var m map[int]int
	for c, t := range toks {
		if !r.isCastOp(t) {
			continue
		}
		if m == nil {
			m = map[int]int{}
		}
		if s := r.castOperandStart(toks, c); s >= 0 {
			m[s] = c // later operators over the same operand are outer
		}
	}
	return m
}

// castEnd is the end of the cast operator at op: the operator token plus a
// parenthesised precision, if any.
func castEnd(toks []token, op int) int {
	end := op + 1
	if end < len(toks) && toks[end].typ == '(' {
		if m := matching(toks, end); m > 0 {
			end = m + 1
		}
	}
	return end
}

// castOp emits toks[i:op] cast to the type of toks[op:end].
func (r *rewriter) castOp(toks []token, i, op, end int) *Error {
	t := toks[op]
	words := append([]token{{typ: sqlparser.ID, start: t.start + 2, end: t.end}}, toks[op+1:end]...)
	name, suffix, err := r.castName(words)
	if err != nil {
		return err
	}
	r.emitFor("`"+name+"`", t)
	r.emitText("(", t.start)
	if err := r.rewrite(toks[i:op]); err != nil {
		return err
	}
	r.emitText(suffix+")", toks[end-1].end)
	return nil
}
