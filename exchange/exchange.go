// Package exchange moves device batches between the GPUs of a host: the
// three exchanges of a plan spread over several devices. Repartition sends
// every row to the device its key hashes to (all to all), so that equal
// keys meet on one device; Broadcast copies a small side to every device;
// Gather brings everything to one. They run over a Transport, which moves
// one batch from its device to another: Local does it inside a process
// (peer copies where the pair has peer access, host staging where not); a
// network transport to another host's worker implements the same
// interface (docs/SCALEOUT.md).
//
// The hash is gpuexec.RowHash, the same on every device and on the CPU
// (HostSplit), so a device split and a host split of the same rows agree.
//
// Layer: above gpuexec and coldata, below the operators that will place
// exchanges in distributed plans.
package exchange

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// Transport moves a batch to another device.
type Transport interface {
	// Move returns b's rows as a batch on dst, which the caller releases;
	// b stays the caller's. b must live on a device (b.Device() != nil).
	Move(ctx context.Context, b *gpuexec.DeviceBatch, dst *gpuexec.Device) (*gpuexec.DeviceBatch, error)
}

// Stats count what a Local transport moved between different devices.
type Stats struct {
	Moves       int    // batches copied to another device
	PeerBytes   uint64 // bytes copied over peer links
	StagedBytes uint64 // bytes copied through host memory
}

// Local is the transport between the GPUs of one process.
type Local struct {
	mu    sync.Mutex
	stats Stats
	// warnings name the pairs whose peer access failed to be enabled.
	warnings []string
}

// NewLocal makes the transport among devs, enabling peer access between
// every pair that has it; pairs without it copy through the host, and so
// do pairs whose mapping fails (a driver refusing more peers, say): the
// failure is kept as a warning (Warnings), not an error, since the host
// route gives the same answers.
func NewLocal(devs []*gpuexec.Device) (*Local, error) {
	l := &Local{}
	for i, a := range devs {
		for _, b := range devs[i+1:] {
			if _, err := a.EnablePeerAccess(b); err != nil {
				l.warnings = append(l.warnings, fmt.Sprintf("GPUs %d and %d copy through host memory: %v", a.Info().Ordinal, b.Info().Ordinal, err))
			}
		}
	}
	return l, nil
}

// Warnings are the pairs of devices that could have had peer access but
// copy through the host, and why.
func (l *Local) Warnings() []string { return l.warnings }

// Move copies b to dst (gpuexec.Device.CopyBatchTo); a batch already on
// dst is shared, not copied.
func (l *Local) Move(ctx context.Context, b *gpuexec.DeviceBatch, dst *gpuexec.Device) (*gpuexec.DeviceBatch, error) {
	src := b.Device()
	if src == nil {
		return nil, fmt.Errorf("exchange: %w: a batch that belongs to no device", gpuexec.ErrInvalidArgument)
	}
	out, route, err := src.CopyBatchTo(ctx, b, dst)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	switch route {
	case gpuexec.RoutePeer:
		l.stats.Moves++
		l.stats.PeerBytes += out.Bytes()
	case gpuexec.RouteHost:
		l.stats.Moves++
		l.stats.StagedBytes += out.Bytes()
	}
	l.mu.Unlock()
	return out, nil
}

// Stats returns what the transport has moved so far.
func (l *Local) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Splitter cuts b into n parts by the hash of its key columns: part i
// holds the rows whose gpuexec.HashDestination of n is i, on b's device.
type Splitter func(ctx context.Context, b *gpuexec.DeviceBatch, keys []int, n int) ([]*gpuexec.DeviceBatch, error)

// DeviceSplit splits on b's device (gpuexec.Device.SplitByHash).
func DeviceSplit(ctx context.Context, b *gpuexec.DeviceBatch, keys []int, n int) ([]*gpuexec.DeviceBatch, error) {
	if b.Device() == nil {
		return nil, fmt.Errorf("exchange: %w: a batch that belongs to no device", gpuexec.ErrInvalidArgument)
	}
	return b.Device().SplitByHash(ctx, b, keys, n)
}

