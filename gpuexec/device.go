package gpuexec

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gsqlengine/gsql/memory"
)

// Options configure NewDevice.
type Options struct {
	// Ordinal selects the GPU (0 is the first).
	Ordinal int
	// PoolLimit caps the device memory the pool may hold (0: no cap beyond
	// the device's own).
	PoolLimit uint64
	// SlabSize is the pool's growth step (0: the pool's default).
	SlabSize uint64
	// NoPool allocates every buffer with cuMemAlloc/cuMemFree directly (for
	// comparisons; the engine always runs pooled).
	NoPool bool
	// CacheDir is where compiled kernels are cached on disk; "" means
	// os.UserCacheDir()/gsql/kernels.
	CacheDir string
	// NoDiskCache turns the on-disk kernel cache off.
	NoDiskCache bool
	// StagingLimit caps the page-locked host staging buffer Upload and
	// Download reuse (0: 1 GiB). Larger transfers use pageable memory.
	StagingLimit uint64
	// ResultMemory caps the page-locked host memory lent to query results
	// (0: DefaultResultMemory); results beyond it go to Go memory.
	ResultMemory uint64
	// NoResultPool downloads results into Go memory (for comparisons).
	NoResultPool bool
	// Debug synchronises after every kernel launch so that an asynchronous
	// fault is reported against the kernel that caused it.
	Debug bool
}

// DeviceInfo describes the GPU a Device drives.
type DeviceInfo struct {
	Ordinal       int
	Name          string
	Major, Minor  int    // compute capability
	TotalMemory   uint64 // bytes
	SMs           int    // multiprocessors
	DriverVersion int    // e.g. 13000
}

// Arch is the compute capability as one number (9.0 -> 90).
func (i DeviceInfo) Arch() int { return i.Major*10 + i.Minor }

func (i DeviceInfo) String() string {
	return fmt.Sprintf("%s (sm_%d, %d SMs, %.1f GiB, driver %d)", i.Name, i.Arch(), i.SMs, float64(i.TotalMemory)/(1<<30), i.DriverVersion)
}

// Stats are a Device's counters.
type Stats struct {
	Memory          memory.Stats   // the pool (or pass-through) allocator
	Launches        uint64         // kernel launches
	Compiles        uint64         // NVRTC compilations
	CompileTime     time.Duration  // time spent in NVRTC (all goroutines)
	LoadTime        time.Duration  // time spent loading modules (cuModuleLoadData)
	CompilesQueued  int            // background compiles not finished yet
	MemoryCacheHits uint64         // Compile answered from memory
	DiskCacheHits   uint64         // Compile answered from the disk cache
	SharedImageHits uint64         // images another GPU of the process compiled, loaded here
	ThreadTime      time.Duration  // time its context thread ran work (uploads, launches, syncs, downloads)
	BytesToDevice   uint64         // host-to-device bytes copied
	BytesToHost     uint64         // device-to-host bytes copied
	BytesToPeer     uint64         // bytes copied from here to other GPUs over peer links
	Results         ResultStats    // the page-locked result pool
	Users           int            // handles sharing the device state (databases)
	InUse           uint64         // device memory this handle's database holds
	Peak            uint64         // the most device memory it has held
	Waits           WaitTotals     // what the queries of every handle waited for, summed
	Admission       AdmissionStats // the queries' admission queue (shared by every handle)
}

// Device is one user's handle on a GPU: the device state it shares with
// every other handle of the same GPU and options (context thread, memory
// pool, staging, streams, compiled kernels, the interpreter), its own
// memory quota and closed flag, and (ForQuery) the query whose waits it
// counts. Create it with Open (shared) or NewDevice (private) and Close it
// when done; the state closes with its last handle.
type Device struct {
	*deviceState
	// user is the database's share: bytes in use, the quota, closed. Nil
	// on a state's own handle (state), which background work uses so that
	// a closing database never fails a compile another one waits for.
	user *deviceUser
	// waits, set on a ForQuery handle, collects the query's waits.
	waits *Waits
	// derived marks a ForQuery handle: closing it closes nothing.
	derived bool
}

// deviceUser is what one Open or NewDevice caller owns of a shared state.
type deviceUser struct {
	limit  uint64       // quota on bytes in use (0: none)
	inUse  atomic.Int64 // bytes of pool memory its buffers hold
	peak   atomic.Int64 // the most inUse has been
	closed atomic.Bool
	// relieve frees the database's memory that no query needs (SetRelief).
	relieve atomic.Pointer[func(need uint64) uint64]
}

