//go:build cuda

package operators_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
	"github.com/gsqlengine/gsql/operators"
)

// handRedactSource is the redact query written by hand for this one table,
// the peer the generated kernels are measured against: a sizes kernel (one
// thread per row, int32 size per row), a single-pass exclusive scan of the
// sizes into the offsets (tiles chained by decoupled look-back), and a fill
// kernel (one thread per row, bytes written straight into the final chars;
// the validity bitmap one word per warp from a ballot).
const handRedactSource = `
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned char uint8_t;

__device__ __forceinline__ bool hr_valid(const uint8_t* v, int64_t i) {
  return v == 0 || ((v[i >> 3] >> (i & 7)) & 1);
}

// Width of the character starting at p (rem bytes left) as Go's
// utf8.DecodeRune splits text: a valid sequence, else one byte.
__device__ __forceinline__ int hr_width(const uint8_t* p, int rem) {
  uint32_t b = p[0];
  if (b < 0x80) return 1;
  int w;
  uint32_t lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) w = 2;
  else if (b >= 0xE0 && b <= 0xEF) { w = 3; if (b == 0xE0) lo = 0xA0; if (b == 0xED) hi = 0x9F; }
  else if (b >= 0xF0 && b <= 0xF4) { w = 4; if (b == 0xF0) lo = 0x90; if (b == 0xF4) hi = 0x8F; }
  else return 1;
  if (rem < w) return 1;
  uint32_t c = p[1];
  if (c < lo || c > hi) return 1;
  for (int k = 2; k < w; k++) {
    c = p[k];
    if (c < 0x80 || c > 0xBF) return 1;
  }
  return w;
}

// One row of the query. kind: 0 NULL, 1 'X X', 2 initial + ' ' + first.
struct HRow {
  int kind;
  const uint8_t* s; // the name
  int first;        // bytes of the first name
  int init;         // where the initial starts
  int initw;        // its width (0: no second part)
};

__device__ __forceinline__ HRow hr_row(const int32_t* noff, const uint8_t* nch, const uint8_t* nval,
                                       const int32_t* voff, const uint8_t* vch, const uint8_t* vval, int64_t i) {
  HRow r;
  r.kind = 1;
  r.s = 0; r.first = 0; r.init = 0; r.initw = 0;
  if (!hr_valid(vval, i)) return r;
  int32_t v0 = voff[i];
  if (voff[i + 1] - v0 != 6) return r;
  const uint8_t* v = vch + v0;
  if (v[0] != 'p' || v[1] != 'u' || v[2] != 'b' || v[3] != 'l' || v[4] != 'i' || v[5] != 'c') return r;
  if (!hr_valid(nval, i)) { r.kind = 0; return r; }
  r.kind = 2;
  int32_t n0 = noff[i], len = noff[i + 1] - n0;
  const uint8_t* s = nch + n0;
  r.s = s;
  int f = 0;
  while (f < len && s[f] != ' ') f++;
  r.first = f;
  if (f < len) {
    int b = f + 1, e = b;
    while (e < len && s[e] != ' ') e++;
    r.init = b;
    if (e > b) r.initw = hr_width(s + b, e - b);
  }
  return r;
}

extern "C" __global__ void __launch_bounds__(256) hr_sizes(const int32_t* noff, const uint8_t* nch, const uint8_t* nval,
    const int32_t* voff, const uint8_t* vch, const uint8_t* vval, int32_t* sizes, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * 256 + threadIdx.x;
  if (i >= n) return;
  HRow r = hr_row(noff, nch, nval, voff, vch, vval, i);
  sizes[i] = r.kind == 1 ? 3 : (r.kind == 0 ? 0 : r.initw + 1 + r.first);
}

// Exclusive scan of n int32 sizes in place into n+1 offsets. Each block
// takes the next tile from a ticket counter, so a tile's predecessors are
// all running or done; it publishes its aggregate at once and its inclusive
// prefix once known. status[t]: top two bits 1 aggregate, 2 inclusive; the
// low 62 bits the value.
#define HR_T 256
#define HR_I 8
#define HR_TILE (HR_T * HR_I)
#define HR_AGG (1ULL << 62)
#define HR_INC (2ULL << 62)
#define HR_VAL ((1ULL << 62) - 1)

extern "C" __global__ void __launch_bounds__(HR_T) hr_scan(int32_t* off, int64_t n, uint64_t* status, uint32_t* ticket) {
  __shared__ int64_t wsum[HR_T / 32];
  __shared__ int64_t s_tile, s_prefix;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(ticket, 1u);
  __syncthreads();
  const int64_t tile = s_tile;
  const int64_t base = tile * HR_TILE + (int64_t)threadIdx.x * HR_I;
  int32_t v[HR_I];
  const bool full = base + HR_I <= n;
  if (full) {
    int4 a = *(const int4*)(off + base), b = *(const int4*)(off + base + 4);
    v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w; v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
  } else {
#pragma unroll
    for (int k = 0; k < HR_I; k++) v[k] = base + k < n ? off[base + k] : 0;
  }
  int64_t mine = 0;
#pragma unroll
  for (int k = 0; k < HR_I; k++) mine += v[k];
  int64_t x = mine;
  for (int d = 1; d < 32; d <<= 1) {
    int64_t y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  if (lane == 31) wsum[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int64_t w = lane < HR_T / 32 ? wsum[lane] : 0;
    for (int d = 1; d < HR_T / 32; d <<= 1) {
      int64_t y = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += y;
    }
    int64_t agg = __shfl_sync(0xffffffffu, w, HR_T / 32 - 1);
    int64_t before = __shfl_up_sync(0xffffffffu, w, 1);
    if (lane >= 1 && lane < HR_T / 32) wsum[lane] = before;
    if (lane == 0) wsum[0] = 0;
    // Look back over the predecessors, 32 at a time (lane k reads tile
    // tile-1-k), until one has its inclusive prefix.
    int64_t prefix = 0;
    if (tile == 0) {
      if (lane == 0) *(volatile uint64_t*)&status[0] = HR_INC | (uint64_t)agg;
    } else {
      if (lane == 0) *(volatile uint64_t*)&status[tile] = HR_AGG | (uint64_t)agg;
      for (int64_t j = tile - 1 - lane;; j -= 32) {
        uint64_t s = HR_INC;
        if (j >= 0) {
          do {
            s = *(volatile uint64_t*)&status[j];
          } while ((s >> 62) == 0);
        }
        uint32_t inc = __ballot_sync(0xffffffffu, (s >> 62) == 2);
        int64_t val = (int64_t)(s & HR_VAL);
        if (inc) {
          int stop = __ffs(inc) - 1;
          if (lane > stop) val = 0;
        }
        for (int d = 16; d > 0; d >>= 1) val += __shfl_xor_sync(0xffffffffu, val, d);
        prefix += val;
        if (inc) break;
      }
      if (lane == 0) *(volatile uint64_t*)&status[tile] = HR_INC | (uint64_t)(prefix + agg);
    }
    if (lane == 0) s_prefix = prefix;
  }
  __syncthreads();
  int64_t run = s_prefix + wsum[warp] + x - mine;
  int32_t o[HR_I];
#pragma unroll
  for (int k = 0; k < HR_I; k++) {
    o[k] = (int32_t)run;
    run += v[k];
  }
  if (full) {
    *(int4*)(off + base) = make_int4(o[0], o[1], o[2], o[3]);
    *(int4*)(off + base + 4) = make_int4(o[4], o[5], o[6], o[7]);
  } else {
#pragma unroll
    for (int k = 0; k < HR_I; k++)
      if (base + k < n) off[base + k] = o[k];
  }
  if (base <= n - 1 && n - 1 < base + HR_I) {
    int64_t t = n - 1 - base;
    int32_t last = 0;
#pragma unroll
    for (int k = 0; k < HR_I; k++)
      if (k == t) last = o[k] + v[k];
    off[n] = last;
  }
}

extern "C" __global__ void __launch_bounds__(256) hr_fill(const int32_t* noff, const uint8_t* nch, const uint8_t* nval,
    const int32_t* voff, const uint8_t* vch, const uint8_t* vval, const int32_t* off, uint8_t* chars, uint32_t* valid, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * 256 + threadIdx.x;
  HRow r;
  r.kind = 0;
  if (i < n) r = hr_row(noff, nch, nval, voff, vch, vval, i);
  uint32_t word = __ballot_sync(0xffffffffu, i < n && r.kind != 0);
  if ((threadIdx.x & 31) == 0 && i < n) valid[i >> 5] = word;
  if (i >= n) return;
  uint8_t* d = chars + off[i];
  if (r.kind == 1) {
    d[0] = 'X'; d[1] = ' '; d[2] = 'X';
  } else if (r.kind == 2) {
    for (int k = 0; k < r.initw; k++) *d++ = r.s[r.init + k];
    *d++ = ' ';
    for (int k = 0; k < r.first; k++) *d++ = r.s[k];
  }
}
`

