package gpuexec

import (
	"context"
	"errors"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// ResultCopy is a result batch on its way to the host: a device-to-host
// copy into page-locked memory lent by the result pool, running on the
// device's copy stream so that the kernels of the next batch (on the main
// stream) overlap it. Wait returns the host batch; Cancel drops it.
type ResultCopy struct {
	d      *Device
	src    *DeviceBatch   // owned: released once the copy has landed
	packed *PackedBatch   // the packed copy made for the download, if any
	blk    *HostBlock     // the destination
	layout PackLayout     // of the destination
	done   eventH         // recorded on the copy stream after the copy
	out    *coldata.Batch // a result that was copied synchronously
	waited bool
}

// StartResult starts copying b to the host and returns at once; it takes
// ownership of b. The copy waits on the device for the work already queued
// on the main stream (which produces b), not on the host. When the result
// pool is off or full, the copy is made at once into Go memory, as
// Download does.
func (d *Device) StartResult(ctx context.Context, b *DeviceBatch) (*ResultCopy, error) {
	if err := ctx.Err(); err != nil {
		b.Release()
		return nil, err
	}
	if err := d.own(b); err != nil {
		b.Release()
		return nil, err
	}
	c := &ResultCopy{d: d, src: b}
	src := b
	if b.layout != nil {
		c.layout = *b.layout
	} else {
		err := d.Do(func() error {
			p, err := d.packOn(b)
			c.packed = p
			return err
		})
		if err != nil {
			c.Cancel()
			return nil, err
		}
		src, c.layout = c.packed.DeviceBatch, c.packed.Layout
	}
	// Lent here, never on the context thread: the pool holds its lock
	// while it grows, and growing page-locks a slab on the context thread
	// (a lend there waited for a grower that waited for it).
	c.blk = d.results.Lend(int(c.layout.Size))
	err := d.Do(func() error {
		if c.blk == nil { // no pool memory: copy now, through the staging buffer
			host := make([]byte, c.layout.Size)
			if c.layout.Size > 0 {
				if err := d.copyOutOn(host, viewBase(src, c.layout)); err != nil {
					return fmt.Errorf("gpu: download of %d bytes: %w", c.layout.Size, err)
				}
			}
			out, err := unpackHostLayout(c.layout, host, false)
			c.out = out
			return err
		}
		if c.layout.Size == 0 {
			return nil
		}
		ready, err := d.drv.newEvent()
		if err != nil {
			return err
		}
		// Destroying a recorded event is safe: the wait keeps what it needs.
		defer d.drv.destroyEvent(ready)
		if err := d.drv.recordEvent(ready, d.stream.h); err != nil {
			return err
		}
		if err := d.drv.waitEvent(d.copies.h, ready); err != nil {
			return err
		}
		if err := d.drv.d2h(c.blk.Bytes(), viewBase(src, c.layout), d.copies.h); err != nil {
			return fmt.Errorf("gpu: download of %d bytes: %w", c.layout.Size, err)
		}
		d.toHost.Add(uint64(c.layout.Size))
		if c.done, err = d.drv.newEvent(); err != nil {
			c.done = 0
			return errors.Join(err, d.drv.syncStream(d.copies.h))
		}
		if err := d.drv.recordEvent(c.done, d.copies.h); err != nil {
			return errors.Join(err, d.drv.syncStream(d.copies.h))
		}
		return nil
	})
	if err != nil {
		c.Cancel()
		return nil, err
	}
	if c.out != nil || c.blk == nil || c.layout.Size == 0 {
		c.finish()
	}
	return c, nil
}

// Wait waits for the copy and returns the host batch; its Owner holds the
// lent memory (see coldata.Batch.Owner) unless the result did not fit the
// pool.
func (c *ResultCopy) Wait() (*coldata.Batch, error) {
	if c.waited {
		return nil, invalidf("result copy waited for twice")
	}
	c.waited = true
	if c.out != nil {
		return c.out, nil
	}
	if c.done != 0 {
		err := c.d.Do(func() error {
			err := c.d.drv.syncEvent(c.done)
			return errors.Join(err, c.d.drv.destroyEvent(c.done))
		})
		c.done = 0
		if err != nil {
			c.Cancel()
			return nil, fmt.Errorf("gpu: download of %d bytes: %w", c.layout.Size, err)
		}
	}
	var mem []byte
	if c.blk != nil {
		mem = c.blk.Bytes()
	}
	out, err := unpackHostLayout(c.layout, mem, false)
	c.finish()
	if err != nil {
		if c.blk != nil {
			c.blk.Release()
			c.blk = nil
		}
		return nil, err
	}
	if c.blk != nil {
		out.Owner, c.blk = c.blk, nil
	}
	return out, nil
}

// finish releases the device side once the copy has landed.
func (c *ResultCopy) finish() {
	if c.packed != nil {
		c.packed.Release()
		c.packed = nil
	}
	if c.src != nil {
		c.src.Release()
		c.src = nil
	}
}

// Cancel waits for a copy in flight (its memory cannot be reused before)
// and drops the result. Safe after Wait, and more than once.
func (c *ResultCopy) Cancel() {
	if c.done != 0 {
		c.d.Do(func() error {
			return errors.Join(c.d.drv.syncEvent(c.done), c.d.drv.destroyEvent(c.done))
		})
		c.done = 0
	}
	c.finish()
	if c.blk != nil {
		c.blk.Release()
		c.blk = nil
	}
	if !c.waited && c.out != nil {
		c.out.ReleaseOwner()
	}
	c.waited = true
}

// DownloadResult copies a device batch into page-locked memory lent by the
// result pool, with one device-to-host copy at PCIe speed and no host-side
// copy or zeroing; the returned batch's Owner holds the block (see
// coldata.Batch.Owner). When the pool is off or full it does what Download
// does. b stays the caller's.
func (d *Device) DownloadResult(ctx context.Context, b *DeviceBatch) (*coldata.Batch, error) {
	own, err := b.Retain()
	if err != nil {
		return nil, err
	}
	c, err := d.StartResult(ctx, own)
	if err != nil {
		return nil, err
	}
	return c.Wait()
}
