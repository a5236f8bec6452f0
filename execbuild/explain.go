package execbuild

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/operators"
	"time"

	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/planner"
)

// ExplainAnalyze renders an executed plan with the statistics its
// operators gathered (EXPLAIN ANALYZE).
// A plan with GPU operators ends with the query's waits on the shared
// device: count/time for the context thread, compiles and pool memory.
func (b *Built) ExplainAnalyze(n planner.Node) []string {
	// The body of a CTE a subquery computed while the statement was
	// planned did not run in this tree: its operators show no statistics
	// (the CTE's line says what the subquery's run took).
	notRun := map[planner.Node]bool{}
	var mark func(planner.Node, bool)
	mark = func(n planner.Node, under bool) {
		if under {
			notRun[n] = true
		}
		if r, ok := n.(*planner.CTERef); ok && b.ExpandsCTE(r) {
			if sh := b.shared[r.Key()]; sh != nil {
				if reused, _, _ := sh.Reused(); reused {
					under = true
				}
			}
		}
		for _, in := range n.Inputs() {
			mark(in, under)
		}
	}
	mark(n, false)
	stats := func(n planner.Node) string {
		if notRun[n] {
			return ""
		}
		return b.statistics(n)
	}
	lines := planner.ExplainAnalyzeCTEs(n, stats, b.ExpandsCTE)
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
	if st, ok := b.statsOf(n); ok {
		line += fmt.Sprintf(" rows=%d batches=%d time=%s bytes=%d launches=%d",
			st.Rows.Load(), st.Batches.Load(), st.Duration().Round(time.Microsecond), st.Bytes.Load(), st.Launches.Load())
		// count adds name=n when n is not zero.
		count := func(name string, n int64) {
			if n > 0 {
				line += fmt.Sprintf(" %s=%d", name, n)
			}
		}
		count("cpu_fallback_batches", st.Fallbacks.Load())
		count("hash_partitions", st.HashPartitions.Load())
		count("batch_partials", st.BatchPartials.Load())
		count("probe_splits", st.ProbeSplits.Load())
		count("oom_splits", st.OOMSplits.Load())
		if st.HashedLeft.Load() > 0 {
			line += " hashed=left"
		}
		if st.HostSorts.Load() > 0 {
			line += " keys_sorted=host"
		}
		if st.HostOrders.Load() > 0 {
			line += fmt.Sprintf(" host_order_rows=%d", st.HostOrderRows.Load())
		}
		if st.HostJoins.Load() > 0 {
			line += fmt.Sprintf(" host_join_rows=%d", st.HostJoinRows.Load())
		}
		count("oom_partitions", st.OOMPartitions.Load())
		count("oom_resplits", st.OOMResplits.Load())
		if st.HostJoinOOM.Load() > 0 {
			line += " host_join_oom=1"
		}
		if st.HostGroupOOM.Load() > 0 {
			line += " host_group_oom=1"
		}
		if st.HostAggs.Load() > 0 {
			line += fmt.Sprintf(" host_group_rows=%d", st.HostAggRows.Load())
		}
		if st.HostGroups.Load() > 0 {
			line += " groups_finished=host"
		}
		count("peak_host_bytes", st.PeakHostBytes.Load())
		if p := st.SpillPartitions.Load(); p > 0 {
			line += fmt.Sprintf(" spilled_partitions=%d spilled_bytes=%d", p, st.SpillBytes.Load())
		}
		count("lent_batches", st.LentBatches.Load())
		count("warp_per_row_batches", st.WarpBatches.Load())
		count("tier0_batches", st.Tier0Batches.Load())
		count("tier1_batches", st.Tier1Batches.Load())
		count("library_batches", st.LibraryBatches.Load())
		if w := st.CompileWaitNanos.Load(); w > 0 {
			line += " compile_wait=" + time.Duration(w).Round(time.Microsecond).String()
		}
		if bg := st.CompileBackgroundNanos.Load(); bg > 0 {
			line += " compile_background=" + time.Duration(bg).Round(time.Microsecond).String()
		}
	}
	if note := b.groupsNote(n); note != "" {
		line += note
		if st, ok := b.statsOf(n); ok && st.TopGroups.Load() > 0 {
			line += fmt.Sprintf(" top_groups_kept=%d", st.TopGroups.Load()-1)
		}
	}
	line += b.deviceLine(n)
	if r, ok := n.(*planner.CTERef); ok {
		line += b.cteNote(r)
	}
	if seg := b.Segments[n]; seg != nil {
		line += fmt.Sprintf(" segments=%d segments_skipped=%d", seg.Total, seg.Skipped)
		if seg.Index != "" {
			line += fmt.Sprintf(" batches=%d batches_skipped=%d index=%s", seg.Batches, seg.BatchesSkipped, seg.Index)
		}
	}
	return line
}

