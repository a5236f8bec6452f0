//go:build !cuda

package gpuexec

// Compiled is false in a build without the cuda tag.
const Compiled = false

func newDriver(Options) (driver, error) { return nil, ErrNoCUDA }

// Available reports whether a GPU can be used: always ErrNoCUDA here.
func Available() error { return ErrNoCUDA }

// DeviceCount is the number of CUDA devices: ErrNoCUDA here.
func DeviceCount() (int, error) { return 0, ErrNoCUDA }
