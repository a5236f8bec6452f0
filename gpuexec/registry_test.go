package gpuexec

import (
	"context"
	"errors"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/memory"
)

// fakeRegistry is a registry whose states run over threaded fake drivers
// (their context work on one goroutine, as CUDA's is on one thread, so
// that concurrent handles do not race inside the fake); made lists every
// driver it created.
type fakeRegistry struct {
	*registry
	mu   sync.Mutex
	made []*threadedDriver
	// capacity, when set, bounds each fake device's memory.
	capacity uint64
}

func newFakeRegistry() *fakeRegistry {
	fr := &fakeRegistry{}
	fr.registry = &registry{newDriver: func(Options) (driver, error) {
		t := newThreadedDriver()
		if fr.capacity > 0 {
			t.mem = memory.NewGoUpstream(fr.capacity)
		}
		fr.mu.Lock()
		fr.made = append(fr.made, t)
		fr.mu.Unlock()
		return t, nil
	}}
	return fr
}

func (f *fakeDriver) closeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closes
}

func (fr *fakeRegistry) drivers() []*threadedDriver {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return append([]*threadedDriver(nil), fr.made...)
}

// compileCount is the number of NVRTC runs of every driver so far.
func (fr *fakeRegistry) compileCount() int {
	n := 0
	for _, t := range fr.drivers() {
		t.mu.Lock()
		n += t.compiles
		t.mu.Unlock()
	}
	return n
}

const probeSource = `extern "C" __global__ void probe_add(long long* x, long long n) { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] += i; }`

