package execbuild

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
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
