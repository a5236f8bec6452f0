package planner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/gsqlengine/gsql/coldata"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/expr"

	"github.com/gsqlengine/gsql/sql"
)

// Common table expressions the planner sees. The dialect layer names the
// derived table standing for a CTE referenced more than once (or
// recursive, or with a column list) with sql.CTEMarker and the CTE's
// position; every such derived table of a statement with the same name
// belongs to one definition.
//
// A CTE is materialized, computed once per statement into a transient
// result that every reference reads, when it is referenced more than once
// and its plan does more than read a table: it groups, joins, sorts,
// limits, removes duplicates, computes windows or set operations, or ran
// a subquery while it was planned (DuckDB's rule, which also PostgreSQL's
// NOT MATERIALIZED default approximates). Each reference is then a
// CTERef over one definition, built into an operators.SharedResult;
// references in subqueries run while the statement is planned (a scalar
// subquery, an IN list, EXISTS) read the same result through the
// statement's store (operators.WithSharedResults), so `WITH c AS (SELECT
// k, COUNT(*) AS n FROM t GROUP BY k) SELECT * FROM c WHERE n > (SELECT
// AVG(n) FROM c)` groups t once. A CTE referenced once, or one whose plan
// is only scans, filters and projections, is planned at each reference
// as a derived table: its filters and column choices merge with the
// reader's, and reading the table again costs what reading a transient
// copy would. A recursive CTE is always a CTERef over its recursion.

// cteDef is one CTE of a statement that has a marker.
type cteDef struct {
	body Node
	refs int
	// inline: each reference plans the CTE's query as a derived table.
	inline bool
}

// cteSet holds a statement's CTEs by marker name.
type cteSet map[string]*cteDef

// CTERef reads a CTE computed once per statement. Body is its plan (shown
// by EXPLAIN under one reference; the first reference built runs it).
type CTERef struct {
	placed
	Name string
	Body Node
	def  *cteDef
}

// Columns implements Node.
func (c *CTERef) Columns() []Column { return c.Body.Columns() }

// Inputs implements Node.
func (c *CTERef) Inputs() []Node { return []Node{c.Body} }

func (c *CTERef) describe() string {
	if c.def.refs < 2 {
		return "CTE " + c.Name
	}
	return fmt.Sprintf("CTE %s (materialized, used %d times)", c.Name, c.def.refs)
}

// scanLine is EXPLAIN's line for a reference to a materialized CTE whose
// body another reference shows.
func (c *CTERef) scanLine() string {
	return fmt.Sprintf("CTE scan %s (reads the materialized CTE %s)", c.Name, c.Name)
}

// isSharedCTE reports whether a derived table's alias is the dialect
// layer's marker of a CTE.
func isSharedCTE(alias string) bool { return strings.HasPrefix(alias, sql.CTEMarker) }

// sharedCTE plans the reference to the CTE named alias: a CTERef to its
// one definition (planned on first use) when it is materialized, else its
// query planned here.
func (b *binder) sharedCTE(alias string, stmt sqlparser.SelectStatement) (Node, error) {
	info, ok := sql.ParseMarker(alias)
	if !ok {
		return nil, errorf(UnknownTable, alias, "unknown table %q", alias)
	}
	name, recursive, cols := info.Name, info.Recursive, info.Columns
	if b.ctes == nil {
		b.ctes = cteSet{}
	}
	d, ok := b.ctes[alias]
	if ok && d.inline {
		d.refs++
		return b.planCTEQuery(stmt, name, cols)
	}
	if !ok {
		var body Node
		var err error
		ran := false
		if recursive {
			body, err = b.planRecursive(stmt, name, info.Key, cols)
		} else {
			body, ran, err = b.planCTETracked(stmt, name, cols)
		}
		if err != nil {
			return nil, err
		}
		d = &cteDef{body: body, inline: !recursive && (!info.Shared || (!ran && inlinable(body)))}
		b.ctes[alias] = d
		if d.inline {
			d.refs++
			return body, nil
		}
	}
	d.refs++
	return &CTERef{Name: name, Body: d.body, def: d}, nil
}