// handRedact is the compiled hand-written redact.
type handRedact struct {
	d                  *gpuexec.Device
	sizes, scan, fill  *gpuexec.Kernel
	ev                 [5]*gpuexec.Event
	Sizes, Scan, Fill  time.Duration // device times of the last run
	offs, chars, valid *gpuexec.Buffer
	rows               int
	total              int64
}

func newHandRedact(t testing.TB, d *gpuexec.Device) *handRedact {
	t.Helper()
	m, err := d.Compile(gpuexec.Source{Name: "handredact.cu", Code: handRedactSource})
	if err != nil {
		t.Fatal(err)
	}
	h := &handRedact{d: d}
	for _, k := range []struct {
		name string
		dst  **gpuexec.Kernel
	}{{"hr_sizes", &h.sizes}, {"hr_scan", &h.scan}, {"hr_fill", &h.fill}} {
		if *k.dst, err = m.Kernel(k.name); err != nil {
			t.Fatal(err)
		}
	}
	for i := range h.ev {
		if h.ev[i], err = d.NewEvent(); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// run evaluates redact over in (name, visibility) into fresh pool buffers;
// release frees them.
func (h *handRedact) run(t testing.TB, in *gpuexec.DeviceBatch) {
	t.Helper()
	d, n := h.d, int64(in.Len)
	name, vis := in.Cols[0], in.Cols[1]
	if name.NullOffset != 0 || vis.NullOffset != 0 {
		t.Fatal("hand redact: bit-shifted input")
	}
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	h.rows = int(n)
	h.offs, err = d.Alloc(uint64(4 * (n + 1)))
	must(err)
	tiles := (n + 2047) / 2048
	ctl, err := d.Alloc(uint64(8*tiles + 8))
	must(err)
	defer ctl.Release()
	h.valid, err = d.Alloc(uint64(4 * ((n + 31) / 32)))
	must(err)
	must(d.Memset(ctl.Ptr(), 0, uint64(8*tiles+8), nil))
	grid := gpuexec.LaunchConfig{Grid: gpuexec.Dim3{X: int((n + 255) / 256)}, Block: gpuexec.Dim3{X: 256}}
	must(h.ev[0].Record(nil))
	must(h.sizes.Launch(grid, name.Offsets, name.Data, name.Nulls, vis.Offsets, vis.Data, vis.Nulls, h.offs.Ptr(), n))
	must(h.ev[1].Record(nil))
	must(h.scan.Launch(gpuexec.LaunchConfig{Grid: gpuexec.Dim3{X: int(tiles)}, Block: gpuexec.Dim3{X: 256}},
		h.offs.Ptr(), n, ctl.Ptr(), ctl.Ptr()+gpuexec.DevicePtr(8*tiles)))
	must(h.ev[2].Record(nil))
	last := make([]byte, 4)
	must(d.CopyToHost(last, h.offs.Ptr()+gpuexec.DevicePtr(4*n), nil))
	h.total = int64(binary.LittleEndian.Uint32(last))
	h.chars, err = d.Alloc(uint64(max(h.total, 1)))
	must(err)
	must(h.ev[3].Record(nil))
	must(h.fill.Launch(grid, name.Offsets, name.Data, name.Nulls, vis.Offsets, vis.Data, vis.Nulls, h.offs.Ptr(), h.chars.Ptr(), h.valid.Ptr(), n))
	must(h.ev[4].Record(nil))
	must(d.Synchronize())
	h.Sizes, _ = h.ev[0].Elapsed(h.ev[1])
	h.Scan, _ = h.ev[1].Elapsed(h.ev[2])
	h.Fill, _ = h.ev[3].Elapsed(h.ev[4])
}

func (h *handRedact) release() {
	for _, b := range []*gpuexec.Buffer{h.offs, h.chars, h.valid} {
		if b != nil {
			b.Release()
		}
	}
	h.offs, h.chars, h.valid = nil, nil, nil
}

// hostCol copies a device string column's offsets, chars and validity
// (one byte per row, 1 = valid) to the host.
func hostCol(t testing.TB, d *gpuexec.Device, offs, chars, valid gpuexec.DevicePtr, rows int) ([]byte, []byte, []byte) {
	t.Helper()
	o := make([]byte, 4*(rows+1))
	if err := d.CopyToHost(o, offs, nil); err != nil {
		t.Fatal(err)
	}
	first := binary.LittleEndian.Uint32(o)
	last := binary.LittleEndian.Uint32(o[4*rows:])
	c := make([]byte, int(last)-int(first))
	if len(c) > 0 {
		if err := d.CopyToHost(c, chars+gpuexec.DevicePtr(first), nil); err != nil {
			t.Fatal(err)
		}
	}
	words := make([]byte, 4*((rows+31)/32))
	if err := d.CopyToHost(words, valid, nil); err != nil {
		t.Fatal(err)
	}
	v := make([]byte, rows)
	for i := range v {
		v[i] = (words[i>>3] >> (i & 7)) & 1
	}
	return o, c, v
}

// sameCol reports where two host copies of a string column differ.
func sameCol(ao, ac, av, bo, bc, bv []byte) error {
	if !bytes.Equal(av, bv) {
		for i := range av {
			if av[i] != bv[i] {
				return fmt.Errorf("validity differs at row %d: %d vs %d", i, av[i], bv[i])
			}
		}
	}
	if !bytes.Equal(ao, bo) {
		for i := 0; i < len(ao); i += 4 {
			if binary.LittleEndian.Uint32(ao[i:]) != binary.LittleEndian.Uint32(bo[i:]) {
				return fmt.Errorf("offsets differ at row %d: %d vs %d", i/4, binary.LittleEndian.Uint32(ao[i:]), binary.LittleEndian.Uint32(bo[i:]))
			}
		}
	}
	if !bytes.Equal(ac, bc) {
		return fmt.Errorf("chars differ (%d vs %d bytes)", len(ac), len(bc))
	}
	return nil
}

func redactRows() []int {
	rows := []int{600_000, 10_000_000, 100_000_000}
	if s := os.Getenv("GSQL_HAND_ROWS"); s != "" {
		rows = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				panic(err)
			}
			rows = append(rows, n)
		}
	}
	return rows
}

