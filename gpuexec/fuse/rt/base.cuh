// gsql device runtime: value types and the per-row implementations of SQL
// functions that generated kernels call. Every function here mirrors the CPU
// kernel of the same name in package expr exactly (NULL handling aside,
// which the generated code does); the differential tests compare them.
//
// The file compiles both with NVRTC (device code) and with a host C++
// compiler (GSQL_HOST defined), so the per-row code is also tested on
// machines without a GPU.

#ifdef GSQL_HOST
#include <stdint.h>
#include <string.h>
#include <math.h>
#define GSQL_DEV static inline
#define GSQL_INL static inline
#else
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
// GSQL_DEV functions are inlined into generated kernels; the interpreter
// (gpuexec/fuse/interp.go) compiles them as functions of their own, which
// cuts its one-time compile by more than half. GSQL_INL marks the small
// ones that are inlined everywhere.
// The interpreter's separately compiled parts (GSQL_INTERP_SPLIT) make them
// static: each part keeps its own copies and the link sees no duplicates.
#if defined(GSQL_INTERP_SPLIT)
#define GSQL_DEV static __device__ __noinline__
#define GSQL_INL static __device__ __forceinline__
#elif defined(GSQL_INTERP)
#define GSQL_DEV __device__ __noinline__
#define GSQL_INL __device__ __forceinline__
#else
#define GSQL_DEV __device__ __forceinline__
#define GSQL_INL __device__ __forceinline__
#endif
#endif

// ---- 16-byte loads -------------------------------------------------------
//
// Scans read strings a 16-byte aligned chunk at a time instead of a byte at
// a time: one load instead of up to 16 dependent ones, and the bytes are
// tested in registers (SWAR). An aligned chunk that holds at least one byte
// of a string never crosses a page, so reading its other bytes is safe;
// those bytes are masked off. Pointers may be global, shared or local
// (generic loads), so the per-thread scratch is 16-byte aligned.

#ifdef GSQL_HOST
struct GU4 {
  uint32_t x, y, z, w;
};
GSQL_INL GU4 ld16(const char* p) {
  GU4 v;
  memcpy(&v, p, 16);
  return v;
}
GSQL_INL int ffs32(uint32_t x) { return __builtin_ffs((int)x); }
GSQL_INL int hibit32(uint32_t x) { return 31 - __builtin_clz(x); }
GSQL_INL uint32_t funnel_r(uint32_t lo, uint32_t hi, uint32_t s) {
  return (uint32_t)((((uint64_t)hi << 32) | lo) >> s);
}
#define GSQL_ALIGN16 alignas(16)
#else
typedef uint4 GU4;
GSQL_INL GU4 ld16(const char* p) { return *(const uint4*)p; }
GSQL_INL int ffs32(uint32_t x) { return __ffs((int)x); }
GSQL_INL int hibit32(uint32_t x) { return 31 - __clz((int)x); }
GSQL_INL uint32_t funnel_r(uint32_t lo, uint32_t hi, uint32_t s) {
  return __funnelshift_r(lo, hi, s);
}
#define GSQL_ALIGN16 __align__(16)
#endif

GSQL_INL int32_t align_skew(const char* p) { return (int32_t)((uint64_t)p & 15); }

// ---- warp-per-row mode: lane primitives ---------------------------------
//
// With GSQL_WARP a warp evaluates one row: every lane runs the same per-row
// code over the same values (a load of one address is a broadcast), and the
// functions that walk a whole string (searches, character counts, case
// mapping, copies) split its bytes over the lanes, 16 per lane per step.
// The host builds these kernels for batches of long strings, where one
// thread per row would walk kilobytes alone. On the host compiler a warp is
// one lane, so the same windowed code runs in the host tests.

#ifdef GSQL_WARP
#ifdef GSQL_HOST
#define GSQL_WS 1
GSQL_INL int w_lane() { return 0; }
GSQL_INL uint32_t w_ballot(bool p) { return p ? 1u : 0u; }
GSQL_INL int32_t w_shfl(int32_t v, int) { return v; }
GSQL_INL int32_t w_sum(int32_t v) { return v; }
GSQL_INL int32_t w_scan_excl(int32_t v, int32_t* total) {
  *total = v;
  return 0;
}
GSQL_INL void w_sync() {}
#else
#define GSQL_WS 32
GSQL_INL int w_lane() { return threadIdx.x & 31; }
GSQL_INL uint32_t w_ballot(bool p) { return __ballot_sync(0xffffffffu, p); }
GSQL_INL int32_t w_shfl(int32_t v, int src) { return __shfl_sync(0xffffffffu, v, src); }
GSQL_INL int32_t w_sum(int32_t v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}
// w_scan_excl is the exclusive prefix sum of v over the lanes; *total the sum.
GSQL_INL int32_t w_scan_excl(int32_t v, int32_t* total) {
  int32_t x = v;
  int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    int32_t y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  *total = __shfl_sync(0xffffffffu, x, 31);
  return x - v;
}
GSQL_INL void w_sync() { __syncwarp(); }
#endif
struct SV;
struct CaseMap;
GSQL_DEV int32_t w_find_byte(SV s, uint8_t c, int32_t from);
GSQL_DEV int32_t w_rfind_byte(SV s, uint8_t c, int32_t end);
GSQL_DEV int64_t w_char_len(SV s);
GSQL_DEV int32_t w_sv_find(SV s, SV needle, int32_t from);
GSQL_DEV int32_t w_casemap_size(SV s, const CaseMap& m);
GSQL_DEV void w_casemap_write(SV s, const CaseMap& m, bool upper, char* dst);
GSQL_DEV int32_t w_replace1_size(SV s, uint8_t c, SV to);
GSQL_DEV void w_replace1_write(SV s, uint8_t c, SV to, char* dst);
#endif

