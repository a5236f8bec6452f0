package operators

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// DeviceCompute evaluates a filter and/or projection on the GPU. Fused, one
// generated kernel set does all of it; otherwise (or when a batch overflows
// the fused kernel's scratch) the kernel library evaluates one function per
// kernel, materialising every intermediate column, as composing library
// calls does.
type DeviceCompute struct {
	Input  DeviceOperator
	RT     *DeviceRuntime
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
	// compileLater starts the background compile of a shape run once, at
	// its first batch of compileWorthRows rows.
	compileLater func()
	prog         *gpuexec.ProgramKernel
	lib          *libraryPlan
	// pending are row ranges of an input batch that ran out of device
	// memory, to be computed before the next input batch.
	pending []*gpuexec.DeviceBatch
	// Profile, when set before Open, times the fused kernel's passes.
	Profile *gpuexec.KernelProfile
	// probe finds the batches with rows to warn on (device_warn.go);
	// noProbe: the expressions warn on no NULL, or the probe cannot run.
	probe   *DeviceCompute
	noProbe bool
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
		if p, lerr := fuse.Interpreter().LowerSplit(c.Types, c.Pred, outs); lerr == nil {
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
				prog, err := c.RT.Dev.PrepareSplit(p)
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
		if p, err := fuse.Interpreter().LowerSplit(c.Types, c.Pred, outs); err == nil {
			prog, err := d.PrepareSplit(p)
			if err != nil {
				return err
			}
			c.prog = prog
			types, pred := c.Types, c.Pred
			// The goroutine writes only bg, before the Pending's channel
			// closes; adoptFused reads it after (the operator may be
			// closed and opened again meanwhile).
			start := func() {
				bg := &bgKernel{}
				c.bg = bg
				c.compile = d.CompileFusedLater(func() (*fuse.Kernel, error) {
					k, err := fuse.Generate(types, pred, outs)
					bg.k = k
					return k, err
				})
			}
			if d.Repeated(shapeKey(types, pred, outs)) {
				start()
			} else {
				// A shape seen once compiles when a batch is large
				// enough to pay for it (gpuexec/compilegate.go).
				c.compileLater = start
			}
			return nil
		}
	}
	k, err := fuse.Generate(c.Types, c.Pred, outs)
	if err != nil {
		if _, lerr := fuse.Interpreter().LowerSplit(c.Types, c.Pred, outs); lerr == nil {
			// Too wide for one kernel (its parameters), not for the
			// interpreter's parts: Open waits for the interpreter.
			return nil
		}
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
		if _, lerr := fuse.Interpreter().LowerSplit(c.Types, c.Pred, outs); lerr != nil {
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
	took := time.Since(start)
	if c.Stats != nil {
		c.Stats.CompileWaitNanos.Add(int64(took))
	}
	c.RT.Dev.NoteCompileWait(took)
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
		err = c.RT.Cache.RetryOOM(c.RT.waitCtx(ctx), func() (err error) {
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
		if c.compileLater != nil && in.Len >= compileWorthRows {
			c.compileLater()
			c.compileLater = nil
		}
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
	if w := expr.WarningsOf(ctx); err == nil && w != nil && !c.noProbe {
		if werr := c.warnBatch(ctx, in, w); werr != nil {
			out.Release()
			return nil, werr
		}
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
	// The CPU kernels warn as in a CPU plan.
	hb, err := c.hostEval(ctx, in, expr.WarningsOf(ctx))
	if err != nil {
		return nil, err
	}
	return c.RT.Dev.Upload(ctx, hb)
}

// hostEval evaluates batch in with the CPU kernels, filter then outputs
// (as a CPU plan's Filter and Project), warning to w.
func (c *DeviceCompute) hostEval(ctx context.Context, in *gpuexec.DeviceBatch, w *expr.Warnings) (*coldata.Batch, error) {
	hb, err := c.RT.Dev.Download(ctx, in)
	if err != nil {
		return nil, err
	}
	if c.Pred != nil {
		m, err := expr.EvalWarn(c.Pred, hb, w)
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
		v, err := expr.EvalWarn(e, hb, w)
		if err != nil {
			return nil, err
		}
		if v.Type == coldata.Null {
			v = coldata.NewConst(coldata.String, nil, hb.Len)
		}
		cols[i] = v.Materialize()
	}
	return &coldata.Batch{Cols: cols, Len: hb.Len}, nil
}

func (c *DeviceCompute) count(launches int) {
	if c.Stats != nil {
		c.Stats.Launches.Add(int64(launches))
	}
}

// Close implements DeviceOperator.
func (c *DeviceCompute) Close() error {
	releasePending(&c.pending)
	if c.probe != nil {
		c.probe.Close()
		c.probe = nil
	}
	if c.fk != nil {
		c.fk.Release()
		c.fk = nil
	}
	if c.prog != nil {
		c.prog.Release()
		c.prog = nil
	}
	c.compile, c.bg, c.compileLater = nil, nil, nil // a background compile goes on and fills the cache
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

// compileWorthRows is the batch size from which a shape run once is worth
// its kernels' compile: the interpreter costs a few times the fused
// kernels' time per row, NVRTC a fraction of a second per shape.
const compileWorthRows = 1 << 20

// shapeKey names a filter and projection's kernel shape for
// gpuexec.Device.Repeated without generating its source.
func shapeKey(types []coldata.Type, pred expr.Expr, outs []expr.Expr) string {
	var b strings.Builder
	b.WriteString("compute:")
	for _, t := range types {
		b.WriteString(t.String())
		b.WriteByte(',')
	}
	b.WriteByte('|')
	if pred != nil {
		b.WriteString(pred.String())
	}
	for _, o := range outs {
		b.WriteByte('|')
		b.WriteString(o.String())
	}
	return b.String()
}