// HostSplit splits through the host: the batch comes down, each row's
// destination is computed by the CPU (gpuexec.HashDestinations) and each
// part goes back up to b's device. It is the oracle DeviceSplit is tested
// against, and the way for batches whose keys the device cannot hash.
func HostSplit(ctx context.Context, b *gpuexec.DeviceBatch, keys []int, n int) ([]*gpuexec.DeviceBatch, error) {
	d := b.Device()
	if d == nil {
		return nil, fmt.Errorf("exchange: %w: a batch that belongs to no device", gpuexec.ErrInvalidArgument)
	}
	hb, err := d.Download(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("exchange: host split: %w", err)
	}
	defer hb.ReleaseOwner()
	dest, err := gpuexec.HashDestinations(hb, keys, n)
	if err != nil {
		return nil, fmt.Errorf("exchange: host split: %w", err)
	}
	rows := make([][]int, n)
	for r, j := range dest {
		rows[j] = append(rows[j], r)
	}
	out := make([]*gpuexec.DeviceBatch, n)
	for j, idx := range rows {
		if out[j], err = d.Upload(ctx, coldata.GatherBatch(hb, idx)); err != nil {
			release(out)
			return nil, fmt.Errorf("exchange: host split: %w", err)
		}
	}
	return out, nil
}

// Group is the devices an exchange runs among and how it moves batches.
type Group struct {
	Devices   []*gpuexec.Device
	Transport Transport
	// Split cuts a batch by key hash for Repartition (nil: DeviceSplit).
	Split Splitter
}

// Parts are batches per device: Parts[i] live on Group.Devices[i].
type Parts [][]*gpuexec.DeviceBatch

// Rows is the number of rows of every batch.
func (p Parts) Rows() int {
	n := 0
	for _, bs := range p {
		for _, b := range bs {
			n += b.Len
		}
	}
	return n
}

// Release releases every batch.
func (p Parts) Release() {
	for _, bs := range p {
		release(bs)
	}
}

func release(bs []*gpuexec.DeviceBatch) {
	for _, b := range bs {
		if b != nil {
			b.Release()
		}
	}
}

func (g *Group) check(in Parts) error {
	if len(g.Devices) == 0 || g.Transport == nil {
		return fmt.Errorf("exchange: %w: a group needs devices and a transport", gpuexec.ErrInvalidArgument)
	}
	if in != nil && len(in) != len(g.Devices) {
		return fmt.Errorf("exchange: %w: batches for %d devices in a group of %d", gpuexec.ErrInvalidArgument, len(in), len(g.Devices))
	}
	for i, bs := range in {
		for _, b := range bs {
			if b == nil || !g.Devices[i].Same(b.Device()) {
				return fmt.Errorf("exchange: %w: a batch listed for device %d lives elsewhere", gpuexec.ErrInvalidArgument, i)
			}
		}
	}
	return nil
}

