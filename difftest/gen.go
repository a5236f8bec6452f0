package difftest

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// shapes switches query shapes on and off. A shape that exposes a gsql bug
// too large to fix in place is switched off here, by name, and listed in
// the package comment, so the rest keeps running without mismatches.
type shapes struct {
	rightJoin      bool // RIGHT JOIN
	derived        bool // derived tables in FROM
	ctes           bool // WITH (and WITH RECURSIVE)
	recursive      bool // WITH RECURSIVE counters
	setOps         bool // UNION [ALL] / INTERSECT / EXCEPT
	nestedSetOps   bool // parenthesised set operations inside set operations
	windows        bool // window functions
	namedWindows   bool // WINDOW w AS (...)
	subqueries     bool // IN / EXISTS / scalar subqueries
	correlated     bool // subqueries that reference the outer query
	selectSubq     bool // scalar subqueries in the select list
	grouped        bool // GROUP BY / HAVING / aggregates
	divide         bool // `/` at the top of a select item
	intDiv         bool // DIV (integer division)
	setOpInSubq    bool // IN (SELECT ... UNION SELECT ...)
	limitComma     bool // LIMIT offset, count
	defaultNulls   bool // ORDER BY without NULLS FIRST/LAST (both engines put NULLs low)
	distinctAggs   bool // COUNT(DISTINCT ...)
	stringFuncs    bool // UPPER, LOWER, LENGTH, CONCAT
	greatestLeast  bool // GREATEST / LEAST (SQLite's multi-argument MAX/MIN)
	nullSafeEq     bool // <=> (SQLite's IS)
	limitedDerived bool // derived tables and set operation operands with ORDER BY ... LIMIT
	onSubqueries   bool // subqueries in ON conditions
	nestedSubq     bool // subqueries inside subqueries
	// deepCorrelation lets a subquery inside a subquery read the outermost
	// query's columns.
	deepCorrelation bool
	recursiveData   bool // WITH RECURSIVE walking the tables' rows
	// singleFrom keeps FROM clauses to one relation (for large tables,
	// whose joins over the small value ranges would be huge).
	singleFrom bool
	using      bool // JOIN ... USING (...)
	// rowValues generates (x, y) [NOT] IN (SELECT a, b ...), (x, y)
	// [NOT] IN ((1, 2), ...), (x, y) op (u, v) and (x, y) op (SELECT a,
	// b ... LIMIT 1).
	rowValues bool
	// quantified generates x op ANY|SOME|ALL (SELECT e ...). SQLite has no
	// ANY, SOME or ALL before a subquery, so it runs the definition
	// spelled with EXISTS instead (quantifiedPred).
	quantified bool
}

// allShapes is every shape on.
func allShapes() shapes {
	return shapes{
		rightJoin: true, derived: true, ctes: true, recursive: true,
		setOps: true, nestedSetOps: true, windows: true, namedWindows: true,
		subqueries: true, correlated: true, selectSubq: true, grouped: true,
		divide: true, intDiv: true, setOpInSubq: true, limitComma: true,
		defaultNulls: true, distinctAggs: true, stringFuncs: true,
		greatestLeast: true, nullSafeEq: true, limitedDerived: true,
		onSubqueries: true, nestedSubq: true, recursiveData: true, using: true,
		rowValues: true, quantified: true, deepCorrelation: true,
	}
}

// largeShapes is the shapes for tables of more than one batch: no joins,
// no subqueries (SQLite runs a correlated one per row), no recursion over
// the rows.
func largeShapes() shapes {
	sh := allShapes()
	sh.singleFrom = true
	sh.subqueries = false
	sh.recursiveData = false
	return sh
}

// query is one generated query: its tree, and whether its ORDER BY fixes
// the order of the rows (so results compare as sequences, not multisets).
type query struct {
	n       node
	ordered bool
	// order is the top-level ORDER BY by output column: gsql's rows must
	// be sorted by it even where it leaves ties (and the comparison with
	// SQLite is of multisets).
	order []sortKey
}

// sortKey is one ORDER BY term of a query's output.
type sortKey struct {
	col        int
	desc       bool
	nullsFirst bool
}

// rel is a relation a FROM clause can name: a table or a CTE.
type rel struct {
	name string
	cols []column
	base bool // a generated table, with a unique id column
}

// scopeCol is a column a query can reference, qualified by its alias.
type scopeCol struct {
	ref  string
	kind kind
}

// scope is what a FROM clause brings into view.
type scope struct {
	cols []scopeCol
	// keys together identify a row of the FROM clause (the id of every
	// table in it); nil when a derived table or CTE makes that unknown.
	keys []string
}

// ectx is what an expression may use: columns in view, and how deep it
// may still nest subqueries (0: none).
type ectx struct {
	cols []scopeCol
	sub  int
	// noNull keeps bare NULL literals out: under an aggregate or window
	// function one would make an untyped NULL argument, whose MIN/MAX
	// MySQL (and gsql) type as a string (BINARY(0)), not as a number.
	noNull bool
	// near, when set, is the columns a subquery made here may correlate
	// with (the immediately enclosing query's); else cols.
	near []scopeCol
}

type gen struct {
	rng   *rand.Rand
	ds    *dataset
	sh    shapes
	alias int
	ctes  []rel
}

func newGen(ds *dataset, seed int64, sh shapes) *gen {
	return &gen{rng: rand.New(rand.NewSource(seed)), ds: ds, sh: sh}
}

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }
func (g *gen) intn(n int) int        { return g.rng.Intn(n) }

func (g *gen) newAlias(prefix string) string {
	g.alias++
	return fmt.Sprintf("%s%d", prefix, g.alias)
}

// genQuery makes one top-level query.
func (g *gen) genQuery() query {
	g.alias = 0
	g.ctes = nil
	var parts []any
	if g.sh.ctes && g.chance(0.25) {
		parts = append(parts, g.genWith(), " ")
	}
	var body node
	var kinds []kind
	if g.sh.setOps && g.chance(0.3) {
		body, kinds = g.genSetOp(nil, 1)
	} else {
		body, kinds = g.genCore(nil, nil, 2, true)
	}
	parts = append(parts, body)
	q := query{}
	switch r := g.intn(10); {
	case r < 5:
		// Every output column: the order is fixed (rows equal in every
		// column are indistinguishable), so LIMIT is deterministic too.
		perm := g.rng.Perm(len(kinds))
		var keys []node
		for _, i := range perm {
			keys = append(keys, g.outKey(&q, i))
		}
		parts = append(parts, " ORDER BY ", join(keys, ", "))
		q.ordered = true
		if g.chance(0.5) {
			parts = append(parts, g.limit())
		}
	case r < 7:
		// Some columns only: ties leave the order open, so compare as
		// multisets.
		var keys []node
		for _, i := range g.rng.Perm(len(kinds))[:1+g.intn(len(kinds))] {
			keys = append(keys, g.outKey(&q, i))
		}
		parts = append(parts, " ORDER BY ", join(keys, ", "))
	}
	q.n = cat(parts...)
	return q
}

// totalOrder is an ORDER BY of every one of n output columns by ordinal,
// which fixes the order (rows equal in every column are
// indistinguishable) and so makes a LIMIT deterministic.
func (g *gen) totalOrder(n int) node {
	var keys []node
	for _, i := range g.rng.Perm(n) {
		keys = append(keys, g.orderKey(strconv.Itoa(i+1), true))
	}
	return cat(" ORDER BY ", join(keys, ", "))
}

// outRef names output column i: by alias or by ordinal.
func (g *gen) outRef(i int) string {
	if g.chance(0.5) {
		return strconv.Itoa(i + 1)
	}
	return fmt.Sprintf("c%d", i)
}

