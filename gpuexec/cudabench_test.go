//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

// TestCUDABenchReport measures the runtime on the device and prints a
// markdown report (also written to $GSQL_BENCH_OUT). It runs only with
// GSQL_BENCH=1: medians of repeated host-clock or event timings after
// warm-up.

func median(xs []time.Duration) time.Duration {
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func gbps(bytes int64, d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e9 }

type report struct{ b strings.Builder }

func (r *report) printf(format string, args ...any) {
	fmt.Fprintf(&r.b, format, args...)
	fmt.Printf(format, args...)
}

func TestCUDABenchReport(t *testing.T) {
	if os.Getenv("GSQL_BENCH") == "" {
		t.Skip("GSQL_BENCH not set")
	}
	d := cudaDevice(t)
	var r report
	r.printf("device: %v\n\n", d.Info())
	benchAlloc(t, d, &r)
	benchTransfers(t, d, &r)
	benchCopy(t, d, &r)
	benchNVRTC(t, d, &r)
	if p := os.Getenv("GSQL_BENCH_OUT"); p != "" {
		os.WriteFile(p, []byte(r.b.String()), 0o644)
	}
}

func benchAlloc(t *testing.T, d *Device, r *report) {
	direct, err := NewDevice(Options{NoPool: true, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	r.printf("### Allocation: alloc+free pair, median\n\n| size | pool | cuMemAlloc+cuMemFree | ratio |\n|---|---|---|---|\n")
	for size := uint64(1 << 10); size <= 64<<20; size *= 4 {
		iters := 2000
		if size >= 4<<20 {
			iters = 200
		}
		var pool, raw []time.Duration
		err := d.Do(func() error {
			a, err := d.alloc.Alloc(size) // warm: the pool holds a slab
			if err != nil {
				return err
			}
			d.alloc.Free(a)
			for i := 0; i < iters; i++ {
				t0 := time.Now()
				a, err := d.alloc.Alloc(size)
				if err != nil {
					return err
				}
				if err := d.alloc.Free(a); err != nil {
					return err
				}
				pool = append(pool, time.Since(t0))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		err = direct.Do(func() error {
			for i := 0; i < iters/4; i++ {
				t0 := time.Now()
				p, err := direct.drv.memAlloc(size)
				if err != nil {
					return err
				}
				if err := direct.drv.memFree(p, size); err != nil {
					return err
				}
				raw = append(raw, time.Since(t0))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		mp, mr := median(pool), median(raw)
		r.printf("| %s | %.3f µs | %.1f µs | %.0fx |\n", fmtBytes(size), us(mp), us(mr), float64(mr)/float64(mp))
	}
	// The public path: Alloc/Release from another goroutine (a hop to the
	// context thread each).
	var pub []time.Duration
	for i := 0; i < 2000; i++ {
		t0 := time.Now()
		b, err := d.Alloc(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		pub = append(pub, time.Since(t0))
	}
	r.printf("\nPublic Device.Alloc+Buffer.Release of 1 MiB from another goroutine (two hops to the context thread): median %.2f µs\n\n", us(median(pub)))
	d.Trim()
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func fmtBytes(n uint64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// redactBatch is the DESIGN's people table: name "First Last" and
// visibility 'public'/'private'.
func redactBatch(n int) *coldata.Batch {
	first := []string{"Alice", "Bob", "Carmen", "Dmitri", "Émile", "Fatima", "Günter", "Hiro"}
	last := []string{"Smith", "Okafor", "Novák", "Zhang", "García", "Kowalski", "Müller", "Ivanova"}
	name := coldata.NewBuilder(coldata.String, n)
	vis := coldata.NewBuilder(coldata.String, n)
	x := uint64(42)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		name.AppendString(first[x%8] + " " + last[(x>>8)%8])
		if (x>>16)&1 == 0 {
			vis.AppendString("public")
		} else {
			vis.AppendString("private")
		}
	}
	return coldata.NewBatch([]*coldata.Vec{name.Finish(), vis.Finish()}, n)
}

func benchTransfers(t *testing.T, d *Device, r *report) {
	ctx := context.Background()
	const n = 10_000_000
	hb := redactBatch(n)
	var bytes int64
	var bufs [][]byte
	for _, v := range hb.Cols {
		bufs = append(bufs, bytesOf(v.Offsets), v.Bytes)
		bytes += int64(4*(n+1) + len(v.Bytes))
	}
	const reps = 7
	r.printf("### Transfers: %d rows, 2 string columns (%.1f MB), median of %d\n\n| path | time | GB/s |\n|---|---|---|\n", n, float64(bytes)/1e6, reps)
	row := func(name string, ts []time.Duration) {
		m := median(ts)
		r.printf("| %s | %.2f ms | %.1f |\n", name, float64(m.Microseconds())/1e3, gbps(bytes, m))
	}
	// Packed upload: host pack into pinned staging + one H2D.
	var up, down []time.Duration
	var db *DeviceBatch
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		b, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		up = append(up, time.Since(t0))
		if db != nil {
			db.Release()
		}
		db = b
	}
	row("Upload (pack on host into pinned staging + 1 H2D)", up)
	download := func(name string, chunk int) {
		defer func(c int) { downloadChunk = c }(downloadChunk)
		downloadChunk = chunk
		down = down[:0]
		for i := 0; i < reps; i++ {
			t0 := time.Now()
			got, err := d.Download(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			down = append(down, time.Since(t0))
			if i == 0 {
				requireEqualBatch(t, hb, got, "bench download")
			}
		}
		row(name, down)
	}
	download("Download (pipelined: 32 MiB D2H pieces into pinned staging, copied out on all cores)", downloadChunk)
	download("Download (one D2H into pinned staging, then copy out)", 1<<40)
	down = down[:0]
	for i := 0; i < reps+1; i++ {
		t0 := time.Now()
		got, err := d.DownloadResult(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 { // the first pins the pool's slab
			down = append(down, time.Since(t0))
		} else {
			requireEqualBatch(t, hb, got, "bench result download")
		}
		got.ReleaseOwner()
	}
	row("DownloadResult (1 D2H into the page-locked result pool, no host copy)", down)
	// The raw copies of the packed buffer alone (pinned <-> device), timed
	// with events.
	p, _ := d.Pack(db)
	size := p.Size()
	scratch, err := d.Alloc(uint64(size))
	if err != nil {
		t.Fatal(err)
	}
	var h2dPinned, d2hPinned, h2dPage, d2hPage []time.Duration
	err = d.Do(func() error {
		stage, err := d.stagingOn(int(size))
		if err != nil || stage == nil {
			return fmt.Errorf("staging: %v", err)
		}
		page := make([]byte, size)
		for i := range page {
			page[i] = byte(i)
		}
		ev := func(f func() error) (time.Duration, error) {
			a, _ := d.drv.newEvent()
			b, _ := d.drv.newEvent()
			defer d.drv.destroyEvent(a)
			defer d.drv.destroyEvent(b)
			d.drv.recordEvent(a, d.stream.h)
			if err := f(); err != nil {
				return 0, err
			}
			d.drv.recordEvent(b, d.stream.h)
			if err := d.drv.syncEvent(b); err != nil {
				return 0, err
			}
			ms, err := d.drv.elapsed(a, b)
			return time.Duration(float64(ms) * 1e6), err
		}
		for i := 0; i < reps; i++ {
			for _, c := range []struct {
				out *[]time.Duration
				f   func() error
			}{
				{&h2dPinned, func() error { return d.drv.h2d(scratch.Ptr(), stage, d.stream.h) }},
				{&d2hPinned, func() error { return d.drv.d2h(stage, scratch.Ptr(), d.stream.h) }},
				{&h2dPage, func() error { return d.drv.h2d(scratch.Ptr(), page, d.stream.h) }},
				{&d2hPage, func() error { return d.drv.d2h(page, scratch.Ptr(), d.stream.h) }},
			} {
				el, err := ev(c.f)
				if err != nil {
					return err
				}
				*c.out = append(*c.out, el)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Release()
	scratch.Release()
	row("packed H2D copy alone, pinned (events)", h2dPinned)
	row("packed D2H copy alone, pinned (events)", d2hPinned)
	row("packed H2D copy alone, pageable (events)", h2dPage)
	row("packed D2H copy alone, pageable (events)", d2hPage)
	// Per buffer: one copy per host slice, straight from/to Go memory.
	dst := make([]*Buffer, len(bufs))
	for i, b := range bufs {
		dst[i], _ = d.Alloc(uint64(len(b)))
	}
	var pbH, pbD []time.Duration
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		for k, b := range bufs {
			if err := d.CopyToDevice(dst[k].Ptr(), b, nil); err != nil {
				t.Fatal(err)
			}
		}
		pbH = append(pbH, time.Since(t0))
		t0 = time.Now()
		for k, b := range bufs {
			out := make([]byte, len(b))
			if err := d.CopyToHost(out, dst[k].Ptr(), nil); err != nil {
				t.Fatal(err)
			}
		}
		pbD = append(pbD, time.Since(t0))
	}
	for _, b := range dst {
		b.Release()
	}
	row("per-buffer H2D (4 copies from Go memory, pageable)", pbH)
	row("per-buffer D2H (4 copies into new Go memory, pageable)", pbD)
	// Device-side work on the same batch.
	var cs, cat []time.Duration
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		parts, err := d.ContiguousSplit(db, []int{n / 4, n / 2, 3 * n / 4})
		if err != nil {
			t.Fatal(err)
		}
		d.Synchronize()
		cs = append(cs, time.Since(t0))
		var in []*DeviceBatch
		for _, p := range parts {
			in = append(in, p.DeviceBatch)
		}
		t0 = time.Now()
		c, err := d.Concatenate(in)
		if err != nil {
			t.Fatal(err)
		}
		d.Synchronize()
		cat = append(cat, time.Since(t0))
		c.Release()
		for _, p := range parts {
			p.Release()
		}
	}
	row("ContiguousSplit into 4 (device, GB/s of input)", cs)
	row("Concatenate 4 back (device, GB/s of output)", cat)
	var chunk []time.Duration
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		if _, err := d.ChunkedPack(ctx, db, 64<<20, func([]byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		chunk = append(chunk, time.Since(t0))
	}
	row("ChunkedPack to host, 64 MiB bounce", chunk)
	db.Release()
	r.printf("\n")
}

func benchCopy(t *testing.T, d *Device, r *report) {
	const size = 1 << 30
	a, err := d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	defer b.Release()
	d.Memset(a.Ptr(), 7, size, nil)
	k, err := d.builtinKernel("gsql_copy_rw")
	if err != nil {
		t.Fatal(err)
	}
	var memcpy, kern []time.Duration
	s, e := mustEvent(t, d), mustEvent(t, d)
	for i := 0; i < 12; i++ {
		s.Record(nil)
		d.CopyDevice(b.Ptr(), a.Ptr(), size, nil)
		e.Record(nil)
		e.Synchronize()
		el, _ := s.Elapsed(e)
		memcpy = append(memcpy, el)
		s.Record(nil)
		cfg := Grid1D(size/16, 256)
		cfg.Grid.X = d.Info().SMs * 16
		if err := k.Launch(cfg, b.Ptr(), a.Ptr(), int64(size/16)); err != nil {
			t.Fatal(err)
		}
		e.Record(nil)
		e.Synchronize()
		el, _ = s.Elapsed(e)
		kern = append(kern, el)
	}
	r.printf("### Device-to-device copy, 1 GiB, read+write bytes counted, median of 12\n\n| path | time | GB/s |\n|---|---|---|\n")
	r.printf("| cuMemcpyDtoDAsync | %.3f ms | %.0f |\n", us(median(memcpy))/1e3, gbps(2*size, median(memcpy)))
	r.printf("| gsql_copy_rw kernel (16-byte loads, grid-stride) | %.3f ms | %.0f |\n\n", us(median(kern))/1e3, gbps(2*size, median(kern)))
}

func mustEvent(t *testing.T, d *Device) *Event {
	e, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// builtinKernel exposes a runtime kernel to the benchmarks.
func (d *Device) builtinKernel(name string) (*Kernel, error) {
	var k *Kernel
	err := d.Do(func() (err error) { k, err = d.builtinOn(name); return err })
	return k, err
}

func benchNVRTC(t *testing.T, d *Device, r *report) {
	dir := t.TempDir()
	nd, err := NewDevice(Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer nd.Close()
	var cold, mem, disk []time.Duration
	for i := 0; i < 5; i++ {
		src := Source{Name: "runtime.cu", Code: RuntimeSource() + fmt.Sprintf("\n// variant %d\n", i)}
		t0 := time.Now()
		m, err := nd.Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		cold = append(cold, time.Since(t0))
		if m.FromCache != "" {
			t.Fatalf("cold compile from %q", m.FromCache)
		}
		t0 = time.Now()
		if m, err = nd.Compile(src); err != nil || m.FromCache != "memory" {
			t.Fatalf("memory hit: %v %q", err, m.FromCache)
		}
		mem = append(mem, time.Since(t0))
		nd.DropMemoryCache()
		t0 = time.Now()
		if m, err = nd.Compile(src); err != nil || m.FromCache != "disk" {
			t.Fatalf("disk hit: %v %q", err, m.FromCache)
		}
		disk = append(disk, time.Since(t0))
	}
	v, _ := nd.NVRTCVersion()
	r.printf("### NVRTC (%s, %s), the runtime module (4 kernels), median of 5\n\n| path | time |\n|---|---|\n", v, nvrtcPath)
	r.printf("| cold compile (NVRTC -> CUBIN, write cache, cuModuleLoadData) | %.1f ms |\n", us(median(cold))/1e3)
	r.printf("| memory-cache hit | %.2f µs |\n", us(median(mem)))
	r.printf("| disk-cache hit (read CUBIN, cuModuleLoadData) | %.3f ms |\n\n", us(median(disk))/1e3)
}
