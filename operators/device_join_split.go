package operators

import (
	"errors"
	"math"

	"github.com/gsqlengine/gsql/gpuexec"
)

// A device join's output is sized by its data, not by its input: one probe
// batch whose keys repeat on the build side can pair into billions of rows
// (a correlated EXISTS on a skewed key with a residual condition, a join
// on a low-cardinality column). The join therefore bounds the pairs one
// probe may produce (the table's PairLimit, from the device's memory) and,
// when a probe passes it or runs out of device memory, probes the batch
// again in row slices (views, no copy), in order, each cut further if it
// still does not fit. Only a single probe row that alone pairs past the
// bound is an error.
const (
	// pairMemoryShare: one probe's pairs and the rows gathered from them
	// may take this fraction of the device memory left when the join
	// starts probing (resident tables and other operators' state hold the
	// rest).
	pairMemoryShare = 4
	// minPairLimit keeps the bound useful on tiny pools (fake devices,
	// tests with a pool limit).
	minPairLimit = 1 << 16
	// minOOMSplitRows: a probe of fewer rows that runs out of memory is
	// not cut again; the error stands.
	minOOMSplitRows = 1024
)

// pairLimit is the pairs one probe may produce when each pair costs
// pairBytes on the device (the two row numbers and the columns gathered
// for it), free bytes of a limit are left (limit 0: unknown, no bound).
func pairLimit(limit, free uint64, pairBytes int) int64 {
	if limit == 0 || pairBytes <= 0 {
		return math.MaxInt32
	}
	n := int64(min(free, limit) / pairMemoryShare / uint64(pairBytes))
	return min(max(n, minPairLimit), math.MaxInt32)
}

// probePairLimit is pairLimit for this join on its device now.
func (j *DeviceHashJoin) probePairLimit() int64 {
	return pairLimit(j.RT.Dev.MemoryLimit(), j.RT.Dev.MemoryFree(), j.joinPairBytes())
}

// joinPairBytes estimates a pair's device bytes for the join's output: 16
// for its row numbers and 8 for each column gathered (strings more; a
// probe that runs out of memory is cut all the same).
func (j *DeviceHashJoin) joinPairBytes() int {
	if j.res != nil {
		return 16 + 8*(len(j.res.leftCols)+len(j.res.rightCols)) + 1
	}
	return 16 + 8*(len(j.LeftTypes)+len(j.RightTypes))
}

// splitProbe returns b cut into row slices to probe in its place, in
// order, when err says b's probe produced too many pairs or ran out of
// device memory; nil when err is any other error or b cannot be cut.
func splitProbe(b *gpuexec.DeviceBatch, err error) ([]*gpuexec.DeviceBatch, error) {
	pieces := 0
	var size *gpuexec.JoinSizeError
	switch {
	case errors.As(err, &size) && b.Len > 1:
		// Twice the pieces the count asks for: pairs are rarely spread
		// evenly over the rows.
		pieces = int(min(int64(b.Len), 2*((size.Pairs+size.Limit-1)/size.Limit)))
	case gpuexec.IsOutOfMemory(err) && b.Len >= minOOMSplitRows:
		pieces = 2
	default:
		return nil, nil
	}
	splits := pieceSplits(b.Len, pieces)
	if len(splits) == 0 {
		return nil, nil // one piece would be b again
	}
	return gpuexec.Split(b, splits)
}

// pieceSplits cuts rows into pieces of about equal rows: at multiples of
// splitRows when the pieces are that long, so that no slice's validity
// bitmap starts inside a byte (such a view is packed again before a
// kernel reads it).
func pieceSplits(rows, pieces int) []int {
	align := 1
	if rows/pieces >= splitRows {
		align = splitRows
	}
	splits := make([]int, 0, pieces-1)
	for i := 1; i < pieces; i++ {
		at := int(int64(rows)*int64(i)/int64(pieces)) / align * align
		if at > 0 && at < rows && (len(splits) == 0 || at > splits[len(splits)-1]) {
			splits = append(splits, at)
		}
	}
	return splits
}

// retrySplit puts the slices of b in front of the batches still to probe
// and counts the cut; it reports false (leaving err to the caller) when b
// is not to be cut.
func (j *DeviceHashJoin) retrySplit(queue *[]*gpuexec.DeviceBatch, b *gpuexec.DeviceBatch, err error) (bool, error) {
	parts, serr := splitProbe(b, err)
	if serr != nil {
		return false, serr
	}
	if parts == nil {
		return false, nil
	}
	*queue = append(parts, *queue...)
	if j.Stats != nil {
		j.Stats.ProbeSplits.Add(1)
	}
	return true, nil
}