func (g *gen) limit() node {
	n := g.intn(6)
	switch r := g.intn(3); {
	case r == 0:
		return lit(fmt.Sprintf(" LIMIT %d", n))
	case r == 1 || !g.sh.limitComma:
		return lit(fmt.Sprintf(" LIMIT %d OFFSET %d", n, g.intn(5)))
	default:
		return lit(fmt.Sprintf(" LIMIT %d, %d", g.intn(5), n))
	}
}

// outKey is an ORDER BY term for output column i, recorded in q.order.
func (g *gen) outKey(q *query, i int) node {
	n, desc, nullsFirst := g.orderTerm(lit(g.outRef(i)))
	q.order = append(q.order, sortKey{col: i, desc: desc, nullsFirst: nullsFirst})
	return n
}

// orderKey is one ORDER BY term with a direction and, unless the shape
// allows the default and the dice say so, an explicit NULLS FIRST/LAST.
func (g *gen) orderKey(ref string, _ bool) node {
	n, _, _ := g.orderTerm(lit(ref))
	return n
}

// orderTerm is orderKey with the order it asks for: descending or not,
// NULLs first or not (by default first ascending, last descending, in
// MySQL, gsql and SQLite alike).
func (g *gen) orderTerm(ref node) (n node, desc, nullsFirst bool) {
	s := ""
	if g.chance(0.5) {
		s += " DESC"
		desc = true
	} else if g.chance(0.3) {
		s += " ASC"
	}
	nullsFirst = !desc
	if !g.sh.defaultNulls || g.chance(0.8) {
		if g.chance(0.5) {
			s += " NULLS FIRST"
			nullsFirst = true
		} else {
			s += " NULLS LAST"
			nullsFirst = false
		}
	}
	return cat(ref, s), desc, nullsFirst
}

// genWith makes a WITH clause of one to three CTEs; later ones may read
// earlier ones, and the query body sees them all.
func (g *gen) genWith() node {
	var defs []node
	recursive := false
	n := 1 + g.intn(3)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("w%d", i+1)
		if g.sh.recursive && g.sh.recursiveData && g.chance(0.1) {
			recursive = true
			t := g.ds.tables[g.intn(len(g.ds.tables))]
			if g.chance(0.5) {
				// Walk the ids up from a start: UNION ALL, ends at a gap.
				start := 1 + g.intn(3)
				def := "%[1]s(c0, c1, c2) AS (SELECT q.id, q.a, q.s FROM %[2]s AS q WHERE q.id = %[3]d UNION ALL SELECT p.id, p.a, %[4]s FROM %[2]s AS p JOIN %[1]s AS r ON p.id = r.c0 + 1)"
				defs = append(defs, alt{
					lit(fmt.Sprintf(def, name, t.name, start, "CONCAT(r.c2, p.s)")),
					lit(fmt.Sprintf(def, name, t.name, start, "(r.c2 || p.s)"))})
				g.ctes = append(g.ctes, rel{name: name, cols: []column{{"c0", kInt}, {"c1", kInt}, {"c2", kText}}})
			} else {
				// Follow a -> id edges: UNION ends when no new value comes.
				defs = append(defs, lit(fmt.Sprintf("%[1]s(c0) AS (SELECT q.a FROM %[2]s AS q WHERE q.id <= %[3]d UNION SELECT p.a FROM %[2]s AS p JOIN %[1]s AS r ON p.id = r.c0)", name, t.name, 1+g.intn(3))))
				g.ctes = append(g.ctes, rel{name: name, cols: []column{{"c0", kInt}}})
			}
			continue
		}
		if g.sh.recursive && g.chance(0.15) {
			recursive = true
			lim := 1 + g.intn(6)
			defs = append(defs, lit(fmt.Sprintf("%s(c0) AS (SELECT 0 UNION ALL SELECT c0 + 1 FROM %s WHERE c0 < %d)", name, name, lim)))
			g.ctes = append(g.ctes, rel{name: name, cols: []column{{"c0", kInt}}})
			continue
		}
		var body node
		var kinds []kind
		if g.sh.setOps && g.chance(0.25) {
			body, kinds = g.genSetOp(nil, 1)
		} else {
			body, kinds = g.genCore(nil, nil, 1, true)
		}
		defs = append(defs, cat(name, " AS (", body, ")"))
		r := rel{name: name}
		for j, k := range kinds {
			r.cols = append(r.cols, column{fmt.Sprintf("c%d", j), k})
		}
		g.ctes = append(g.ctes, r)
	}
	kw := "WITH "
	if recursive {
		kw = "WITH RECURSIVE "
	}
	return cat(kw, join(defs, ", "))
}

// genSetOp makes a chain of set operations over cores with the given
// column kinds (random when nil). INTERSECTs come only at the head of a
// chain: gsql (like the standard) binds INTERSECT tighter and refuses an
// unparenthesised INTERSECT after UNION/EXCEPT, while SQLite reads every
// chain left to right; at the head both read it the same.
func (g *gen) genSetOp(kinds []kind, depth int) (node, []kind) {
	var first node
	first, kinds = g.setOpTerm(kinds, depth)
	parts := []any{first}
	n := 1 + g.intn(2)
	intersectOK := true
	for i := 0; i < n; i++ {
		var op string
		switch r := g.intn(4); {
		case r == 0 && intersectOK:
			op = " INTERSECT "
		case r == 0 || r == 1:
			op = " UNION "
			intersectOK = false
		case r == 2:
			op = " UNION ALL "
			intersectOK = false
		default:
			op = " EXCEPT "
			intersectOK = false
		}
		t, _ := g.setOpTerm(kinds, depth)
		parts = append(parts, op, t)
	}
	return cat(parts...), kinds
}

// setOpTerm is one operand of a set operation: a core, or a parenthesised
// set operation. SQLite has no parenthesised compound operands, so there
// it becomes SELECT * FROM (...), which means the same.
func (g *gen) setOpTerm(kinds []kind, depth int) (node, []kind) {
	if g.sh.nestedSetOps && depth > 0 && g.chance(0.25) {
		inner, k := g.genSetOp(kinds, depth-1)
		a := g.newAlias("s")
		wrapped := cat("SELECT * FROM (", inner, ") AS ", a)
		if g.chance(0.7) {
			return alt{cat("(", inner, ")"), wrapped}, k
		}
		return wrapped, k
	}
	core, k := g.genCore(nil, kinds, depth, true)
	if g.sh.limitedDerived && g.chance(0.1) {
		// A parenthesised operand with its own ORDER BY and LIMIT.
		inner := cat(core, g.totalOrder(len(k)), g.limit())
		return alt{cat("(", inner, ")"), cat("SELECT * FROM (", inner, ") AS ", g.newAlias("s"))}, k
	}
	return core, k
}

