package operators

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// gatherer reorders device batches by an index array: a generated gather
// kernel set, or the interpreter passing the columns through.
type gatherer interface {
	RunGather(ctx context.Context, in *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error)
	Launches() int
	Release() error
}

// Gatherer is a prepared gather, for device operators outside this
// package (PrepareGather).
type Gatherer = gatherer

// PrepareGather readies a gather of columns of the given types on d: its
// fused kernels when cached, else the interpreter while they compile.
func PrepareGather(d *gpuexec.Device, types []coldata.Type, st *Stats) (Gatherer, error) {
	return prepareGather(d, types, st)
}

// tiered is a prepared kernel set of either tier: generated (fused)
// kernels or the interpreter's program.
type tiered interface {
	Run(ctx context.Context, in *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error)
	RunGather(ctx context.Context, in *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error)
	Launches() int
	Release() error
}

// prepareTiered readies k (generated for the filter pred and outputs outs
// over columns of the given types) without waiting for NVRTC when it can:
// the generated kernels when cached, else the interpreter while they
// compile in the background; only before the interpreter is ready does it
// compile and wait.
func prepareTiered(d *gpuexec.Device, k *fuse.Kernel, types []coldata.Type, pred expr.Expr, outs []expr.Expr, st *Stats) (tiered, error) {
	if fk, ok, err := d.PrepareFusedCached(k); err != nil {
		return nil, err
	} else if ok {
		return fk, nil
	}
	if ready, _ := d.InterpreterReady(); ready {
		if p, err := fuse.Interpreter().LowerSplit(types, pred, outs); err == nil {
			pk, err := d.PrepareSplit(p)
			if err != nil {
				return nil, err
			}
			d.CompileFusedAsync(k)
			return pk, nil
		}
	}
	start := time.Now()
	fk, err := d.PrepareFused(k)
	if st != nil {
		st.CompileWaitNanos.Add(int64(time.Since(start)))
	}
	if err != nil {
		return nil, err
	}
	return fk, nil
}

// prepareGather returns the gather of columns of the given types, as
// prepareTiered readies it; a gather wider than one kernel runs as one per
// group of columns (fuse.GatherGroups).
func prepareGather(d *gpuexec.Device, types []coldata.Type, st *Stats) (gatherer, error) {
	if groups := fuse.GatherGroups(types); len(groups) > 1 {
		g := &groupedGather{ranges: groups}
		for _, r := range groups {
			part, err := prepareGather(d, types[r[0]:r[1]], st)
			if err != nil {
				g.Release()
				return nil, err
			}
			g.parts = append(g.parts, part)
		}
		return g, nil
	}
	k, err := fuse.GenerateGather(types)
	if err != nil {
		return nil, err
	}
	return prepareTiered(d, k, types, nil, fuse.GatherOutputs(types), st)
}

// groupedGather gathers column ranges with a gatherer each and puts the
// results side by side.
type groupedGather struct {
	ranges [][2]int
	parts  []gatherer
}

func (g *groupedGather) RunGather(ctx context.Context, in *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error) {
	var outs []*gpuexec.DeviceBatch
	defer func() {
		for _, o := range outs {
			o.Release()
		}
	}()
	var cols []gpuexec.DeviceVec
	for i, r := range g.ranges {
		if r[1] > len(in.Cols) {
			return nil, fmt.Errorf("internal error: gather of %d columns given %d", r[1], len(in.Cols))
		}
		src, err := gpuexec.Combine(in.Cols[r[0]:r[1]], in.Len, in)
		if err != nil {
			return nil, err
		}
		out, err := g.parts[i].RunGather(ctx, src, idx, n)
		src.Release()
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
		cols = append(cols, out.Cols...)
	}
	return gpuexec.Combine(cols, n, outs...)
}

func (g *groupedGather) Launches() int {
	n := 0
	for _, p := range g.parts {
		n += p.Launches()
	}
	return n
}

func (g *groupedGather) Release() error {
	var errs []error
	for _, p := range g.parts {
		errs = append(errs, p.Release())
	}
	g.parts = nil
	return errors.Join(errs...)
}