// Repartition sends every row of in to the device its key columns keys
// hash to: out[j] holds exactly the rows whose
// gpuexec.HashDestination(RowHash(keys), len(Devices)) is j, from every
// source, ordered by source device, then source batch. Each source device
// splits and sends concurrently. in stays the caller's; on error nothing
// of out is left held.
func (g *Group) Repartition(ctx context.Context, in Parts, keys []int) (Parts, error) {
	if err := g.check(in); err != nil {
		return nil, err
	}
	split := g.Split
	if split == nil {
		split = DeviceSplit
	}
	n := len(g.Devices)
	// slots[j][s] is what source s sends to j, kept in order of sources.
	slots := make([][][]*gpuexec.DeviceBatch, n)
	for j := range slots {
		slots[j] = make([][]*gpuexec.DeviceBatch, n)
	}
	err := g.each(ctx, func(ctx context.Context, s int) error {
		batches, coalesced, err := coalesce(g.Devices[s], in[s])
		if err != nil {
			return fmt.Errorf("exchange: repartition on device %d: %w", s, err)
		}
		if coalesced != nil {
			defer coalesced.Release()
		}
		for _, b := range batches {
			if b.Len == 0 {
				continue // nothing to send (and no kernel over zero rows)
			}
			parts, err := split(ctx, b, keys, n)
			if err != nil {
				return fmt.Errorf("exchange: repartition on device %d: %w", s, err)
			}
			if len(parts) != n {
				release(parts)
				return fmt.Errorf("exchange: repartition on device %d: %d parts for %d devices", s, len(parts), n)
			}
			for j, p := range parts {
				if err == nil && p.Len > 0 {
					var moved *gpuexec.DeviceBatch
					if moved, err = g.Transport.Move(ctx, p, g.Devices[j]); err == nil {
						slots[j][s] = append(slots[j][s], moved)
					} else {
						err = fmt.Errorf("exchange: repartition from device %d to %d: %w", s, j, err)
					}
				}
				p.Release()
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	out := make(Parts, n)
	for j := range slots {
		for _, bs := range slots[j] {
			out[j] = append(out[j], bs...)
		}
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// CoalesceBytes bounds the batches a device repartitions (or sends to a
// gather) as one: several
// smaller batches together (a filtered table's row groups) are
// concatenated on their device first, so that the split and each
// destination's copy run once rather than once per batch. Each costs a
// fixed part (a host synchronisation for the partition bounds, a packed
// copy per destination): ClickBench q42 at 100M rows on two GPUs spent 10
// ms repartitioning 7 MB in eight batches. Larger inputs are split batch
// by batch, never held twice.
var CoalesceBytes uint64 = 64 << 20

// coalesce returns bs as one batch on d (owned, released by the caller)
// when there are several and together they are at most CoalesceBytes,
// else bs itself and nil.
func coalesce(d *gpuexec.Device, bs []*gpuexec.DeviceBatch) ([]*gpuexec.DeviceBatch, *gpuexec.DeviceBatch, error) {
	nonEmpty, bytes := 0, uint64(0)
	for _, b := range bs {
		if b.Len > 0 {
			nonEmpty++
			bytes += b.ColumnBytes()
		}
	}
	if nonEmpty < 2 || bytes > CoalesceBytes || d == nil {
		return bs, nil, nil
	}
	c, err := d.Concatenate(bs)
	if err != nil {
		return nil, nil, err
	}
	return []*gpuexec.DeviceBatch{c}, c, nil
}

// Broadcast copies every batch of in (each on a device of the group) to
// every device: out[j] holds all of them, in order, on device j (a batch
// already there is shared). in stays the caller's.
func (g *Group) Broadcast(ctx context.Context, in []*gpuexec.DeviceBatch) (Parts, error) {
	if err := g.check(nil); err != nil {
		return nil, err
	}
	out := make(Parts, len(g.Devices))
	for j := range out {
		out[j] = make([]*gpuexec.DeviceBatch, len(in))
	}
	err := g.each(ctx, func(ctx context.Context, j int) error {
		for i, b := range in {
			moved, err := g.Transport.Move(ctx, b, g.Devices[j])
			if err != nil {
				return fmt.Errorf("exchange: broadcast to device %d: %w", j, err)
			}
			out[j][i] = moved
		}
		return nil
	})
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Gather brings every batch of in to device to: the result holds them in
// order of source device, then batch. in stays the caller's.
func (g *Group) Gather(ctx context.Context, in Parts, to int) ([]*gpuexec.DeviceBatch, error) {
	if err := g.check(in); err != nil {
		return nil, err
	}
	if to < 0 || to >= len(g.Devices) {
		return nil, fmt.Errorf("exchange: %w: gather to device %d of %d", gpuexec.ErrInvalidArgument, to, len(g.Devices))
	}
	got := make(Parts, len(in))
	err := g.each(ctx, func(ctx context.Context, s int) error {
		batches := in[s]
		if !g.Devices[s].Same(g.Devices[to]) {
			// Small batches cross as one copy (device to's own stay shared).
			bs, coalesced, err := coalesce(g.Devices[s], in[s])
			if err != nil {
				return fmt.Errorf("exchange: gather from device %d: %w", s, err)
			}
			if coalesced != nil {
				defer coalesced.Release()
			}
			batches = bs
		}
		for _, b := range batches {
			moved, err := g.Transport.Move(ctx, b, g.Devices[to])
			if err != nil {
				return fmt.Errorf("exchange: gather from device %d to %d: %w", s, to, err)
			}
			got[s] = append(got[s], moved)
		}
		return nil
	})
	if err != nil {
		got.Release()
		return nil, err
	}
	var out []*gpuexec.DeviceBatch
	for _, bs := range got {
		out = append(out, bs...)
	}
	return out, nil
}

// each runs fn for every device of the group at once; the first error
// cancels the others' context and is returned (a cancelled context's
// error only when nothing else failed).
func (g *Group) each(ctx context.Context, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(g.Devices))
	var wg sync.WaitGroup
	for i := range g.Devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			if errs[i] = fn(ctx, i); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) && ctx.Err() != nil && cancelled == nil:
			cancelled = err
		case !errors.Is(err, context.Canceled):
			return err
		}
	}
	return cancelled
}
