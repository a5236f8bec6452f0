//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
	"github.com/gsqlengine/gsql/operators"
)

// These tests run on a GPU machine (built with -tags cuda): the fused and
// the library paths against the CPU kernels, and the redact benchmark.

func openRuntime(t testing.TB, noPool bool) *operators.DeviceRuntime {
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
func runCompute(t testing.TB, rt *operators.DeviceRuntime, in *gpuexec.DeviceBatch, types []coldata.Type, pred expr.Expr, outs []expr.Expr, fused bool) (*coldata.Batch, int64) {
	t.Helper()
	return runComputeTier(t, rt, in, types, pred, outs, fused, false)
}

// runComputeTier is runCompute with the interpreter alone (interpOnly).
func runComputeTier(t testing.TB, rt *operators.DeviceRuntime, in *gpuexec.DeviceBatch, types []coldata.Type, pred expr.Expr, outs []expr.Expr, fused, interpOnly bool) (*coldata.Batch, int64) {
	t.Helper()
	ctx := context.Background()
	st := &operators.Stats{}
	tier := operators.TierFused
	if interpOnly {
		tier, fused = operators.TierInterp, true
	}
	c := &operators.DeviceCompute{Input: &batchSource{b: in}, RT: rt, Types: types, Pred: pred, Exprs: outs, Fused: fused, Strict: fused, Stats: st, Tier: tier}
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

// TestInterpreterDeviceMatchesCPU runs every fused-kernel test case through
// the tier-0 interpreter on the GPU: each function over 2^20 rows, the
// filters, long strings, the scan and UTF-8 edge batches, DATETIME(n).
func TestInterpreterDeviceMatchesCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	start := time.Now()
	if err := rt.Dev.WaitInterpreter(ctx); err != nil {
		t.Fatal(err)
	}
	st := rt.Dev.Stats()
	t.Logf("interpreter ready in %v (%d compiles, NVRTC %v, load %v, %d disk hits)", time.Since(start).Round(time.Millisecond), st.Compiles, st.CompileTime.Round(time.Millisecond), st.LoadTime.Round(time.Millisecond), st.DiskCacheHits)
	var bld fusetest.Builder
	// FspCases: casts to DATETIME(n) and their text (issue 39 item 3).
	cases, filters := append(append(bld.Cases(), bld.DateCases()...), bld.FspCases()...), bld.Filters()
	scanCases := bld.ScanCases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	check := func(label string, host *coldata.Batch, pred expr.Expr, outs []expr.Expr) {
		t.Helper()
		in, err := rt.Dev.Upload(ctx, host)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Release()
		want, werr := fusetest.Reference(host, pred, outs)
		if werr != nil {
			t.Fatal(werr)
		}
		got, launches := runComputeTier(t, rt, in, fusetest.Types, pred, outs, true, true)
		if err := fusetest.Compare(outs, got.Cols, want); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		t.Logf("%s: %d outputs, %d rows, %d launches", label, len(outs), want[0].Len, launches)
	}
	host := fusetest.Batch(1<<20, 7)
	for i, outs := range cases {
		check(fmt.Sprintf("case %d", i), host, nil, outs)
	}
	for i, f := range filters {
		check(fmt.Sprintf("filter %d", i), host, f, cases[0])
	}
	long := fusetest.LongBatch(1<<14, 11)
	check("long", long, nil, cases[0])
	scan := fusetest.ScanBatch(1<<18, 13)
	for i, outs := range scanCases {
		check(fmt.Sprintf("scan %d", i), scan, nil, outs)
	}
	edge := fusetest.EdgeBatch(1<<16, 5)
	for i, outs := range cases {
		check(fmt.Sprintf("edge %d", i), edge, nil, outs)
	}
}

func TestDevicePathsMatchCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	var bld fusetest.Builder
	cases, filters := bld.Cases(), bld.Filters()
	dateCases := bld.DateCases()
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
	// The functions go a case to a kernel, not all in one: one kernel of
	// every case took NVRTC over 6 minutes on the H200. Their compiles
	// start at once, in the background, so that they overlap.
	for _, outs := range append(cases, dateCases...) {
		if k, err := fuse.Generate(fusetest.Types, nil, outs); err == nil {
			rt.Dev.FusedReady(k)
		}
	}
	for _, f := range filters {
		if k, err := fuse.Generate(fusetest.Types, f, cases[0]); err == nil {
			rt.Dev.FusedReady(k)
		}
	}
	// The references are computed once, before the fused and the unfused
	// passes: over 2^20 rows they cost more CPU than the GPU passes.
	var preds []expr.Expr
	var predOutsOf [][]expr.Expr
	for _, outs := range cases {
		preds, predOutsOf = append(preds, nil), append(predOutsOf, outs)
	}
	for _, f := range filters {
		preds, predOutsOf = append(preds, f), append(predOutsOf, cases[0])
	}
	predWants := make([][]*coldata.Vec, len(preds))
	for fi, pred := range preds {
		if predWants[fi], err = fusetest.Reference(host, pred, predOutsOf[fi]); err != nil {
			t.Fatal(err)
		}
	}
	dateWants := make([][]*coldata.Vec, len(dateCases))
	for ci, outs := range dateCases {
		if dateWants[ci], err = fusetest.Reference(host, nil, outs); err != nil {
			t.Fatal(err)
		}
	}
	for _, fused := range []bool{true, false} {
		for fi, pred := range preds {
			outs, want := predOutsOf[fi], predWants[fi]
			got, launches := runCompute(t, rt, in, fusetest.Types, pred, outs, fused)
			if err := fusetest.Compare(outs, got.Cols, want); err != nil {
				t.Fatalf("fused=%v case %d (filter %v): %v", fused, fi, pred, err)
			}
			t.Logf("fused=%v case=%d (filter %v): %d outputs, %d rows, %d launches", fused, fi, pred, len(outs), want[0].Len, launches)
		}
		// The date functions, a kernel per case (all of them at once pass
		// more parameters than a kernel takes).
		for ci, outs := range dateCases {
			got, launches := runCompute(t, rt, in, fusetest.Types, nil, outs, fused)
			if err := fusetest.Compare(outs, got.Cols, dateWants[ci]); err != nil {
				t.Fatalf("fused=%v dates %d: %v", fused, ci, err)
			}
			t.Logf("fused=%v dates %d: %d outputs, %d launches", fused, ci, len(outs), launches)
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
		bld.Call("upper", name), bld.Call("lower", name), bld.Call("split_part", name, fusetest.Lit(" "), fusetest.Lit(-2)),
		// Ropes with a piece in the thread's scratch (a generated string):
		// other lanes cannot read it, so these rows must not be copied by
		// the warp.
		bld.Call("concat", bld.Call("upper", name), fusetest.Lit("!")), bld.Call("concat_ws", fusetest.Lit("-"), bld.Call("replace", name, fusetest.Lit("a"), fusetest.Lit("AA")), n)}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	longWant, err := fusetest.Reference(long, nil, longOuts)
	if err != nil {
		t.Fatal(err)
	}
	for _, fused := range []bool{true, false} {
		got, _ := runCompute(t, rt, lin, fusetest.Types, nil, longOuts, fused)
		if err := fusetest.Compare(longOuts, got.Cols, longWant); err != nil {
			t.Fatalf("long strings, fused=%v: %v", fused, err)
		}
	}
	lin.Release()
	// The chunked string scans: delimiters and needles at every position
	// and chunk boundary (ScanBatch), every scan function.
	scanCases := bld.ScanCases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	scan := fusetest.ScanBatch(1<<18, 13)
	sin, err := rt.Dev.Upload(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	for _, outs := range scanCases {
		want, err := fusetest.Reference(scan, nil, outs)
		if err != nil {
			t.Fatal(err)
		}
		for _, fused := range []bool{true, false} {
			got, _ := runCompute(t, rt, sin, fusetest.Types, nil, outs, fused)
			if err := fusetest.Compare(outs, got.Cols, want); err != nil {
				t.Fatalf("scan cases, fused=%v: %v", fused, err)
			}
		}
	}
	sin.Release()
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
		switch c.Type.Physical() {
		case coldata.String:
			n += int64(4*(c.Len+1)) + int64(c.Offsets[c.Len]-c.Offsets[0])
		case coldata.Int64, coldata.Float64:
			n += int64(8 * c.Len)
		case coldata.Bool:
			n += int64(c.Len)
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
	for _, rows := range redactRows() {
		host := peopleBatch(b, rows)
		for _, mode := range []string{"fused", "library", "fused-nopool", "interp"} {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, mode), func(b *testing.B) {
				rt := openRuntime(b, mode == "fused-nopool")
				ctx := context.Background()
				in, err := rt.Dev.Upload(ctx, host)
				if err != nil {
					b.Fatal(err)
				}
				defer in.Release()
				prof := &gpuexec.KernelProfile{}
				tier := operators.TierFused
				if mode == "interp" {
					tier = operators.TierInterp // tier 0: the precompiled interpreter
				}
				c := &operators.DeviceCompute{Input: &batchSource{b: in}, RT: rt, Types: types, Exprs: []expr.Expr{redact}, Fused: mode != "library", Strict: mode != "library", Stats: &operators.Stats{}, Profile: prof, Tier: tier}
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
				if mode == "fused" || mode == "fused-nopool" {
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

// redactVariant is one code-generation and grid choice for the fused
// redact kernel.
type redactVariant struct {
	name  string
	opts  fuse.Options
	perSM int
}

// redactVariants are measured side by side by BenchmarkRedactVariants: the
// code as it was before the chunked scans (byte-at-a-time scans, no find
// cache, 64-bit counters), each change on its own, and grid sizes.
var redactVariants = []redactVariant{
	{"base-g8", fuse.Options{Scalar: true, NoFindCache: true, Counters64: true}, 8},
	{"base-g32", fuse.Options{Scalar: true, NoFindCache: true, Counters64: true}, 32},
	{"scalar-g8", fuse.Options{Scalar: true}, 8},
	{"scalar-g32", fuse.Options{Scalar: true}, 32},
	{"new-g8", fuse.Options{}, 8},
	{"new-g16", fuse.Options{}, 16},
	{"new-g32", fuse.Options{}, 32},
	{"new-mb6-g6", fuse.Options{MinBlocks: 6}, 6},
	{"new-mb8-g8", fuse.Options{MinBlocks: 8}, 8},
	{"base-g8-again", fuse.Options{Scalar: true, NoFindCache: true, Counters64: true}, 8},
}

// BenchmarkRedactVariants times the fused redact kernel built with each of
// redactVariants over a resident people table (GSQL_VARIANT_ROWS: the row
// counts, default 600K,10M,100M), and checks every variant's output against
// the CPU at the first row count. Time is the median of b.N runs after one
// warm-up; sizes/fill are the passes' device times (events).
func BenchmarkRedactVariants(b *testing.B) {
	var bld fusetest.Builder
	redact := bld.Redact(&expr.ColumnRef{Index: 0, Name: "name", T: coldata.String}, &expr.ColumnRef{Index: 1, Name: "visibility", T: coldata.String})
	if bld.Err != nil {
		b.Fatal(bld.Err)
	}
	types := []coldata.Type{coldata.String, coldata.String}
	rowsList := []int{600_000, 10_000_000, 100_000_000}
	if s := os.Getenv("GSQL_VARIANT_ROWS"); s != "" {
		rowsList = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			rowsList = append(rowsList, n)
		}
	}
	rt := openRuntime(b, false)
	ctx := context.Background()
	for ri, rows := range rowsList {
		host := peopleBatch(b, rows)
		in, err := rt.Dev.Upload(ctx, host)
		if err != nil {
			b.Fatal(err)
		}
		var want []*coldata.Vec
		if ri == 0 {
			if want, err = fusetest.Reference(host, nil, []expr.Expr{redact}); err != nil {
				b.Fatal(err)
			}
		}
		for _, v := range redactVariants {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, v.name), func(b *testing.B) {
				k, err := fuse.GenerateWith(types, nil, []expr.Expr{redact}, v.opts)
				if err != nil {
					b.Fatal(err)
				}
				fk, err := rt.Dev.PrepareFused(k)
				if err != nil {
					b.Fatal(err)
				}
				defer fk.Release()
				fk.BlocksPerSM = v.perSM
				prof := &gpuexec.KernelProfile{}
				fk.Profile = prof
				run := func() (time.Duration, *gpuexec.DeviceBatch) { return timedRun(b, rt, fk, in) }
				_, out := run() // warm-up
				if want != nil {
					hb, err := rt.Dev.Download(ctx, out)
					if err != nil {
						b.Fatal(err)
					}
					if err := fusetest.Compare([]expr.Expr{redact}, hb.Cols, want); err != nil {
						b.Fatalf("%s: %v", v.name, err)
					}
				}
				outBytes := deviceStringBytes(b, rt, out.Cols[0])
				out.Release()
				var times, sizesT, fillT []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					d, out := run()
					out.Release()
					prof.Finish()
					times, sizesT, fillT = append(times, d), append(sizesT, prof.Sizes), append(fillT, prof.Fill)
				}
				med := median(times).Seconds()
				b.ReportMetric(med*1e3, "ms")
				b.ReportMetric(median(sizesT).Seconds()*1e3, "sizes+scan-ms")
				b.ReportMetric(median(fillT).Seconds()*1e3, "fill-ms")
				b.ReportMetric(float64(batchBytes(host)+outBytes)/med/1e9, "GB/s")
			})
		}
		in.Release()
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// timedRun runs a fused kernel over a resident batch and waits for the
// device: the wall time of one batch and its output.
func timedRun(b testing.TB, rt *operators.DeviceRuntime, fk *gpuexec.FusedKernel, in *gpuexec.DeviceBatch) (time.Duration, *gpuexec.DeviceBatch) {
	b.Helper()
	start := time.Now()
	out, err := fk.Run(context.Background(), in)
	if err != nil {
		b.Fatal(err)
	}
	if err := rt.Dev.Synchronize(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start), out
}

// deviceStringBytes is the Arrow size of a device string column (bitmap,
// offsets, chars), reading the last offset back.
func deviceStringBytes(t testing.TB, rt *operators.DeviceRuntime, col gpuexec.DeviceVec) int64 {
	t.Helper()
	offs := make([]byte, 4)
	if err := rt.Dev.CopyToHost(offs, col.Offsets+gpuexec.DevicePtr(4*col.Len), nil); err != nil {
		t.Fatal(err)
	}
	last := int64(uint32(offs[0]) | uint32(offs[1])<<8 | uint32(offs[2])<<16 | uint32(offs[3])<<24)
	return int64(4*(col.Len+1)) + last + int64(coldata.BitmapLen(col.Len))
}

// longModes are the evaluation strategies compared over long strings.
var longModes = []struct {
	name string
	opts fuse.Options
}{
	{"thread", fuse.Options{}},
}

// BenchmarkLongStringsDevice times one fused kernel per function over
// 200K resident rows of 1 to 4 KB (fusetest.LongRows), and checks each
// result against the CPU.
func BenchmarkLongStringsDevice(b *testing.B) {
	var bld fusetest.Builder
	cases := bld.LongCases()
	if bld.Err != nil {
		b.Fatal(bld.Err)
	}
	rt := openRuntime(b, false)
	ctx := context.Background()
	host := fusetest.LongRows(200_000, 1024, 4096, 5)
	in, err := rt.Dev.Upload(ctx, host)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Release()
	inBytes := batchBytes(&coldata.Batch{Cols: host.Cols[:1], Len: host.Len})
	for _, e := range cases {
		want, err := fusetest.Reference(host, nil, []expr.Expr{e})
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range longModes {
			b.Run(fmt.Sprintf("%s/%s", e, mode.name), func(b *testing.B) {
				k, err := fuse.GenerateWith(fusetest.Types, nil, []expr.Expr{e}, mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				fk, err := rt.Dev.PrepareFused(k)
				if err != nil {
					b.Fatal(err)
				}
				defer fk.Release()
				run := func() (time.Duration, *gpuexec.DeviceBatch) { return timedRun(b, rt, fk, in) }
				_, out := run()
				hb, err := rt.Dev.Download(ctx, out)
				out.Release()
				if err != nil {
					b.Fatal(err)
				}
				if err := fusetest.Compare([]expr.Expr{e}, hb.Cols, want); err != nil {
					b.Fatalf("%s: %v", mode.name, err)
				}
				var times []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					d, out := run()
					out.Release()
					times = append(times, d)
				}
				med := median(times).Seconds()
				b.ReportMetric(med*1e3, "ms")
				b.ReportMetric(float64(inBytes+batchBytes(hb))/med/1e9, "GB/s")
			})
		}
	}
}

// TestDeviceComputeShiftedViews evaluates the fused kernels and the
// interpreter over views that start at rows 1-7 of a batch with NULLs, so
// that every column's validity starts inside a byte (what an exchange's
// partitions and split halves hand a kernel): the launch packs such a view
// first, and the answers equal the CPU's over the same rows.
func TestDeviceComputeShiftedViews(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	if err := rt.Dev.WaitInterpreter(ctx); err != nil {
		t.Fatal(err)
	}
	var bld fusetest.Builder
	cases, filters := bld.Cases(), bld.Filters()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	host := fusetest.Batch(5000, 17)
	full, err := rt.Dev.Upload(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Release()
	for lo := 1; lo < 8; lo++ {
		view, err := gpuexec.Slice(full, lo, host.Len)
		if err != nil {
			t.Fatal(err)
		}
		sub := coldata.SliceBatch(host, lo, host.Len)
		for _, interp := range []bool{false, true} {
			for i, outs := range cases[:min(len(cases), 4)] {
				pred := filters[i%len(filters)]
				want, err := fusetest.Reference(sub, pred, outs)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := runComputeTier(t, rt, view, fusetest.Types, pred, outs, true, interp)
				if err := fusetest.Compare(outs, got.Cols, want); err != nil {
					t.Fatalf("view from row %d, case %d (interpreter %v): %v", lo, i, interp, err)
				}
			}
		}
		view.Release()
	}
}
