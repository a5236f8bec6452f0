package sql

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Common table expressions: WITH a AS (query), b AS (query) SELECT ...
// The stock grammar has no WITH, so the dialect layer inlines each CTE as a
// derived table, (query) AS a, wherever its name stands as a table (after
// FROM, JOIN or a comma of a FROM list); a later CTE may use an earlier
// one. A CTE referenced more than once, a recursive one and one with a
// column list are inlined as (SELECT * FROM (query) AS gsql_cte_N) AS a,
// the marker saying which (markerName); the planner decides whether a CTE
// used more than once is computed once per statement (planner/cte.go).

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
	shared      bool     // referenced more than once
	cols        []string // the column list, if given
	recursive   bool     // WITH RECURSIVE and the query names the CTE
}

// expandWith returns the statement after a WITH clause with its CTEs
// inlined.
func expandWith(src string, toks []token) ([]token, *Error) {
	k := 1
	recursive := false
	if k < len(toks) && toks[k].is(src, "recursive") {
		recursive = true
		k++
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
			end, err := cteColumns(src, toks, k, &c)
			if err != nil {
				return nil, err
			}
			k = end + 1
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
		c := &ctes[i]
		if recursive {
			if err := checkRecursive(src, c, ctes[i:i+1]); err != nil {
				return nil, err
			}
		}
		c.shared = uses[i] > 1
		if c.recursive {
			c.body = inlineCTEs(src, c.raw, ctes[:i+1])
		} else {
			c.body = inlineCTEs(src, c.raw, ctes[:i])
		}
	}
	return inlineCTEs(src, toks[k:], ctes), nil
}

// checkRecursive marks c recursive when its query names it, and checks the
// shape the planner runs: initial SELECT UNION [ALL] recursive SELECT, the
// CTE named only after the last UNION.
func checkRecursive(src string, c *cte, self []cte) *Error {
	var refs []int
	scanCTERefs(src, c.raw, self, func(i, _ int) { refs = append(refs, i) })
	if len(refs) == 0 {
		return nil
	}
	c.recursive = true
	last, depth := -1, 0
	for i, t := range c.raw {
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
		case sqlparser.UNION:
			if depth == 0 {
				last = i
			}
		}
	}
	if last < 0 {
		return newError(ErrSyntax, src, c.nameTok.start, "recursive WITH %s: expected an initial SELECT, UNION [ALL], then a SELECT that names %s", c.nameTok.text(src), c.nameTok.text(src))
	}
	if refs[0] < last {
		return newError(ErrUnsupported, src, c.raw[refs[0]].start, "not supported: recursive WITH %s names itself before its last UNION (only the SELECT after it may)", c.nameTok.text(src))
	}
	return nil
}

// cteColumns reads the column list of c, WITH c(a, b), from the '(' at
// toks[k], and returns the index of its ')'.
func cteColumns(src string, toks []token, k int, c *cte) (int, *Error) {
	end := matching(toks, k)
	if end < 0 {
		return 0, newError(ErrSyntax, src, toks[k].start, "unbalanced parenthesis")
	}
	for j := k + 1; j < end; j++ {
		t := toks[j]
		if t.typ != sqlparser.ID {
			return 0, newError(ErrSyntax, src, t.start, "expected a column name in the column list of %s", c.nameTok.text(src))
		}
		name := string(t.val)
		for _, d := range c.cols {
			if strings.EqualFold(d, name) {
				return 0, newError(ErrSyntax, src, t.start, "duplicate column name %s in the column list of %s", name, c.nameTok.text(src))
			}
		}
		c.cols = append(c.cols, name)
		j++
		if j < end && toks[j].typ != ',' {
			return 0, newError(ErrSyntax, src, toks[j].start, "expected , or ) in the column list of %s", c.nameTok.text(src))
		}
		if j == end-1 {
			return 0, newError(ErrSyntax, src, toks[end].start, "expected a column name in the column list of %s", c.nameTok.text(src))
		}
	}
	if len(c.cols) == 0 {
		return 0, newError(ErrSyntax, src, toks[end].start, "expected a column name in the column list of %s", c.nameTok.text(src))
	}
	return end, nil
}

