//go:build cuda

package gpuexec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

// The cuda tests need a GPU. With GSQL_EXPECT_NO_GPU=1 (a machine without
// one, e.g. run against the libcuda stub) they check instead that the
// failure is reported cleanly.

var (
	devOnce sync.Once
	dev     *Device
	devErr  error
)

func cudaDevice(t testing.TB) *Device {
	t.Helper()
	if os.Getenv("GSQL_EXPECT_NO_GPU") != "" {
		t.Skip("GSQL_EXPECT_NO_GPU set")
	}
	devOnce.Do(func() { dev, devErr = NewDevice(Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}) })
	if devErr != nil {
		t.Fatalf("NewDevice: %v", devErr)
	}
	return dev
}

func TestCUDANoDevice(t *testing.T) {
	if os.Getenv("GSQL_EXPECT_NO_GPU") == "" {
		t.Skip("GSQL_EXPECT_NO_GPU not set")
	}
	err := Available()
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "cuInit") {
		t.Fatalf("Available: %v", err)
	}
	if _, err := NewDevice(Options{}); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("NewDevice: %v", err)
	}
	t.Logf("reported: %v", err)
}

func TestCUDAInfo(t *testing.T) {
	d := cudaDevice(t)
	v, err := d.NVRTCVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device %v; NVRTC %s from %s", d.Info(), v, nvrtcPath)
	if n, err := DeviceCount(); err != nil || n < 1 {
		t.Fatalf("DeviceCount %d %v", n, err)
	}
	if _, err := NewDevice(Options{Ordinal: 99}); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("ordinal 99: %v", err)
	}
}

func TestCUDARoundTrips(t *testing.T) {
	d := cudaDevice(t)
	runRoundTrips(t, d, []int{0, 1, 7, 8, 9, 100, 1000, 100003, 1<<20 + 3}, 11)
}

func TestCUDARoundTripsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	d := cudaDevice(t)
	runRoundTrips(t, d, []int{1<<24 + 5}, 12)
}

func TestCUDAErrors(t *testing.T) {
	d := cudaDevice(t)
	runErrorCases(t, d)
	requireNoLeak(t, d, "errors")
}