// redactKernels is the fused redact kernel set as generated, and the
// hand-edited copies of it found in GSQL_REDACT_SRC (a glob of .cu files,
// each a complete replacement source), for measuring a code change before
// it goes into the generator.
func redactKernels(t testing.TB, types []coldata.Type, redact expr.Expr) ([]string, []*fuse.Kernel) {
	k, err := fuse.GenerateWith(types, nil, []expr.Expr{redact}, fuse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, ks := []string{"generated"}, []*fuse.Kernel{k}
	if os.Getenv("GSQL_REDACT_SCALAR") != "" {
		sk, err := fuse.GenerateWith(types, nil, []expr.Expr{redact}, fuse.Options{Scalar: true})
		if err != nil {
			t.Fatal(err)
		}
		names, ks = append(names, "scalar"), append(ks, sk)
	}
	if g := os.Getenv("GSQL_REDACT_SRC"); g != "" {
		files, _ := filepath.Glob(g)
		sort.Strings(files)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v := *k
			v.Source = string(src)
			v.Key = k.Key + "-" + filepath.Base(f)
			names, ks = append(names, strings.TrimSuffix(filepath.Base(f), ".cu")), append(ks, &v)
		}
	}
	return names, ks
}

type kernelGrid struct{ i, grid int }

// kernelGrids lists each kernel at the default grid and at each grid
// (blocks per multiprocessor) in GSQL_HAND_GRIDS.
func kernelGrids(names []string, kernels []*fuse.Kernel) []kernelGrid {
	var out []kernelGrid
	for i := range kernels {
		out = append(out, kernelGrid{i, 0})
		if os.Getenv("GSQL_HAND_GRIDS") != "" {
			for _, f := range strings.Split(os.Getenv("GSQL_HAND_GRIDS"), ",") {
				g, err := strconv.Atoi(f)
				if err != nil {
					panic(err)
				}
				out = append(out, kernelGrid{i, g})
			}
		}
	}
	return out
}

