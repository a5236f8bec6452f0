//go:build cuda

package gpuexec

/*
#cgo LDFLAGS: -lcuda -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>

// gorgonia.org/cu calls cuInit in a package init and exits the process when
// it fails. This definition interposes on libcuda's cuInit (a symbol of the
// executable wins over the shared library's): it records the real result
// and reports success, so the process survives and NewDevice can say why
// the GPU is unusable. Every later driver call still fails as the driver
// decides (CUDA_ERROR_NOT_INITIALIZED), and NewDevice refuses to start first.
static CUresult gsql_init_result = CUDA_SUCCESS;
static int gsql_init_called = 0;

CUresult cuInit(unsigned int flags) {
	typedef CUresult (*init_fn)(unsigned int);
	init_fn real = (init_fn)dlsym(RTLD_NEXT, "cuInit");
	gsql_init_called = 1;
	if (real == NULL) {
		gsql_init_result = CUDA_ERROR_NOT_FOUND;
		return CUDA_SUCCESS;
	}
	gsql_init_result = real(flags);
	return CUDA_SUCCESS;
}

static int gsql_init_status(int* called) { *called = gsql_init_called; return (int)gsql_init_result; }

static const char* gsql_error_name(CUresult r) {
	const char* s = NULL;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL) return "";
	return s;
}

static const char* gsql_error_string(CUresult r) {
	const char* s = NULL;
	if (cuGetErrorString(r, &s) != CUDA_SUCCESS || s == NULL) return "";
	return s;
}

static CUresult gsql_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
		unsigned bx, unsigned by, unsigned bz, unsigned shmem, CUstream s,
		unsigned long long* vals, int n) {
	void* ptrs[512];
	if (n > 512) return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < n; i++) ptrs[i] = &vals[i];
	return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, s, n ? ptrs : NULL, NULL);
}

// gsql_link links relocatable images (CUBIN, or PTX where kinds[i] is 0)
// into one CUBIN; *out is malloc'd. The linker's error log lands in log.
static CUresult gsql_link(int n, void** imgs, size_t* sizes, int* kinds, void** out, size_t* outSize,
		char* log, size_t logCap, int* step) {
	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void* vals[2] = {log, (void*)logCap};
	CUlinkState st;
	*step = 0;
	CUresult r = cuLinkCreate(2, opts, vals, &st);
	if (r != CUDA_SUCCESS) return r;
	for (int i = 0; i < n && r == CUDA_SUCCESS; i++) {
		*step = 1;
		r = cuLinkAddData(st, kinds[i] ? CU_JIT_INPUT_CUBIN : CU_JIT_INPUT_PTX, imgs[i], sizes[i], "part", 0, NULL, NULL);
	}
	if (r == CUDA_SUCCESS) {
		void* img = NULL;
		size_t sz = 0;
		*step = 2;
		r = cuLinkComplete(st, &img, &sz);
		if (r == CUDA_SUCCESS) {
			*out = malloc(sz);
			if (*out == NULL) r = CUDA_ERROR_OUT_OF_MEMORY;
			else { memcpy(*out, img, sz); *outSize = sz; }
		}
	}
	cuLinkDestroy(st);
	return r;
}

static CUresult gsql_host_alloc(void** p, size_t n) { return cuMemHostAlloc(p, n, 0); }
static CUresult gsql_host_register(void* p, size_t n) { return cuMemHostRegister(p, n, 0); }

// NVRTC, loaded with dlopen so that no libnvrtc is needed at link time and
// one binary runs against whichever CUDA the machine has.
typedef int nvrtcResult;
typedef struct _nvrtcProgram* nvrtcProgram;

static void* nvrtc_lib = NULL;
static nvrtcResult (*p_nvrtcVersion)(int*, int*);
static const char* (*p_nvrtcGetErrorString)(nvrtcResult);
static nvrtcResult (*p_nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
static nvrtcResult (*p_nvrtcDestroyProgram)(nvrtcProgram*);
static nvrtcResult (*p_nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
static nvrtcResult (*p_nvrtcGetPTXSize)(nvrtcProgram, size_t*);
static nvrtcResult (*p_nvrtcGetPTX)(nvrtcProgram, char*);
static nvrtcResult (*p_nvrtcGetCUBINSize)(nvrtcProgram, size_t*);
static nvrtcResult (*p_nvrtcGetCUBIN)(nvrtcProgram, char*);
static nvrtcResult (*p_nvrtcGetProgramLogSize)(nvrtcProgram, size_t*);
static nvrtcResult (*p_nvrtcGetProgramLog)(nvrtcProgram, char*);
static nvrtcResult (*p_nvrtcGetNumSupportedArchs)(int*);
static nvrtcResult (*p_nvrtcGetSupportedArchs)(int*);

// gsql_preload keeps a library (NVRTC's builtins) loaded and global so that
// NVRTC's own dlopen of it by name finds it.
static int gsql_preload(const char* path) {
	return dlopen(path, RTLD_NOW | RTLD_GLOBAL) != NULL ? 0 : -1;
}

static const char* gsql_dlerror(void) { const char* e = dlerror(); return e ? e : ""; }

// gsql_nvrtc_open loads NVRTC from path; returns 0, or -1 (dlopen failed)
// or -2 (a required symbol is missing).
static int gsql_nvrtc_open(const char* path) {
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) return -1;
#define SYM(name) *(void**)(&p_##name) = dlsym(h, #name)
	SYM(nvrtcVersion); SYM(nvrtcGetErrorString); SYM(nvrtcCreateProgram); SYM(nvrtcDestroyProgram);
	SYM(nvrtcCompileProgram); SYM(nvrtcGetPTXSize); SYM(nvrtcGetPTX); SYM(nvrtcGetCUBINSize);
	SYM(nvrtcGetCUBIN); SYM(nvrtcGetProgramLogSize); SYM(nvrtcGetProgramLog);
	SYM(nvrtcGetNumSupportedArchs); SYM(nvrtcGetSupportedArchs);
#undef SYM
	if (!p_nvrtcVersion || !p_nvrtcCreateProgram || !p_nvrtcDestroyProgram || !p_nvrtcCompileProgram ||
	    !p_nvrtcGetPTXSize || !p_nvrtcGetPTX || !p_nvrtcGetProgramLogSize || !p_nvrtcGetProgramLog) {
		dlclose(h);
		return -2;
	}
	nvrtc_lib = h;
	return 0;
}

static int gsql_nvrtc_version(int* major, int* minor) { return p_nvrtcVersion(major, minor); }
static const char* gsql_nvrtc_error(nvrtcResult r) { return p_nvrtcGetErrorString ? p_nvrtcGetErrorString(r) : ""; }
static int gsql_nvrtc_has_cubin(void) { return p_nvrtcGetCUBIN != NULL && p_nvrtcGetCUBINSize != NULL; }

static int gsql_nvrtc_archs(int* out, int max) {
	int n = 0;
	if (!p_nvrtcGetNumSupportedArchs || !p_nvrtcGetSupportedArchs) return 0;
	if (p_nvrtcGetNumSupportedArchs(&n) != 0 || n <= 0 || n > max) return 0;
	if (p_nvrtcGetSupportedArchs(out) != 0) return 0;
	return n;
}

// gsql_nvrtc_compile compiles src; on success *image/*size hold a malloc'd
// CUBIN (want_cubin) or PTX; *log always holds a malloc'd log (or NULL).
// Returns the nvrtcResult of the first failing step, and in *step which.
static int gsql_nvrtc_compile(const char* src, const char* name, int nopts, const char** opts,
		int want_cubin, char** image, size_t* size, char** log, int* step) {
	nvrtcProgram prog = NULL;
	*image = NULL; *size = 0; *log = NULL; *step = 0;
	int r = p_nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
	if (r != 0) { *step = 1; return r; }
	int cr = p_nvrtcCompileProgram(prog, nopts, opts);
	size_t ls = 0;
	if (p_nvrtcGetProgramLogSize(prog, &ls) == 0 && ls > 1) {
		*log = (char*)malloc(ls);
		if (*log && p_nvrtcGetProgramLog(prog, *log) != 0) { free(*log); *log = NULL; }
	}
	if (cr != 0) { p_nvrtcDestroyProgram(&prog); *step = 2; return cr; }
	if (want_cubin) {
		r = p_nvrtcGetCUBINSize(prog, size);
		if (r == 0) { *image = (char*)malloc(*size); r = *image ? p_nvrtcGetCUBIN(prog, *image) : 1; }
	} else {
		r = p_nvrtcGetPTXSize(prog, size);
		if (r == 0) { *image = (char*)malloc(*size); r = *image ? p_nvrtcGetPTX(prog, *image) : 1; }
	}
	p_nvrtcDestroyProgram(&prog);
	if (r != 0) { free(*image); *image = NULL; *step = 3; return r; }
	return 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"gorgonia.org/cu"
)

// Compiled is true in a build with the cuda tag.
const Compiled = true

// initError reports whether the CUDA driver initialised (see the cuInit
// interposer in cuda_cgo.go).
func initError() error {
	var called C.int
	r := C.gsql_init_status(&called)
	if called == 0 {
		return fmt.Errorf("%w: the CUDA driver was never initialised", ErrNoDevice)
	}
	if r != C.CUDA_SUCCESS {
		ce := cuErr("cuInit", C.CUresult(r))
		return fmt.Errorf("%w: %v (is an NVIDIA GPU and driver present? this binary was built with -tags cuda; without the tag gsql runs on the CPU)", ErrNoDevice, ce)
	}
	return nil
}

// Available reports whether a GPU can be used: nil, or an error wrapping
// ErrNoDevice that says why not.
func Available() error {
	_, err := DeviceCount()
	return err
}

// DeviceCount is the number of CUDA devices.
func DeviceCount() (int, error) {
	if err := initError(); err != nil {
		return 0, err
	}
	n, err := cu.NumDevices()
	if err != nil {
		return 0, fmt.Errorf("%w: cuDeviceGetCount: %v", ErrNoDevice, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: the driver reports no devices", ErrNoDevice)
	}
	return n, nil
}

func cuErr(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	e := &CUDAError{Call: call, Code: int(r), Name: C.GoString(C.gsql_error_name(r)), Detail: C.GoString(C.gsql_error_string(r))}
	if e.Name == "" {
		// cuGetErrorName fails when the driver itself is unusable.
		e.Name = knownResults[int(r)]
	}
	return e
}

// knownResults names the results seen when no driver can be used.
var knownResults = map[int]string{
	34:  "CUDA_ERROR_STUB_LIBRARY (the libcuda.so.1 found is the link stub, not a driver)",
	35:  "CUDA_ERROR_INSUFFICIENT_DRIVER",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	999: "CUDA_ERROR_UNKNOWN",
}

// wrapCu names the call in an error from gorgonia.org/cu, whose result
// type is an integer CUresult.
func wrapCu(call string, err error) error {
	if err == nil {
		return nil
	}
	code := -1
	var n int
	if _, e := fmt.Sscanf(fmt.Sprintf("%d", err), "%d", &n); e == nil {
		code = n
		return cuErr(call, C.CUresult(n))
	}
	return &CUDAError{Call: call, Code: code, Detail: err.Error()}
}

type cudaDriver struct {
	inf  DeviceInfo
	work chan func()
	tid  int
	ctx  cu.CUContext
	dev  cu.Device
	// raw is ctx as the C API names it (peer copies name both contexts).
	raw C.CUcontext

	// Handle tables: only the context thread touches them.
	nextH     uintptr
	streams   map[streamH]C.CUstream
	events    map[eventH]C.CUevent
	modules   map[moduleH]C.CUmodule
	functions map[functionH]C.CUfunction

	nvrtcOnce sync.Once
	nvrtcVer  string
	nvrtcErr  error

	closeOnce sync.Once
	done      chan struct{}
}

func newDriver(opts Options) (driver, error) {
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	if opts.Ordinal < 0 || opts.Ordinal >= n {
		return nil, fmt.Errorf("%w: device %d requested, %d present", ErrNoDevice, opts.Ordinal, n)
	}
	c := &cudaDriver{
		work: make(chan func()), done: make(chan struct{}),
		streams: map[streamH]C.CUstream{}, events: map[eventH]C.CUevent{},
		modules: map[moduleH]C.CUmodule{}, functions: map[functionH]C.CUfunction{},
	}
	ready := make(chan error, 1)
	go c.loop(opts.Ordinal, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// loop is the context thread: it owns the primary context of the device
// and runs submitted closures until close.
func (c *cudaDriver) loop(ordinal int, ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.tid = syscall.Gettid()
	err := func() error {
		dev, err := cu.GetDevice(ordinal)
		if err != nil {
			return wrapCu("cuDeviceGet", err)
		}
		c.dev = dev
		if c.ctx, err = dev.RetainPrimaryCtx(); err != nil {
			return wrapCu("cuDevicePrimaryCtxRetain", err)
		}
		if err := cu.SetCurrentContext(c.ctx); err != nil {
			return wrapCu("cuCtxSetCurrent", err)
		}
		if err := cuErr("cuCtxGetCurrent", C.cuCtxGetCurrent(&c.raw)); err != nil {
			return err
		}
		c.inf.Ordinal = ordinal
		if c.inf.Name, err = dev.Name(); err != nil {
			return wrapCu("cuDeviceGetName", err)
		}
		for _, a := range []struct {
			attr cu.DeviceAttribute
			dst  *int
		}{{cu.ComputeCapabilityMajor, &c.inf.Major}, {cu.ComputeCapabilityMinor, &c.inf.Minor}, {cu.MultiprocessorCount, &c.inf.SMs}} {
			if *a.dst, err = dev.Attribute(a.attr); err != nil {
				return wrapCu("cuDeviceGetAttribute", err)
			}
		}
		mem, err := dev.TotalMem()
		if err != nil {
			return wrapCu("cuDeviceTotalMem", err)
		}
		c.inf.TotalMemory = uint64(mem)
		c.inf.DriverVersion = cu.Version()
		return nil
	}()
	ready <- err
	if err != nil {
		return
	}
	for fn := range c.work {
		fn()
	}
	close(c.done)
}

func (c *cudaDriver) info() DeviceInfo { return c.inf }

func (c *cudaDriver) onThread() bool { return syscall.Gettid() == c.tid }

func (c *cudaDriver) await(done <-chan struct{}) {
	if !c.onThread() {
		<-done
		return
	}
	for {
		select {
		case <-done:
			return
		case fn, ok := <-c.work:
			if !ok {
				<-done
				return
			}
			fn()
		}
	}
}

func (c *cudaDriver) do(fn func() error) error {
	if c.onThread() {
		// A goroutine locked to a thread is the only one that runs on it:
		// this is the context thread already.
		return fn()
	}
	errc := make(chan error, 1)
	select {
	case c.work <- func() { errc <- fn() }:
	case <-c.done:
		return ErrClosed
	}
	return <-errc
}

func (c *cudaDriver) close() error {
	var err error
	c.closeOnce.Do(func() {
		err = c.do(func() error {
			return wrapCu("cuDevicePrimaryCtxRelease", c.dev.ReleasePrimaryCtx())
		})
		close(c.work)
		<-c.done
	})
	return err
}

func (c *cudaDriver) handle() uintptr { c.nextH++; return c.nextH }

func (c *cudaDriver) memAlloc(size uint64) (DevicePtr, error) {
	var p C.CUdeviceptr
	if err := cuErr("cuMemAlloc", C.cuMemAlloc(&p, C.size_t(size))); err != nil {
		return 0, fmt.Errorf("%w (%d bytes)", err, size)
	}
	return DevicePtr(p), nil
}

func (c *cudaDriver) memFree(p DevicePtr, size uint64) error {
	return cuErr("cuMemFree", C.cuMemFree(C.CUdeviceptr(p)))
}

func (c *cudaDriver) hostAlloc(n int) ([]byte, error) {
	if n <= 0 {
		return nil, invalidf("host allocation of %d bytes", n)
	}
	var p unsafe.Pointer
	if err := cuErr("cuMemHostAlloc", C.gsql_host_alloc(&p, C.size_t(n))); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), n), nil
}

func (c *cudaDriver) hostFree(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return cuErr("cuMemFreeHost", C.cuMemFreeHost(unsafe.Pointer(&b[0])))
}

func (c *cudaDriver) hostRegister(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return cuErr("cuMemHostRegister", C.gsql_host_register(unsafe.Pointer(&b[0]), C.size_t(len(b))))
}

func (c *cudaDriver) hostUnregister(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return cuErr("cuMemHostUnregister", C.cuMemHostUnregister(unsafe.Pointer(&b[0])))
}

func (c *cudaDriver) stream(s streamH) C.CUstream { return c.streams[s] }

func (c *cudaDriver) h2d(dst DevicePtr, src []byte, s streamH) error {
	if len(src) == 0 {
		return nil
	}
	return cuErr("cuMemcpyHtoDAsync", C.cuMemcpyHtoDAsync(C.CUdeviceptr(dst), unsafe.Pointer(&src[0]), C.size_t(len(src)), c.stream(s)))
}

func (c *cudaDriver) d2h(dst []byte, src DevicePtr, s streamH) error {
	if len(dst) == 0 {
		return nil
	}
	return cuErr("cuMemcpyDtoHAsync", C.cuMemcpyDtoHAsync(unsafe.Pointer(&dst[0]), C.CUdeviceptr(src), C.size_t(len(dst)), c.stream(s)))
}

func (c *cudaDriver) d2d(dst, src DevicePtr, n uint64, s streamH) error {
	if n == 0 {
		return nil
	}
	return cuErr("cuMemcpyDtoDAsync", C.cuMemcpyDtoDAsync(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), c.stream(s)))
}

func (c *cudaDriver) memset8(dst DevicePtr, v byte, n uint64, s streamH) error {
	if n == 0 {
		return nil
	}
	return cuErr("cuMemsetD8Async", C.cuMemsetD8Async(C.CUdeviceptr(dst), C.uchar(v), C.size_t(n), c.stream(s)))
}

func (c *cudaDriver) newStream() (streamH, error) {
	var s C.CUstream
	if err := cuErr("cuStreamCreate", C.cuStreamCreate(&s, C.CU_STREAM_NON_BLOCKING)); err != nil {
		return 0, err
	}
	h := streamH(c.handle())
	c.streams[h] = s
	return h, nil
}

func (c *cudaDriver) syncStream(s streamH) error {
	return cuErr("cuStreamSynchronize", C.cuStreamSynchronize(c.stream(s)))
}

func (c *cudaDriver) destroyStream(s streamH) error {
	st, ok := c.streams[s]
	if !ok {
		return invalidf("unknown stream")
	}
	delete(c.streams, s)
	return cuErr("cuStreamDestroy", C.cuStreamDestroy(st))
}

func (c *cudaDriver) newEvent() (eventH, error) {
	var e C.CUevent
	if err := cuErr("cuEventCreate", C.cuEventCreate(&e, C.CU_EVENT_DEFAULT)); err != nil {
		return 0, err
	}
	h := eventH(c.handle())
	c.events[h] = e
	return h, nil
}

func (c *cudaDriver) recordEvent(e eventH, s streamH) error {
	return cuErr("cuEventRecord", C.cuEventRecord(c.events[e], c.stream(s)))
}

func (c *cudaDriver) syncEvent(e eventH) error {
	return cuErr("cuEventSynchronize", C.cuEventSynchronize(c.events[e]))
}

func (c *cudaDriver) waitEvent(s streamH, e eventH) error {
	return cuErr("cuStreamWaitEvent", C.cuStreamWaitEvent(c.stream(s), c.events[e], 0))
}

func (c *cudaDriver) elapsed(a, b eventH) (float32, error) {
	var ms C.float
	err := cuErr("cuEventElapsedTime", C.cuEventElapsedTime(&ms, c.events[a], c.events[b]))
	return float32(ms), err
}

// sharedEvents holds the events streams of any context may wait for,
// by a process-wide number: drivers run on their own threads, so the
// number crosses between them, not a driver's own handle table.
var sharedEvents struct {
	sync.Mutex
	next sharedEvent
	m    map[sharedEvent]C.CUevent
}

func (c *cudaDriver) recordShared(s streamH) (sharedEvent, error) {
	var e C.CUevent
	if err := cuErr("cuEventCreate", C.cuEventCreate(&e, C.CU_EVENT_DISABLE_TIMING)); err != nil {
		return 0, err
	}
	if err := cuErr("cuEventRecord", C.cuEventRecord(e, c.stream(s))); err != nil {
		C.cuEventDestroy(e)
		return 0, err
	}
	sharedEvents.Lock()
	defer sharedEvents.Unlock()
	if sharedEvents.m == nil {
		sharedEvents.m = map[sharedEvent]C.CUevent{}
	}
	sharedEvents.next++
	sharedEvents.m[sharedEvents.next] = e
	return sharedEvents.next, nil
}

func sharedCUevent(e sharedEvent) (C.CUevent, bool) {
	sharedEvents.Lock()
	defer sharedEvents.Unlock()
	ev, ok := sharedEvents.m[e]
	return ev, ok
}

func (c *cudaDriver) waitShared(s streamH, e sharedEvent) error {
	ev, ok := sharedCUevent(e)
	if !ok {
		return invalidf("unknown shared event")
	}
	return cuErr("cuStreamWaitEvent", C.cuStreamWaitEvent(c.stream(s), ev, 0))
}

func (c *cudaDriver) destroyShared(e sharedEvent) error {
	sharedEvents.Lock()
	ev, ok := sharedEvents.m[e]
	delete(sharedEvents.m, e)
	sharedEvents.Unlock()
	if !ok {
		return invalidf("unknown shared event")
	}
	return cuErr("cuEventDestroy", C.cuEventDestroy(ev))
}

func (c *cudaDriver) destroyEvent(e eventH) error {
	ev, ok := c.events[e]
	if !ok {
		return invalidf("unknown event")
	}
	delete(c.events, e)
	return cuErr("cuEventDestroy", C.cuEventDestroy(ev))
}

func (c *cudaDriver) syncDevice() error { return cuErr("cuCtxSynchronize", C.cuCtxSynchronize()) }

func (c *cudaDriver) canAccessPeer(peer driver) (bool, error) {
	p, ok := peer.(*cudaDriver)
	if !ok {
		return false, invalidf("peer access to a device of another driver")
	}
	if p.dev == c.dev {
		return true, nil // one device: its primary context is shared
	}
	var v C.int
	if err := cuErr("cuDeviceCanAccessPeer", C.cuDeviceCanAccessPeer(&v, C.CUdevice(c.dev), C.CUdevice(p.dev))); err != nil {
		return false, err
	}
	return v != 0, nil
}

func (c *cudaDriver) enablePeer(peer driver) error {
	p, ok := peer.(*cudaDriver)
	if !ok {
		return invalidf("peer access to a device of another driver")
	}
	if p.dev == c.dev {
		return nil
	}
	r := C.cuCtxEnablePeerAccess(p.raw, 0)
	if r == C.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
		return nil
	}
	return cuErr("cuCtxEnablePeerAccess", r)
}

func (c *cudaDriver) peerCopy(dst DevicePtr, peer driver, src DevicePtr, n uint64, s streamH) error {
	p, ok := peer.(*cudaDriver)
	if !ok {
		return invalidf("peer copy to a device of another driver")
	}
	if n == 0 {
		return nil
	}
	return cuErr("cuMemcpyPeerAsync", C.cuMemcpyPeerAsync(C.CUdeviceptr(dst), p.raw, C.CUdeviceptr(src), c.raw, C.size_t(n), c.stream(s)))
}

func (c *cudaDriver) loadModule(image []byte) (moduleH, error) {
	if len(image) == 0 {
		return 0, invalidf("empty module image")
	}
	if !isELF(image) && image[len(image)-1] != 0 {
		image = append(image[:len(image):len(image)], 0) // PTX must be NUL-terminated
	}
	var m C.CUmodule
	if err := cuErr("cuModuleLoadData", C.cuModuleLoadData(&m, unsafe.Pointer(&image[0]))); err != nil {
		return 0, err
	}
	h := moduleH(c.handle())
	c.modules[h] = m
	return h, nil
}

func isELF(b []byte) bool { return len(b) >= 4 && string(b[:4]) == "\x7fELF" }

func (c *cudaDriver) link(images [][]byte, cubin []bool) ([]byte, error) {
	if len(images) == 0 {
		return nil, invalidf("nothing to link")
	}
	n := len(images)
	// The images are copied to C memory: cgo forbids passing Go memory that
	// holds Go pointers, and the array of image pointers would.
	imgs := (*[1 << 20]unsafe.Pointer)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))[:n:n]
	sizes := make([]C.size_t, n)
	kinds := make([]C.int, n)
	defer func() {
		for _, p := range imgs {
			C.free(p)
		}
		C.free(unsafe.Pointer(&imgs[0]))
	}()
	for i, img := range images {
		if !cubin[i] && (len(img) == 0 || img[len(img)-1] != 0) {
			img = append(img[:len(img):len(img)], 0) // PTX must be NUL-terminated
		}
		imgs[i] = C.CBytes(img)
		sizes[i] = C.size_t(len(img))
		if cubin[i] {
			kinds[i] = 1
		}
	}
	const logCap = 16 << 10
	log := (*C.char)(C.calloc(logCap, 1))
	defer C.free(unsafe.Pointer(log))
	var out unsafe.Pointer
	var size C.size_t
	var step C.int
	r := C.gsql_link(C.int(n), &imgs[0], &sizes[0], &kinds[0], &out, &size, log, logCap, &step)
	if r != C.CUDA_SUCCESS {
		err := cuErr([...]string{"cuLinkCreate", "cuLinkAddData", "cuLinkComplete"}[int(step)%3], r)
		if ce, ok := err.(*CUDAError); ok {
			if msg := strings.TrimSpace(C.GoString(log)); msg != "" {
				ce.Detail = msg
			}
		}
		return nil, err
	}
	defer C.free(out)
	return C.GoBytes(out, C.int(size)), nil
}

func (c *cudaDriver) unloadModule(m moduleH) error {
	mod, ok := c.modules[m]
	if !ok {
		return nil
	}
	delete(c.modules, m)
	return cuErr("cuModuleUnload", C.cuModuleUnload(mod))
}

func (c *cudaDriver) function(m moduleH, name string) (functionH, error) {
	mod, ok := c.modules[m]
	if !ok {
		return 0, invalidf("unknown module")
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f C.CUfunction
	if err := cuErr("cuModuleGetFunction", C.cuModuleGetFunction(&f, mod, cname)); err != nil {
		err.(*CUDAError).Kernel = name
		return 0, err
	}
	h := functionH(c.handle())
	c.functions[h] = f
	return h, nil
}

func (c *cudaDriver) launch(f functionH, grid, block Dim3, shmem int, s streamH, args []uint64, sizes []uint8) error {
	fn, ok := c.functions[f]
	if !ok {
		return invalidf("unknown kernel handle")
	}
	if len(args) > MaxKernelArgs {
		return invalidf("%d kernel arguments, at most %d", len(args), MaxKernelArgs)
	}
	var vals *C.ulonglong
	if len(args) > 0 {
		vals = (*C.ulonglong)(unsafe.Pointer(&args[0]))
	}
	return cuErr("cuLaunchKernel", C.gsql_launch(fn, C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z), C.uint(shmem), c.stream(s), vals, C.int(len(args))))
}

// nvrtcPath is the NVRTC library that was loaded (for reports and tests).
var nvrtcPath string

// nvrtcCandidates lists where NVRTC may be: $GSQL_NVRTC, the loader's own
// search by name (newest first), then the usual toolkit and pip locations.
func nvrtcCandidates() []string {
	var out []string
	if p := os.Getenv("GSQL_NVRTC"); p != "" {
		out = append(out, p)
	}
	for _, v := range []string{"", ".13", ".12", ".11.2", ".11.1", ".11.0"} {
		out = append(out, "libnvrtc.so"+v)
	}
	var found []string
	for _, pat := range []string{
		"/usr/local/cuda/lib64/libnvrtc.so*",
		"/usr/local/cuda/targets/*/lib/libnvrtc.so*",
		"/usr/local/cuda-*/lib64/libnvrtc.so*",
		"/usr/local/cuda-*/targets/*/lib/libnvrtc.so*",
		"/usr/lib/x86_64-linux-gnu/libnvrtc.so*",
		"/usr/lib64/libnvrtc.so*",
		"/opt/cuda/lib64/libnvrtc.so*",
		"/usr/local/lib/python3*/dist-packages/nvidia/*/lib/libnvrtc.so*",
		"/opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib/libnvrtc.so*",
		"/usr/lib/python3*/site-packages/nvidia/*/lib/libnvrtc.so*",
	} {
		m, _ := filepath.Glob(pat)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, p := range m {
			if !strings.Contains(filepath.Base(p), "builtins") && !strings.Contains(filepath.Base(p), "alt") {
				found = append(found, p)
			}
		}
	}
	return append(out, found...)
}

