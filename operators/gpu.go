package operators

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/gsqlengine/gsql/opspec"
	"sort"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// GPURuntime is what GPU operators share: the device and the cache of
// device-resident tables.
type GPURuntime struct {
	Dev   *gpuexec.Device
	Cache *gpuexec.TableCache
}

// DeviceOperator is an operator whose batches live in device memory. The
// caller releases every batch it receives.
type DeviceOperator interface {
	Open(ctx context.Context) error
	NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error)
	Close() error
}

// DeviceBatchRows bounds the rows of one device batch (a variable so that
// tests can make tables of many batches); string columns are further
// limited by deviceBatchChars so that 32-bit offsets never overflow.
var DeviceBatchRows = 1 << 28

const deviceBatchChars = 1 << 30

// GroupForDevice groups host batches into few large device batches (the
// GPU wants millions of rows per launch) within the device batch limits;
// each group is uploaded as one batch, packed without a host copy.
func GroupForDevice(batches []*coldata.Batch) [][]*coldata.Batch {
	var out [][]*coldata.Batch
	var group []*coldata.Batch
	rows := 0
	var chars []int
	for _, b := range batches {
		if chars == nil {
			chars = make([]int, len(b.Cols))
		}
		over := rows+b.Len > DeviceBatchRows
		for c, v := range b.Cols {
			if v.Type == coldata.String && !v.Const && chars[c]+int(v.Offsets[b.Len]-v.Offsets[0]) > deviceBatchChars {
				over = true
			}
		}
		if over && len(group) > 0 {
			out = append(out, group)
			group, rows = nil, 0
			clear(chars)
		}
		group = append(group, b)
		rows += b.Len
		for c, v := range b.Cols {
			if v.Type == coldata.String && !v.Const {
				chars[c] += int(v.Offsets[b.Len] - v.Offsets[0])
			}
		}
	}
	if len(group) > 0 {
		out = append(out, group)
	}
	return out
}

// DeviceScan produces a table's device batches: the resident copy's,
// uploaded on first use (one packed transfer per coalesced batch), or, for
// a table too large to keep resident under the device's memory limit, row
// ranges uploaded one at a time, each freed by the operators above before
// the next is uploaded (see gpuexec.TableCache.Scan).
type DeviceScan struct {
	RT      *GPURuntime
	Table   string
	Version uint64
	Load    func() ([]*coldata.Batch, error)
	// Prepare, if set, groups the loaded batches of a table that becomes
	// resident, each group one device batch (streamed tables are read as
	// loaded).
	Prepare func([]*coldata.Batch) [][]*coldata.Batch
	Cols    []int
	Stats   *Stats

	scan *gpuexec.TableScan
}

// Open implements DeviceOperator.
func (s *DeviceScan) Open(ctx context.Context) error {
	before := s.RT.Dev.Stats().BytesToDevice
	sc, err := s.RT.Cache.ScanPrepared(ctx, s.Table, s.Version, s.Load, s.Prepare, s.Cols)
	if err != nil {
		return fmt.Errorf("device scan of %s: %w", s.Table, err)
	}
	s.countBytes(before)
	s.scan = sc
	return nil
}

func (s *DeviceScan) countBytes(before uint64) {
	if s.Stats != nil {
		s.Stats.Bytes.Add(int64(s.RT.Dev.Stats().BytesToDevice - before))
	}
}

// Streamed reports whether the open scan uploads its table in chunks.
func (s *DeviceScan) Streamed() bool { return s.scan != nil && s.scan.Streamed() }

// NextDevice implements DeviceOperator.
func (s *DeviceScan) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if s.scan == nil {
		return nil, fmt.Errorf("device scan of %s: not open", s.Table)
	}
	before := s.RT.Dev.Stats().BytesToDevice
	b, err := s.scan.Next(ctx)
	s.countBytes(before)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("device scan of %s: %w", s.Table, err)
	}
	return b, nil
}

// Close implements DeviceOperator.
func (s *DeviceScan) Close() error {
	if s.scan == nil {
		return nil
	}
	err := s.scan.Close()
	s.scan = nil
	return err
}

// HostToDevice uploads host batches.
type HostToDevice struct {
	Input Operator
	RT    *GPURuntime
	Stats *Stats
}

// Open implements DeviceOperator.
func (h *HostToDevice) Open(ctx context.Context) error { return h.Input.Open(ctx) }

// NextDevice implements DeviceOperator.
func (h *HostToDevice) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	b, err := h.Input.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	before := h.RT.Dev.Stats().BytesToDevice
	var db *gpuexec.DeviceBatch
	err = h.RT.Cache.RetryOOM(func() (err error) {
		db, err = h.RT.Dev.Upload(ctx, b)
		return err
	})
	if h.Stats != nil {
		h.Stats.Bytes.Add(int64(h.RT.Dev.Stats().BytesToDevice - before))
	}
	return db, err
}

// Close implements DeviceOperator.
func (h *HostToDevice) Close() error { return h.Input.Close() }

