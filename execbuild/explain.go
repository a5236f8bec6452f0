package execbuild

import (
	"fmt"
	"time"

	"github.com/gsqlengine/gsql/planner"
)

// ExplainAnalyze renders an executed plan with the statistics its
// operators gathered (EXPLAIN ANALYZE).
// A plan with GPU operators ends with the query's waits on the shared
// device: count/time for the context thread, compiles and pool memory.
func (b *Built) ExplainAnalyze(n planner.Node) []string {
	lines := planner.ExplainAnalyze(n, b.statistics)
	if b.Waits != nil && hasGPUNode(n) {
		lines = append(lines, b.Waits.String())
	}
	return lines
}

// hasGPUNode reports whether any node of the plan runs on the GPU.
func hasGPUNode(n planner.Node) bool {
	if n.Placement() == planner.GPU {
		return true
	}
	for _, in := range n.Inputs() {
		if hasGPUNode(in) {
			return true
		}
	}
	return false
}

// statistics is the EXPLAIN ANALYZE text of node n: rows, batches, time,
// bytes and launches, then the counters that are not zero.
func (b *Built) statistics(n planner.Node) string {
	line := ""
	if st, ok := b.Stats[n]; ok {
		line += fmt.Sprintf(" rows=%d batches=%d time=%s bytes=%d launches=%d",
			st.Rows.Load(), st.Batches.Load(), st.Duration().Round(time.Microsecond), st.Bytes.Load(), st.Launches.Load())
		if f := st.Fallbacks.Load(); f > 0 {
			line += fmt.Sprintf(" cpu_fallback_batches=%d", f)
		}
		if p := st.HashPartitions.Load(); p > 0 {
			line += fmt.Sprintf(" hash_partitions=%d", p)
		}
		if st.HashedLeft.Load() > 0 {
			line += " hashed=left"
		}
		if n := st.StateBytes.Load(); n > 0 {
			line += fmt.Sprintf(" state_bytes=%d", n)
		}
		if p := st.SpillPartitions.Load(); p > 0 {
			line += fmt.Sprintf(" spilled_partitions=%d spilled_bytes=%d", p, st.SpillBytes.Load())
		}
		if w := st.WarpBatches.Load(); w > 0 {
			line += fmt.Sprintf(" warp_per_row_batches=%d", w)
		}
		for _, c := range []struct {
			name string
			n    int64
		}{{"tier0_batches", st.Tier0Batches.Load()}, {"tier1_batches", st.Tier1Batches.Load()}, {"library_batches", st.LibraryBatches.Load()}} {
			if c.n > 0 {
				line += fmt.Sprintf(" %s=%d", c.name, c.n)
			}
		}
		if w := st.CompileWaitNanos.Load(); w > 0 {
			line += " compile_wait=" + time.Duration(w).Round(time.Microsecond).String()
		}
		if bg := st.CompileBackgroundNanos.Load(); bg > 0 {
			line += " compile_background=" + time.Duration(bg).Round(time.Microsecond).String()
		}
	}
	if seg := b.Segments[n]; seg != nil {
		line += fmt.Sprintf(" segments=%d segments_skipped=%d", seg.Total, seg.Skipped)
		if seg.Index != "" {
			line += fmt.Sprintf(" batches=%d batches_skipped=%d index=%s", seg.Batches, seg.BatchesSkipped, seg.Index)
		}
	}
	return line
}