// BenchmarkRedactHandWritten times the hand-written redact beside the
// generated kernel set (and any hand-edited variants of it, see
// redactKernels) over the same resident people table, in one process, and
// checks that each writes the same bytes (offsets, chars, validity) as the
// hand-written one; at the first row count the generated output is also
// checked against the CPU. GSQL_HAND_ROWS: row counts (default
// 600K,10M,100M). Time is the median of b.N runs after a warm-up, wall
// clock to a device synchronise; the passes' device times from events.
func BenchmarkRedactHandWritten(b *testing.B) {
	var bld fusetest.Builder
	redact := bld.Redact(&expr.ColumnRef{Index: 0, Name: "name", T: coldata.String}, &expr.ColumnRef{Index: 1, Name: "visibility", T: coldata.String})
	if bld.Err != nil {
		b.Fatal(bld.Err)
	}
	types := []coldata.Type{coldata.String, coldata.String}
	rt := openRuntime(b, false)
	ctx := context.Background()
	names, kernels := redactKernels(b, types, redact)
	hand := newHandRedact(b, rt.Dev)
	for ri, rows := range redactRows() {
		host := peopleBatch(b, rows)
		in, err := rt.Dev.Upload(ctx, host)
		if err != nil {
			b.Fatal(err)
		}
		// Reference bytes: the hand-written kernel's output.
		hand.run(b, in)
		ho, hc, hv := hostCol(b, rt.Dev, hand.offs.Ptr(), hand.chars.Ptr(), hand.valid.Ptr(), rows)
		hand.release()
		b.Run(fmt.Sprintf("rows=%d/hand", rows), func(b *testing.B) {
			var times, s1, s2, s3 []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				hand.run(b, in)
				times = append(times, time.Since(start))
				s1, s2, s3 = append(s1, hand.Sizes), append(s2, hand.Scan), append(s3, hand.Fill)
				hand.release()
			}
			med := median(times).Seconds()
			b.ReportMetric(med*1e3, "ms")
			b.ReportMetric(median(s1).Seconds()*1e3, "sizes-ms")
			b.ReportMetric(median(s2).Seconds()*1e3, "scan-ms")
			b.ReportMetric(median(s3).Seconds()*1e3, "fill-ms")
			b.ReportMetric(float64(batchBytes(host)+int64(len(ho)+len(hc)+len(hv)/8))/med/1e9, "GB/s")
		})
		for _, kg := range kernelGrids(names, kernels) {
			ki, k, grid := kg.i, kernels[kg.i], kg.grid
			label := names[ki]
			if grid > 0 {
				label += fmt.Sprintf("-g%d", grid)
			}
			b.Run(fmt.Sprintf("rows=%d/%s", rows, label), func(b *testing.B) {
				fk, err := rt.Dev.PrepareFused(k)
				if err != nil {
					b.Fatal(err)
				}
				defer fk.Release()
				fk.BlocksPerSM = grid
				prof := &gpuexec.KernelProfile{}
				fk.Profile = prof
				run := func() (time.Duration, *gpuexec.DeviceBatch) { return timedRun(b, rt, fk, in) }
				_, out := run()
				col := out.Cols[0]
				fo, fc, fv := hostCol(b, rt.Dev, col.Offsets, col.Data, col.Nulls, out.Len)
				if err := sameCol(fo, fc, fv, ho, hc, hv); err != nil {
					b.Fatalf("%s vs hand-written at %d rows: %v", names[ki], rows, err)
				}
				if ri == 0 && ki == 0 {
					want, err := fusetest.Reference(host, nil, []expr.Expr{redact})
					if err != nil {
						b.Fatal(err)
					}
					hb, err := rt.Dev.Download(ctx, out)
					if err != nil {
						b.Fatal(err)
					}
					if err := fusetest.Compare([]expr.Expr{redact}, hb.Cols, want); err != nil {
						b.Fatalf("generated vs CPU: %v", err)
					}
				}
				out.Release()
				var times, sizesT, fillT []time.Duration
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
				b.ReportMetric(float64(batchBytes(host)+int64(len(fo)+len(fc)+len(fv)/8))/med/1e9, "GB/s")
			})
		}
		in.Release()
	}
}

