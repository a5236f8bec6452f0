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
	// The left batches read ahead already (joinOnHost) count.
	rrows, lrows := j.build.Len, 0
	for _, b := range j.leftBuf {
		lrows += b.Len
	}
	for lrows*deviceBuildLeftRatio < rrows && lrows <= deviceBuildLeftMaxRows {
		if j.leftExhausted {
			return lrows > 0, nil
		}
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
// right side j.build and returns the joined rows (left columns then right
// ones, as always): the whole right side in one batch, or in row slices
// when its pairs do not fit one probe (device_join_split.go).
func (j *DeviceHashJoin) nextBuildLeft(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if j.swapDone {
		return nil, nil
	}
	if j.swapLeft == nil {
		if err := j.hashLeft(ctx); err != nil {
			j.swapDone = true
			return nil, err
		}
	}
	for len(j.swapQueue) > 0 {
		rb := j.swapQueue[0]
		j.swapQueue = j.swapQueue[1:]
		var out *gpuexec.DeviceBatch
		err := j.RT.Cache.RetryOOM(j.RT.waitCtx(ctx), func() (err error) {
			out, err = j.probeSwapped(ctx, rb)
			return err
		})
		if err != nil {
			split, serr := j.retrySplit(&j.swapQueue, rb, err)
			rb.Release()
			if serr != nil {
				return nil, serr
			}
			if split {
				continue
			}
			return nil, err
		}
		rb.Release()
		if out != nil {
			return out, nil
		}
	}
	j.swapDone = true
	return nil, nil
}

// hashLeft concatenates the read-ahead left batches, hashes them into
// j.table and queues the right side to probe it.
func (j *DeviceHashJoin) hashLeft(ctx context.Context) error {
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
		return fmt.Errorf("join left side: %w", err)
	}
	j.swapLeft = left
	if j.table, err = j.RT.Dev.BuildJoin(ctx, left, j.LeftKeys); err != nil {
		return err
	}
	j.table.PairLimit = j.probePairLimit()
	if j.Stats != nil {
		j.Stats.Launches.Add(int64(j.table.Launches))
	}
	right, err := j.build.Retain()
	if err != nil {
		return err
	}
	j.swapQueue = []*gpuexec.DeviceBatch{right}
	return nil
}

// probeSwapped probes the left rows' table with right rows rb.
func (j *DeviceHashJoin) probeSwapped(ctx context.Context, rb *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error) {
	pairs, err := j.table.Probe(ctx, rb, j.RightKeys, false, 0)
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
	lout, err := j.gather(ctx, j.gLeft, j.swapLeft, len(j.LeftTypes), pairs.Build.Ptr(), pairs.Len)
	if err != nil {
		return nil, err
	}
	defer lout.Release()
	rout, err := j.gather(ctx, j.gRight, rb, len(j.RightTypes), pairs.Probe.Ptr(), pairs.Len)
	if err != nil {
		return nil, err
	}
	defer rout.Release()
	cols := append(append([]gpuexec.DeviceVec(nil), lout.Cols...), rout.Cols...)
	return gpuexec.Combine(cols, pairs.Len, lout, rout)
}
