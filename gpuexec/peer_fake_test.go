package gpuexec

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/memory"
)

// fakePair opens two private fake devices, ordinals 0 and 1; peer says
// whether they reach each other directly.
func fakePair(t *testing.T, peer bool, dstOpts Options) (*Device, *Device, *fakeDriver) {
	t.Helper()
	fa, fb := newFakeDriver(), newFakeDriver()
	fb.ordinal = 1
	allow := func(int, int) bool { return peer }
	fa.peer, fb.peer = allow, allow
	a, err := newDevice(fa, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dstOpts.CacheDir = t.TempDir()
	b, err := newDevice(fb, dstOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b, fa
}

// TestFakeCopyBatchTo moves batches of every column type (views too)
// between two devices by each route and checks them bit for bit.
func TestFakeCopyBatchTo(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name      string
		peer      bool
		enable    bool
		wantRoute Route
	}{
		{"peer", true, true, RoutePeer},
		{"peer not enabled", true, false, RouteHost},
		{"no peer access", false, true, RouteHost},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b, fa := fakePair(t, c.peer, Options{})
			if c.enable {
				ok, err := a.EnablePeerAccess(b)
				if err != nil || ok != c.peer {
					t.Fatalf("EnablePeerAccess: %v, %v", ok, err)
				}
				if a.PeerEnabled(b) != c.peer || b.PeerEnabled(a) != c.peer {
					t.Fatal("peer access not enabled both ways")
				}
			}
			r := rand.New(rand.NewSource(3))
			for _, n := range []int{0, 1, 100, 5000} {
				hb := randBatch(r, n)
				src, err := a.Upload(ctx, hb)
				if err != nil {
					t.Fatal(err)
				}
				for _, view := range []bool{false, true} {
					in, want := src, hb
					if view && n > 20 {
						if in, err = Slice(src, 8, n-3); err != nil {
							t.Fatal(err)
						}
						want = sliceHost(hb, 8, n-3)
					}
					out, route, err := a.CopyBatchTo(ctx, in, b)
					if err != nil {
						t.Fatalf("%d rows: %v", n, err)
					}
					if route != c.wantRoute || !b.Same(out.Device()) {
						t.Fatalf("%d rows: route %s on %v, want %s on device 1", n, route, out.Device().Info().Ordinal, c.wantRoute)
					}
					got, err := b.Download(ctx, out)
					if err != nil {
						t.Fatal(err)
					}
					requireEqualBatch(t, want, got, c.name)
					out.Release()
					if in != src {
						in.Release()
					}
				}
				src.Release()
			}
			if direct := fa.peerCopies > 0; direct != (c.wantRoute == RoutePeer) {
				t.Fatalf("%d direct peer copies for route %s", fa.peerCopies, c.wantRoute)
			}
			if (a.Stats().BytesToPeer > 0) != (c.wantRoute == RoutePeer) {
				t.Fatalf("BytesToPeer %d for route %s", a.Stats().BytesToPeer, c.wantRoute)
			}
			requireNoLeak(t, a, "source")
			requireNoLeak(t, b, "target")
			if err := a.Close(); err != nil || fa.hostLive != 0 {
				t.Fatalf("close: %v, %d host buffers left", err, fa.hostLive)
			}
		})
	}
}

// TestFakeCopyBatchToErrors: the same device shares the batch; a released
// batch, a batch of another device, a closed target, a full target and a
// cancelled context fail cleanly and hold nothing.
func TestFakeCopyBatchToErrors(t *testing.T) {
	ctx := context.Background()
	a, b, _ := fakePair(t, true, Options{PoolLimit: 64 << 10})
	if _, err := a.EnablePeerAccess(b); err != nil {
		t.Fatal(err)
	}
	hb := randBatch(rand.New(rand.NewSource(4)), 3000)
	src, err := a.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	same, route, err := a.CopyBatchTo(ctx, src, a)
	if err != nil || route != RouteSame {
		t.Fatalf("same device: %s, %v", route, err)
	}
	same.Release()
	if _, _, err := b.CopyBatchTo(ctx, src, a); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a batch of another device: %v", err)
	}
	if _, _, err := a.CopyBatchTo(ctx, src, b); !errors.Is(err, memory.ErrOutOfMemory) {
		t.Errorf("a full target: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := a.CopyBatchTo(cancelled, src, b); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	small, err := Slice(src, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	small.Release()
	if _, _, err := a.CopyBatchTo(ctx, small, b); !errors.Is(err, ErrReleased) {
		t.Errorf("a released batch: %v", err)
	}
	requireNoLeak(t, b, "target")
	b.Close()
	if _, _, err := a.CopyBatchTo(ctx, src, b); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed target: %v", err)
	}
}

// sliceHost is rows [lo, hi) of a host batch.
func sliceHost(b *coldata.Batch, lo, hi int) *coldata.Batch {
	cols := make([]*coldata.Vec, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = coldata.Slice(c, lo, hi)
	}
	return coldata.NewBatch(cols, hi-lo)
}

