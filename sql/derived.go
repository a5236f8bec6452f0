package sql

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Derived tables with a column list, FROM (query) [AS] t (a, b), as in
// TPC-H Q13. The stock grammar has no column list there, so the dialect
// layer rewrites the derived table into the form a CTE with a column list
// takes,
//
//	(SELECT * FROM (query) AS gsql_cte_dN_n_<t>_<a>_<b>) AS t
//
// and the planner renames the query's columns as it does for a CTE. A
// derived table is never correlated, so computing it once per statement,
// as the marker asks, is what it means anyway.

// expandDerivedColumns rewrites every derived table with a column list in
// toks. Anything that only looks like one, such as CAST((q) AS CHAR(3)),
// is left to the parser.
func expandDerivedColumns(src string, toks []token) ([]token, *Error) {
	for {
		out, ok, err := expandOneDerived(src, toks)
		if err != nil || !ok {
			return toks, err
		}
		toks = out
	}
}

// expandOneDerived rewrites the first derived table with a column list.
func expandOneDerived(src string, toks []token) ([]token, bool, *Error) {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].typ != '(' || (toks[i+1].typ != sqlparser.SELECT && toks[i+1].typ != '(') {
			continue
		}
		// A derived table follows FROM, a join or a comma (or opens a
		// parenthesised one); SUM((x)) OVER (...) is a call, not one.
		if i > 0 {
			switch toks[i-1].typ {
			case sqlparser.FROM, sqlparser.JOIN, sqlparser.STRAIGHT_JOIN, ',', '(':
			default:
				continue
			}
		}
		j := matching(toks, i)
		if j < 0 {
			return nil, false, nil
		}
		k := j + 1
		if k < len(toks) && toks[k].typ == sqlparser.AS {
			k++
		}
		if k+1 >= len(toks) || toks[k].typ != sqlparser.ID || toks[k+1].typ != '(' {
			continue
		}
		alias := toks[k]
		c := cte{name: strings.ToLower(string(alias.val)), nameTok: alias}
		end, err := cteColumns(src, toks, k+1, &c)
		if err != nil {
			if namesOnly(toks[k+2 : max(k+2, matching(toks, k+1))]) {
				return nil, false, err // a column list, but a bad one
			}
			continue
		}
		at := toks[j].start
		parts := []string{fmt.Sprintf("d%d", at), "n", hexName(c.name)}
		for _, col := range c.cols {
			parts = append(parts, hexName(col))
		}
		marker := quoteIdent(CTEMarker + strings.Join(parts, "_"))
		out := make([]token, 0, len(toks)+8)
		out = append(out, toks[:i+1]...)
		out = append(out, synth(sqlparser.SELECT, "select", at), synth('*', "*", at), synth(sqlparser.FROM, "from", at), synth('(', "(", at))
		out = append(out, toks[i+1:j]...)
		out = append(out, synth(')', ")", at), synth(sqlparser.AS, "as", at), synth(sqlparser.ID, marker, at))
		out = append(out, toks[j], synth(sqlparser.AS, "as", at), alias)
		out = append(out, toks[end+1:]...)
		return out, true, nil
	}
	return nil, false, nil
}

// namesOnly reports whether toks are identifiers and commas only.
func namesOnly(toks []token) bool {
	for _, t := range toks {
		if t.typ != sqlparser.ID && t.typ != ',' {
			return false
		}
	}
	return true
}
