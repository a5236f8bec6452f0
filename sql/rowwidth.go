package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Row widths. A comparison, IN or quantified comparison between operands
// of different widths ((a, b) IN (SELECT c FROM t), x = ANY (SELECT c, d
// ...), (a, b) = (1, 2, 3)) is MySQL's error 1241. The widths are checked
// here, on the tokens, wherever the text shows both (a subquery whose
// select list has a * does not), so that the error carries its line and
// column; the binder checks the rest (planner/quantified.go).

// checkRowWidths reports the first operand whose width differs from the
// width of the operand left of its operator.
func checkRowWidths(src string, toks []token) *Error {
	for k := 1; k < len(toks); k++ {
		op := toks[k]
		isIn := op.typ == sqlparser.IN
		if !isIn && !isComparisonOp(op.text(src)) {
			continue
		}
		left := k - 1
		if isIn && toks[left].typ == sqlparser.NOT {
			left--
		}
		if left < 0 {
			continue
		}
		lw, known := leftWidth(src, toks, left)
		if !known {
			continue
		}
		r := k + 1
		if r < len(toks) && !isIn && (toks[r].is(src, "any") || toks[r].is(src, "some") || toks[r].typ == sqlparser.ALL) {
			r++
		}
		if r >= len(toks) || toks[r].typ != '(' {
			continue
		}
		end := matching(toks, r)
		if end < 0 {
			continue
		}
		inner := toks[r+1 : end]
		if isQueryStart(src, inner) {
			if n, ok := selectWidth(src, inner); ok && n != lw {
				return operandError(src, inner[0].start, lw, n)
			}
			continue
		}
		if !isIn {
			if rw := groupWidth(src, toks, r, end); rw != lw {
				return operandError(src, toks[r].start, lw, rw)
			}
			continue
		}
		// An IN list: each element is an operand.
		items, _ := splitTop(inner, func(x token) bool { return x.typ == ',' })
		for _, it := range items {
			if len(it) == 0 {
				continue
			}
			w := 1
			if it[0].typ == '(' && matching(it, 0) == len(it)-1 {
				if isQueryStart(src, it[1:len(it)-1]) {
					continue
				}
				w = groupWidth(src, it, 0, len(it)-1)
			}
			if w != lw {
				return operandError(src, it[0].start, lw, w)
			}
		}
	}
	return nil
}

func operandError(src string, at, want, got int) *Error {
	return newError(ErrOperand, src, at, "operand should contain %d column(s), got %d", want, got)
}

// leftWidth is the width of the operand ending at toks[last]: a row value
// (a, b) has 2, a subquery as many as its select list, anything else 1.
// known is false for a subquery whose width the text does not show.
func leftWidth(src string, toks []token, last int) (int, bool) {
	if toks[last].typ != ')' {
		return 1, true
	}
	open := -1
	depth := 0
	for j := last; j >= 0; j-- {
		switch toks[j].typ {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 {
			open = j
			break
		}
	}
	if open < 0 {
		return 0, false
	}
	if open > 0 && !rowValueFollows(src, toks[open-1]) {
		return 1, true // a call's arguments, EXISTS (SELECT ...)
	}
	inner := toks[open+1 : last]
	if isQueryStart(src, inner) {
		return selectWidth(src, inner)
	}
	return groupWidth(src, toks, open, last), true
}

// rowValueFollows reports whether a parenthesis after prev starts an
// operand (a row value or a parenthesized expression) rather than the
// arguments of a call: it does after punctuation and operators and after
// the keywords that an operand follows; any other word names a function.
func rowValueFollows(src string, prev token) bool {
	text := prev.text(src)
	if text == "" {
		return true
	}
	if c := text[0]; c != '_' && c != '`' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') {
		return true
	}
	return operandKeywords[strings.ToLower(text)]
}

// operandKeywords are the words after which a parenthesis is an operand.
var operandKeywords = map[string]bool{
	"select": true, "distinct": true, "distinctrow": true, "all": true, "where": true, "having": true,
	"on": true, "and": true, "or": true, "xor": true, "not": true, "when": true, "then": true,
	"else": true, "case": true, "in": true, "by": true, "between": true, "like": true, "regexp": true,
	"is": true, "div": true, "set": true, "return": true,
}

// groupWidth is the number of top-level items between toks[open] '(' and
// toks[end] ')'.
func groupWidth(src string, toks []token, open, end int) int {
	if open > 0 && !rowValueFollows(src, toks[open-1]) {
		return 1
	}
	items, _ := splitTop(toks[open+1:end], func(x token) bool { return x.typ == ',' })
	return len(items)
}

// selectWidth counts the select list of the query in toks; ok is false
// when it has a * or the query is not a plain SELECT.
func selectWidth(src string, toks []token) (int, bool) {
	if len(toks) == 0 || toks[0].typ != sqlparser.SELECT {
		return 0, false
	}
	i := 1
	for i < len(toks) && (toks[i].typ == sqlparser.DISTINCT || toks[i].typ == sqlparser.ALL || toks[i].is(src, "distinctrow") ||
		toks[i].is(src, "straight_join") || strings.HasPrefix(strings.ToLower(toks[i].text(src)), "sql_")) {
		i++
	}
	e, depth := i, 0
	for ; e < len(toks); e++ {
		switch toks[e].typ {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			switch toks[e].typ {
			case sqlparser.FROM, sqlparser.WHERE, sqlparser.GROUP, sqlparser.HAVING, sqlparser.ORDER, sqlparser.LIMIT,
				sqlparser.UNION, sqlparser.INTO:
				goto done
			}
			if isSetOpWord(src, toks[e]) {
				goto done
			}
		}
	}
done:
	items, _ := splitTop(toks[i:e], func(x token) bool { return x.typ == ',' })
	for _, it := range items {
		if len(it) == 0 {
			return 0, false
		}
		if last := it[len(it)-1]; last.typ == '*' && (len(it) == 1 || it[len(it)-2].typ == '.') {
			return 0, false
		}
	}
	return len(items), true
}

func isSetOpWord(src string, t token) bool {
	return t.is(src, "intersect") || t.is(src, "except")
}
