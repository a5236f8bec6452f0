package planner

import (
	"context"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// ValuesTable is the table name that ON DUPLICATE KEY UPDATE's VALUES(col)
// resolves col in: BindInsert's caller names the new row's columns with it.
const ValuesTable = "\x00values"

// ScopeColumn is a column of the row BindInsert's assignments read: input
// column i is the i-th ScopeColumn. Hidden columns are found only by a
// qualified name (or VALUES(col) for ValuesTable's).
type ScopeColumn struct {
	Table, Name string
	Type        coldata.Type
	Hidden      bool
}

// BindInsert binds INSERT ... VALUES's rows as BindRows does (nil rows: an
// INSERT ... SELECT, whose query binds its own placeholders) and the
// expressions of ON DUPLICATE KEY UPDATE over a row of cols, sharing the
// statement's placeholders.
func (p *Planner) BindInsert(ctx context.Context, rows [][]sqlparser.Expr, ncols int, set []sqlparser.Expr, cols []ScopeColumn, args []any) ([][]expr.Expr, []expr.Expr, error) {
	b := &binder{ctx: ctx, cat: p.Catalog, args: args, now: statementTime(ctx), ctes: cteSet{}, run: p.Run, runOnce: p.RunOnce}
	out, err := b.bindRows(rows, ncols)
	if err != nil {
		return nil, nil, err
	}
	sc := &scope{}
	for i, c := range cols {
		sc.cols = append(sc.cols, scopeCol{Table: c.Table, Name: c.Name, Type: c.Type, Index: i, hidden: c.Hidden})
	}
	bound := make([]expr.Expr, len(set))
	for i, e := range set {
		be, err := b.bindExpr(e, sc)
		if err != nil {
			return nil, nil, err
		}
		if bound[i], err = foldConstants(be); err != nil {
			return nil, nil, err
		}
	}
	if rows != nil {
		if err := b.checkArgs(); err != nil {
			return nil, nil, err
		}
	}
	return out, bound, nil
}
