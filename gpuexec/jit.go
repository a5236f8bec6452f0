package gpuexec

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// kernelTypes names the codes the kernels compare (column storage,
// aggregate and window kinds); generated from the Go constants by
// TestKernelTypesHeader.
//
//go:generate go test -run TestKernelTypesHeader -update-kernel-header .
//go:embed kernels/gsql_types.h
var kernelTypes string

//go:embed kernels/runtime.cu
var runtimeKernels string

//go:embed kernels/hash.cu
var hashKernels string

//go:embed kernels/window.cu
var windowKernels string

//go:embed kernels/sort.cu
var sortKernels string

//go:embed kernels/winlayout.cu
var winLayoutKernels string

// runtimeSource is the package's own module: the batch utilities, the
// hash aggregation and join kernels, the window function kernels and the
// radix sort with the grouped quantiles, and the window layouts built on
// the device (after the sort, whose order keys they use).
var runtimeSource = kernelTypes + "\n" + runtimeKernels + "\n" + hashKernels + "\n" + windowKernels + "\n" + sortKernels +
	"\n" + winLayoutKernels

// RuntimeSource is the CUDA C source of the package's own kernels.
func RuntimeSource() string { return runtimeSource }

// Source is CUDA C code to compile with NVRTC. Kernels should be declared
// extern "C" so that their names are not mangled.
type Source struct {
	Name    string   // a file name for compiler messages, e.g. "redact.cu"
	Code    string   // the source text
	Options []string // extra NVRTC options; the architecture is added
}

// CacheKey is the cache key of src compiled for compute capability arch by
// NVRTC version nvrtc: a SHA-256 of the source and options, then the
// architecture and the compiler version.
func CacheKey(src Source, arch int, nvrtc string) string {
	h := sha256.New()
	h.Write([]byte(src.Code))
	for _, o := range src.Options {
		h.Write([]byte{0})
		h.Write([]byte(o))
	}
	return fmt.Sprintf("%s-sm%d-nvrtc%s", hex.EncodeToString(h.Sum(nil)[:16]), arch, nvrtc)
}

// Module is compiled and loaded device code.
type Module struct {
	d    *Device
	h    moduleH
	name string
	key  string
	// FromCache says where Compile found it: "", "memory", "disk" or
	// "shared" (made for another device of the process at the same time).
	FromCache string
}

// Kernel is a function of a Module ready to launch.
type Kernel struct {
	m    *Module
	name string
	f    functionH
}

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.name }

// LaunchConfig is a kernel launch's shape.
type LaunchConfig struct {
	Grid, Block Dim3
	SharedMem   int     // dynamic shared memory, bytes
	Stream      *Stream // nil: the device's default stream
}

// Grid1D covers n threads with blocks of block threads (a grid-stride loop
// is expected past 2^31-1 blocks, never reached in practice).
func Grid1D(n int64, block int) LaunchConfig {
	if block <= 0 {
		block = 256
	}
	g := (n + int64(block) - 1) / int64(block)
	if g < 1 {
		g = 1
	}
	if g > math.MaxInt32 {
		g = math.MaxInt32
	}
	return LaunchConfig{Grid: Dim3{int(g), 1, 1}, Block: Dim3{block, 1, 1}}
}

func (d *Device) cacheDir() (string, error) {
	if d.opts.CacheDir != "" {
		return d.opts.CacheDir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "gsql", "kernels"), nil
}

// NVRTCVersion is the version of the NVRTC library the device loaded, or an
// error if none could be loaded.
func (d *Device) NVRTCVersion() (string, error) {
	var v string
	err := d.Do(func() (err error) {
		v, err = d.drv.nvrtcVersion()
		return err
	})
	return v, err
}

// Compile compiles src for the device's compute capability, or returns the
// module from the in-memory cache or the disk cache. NVRTC runs on the
// calling goroutine, not on the context thread, so a compile of seconds
// never stalls other queries' GPU work; only the module load hops there.
// Concurrent compiles of one source share one NVRTC run.
func (d *Device) Compile(src Source) (*Module, error) {
	return d.compile(src, false)
}

// Cached returns src's module when the memory or disk cache holds it,
// without compiling: ok is false when only NVRTC could make it.
func (d *Device) Cached(src Source) (m *Module, ok bool, err error) {
	m, err = d.compile(src, true)
	if errors.Is(err, errNotCached) {
		return nil, false, nil
	}
	return m, err == nil, err
}

var errNotCached = errors.New("gpu: module not cached")

