package planner

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/xwb1989/sqlparser"
)

// RunFunc executes a plan whose nodes are all on the CPU and returns its
// batches. It is the seam between binding and execution: the binder
// evaluates uncorrelated subqueries while it binds (their values become
// literals, or the sets and tables of IN and quantified comparisons), and
// correlated ones once per outer row when the plan runs, yet planner
// builds no operators. The builder (execbuild.Run) implements it; the
// root package sets Planner.Run to it.
type RunFunc func(ctx context.Context, n Node) ([]*coldata.Batch, error)

// BindSelect binds a SELECT statement without the rewrites PlanSelect
// applies after binding: the starting point of tests that compare a
// rewrite's plan with the plan as written.
func (p *Planner) BindSelect(ctx context.Context, stmt sqlparser.SelectStatement, args []any) (Node, error) {
	b := &binder{ctx: ctx, cat: p.Catalog, args: args, now: statementTime(ctx), ctes: cteSet{}, run: p.Run, runOnce: p.RunOnce}
	return b.planSelectStatement(stmt)
}
