//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
	"github.com/gsqlengine/gsql/operators"
)

// These tests run on a GPU machine (built with -tags cuda): the fused and
// the library paths against the CPU kernels, and the redact benchmark.

func openRuntime(t testing.TB, noPool bool) *operators.GPURuntime {
	t.Helper()
	rt, err := operators.NewDeviceRuntime(gpuexec.Options{NoPool: noPool, CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}, 16<<30)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { rt.Cache.Clear(); rt.Dev.Close() })
	return rt
}

// batchSource yields one resident device batch, retained per use.
type batchSource struct {
	b    *gpuexec.DeviceBatch
	done bool
}

func (s *batchSource) Open(context.Context) error { s.done = false; return nil }
func (s *batchSource) NextDevice(context.Context) (*gpuexec.DeviceBatch, error) {
	if s.done {
		return nil, nil
	}
	s.done = true
	return s.b.Retain()
}
func (s *batchSource) Close() error { return nil }

// runCompute evaluates a DeviceCompute over one resident batch and returns
// the host result and the launches it made.
func runCompute(t testing.TB, rt *operators.GPURuntime, in *gpuexec.DeviceBatch, types []coldata.Type, pred expr.Expr, outs []expr.Expr, fused bool) (*coldata.Batch, int64) {
	t.Helper()
	ctx := context.Background()
	st := &operators.Stats{}
	c := &operators.DeviceCompute{Input: &batchSource{b: in}, RT: rt, Types: types, Pred: pred, Exprs: outs, Fused: fused, Strict: fused, Stats: st}
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var parts []*coldata.Batch
	for {
		db, err := c.NextDevice(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if db == nil {
			break
		}
		hb, err := rt.Dev.Download(ctx, db)
		db.Release()
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, hb)
	}
	if len(parts) == 0 {
		return &coldata.Batch{Cols: make([]*coldata.Vec, len(outs))}, st.Launches.Load()
	}
	return coldata.Concat(parts, len(parts[0].Cols)), st.Launches.Load()
}

func TestDevicePathsMatchCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	var bld fusetest.Builder
	cases, filters := bld.Cases(), bld.Filters()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	// 2^20 rows per function: the differential test of every function.
	host := fusetest.Batch(1<<20, 7)
	in, err := rt.Dev.Upload(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	base := rt.Dev.Stats().Memory.InUse
	var all []expr.Expr
	for _, c := range cases {
		all = append(all, c...)
	}
	for _, fused := range []bool{true, false} {
		for fi, pred := range append([]expr.Expr{nil}, filters...) {
			outs := all
			if pred != nil {
				outs = cases[0]
			}
			want, err := fusetest.Reference(host, pred, outs)
			if err != nil {
				t.Fatal(err)
			}
			got, launches := runCompute(t, rt, in, fusetest.Types, pred, outs, fused)
			if err := fusetest.Compare(outs, got.Cols, want); err != nil {
				t.Fatalf("fused=%v filter %d: %v", fused, fi, err)
			}
			t.Logf("fused=%v filter=%d: %d outputs, %d rows, %d launches", fused, fi, len(outs), want[0].Len, launches)
		}
	}
	// Long strings (average output well over 32 bytes): the warp-cooperative
	// copy of the fill pass.
	long := fusetest.LongBatch(1<<16, 11)
	lin, err := rt.Dev.Upload(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	name, n := fusetest.Col(fusetest.Name), fusetest.Col(fusetest.S)
	longOuts := []expr.Expr{cases[0][0], bld.Call("concat", name, n, name), bld.Call("substring", name, fusetest.Lit(3)),
		bld.Call("upper", name), bld.Call("split_part", name, fusetest.Lit(" "), fusetest.Lit(-2))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, fused := range []bool{true, false} {
		want, err := fusetest.Reference(long, nil, longOuts)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := runCompute(t, rt, lin, fusetest.Types, nil, longOuts, fused)
		if err := fusetest.Compare(longOuts, got.Cols, want); err != nil {
			t.Fatalf("long strings, fused=%v: %v", fused, err)
		}
	}
	lin.Release()
	if inUse := rt.Dev.Stats().Memory.InUse; inUse != base {
		t.Fatalf("pool in use %d after the runs, %d before", inUse, base)
	}
}

func peopleBatch(t testing.TB, rows int) *coldata.Batch {
	_, recs := datagen.People(rows, 42)
	var bs []*coldata.Batch
	for _, r := range recs {
		b, err := coldata.RecordToBatch(r)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	return coldata.Concat(bs, 2)
}

func batchBytes(b *coldata.Batch) int64 {
	var n int64
	for _, c := range b.Cols {
		n += int64(coldata.BitmapLen(c.Len))
		if c.Type == coldata.String {
			n += int64(4*(c.Len+1)) + int64(c.Offsets[c.Len]-c.Offsets[0])
		}
	}
	return n
}

// BenchmarkRedactDevice times the redact projection over a resident table:
// fused kernels vs the kernel library, with the pool and without.
func BenchmarkRedactDevice(b *testing.B) {
	var bld fusetest.Builder
	redact := bld.Redact(&expr.ColumnRef{Index: 0, Name: "name", T: coldata.String}, &expr.ColumnRef{Index: 1, Name: "visibility", T: coldata.String})
	if bld.Err != nil {
		b.Fatal(bld.Err)
	}
	types := []coldata.Type{coldata.String, coldata.String}
	for _, rows := range []int{600_000, 10_000_000, 100_000_000} {
		host := peopleBatch(b, rows)
		for _, mode := range []string{"fused", "library", "fused-nopool"} {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, mode), func(b *testing.B) {
				rt := openRuntime(b, mode == "fused-nopool")
				ctx := context.Background()
				in, err := rt.Dev.Upload(ctx, host)
				if err != nil {
					b.Fatal(err)
				}
				defer in.Release()
				prof := &gpuexec.KernelProfile{}
				c := &operators.DeviceCompute{Input: &batchSource{b: in}, RT: rt, Types: types, Exprs: []expr.Expr{redact}, Fused: mode != "library", Strict: mode != "library", Stats: &operators.Stats{}, Profile: prof}
				if err := c.Open(ctx); err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				run := func() (time.Duration, int64) {
					c.Input.Open(ctx)
					start := time.Now()
					out, err := c.NextDevice(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if err := rt.Dev.Synchronize(); err != nil {
						b.Fatal(err)
					}
					d := time.Since(start)
					var outBytes int64
					col := out.Cols[0]
					offs := make([]byte, 4)
					rt.Dev.CopyToHost(offs, col.Offsets+gpuexec.DevicePtr(4*col.Len), nil)
					outBytes = int64(4*(col.Len+1)) + int64(uint32(offs[0])|uint32(offs[1])<<8|uint32(offs[2])<<16|uint32(offs[3])<<24) + int64(coldata.BitmapLen(col.Len))
					out.Release()
					return d, outBytes
				}
				run() // warm-up: compile, first allocations
				launches0 := c.Stats.Launches.Load()
				var times, sizesT, fillT []time.Duration
				var outBytes int64
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					d, ob := run()
					times = append(times, d)
					outBytes = ob
					prof.Finish()
					sizesT, fillT = append(sizesT, prof.Sizes), append(fillT, prof.Fill)
				}
				if mode != "library" {
					sort.Slice(sizesT, func(i, j int) bool { return sizesT[i] < sizesT[j] })
					sort.Slice(fillT, func(i, j int) bool { return fillT[i] < fillT[j] })
					b.ReportMetric(sizesT[len(sizesT)/2].Seconds()*1e3, "sizes+scan-ms")
					b.ReportMetric(fillT[len(fillT)/2].Seconds()*1e3, "fill-ms")
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				med := times[len(times)/2].Seconds()
				b.ReportMetric(med*1e3, "ms")
				b.ReportMetric(float64(batchBytes(host)+outBytes)/med/1e9, "GB/s")
				b.ReportMetric(float64(rows)/med/1e6, "Mrows/s")
				b.ReportMetric(float64(c.Stats.Launches.Load()-launches0)/float64(b.N), "launches")
			})
		}
	}
}

// BenchmarkCopyBandwidth measures a device-to-device copy (read + write
// bytes per second): the yardstick the redact figures are compared with.
func BenchmarkCopyBandwidth(b *testing.B) {
	rt := openRuntime(b, false)
	const n = 1 << 30
	src, err := rt.Dev.Alloc(n)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Release()
	dst, err := rt.Dev.Alloc(n)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Release()
	rt.Dev.Memset(src.Ptr(), 7, n, nil)
	rt.Dev.CopyDevice(dst.Ptr(), src.Ptr(), n, nil)
	rt.Dev.Synchronize()
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := rt.Dev.CopyDevice(dst.Ptr(), src.Ptr(), n, nil); err != nil {
			b.Fatal(err)
		}
		if err := rt.Dev.Synchronize(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(2*float64(n)/times[len(times)/2].Seconds()/1e9, "GB/s")
}
