package gpuexec

import (
	"encoding/binary"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// passLaunch is what differs between the two kinds of row kernel that run
// over a batch — generated fused kernels (FusedKernel) and interpreted
// programs (ProgramKernel) — for the one launcher both use, runPasses. The
// kernels themselves share their CUDA skeleton (gpuexec/fuse/rt/two_pass.cuh).
type passLaunch struct {
	what    string // "fused kernel" or "program", for errors
	inputs  []coldata.Type
	used    []bool
	outputs []coldata.Type
	set     *kernelSet
	// counters is 1 + the string outputs; tile the rows a block evaluates
	// at once; blocksPerSM caps the grid.
	counters    int64
	tile        int64
	blocksPerSM int
	// twoPass: sizes, scan, then fill; otherwise one map pass, row i to
	// row i.
	twoPass bool
	// prefixWords are the caller's own 8-byte words at the front of the
	// control buffer (the interpreter's column table and program).
	prefixWords int64
	profile     *KernelProfile
	// setup runs once the control buffer exists, before any launch;
	// bindOutputs once the output columns (of rows rows) exist, before the
	// fill pass.
	setup       func(r *passRun) error
	bindOutputs func(r *passRun, cols []DeviceVec, rows int64) error
	// args are the kernel parameters, in the kernels' order.
	args func(r *passRun) []any
}

// passRun is one batch's run: its grid, buffers and control words.
type passRun struct {
	d      *Device
	rows   int64 // input rows
	blocks int64
	bufs   []*Buffer
	// The control buffer: prefix (the caller's words), the block sums, the
	// totals, the error word.
	prefix, sums, totals, errWord DevicePtr
}

// alloc allocates a buffer that the run's output batch will own (or that
// is freed when the run fails).
func (r *passRun) alloc(size uint64) (*Buffer, error) {
	b, err := r.d.Alloc(size)
	if err == nil {
		r.bufs = append(r.bufs, b)
	}
	return b, err
}

func (r *passRun) release() {
	for _, b := range r.bufs {
		b.Release()
	}
	r.bufs = nil
}

// unshifted returns in, or a packed copy of it when a column the launch
// reads is a view whose validity starts inside a byte: the row kernels
// index validity from bit 0, and a view can start at any row (an
// exchange's partition, a split half, a LIMIT's slice). done releases the
// copy (a no-op for in itself). Context thread only.
func (d *Device) unshifted(in *DeviceBatch, used []bool) (out *DeviceBatch, done func(), err error) {
	shifted := false
	for i, c := range in.Cols {
		shifted = shifted || (i < len(used) && used[i] && c.NullOffset != 0)
	}
	if !shifted {
		return in, func() {}, nil
	}
	if err := d.own(in); err != nil {
		return nil, nil, err
	}
	// Only the columns the launch reads are copied (a LIMIT's slice of a
	// wide table may hand a kernel two of its columns).
	var idx []int
	var sub []DeviceVec
	for i, c := range in.Cols {
		if i < len(used) && used[i] {
			idx, sub = append(idx, i), append(sub, c)
		}
	}
	view, err := Combine(sub, in.Len, in)
	if err != nil {
		return nil, nil, err
	}
	p, err := d.concatenateOn([]*DeviceBatch{view})
	view.Release()
	if err != nil {
		return nil, nil, fmt.Errorf("pack a bit-shifted view: %w", err)
	}
	cols := append([]DeviceVec(nil), in.Cols...)
	for j, i := range idx {
		cols[i] = p.Cols[j]
	}
	if out, err = Combine(cols, in.Len, in, p.DeviceBatch); err != nil {
		p.Release()
		return nil, nil, err
	}
	return out, func() { out.Release(); p.Release() }, nil
}

// runPasses runs a row kernel set over the rowsIn rows of in (gather: the
// device row indexes, or 0) and returns the new batch of its outputs.
// Context thread only.
func (d *Device) runPasses(in *DeviceBatch, rowsIn int, l passLaunch) (*DeviceBatch, error) {
	if err := d.own(in); err != nil {
		return nil, err
	}
	if len(in.Cols) != len(l.inputs) {
		return nil, invalidf("%s over %d columns given %d", l.what, len(l.inputs), len(in.Cols))
	}
	for i, c := range in.Cols {
		if l.used[i] && c.NullOffset != 0 {
			return nil, invalidf("%s input %d is a bit-shifted view", l.what, i)
		}
		if l.used[i] && c.Type.Plain() != l.inputs[i].Plain() {
			return nil, invalidf("%s input %d is %s, want %s", l.what, i, c.Type, l.inputs[i])
		}
	}
	n := int64(rowsIn)
	if n > 1<<31-1 {
		// The fill pass keeps row and byte offsets in 32 bits.
		return nil, invalidf("%s over %d rows: batches are limited to 2^31-1 rows", l.what, n)
	}
	blocks := (n + l.tile - 1) / l.tile
	if maxBlocks := int64(max(d.info.SMs, 1) * l.blocksPerSM); blocks > maxBlocks {
		blocks = maxBlocks
	}
	r := &passRun{d: d, rows: n, blocks: max(blocks, 1)}
	out, err := r.run(in, l)
	if err != nil {
		r.release()
		return nil, err
	}
	return out, nil
}

func (r *passRun) run(in *DeviceBatch, l passLaunch) (*DeviceBatch, error) {
	d, nc, n := r.d, l.counters, r.rows
	ctl, err := r.alloc(uint64(8 * (l.prefixWords + nc*r.blocks + nc + 1)))
	if err != nil {
		return nil, err
	}
	r.prefix = ctl.Ptr()
	r.sums = r.prefix + DevicePtr(8*l.prefixWords)
	r.totals = r.sums + DevicePtr(8*nc*r.blocks)
	r.errWord = r.totals + DevicePtr(8*nc)
	if err := d.Memset(r.errWord, 0, 8, nil); err != nil {
		return nil, err
	}
	if l.setup != nil {
		if err := l.setup(r); err != nil {
			return nil, err
		}
	}
	grid := LaunchConfig{Grid: Dim3{X: int(r.blocks)}, Block: Dim3{X: fuse.Block}}
	rows := n
	outBytes := make([]int64, nc-1)
	if l.twoPass {
		if l.profile != nil {
			l.profile.record(d, 0)
		}
		if n > 0 {
			if err := l.set.sizes.Launch(grid, l.args(r)...); err != nil {
				return nil, err
			}
			if err := l.set.scan.Launch(LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 1024}}, l.args(r)...); err != nil {
				return nil, err
			}
		} else if err := d.Memset(r.totals, 0, uint64(8*nc), nil); err != nil {
			return nil, err
		}
		ctlHost := make([]byte, 8*(nc+1))
		if err := d.CopyToHost(ctlHost, r.totals, nil); err != nil {
			return nil, err
		}
		if err := kernelError(binary.LittleEndian.Uint32(ctlHost[8*nc:])); err != nil {
			return nil, err
		}
		rows = int64(binary.LittleEndian.Uint64(ctlHost))
		for s := range outBytes {
			outBytes[s] = int64(binary.LittleEndian.Uint64(ctlHost[8*(s+1):]))
		}
	}
	cols, layout, err := outputColumns(d, l.outputs, rows, outBytes, r.alloc)
	if err != nil {
		return nil, err
	}
	if err := l.bindOutputs(r, cols, rows); err != nil {
		return nil, err
	}
	if l.profile != nil {
		l.profile.record(d, 1)
	}
	switch {
	case n == 0:
	case l.twoPass:
		if rows > 0 {
			if err := l.set.fill.Launch(grid, l.args(r)...); err != nil {
				return nil, err
			}
		}
	default:
		if err := l.set.mapK.Launch(grid, l.args(r)...); err != nil {
			return nil, err
		}
		word := make([]byte, 4)
		if err := d.CopyToHost(word, r.errWord, nil); err != nil {
			return nil, err
		}
		if err := kernelError(binary.LittleEndian.Uint32(word)); err != nil {
			return nil, err
		}
	}
	if l.profile != nil {
		l.profile.record(d, 2)
	}
	// The control block stays with the batch: the fill kernel may still be
	// reading it.
	return outputBatch(d, cols, layout, r.bufs), nil
}
