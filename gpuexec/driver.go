package gpuexec

// DevicePtr is an address in device memory.
type DevicePtr uint64

// Handles the driver hands out; opaque outside it.
type (
	streamH uintptr
	eventH  uintptr
	// sharedEvent is an event any device's stream may wait for.
	sharedEvent uintptr
	moduleH     uintptr
	functionH   uintptr
)

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z int }

// driver is the narrow set of operations the rest of the package needs from
// CUDA. The cuda build implements it with the driver API; tests implement it
// over host memory so that everything above it runs in CI. Every method but
// do, info and close must be called on the context thread (inside do).
type driver interface {
	info() DeviceInfo
	// do runs fn on the context thread; it runs fn directly when called
	// from that thread.
	do(fn func() error) error
	// onThread reports whether the caller runs on the context thread.
	onThread() bool
	// await blocks until done is closed. On the context thread it keeps
	// running the closures submitted meanwhile, so that a goroutine the
	// caller waits for may still hop to the thread (a compile's module
	// load) instead of deadlocking.
	await(done <-chan struct{})
	close() error

	memAlloc(size uint64) (DevicePtr, error)
	memFree(p DevicePtr, size uint64) error
	hostAlloc(n int) ([]byte, error) // page-locked host memory
	hostFree(b []byte) error
	// hostRegister page-locks memory the caller allocated (the result
	// pool's slabs), hostUnregister undoes it; the memory itself stays.
	hostRegister(b []byte) error
	hostUnregister(b []byte) error

	h2d(dst DevicePtr, src []byte, s streamH) error
	d2h(dst []byte, src DevicePtr, s streamH) error
	d2d(dst, src DevicePtr, n uint64, s streamH) error
	memset8(dst DevicePtr, v byte, n uint64, s streamH) error

	newStream() (streamH, error)
	syncStream(s streamH) error
	destroyStream(s streamH) error
	newEvent() (eventH, error)
	recordEvent(e eventH, s streamH) error
	syncEvent(e eventH) error
	// waitEvent makes stream s wait for e's work before what comes next.
	waitEvent(s streamH, e eventH) error
	elapsed(start, end eventH) (float32, error) // milliseconds
	destroyEvent(e eventH) error
	// recordShared records on stream s a new event marking the work queued
	// there so far; any driver's stream may wait for it (a CUDA event of
	// one context can be waited for by another's streams).
	recordShared(s streamH) (sharedEvent, error)
	// waitShared makes stream s wait for e, recorded by any driver,
	// before what comes next; no host thread waits.
	waitShared(s streamH, e sharedEvent) error
	// destroyShared frees e, on the driver that recorded it (CUDA frees it
	// once its work completes).
	destroyShared(e sharedEvent) error
	syncDevice() error

	// nvrtcVersion is "major.minor" of the loaded NVRTC, or an error wrapping
	// ErrNVRTC when it cannot be loaded.
	nvrtcVersion() (string, error)
	// compile turns CUDA C source into a CUBIN (cubin true) or PTX image for
	// compute capability arch (e.g. 90).
	compile(name, src string, opts []string, arch int) (image []byte, cubin bool, err error)
	// link links relocatable images (CUBIN where cubin[i], else PTX) into
	// one CUBIN; it runs on the context thread.
	link(images [][]byte, cubin []bool) ([]byte, error)
	loadModule(image []byte) (moduleH, error)
	unloadModule(m moduleH) error
	function(m moduleH, name string) (functionH, error)
	// launch starts f; args are the kernel's parameters, each passed in an
	// 8-byte slot whose low bytes hold the value (size is 4 or 8).
	launch(f functionH, grid, block Dim3, shmem int, s streamH, args []uint64, sizes []uint8) error

	// canAccessPeer reports whether this device can read and write peer's
	// memory directly (NVLink or PCIe peer-to-peer). Any thread.
	canAccessPeer(peer driver) (bool, error)
	// enablePeer maps peer's memory into this device's context, so that
	// peerCopy from here runs device to device; enabling twice is not
	// an error. Context thread.
	enablePeer(peer driver) error
	// peerCopy queues a copy of n bytes from src on this device to dst on
	// peer on stream s of this device. Context thread (of this device).
	peerCopy(dst DevicePtr, peer driver, src DevicePtr, n uint64, s streamH) error
}
