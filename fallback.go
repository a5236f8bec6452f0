package gsql

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// In auto mode a read-only statement whose GPU plan runs out of device
// memory (the pool, the device, the database's PoolLimit, or a wait for
// other databases of a shared device past gpuexec.MemoryWait) runs again
// on the CPU, and says so: the reader's RanOn, EXPLAIN ANALYZE's first
// line and Stats.CPUFallbacks. Only before the first batch is handed out:
// a stream the caller has started reading is never re-run. With device
// "gpu" (strict) the error is returned as it is.

// hostPlanFunc plans a statement again for the CPU alone, under ro.
type hostPlanFunc func(ctx context.Context, ro planner.RuleOptions) (planner.Node, error)

// hostPlan is how a SELECT is planned again for the CPU after its GPU
// plan ran out of device memory.
func (db *DB) hostPlan(stmt sqlparser.SelectStatement, args []any) hostPlanFunc {
	return func(ctx context.Context, ro planner.RuleOptions) (planner.Node, error) {
		n, err := db.planner.PlanSelectWith(ctx, stmt, args, ro)
		if err != nil {
			return nil, err
		}
		return planner.Placed(n, ro, true)
	}
}

// hostPlanText is hostPlan for a statement known by its text (a cached
// plan's): parsed only when the fallback happens.
func (db *DB) hostPlanText(text string, args []any) hostPlanFunc {
	return func(ctx context.Context, ro planner.RuleOptions) (planner.Node, error) {
		st, err := sql.ParseOne(text)
		if err != nil {
			return nil, err
		}
		sel, ok := st.(*sql.Select)
		if !ok {
			return nil, fmt.Errorf("gsql: cached plan of a statement that is not a SELECT: %q", text)
		}
		return db.hostPlan(sel.Stmt, args)(ctx, ro)
	}
}

// testHooks are seams for the root package's tests, which run without a
// GPU; every field is nil outside tests.
type testHooks struct {
	// gpuAttempt, when set, stands in for a GPU: each SELECT of a
	// database in auto or gpu mode counts as a GPU plan, whatever its
	// placement, and its operator tree is wrapped (to inject device
	// faults).
	gpuAttempt func(operators.Operator) operators.Operator
	// beforeCPU runs once the failed attempt is closed, before the CPU
	// plan is built.
	beforeCPU func()
	// admission, when set, is the admission queue every SELECT of the
	// database waits in, as a GPU plan waits in its device's.
	admission *gpuexec.Admission
}

// mayFallBack reports whether a failure of placed plan n for lack of
// device memory runs it again on the CPU: auto mode and GPU work in it.
func (db *DB) mayFallBack(n planner.Node) bool {
	db.mu.RLock()
	auto := db.requested == "auto"
	db.mu.RUnlock()
	return auto && (hasDeviceNode(n) || db.hooks.gpuAttempt != nil)
}

// attemptRoot is the operator tree a planned SELECT runs: the built one,
// or the test hook's wrapping of it.
func (db *DB) attemptRoot(root operators.Operator) operators.Operator {
	if db.hooks.gpuAttempt == nil {
		return root
	}
	db.mu.RLock()
	cpu := db.requested == "cpu"
	db.mu.RUnlock()
	if cpu {
		return root
	}
	return db.hooks.gpuAttempt(root)
}

// shouldFallBack reports whether err, ending a GPU attempt that may fall
// back, is a device memory shortage (not the query's cancellation).
func shouldFallBack(ctx context.Context, err error) bool {
	return gpuexec.IsOutOfMemory(err) && ctx.Err() == nil
}

// fallbackReason says why a statement ran on the CPU: what the failed
// allocation asked for and how long the attempt waited for device memory
// (w: the attempt's waits, nil when unknown).
func fallbackReason(err error, w *gpuexec.Waits) string {
	var waited time.Duration
	if w != nil {
		waited = w.Memory.Total()
	}
	var oom *memory.OutOfMemoryError
	if errors.As(err, &oom) && oom.Requested > 0 {
		limit := ""
		if oom.Limit > 0 {
			limit = fmt.Sprintf(" over a limit of %d bytes", oom.Limit)
		}
		return fmt.Sprintf("the gpu was out of memory (needed %d bytes%s, waited %s)", oom.Requested, limit, waited.Round(time.Millisecond))
	}
	return fmt.Sprintf("the gpu was out of memory (waited %s)", waited.Round(time.Millisecond))
}

// fallBack opens the CPU plan of a statement whose GPU attempt ran out of
// device memory (the attempt's operators are closed already, so its
// device memory is back): under a new warnings list, since the CPU run
// reports the statement's warnings afresh. It returns the opened tree and
// the context it runs under.
func (db *DB) fallBack(ctx context.Context, plan hostPlanFunc) (context.Context, operators.Operator, error) {
	db.cpuFallbacks.Add(1)
	if db.hooks.beforeCPU != nil {
		db.hooks.beforeCPU()
	}
	ctx, _ = db.startWarnings(ctx)
	n, err := plan(ctx, db.ruleOptions(ctx))
	if err != nil {
		return nil, nil, fmt.Errorf("planning for the cpu after the gpu ran out of memory: %w", err)
	}
	built, err := db.build(n)
	if err != nil {
		return nil, nil, fmt.Errorf("building the cpu plan after the gpu ran out of memory: %w", err)
	}
	operators.UseResultMemory(built.Root)
	if err := built.Root.Open(ctx); err != nil {
		built.Root.Close()
		return nil, nil, err
	}
	return ctx, built.Root, nil
}