// genFrom makes a FROM clause of one to three relations and the WHERE
// equalities its comma joins come with.
func (g *gen) genFrom(depth int) (node, scope, []node) {
	n := 1
	switch r := g.intn(20); {
	case g.sh.singleFrom:
	case r >= 17:
		n = 3
	case r >= 7:
		n = 2
	}
	var sc scope
	keysKnown := true
	var parts []any
	var where []node
	seg := 0 // where the relations an ON may see start
	for i := 0; i < n; i++ {
		item, cols, key := g.fromItem(depth)
		if key == "" {
			keysKnown = false
		} else {
			sc.keys = append(sc.keys, key)
		}
		if i == 0 {
			parts = append(parts, item)
			sc.cols = append(sc.cols, cols...)
			continue
		}
		prev := sc.cols
		sc.cols = append(sc.cols, cols...)
		switch r := g.intn(20); {
		case r < 7:
			parts = append(parts, ", ", item)
			if g.chance(0.85) {
				where = append(where, g.joinEq(prev, cols))
			}
			// The comma binds looser than JOIN (MySQL, the standard):
			// an ON after it sees only the relations after it.
			seg = len(prev)
		case r < 8:
			parts = append(parts, " CROSS JOIN ", item)
		default:
			jt := " JOIN "
			switch {
			case r < 11:
				jt = " INNER JOIN "
			case r < 17:
				jt = " LEFT JOIN "
			case r < 18 && g.sh.rightJoin && seg == 0:
				// Not after a comma: SQLite reads "a, b RIGHT JOIN c" as
				// "(a, b) RIGHT JOIN c", MySQL as "a, (b RIGHT JOIN c)";
				// for inner and left joins the two readings agree.
				jt = " RIGHT JOIN "
			}
			if g.sh.using && i == 1 && g.chance(0.2) {
				// USING only with one relation on the left: MySQL calls a
				// column that two of them have ambiguous.
				if u := g.usingCols(prev, cols); u != "" {
					parts = append(parts, jt, item, " USING ("+u+")")
					continue
				}
			}
			on := g.joinEq(prev[seg:], cols)
			if g.chance(0.3) {
				op := " AND "
				if g.chance(0.3) {
					op = " OR "
				}
				oec := ectx{cols: sc.cols[seg:]}
				if g.sh.onSubqueries && g.sh.subqueries && depth > 0 {
					oec.sub = 1
				}
				on = cat("(", on, op, g.genBool(oec, 1), ")")
			}
			parts = append(parts, jt, item, " ON ", on)
		}
	}
	if !keysKnown {
		sc.keys = nil
	}
	return cat(parts...), sc, where
}

// usingCols picks one or two column names both sides have with the same
// kind; "" if none.
func (g *gen) usingCols(l, r []scopeCol) string {
	name := func(c scopeCol) string { return c.ref[strings.IndexByte(c.ref, '.')+1:] }
	var common []string
	for _, a := range l {
		for _, b := range r {
			if name(a) == name(b) && a.kind == b.kind && a.kind != kBool {
				common = append(common, name(a))
			}
		}
	}
	if len(common) == 0 {
		return ""
	}
	g.rng.Shuffle(len(common), func(i, j int) { common[i], common[j] = common[j], common[i] })
	return strings.Join(common[:1+g.intn(min(2, len(common)))], ", ")
}

// joinEq equates a column of the new relation with one of those before it,
// integers with integers mostly, so that joins match often.
func (g *gen) joinEq(prev, cols []scopeCol) node {
	eq := g.joinEq1(prev, cols)
	if g.chance(0.15) {
		// Two equalities: a two-column join key.
		eq = cat(eq, " AND ", g.joinEq1(prev, cols))
	}
	return eq
}

// joinEq1 is one equality, of columns or now and then of expressions of
// them (a computed join key).
func (g *gen) joinEq1(prev, cols []scopeCol) node {
	k := kInt
	if g.chance(0.15) {
		k = kText
	} else if g.chance(0.15) {
		k = kReal
	}
	l, okL := g.pickCol(prev, k)
	r, okR := g.pickCol(cols, k)
	if !okL || !okR {
		k = kInt
		l, _ = g.pickCol(prev, kInt)
		r, _ = g.pickCol(cols, kInt)
		if l == "" || r == "" {
			return lit("1 = 1")
		}
	}
	if g.chance(0.15) {
		switch k {
		case kInt:
			l = []string{"(" + l + " + 1)", "COALESCE(" + l + ", 0)", "ABS(" + l + ")", "(" + l + " % 3)"}[g.intn(4)]
		case kReal:
			l = "(" + l + " * 2.0)"
		case kText:
			l = []string{"UPPER(" + l + ")", "COALESCE(" + l + ", 'a')"}[g.intn(2)]
		}
	}
	if g.chance(0.5) {
		l, r = r, l
	}
	return lit(l + " = " + r)
}

// fromItem is one relation of a FROM clause with its alias: a table, a
// CTE or a derived table. key is its unique column, "" if none.
func (g *gen) fromItem(depth int) (node, []scopeCol, string) {
	a := g.newAlias("q")
	r := g.intn(20)
	if len(g.ctes) > 0 && r < 6 {
		c := g.ctes[g.intn(len(g.ctes))]
		return lit(c.name + " AS " + a), qualify(a, c.cols), ""
	}
	if g.sh.derived && depth > 0 && r >= 6 && r < 9 {
		var body node
		var kinds []kind
		if g.sh.setOps && g.chance(0.3) {
			body, kinds = g.genSetOp(nil, 0)
		} else {
			body, kinds = g.genCore(nil, nil, depth-1, true)
		}
		var cols []column
		for j, k := range kinds {
			cols = append(cols, column{fmt.Sprintf("c%d", j), k})
		}
		if g.sh.limitedDerived && g.chance(0.15) {
			body = cat(body, g.totalOrder(len(kinds)), g.limit())
		}
		return cat("(", body, ") AS ", a), qualify(a, cols), ""
	}
	t := g.ds.tables[g.intn(len(g.ds.tables))]
	s := t.name + " AS " + a
	if g.chance(0.3) {
		s = t.name + " " + a
	}
	return lit(s), qualify(a, t.cols), a + ".id"
}

func qualify(alias string, cols []column) []scopeCol {
	out := make([]scopeCol, len(cols))
	for i, c := range cols {
		out[i] = scopeCol{alias + "." + c.name, c.kind}
	}
	return out
}

// pickCol picks a column of kind k (an integer one will do for a real);
// false when there is none.
func (g *gen) pickCol(cols []scopeCol, k kind) (string, bool) {
	var cands []string
	for _, c := range cols {
		if c.kind == k || (k == kReal && c.kind == kInt && g.chance(0.3)) {
			cands = append(cands, c.ref)
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	return cands[g.intn(len(cands))], true
}

// coreMode is the shape of a select core.
type coreMode int

const (
	modePlain coreMode = iota
	modeGrouped
	modeWindow
)

// genCore makes one SELECT ... FROM ... [WHERE] [GROUP BY [HAVING]]
// [WINDOW] whose items are aliased c0, c1, ... and have the given kinds
// (random when nil). outer is the enclosing query's columns for a
// correlated subquery (unused for now: cores are never correlated).
func (g *gen) genCore(outer []scopeCol, kinds []kind, depth int, allowWin bool) (node, []kind) {
	from, sc, where := g.genFrom(depth)
	ec := ectx{cols: append(append([]scopeCol(nil), sc.cols...), outer...)}
	if g.sh.subqueries && depth > 0 {
		ec.sub = 1
		if g.sh.nestedSubq && g.chance(0.3) {
			ec.sub = 2
		}
	}
	if g.chance(0.5) {
		where = append(where, g.genBool(ec, 2))
	}
	// Select items get typed NULLs only: a bare NULL item would be a
	// column of no type in a derived table or CTE (see ectx.noNull).
	ec.noNull = true
	if kinds == nil {
		n := 1 + g.intn(3)
		for i := 0; i < n; i++ {
			kinds = append(kinds, []kind{kInt, kInt, kReal, kText, kText, kBool}[g.intn(6)])
		}
	}
	mode := modePlain
	switch r := g.intn(10); {
	case r < 3 && g.sh.grouped:
		mode = modeGrouped
	case r < 6 && g.sh.windows && allowWin:
		mode = modeWindow
	}
	var items []node
	var groupBy, having node
	var window node
	distinct := false
	switch mode {
	case modeGrouped:
		items, groupBy, having, window = g.groupedItems(ec, kinds)
	case modeWindow:
		items, window = g.windowItems(ec, sc, kinds)
	default:
		distinct = g.chance(0.15)
		iec := ec
		if !g.sh.selectSubq {
			iec.sub = 0
		}
		for _, k := range kinds {
			items = append(items, g.selectItem(iec, k))
		}
	}
	for i := range items {
		items[i] = cat(items[i], fmt.Sprintf(" AS c%d", i))
	}
	parts := []any{"SELECT "}
	if distinct {
		parts = append(parts, "DISTINCT ")
	}
	parts = append(parts, join(items, ", "), " FROM ", from)
	if len(where) > 0 {
		parts = append(parts, " WHERE ", join(where, " AND "))
	}
	if groupBy != nil {
		parts = append(parts, " GROUP BY ", groupBy)
	}
	if having != nil {
		parts = append(parts, " HAVING ", having)
	}
	if window != nil {
		parts = append(parts, " WINDOW ", window)
	}
	return cat(parts...), kinds
}

// selectItem is a plain select item of kind k; a real one may be a
// division at its top (see the package comment).
func (g *gen) selectItem(ec ectx, k kind) node {
	if k == kReal && g.sh.divide && g.chance(0.15) {
		x := g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], 1)
		y := g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], 1)
		return alt{cat("(", x, " / ", y, ")"), cat("(CAST(", x, " AS REAL) / ", y, ")")}
	}
	return g.genExpr(ec, k, 2)
}