// deviceState is one GPU as the handles of a process share it.
type deviceState struct {
	// self is the state's own handle: shared objects (modules, streams,
	// the interpreter, the result pool) belong to it, never to a user.
	self *Device
	// reg and key place a shared state in its registry; refs counts its
	// handles (under reg.mu). reg is nil for a private device.
	reg  *registry
	key  Options
	refs int
	idle *time.Timer // the linger after the last handle closed
	// freed is closed and replaced whenever a buffer goes back to the
	// pool while someone waits for memory (memWaiters > 0).
	// totalWaits sums the waits of every query on the state (Stats.Waits).
	totalWaits Waits
	freedMu    sync.Mutex
	freed      chan struct{}
	memWaiters atomic.Int32
	// admit is the admission queue (admission.go), sched the turn-taking
	// of the queries' work on the context thread (sched.go).
	admitOnce sync.Once
	admit     *Admission
	sched     scheduler

	drv    driver
	opts   Options
	info   DeviceInfo
	alloc  memory.Allocator
	pool   *memory.Pool // nil with Options.NoPool
	up     *upstream
	stream *Stream // the stream the batch operations run on
	copies *Stream // result downloads that overlap the next batch's kernels

	mu       sync.Mutex // guards the fields below
	modules  map[string]*Module
	loaded   []moduleH
	builtins *Module
	flights  map[string]*flight // compiles in progress, by cache key
	// compilePool bounds background compiles (CompileAsync).
	compilePool chan struct{}
	asyncs      map[string]*Pending // background compiles, by source
	seen        map[string]struct{} // kernel shapes asked for (Repeated)
	later       atomic.Int64        // CompileFusedLater compiles not finished
	poolsOnce   sync.Once
	poolsWarm   chan struct{}      // closed when WarmPools is done
	byKernel    map[string]*Module // fused kernel sets loaded, by fuse.Kernel.Key
	staging     []byte             // page-locked, reused by Upload/Download
	results     *ResultPool        // nil with Options.NoResultPool
	closed      atomic.Bool

	// peers are the device states EnablePeerAccess linked this one to.
	peerMu sync.Mutex
	peers  map[*deviceState]bool
	// bounce is the page-locked pair host-staged copies to other devices
	// go through (peer.go), one copy at a time.
	bounce bounceBuffers

	launches, compiles, memHits, diskHits, toDevice, toHost, toPeer atomic.Uint64
	// sharedHits counts images another device state of the process made
	// while this one waited for them (imageFlights).
	sharedHits              atomic.Uint64
	compileNanos, loadNanos atomic.Int64
	// threadNanos is the time closures ran on the context thread (Do
	// from other goroutines): uploads, launches, the syncs that wait for
	// kernels, downloads; the device's busy time as the host sees it.
	threadNanos atomic.Int64

	interp interpState // the tier-0 interpreter
}

// NewDevice opens the GPU opts.Ordinal. A build without the cuda tag
// returns ErrNoCUDA; a cuda build on a machine whose GPU cannot be used
// returns an error wrapping ErrNoDevice that says why.
func NewDevice(opts Options) (*Device, error) {
	drv, err := newDriver(opts)
	if err != nil {
		return nil, err
	}
	d, err := newDevice(drv, opts)
	if err != nil {
		drv.close()
		return nil, err
	}
	return d, nil
}

// upstream adapts the driver's cuMemAlloc/cuMemFree to memory.Upstream.
// The pool calls Alloc from inside do (the context thread). Free may come
// from any goroutine (a released pool frees a slab when its last block goes
// back); off the context thread it is queued and done at the next
// allocation or at Close, never waited for, so it cannot deadlock against
// the context thread waiting for the pool's lock.
type upstream struct {
	drv     driver
	mu      sync.Mutex
	pending [][2]uint64
}

func (u *upstream) Alloc(size uint64) (uint64, error) {
	u.drain()
	p, err := u.drv.memAlloc(size)
	return uint64(p), err
}

func (u *upstream) Free(addr, size uint64) error {
	if !u.drv.onThread() {
		u.mu.Lock()
		u.pending = append(u.pending, [2]uint64{addr, size})
		u.mu.Unlock()
		return nil
	}
	return u.drv.memFree(DevicePtr(addr), size)
}

