//go:build cuda

package operators_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// runFusedMode runs kernel k over a resident batch with one row per warp
// (warp) or per thread and returns the host result.
func runFusedMode(t testing.TB, dev *gpuexec.Device, k *fuse.Kernel, in *gpuexec.DeviceBatch, warp bool) *coldata.Batch {
	t.Helper()
	hb, err := tryFusedMode(t, dev, k, in, warp)
	if err != nil {
		t.Fatal(err)
	}
	return hb
}

// tryFusedMode is runFusedMode returning the kernel's row errors (a
// scratch overflow, say).
func tryFusedMode(t testing.TB, dev *gpuexec.Device, k *fuse.Kernel, in *gpuexec.DeviceBatch, warp bool) (*coldata.Batch, error) {
	t.Helper()
	ctx := context.Background()
	fk, err := dev.PrepareFused(k)
	if err != nil {
		t.Fatal(err)
	}
	defer fk.Release()
	fk.WarpMinAvg = -1
	if warp {
		fk.WarpMinAvg = 1
	}
	out, err := fk.Run(ctx, in)
	if warp && fk.WarpBatches != 1 {
		t.Fatalf("warp form not used (%d warp batches): %v", fk.WarpBatches, fk.WarpErr())
	}
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return dev.Download(ctx, out)
}

// TestWarpKernelsDeviceMatchCPU runs the one-row-per-warp form of every
// kernel that has one over long, scan-heavy and special-byte rows on the
// device (32 lanes sharing each row) and compares with the CPU.
func TestWarpKernelsDeviceMatchCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	var bld fusetest.Builder
	name := fusetest.Col(fusetest.Name)
	var longEach [][]expr.Expr
	for _, e := range bld.LongCases() {
		longEach = append(longEach, []expr.Expr{e})
	}
	specials := [][]expr.Expr{
		{bld.Call("upper", name), bld.Call("lower", name), bld.Call("char_length", name)},
		{bld.Call("concat", bld.Call("upper", name), fusetest.Lit("!"))},
		{bld.Call("replace", name, fusetest.Lit(" "), fusetest.Lit("<->")), bld.Call("replace", name, fusetest.Lit("a"), fusetest.Lit(""))},
		{bld.Call("locate", fusetest.Lit("delta"), name), bld.Call("split_part", name, fusetest.Lit(" "), fusetest.Lit(-2))},
		{bld.Call("lower", bld.Call("concat", name, name))},
	}
	// GSQL_WARP_ROWS sets the row count of the edge, scan and function
	// sets (default 5x the long rows).
	rows := 20_000
	if testing.Short() {
		rows = 4_000
	}
	many := 5 * rows
	if v, err := strconv.Atoi(os.Getenv("GSQL_WARP_ROWS")); err == nil && v > 0 {
		many = v
	}
	sets := []struct {
		name  string
		b     *coldata.Batch
		cases [][]expr.Expr
	}{
		{"long", fusetest.LongRows(rows, 16, 4096, 8), longEach},
		{"specials", fusetest.LongBatch(rows, 12), append(specials, longEach...)},
		{"edges", fusetest.EdgeBatch(many, 13), specials},
		{"scan", fusetest.ScanBatch(many, 31), bld.ScanCases()},
		{"functions", fusetest.Batch(many, 4), bld.Cases()},
		{"dates", fusetest.Batch(many, 5), bld.DateCases()},
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	warped := 0
	for _, s := range sets {
		in, err := rt.Dev.Upload(ctx, s.b)
		if err != nil {
			t.Fatal(err)
		}
		for _, outs := range s.cases {
			k, err := fuse.GenerateWith(fusetest.Types, nil, outs, fuse.Options{AlwaysWarp: true})
			if err != nil {
				t.Fatalf("generate %v: %v", outs, err)
			}
			if k.WarpSource == "" {
				continue
			}
			warped++
			got, err := tryFusedMode(t, rt.Dev, k, in, true)
			if errors.Is(err, gpuexec.ErrScratch) {
				// Rows over the scratch: the operator re-runs such a batch
				// on the library path, in either form.
				if _, terr := tryFusedMode(t, rt.Dev, k, in, false); !errors.Is(terr, gpuexec.ErrScratch) {
					t.Fatalf("%s %v: warp form overflowed its scratch, thread form gave %v", s.name, outs, terr)
				}
				t.Logf("%s %v: scratch overflow in both forms", s.name, outs)
				continue
			}
			if err != nil {
				t.Fatalf("%s %v: %v", s.name, outs, err)
			}
			want, err := fusetest.Reference(s.b, nil, outs)
			if err != nil {
				t.Fatal(err)
			}
			if err := fusetest.Compare(outs, got.Cols, want); err != nil {
				t.Fatalf("%s %v: %v", s.name, outs, err)
			}
			t.Logf("%s %v: warp form matches the CPU on %d rows", s.name, outs, s.b.Len)
		}
		in.Release()
	}
	if warped < 12 {
		t.Errorf("%d kernels had a warp form, want at least 12", warped)
	}
}

