//go:build cuda

package gpuexec

import "testing"

// TestCUDAWindowHashed runs the hashed window's kernels on the GPU
// against the host reference (the fake-device test's cases), at sizes
// past one table attempt's first capacity.
func TestCUDAWindowHashed(t *testing.T) {
	d := cudaDevice(t)
	runWindowHashed(t, d, []int{1, 300, 100_000, 1_000_000})
	requireNoLeak(t, d, "window hashed")
}
