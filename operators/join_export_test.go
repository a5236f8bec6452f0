package operators

// SetJoinPartitioning sets the sizes at which a hash join partitions its
// build side (see join_partition.go), so that tests run the partitioned
// path on small inputs: build sides of at least minRows rows are
// partitioned, into partitions of about rowsPerPart rows, and probed with
// at least probeRows rows per goroutine. It returns a function restoring
// the previous sizes.
func SetJoinPartitioning(minRows, rowsPerPart, probeRows int) (restore func()) {
	m, r, p := joinPartitionMinRows, joinPartitionRows, joinPartitionProbeRows
	joinPartitionMinRows, joinPartitionRows, joinPartitionProbeRows = minRows, rowsPerPart, probeRows
	return func() { joinPartitionMinRows, joinPartitionRows, joinPartitionProbeRows = m, r, p }
}

// SetJoinGatherRows sets the fewest output rows per goroutine when a join
// gathers its output or evaluates its residual condition in parallel. It
// returns a function restoring the previous value.
func SetJoinGatherRows(rows int) (restore func()) {
	old := joinGatherRows
	joinGatherRows = rows
	return func() { joinGatherRows = old }
}

// SetProbeWorkers sets the number of goroutines that probe a hash join's
// left batches. It returns a function restoring the previous setting.
func SetProbeWorkers(n int) (restore func()) {
	old := probeWorkers
	probeWorkers = func() int { return n }
	return func() { probeWorkers = old }
}