// TestRedactProfileRun runs the redact paths named in GSQL_PROFILE_MODES
// (fused, library, hand; default all three) GSQL_PROFILE_RUNS times each
// (default 1) over GSQL_PROFILE_ROWS rows, for a profiler to watch
// (ncu -k regex:'gsql_|hr_'). Skipped unless GSQL_PROFILE_ROWS is set.
func TestRedactProfileRun(t *testing.T) {
	s := os.Getenv("GSQL_PROFILE_ROWS")
	if s == "" {
		t.Skip("GSQL_PROFILE_ROWS not set")
	}
	rows, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	runs := 1
	if r := os.Getenv("GSQL_PROFILE_RUNS"); r != "" {
		if runs, err = strconv.Atoi(r); err != nil {
			t.Fatal(err)
		}
	}
	modes := "fused,library,hand"
	if m := os.Getenv("GSQL_PROFILE_MODES"); m != "" {
		modes = m
	}
	var bld fusetest.Builder
	redact := bld.Redact(&expr.ColumnRef{Index: 0, Name: "name", T: coldata.String}, &expr.ColumnRef{Index: 1, Name: "visibility", T: coldata.String})
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	types := []coldata.Type{coldata.String, coldata.String}
	rt := openRuntime(t, false)
	ctx := context.Background()
	in, err := rt.Dev.Upload(ctx, peopleBatch(t, rows))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	for _, mode := range strings.Split(modes, ",") {
		switch mode {
		case "hand":
			h := newHandRedact(t, rt.Dev)
			for r := 0; r < runs; r++ {
				h.run(t, in)
				h.release()
			}
		case "variants":
			// The generated kernel and each variant of redactKernels, once.
			_, ks := redactKernels(t, types, redact)
			for _, k := range ks {
				fk, err := rt.Dev.PrepareFused(k)
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < runs; r++ {
					out, err := fk.Run(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					if err := rt.Dev.Synchronize(); err != nil {
						t.Fatal(err)
					}
					out.Release()
				}
				fk.Release()
			}
		case "fused", "library":
			c := &operators.DeviceCompute{Input: &batchSource{b: in}, RT: rt, Types: types, Exprs: []expr.Expr{redact}, Fused: mode == "fused", Strict: mode == "fused", Stats: &operators.Stats{}, Tier: operators.TierFused}
			if err := c.Open(ctx); err != nil {
				t.Fatal(err)
			}
			for r := 0; r < runs; r++ {
				c.Input.Open(ctx)
				out, err := c.NextDevice(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := rt.Dev.Synchronize(); err != nil {
					t.Fatal(err)
				}
				out.Release()
			}
			c.Close()
		default:
			t.Fatalf("unknown mode %q", mode)
		}
	}
}