// compileOn is Compile from the context thread (the package's own runtime
// module, compiled on first use when it was not warmed).
func (d *Device) compileOn(src Source) (*Module, error) { return d.compile(src, false) }

// flight is one compile in progress, shared by every caller of its key.
type flight struct {
	done chan struct{}
	m    *Module
	err  error
}

func (d *Device) compile(src Source, cachedOnly bool) (*Module, error) {
	ver, err := d.drv.nvrtcVersion()
	if err != nil {
		return nil, err
	}
	arch := d.info.Arch()
	key := CacheKey(src, arch, ver)
	return d.compileKeyed(src.Name, key, cachedOnly, func() ([]byte, bool, error) {
		return d.drv.compile(src.Name, src.Code, src.Options, arch)
	})
}

// CompileLinked compiles parts as relocatable device code, each part by
// its own NVRTC run and all of them at once, and links them into one
// module (cached in memory and on disk like Compile's, under a key of
// every part). A part calls another's functions through extern "C"
// declarations. One large source compiles on one core; its parts compile
// on as many as there are.
func (d *Device) CompileLinked(name string, parts []Source) (*Module, error) {
	ver, err := d.drv.nvrtcVersion()
	if err != nil {
		return nil, err
	}
	arch := d.info.Arch()
	key := LinkedCacheKey(parts, arch, ver)
	return d.compileKeyed(name, key, false, func() ([]byte, bool, error) {
		images := make([][]byte, len(parts))
		cubin := make([]bool, len(parts))
		errs := make([]error, len(parts))
		var wg sync.WaitGroup
		for i, p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				opts := append([]string{"--relocatable-device-code=true"}, p.Options...)
				images[i], cubin[i], errs[i] = d.drv.compile(p.Name, p.Code, opts, arch)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, false, err
		}
		var out []byte
		err := d.Do(func() (err error) {
			out, err = d.drv.link(images, cubin)
			return err
		})
		if err != nil {
			return nil, false, fmt.Errorf("gpu: linking %s: %w", name, err)
		}
		return out, true, nil
	})
}

// LinkedCacheKey is CompileLinked's cache key: CacheKey's form over every
// part's source and options, in order.
func LinkedCacheKey(parts []Source, arch int, nvrtc string) string {
	h := sha256.New()
	h.Write([]byte("linked\x00"))
	for _, p := range parts {
		h.Write([]byte(p.Code))
		for _, o := range p.Options {
			h.Write([]byte{0})
			h.Write([]byte(o))
		}
		h.Write([]byte{1})
	}
	return fmt.Sprintf("%s-sm%d-nvrtc%s", hex.EncodeToString(h.Sum(nil)[:16]), arch, nvrtc)
}

// compileKeyed finds key's module in memory, on disk, or makes its image
// with produce (one producer per key at a time), then loads it.
func (d *Device) compileKeyed(name, key string, cachedOnly bool, produce func() ([]byte, bool, error)) (*Module, error) {
	for {
		d.mu.Lock()
		m := d.modules[key]
		f := d.flights[key]
		if m == nil && f == nil && !cachedOnly {
			f = &flight{done: make(chan struct{})}
			if d.flights == nil {
				d.flights = map[string]*flight{}
			}
			d.flights[key] = f
			d.mu.Unlock()
			start := time.Now()
			f.m, f.err = d.build(name, key, produce, false)
			d.NoteCompileWait(time.Since(start))
			d.mu.Lock()
			delete(d.flights, key)
			d.mu.Unlock()
			close(f.done)
			return f.m, f.err
		}
		d.mu.Unlock()
		if m != nil {
			d.memHits.Add(1)
			return &Module{d: d, h: m.h, name: m.name, key: key, FromCache: "memory"}, nil
		}
		if f != nil {
			if cachedOnly {
				return nil, errNotCached
			}
			// From the context thread (compileOn), keep serving it: the
			// flight's own module load hops there.
			start := time.Now()
			d.drv.await(f.done)
			d.NoteCompileWait(time.Since(start))
			if f.err != nil {
				return nil, f.err
			}
			continue // now in the memory cache
		}
		// cachedOnly with nothing in memory: the disk, without NVRTC.
		return d.build(name, key, produce, true)
	}
}