// planCTEQuery plans a CTE's query at one reference.
func (b *binder) planCTEQuery(stmt sqlparser.SelectStatement, name string, cols []string) (Node, error) {
	body, err := b.planSelectStatement(stmt)
	if err != nil {
		return nil, err
	}
	return renameColumns(body, name, cols)
}

// planCTETracked is planCTEQuery, also saying whether planning ran a
// subquery (whose work an inlined CTE would repeat at each reference).
func (b *binder) planCTETracked(stmt sqlparser.SelectStatement, name string, cols []string) (Node, bool, error) {
	var ran atomic.Bool
	track := func(f RunFunc) RunFunc {
		if f == nil {
			return nil
		}
		return func(ctx context.Context, n Node) ([]*coldata.Batch, error) {
			ran.Store(true)
			return f(ctx, n)
		}
	}
	run, runOnce := b.run, b.runOnce
	b.run, b.runOnce = track(run), track(runOnce)
	defer func() { b.run, b.runOnce = run, runOnce }()
	n, err := b.planCTEQuery(stmt, name, cols)
	return n, ran.Load(), err
}

// inlinable reports whether a CTE's plan is cheap enough to plan at each
// reference: scans, literal rows, filters and projections over them, with
// no correlated subquery (a volatile call).
func inlinable(n Node) bool {
	switch x := n.(type) {
	case *Scan, *Values:
	case *Filter:
		if volatile(x.Pred) {
			return false
		}
	case *Project:
		for _, e := range x.Exprs {
			if volatile(e) {
				return false
			}
		}
	default:
		return false
	}
	for _, in := range n.Inputs() {
		if !inlinable(in) {
			return false
		}
	}
	return true
}