// groupedItems makes GROUP BY keys (columns, simple expressions of them,
// sometimes named by ordinal), items of the given kinds that are keys,
// aggregates, window functions over the groups or scalar subqueries
// correlated with the keys, and sometimes a HAVING (with or without GROUP
// BY, with or without a subquery). It returns the items, the GROUP BY
// list (nil for none), the HAVING and a named window (nil for none).
func (g *gen) groupedItems(ec ectx, kinds []kind) ([]node, node, node, node) {
	nk := g.intn(3) // 0: aggregates over the whole input
	var keys []scopeCol
	for i := 0; i < nk && len(ec.cols) > 0; i++ {
		c := ec.cols[g.intn(len(ec.cols))]
		if g.chance(0.2) {
			switch c.kind {
			case kInt:
				c.ref = []string{"(" + c.ref + " % 3)", "COALESCE(" + c.ref + ", 0)", "ABS(" + c.ref + ")"}[g.intn(3)]
			case kReal:
				c.ref = "(" + c.ref + " * 2.0)"
			case kText:
				c.ref = "UPPER(" + c.ref + ")"
			}
		}
		keys = append(keys, c)
	}
	aec := ectx{cols: ec.cols, noNull: true} // no subqueries inside aggregates
	// What a window function or subquery over the groups may use: the keys
	// and aggregates. The keys identify a group, so they make the order of
	// groups total.
	gcols := append([]scopeCol(nil), keys...)
	for _, c := range ec.cols {
		if g.chance(0.3) {
			switch c.kind {
			case kInt:
				gcols = append(gcols, scopeCol{[]string{"SUM(", "MIN(", "MAX("}[g.intn(3)] + c.ref + ")", kInt})
			case kReal:
				gcols = append(gcols, scopeCol{[]string{"SUM(", "AVG(", "MAX("}[g.intn(3)] + c.ref + ")", kReal})
			case kText:
				gcols = append(gcols, scopeCol{[]string{"MIN(", "MAX("}[g.intn(2)] + c.ref + ")", kText})
			}
		}
	}
	gcols = append(gcols, scopeCol{"COUNT(*)", kInt})
	gkeys := []string{}
	// A subquery may read the key columns, not columns under a key
	// expression (MySQL's ONLY_FULL_GROUP_BY and gsql refuse those).
	var colKeys []scopeCol
	for _, k := range keys {
		gkeys = append(gkeys, k.ref)
		if !strings.Contains(k.ref, "(") {
			colKeys = append(colKeys, k)
		}
	}
	var items []node
	var named node
	itemOf := map[string]int{}
	windows, subqs := 0, 0
	for i, k := range kinds {
		var cands []string
		for _, key := range keys {
			if key.kind == k {
				cands = append(cands, key.ref)
			}
		}
		switch {
		case len(cands) > 0 && g.chance(0.6):
			ref := cands[g.intn(len(cands))]
			if _, ok := itemOf[ref]; !ok {
				itemOf[ref] = i
			}
			items = append(items, lit(ref))
			continue
		case k != kBool && g.sh.windows && len(keys) > 0 && g.chance(0.15):
			// With keys only: SQLite (3.45, 3.54) fails queries that read a
			// window over an aggregate without GROUP BY from a derived
			// table ("HAVING clause on a non-aggregate query").
			if w, ok := g.windowFunc(ectx{cols: gcols, noNull: true}, scope{keys: gkeys}, k, &named); ok {
				items = append(items, w)
				windows++
				continue
			}
		case k != kBool && ec.sub > 0 && g.sh.selectSubq && g.chance(0.1):
			items = append(items, g.scalarSubquery(ectx{cols: colKeys, sub: ec.sub}, k))
			subqs++
			continue
		}
		items = append(items, g.aggExpr(aec, k))
	}
	var groupBy node
	if len(keys) > 0 {
		var ks []node
		for _, key := range keys {
			if i, ok := itemOf[key.ref]; ok && g.chance(0.3) {
				ks = append(ks, lit(strconv.Itoa(i+1)))
			} else {
				ks = append(ks, lit(key.ref))
			}
		}
		groupBy = join(ks, ", ")
	}
	var having node
	// SQLite takes HAVING without GROUP BY only where the select list is
	// aggregates (not windows over them, not subqueries).
	if g.chance(0.4) && (groupBy != nil || windows+subqs == 0) {
		switch r := g.intn(4); {
		case r == 0:
			having = lit(fmt.Sprintf("COUNT(*) > %d", g.intn(3)))
		case r == 1:
			having = cat(g.aggExpr(aec, kInt), []string{" > ", " < ", " >= ", " <> "}[g.intn(4)], strconv.Itoa(g.intn(5)-1))
		case r == 2 && ec.sub > 0:
			k := []kind{kInt, kReal, kText}[g.intn(3)]
			having = cat(g.aggExpr(aec, k), []string{" = ", " < ", " >= ", " <> "}[g.intn(4)], g.scalarSubquery(ectx{cols: colKeys, sub: ec.sub}, k))
		default:
			having = cat(g.aggExpr(aec, kText), " IS NOT NULL")
		}
	}
	return items, groupBy, having, named
}

// aggExpr is an aggregate of kind k (bool: a comparison of one).
func (g *gen) aggExpr(ec ectx, k kind) node {
	switch k {
	case kBool:
		return cat("(", g.aggExpr(ec, kInt), " > ", strconv.Itoa(g.intn(4)), ")")
	case kInt:
		switch g.intn(6) {
		case 0:
			return lit("COUNT(*)")
		case 1:
			if g.sh.distinctAggs && g.chance(0.5) {
				return cat("COUNT(DISTINCT ", g.genExpr(ec, []kind{kInt, kText}[g.intn(2)], 1), ")")
			}
			return cat("COUNT(", g.genExpr(ec, []kind{kInt, kReal, kText}[g.intn(3)], 1), ")")
		case 2, 3:
			if g.sh.distinctAggs && g.chance(0.2) {
				return cat("SUM(DISTINCT ", g.genExpr(ec, kInt, 1), ")")
			}
			return cat("SUM(", g.genExpr(ec, kInt, 1), ")")
		case 4:
			return cat("MIN(", g.genExpr(ec, kInt, 1), ")")
		default:
			return cat("COALESCE(MAX(", g.genExpr(ec, kInt, 1), "), ", strconv.Itoa(g.intn(3)), ")")
		}
	case kReal:
		switch g.intn(4) {
		case 0:
			if g.sh.distinctAggs && g.chance(0.2) {
				return cat("AVG(DISTINCT ", g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], 1), ")")
			}
			return cat("AVG(", g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], 1), ")")
		case 1:
			return cat("SUM(", g.genExpr(ec, kReal, 1), ")")
		case 2:
			return cat("MIN(", g.genExpr(ec, kReal, 1), ")")
		default:
			return cat("MAX(", g.genExpr(ec, kReal, 1), ")")
		}
	default:
		if g.chance(0.5) {
			return cat("MIN(", g.genExpr(ec, kText, 1), ")")
		}
		return cat("MAX(", g.genExpr(ec, kText, 1), ")")
	}
}

