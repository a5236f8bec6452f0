package gpuexec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// ErrScratch reports a row whose intermediate string did not fit the
// per-thread scratch of a fused kernel; the caller re-runs the batch on the
// library path, which has no such limit.
var ErrScratch = errors.New("gpu: fused kernel scratch overflow")

// ErrOverflow is a BIGINT result out of range, as on the CPU.
var ErrOverflow = errkind.New(errkind.OutOfRange, "BIGINT value is out of range")

// MaxKernelArgs is the most parameters a kernel launch passes.
const MaxKernelArgs = 512

// ErrFallback reports a batch holding a value the kernel cannot convert
// exactly (a decimal string with many digits, say); the caller evaluates
// that batch on the CPU.
var ErrFallback = errors.New("gpu: batch needs the CPU")

// ErrDecimalRange reports a DECIMAL result beyond its type's precision in
// a batch: the caller evaluates the batch on the CPU, which raises the
// error with the type in its message (expr.ErrDecimalRange).
var ErrDecimalRange = errkind.New(errkind.OutOfRange, "gpu: DECIMAL value is out of range")

// ErrRegexpPattern, ErrRegexpFlag and ErrRegexpPosition are the REGEXP
// functions' errors, as on the CPU (expr.ErrRegexp, expr.ErrOutOfRange): a
// pattern that does not compile, an unknown match flag, a position below 1.
var (
	ErrRegexpPattern  = fmt.Errorf("%w: the pattern does not compile", expr.ErrRegexp)
	ErrRegexpFlag     = fmt.Errorf("%w: unknown match flag", expr.ErrRegexp)
	ErrRegexpPosition = fmt.Errorf("%w in a REGEXP function: position is out of range", expr.ErrOutOfRange)
)

// ErrTooLong is a string result over 1 GiB, as on the CPU.
var ErrTooLong = errors.New("string result too large")

// FusedKernel is a generated kernel set compiled for a device with its
// literals and tables uploaded: ready to run over any number of batches.
type FusedKernel struct {
	d *Device
	k *fuse.Kernel
	// thread holds the kernels with one row per thread; warp those with
	// one row per warp (k.WarpSource), compiled when a batch first needs
	// them (warpErr: that compile failed, and batches stay on thread).
	thread, warp kernelSet
	warpTried    bool
	warpErr      error
	consts       *Buffer // literal bytes and case tables
	lits         map[int]DevicePtr
	tables       [4]DevicePtr
	// FromCache says where the module came from: "" (compiled now),
	// "memory", "disk" or "shared" (compiled for another GPU meanwhile).
	FromCache string
	// Profile, when set before Run, times the passes with events.
	Profile *KernelProfile
	// BlocksPerSM sets the sizes/fill grid to this many blocks per
	// multiprocessor (0: DefaultBlocksPerSM). Each block takes one
	// contiguous share of the rows.
	BlocksPerSM int
	// WarpMinAvg is the average string input bytes per row from which a
	// batch runs with one row per warp, when the kernel has that form (0:
	// the kernel's own fuse.Kernel.WarpMinAvg; negative: never).
	WarpMinAvg int
	// WarpBatches counts the batches Run evaluated with one row per warp.
	WarpBatches int
}

// WarpErr is the error of compiling the one-row-per-warp form, if that was
// tried and failed (its batches then ran one row per thread).
func (fk *FusedKernel) WarpErr() error { return fk.warpErr }

// kernelSet is the entry points of one compiled module.
type kernelSet struct {
	sizes, scan, fill, mapK *Kernel
}

// DefaultBlocksPerSM is the grid of the sizes and fill passes, in blocks
// per multiprocessor.
const DefaultBlocksPerSM = 8

// KernelProfile is the device time of a fused kernel's last Run.
type KernelProfile struct {
	Sizes, Fill time.Duration // sizes+scan passes; fill (or the single pass)
	events      [3]*Event
}

func (p *KernelProfile) record(d *Device, k int) {
	if p.events[k] == nil {
		e, err := d.NewEvent()
		if err != nil {
			return
		}
		p.events[k] = e
	}
	p.events[k].Record(nil)
}

// finish reads the event times (the caller has synchronised).
func (p *KernelProfile) Finish() {
	if p.events[2] == nil {
		return
	}
	p.events[2].Synchronize()
	if p.events[0] != nil && p.events[1] != nil {
		p.Sizes, _ = p.events[0].Elapsed(p.events[1])
	}
	if p.events[1] != nil {
		p.Fill, _ = p.events[1].Elapsed(p.events[2])
	}
}

