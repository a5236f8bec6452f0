package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// DeviceHashJoin is an equi-join on the GPU: the right input is
// concatenated on the device and hashed (gpuexec.BuildJoin), every left
// batch probes it for row pairs (two-pass: counts, scan, fill), and two
// generated gather kernels assemble the output columns on the device.
// Output order is HashJoin's within a batch: matched pairs in left-row
// order, a row's matches in build-row order, then (LEFT) the unmatched
// left rows, whose right columns come from one all-NULL row appended to
// the build side. An INNER join whose left input turns out much smaller
// than its right one hashes the left side instead (nextBuildLeft): its
// output is then in right-row order, a right row's matches in left-row
// order. A semi (anti) join keeps, in order, the left rows with
// (without) a match: one gather of the left columns.
type DeviceHashJoin struct {
	Left, Right DeviceOperator
	RT          *DeviceRuntime
	// LeftKeys and RightKeys are key columns of each side's batches.
	LeftKeys, RightKeys []int
	Kind                opspec.JoinKind
	// LeftTypes and RightTypes are the output columns, a prefix of each
	// side's batches; RightInTypes are all of the right batches' columns.
	LeftTypes, RightTypes, RightInTypes []coldata.Type
	// Cond is a semi or anti join's residual condition over the left
	// output columns followed by the right batches' columns (nil: none).
	Cond  expr.Expr
	Stats *Stats
	// MemoryLimit bounds the host memory the partitions of a join split
	// after its build ran out of device memory hold; past it they go to
	// disk in SpillDir (device_join_partitioned.go). 0: no bound.
	MemoryLimit uint64
	SpillDir    string

	built         bool
	build         *gpuexec.DeviceBatch
	table         *gpuexec.JoinTable
	nullRow       int64
	gLeft, gRight gatherer
	res           *residual
	leftExhausted bool
	// leftBuf holds left batches read ahead to choose the side to hash
	// (device_join_buildleft.go); swapped says the left side was hashed
	// and the right probed it, swapDone that its output is out.
	leftBuf           []*gpuexec.DeviceBatch
	swapped, swapDone bool
	// swapLeft is the hashed left side of a swapped join (j.table is its
	// table), swapQueue the right rows still to probe it with.
	swapLeft  *gpuexec.DeviceBatch
	swapQueue []*gpuexec.DeviceBatch
	// hosted says both sides were tiny and joined on the host
	// (device_tiny.go); hostOut is that output until returned.
	hosted  bool
	hostOut *gpuexec.DeviceBatch
	// streamed is the join on the host after its build side ran out of
	// device memory (device_join_oom.go).
	streamed *hostStream
	// parted is the join partition by partition after its build side ran
	// out of device memory (device_join_partitioned.go).
	parted *partStream

	// BuildOn, when set, stands in for the device's BuildJoin (withRows)
	// and BuildSemiJoin of the right side: tests over the fake driver.
	BuildOn func(ctx context.Context, d *gpuexec.Device, build *gpuexec.DeviceBatch, keys []int, withRows bool) (*gpuexec.JoinTable, error)
}

// Open implements DeviceOperator.
func (j *DeviceHashJoin) Open(ctx context.Context) error {
	j.built, j.leftExhausted, j.swapped, j.swapDone, j.hosted, j.streamed, j.parted = false, false, false, false, false, nil, nil
	var err error
	if j.gLeft, err = j.prepareGather(j.LeftTypes); err != nil {
		return err
	}
	if j.gRight, err = j.prepareGather(j.RightTypes); err != nil {
		return err
	}
	if j.Cond != nil {
		if j.Kind != opspec.SemiJoin && j.Kind != opspec.AntiJoin {
			return fmt.Errorf("internal error: device join of kind %d with a residual condition", j.Kind)
		}
		if j.res, err = j.prepareResidual(); err != nil {
			return err
		}
	}
	if err := j.Left.Open(ctx); err != nil {
		return err
	}
	return j.Right.Open(ctx)
}

func (j *DeviceHashJoin) prepareGather(types []coldata.Type) (gatherer, error) {
	if len(types) == 0 {
		return nil, nil
	}
	if hostGathers.Load() {
		return hostGatherer{j.RT.Dev}, nil
	}
	return prepareGather(j.RT.Dev, types, j.Stats)
}

