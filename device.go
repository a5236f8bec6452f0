package gsql

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/planner"
)

// gpuState is the database's GPU runtime, opened on first need.
type gpuState struct {
	once sync.Once
	rt   *operators.DeviceRuntime
	err  error
	// others are the devices of Options.Devices after the first, and
	// spread their runtimes (rt first, then one per other device, each
	// with its resident tables) when plans spread over several GPUs;
	// transport moves batches among them. skipped says why listed GPUs
	// are not open.
	others    []*gpuexec.Device
	spread    []*operators.DeviceRuntime
	transport exchange.Transport
	skipped   []string
	// links says which pairs of GPUs copy through host memory because
	// their peer access failed to be enabled.
	links []string
}

// gpu opens the GPU runtime (once) or says why it cannot: the runtime on
// the first device of Options.Devices, and a device state on each other.
func (db *DB) gpu() (*operators.DeviceRuntime, error) {
	db.gpuState.once.Do(func() {
		count, err := gpuexec.DeviceCount()
		if err != nil {
			db.gpuState.err = err
			return
		}
		ordinals, missing, err := deviceOrdinals(db.opts.Devices, count)
		if err == nil && len(missing) > 0 && strings.EqualFold(strings.TrimSpace(db.opts.Device), "gpu") {
			err = fmt.Errorf("%w: %s", gpuexec.ErrNoDevice, strings.Join(missing, "; "))
		}
		if err == nil && len(ordinals) == 0 {
			err = fmt.Errorf("%w: none of the GPUs %q is present (%d GPUs)", gpuexec.ErrNoDevice, db.opts.Devices, count)
		}
		if err != nil {
			db.gpuState.err = fmt.Errorf("gsql: Options.Devices: %w", err)
			return
		}
		db.gpuState.skipped = missing
		opts := gpuexec.Options{Ordinal: ordinals[0], PoolLimit: db.opts.PoolLimit, NoPool: db.opts.NoPool, ResultMemory: db.opts.ResultMemory, NoResultPool: db.opts.NoResultPool}
		rt, err := operators.NewDeviceRuntime(opts, db.opts.CacheBudget)
		if err != nil {
			db.gpuState.err = err
			return
		}
		if err := db.openOtherDevices(ordinals[1:], opts); err != nil {
			db.closeOtherDevices()
			rt.Close()
			db.gpuState.err = err
			return
		}
		db.gpuState.rt = rt
		if err := db.spreadRuntimes(); err != nil {
			db.closeOtherDevices()
			rt.Close()
			db.gpuState.rt, db.gpuState.err = nil, err
			return
		}
		db.cat.OnChange(db.invalidateResident)
		// The interpreter and the runtime module compile (or load from
		// the disk cache) in the background, before the first query, and
		// the memory pools reserve their first slabs.
		rt.Dev.WarmInterpreter()
		rt.Dev.WarmPools()
	})
	return db.gpuState.rt, db.gpuState.err
}

// place assigns each operator of a plan to a device: on the GPU when the
// database uses it and the operator's expressions all have GPU
// implementations. With device "gpu" (strict) a filter or projection that
// cannot run there is an error, never a silent CPU fallback.
func (db *DB) place(n planner.Node, ro planner.RuleOptions) (planner.Node, error) {
	placed, _, err := db.placeFinal(n, ro)
	return placed, err
}

// placeFinal is place that also reports whether the placement is final:
// false when some work went to the CPU only because its GPU kernels were
// still compiling (auto mode), so that the plan is not worth keeping.
// The placement rules run first (planner/rules.go), under ro.
func (db *DB) placeFinal(n planner.Node, ro planner.RuleOptions) (placed planner.Node, final bool, err error) {
	db.mu.RLock()
	dev, strict := db.device, db.requested == "gpu"
	db.mu.RUnlock()
	host := dev != "gpu"
	var small string
	ro.AutoMinRows = 0
	if !host && !strict {
		// Auto mode: a query over few rows is answered sooner by the CPU
		// than the GPU's fixed costs (launches, transfers, waits) allow.
		// Over more, place_by_cost keeps the parts of the plan over few
		// rows on the CPU (planner/rule_place_by_cost.go).
		if min := db.autoGPUMinRows(); min > 0 {
			if rows := planner.ScannedRows(n); rows < min {
				host = true
				small = fmt.Sprintf("auto: the query reads %d rows, under the %d from which the GPU answers sooner", rows, min)
			} else {
				ro.AutoMinRows = min
			}
		}
	}
	if n, err = planner.Placed(n, ro, host); err != nil {
		return nil, false, err
	}
	// The whole plan may be cheaper on the CPU by its estimates.
	host = host || planner.HostByCost(n)
	if host {
		if small != "" {
			n = planner.OnHost(n, small)
		}
		return n, true, nil
	}
	supported := execbuild.GPUSupport
	final = true
	if !strict && !db.opts.NoFusion {
		rt, err := db.gpu()
		if err != nil {
			return n, false, nil
		}
		if !rt.Dev.RuntimeReady() {
			// Every GPU plan needs the runtime module: until it is
			// compiled, auto mode runs queries on the CPU.
			return n, false, nil
		}
		supported = func(inputs []planner.Column, pred expr.Expr, exprs []expr.Expr) (bool, error) {
			fused, err := execbuild.GPUSupport(inputs, pred, exprs)
			if err != nil || gpuReady(rt.Dev, inputs, pred, exprs, fused) {
				return fused, err
			}
			final = false
			return fused, planner.ErrNotReady
		}
	}
	// The placement rules that size work against the device (a join's
	// build side, a filter over a scan too large to keep resident) read
	// its memory limit: the pool limit, else the GPU's memory.
	mem := db.opts.PoolLimit
	if rt, err := db.gpu(); err == nil {
		mem = rt.Dev.MemoryLimit()
	}
	placed, err = planner.Place(n, planner.PlaceOptions{GPU: true, Strict: strict, Fusion: !db.opts.NoFusion, Supported: supported,
		Aggregates: execbuild.AggregatesOnDevice, DeviceMemory: mem, AutoNotes: ro.AutoMinRows > 0 && !ro.Disabled.Has("place_by_cost")})
	if err != nil {
		return nil, final, err
	}
	// With several GPUs open, the placed plan spreads over them.
	ro.Devices, ro.SpreadRows = len(db.gpuState.spread), db.opts.SpreadRows
	return planner.Distribute(placed, ro), final, nil
}

