package execbuild

import (
	"fmt"

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
	sh := &operators.SharedResult{Input: in}
	b.shared[r.Key()] = sh
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