// buildSide concatenates the right input (plus the NULL row of a LEFT
// join) and hashes it.
func (j *DeviceHashJoin) buildSide(ctx context.Context) error {
	j.built = true
	var parts []*gpuexec.DeviceBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	rows := 0
	for {
		b, err := j.Right.NextDevice(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if b.Len == 0 {
			b.Release()
			continue
		}
		rows += b.Len
		parts = append(parts, b)
	}
	if ok, err := j.joinOnHost(ctx, parts); err != nil || ok {
		return err
	}
	right := parts
	if err := j.buildOnDevice(ctx, &parts, rows); gpuexec.IsOutOfMemory(err) {
		return j.joinPartitionedAfterOOM(ctx, right, &parts, err)
	} else {
		return err
	}
}

// buildOnDevice concatenates the right input's batches *parts (plus a
// LEFT join's NULL row, appended to them) and hashes them, or the left
// input when it is the much smaller side.
func (j *DeviceHashJoin) buildOnDevice(ctx context.Context, parts *[]*gpuexec.DeviceBatch, rows int) error {
	if j.Kind == opspec.LeftJoin {
		nb, err := j.RT.Dev.Upload(ctx, j.nullRowBatch())
		if err != nil {
			return fmt.Errorf("join NULL row: %w", err)
		}
		*parts = append(*parts, nb)
		j.nullRow = int64(rows)
	}
	if len(*parts) == 0 {
		return nil // INNER join with an empty right side: no output
	}
	var err error
	if len(*parts) == 1 {
		j.build, err = (*parts)[0].Retain()
	} else {
		j.build, err = j.RT.Dev.Concatenate(*parts)
	}
	if err != nil {
		return err
	}
	if j.swapped, err = j.chooseBuildLeft(ctx); err != nil || j.swapped {
		if j.swapped && j.Stats != nil {
			j.Stats.HashedLeft.Store(1)
		}
		return err
	}
	return j.hashBuild(ctx)
}

// nullRowBatch is a LEFT join's all-NULL right row, which its unmatched
// left rows pair with.
func (j *DeviceHashJoin) nullRowBatch() *coldata.Batch {
	cols := make([]*coldata.Vec, len(j.RightInTypes))
	for i, t := range j.RightInTypes {
		bld := coldata.NewBuilder(t, 1)
		bld.AppendNull()
		cols[i] = bld.Finish()
	}
	return &coldata.Batch{Cols: cols, Len: 1}
}

// hashBuild hashes j.build, the right side's rows, into j.table (through
// BuildOn when a test set it).
func (j *DeviceHashJoin) hashBuild(ctx context.Context) error {
	var err error
	// Only whether a key is there matters to a semi or anti join without
	// a residual: no rows per key.
	withRows := !((j.Kind == opspec.SemiJoin || j.Kind == opspec.AntiJoin) && j.Cond == nil)
	switch {
	case j.BuildOn != nil:
		j.table, err = j.BuildOn(ctx, j.RT.Dev, j.build, j.RightKeys, withRows)
	case withRows:
		j.table, err = j.RT.Dev.BuildJoin(ctx, j.build, j.RightKeys)
	default:
		j.table, err = j.RT.Dev.BuildSemiJoin(ctx, j.build, j.RightKeys)
	}
	if err != nil {
		return err
	}
	j.table.PairLimit = j.probePairLimit()
	if j.Stats != nil {
		j.Stats.Launches.Add(int64(j.table.Launches))
	}
	return nil
}

// probeSplitting probes the left batch lb (released here) with the built
// table; when the probe does not fit, lb's row slices go in front of
// *queue (retrySplit) and again says to take the next batch from there.
func (j *DeviceHashJoin) probeSplitting(ctx context.Context, queue *[]*gpuexec.DeviceBatch, lb *gpuexec.DeviceBatch) (out *gpuexec.DeviceBatch, again bool, err error) {
	err = j.RT.Cache.RetryOOM(j.RT.waitCtx(ctx), func() (err error) {
		out, err = j.probe(ctx, lb)
		return err
	})
	if err == nil {
		lb.Release()
		return out, false, nil
	}
	split, serr := j.retrySplit(queue, lb, err)
	lb.Release()
	switch {
	case serr != nil:
		return nil, false, serr
	case split:
		return nil, true, nil
	}
	return nil, false, err
}

// NextDevice implements DeviceOperator.
func (j *DeviceHashJoin) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if !j.built {
		if err := j.buildSide(ctx); err != nil {
			return nil, err
		}
	}
	if j.hosted {
		out := j.hostOut
		j.hostOut = nil
		return out, nil
	}
	if j.streamed != nil {
		return j.streamed.next(ctx)
	}
	if j.parted != nil {
		return j.parted.next(ctx)
	}
	if j.swapped {
		return j.nextBuildLeft(ctx)
	}
	for len(j.leftBuf) > 0 || !j.leftExhausted {
		var lb *gpuexec.DeviceBatch
		if len(j.leftBuf) > 0 {
			lb, j.leftBuf = j.leftBuf[0], j.leftBuf[1:]
		} else {
			var err error
			if lb, err = j.Left.NextDevice(ctx); err != nil {
				return nil, err
			}
		}
		if lb == nil {
			j.leftExhausted = true
			break
		}
		if j.table == nil && j.Kind == opspec.AntiJoin && lb.Len > 0 {
			// Nothing to match: every row is kept (its output columns).
			out, err := gpuexec.Combine(lb.Cols[:len(j.LeftTypes)], lb.Len, lb)
			lb.Release()
			return out, err
		}
		if j.table == nil || lb.Len == 0 {
			lb.Release()
			continue
		}
		out, again, err := j.probeSplitting(ctx, &j.leftBuf, lb)
		if err != nil {
			return nil, err
		}
		if !again && out != nil {
			return out, nil
		}
	}
	return nil, nil
}