// BenchmarkWarpRows times the long-string functions with one row per
// thread and one row per warp over 200K resident rows of several length
// ranges (the choice DefaultWarpMinAvg makes), checking both against the
// CPU once.
func BenchmarkWarpRows(b *testing.B) {
	var bld fusetest.Builder
	name := fusetest.Col(fusetest.Name)
	cases := []expr.Expr{
		bld.Call("upper", name),
		bld.Call("char_length", name),
		bld.Call("replace", name, fusetest.Lit(" "), fusetest.Lit("_")),
		bld.Call("like", name, fusetest.Lit("%ipsum x%")),
		bld.Call("locate", fusetest.Lit("OMEGA"), name),
		bld.Call("split_part", name, fusetest.Lit(" "), fusetest.Lit(3)),
	}
	if bld.Err != nil {
		b.Fatal(bld.Err)
	}
	rt := openRuntime(b, false)
	ctx := context.Background()
	for _, lens := range [][2]int{{16, 64}, {64, 256}, {128, 512}, {256, 1024}, {1024, 4096}} {
		host := fusetest.LongRows(200_000, lens[0], lens[1], 5)
		in, err := rt.Dev.Upload(ctx, host)
		if err != nil {
			b.Fatal(err)
		}
		inBytes := batchBytes(&coldata.Batch{Cols: host.Cols[:1], Len: host.Len})
		for ci, e := range cases {
			want, err := fusetest.Reference(host, nil, []expr.Expr{e})
			if err != nil {
				b.Fatal(err)
			}
			// UPPER and REPLACE (generated strings) are also measured with
			// the fill pass sizing each row again (RecomputeSizes).
			sizings := []bool{false}
			if ci == 0 || ci == 2 {
				sizings = append(sizings, true)
			}
			for _, recompute := range sizings {
				k, err := fuse.GenerateWith(fusetest.Types, nil, []expr.Expr{e}, fuse.Options{AlwaysWarp: true, RecomputeSizes: recompute})
				if err != nil {
					b.Fatal(err)
				}
				if k.WarpSource == "" {
					b.Fatalf("%s has no warp form", e)
				}
				for _, warp := range []bool{false, true} {
					mode := map[bool]string{false: "thread", true: "warp"}[warp]
					if recompute {
						mode += "-recompute"
					}
					b.Run(fmt.Sprintf("len=%d-%d/%s/%s", lens[0], lens[1], e, mode), func(b *testing.B) {
						got := runFusedMode(b, rt.Dev, k, in, warp)
						if err := fusetest.Compare([]expr.Expr{e}, got.Cols, want); err != nil {
							b.Fatal(err)
						}
						fk, err := rt.Dev.PrepareFused(k)
						if err != nil {
							b.Fatal(err)
						}
						defer fk.Release()
						fk.WarpMinAvg = map[bool]int{false: -1, true: 1}[warp]
						var times []time.Duration
						var outBytes int64
						for i := 0; i < b.N+1; i++ {
							d, out := timedRun(b, rt, fk, in)
							if i > 0 {
								times = append(times, d)
							}
							if e.Type() == coldata.String {
								outBytes = deviceStringBytes(b, rt, out.Cols[0])
							} else if e.Type() == coldata.Bool {
								outBytes = int64(out.Len)
							} else {
								outBytes = int64(8 * out.Len)
							}
							out.Release()
						}
						med := median(times).Seconds()
						b.ReportMetric(med*1e3, "ms")
						b.ReportMetric(float64(inBytes+outBytes)/med/1e9, "GB/s")
					})
				}
			}
		}
		in.Release()
	}
}
