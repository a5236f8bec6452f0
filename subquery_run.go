package gsql

import (
	"context"
	"fmt"
	"sync"
	"time"

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
func (db *DB) runOnce(ctx context.Context, n planner.Node) (out []*coldata.Batch, err error) {
	start, ranOn := time.Now(), "cpu"
	defer func() { recordSubqueryRun(ctx, ranOn, time.Since(start)) }()
	db.mu.RLock()
	onGPU := db.device == "gpu"
	db.mu.RUnlock()
	if !onGPU {
		return execbuild.Run(ctx, n)
	}
	// A subquery the device cannot take whole (strict mode refuses to
	// place it) runs on the CPU, as every subquery did before: EXPLAIN's
	// count of subqueries says where each ran.
	placed, err := db.place(n, db.ruleOptions(ctx))
	if err != nil || !hasDeviceNode(placed) {
		return execbuild.Run(ctx, n)
	}
	built, err := db.build(placed)
	if err != nil {
		return nil, fmt.Errorf("subquery: %w", err)
	}
	ranOn = "gpu"
	batches, err := operators.Drain(ctx, built.Root)
	if err != nil && db.mayFallBack(placed) && shouldFallBack(ctx, err) {
		ranOn = "cpu"
		return execbuild.Run(ctx, n)
	}
	return batches, err
}

// subqueryRuns adds up the uncorrelated subqueries a statement ran while
// it was planned, for EXPLAIN: their time is part of the statement's but
// of no operator of its plan (a scalar subquery's value is a literal in
// it by then).
type subqueryRuns struct {
	mu    sync.Mutex
	count map[string]int
	time  time.Duration
}

type subqueryRunsKey struct{}

// withSubqueryRuns returns ctx collecting the subquery runs of the
// statement planned under it.
func withSubqueryRuns(ctx context.Context) (context.Context, *subqueryRuns) {
	r := &subqueryRuns{count: map[string]int{}}
	return context.WithValue(ctx, subqueryRunsKey{}, r), r
}

func recordSubqueryRun(ctx context.Context, ranOn string, d time.Duration) {
	r, ok := ctx.Value(subqueryRunsKey{}).(*subqueryRuns)
	if !ok {
		return
	}
	r.mu.Lock()
	r.count[ranOn]++
	r.time += d
	r.mu.Unlock()
}

// line is EXPLAIN's account of the runs ("" for none), e.g.
// "subqueries run while planning: 2 on the gpu, 1 on the cpu (31.2ms)".
func (r *subqueryRuns) line() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.count) == 0 {
		return ""
	}
	s := "subqueries run while planning:"
	sep := " "
	for _, dev := range []string{"gpu", "cpu"} {
		if c := r.count[dev]; c > 0 {
			s += fmt.Sprintf("%s%d on the %s", sep, c, dev)
			sep = ", "
		}
	}
	return s + fmt.Sprintf(" (%s)", r.time.Round(10*time.Microsecond))
}