// build finds key's image on disk or makes it with produce, loads it on
// the context thread and enters it in the memory cache. The module belongs
// to the state's own handle: the memory cache hands it to every handle.
func (d *Device) build(name, key string, produce func() ([]byte, bool, error), diskOnly bool) (*Module, error) {
	from := ""
	var image []byte
	var cache *diskCache
	if dir, err := d.cacheDir(); err == nil && !d.opts.NoDiskCache {
		cache = &diskCache{dir: dir}
		if img, ok := cache.read(key); ok {
			image, from = img, "disk"
		}
	}
	if image == nil && diskOnly {
		return nil, errNotCached
	}
	if image == nil {
		var err error
		if image, from, err = d.produceShared(cache, name, key, produce); err != nil {
			return nil, err
		}
	}
	load := func() (h moduleH, err error) {
		start := time.Now()
		err = d.Do(func() (err error) {
			h, err = d.drv.loadModule(image)
			return err
		})
		d.loadNanos.Add(int64(time.Since(start)))
		return h, err
	}
	h, err := load()
	if err != nil && (from == "disk" || from == "shared") {
		// An entry the driver refuses (a stale or foreign image with a
		// good checksum, or one another device made that this one cannot
		// load): drop it and compile afresh.
		if from == "disk" {
			cache.remove(key)
		}
		if diskOnly {
			return nil, errNotCached
		}
		if image, from, err = d.produce(context.Background(), cache, name, key, produce); err != nil {
			return nil, err
		}
		h, err = load()
	}
	if err != nil {
		return nil, fmt.Errorf("gpu: loading module %s: %w", name, err)
	}
	switch from {
	case "disk":
		d.diskHits.Add(1)
	case "shared":
		d.sharedHits.Add(1)
	}
	m := &Module{d: d.self, h: h, name: name, key: key, FromCache: from}
	d.mu.Lock()
	d.modules[key] = m
	d.loaded = append(d.loaded, h)
	d.mu.Unlock()
	return m, nil
}

// imageFlights are the images being made in this process, by cache key
// (which names the architecture), shared by every device state: the GPUs
// of one host, usually of one architecture, miss the same kernels at the
// same moment (a plan's copies start on every device at once), and one
// NVRTC run serves them all, each loading the image into its own context.
// The disk cache's lock does the same across processes, but only with a
// cache directory, and by polling.
var imageFlights = struct {
	sync.Mutex
	m map[string]*imageFlight
}{m: map[string]*imageFlight{}}

type imageFlight struct {
	done  chan struct{}
	image []byte
	err   error
}

// produceShared is produce, unless another device state of the process is
// making key's image already: then it waits for that one (from "shared"),
// and makes its own only if that one failed.
func (d *Device) produceShared(cache *diskCache, name, key string, produce func() ([]byte, bool, error)) ([]byte, string, error) {
	imageFlights.Lock()
	if f := imageFlights.m[key]; f != nil {
		imageFlights.Unlock()
		// From the context thread, keep serving it meanwhile.
		d.drv.await(f.done)
		if f.err == nil {
			return f.image, "shared", nil
		}
		return d.produce(context.Background(), cache, name, key, produce)
	}
	f := &imageFlight{done: make(chan struct{})}
	imageFlights.m[key] = f
	imageFlights.Unlock()
	defer func() {
		imageFlights.Lock()
		delete(imageFlights.m, key)
		imageFlights.Unlock()
		close(f.done)
	}()
	var from string
	f.image, from, f.err = d.produce(context.Background(), cache, name, key, produce)
	if f.err != nil {
		return nil, "", f.err
	}
	return f.image, from, nil
}

// produce makes key's image with NVRTC and writes it to the disk cache
// (nil: none), holding the key's lock file meanwhile so that processes
// missing the same kernel compile it once: a waiter that gets the lock
// finds the entry the holder wrote (from "disk").
func (d *Device) produce(ctx context.Context, cache *diskCache, name, key string, produce func() ([]byte, bool, error)) (image []byte, from string, err error) {
	if cache != nil {
		// A lock that cannot be taken costs only a duplicate compile.
		unlock, locked, _ := cache.lock(ctx, key, CompileLockWait)
		defer unlock()
		if locked {
			if img, ok := cache.read(key); ok {
				return img, "disk", nil
			}
		}
	}
	start := time.Now()
	img, cubin, err := produce()
	took := time.Since(start)
	d.compileNanos.Add(int64(took))
	if err != nil {
		return nil, "", err
	}
	d.compiles.Add(1)
	logCompile(key, name, took)
	if cache != nil {
		// A failed cache write costs only a recompilation later.
		_ = cache.write(key, img, cubin)
	}
	return img, "", nil
}

