package planner

import (
	"context"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/sql"
)

// binder holds the state of binding one statement.
type binder struct {
	ctx      context.Context
	cat      *catalog.Catalog
	args     []any
	usedArgs int
	// agg is set while binding expressions above a GROUP BY.
	agg *aggCtx
	// win collects the window functions of the select list and ORDER BY
	// being bound (bindwindow.go).
	win *winCtx
	// wide maps the casts around DECIMAL quotients to the quotients at
	// MySQL's intermediate precision (binddiv.go).
	wide map[expr.Expr]expr.Expr
	// viewDepth counts the views being expanded (planView).
	viewDepth int
	// lenientDates is set while binding the comparisons of BETWEEN and
	// of an IN list, which read their text as dates row by row in MySQL,
	// with no error (datecmp.go).
	lenientDates bool
	// outer holds the scopes of enclosing queries, innermost last.
	outer []*scope
	// corr collects outer columns when binding a subquery; parent is the
	// binder of the enclosing query (columns from further out are bound
	// through it).
	corr   *correlation
	parent *binder
	// now is the statement's clock (NOW(), CURRENT_DATE; binddate.go).
	now time.Time
	// ctes holds the statement's shared CTEs (cte.go).
	ctes cteSet
	// work holds the working tables of the recursive CTEs being bound.
	work map[string]*workDef
	// rules are the statement's rule settings, which the subqueries it
	// plans and runs while binding use too.
	rules RuleOptions
	// run executes subqueries (Planner.Run), runOnce the uncorrelated
	// ones (Planner.RunOnce, when set).
	run, runOnce RunFunc
}

// Planner plans statements against a catalog.
type Planner struct {
	Catalog *catalog.Catalog
	// Run executes the subqueries that binding evaluates (run.go).
	Run RunFunc
	// RunOnce, when set, executes the uncorrelated ones instead: each
	// runs once per statement, so it may place its plan on a device
	// (the root package's does); correlated ones run per outer row, on
	// the CPU, through Run.
	RunOnce RunFunc
}

// PlanSelect binds a SELECT statement with placeholder arguments and returns
// its optimised logical plan (every node placed on the CPU; Place moves
// nodes to the GPU), with every rule on.
// Uncorrelated subqueries are run once, here, and replaced by their values;
// ctx bounds that work.
func (p *Planner) PlanSelect(ctx context.Context, stmt sqlparser.SelectStatement, args []any) (Node, error) {
	return p.PlanSelectWith(ctx, stmt, args, RuleOptions{})
}

// PlanSelectWith is PlanSelect with the rules' settings: the rules
// switched off, and where to record what the rules did (the statement's
// subqueries run through the same rules).
func (p *Planner) PlanSelectWith(ctx context.Context, stmt sqlparser.SelectStatement, args []any, rules RuleOptions) (Node, error) {
	b := &binder{ctx: ctx, cat: p.Catalog, args: args, now: statementTime(ctx), ctes: cteSet{}, rules: rules, run: p.Run, runOnce: p.RunOnce}
	n, err := b.planSelectStatement(stmt)
	if err != nil {
		return nil, err
	}
	if err := b.checkArgs(); err != nil {
		return nil, err
	}
	return optimize(n, rules)
}

// BindRows binds the rows of INSERT ... VALUES as constant expressions,
// folded to literals; each row must have ncols values.
func (p *Planner) BindRows(ctx context.Context, rows [][]sqlparser.Expr, ncols int, args []any) ([][]expr.Expr, error) {
	b := &binder{ctx: ctx, cat: p.Catalog, args: args, now: statementTime(ctx), ctes: cteSet{}, run: p.Run, runOnce: p.RunOnce}
	out, err := b.bindRows(rows, ncols)
	if err != nil {
		return nil, err
	}
	if err := b.checkArgs(); err != nil {
		return nil, err
	}
	return out, nil
}