// windowItems makes items of the given kinds, one or two of them window
// functions, and sometimes a named window for them.
func (g *gen) windowItems(ec ectx, sc scope, kinds []kind) ([]node, node) {
	iec := ectx{cols: ec.cols, noNull: true}
	items := make([]node, len(kinds))
	nwin := 0
	var named node
	for i, k := range kinds {
		if k != kBool && (nwin == 0 || g.chance(0.4)) {
			w, ok := g.windowFunc(iec, sc, k, &named)
			if ok {
				items[i] = w
				nwin++
				continue
			}
		}
		items[i] = g.genExpr(iec, k, 1)
	}
	return items, named
}

// windowFunc makes a window function of kind k. Functions whose result
// depends on the order within peers (ROW_NUMBER, NTILE, LAG, LEAD,
// FIRST_VALUE, LAST_VALUE, anything over a ROWS frame) get the FROM
// clause's unique keys appended to their ORDER BY; without keys, they are
// not generated.
func (g *gen) windowFunc(ec ectx, sc scope, k kind, named *node) (node, bool) {
	type fn struct {
		text      node
		total     bool // needs a total order
		framed    bool // takes a frame
		rangeOK   bool // may take a RANGE frame with offsets
		needOrder bool
	}
	var f fn
	expr := func(k kind) node { return g.genExpr(ectx{cols: ec.cols, noNull: true}, k, 1) }
	switch k {
	case kInt:
		switch g.intn(9) {
		case 0:
			f = fn{text: lit("ROW_NUMBER()"), total: true}
		case 1:
			f = fn{text: lit("RANK()"), needOrder: true}
		case 2:
			f = fn{text: lit("DENSE_RANK()"), needOrder: true}
		case 3:
			f = fn{text: lit(fmt.Sprintf("NTILE(%d)", 1+g.intn(4))), total: true}
		case 4:
			f = fn{text: lit("COUNT(*)"), framed: true, rangeOK: true}
		case 5:
			f = fn{text: cat("SUM(", expr(kInt), ")"), framed: true, rangeOK: true}
		case 6:
			f = fn{text: g.lagLead(ec, kInt), total: true}
		default:
			f = fn{text: cat([]string{"MIN(", "MAX(", "COUNT(", "FIRST_VALUE(", "LAST_VALUE("}[g.intn(5)], expr(kInt), ")"), framed: true, rangeOK: true}
		}
	case kReal:
		switch g.intn(4) {
		case 0:
			f = fn{text: cat("AVG(", expr([]kind{kInt, kReal}[g.intn(2)]), ")"), framed: true, rangeOK: true}
		case 1:
			f = fn{text: cat("SUM(", expr(kReal), ")"), framed: true, rangeOK: true}
		case 2:
			f = fn{text: g.lagLead(ec, kReal), total: true}
		default:
			f = fn{text: cat([]string{"MIN(", "MAX(", "FIRST_VALUE(", "LAST_VALUE("}[g.intn(4)], expr(kReal), ")"), framed: true, rangeOK: true}
		}
	default:
		switch g.intn(3) {
		case 0:
			f = fn{text: g.lagLead(ec, kText), total: true}
		default:
			f = fn{text: cat([]string{"MIN(", "MAX(", "FIRST_VALUE(", "LAST_VALUE("}[g.intn(4)], expr(kText), ")"), framed: true, rangeOK: true}
		}
	}
	if t := render(f.text, dGSQL); len(t) > 5 && (t[:5] == "FIRST" || t[:5] == "LAST_") {
		// Which row is first or last among peers is open.
		f.total = true
		f.rangeOK = false
	}
	if f.total && sc.keys == nil {
		return nil, false
	}
	var spec []any
	var part node // the PARTITION BY, for a named window to carry alone
	if g.chance(0.6) && len(ec.cols) > 0 {
		var ps []node
		for i := 0; i < 1+g.intn(2); i++ {
			ps = append(ps, g.winKey(ec))
		}
		part = cat("PARTITION BY ", join(ps, ", "))
		spec = append(spec, part)
	}
	var frame string
	if f.framed && g.chance(0.5) {
		if g.chance(0.5) {
			frame = g.frame("ROWS", true)
			f.total = true
			if sc.keys == nil {
				frame = ""
				f.total = false
			}
		} else {
			frame = "RANGE"
		}
	}
	// RANGE with offsets wants exactly one numeric ORDER BY key; peers make
	// it deterministic, so no keys are appended.
	if frame == "RANGE" && f.rangeOK && !f.total {
		var nums []scopeCol
		for _, c := range ec.cols {
			if c.kind.numeric() {
				nums = append(nums, c)
			}
		}
		if len(nums) > 0 {
			c := nums[g.intn(len(nums))]
			if len(spec) > 0 {
				spec = append(spec, " ")
			}
			spec = append(spec, "ORDER BY ", g.orderKey(c.ref, true), " ", g.frame("RANGE", c.kind == kInt))
			return g.over(f.text, spec, part, named), true
		}
	}
	var order []node
	if f.total || f.needOrder || g.chance(0.6) {
		for i := 0; i < 1+g.intn(2) && len(ec.cols) > 0; i++ {
			n, _, _ := g.orderTerm(g.winKey(ec))
			order = append(order, n)
		}
	}
	if f.total {
		for _, key := range sc.keys {
			order = append(order, g.orderKey(key, true))
		}
	}
	if len(order) > 0 {
		if len(spec) > 0 {
			spec = append(spec, " ")
		}
		spec = append(spec, "ORDER BY ", join(order, ", "))
		if frame == "RANGE" {
			frame = []string{"RANGE UNBOUNDED PRECEDING", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
				"RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"}[g.intn(4)]
		}
		if frame != "" {
			spec = append(spec, " ", frame)
		}
	} else if frame != "" && frame != "RANGE" {
		return nil, false
	}
	return g.over(f.text, spec, part, named), true
}

// over attaches a window spec to a function, sometimes through a named
// window (one per core): the whole spec, or its PARTITION BY that the
// function's OVER (w ORDER BY ...) refines.
func (g *gen) over(fn node, spec []any, part node, named *node) node {
	if g.sh.namedWindows && *named == nil && part != nil && len(spec) > 1 && g.chance(0.15) {
		*named = cat("w AS (", part, ")")
		return cat(fn, " OVER (w", cat(spec[1:]...), ")")
	}
	if g.sh.namedWindows && *named == nil && len(spec) > 0 && g.chance(0.2) {
		*named = cat("w AS (", cat(spec...), ")")
		return cat(fn, " OVER w")
	}
	return cat(fn, " OVER (", cat(spec...), ")")
}