// cteBodies picks, for each materialized CTE of plan n, the one reference
// EXPLAIN shows its body under: the first for which expands says so (the
// reference whose body the builder built), else the first in plan order.
func cteBodies(n Node, expands func(*CTERef) bool) map[*CTERef]bool {
	first := map[*cteDef]*CTERef{}
	chosen := map[*cteDef]*CTERef{}
	var walk func(Node)
	walk = func(n Node) {
		if r, ok := n.(*CTERef); ok {
			if first[r.def] == nil {
				first[r.def] = r
			}
			if chosen[r.def] == nil && expands != nil && expands(r) {
				chosen[r.def] = r
			}
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(n)
	out := map[*CTERef]bool{}
	for d, r := range first {
		if c := chosen[d]; c != nil {
			r = c
		}
		out[r] = true
	}
	return out
}

// renameColumns applies a CTE's column list, WITH name(a, b) AS (...).
func renameColumns(n Node, name string, cols []string) (Node, error) {
	if len(cols) == 0 {
		return n, nil
	}
	in := n.Columns()
	if len(in) != len(cols) {
		return nil, errorf(TypeMismatch, name, "WITH %s names %d columns but its query returns %d", name, len(cols), len(in))
	}
	p := &Project{Input: n}
	for i, c := range in {
		p.Exprs = append(p.Exprs, &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type})
		p.Out = append(p.Out, Column{Name: cols[i], Type: c.Type})
	}
	return p, nil
}

// MaxRecursion bounds the iterations of a recursive CTE (MySQL's default
// cte_max_recursion_depth), MaxRecursiveRows its rows.
const (
	MaxRecursion     = 1000
	MaxRecursiveRows = 10_000_000
)

// workDef is the working table of one recursive CTE.
type workDef struct {
	name string
	cols []Column
}

// Recursive is WITH RECURSIVE's query: Base UNION [ALL] Step, Step reading
// the previous iteration's rows through WorkScan.
type Recursive struct {
	placed
	Name       string
	Base, Step Node
	Distinct   bool
	def        *workDef
}

// Columns implements Node.
func (r *Recursive) Columns() []Column { return r.def.cols }

// Inputs implements Node.
func (r *Recursive) Inputs() []Node { return []Node{r.Base, r.Step} }

func (r *Recursive) describe() string {
	u := "UNION ALL"
	if r.Distinct {
		u = "UNION"
	}
	return fmt.Sprintf("RecursiveCTE %s (%s, at most %d iterations)", r.Name, u, MaxRecursion)
}

// WorkScan reads a recursive CTE's working table.
type WorkScan struct {
	placed
	Name string
	def  *workDef
}

// Columns implements Node.
func (w *WorkScan) Columns() []Column { return w.def.cols }

// Inputs implements Node.
func (w *WorkScan) Inputs() []Node { return nil }

func (w *WorkScan) describe() string { return "WorkTable " + w.Name }

// planRecursive plans a recursive CTE's query, which must be
// initial-SELECT UNION [ALL] recursive-SELECT; only the latter may name
// the CTE (key identifies its working table).
func (b *binder) planRecursive(stmt sqlparser.SelectStatement, name, key string, cols []string) (Node, error) {
	u, ok := stmt.(*sqlparser.Union)
	if !ok {
		return nil, errorf(Unsupported, name, "WITH RECURSIVE %s: the query must be an initial SELECT, UNION [ALL], and a SELECT that names %s", name, name)
	}
	stepStmt, setOp := setOpOperand(u.Right)
	if setOp != "" {
		return nil, errorf(Unsupported, name, "WITH RECURSIVE %s: %s cannot join the recursive part (use UNION [ALL])", name, strings.ToUpper(strings.ReplaceAll(setOp, "_", " ")))
	}
	if len(u.OrderBy) > 0 || u.Limit != nil {
		return nil, errorf(Unsupported, name, "WITH RECURSIVE %s: ORDER BY and LIMIT on the recursive query are not supported (put them in the main query)", name)
	}
	base, err := b.planSelectStatement(u.Left)
	if err != nil {
		return nil, err
	}
	if base, err = renameColumns(base, name, cols); err != nil {
		return nil, err
	}
	def := &workDef{name: name, cols: base.Columns()}
	for i, c := range def.cols {
		if c.Type == 0 {
			def.cols[i].Type = boolType // SELECT NULL: as UNION does
		}
	}
	base = castNode(base, def.cols)
	wkey := sql.WorkMarker + key
	if b.work == nil {
		b.work = map[string]*workDef{}
	}
	b.work[wkey] = def
	step, err := b.planSelectStatement(stepStmt)
	delete(b.work, wkey)
	if err != nil {
		return nil, err
	}
	sc := step.Columns()
	if len(sc) != len(def.cols) {
		return nil, errorf(TypeMismatch, name, "WITH RECURSIVE %s: the initial SELECT returns %d columns, the recursive one %d", name, len(def.cols), len(sc))
	}
	for i, c := range sc {
		if _, err := expr.CastTo(&expr.ColumnRef{Index: i, T: c.Type}, def.cols[i].Type); err != nil {
			return nil, errorf(TypeMismatch, name, "WITH RECURSIVE %s: column %s of the recursive SELECT: %v", name, def.cols[i].Name, err)
		}
	}
	return &Recursive{Name: name, Base: base, Step: castNode(step, def.cols), Distinct: u.Type != sqlparser.UnionAllStr, def: def}, nil
}

// planWorkTable plans a reference to a recursive CTE inside its own query.
func (b *binder) planWorkTable(table string, as sqlparser.TableIdent) (Node, *scope, error) {
	def, ok := b.work[table]
	if !ok {
		return nil, nil, errorf(Unsupported, "", "WITH RECURSIVE: a recursive CTE may name itself only in the FROM clause of the SELECT after UNION")
	}
	alias := def.name
	if !as.IsEmpty() {
		alias = as.String()
	}
	sc := &scope{}
	for i, c := range def.cols {
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: c.Name, Type: c.Type, Index: i})
	}
	return &WorkScan{Name: def.name, def: def}, sc, nil
}
