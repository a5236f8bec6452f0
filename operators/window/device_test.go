package window

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// TestDeviceAggMode: how the device covers an aggregate's frames, or that
// it leaves the aggregate to the host.
func TestDeviceAggMode(t *testing.T) {
	// Two partitions of four rows: [0,4) and [4,8).
	partStart := []int{0, 0, 0, 0, 4, 4, 4, 4}
	running := []int{0, 0, 0, 0, 4, 4, 4, 4}
	moving := []int{0, 0, 1, 2, 4, 4, 5, 6}
	hi := []int{1, 2, 3, 4, 5, 6, 7, 8}
	for _, tc := range []struct {
		name   string
		k      winspec.Kind
		t      coldata.Type
		lo, hi []int
		want   gpuexec.WindowAggMode
		ok     bool
	}{
		{"count of text", winspec.Count, coldata.String, moving, hi, gpuexec.WindowDiff, true},
		{"sum of bigint, moving", winspec.Sum, coldata.Int64, moving, hi, gpuexec.WindowDiff, true},
		{"avg of boolean", winspec.Avg, coldata.Bool, moving, hi, gpuexec.WindowDiff, true},
		{"sum of double, running", winspec.Sum, coldata.Float64, running, hi, gpuexec.WindowRunning, true},
		{"min of date, running", winspec.Min, coldata.Date, running, hi, gpuexec.WindowRunning, true},
		{"max of double, short moving", winspec.Max, coldata.Float64, moving, hi, gpuexec.WindowLoop, true},
		{"min of text", winspec.Min, coldata.String, running, hi, 0, false},
		{"max of decimal", winspec.Max, coldata.DecimalOf(12, 2), running, hi, 0, false},
	} {
		got, ok := deviceAggMode(tc.k, tc.t, partStart, tc.lo, tc.hi)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: mode %d ok %v, want %d %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A long moving DOUBLE frame: past the loop bound the host sums it.
	n := 1 << 20
	ps, lo, h := make([]int, 4*n), make([]int, 4*n), make([]int, 4*n)
	for i := range lo {
		lo[i], h[i] = max(0, i-1000)+min(i, 1), i+1
	}
	if _, ok := deviceAggMode(winspec.Sum, coldata.Float64, ps, lo, h); ok {
		t.Errorf("a DOUBLE sum over 4M frames of ~1000 rows stayed on the device")
	}
}
