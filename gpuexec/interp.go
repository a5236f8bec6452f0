package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// Pending is a compile running on the device's compile pool.
type Pending struct {
	done chan struct{}
	m    *Module
	err  error
	// Took is the compile's duration (NVRTC, or a cache read, and the
	// module load), known once Done is closed.
	Took time.Duration
}

// Done is closed when the compile has finished.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Ready reports whether the compile has finished.
func (p *Pending) Ready() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait blocks until the compile has finished and returns its module.
func (p *Pending) Wait(ctx context.Context) (*Module, error) {
	select {
	case <-p.done:
		return p.m, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// compileWorkers bounds the NVRTC runs in the background: each takes a
// core for up to seconds, and queries run beside them.
func compileWorkers() int {
	return max(1, min(4, runtime.NumCPU()/4))
}

// CompileAsync starts compiling src on the device's bounded compile pool
// and returns at once; requests for a source already queued or compiling
// get that compile's Pending.
func (d *Device) CompileAsync(src Source) *Pending {
	d.mu.Lock()
	if d.compilePool == nil {
		d.compilePool = make(chan struct{}, compileWorkers())
	}
	pool := d.compilePool
	key := CacheKey(src, d.info.Arch(), "")
	if p := d.asyncs[key]; p != nil {
		d.mu.Unlock()
		return p
	}
	p := &Pending{done: make(chan struct{})}
	if d.asyncs == nil {
		d.asyncs = map[string]*Pending{}
	}
	d.asyncs[key] = p
	d.mu.Unlock()
	go func() {
		defer close(p.done)
		defer func() {
			d.mu.Lock()
			delete(d.asyncs, key)
			d.mu.Unlock()
		}()
		pool <- struct{}{}
		defer func() { <-pool }()
		defer d.hostCompileSlot()()
		start := time.Now()
		// The state's own handle: the result is shared, and one
		// caller's database closing must not fail it for the others.
		p.m, p.err = d.self.Compile(src)
		p.Took = time.Since(start)
	}()
	return p
}

// interpState is the device's tier-0 interpreter: its module compiles once
// (then from the disk cache) in the background when the device opens.
type interpState struct {
	once       sync.Once
	pending    *Pending
	runtime    *Pending // the runtime module's warm-up compile
	set        kernelSet
	tables     DevicePtr // case-mapping tables, uploaded once
	tablesSize uint64
	tabPtr     [4]DevicePtr
	err        error
	ready      chan struct{}
}

// WarmInterpreter starts preparing the interpreter (and the runtime
// module) in the background; it returns at once.
func (d *Device) WarmInterpreter() {
	d.interp.once.Do(func() {
		// Prepared once per shared state, for every handle: on its own
		// handle, which outlives whichever database asked first.
		d := d.self
		d.interp.ready = make(chan struct{})
		// ptxas -O1: the interpreter's one-time compile is shorter than at
		// the default level (docs/benchlog/2026-11-25-cold-start.md).
		opts := append([]string{"--ptxas-options=-O1"}, kernelOptions...)
		it := fuse.Interpreter()
		if os.Getenv("GSQL_INTERP_LINK") == "0" {
			// One translation unit (an experiment's switch: the compile
			// runs on one core).
			d.interp.pending = d.CompileAsync(Source{Name: "gsql_interp_" + it.Key + ".cu", Code: it.Source, Options: opts})
		} else {
			// The parts compile in parallel, outside the background pool:
			// the interpreter is what the first queries wait for.
			partOpts := append([]string{fmt.Sprintf("--maxrregcount=%d", fuse.InterpRegisterCap())}, opts...)
			parts := make([]Source, len(it.Parts))
			for i, code := range it.Parts {
				parts[i] = Source{Name: fmt.Sprintf("gsql_interp_%s_%d.cu", it.Key, i), Code: code, Options: partOpts}
			}
			p := &Pending{done: make(chan struct{})}
			go func() {
				defer close(p.done)
				start := time.Now()
				p.m, p.err = d.CompileLinked("gsql_interp_"+it.Key, parts)
				p.Took = time.Since(start)
			}()
			d.interp.pending = p
		}
		go func() {
			defer close(d.interp.ready)
			m, err := d.interp.pending.Wait(context.Background())
			if err == nil {
				err = d.interp.finish(d, m)
			}
			d.interp.err = err
		}()
		// The runtime module (packing, hash tables) is wanted by most
		// queries too.
		d.interp.runtime = d.CompileAsync(Source{Name: "gsql_runtime.cu", Code: runtimeSource})
	})
}

// WarmPools reserves, in the background, the first slab of the device
// memory pool and of the page-locked result pool, which a process's first
// query otherwise pays for (page-locking the first slab takes longer than
// a small query: docs/benchlog/2026-11-25-cold-start.md);
// PoolsWarm is closed when it is done.
func (d *Device) WarmPools() {
	d.poolsOnce.Do(func() {
		d := d.self
		d.poolsWarm = make(chan struct{})
		go func() {
			defer close(d.poolsWarm)
			// Failures only leave the work to the first query.
			if b, err := d.Alloc(1); err == nil {
				b.Release()
			}
			if blk := d.results.Lend(1); blk != nil {
				blk.Release()
			}
		}()
	})
}

// PoolsWarm is closed once WarmPools has reserved the pools' first slabs.
func (d *Device) PoolsWarm() <-chan struct{} {
	d.WarmPools()
	return d.poolsWarm
}

// CompilesQueued is the number of background compiles not yet finished.
func (d *Device) CompilesQueued() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.asyncs) + int(d.later.Load())
}

