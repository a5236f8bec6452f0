package gsql

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// KernelSource is the generated CUDA source of one fused GPU operator.
type KernelSource struct {
	// Operator is the operator's EXPLAIN line.
	Operator string
	// Key identifies the kernel's shape (literals are parameters).
	Key string
	// Source is the complete CUDA C++ source given to NVRTC.
	Source string
	// WarpSource is the one-row-per-warp form of the same kernels, run for
	// batches whose string inputs average at least WarpMinAvg bytes a row;
	// empty when the operator has no such form.
	WarpSource string
	WarpMinAvg int
	// InterpErr is why the precompiled interpreter tier cannot run the
	// operator (so a cold query would wait for Source's compile); nil
	// when it can.
	InterpErr error
}

// KernelSources returns the fused kernels a query's GPU operators would
// run, for debugging. It needs no GPU: code generation is pure Go.
func (db *DB) KernelSources(ctx context.Context, query string, args ...any) ([]KernelSource, error) {
	st, err := sql.ParseOne(query)
	if err != nil {
		return nil, err
	}
	if ex, ok := st.(*sql.Explain); ok {
		st = ex.Stmt
	}
	sel, ok := st.(*sql.Select)
	if !ok {
		return nil, fmt.Errorf("kernel sources: only queries run on the GPU")
	}
	n, err := db.planner.PlanSelectWith(ctx, sel.Stmt, args, db.ruleOptions(ctx))
	if err != nil {
		return nil, err
	}
	n, err = planner.Place(n, planner.PlaceOptions{GPU: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice})
	if err != nil {
		return nil, err
	}
	var out []KernelSource
	var walk func(n planner.Node) error
	walk = func(n planner.Node) error {
		if c, ok := n.(*planner.Compute); ok && c.Fused {
			var types []coldata.Type
			for _, col := range c.Input.Columns() {
				types = append(types, col.Type)
			}
			outs := c.Exprs
			if outs == nil {
				outs = planner.PassThrough(c.Input.Columns())
			}
			k, err := fuse.Generate(types, c.Pred, outs)
			if err != nil {
				return err
			}
			_, ierr := fuse.Interpreter().LowerSplit(types, c.Pred, outs)
			out = append(out, KernelSource{Operator: planner.Explain(c)[0], Key: k.Key, Source: k.Source,
				WarpSource: k.WarpSource, WarpMinAvg: k.WarpMinAvg, InterpErr: ierr})
		}
		for _, in := range n.Inputs() {
			if err := walk(in); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(n)
}