// bindRows binds constant rows of ncols values each, folded to literals.
func (b *binder) bindRows(rows [][]sqlparser.Expr, ncols int) ([][]expr.Expr, error) {
	out := make([][]expr.Expr, len(rows))
	for r, row := range rows {
		if len(row) != ncols {
			return nil, errorf(TypeMismatch, "", "row %d has %d values for %d columns", r+1, len(row), ncols)
		}
		out[r] = make([]expr.Expr, len(row))
		for i, e := range row {
			if _, ok := e.(*sqlparser.Default); ok {
				out[r][i] = &expr.Literal{Value: nil, T: coldata.Null}
				continue
			}
			be, err := b.bindExpr(e, &scope{})
			if err != nil {
				return nil, err
			}
			if be, err = foldConstants(be); err != nil {
				return nil, err
			}
			out[r][i] = be
		}
	}
	return out, nil
}

func (b *binder) checkArgs() error {
	if b.usedArgs < len(b.args) {
		return errorf(TypeMismatch, "", "%d arguments given but the statement has %d placeholders", len(b.args), b.usedArgs)
	}
	return nil
}

func (b *binder) planSelectStatement(stmt sqlparser.SelectStatement) (Node, error) {
	switch s := stmt.(type) {
	case *sqlparser.Select:
		return b.planSelect(s)
	case *sqlparser.ParenSelect:
		return b.planSelectStatement(s.Select)
	case *sqlparser.Union:
		return b.planUnion(s)
	}
	return nil, errorf(Unsupported, "", "not supported: %s", sqlparser.String(stmt))
}

// planFrom builds the input of a SELECT and the scope its expressions see;
// several comma-separated tables are cross joined.
func (b *binder) planFrom(from sqlparser.TableExprs) (Node, *scope, error) {
	if len(from) == 0 {
		return &Values{Rows: [][]expr.Expr{{}}}, &scope{}, nil
	}
	node, sc, err := b.planTableExpr(from[0])
	if err != nil {
		return nil, nil, err
	}
	for _, te := range from[1:] {
		right, rsc, err := b.planTableExpr(te)
		if err != nil {
			return nil, nil, err
		}
		nl := len(node.Columns())
		sc = mergeScopes(sc, rsc, nl)
		node = &Join{Kind: opspec.InnerJoin, Left: node, Right: right}
	}
	return node, sc, nil
}

