//go:build cuda

package gpuexec

import "testing"

// TestCUDASortRows orders rows on the GPU (the CUDA kernels) and compares
// them with a stable sort on the host, as TestFakeSortRows does with the
// Go twins, up to 2^20 rows.
func TestCUDASortRows(t *testing.T) {
	d := cudaDevice(t)
	runSortRowsCases(t, d, []int{1, 7, 5000, 1 << 20})
	requireNoLeak(t, d, "sorted rows")
}
