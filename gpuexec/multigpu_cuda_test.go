//go:build cuda

package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

// Tests for a host with two GPUs or more (issue 37); they skip with one.
// exchange_cuda_test.go runs the exchanges over several device states,
// which on a one-GPU host share that GPU; these need two real ones.

// twoGPUs opens private device states on GPUs 0 and 1, without a disk
// cache (what they share must come from this process).
func twoGPUs(t *testing.T) (*Device, *Device) {
	t.Helper()
	cudaDevice(t) // skips under GSQL_EXPECT_NO_GPU
	n, err := DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Skipf("%d GPU: needs two", n)
	}
	devs := make([]*Device, 2)
	for i := range devs {
		d, err := NewDevice(Options{Ordinal: i, NoDiskCache: true})
		if err != nil {
			t.Fatalf("GPU %d: %v", i, err)
		}
		devs[i] = d
		t.Cleanup(func() { d.Close() })
	}
	t.Logf("GPU 0: %v; GPU 1: %v", devs[0].Info(), devs[1].Info())
	return devs[0], devs[1]
}

// TestCUDAPeerRoutesTwoGPUs moves batches between two real GPUs both
// ways, first through host memory (peer access not enabled yet), then
// over the peer link where the pair has one, with small steps so that
// host staging pipelines several chunks, and checks every byte.
func TestCUDAPeerRoutesTwoGPUs(t *testing.T) {
	ctx := context.Background()
	a, b := twoGPUs(t)
	ab, err := a.CanAccessPeer(b)
	if err != nil {
		t.Fatal(err)
	}
	ba, err := b.CanAccessPeer(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peer access: 0->1 %v, 1->0 %v", ab, ba)
	prev := copyChunk
	copyChunk = 1 << 20
	defer func() { copyChunk = prev }()
	r := rand.New(rand.NewSource(37))
	hbs := []*coldata.Batch{randBatch(r, 0), randBatch(r, 1), randBatch(r, 3000), randBatch(r, 400_000)}
	copyAll := func(phase string, want Route) {
		for _, pair := range [][2]*Device{{a, b}, {b, a}} {
			from, to := pair[0], pair[1]
			for _, hb := range hbs {
				src, err := from.Upload(ctx, hb)
				if err != nil {
					t.Fatal(err)
				}
				out, route, err := from.CopyBatchTo(ctx, src, to)
				if err != nil {
					t.Fatalf("%s: %d rows from GPU %d: %v", phase, hb.Len, from.Info().Ordinal, err)
				}
				if route != want || !to.Same(out.Device()) {
					t.Fatalf("%s: route %s, want %s", phase, route, want)
				}
				got, err := to.Download(ctx, out)
				if err != nil {
					t.Fatal(err)
				}
				requireEqualBatch(t, hb, got, fmt.Sprintf("%s, %d rows from GPU %d", phase, hb.Len, from.Info().Ordinal))
				out.Release()
				src.Release()
			}
		}
	}
	copyAll("host staged", RouteHost)
	if a.Stats().BytesToPeer != 0 || b.Stats().BytesToPeer != 0 {
		t.Fatalf("peer bytes before peer access was enabled")
	}
	ok, err := a.EnablePeerAccess(b)
	if err != nil {
		t.Fatal(err)
	}
	if ok != (ab && ba) {
		t.Fatalf("EnablePeerAccess says %v for a pair with access %v/%v", ok, ab, ba)
	}
	if ok {
		copyAll("peer", RoutePeer)
		if a.Stats().BytesToPeer == 0 || b.Stats().BytesToPeer == 0 {
			t.Fatalf("no peer bytes counted: %d, %d", a.Stats().BytesToPeer, b.Stats().BytesToPeer)
		}
	} else {
		copyAll("host staged, no peer access", RouteHost)
	}
	// Enabling again is harmless (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED).
	if again, err := b.EnablePeerAccess(a); err != nil || again != ok {
		t.Fatalf("enabling again: %v, %v", again, err)
	}
	requireNoLeak(t, a, "GPU 0")
	requireNoLeak(t, b, "GPU 1")
}

// TestCUDASharedImagesTwoGPUs: two GPUs of one architecture that miss a
// kernel at once compile it once (imageFlights) and each runs it in its
// own context.
func TestCUDASharedImagesTwoGPUs(t *testing.T) {
	a, b := twoGPUs(t)
	src := Source{Name: "probe.cu", Code: fmt.Sprintf(`extern "C" __global__ void gsql_probe(unsigned long long *out) {
	// %d: a source no cache holds.
	if (threadIdx.x == 0) {
		*out = 0x6773716cULL;
	}
}
`, time.Now().UnixNano())}
	devs := []*Device{a, b}
	mods := make([]*Module, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, d := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mods[i], errs[i] = d.Compile(src)
		}()
	}
	wg.Wait()
	for i, d := range devs {
		if errs[i] != nil {
			t.Fatalf("GPU %d: %v", i, errs[i])
		}
		k, err := mods[i].Kernel("gsql_probe")
		if err != nil {
			t.Fatal(err)
		}
		buf, err := d.Alloc(8)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Launch(LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 32}}, buf); err != nil {
			t.Fatalf("GPU %d: %v", i, err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 8)
		if err := d.CopyToHost(out, buf.Ptr(), nil); err != nil {
			t.Fatal(err)
		}
		buf.Release()
		if v := binary.LittleEndian.Uint64(out); v != 0x6773716c {
			t.Fatalf("GPU %d: the kernel wrote %#x", i, v)
		}
	}
	compiles := a.Stats().Compiles + b.Stats().Compiles
	shared := a.Stats().SharedImageHits + b.Stats().SharedImageHits
	t.Logf("modules from %q and %q: %d compiles, %d shared", mods[0].FromCache, mods[1].FromCache, compiles, shared)
	if a.Info().Arch() != b.Info().Arch() {
		if compiles != 2 || shared != 0 {
			t.Fatalf("GPUs of two architectures: %d compiles, %d shared images; want 2 and 0", compiles, shared)
		}
		return
	}
	if compiles != 1 || shared != 1 {
		t.Fatalf("%d compiles, %d shared images; want 1 and 1", compiles, shared)
	}
}
