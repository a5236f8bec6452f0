package gpuexec

import (
	"sync"
	"testing"
	"time"
)

// TestFakeSharedImages: the GPUs of a process that miss one kernel at
// once compile it once; each loads the image into its own context. A
// device of another architecture compiles its own, and so does one
// without a disk cache when nobody else is compiling.
func TestFakeSharedImages(t *testing.T) {
	type dev struct {
		d *Device
		f *fakeDriver
	}
	var devs []dev
	for i, o := range []Options{{}, {}, {NoDiskCache: true}, {}} {
		o.Ordinal, o.CacheDir = i, t.TempDir() // each its own cache directory
		f := newFakeDriver()
		f.delay = 50 * time.Millisecond
		if i == 3 {
			f.major = 8
		}
		d, err := newDevice(f, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		devs = append(devs, dev{d, f})
	}
	src := Source{Name: "shared.cu", Code: `extern "C" __global__ void gsql_shared_probe() {}`}
	mods := make([]*Module, len(devs))
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for i, x := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mods[i], errs[i] = x.d.Compile(src)
		}()
	}
	wg.Wait()
	compiles, shared := 0, uint64(0)
	for i, x := range devs {
		if errs[i] != nil {
			t.Fatalf("device %d: %v", i, errs[i])
		}
		if _, err := mods[i].Kernel("gsql_shared_probe"); err != nil {
			t.Errorf("device %d: %v", i, err)
		}
		x.f.mu.Lock()
		compiles += x.f.compiles
		x.f.mu.Unlock()
		shared += x.d.Stats().SharedImageHits
	}
	// One compile for the three sm_90 devices, one for the sm_80 one.
	if compiles != 2 || shared != 2 {
		t.Errorf("%d compiles and %d shared images, want 2 and 2", compiles, shared)
	}
	if got := devs[3].d.Stats().SharedImageHits; got != 0 {
		t.Errorf("the sm_80 device loaded %d images made for sm_90", got)
	}
	// Later, with nobody compiling, a device without a disk cache or
	// memory entry compiles again (nothing is kept past the flight).
	devs[2].d.DropMemoryCache()
	if _, err := devs[2].d.Compile(src); err != nil {
		t.Fatal(err)
	}
	devs[2].f.mu.Lock()
	defer devs[2].f.mu.Unlock()
	if devs[2].f.compiles == 0 {
		t.Errorf("device 2 compiled nothing after its memory cache was dropped")
	}
}
