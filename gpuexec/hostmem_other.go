//go:build !linux

package gpuexec

// mapHost falls back to Go memory off Linux; the CUDA build
// runs on Linux only, so this serves the fake driver's tests.
func mapHost(n int) ([]byte, error) { return make([]byte, n), nil }

func unmapHost(b []byte) error { return nil }
