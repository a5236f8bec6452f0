package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// INTERSECT and EXCEPT [ALL | DISTINCT], which the stock grammar lacks. The
// dialect layer writes `A INTERSECT B` as `A UNION ALL SELECT * FROM (B)
// AS __gsql_intersect`: the derived table's name tells the binder
// (planner/bindunion.go) which set operation the UNION stands for, at the
// node itself. INTERSECT binds tighter than UNION and EXCEPT (SQL); the
// stock grammar reads them left to right, so an INTERSECT after a UNION or
// EXCEPT of the same query is grouped here: A UNION B INTERSECT C becomes
// A UNION (B INTERSECT C) (unionOperandOut), and EXCEPT's right operand
// runs to the next UNION or EXCEPT.

// SetOpMarker prefixes the derived-table names that carry a set operation.
const SetOpMarker = "__gsql_"

func isSetOp(r *rewriter, t token) bool {
	return t.is(r.src, "intersect") || t.is(r.src, "except")
}

// setOpOut emits the set operation whose keyword is toks[i] and its right
// operand, returning the index of the operand's last token.
func (r *rewriter) setOpOut(toks []token, i int) (int, *Error) {
	kw := toks[i]
	kind := strings.ToLower(kw.text(r.src))
	s := i + 1
	if s < len(toks) && toks[s].typ == sqlparser.ALL {
		kind += "_all"
		s++
	} else if s < len(toks) && toks[s].typ == sqlparser.DISTINCT {
		s++
	}
	// The right operand ends at the next set operation, ORDER BY or LIMIT
	// of this query, or where the query ends.
	e, depth := s, 0
	for ; e < len(toks); e++ {
		t := toks[e]
		if t.typ == '(' {
			depth++
		} else if t.typ == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
		if depth == 0 && (t.typ == sqlparser.UNION || isSetOp(r, t) || t.typ == sqlparser.ORDER || t.typ == sqlparser.LIMIT) &&
			(kind == "intersect" || kind == "intersect_all" || !t.is(r.src, "intersect")) {
			// EXCEPT's right operand takes the INTERSECTs that follow,
			// which bind tighter.
			break
		}
	}
	operand := toks[s:e]
	if len(operand) == 0 {
		return 0, newError(ErrSyntax, r.src, endOf(r.src, toks, e), "expected a query after %s", strings.ToUpper(kw.text(r.src)))
	}
	for len(operand) > 2 && operand[0].typ == '(' && matching(operand, 0) == len(operand)-1 {
		operand = operand[1 : len(operand)-1]
	}
	r.emitFor("union all select * from (", kw)
	if err := r.rewrite(operand); err != nil {
		return 0, err
	}
	r.emitText(") as "+SetOpMarker+kind, toks[e-1].end)
	return e - 1, nil
}

// unionOperandOut emits the UNION [ALL|DISTINCT] at toks[i] and, when its
// right operand holds an INTERSECT of the same query, that operand in
// parentheses so that the INTERSECT binds first; done is false (nothing
// emitted) when there is no such INTERSECT.
func (r *rewriter) unionOperandOut(toks []token, i int) (last int, done bool, err *Error) {
	s := i + 1
	if s < len(toks) && (toks[s].typ == sqlparser.ALL || toks[s].typ == sqlparser.DISTINCT) {
		s++
	}
	e, depth, intersect := s, 0, false
	for ; e < len(toks); e++ {
		t := toks[e]
		if t.typ == '(' {
			depth++
		} else if t.typ == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
		if depth == 0 {
			if t.typ == sqlparser.UNION || t.is(r.src, "except") || t.typ == sqlparser.ORDER || t.typ == sqlparser.LIMIT {
				break
			}
			intersect = intersect || t.is(r.src, "intersect")
		}
	}
	if !intersect {
		return 0, false, nil
	}
	for k := i; k < s; k++ {
		r.emitSrc(toks[k])
	}
	r.emitText(" (", toks[s-1].end)
	if err := r.rewrite(toks[s:e]); err != nil {
		return 0, true, err
	}
	r.emitText(")", toks[e-1].end)
	return e - 1, true, nil
}
