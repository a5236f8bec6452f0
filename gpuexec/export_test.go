package gpuexec

import "testing"

// FakeDevices opens n private devices over fake drivers, ordinals 0 to
// n-1, closed when t ends: for the multi-device tests of the packages
// above gpuexec, which live in this directory's external test package
// (gpuexec_test) because the fake driver exists only in test builds.
// peer says which ordered pairs have peer access (nil: all). It returns
// a function counting each device's direct peer copies so far. Each fake
// takes its calls in turn, as a context thread does.
func FakeDevices(t testing.TB, n int, peer func(from, to int) bool) ([]*Device, func() []int) {
	t.Helper()
	devs := make([]*Device, n)
	fakes := make([]*fakeDriver, n)
	for i := range devs {
		f := newFakeDriver()
		f.ordinal, f.peer, f.serial = i, peer, true
		d, err := newDevice(f, Options{Ordinal: i, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		devs[i], fakes[i] = d, f
		t.Cleanup(func() { d.Close() })
	}
	return devs, func() []int {
		out := make([]int, n)
		for i, f := range fakes {
			f.mu.Lock()
			out[i] = f.peerCopies
			f.mu.Unlock()
		}
		return out
	}
}

// RefusePeers makes a fake device's driver fail to enable peer access
// (CUDA_ERROR_TOO_MANY_PEERS) although the pair has it.
func RefusePeers(d *Device) { d.drv.(*fakeDriver).refusePeers = true }

// InUse is the bytes of device memory the state's pool lends, for leak
// checks from outside the package.
func InUse(d *Device) uint64 { return d.alloc.Stats().InUse }

// SetCopyChunk sets the step of cross-device copies (copyChunk) and
// returns the previous one.
func SetCopyChunk(n uint64) uint64 {
	old := copyChunk
	copyChunk = n
	return old
}

// FakeDatabaseDevice opens a handle on a fake device through a registry,
// as a database does (gsql.Open), so that it counts its own bytes in use
// (Device.InUse) apart from the pool's; closed when t ends.
func FakeDatabaseDevice(t testing.TB, opts Options) *Device {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	d, err := newFakeRegistry().open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// FakeLaunches is the kernels a fake device's driver has launched so far,
// for tests from outside the package that count launches.
func FakeLaunches(d *Device) int64 { return d.drv.(*fakeDriver).gen.Load() }
