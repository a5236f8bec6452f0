package execbuild

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// Run builds a CPU plan and drains it: the planner.RunFunc the binder
// evaluates subqueries with.
func Run(ctx context.Context, n planner.Node) ([]*coldata.Batch, error) {
	built, err := Build(n, nil, false)
	if err != nil {
		return nil, err
	}
	return operators.Drain(ctx, built.Root)
}

var _ planner.RunFunc = Run