// WorkMarker starts the table name that stands, inside a recursive CTE's
// query, for the rows of the previous iteration (the working table).
const WorkMarker = "gsql_work_"

// markerName is the derived-table alias for CTE c: the marker, then its
// offset, flags ("r": recursive, "n": not, then "s" when referenced
// more than once), name and column names (those
// two hex-encoded), separated by '_'. ParseMarker reads it.
func (c *cte) markerName() string {
	flags := "n"
	if c.recursive {
		flags = "r"
	}
	if c.shared {
		flags += "s"
	}
	parts := []string{fmt.Sprint(c.nameTok.start), flags, hexName(c.name)}
	for _, col := range c.cols {
		parts = append(parts, hexName(col))
	}
	return quoteIdent(CTEMarker + strings.Join(parts, "_"))
}

// CTEInfo is what a CTE marker says about its CTE.
type CTEInfo struct {
	Key       string // identifies the CTE within the statement
	Name      string
	Recursive bool
	// Shared: the statement references the CTE more than once.
	Shared  bool
	Columns []string // the column list, if any
}

// ParseMarker reads a derived-table alias written by markerName.
func ParseMarker(alias string) (CTEInfo, bool) {
	rest, ok := strings.CutPrefix(alias, CTEMarker)
	if !ok {
		return CTEInfo{}, false
	}
	f := strings.Split(rest, "_")
	if len(f) < 3 {
		return CTEInfo{}, false
	}
	info := CTEInfo{Key: f[0], Recursive: strings.HasPrefix(f[1], "r"), Shared: strings.HasSuffix(f[1], "s")}
	for i, h := range f[2:] {
		b, err := hex.DecodeString(h)
		if err != nil {
			return CTEInfo{}, false
		}
		if i == 0 {
			info.Name = string(b)
		} else {
			info.Columns = append(info.Columns, string(b))
		}
	}
	return info, true
}

// hexName encodes a name for a marker.
func hexName(s string) string { return hex.EncodeToString([]byte(s)) }

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// expandInsertWith expands MySQL's INSERT INTO t [(cols)] WITH ... SELECT:
// the WITH clause at the top level of an INSERT.
func expandInsertWith(src string, toks []token) ([]token, *Error) {
	depth := 0
	for i, t := range toks {
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 && i > 0 && (t.typ == sqlparser.WITH || t.is(src, "with")) {
			rest, err := expandWith(src, toks[i:])
			if err != nil {
				return nil, err
			}
			return append(append([]token(nil), toks[:i]...), rest...), nil
		}
	}
	return toks, nil
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
			sqlparser.UNION, sqlparser.SELECT:
			// ON and USING do not end the FROM list: in "a JOIN b ON
			// a.x = b.x, c" the comma is still one of its commas (an ON
			// condition has none outside parentheses).
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
		if c.recursive && c.body == nil {
			// The CTE's own query names it: the working table.
			out = append(out, synth(sqlparser.ID, quoteIdent(WorkMarker+fmt.Sprint(c.nameTok.start)), t.start))
			if i+1 >= len(toks) || (toks[i+1].typ != sqlparser.AS && toks[i+1].typ != sqlparser.ID) {
				out = append(out, c.as, t)
			}
			continue
		}
		out = append(out, c.open)
		if c.shared || c.recursive || c.cols != nil {
			at := t.start
			out = append(out, synth(sqlparser.SELECT, "select", at), synth('*', "*", at), synth(sqlparser.FROM, "from", at), synth('(', "(", at))
			out = append(out, c.body...)
			out = append(out, synth(')', ")", at), synth(sqlparser.AS, "as", at), synth(sqlparser.ID, c.markerName(), at))
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
