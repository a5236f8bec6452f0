package gpuexec

import (
	"context"
	"fmt"
)

// Several GPUs in one process: each has its own device state (context
// thread, pool, caches; Open with its Ordinal), and a batch moves between
// two of them as one packed buffer, copied device to device where the pair
// has peer access (NVLink, PCIe P2P) and through host memory where not.

// Route is how CopyBatchTo moved a batch.
type Route int

const (
	// RouteSame: both handles share one device state; nothing was copied.
	RouteSame Route = iota
	// RoutePeer: one device-to-device copy over the peer link.
	RoutePeer
	// RouteHost: down to host memory from the source, up to the target.
	RouteHost
)

func (r Route) String() string {
	switch r {
	case RouteSame:
		return "same device"
	case RoutePeer:
		return "peer"
	case RouteHost:
		return "host staged"
	}
	return fmt.Sprintf("Route(%d)", int(r))
}

// Same reports whether d and o are handles on one device state.
func (d *Device) Same(o *Device) bool { return o != nil && d.deviceState == o.deviceState }

// CanAccessPeer reports whether d can read and write peer's memory
// directly. A device is its own peer.
func (d *Device) CanAccessPeer(peer *Device) (bool, error) {
	if d.Same(peer) {
		return true, nil
	}
	ok, err := d.drv.canAccessPeer(peer.drv)
	if err != nil {
		return false, fmt.Errorf("gpu: peer access from device %d to %d: %w", d.info.Ordinal, peer.info.Ordinal, err)
	}
	return ok, nil
}

// EnablePeerAccess lets d and peer copy to each other directly, enabling
// the mapping in both contexts; it reports whether the pair has peer
// access at all (false with a nil error: copies between them go through
// the host). Enabling an enabled pair again costs nothing.
func (d *Device) EnablePeerAccess(peer *Device) (bool, error) {
	if d.Same(peer) || d.PeerEnabled(peer) {
		return true, nil
	}
	for _, p := range [][2]*Device{{d, peer}, {peer, d}} {
		ok, err := p[0].CanAccessPeer(p[1])
		if err != nil || !ok {
			return false, err
		}
	}
	for _, p := range [][2]*Device{{d, peer}, {peer, d}} {
		from, to := p[0], p[1]
		if err := from.Do(func() error { return from.drv.enablePeer(to.drv) }); err != nil {
			return false, fmt.Errorf("gpu: enabling peer access from device %d to %d: %w", from.info.Ordinal, to.info.Ordinal, err)
		}
		from.peerMu.Lock()
		if from.peers == nil {
			from.peers = map[*deviceState]bool{}
		}
		from.peers[to.deviceState] = true
		from.peerMu.Unlock()
	}
	return true, nil
}

// PeerEnabled reports whether EnablePeerAccess has linked d to peer.
func (d *Device) PeerEnabled(peer *Device) bool {
	if d.Same(peer) {
		return true
	}
	d.peerMu.Lock()
	defer d.peerMu.Unlock()
	return d.peers[peer.deviceState]
}

// CopyPeer copies n bytes from src on d to dst on peer and waits for the
// copy. Without peer access enabled the driver stages it itself (slowly);
// CopyBatchTo chooses the host route explicitly instead.
func (d *Device) CopyPeer(dst DevicePtr, peer *Device, src DevicePtr, n uint64) error {
	if peer.isClosed() {
		return ErrClosed
	}
	return d.Do(func() error {
		h := d.streamOf(nil)
		if err := d.drv.peerCopy(dst, peer.drv, src, n, h); err != nil {
			return err
		}
		d.toPeer.Add(n)
		return d.drv.syncStream(h)
	})
}

// CopyBatchTo copies b, a batch on d, to dst as one packed buffer in dst's
// pool (counted in dst's handle's quota): one copy over the peer link when
// the pair's peer access is enabled (EnablePeerAccess), else down to host
// memory and up again. A handle on d's own state gets b itself (retained).
// The caller releases the result; b stays the caller's.
func (d *Device) CopyBatchTo(ctx context.Context, b *DeviceBatch, dst *Device) (*DeviceBatch, Route, error) {
	if err := d.own(b); err != nil {
		return nil, 0, err
	}
	if d.Same(dst) {
		r, err := b.Retain()
		return r, RouteSame, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	p, err := d.Pack(b)
	if err != nil {
		return nil, 0, fmt.Errorf("gpu: copying a batch from device %d: %w", d.info.Ordinal, err)
	}
	defer p.Release()
	src, size := viewBase(p.DeviceBatch, p.Layout), uint64(p.Layout.Size)
	buf, err := dst.Alloc(allocSize(p.Layout))
	if err != nil {
		return nil, 0, fmt.Errorf("gpu: copying a batch to device %d: %w", dst.info.Ordinal, err)
	}
	route := RouteHost
	if d.PeerEnabled(dst) {
		route = RoutePeer
	}
	if err = d.copyChunks(ctx, buf.ptr, dst, src, size, route); err != nil {
		buf.Release()
		return nil, 0, fmt.Errorf("gpu: copying a batch from device %d to %d (%s): %w", d.info.Ordinal, dst.info.Ordinal, route, err)
	}
	return dst.packedBatch(p.Layout, buf).DeviceBatch, route, nil
}

// copyChunk is the most one step of a host-staged copy moves, and a
// quarter of a peer copy's step (a variable for tests): a cancelled query
// stops between steps, within a few milliseconds (64 MiB through the
// host, 256 MiB over NVLink), and the host route's bounce buffer stays
// this small whatever the batch.
var copyChunk uint64 = 64 << 20

// copyChunks copies n bytes from src on d to dst on peer, a chunk at a
// time, over the peer link (RoutePeer) or through a host buffer reused
// for every chunk (RouteHost), checking ctx between chunks.
func (d *Device) copyChunks(ctx context.Context, dst DevicePtr, peer *Device, src DevicePtr, n uint64, route Route) error {
	var host []byte
	step := 4 * copyChunk
	if route == RouteHost {
		step = copyChunk
		host = make([]byte, min(n, step))
	}
	for off := uint64(0); off < n; off += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := min(step, n-off)
		at, to := src+DevicePtr(off), dst+DevicePtr(off)
		if route == RoutePeer {
			if err := d.CopyPeer(to, peer, at, m); err != nil {
				return err
			}
			continue
		}
		if err := d.CopyToHost(host[:m], at, nil); err != nil {
			return err
		}
		if err := peer.CopyToDevice(to, host[:m], nil); err != nil {
			return err
		}
	}
	return nil
}