// loadNVRTC dlopens the first NVRTC that works. For a library found by path
// it first loads NVRTC's builtins library from the same folder with
// RTLD_GLOBAL, so that NVRTC's own dlopen of it by name succeeds even when
// the folder is not on the loader's path.
func (c *cudaDriver) loadNVRTC() {
	var tried []string
	for _, p := range nvrtcCandidates() {
		if filepath.IsAbs(p) {
			b, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "libnvrtc-builtins.so*"))
			sort.Sort(sort.Reverse(sort.StringSlice(b)))
			for _, lib := range b {
				cs := C.CString(lib)
				r := C.gsql_preload(cs)
				C.free(unsafe.Pointer(cs))
				if r == 0 {
					break
				}
			}
		}
		cs := C.CString(p)
		r := C.gsql_nvrtc_open(cs)
		C.free(unsafe.Pointer(cs))
		if r == 0 {
			var major, minor C.int
			if e := C.gsql_nvrtc_version(&major, &minor); e != 0 {
				c.nvrtcErr = fmt.Errorf("%w: nvrtcVersion failed (%d) in %s", ErrNVRTC, int(e), p)
				return
			}
			c.nvrtcVer = fmt.Sprintf("%d.%d", int(major), int(minor))
			nvrtcPath = p
			return
		}
		if r == -2 {
			tried = append(tried, p+" (missing symbols)")
		} else if filepath.IsAbs(p) {
			tried = append(tried, p+": "+C.GoString(C.gsql_dlerror()))
		}
	}
	c.nvrtcErr = fmt.Errorf("%w: libnvrtc not found (set GSQL_NVRTC to its path, or install the CUDA toolkit's NVRTC); tried libnvrtc.so{,.13,.12,.11.x} %s", ErrNVRTC, strings.Join(tried, "; "))
}

