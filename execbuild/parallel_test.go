package execbuild

import (
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/planner"
)

// TestAllOnCPU checks the test that keeps the operators which read their
// input on other goroutines (the parallel join probe, ParallelCompute
// over a join) away from inputs with device operators.
func TestAllOnCPU(t *testing.T) {
	scan := func(d planner.Device) *planner.Scan {
		s := &planner.Scan{Table: &catalog.Table{}}
		s.Dev = d
		return s
	}
	join := func(l, r planner.Node, d planner.Device) *planner.Join {
		j := &planner.Join{Left: l, Right: r, Kind: opspec.InnerJoin}
		j.Dev = d
		return j
	}
	for _, tc := range []struct {
		name string
		n    planner.Node
		want bool
	}{
		{"cpu scan", scan(planner.CPU), true},
		{"gpu scan", scan(planner.GPU), false},
		{"cpu join of cpu scans", join(scan(planner.CPU), scan(planner.CPU), planner.CPU), true},
		{"cpu join over a gpu scan", join(scan(planner.CPU), scan(planner.GPU), planner.CPU), false},
		{"filter over a cpu join over a gpu scan", &planner.Filter{Input: join(scan(planner.GPU), scan(planner.CPU), planner.CPU)}, false},
	} {
		if got := allOnCPU(tc.n); got != tc.want {
			t.Errorf("%s: allOnCPU = %v, want %v", tc.name, got, tc.want)
		}
	}
}
