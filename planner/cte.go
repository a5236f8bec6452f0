package planner

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/expr"

	"github.com/gsqlengine/gsql/sql"
)

// Shared common table expressions. The dialect layer names the derived
// table standing for a CTE referenced more than once with sql.CTEMarker
// and the CTE's position; every such derived table of a statement with
// the same name becomes a CTERef to one definition, built once into an
// operators.SharedResult that all references read.

// cteDef is one shared CTE of a statement.
type cteDef struct {
	body Node
	refs int
}

// cteSet holds a statement's shared CTEs by marker name.
type cteSet map[string]*cteDef

// CTERef reads a CTE computed once per statement. Body is its plan (shown
// by EXPLAIN under each reference; the first reference built runs it).
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
	return fmt.Sprintf("CTE %s (computed once, %d references)", c.Name, c.def.refs)
}

// isSharedCTE reports whether a derived table's alias is the dialect
// layer's marker of a shared CTE.
func isSharedCTE(alias string) bool { return strings.HasPrefix(alias, sql.CTEMarker) }

// sharedCTE returns a reference to the CTE named alias, planning its body
// with plan on first use.
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
	if !ok {
		var body Node
		var err error
		if recursive {
			body, err = b.planRecursive(stmt, name, info.Key, cols)
		} else if body, err = b.planSelectStatement(stmt); err == nil {
			body, err = renameColumns(body, name, cols)
		}
		if err != nil {
			return nil, err
		}
		d = &cteDef{body: body}
		b.ctes[alias] = d
	}
	d.refs++
	return &CTERef{Name: name, Body: d.body, def: d}, nil
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
