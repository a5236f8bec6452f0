package sql

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Common table expressions: WITH a AS (query), b AS (query) SELECT ...
// The stock grammar has no WITH, so the dialect layer inlines each CTE as a
// derived table, (query) AS a, wherever its name stands as a table (after
// FROM, JOIN or a comma of a FROM list); a later CTE may use an earlier
// one. A CTE referenced more than once is inlined as
// (SELECT * FROM (query) AS gsql_cte_N) AS a, and the planner computes the
// derived tables named with that marker once per statement (planner/cte.go).
// WITH RECURSIVE and column lists are refused with a clear error.

// CTEMarker starts the alias of the derived table that stands for a CTE
// referenced more than once; the digits after it identify the CTE within
// the statement.
const CTEMarker = "gsql_cte_"

type cte struct {
	name        string
	as          token   // the AS token of the definition
	nameTok     token   // the name token
	raw         []token // the query, as written
	body        []token // the query, expanded
	open, close token
	shared      bool // referenced more than once
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
		c.raw = toks[k+1 : end]
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
	uses := make([]int, len(ctes))
	count := func(_ int, c int) { uses[c]++ }
	for i := range ctes {
		scanCTERefs(src, ctes[i].raw, ctes[:i], count)
	}
	scanCTERefs(src, toks[k:], ctes, count)
	for i := range ctes {
		ctes[i].shared = uses[i] > 1
		ctes[i].body = inlineCTEs(src, ctes[i].raw, ctes[:i])
	}
	return inlineCTEs(src, toks[k:], ctes), nil
}

// scanCTERefs calls fn with the index in toks and the CTE of each table
// reference to one of ctes (a name after FROM, JOIN or a comma of a FROM
// list).
func scanCTERefs(src string, toks []token, ctes []cte, fn func(i, c int)) {
	if len(ctes) == 0 {
		return
	}
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
			if prev == sqlparser.FROM || prev == sqlparser.JOIN || prev == sqlparser.STRAIGHT_JOIN || (prev == ',' && inFrom[d]) {
				if c, ok := lookupCTE(src, t, ctes); ok {
					fn(i, c)
				}
			}
		}
	}
}

// synth is a token of text the dialect layer adds at offset at.
func synth(typ int, text string, at int) token {
	return token{typ: typ, start: at, end: at, synth: text}
}

func endOf(src string, toks []token, k int) int {
	if k < len(toks) {
		return toks[k].start
	}
	return len(src)
}

// inlineCTEs replaces table references to ctes in toks by derived tables.
func inlineCTEs(src string, toks []token, ctes []cte) []token {
	refs := map[int]int{}
	scanCTERefs(src, toks, ctes, func(i, c int) { refs[i] = c })
	if len(refs) == 0 {
		return toks
	}
	var out []token
	for i, t := range toks {
		k, ok := refs[i]
		if !ok {
			out = append(out, t)
			continue
		}
		c := ctes[k]
		out = append(out, c.open)
		if c.shared {
			at := t.start
			out = append(out, synth(sqlparser.SELECT, "select", at), synth('*', "*", at), synth(sqlparser.FROM, "from", at), synth('(', "(", at))
			out = append(out, c.body...)
			out = append(out, synth(')', ")", at), synth(sqlparser.AS, "as", at), synth(sqlparser.ID, fmt.Sprintf("`%s%d_%s`", CTEMarker, c.nameTok.start, strings.ReplaceAll(c.name, "`", "``")), at))
		} else {
			out = append(out, c.body...)
		}
		out = append(out, c.close)
		// Keep the user's alias if one follows; else the derived table
		// takes the CTE's name.
		if i+1 >= len(toks) || (toks[i+1].typ != sqlparser.AS && toks[i+1].typ != sqlparser.ID) {
			out = append(out, c.as, t)
		}
	}
	return out
}

func lookupCTE(src string, t token, ctes []cte) (int, bool) {
	name := strings.ToLower(t.text(src))
	for k := len(ctes) - 1; k >= 0; k-- {
		if ctes[k].name == name {
			return k, true
		}
	}
	return 0, false
}
