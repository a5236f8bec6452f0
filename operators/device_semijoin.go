package operators

import (
	"context"
	"fmt"
	"sort"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/opspec"
)

// A semi or anti join with a residual condition (TPC-H Q21's EXISTS ...
// AND l2.l_suppkey <> l1.l_suppkey) runs in four device steps per left
// batch: the probe's matching pairs; the condition's columns gathered for
// every pair and the condition evaluated (one generated kernel); the left
// rows marked where it holds for some pair (gpuexec.Device.MarkRows); and
// one generated filter keeping the marked (semi) or unmarked (anti) rows.

// residual holds a semi or anti join's prepared residual kernels.
type residual struct {
	leftCols, rightCols []int // columns the condition reads, per side
	gLeft, gRight       gatherer
	cond                computer
	keep                computer
}

// computer is a prepared filter and projection: generated kernels or the
// interpreter's program.
type computer interface {
	Run(ctx context.Context, in *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error)
	Launches() int
	Release() error
}

// prepareCompute readies a filter and projection over columns of the
// given types (prepareTiered).
func prepareCompute(d *gpuexec.Device, types []coldata.Type, pred expr.Expr, outs []expr.Expr, st *Stats) (computer, error) {
	k, err := fuse.Generate(types, pred, outs)
	if err != nil {
		return nil, err
	}
	return prepareTiered(d, k, types, pred, outs, st)
}

// prepareResidual readies the kernels of j.Cond.
func (j *DeviceHashJoin) prepareResidual() (*residual, error) {
	nl := len(j.LeftTypes)
	r := &residual{}
	for c := range expr.Columns(j.Cond) {
		if c < nl {
			r.leftCols = append(r.leftCols, c)
		} else {
			r.rightCols = append(r.rightCols, c-nl)
		}
	}
	sort.Ints(r.leftCols)
	sort.Ints(r.rightCols)
	// The condition over the gathered columns: the left ones, then the
	// right ones.
	remap := map[int]int{}
	var types, lt, rt []coldata.Type
	for i, c := range r.leftCols {
		remap[c] = i
		lt = append(lt, j.LeftTypes[c])
	}
	for i, c := range r.rightCols {
		remap[nl+c] = len(r.leftCols) + i
		rt = append(rt, j.RightInTypes[c])
	}
	types = append(append(types, lt...), rt...)
	var err error
	if len(lt) > 0 {
		if r.gLeft, err = prepareGather(j.RT.Dev, lt, j.Stats); err != nil {
			return nil, err
		}
	}
	if len(rt) > 0 {
		if r.gRight, err = prepareGather(j.RT.Dev, rt, j.Stats); err != nil {
			r.release()
			return nil, err
		}
	}
	if r.cond, err = prepareCompute(j.RT.Dev, types, nil, []expr.Expr{expr.Remap(j.Cond, remap)}, j.Stats); err != nil {
		r.release()
		return nil, err
	}
	// The filter over the left output columns and the mark column.
	keepTypes := append(append([]coldata.Type(nil), j.LeftTypes...), coldata.Bool)
	outs := make([]expr.Expr, len(j.LeftTypes))
	for i, t := range j.LeftTypes {
		outs[i] = &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t}
	}
	var pred expr.Expr = &expr.ColumnRef{Index: len(j.LeftTypes), Name: "mark", T: coldata.Bool}
	if j.Kind == opspec.AntiJoin {
		not, _ := expr.Lookup("not")
		pred = &expr.Call{Fn: not, Args: []expr.Expr{pred}, T: coldata.Bool}
	}
	if r.keep, err = prepareCompute(j.RT.Dev, keepTypes, pred, outs, j.Stats); err != nil {
		r.release()
		return nil, err
	}
	return r, nil
}

func (r *residual) release() {
	for _, g := range []gatherer{r.gLeft, r.gRight} {
		if g != nil {
			g.Release()
		}
	}
	for _, c := range []computer{r.cond, r.keep} {
		if c != nil {
			c.Release()
		}
	}
	*r = residual{}
}

// probeResidual runs a semi or anti join with a residual condition over
// one left batch.
func (j *DeviceHashJoin) probeResidual(ctx context.Context, lb *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error) {
	r := j.res
	pairs, err := j.table.Probe(ctx, lb, j.LeftKeys, false, 0)
	if err != nil {
		return nil, err
	}
	defer pairs.Release()
	j.count(pairs.Launches)
	var mark *gpuexec.DeviceBatch
	if pairs.Len == 0 {
		// No pair: nothing is marked.
		mark, err = j.RT.Dev.MarkRows(ctx, 0, gpuexec.DeviceVec{Type: coldata.Bool}, 0, lb.Len)
	} else {
		mark, err = j.markRows(ctx, lb, pairs)
	}
	if err != nil {
		return nil, err
	}
	defer mark.Release()
	j.count(1)
	cols := append(append([]gpuexec.DeviceVec(nil), lb.Cols[:len(j.LeftTypes)]...), mark.Cols[0])
	in, err := gpuexec.Combine(cols, lb.Len, lb, mark)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	out, err := r.keep.Run(ctx, in)
	j.count(r.keep.Launches())
	if err != nil {
		return nil, err
	}
	if out.Len == 0 {
		out.Release()
		return nil, nil
	}
	return out, nil
}

// markRows evaluates the condition over the pairs and marks their left
// rows where it holds.
func (j *DeviceHashJoin) markRows(ctx context.Context, lb *gpuexec.DeviceBatch, pairs *gpuexec.JoinPairs) (*gpuexec.DeviceBatch, error) {
	r := j.res
	pick := func(g gatherer, b *gpuexec.DeviceBatch, cols []int, idx gpuexec.DevicePtr) (*gpuexec.DeviceBatch, error) {
		if len(cols) == 0 {
			return gpuexec.Combine(nil, pairs.Len, b)
		}
		vs := make([]gpuexec.DeviceVec, len(cols))
		for i, c := range cols {
			vs[i] = b.Cols[c]
		}
		src, err := gpuexec.Combine(vs, b.Len, b)
		if err != nil {
			return nil, err
		}
		defer src.Release()
		out, err := g.RunGather(ctx, src, idx, pairs.Len)
		j.count(g.Launches())
		return out, err
	}
	left, err := pick(r.gLeft, lb, r.leftCols, pairs.Probe.Ptr())
	if err != nil {
		return nil, err
	}
	defer left.Release()
	right, err := pick(r.gRight, j.build, r.rightCols, pairs.Build.Ptr())
	if err != nil {
		return nil, err
	}
	defer right.Release()
	both, err := gpuexec.Combine(append(append([]gpuexec.DeviceVec(nil), left.Cols...), right.Cols...), pairs.Len, left, right)
	if err != nil {
		return nil, err
	}
	defer both.Release()
	flags, err := r.cond.Run(ctx, both)
	j.count(r.cond.Launches())
	if err != nil {
		return nil, err
	}
	defer flags.Release()
	return j.RT.Dev.MarkRows(ctx, pairs.Probe.Ptr(), flags.Cols[0], pairs.Len, lb.Len)
}

// count adds kernel launches to the join's statistics.
func (j *DeviceHashJoin) count(n int) {
	if j.Stats != nil {
		j.Stats.Launches.Add(int64(n))
	}
}
