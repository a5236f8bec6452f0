package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Common table expressions: WITH a AS (query), b AS (query) SELECT ...
// The stock grammar has no WITH, so the dialect layer inlines each CTE as a
// derived table, (query) AS a, wherever its name stands as a table (after
// FROM, JOIN or a comma of a FROM list); a later CTE may use an earlier
// one. A CTE referenced twice is evaluated twice (the results are the same:
// queries have no side effects). WITH RECURSIVE and column lists are
// refused with a clear error.

type cte struct {
	name        string
	as          token   // the AS token of the definition
	nameTok     token   // the name token
	body        []token // '(' query ')', expanded
	open, close token
}

// expandWith returns the statement after a WITH clause with its CTEs
// inlined.
func expandWith(src string, toks []token) ([]token, *Error) {
	k := 1
	if k < len(toks) && toks[k].is(src, "recursive") {
		return nil, newError(ErrUnsupported, src, toks[k].start, "not supported: WITH RECURSIVE")
	}
	var ctes []cte
	for {
		if k >= len(toks) || toks[k].typ != sqlparser.ID {
			return nil, newError(ErrSyntax, src, endOf(src, toks, k), "expected a name in WITH")
		}
		c := cte{name: strings.ToLower(toks[k].text(src)), nameTok: toks[k]}
		for _, d := range ctes {
			if d.name == c.name {
				return nil, newError(ErrSyntax, src, toks[k].start, "duplicate WITH name %s", toks[k].text(src))
			}
		}
		k++
		if k < len(toks) && toks[k].typ == '(' {
			return nil, newError(ErrUnsupported, src, toks[k].start, "not supported: column names in WITH (alias the query's columns instead)")
		}
		if k >= len(toks) || toks[k].typ != sqlparser.AS {
			return nil, newError(ErrSyntax, src, endOf(src, toks, k), "expected AS in WITH")
		}
		c.as = toks[k]
		k++
		if k >= len(toks) || toks[k].typ != '(' {
			return nil, newError(ErrSyntax, src, endOf(src, toks, k), "expected ( query ) in WITH")
		}
		end := matching(toks, k)
		if end < 0 {
			return nil, newError(ErrSyntax, src, toks[k].start, "unbalanced parenthesis")
		}
		if end == k+1 {
			return nil, newError(ErrSyntax, src, toks[end].start, "expected a query in WITH")
		}
		c.open, c.close = toks[k], toks[end]
		c.body = inlineCTEs(src, toks[k+1:end], ctes)
		ctes = append(ctes, c)
		k = end + 1
		if k < len(toks) && toks[k].typ == ',' {
			k++
			continue
		}
		break
	}
	if k >= len(toks) {
		return nil, newError(ErrSyntax, src, endOf(src, toks, k), "expected a query after WITH")
	}
	return inlineCTEs(src, toks[k:], ctes), nil
}

func endOf(src string, toks []token, k int) int {
	if k < len(toks) {
		return toks[k].start
	}
	return len(src)
}

// inlineCTEs replaces table references to ctes in toks by derived tables.
func inlineCTEs(src string, toks []token, ctes []cte) []token {
	if len(ctes) == 0 {
		return toks
	}
	var out []token
	// inFrom[d] is true while the FROM list at parenthesis depth d lasts.
	inFrom := []bool{false}
	for i, t := range toks {
		d := len(inFrom) - 1
		switch t.typ {
		case '(':
			inFrom = append(inFrom, false)
		case ')':
			if d > 0 {
				inFrom = inFrom[:d]
			}
		case sqlparser.FROM:
			inFrom[d] = true
		case sqlparser.WHERE, sqlparser.GROUP, sqlparser.HAVING, sqlparser.ORDER, sqlparser.LIMIT,
			sqlparser.UNION, sqlparser.ON, sqlparser.USING, sqlparser.SELECT:
			inFrom[d] = false
		}
		if t.typ == sqlparser.ID && i > 0 && (i+1 >= len(toks) || (toks[i+1].typ != '(' && toks[i+1].typ != '.')) {
			prev := toks[i-1].typ
			table := prev == sqlparser.FROM || prev == sqlparser.JOIN || prev == sqlparser.STRAIGHT_JOIN || (prev == ',' && inFrom[d])
			if table {
				if c, ok := lookupCTE(src, t, ctes); ok {
					out = append(out, c.open)
					out = append(out, c.body...)
					out = append(out, c.close)
					// Keep the user's alias if one follows; else the
					// derived table takes the CTE's name.
					if i+1 >= len(toks) || (toks[i+1].typ != sqlparser.AS && toks[i+1].typ != sqlparser.ID) {
						out = append(out, c.as, t)
					}
					continue
				}
			}
		}
		out = append(out, t)
	}
	return out
}

func lookupCTE(src string, t token, ctes []cte) (cte, bool) {
	name := strings.ToLower(t.text(src))
	for k := len(ctes) - 1; k >= 0; k-- {
		if ctes[k].name == name {
			return ctes[k], true
		}
	}
	return cte{}, false
}