// bytes_eq4 sets the top bit of each byte of w equal to the byte that cc
// repeats (exact: no carries between bytes).
GSQL_INL uint32_t bytes_eq4(uint32_t w, uint32_t cc) {
  uint32_t x = w ^ cc;
  return ~(((x & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | x) & 0x80808080u;
}

// nib4 packs the four top-bit flags of a word into bits 0..3.
GSQL_INL uint32_t nib4(uint32_t m) { return ((m >> 7) * 0x01020408u) >> 24; }

// eq_mask16 is the 16-bit mask of the chunk's bytes equal to cc's byte.
GSQL_INL uint32_t eq_mask16(GU4 v, uint32_t cc) {
  return nib4(bytes_eq4(v.x, cc)) | (nib4(bytes_eq4(v.y, cc)) << 4) |
         (nib4(bytes_eq4(v.z, cc)) << 8) | (nib4(bytes_eq4(v.w, cc)) << 12);
}

// hi_mask16 is the 16-bit mask of bytes with the top bit set (non-ASCII).
GSQL_INL uint32_t hi_mask16(GU4 v) {
  return nib4(v.x & 0x80808080u) | (nib4(v.y & 0x80808080u) << 4) | (nib4(v.z & 0x80808080u) << 8) |
         (nib4(v.w & 0x80808080u) << 12);
}

// load_u returns the m bytes at p (1 <= m <= 16, any alignment) in four
// little-endian words, bytes at m and beyond zero. The second chunk is read
// only when the bytes reach into it.
GSQL_DEV GU4 load_u(const char* p, int32_t m) {
  int32_t sh = align_skew(p);
  const char* a = p - sh;
  GU4 c0 = ld16(a);
  GU4 c1 = c0;
  if (sh + m > 16) c1 = ld16(a + 16);
  uint32_t w0 = c0.x, w1 = c0.y, w2 = c0.z, w3 = c0.w, w4 = c1.x, w5 = c1.y, w6 = c1.z, w7 = c1.w;
  if (sh & 8) {
    w0 = w2;
    w1 = w3;
    w2 = w4;
    w3 = w5;
    w4 = w6;
    w5 = w7;
  }
  if (sh & 4) {
    w0 = w1;
    w1 = w2;
    w2 = w3;
    w3 = w4;
    w4 = w5;
  }
  uint32_t bs = (uint32_t)(sh & 3) * 8;
  GU4 r;
  r.x = funnel_r(w0, w1, bs);
  r.y = funnel_r(w1, w2, bs);
  r.z = funnel_r(w2, w3, bs);
  r.w = funnel_r(w3, w4, bs);
  if (m < 16) {
    uint64_t lo = m >= 8 ? ~0ULL : (1ULL << (8 * m)) - 1;
    uint64_t hi = m <= 8 ? 0ULL : (1ULL << (8 * (m - 8))) - 1;
    r.x &= (uint32_t)lo;
    r.y &= (uint32_t)(lo >> 32);
    r.z &= (uint32_t)hi;
    r.w &= (uint32_t)(hi >> 32);
  }
  return r;
}

// load_u8 returns the m bytes at p (1 <= m <= 8, any alignment) in one
// little-endian word, bytes at m and beyond zero: one or two 8-byte loads
// and a shift, where load_u needs 16-byte chunks and a funnel per word. The
// second aligned word is read only when the bytes reach into it, so both
// words lie in 16-byte chunks holding bytes of the string.
GSQL_DEV uint64_t load_u8(const char* p, int32_t m) {
  int32_t sh = (int32_t)((uint64_t)p & 7);
  const char* a = p - sh;
#ifdef GSQL_HOST
  uint64_t w0, w1 = 0;
  memcpy(&w0, a, 8);
  if (sh + m > 8) memcpy(&w1, a + 8, 8);
#else
  uint64_t w0 = *(const uint64_t*)a, w1 = 0;
  if (sh + m > 8) w1 = *(const uint64_t*)(a + 8);
#endif
  uint64_t w = w0 >> (8 * sh);
  if (sh) w |= w1 << (64 - 8 * sh);
  return m >= 8 ? w : w & ((1ULL << (8 * m)) - 1);
}

// SV is a string view: bytes somewhere in global, constant or thread-local
// memory. Views into input columns are how slicing functions avoid copies.
struct SV {
  const char* p;
  int32_t n;
};

GSQL_INL SV sv_make(const char* p, int32_t n) {
  SV s;
  s.p = p;
  s.n = n;
  return s;
}

// copy_bytes copies n bytes; in warp mode the lanes share them (and meet
// before anyone reads dst, which may be the warp's scratch).
GSQL_INL void copy_bytes(char* dst, const char* src, int32_t n) {
#ifdef GSQL_WARP
  for (int32_t z = w_lane(); z < n; z += GSQL_WS) dst[z] = src[z];
  w_sync();
#else
  int32_t z = 0;
  if (n >= 16) {
    // Whole aligned 8-byte words: a row's bytes in one store each instead
    // of eight (the threads of a warp write 32 different rows, so every
    // store is its own transaction). The head and tail stay bytes: the
    // words around them belong to neighbouring rows.
    for (; ((uint64_t)(dst + z) & 7) != 0; z++) dst[z] = src[z];
    for (; z + 8 <= n; z += 8) {
      uint64_t w = load_u8(src + z, 8);
#ifdef GSQL_HOST
      memcpy(dst + z, &w, 8);
#else
      *(uint64_t*)(dst + z) = w;
#endif
    }
  }
  for (; z < n; z++) dst[z] = src[z];
#endif
}

// Rope is an ordered list of up to N views: the value of CONCAT before it
// is written out.
template <int N>
struct Rope {
  SV part[N];
  int32_t k;
};

// Rope loops run over the static capacity with a guard, never over the
// dynamic count, so that parts are indexed by constants and the rope stays
// in registers instead of thread-local memory.
#ifdef GSQL_HOST
#define GSQL_UNROLL
#define GSQL_UNROLL_ALWAYS
#else
#define GSQL_UNROLL _Pragma("unroll")
#define GSQL_UNROLL_ALWAYS _Pragma("unroll")
#endif

template <int N>
GSQL_DEV int32_t rope_size(const Rope<N>& r) {
  int32_t s = 0;
  GSQL_UNROLL
  for (int i = 0; i < N; i++)
    if (i < r.k) s += r.part[i].n;
  return s;
}

template <int N>
GSQL_DEV void rope_write(const Rope<N>& r, char* dst) {
  GSQL_UNROLL
  for (int i = 0; i < N; i++) {
    if (i < r.k) {
      copy_bytes(dst, r.part[i].p, r.part[i].n);
      dst += r.part[i].n;
    }
  }
}

template <int N>
GSQL_DEV Rope<N> rope_of(SV s) {
  Rope<N> r;
  r.k = 1;
  r.part[0] = s;
  return r;
}

template <int N, int M>
GSQL_DEV void rope_append(Rope<N>& r, const Rope<M>& x) {
  GSQL_UNROLL
  for (int j = 0; j < N; j++) {
    GSQL_UNROLL
    for (int i = 0; i < M; i++) {
      if (i < x.k && j == r.k + i) r.part[j] = x.part[i];
    }
  }
  r.k += x.k;
}

template <int N, int M>
GSQL_DEV Rope<N> rope_widen(const Rope<M>& x) {
  Rope<N> r;
  r.k = 0;
  rope_append(r, x);
  return r;
}

// Scratch is per-thread memory for values that must be contiguous (the
// argument of SUBSTRING when it is a CONCAT, say). Overflow is reported and
// the host re-runs the batch on the library path.
struct Scratch {
  char* buf;
  int32_t cap;
  int32_t used;
  bool overflow;
};

template <int N>
GSQL_DEV SV flatten(const Rope<N>& r, Scratch& s) {
  if (r.k == 1) return r.part[0];
  int32_t n = rope_size(r);
  if (s.used + n > s.cap) {
    s.overflow = true;
    return sv_make(s.buf, 0);
  }
  char* dst = s.buf + s.used;
  rope_write(r, dst);
  s.used += n;
  return sv_make(dst, n);
}

GSQL_DEV char* scratch_take(Scratch& s, int32_t n) {
  if (n < 0 || s.used + n > s.cap) {
    s.overflow = true;
    return 0;
  }
  char* p = s.buf + s.used;
  s.used += n;
  return p;
}
