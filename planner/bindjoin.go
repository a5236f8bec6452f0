package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/fileio"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/sql"
)

// planTableExpr plans one FROM item: a table, a derived table, or a join.
func (b *binder) planTableExpr(te sqlparser.TableExpr) (Node, *scope, error) {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		switch src := t.Expr.(type) {
		case sqlparser.TableName:
			return b.planTable(src, t.As)
		case *sqlparser.Subquery:
			if t.As.IsEmpty() {
				return nil, nil, errorf(TypeMismatch, "", "every derived table must have an alias")
			}
			saved := b.agg
			b.agg = nil
			var n Node
			var err error
			if alias := t.As.String(); isSharedCTE(alias) {
				n, err = b.sharedCTE(alias, src.Select)
			} else {
				n, err = b.planSelectStatement(src.Select)
			}
			b.agg = saved
			if err != nil {
				return nil, nil, err
			}
			sc := &scope{}
			for i, c := range n.Columns() {
				sc.cols = append(sc.cols, scopeCol{Table: t.As.String(), Name: c.Name, Type: c.Type, Index: i})
			}
			return n, sc, nil
		}
	case *sqlparser.ParenTableExpr:
		return b.planFrom(t.Exprs)
	case *sqlparser.JoinTableExpr:
		return b.planJoin(t)
	}
	return nil, nil, errorf(Unsupported, "", "not supported: FROM %s", sqlparser.String(te))
}

// planTable plans a base table (or DUAL).
func (b *binder) planTable(name sqlparser.TableName, as sqlparser.TableIdent) (Node, *scope, error) {
	if !name.Qualifier.IsEmpty() {
		return nil, nil, errorf(UnknownTable, name.Qualifier.String()+"."+name.Name.String(), "unknown table %s.%s (gsql has one schema)", name.Qualifier.String(), name.Name.String())
	}
	if strings.EqualFold(name.Name.String(), "dual") {
		return &Values{Rows: [][]expr.Expr{{}}}, &scope{}, nil
	}
	if strings.HasPrefix(name.Name.String(), sql.WorkMarker) {
		return b.planWorkTable(name.Name.String(), as)
	}
	var tbl *catalog.Table
	if path, ok := strings.CutPrefix(name.Name.String(), sql.FilePrefix); ok {
		t, err := b.fileTable(path)
		if err != nil {
			return nil, nil, err
		}
		tbl = t
		if as.IsEmpty() {
			as = sqlparser.NewTableIdent(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
		}
	} else if vname, query, ok := b.cat.View(name.Name.String()); ok {
		return b.planView(vname, query, as)
	} else {
		t, err := b.cat.Get(name.Name.String())
		if err != nil {
			return nil, nil, errorf(UnknownTable, name.Name.String(), "unknown table %q", name.Name.String())
		}
		tbl = t
	}
	alias := tbl.Name
	if !as.IsEmpty() {
		alias = as.String()
	}
	scan := &Scan{Table: tbl, Alias: alias, Indexes: b.cat.Indexes(tbl.Name)}
	sc := &scope{}
	for i, c := range tbl.Columns {
		scan.Cols = append(scan.Cols, i)
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: c.Name, Type: c.Type, Index: i})
	}
	return scan, sc, nil
}

// mergeScopes appends right's columns after left's.
func mergeScopes(l, r *scope, nl int) *scope {
	out := &scope{cols: append([]scopeCol(nil), l.cols...)}
	for _, c := range r.cols {
		c.Index += nl
		out.cols = append(out.cols, c)
	}
	return out
}

