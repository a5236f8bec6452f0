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
// EXCEPT of the same query needs parentheses (a clear error says so).

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
	if kind == "intersect" {
		// Reject INTERSECT after a UNION or EXCEPT of the same query.
		depth := 0
		for j := i - 1; j >= 0; j-- {
			switch toks[j].typ {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth < 0 {
				break
			}
			if depth == 0 && (toks[j].typ == sqlparser.UNION || toks[j].is(r.src, "except")) {
				return 0, newError(ErrUnsupported, r.src, kw.start, "INTERSECT after UNION or EXCEPT needs parentheses: ( A UNION B ) INTERSECT C or A UNION ( B INTERSECT C )")
			}
		}
	}
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
		if depth == 0 && (t.typ == sqlparser.UNION || isSetOp(r, t) || t.typ == sqlparser.ORDER || t.typ == sqlparser.LIMIT) {
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
