package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Quantified comparisons, x op ANY (subquery), x op SOME (subquery) and
// x op ALL (subquery) (SQL-92, MySQL, DuckDB), which the stock grammar
// lacks. The dialect layer writes the quantifier and its subquery as a
// call of a marker function, x op gsql_any((SELECT ...)), so that the
// comparison keeps its place and precedence in the parsed tree and the
// binder (planner/quantified.go) finds the quantifier at the comparison.

// Markers of the quantifiers: SOME is a synonym of ANY.
const (
	QuantifiedAny = "gsql_any"
	QuantifiedAll = "gsql_all"
)

// quantifierAt reports whether toks[i] is ANY, SOME or ALL right after a
// comparison operator, and returns the marker it stands for.
func (r *rewriter) quantifierAt(toks []token, i int) (string, bool) {
	t := toks[i]
	name := ""
	switch {
	case t.is(r.src, "any") || t.is(r.src, "some"):
		name = QuantifiedAny
	case t.typ == sqlparser.ALL || t.is(r.src, "all"):
		name = QuantifiedAll
	default:
		return "", false
	}
	if i == 0 || !isComparisonOp(toks[i-1].text(r.src)) {
		return "", false
	}
	return name, true
}

func isComparisonOp(s string) bool {
	switch s {
	case "=", "<", ">", "<=", ">=", "<>", "!=", "<=>":
		return true
	}
	return false
}

// quantifiedOut emits the quantifier at toks[i] and the parenthesized
// subquery after it as a marker call; it returns the index of the
// subquery's closing parenthesis.
func (r *rewriter) quantifiedOut(toks []token, i int, marker string) (int, *Error) {
	q := toks[i]
	kw := strings.ToUpper(q.text(r.src))
	if op := toks[i-1].text(r.src); op == "<=>" {
		return 0, newError(ErrUnsupported, r.src, toks[i-1].start, "not supported: <=> %s (subquery)", kw)
	}
	if i+1 >= len(toks) || toks[i+1].typ != '(' {
		return 0, newError(ErrSyntax, r.src, endOf(r.src, toks, i+1), "expected a parenthesized subquery after %s", kw)
	}
	end := matching(toks, i+1)
	if end < 0 {
		return 0, newError(ErrSyntax, r.src, toks[i+1].start, "unclosed '(' after %s", kw)
	}
	if !isQueryStart(r.src, toks[i+2:end]) {
		return 0, newError(ErrUnsupported, r.src, q.start, "not supported: %s over other than a subquery (write %s (SELECT ...))", kw, kw)
	}
	r.emitFor("`"+marker+"`", q)
	r.emitText("(", q.end)
	if err := r.rewrite(toks[i+1 : end+1]); err != nil {
		return 0, err
	}
	r.emitText(")", toks[end].end)
	return end, nil
}

// isQueryStart reports whether toks (the inside of a parenthesis) begin a
// query: SELECT, WITH, or a parenthesized query.
func isQueryStart(src string, toks []token) bool {
	for len(toks) > 0 && toks[0].typ == '(' {
		toks = toks[1:]
	}
	return len(toks) > 0 && (toks[0].typ == sqlparser.SELECT || toks[0].typ == sqlparser.WITH || toks[0].is(src, "with"))
}