// PrepareFused compiles (or finds in the kernel cache) the kernel set of k
// and uploads its literals.
func (d *Device) PrepareFused(k *fuse.Kernel) (*FusedKernel, error) {
	fk, _, err := d.prepareFused(k, false)
	return fk, err
}

// PrepareFusedCached is PrepareFused when k's module is in the memory or
// disk cache; ok is false (and nothing is compiled) otherwise.
func (d *Device) PrepareFusedCached(k *fuse.Kernel) (fk *FusedKernel, ok bool, err error) {
	return d.prepareFused(k, true)
}

// CompileFusedAsync starts compiling k's module on the compile pool; a
// later PrepareFused or PrepareFusedCached finds it in the cache.
func (d *Device) CompileFusedAsync(k *fuse.Kernel) *Pending {
	return d.CompileAsync(fusedSource(k))
}

// CompileFusedNow is CompileFusedAsync for kernels a query waits on: the
// compile starts at once instead of queueing on the compile pool behind
// background compiles of other shapes (with an empty kernel cache, a
// query the interpreter cannot take, TPC-H Q19's filter, waited mostly on
// other compiles: docs/benchlog/2026-11-26-tpch-gpu.md). A compile of the
// same source already under way is joined, not repeated.
func (d *Device) CompileFusedNow(k *fuse.Kernel) *Pending {
	return d.compileNow(fusedSource(k))
}

// compileNow compiles src outside the compile pool.
func (d *Device) compileNow(src Source) *Pending {
	p := &Pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		start := time.Now()
		p.m, p.err = d.self.Compile(src)
		p.Took = time.Since(start)
	}()
	return p
}

// CompileFusedLater generates a kernel set with gen and compiles it on the
// compile pool. gen runs only once a worker is free, so that compiles
// waiting their turn hold no source: a corpus of new query shapes queues
// hundreds, and each source is hundreds of kilobytes.
func (d *Device) CompileFusedLater(gen func() (*fuse.Kernel, error)) *Pending {
	d.mu.Lock()
	if d.compilePool == nil {
		d.compilePool = make(chan struct{}, compileWorkers())
	}
	pool := d.compilePool
	d.mu.Unlock()
	d.later.Add(1)
	p := &Pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer d.later.Add(-1)
		pool <- struct{}{}
		defer func() { <-pool }()
		defer d.hostCompileSlot()()
		start := time.Now()
		k, err := gen()
		if err == nil {
			p.m, err = d.self.Compile(fusedSource(k))
		}
		p.err, p.Took = err, time.Since(start)
	}()
	return p
}

func fusedSource(k *fuse.Kernel) Source {
	return Source{Name: "gsql_" + k.Key + ".cu", Code: k.Source, Options: kernelOptions}
}

// kernelOptions are the NVRTC options of generated kernels. No contraction
// of a*b+c into one fused multiply-add: the CPU rounds twice, and DOUBLE
// results must be the CPU's to the last bit.
var kernelOptions = []string{"--fmad=false"}

func (d *Device) prepareFused(k *fuse.Kernel, cachedOnly bool) (*FusedKernel, bool, error) {
	src := fusedSource(k)
	var mod *Module
	var err error
	d.mu.Lock()
	mod = d.byKernel[k.Key]
	d.mu.Unlock()
	if mod != nil {
		d.memHits.Add(1)
		mod = &Module{d: d, h: mod.h, name: mod.name, key: mod.key, FromCache: "memory"}
	} else if cachedOnly {
		var ok bool
		if mod, ok, err = d.Cached(src); err != nil || !ok {
			return nil, false, err
		}
	} else if mod, err = d.Compile(src); err != nil {
		return nil, false, err
	}
	d.mu.Lock()
	if d.byKernel == nil {
		d.byKernel = map[string]*Module{}
	}
	d.byKernel[k.Key] = mod
	d.mu.Unlock()
	set, from, err := d.kernelSetOf(k, mod)
	if err != nil {
		return nil, false, err
	}
	fk := &FusedKernel{d: d, k: k, thread: set, FromCache: from, lits: map[int]DevicePtr{}}
	if err := fk.uploadConsts(); err != nil {
		return nil, false, err
	}
	return fk, true, nil
}

// compileSet compiles one form of a generated kernel set.
func (d *Device) compileSet(k *fuse.Kernel, name, code string) (kernelSet, string, error) {
	mod, err := d.Compile(Source{Name: name, Code: code, Options: kernelOptions})
	if err != nil {
		return kernelSet{}, "", err
	}
	return d.kernelSetOf(k, mod)
}