// TestFakeSplitByHashEdges: an empty batch splits into empty parts and a
// split into one part is the batch itself, without kernels; bad arguments
// are errors.
func TestFakeSplitByHashEdges(t *testing.T) {
	ctx := context.Background()
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	hb := randBatch(rand.New(rand.NewSource(8)), 50)
	b, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := Slice(b, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	launches := f.launches["gsql_part_keys"]
	for _, c := range []struct {
		in   *DeviceBatch
		n    int
		rows int
	}{{empty, 3, 0}, {b, 1, 50}} {
		parts, err := d.SplitByHash(ctx, c.in, []int{0}, c.n)
		if err != nil || len(parts) != c.n {
			t.Fatalf("%d rows into %d: %d parts, %v", c.in.Len, c.n, len(parts), err)
		}
		for _, p := range parts {
			if p.Len != c.rows {
				t.Fatalf("a part of %d rows, want %d", p.Len, c.rows)
			}
			p.Release()
		}
	}
	if f.launches["gsql_part_keys"] != launches {
		t.Fatal("a kernel ran")
	}
	for _, n := range []int{0, 257} {
		if _, err := d.SplitByHash(ctx, b, []int{0}, n); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%d parts: %v", n, err)
		}
	}
	if _, err := d.SplitByHash(ctx, nil, []int{0}, 2); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil batch: %v", err)
	}
	empty.Release()
	b.Release()
	requireNoLeak(t, d, "split")
}

// TestFakePeerCopyWaitsForTarget: a direct copy into another GPU runs on
// the source's stream, so it must wait for the kernels queued on the
// target's stream (the target's pool reuses memory those kernels may still
// read); a copy that does not would overwrite it under them.
func TestFakePeerCopyWaitsForTarget(t *testing.T) {
	ctx := context.Background()
	fa, fb := newFakeDriver(), newFakeDriver()
	fb.ordinal = 1
	a, err := newDevice(fa, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newDevice(fb, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	if ok, err := a.EnablePeerAccess(b); err != nil || !ok {
		t.Fatalf("EnablePeerAccess: %v, %v", ok, err)
	}
	r := rand.New(rand.NewSource(5))
	for round := 0; round < 3; round++ {
		hb := randBatch(r, 3000)
		src, err := a.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		// Work queued on the target: a concatenation launches kernels.
		onB, err := b.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		view, _ := Slice(onB, 3, hb.Len)
		cat, err := b.Concatenate([]*DeviceBatch{view})
		if err != nil {
			t.Fatal(err)
		}
		if !fb.queued.Load() {
			t.Fatal("the concatenation queued no kernel on the target")
		}
		out, route, err := a.CopyBatchTo(ctx, src, b)
		if err != nil || route != RoutePeer {
			t.Fatalf("CopyBatchTo: %v (route %v)", err, route)
		}
		got, err := b.Download(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, hb, got, "peer copy")
		for _, x := range []*DeviceBatch{src, onB, view, cat, out} {
			x.Release()
		}
	}
	if n := fb.unsyncedPeerCopies.Load(); n != 0 {
		t.Fatalf("%d peer copies into device 1 did not wait for its queued kernels", n)
	}
}

// TestFakeUnshifted: a view starting inside a validity byte is packed for
// a launch, the columns the launch reads only: those start at bit 0 and
// hold the view's rows; the others are the view's own.
func TestFakeUnshifted(t *testing.T) {
	ctx := context.Background()
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	r := rand.New(rand.NewSource(8))
	hb := randBatch(r, 1000)
	full, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Release()
	view, err := Slice(full, 3, 900)
	if err != nil {
		t.Fatal(err)
	}
	defer view.Release()
	used := make([]bool, len(view.Cols))
	shifted := false
	for i, c := range view.Cols {
		used[i] = i%2 == 0
		shifted = shifted || (used[i] && c.NullOffset != 0)
	}
	if !shifted {
		t.Fatal("no column the launch reads starts inside a byte")
	}
	var out *DeviceBatch
	var done func()
	if err := d.Do(func() (err error) {
		out, done, err = d.unshifted(view, used)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer done()
	var cols []DeviceVec
	var want []*coldata.Vec
	sub := coldata.SliceBatch(hb, 3, 900)
	for i, c := range out.Cols {
		switch {
		case used[i] && c.NullOffset != 0:
			t.Errorf("column %d read by the launch starts at bit %d", i, c.NullOffset)
		case !used[i] && c != view.Cols[i]:
			t.Errorf("column %d, not read, was copied", i)
		case used[i]:
			cols, want = append(cols, c), append(want, sub.Cols[i])
		}
	}
	packed, err := Combine(cols, out.Len, out)
	if err != nil {
		t.Fatal(err)
	}
	defer packed.Release()
	got, err := d.Download(ctx, packed)
	if err != nil {
		t.Fatal(err)
	}
	requireEqualBatch(t, coldata.NewBatch(want, out.Len), got, "unshifted")
}