// DeviceToHost downloads device batches (one transfer each).
type DeviceToHost struct {
	Input DeviceOperator
	RT    *GPURuntime
	Stats *Stats
	// Results downloads into page-locked memory lent by the result pool:
	// each batch's Owner holds it (set by UseResultMemory for the query's
	// reader, which releases it). The download of one batch then overlaps
	// the kernels of the next.
	Results bool
	// Keep retains every device batch it downloads in Kept, in order, for
	// a statement that makes them a table's resident copy (the caller then
	// owns them). Set by KeepDeviceResults.
	Keep bool
	Kept []*gpuexec.DeviceBatch

	// pending are row ranges of a batch whose download ran out of memory.
	pending []*gpuexec.DeviceBatch
	// inflight is the next batch's download, started before the current
	// one is handed out; inputDone says the input has no more batches.
	inflight  *gpuexec.ResultCopy
	inputDone bool
	ready     []*coldata.Batch // downloaded, to be handed out in order
}

// Open implements Operator.
func (d *DeviceToHost) Open(ctx context.Context) error {
	d.inputDone = false
	return d.Input.Open(ctx)
}

// Next implements Operator. Downloading a batch that is not packed packs it
// on the device first, which takes as much memory again: when that runs out
// even after evicting unused resident tables, the batch is downloaded in
// halves.
func (d *DeviceToHost) Next(ctx context.Context) (*coldata.Batch, error) {
	if d.Results {
		return d.nextOverlapped(ctx)
	}
	for {
		db, err := d.pull(ctx)
		if err != nil || db == nil {
			return nil, err
		}
		hb, err := d.download(ctx, db)
		if err != nil || hb == nil {
			if err == nil {
				continue // split in halves
			}
			return nil, err
		}
		if hb.Len > 0 {
			return hb, nil
		}
	}
}

// pull returns the next device batch: a pending half, or the input's.
func (d *DeviceToHost) pull(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if len(d.pending) > 0 {
		db := d.pending[0]
		d.pending = d.pending[1:]
		if err := ctx.Err(); err != nil {
			db.Release()
			return nil, err
		}
		return db, nil
	}
	return d.Input.NextDevice(ctx)
}

// download copies db to the host (and releases it); a nil batch and nil
// error mean that db ran out of memory and was queued again in halves.
func (d *DeviceToHost) download(ctx context.Context, db *gpuexec.DeviceBatch) (*coldata.Batch, error) {
	before := d.RT.Dev.Stats().BytesToHost
	var hb *coldata.Batch
	err := d.RT.Cache.RetryOOM(func() (err error) {
		if d.Results {
			hb, err = d.RT.Dev.DownloadResult(ctx, db)
		} else {
			hb, err = d.RT.Dev.Download(ctx, db)
		}
		return err
	})
	if d.Stats != nil {
		d.Stats.Bytes.Add(int64(d.RT.Dev.Stats().BytesToHost - before))
	}
	if gpuexec.IsOutOfMemory(err) && ctx.Err() == nil {
		if lo, hi, ok := splitHalves(db); ok {
			db.Release()
			d.pending = append([]*gpuexec.DeviceBatch{lo, hi}, d.pending...)
			return nil, nil
		}
	}
	if d.Keep && err == nil {
		if k, kerr := db.Retain(); kerr == nil {
			d.Kept = append(d.Kept, k)
		} else {
			err = kerr
		}
	}
	if rerr := db.Release(); err == nil {
		err = rerr
	}
	return hb, err
}

// start begins the download of the next device batch without waiting for
// it; d.inflight is nil when the input is exhausted. A batch whose download
// cannot start for lack of device memory takes the synchronous path (which
// evicts and splits): its result is returned as done.
func (d *DeviceToHost) start(ctx context.Context) (done *coldata.Batch, err error) {
	for d.inflight == nil && !d.inputDone {
		db, err := d.pull(ctx)
		if err != nil {
			return nil, err
		}
		if db == nil {
			d.inputDone = true
			return nil, nil
		}
		before := d.RT.Dev.Stats().BytesToHost
		keep, rerr := db.Retain()
		if rerr != nil {
			db.Release()
			return nil, rerr
		}
		c, err := d.RT.Dev.StartResult(ctx, keep)
		if d.Stats != nil {
			d.Stats.Bytes.Add(int64(d.RT.Dev.Stats().BytesToHost - before))
		}
		if err == nil {
			db.Release()
			d.inflight = c
			return nil, nil
		}
		if !gpuexec.IsOutOfMemory(err) || ctx.Err() != nil {
			db.Release()
			return nil, err
		}
		hb, err := d.download(ctx, db)
		if err != nil || (hb != nil && hb.Len > 0) {
			return hb, err
		}
		hb.ReleaseOwner()
	}
	return nil, nil
}

// nextOverlapped hands out batch k once its copy has landed, after starting
// batch k+1's kernels and copy: the main stream computes while the copy
// stream downloads.
func (d *DeviceToHost) nextOverlapped(ctx context.Context) (*coldata.Batch, error) {
	for {
		if len(d.ready) > 0 {
			hb := d.ready[0]
			d.ready = d.ready[1:]
			if hb.Len > 0 {
				return hb, nil
			}
			hb.ReleaseOwner()
			continue
		}
		if d.inflight == nil {
			hb, err := d.start(ctx)
			if err != nil || hb != nil {
				return hb, err
			}
			if d.inflight == nil {
				return nil, nil
			}
		}
		cur := d.inflight
		d.inflight = nil
		next, err := d.start(ctx) // next batch: in flight, or done synchronously
		if err != nil {
			cur.Cancel()
			return nil, err
		}
		if next != nil {
			d.ready = append(d.ready, next)
		}
		hb, err := cur.Wait()
		if err != nil {
			return nil, err
		}
		if hb.Len > 0 {
			return hb, nil
		}
		hb.ReleaseOwner()
	}
}