// kernelSetOf looks up a generated kernel set's entry points in mod.
func (d *Device) kernelSetOf(k *fuse.Kernel, mod *Module) (kernelSet, string, error) {
	var set kernelSet
	names := []string{"gsql_map"}
	if k.TwoPass() {
		names = []string{"gsql_sizes", "gsql_scan", "gsql_fill"}
	}
	for _, n := range names {
		kern, err := mod.Kernel(n)
		if err != nil {
			return set, "", err
		}
		switch n {
		case "gsql_map":
			set.mapK = kern
		case "gsql_sizes":
			set.sizes = kern
		case "gsql_scan":
			set.scan = kern
		case "gsql_fill":
			set.fill = kern
		}
	}
	return set, mod.FromCache, nil
}

// useWarp reports whether a batch of rows rows runs one row per warp: the
// kernel has that form and the string columns it reads average at least
// WarpMinAvg bytes per row. A column whose byte count the host does not
// know costs one read of its first and last offsets.
func (fk *FusedKernel) useWarp(in *DeviceBatch, rows int64) (bool, error) {
	minAvg := int64(fk.WarpMinAvg)
	if minAvg == 0 {
		minAvg = int64(fk.k.WarpMinAvg)
	}
	if fk.k.WarpSource == "" || minAvg < 0 || rows == 0 || fk.warpErr != nil {
		return false, nil
	}
	var bytes int64
	strings := 0
	for i, c := range in.Cols {
		if !fk.k.Used[i] || c.Type != coldata.String {
			continue
		}
		strings++
		n := c.Chars
		if n == 0 && c.Len > 0 {
			var ends [4]byte
			var first, last int32
			if err := fk.d.CopyToHost(ends[:], c.Offsets, nil); err != nil {
				return false, err
			}
			first = int32(binary.LittleEndian.Uint32(ends[:]))
			if err := fk.d.CopyToHost(ends[:], c.Offsets+DevicePtr(4*c.Len), nil); err != nil {
				return false, err
			}
			last = int32(binary.LittleEndian.Uint32(ends[:]))
			n = int64(last - first)
		}
		bytes += n
	}
	if strings == 0 || bytes < minAvg*int64(strings)*rows {
		return false, nil
	}
	if !fk.warpTried {
		fk.warpTried = true
		fk.warp, _, fk.warpErr = fk.d.compileSet(fk.k, "gsql_"+fk.k.Key+"_warp.cu", fk.k.WarpSource)
		if fk.warpErr != nil {
			return false, nil
		}
	}
	return true, nil
}

// uploadConsts puts string literals and, when needed, the case-mapping
// tables into one device buffer.
func (fk *FusedKernel) uploadConsts() error {
	var blob []byte
	at := map[int]int{}
	align := func() {
		for len(blob)%8 != 0 {
			blob = append(blob, 0)
		}
	}
	for slot, p := range fk.k.Params {
		if s, ok := p.(string); ok {
			align()
			at[slot] = len(blob)
			blob = append(blob, s...)
		}
	}
	var tabAt [4]int
	if fk.k.NeedsCase {
		uf, ut, lf, lt := fuse.CaseTables()
		for i, tab := range [][]int32{uf, ut, lf, lt} {
			align()
			tabAt[i] = len(blob)
			for _, r := range tab {
				blob = binary.LittleEndian.AppendUint32(blob, uint32(r))
			}
		}
	}
	if len(blob) == 0 {
		return nil
	}
	buf, err := fk.d.Alloc(uint64(len(blob)))
	if err != nil {
		return err
	}
	if err := fk.d.CopyToDevice(buf.Ptr(), blob, nil); err != nil {
		buf.Release()
		return err
	}
	fk.consts = buf
	for slot, off := range at {
		fk.lits[slot] = buf.Ptr() + DevicePtr(off)
	}
	for i := range tabAt {
		fk.tables[i] = buf.Ptr() + DevicePtr(tabAt[i])
	}
	return nil
}

// Release frees the kernel's uploaded constants.
func (fk *FusedKernel) Release() error {
	if fk.consts == nil {
		return nil
	}
	err := fk.consts.Release()
	fk.consts = nil
	return err
}

// Launches is the number of kernel launches Run makes per batch.
func (fk *FusedKernel) Launches() int {
	if fk.k.TwoPass() {
		return 3
	}
	return 1
}

