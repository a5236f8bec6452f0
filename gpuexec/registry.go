package gpuexec

import (
	"sync"
	"time"
)

// The registry shares one device state per GPU among the databases of a
// process: a CUDA context thread, the memory pool, pinned staging, the
// compiled kernels and the interpreter cost seconds and gigabytes each,
// and a process that opens twelve databases on one GPU wants them once.

// registry maps the options that shape a device state to the state that
// Open hands out, counting its handles.
type registry struct {
	mu        sync.Mutex
	states    map[Options]*deviceState
	newDriver func(Options) (driver, error)
	// linger keeps a state whose last handle closed for this long, so that
	// a database closed and opened again (the on-disk regression run
	// reopens after every statement) finds its kernels still loaded.
	linger time.Duration
}

// devices is the process's registry.
var devices = &registry{newDriver: newDriver}

// Open returns a handle on GPU opts.Ordinal shared with every other handle
// of the process opened with the same options but for PoolLimit: they use
// one context thread, memory pool, staging buffer, kernel cache and
// interpreter. PoolLimit is the handle's own quota on the device memory
// its buffers hold (the shared pool itself is bounded by the GPU). Close
// the handle when done: the state closes with the last one (after the
// linger set by SetLinger). Errors are NewDevice's.
func Open(opts Options) (*Device, error) { return devices.open(opts) }

// SetLinger keeps a shared device state open for d after its last handle
// closes (0, the default: close at once), and returns the previous
// setting. A process that closes and reopens its databases in a loop
// keeps its context and compiled kernels across the gap.
func SetLinger(d time.Duration) time.Duration {
	devices.mu.Lock()
	defer devices.mu.Unlock()
	old := devices.linger
	devices.linger = d
	return old
}

// sharedKey is the part of opts that must match for two handles to share a
// state: everything but the per-handle quota.
func sharedKey(opts Options) Options {
	opts.PoolLimit = 0
	return opts
}

func (r *registry) open(opts Options) (*Device, error) {
	key := sharedKey(opts)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.states[key]
	if s == nil {
		// Under the lock: a second Open of the same GPU waits for this
		// one instead of making a context of its own.
		drv, err := r.newDriver(key)
		if err != nil {
			return nil, err
		}
		if s, err = newState(drv, key); err != nil {
			drv.close()
			return nil, err
		}
		s.reg, s.key = r, key
		if r.states == nil {
			r.states = map[Options]*deviceState{}
		}
		r.states[key] = s
	}
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	s.refs++
	return &Device{deviceState: s, user: &deviceUser{limit: opts.PoolLimit}}, nil
}

// release drops one handle's reference; the last one closes the state,
// at once or after the linger.
func (r *registry) release(s *deviceState) error {
	r.mu.Lock()
	s.refs--
	if s.refs > 0 {
		r.mu.Unlock()
		return nil
	}
	if r.linger > 0 && r.states[s.key] == s {
		s.idle = time.AfterFunc(r.linger, func() {
			r.mu.Lock()
			idle := s.refs == 0 && r.states[s.key] == s
			if idle {
				delete(r.states, s.key)
				s.idle = nil
			}
			r.mu.Unlock()
			if idle {
				s.close()
			}
		})
		r.mu.Unlock()
		return nil
	}
	if r.states[s.key] == s {
		delete(r.states, s.key)
	}
	r.mu.Unlock()
	return s.close()
}

// Users is the number of open handles on the device's state (1 for a
// private device).
func (d *Device) Users() int {
	if d.reg == nil {
		return 1
	}
	d.reg.mu.Lock()
	defer d.reg.mu.Unlock()
	return d.refs
}

// ForQuery returns a handle on the same device and quota that counts the
// waits of the work done through it in w: the handle a query's operators
// use. Closing it closes nothing.
func (d *Device) ForQuery(w *Waits) *Device {
	w.link(&d.totalWaits)
	return &Device{deviceState: d.deviceState, user: d.user, waits: w, derived: true}
}

// Peak is the most device memory the handle's database has held (pool
// bytes); for a state's own handle, the pool's peak.
func (d *Device) Peak() uint64 {
	if d.user == nil {
		return d.alloc.Stats().Peak
	}
	return uint64(max(0, d.user.peak.Load()))
}

// InUse is the device memory the handle's database holds (pool bytes, as
// the pool rounds them); for a state's own handle, the pool's bytes in use.
func (d *Device) InUse() uint64 {
	if d.user == nil {
		return d.alloc.Stats().InUse
	}
	return uint64(max(0, d.user.inUse.Load()))
}