// frame makes a ROWS or RANGE frame whose start is not after its end.
func (g *gen) frame(unit string, intOffsets bool) string {
	off := func() string {
		if intOffsets {
			return strconv.Itoa(g.intn(3))
		}
		return []string{"0.5", "1", "1.5", "0"}[g.intn(4)]
	}
	// Bounds by position: 0 UNBOUNDED PRECEDING, 1 n PRECEDING, 2 CURRENT
	// ROW, 3 n FOLLOWING, 4 UNBOUNDED FOLLOWING.
	bound := func(p int) string {
		switch p {
		case 0:
			return "UNBOUNDED PRECEDING"
		case 1:
			return off() + " PRECEDING"
		case 2:
			return "CURRENT ROW"
		case 3:
			return off() + " FOLLOWING"
		}
		return "UNBOUNDED FOLLOWING"
	}
	s := g.intn(4)
	if s < 3 && g.chance(0.2) {
		return unit + " " + bound(s) // short form: BETWEEN s AND CURRENT ROW
	}
	if s == 3 && g.chance(0.5) {
		s = 2
	}
	e := s + g.intn(5-s)
	if e == 0 {
		e = 2
	}
	if s == 3 && e == 3 {
		// n FOLLOWING AND m FOLLOWING needs n <= m.
		a, b := g.intn(2), 1+g.intn(2)
		if !intOffsets {
			return fmt.Sprintf("%s BETWEEN 0.5 FOLLOWING AND 1.5 FOLLOWING", unit)
		}
		return fmt.Sprintf("%s BETWEEN %d FOLLOWING AND %d FOLLOWING", unit, a, b)
	}
	if s == 1 && e == 1 {
		if !intOffsets {
			return fmt.Sprintf("%s BETWEEN 1.5 PRECEDING AND 0.5 PRECEDING", unit)
		}
		return fmt.Sprintf("%s BETWEEN %d PRECEDING AND %d PRECEDING", unit, 1+g.intn(2), g.intn(2))
	}
	return unit + " BETWEEN " + bound(s) + " AND " + bound(e)
}

// winKey is a PARTITION BY or ORDER BY key of a window: a column, or now
// and then an expression.
func (g *gen) winKey(ec ectx) node {
	if g.chance(0.25) {
		return g.genExpr(ectx{cols: ec.cols, noNull: true}, []kind{kInt, kReal, kText}[g.intn(3)], 1)
	}
	return lit(ec.cols[g.intn(len(ec.cols))].ref)
}

func (g *gen) lagLead(ec ectx, k kind) node {
	name := "LAG("
	if g.chance(0.5) {
		name = "LEAD("
	}
	args := []any{name, g.genExpr(ectx{cols: ec.cols, noNull: true}, k, 1)}
	if g.chance(0.6) {
		args = append(args, fmt.Sprintf(", %d", g.intn(3)))
		if g.chance(0.5) {
			args = append(args, ", ", g.literal(k))
		}
	}
	args = append(args, ")")
	return cat(args...)
}

func (g *gen) literal(k kind) node {
	switch k {
	case kInt:
		return lit(strconv.Itoa(g.intn(8) - 2))
	case kReal:
		return lit(realLiteral(realPool[g.intn(len(realPool))]))
	case kBool:
		return lit([]string{"TRUE", "FALSE"}[g.intn(2)])
	}
	return lit("'" + textPool[g.intn(len(textPool))] + "'")
}

// typedNull is a NULL of kind k, spelled for each engine.
func (g *gen) typedNull(k kind) node {
	switch k {
	case kInt:
		return alt{lit("CAST(NULL AS BIGINT)"), lit("CAST(NULL AS INTEGER)")}
	case kReal:
		return alt{lit("CAST(NULL AS DOUBLE)"), lit("CAST(NULL AS REAL)")}
	}
	return alt{lit("CAST(NULL AS VARCHAR)"), lit("CAST(NULL AS TEXT)")}
}

// genExpr makes a scalar expression of kind k, nesting at most depth.
func (g *gen) genExpr(ec ectx, k kind, depth int) node {
	if k == kBool {
		return g.genBool(ec, depth)
	}
	if depth <= 0 || g.chance(0.5) {
		if c, ok := g.pickCol(ec.cols, k); ok && g.chance(0.85) {
			return lit(c)
		}
		if g.chance(0.1) {
			if !ec.noNull && g.chance(0.3) {
				return lit("NULL")
			}
			return g.typedNull(k)
		}
		return g.literal(k)
	}
	d := depth - 1
	if ec.sub > 0 && g.chance(0.08) {
		return g.scalarSubquery(ec, k)
	}
	switch k {
	case kInt:
		switch g.intn(11) {
		case 0, 1:
			return cat("(", g.genExpr(ec, kInt, d), []string{" + ", " - ", " * "}[g.intn(3)], g.genExpr(ec, kInt, d), ")")
		case 2:
			return cat("ABS(", g.genExpr(ec, kInt, d), ")")
		case 3:
			return cat("COALESCE(", g.genExpr(ec, kInt, d), ", ", g.genExpr(ec, kInt, d), ")")
		case 4:
			return cat("CASE WHEN ", g.genBool(ec, d), " THEN ", g.genExpr(ec, kInt, d), " ELSE ", g.genExpr(ec, kInt, d), " END")
		case 5:
			return cat("(", g.genExpr(ec, kInt, d), " % ", []string{"2", "3", "-2"}[g.intn(3)], ")")
		case 6:
			if g.sh.intDiv {
				// MySQL's DIV truncates toward zero, as SQLite's integer /
				// does; both give NULL for a zero divisor.
				x, y := g.genExpr(ec, kInt, d), g.genExpr(ec, kInt, d)
				return alt{cat("(", x, " DIV ", y, ")"), cat("(", x, " / ", y, ")")}
			}
		case 7:
			if g.sh.stringFuncs {
				return cat("LENGTH(", g.genExpr(ec, kText, d), ")")
			}
		case 8:
			return cat("NULLIF(", g.genExpr(ec, kInt, d), ", ", g.literal(kInt), ")")
		case 9:
			if g.sh.greatestLeast {
				x, y := g.genExpr(ec, kInt, d), g.genExpr(ec, kInt, d)
				if g.chance(0.5) {
					return alt{cat("GREATEST(", x, ", ", y, ")"), cat("MAX(", x, ", ", y, ")")}
				}
				return alt{cat("LEAST(", x, ", ", y, ")"), cat("MIN(", x, ", ", y, ")")}
			}
		case 10:
			return cat("CASE ", g.genExpr(ec, kInt, d), " WHEN ", g.literal(kInt), " THEN ", g.genExpr(ec, kInt, d), " WHEN ", g.literal(kInt), " THEN ", g.genExpr(ec, kInt, d), " END")
		}
		return cat("(-", g.genExpr(ec, kInt, d), ")")
	case kReal:
		switch g.intn(6) {
		case 0, 1:
			return cat("(", g.genExpr(ec, kReal, d), []string{" + ", " - "}[g.intn(2)], g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], d), ")")
		case 2:
			return cat("(", g.genExpr(ec, kReal, d), " * ", g.literal(kReal), ")")
		case 3:
			return cat("COALESCE(", g.genExpr(ec, kReal, d), ", ", g.genExpr(ec, kReal, d), ")")
		case 4:
			return cat("CASE WHEN ", g.genBool(ec, d), " THEN ", g.genExpr(ec, kReal, d), " ELSE ", g.genExpr(ec, kReal, d), " END")
		default:
			x := g.genExpr(ec, kInt, d)
			return alt{cat("CAST(", x, " AS DOUBLE)"), cat("CAST(", x, " AS REAL)")}
		}
	default:
		switch g.intn(5) {
		case 0:
			return cat("COALESCE(", g.genExpr(ec, kText, d), ", ", g.literal(kText), ")")
		case 1:
			return cat("CASE WHEN ", g.genBool(ec, d), " THEN ", g.genExpr(ec, kText, d), " ELSE ", g.genExpr(ec, kText, d), " END")
		case 2:
			if g.sh.stringFuncs {
				return cat([]string{"UPPER(", "LOWER("}[g.intn(2)], g.genExpr(ec, kText, d), ")")
			}
		case 3:
			if g.sh.stringFuncs {
				x, y := g.genExpr(ec, kText, d), g.genExpr(ec, kText, d)
				return alt{cat("CONCAT(", x, ", ", y, ")"), cat("(", x, " || ", y, ")")}
			}
		}
		return cat("NULLIF(", g.genExpr(ec, kText, d), ", ", g.literal(kText), ")")
	}
}

