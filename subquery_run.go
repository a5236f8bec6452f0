package gsql

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// runOnce is the planner's RunOnce: it runs an uncorrelated subquery (a
// scalar subquery's value, an IN list's set, an EXISTS, NOT IN's NULL
// counts) while its statement binds. On a GPU database the subquery's
// plan is placed as a query's is: a `WHERE x > (SELECT AVG(y) FROM big)`
// over tables held on the device read them there, instead of the CPU
// scanning them while the rest of the statement waits (at TPC-H SF10 a
// CTE read by such a subquery took 2.4 s on the host and 28 ms on the
// GPU). In auto mode a subquery that runs out of device memory runs on
// the CPU instead.
func (db *DB) runOnce(ctx context.Context, n planner.Node) ([]*coldata.Batch, error) {
	db.mu.RLock()
	onGPU := db.device == "gpu"
	db.mu.RUnlock()
	if !onGPU {
		return execbuild.Run(ctx, n)
	}
	placed, err := db.place(n, db.ruleOptions(ctx))
	if err != nil {
		return nil, fmt.Errorf("subquery: %w", err)
	}
	if !hasDeviceNode(placed) {
		return execbuild.Run(ctx, n)
	}
	built, err := db.build(placed)
	if err != nil {
		return nil, err
	}
	batches, err := operators.Drain(ctx, built.Root)
	if err != nil && db.mayFallBack(placed) && shouldFallBack(ctx, err) {
		return execbuild.Run(ctx, n)
	}
	return batches, err
}
