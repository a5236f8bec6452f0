package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// An INNER device join hashes its right input, which it holds whole on
// the device anyway. When the left input turns out much smaller (the
// planner's join order often puts a dimension such as TPC-H's nation, 25
// rows, on the left of a join with millions of rows), it hashes the left
// rows instead and probes them with the right batch: a table of a few
// keys instead of one over every right row. The choice is made at run
// time, from the sides' actual sizes, because estimates after several
// joins and filters are often far off and the right side is materialised
// before the first probe in any case; the left input is read ahead only
// up to deviceBuildLeftMaxRows. SQL gives an inner join's rows no order,
// and the swapped output comes in right-row order (a right row's matches
// in left-row order).
const (
	// deviceBuildLeftMaxRows bounds the left rows read ahead to decide.
	deviceBuildLeftMaxRows = 1 << 22
	// deviceBuildLeftRatio: the left side is hashed when the right one
	// has more than this many times its rows.
	deviceBuildLeftRatio = 4
)

// chooseBuildLeft reads the left input ahead while it stays small next to
// the right side j.build and reports whether it ended small enough to be
// hashed instead. The batches read stay in j.leftBuf either way.
func (j *DeviceHashJoin) chooseBuildLeft(ctx context.Context) (bool, error) {
	if j.Kind != opspec.InnerJoin || j.Cond != nil || len(j.LeftKeys) == 0 || j.build == nil {
		return false, nil
	}
	rrows, lrows := j.build.Len, 0
	for lrows*deviceBuildLeftRatio < rrows && lrows <= deviceBuildLeftMaxRows {
		b, err := j.Left.NextDevice(ctx)
		if err != nil {
			return false, err
		}
		if b == nil {
			j.leftExhausted = true
			return lrows > 0, nil
		}
		if b.Len == 0 {
			b.Release()
			continue
		}
		j.leftBuf = append(j.leftBuf, b)
		lrows += b.Len
	}
	return false, nil
}

// nextBuildLeft hashes the read-ahead left rows, probes them with the
// whole right side and returns the joined rows as one batch (left columns
// then right ones, as always).
func (j *DeviceHashJoin) nextBuildLeft(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if j.swapDone {
		return nil, nil
	}
	j.swapDone = true
	parts := j.leftBuf
	j.leftBuf = nil
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	var left *gpuexec.DeviceBatch
	var err error
	if len(parts) == 1 {
		left, err = parts[0].Retain()
	} else {
		left, err = j.RT.Dev.Concatenate(parts)
	}
	if err != nil {
		return nil, fmt.Errorf("join left side: %w", err)
	}
	defer left.Release()
	table, err := j.RT.Dev.BuildJoin(ctx, left, j.LeftKeys)
	if err != nil {
		return nil, err
	}
	defer table.Release()
	pairs, err := table.Probe(ctx, j.build, j.RightKeys, false, 0)
	if err != nil {
		return nil, err
	}
	defer pairs.Release()
	if j.Stats != nil {
		j.Stats.Launches.Add(int64(table.Launches + pairs.Launches))
	}
	if pairs.Len == 0 {
		return nil, nil
	}
	lout, err := j.gather(ctx, j.gLeft, left, len(j.LeftTypes), pairs.Build.Ptr(), pairs.Len)
	if err != nil {
		return nil, err
	}
	defer lout.Release()
	rout, err := j.gather(ctx, j.gRight, j.build, len(j.RightTypes), pairs.Probe.Ptr(), pairs.Len)
	if err != nil {
		return nil, err
	}
	defer rout.Release()
	cols := append(append([]gpuexec.DeviceVec(nil), lout.Cols...), rout.Cols...)
	return gpuexec.Combine(cols, pairs.Len, lout, rout)
}
