package planner

import (
	"github.com/gsqlengine/gsql/opspec"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
)

// TestAllOnCPU checks the test that keeps the operators which read their
// input on other goroutines (the parallel join probe, ParallelCompute
// over a join) away from inputs with device operators.
func TestAllOnCPU(t *testing.T) {
	scan := func(d Device) *Scan { return &Scan{placed: placed{Dev: d}, Table: &catalog.Table{}} }
	join := func(l, r Node, d Device) *Join {
		return &Join{placed: placed{Dev: d}, Left: l, Right: r, Kind: opspec.InnerJoin}
	}
	for _, tc := range []struct {
		name string
		n    Node
		want bool
	}{
		{"cpu scan", scan(CPU), true},
		{"gpu scan", scan(GPU), false},
		{"cpu join of cpu scans", join(scan(CPU), scan(CPU), CPU), true},
		{"cpu join over a gpu scan", join(scan(CPU), scan(GPU), CPU), false},
		{"filter over a cpu join over a gpu scan", &Filter{placed: placed{Dev: CPU}, Input: join(scan(GPU), scan(CPU), CPU)}, false},
	} {
		if got := allOnCPU(tc.n); got != tc.want {
			t.Errorf("%s: allOnCPU = %v, want %v", tc.name, got, tc.want)
		}
	}
}