// RuntimeReady reports whether the package's own module (packing, hash
// tables) is compiled, so that no query waits for it.
func (d *Device) RuntimeReady() bool {
	d.WarmInterpreter()
	d.mu.Lock()
	built := d.builtins != nil
	d.mu.Unlock()
	if built {
		return true
	}
	select {
	case <-d.interp.runtime.Done():
		return d.interp.runtime.err == nil
	default:
		return false
	}
}

// FusedReady reports whether k's kernels are in the kernel cache; when
// they are not, it starts compiling them in the background (once per
// kernel shape).
func (d *Device) FusedReady(k *fuse.Kernel) bool {
	if _, ok, err := d.Cached(fusedSource(k)); err == nil && ok {
		return true
	}
	d.CompileFusedAsync(k)
	return false
}

func (s *interpState) finish(d *Device, m *Module) error {
	for _, name := range []string{"gsql_sizes", "gsql_scan", "gsql_fill"} {
		k, err := m.Kernel(name)
		if err != nil {
			return err
		}
		switch name {
		case "gsql_sizes":
			s.set.sizes = k
		case "gsql_scan":
			s.set.scan = k
		case "gsql_fill":
			s.set.fill = k
		}
	}
	var blob []byte
	var at [4]int
	uf, ut, lf, lt := fuse.CaseTables()
	for i, tab := range [][]int32{uf, ut, lf, lt} {
		for len(blob)%8 != 0 {
			blob = append(blob, 0)
		}
		at[i] = len(blob)
		for _, r := range tab {
			blob = binary.LittleEndian.AppendUint32(blob, uint32(r))
		}
	}
	// The tables live as long as the device, outside the pool, so that
	// the pool's bytes in use stay the queries' and the resident tables'.
	var ptr DevicePtr
	err := d.Do(func() (err error) {
		ptr, err = d.drv.memAlloc(uint64(len(blob)))
		return err
	})
	if err != nil {
		return err
	}
	if err := d.CopyToDevice(ptr, blob, nil); err != nil {
		return err
	}
	d.mu.Lock()
	closed := d.closed.Load()
	if !closed {
		s.tables, s.tablesSize = ptr, uint64(len(blob))
	}
	d.mu.Unlock()
	if closed {
		return ErrClosed // the driver has freed everything
	}
	for i := range at {
		s.tabPtr[i] = ptr + DevicePtr(at[i])
	}
	return nil
}

// InterpreterReady reports whether the interpreter can run now (false
// while it compiles; an error if it failed).
func (d *Device) InterpreterReady() (bool, error) {
	d.WarmInterpreter()
	select {
	case <-d.interp.ready:
		return d.interp.err == nil, d.interp.err
	default:
		return false, nil
	}
}

// InterpreterDone is closed when the interpreter's preparation has ended
// (InterpreterReady then says how).
func (d *Device) InterpreterDone() <-chan struct{} {
	d.WarmInterpreter()
	return d.interp.ready
}