func TestRegistrySharesOneState(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name   string
		a, b   Options
		shared bool
	}{
		{"same options", Options{CacheDir: dir}, Options{CacheDir: dir}, true},
		{"limits differ", Options{CacheDir: dir, PoolLimit: 1 << 20}, Options{CacheDir: dir}, true},
		{"another GPU", Options{CacheDir: dir}, Options{CacheDir: dir, Ordinal: 1}, false},
		{"another cache", Options{CacheDir: dir}, Options{CacheDir: t.TempDir()}, false},
		{"pool off", Options{CacheDir: dir}, Options{CacheDir: dir, NoPool: true}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr := newFakeRegistry()
			a, err := fr.open(c.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fr.open(c.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.deviceState == b.deviceState; got != c.shared {
				t.Fatalf("shared = %v, want %v", got, c.shared)
			}
			want := 2
			if c.shared {
				want = 1
			}
			if n := len(fr.drivers()); n != want {
				t.Fatalf("%d drivers (contexts), want %d", n, want)
			}
			if c.shared && a.Users() != 2 {
				t.Fatalf("Users = %d, want 2", a.Users())
			}
			if err := errors.Join(a.Close(), b.Close()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Two databases on one GPU: one compile of a kernel, the second handle
// gets it from memory; closing one leaves the other working; closing both
// closes the device.
func TestRegistryOpenCloseLifecycle(t *testing.T) {
	fr := newFakeRegistry()
	opts := Options{CacheDir: t.TempDir(), SlabSize: 1 << 20}
	a, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range []*Device{a, b} {
		m, err := d.Compile(Source{Name: "probe.cu", Code: probeSource})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"", "memory"}[i]; m.FromCache != want {
			t.Fatalf("handle %d: module from %q, want %q", i, m.FromCache, want)
		}
	}
	if n := fr.compileCount(); n != 1 {
		t.Fatalf("%d compiles for two databases, want 1", n)
	}
	ctx := context.Background()
	hb := randBatchLight(rand.New(rand.NewSource(1)), 500)
	held, err := a.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	if a.InUse() == 0 || b.InUse() != 0 {
		t.Fatalf("in use: a %d, b %d", a.InUse(), b.InUse())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil { // twice is harmless
		t.Fatal(err)
	}
	if _, err := a.Alloc(8); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed handle allocated: %v", err)
	}
	// The other database still works, kernels and all.
	db, err := b.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Download(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len != hb.Len {
		t.Fatalf("round trip after the other closed: %d rows, want %d", got.Len, hb.Len)
	}
	db.Release()
	held.Release() // a buffer of the closed database, released late
	if m, err := b.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil || m.FromCache != "memory" {
		t.Fatalf("after a close: %v, from %q", err, m.FromCache)
	}
	if _, err := b.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
		t.Fatal(err)
	}
	drv := fr.drivers()[0]
	if drv.closes != 0 {
		t.Fatal("device closed while a database uses it")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if drv.closes != 1 || drv.streams != 0 || drv.hostLive != 0 {
		t.Fatalf("after the last close: %d closes, %d streams, %d host buffers", drv.closes, drv.streams, drv.hostLive)
	}
	// A new database makes a new state.
	c, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.deviceState == b.deviceState || len(fr.drivers()) != 2 {
		t.Fatal("a closed state was handed out again")
	}
}

// The interpreter and runtime module warm up once per state, whichever
// database asks, and survive the first database closing.
func TestRegistryWarmsOnce(t *testing.T) {
	fr := newFakeRegistry()
	opts := Options{CacheDir: t.TempDir()}
	a, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	a.WarmInterpreter()
	b, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	a.Close() // the first database goes while the warm-up runs
	b.WarmInterpreter()
	if err := b.WaitInterpreter(context.Background()); err != nil {
		t.Fatal(err)
	}
	for !b.RuntimeReady() {
		time.Sleep(time.Millisecond)
	}
	// Interpreter parts (linked) + the runtime module, each compiled once.
	before := fr.compileCount()
	c, err := fr.open(opts)
	if err != nil {
		t.Fatal(err)
	}
	c.WarmInterpreter()
	if err := c.WaitInterpreter(context.Background()); err != nil || !c.RuntimeReady() {
		t.Fatalf("third database: %v", err)
	}
	if n := fr.compileCount(); n != before {
		t.Fatalf("a third database compiled again: %d compiles, then %d", before, n)
	}
	if err := c.Do(func() error { _, err := c.builtinOn("gsql_copy_bits"); return err }); err != nil {
		t.Fatal(err)
	}
	b.Close()
	c.Close()
}

// Each database's limit holds on the shared pool: its buffers' bytes are
// counted against its own quota, and an allocation past it fails with the
// out-of-memory kind without touching the pool.
func TestRegistryQuotas(t *testing.T) {
	fr := newFakeRegistry()
	dir := t.TempDir()
	small, err := fr.open(Options{CacheDir: dir, PoolLimit: 1 << 20, SlabSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	big, err := fr.open(Options{CacheDir: dir, SlabSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	if small.MemoryLimit() != 1<<20 || big.MemoryLimit() != big.Info().TotalMemory {
		t.Fatalf("limits %d, %d", small.MemoryLimit(), big.MemoryLimit())
	}
	tests := []struct {
		d    *Device
		size uint64
		ok   bool
	}{
		{small, 512 << 10, true},
		{small, 600 << 10, false}, // 512 KiB + 600 KiB > 1 MiB
		{big, 8 << 20, true},
		{small, 511 << 10, true},
	}
	var held []*Buffer
	for i, tc := range tests {
		b, err := tc.d.Alloc(tc.size)
		if tc.ok != (err == nil) {
			t.Fatalf("case %d: alloc %d: %v", i, tc.size, err)
		}
		if err != nil {
			if !errors.Is(err, memory.ErrOutOfMemory) || errkind.Of(err) != errkind.OutOfMemory || !strings.Contains(err.Error(), "limit") {
				t.Fatalf("case %d: error %v (kind %v)", i, err, errkind.Of(err))
			}
			continue
		}
		held = append(held, b)
	}
	if small.InUse() != 1023<<10 || big.InUse() != 8<<20 {
		t.Fatalf("in use: %d, %d", small.InUse(), big.InUse())
	}
	for _, b := range held {
		b.Release()
	}
	if small.InUse() != 0 || big.InUse() != 0 {
		t.Fatalf("after release: %d, %d", small.InUse(), big.InUse())
	}
}

// Databases opening, working and closing at once on one GPU (run with
// -race): every open finds a working state, and the last close closes it.
func TestRegistryConcurrentOpenClose(t *testing.T) {
	fr := newFakeRegistry()
	opts := Options{CacheDir: t.TempDir(), SlabSize: 1 << 20}
	keep, err := fr.open(opts) // one long-lived user, as a server has
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hb := randBatchLight(rand.New(rand.NewSource(2)), 200)
	var wg sync.WaitGroup
	var failures atomic.Int32
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				o := opts
				o.PoolLimit = uint64(1+g) << 20
				d, err := fr.open(o)
				if err != nil {
					t.Error(err)
					failures.Add(1)
					return
				}
				if _, err := d.Compile(Source{Name: "probe.cu", Code: probeSource}); err != nil {
					t.Error(err)
				}
				db, err := d.Upload(ctx, hb)
				if err != nil {
					t.Error(err)
				} else {
					db.Release()
				}
				if err := d.Close(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if failures.Load() > 0 {
		return
	}
	if n := len(fr.drivers()); n != 1 {
		t.Fatalf("%d states for one GPU with a user throughout", n)
	}
	if keep.Users() != 1 || keep.InUse() != 0 {
		t.Fatalf("after the others: %d users, %d bytes in use", keep.Users(), keep.InUse())
	}
	keep.Close()
	if d := fr.drivers()[0]; d.closeCount() != 1 {
		t.Fatalf("%d closes", d.closeCount())
	}
	// Without a long-lived user states come and go; all must close.
	fr2 := newFakeRegistry()
	wg = sync.WaitGroup{}
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				d, err := fr2.open(opts)
				if err != nil {
					t.Error(err)
					return
				}
				if b, err := d.Alloc(4096); err == nil {
					b.Release()
				}
				d.Close()
			}
		}()
	}
	wg.Wait()
	for i, d := range fr2.drivers() {
		if d.closeCount() != 1 {
			t.Fatalf("state %d closed %d times", i, d.closeCount())
		}
	}
	if len(fr2.states) != 0 {
		t.Fatalf("%d states left in the registry", len(fr2.states))
	}
}

// With a linger, a database closed and reopened finds the same state.
func TestRegistryLinger(t *testing.T) {
	fr := newFakeRegistry()
	fr.linger = time.Hour
	opts := Options{CacheDir: t.TempDir()}
	a, _ := fr.open(opts)
	a.Close()
	b, _ := fr.open(opts)
	if a.deviceState != b.deviceState || len(fr.drivers()) != 1 {
		t.Fatal("reopen within the linger made a new state")
	}
	fr.registry.mu.Lock()
	fr.linger = time.Millisecond
	fr.registry.mu.Unlock()
	b.Close()
	deadline := time.Now().Add(5 * time.Second)
	for fr.drivers()[0].closeCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if fr.drivers()[0].closeCount() != 1 {
		t.Fatal("state not closed after the linger")
	}
}
