package gpuexec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/memory"
)

// fakeDriver implements driver over host memory (memory.GoUpstream) and
// runs the runtime kernels as their Go twins, so that everything above the
// driver is tested without a GPU. It also checks bounds on every access.
type fakeDriver struct {
	mem      *memory.GoUpstream
	mu       sync.Mutex
	next     uintptr
	modules  map[moduleH]string
	funcs    map[functionH]string
	streams  int
	events   map[eventH]bool
	hostLive int
	compiles int
	// major, when set, is the device's compute capability's major
	// number (else 9).
	major int
	// hold, when set, blocks the compile of any source holding "// hold"
	// until it is closed.
	hold     chan struct{}
	opts     [][]string // each compile's options
	launches map[string]int
	// delay makes every compile take this long (compiles racing across
	// devices and processes); closes counts close calls.
	delay  time.Duration
	closes int
	// ordinal is the fake GPU's number; peer, when set, says whether it
	// reaches another's memory directly (nil: every pair does); enabled
	// lists the peers enabled, peerCopies counts direct copies.
	ordinal int
	peer    func(from, to int) bool
	enabled map[int]bool
	// refusePeers makes enablePeer fail as a driver out of peer slots.
	refusePeers bool
	peerCopies  int
	// h2ds counts host-to-device copies.
	h2ds int
	// syncs counts stream synchronizations; unsyncedPeerCopies counts
	// direct copies into this device made while work queued on its
	// stream since the last synchronization could still be running.
	syncs              atomic.Int64
	queued             atomic.Bool
	unsyncedPeerCopies atomic.Int64
	// gen counts launches; after[p] is the latest of p's launches this
	// device's stream waited for through a shared event.
	gen   atomic.Int64
	after map[*fakeDriver]int64
	// serial makes do take calls in turn (turn, held by turnOwner).
	serial    bool
	turn      sync.Mutex
	turnOwner atomic.Int64
}

func newFakeDriver() *fakeDriver {
	return &fakeDriver{mem: memory.NewGoUpstream(4 << 30), next: 1, modules: map[moduleH]string{},
		funcs: map[functionH]string{}, events: map[eventH]bool{}, launches: map[string]int{}}
}

// h2dCalls is the number of host-to-device copies so far.
func (f *fakeDriver) h2dCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.h2ds
}

