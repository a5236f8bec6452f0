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
		lines = append(lines, fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), n.describe(), n.Placement()))
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
		line := fmt.Sprintf("%s%s [%s]", strings.Repeat("  ", depth), n.describe(), n.Placement())
		if st, ok := b.Stats[n]; ok {
			line += fmt.Sprintf(" rows=%d batches=%d time=%s bytes=%d launches=%d",
				st.Rows.Load(), st.Batches.Load(), st.Duration().Round(time.Microsecond), st.Bytes.Load(), st.Launches.Load())
			if f := st.Fallbacks.Load(); f > 0 {
				line += fmt.Sprintf(" cpu_fallback_batches=%d", f)
			}
			if w := st.WarpBatches.Load(); w > 0 {
				line += fmt.Sprintf(" warp_per_row_batches=%d", w)
			}
		}
		if seg := b.Segments[n]; seg != nil {
			line += fmt.Sprintf(" segments=%d segments_skipped=%d", seg.Total, seg.Skipped)
		}
		lines = append(lines, line)
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return lines
}