func (b *binder) planSelect(s *sqlparser.Select) (Node, error) {
	if s.Lock != "" {
		return nil, errorf(Unsupported, "", "not supported: locking reads")
	}
	input, sc, err := b.planFrom(s.From)
	if err != nil {
		return nil, err
	}
	where := sqlparser.Expr(nil)
	if s.Where != nil {
		if where, input, err = b.planExistsJoins(s.Where.Expr, input, sc); err != nil {
			return nil, err
		}
		if where != nil {
			if where, input, err = b.planInJoins(where, input, sc); err != nil { // injoin.go
				return nil, err
			}
		}
		if where != nil {
			if where, input, sc, err = b.planScalarJoins(where, input, sc); err != nil {
				return nil, err
			}
			where, input, sc = b.planQuantifiedJoins(where, input, sc) // quantifiedjoin.go
		}
	}
	if where != nil {
		pred, err := b.bindExpr(where, sc)
		if err != nil {
			return nil, err
		}
		if pred, err = expr.CastTo(pred, coldata.Bool); err != nil {
			return nil, errorf(TypeMismatch, "", "WHERE: %v", err)
		}
		input = &Filter{Input: input, Pred: pred}
	}
	if len(s.GroupBy) == 0 && s.Having == nil && !hasAggregate(s.SelectExprs) && !hasWindow(s.SelectExprs) {
		// Correlated scalar subqueries of the select list as joins
		// (scalarjoin.go).
		s, input, sc = b.planSelectScalarJoins(s, input, sc)
	}
	var having sqlparser.Expr
	if s.Having != nil {
		having = s.Having.Expr
	}
	var orderNodes []sqlparser.SQLNode
	for _, o := range s.OrderBy {
		orderNodes = append(orderNodes, o.Expr)
	}
	if len(s.GroupBy) > 0 || hasAggregate(append([]sqlparser.SQLNode{s.SelectExprs, having}, orderNodes...)...) {
		if s.Where != nil && hasAggregate(s.Where.Expr) {
			return nil, errorf(TypeMismatch, "", "aggregate functions are not allowed in WHERE")
		}
		agg := &Aggregate{Input: input}
		for _, g := range s.GroupBy {
			k, err := b.groupKey(g, sc, s.SelectExprs)
			if err != nil {
				return nil, err
			}
			agg.Keys = append(agg.Keys, k)
		}
		b.agg = &aggCtx{from: sc, node: agg, aliases: map[string]expr.Expr{}}
		defer func() { b.agg = nil }()
		input = agg
	} else if having != nil {
		return nil, errorf(TypeMismatch, "", "HAVING needs GROUP BY or an aggregate")
	}

	// Window functions may appear in the select list and ORDER BY.
	savedWin := b.win
	b.win = nil
	if hasWindow(append([]sqlparser.SQLNode{s.SelectExprs}, orderNodes...)...) {
		b.win = &winCtx{}
	}
	defer func() { b.win = savedWin }()

	// The select list, then hidden columns for ORDER BY keys that are not in it.
	var exprs []expr.Expr
	var out []Column
	for _, se := range s.SelectExprs {
		switch x := se.(type) {
		case *sqlparser.StarExpr:
			qual := x.TableName.Name.String()
			matched := false
			for _, c := range sc.cols {
				if qual != "" && !strings.EqualFold(c.Table, qual) {
					continue
				}
				if qual == "" && c.hidden {
					continue
				}
				matched = true
				var e expr.Expr = &expr.ColumnRef{Index: c.Index, Name: c.Name, T: c.Type}
				if b.agg != nil {
					// Each column grouped or determined by the grouped
					// columns, as MySQL 8 accepts.
					if e, err = b.agg.groupedColumn(e.(*expr.ColumnRef)); err != nil {
						return nil, err
					}
				}
				exprs = append(exprs, e)
				out = append(out, Column{Name: c.Name, Type: c.Type})
			}
			if qual != "" && !matched {
				return nil, errorf(UnknownTable, qual, "unknown table %q in %s.*", qual, qual)
			}
			if qual == "" && len(sc.cols) == 0 {
				return nil, errorf(TypeMismatch, "*", "SELECT * needs a FROM clause with columns (no tables used)")
			}
		case *sqlparser.AliasedExpr:
			e, err := b.bindExpr(x.Expr, sc)
			if err != nil {
				return nil, err
			}
			name := exprName(x.Expr)
			if !x.As.IsEmpty() {
				name = x.As.String()
			}
			exprs = append(exprs, e)
			out = append(out, Column{Name: name, Type: e.Type()})
			if b.agg != nil && !x.As.IsEmpty() {
				b.agg.aliases[strings.ToLower(name)] = e
			}
		default:
			return nil, errorf(Unsupported, "", "not supported: select expression %s", sqlparser.String(se))
		}
	}
	visible := len(exprs)
	if b.agg != nil && having != nil {
		win := b.win
		b.win = nil // not in HAVING
		pred, err := b.bindExpr(having, sc)
		b.win = win
		if err != nil {
			return nil, err
		}
		if pred, err = expr.CastTo(pred, coldata.Bool); err != nil {
			return nil, errorf(TypeMismatch, "", "HAVING: %v", err)
		}
		// The aggregate node gained HAVING's aggregates; filter right above it.
		input = &Filter{Input: input, Pred: pred}
	}

	var keys []opspec.SortKey
	for _, o := range s.OrderBy {
		e, nulls := nullsOrder(o.Expr)
		col, err := b.orderColumn(e, sc, &exprs, &out, visible)
		if err != nil {
			return nil, err
		}
		keys = append(keys, opspec.SortKey{Col: col, Desc: o.Direction == sqlparser.DescScr, Nulls: nulls})
	}
	hidden := len(exprs) > visible
	input = b.win.placeWindows(input)
	var node Node = &Project{Input: input, Exprs: exprs, Out: out}
	if s.Distinct != "" {
		if hidden {
			return nil, errorf(TypeMismatch, "ORDER BY", "with SELECT DISTINCT, ORDER BY expressions must appear in the select list")
		}
		node = &Distinct{Input: node}
	}
	if len(keys) > 0 {
		node = &Sort{Input: node, Keys: keys}
	}
	if s.Limit != nil {
		lim := &Limit{Input: node, Count: -1}
		if s.Limit.Rowcount != nil {
			if lim.Count, err = b.intLiteral(s.Limit.Rowcount, "LIMIT"); err != nil {
				return nil, err
			}
		}
		if s.Limit.Offset != nil {
			if lim.Offset, err = b.intLiteral(s.Limit.Offset, "OFFSET"); err != nil {
				return nil, err
			}
		}
		node = lim
	}
	if hidden {
		keep := make([]expr.Expr, visible)
		for i := range keep {
			keep[i] = &expr.ColumnRef{Index: i, Name: out[i].Name, T: out[i].Type}
		}
		node = &Project{Input: node, Exprs: keep, Out: out[:visible]}
	}
	return node, nil
}