// Close implements Operator.
func (d *DeviceToHost) Close() error {
	if d.inflight != nil {
		d.inflight.Cancel()
		d.inflight = nil
	}
	for _, hb := range d.ready {
		hb.ReleaseOwner()
	}
	d.ready = nil
	releasePending(&d.pending)
	return d.Input.Close()
}

// splitHalves cuts b into two views near its middle, at a multiple of
// splitRows so that the halves' validity bitmaps stay byte-aligned (fused
// kernels take no bit-shifted views); ok is false when b is too small.
func splitHalves(b *gpuexec.DeviceBatch) (lo, hi *gpuexec.DeviceBatch, ok bool) {
	if b.Len < 2*splitRows {
		return nil, nil, false
	}
	mid := (b.Len / 2) &^ (splitRows - 1)
	lo, err := gpuexec.Slice(b, 0, mid)
	if err != nil {
		return nil, nil, false
	}
	hi, err = gpuexec.Slice(b, mid, b.Len)
	if err != nil {
		lo.Release()
		return nil, nil, false
	}
	return lo, hi, true
}

func releasePending(p *[]*gpuexec.DeviceBatch) {
	for _, b := range *p {
		b.Release()
	}
	*p = nil
}

// DeviceCompute evaluates a filter and/or projection on the GPU. Fused, one
// generated kernel set does all of it; otherwise (or when a batch overflows
// the fused kernel's scratch) the kernel library evaluates one function per
// kernel, materialising every intermediate column, as composing library
// calls does.
type DeviceCompute struct {
	Input  DeviceOperator
	RT     *GPURuntime
	Types  []coldata.Type // input column types
	Pred   expr.Expr      // nil: no filter
	Exprs  []expr.Expr    // nil: the input columns pass through
	Fused  bool
	Stats  *Stats
	Strict bool // fail instead of falling back from the fused path
	// Tier pins the GPU tier (tests and benchmarks): TierAuto picks as
	// described at Open.
	Tier Tier

	// The tiers: fk is the fused kernel set (tier 1), compiled in the
	// background (pending) when no cache holds it; prog is the same
	// operator lowered for the precompiled interpreter (tier 0), which
	// answers meanwhile; lib is the kernel library, built only when needed
	// (NoFusion, or a value outgrowing a kernel's scratch).
	fk      *gpuexec.FusedKernel
	kernel  *fuse.Kernel
	compile *gpuexec.Pending
	bg      *bgKernel // the kernel the background compile generates
	prog    *gpuexec.ProgramKernel
	lib     *libraryPlan
	// pending are row ranges of an input batch that ran out of device
	// memory, to be computed before the next input batch.
	pending []*gpuexec.DeviceBatch
	// Profile, when set before Open, times the fused kernel's passes.
	Profile *gpuexec.KernelProfile
}

// bgKernel receives the fused kernel set a background goroutine generates.
type bgKernel struct{ k *fuse.Kernel }

// Tier selects how a DeviceCompute evaluates on the GPU.
type Tier uint8

const (
	// TierAuto runs the fused kernels when cached, else the interpreter
	// while they compile in the background.
	TierAuto Tier = iota
	// TierFused waits for the fused kernels (the behaviour before the
	// interpreter existed).
	TierFused
	// TierInterp runs the interpreter only.
	TierInterp
)

// splitRows aligns the halves of a batch split under memory pressure.
const splitRows = 64

func (c *DeviceCompute) outputs() []expr.Expr {
	if c.Exprs != nil {
		return c.Exprs
	}
	out := make([]expr.Expr, len(c.Types))
	for i, t := range c.Types {
		out[i] = &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t}
	}
	return out
}

// Open implements DeviceOperator. It never waits for NVRTC when another
// tier can answer: a fused kernel set found in the kernel cache runs at
// once; otherwise it compiles in the background while the interpreter
// runs the batches, and takes over when ready. Only when neither exists
// (no interpreter yet, or an expression it cannot take) does Open wait.
func (c *DeviceCompute) Open(ctx context.Context) error {
	outs := c.outputs()
	if !c.Fused {
		// The kernel library on purpose (the baseline of the fused path).
		lib, err := newLibraryPlan(c.RT.Dev, c.Types, c.Pred, outs)
		if err != nil {
			return err
		}
		c.lib = lib
		return c.Input.Open(ctx)
	}
	switch c.Tier {
	case TierFused:
		k, err := fuse.Generate(c.Types, c.Pred, outs)
		if err == nil {
			var fk *gpuexec.FusedKernel
			if fk, err = c.RT.Dev.PrepareFused(k); err == nil {
				c.useFused(fk)
			}
		}
		if err != nil {
			return fmt.Errorf("fused kernel: %w", err)
		}
	case TierAuto:
		if err := c.openAuto(outs); err != nil {
			return err
		}
	}
	if c.fk == nil && c.prog == nil {
		if p, lerr := fuse.Interpreter().Lower(c.Types, c.Pred, outs); lerr == nil {
			// Whichever is ready first: the interpreter (once per
			// installation) or this operator's own kernels.
			if ready, _ := c.RT.Dev.InterpreterReady(); !ready {
				var compiled <-chan struct{}
				if c.compile != nil {
					compiled = c.compile.Done()
				}
				start := time.Now()
				select {
				case <-c.RT.Dev.InterpreterDone():
				case <-compiled:
				case <-ctx.Done():
					return ctx.Err()
				}
				c.waited(start)
			}
			c.adoptFused()
			if ready, _ := c.RT.Dev.InterpreterReady(); ready && c.fk == nil {
				prog, err := c.RT.Dev.PrepareProgram(p)
				if err != nil {
					return err
				}
				c.prog = prog
			}
		}
	}
	if c.fk == nil && c.prog == nil && c.compile != nil {
		// Nothing else can run this operator: wait for its compile.
		start := time.Now()
		if _, err := c.compile.Wait(ctx); err != nil && c.Strict {
			return fmt.Errorf("fused kernel: %w", err)
		}
		c.waited(start)
		c.compile = nil
		if fk, err := c.RT.Dev.PrepareFused(c.kernel); err == nil {
			c.useFused(fk)
		} else if c.Strict {
			return fmt.Errorf("fused kernel: %w", err)
		}
	}
	if c.fk == nil && c.prog == nil {
		if err := c.buildLibrary(); err != nil {
			return err
		}
	}
	return c.Input.Open(ctx)
}