func (c *cudaDriver) nvrtcVersion() (string, error) {
	c.nvrtcOnce.Do(c.loadNVRTC)
	return c.nvrtcVer, c.nvrtcErr
}

const nvrtcErrorInvalidOption = 5

// compile compiles with NVRTC for sm_<arch> to CUBIN; when this NVRTC
// cannot (no nvrtcGetCUBIN, or the architecture is newer than it knows) it
// compiles to PTX for compute_<arch>, or for the newest architecture it
// supports, which the driver JIT-compiles at load.
func (c *cudaDriver) compile(name, src string, opts []string, arch int) ([]byte, bool, error) {
	if _, err := c.nvrtcVersion(); err != nil {
		return nil, false, err
	}
	try := func(archOpt string, cubin bool) ([]byte, int, error) {
		// --device-int128: DECIMAL values are __int128 in device code.
		all := append([]string{archOpt, "--device-int128"}, opts...)
		cOpts := make([]*C.char, len(all))
		for i, o := range all {
			cOpts[i] = C.CString(o)
		}
		defer func() {
			for _, p := range cOpts {
				C.free(unsafe.Pointer(p))
			}
		}()
		cSrc, cName := C.CString(src), C.CString(nameOrDefault(name, "kernel.cu"))
		defer C.free(unsafe.Pointer(cSrc))
		defer C.free(unsafe.Pointer(cName))
		var image, log *C.char
		var size C.size_t
		var step C.int
		want := C.int(0)
		if cubin {
			want = 1
		}
		r := C.gsql_nvrtc_compile(cSrc, cName, C.int(len(all)), (**C.char)(unsafe.Pointer(&cOpts[0])), want, &image, &size, &log, &step)
		logText := ""
		if log != nil {
			logText = strings.TrimSpace(C.GoString(log))
			C.free(unsafe.Pointer(log))
		}
		if r != 0 {
			call := [...]string{"nvrtc", "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetCUBIN/PTX"}[int(step)&3]
			detail := name + " " + archOpt
			if logText != "" {
				detail += ":\n" + logText
			}
			return nil, int(r), &CUDAError{Call: call, Code: int(r), Name: C.GoString(C.gsql_nvrtc_error(C.int(r))), Detail: detail}
		}
		out := C.GoBytes(unsafe.Pointer(image), C.int(size))
		C.free(unsafe.Pointer(image))
		return out, 0, nil
	}
	if C.gsql_nvrtc_has_cubin() != 0 {
		img, code, err := try(fmt.Sprintf("--gpu-architecture=sm_%d", arch), true)
		if err == nil || code != nvrtcErrorInvalidOption {
			return img, err == nil, err
		}
	}
	img, code, err := try(fmt.Sprintf("--gpu-architecture=compute_%d", arch), false)
	if err == nil || code != nvrtcErrorInvalidOption {
		return img, false, err
	}
	var archs [64]C.int
	n := int(C.gsql_nvrtc_archs(&archs[0], 64))
	best := 0
	for _, a := range archs[:n] {
		if int(a) <= arch && int(a) > best {
			best = int(a)
		}
	}
	if best == 0 {
		return nil, false, err
	}
	img, _, err = try(fmt.Sprintf("--gpu-architecture=compute_%d", best), false)
	return img, false, err
}

func nameOrDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