// WaitInterpreter blocks until the interpreter is ready.
func (d *Device) WaitInterpreter(ctx context.Context) error {
	d.WarmInterpreter()
	select {
	case <-d.interp.ready:
		return d.interp.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ProgramKernel is a lowered program ready for the interpreter: the
// tier-0 counterpart of FusedKernel. The program travels with each batch's
// column table (one host-to-device copy), so preparing it costs nothing on
// the device.
type ProgramKernel struct {
	d *Device
	p *fuse.Program
	// split, when set instead of p, runs several programs over the batch
	// (work wider than one program) and puts their outputs side by side.
	split *fuse.Split
}

// PrepareProgram readies p for the interpreter, which must be ready.
func (d *Device) PrepareProgram(p *fuse.Program) (*ProgramKernel, error) {
	if ok, err := d.InterpreterReady(); !ok {
		if err == nil {
			err = fmt.Errorf("gpu: the interpreter is still compiling")
		}
		return nil, err
	}
	return &ProgramKernel{d: d, p: p}, nil
}

// PrepareSplit readies the programs of s (fuse.Interp.LowerSplit) for the
// interpreter, which must be ready.
func (d *Device) PrepareSplit(s *fuse.Split) (*ProgramKernel, error) {
	if len(s.Parts) == 1 && s.Parts[0].Cols == nil {
		return d.PrepareProgram(s.Parts[0].Program)
	}
	pk, err := d.PrepareProgram(nil)
	if err != nil {
		return nil, err
	}
	pk.split = s
	return pk, nil
}

// Release frees the program (nothing stays on the device between batches).
func (pk *ProgramKernel) Release() error { return nil }

// Launches is the number of kernel launches Run makes per batch.
func (pk *ProgramKernel) Launches() int {
	if pk.split != nil {
		return 3 * len(pk.split.Parts)
	}
	return 3
}

// Run evaluates the program over the batch (the program's input types, in
// order) and returns a new batch of its outputs, like FusedKernel.Run.
func (pk *ProgramKernel) Run(ctx context.Context, in *DeviceBatch) (*DeviceBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *DeviceBatch
	err := pk.d.Do(func() (err error) {
		out, err = pk.run(in, 0, in.Len)
		return err
	})
	return out, err
}

// RunGather evaluates the program with output row i reading input row
// idx[i], for the n int64 indexes at idx in device memory (a gather when
// the program passes its columns through, as FusedKernel.RunGather).
func (pk *ProgramKernel) RunGather(ctx context.Context, in *DeviceBatch, idx DevicePtr, n int) (*DeviceBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *DeviceBatch
	err := pk.d.Do(func() (err error) {
		out, err = pk.run(in, idx, n)
		return err
	})
	return out, err
}

func (pk *ProgramKernel) run(in *DeviceBatch, gather DevicePtr, rowsIn int) (*DeviceBatch, error) {
	if pk.split == nil {
		return pk.runProgram(pk.p, in, gather, rowsIn)
	}
	var cols []DeviceVec
	var outs []*DeviceBatch
	defer func() {
		for _, o := range outs {
			o.Release()
		}
	}()
	rows := -1
	for i, part := range pk.split.Parts {
		src := in
		if part.Cols != nil {
			sub := make([]DeviceVec, len(part.Cols))
			for j, c := range part.Cols {
				if c < 0 || c >= len(in.Cols) {
					return nil, invalidf("program part %d reads column %d of %d", i, c, len(in.Cols))
				}
				sub[j] = in.Cols[c]
			}
			var err error
			if src, err = Combine(sub, in.Len, in); err != nil {
				return nil, err
			}
		}
		out, err := pk.runProgram(part.Program, src, gather, rowsIn)
		if src != in {
			src.Release()
		}
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
		if rows >= 0 && out.Len != rows {
			// Every part evaluates the same filter over the same rows.
			return nil, fmt.Errorf("internal error: program part %d kept %d rows, part 0 %d", i, out.Len, rows)
		}
		rows = out.Len
		cols = append(cols, out.Cols...)
	}
	return Combine(cols, max(rows, 0), outs...)
}

// runProgram runs one program over the batch in (its inputs, in order).
func (pk *ProgramKernel) runProgram(p *fuse.Program, in *DeviceBatch, gather DevicePtr, rowsIn int) (*DeviceBatch, error) {
	in, done, err := pk.d.unshifted(in, p.Used)
	if err != nil {
		return nil, fmt.Errorf("program: %w", err)
	}
	defer done()
	st := &pk.d.interp
	const tableWords = 4 * (fuse.InterpMaxInputs + fuse.InterpMaxOutputs)
	progWords := (int64(len(p.Blob)) + 7) / 8
	// The control buffer's prefix: the column table, then the program.
	words := make([]byte, 8*(tableWords+progWords))
	copy(words[8*tableWords:], p.Blob)
	put := func(slot int, v DevicePtr) { binary.LittleEndian.PutUint64(words[8*slot:], uint64(v)) }
	return pk.d.runPasses(in, rowsIn, passLaunch{
		what: "program", inputs: p.Inputs, used: p.Used, outputs: p.Outputs,
		set: &st.set, counters: fuse.InterpCounters, tile: fuse.Block, blocksPerSM: interpBlocksPerSM(),
		twoPass: true, prefixWords: tableWords + progWords,
		setup: func(r *passRun) error {
			for c, col := range in.Cols {
				if !p.Used[c] {
					continue
				}
				put(4*c, col.Nulls)
				if col.Type == coldata.String {
					put(4*c+2, col.Offsets)
					put(4*c+3, col.Data)
				} else {
					put(4*c+1, col.Data)
				}
			}
			// One copy: the inputs' pointers, the (empty) output slots and
			// the program.
			return r.d.enqueueToDevice(r.prefix, words)
		},
		bindOutputs: func(r *passRun, cols []DeviceVec, rows int64) error {
			if r.rows == 0 || rows == 0 {
				return nil // no fill pass reads the slots
			}
			for j, col := range cols {
				slot := 4 * (fuse.InterpMaxInputs + j)
				put(slot, col.Nulls)
				if col.Type == coldata.String {
					put(slot+2, col.Offsets)
					put(slot+3, col.Data)
				} else {
					put(slot+1, col.Data)
				}
			}
			lo := 8 * 4 * fuse.InterpMaxInputs
			return r.d.enqueueToDevice(r.prefix+DevicePtr(lo), words[lo:lo+8*4*len(p.Outputs)])
		},
		args: func(r *passRun) []any { return pk.args(r, gather) },
	})
}

// args are the interpreter kernels' parameters for one run, in
// fuse.InterpFields' order.
func (pk *ProgramKernel) args(r *passRun, gather DevicePtr) []any {
	st := &pk.d.interp
	const tableWords = 4 * (fuse.InterpMaxInputs + fuse.InterpMaxOutputs)
	uf, _, lf, _ := fuse.CaseTables()
	fields := fuse.InterpFields()
	out := make([]any, 0, len(fields))
	for _, f := range fields {
		var v any = DevicePtr(0)
		switch f {
		case fuse.IFieldRows:
			v = r.rows
		case fuse.IFieldBlocks:
			v = r.blocks
		case fuse.IFieldProgram:
			v = r.prefix + DevicePtr(8*tableWords)
		case fuse.IFieldColumns:
			v = r.prefix
		case fuse.IFieldUpperFrom:
			v = st.tabPtr[0]
		case fuse.IFieldUpperTo:
			v = st.tabPtr[1]
		case fuse.IFieldUpperLen:
			v = int64(len(uf))
		case fuse.IFieldLowerFrom:
			v = st.tabPtr[2]
		case fuse.IFieldLowerTo:
			v = st.tabPtr[3]
		case fuse.IFieldLowerLen:
			v = int64(len(lf))
		case fuse.IFieldBlockSums:
			v = r.sums
		case fuse.IFieldTotals:
			v = r.totals
		case fuse.IFieldErr:
			v = r.errWord
		case fuse.IFieldGather:
			v = gather
		}
		out = append(out, v)
	}
	return out
}

// enqueueToDevice copies a small pageable host slice on the default stream
// without waiting: the driver stages pageable memory before it returns, so
// src may be reused, and stream order keeps later launches behind the copy.
// Context thread only.
func (d *Device) enqueueToDevice(dst DevicePtr, src []byte) error {
	if err := d.drv.h2d(dst, src, d.streamOf(nil)); err != nil {
		return err
	}
	d.toDevice.Add(uint64(len(src)))
	return nil
}

// interpBlocksPerSM is the interpreter's grid in blocks per multiprocessor
// (GSQL_INTERP_BLOCKS overrides it, for measurements): each thread keeps its
// registers and scratch in local memory, so fewer resident threads keep
// more of it in L1.
func interpBlocksPerSM() int {
	if n, err := strconv.Atoi(os.Getenv("GSQL_INTERP_BLOCKS")); err == nil && n > 0 {
		return n
	}
	return DefaultBlocksPerSM
}