// openAuto picks the tier that answers at once: the fused kernels when
// this shape ran before (loaded), else the interpreter with the fused
// kernels generated and compiled in the background, else (no interpreter
// yet) the fused kernels from the disk cache or compiling.
func (c *DeviceCompute) openAuto(outs []expr.Expr) error {
	d := c.RT.Dev
	if k, ok := fuse.Generated(c.Types, c.Pred, outs); ok {
		if fk, ok, err := d.PrepareFusedCached(k); err == nil && ok {
			c.kernel = k
			c.useFused(fk)
			return nil
		}
	}
	if ready, _ := d.InterpreterReady(); ready {
		if p, err := fuse.Interpreter().Lower(c.Types, c.Pred, outs); err == nil {
			prog, err := d.PrepareProgram(p)
			if err != nil {
				return err
			}
			c.prog = prog
			types, pred := c.Types, c.Pred
			// The goroutine writes only bg, before the Pending's channel
			// closes; adoptFused reads it after (the operator may be
			// closed and opened again meanwhile).
			bg := &bgKernel{}
			c.bg = bg
			c.compile = d.CompileFusedLater(func() (*fuse.Kernel, error) {
				k, err := fuse.Generate(types, pred, outs)
				bg.k = k
				return k, err
			})
			return nil
		}
	}
	k, err := fuse.Generate(c.Types, c.Pred, outs)
	if err != nil {
		if c.Strict {
			return fmt.Errorf("fused kernel: %w", err)
		}
		return nil
	}
	c.kernel = k
	fk, ok, err := d.PrepareFusedCached(k)
	switch {
	case err != nil && c.Strict:
		return fmt.Errorf("fused kernel: %w", err)
	case ok:
		c.useFused(fk)
	case err == nil:
		if _, lerr := fuse.Interpreter().Lower(c.Types, c.Pred, outs); lerr != nil {
			// Only these kernels can run the operator: compile them at
			// once, not behind the background compiles of other shapes.
			c.compile = d.CompileFusedNow(k)
		} else {
			c.compile = d.CompileFusedAsync(k)
		}
	}
	return nil
}

func (c *DeviceCompute) useFused(fk *gpuexec.FusedKernel) {
	c.fk = fk
	c.fk.Profile = c.Profile
}

func (c *DeviceCompute) waited(start time.Time) {
	if c.Stats != nil {
		c.Stats.CompileWaitNanos.Add(int64(time.Since(start)))
	}
}

// adoptFused switches to the fused kernels once their background compile
// has finished (a failed compile leaves the interpreter in charge).
func (c *DeviceCompute) adoptFused() {
	if c.compile == nil || !c.compile.Ready() {
		return
	}
	p := c.compile
	c.compile = nil
	if c.bg != nil {
		c.kernel, c.bg = c.bg.k, nil
	}
	if c.Stats != nil {
		c.Stats.CompileBackgroundNanos.Add(int64(p.Took))
	}
	if c.kernel == nil {
		return
	}
	if fk, ok, err := c.RT.Dev.PrepareFusedCached(c.kernel); err == nil && ok {
		c.useFused(fk)
		if c.prog != nil {
			c.prog.Release()
			c.prog = nil
		}
	}
}

func (c *DeviceCompute) buildLibrary() error {
	if c.lib != nil {
		return nil
	}
	start := time.Now()
	lib, err := newLibraryPlan(c.RT.Dev, c.Types, c.Pred, c.outputs())
	if err != nil {
		return err
	}
	c.waited(start)
	c.lib = lib
	return nil
}

// NextDevice implements DeviceOperator. A batch whose evaluation runs out
// of device memory is retried once after evicting resident tables no query
// holds, and then split in two halves computed one after the other (down
// to a few rows), so a tight memory limit costs launches, not the query.
func (c *DeviceCompute) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	for {
		var in *gpuexec.DeviceBatch
		var err error
		if len(c.pending) > 0 {
			in, c.pending = c.pending[0], c.pending[1:]
			if err = ctx.Err(); err != nil {
				in.Release()
				return nil, err
			}
		} else if in, err = c.Input.NextDevice(ctx); err != nil || in == nil {
			return nil, err
		}
		var out *gpuexec.DeviceBatch
		err = c.RT.Cache.RetryOOM(func() (err error) {
			out, err = c.compute(ctx, in)
			return err
		})
		if gpuexec.IsOutOfMemory(err) && ctx.Err() == nil {
			if lo, hi, ok := splitHalves(in); ok {
				in.Release()
				c.pending = append([]*gpuexec.DeviceBatch{lo, hi}, c.pending...)
				continue
			}
		}
		if rerr := in.Release(); err == nil {
			err = rerr
		}
		if err != nil {
			return nil, err
		}
		if out.Len > 0 {
			return out, nil
		}
		out.Release()
	}
}