// genBool makes a predicate.
func (g *gen) genBool(ec ectx, depth int) node {
	if ec.sub > 0 && g.chance(0.15) {
		return g.subqueryPred(ec)
	}
	d := depth - 1
	if depth <= 0 {
		d = 0
	}
	switch r := g.intn(12); {
	case r < 4 || depth <= 0:
		return g.comparison(ec, d)
	case r < 5:
		return cat("(", g.genBool(ec, d), " AND ", g.genBool(ec, d), ")")
	case r < 6:
		return cat("(", g.genBool(ec, d), " OR ", g.genBool(ec, d), ")")
	case r < 7:
		return cat("NOT (", g.genBool(ec, d), ")")
	case r < 8:
		k := []kind{kInt, kReal, kText}[g.intn(3)]
		return cat(g.genExpr(ec, k, d), []string{" IS NULL", " IS NOT NULL"}[g.intn(2)])
	case r < 9:
		k := []kind{kInt, kReal, kText}[g.intn(3)]
		not := []string{" ", " NOT "}[g.intn(2)]
		return cat(g.genExpr(ec, k, d), not, "BETWEEN ", g.literal(k), " AND ", g.literal(k))
	case r < 10:
		k := []kind{kInt, kReal, kText}[g.intn(3)]
		var vals []node
		for i := 0; i < 1+g.intn(4); i++ {
			if g.chance(0.1) {
				vals = append(vals, lit("NULL"))
			} else {
				vals = append(vals, g.literal(k))
			}
		}
		not := []string{" ", " NOT "}[g.intn(2)]
		if g.sh.rowValues && g.chance(0.2) {
			return g.rowInList(ec, d, not)
		}
		return cat(g.genExpr(ec, k, d), not, "IN (", join(vals, ", "), ")")
	case r < 11:
		var pat node = lit([]string{"'a%'", "'%b'", "'_'", "'a_'", "'%'", "'%a%'", "''", "'a _'"}[g.intn(8)])
		switch r := g.intn(8); {
		case r == 0:
			// MySQL's default escape is the backslash (and a literal keeps
			// \_ and \%); SQLite has none unless told.
			p := []string{`'%\_%'`, `'\_\%'`, `'_\%'`, `'a\_'`}[g.intn(4)]
			pat = alt{lit(p), lit(p + ` ESCAPE '\'`)}
		case r == 1:
			pat = lit([]string{"'%!_%'", "'!_!%'", "'a!%'"}[g.intn(3)] + " ESCAPE '!'")
		}
		not := []string{" ", " NOT "}[g.intn(2)]
		return cat(g.genExpr(ec, kText, d), not, "LIKE ", pat)
	}
	return g.comparison(ec, d)
}

func (g *gen) comparison(ec ectx, depth int) node {
	var op node = lit([]string{" = ", " <> ", " < ", " <= ", " > ", " >= "}[g.intn(6)])
	if g.sh.nullSafeEq && g.chance(0.1) {
		// MySQL's NULL-safe equality is SQLite's IS.
		op = alt{lit(" <=> "), lit(" IS ")}
	}
	if g.sh.rowValues && g.chance(0.08) {
		// Rows compare component by component, lexicographically for
		// the orderings.
		ks := g.rowKinds()
		return cat(g.rowValue(ec, ks, depth), op, g.rowValue(ec, ks, depth))
	}
	if g.chance(0.3) {
		return cat(g.genExpr(ec, kText, depth), op, g.genExpr(ec, kText, depth))
	}
	l := g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], depth)
	r := g.genExpr(ec, []kind{kInt, kReal}[g.intn(2)], depth)
	return cat(l, op, r)
}

// subqueryPred is IN / NOT IN / EXISTS / NOT EXISTS or a comparison with
// a scalar subquery.
func (g *gen) subqueryPred(ec ectx) node {
	if g.sh.rowValues && g.chance(0.15) {
		return g.rowInSubquery(ec)
	}
	if g.sh.quantified && g.chance(0.15) {
		return g.quantifiedPred(ec)
	}
	switch g.intn(4) {
	case 0, 1:
		k := []kind{kInt, kInt, kReal, kText}[g.intn(4)]
		not := []string{" ", " NOT "}[g.intn(2)]
		return cat(g.genExpr(ectx{cols: ec.cols}, k, 1), not, "IN (", g.subSelect(ec, k, false), ")")
	case 2:
		not := []string{"", "NOT "}[g.intn(2)]
		return cat(not, "EXISTS (", g.subSelect(ec, kInt, true), ")")
	}
	k := []kind{kInt, kReal, kText}[g.intn(3)]
	op := []string{" = ", " <> ", " < ", " >= "}[g.intn(4)]
	if g.sh.rowValues && g.chance(0.15) {
		return g.rowSubqueryCompare(ec, op)
	}
	return cat(g.genExpr(ectx{cols: ec.cols}, k, 1), op, g.scalarSubquery(ec, k))
}

// subTable picks a table or CTE for a subquery, with a fresh alias.
func (g *gen) subTable() (string, []scopeCol, string) {
	a := g.newAlias("p")
	if len(g.ctes) > 0 && g.chance(0.2) {
		c := g.ctes[g.intn(len(g.ctes))]
		return c.name + " AS " + a, qualify(a, c.cols), ""
	}
	t := g.ds.tables[g.intn(len(g.ds.tables))]
	return t.name + " AS " + a, qualify(a, t.cols), a + ".id"
}

// subWhere is a subquery's WHERE: correlated with the outer columns
// (an equality) and/or filtering its own.
func (g *gen) subWhere(ec ectx, local []scopeCol) node {
	var conds []node
	outer := ec.cols
	if ec.near != nil {
		outer = ec.near
	}
	if g.sh.correlated && len(outer) > 0 && g.chance(0.6) {
		k := []kind{kInt, kInt, kText, kReal}[g.intn(4)]
		l, okL := g.pickCol(local, k)
		o, okO := g.pickCol(outer, k)
		if okL && okO {
			op := " = "
			if g.chance(0.2) {
				op = []string{" < ", " <> ", " >= "}[g.intn(3)]
			}
			conds = append(conds, lit(l+op+o))
		}
	}
	if g.chance(0.5) {
		inner := ectx{cols: local, sub: ec.sub - 1}
		if g.sh.correlated && g.chance(0.2) {
			inner.cols = append(append([]scopeCol(nil), local...), outer...)
			if !g.sh.deepCorrelation {
				inner.near = local
			}
		}
		conds = append(conds, g.genBool(inner, 1))
	}
	if len(conds) == 0 {
		return nil
	}
	return cat(" WHERE ", join(conds, " AND "))
}

