package planner

import (
	"fmt"
	"strings"
	"time"
)

// Explain renders a plan as indented lines, one operator per line with the
// device it runs on.
func Explain(n Node) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), n.describe(), placement(n)))
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return lines
}

// ExplainAnalyze renders an executed plan with its statistics.
func ExplainAnalyze(n Node, b *Built) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		line := fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), n.describe(), placement(n))
		if st, ok := b.Stats[n]; ok {
			line += fmt.Sprintf(" rows=%d batches=%d time=%s bytes=%d launches=%d",
				st.Rows.Load(), st.Batches.Load(), st.Duration().Round(time.Microsecond), st.Bytes.Load(), st.Launches.Load())
			if f := st.Fallbacks.Load(); f > 0 {
				line += fmt.Sprintf(" cpu_fallback_batches=%d", f)
			}
			if p := st.HashPartitions.Load(); p > 0 {
				line += fmt.Sprintf(" hash_partitions=%d", p)
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
		lines = append(lines, line)
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return lines
}

// placement is a node's device, with the reason when a node that could run
// on the GPU does not.
func placement(n Node) string {
	if w, ok := n.(interface{ why() string }); ok && w.why() != "" {
		return fmt.Sprintf("%s: %s", n.Placement(), w.why())
	}
	return n.Placement().String()
}