func TestCUDACompileCache(t *testing.T) {
	d := cudaDevice(t)
	dir := t.TempDir()
	d1, err := NewDevice(Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer d1.Close()
	runCompileCache(t, d1, func() *Device {
		d2, err := NewDevice(Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return d2
	})
	_ = d
}

func TestCUDALaunchErrorNamesKernel(t *testing.T) {
	d := cudaDevice(t)
	m, err := d.Compile(Source{Name: "runtime.cu", Code: RuntimeSource()})
	if err != nil {
		t.Fatal(err)
	}
	k, err := m.Kernel("gsql_rebase_offsets")
	if err != nil {
		t.Fatal(err)
	}
	cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 4096}} // over the 1024-thread limit
	err = k.Launch(cfg, DevicePtr(0), DevicePtr(0), int64(0), int64(0))
	if err == nil || !strings.Contains(err.Error(), "gsql_rebase_offsets") {
		t.Fatalf("bad launch: %v", err)
	}
	t.Logf("reported: %v", err)
	// The context survives a rejected launch.
	b, err := d.Alloc(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
}

func TestCUDAConcurrentUse(t *testing.T) {
	d := cudaDevice(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			hb := randBatch(r, 5000+g)
			for i := 0; i < 5; i++ {
				db, err := d.Upload(context.Background(), hb)
				if err != nil {
					errs <- err
					return
				}
				got, err := d.Download(context.Background(), db)
				if err != nil {
					errs <- err
					return
				}
				requireEqualBatch(t, hb, got, "concurrent")
				db.Release()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	requireNoLeak(t, d, "concurrent")
}

func TestCUDATableCache(t *testing.T) {
	d := cudaDevice(t)
	r := rand.New(rand.NewSource(5))
	hb := randBatch(r, 10000)
	c := NewTableCache(d, 1<<30)
	for i := 0; i < 3; i++ {
		bs, err := c.Get(context.Background(), "t", 1, func() ([]*coldata.Batch, error) { return []*coldata.Batch{hb}, nil })
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Download(context.Background(), bs[0])
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, hb, got, "cache")
		releaseAll(bs)
	}
	if st := c.Stats(); st.Hits != 2 || st.Misses != 1 {
		t.Fatalf("stats %+v", st)
	}
	c.Clear()
	requireNoLeak(t, d, "cache")
}

func TestCUDAResultPool(t *testing.T) {
	runResultPool(t, cudaDevice(t))
}

// A device closed while a result block is lent: the block stays readable
// (the slab is unpinned, not unmapped) and is unmapped on release.
func TestCUDAResultPoolOutlivesDevice(t *testing.T) {
	cudaDevice(t) // skips without a GPU
	d, err := NewDevice(Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hb := randBatch(rand.New(rand.NewSource(5)), 30000)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.DownloadResult(ctx, db)
	if err != nil || got.Owner == nil {
		t.Fatalf("download: %v, owner %v", err, got.Owner)
	}
	db.Release()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	requireEqualBatch(t, hb, got, "result read after the device closed")
	got.ReleaseOwner()
	if st := d.Stats().Results; st.Reserved != 0 || st.Lent != 0 {
		t.Fatalf("after release: %+v", st)
	}
}

// TestCUDAGlobalAggregates compares the reduction path of aggregates
// without GROUP BY with the hash-table path on random data with NULLs:
// counts, integer sums (128-bit), MIN/MAX of every type agree exactly,
// DOUBLE sums to rounding (the two paths add in different orders).
func TestCUDAGlobalAggregates(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(23))
	for _, n := range []int{1, 31, 1000, 300_001} {
		hb := randBatch(r, n)
		db, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatal(err)
		}
		var aggs []GroupAgg
		for c, v := range hb.Cols {
			aggs = append(aggs, GroupAgg{Kind: GroupCount, Arg: c})
			switch v.Type {
			case coldata.Bool:
				aggs = append(aggs, GroupAgg{Kind: GroupSumInt, Arg: c}, GroupAgg{Kind: GroupMinBool, Arg: c}, GroupAgg{Kind: GroupMaxBool, Arg: c})
			case coldata.Int64:
				aggs = append(aggs, GroupAgg{Kind: GroupSumInt, Arg: c}, GroupAgg{Kind: GroupMinInt, Arg: c}, GroupAgg{Kind: GroupMaxInt, Arg: c})
			case coldata.Float64:
				aggs = append(aggs, GroupAgg{Kind: GroupSumFloat, Arg: c}, GroupAgg{Kind: GroupMinFloat, Arg: c}, GroupAgg{Kind: GroupMaxFloat, Arg: c}, GroupAgg{Kind: GroupVariance, Arg: c})
			case coldata.String:
				aggs = append(aggs, GroupAgg{Kind: GroupMinString, Arg: c}, GroupAgg{Kind: GroupMaxString, Arg: c})
			}
		}
		aggs = append(aggs, GroupAgg{Kind: GroupCountStar})
		fast, err := d.GroupBy(ctx, db, nil, aggs)
		if err != nil {
			t.Fatal(err)
		}
		globalAggFast = false
		slow, err := d.GroupBy(ctx, db, nil, aggs)
		globalAggFast = true
		if err != nil {
			t.Fatal(err)
		}
		db.Release()
		if fast.Keys.Len != 1 || slow.Keys.Len != 1 {
			t.Fatalf("%d rows: groups %d and %d", n, fast.Keys.Len, slow.Keys.Len)
		}
		for i, a := range aggs {
			f, s := fast.Aggs[i], slow.Aggs[i]
			what := fmt.Sprintf("%d rows, aggregate %d (kind %d of column %d)", n, i, a.Kind, a.Arg)
			if f.Count[0] != s.Count[0] {
				t.Fatalf("%s: count %d, hash path %d", what, f.Count[0], s.Count[0])
			}
			if f.Count[0] == 0 {
				continue
			}
			switch {
			case a.Kind == GroupVariance:
				// Pairwise merges against shifted sums: equal to rounding;
				// NaN (a NaN or infinite value) on both paths alike.
				x, y := f.M2[0], s.M2[0]
				if math.IsNaN(x) != math.IsNaN(y) || math.Abs(x-y) > 1e-9*math.Max(1, math.Abs(y)) {
					t.Fatalf("%s: M2 %v, hash path %v", what, x, y)
				}
			case f.Str != nil:
				if string(f.Str.Str(0)) != string(s.Str.Str(0)) {
					t.Fatalf("%s: %q, hash path %q", what, f.Str.Str(0), s.Str.Str(0))
				}
			case a.Kind == GroupSumFloat:
				x, y := f.Float[0], s.Float[0]
				if math.Abs(x-y) > 1e-9*math.Max(1, math.Abs(y)) && !(math.IsNaN(x) && math.IsNaN(y)) {
					t.Fatalf("%s: %v, hash path %v", what, x, y)
				}
			case f.Float != nil:
				if math.Float64bits(f.Float[0]) != math.Float64bits(s.Float[0]) {
					t.Fatalf("%s: %v, hash path %v", what, f.Float[0], s.Float[0])
				}
			case f.Lo != nil:
				if f.Lo[0] != s.Lo[0] || (f.Hi != nil && f.Hi[0] != s.Hi[0]) {
					t.Fatalf("%s: %d/%v, hash path %d/%v", what, f.Lo[0], f.Hi, s.Lo[0], s.Hi)
				}
			}
		}
	}
}

// TestCUDAGroupVariance checks the device's VAR/STDDEV state (kernels/
// hash.cu kind 15) against exact arithmetic: 2^20 rows around a mean of
// 1e9 with deviations of a few units and NULLs, grouped into 5 groups and
// into about 100,000, and without GROUP BY; each group's count, mean and
// M2 (the sum of squared deviations) must match to a relative 1e-12 and
// 1e-9 (a sum of squares without a shift would keep no digit of M2 here).
func TestCUDAGroupVariance(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(31))
	const n = 1 << 20
	few := coldata.NewBuilder(coldata.Int64, n)
	many := coldata.NewBuilder(coldata.Int64, n)
	xb := coldata.NewBuilder(coldata.Float64, n)
	fewK, manyK, xs := make([]int64, n), make([]int64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		fewK[i], manyK[i] = int64(r.Intn(5)), int64(r.Intn(100_000))
		few.AppendInt(fewK[i])
		many.AppendInt(manyK[i])
		if r.Intn(10) == 0 {
			xs[i] = math.NaN() // NULL
			xb.AppendNull()
			continue
		}
		xs[i] = 1e9 + 4*r.Float64()
		xb.AppendFloat(xs[i])
	}
	hb := coldata.NewBatch([]*coldata.Vec{few.Finish(), many.Finish(), xb.Finish()}, n)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	aggs := []GroupAgg{{Kind: GroupVariance, Arg: 2}}
	for _, c := range []struct {
		name string
		keys []int
		of   []int64
	}{{"5 groups", []int{0}, fewK}, {"100000 groups", []int{1}, manyK}, {"no GROUP BY", nil, make([]int64, n)}} {
		p, err := d.GroupBy(ctx, db, c.keys, aggs)
		if err != nil {
			t.Fatal(err)
		}
		vals := map[int64][]float64{}
		for i, k := range c.of {
			if !math.IsNaN(xs[i]) {
				vals[k] = append(vals[k], xs[i])
			}
		}
		st := p.Aggs[0]
		for g := 0; g < p.Keys.Len; g++ {
			k := int64(0)
			if len(c.keys) > 0 {
				k = p.Keys.Cols[0].Int(g)
			}
			v := vals[k]
			if st.Count[g] != int64(len(v)) {
				t.Fatalf("%s, group %d: count %d, want %d", c.name, k, st.Count[g], len(v))
			}
			if len(v) == 0 {
				continue
			}
			mean, m2 := exactMoments(v)
			if math.Abs(st.Mean[g]-mean) > 1e-12*math.Abs(mean) || math.Abs(st.M2[g]-m2) > 1e-9*m2+1e-9 {
				t.Fatalf("%s, group %d of %d values: mean %v, M2 %v; want %v, %v", c.name, k, len(v), st.Mean[g], st.M2[g], mean, m2)
			}
		}
		t.Logf("%s: %d groups, %d launches", c.name, p.Keys.Len, p.Launches)
	}
}

