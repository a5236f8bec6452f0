package gpuexec

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Background compiles under load. A query the interpreter serves started
// the compile of its own kernels in the background, to run them next
// time. A stream of one-off shapes (a test corpus, a notebook) then kept
// NVRTC busy on kernels that never run: sixteen processes of the
// sqllogictest corpus queued 9,284 compiles and starved the queries of
// the host's cores. Two rules bound it: a filter and projection shape
// compiles in the background only when it is asked for a second time in
// the process or meets a batch large enough to pay for it
// (operators.DeviceCompute), and the background compiles of every process
// on the host share compileWorkers() slots, flock'ed files beside the
// kernel cache (the kernel releases a dead process's slot). A compile a
// query waits for takes no slot.

// repeatedLimit bounds the shapes remembered; past it the memory starts
// over (a shape seen once long ago is as good as new).
const repeatedLimit = 1 << 16

// Repeated reports whether key (a kernel shape) was asked for before in
// this process, and remembers it.
func (d *Device) Repeated(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil || len(d.seen) >= repeatedLimit {
		d.seen = map[string]struct{}{}
	}
	_, ok := d.seen[key]
	d.seen[key] = struct{}{}
	return ok
}

// hostCompileSlot takes one of the host's background compile slots,
// waiting for one to free, and returns its release. Without a kernel
// cache directory the compile goes ahead unbounded, as before.
func (d *Device) hostCompileSlot() (release func()) {
	none := func() {}
	dir, err := d.cacheDir()
	if err != nil || d.opts.NoDiskCache {
		return none
	}
	dir = filepath.Join(dir, "compile-slots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return none
	}
	n := compileWorkers()
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		for i := 0; i < n; i++ {
			f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("slot-%d", i)), os.O_CREATE|os.O_RDWR, 0o644)
			if err != nil {
				return none
			}
			got, err := tryLock(f)
			if err != nil {
				f.Close()
				return none
			}
			if got {
				return func() {
					unlockFile(f)
					f.Close()
				}
			}
			f.Close()
		}
		if d.isClosed() {
			return none
		}
		time.Sleep(wait)
	}
}
