package gpuexec

import (
	"fmt"
	"syscall"
)

// mapHost maps n bytes of anonymous memory outside the Go heap: the result
// pool page-locks it with cuMemHostRegister, and because the mapping is ours
// rather than the driver's it outlives the CUDA context, so records that
// still point into it after the device is closed stay readable.
func mapHost(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("gpu: map %d bytes of host memory: %w", n, err)
	}
	// Huge pages make page-locking a large slab thousands of faults
	// cheaper; the kernel may decline, which costs only speed.
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return b, nil
}

func unmapHost(b []byte) error {
	if err := syscall.Munmap(b); err != nil {
		return fmt.Errorf("gpu: unmap %d bytes of host memory: %w", len(b), err)
	}
	return nil
}