// compute evaluates one batch; it leaves no device memory allocated when it
// fails.
func (c *DeviceCompute) compute(ctx context.Context, in *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error) {
	if cols, ok := c.selection(in); ok {
		// Choosing columns is a view, not a kernel.
		return gpuexec.Combine(cols, in.Len, in)
	}
	var out *gpuexec.DeviceBatch
	var err error
	c.adoptFused()
	switch {
	case c.fk != nil:
		warp := c.fk.WarpBatches
		out, err = c.fk.Run(ctx, in)
		c.count(c.fk.Launches())
		if c.fk.WarpBatches > warp && c.Stats != nil {
			c.Stats.WarpBatches.Add(1)
		}
		if err == nil && c.Stats != nil {
			c.Stats.Tier1Batches.Add(1)
		}
	case c.prog != nil:
		out, err = c.prog.Run(ctx, in)
		c.count(c.prog.Launches())
		if err == nil && c.Stats != nil {
			c.Stats.Tier0Batches.Add(1)
		}
	}
	if errors.Is(err, gpuexec.ErrScratch) {
		// A value outgrew the kernel's scratch: the library path (still
		// the GPU) materialises it instead.
		out, err = nil, nil
	}
	if out == nil && err == nil {
		if err = c.buildLibrary(); err != nil {
			return nil, err
		}
		var launches int
		out, launches, err = c.lib.run(ctx, c.RT.Dev, in)
		c.count(launches)
		if err == nil && c.Stats != nil {
			c.Stats.LibraryBatches.Add(1)
		}
	}
	if errors.Is(err, gpuexec.ErrDecimalRange) {
		// The CPU raises the error, with the result type in its message.
		return c.cpuBatch(ctx, in)
	}
	if errors.Is(err, gpuexec.ErrFallback) {
		if c.Strict {
			return nil, fmt.Errorf("device gpu: a value in this batch cannot be converted exactly on the GPU (use device auto): %w", err)
		}
		if c.Stats != nil {
			c.Stats.Fallbacks.Add(1)
		}
		return c.cpuBatch(ctx, in)
	}
	return out, err
}

// selection returns the input columns when the operator only picks columns.
func (c *DeviceCompute) selection(in *gpuexec.DeviceBatch) ([]gpuexec.DeviceVec, bool) {
	if c.Pred != nil || c.Exprs == nil {
		return nil, false
	}
	cols := make([]gpuexec.DeviceVec, len(c.Exprs))
	for i, e := range c.Exprs {
		ref, ok := e.(*expr.ColumnRef)
		if !ok {
			return nil, false
		}
		cols[i] = in.Cols[ref.Index]
	}
	return cols, true
}

// cpuBatch evaluates one batch with the CPU kernels (values the GPU
// kernels cannot convert exactly) and returns the result on the device.
func (c *DeviceCompute) cpuBatch(ctx context.Context, in *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error) {
	hb, err := c.RT.Dev.Download(ctx, in)
	if err != nil {
		return nil, err
	}
	if c.Pred != nil {
		m, err := expr.Eval(c.Pred, hb)
		if err != nil {
			return nil, err
		}
		var sel []int
		for i := 0; i < hb.Len; i++ {
			if !m.IsNull(i) && m.Bool(i) {
				sel = append(sel, i)
			}
		}
		hb = coldata.GatherBatch(hb, sel)
	}
	outs := c.outputs()
	cols := make([]*coldata.Vec, len(outs))
	for i, e := range outs {
		v, err := expr.Eval(e, hb)
		if err != nil {
			return nil, err
		}
		if v.Type == coldata.Null {
			v = coldata.NewConst(coldata.String, nil, hb.Len)
		}
		cols[i] = v.Materialize()
	}
	return c.RT.Dev.Upload(ctx, &coldata.Batch{Cols: cols, Len: hb.Len})
}

func (c *DeviceCompute) count(launches int) {
	if c.Stats != nil {
		c.Stats.Launches.Add(int64(launches))
	}
}

// Close implements DeviceOperator.
func (c *DeviceCompute) Close() error {
	releasePending(&c.pending)
	if c.fk != nil {
		c.fk.Release()
		c.fk = nil
	}
	if c.prog != nil {
		c.prog.Release()
		c.prog = nil
	}
	c.compile, c.bg = nil, nil // a background compile goes on and fills the cache
	if c.lib != nil {
		c.lib.release()
		c.lib = nil
	}
	return c.Input.Close()
}

// libraryPlan evaluates expressions one function per kernel: every call is
// its own generated kernel over materialised argument columns.
type libraryPlan struct {
	steps   []libStep
	outs    []int // working columns of the outputs
	mask    int   // working column of the predicate, or -1
	compact *gpuexec.FusedKernel
	nin     int
}

type libStep struct {
	fk   *gpuexec.FusedKernel
	args []int // working columns feeding the kernel's inputs
}