func (b *binder) planJoin(t *sqlparser.JoinTableExpr) (Node, *scope, error) {
	left, lsc, err := b.planTableExpr(t.LeftExpr)
	if err != nil {
		return nil, nil, err
	}
	right, rsc, err := b.planTableExpr(t.RightExpr)
	if err != nil {
		return nil, nil, err
	}
	nl := len(left.Columns())
	sc := mergeScopes(lsc, rsc, nl)
	kind := opspec.InnerJoin
	swap := false
	switch t.Join {
	case sqlparser.JoinStr, sqlparser.StraightJoinStr:
	case sqlparser.LeftJoinStr:
		kind = opspec.LeftJoin
	case sqlparser.RightJoinStr:
		kind, swap = opspec.LeftJoin, true
	case sqlparser.NaturalJoinStr, sqlparser.NaturalLeftJoinStr, sqlparser.NaturalRightJoinStr:
		return nil, nil, errorf(Unsupported, "", "not supported: NATURAL JOIN (use USING)")
	default:
		return nil, nil, errorf(Unsupported, "", "not supported: %s", strings.ToUpper(t.Join))
	}
	var cond expr.Expr
	if t.Condition.On != nil {
		if cond, err = b.bindExpr(t.Condition.On, sc); err != nil {
			return nil, nil, err
		}
	}
	for _, col := range t.Condition.Using {
		lref, err := lsc.resolve("", col.String())
		if err != nil {
			return nil, nil, errorf(UnknownColumn, col.String(), "USING column %q is not in the left table", col.String())
		}
		rref, err := rsc.resolve("", col.String())
		if err != nil {
			return nil, nil, errorf(UnknownColumn, col.String(), "USING column %q is not in the right table", col.String())
		}
		rref.Index += nl
		eq, err := b.apply("=", lref, rref)
		if err != nil {
			return nil, nil, err
		}
		if cond == nil {
			cond = eq
		} else if cond, err = b.apply("and", cond, eq); err != nil {
			return nil, nil, err
		}
		// The column appears once: unqualified and * see the left (for RIGHT
		// JOIN the right) copy.
		hide := rref.Index
		if swap {
			hide = lref.Index
		}
		sc.cols[hide].hidden = true
	}
	if cond != nil {
		if cond, err = expr.CastTo(cond, boolType); err != nil {
			return nil, nil, errorf(TypeMismatch, "", "JOIN condition: %v", err)
		}
	}
	var node Node
	if !swap {
		j := &Join{Kind: kind, Left: left, Right: right}
		j.setCondition(cond, nl)
		node = j
	} else {
		nr := len(right.Columns())
		// Evaluate as right LEFT JOIN left, then restore the column order.
		remap := map[int]int{}
		for i := 0; i < nl; i++ {
			remap[i] = nr + i
		}
		for i := 0; i < nr; i++ {
			remap[nl+i] = i
		}
		if cond != nil {
			cond = expr.Remap(cond, remap)
		}
		j := &Join{Kind: kind, Left: right, Right: left}
		j.setCondition(cond, nr)
		cols := j.Columns()
		p := &Project{Input: j}
		for i := 0; i < nl+nr; i++ {
			src := remap[i]
			p.Exprs = append(p.Exprs, &expr.ColumnRef{Index: src, Name: cols[src].Name, T: cols[src].Type})
			p.Out = append(p.Out, cols[src])
		}
		node = p
	}
	return node, sc, nil
}

// setCondition splits cond into equi-join keys and a residual filter. nl is
// the number of left columns.
func (j *Join) setCondition(cond expr.Expr, nl int) {
	j.LeftKeys, j.RightKeys, j.Cond = nil, nil, nil
	var rest []expr.Expr
	for _, c := range conjuncts(cond) {
		if l, r, ok := equiKey(c, nl); ok {
			j.LeftKeys = append(j.LeftKeys, l)
			j.RightKeys = append(j.RightKeys, r)
			continue
		}
		rest = append(rest, c)
	}
	j.Cond = conjoin(rest)
}