// TopNotes returns EXPLAIN's note on each GROUP BY that an ORDER BY ...
// LIMIT (or a LIMIT alone) above lets cut its groups, as the builder
// would note it ("" for every other node), without building the plan.
func TopNotes(root planner.Node) func(planner.Node) string {
	b := &Built{}
	var walk func(n planner.Node)
	walk = func(n planner.Node) {
		if l, ok := n.(*planner.Limit); ok {
			b.noteSortLimit(l)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	return b.groupsNote
}

// groupsNote is the note on a GROUP BY's cut (TopNotes), "" for none.
func (b *Built) groupsNote(n planner.Node) string {
	if t := b.aggTop[n]; t != nil && cuts(t, n) {
		return " " + describeTop(t, n)
	}
	if a, ok := n.(*planner.Aggregate); ok && b.aggLimit[a] > 0 {
		return fmt.Sprintf(" first_groups=%d", b.aggLimit[a])
	}
	return ""
}

// cuts reports whether GROUP BY n makes cut t: a CPU one under the terms
// it ranks (operators.CPUTopCuts), a device one under those it orders by
// (operators.DeviceTop).
func cuts(t *opspec.TopGroups, n planner.Node) bool {
	if t.Agg < 0 && !t.Key {
		return true
	}
	switch a := n.(type) {
	case *planner.Aggregate:
		types := make([]coldata.Type, len(a.Keys))
		for i, k := range a.Keys {
			types[i] = k.Type()
		}
		return operators.CPUTopCuts(t, types, a.Aggs)
	case *planner.DeviceAggregate:
		kinds, err := operators.DeviceAggKinds(a.Aggs)
		if err != nil {
			return false
		}
		types := make([]coldata.Type, a.NKeys)
		for i := range types {
			types[i] = a.Orig.Keys[i].Type()
		}
		return operators.DeviceTop(t, types, a.Aggs, kinds) != nil
	}
	return false
}

// describeTop renders the cut t of GROUP BY n: how many groups, by which
// term (an aggregate or key, by name), how ordered.
func describeTop(t *opspec.TopGroups, n planner.Node) string {
	if t.Agg < 0 && !t.Key {
		return fmt.Sprintf("first_groups=%d", t.Limit)
	}
	var by string
	if t.Key {
		by = fmt.Sprintf("key %d", t.Agg)
		var keys []expr.Expr
		switch a := n.(type) {
		case *planner.DeviceAggregate:
			keys = a.Orig.Keys
		case *planner.Aggregate:
			keys = a.Keys
		}
		if t.Agg < len(keys) {
			by = keys[t.Agg].String()
		}
	} else {
		by = fmt.Sprintf("aggregate %d", t.Agg)
		var names []string
		switch a := n.(type) {
		case *planner.DeviceAggregate:
			names = a.Orig.AggNames
		case *planner.Aggregate:
			names = a.AggNames
		}
		if t.Agg < len(names) {
			by = names[t.Agg]
		}
	}
	dir := "ASC"
	if t.Desc {
		dir = "DESC"
	}
	nulls := "NULLS LAST"
	if t.NullsFirst() {
		nulls = "NULLS FIRST"
	}
	s := fmt.Sprintf("top_groups=%d by=(%s %s %s)", t.Limit, by, dir, nulls)
	if t.Ties {
		s += " with_ties"
	}
	return s
}