// orderColumn resolves an ORDER BY expression to a column of the projection:
// an ordinal, a select-list alias, an expression equal to a select item, or
// a new hidden column.
func (b *binder) orderColumn(e sqlparser.Expr, sc *scope, exprs *[]expr.Expr, out *[]Column, visible int) (int, error) {
	if v, ok := e.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal {
		n, err := b.intLiteral(v, "ORDER BY position")
		if err != nil || n < 1 || int(n) > visible {
			return 0, errorf(UnknownColumn, string(v.Val), "unknown column %s in ORDER BY (the select list has %d columns)", v.Val, visible)
		}
		return int(n) - 1, nil
	}
	if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() {
		match := -1
		for i := 0; i < visible; i++ {
			if strings.EqualFold((*out)[i].Name, c.Name.String()) {
				if match >= 0 && (*exprs)[match].String() != (*exprs)[i].String() {
					return 0, errorf(AmbiguousColumn, c.Name.String(), "column %q in ORDER BY is ambiguous", c.Name.String())
				}
				if match < 0 {
					match = i
				}
			}
		}
		if match >= 0 {
			return match, nil
		}
	}
	be, err := b.bindExpr(e, sc)
	if err != nil {
		return 0, err
	}
	s, key := be.String(), expr.Key(be)
	for i, x := range *exprs {
		if expr.Key(x) == key {
			return i, nil
		}
	}
	*exprs = append(*exprs, be)
	*out = append(*out, Column{Name: s, Type: be.Type()})
	return len(*exprs) - 1, nil
}

// nullsOrder unwraps the dialect layer's marker of ORDER BY's NULLS FIRST /
// NULLS LAST (sql: `x NULLS LAST` reaches the parser as gsql_nulls_last(x)).
func nullsOrder(e sqlparser.Expr) (sqlparser.Expr, opspec.NullOrder) {
	f, ok := e.(*sqlparser.FuncExpr)
	if !ok || len(f.Exprs) != 1 {
		return e, opspec.NullsDefault
	}
	a, ok := f.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return e, opspec.NullsDefault
	}
	switch f.Name.Lowered() {
	case sql.NullsFirstMarker:
		return a.Expr, opspec.NullsFirst
	case sql.NullsLastMarker:
		return a.Expr, opspec.NullsLast
	}
	return e, opspec.NullsDefault
}
