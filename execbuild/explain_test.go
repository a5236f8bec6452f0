package execbuild

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// EXPLAIN ANALYZE of a plan with GPU operators ends with the query's waits
// on the shared device; a CPU plan has no such line.
func TestExplainAnalyzeWaits(t *testing.T) {
	field := regexp.MustCompile(`^gpu waits: context_thread=(\d+)/(\S+) compile=(\d+)/(\S+) pool_memory=(\d+)/(\S+)$`)
	node := func(dev planner.Device) planner.Node {
		v := &planner.Values{Out: []planner.Column{{Name: "x", Type: coldata.Int64}}}
		v.Dev = dev
		return v
	}
	tests := []struct {
		name  string
		dev   planner.Device
		waits *gpuexec.Waits
		want  bool
	}{
		{"gpu plan", planner.GPU, &gpuexec.Waits{}, true},
		{"cpu plan", planner.CPU, &gpuexec.Waits{}, false},
		{"no device", planner.GPU, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &Built{Waits: tc.waits}
			lines := b.ExplainAnalyze(node(tc.dev))
			last := lines[len(lines)-1]
			m := field.FindStringSubmatch(last)
			if (m != nil) != tc.want {
				t.Fatalf("last line %q, want waits %v", last, tc.want)
			}
			for i := 2; m != nil && i < len(m); i += 2 {
				if d, err := time.ParseDuration(m[i]); err != nil || d < 0 {
					t.Fatalf("time %q in %q", m[i], last)
				}
			}
			if !tc.want && strings.Contains(strings.Join(lines, "\n"), "gpu waits") {
				t.Fatalf("waits shown: %q", lines)
			}
		})
	}
}

// A device join partitioned after a build OOM says how many partitions,
// and that some joined on the host; per-device copies show the most
// partitions any copy made.
func TestExplainOOMPartitions(t *testing.T) {
	v := &planner.Values{Out: []planner.Column{{Name: "x", Type: coldata.Int64}}}
	st := &operators.Stats{}
	st.OOMPartitions.Store(8)
	st.HostJoinOOM.Store(1)
	st.HostGroupOOM.Store(1)
	st.OOMResplits.Store(3)
	b := &Built{Stats: map[planner.Node]*operators.Stats{v: st}}
	line := b.statistics(v)
	for _, want := range []string{" oom_partitions=8", " oom_resplits=3", " host_join_oom=1", " host_group_oom=1"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	a, c := &operators.Stats{}, &operators.Stats{}
	a.OOMPartitions.Store(4)
	c.OOMPartitions.Store(16)
	if n := operators.MergeStats([]*operators.Stats{a, nil, c}).OOMPartitions.Load(); n != 16 {
		t.Errorf("merged oom_partitions=%d, want 16", n)
	}
	if line := (&Built{Stats: map[planner.Node]*operators.Stats{v: {}}}).statistics(v); strings.Contains(line, "oom_partitions") {
		t.Errorf("%q shows partitions of a join that made none", line)
	}
}