func newLibraryPlan(d *gpuexec.Device, types []coldata.Type, pred expr.Expr, outs []expr.Expr) (*libraryPlan, error) {
	p := &libraryPlan{nin: len(types), mask: -1}
	work := append([]coldata.Type(nil), types...)
	memo := map[string]int{}
	var add func(e expr.Expr) (int, error)
	add = func(e expr.Expr) (int, error) {
		if c, ok := e.(*expr.ColumnRef); ok {
			return c.Index, nil
		}
		key := e.String() + "::" + e.Type().String()
		if w, ok := memo[key]; ok {
			return w, nil
		}
		var args []int
		var kin []coldata.Type
		var call expr.Expr = e
		if c, ok := e.(*expr.Call); ok {
			nc := *c
			nc.Args = make([]expr.Expr, len(c.Args))
			for i, a := range c.Args {
				if l, lit := a.(*expr.Literal); lit {
					nc.Args[i] = l
					continue
				}
				w, err := add(a)
				if err != nil {
					return 0, err
				}
				nc.Args[i] = &expr.ColumnRef{Index: len(args), Name: fmt.Sprintf("w%d", w), T: work[w]}
				args = append(args, w)
				kin = append(kin, work[w])
			}
			call = &nc
		}
		k, err := fuse.Generate(kin, nil, []expr.Expr{call})
		if err != nil {
			return 0, err
		}
		fk, err := d.PrepareFused(k)
		if err != nil {
			return 0, err
		}
		p.steps = append(p.steps, libStep{fk: fk, args: args})
		work = append(work, e.Type())
		memo[key] = len(work) - 1
		return len(work) - 1, nil
	}
	for _, e := range outs {
		w, err := add(e)
		if err != nil {
			p.release()
			return nil, err
		}
		p.outs = append(p.outs, w)
	}
	if pred != nil {
		w, err := add(pred)
		if err != nil {
			p.release()
			return nil, err
		}
		p.mask = w
		// Stream compaction: one kernel set keeping the rows where the mask
		// is TRUE, over the mask and the output columns.
		kin := []coldata.Type{coldata.Bool}
		var kout []expr.Expr
		for i, o := range p.outs {
			kin = append(kin, work[o])
			kout = append(kout, &expr.ColumnRef{Index: i + 1, Name: fmt.Sprintf("o%d", i), T: work[o]})
		}
		k, err := fuse.Generate(kin, &expr.ColumnRef{Index: 0, Name: "mask", T: coldata.Bool}, kout)
		if err == nil {
			p.compact, err = d.PrepareFused(k)
		}
		if err != nil {
			p.release()
			return nil, err
		}
	}
	return p, nil
}

// run evaluates the plan over one batch, on the device's context thread.
func (p *libraryPlan) run(ctx context.Context, d *gpuexec.Device, in *gpuexec.DeviceBatch) (out *gpuexec.DeviceBatch, launches int, err error) {
	err = d.Do(func() error {
		var rerr error
		out, launches, rerr = p.runOn(ctx, in)
		return rerr
	})
	return out, launches, err
}

func (p *libraryPlan) runOn(ctx context.Context, in *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, int, error) {
	work := append([]gpuexec.DeviceVec(nil), in.Cols...)
	owners := []*gpuexec.DeviceBatch{in}
	var made []*gpuexec.DeviceBatch
	defer func() {
		for _, b := range made {
			b.Release()
		}
	}()
	launches := 0
	for _, st := range p.steps {
		cols := make([]gpuexec.DeviceVec, len(st.args))
		for i, w := range st.args {
			cols[i] = work[w]
		}
		sub, err := gpuexec.Combine(cols, in.Len, owners...)
		if err != nil {
			return nil, launches, err
		}
		out, err := st.fk.Run(ctx, sub)
		sub.Release()
		launches += st.fk.Launches()
		if err != nil {
			return nil, launches, err
		}
		made = append(made, out)
		owners = append(owners, out)
		work = append(work, out.Cols[0])
	}
	cols := make([]gpuexec.DeviceVec, len(p.outs))
	for i, w := range p.outs {
		cols[i] = work[w]
	}
	if p.mask < 0 {
		out, err := gpuexec.Combine(cols, in.Len, owners...)
		return out, launches, err
	}
	sub, err := gpuexec.Combine(append([]gpuexec.DeviceVec{work[p.mask]}, cols...), in.Len, owners...)
	if err != nil {
		return nil, launches, err
	}
	out, err := p.compact.Run(ctx, sub)
	sub.Release()
	launches += p.compact.Launches()
	return out, launches, err
}

func (p *libraryPlan) release() {
	for _, st := range p.steps {
		st.fk.Release()
	}
	if p.compact != nil {
		p.compact.Release()
	}
}

// NewDeviceRuntime opens the GPU with a table cache of cacheBudget bytes
// (0: DefaultCacheBudget of the device).
func NewDeviceRuntime(opts gpuexec.Options, cacheBudget uint64) (*GPURuntime, error) {
	d, err := gpuexec.NewDevice(opts)
	if err != nil {
		return nil, err
	}
	if cacheBudget == 0 {
		cacheBudget = DefaultCacheBudget(d.MemoryLimit())
	}
	return &GPURuntime{Dev: d, Cache: gpuexec.NewTableCache(d, cacheBudget)}, nil
}

