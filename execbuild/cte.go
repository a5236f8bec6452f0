package execbuild

import (
	"fmt"
	"time"

	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// sharedResult builds the CTE's body on its first reference.
func (b *Built) sharedResult(r *planner.CTERef) (*operators.SharedResult, error) {
	if sh, ok := b.shared[r.Key()]; ok {
		return sh, nil
	}
	in, err := b.build(r.Body)
	if err != nil {
		return nil, fmt.Errorf("CTE %s: %w", r.Name, err)
	}
	if b.shared == nil {
		b.shared = map[any]*operators.SharedResult{}
	}
	// The key lets the statement's other operator trees (its subqueries
	// run while planning) read the same result (operators.WithSharedResults).
	sh := &operators.SharedResult{Input: in, Key: r.Key()}
	b.shared[r.Key()] = sh
	if b.cteBody == nil {
		b.cteBody = map[any]*planner.CTERef{}
	}
	b.cteBody[r.Key()] = r
	return sh, nil
}

// buildRecursive builds the recursion: the working table first, so that
// the step's WorkScan finds it.
func (b *Built) buildRecursive(r *planner.Recursive) (operators.Operator, error) {
	if b.work == nil {
		b.work = map[any]*operators.WorkTable{}
	}
	wt := &operators.WorkTable{}
	b.work[r.WorkKey()] = wt
	base, err := b.build(r.Base)
	if err != nil {
		return nil, err
	}
	step, err := b.build(r.Step)
	if err != nil {
		return nil, err
	}
	return &operators.Recursive{Name: r.Name, Base: base, Step: step, Work: wt, Distinct: r.Distinct,
		MaxIterations: planner.MaxRecursion, MaxRows: planner.MaxRecursiveRows}, nil
}

// cteNote is EXPLAIN ANALYZE's note on a CTE reference whose result an
// earlier operator tree of the statement computed (a subquery run while
// the statement was planned): this plan read it without running the body
// shown below it (whose operators therefore show no rows).
func (b *Built) cteNote(r *planner.CTERef) string {
	sh, ok := b.shared[r.Key()]
	if !ok || !b.ExpandsCTE(r) {
		return "" // shown once, on the reference with the body
	}
	if reused, rows, d := sh.Reused(); reused {
		return fmt.Sprintf(" computed_while_planning(rows=%d time=%s)", rows, d.Round(time.Microsecond))
	}
	return ""
}

// ExpandsCTE reports whether r is the reference whose body this tree
// built (EXPLAIN ANALYZE shows the body under it, with its statistics).
func (b *Built) ExpandsCTE(r *planner.CTERef) bool { return b.cteBody[r.Key()] == r }