func (j *DeviceHashJoin) probe(ctx context.Context, lb *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error) {
	if j.res != nil {
		return j.probeResidual(ctx, lb)
	}
	var pairs *gpuexec.JoinPairs
	var err error
	if j.Kind == opspec.SemiJoin || j.Kind == opspec.AntiJoin {
		pairs, err = j.table.ProbeRows(ctx, lb, j.LeftKeys, j.Kind == opspec.AntiJoin)
	} else {
		pairs, err = j.table.Probe(ctx, lb, j.LeftKeys, j.Kind == opspec.LeftJoin, j.nullRow)
	}
	if err != nil {
		return nil, err
	}
	defer pairs.Release()
	if j.Stats != nil {
		j.Stats.Launches.Add(int64(pairs.Launches))
	}
	if pairs.Len == 0 {
		return nil, nil
	}
	left, err := j.gather(ctx, j.gLeft, lb, len(j.LeftTypes), pairs.Probe.Ptr(), pairs.Len)
	if err != nil {
		return nil, err
	}
	if j.Kind == opspec.SemiJoin || j.Kind == opspec.AntiJoin {
		return left, nil
	}
	defer left.Release()
	right, err := j.gather(ctx, j.gRight, j.build, len(j.RightTypes), pairs.Build.Ptr(), pairs.Len)
	if err != nil {
		return nil, err
	}
	defer right.Release()
	cols := append(append([]gpuexec.DeviceVec(nil), left.Cols...), right.Cols...)
	return gpuexec.Combine(cols, pairs.Len, left, right)
}

// gather picks rows idx of the first ncols columns of b.
func (j *DeviceHashJoin) gather(ctx context.Context, fk gatherer, b *gpuexec.DeviceBatch, ncols int, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error) {
	if ncols == 0 {
		return gpuexec.Combine(nil, n, b)
	}
	src, err := gpuexec.Combine(b.Cols[:ncols], b.Len, b)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	out, err := fk.RunGather(ctx, src, idx, n)
	if j.Stats != nil {
		j.Stats.Launches.Add(int64(fk.Launches()))
	}
	return out, err
}

// Close implements DeviceOperator.
func (j *DeviceHashJoin) Close() error {
	for _, b := range append(j.leftBuf, j.swapQueue...) {
		b.Release()
	}
	j.leftBuf, j.swapQueue = nil, nil
	if j.streamed != nil {
		j.streamed.close()
		j.streamed = nil
	}
	if j.parted != nil {
		j.parted.close()
		j.parted = nil
	}
	if j.hostOut != nil {
		j.hostOut.Release()
		j.hostOut = nil
	}
	if j.swapLeft != nil {
		j.swapLeft.Release()
		j.swapLeft = nil
	}
	if j.table != nil {
		j.table.Release()
		j.table = nil
	}
	if j.build != nil {
		j.build.Release()
		j.build = nil
	}
	for _, fk := range []gatherer{j.gLeft, j.gRight} {
		if fk != nil {
			fk.Release()
		}
	}
	j.gLeft, j.gRight = nil, nil
	if j.res != nil {
		j.res.release()
		j.res = nil
	}
	err := j.Left.Close()
	if err2 := j.Right.Close(); err == nil {
		err = err2
	}
	return err
}