// Run evaluates the kernel over the batch's columns (the kernel's input
// types, in order) and returns a new batch holding the outputs. It waits
// for the device once: after the sizes pass (two-pass kernels, which need
// the output sizes) or after the single pass (to check for errors).
func (fk *FusedKernel) Run(ctx context.Context, in *DeviceBatch) (*DeviceBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// One hop to the context thread for the whole batch: every allocation,
	// memset, launch and copy below then runs directly.
	var out *DeviceBatch
	err := fk.d.Do(func() (err error) {
		out, err = fk.run(in, 0, in.Len)
		return err
	})
	return out, err
}

// RunGather runs a gather kernel (fuse.GenerateGather): output row i is row
// idx[i] of in, for the n int64 indexes at idx in device memory.
func (fk *FusedKernel) RunGather(ctx context.Context, in *DeviceBatch, idx DevicePtr, n int) (*DeviceBatch, error) {
	if !fk.k.Gather {
		return nil, invalidf("RunGather on a kernel that is not a gather")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out *DeviceBatch
	err := fk.d.Do(func() (err error) {
		out, err = fk.run(in, idx, n)
		return err
	})
	return out, err
}

func (fk *FusedKernel) run(in *DeviceBatch, gather DevicePtr, rowsIn int) (*DeviceBatch, error) {
	k := fk.k
	in, done, err := fk.d.unshifted(in, k.Used)
	if err != nil {
		return nil, fmt.Errorf("fused kernel: %w", err)
	}
	defer done()
	set, tile := &fk.thread, int64(fuse.Block)
	warp, err := fk.useWarp(in, int64(rowsIn))
	if err != nil {
		return nil, err
	}
	if warp && gather == 0 {
		set, tile = &fk.warp, fuse.Block/32
		fk.WarpBatches++
	}
	perSM := fk.BlocksPerSM
	if perSM <= 0 {
		perSM = DefaultBlocksPerSM
	}
	outPtrs := map[string]DevicePtr{}
	return fk.d.runPasses(in, rowsIn, passLaunch{
		what: "fused kernel", inputs: k.Inputs, used: k.Used, outputs: k.Outputs,
		set: set, counters: int64(1 + k.StringOutputs), tile: tile, blocksPerSM: perSM,
		twoPass: k.TwoPass(), profile: fk.Profile,
		setup: func(r *passRun) error {
			for _, f := range k.Fields {
				// Only the thread form stores row sizes (the warp form
				// recomputes them).
				if f.Kind == fuse.FieldRowSizes && !warp {
					rb, err := r.alloc(uint64(4 * max(r.rows, 1)))
					if err != nil {
						return err
					}
					outPtrs[f.Name] = rb.Ptr()
				}
			}
			return nil
		},
		bindOutputs: func(_ *passRun, cols []DeviceVec, _ int64) error {
			for j, col := range cols {
				outPtrs[fmt.Sprintf("out%d_valid", j)] = col.Nulls
				if col.Type == coldata.String {
					outPtrs[fmt.Sprintf("out%d_off", j)] = col.Offsets
					outPtrs[fmt.Sprintf("out%d_chars", j)] = col.Data
				} else {
					outPtrs[fmt.Sprintf("out%d_data", j)] = col.Data
				}
			}
			return nil
		},
		args: func(r *passRun) []any { return fk.args(r, in, gather, outPtrs) },
	})
}

// args are the kernel's parameters for one run, in k.Fields' order.
func (fk *FusedKernel) args(r *passRun, in *DeviceBatch, gather DevicePtr, outPtrs map[string]DevicePtr) []any {
	k := fk.k
	out := make([]any, len(k.Fields))
	for i, f := range k.Fields {
		var v any = DevicePtr(0)
		switch f.Kind {
		case fuse.FieldRows:
			v = r.rows
		case fuse.FieldBlocks:
			v = r.blocks
		case fuse.FieldGather:
			v = gather
		case fuse.FieldInValid:
			v = in.Cols[f.Col].Nulls
		case fuse.FieldInData, fuse.FieldInChars:
			v = in.Cols[f.Col].Data
		case fuse.FieldInOffsets:
			v = in.Cols[f.Col].Offsets
		case fuse.FieldLitStr:
			v = fk.lits[f.Lit]
		case fuse.FieldLitLen:
			v = int64(len(k.Params[f.Lit].(string)))
		case fuse.FieldLitInt:
			v = k.Params[f.Lit].(int64)
		case fuse.FieldLitFloat:
			v = k.Params[f.Lit].(float64)
		case fuse.FieldUpperFrom:
			v = fk.tables[0]
		case fuse.FieldUpperTo:
			v = fk.tables[1]
		case fuse.FieldLowerFrom:
			v = fk.tables[2]
		case fuse.FieldLowerTo:
			v = fk.tables[3]
		case fuse.FieldUpperLen, fuse.FieldLowerLen:
			uf, _, lf, _ := fuse.CaseTables()
			v = int64(len(uf))
			if f.Kind == fuse.FieldLowerLen {
				v = int64(len(lf))
			}
		case fuse.FieldOutValid, fuse.FieldOutData, fuse.FieldOutOffsets, fuse.FieldOutChars, fuse.FieldRowSizes:
			v = outPtrs[f.Name]
		case fuse.FieldBlockSums:
			v = r.sums
		case fuse.FieldTotals:
			v = r.totals
		case fuse.FieldErr:
			v = r.errWord
		}
		out[i] = v
	}
	return out
}

// outputColumns allocates a kernel's output columns of rows rows: each a
// validity bitmap in 32-bit words preset to all valid, then int32 offsets
// (the first set to 0) and bytes[s] chars for the s-th string column, or
// fixed-width data.
func outputColumns(d *Device, types []coldata.Type, rows int64, bytes []int64, alloc func(uint64) (*Buffer, error)) ([]DeviceVec, *PackLayout, error) {
	// The outputs are laid out as a packed batch in one buffer, so that a
	// result's download needs no packing pass (launches and a wait on the
	// string offsets) and a query makes one allocation for them.
	specs := make([]ColumnSpec, len(types))
	s := 0
	for j, t := range types {
		specs[j] = ColumnSpec{Type: t, HasNulls: true}
		if t == coldata.String {
			if bytes[s] > 1<<31-1 {
				return nil, nil, fmt.Errorf("gpu: output column of %d bytes exceeds 32-bit offsets; use smaller batches", bytes[s])
			}
			specs[j].Chars = bytes[s]
			s++
		}
	}
	l, err := NewPackLayout(int(rows), specs)
	if err != nil {
		return nil, nil, err
	}
	buf, err := alloc(allocSize(l))
	if err != nil {
		return nil, nil, err
	}
	cols := viewsOf(l, buf.Ptr())
	for j, c := range l.Cols {
		// Kernels clear the bits of NULL rows a 32-bit word at a time; the
		// word-rounded bitmap stays inside the region's alignment padding.
		if words := uint64((rows+31)/32) * 4; words > 0 {
			if err := d.Memset(cols[j].Nulls, 0xff, words, nil); err != nil {
				return nil, nil, err
			}
		}
		if c.Offsets.Present() {
			if err := d.Memset(cols[j].Offsets, 0, 4, nil); err != nil {
				return nil, nil, err
			}
		}
	}
	return cols, &l, nil
}

// outputBatch is a kernel's output batch: the packed outputs' buffer
// first (a packed batch's data is its first buffer), then the rest.
func outputBatch(d *Device, cols []DeviceVec, l *PackLayout, bufs []*Buffer) *DeviceBatch {
	base := viewBase(&DeviceBatch{Cols: cols}, *l)
	for i, b := range bufs {
		if b.Ptr() == base {
			bufs[0], bufs[i] = bufs[i], bufs[0]
			break
		}
	}
	return &DeviceBatch{Cols: cols, Len: l.Rows, d: d, bufs: bufs, layout: l}
}

func kernelError(code uint32) error {
	switch code {
	case 0:
		return nil
	case 1:
		return ErrOverflow
	case 2:
		return ErrScratch
	case 3:
		return ErrTooLong
	case 4:
		return ErrFallback
	case 5:
		return ErrDecimalRange
	case 16:
		return ErrRegexpPattern
	case 17:
		return ErrRegexpFlag
	case 18:
		return ErrRegexpPosition
	}
	return fmt.Errorf("gpu: fused kernel reported error %d", code)
}

// Combine returns a batch of the given columns, which belong to the owner
// batches; it holds its own references to the owners' buffers, so the
// owners may be released independently.
func Combine(cols []DeviceVec, rows int, owners ...*DeviceBatch) (*DeviceBatch, error) {
	out := &DeviceBatch{Cols: cols, Len: rows}
	for _, o := range owners {
		if err := o.check(); err != nil {
			return nil, err
		}
		if out.d == nil {
			out.d = o.d
		}
		for _, b := range o.bufs {
			out.bufs = append(out.bufs, b.Retain())
		}
	}
	return out, nil
}