func newFakeDevice(t testing.TB, opts Options) (*Device, *fakeDriver) {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	f := newFakeDriver()
	d, err := newDevice(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d, f
}

func (f *fakeDriver) id() uintptr { f.mu.Lock(); defer f.mu.Unlock(); f.next++; return f.next }

func (f *fakeDriver) info() DeviceInfo {
	major := 9
	if f.major != 0 {
		major = f.major
	}
	return DeviceInfo{Ordinal: f.ordinal, Name: "fake", Major: major, Minor: 0, TotalMemory: 4 << 30, SMs: 4, DriverVersion: 13000}
}

func (f *fakeDriver) canAccessPeer(peer driver) (bool, error) {
	p, ok := peer.(*fakeDriver)
	if !ok {
		return false, invalidf("peer access to a device of another driver")
	}
	return p == f || f.peer == nil || f.peer(f.ordinal, p.ordinal), nil
}

func (f *fakeDriver) enablePeer(peer driver) error {
	if ok, err := f.canAccessPeer(peer); err != nil || !ok {
		return firstErr(err, &CUDAError{Call: "cuCtxEnablePeerAccess", Code: 217, Name: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"})
	}
	if f.refusePeers {
		return &CUDAError{Call: "cuCtxEnablePeerAccess", Code: 711, Name: "CUDA_ERROR_TOO_MANY_PEERS"}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.enabled == nil {
		f.enabled = map[int]bool{}
	}
	f.enabled[peer.(*fakeDriver).ordinal] = true
	return nil
}

// peerCopy copies between the two fakes' memories; like CUDA's, it works
// whether or not peer access was enabled (the driver stages it then), so
// it counts only the enabled ones as direct.
func (f *fakeDriver) peerCopy(dst DevicePtr, peer driver, src DevicePtr, n uint64, s streamH) error {
	p, ok := peer.(*fakeDriver)
	if !ok {
		return invalidf("peer copy to a device of another driver")
	}
	from, err := f.slice(src, n)
	if err != nil {
		return err
	}
	to, err := p.slice(dst, n)
	if err != nil {
		return err
	}
	f.mu.Lock()
	waited := f.after[p]
	f.mu.Unlock()
	if p != f && p.queued.Load() && waited < p.gen.Load() {
		p.unsyncedPeerCopies.Add(1)
	}
	copy(to, from)
	f.mu.Lock()
	if f.enabled[p.ordinal] || p == f {
		f.peerCopies++
	}
	f.mu.Unlock()
	return nil
}

// do runs fn inline. A serial fake (FakeDevices) also takes its calls in
// turn, as a real context thread does: the plans spread over several
// fake devices drive one device from several goroutines, which would
// otherwise share its staging buffers at once. Calls from inside fn run
// directly (the goroutine holding the turn; goroutineID is
// lockorder_test.go's).
func (f *fakeDriver) do(fn func() error) error {
	if !f.serial {
		return fn()
	}
	id := goroutineID()
	if f.turnOwner.Load() == id {
		return fn()
	}
	f.turn.Lock()
	f.turnOwner.Store(id)
	defer func() {
		f.turnOwner.Store(0)
		f.turn.Unlock()
	}()
	return fn()
}

func (f *fakeDriver) close() error   { f.mu.Lock(); f.closes++; f.mu.Unlock(); return nil }
func (f *fakeDriver) onThread() bool { return true }

// await waits for done. A serial fake's turn holder gives the turn up
// meanwhile, as the real context thread keeps serving calls while it
// waits (cudaDriver.await): a compile in flight on another goroutine
// loads its module through do, and the holder waiting for that compile
// (a builtin kernel needed inside a device call) would wait forever.
func (f *fakeDriver) await(done <-chan struct{}) {
	id := goroutineID()
	if !f.serial || f.turnOwner.Load() != id {
		<-done
		return
	}
	f.turnOwner.Store(0)
	f.turn.Unlock()
	<-done
	f.turn.Lock()
	f.turnOwner.Store(id)
}

func (f *fakeDriver) memAlloc(size uint64) (DevicePtr, error) {
	a, err := f.mem.Alloc(size)
	return DevicePtr(a), err
}
func (f *fakeDriver) memFree(p DevicePtr, size uint64) error { return f.mem.Free(uint64(p), size) }
func (f *fakeDriver) hostAlloc(n int) ([]byte, error)        { f.hostLive++; return make([]byte, n), nil }
func (f *fakeDriver) hostFree(b []byte) error                { f.hostLive--; return nil }
func (f *fakeDriver) hostRegister(b []byte) error            { f.hostLive++; return nil }
func (f *fakeDriver) hostUnregister(b []byte) error          { f.hostLive--; return nil }

func (f *fakeDriver) slice(p DevicePtr, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := f.mem.Slice(uint64(p), n)
	if err != nil {
		return nil, &CUDAError{Call: "fake access", Code: 700, Name: "CUDA_ERROR_ILLEGAL_ADDRESS", Detail: err.Error()}
	}
	return b, nil
}

func (f *fakeDriver) h2d(dst DevicePtr, src []byte, s streamH) error {
	f.mu.Lock()
	f.h2ds++
	f.mu.Unlock()
	b, err := f.slice(dst, uint64(len(src)))
	copy(b, src)
	return err
}
func (f *fakeDriver) d2h(dst []byte, src DevicePtr, s streamH) error {
	b, err := f.slice(src, uint64(len(dst)))
	copy(dst, b)
	return err
}
func (f *fakeDriver) d2d(dst, src DevicePtr, n uint64, s streamH) error {
	a, err := f.slice(dst, n)
	if err != nil {
		return err
	}
	b, err := f.slice(src, n)
	copy(a, b)
	return err
}
func (f *fakeDriver) memset8(dst DevicePtr, v byte, n uint64, s streamH) error {
	b, err := f.slice(dst, n)
	for i := range b {
		b[i] = v
	}
	return err
}

// The driver's state is under f.mu: its do runs work inline, so several
// goroutines may drive one fake device at once (an exchange packing one
// source for several targets), where a real context thread takes them in
// turn.
func (f *fakeDriver) newStream() (streamH, error) {
	h := streamH(f.id())
	f.mu.Lock()
	f.streams++
	f.mu.Unlock()
	return h, nil
}
func (f *fakeDriver) syncStream(streamH) error {
	f.syncs.Add(1)
	f.queued.Store(false)
	return nil
}
func (f *fakeDriver) destroyStream(streamH) error {
	f.mu.Lock()
	f.streams--
	f.mu.Unlock()
	return nil
}
func (f *fakeDriver) newEvent() (eventH, error) {
	e := eventH(f.id())
	f.mu.Lock()
	f.events[e] = true
	f.mu.Unlock()
	return e, nil
}
func (f *fakeDriver) recordEvent(eventH, streamH) error { return nil }
func (f *fakeDriver) syncEvent(eventH) error            { return nil }
func (f *fakeDriver) waitEvent(streamH, eventH) error   { return nil }
func (f *fakeDriver) elapsed(a, b eventH) (float32, error) {
	return 0.5, nil
}
func (f *fakeDriver) destroyEvent(e eventH) error {
	f.mu.Lock()
	delete(f.events, e)
	f.mu.Unlock()
	return nil
}
func (f *fakeDriver) syncDevice() error { f.queued.Store(false); return nil }

// fakeShared are the fakes' shared events: the recording driver and its
// launches when recorded.
var fakeShared struct {
	sync.Mutex
	next sharedEvent
	m    map[sharedEvent]fakeSharedEvent
}

type fakeSharedEvent struct {
	f   *fakeDriver
	gen int64
}

func (f *fakeDriver) recordShared(streamH) (sharedEvent, error) {
	fakeShared.Lock()
	defer fakeShared.Unlock()
	if fakeShared.m == nil {
		fakeShared.m = map[sharedEvent]fakeSharedEvent{}
	}
	fakeShared.next++
	fakeShared.m[fakeShared.next] = fakeSharedEvent{f: f, gen: f.gen.Load()}
	return fakeShared.next, nil
}

func (f *fakeDriver) waitShared(_ streamH, e sharedEvent) error {
	fakeShared.Lock()
	ev, ok := fakeShared.m[e]
	fakeShared.Unlock()
	if !ok {
		return invalidf("unknown shared event")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.after == nil {
		f.after = map[*fakeDriver]int64{}
	}
	f.after[ev.f] = max(f.after[ev.f], ev.gen)
	return nil
}

func (f *fakeDriver) destroyShared(e sharedEvent) error {
	fakeShared.Lock()
	defer fakeShared.Unlock()
	if _, ok := fakeShared.m[e]; !ok {
		return invalidf("unknown shared event")
	}
	delete(fakeShared.m, e)
	return nil
}
func (f *fakeDriver) nvrtcVersion() (string, error) {
	return "13.0", nil
}

const fakeImagePrefix = "FAKE-CUBIN\n"

func (f *fakeDriver) compile(name, src string, opts []string, arch int) ([]byte, bool, error) {
	f.mu.Lock()
	f.compiles++
	f.opts = append(f.opts, opts)
	hold, delay := f.hold, f.delay
	f.mu.Unlock()
	time.Sleep(delay)
	if hold != nil && strings.Contains(src, "// hold") {
		<-hold
	}
	if strings.Contains(src, "#error") {
		return nil, false, &CUDAError{Call: "nvrtcCompileProgram", Code: 6, Name: "NVRTC_ERROR_COMPILATION", Detail: name + ": #error"}
	}
	return []byte(fakeImagePrefix + src), true, nil
}
func (f *fakeDriver) link(images [][]byte, cubin []bool) ([]byte, error) {
	out := []byte(fakeImagePrefix)
	for _, img := range images {
		if !bytes.HasPrefix(img, []byte(fakeImagePrefix)) {
			return nil, &CUDAError{Call: "cuLinkAddData", Code: 200, Name: "CUDA_ERROR_INVALID_IMAGE"}
		}
		out = append(out, img[len(fakeImagePrefix):]...)
		out = append(out, '\n')
	}
	return out, nil
}
func (f *fakeDriver) loadModule(image []byte) (moduleH, error) {
	if !bytes.HasPrefix(image, []byte(fakeImagePrefix)) {
		return 0, &CUDAError{Call: "cuModuleLoadData", Code: 200, Name: "CUDA_ERROR_INVALID_IMAGE"}
	}
	m := moduleH(f.id())
	f.mu.Lock()
	f.modules[m] = string(image[len(fakeImagePrefix):])
	f.mu.Unlock()
	return m, nil
}
func (f *fakeDriver) unloadModule(m moduleH) error {
	f.mu.Lock()
	delete(f.modules, m)
	f.mu.Unlock()
	return nil
}
func (f *fakeDriver) function(m moduleH, name string) (functionH, error) {
	f.mu.Lock()
	src, ok := f.modules[m]
	f.mu.Unlock()
	if !ok || !strings.Contains(src, " "+name+"(") {
		return 0, &CUDAError{Call: "cuModuleGetFunction", Code: 500, Name: "CUDA_ERROR_NOT_FOUND", Detail: name}
	}
	h := functionH(f.id())
	f.mu.Lock()
	f.funcs[h] = name
	f.mu.Unlock()
	return h, nil
}

func (f *fakeDriver) launch(fn functionH, grid, block Dim3, shmem int, s streamH, args []uint64, sizes []uint8) error {
	f.gen.Add(1)
	f.queued.Store(true)
	f.mu.Lock()
	name := f.funcs[fn]
	f.launches[name]++
	f.mu.Unlock()
	i64 := func(i int) int64 { return int64(args[i]) }
	switch name {
	case "gsql_copy_bits":
		dstBit, srcBit, n := i64(1), i64(3), i64(4)
		if n <= 0 {
			return nil
		}
		first, last := dstBit>>3, (dstBit+n+7)>>3
		dst, err := f.slice(DevicePtr(args[0])+DevicePtr(first), uint64(last-first))
		if err != nil {
			return err
		}
		var src []byte
		if args[2] != 0 {
			s0, s1 := srcBit>>3, (srcBit+n-1)>>3
			if src, err = f.slice(DevicePtr(args[2])+DevicePtr(s0), uint64(s1-s0+1)); err != nil {
				return err
			}
			srcBit &= 7
		}
		CopyBits(dst, dstBit-8*first, src, srcBit, n)
	case "gsql_rebase_offsets":
		n := uint64(args[2])
		dst, err := f.slice(DevicePtr(args[0]), 4*n)
		if err != nil {
			return err
		}
		src, err := f.slice(DevicePtr(args[1]), 4*n)
		if err != nil {
			return err
		}
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = int32(binary.LittleEndian.Uint32(src[4*i:])) + int32(args[3])
		}
		for i, v := range vals {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
		}
	case "gsql_gather_i32":
		n := uint64(args[2])
		out, err := f.slice(DevicePtr(args[0]), 4*n)
		if err != nil {
			return err
		}
		addrs, err := f.slice(DevicePtr(args[1]), 8*n)
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			v, err := f.slice(DevicePtr(binary.LittleEndian.Uint64(addrs[8*i:])), 4)
			if err != nil {
				return err
			}
			copy(out[4*i:], v)
		}
	case "probe_add": // the test kernel of runCompileCache
		n := args[1]
		x, err := f.slice(DevicePtr(args[0]), 8*n)
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint64(x[8*i:], binary.LittleEndian.Uint64(x[8*i:])+i)
		}
	case "gsql_copy_rw":
		return f.d2d(DevicePtr(args[0]), DevicePtr(args[1]), 16*args[2], s)
	default:
		if twin, ok := fakeTwins[name]; ok {
			return twin(f, grid, args)
		}
		return fmt.Errorf("fake driver: no Go twin for kernel %q", name)
	}
	return nil
}