// subSelect is the body of an IN or EXISTS subquery.
func (g *gen) subSelect(ec ectx, k kind, exists bool) node {
	from, local, _ := g.subTable()
	where := g.subWhere(ec, local)
	agg := g.chance(0.15) // one row (an aggregate) or a group per key
	var item node
	switch {
	case agg:
		item = g.aggExpr(ectx{cols: local, noNull: true}, k)
	case exists:
		item = lit("1")
		if g.chance(0.5) && len(local) > 0 {
			item = lit(local[g.intn(len(local))].ref)
		}
	default:
		item = g.genExpr(ectx{cols: local}, k, 1)
	}
	parts := []any{"SELECT ", item, " FROM ", from}
	if where != nil {
		parts = append(parts, where)
	}
	if agg && g.chance(0.5) && len(local) > 0 {
		// EXISTS of an aggregate without GROUP BY is always true; with
		// one, only where some group passes.
		parts = append(parts, " GROUP BY ", local[g.intn(len(local))].ref)
		if g.chance(0.5) {
			parts = append(parts, fmt.Sprintf(" HAVING COUNT(*) > %d", g.intn(3)))
		}
		return cat(parts...)
	}
	if !exists && g.sh.setOpInSubq && g.chance(0.15) {
		from2, local2, _ := g.subTable()
		op := []string{" UNION ", " UNION ALL ", " EXCEPT ", " INTERSECT "}[g.intn(4)]
		parts = append(parts, op, "SELECT ", g.genExpr(ectx{cols: local2}, k, 1), " FROM ", from2)
	}
	return cat(parts...)
}

// scalarSubquery returns one row whatever the data: an aggregate, or a
// LIMIT 1 under an order made total by the table's id.
func (g *gen) scalarSubquery(ec ectx, k kind) node {
	from, local, key := g.subTable()
	where := g.subWhere(ec, local)
	lec := ectx{cols: local, noNull: true}
	var parts []any
	if key != "" && k != kBool && g.chance(0.3) {
		e := g.genExpr(lec, k, 1)
		parts = []any{"(SELECT ", e, " FROM ", from}
		if where != nil {
			parts = append(parts, where)
		}
		parts = append(parts, " ORDER BY ", g.orderKey(key, true), " LIMIT 1)")
		return cat(parts...)
	}
	parts = []any{"(SELECT ", g.aggExpr(lec, k), " FROM ", from}
	if where != nil {
		parts = append(parts, where)
	}
	parts = append(parts, ")")
	return cat(parts...)
}

// rowKinds picks the kinds of a two-column row value: each component is
// compared with one of its own kind.
func (g *gen) rowKinds() [2]kind {
	ks := []kind{kInt, kInt, kReal, kText}
	return [2]kind{ks[g.intn(len(ks))], ks[g.intn(len(ks))]}
}

// rowValue is (x, y) of the given kinds.
func (g *gen) rowValue(ec ectx, ks [2]kind, depth int) node {
	return cat("(", g.genExpr(ec, ks[0], depth), ", ", g.genExpr(ec, ks[1], depth), ")")
}

// rowInList is (x, y) [NOT] IN ((l1, l2), ...), some components NULL.
func (g *gen) rowInList(ec ectx, depth int, not string) node {
	ks := g.rowKinds()
	var rows []node
	for i := 0; i < 1+g.intn(3); i++ {
		var comps [2]node
		for c, k := range ks {
			if g.chance(0.15) {
				comps[c] = lit("NULL")
			} else {
				comps[c] = g.literal(k)
			}
		}
		rows = append(rows, cat("(", comps[0], ", ", comps[1], ")"))
	}
	return cat(g.rowValue(ec, ks, depth), not, "IN (", join(rows, ", "), ")")
}

// rowInSubquery is (x, y) [NOT] IN (SELECT a, b FROM ...), correlated or
// not.
func (g *gen) rowInSubquery(ec ectx) node {
	ks := g.rowKinds()
	left := g.rowValue(ectx{cols: ec.cols}, ks, 1)
	from, local, _ := g.subTable()
	where := g.subWhere(ec, local)
	lec := ectx{cols: local}
	parts := []any{"SELECT ", g.genExpr(lec, ks[0], 1), ", ", g.genExpr(lec, ks[1], 1), " FROM ", from}
	if where != nil {
		parts = append(parts, where)
	}
	not := []string{" ", " NOT "}[g.intn(2)]
	return cat(left, not, "IN (", cat(parts...), ")")
}

// rowSubqueryCompare is (x, y) op (SELECT a, b FROM ... ORDER BY id LIMIT
// 1): one row or none (SQLite would take the first of several rows where
// gsql and MySQL fail).
func (g *gen) rowSubqueryCompare(ec ectx, op string) node {
	ks := g.rowKinds()
	left := g.rowValue(ectx{cols: ec.cols}, ks, 1)
	from, local, key := g.subTable()
	if key == "" {
		return cat(left, op, g.rowValue(ectx{cols: ec.cols}, ks, 1))
	}
	where := g.subWhere(ec, local)
	lec := ectx{cols: local}
	parts := []any{"(SELECT ", g.genExpr(lec, ks[0], 1), ", ", g.genExpr(lec, ks[1], 1), " FROM ", from}
	if where != nil {
		parts = append(parts, where)
	}
	parts = append(parts, " ORDER BY ", g.orderKey(key, true), " LIMIT 1)")
	return cat(left, op, cat(parts...))
}

// quantifiedPred is x op ANY|SOME|ALL (SELECT e FROM ... WHERE w) for
// gsql and, for SQLite, its definition (SQL-92 8.7, 8.8) with EXISTS:
//
//	ANY: CASE WHEN EXISTS (... WHERE w AND x op e) THEN 1
//	          WHEN NOT EXISTS (... WHERE w) THEN 0
//	          WHEN EXISTS (... WHERE w AND (x op e) IS NULL) THEN NULL ELSE 0 END
//	ALL: CASE WHEN EXISTS (... WHERE w AND NOT (x op e)) THEN 0
//	          WHEN NOT EXISTS (... WHERE w) THEN 1
//	          WHEN EXISTS (... WHERE w AND (x op e) IS NULL) THEN NULL ELSE 1 END
func (g *gen) quantifiedPred(ec ectx) node {
	k := []kind{kInt, kInt, kReal, kText}[g.intn(4)]
	x := g.genExpr(ectx{cols: ec.cols}, k, 1)
	from, local, _ := g.subTable()
	where := g.subWhere(ec, local)
	e := g.genExpr(ectx{cols: local}, k, 1)
	op := []string{" = ", " <> ", " < ", " <= ", " > ", " >= "}[g.intn(6)]
	q := []string{"ANY", "SOME", "ALL"}[g.intn(3)]
	sub := cat("(SELECT ", e, " FROM ", from)
	if where != nil {
		sub = cat(sub, where)
	}
	gs := cat(x, op, q, " ", sub, ")")
	exists := func(cond node) node {
		if where != nil {
			return cat("EXISTS (SELECT 1 FROM ", from, where, " AND ", cond, ")")
		}
		return cat("EXISTS (SELECT 1 FROM ", from, " WHERE ", cond, ")")
	}
	cmp := cat("(", x, op, e, ")")
	var ss node
	if q == "ALL" {
		ss = cat("(CASE WHEN ", exists(cat("NOT ", cmp)), " THEN 0 WHEN NOT ", exists(lit("1 = 1")),
			" THEN 1 WHEN ", exists(cat(cmp, " IS NULL")), " THEN NULL ELSE 1 END)")
	} else {
		ss = cat("(CASE WHEN ", exists(cmp), " THEN 1 WHEN NOT ", exists(lit("1 = 1")),
			" THEN 0 WHEN ", exists(cat(cmp, " IS NULL")), " THEN NULL ELSE 0 END)")
	}
	return alt{g: cat("(", gs, ")"), s: ss}
}