// DropMemoryCache forgets the in-memory module cache so that the next
// Compile of a source goes to the disk cache or NVRTC (for tests and
// benchmarks). Modules stay loaded until the device closes.
func (d *Device) DropMemoryCache() {
	d.mu.Lock()
	d.modules = map[string]*Module{}
	d.byKernel = nil
	d.builtins = nil
	d.mu.Unlock()
}

// Key is the module's cache key.
func (m *Module) Key() string { return m.key }

// Kernel looks a kernel up by name.
func (m *Module) Kernel(name string) (*Kernel, error) {
	k := &Kernel{m: m, name: name}
	err := m.d.Do(func() (err error) {
		k.f, err = m.d.drv.function(m.h, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: module %s: %w", m.name, err)
	}
	return k, nil
}

// Launch starts the kernel. Arguments may be DevicePtr, *Buffer (its
// address), int, int64, uint64, uint, float64 (passed as 8 bytes) or int32,
// uint32, float32 (4 bytes); they must match the kernel's parameters. An
// error names the kernel.
func (k *Kernel) Launch(cfg LaunchConfig, args ...any) error {
	vals := make([]uint64, len(args))
	sizes := make([]uint8, len(args))
	for i, a := range args {
		v, n, ok := kernelArg(a)
		if !ok {
			return invalidf("kernel %s: argument %d has unsupported type %T", k.name, i, a)
		}
		vals[i], sizes[i] = v, n
	}
	if cfg.Grid.X <= 0 || cfg.Block.X <= 0 {
		return invalidf("kernel %s: empty grid %v or block %v", k.name, cfg.Grid, cfg.Block)
	}
	d := k.m.d
	return d.Do(func() error { return d.launchOn(k, cfg, vals, sizes) })
}

func (d *Device) launchOn(k *Kernel, cfg LaunchConfig, vals []uint64, sizes []uint8) error {
	fix := func(x Dim3) Dim3 {
		if x.Y <= 0 {
			x.Y = 1
		}
		if x.Z <= 0 {
			x.Z = 1
		}
		return x
	}
	s := d.streamOf(cfg.Stream)
	err := d.drv.launch(k.f, fix(cfg.Grid), fix(cfg.Block), cfg.SharedMem, s, vals, sizes)
	d.launches.Add(1)
	if err == nil && d.opts.Debug {
		err = d.drv.syncStream(s)
	}
	if err != nil {
		var ce *CUDAError
		if errors.As(err, &ce) && ce.Kernel == "" {
			c := *ce
			c.Kernel = k.name
			return &c
		}
		return fmt.Errorf("gpu: kernel %s: %w", k.name, err)
	}
	return nil
}

func kernelArg(a any) (uint64, uint8, bool) {
	switch x := a.(type) {
	case DevicePtr:
		return uint64(x), 8, true
	case *Buffer:
		return uint64(x.ptr), 8, true
	case int:
		return uint64(x), 8, true
	case int64:
		return uint64(x), 8, true
	case uint64:
		return x, 8, true
	case uint:
		return uint64(x), 8, true
	case float64:
		return math.Float64bits(x), 8, true
	case int32:
		return uint64(uint32(x)), 4, true
	case uint32:
		return uint64(x), 4, true
	case float32:
		return uint64(math.Float32bits(x)), 4, true
	}
	return 0, 0, false
}

// builtinOn returns the package's own kernel name, compiling the runtime
// module on first use. Context thread only.
func (d *Device) builtinOn(name string) (*Kernel, error) {
	d.mu.Lock()
	m := d.builtins
	d.mu.Unlock()
	if m == nil {
		var err error
		if m, err = d.compileOn(Source{Name: "gsql_runtime.cu", Code: runtimeSource}); err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.builtins = m
		d.mu.Unlock()
	}
	f, err := d.drv.function(m.h, name)
	if err != nil {
		return nil, err
	}
	return &Kernel{m: m, name: name, f: f}, nil
}

// launch1D runs a builtin kernel over n threads on the default stream.
// Context thread only.
func (d *Device) launch1D(name string, n int64, args ...uint64) error {
	if n <= 0 {
		return nil
	}
	k, err := d.builtinOn(name)
	if err != nil {
		return err
	}
	cfg := Grid1D(n, 256)
	if max := int(d.info.SMs) * 32; max > 0 && cfg.Grid.X > max {
		cfg.Grid.X = max // the builtins use grid-stride loops
	}
	sizes := make([]uint8, len(args))
	for i := range sizes {
		sizes[i] = 8
	}
	return d.launchOn(k, cfg, args, sizes)
}