// conjuncts splits a predicate at its top-level ANDs.
func conjuncts(e expr.Expr) []expr.Expr {
	if e == nil {
		return nil
	}
	if c, ok := e.(*expr.Call); ok && c.Fn.Name == "and" {
		var out []expr.Expr
		for _, a := range c.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []expr.Expr{e}
}

// conjoin ANDs predicates together (nil for none).
func conjoin(es []expr.Expr) expr.Expr {
	if len(es) == 0 {
		return nil
	}
	out := es[0]
	and, _ := expr.Lookup("and")
	for _, e := range es[1:] {
		out = &expr.Call{Fn: and, Args: []expr.Expr{out, e}, T: boolType}
	}
	return out
}

// side reports which input the columns of e come from: -1 none, 0 left,
// 1 right, 2 both.
func side(e expr.Expr, nl int) int {
	s := -1
	for c := range expr.Columns(e) {
		cs := 0
		if c >= nl {
			cs = 1
		}
		switch {
		case s == -1:
			s = cs
		case s != cs:
			return 2
		}
	}
	return s
}

// equiKey matches "a = b" where a reads only one side and b only the other,
// returning the left and right key expressions over their own inputs.
func equiKey(e expr.Expr, nl int) (expr.Expr, expr.Expr, bool) {
	c, ok := e.(*expr.Call)
	if !ok || c.Fn.Name != "=" || len(c.Args) != 2 {
		return nil, nil, false
	}
	a, bb := c.Args[0], c.Args[1]
	sa, sb := side(a, nl), side(bb, nl)
	if sa == 1 && sb == 0 {
		a, bb, sa, sb = bb, a, sb, sa
	}
	if sa != 0 || sb != 1 {
		return nil, nil, false
	}
	shift := map[int]int{}
	for col := range expr.Columns(bb) {
		shift[col] = col - nl
	}
	return a, expr.Remap(bb, shift), true
}

// fileTable reads a file named by a table function (read_csv('x.csv'),
// read_parquet, read_ipc) into a table snapshot that lives for the query.
func (b *binder) fileTable(path string) (*catalog.Table, error) {
	ctx := b.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, errorf(UnknownTable, path, "cannot read %s: %v", path, err)
	}
	schema, recs, err := fileio.Read(ctx, path, fileio.Options{})
	if err != nil {
		return nil, errorf(TypeMismatch, path, "reading %s: %v", path, err)
	}
	cols := make([]catalog.Column, len(schema.Fields()))
	var rows int64
	for i, f := range schema.Fields() {
		t, err := coldata.FromArrowType(f.Type)
		if err != nil || t == coldata.Null {
			return nil, errorf(TypeMismatch, path, "%s: column %s has unsupported type %s", path, f.Name, f.Type)
		}
		cols[i] = catalog.Column{Name: f.Name, Type: t}
	}
	for _, r := range recs {
		rows += r.NumRows()
	}
	// The modification time versions the device-resident copy.
	return &catalog.Table{Name: sql.FilePrefix + path, Columns: cols, Records: recs, Rows: rows, Version: uint64(info.ModTime().UnixNano())}, nil
}

// maxViewDepth bounds views defined through views (and a view that names
// itself through OR REPLACE).
const maxViewDepth = 32

// planView plans a view's query where the view is used, as a derived table
// named as the view (or its alias).
func (b *binder) planView(name, query string, as sqlparser.TableIdent) (Node, *scope, error) {
	if b.viewDepth >= maxViewDepth {
		return nil, nil, errorf(Unsupported, name, "view %s: views nested more than %d deep (does it refer to itself?)", name, maxViewDepth)
	}
	st, err := sql.ParseOne(query)
	if err != nil {
		return nil, nil, fmt.Errorf("view %s: %w", name, err)
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		return nil, nil, errorf(Unsupported, name, "view %s is not a query", name)
	}
	b.viewDepth++
	saved, savedCTEs := b.agg, b.ctes
	b.agg, b.ctes = nil, cteSet{} // the view's text numbers its own CTEs
	n, err := b.planSelectStatement(sel.Stmt)
	b.agg, b.ctes = saved, savedCTEs
	b.viewDepth--
	var wrong *Error
	if errors.As(err, &wrong) && wrong.Kind == IncorrectValue {
		// MySQL's text: "Incorrect DATE value: 'abc'", whatever reads it.
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("view %s: %w", name, err)
	}
	alias := name
	if !as.IsEmpty() {
		alias = as.String()
	}
	sc := &scope{}
	for i, c := range n.Columns() {
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: c.Name, Type: c.Type, Index: i})
	}
	return n, sc, nil
}
