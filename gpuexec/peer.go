package gpuexec

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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
//
// The copy runs on d's stream, but dst is peer's memory: peer's pool hands
// out a buffer as soon as it is released, relying on every later use being
// queued behind the kernels still reading it on peer's stream. The copy is
// not on that stream, so d's stream first waits for an event recorded on
// peer's: without that, a copy overwrote memory a kernel on the other GPU
// was still using (CUDA error 700 in ClickBench at 100M rows on two GPUs).
// The wait is the GPU's, not a host thread's: synchronising peer's stream
// from its context thread held that thread, and every operator of the
// other device waiting for it, until peer's queued kernels finished. The
// copy is complete when CopyPeer returns.
func (d *Device) CopyPeer(dst DevicePtr, peer *Device, src DevicePtr, n uint64) error {
	if peer.isClosed() {
		return ErrClosed
	}
	var ready sharedEvent
	if err := peer.Do(func() (err error) {
		ready, err = peer.drv.recordShared(peer.streamOf(nil))
		return err
	}); err != nil {
		return fmt.Errorf("gpu: marking device %d's queued work before a peer copy: %w", peer.info.Ordinal, err)
	}
	err := d.Do(func() error {
		h := d.streamOf(nil)
		if err := d.drv.waitShared(h, ready); err != nil {
			return err
		}
		if err := d.drv.peerCopy(dst, peer.drv, src, n, h); err != nil {
			return err
		}
		d.toPeer.Add(n)
		return d.drv.syncStream(h)
	})
	if derr := peer.Do(func() error { return peer.drv.destroyShared(ready) }); err == nil {
		err = derr
	}
	return err
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
// time, over the peer link (RoutePeer) or through the host (RouteHost),
// checking ctx between chunks.
func (d *Device) copyChunks(ctx context.Context, dst DevicePtr, peer *Device, src DevicePtr, n uint64, route Route) error {
	if route == RouteHost {
		return d.copyStaged(ctx, dst, peer, src, n)
	}
	step := 4 * copyChunk
	for off := uint64(0); off < n; off += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.CopyPeer(dst+DevicePtr(off), peer, src+DevicePtr(off), min(step, n-off)); err != nil {
			return err
		}
	}
	return nil
}

// bounceBuffers are a device's two page-locked buffers for host-staged
// copies: with unified addressing (every 64-bit platform CUDA supports)
// page-locked memory of one context is page-locked for all, so the
// target's upload reads it at full speed too.
type bounceBuffers struct {
	mu   sync.Mutex // held by the copy using them
	bufs [2][]byte
}

// get returns the pair, each at least n bytes, allocating on d's
// context thread. Under b.mu.
func (b *bounceBuffers) get(d *Device, n uint64) ([2][]byte, error) {
	if uint64(len(b.bufs[0])) >= n {
		return b.bufs, nil
	}
	err := d.Do(func() error {
		if err := b.free(d.drv); err != nil {
			return err
		}
		for i := range b.bufs {
			buf, err := d.drv.hostAlloc(int(n))
			if err != nil {
				return err
			}
			b.bufs[i] = buf
		}
		return nil
	})
	return b.bufs, err
}

// free gives the pair back; context thread.
func (b *bounceBuffers) free(drv driver) error {
	var first error
	for i, buf := range b.bufs {
		if buf != nil {
			if err := drv.hostFree(buf); err != nil && first == nil {
				first = err
			}
			b.bufs[i] = nil
		}
	}
	return first
}

// copyStaged copies n bytes from src on d to dst on peer through d's
// page-locked bounce pair, pipelined: while peer uploads one chunk, d
// downloads the next into the other buffer.
func (d *Device) copyStaged(ctx context.Context, dst DevicePtr, peer *Device, src DevicePtr, n uint64) error {
	if n == 0 {
		return nil
	}
	d.bounce.mu.Lock()
	defer d.bounce.mu.Unlock()
	bufs, err := d.bounce.get(d, min(n, copyChunk))
	if err != nil {
		return fmt.Errorf("host staging: %w", err)
	}
	type piece struct {
		off, size uint64
		buf       int
	}
	ready := make(chan piece, 2)
	free := make(chan int, 2)
	free <- 0
	free <- 1
	var upErr error
	var failed atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range ready {
			if !failed.Load() {
				if err := peer.CopyToDevice(dst+DevicePtr(p.off), bufs[p.buf][:p.size], nil); err != nil {
					upErr = err
					failed.Store(true)
				}
			}
			free <- p.buf
		}
	}()
	for off := uint64(0); off < n && !failed.Load(); off += copyChunk {
		if err = ctx.Err(); err != nil {
			break
		}
		b, m := <-free, min(copyChunk, n-off)
		if err = d.CopyToHost(bufs[b][:m], src+DevicePtr(off), nil); err != nil {
			free <- b
			break
		}
		ready <- piece{off, m, b}
	}
	close(ready)
	<-done
	if err == nil {
		err = upErr
	}
	return err
}