// defaultAutoGPUMinRows is Options.AutoGPUMinRows when unset: on the H200,
// the GPU regression files (tables of a few rows) took 11x the CPU's time
// (docs/TESTING.md), while 600K-row queries answer sooner on the GPU
// (TestColdStart); the GPU's fixed cost per query is a few milliseconds,
// what the CPU spends on some 10^5 rows.
const defaultAutoGPUMinRows = 100_000

// autoGPUMinRows is the scanned rows from which auto mode places a query
// on the GPU (0: always).
func (db *DB) autoGPUMinRows() int64 {
	switch n := db.opts.AutoGPUMinRows; {
	case n < 0:
		return 0
	case n == 0:
		return defaultAutoGPUMinRows
	default:
		return n
	}
}

// gpuReady reports whether a filter/projection can run on the GPU without
// waiting for a compile: its fused kernels are in the kernel cache, or the
// interpreter is ready and takes it (split into passes as DeviceCompute
// runs it). When neither holds, its fused kernels
// start compiling in the background (auto mode never blocks on NVRTC).
func gpuReady(d *gpuexec.Device, inputs []planner.Column, pred expr.Expr, exprs []expr.Expr, fused bool) bool {
	types := make([]coldata.Type, len(inputs))
	for i, c := range inputs {
		types[i] = c.Type
	}
	outs := exprs
	if outs == nil {
		outs = planner.PassThrough(inputs)
	}
	if ok, _ := d.InterpreterReady(); ok {
		if _, err := fuse.Interpreter().LowerSplit(types, pred, outs); err == nil {
			return true
		}
	}
	if !fused {
		return false
	}
	k, err := fuse.Generate(types, pred, outs)
	return err == nil && d.FusedReady(k)
}

// WaitGPU blocks until the GPU's precompiled tier (the interpreter) and
// runtime module are ready, so that no query waits for a compile, and the
// memory pools hold their first slabs; at once
// on a database that does not use the GPU. They prepare themselves in the
// background when the database opens: a compile the first time on a
// machine (or after a driver change), a disk-cache load after that.
func (db *DB) WaitGPU(ctx context.Context) error {
	if db.Device() != "gpu" {
		return nil
	}
	rt, err := db.gpu()
	if err != nil {
		return err
	}
	if err := rt.Dev.WaitInterpreter(ctx); err != nil {
		return err
	}
	select {
	case <-rt.Dev.PoolsWarm():
	case <-ctx.Done():
		return ctx.Err()
	}
	for !rt.Dev.RuntimeReady() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// WaitCompiles waits for the kernels compiling in the background (the
// fused kernels of queries that ran on the interpreter meanwhile), so that
// the next run of those queries uses them. Benchmarks call it to measure
// warm queries; nothing else needs to.
func (db *DB) WaitCompiles(ctx context.Context) error {
	if err := db.WaitGPU(ctx); err != nil || db.Device() != "gpu" {
		return err
	}
	rt, err := db.gpu()
	if err != nil {
		return err
	}
	for rt.Dev.CompilesQueued() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// closeGPU releases the database's share of the GPU: its resident tables
// and its reference on the process's device state, which closes with the
// last database using it.
func (db *DB) closeGPU() error {
	if db.gpuState.rt == nil {
		return nil
	}
	return errors.Join(db.closeOtherDevices(), db.gpuState.rt.Close())
}

// CopyBandwidth measures the GPU's device-to-device copy rate (read plus
// write bytes per second, median of five 1 GiB copies): the yardstick that
// benchmarks report kernel throughput against.
func (db *DB) CopyBandwidth() (float64, error) {
	rt, err := db.gpu()
	if err != nil {
		return 0, err
	}
	const n = 1 << 30
	src, err := rt.Dev.Alloc(n)
	if err != nil {
		return 0, err
	}
	defer src.Release()
	dst, err := rt.Dev.Alloc(n)
	if err != nil {
		return 0, err
	}
	defer dst.Release()
	if err := rt.Dev.Memset(src.Ptr(), 0x5a, n, nil); err != nil {
		return 0, err
	}
	var times []time.Duration
	for i := 0; i < 6; i++ {
		start := time.Now()
		if err := rt.Dev.CopyDevice(dst.Ptr(), src.Ptr(), n, nil); err != nil {
			return 0, err
		}
		if err := rt.Dev.Synchronize(); err != nil {
			return 0, err
		}
		if i > 0 { // the first copy warms up
			times = append(times, time.Since(start))
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return 2 * n / times[len(times)/2].Seconds(), nil
}