// DefaultCacheBudget is the resident tables' share of a device with limit
// bytes of memory: half of it, and at least 8 GiB. A fixed 8 GiB is less
// than a TPC-H SF10 database, whose tables would then take turns on an
// 80 GB card, uploaded again by every query.
func DefaultCacheBudget(limit uint64) uint64 {
	return max(8<<30, limit/2)
}

// DeviceLimit skips Offset rows and passes at most Count (Count < 0: all)
// as zero-copy views of its input's device batches, so that only the rows
// kept ever travel to the host.
type DeviceLimit struct {
	Input DeviceOperator
	limitWindow
}

// NewDeviceLimit returns a device limit over input.
func NewDeviceLimit(input DeviceOperator, count, offset int64) *DeviceLimit {
	return &DeviceLimit{Input: input, limitWindow: limitWindow{Count: count, Offset: offset}}
}

// Open implements DeviceOperator.
func (l *DeviceLimit) Open(ctx context.Context) error {
	l.reset()
	return l.Input.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (l *DeviceLimit) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	for !l.full() {
		b, err := l.Input.NextDevice(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		lo, hi := l.cut(b.Len)
		switch {
		case hi == lo:
			b.Release()
			continue
		case lo == 0 && hi == b.Len:
			return b, nil
		}
		v, err := gpuexec.Slice(b, lo, hi)
		b.Release()
		return v, err
	}
	return nil, nil
}

// Close implements DeviceOperator.
func (l *DeviceLimit) Close() error { return l.Input.Close() }

// DeviceUnionAll produces the device batches of each input in turn.
type DeviceUnionAll struct {
	Inputs []DeviceOperator
	cur    int
}

// Open implements DeviceOperator.
func (u *DeviceUnionAll) Open(ctx context.Context) error {
	u.cur = 0
	return openAll(ctx, u.Inputs)
}

// NextDevice implements DeviceOperator.
func (u *DeviceUnionAll) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	return nextInTurn(&u.cur, len(u.Inputs), func(i int) (*gpuexec.DeviceBatch, error) { return u.Inputs[i].NextDevice(ctx) })
}

// Close implements DeviceOperator.
func (u *DeviceUnionAll) Close() error { return closeAll(u.Inputs) }

// gatherer reorders device batches by an index array: a generated gather
// kernel set, or the interpreter passing the columns through.
type gatherer interface {
	RunGather(ctx context.Context, in *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error)
	Launches() int
	Release() error
}

// Gatherer is a prepared gather, for device operators outside this
// package (PrepareGather).
type Gatherer = gatherer

// PrepareGather readies a gather of columns of the given types on d: its
// fused kernels when cached, else the interpreter while they compile.
func PrepareGather(d *gpuexec.Device, types []coldata.Type, st *Stats) (Gatherer, error) {
	return prepareGather(d, types, st)
}

// tiered is a prepared kernel set of either tier: generated (fused)
// kernels or the interpreter's program.
type tiered interface {
	Run(ctx context.Context, in *gpuexec.DeviceBatch) (*gpuexec.DeviceBatch, error)
	RunGather(ctx context.Context, in *gpuexec.DeviceBatch, idx gpuexec.DevicePtr, n int) (*gpuexec.DeviceBatch, error)
	Launches() int
	Release() error
}

// prepareTiered readies k (generated for the filter pred and outputs outs
// over columns of the given types) without waiting for NVRTC when it can:
// the generated kernels when cached, else the interpreter while they
// compile in the background; only before the interpreter is ready does it
// compile and wait.
func prepareTiered(d *gpuexec.Device, k *fuse.Kernel, types []coldata.Type, pred expr.Expr, outs []expr.Expr, st *Stats) (tiered, error) {
	if fk, ok, err := d.PrepareFusedCached(k); err != nil {
		return nil, err
	} else if ok {
		return fk, nil
	}
	if ready, _ := d.InterpreterReady(); ready {
		if p, err := fuse.Interpreter().Lower(types, pred, outs); err == nil {
			pk, err := d.PrepareProgram(p)
			if err != nil {
				return nil, err
			}
			d.CompileFusedAsync(k)
			return pk, nil
		}
	}
	start := time.Now()
	fk, err := d.PrepareFused(k)
	if st != nil {
		st.CompileWaitNanos.Add(int64(time.Since(start)))
	}
	if err != nil {
		return nil, err
	}
	return fk, nil
}

// prepareGather returns the gather of columns of the given types, as
// prepareTiered readies it.
func prepareGather(d *gpuexec.Device, types []coldata.Type, st *Stats) (gatherer, error) {
	k, err := fuse.GenerateGather(types)
	if err != nil {
		return nil, err
	}
	return prepareTiered(d, k, types, nil, fuse.GatherOutputs(types), st)
}

// DeviceSort orders device batches: it concatenates them on the device,
// brings only the key columns to the host to compute the permutation there,
// and gathers every column into sorted order with one generated kernel, so
// the payload columns never leave the device.
type DeviceSort struct {
	Input DeviceOperator
	RT    *GPURuntime
	Keys  []opspec.SortKey
	Types []coldata.Type
	Stats *Stats
	// Limit, when positive, is how many of the first rows a LIMIT above
	// reads: only those are ordered and gathered (Sort.Limit).
	Limit int64

	gather gatherer
	done   bool
}

