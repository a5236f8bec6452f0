package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// HostToDevice uploads host batches, small ones together.
type HostToDevice struct {
	Input Operator
	RT    *DeviceRuntime
	Stats *Stats
	// OneByOne uploads each input batch as it comes, small or not (tests
	// whose device operators must see the input's batch boundaries).
	OneByOne bool
	// done: the input has returned its last batch.
	done bool
}

// Host batches smaller than these go up together, up to these bounds: a
// CPU filter keeping few rows of each scanned batch made one transfer, and
// one launch of every device operator above, per ~2,000 rows (TPC-H Q19
// at SF10 under an 8 GiB pool: 1,069 uploads of its filtered lineitem,
// docs/benchlog/2026-11-30-session11.md).
const (
	coalesceUploadRows  = 1 << 20
	coalesceUploadBytes = 64 << 20
)

// Open implements DeviceOperator.
func (h *HostToDevice) Open(ctx context.Context) error {
	h.done = false
	return h.Input.Open(ctx)
}

// NextDevice implements DeviceOperator.
func (h *HostToDevice) NextDevice(ctx context.Context) (*gpuexec.DeviceBatch, error) {
	b, err := h.next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	before := h.RT.Dev.Stats().BytesToDevice
	var db *gpuexec.DeviceBatch
	err = h.RT.Cache.RetryOOM(h.RT.waitCtx(ctx), func() (err error) {
		db, err = h.RT.Dev.Upload(ctx, b)
		return err
	})
	if h.Stats != nil {
		h.Stats.Bytes.Add(int64(h.RT.Dev.Stats().BytesToDevice - before))
	}
	return db, err
}

// next returns the input's next batch, or several small ones concatenated
// up to the coalescing bounds.
func (h *HostToDevice) next(ctx context.Context) (*coldata.Batch, error) {
	if h.done {
		return nil, nil
	}
	b, err := h.Input.Next(ctx)
	if err != nil || b == nil {
		h.done = b == nil && err == nil
		return nil, err
	}
	rows, bytes := b.Len, b.HostBytes()
	if h.OneByOne || rows >= coalesceUploadRows || bytes >= coalesceUploadBytes {
		return b, nil
	}
	parts := []*coldata.Batch{b}
	for rows < coalesceUploadRows && bytes < coalesceUploadBytes {
		nb, err := h.Input.Next(ctx)
		if err != nil {
			return nil, err
		}
		if nb == nil {
			h.done = true
			break
		}
		parts = append(parts, nb)
		rows, bytes = rows+nb.Len, bytes+nb.HostBytes()
	}
	if len(parts) == 1 {
		return b, nil
	}
	out, err := coldata.ConcatCheck(parts, len(b.Cols), ctx.Err)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		releaseInput(h.Input, p, nil) // copied into out
	}
	return out, nil
}

// Close implements DeviceOperator.
func (h *HostToDevice) Close() error { return h.Input.Close() }

// DeviceToHost downloads device batches (one transfer each).
type DeviceToHost struct {
	Input DeviceOperator
	RT    *DeviceRuntime
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
	err := d.RT.Cache.RetryOOM(d.RT.waitCtx(ctx), func() (err error) {
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