// TestCUDAGroupByPhases logs where a GROUP BY with many groups spends its
// time (host clock, after a warm-up): TPC-H Q13's shape at SF10 (15M rows,
// 1.5M BIGINT groups, one COUNT) and Q10's (1.1M rows, 380K groups with
// text keys, one SUM).
func TestCUDAGroupByPhases(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(5))
	mk := func(n, groups int, text bool) *coldata.Batch {
		kb, vb := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		sb := coldata.NewBuilder(coldata.String, n)
		for i := 0; i < n; i++ {
			g := r.Intn(groups)
			kb.AppendInt(int64(g))
			vb.AppendInt(int64(r.Intn(1000)))
			if text {
				sb.AppendBytes([]byte(fmt.Sprintf("customer comment %d with some padding text, %d", g, g*7)))
			} else {
				sb.AppendBytes(nil)
			}
		}
		return &coldata.Batch{Cols: []*coldata.Vec{kb.Finish(), vb.Finish(), sb.Finish()}, Len: n}
	}
	// ClickBench Q33/Q34 shapes: nearly every row its own group, under
	// ORDER BY COUNT(*) DESC LIMIT 10 (the top groups path).
	top := &GroupTop{Agg: 1, Desc: true, K: 10}
	for _, tc := range []struct {
		name      string
		n, groups int
		keys      []int
		text      bool
		top       *GroupTop
	}{
		{"tpch q13 shape", 15_000_000, 1_500_000, []int{0}, false, nil},
		{"tpch q10 shape", 1_100_000, 380_000, []int{0, 2}, true, nil},
		{"clickbench q33 shape", 10_000_000, 9_000_000, []int{0, 1}, false, top},
		{"clickbench q34 shape", 10_000_000, 6_000_000, []int{2}, true, top},
		{"clickbench q17 shape", 10_000_000, 2_000_000, []int{0, 2}, true, top},
	} {
		db, err := d.Upload(ctx, mk(tc.n, tc.groups, tc.text))
		if err != nil {
			t.Fatal(err)
		}
		aggs := []GroupAgg{{Kind: GroupSumInt, Arg: 1}, {Kind: GroupCountStar}}
		for run := 0; run < 3; run++ {
			var phases []string
			groupTrace = func(p string, took time.Duration) {
				phases = append(phases, fmt.Sprintf("%s %.2fms", p, float64(took.Microseconds())/1000))
			}
			start := time.Now()
			p, err := d.GroupByTop(ctx, db, tc.keys, aggs, tc.top)
			groupTrace = nil
			if err != nil {
				t.Fatal(err)
			}
			if run == 2 {
				t.Logf("%s: %d groups in %v: %s", tc.name, p.Keys.Len, time.Since(start), strings.Join(phases, ", "))
			}
		}
		db.Release()
	}
}

// A device closed at once after WarmPools starts (a database opened and
// closed around one statement) closes cleanly: the warm-up's block is
// back in the pool before the pool is released. Each round opens its own
// device, as each database does. Before the fix, Close reported the
// block still in use or hung on a GPU host.
func TestCUDACloseDuringPoolWarmup(t *testing.T) {
	cudaDevice(t) // skips without a GPU
	for i := 0; i < 20; i++ {
		d, err := NewDevice(Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")})
		if err != nil {
			t.Fatal(err)
		}
		d.WarmPools()
		closed := make(chan error, 1)
		go func() { closed <- d.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Fatalf("round %d: close right after WarmPools: %v", i, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: close right after WarmPools did not return in 30 s", i)
		}
	}
	d, err := NewDevice(Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("close without a warm-up: %v", err)
	}
	select {
	case <-d.PoolsWarm():
	default:
		t.Fatalf("a closed device's warm-up is not marked done")
	}
}