// Open implements DeviceOperator.
func (s *DeviceSort) Open(ctx context.Context) error {
	s.done = false
	var err error
	if s.gather, err = prepareGather(s.RT.Dev, s.Types, s.Stats); err != nil {
		return err
	}
	return s.Input.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (s *DeviceSort) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	if s.done {
		return nil, nil
	}
	s.done = true
	var parts []*gpuexec.DeviceBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for {
		b, err := s.Input.NextDevice(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		parts = append(parts, b)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	all := parts[0]
	if len(parts) > 1 {
		c, err := s.RT.Dev.Concatenate(parts)
		if err != nil {
			return nil, err
		}
		parts = append(parts, c)
		all = c
	}
	var perm []int
	if s.Limit > 0 && s.Limit < int64(all.Len)/2 {
		// The device narrows the rows to the candidates for the LIMIT;
		// the host orders those.
		cand, p, ok, err := s.topOnDevice(ctx, all)
		if err != nil {
			return nil, err
		}
		if ok {
			parts = append(parts, cand)
			all, perm = cand, p
		}
	}
	if perm == nil {
		var err error
		if perm, err = s.hostOrder(ctx, all); err != nil {
			return nil, err
		}
	}
	return s.gatherRows(ctx, all, perm)
}

// keysOf downloads the sort keys of b, as a host batch whose columns are
// the keys in order, with the keys renumbered to them.
func (s *DeviceSort) keysOf(ctx context.Context, b *gpuexec.DeviceBatch) (*coldata.Batch, []opspec.SortKey, error) {
	keyCols := make([]gpuexec.DeviceVec, len(s.Keys))
	hostKeys := make([]opspec.SortKey, len(s.Keys))
	for i, k := range s.Keys {
		keyCols[i] = b.Cols[k.Col]
		hostKeys[i] = opspec.SortKey{Col: i, Desc: k.Desc, Nulls: k.Nulls}
	}
	kb, err := gpuexec.Combine(keyCols, b.Len, b)
	if err != nil {
		return nil, nil, err
	}
	hk, err := s.RT.Dev.Download(ctx, kb)
	kb.Release()
	return hk, hostKeys, err
}

// topOnDevice orders the first Limit rows of all from candidates the
// device picks by the first key (gpuexec.TopCandidates): the candidates'
// rows are gathered on the device and only their keys come to the host.
// It returns the gathered candidates and their order; ok is false when the
// device could not narrow the rows.
func (s *DeviceSort) topOnDevice(ctx context.Context, all *gpuexec.DeviceBatch) (cand *gpuexec.DeviceBatch, perm []int, ok bool, err error) {
	first := s.Keys[0]
	rows, ok, err := s.RT.Dev.TopCandidates(ctx, all.Cols[first.Col], first.Desc, int(s.Limit))
	if err != nil || !ok {
		return nil, nil, false, err
	}
	if cand, err = s.gatherRows(ctx, all, rows); err != nil {
		return nil, nil, false, err
	}
	// Candidates keep the input's order, so index order breaks ties as
	// row order does.
	hk, keys, err := s.keysOf(ctx, cand)
	if err != nil {
		cand.Release()
		return nil, nil, false, err
	}
	cmp := rowComparator(hk, keys)
	if perm, err = topRows(ctx, hk.Len, int(s.Limit), cmp); err == nil {
		sort.Ints(perm)
		err = sortCancellable(ctx, perm, cmp)
	}
	if err != nil {
		cand.Release()
		return nil, nil, false, err
	}
	return cand, perm, true, nil
}

// hostOrder downloads all's keys and returns the order of its rows the
// sort outputs (the first Limit of them when Limit is set).
func (s *DeviceSort) hostOrder(ctx context.Context, all *gpuexec.DeviceBatch) ([]int, error) {
	hk, hostKeys, err := s.keysOf(ctx, all)
	if err != nil {
		return nil, err
	}
	cmp := rowComparator(hk, hostKeys)
	var perm []int
	if s.Limit > 0 && s.Limit < int64(all.Len)/2 {
		if perm, err = topRowsOf(ctx, hk, hostKeys, int(s.Limit), cmp); err != nil {
			return nil, err
		}
		sort.Ints(perm)
	} else {
		perm = make([]int, all.Len)
		for i := range perm {
			perm[i] = i
		}
	}
	if err := sortCancellable(ctx, perm, cmp); err != nil {
		return nil, err
	}
	return perm, nil
}

// gatherRows gathers rows perm of all (every column) into a new device
// batch.
func (s *DeviceSort) gatherRows(ctx context.Context, all *gpuexec.DeviceBatch, perm []int) (*gpuexec.DeviceBatch, error) {
	idx := make([]byte, 8*len(perm))
	for i, p := range perm {
		binary.LittleEndian.PutUint64(idx[8*i:], uint64(p))
	}
	buf, err := s.RT.Dev.Alloc(uint64(len(idx)))
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	if err := s.RT.Dev.CopyToDevice(buf.Ptr(), idx, nil); err != nil {
		return nil, err
	}
	out, err := s.gather.RunGather(ctx, all, buf.Ptr(), len(perm))
	if s.Stats != nil {
		s.Stats.Launches.Add(int64(s.gather.Launches()))
	}
	if err != nil {
		return nil, err
	}
	// The index buffer is read by the gather still in flight: it must live
	// until the stream passes it.
	if err := s.RT.Dev.Synchronize(); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Close implements DeviceOperator.
func (s *DeviceSort) Close() error {
	if s.gather != nil {
		s.gather.Release()
		s.gather = nil
	}
	return s.Input.Close()
}