// drain frees queued ranges; context thread only.
func (u *upstream) drain() error {
	u.mu.Lock()
	p := u.pending
	u.pending = nil
	u.mu.Unlock()
	var first error
	for _, r := range p {
		if err := u.drv.memFree(DevicePtr(r[0]), r[1]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// newDevice makes a private device over drv: one state whose own handle
// is returned, closed by its Close.
func newDevice(drv driver, opts Options) (*Device, error) {
	s, err := newState(drv, opts)
	if err != nil {
		return nil, err
	}
	s.refs = 1
	return s.self, nil
}

func newState(drv driver, opts Options) (*deviceState, error) {
	s := &deviceState{drv: drv, opts: opts, info: drv.info(), modules: map[string]*Module{}, up: &upstream{drv: drv}, freed: make(chan struct{})}
	s.self = &Device{deviceState: s}
	d := s.self
	if opts.NoPool {
		d.alloc = memory.Direct(d.up, opts.PoolLimit)
	} else {
		d.pool = memory.NewPool(d.up, memory.Options{SlabSize: opts.SlabSize, Limit: opts.PoolLimit})
		d.alloc = d.pool
	}
	if !opts.NoResultPool {
		d.results = newResultPool(d, opts.ResultMemory)
	}
	err := drv.do(func() error {
		h, err := drv.newStream()
		d.stream = &Stream{d: d, h: h}
		if err == nil {
			h, err = drv.newStream()
			d.copies = &Stream{d: d, h: h}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Info describes the GPU.
func (d *Device) Info() DeviceInfo { return d.info }

// Do runs fn on the thread that owns the CUDA context and returns its
// error. Calls from inside fn to this package run directly.
func (d *Device) Do(fn func() error) error {
	if d.isClosed() {
		return ErrClosed
	}
	if d.drv.onThread() {
		return d.drv.do(fn) // counted in the closure that called it
	}
	timed := func() error {
		start := time.Now()
		err := fn()
		d.threadNanos.Add(int64(time.Since(start)))
		return err
	}
	if w := d.waits; w != nil {
		// The time until fn starts is the query's wait for the thread,
		// which every other user of the shared device also submits to.
		// Its turn comes round-robin among the queries (sched.go).
		start := time.Now()
		return d.sched.do(d.drv, w, func() error {
			w.Thread.add(time.Since(start))
			return timed()
		})
	}
	return d.drv.do(timed)
}

// isClosed reads the flags without the device's lock, which background
// compiles hold often: every trip to the context thread asks.
func (d *Device) isClosed() bool {
	return d.closed.Load() || (d.user != nil && d.user.closed.Load())
}

// Stats returns the device's counters.
func (d *Device) Stats() Stats {
	return Stats{
		Memory:          d.alloc.Stats(),
		Launches:        d.launches.Load(),
		Compiles:        d.compiles.Load(),
		MemoryCacheHits: d.memHits.Load(),
		CompileTime:     time.Duration(d.compileNanos.Load()),
		LoadTime:        time.Duration(d.loadNanos.Load()),
		CompilesQueued:  d.CompilesQueued(),
		DiskCacheHits:   d.diskHits.Load(),
		SharedImageHits: d.sharedHits.Load(),
		ThreadTime:      time.Duration(d.threadNanos.Load()),
		BytesToDevice:   d.toDevice.Load(),
		BytesToHost:     d.toHost.Load(),
		BytesToPeer:     d.toPeer.Load(),
		Results:         d.results.Stats(),
		Users:           d.Users(),
		InUse:           d.InUse(),
		Peak:            d.Peak(),
		Waits:           d.totalWaits.Snapshot(),
		Admission:       d.Admission().Stats(),
	}
}

// Trim returns the pool's unused slabs to the driver, and unpins the
// result pool's unused host slabs.
func (d *Device) Trim() error {
	// The result pool is trimmed off the context thread: it holds its lock
	// while it unpins a slab there (and while it grows, for a lender).
	err := d.results.trim()
	return errors.Join(err, d.Do(func() error {
		if d.pool != nil {
			_, perr := d.pool.Trim()
			return perr
		}
		return nil
	}))
}

// Synchronize waits for all work on the device.
func (d *Device) Synchronize() error { return d.Do(d.drv.syncDevice) }

// Close gives the handle back. A handle from Open drops its reference on
// the shared state, which closes with the last one; a private device
// (NewDevice) closes at once. Closing the state waits for outstanding
// work, unloads modules, frees the staging buffer and the pool's memory
// and releases the context: buffers still held become invalid. A
// ForQuery handle closes nothing.
func (d *Device) Close() error {
	if d.derived {
		return nil
	}
	if d.user != nil && d.user.closed.Swap(true) {
		return nil
	}
	if d.reg != nil {
		return d.reg.release(d.deviceState)
	}
	return d.deviceState.close()
}

// close closes the state (once).
func (s *deviceState) close() error {
	// The pools' warm-up holds a block between its Alloc and Release:
	// the pool is released with nothing in use only after it (a database
	// closed right after opening, as the on-disk regression run does after
	// each statement, found the block still lent). The Once orders this
	// with WarmPools; a warm-up never started is marked done.
	s.poolsOnce.Do(func() {
		s.poolsWarm = make(chan struct{})
		close(s.poolsWarm)
	})
	<-s.poolsWarm
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil
	}
	s.closed.Store(true) // under the lock too: readers that hold it see a stable flag
	tables, tablesSize := s.interp.tables, s.interp.tablesSize
	s.interp.tables = 0
	s.mu.Unlock()
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	keep(s.drv.do(func() error {
		keep(s.drv.syncDevice())
		if tables != 0 {
			keep(s.drv.memFree(tables, tablesSize))
		}
		for _, m := range s.loaded {
			keep(s.drv.unloadModule(m))
		}
		if s.staging != nil {
			keep(s.drv.hostFree(s.staging))
			s.staging = nil
		}
		keep(s.bounce.free(s.drv))
		keep(s.results.close())
		if s.pool != nil {
			keep(s.pool.Release())
		}
		keep(s.up.drain())
		keep(s.drv.destroyStream(s.copies.h))
		keep(s.drv.destroyStream(s.stream.h))
		return nil
	}))
	keep(s.drv.close())
	return first
}

// Buffer is a reference-counted range of device memory from the pool.
type Buffer struct {
	d    *Device
	ptr  DevicePtr
	size uint64
	refs atomic.Int32
	// held is what the buffer counts in its user's bytes in use (the
	// pool's rounded size), given back with the memory.
	held uint64
}

// Alloc takes size bytes of device memory from the pool.
func (d *Device) Alloc(size uint64) (*Buffer, error) {
	var b *Buffer
	err := d.Do(func() (err error) {
		b, err = d.allocOn(size)
		return err
	})
	return b, err
}

// allocOn allocates on the context thread. A zero-byte buffer has address 0
// and takes nothing from the pool.
func (d *Device) allocOn(size uint64) (*Buffer, error) {
	b := &Buffer{d: d, size: size}
	b.refs.Store(1)
	if size == 0 {
		return b, nil
	}
	// An allocation that runs short first has the database's resident
	// tables that no query holds evicted (deviceUser.relieve), then runs
	// once more: every allocation site gets this, not only those wrapped
	// in TableCache.RetryOOM.
	for retried := false; ; retried = true {
		if u := d.user; u != nil {
			// The quota is checked before the shared pool is asked, so one
			// database cannot take the memory another's limit leaves free.
			b.held = roundPool(size)
			if n := u.inUse.Add(int64(b.held)); u.limit > 0 && uint64(n) > u.limit {
				u.inUse.Add(-int64(b.held))
				if !retried && u.relieveFor(uint64(n)-u.limit) {
					continue
				}
				oom := &memory.OutOfMemoryError{Requested: size, Limit: u.limit, InUse: uint64(n) - b.held, Reserved: uint64(n) - b.held}
				return nil, fmt.Errorf("gpu: allocating %d bytes of device memory: %w", size, &quotaError{oom})
			} else {
				for p := u.peak.Load(); n > p && !u.peak.CompareAndSwap(p, n); p = u.peak.Load() {
				}
			}
		}
		p, err := d.alloc.Alloc(size)
		if err != nil {
			if d.user != nil {
				d.user.inUse.Add(-int64(b.held)) // nothing was freed: no wake-up
				if !retried && IsOutOfMemory(err) && d.user.relieveFor(size) {
					continue
				}
			}
			return nil, fmt.Errorf("gpu: allocating %d bytes of device memory: %w", size, err)
		}
		b.ptr = DevicePtr(p)
		return b, nil
	}
}

// SetRelief makes relieve what an allocation of the handle's database that
// runs short calls before it fails: it frees at least need bytes of the
// database's device memory if it can (evicting resident tables no query
// holds) and returns the bytes freed. It runs on the context thread, maybe
// inside another device call, so it must not wait for a lock another
// device call could hold (TableCache.tryRelieve takes its lock only if
// free). Nil removes it.
func (d *Device) SetRelief(relieve func(need uint64) uint64) {
	if d.user == nil {
		return
	}
	if relieve == nil {
		d.user.relieve.Store(nil)
		return
	}
	d.user.relieve.Store(&relieve)
}

// relieveFor runs the user's relief for need bytes; it reports whether
// anything was freed.
func (u *deviceUser) relieveFor(need uint64) bool {
	f := u.relieve.Load()
	return f != nil && (*f)(need) > 0
}

// roundPool is the size the pool hands out for a request of n bytes.
func roundPool(n uint64) uint64 { return (n + 511) &^ 511 }

// unhold gives b's bytes back to its user's count and wakes a query
// waiting for memory.
func (d *Device) unhold(b *Buffer) {
	if d.user != nil && b.held > 0 {
		d.user.inUse.Add(-int64(b.held))
	}
	if d.memWaiters.Load() > 0 {
		d.freedMu.Lock()
		close(d.freed)
		d.freed = make(chan struct{})
		d.freedMu.Unlock()
	}
}

// quotaError is a database's device memory limit refusing an allocation
// (the shared pool was not asked). It unwraps to the
// *memory.OutOfMemoryError a user sees.
type quotaError struct{ *memory.OutOfMemoryError }

func (e *quotaError) Unwrap() error { return e.OutOfMemoryError }

func (e *quotaError) Error() string { return "the database's limit: " + e.OutOfMemoryError.Error() }

// Ptr is the buffer's device address.
func (b *Buffer) Ptr() DevicePtr { return b.ptr }

// Size is the buffer's length in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Retain adds a reference; each reference is dropped with Release.
func (b *Buffer) Retain() *Buffer {
	b.refs.Add(1)
	return b
}

// Release drops a reference; the memory goes back to the pool with the
// last one. Releasing more often than retained returns ErrReleased.
func (b *Buffer) Release() error {
	n := b.refs.Add(-1)
	if n < 0 {
		b.refs.Add(1)
		return ErrReleased
	}
	if n > 0 || b.size == 0 {
		return nil
	}
	defer b.d.unhold(b)
	if b.d.pool != nil {
		// The pool's Free takes no CUDA call (see upstream.Free): no hop to
		// the context thread.
		return b.d.pool.Free(uint64(b.ptr))
	}
	return b.d.drv.do(func() error { return b.d.alloc.Free(uint64(b.ptr)) })
}

// Stream is a CUDA stream of the Device.
type Stream struct {
	d *Device
	h streamH
}

// NewStream creates a stream.
func (d *Device) NewStream() (*Stream, error) {
	s := &Stream{d: d}
	err := d.Do(func() (err error) {
		s.h, err = d.drv.newStream()
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// DefaultStream is the stream the device's batch operations use.
func (d *Device) DefaultStream() *Stream { return d.stream }

func (d *Device) streamOf(s *Stream) streamH {
	if s == nil {
		return d.stream.h
	}
	return s.h
}

// Synchronize waits for the stream's work.
func (s *Stream) Synchronize() error { return s.d.Do(func() error { return s.d.drv.syncStream(s.h) }) }

// Close destroys the stream after its work completes.
func (s *Stream) Close() error {
	if s == s.d.stream {
		return invalidf("the default stream is closed with its device")
	}
	return s.d.Do(func() error { return s.d.drv.destroyStream(s.h) })
}

// Event is a CUDA event, for ordering and timing.
type Event struct {
	d *Device
	h eventH
}

// NewEvent creates an event that records timing.
func (d *Device) NewEvent() (*Event, error) {
	e := &Event{d: d}
	err := d.Do(func() (err error) {
		e.h, err = d.drv.newEvent()
		return err
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Record captures the work submitted to s so far (nil: the default stream).
func (e *Event) Record(s *Stream) error {
	return e.d.Do(func() error { return e.d.drv.recordEvent(e.h, e.d.streamOf(s)) })
}

// Synchronize waits until the event has happened.
func (e *Event) Synchronize() error { return e.d.Do(func() error { return e.d.drv.syncEvent(e.h) }) }

// Elapsed is the device time between e and end, both recorded and complete.
func (e *Event) Elapsed(end *Event) (time.Duration, error) {
	var ms float32
	err := e.d.Do(func() (err error) {
		ms, err = e.d.drv.elapsed(e.h, end.h)
		return err
	})
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}

// Close destroys the event.
func (e *Event) Close() error { return e.d.Do(func() error { return e.d.drv.destroyEvent(e.h) }) }

// Timer measures the device time of the work submitted to the default
// stream between StartTimer and Stop: an event pair made, recorded, read
// and destroyed in two trips to the context thread instead of eight (a
// query pays for each trip; see docs/benchlog/2026-11-25-cold-start.md, the corpus).
type Timer struct {
	d          *Device
	start, end eventH
}

// StartTimer creates the timer's events and records the first.
func (d *Device) StartTimer() (*Timer, error) {
	t := &Timer{d: d}
	err := d.Do(func() error {
		var err error
		if t.start, err = d.drv.newEvent(); err != nil {
			return err
		}
		if t.end, err = d.drv.newEvent(); err != nil {
			d.drv.destroyEvent(t.start)
			return err
		}
		if err = d.drv.recordEvent(t.start, d.streamOf(nil)); err != nil {
			d.drv.destroyEvent(t.start)
			d.drv.destroyEvent(t.end)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Stop records the end, waits for it and returns the device time between
// the two; the events are destroyed whatever happens.
func (t *Timer) Stop() (time.Duration, error) {
	var ms float32
	err := t.d.Do(func() error {
		defer t.d.drv.destroyEvent(t.start)
		defer t.d.drv.destroyEvent(t.end)
		if err := t.d.drv.recordEvent(t.end, t.d.streamOf(nil)); err != nil {
			return err
		}
		if err := t.d.drv.syncEvent(t.end); err != nil {
			return err
		}
		var err error
		ms, err = t.d.drv.elapsed(t.start, t.end)
		return err
	})
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}

// CopyToDevice copies src to device address dst on stream s (nil: the
// default stream) and waits for it, so src may be reused at once.
func (d *Device) CopyToDevice(dst DevicePtr, src []byte, s *Stream) error {
	return d.Do(func() error {
		h := d.streamOf(s)
		if err := d.drv.h2d(dst, src, h); err != nil {
			return err
		}
		d.toDevice.Add(uint64(len(src)))
		return d.drv.syncStream(h)
	})
}

// CopyToHost copies len(dst) bytes from device address src into dst on
// stream s (nil: the default stream) and waits for it.
func (d *Device) CopyToHost(dst []byte, src DevicePtr, s *Stream) error {
	return d.Do(func() error {
		h := d.streamOf(s)
		if err := d.drv.d2h(dst, src, h); err != nil {
			return err
		}
		d.toHost.Add(uint64(len(dst)))
		return d.drv.syncStream(h)
	})
}

// CopyDevice enqueues a device-to-device copy of n bytes on s.
func (d *Device) CopyDevice(dst, src DevicePtr, n uint64, s *Stream) error {
	return d.Do(func() error { return d.drv.d2d(dst, src, n, d.streamOf(s)) })
}

// Memset enqueues setting n bytes at dst to v on s.
func (d *Device) Memset(dst DevicePtr, v byte, n uint64, s *Stream) error {
	return d.Do(func() error { return d.drv.memset8(dst, v, n, d.streamOf(s)) })
}

// stagingOn returns a page-locked host buffer of at least n bytes, reusing
// the device's one, or nil when n is over the staging limit (the caller
// then uses pageable memory). Context thread only; the caller must have
// synchronised any earlier use.
func (d *Device) stagingOn(n int) ([]byte, error) {
	limit := d.opts.StagingLimit
	if limit == 0 {
		limit = 1 << 30
	}
	if uint64(n) > limit {
		return nil, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.staging) >= n {
		return d.staging[:n], nil
	}
	if d.staging != nil {
		if err := d.drv.hostFree(d.staging); err != nil {
			return nil, err
		}
		d.staging = nil
	}
	size := 1 << 20
	for size < n {
		size *= 2
	}
	if uint64(size) > limit {
		size = n
	}
	b, err := d.drv.hostAlloc(size)
	if err != nil {
		return nil, err
	}
	d.staging = b
	return b[:n], nil
}
