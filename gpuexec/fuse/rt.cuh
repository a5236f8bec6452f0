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
GSQL_INL uint32_t funnel_r(uint32_t lo, uint32_t hi, uint32_t s) { return __funnelshift_r(lo, hi, s); }
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
  return nib4(bytes_eq4(v.x, cc)) | (nib4(bytes_eq4(v.y, cc)) << 4) | (nib4(bytes_eq4(v.z, cc)) << 8) |
         (nib4(bytes_eq4(v.w, cc)) << 12);
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
    w0 = w2; w1 = w3; w2 = w4; w3 = w5; w4 = w6; w5 = w7;
  }
  if (sh & 4) {
    w0 = w1; w1 = w2; w2 = w3; w3 = w4; w4 = w5;
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

// ---- UTF-8: characters as Go's utf8.DecodeRune splits them --------------

// char_width returns the byte width of the character at p[i] (i < n): a
// valid sequence is one character, any other byte a character of its own.
GSQL_INL int32_t char_width(const char* p, int32_t i, int32_t n) {
  uint8_t b0 = (uint8_t)p[i];
  if (b0 < 0x80) return 1;
  int32_t rem = n - i;
  uint8_t lo = 0x80, hi = 0xBF;
  int32_t w;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    w = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    w = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    w = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  if (rem < w) return 1;
  uint8_t b1 = (uint8_t)p[i + 1];
  if (b1 < lo || b1 > hi) return 1;
  for (int32_t k = 2; k < w; k++) {
    uint8_t b = (uint8_t)p[i + k];
    if (b < 0x80 || b > 0xBF) return 1;
  }
  return w;
}

// decode returns the code point at p[i] (width w); invalid bytes decode to
// -1 so that case mapping leaves them unchanged.
GSQL_DEV int32_t decode(const char* p, int32_t i, int32_t w) {
  uint8_t b0 = (uint8_t)p[i];
  if (w == 1) return b0 < 0x80 ? (int32_t)b0 : -1;
  if (w == 2) return ((b0 & 0x1F) << 6) | ((uint8_t)p[i + 1] & 0x3F);
  if (w == 3) return ((b0 & 0x0F) << 12) | (((uint8_t)p[i + 1] & 0x3F) << 6) | ((uint8_t)p[i + 2] & 0x3F);
  return ((b0 & 0x07) << 18) | (((uint8_t)p[i + 1] & 0x3F) << 12) | (((uint8_t)p[i + 2] & 0x3F) << 6) |
         ((uint8_t)p[i + 3] & 0x3F);
}

GSQL_DEV int32_t encode_len(int32_t r) {
  if (r < 0x80) return 1;
  if (r < 0x800) return 2;
  if (r < 0x10000) return 3;
  return 4;
}

GSQL_DEV int32_t encode(int32_t r, char* dst) {
  if (r < 0x80) {
    dst[0] = (char)r;
    return 1;
  }
  if (r < 0x800) {
    dst[0] = (char)(0xC0 | (r >> 6));
    dst[1] = (char)(0x80 | (r & 0x3F));
    return 2;
  }
  if (r < 0x10000) {
    dst[0] = (char)(0xE0 | (r >> 12));
    dst[1] = (char)(0x80 | ((r >> 6) & 0x3F));
    dst[2] = (char)(0x80 | (r & 0x3F));
    return 3;
  }
  dst[0] = (char)(0xF0 | (r >> 18));
  dst[1] = (char)(0x80 | ((r >> 12) & 0x3F));
  dst[2] = (char)(0x80 | ((r >> 6) & 0x3F));
  dst[3] = (char)(0x80 | (r & 0x3F));
  return 4;
}

GSQL_DEV bool is_ascii(SV s) {
  for (int32_t i = 0; i < s.n; i++)
    if ((uint8_t)s.p[i] >= 0x80) return false;
  return true;
}

GSQL_DEV int64_t char_len_serial(SV s) {
  int64_t c = 0;
  for (int32_t i = 0; i < s.n; c++) i += char_width(s.p, i, s.n);
  return c;
}

GSQL_DEV int64_t char_len(SV s) {
#ifdef GSQL_WARP
  return w_char_len(s);
#else
  return char_len_serial(s);
#endif
}

// char_offset returns the byte offset just past the first k characters (s.n
// if there are fewer); k <= 0 gives 0.
GSQL_DEV int32_t char_offset(SV s, int64_t k) {
  if (k <= 0) return 0;
  if (k >= s.n) return s.n;
  int32_t i = 0;
  while (i < s.n && k > 0) {
    i += char_width(s.p, i, s.n);
    k--;
  }
  return i;
}

// ---- comparisons and searches ------------------------------------------
//
// GSQL_SCALAR selects the byte-at-a-time versions (kept as the baseline the
// vectorised ones are measured and tested against).

#ifdef GSQL_SCALAR
GSQL_DEV int32_t sv_cmp(SV a, SV b) {
  int32_t n = a.n < b.n ? a.n : b.n;
  for (int32_t i = 0; i < n; i++) {
    uint8_t x = (uint8_t)a.p[i], y = (uint8_t)b.p[i];
    if (x != y) return x < y ? -1 : 1;
  }
  return a.n == b.n ? 0 : (a.n < b.n ? -1 : 1);
}

GSQL_DEV bool mem_eq(const char* p, const char* q, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (p[i] != q[i]) return false;
  return true;
}

// sv_find returns the byte index of the first occurrence of needle in s at
// or after byte from, or -1.
GSQL_DEV int32_t sv_find(SV s, SV needle, int32_t from) {
  if (needle.n == 0) return from <= s.n ? from : -1;
  for (int32_t i = from; i + needle.n <= s.n; i++) {
    if (s.p[i] != needle.p[0]) continue;
    int32_t j = 1;
    while (j < needle.n && s.p[i + j] == needle.p[j]) j++;
    if (j == needle.n) return i;
  }
  return -1;
}

// sv_rfind returns the byte index of the last occurrence of needle that
// ends at or before byte end, or -1.
GSQL_DEV int32_t sv_rfind(SV s, SV needle, int32_t end) {
  for (int32_t i = end - needle.n; i >= 0; i--) {
    int32_t j = 0;
    while (j < needle.n && s.p[i + j] == needle.p[j]) j++;
    if (j == needle.n) return i;
  }
  return -1;
}
#else
// mem_eq compares n bytes at two addresses of any alignment.
GSQL_DEV bool mem_eq(const char* p, const char* q, int32_t n) {
  if (n <= 4) {
    for (int32_t i = 0; i < n; i++)
      if (p[i] != q[i]) return false;
    return true;
  }
  if (n <= 8) return load_u8(p, n) == load_u8(q, n);
  for (int32_t k = 0; k < n; k += 16) {
    int32_t m = n - k < 16 ? n - k : 16;
    GU4 a = load_u(p + k, m), b = load_u(q + k, m);
    if ((a.x ^ b.x) | (a.y ^ b.y) | (a.z ^ b.z) | (a.w ^ b.w)) return false;
  }
  return true;
}

GSQL_DEV int32_t sv_cmp(SV a, SV b) {
  int32_t n = a.n < b.n ? a.n : b.n;
  for (int32_t k = 0; k < n; k += 16) {
    int32_t m = n - k < 16 ? n - k : 16;
    GU4 x = load_u(a.p + k, m), y = load_u(b.p + k, m);
    uint32_t d[4] = {x.x ^ y.x, x.y ^ y.y, x.z ^ y.z, x.w ^ y.w};
    uint32_t xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
    GSQL_UNROLL_ALWAYS
    for (int j = 0; j < 4; j++) {
      if (d[j]) {
        int sh = (ffs32(d[j]) - 1) & ~7;
        uint32_t bx = (xs[j] >> sh) & 0xFF, by = (ys[j] >> sh) & 0xFF;
        return bx < by ? -1 : 1;
      }
    }
  }
  return a.n == b.n ? 0 : (a.n < b.n ? -1 : 1);
}

// find_byte_st returns the index of the first byte c in s at or after
// from, or -1: a 16-byte chunk per step. On a match it also leaves the
// index of the match's chunk in *cbase and the chunk's later matches in
// *rest (bit j: byte cbase + j), so that the search for the next one can
// resume without loading the chunk again (find_from does).
GSQL_DEV int32_t find_byte_st(SV s, uint8_t c, int32_t from, int32_t* cbase, uint32_t* rest) {
  if (from < 0) from = 0;
  if (from >= s.n) return -1;
  uint32_t cc = 0x01010101u * c;
  int32_t base = from - align_skew(s.p + from);
  uint32_t keep = 0xFFFFu << (from - base);
  for (;;) {
    uint32_t m = eq_mask16(ld16(s.p + base), cc) & keep;
    int32_t rem = s.n - base;
    if (rem < 16) m &= (1u << rem) - 1;
    if (m) {
      *cbase = base;
      *rest = m & (m - 1);
      return base + ffs32(m) - 1;
    }
    if (rem <= 16) return -1;
    base += 16;
    keep = 0xFFFFu;
  }
}

// find_byte returns the index of the first byte c in s at or after from,
// or -1.
GSQL_DEV int32_t find_byte(SV s, uint8_t c, int32_t from) {
#ifdef GSQL_WARP
  return w_find_byte(s, c, from);
#endif
  int32_t cbase;
  uint32_t rest;
  return find_byte_st(s, c, from, &cbase, &rest);
}

// rfind_byte returns the index of the last byte c in s before end, or -1.
GSQL_DEV int32_t rfind_byte(SV s, uint8_t c, int32_t end) {
#ifdef GSQL_WARP
  return w_rfind_byte(s, c, end);
#endif
  if (end > s.n) end = s.n;
  if (end <= 0) return -1;
  uint32_t cc = 0x01010101u * c;
  int32_t last = end - 1;
  int32_t base = last - align_skew(s.p + last);
  uint32_t keep = 0xFFFFu >> (15 - (last - base));
  for (;;) {
    uint32_t m = eq_mask16(ld16(s.p + base), cc) & keep;
    if (base < 0) m &= 0xFFFFu << (-base);
    if (m) return base + hibit32(m);
    if (base <= 0) return -1;
    base -= 16;
    keep = 0xFFFFu;
  }
}

// sv_find returns the byte index of the first occurrence of needle in s at
// or after byte from, or -1. Candidates are the needle's first byte, found a
// chunk at a time.
GSQL_DEV int32_t sv_find(SV s, SV needle, int32_t from) {
  if (needle.n == 0) return from <= s.n ? from : -1;
#ifdef GSQL_WARP
  if (needle.n > 1) return w_sv_find(s, needle, from);
#endif
  SV room = sv_make(s.p, s.n - needle.n + 1);  // where a match can start
  uint8_t c0 = (uint8_t)needle.p[0];
  for (int32_t i = from; i < room.n; i++) {
    i = find_byte(room, c0, i);
    if (i < 0) return -1;
    if (needle.n == 1 || mem_eq(s.p + i + 1, needle.p + 1, needle.n - 1)) return i;
  }
  return -1;
}

// sv_rfind returns the byte index of the last occurrence of needle that
// ends at or before byte end, or -1.
GSQL_DEV int32_t sv_rfind(SV s, SV needle, int32_t end) {
  if (needle.n == 0) return end >= 0 ? end : -1;
  uint8_t c0 = (uint8_t)needle.p[0];
  for (int32_t i = end - needle.n; i >= 0; i--) {
    i = rfind_byte(s, c0, i + 1);
    if (i < 0) return -1;
    if (needle.n == 1 || mem_eq(s.p + i + 1, needle.p + 1, needle.n - 1)) return i;
  }
  return -1;
}
#endif

GSQL_INL bool sv_eq(SV a, SV b) { return a.n == b.n && mem_eq(a.p, b.p, a.n); }

GSQL_INL bool starts_with(SV s, SV pre) { return pre.n <= s.n && mem_eq(s.p, pre.p, pre.n); }

GSQL_INL bool ends_with(SV s, SV suf) { return suf.n <= s.n && mem_eq(s.p + s.n - suf.n, suf.p, suf.n); }

GSQL_INL bool contains(SV s, SV needle) { return sv_find(s, needle, 0) >= 0; }

// ---- slicing functions: results are views of their argument -----------

// MySQL SUBSTRING(s, pos[, len]), positions in characters, 1-based,
// negative from the end, 0 or beyond the end gives ''.
GSQL_DEV SV substring3(SV s, int64_t pos, int64_t len, bool has_len) {
  if (pos == 0 || (has_len && len <= 0)) return sv_make(s.p, 0);
  int64_t start;
  if (pos > 0) {
    start = pos - 1;
  } else {
    int64_t cl = char_len(s);
    if (-pos > cl) return sv_make(s.p, 0);
    start = cl + pos;
  }
  int32_t b = char_offset(s, start);
  if (b >= s.n) return sv_make(s.p + s.n, 0);
  SV rest = sv_make(s.p + b, s.n - b);
  if (!has_len) return rest;
  return sv_make(rest.p, char_offset(rest, len));
}

GSQL_INL SV left(SV s, int64_t n) { return sv_make(s.p, char_offset(s, n)); }

GSQL_DEV SV right(SV s, int64_t n) {
  if (n <= 0) return sv_make(s.p + s.n, 0);
  int64_t cl = char_len(s);
  if (n >= cl) return s;
  int32_t b = char_offset(s, cl - n);
  return sv_make(s.p + b, s.n - b);
}

// FindCache remembers, for one row, the first and last occurrence of a
// delimiter in a string (-2: not searched yet), so that several
// SPLIT_PART/SUBSTRING_INDEX calls over the same string and delimiter (the
// first and the second name, say) search once. 0: no cache.
//
// For a one-byte delimiter it also keeps the chunk where the first
// occurrence was found (nbase, and nrest: the chunk's later occurrences),
// so that the search for the second one (SPLIT_PART(s, d, 2)) continues
// from there instead of loading and testing that chunk again.
struct FindCache {
  int32_t first, last;
  int32_t nbase;
  uint32_t nrest;
};

GSQL_DEV int32_t find_from(SV s, SV d, int32_t from, FindCache* c) {
  if (!c) return sv_find(s, d, from);
#if !defined(GSQL_SCALAR) && !defined(GSQL_WARP)
  if (d.n == 1) {
    if (c->first == -2) c->first = find_byte_st(s, (uint8_t)d.p[0], 0, &c->nbase, &c->nrest);
    if (from == 0) return c->first;
    if (c->first >= 0 && from == c->first + 1) {
      if (c->nrest) return c->nbase + ffs32(c->nrest) - 1;
      return find_byte(s, (uint8_t)d.p[0], c->nbase + 16);
    }
    return sv_find(s, d, from);
  }
#endif
  if (from != 0) return sv_find(s, d, from);
  if (c->first == -2) c->first = sv_find(s, d, 0);
  return c->first;
}

GSQL_DEV int32_t rfind_before(SV s, SV d, int32_t end, FindCache* c) {
  if (end != s.n || !c) return sv_rfind(s, d, end);
  if (c->last == -2) c->last = sv_rfind(s, d, s.n);
  return c->last;
}

#ifdef GSQL_HOST
#define GSQL_NOINLINE static
#else
#define GSQL_NOINLINE __device__ __forceinline__
#endif

// count_parts is 1 + the number of non-overlapping occurrences of d in s
// (d.n > 0), found left to right. Out of line: only SPLIT_PART with a
// negative count and a multibyte delimiter needs it.
GSQL_NOINLINE int64_t count_parts(SV s, SV d) {
  int64_t parts = 1;
  for (int32_t f = sv_find(s, d, 0); f >= 0; f = sv_find(s, d, f + d.n)) parts++;
  return parts;
}

// split_chars is SPLIT_PART with an empty delimiter: the n-th character.
GSQL_NOINLINE SV split_chars(SV s, int64_t n) {
  if (s.n == 0) return (n == 1 || n == -1) ? s : sv_make(s.p, 0);
  int64_t cl = char_len(s);
  int64_t idx = n > 0 ? n - 1 : cl + n;
  if (idx < 0 || idx >= cl) return sv_make(s.p, 0);
  int32_t b = char_offset(s, idx);
  return sv_make(s.p + b, char_width(s.p, b, s.n));
}

// DuckDB SPLIT_PART(s, delim, n): 1-based part, negative from the end,
// out of range gives ''. An empty delimiter splits into characters. Each
// search has one call site, so that the inlined scan is not duplicated.
//
// SIGN is the sign of n when n is a literal (1 or -1; 0 when n is not
// known when the kernel is generated): the other direction's code is then
// left out, which keeps the kernel small and its register count low.
template <int SIGN>
GSQL_DEV SV split_part(SV s, SV d, int64_t n, FindCache* fc) {
  if (n == 0) return sv_make(s.p, 0);
  if (d.n == 0) return split_chars(s, n);
  if (SIGN <= 0 && n < 0 && d.n > 1) {
    // A longer delimiter may overlap itself ('aa' in 'aaa'): as the CPU
    // kernel does, count the left-to-right occurrences and select the
    // part from the left.
    int64_t parts = count_parts(s, d);
    if (n < -parts) return sv_make(s.p, 0);
    n = parts + n + 1;
  }
  // (n is positive here also after a negative count was turned around.)
  if (SIGN > 0 || n > 0) {
    int32_t start = 0;
    for (int64_t k = 1;; k++) {
      int32_t f = find_from(s, d, start, fc);
      if (k == n) return sv_make(s.p + start, (f < 0 ? s.n : f) - start);
      if (f < 0) return sv_make(s.p, 0);
      start = f + d.n;
    }
  }
  int32_t end = s.n;
  for (int64_t k = -1;; k--) {
    int32_t f = rfind_before(s, d, end, fc);
    if (k == n) return sv_make(s.p + (f < 0 ? 0 : f + d.n), end - (f < 0 ? 0 : f + d.n));
    if (f < 0) return sv_make(s.p, 0);
    end = f;
  }
}

// MySQL SUBSTRING_INDEX(s, delim, count).
template <int SIGN>
GSQL_DEV SV substring_index(SV s, SV d, int64_t count, FindCache* fc) {
  if (count == 0 || d.n == 0) return sv_make(s.p, 0);
  if (SIGN > 0 || (SIGN == 0 && count > 0)) {
    int32_t start = 0;
    for (int64_t k = 1;; k++) {
      int32_t f = find_from(s, d, start, fc);
      if (f < 0) return s;
      if (k == count) return sv_make(s.p, f);
      start = f + d.n;
    }
  }
  if (d.n > 1) {
    // A longer delimiter may overlap itself: MySQL finds the occurrences
    // left to right ('aa' in 'aaaaa' at 0 and 2) and cuts after the one
    // -count from the end, as the CPU kernel does.
    int64_t want = count_parts(s, d) + count;
    if (want <= 0) return s;
    int32_t start = 0, f = 0;
    for (int64_t k = 1; k <= want; k++) {
      f = find_from(s, d, start, fc);
      start = f + d.n;
    }
    return sv_make(s.p + start, s.n - start);
  }
  int32_t end = s.n;
  for (int64_t k = -1;; k--) {
    int32_t f = rfind_before(s, d, end, fc);
    if (f < 0) return s;
    if (k == count) return sv_make(s.p + f + d.n, s.n - f - d.n);
    end = f;
  }
}

// TRIM family: without remstr spaces, with remstr repeated whole copies.
GSQL_DEV SV ltrim2(SV s, SV r) {
  if (r.n == 0) return s;
  int32_t i = 0;
  while (s.n - i >= r.n) {
    int32_t j = 0;
    while (j < r.n && s.p[i + j] == r.p[j]) j++;
    if (j < r.n) break;
    i += r.n;
  }
  return sv_make(s.p + i, s.n - i);
}

GSQL_DEV SV rtrim2(SV s, SV r) {
  if (r.n == 0) return s;
  int32_t e = s.n;
  while (e >= r.n) {
    int32_t j = 0;
    while (j < r.n && s.p[e - r.n + j] == r.p[j]) j++;
    if (j < r.n) break;
    e -= r.n;
  }
  return sv_make(s.p, e);
}

GSQL_INL SV trim2(SV s, SV r) { return rtrim2(ltrim2(s, r), r); }

GSQL_INL SV space_sv() { return sv_make(" ", 1); }

// LOCATE(substr, s[, pos]) in characters; 0 when absent.
GSQL_DEV int64_t locate3(SV sub, SV s, int64_t pos, bool has_pos) {
  if (!has_pos) pos = 1;
  if (pos < 1) return 0;
  int64_t cl = char_len(s);
  if (sub.n == 0) return pos <= cl + 1 ? pos : 0;
  if (pos - 1 > cl) return 0;
  int32_t f = sv_find(s, sub, char_offset(s, pos - 1));
  if (f < 0) return 0;
  return char_len(sv_make(s.p, f)) + 1;
}

GSQL_INL int64_t ascii_of(SV s) { return s.n == 0 ? 0 : (int64_t)(uint8_t)s.p[0]; }

GSQL_INL int64_t strcmp3(SV a, SV b) { return (int64_t)sv_cmp(a, b); }

// ---- LIKE --------------------------------------------------------------

// like_match implements MySQL LIKE: % any sequence, _ one character, esc
// escapes the next pattern character. Iterative with one backtrack point
// (the last %), so it is linear-ish and never exponential.
GSQL_DEV bool like_match(SV s, SV p, int32_t esc) {
  int32_t si = 0, pi = 0, star_p = -1, star_s = 0;
  while (si < s.n) {
    if (pi < p.n) {
      uint8_t c = (uint8_t)p.p[pi];
      if ((int32_t)c == esc && pi + 1 < p.n) {
        int32_t w = char_width(p.p, pi + 1, p.n);
        int32_t sw = char_width(s.p, si, s.n);
        if (w == sw) {
          int32_t k = 0;
          while (k < w && p.p[pi + 1 + k] == s.p[si + k]) k++;
          if (k == w) {
            pi += 1 + w;
            si += w;
            continue;
          }
        }
      } else if (c == '%') {
        star_p = pi++;
        star_s = si;
        continue;
      } else if (c == '_') {
        pi += char_width(p.p, pi, p.n);
        si += char_width(s.p, si, s.n);
        continue;
      } else {
        int32_t w = char_width(p.p, pi, p.n);
        int32_t sw = char_width(s.p, si, s.n);
        if (w == sw) {
          int32_t k = 0;
          while (k < w && p.p[pi + k] == s.p[si + k]) k++;
          if (k == w) {
            pi += w;
            si += w;
            continue;
          }
        }
      }
    }
    if (star_p < 0) return false;
    pi = star_p + 1;
    star_s += char_width(s.p, star_s, s.n);
    si = star_s;
  }
  while (pi < p.n && p.p[pi] == '%') pi++;
  return pi == p.n;
}

// ---- case mapping (tables generated from Go's unicode package) ---------

struct CaseMap {
  const int32_t* from;
  const int32_t* to;
  int32_t n;
};

GSQL_DEV int32_t map_rune(const CaseMap& m, int32_t r) {
  if (r < 0x10000) {
    // The page table after the to runes (CaseTables).
    const int32_t* pages = m.to + m.n;
    int32_t p = pages[r >> 8];
    return p < 0 ? r : pages[256 + p + (r & 255)];
  }
  int32_t lo = 0, hi = m.n - 1;
  while (lo <= hi) {
    int32_t mid = (lo + hi) >> 1;
    int32_t f = m.from[mid];
    if (f == r) return m.to[mid];
    if (f < r) lo = mid + 1;
    else hi = mid - 1;
  }
  return r;
}

GSQL_DEV int32_t casemap_size_serial(SV s, const CaseMap& m) {
  int32_t out = 0;
  for (int32_t i = 0; i < s.n;) {
    uint8_t b = (uint8_t)s.p[i];
    if (b < 0x80) {
      out++;
      i++;
      continue;
    }
    int32_t w = char_width(s.p, i, s.n);
    int32_t r = decode(s.p, i, w);
    out += r < 0 ? w : encode_len(map_rune(m, r));
    i += w;
  }
  return out;
}

// ascii_case8 maps eight ASCII bytes to upper or lower case: a byte is in
// range exactly when adding (0x80 - first) sets its top bit and adding
// (0x80 - last - 1) does not; flipping bit 5 changes the case.
GSQL_INL uint64_t ascii_case8(uint64_t w, bool upper) {
  uint64_t lo = upper ? 0x1F1F1F1F1F1F1F1Full : 0x3F3F3F3F3F3F3F3Full;
  uint64_t hi = upper ? 0x0505050505050505ull : 0x2525252525252525ull;
  uint64_t in = (w + lo) & ~(w + hi) & 0x8080808080808080ull;
  return w ^ (in >> 2);
}

GSQL_DEV void casemap_write_serial(SV s, const CaseMap& m, bool upper, char* dst) {
  for (int32_t i = 0; i < s.n;) {
    // Eight ASCII bytes to an aligned word of this row's output: one store
    // instead of eight (see copy_bytes).
    if (((uint64_t)dst & 7) == 0 && i + 8 <= s.n) {
      uint64_t w = load_u8(s.p + i, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        w = ascii_case8(w, upper);
#ifdef GSQL_HOST
        memcpy(dst, &w, 8);
#else
        *(uint64_t*)dst = w;
#endif
        dst += 8;
        i += 8;
        continue;
      }
    }
    uint8_t b = (uint8_t)s.p[i];
    if (b < 0x80) {
      if (upper && b >= 'a' && b <= 'z') b -= 32;
      if (!upper && b >= 'A' && b <= 'Z') b += 32;
      *dst++ = (char)b;
      i++;
      continue;
    }
    int32_t w = char_width(s.p, i, s.n);
    int32_t r = decode(s.p, i, w);
    if (r < 0) {
      for (int32_t k = 0; k < w; k++) *dst++ = s.p[i + k];
    } else {
      dst += encode(map_rune(m, r), dst);
    }
    i += w;
  }
}

GSQL_DEV int32_t casemap_size(SV s, const CaseMap& m) {
#ifdef GSQL_WARP
  return w_casemap_size(s, m);
#else
  return casemap_size_serial(s, m);
#endif
}

GSQL_DEV void casemap_write(SV s, const CaseMap& m, bool upper, char* dst) {
#ifdef GSQL_WARP
  w_casemap_write(s, m, upper, dst);
#else
  casemap_write_serial(s, m, upper, dst);
#endif
}

// ---- generated-content functions: size then write ---------------------

GSQL_DEV int32_t replace_size(SV s, SV from, SV to) {
  if (from.n == 0) return s.n;
#ifdef GSQL_WARP
  if (from.n == 1) return w_replace1_size(s, (uint8_t)from.p[0], to);
#endif
  int32_t n = 0, i = 0;
  for (;;) {
    int32_t f = sv_find(s, from, i);
    if (f < 0) break;
    n += (f - i) + to.n;
    i = f + from.n;
  }
  return n + (s.n - i);
}

GSQL_DEV void replace_write(SV s, SV from, SV to, char* dst) {
  if (from.n == 0) {
    copy_bytes(dst, s.p, s.n);
    return;
  }
#ifdef GSQL_WARP
  if (from.n == 1) {
    w_replace1_write(s, (uint8_t)from.p[0], to, dst);
    return;
  }
#endif
  int32_t i = 0;
  for (;;) {
    int32_t f = sv_find(s, from, i);
    if (f < 0) break;
    copy_bytes(dst, s.p + i, f - i);
    dst += f - i;
    copy_bytes(dst, to.p, to.n);
    dst += to.n;
    i = f + from.n;
  }
  copy_bytes(dst, s.p + i, s.n - i);
}

GSQL_DEV void reverse_write(SV s, char* dst) {
  int32_t o = s.n;
  for (int32_t i = 0; i < s.n;) {
    int32_t w = char_width(s.p, i, s.n);
    o -= w;
    for (int32_t k = 0; k < w; k++) dst[o + k] = s.p[i + k];
    i += w;
  }
}

GSQL_INL int64_t repeat_size(SV s, int64_t n) { return n <= 0 ? 0 : (int64_t)s.n * n; }

GSQL_DEV void repeat_write(SV s, int64_t n, char* dst) {
  for (int64_t k = 0; k < n; k++)
    for (int32_t j = 0; j < s.n; j++) *dst++ = s.p[j];
}

// LPAD/RPAD(s, len, pad): exactly len characters. null is set when MySQL
// returns NULL (len < 0, or padding needed with an empty pad).
GSQL_DEV int32_t pad_size(SV s, int64_t len, SV pad, bool* null) {
  *null = false;
  if (len < 0) {
    *null = true;
    return 0;
  }
  int64_t cl = char_len(s);
  if (len <= cl) return char_offset(s, len);
  if (pad.n == 0) {
    *null = true;
    return 0;
  }
  int64_t need = len - cl;
  int64_t pl = char_len(pad);
  int64_t full = need / pl;
  int64_t rest = need % pl;
  return (int32_t)(s.n + full * pad.n + char_offset(pad, rest));
}

GSQL_DEV void pad_write(SV s, int64_t len, SV pad, bool leftpad, char* dst) {
  int64_t cl = char_len(s);
  if (len <= cl) {
    int32_t b = char_offset(s, len);
    for (int32_t k = 0; k < b; k++) dst[k] = s.p[k];
    return;
  }
  int64_t need = len - cl;
  int64_t pl = char_len(pad);
  int64_t full = need / pl;
  int32_t restb = char_offset(pad, need % pl);
  if (!leftpad) {
    for (int32_t k = 0; k < s.n; k++) *dst++ = s.p[k];
  }
  for (int64_t f = 0; f < full; f++)
    for (int32_t k = 0; k < pad.n; k++) *dst++ = pad.p[k];
  for (int32_t k = 0; k < restb; k++) *dst++ = pad.p[k];
  if (leftpad) {
    for (int32_t k = 0; k < s.n; k++) *dst++ = s.p[k];
  }
}

// ---- numbers -----------------------------------------------------------

GSQL_INL bool add_overflows(int64_t a, int64_t b, int64_t* r) {
  uint64_t u = (uint64_t)a + (uint64_t)b;
  *r = (int64_t)u;
  return ((a ^ *r) & (b ^ *r)) < 0;
}

GSQL_INL bool sub_overflows(int64_t a, int64_t b, int64_t* r) {
  uint64_t u = (uint64_t)a - (uint64_t)b;
  *r = (int64_t)u;
  return ((a ^ b) & (a ^ *r)) < 0;
}

GSQL_INL bool mul_overflows(int64_t a, int64_t b, int64_t* r) {
  *r = (int64_t)((uint64_t)a * (uint64_t)b);
  if (a == 0 || b == 0) return false;
  if ((a == -1 && b == (int64_t)0x8000000000000000ULL) || (b == -1 && a == (int64_t)0x8000000000000000ULL)) return true;
  return *r / b != a;
}

// Row-level error codes reported to the host (first one wins).
#define GSQL_ERR_OVERFLOW 1
#define GSQL_ERR_SCRATCH 2
#define GSQL_ERR_TOO_LONG 3

// Input access.
GSQL_INL bool in_null(const uint8_t* valid, int64_t i) { return valid && !((valid[i >> 3] >> (i & 7)) & 1); }

GSQL_INL SV in_str(const int32_t* off, const char* chars, int64_t i) {
  int32_t lo = off[i];
  return sv_make(chars + lo, off[i + 1] - lo);
}

// out_null clears row i's bit of a validity bitmap stored as 32-bit words.
GSQL_INL void out_null(uint32_t* valid, int64_t i) {
#ifdef GSQL_HOST
  valid[i >> 5] &= ~(1u << (i & 31));
#else
  atomicAnd(valid + (i >> 5), ~(1u << (i & 31)));
#endif
}

// double_to_int converts as CAST(x AS SIGNED): round half away from zero,
// NaN to 0, out-of-range values clamped.
GSQL_DEV int64_t double_to_int(double x) {
  if (x != x) return 0;
  double r = round(x);
  if (r >= 9223372036854775807.0) return (int64_t)0x7FFFFFFFFFFFFFFFLL;
  if (r <= -9223372036854775808.0) return (int64_t)0x8000000000000000ULL;
  return (int64_t)r;
}

// ---- conversions -------------------------------------------------------

#define GSQL_ERR_FALLBACK 4

#ifdef GSQL_HOST
GSQL_INL double gsql_inf() { return HUGE_VAL; }
GSQL_INL double gsql_nan() { return NAN; }
#else
GSQL_INL double gsql_inf() { return __longlong_as_double(0x7ff0000000000000LL); }
GSQL_INL double gsql_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
#endif

// gsql_exp and gsql_log are expr.portableExp and expr.portableLog step for
// step (kernels compile with --fmad=false, so every operation rounds once
// as in the Go code): EXP, LN and LOG10 give the CPU's bits.
GSQL_DEV double gsql_exp(double x) {
  if (x != x || x > 7.09782712893383973096e+02) return x + gsql_inf();
  if (x < -7.45133219101941108420e+02) return 0.0;
  if (x > -0x1p-28 && x < 0x1p-28) return 1 + x;
  int k = x < 0 ? (int)(1.44269504088896338700e+00 * x - 0.5) : (int)(1.44269504088896338700e+00 * x + 0.5);
  double fk = (double)k;
  double hi = x - fk * 6.93147180369123816490e-01;
  double lo = fk * 1.90821492927058770002e-10;
  double r = hi - lo;
  double t = r * r;
  double p = -1.65339022054652515390e-06 + t * 4.13813679705723846039e-08;
  p = 6.61375632143793436117e-05 + t * p;
  p = -2.77777777770155933842e-03 + t * p;
  p = 1.66666666666666657415e-01 + t * p;
  double c = r - t * p;
  double y = 1 - ((lo - (r * c) / (2 - c)) - hi);
  return ldexp(y, k);
}

GSQL_DEV double gsql_log(double x) {
  if (x != x || x == gsql_inf()) return x;
  if (x < 0) return gsql_nan();
  if (x == 0) return -gsql_inf();
  int ki;
  double f1 = frexp(x, &ki);
  if (f1 < 0x1.6a09e667f3bcdp-1) {
    f1 *= 2;
    ki--;
  }
  double f = f1 - 1;
  double k = (double)ki;
  double s = f / (2 + f);
  double s2 = s * s;
  double s4 = s2 * s2;
  double t1 = 1.818357216161805012e-01 + s4 * 1.479819860511658591e-01;
  t1 = 2.857142874366239149e-01 + s4 * t1;
  t1 = s2 * (6.666666666666735130e-01 + s4 * t1);
  double t2 = 2.222219843214978396e-01 + s4 * 1.531383769920937332e-01;
  t2 = s4 * (3.999999999940941908e-01 + s4 * t2);
  double R = t1 + t2;
  double hfsq = 0.5 * f * f;
  return k * 6.93147180369123816490e-01 - ((hfsq - (s * (hfsq + R) + k * 1.90821492927058770002e-10)) - f);
}

GSQL_DEV bool gsql_odd_int(double x) {
  if (fabs(x) >= 0x1p53) return false;
  double xi;
  double xf = modf(x, &xi);
  return xf == 0 && (((long long)xi) & 1) == 1;
}

// gsql_pow is expr.portablePow step for step.
GSQL_DEV double gsql_pow(double x, double y) {
  if (y == 0 || x == 1) return 1;
  if (y == 1) return x;
  if (x != x || y != y) return gsql_nan();
  if (x == 0) {
    bool odd = gsql_odd_int(y);
    if (y < 0 && signbit(x) && odd) return -gsql_inf();
    if (y < 0) return gsql_inf();
    if (signbit(x) && odd) return x;
    return 0;
  }
  if (y == gsql_inf() || y == -gsql_inf()) {
    if (x == -1) return 1;
    if ((fabs(x) < 1) == (y > 0)) return 0;
    return gsql_inf();
  }
  if (x == gsql_inf() || x == -gsql_inf()) {
    if (x < 0) {
      // pow(-inf, y) = pow(-0, -y)
      double z = 1 / x;
      double ny = -y;
      bool odd = gsql_odd_int(ny);
      if (ny < 0 && odd) return -gsql_inf();
      if (ny < 0) return gsql_inf();
      if (odd) return z;
      return 0;
    }
    if (y < 0) return 0;
    return gsql_inf();
  }
  double yi;
  double yf = modf(fabs(y), &yi);
  if (yf != 0 && x < 0) return gsql_nan();
  if (yi >= 0x1p63) {
    if (x == -1) return 1;
    if ((fabs(x) < 1) == (y > 0)) return 0;
    return gsql_inf();
  }
  double a = 1.0;
  int ae = 0;
  if (yf != 0) {
    if (yf > 0.5) {
      yf -= 1;
      yi += 1;
    }
    a = gsql_exp(yf * gsql_log(x));
  }
  int me;
  double m = frexp(x, &me);
  for (long long i = (long long)yi; i != 0; i >>= 1) {
    if (me < -(1 << 12) || (1 << 12) < me) {
      ae += me;
      break;
    }
    if (i & 1) {
      a *= m;
      ae += me;
    }
    m *= m;
    me <<= 1;
    if (m < 0.5) {
      m += m;
      me--;
    }
  }
  if (y < 0) {
    a = 1 / a;
    ae = -ae;
  }
  return ldexp(a, ae);
}

// round_int mirrors expr.roundInt: ROUND (or TRUNCATE) of a BIGINT at d
// decimals; false when the result leaves BIGINT.
GSQL_DEV bool round_int(int64_t x, int64_t d, bool tr, int64_t* out) {
  *out = 0;
  if (d >= 0) {
    *out = x;
    return true;
  }
  if (d < -18) {
    // |x| < 10^19: only d = -19 can round up, to +-10^19, out of range.
    return tr || d != -19 || (x < 5000000000000000000LL && x > -5000000000000000000LL);
  }
  int64_t p = 1;
  for (int64_t k = 0; k < -d; k++) p *= 10;
  int64_t q = x / p, rem = x % p;
  if (!tr) {
    if (rem >= p - rem && rem > 0) q++;
    else if (rem < 0 && -rem >= p + rem) q--;
  }
  return !mul_overflows(q, p, out);
}

// round_double mirrors expr.roundFloat: the binary product x*10^d decides;
// where the CPU decides on x's shortest decimal digits instead (a product
// within a few ulps of a rounding boundary that is not exact, or |d| > 22),
// *fallback is set and the batch is evaluated on the CPU.
GSQL_DEV double round_double(double x, int64_t d, bool tr, bool* fallback) {
  if (x == 0 || x - x != 0) return x;
  if (d > 330) return x;
  if (d < -330) return copysign(0.0, x);
  if (d > 22 || d < -22) {
    *fallback = true;
    return x;
  }
  double p = 1;
  for (int64_t k = 0; k < (d >= 0 ? d : -d); k++) p *= 10;
  double y = d >= 0 ? x * p : x / p;
  if (y - y != 0 || fabs(y) >= 4503599627370496.0) return x;
  double t = trunc(y);
  double frac = fabs(y - t);
  double tol = fabs(y) * 0x1p-49;
  // y is the exact product (fma gives the rounding error) when x is a short
  // decimal such as 12.125: then x's shortest digits are its exact digits
  // and the binary decision is the decimal one.
  bool exact = d == 0 || (d > 0 ? fma(x, p, -y) : fma(y, p, -x)) == 0;
  bool near = tr ? (frac <= tol || 1 - frac <= tol) : fabs(frac - 0.5) <= tol;
  if (near && !exact) {
    *fallback = true;
    return x;
  }
  if (!tr && frac >= 0.5) t += copysign(1.0, y);
  if (t == 0) return copysign(0.0, x);
  return d >= 0 ? t / p : t * p;
}

GSQL_INL bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// parse_int_prefix mirrors expr.ParseIntPrefix: the integer at the start of
// s after spaces, clamped to the BIGINT range; no digits give 0.
GSQL_DEV int64_t parse_int_prefix(SV s) {
  int32_t i = 0;
  while (i < s.n && is_space_byte(s.p[i])) i++;
  bool neg = false;
  if (i < s.n && (s.p[i] == '+' || s.p[i] == '-')) {
    neg = s.p[i] == '-';
    i++;
  }
  uint64_t u = 0;
  bool over = false;
  for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
    uint64_t d = (uint64_t)(s.p[i] - '0');
    if (u > (0xFFFFFFFFFFFFFFFFULL - d) / 10) {
      over = true;
      continue;
    }
    u = u * 10 + d;
  }
  if (neg && (over || u > 0x8000000000000000ULL)) return (int64_t)0x8000000000000000ULL;
  if (neg) return (int64_t)(0ULL - u);
  if (over || u > 0x7FFFFFFFFFFFFFFFULL) return (int64_t)0x7FFFFFFFFFFFFFFFLL;
  return (int64_t)u;
}

// parse_double_prefix mirrors expr.ParseFloatPrefix where the result is
// exact in one floating-point operation (at most 15 significant digits and
// a power of ten up to 1e22: the case strconv also computes directly).
// Otherwise *inexact is set and the caller hands the batch to the CPU.
GSQL_DEV double parse_double_prefix(SV s, bool* inexact) {
  int32_t i = 0;
  while (i < s.n && is_space_byte(s.p[i])) i++;
  bool neg = false;
  if (i < s.n && (s.p[i] == '+' || s.p[i] == '-')) {
    neg = s.p[i] == '-';
    i++;
  }
  uint64_t m = 0;
  int32_t digits = 0, sig = 0, exp10 = 0;
  bool dropped = false;
  for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
    digits++;
    if (m == 0 && s.p[i] == '0') continue;
    if (sig < 19) {
      m = m * 10 + (uint64_t)(s.p[i] - '0');
      sig++;
    } else {
      exp10++;
      dropped = dropped || s.p[i] != '0';
    }
  }
  if (i < s.n && s.p[i] == '.') {
    i++;
    for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
      digits++;
      if (m == 0 && s.p[i] == '0') {
        exp10--;
        continue;
      }
      if (sig < 19) {
        m = m * 10 + (uint64_t)(s.p[i] - '0');
        sig++;
        exp10--;
      } else {
        dropped = dropped || s.p[i] != '0';
      }
    }
  }
  if (digits == 0) return 0.0;
  if (i < s.n && (s.p[i] == 'e' || s.p[i] == 'E')) {
    int32_t j = i + 1;
    bool eneg = false;
    if (j < s.n && (s.p[j] == '+' || s.p[j] == '-')) {
      eneg = s.p[j] == '-';
      j++;
    }
    int32_t k = j, e = 0;
    while (k < s.n && s.p[k] >= '0' && s.p[k] <= '9') {
      if (e < 100000) e = e * 10 + (s.p[k] - '0');
      k++;
    }
    if (k > j) exp10 += eneg ? -e : e;
  }
  if (m == 0) return neg ? -0.0 : 0.0;
  const double pow10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (dropped || m > (1ULL << 53) || exp10 > 22 || exp10 < -22) {
    *inexact = true;
    return 0.0;
  }
  double f = (double)m;
  f = exp10 >= 0 ? f * pow10[exp10] : f / pow10[-exp10];
  return neg ? -f : f;
}

GSQL_DEV int32_t int_text_len(int64_t v) {
  uint64_t u = v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v;
  int32_t n = v < 0 ? 2 : 1;
  while (u >= 10) {
    u /= 10;
    n++;
  }
  return n;
}

GSQL_DEV void int_text_write(int64_t v, char* dst) {
  int32_t n = int_text_len(v);
  uint64_t u = v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v;
  if (v < 0) dst[0] = '-';
  for (int32_t k = n - 1; k >= (v < 0 ? 1 : 0); k--) {
    dst[k] = (char)('0' + u % 10);
    u /= 10;
  }
}

// in_sorted_i64 reports whether x is among the n sorted values at keys
// (IN over a long list of integer literals).
GSQL_DEV bool in_sorted_i64(const int64_t* keys, int32_t n, int64_t x) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && keys[lo] == x;
}

// ---- DECIMAL ------------------------------------------------------------
//
// Mirrors package decimal and expr/decimal.go: a DECIMAL(p,s) value is a
// 128-bit integer scaled by 10^s, stored as two little-endian 64-bit words
// (Arrow decimal128). Every operation reports overflow (a result beyond
// the type's precision) through its bool; the generated code then sets
// GSQL_ERR_DECIMAL and the host evaluates the batch on the CPU, which
// raises the exact error. No operation here uses the compiler's 128-bit
// division (a library call on the device): dec_udivmod divides with 64-bit
// hardware division when it can and by shift-subtract otherwise.

#define GSQL_ERR_DECIMAL 5

typedef __int128 dec_t;
typedef unsigned __int128 udec_t;

GSQL_INL dec_t dec_make(uint64_t lo, uint64_t hi) { return (dec_t)(((udec_t)hi << 64) | (udec_t)lo); }
GSQL_INL dec_t dec_load(const void* p, int64_t i) {
  const uint64_t* w = (const uint64_t*)p + 2 * i;
  return dec_make(w[0], w[1]);
}
GSQL_INL void dec_store(void* p, int64_t i, dec_t v) {
  uint64_t* w = (uint64_t*)p + 2 * i;
  w[0] = (uint64_t)(udec_t)v;
  w[1] = (uint64_t)((udec_t)v >> 64);
}
GSQL_INL udec_t dec_abs(dec_t x) { return x < 0 ? (udec_t)0 - (udec_t)x : (udec_t)x; }
GSQL_INL dec_t dec_signed(udec_t m, bool neg) { return neg ? (dec_t)((udec_t)0 - m) : (dec_t)m; }

// dec_pow10 is 10^n for n in [0, 38] (constant-folded where n is).
GSQL_INL udec_t dec_pow10(int32_t n) {
  udec_t r = 1;
  for (int32_t k = 0; k < n; k++) r *= 10;
  return r;
}

// dec_fits reports |x| < 10^p.
GSQL_INL bool dec_fits(dec_t x, int32_t p) { return dec_abs(x) < dec_pow10(p); }

GSQL_INL int32_t dec_clz(udec_t x) {
  uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
#ifdef GSQL_HOST
  if (hi) return __builtin_clzll(hi);
  return lo ? 64 + __builtin_clzll(lo) : 128;
#else
  if (hi) return __clzll((long long)hi);
  return lo ? 64 + __clzll((long long)lo) : 128;
#endif
}

// dec_udivmod divides n by d (d > 0): the quotient, and the remainder in *rem.
GSQL_DEV udec_t dec_udivmod(udec_t n, udec_t d, udec_t* rem) {
  if ((n >> 64) == 0 && (d >> 64) == 0) {
    uint64_t a = (uint64_t)n, b = (uint64_t)d;
    *rem = a % b;
    return a / b;
  }
  if (d > n) {
    *rem = n;
    return 0;
  }
  int32_t shift = dec_clz(d) - dec_clz(n);
  d <<= shift;
  udec_t q = 0;
  for (int32_t k = 0; k <= shift; k++) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    d >>= 1;
  }
  *rem = n;
  return q;
}

// dec_quo is x / y toward zero (y != 0); *half says 2|remainder| >= |y|.
GSQL_DEV dec_t dec_quo(dec_t x, dec_t y, bool* half) {
  udec_t ay = dec_abs(y), r;
  udec_t q = dec_udivmod(dec_abs(x), ay, &r);
  *half = r >= ay - r;
  return dec_signed(q, (x < 0) != (y < 0));
}

// dec_divround is x / y rounded half away from zero (y != 0).
GSQL_DEV dec_t dec_divround(dec_t x, dec_t y) {
  bool half;
  dec_t q = dec_quo(x, y, &half);
  if (half) q += (x < 0) != (y < 0) ? -1 : 1;
  return q;
}

// dec_mul multiplies exactly; false when the product leaves 128 bits.
GSQL_DEV bool dec_mul(dec_t x, dec_t y, dec_t* r) {
  udec_t a = dec_abs(x), b = dec_abs(y);
  bool neg = (x < 0) != (y < 0);
  udec_t m;
  if ((a >> 64) == 0 && (b >> 64) == 0) {
    m = a * b;
  } else {
    if (a != 0 && b != 0) {
      udec_t rem;
      if (dec_udivmod(~(udec_t)0 >> 1, b, &rem) < a) return false;
    }
    m = a * b;
  }
  if (m > (~(udec_t)0 >> 1) && !(neg && m == ((udec_t)1 << 127))) return false;
  *r = dec_signed(m, neg);
  return true;
}

GSQL_INL bool dec_add(dec_t x, dec_t y, dec_t* r) {
  dec_t s = (dec_t)((udec_t)x + (udec_t)y);
  if ((x < 0) == (y < 0) && (s < 0) != (x < 0)) return false;
  *r = s;
  return true;
}

// dec_rescale changes x's scale from s to t: exact multiplication, or
// division rounding half away from zero (decimal.Int128.Rescale).
GSQL_DEV bool dec_rescale(dec_t x, int32_t s, int32_t t, dec_t* r) {
  if (t == s) {
    *r = x;
    return true;
  }
  if (t > s) return dec_mul(x, (dec_t)dec_pow10(t - s), r);
  *r = dec_divround(x, (dec_t)dec_pow10(s - t));
  return true;
}

// dec_fit stores x in *r when it has at most p digits.
GSQL_INL bool dec_fit(dec_t x, int32_t p, dec_t* r) {
  if (!dec_fits(x, p)) return false;
  *r = x;
  return true;
}

// dec_addsub is x (scale sx) + or - y (scale sy) at the result's scale sr
// and precision p (expr.decimalArith's + and -).
GSQL_DEV bool dec_addsub(dec_t x, int32_t sx, dec_t y, int32_t sy, bool sub, int32_t sr, int32_t p, dec_t* r) {
  int32_t s = sx > sy ? sx : sy;
  dec_t a, b, c;
  if (!dec_rescale(x, sx, s, &a) || !dec_rescale(y, sy, s, &b)) return false;
  if (sub) {
    if (b == (dec_t)((udec_t)1 << 127)) return false;
    b = -b;
  }
  if (!dec_add(a, b, &c) || !dec_rescale(c, s, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_mulr is x * y (scales sx + sy) at scale sr and precision p.
GSQL_DEV bool dec_mulr(dec_t x, dec_t y, int32_t sxy, int32_t sr, int32_t p, dec_t* r) {
  dec_t c;
  if (!dec_mul(x, y, &c) || !dec_rescale(c, sxy, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_div is x / y (y != 0) at scale sr, rounded half away from zero:
// x * 10^(sr+sy-sx) / y.
GSQL_DEV bool dec_div(dec_t x, int32_t sx, dec_t y, int32_t sy, int32_t sr, int32_t p, dec_t* r) {
  int32_t shift = sr + sy - sx;
  dec_t num = x, den = y;
  if (shift >= 0) {
    if (!dec_mul(x, (dec_t)dec_pow10(shift), &num)) return false;
  } else if (!dec_mul(y, (dec_t)dec_pow10(-shift), &den)) {
    return false;
  }
  return dec_fit(dec_divround(num, den), p, r);
}

// dec_mod is x - trunc(x/y)*y (y != 0) at the common scale, then sr.
GSQL_DEV bool dec_mod(dec_t x, int32_t sx, dec_t y, int32_t sy, int32_t sr, int32_t p, dec_t* r) {
  int32_t s = sx > sy ? sx : sy;
  dec_t a, b, m;
  if (!dec_rescale(x, sx, s, &a) || !dec_rescale(y, sy, s, &b)) return false;
  bool half;
  dec_t q = dec_quo(a, b, &half);
  if (!dec_mul(q, b, &m)) return false;
  dec_t c = (dec_t)((udec_t)a - (udec_t)m);
  if (!dec_rescale(c, s, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_cast converts scale s to scale t and precision p (CAST between
// decimals, and BIGINT (scale 0) to DECIMAL).
GSQL_DEV bool dec_cast(dec_t x, int32_t s, int32_t t, int32_t p, dec_t* r) {
  dec_t c;
  if (!dec_rescale(x, s, t, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_round is ROUND (half away from zero) or TRUNCATE (toward zero) of x
// (scale s) to d digits after the point, at the result's scale sr and
// precision p (expr.decimalRound).
GSQL_DEV bool dec_round(dec_t x, int32_t s, int64_t d, bool trunc, int32_t sr, int32_t p, dec_t* r) {
  int64_t drop = (int64_t)s - d;
  dec_t c = x;
  if (drop > 0) {
    if (drop > 38) {
      c = 0;
    } else {
      dec_t q = (dec_t)dec_pow10((int32_t)drop);
      bool half;
      c = trunc ? dec_quo(x, q, &half) : dec_divround(x, q);
      if (!dec_mul(c, q, &c)) return false;
    }
  }
  if (!dec_rescale(c, s, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_floor_ceil rounds x (scale s) down or up to an integer.
GSQL_DEV bool dec_floor_ceil(dec_t x, int32_t s, bool ceil, int32_t p, dec_t* r) {
  dec_t u = (dec_t)dec_pow10(s);
  bool half;
  dec_t q = dec_quo(x, u, &half);
  dec_t back = q * u;
  if (ceil && x > back) q += 1;
  if (!ceil && x < back) q -= 1;
  return dec_fit(q, p, r);
}

// dec_to_int is CAST(x AS SIGNED): rounded half away from zero; false
// when it leaves BIGINT.
GSQL_DEV bool dec_to_int(dec_t x, int32_t s, int64_t* r) {
  dec_t c;
  dec_rescale(x, s, 0, &c);
  if (c > (dec_t)0x7FFFFFFFFFFFFFFFLL || c < -(dec_t)0x7FFFFFFFFFFFFFFFLL - 1) return false;
  *r = (int64_t)c;
  return true;
}

// dec_to_double is x / 10^s where the CPU computes it in one division
// (decimal.Int128.Float64's fast path); other values set *fallback.
GSQL_DEV double dec_to_double(dec_t x, int32_t s, bool* fallback) {
  if (x >= (dec_t)(1LL << 53) || x <= -(dec_t)(1LL << 53) || s > 22) {
    *fallback = true;
    return 0.0;
  }
  const double p10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  return (double)(int64_t)x / p10[s];
}

// dec_from_double converts f to scale s and precision p the way the CPU
// does (its shortest decimal digits, rounded half away from zero): f*10^s
// rounded, except near a rounding tie or beyond 2^52, where the shortest
// digits decide and *fallback hands the batch to the CPU.
GSQL_DEV bool dec_from_double(double f, int32_t s, int32_t p, dec_t* r, bool* fallback) {
  if (f != f || f - f != 0.0 || s > 22) {
    *fallback = true;
    return true;
  }
  const double p10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  double y = f * p10[s];
  double a = fabs(y);
  if (a >= 4503599627370496.0) {
    *fallback = true;
    return true;
  }
  double t = floor(a);
  double frac = a - t;
  if (fabs(frac - 0.5) <= 1e-9 * (a + 1.0)) {
    *fallback = true;
    return true;
  }
  if (frac > 0.5) t += 1.0;
  dec_t v = (dec_t)(int64_t)t;
  return dec_fit(y < 0 ? -v : v, p, r);
}

// dec_parse is CAST(text AS DECIMAL(p,s)) (expr.castDecimal over
// numericPrefix): spaces, a sign, digits with an optional point; no digits
// give 0. More than 38 significant digits or an exponent set *fallback.
GSQL_DEV bool dec_parse(SV str, int32_t s, int32_t p, dec_t* r, bool* fallback) {
  int32_t i = 0;
  while (i < str.n && (str.p[i] == ' ' || str.p[i] == '\t' || str.p[i] == '\n' || str.p[i] == '\r')) i++;
  bool neg = false;
  if (i < str.n && (str.p[i] == '+' || str.p[i] == '-')) {
    neg = str.p[i] == '-';
    i++;
  }
  udec_t m = 0;
  int32_t sig = 0, frac = 0, digits = 0;
  bool point = false, up = false, dropped = false;
  for (; i < str.n; i++) {
    char c = str.p[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    digits++;
    if (point) {
      if (frac >= s) {
        // Digits past the scale round: the first decides (half away
        // from zero), the rest cannot change it.
        if (!dropped) up = c >= '5';
        dropped = true;
        continue;
      }
      frac++;
    }
    if (m == 0 && c == '0') {
      continue;
    }
    if (sig >= 38) {
      *fallback = true;
      return true;
    }
    m = m * 10 + (udec_t)(c - '0');
    sig++;
  }
  if (digits == 0) {
    *r = 0;
    return true;
  }
  if (i < str.n && (str.p[i] == 'e' || str.p[i] == 'E')) {
    int32_t j = i + 1;
    if (j < str.n && (str.p[j] == '+' || str.p[j] == '-')) j++;
    if (j < str.n && str.p[j] >= '0' && str.p[j] <= '9') {
      *fallback = true;
      return true;
    }
  }
  for (; frac < s; frac++) {
    if (sig >= 38) {
      *fallback = true;
      return true;
    }
    m *= 10;
    if (m != 0) sig++;
  }
  if (up) m += 1;
  return dec_fit(dec_signed(m, neg), p, r);
}

// dec_digits is the number of decimal digits of u (0 for 0).
GSQL_INL int32_t dec_digits(udec_t u) {
  int32_t n = 0;
  udec_t p = 1;
  while (u >= p) {
    n++;
    if (n == 39) break;
    p *= 10;
  }
  return n;
}

// dec_text_len and dec_text_write format x with exactly s digits after
// the point (decimal.Int128.Append).
GSQL_DEV int32_t dec_text_len(dec_t x, int32_t s) {
  int32_t n = dec_digits(dec_abs(x));
  int32_t len = n <= s ? 1 + (s > 0 ? 1 + s : 0) : n + (s > 0 ? 1 : 0);
  return len + (x < 0 ? 1 : 0);
}

GSQL_DEV void dec_text_write(dec_t x, int32_t s, char* dst) {
  int32_t len = dec_text_len(x, s);
  udec_t u = dec_abs(x);
  if (x < 0) dst[0] = '-';
  int32_t k = len - 1, done = 0;
  int32_t stop = x < 0 ? 1 : 0;
  while (k >= stop) {
    if (s > 0 && done == s) {
      dst[k--] = '.';
      done++;
      continue;
    }
    udec_t rem;
    u = dec_udivmod(u, 10, &rem);
    dst[k--] = (char)('0' + (int32_t)rem);
    done++;
  }
}

// dec_reg reads an interpreter register's DECIMAL (a view of 16 bytes;
// none after a scratch overflow, which fails the batch anyway).
GSQL_INL dec_t dec_reg(const char* p) { return p ? dec_load(p, 0) : (dec_t)0; }

// dec_scratch stores an interpreter operation's DECIMAL result in the
// row's scratch, 8-byte aligned, and returns its address (0 on overflow).
GSQL_DEV const char* dec_scratch(Scratch& s, dec_t v) {
  s.used = (s.used + 7) & ~7;
  char* p = scratch_take(s, 16);
  if (p) dec_store(p, 0, v);
  return p;
}

// dec_cmp is -1, 0 or 1 as x < y, x == y, x > y.
GSQL_INL int32_t dec_cmp(dec_t x, dec_t y) { return x < y ? -1 : (x > y ? 1 : 0); }

// ---- dates and timestamps ------------------------------------------------
//
// Mirrors package datetime and expr/temporal.go step for step: a DATE is
// days since 1970-01-01, a TIMESTAMP microseconds since 1970-01-01 00:00.
// Unit codes are expr.Unit's.

#define DT_US_SEC 1000000LL
#define DT_US_MIN 60000000LL
#define DT_US_HOUR 3600000000LL
#define DT_US_DAY 86400000000LL
#define DT_MIN_DAYS (-719162LL)
#define DT_MAX_DAYS 2932896LL

enum {
  DT_MICROSECOND = 1, DT_MILLISECOND, DT_SECOND, DT_MINUTE, DT_HOUR, DT_DAY, DT_WEEK, DT_MONTH,
  DT_QUARTER, DT_YEAR, DT_DECADE, DT_CENTURY, DT_MILLENNIUM, DT_DOW, DT_DOY, DT_EPOCH, DT_ISODOW
};

GSQL_INL int64_t dt_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

GSQL_DEV int64_t dt_days_from_civil(int64_t y, int64_t m, int64_t d) {
  if (m <= 2) y--;
  int64_t era = dt_floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int64_t mp = (m + 9) % 12;
  int64_t doy = (153 * mp + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

GSQL_DEV void dt_civil(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  int64_t era = dt_floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t yy = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  int64_t mm = mp + 3;
  if (mm > 12) mm -= 12;
  if (mm <= 2) yy++;
  *y = yy;
  *m = mm;
}

GSQL_INL bool dt_is_leap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

GSQL_INL int64_t dt_days_in_month(int64_t y, int64_t m) {
  if (m == 2) return dt_is_leap(y) ? 29 : 28;
  if (m == 4 || m == 6 || m == 9 || m == 11) return 30;
  return 31;
}

GSQL_INL bool dt_valid_date(int64_t y, int64_t m, int64_t d) {
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= dt_days_in_month(y, m);
}

GSQL_INL bool dt_date_in_range(int64_t z) { return z >= DT_MIN_DAYS && z <= DT_MAX_DAYS; }

GSQL_INL bool dt_ts_in_range(int64_t t) { return t >= DT_MIN_DAYS * DT_US_DAY && t < (DT_MAX_DAYS + 1) * DT_US_DAY; }

GSQL_INL int64_t dt_days(int64_t ts) { return dt_floor_div(ts, DT_US_DAY); }

GSQL_INL int64_t dt_tod(int64_t ts) { return ts - dt_days(ts) * DT_US_DAY; }

// 1 = Sunday .. 7 = Saturday.
GSQL_INL int64_t dt_day_of_week(int64_t z) { return (z + 4) - dt_floor_div(z + 4, 7) * 7 + 1; }

GSQL_DEV int64_t dt_day_of_year(int64_t z) {
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  return z - dt_days_from_civil(y, 1, 1) + 1;
}

GSQL_DEV int64_t dt_week0(int64_t z) {
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  int64_t jan1 = dt_days_from_civil(y, 1, 1);
  int64_t first = jan1 + (8 - dt_day_of_week(jan1)) % 7;
  if (z < first) return 0;
  return (z - first) / 7 + 1;
}

GSQL_DEV int64_t dt_iso_week(int64_t z) {
  int64_t wd = (dt_day_of_week(z) + 5) % 7;
  int64_t thursday = z - wd + 3;
  int64_t y, m, d;
  dt_civil(thursday, &y, &m, &d);
  return (thursday - dt_days_from_civil(y, 1, 1)) / 7 + 1;
}

// Adds k months to day z, clamping the day; false out of range.
GSQL_DEV bool dt_add_months(int64_t z, int64_t k, int64_t* out) {
  if (k > 120000 || k < -120000) return false;
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + k;
  int64_t ny = dt_floor_div(total, 12);
  int64_t nm = total - ny * 12 + 1;
  if (ny < 1 || ny > 9999) return false;
  int64_t dim = dt_days_in_month(ny, nm);
  if (d > dim) d = dim;
  *out = dt_days_from_civil(ny, nm, d);
  return true;
}

GSQL_DEV bool dt_add_months_ts(int64_t t, int64_t k, int64_t* out) {
  int64_t d = dt_days(t), us = t - d * DT_US_DAY, nd;
  if (!dt_add_months(d, k, &nd)) return false;
  *out = nd * DT_US_DAY + us;
  return true;
}

GSQL_DEV int64_t dt_extract(int32_t u, int64_t t) {
  int64_t d = dt_days(t), us = t - d * DT_US_DAY;
  int64_t y, m, day;
  dt_civil(d, &y, &m, &day);
  switch (u) {
    case DT_MICROSECOND: return us % DT_US_SEC;
    case DT_MILLISECOND: return us % DT_US_MIN / 1000;
    case DT_SECOND: return us / DT_US_SEC % 60;
    case DT_MINUTE: return us / DT_US_MIN % 60;
    case DT_HOUR: return us / DT_US_HOUR;
    case DT_DAY: return day;
    case DT_WEEK: return dt_iso_week(d);
    case DT_MONTH: return m;
    case DT_QUARTER: return (m + 2) / 3;
    case DT_YEAR: return y;
    case DT_DECADE: return dt_floor_div(y, 10);
    case DT_CENTURY: return (y + 99) / 100;
    case DT_MILLENNIUM: return (y + 999) / 1000;
    case DT_DOW: return dt_day_of_week(d) - 1;
    case DT_ISODOW: return (dt_day_of_week(d) + 5) % 7 + 1;
    case DT_DOY: return dt_day_of_year(d);
    case DT_EPOCH: return dt_floor_div(t, DT_US_SEC);
  }
  return 0;
}

GSQL_DEV int64_t dt_trunc(int32_t u, int64_t t) {
  int64_t d = dt_days(t);
  int64_t y, m, day, z = 0;
  dt_civil(d, &y, &m, &day);
  switch (u) {
    case DT_MICROSECOND: return t;
    case DT_MILLISECOND: return dt_floor_div(t, 1000) * 1000;
    case DT_SECOND: return dt_floor_div(t, DT_US_SEC) * DT_US_SEC;
    case DT_MINUTE: return dt_floor_div(t, DT_US_MIN) * DT_US_MIN;
    case DT_HOUR: return dt_floor_div(t, DT_US_HOUR) * DT_US_HOUR;
    case DT_DAY: return d * DT_US_DAY;
    case DT_WEEK: z = d - (dt_day_of_week(d) + 5) % 7; break;
    case DT_MONTH: z = dt_days_from_civil(y, m, 1); break;
    case DT_QUARTER: z = dt_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1); break;
    case DT_YEAR: z = dt_days_from_civil(y, 1, 1); break;
    case DT_DECADE: z = dt_days_from_civil(dt_floor_div(y, 10) * 10, 1, 1); break;
    case DT_CENTURY: z = dt_days_from_civil((y - 1) / 100 * 100 + 1, 1, 1); break;
    case DT_MILLENNIUM: z = dt_days_from_civil((y - 1) / 1000 * 1000 + 1, 1, 1); break;
  }
  return z * DT_US_DAY;
}

GSQL_DEV int64_t dt_ts_diff(int32_t u, int64_t a, int64_t b) {
  if (u == DT_MONTH || u == DT_QUARTER || u == DT_YEAR) {
    int64_t da = dt_days(a), db = dt_days(b);
    int64_t ua = a - da * DT_US_DAY, ub = b - db * DT_US_DAY;
    int64_t ya, ma, dda, yb, mb, ddb;
    dt_civil(da, &ya, &ma, &dda);
    dt_civil(db, &yb, &mb, &ddb);
    int64_t months = (yb * 12 + mb) - (ya * 12 + ma);
    int64_t ra = dda * DT_US_DAY + ua, rb = ddb * DT_US_DAY + ub;
    if (months > 0 && rb < ra) months--;
    else if (months < 0 && rb > ra) months++;
    if (u == DT_QUARTER) return months / 3;
    if (u == DT_YEAR) return months / 12;
    return months;
  }
  int64_t step = 1;
  switch (u) {
    case DT_MILLISECOND: step = 1000; break;
    case DT_SECOND: step = DT_US_SEC; break;
    case DT_MINUTE: step = DT_US_MIN; break;
    case DT_HOUR: step = DT_US_HOUR; break;
    case DT_DAY: step = DT_US_DAY; break;
    case DT_WEEK: step = 7 * DT_US_DAY; break;
  }
  return (b - a) / step;
}

// The unit named by s (expr.ParseUnit), or -1.
GSQL_DEV int32_t dt_unit_code(SV s) {
  char w[12];
  int32_t n = 0;
  int32_t i = 0;
  while (i < s.n && s.p[i] == ' ') i++;
  int32_t e = s.n;
  while (e > i && s.p[e - 1] == ' ') e--;
  if (e - i > 11) return -1;
  for (; i < e; i++) {
    char c = s.p[i];
    w[n++] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
  }
  w[n] = 0;
  struct { const char* name; int32_t code; } names[] = {
    {"microsecond", DT_MICROSECOND}, {"microseconds", DT_MICROSECOND}, {"us", DT_MICROSECOND},
    {"millisecond", DT_MILLISECOND}, {"milliseconds", DT_MILLISECOND}, {"ms", DT_MILLISECOND},
    {"second", DT_SECOND}, {"seconds", DT_SECOND}, {"s", DT_SECOND},
    {"minute", DT_MINUTE}, {"minutes", DT_MINUTE}, {"hour", DT_HOUR}, {"hours", DT_HOUR}, {"h", DT_HOUR},
    {"day", DT_DAY}, {"days", DT_DAY}, {"d", DT_DAY}, {"week", DT_WEEK}, {"weeks", DT_WEEK},
    {"month", DT_MONTH}, {"months", DT_MONTH}, {"quarter", DT_QUARTER}, {"quarters", DT_QUARTER},
    {"year", DT_YEAR}, {"years", DT_YEAR}, {"y", DT_YEAR}, {"decade", DT_DECADE}, {"decades", DT_DECADE},
    {"century", DT_CENTURY}, {"centuries", DT_CENTURY}, {"millennium", DT_MILLENNIUM}, {"millennia", DT_MILLENNIUM},
    {"dayofweek", DT_DOW}, {"dow", DT_DOW}, {"dayofyear", DT_DOY}, {"doy", DT_DOY},
    {"epoch", DT_EPOCH}, {"isodow", DT_ISODOW},
  };
  for (int32_t k = 0; k < (int32_t)(sizeof(names) / sizeof(names[0])); k++) {
    const char* p = names[k].name;
    int32_t j = 0;
    while (p[j] && p[j] == w[j]) j++;
    if (!p[j] && !w[j]) return names[k].code;
  }
  return -1;
}

GSQL_INL bool dt_is_digit(char c) { return c >= '0' && c <= '9'; }

GSQL_INL bool dt_is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Reads up to max digits at s[*i]; false when there are none.
GSQL_DEV bool dt_num(SV s, int32_t* i, int32_t max, int64_t* out) {
  int32_t start = *i;
  int64_t v = 0;
  while (*i < s.n && dt_is_digit(s.p[*i]) && *i - start < max) {
    v = v * 10 + (s.p[*i] - '0');
    (*i)++;
  }
  *out = v;
  return *i > start;
}

// The date part of text (datetime.parseYMD); *i is left after it.
GSQL_DEV bool dt_parse_ymd(SV s, int32_t* i, int64_t* y, int64_t* m, int64_t* d) {
  int32_t k = *i;
  bool eight = s.n - k >= 8;
  for (int32_t j = 0; eight && j < 8; j++) eight = dt_is_digit(s.p[k + j]);
  if (eight && (s.n - k == 8 || !dt_is_digit(s.p[k + 8]))) {
    if (s.n - k == 8 || s.p[k + 8] == ' ' || s.p[k + 8] == 'T') {
      const char* p = s.p + k;
      *y = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0');
      *m = (p[4] - '0') * 10 + (p[5] - '0');
      *d = (p[6] - '0') * 10 + (p[7] - '0');
      *i = k + 8;
      return true;
    }
  }
  int32_t start = k;
  if (!dt_num(s, &k, 4, y) || k - start < 4) return false;
  if (k >= s.n || (s.p[k] != '-' && s.p[k] != '/' && s.p[k] != '.')) return false;
  k++;
  if (!dt_num(s, &k, 2, m)) return false;
  if (k >= s.n || (s.p[k] != '-' && s.p[k] != '/' && s.p[k] != '.')) return false;
  k++;
  if (!dt_num(s, &k, 2, d)) return false;
  *i = k;
  return true;
}

// The time of day after the date (datetime.parseTimeOfDay).
GSQL_DEV bool dt_parse_tod(SV s, int32_t i, int64_t* out) {
  *out = 0;
  if (i == s.n) return true;
  if (s.p[i] != ' ' && s.p[i] != 'T') return false;
  i++;
  while (i < s.n && s.p[i] == ' ') i++;
  int32_t end = s.n;
  if (end > i && s.p[end - 1] == 'Z') end--;
  SV t = sv_make(s.p, end);
  int64_t h, mi, sec = 0, frac = 0;
  if (!dt_num(t, &i, 2, &h) || i >= t.n || t.p[i] != ':') return false;
  i++;
  if (!dt_num(t, &i, 2, &mi)) return false;
  if (i < t.n && t.p[i] == ':') {
    i++;
    if (!dt_num(t, &i, 2, &sec)) return false;
    if (i < t.n && t.p[i] == '.') {
      i++;
      int32_t start = i;
      while (i < t.n && dt_is_digit(t.p[i])) {
        if (i - start < 6) frac = frac * 10 + (t.p[i] - '0');
        i++;
      }
      if (i == start) return false;
      for (int32_t k = i - start; k < 6; k++) frac *= 10;
    }
  }
  if (i != t.n || h > 23 || mi > 59 || sec > 59) return false;
  *out = h * DT_US_HOUR + mi * DT_US_MIN + sec * DT_US_SEC + frac;
  return true;
}

// Text to DATE (ts false) or TIMESTAMP (ts true); false when it is not one.
GSQL_DEV bool dt_parse(SV s, bool ts, int64_t* out) {
  int32_t i = 0;
  while (i < s.n && dt_is_blank(s.p[i])) i++;
  int32_t e = s.n;
  while (e > i && dt_is_blank(s.p[e - 1])) e--;
  SV t = sv_make(s.p + i, e - i);
  int32_t k = 0;
  int64_t y, m, d, tod;
  *out = 0;
  if (!dt_parse_ymd(t, &k, &y, &m, &d) || !dt_valid_date(y, m, d)) return false;
  if (!dt_parse_tod(t, k, &tod)) return false;
  int64_t z = dt_days_from_civil(y, m, d);
  *out = ts ? z * DT_US_DAY + tod : z;
  return true;
}

// YYYYMMDD or YYYYMMDDhhmmss to DATE/TIMESTAMP (expr.numberTemporal).
GSQL_DEV bool dt_from_number(int64_t x, bool ts, int64_t* out) {
  int64_t tod = 0;
  *out = 0;
  if (x > 99991231) {
    int64_t hms = x % 1000000;
    x /= 1000000;
    int64_t h = hms / 10000, mi = hms / 100 % 100, s = hms % 100;
    if (h > 23 || mi > 59 || s > 59) return false;
    tod = h * DT_US_HOUR + mi * DT_US_MIN + s * DT_US_SEC;
  }
  int64_t y = x / 10000, m = x / 100 % 100, d = x % 100;
  if (!dt_valid_date(y, m, d)) return false;
  int64_t z = dt_days_from_civil(y, m, d);
  *out = ts ? z * DT_US_DAY + tod : z;
  return true;
}

// DATE/TIMESTAMP as MySQL's number (expr.temporalNumber).
GSQL_DEV int64_t dt_to_number(int64_t x, bool ts) {
  int64_t y, m, d;
  if (!ts) {
    dt_civil(x, &y, &m, &d);
    return y * 10000 + m * 100 + d;
  }
  int64_t z = dt_days(x), us = x - z * DT_US_DAY;
  dt_civil(z, &y, &m, &d);
  int64_t secs = us / DT_US_SEC;
  return ((y * 10000 + m * 100 + d) * 100 + secs / 3600) * 10000 + secs / 60 % 60 * 100 + secs % 60;
}

GSQL_INL void dt_put(char* dst, int64_t v, int32_t w) {
  for (int32_t k = w - 1; k >= 0; k--) {
    dst[k] = (char)('0' + v % 10);
    v /= 10;
  }
}

GSQL_DEV void dt_date_write(int64_t z, char* dst) {
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  dt_put(dst, y, 4);
  dst[4] = '-';
  dt_put(dst + 5, m, 2);
  dst[7] = '-';
  dt_put(dst + 8, d, 2);
}

// Digits of the fraction printed (trailing zeros dropped), 0 for none.
GSQL_INL int32_t dt_frac_digits(int64_t t) {
  int64_t f = dt_tod(t) % DT_US_SEC;
  if (f == 0) return 0;
  int32_t n = 6;
  while (f % 10 == 0) {
    f /= 10;
    n--;
  }
  return n;
}

GSQL_DEV int32_t dt_ts_text_len(int64_t t) {
  int32_t f = dt_frac_digits(t);
  return 19 + (f ? f + 1 : 0);
}

GSQL_DEV void dt_ts_write(int64_t t, char* dst) {
  int64_t z = dt_days(t), us = t - z * DT_US_DAY;
  dt_date_write(z, dst);
  dst[10] = ' ';
  dt_put(dst + 11, us / DT_US_HOUR, 2);
  dst[13] = ':';
  dt_put(dst + 14, us / DT_US_MIN % 60, 2);
  dst[16] = ':';
  dt_put(dst + 17, us / DT_US_SEC % 60, 2);
  int32_t f = dt_frac_digits(t);
  if (f) {
    int64_t frac = us % DT_US_SEC;
    for (int32_t k = f; k < 6; k++) frac /= 10;
    dst[19] = '.';
    dt_put(dst + 20, frac, f);
  }
}

GSQL_DEV SV dt_day_name(int64_t z) {
  const char* names = "Sunday\0\0\0\0Monday\0\0\0\0Tuesday\0\0\0Wednesday\0Thursday\0\0Friday\0\0\0\0Saturday\0\0";
  const int32_t lens[7] = {6, 6, 7, 9, 8, 6, 8};
  int64_t k = dt_day_of_week(z) - 1;
  return sv_make(names + 10 * k, lens[k]);
}

GSQL_DEV SV dt_month_name(int64_t z) {
  const char* names = "January\0\0\0February\0\0March\0\0\0\0\0April\0\0\0\0\0May\0\0\0\0\0\0\0June\0\0\0\0\0\0"
                      "July\0\0\0\0\0\0August\0\0\0\0September\0October\0\0\0November\0\0December\0\0";
  const int32_t lens[12] = {7, 8, 5, 5, 3, 4, 4, 6, 9, 7, 8, 8};
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  return sv_make(names + 10 * (m - 1), lens[m - 1]);
}

// DATE_FORMAT (expr.AppendDateFormat): dt_format writes timestamp t with
// MySQL's specifiers into dst (when not null) and returns the length.
GSQL_DEV int32_t dt_put_num(char* dst, int32_t at, int64_t v, int32_t w) {
  int32_t n = 1;
  for (int64_t x = v; x >= 10; x /= 10) n++;
  if (n < w) n = w;
  if (dst) dt_put(dst + at, v, n);
  return at + n;
}

GSQL_DEV int32_t dt_put_sv(char* dst, int32_t at, SV s) {
  if (dst) for (int32_t k = 0; k < s.n; k++) dst[at + k] = s.p[k];
  return at + s.n;
}

GSQL_DEV int32_t dt_format(SV f, int64_t t, char* dst) {
  int64_t d = dt_days(t), us = t - d * DT_US_DAY;
  int64_t y, m, day;
  dt_civil(d, &y, &m, &day);
  int64_t h = us / DT_US_HOUR, mi = us / DT_US_MIN % 60, s = us / DT_US_SEC % 60;
  int64_t h12 = (h + 11) % 12 + 1;
  int32_t o = 0;
  for (int32_t i = 0; i < f.n; i++) {
    char c = f.p[i];
    if (c != '%' || i + 1 == f.n) {
      if (dst) dst[o] = c;
      o++;
      continue;
    }
    i++;
    switch (f.p[i]) {
      case 'Y': o = dt_put_num(dst, o, y, 4); break;
      case 'y': o = dt_put_num(dst, o, y % 100, 2); break;
      case 'm': o = dt_put_num(dst, o, m, 2); break;
      case 'c': o = dt_put_num(dst, o, m, 1); break;
      case 'd': o = dt_put_num(dst, o, day, 2); break;
      case 'e': o = dt_put_num(dst, o, day, 1); break;
      case 'H': o = dt_put_num(dst, o, h, 2); break;
      case 'k': o = dt_put_num(dst, o, h, 1); break;
      case 'h': case 'I': o = dt_put_num(dst, o, h12, 2); break;
      case 'l': o = dt_put_num(dst, o, h12, 1); break;
      case 'i': o = dt_put_num(dst, o, mi, 2); break;
      case 's': case 'S': o = dt_put_num(dst, o, s, 2); break;
      case 'f': o = dt_put_num(dst, o, us % DT_US_SEC, 6); break;
      case 'p': o = dt_put_sv(dst, o, h < 12 ? sv_make("AM", 2) : sv_make("PM", 2)); break;
      case 'M': o = dt_put_sv(dst, o, dt_month_name(d)); break;
      case 'b': { SV n = dt_month_name(d); n.n = 3; o = dt_put_sv(dst, o, n); break; }
      case 'W': o = dt_put_sv(dst, o, dt_day_name(d)); break;
      case 'a': { SV n = dt_day_name(d); n.n = 3; o = dt_put_sv(dst, o, n); break; }
      case 'w': o = dt_put_num(dst, o, dt_day_of_week(d) - 1, 1); break;
      case 'j': o = dt_put_num(dst, o, dt_day_of_year(d), 3); break;
      case 'U': o = dt_put_num(dst, o, dt_week0(d), 2); break;
      case 'u': case 'v': o = dt_put_num(dst, o, dt_iso_week(d), 2); break;
      case 'D': {
        o = dt_put_num(dst, o, day, 1);
        const char* suf = "th";
        if (day / 10 != 1) {
          if (day % 10 == 1) suf = "st";
          else if (day % 10 == 2) suf = "nd";
          else if (day % 10 == 3) suf = "rd";
        }
        o = dt_put_sv(dst, o, sv_make(suf, 2));
        break;
      }
      case 'T':
        o = dt_put_num(dst, o, h, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, mi, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, s, 2);
        break;
      case 'r':
        o = dt_put_num(dst, o, h12, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, mi, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, s, 2);
        o = dt_put_sv(dst, o, h < 12 ? sv_make(" AM", 3) : sv_make(" PM", 3));
        break;
      default:
        if (dst) dst[o] = f.p[i];
        o++;
    }
  }
  return o;
}

// STR_TO_DATE (expr.ParseDateFormat): reads s with format f into a
// TIMESTAMP; false when s does not match or is not a valid date.
GSQL_DEV bool dt_num_sp(SV s, int32_t* i, int32_t max, int64_t* out) {
  while (*i < s.n && s.p[*i] == ' ') (*i)++;
  return dt_num(s, i, max, out);
}

// dt_name matches one of n names (or their first 3 letters) at s[*i],
// case-insensitively; the index, or -1.
GSQL_DEV int64_t dt_name(SV s, int32_t* i, bool months, bool abbrev) {
  for (int64_t k = 0; k < (months ? 12 : 7); k++) {
    SV nm = months ? dt_month_name(dt_days_from_civil(2001, k + 1, 1)) : dt_day_name(k + 3);
    if (abbrev) nm.n = 3;
    if (s.n - *i < nm.n) continue;
    bool eq = true;
    for (int32_t j = 0; j < nm.n && eq; j++) {
      char a = s.p[*i + j], b = nm.p[j];
      if (a >= 'A' && a <= 'Z') a += 32;
      if (b >= 'A' && b <= 'Z') b += 32;
      eq = a == b;
    }
    if (eq) {
      *i += nm.n;
      return k;
    }
  }
  return -1;
}

GSQL_DEV bool dt_str_to_date(SV s, SV f, int64_t* out) {
  int64_t y = 1970, m = 1, d = 1, h = 0, mi = 0, sec = 0, frac = 0, yday = 0;
  bool pm = false, ampm = false;
  int32_t i = 0;
  *out = 0;
  for (int32_t j = 0; j < f.n; j++) {
    if (f.p[j] != '%' || j + 1 == f.n) {
      if (f.p[j] == ' ') {
        while (i < s.n && s.p[i] == ' ') i++;
        continue;
      }
      if (i >= s.n || s.p[i] != f.p[j]) return false;
      i++;
      continue;
    }
    j++;
    bool ok = false;
    switch (f.p[j]) {
      case 'Y': ok = dt_num_sp(s, &i, 4, &y); break;
      case 'y':
        ok = dt_num_sp(s, &i, 2, &y);
        y += y < 70 ? 2000 : 1900;
        break;
      case 'm': case 'c': ok = dt_num_sp(s, &i, 2, &m); break;
      case 'd': case 'e': ok = dt_num_sp(s, &i, 2, &d); break;
      case 'H': case 'k': ok = dt_num_sp(s, &i, 2, &h); break;
      case 'h': case 'I': case 'l': ok = dt_num_sp(s, &i, 2, &h); ampm = true; break;
      case 'i': ok = dt_num_sp(s, &i, 2, &mi); break;
      case 's': case 'S': ok = dt_num_sp(s, &i, 2, &sec); break;
      case 'f': {
        while (i < s.n && s.p[i] == ' ') i++;
        int32_t start = i;
        ok = dt_num(s, &i, 6, &frac);
        for (int32_t k = i - start; k < 6; k++) frac *= 10;
        break;
      }
      case 'j': ok = dt_num_sp(s, &i, 3, &yday); break;
      case 'p':
        if (s.n - i >= 2) {
          char a = s.p[i], b = s.p[i + 1];
          if (a >= 'a' && a <= 'z') a -= 32;
          if (b >= 'a' && b <= 'z') b -= 32;
          if (a == 'A' && b == 'M') ok = true;
          if (a == 'P' && b == 'M') ok = pm = true;
          i += 2;
        }
        break;
      case 'M': m = dt_name(s, &i, true, false) + 1; ok = m > 0; break;
      case 'b': m = dt_name(s, &i, true, true) + 1; ok = m > 0; break;
      case 'W': ok = dt_name(s, &i, false, false) >= 0; break;
      case 'a': ok = dt_name(s, &i, false, true) >= 0; break;
      case '%':
        ok = i < s.n && s.p[i] == '%';
        i++;
        break;
      default: return false;
    }
    if (!ok) return false;
  }
  if (i != s.n) return false;
  if (ampm) {
    if (h < 1 || h > 12) return false;
    h %= 12;
    if (pm) h += 12;
  }
  if (h > 23 || mi > 59 || sec > 59) return false;
  int64_t z;
  if (yday > 0) {
    if (y < 1 || y > 9999 || yday > 365 + (dt_is_leap(y) ? 1 : 0)) return false;
    z = dt_days_from_civil(y, 1, 1) + yday - 1;
  } else {
    if (!dt_valid_date(y, m, d)) return false;
    z = dt_days_from_civil(y, m, d);
  }
  *out = z * DT_US_DAY + h * DT_US_HOUR + mi * DT_US_MIN + sec * DT_US_SEC + frac;
  return true;
}

// ---- warp-per-row mode: windowed string walks ----------------------------
//
// A window is 16 * GSQL_WS bytes from a 16-byte aligned address: lane l
// takes the aligned chunk at base + 16 l. Lane 0's first chunk may start
// before the string (at < 0); bytes outside [0, n) are masked or skipped.
// UTF-8 walks assume valid text and report a chunk that is not (bad); the
// caller then redoes the row with the serial code, so results match the
// CPU on any bytes.

#ifdef GSQL_WARP
#ifdef GSQL_HOST
GSQL_INL int popc32(uint32_t x) { return __builtin_popcount(x); }
GSQL_INL void store16(char* p, GU4 v) { memcpy(p, &v, 16); }
#else
GSQL_INL int popc32(uint32_t x) { return __popc(x); }
GSQL_INL void store16(char* p, GU4 v) { *(uint4*)p = v; }
#endif

// Per-warp staging for case mapping: a 32-byte slot per lane (a 16-byte
// chunk maps to at most 24 bytes: Go's case mappings grow a character by
// at most one byte, 2 -> 3), then the window's bytes compacted.
#define GSQL_STAGE (64 * GSQL_WS)
#ifdef GSQL_HOST
GSQL_ALIGN16 static char w_stage_host[GSQL_STAGE];
GSQL_INL char* w_stage() { return w_stage_host; }
#else
__shared__ GSQL_ALIGN16 char w_stage_all[GSQL_WARPS][GSQL_STAGE];
GSQL_INL char* w_stage() { return w_stage_all[threadIdx.x >> 5]; }
#endif

GSQL_DEV int32_t w_find_byte(SV s, uint8_t c, int32_t from) {
  if (from < 0) from = 0;
  if (from >= s.n) return -1;
  uint32_t cc = 0x01010101u * c;
  for (int32_t base = from - align_skew(s.p + from); base < s.n; base += 16 * GSQL_WS) {
    int32_t at = base + 16 * w_lane();
    uint32_t m = 0;
    if (at < s.n) {
      m = eq_mask16(ld16(s.p + at), cc);
      if (at < from) m &= 0xFFFFu << (from - at);
      if (s.n - at < 16) m &= (1u << (s.n - at)) - 1;
    }
    uint32_t hit = w_ballot(m != 0);
    if (hit) {
      int src = ffs32(hit) - 1;
      return base + 16 * src + ffs32((uint32_t)w_shfl((int32_t)m, src)) - 1;
    }
  }
  return -1;
}

GSQL_DEV int32_t w_rfind_byte(SV s, uint8_t c, int32_t end) {
  if (end > s.n) end = s.n;
  if (end <= 0) return -1;
  uint32_t cc = 0x01010101u * c;
  int32_t last = end - 1;
  for (int32_t base = last - align_skew(s.p + last); base > -16; base -= 16 * GSQL_WS) {
    int32_t at = base - 16 * w_lane();
    uint32_t m = 0;
    if (at > -16) {
      m = eq_mask16(ld16(s.p + at), cc);
      if (at + 15 > last) m &= 0xFFFFu >> (at + 15 - last);
      if (at < 0) m &= 0xFFFFu << (-at);
    }
    uint32_t hit = w_ballot(m != 0);
    if (hit) {
      int src = ffs32(hit) - 1;
      return base - 16 * src + hibit32((uint32_t)w_shfl((int32_t)m, src));
    }
  }
  return -1;
}

// w_sv_find is sv_find (needle.n > 1) with the lanes testing a window's
// candidates together: each lane checks the first-byte hits of its chunk.
GSQL_DEV int32_t w_sv_find(SV s, SV needle, int32_t from) {
  if (from < 0) from = 0;
  int32_t room = s.n - needle.n + 1;  // where a match can start
  if (from >= room) return -1;
  uint32_t cc = 0x01010101u * (uint8_t)needle.p[0];
  for (int32_t base = from - align_skew(s.p + from); base < room; base += 16 * GSQL_WS) {
    int32_t at = base + 16 * w_lane();
    int32_t found = 0x7fffffff;
    if (at < room) {
      uint32_t m = eq_mask16(ld16(s.p + at), cc);
      if (at < from) m &= 0xFFFFu << (from - at);
      if (room - at < 16) m &= (1u << (room - at)) - 1;
      while (m) {
        int32_t pos = at + ffs32(m) - 1;
        if (mem_eq(s.p + pos + 1, needle.p + 1, needle.n - 1)) {
          found = pos;
          break;
        }
        m &= m - 1;
      }
    }
    uint32_t hit = w_ballot(found != 0x7fffffff);
    if (hit) return w_shfl(found, ffs32(hit) - 1);
  }
  return -1;
}

// w_nominal is the width a byte announces: 1 ASCII, 0 continuation, 2-4 a
// lead byte, 5 a byte that never starts a valid sequence.
GSQL_DEV int32_t w_nominal(uint8_t b) {
  if (b < 0x80) return 1;
  if (b < 0xC0) return 0;
  if (b < 0xE0) return 2;
  if (b < 0xF0) return 3;
  if (b < 0xF8) return 4;
  return 5;
}

// w_pending is how many bytes from q on continue a character that starts
// before q, by the width its lead byte announces.
GSQL_DEV int32_t w_pending(SV s, int32_t q) {
  for (int32_t k = 1; k <= 3 && q - k >= 0; k++) {
    int32_t w = w_nominal((uint8_t)s.p[q - k]);
    if (w == 0) continue;
    return (w <= 4 && w > k) ? w - k : 0;
  }
  return 0;
}

// ascii_case4 maps the four ASCII bytes of w to upper or lower case.
GSQL_DEV uint32_t ascii_case4(uint32_t w, bool upper) {
  uint32_t lo = upper ? 0x1F1F1F1Fu : 0x3F3F3F3Fu;  // 0x80 - 'a', 0x80 - 'A'
  uint32_t hi = upper ? 0x05050505u : 0x25252525u;  // 0x80 - 'z' - 1, 0x80 - 'Z' - 1
  uint32_t in = (w + lo) & ~(w + hi) & 0x80808080u;
  return w ^ (in >> 2);
}

GSQL_INL char ascii_case1(uint8_t b, bool upper) {
  if (upper && b >= 'a' && b <= 'z') b -= 32;
  if (!upper && b >= 'A' && b <= 'Z') b += 32;
  return (char)b;
}

// w_utf8_chunk walks the characters that start in lane chunk at. MODE 0
// counts them; 1 sums their case-mapped bytes; 2 also writes those to out.
template <int MODE>
GSQL_DEV int32_t w_utf8_chunk(SV s, int32_t at, const CaseMap* m, bool upper, char* out, bool* bad) {
  int32_t q0 = at < 0 ? 0 : at, q1 = at + 16 < s.n ? at + 16 : s.n;
  if (q0 >= q1) return 0;
  if (at >= 0 && at + 16 <= s.n) {
    GU4 v = ld16(s.p + at);
    if (!((v.x | v.y | v.z | v.w) & 0x80808080u)) {
      if (MODE == 2) {
        v.x = ascii_case4(v.x, upper);
        v.y = ascii_case4(v.y, upper);
        v.z = ascii_case4(v.z, upper);
        v.w = ascii_case4(v.w, upper);
        store16(out, v);
      }
      return 16;
    }
  }
  int32_t pend = q0 > 0 ? w_pending(s, q0) : 0;
  int32_t cnt = 0;
  for (int32_t q = q0; q < q1; q++) {
    uint8_t b = (uint8_t)s.p[q];
    if (pend > 0) {
      pend--;
      continue;
    }
    if (b < 0x80) {
      if (MODE == 2) out[cnt] = ascii_case1(b, upper);
      cnt++;
      continue;
    }
    int32_t w = char_width(s.p, q, s.n);
    if (w < 2 || w != w_nominal(b)) {
      *bad = true;
      return cnt;
    }
    if (MODE == 0) {
      cnt++;
    } else {
      int32_t r = map_rune(*m, decode(s.p, q, w));
      if (MODE == 2) encode(r, out + cnt);
      cnt += encode_len(r);
    }
    pend = w - 1;
  }
  return cnt;
}

GSQL_DEV int64_t w_char_len(SV s) {
  bool bad = false;
  int32_t cnt = 0;
  for (int32_t base = -align_skew(s.p); base < s.n; base += 16 * GSQL_WS)
    cnt += w_utf8_chunk<0>(s, base + 16 * w_lane(), (const CaseMap*)0, false, (char*)0, &bad);
  if (w_ballot(bad)) return char_len_serial(s);
  return w_sum(cnt);
}

GSQL_DEV int32_t w_casemap_size(SV s, const CaseMap& m) {
  bool bad = false;
  int32_t cnt = 0;
  for (int32_t base = -align_skew(s.p); base < s.n; base += 16 * GSQL_WS)
    cnt += w_utf8_chunk<1>(s, base + 16 * w_lane(), &m, false, (char*)0, &bad);
  if (w_ballot(bad)) return casemap_size_serial(s, m);
  return w_sum(cnt);
}

// w_casemap_write maps a window into the lanes' slots, compacts the slots
// in the staging area and stores the window with consecutive lanes on
// consecutive bytes.
GSQL_DEV void w_casemap_write(SV s, const CaseMap& m, bool upper, char* dst) {
  char* slots = w_stage();
  char* comp = slots + 32 * GSQL_WS;
  int lane = w_lane();
  int32_t wo = 0;
  for (int32_t base = -align_skew(s.p); base < s.n; base += 16 * GSQL_WS) {
    bool bad = false;
    char* slot = slots + 32 * lane;
    int32_t cnt = w_utf8_chunk<2>(s, base + 16 * lane, &m, upper, slot, &bad);
    if (w_ballot(bad)) {
      w_sync();
      if (lane == 0) casemap_write_serial(s, m, upper, dst);
      w_sync();
      return;
    }
    int32_t tot, o = w_scan_excl(cnt, &tot);
    for (int32_t k = 0; k < cnt; k++) comp[o + k] = slot[k];
    w_sync();
    for (int32_t z = lane; z < tot; z += GSQL_WS) dst[wo + z] = comp[z];
    w_sync();
    wo += tot;
  }
}

// w_replace1_chunk is the output size of lane chunk at under REPLACE of
// byte c by to; with dst, it also writes it there.
GSQL_DEV int32_t w_replace1_chunk(SV s, int32_t at, uint8_t c, SV to, char* dst) {
  int32_t q0 = at < 0 ? 0 : at, q1 = at + 16 < s.n ? at + 16 : s.n;
  if (q0 >= q1) return 0;
  uint32_t keep = (0xFFFFu >> (16 - (q1 - at))) & (0xFFFFu << (q0 - at));
  uint32_t m = eq_mask16(ld16(s.p + at), 0x01010101u * c) & keep;
  if (dst) {
    if (!m) {
      for (int32_t q = q0; q < q1; q++) *dst++ = s.p[q];
    } else {
      for (int32_t q = q0; q < q1; q++) {
        if ((m >> (q - at)) & 1) {
          for (int32_t k = 0; k < to.n; k++) *dst++ = to.p[k];
        } else {
          *dst++ = s.p[q];
        }
      }
    }
  }
  return (q1 - q0) + popc32(m) * (to.n - 1);
}

GSQL_DEV int32_t w_replace1_size(SV s, uint8_t c, SV to) {
  int32_t cnt = 0;
  for (int32_t base = -align_skew(s.p); base < s.n; base += 16 * GSQL_WS)
    cnt += w_replace1_chunk(s, base + 16 * w_lane(), c, to, (char*)0);
  return w_sum(cnt);
}

GSQL_DEV void w_replace1_write(SV s, uint8_t c, SV to, char* dst) {
  int32_t wo = 0;
  for (int32_t base = -align_skew(s.p); base < s.n; base += 16 * GSQL_WS) {
    int32_t at = base + 16 * w_lane();
    int32_t cnt = w_replace1_chunk(s, at, c, to, (char*)0);
    int32_t tot, o = w_scan_excl(cnt, &tot);
    w_replace1_chunk(s, at, c, to, dst + wo + o);
    wo += tot;
  }
  w_sync();
}
#endif

// ==== regular expressions, digests and encodings (issue 18) ===============
//
// Everything of the REGEXP family, HEX/UNHEX, TO_BASE64/FROM_BASE64 and
// MD5/SHA1/SHA2 lives in this section (generated by regex.go and
// encodecalls.go).
//
// The regex engine is a Pike VM (Go's regexp/exec.go machine) over a
// program compiled on the host by regexp/syntax and passed as a string
// parameter (regex.go documents the layout), so one compiled kernel serves
// every pattern of a size class. MAXI bounds the program's instructions
// (and so the threads of a list), NCAP the capture slots tracked per
// thread (0: only whether there is a match). Results are Go's leftmost-
// first matches exactly: the same thread order, the same empty-width
// context, the same treatment of invalid UTF-8 (U+FFFD, one byte).

// The VM's two functions stay out of line on the device: their thread
// lists then take one stack frame per thread however many REGEXP calls a
// kernel makes (inlined, every call site would reserve its own).
#if defined(GSQL_HOST)
#define GSQL_RE_FN static inline
#define GSQL_RE_MEMBER inline
#elif defined(GSQL_INTERP_SPLIT)
#define GSQL_RE_FN static __device__ __noinline__
#define GSQL_RE_MEMBER __device__ __noinline__
#else
#define GSQL_RE_FN __device__ __noinline__
#define GSQL_RE_MEMBER __device__ __noinline__
#endif

#define GSQL_ERR_REGEXP 16
#define GSQL_ERR_REGEXP_FLAG 17
#define GSQL_ERR_REGEXP_POS 18

#define GSQL_RE_FAIL 0
#define GSQL_RE_ALT 1
#define GSQL_RE_CAP 2
#define GSQL_RE_EMPTY 3
#define GSQL_RE_NOP 4
#define GSQL_RE_MATCH 5
#define GSQL_RE_RUNE 6
#define GSQL_RE_RUNE1 7
#define GSQL_RE_ANY 8
#define GSQL_RE_ANYNOTNL 9
#define GSQL_RE_HDR 8

// Empty-width flags, as regexp/syntax.EmptyOp.
#define GSQL_RE_BOL 1
#define GSQL_RE_EOL 2
#define GSQL_RE_BOT 4
#define GSQL_RE_EOT 8
#define GSQL_RE_WB 16
#define GSQL_RE_NWB 32

// re_rune decodes the character at s[i] as utf8.DecodeRuneInString does
// (U+FFFD for an invalid byte); -1 at the end.
GSQL_INL int32_t re_rune(SV s, int32_t i, int32_t* w) {
  if (i >= s.n) {
    *w = 0;
    return -1;
  }
  uint8_t b = (uint8_t)s.p[i];
  if (b < 0x80) {
    *w = 1;
    return b;
  }
  int32_t n = char_width(s.p, i, s.n);
  *w = n;
  if (n == 1) return 0xFFFD;
  return decode(s.p, i, n);
}

GSQL_INL bool re_word(int32_t r) {
  return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_';
}

// re_context is syntax.EmptyOpContext(r1, r2).
GSQL_INL int32_t re_context(int32_t r1, int32_t r2) {
  int32_t op = GSQL_RE_NWB;
  int32_t boundary = 0;
  if (re_word(r1)) boundary = 1;
  else if (r1 == '\n') op |= GSQL_RE_BOL;
  else if (r1 < 0) op |= GSQL_RE_BOT | GSQL_RE_BOL;
  if (re_word(r2)) boundary ^= 1;
  else if (r2 == '\n') op |= GSQL_RE_EOL;
  else if (r2 < 0) op |= GSQL_RE_EOT | GSQL_RE_EOL;
  if (boundary) op ^= (GSQL_RE_WB | GSQL_RE_NWB);
  return op;
}

// re_class reports whether r lies in one of the n sorted ranges at rg.
GSQL_INL bool re_class(const int32_t* rg, int32_t n, int32_t r) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t m = (lo + hi) >> 1;
    if (r < rg[2 * m]) hi = m;
    else if (r > rg[2 * m + 1]) lo = m + 1;
    else return true;
  }
  return false;
}

// ReList is one thread list: the threads (program counter and capture
// slots) in priority order, and the instructions already visited.
template <int MAXI, int NCAP>
struct ReList {
  uint32_t seen[(MAXI + 31) / 32];
  int32_t n;
  int32_t pc[MAXI];
  int32_t cap[NCAP > 0 ? MAXI * NCAP : 1];
};

template <int MAXI, int NCAP>
GSQL_INL void re_clear(ReList<MAXI, NCAP>& q) {
  q.n = 0;
  for (int32_t k = 0; k < (MAXI + 31) / 32; k++) q.seen[k] = 0;
}

// re_add follows the empty transitions from pc as machine.add does (depth
// first, the preferred branch first), adding a thread for every
// instruction that consumes a character or matches. wc holds the capture
// slots of the path; captures are undone when their branch is done.
template <int MAXI, int NCAP>
GSQL_RE_FN void re_add(const int32_t* P, ReList<MAXI, NCAP>& q, int32_t pc0, int32_t pos, int32_t* wc, int32_t flag) {
  int32_t sx[MAXI + 2], sy[MAXI + 2];
  int32_t sp = 0;
  sx[sp] = pc0;
  sy[sp++] = 0;
  while (sp > 0) {
    sp--;
    int32_t pc = sx[sp];
    if (pc < 0) {
      wc[-pc - 1] = sy[sp];
      continue;
    }
    for (;;) {
      if (pc == 0) break;
      uint32_t bit = 1u << (pc & 31);
      if (q.seen[pc >> 5] & bit) break;
      q.seen[pc >> 5] |= bit;
      const int32_t* in = P + GSQL_RE_HDR + 4 * pc;
      int32_t op = in[0];
      if (op == GSQL_RE_ALT) {
        sx[sp] = in[2];
        sy[sp++] = 0;
        pc = in[1];
        continue;
      }
      if (op == GSQL_RE_EMPTY) {
        if ((flag & in[2]) != in[2]) break;
        pc = in[1];
        continue;
      }
      if (op == GSQL_RE_NOP) {
        pc = in[1];
        continue;
      }
      if (op == GSQL_RE_CAP) {
        if (NCAP > 0 && in[2] < NCAP) {
          sx[sp] = -in[2] - 1;
          sy[sp++] = wc[in[2]];
          wc[in[2]] = pos;
        }
        pc = in[1];
        continue;
      }
      if (op != GSQL_RE_FAIL) {
        int32_t t = q.n++;
        q.pc[t] = pc;
        for (int32_t k = 0; k < NCAP; k++) q.cap[t * (NCAP > 0 ? NCAP : 1) + k] = wc[k];
      }
      break;
    }
  }
}

// re_exec is machine.match: the leftmost-first match of program P in s
// starting the search at byte pos (the text before pos is context only).
// On a match, m receives the NCAP capture slots.
template <int MAXI, int NCAP>
GSQL_RE_FN bool re_exec(const int32_t* P, SV s, int32_t pos, int32_t* m) {
  ReList<MAXI, NCAP> qa, qb;
  ReList<MAXI, NCAP>* runq = &qa;
  ReList<MAXI, NCAP>* nextq = &qb;
  re_clear(qa);
  re_clear(qb);
  int32_t start = P[2];
  bool anchored = P[4] != 0;
  bool matched = false;
  int32_t wc[NCAP > 0 ? NCAP : 1];
  for (int32_t k = 0; k < NCAP; k++) m[k] = -1;
  int32_t w, w1 = 0;
  int32_t r = re_rune(s, pos, &w), r1 = -1;
  if (r != -1) r1 = re_rune(s, pos + w, &w1);
  int32_t flag;
  if (pos == 0) {
    flag = re_context(-1, r);
  } else {
    uint8_t b = (uint8_t)s.p[pos - 1];
    flag = re_context(b < 0x80 ? (int32_t)b : 0xFFFD, r);
  }
  for (;;) {
    if (runq->n == 0) {
      if (anchored && pos != 0) break;
      if (matched) break;
    }
    if (!matched && (pos == 0 || !anchored)) {
      for (int32_t k = 0; k < NCAP; k++) wc[k] = -1;
      if (NCAP > 0) wc[0] = pos;
      re_add<MAXI, NCAP>(P, *runq, start, pos, wc, flag);
    }
    flag = re_context(r, r1);
    // step: advance every thread over r, in priority order.
    int32_t next = pos + w;
    for (int32_t j = 0; j < runq->n; j++) {
      int32_t pc = runq->pc[j];
      const int32_t* in = P + GSQL_RE_HDR + 4 * pc;
      int32_t* tc = runq->cap + j * (NCAP > 0 ? NCAP : 1);
      bool add = false;
      switch (in[0]) {
        case GSQL_RE_MATCH:
          if (NCAP > 0) {
            tc[1] = pos;
            for (int32_t k = 0; k < NCAP; k++) m[k] = tc[k];
          }
          matched = true;
          j = runq->n;  // cut the threads of lower priority
          break;
        case GSQL_RE_RUNE:
          add = r >= 0 && re_class(P + in[2], in[3], r);
          break;
        case GSQL_RE_RUNE1:
          add = r == in[2];
          break;
        case GSQL_RE_ANY:
          add = true;
          break;
        case GSQL_RE_ANYNOTNL:
          add = r != '\n';
          break;
      }
      if (add) {
        for (int32_t k = 0; k < NCAP; k++) wc[k] = tc[k];
        re_add<MAXI, NCAP>(P, *nextq, in[1], next, wc, flag);
      }
    }
    re_clear(*runq);
    if (w == 0) break;
    if (NCAP == 0 && matched) break;
    pos = next;
    r = r1;
    w = w1;
    if (r != -1) r1 = re_rune(s, pos + w, &w1);
    else r1 = -1;
    ReList<MAXI, NCAP>* t = runq;
    runq = nextq;
    nextq = t;
  }
  return matched;
}

// re_context_at is the empty-width context at byte pos of s. Only ASCII
// word characters and '\n' tell contexts apart, so the bytes either side
// stand for their characters.
GSQL_INL int32_t re_context_at(SV s, int32_t pos) {
  int32_t r1 = -1, r2 = -1;
  if (pos > 0) {
    uint8_t b = (uint8_t)s.p[pos - 1];
    r1 = b < 0x80 ? (int32_t)b : 0xFFFD;
  }
  if (pos < s.n) {
    uint8_t b = (uint8_t)s.p[pos];
    r2 = b < 0x80 ? (int32_t)b : 0xFFFD;
  }
  return re_context(r1, r2);
}

// re_backtrack is the bounded backtracker of Go's regexp/backtrack.go
// without its visited set: the threads' alternatives are explored depth
// first in priority order, so the first MATCH reached is the leftmost-
// first match the Pike VM finds. Most patterns of SQL workloads (anchored
// URL parsing, literal searches) then run once over the text with no
// thread lists, where the VM copies capture slots at every character.
// Without the visited set the search can revisit states, so it runs under
// a step budget linear in the text and a fixed stack: 1 match (m gets
// the slots), 0 none, -1 out of budget or stack (the caller runs the VM).
#define GSQL_RE_BT_STACK 192

template <int NCAP>
GSQL_RE_FN int32_t re_backtrack(const int32_t* P, SV s, int32_t pos0, int32_t* m) {
  int32_t spc[GSQL_RE_BT_STACK], spos[GSQL_RE_BT_STACK];
  int32_t cap[NCAP > 0 ? NCAP : 1];
  bool anchored = P[4] != 0;
  if (anchored && pos0 != 0) return 0;
  int32_t rest = s.n - pos0;
  int32_t budget = rest < (1 << 26) ? 16 * (rest + 1) + 256 : 0x7fffffff;
  for (int32_t start = pos0; start <= s.n;) {
    for (int32_t k = 0; k < NCAP; k++) cap[k] = -1;
    if (NCAP > 0) cap[0] = start;
    int32_t sp = 0;
    spc[sp] = P[2];
    spos[sp++] = start;
    while (sp > 0) {
      sp--;
      int32_t pc = spc[sp], pos = spos[sp];
      if (pc < 0) {
        cap[-pc - 1] = pos;
        continue;
      }
      for (;;) {
        if (--budget < 0) return -1;
        const int32_t* in = P + GSQL_RE_HDR + 4 * pc;
        int32_t op = in[0];
        if (op == GSQL_RE_FAIL) break;
        if (op == GSQL_RE_ALT) {
          if (sp == GSQL_RE_BT_STACK) return -1;
          spc[sp] = in[2];
          spos[sp++] = pos;
          pc = in[1];
          continue;
        }
        if (op == GSQL_RE_NOP) {
          pc = in[1];
          continue;
        }
        if (op == GSQL_RE_CAP) {
          if (NCAP > 0 && in[2] < NCAP) {
            if (sp == GSQL_RE_BT_STACK) return -1;
            spc[sp] = -in[2] - 1;
            spos[sp++] = cap[in[2]];
            cap[in[2]] = pos;
          }
          pc = in[1];
          continue;
        }
        if (op == GSQL_RE_EMPTY) {
          if ((re_context_at(s, pos) & in[2]) != in[2]) break;
          pc = in[1];
          continue;
        }
        if (op == GSQL_RE_MATCH) {
          if (NCAP > 0) {
            cap[1] = pos;
            for (int32_t k = 0; k < NCAP; k++) m[k] = cap[k];
          }
          return 1;
        }
        int32_t w;
        int32_t r = re_rune(s, pos, &w);
        if (r < 0) break;
        bool ok;
        if (op == GSQL_RE_RUNE1) ok = r == in[2];
        else if (op == GSQL_RE_RUNE) ok = re_class(P + in[2], in[3], r);
        else if (op == GSQL_RE_ANY) ok = true;
        else ok = r != '\n';
        if (!ok) break;
        pos += w;
        pc = in[1];
      }
    }
    if (anchored || start == s.n) break;
    int32_t w;
    re_rune(s, start, &w);
    start += w;
  }
  return 0;
}

// ReGeneric is the backtracker over any program. A fused kernel's
// literal pattern gets a matcher generated for it instead (regexgen.go):
// the same search with the program's instructions unrolled into code.
struct ReGeneric {
  template <int NCAP>
  static GSQL_RE_MEMBER int32_t run(const int32_t* P, SV s, int32_t pos, int32_t* m) {
    return re_backtrack<NCAP>(P, s, pos, m);
  }
};

// re_match is the leftmost-first match of P in s from byte pos: the
// backtracker M, or the Pike VM where the backtracker gives up.
template <int MAXI, int NCAP, typename M>
GSQL_DEV bool re_match(const int32_t* P, SV s, int32_t pos, int32_t* m) {
  int32_t r = M::template run<NCAP>(P, s, pos, m);
  if (r >= 0) {
    if (r == 0)
      for (int32_t k = 0; k < NCAP; k++) m[k] = -1;
    return r != 0;
  }
  return re_exec<MAXI, NCAP>(P, s, pos, m);
}

// re_status is the program's error (0: none), as a kernel error code.
GSQL_INL int32_t re_status(SV prog) {
  const int32_t* P = (const int32_t*)prog.p;
  if (P[0] == 1) return GSQL_ERR_REGEXP;
  if (P[0] == 2) return GSQL_ERR_REGEXP_FLAG;
  return 0;
}

template <int MAXI, typename M = ReGeneric>
GSQL_DEV bool re_like(SV s, SV prog) {
  const int32_t* P = (const int32_t*)prog.p;
  if (P[0] != 0) return false;
  int32_t m[1];
  return re_match<MAXI, 0, M>(P, s, 0, m);
}

// re_from is the byte offset of 1-based character position pos (s.n past
// the end); pos < 1 is an error.
GSQL_INL int32_t re_from(SV s, int64_t pos, bool null, int32_t& err) {
  if (pos < 1) {
    if (!null && err == 0) err = GSQL_ERR_REGEXP_POS;
    return 0;
  }
  return char_offset(s, pos - 1);
}

// re_nth finds the occurrence-th match of allMatches (FindAll's successive
// non-overlapping matches, an empty match right after a match skipped) in
// t; m gets its capture slots relative to t.
template <int MAXI, int NCAP, typename M = ReGeneric>
GSQL_DEV bool re_nth(const int32_t* P, SV t, int64_t occurrence, int32_t* m) {
  if (occurrence < 1) occurrence = 1;
  if (occurrence > (1 << 20)) return false;  // FindAll's limit on the CPU
  int32_t pos = 0, prev = -1;
  int64_t i = 0;
  while (pos <= t.n) {
    if (!re_match<MAXI, NCAP, M>(P, t, pos, m)) return false;
    bool accept = true;
    if (m[1] == pos) {
      if (m[0] == prev) accept = false;
      int32_t w;
      re_rune(t, pos, &w);
      pos = w > 0 ? pos + w : t.n + 1;
    } else {
      pos = m[1];
    }
    prev = m[1];
    if (accept && ++i == occurrence) return true;
  }
  return false;
}

// re_find is the match of REGEXP_SUBSTR/REGEXP_INSTR: byte offsets in s
// (start < 0: none).
template <int MAXI, typename M = ReGeneric>
GSQL_DEV void re_find(SV s, SV prog, int64_t pos, int64_t occurrence, bool null, int32_t& err, int32_t* start, int32_t* end) {
  const int32_t* P = (const int32_t*)prog.p;
  *start = -1;
  *end = -1;
  if (null) return;
  int32_t st = re_status(prog);
  if (st != 0) {
    if (err == 0) err = st;
    return;
  }
  int32_t from = re_from(s, pos, null, err);
  if (pos < 1) return;
  SV t = sv_make(s.p + from, s.n - from);
  int32_t m[2];
  if (re_nth<MAXI, 2, M>(P, t, occurrence, m)) {
    *start = from + m[0];
    *end = from + m[1];
  }
}

// re_expand appends the replacement template for match m of t (capture
// slots relative to t) to dst (0: only counted); returns its size.
GSQL_DEV int32_t re_expand(const int32_t* P, SV t, const int32_t* m, int32_t ncap, char* dst) {
  int32_t n = 0;
  const int32_t* pc = P + P[5];
  for (int32_t k = 0; k < P[6]; k++) {
    int32_t g = pc[3 * k], off = pc[3 * k + 1], len = pc[3 * k + 2];
    const char* src;
    if (g < 0) {
      src = (const char*)P + off;
    } else {
      if (2 * g + 1 >= ncap || m[2 * g] < 0) continue;
      src = t.p + m[2 * g];
      len = m[2 * g + 1] - m[2 * g];
    }
    if (dst) copy_bytes(dst + n, src, len);
    n += len;
  }
  return n;
}

// re_replace is REGEXP_REPLACE: s with the matches from byte from on
// replaced (occurrence <= 0: all of them, as ReplaceAllString; else the
// occurrence-th). dst 0 only counts; returns the size.
template <int MAXI, int NCAP, typename M = ReGeneric>
GSQL_DEV int32_t re_replace(SV s, SV prog, int64_t pos, int64_t occurrence, char* dst) {
  const int32_t* P = (const int32_t*)prog.p;
  if (P[0] != 0 || pos < 1) return 0;
  int32_t from = char_offset(s, pos - 1);
  int32_t n = from;
  if (dst) copy_bytes(dst, s.p, from);
  SV t = sv_make(s.p + from, s.n - from);
  int32_t m[NCAP > 0 ? NCAP : 2];
  if (occurrence > 0) {
    if (!re_nth<MAXI, NCAP, M>(P, t, occurrence, m)) {
      if (dst) copy_bytes(dst + n, t.p, t.n);
      return n + t.n;
    }
    if (dst) copy_bytes(dst + n, t.p, m[0]);
    n += m[0];
    n += re_expand(P, t, m, NCAP, dst ? dst + n : (char*)0);
    if (dst) copy_bytes(dst + n, t.p + m[1], t.n - m[1]);
    return n + t.n - m[1];
  }
  // ReplaceAllString's loop.
  int32_t last = 0, search = 0;
  while (search <= t.n) {
    if (!re_match<MAXI, NCAP, M>(P, t, search, m)) break;
    if (dst) copy_bytes(dst + n, t.p + last, m[0] - last);
    n += m[0] - last;
    if (m[1] > last || m[0] == 0) n += re_expand(P, t, m, NCAP, dst ? dst + n : (char*)0);
    last = m[1];
    int32_t w;
    re_rune(t, search, &w);
    if (search + w > m[1]) search += w;
    else if (search + 1 > m[1]) search++;
    else search = m[1];
  }
  if (dst) copy_bytes(dst + n, t.p + last, t.n - last);
  return n + t.n - last;
}

// re_rune_count is utf8.RuneCountInString of s[:end].
GSQL_INL int64_t re_rune_count(SV s, int32_t end) { return char_len_serial(sv_make(s.p, end)); }

// ---- HEX, UNHEX, TO_BASE64, FROM_BASE64 ----

GSQL_INL char hex_digit(uint32_t v, bool upper) { return (char)(v < 10 ? '0' + v : (upper ? 'A' : 'a') + v - 10); }

GSQL_DEV void hex_write(SV s, char* dst) {
  for (int32_t i = 0; i < s.n; i++) {
    uint8_t b = (uint8_t)s.p[i];
    dst[2 * i] = hex_digit(b >> 4, true);
    dst[2 * i + 1] = hex_digit(b & 15, true);
  }
}

GSQL_INL int32_t hex_int_len(int64_t x) {
  uint64_t u = (uint64_t)x;
  int32_t n = 1;
  while (u >= 16) {
    u >>= 4;
    n++;
  }
  return n;
}

GSQL_DEV void hex_int_write(int64_t x, char* dst) {
  uint64_t u = (uint64_t)x;
  int32_t n = hex_int_len(x);
  for (int32_t k = n - 1; k >= 0; k--) {
    dst[k] = hex_digit((uint32_t)(u & 15), true);
    u >>= 4;
  }
}

GSQL_INL int32_t unhex_val(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// unhex_size is hex.DecodeString's output size, -1 when it fails.
GSQL_DEV int32_t unhex_size(SV s) {
  if (s.n & 1) {
    // DecodeString reports a bad character before the odd length.
    return -1;
  }
  for (int32_t i = 0; i < s.n; i++)
    if (unhex_val((uint8_t)s.p[i]) < 0) return -1;
  return s.n / 2;
}

GSQL_DEV void unhex_write(SV s, char* dst) {
  for (int32_t i = 0; i + 1 < s.n; i += 2)
    dst[i / 2] = (char)((unhex_val((uint8_t)s.p[i]) << 4) | unhex_val((uint8_t)s.p[i + 1]));
}

GSQL_INL int32_t b64_size(SV s) { return (int32_t)(((int64_t)s.n + 2) / 3 * 4); }

GSQL_INL char b64_char(uint32_t v) {
  if (v < 26) return (char)('A' + v);
  if (v < 52) return (char)('a' + v - 26);
  if (v < 62) return (char)('0' + v - 52);
  return v == 62 ? '+' : '/';
}

GSQL_DEV void b64_write(SV s, char* dst) {
  int32_t i = 0, o = 0;
  for (; i + 3 <= s.n; i += 3) {
    uint32_t v = ((uint32_t)(uint8_t)s.p[i] << 16) | ((uint32_t)(uint8_t)s.p[i + 1] << 8) | (uint8_t)s.p[i + 2];
    dst[o++] = b64_char(v >> 18);
    dst[o++] = b64_char((v >> 12) & 63);
    dst[o++] = b64_char((v >> 6) & 63);
    dst[o++] = b64_char(v & 63);
  }
  int32_t rem = s.n - i;
  if (rem > 0) {
    uint32_t v = (uint32_t)(uint8_t)s.p[i] << 16;
    if (rem == 2) v |= (uint32_t)(uint8_t)s.p[i + 1] << 8;
    dst[o++] = b64_char(v >> 18);
    dst[o++] = b64_char((v >> 12) & 63);
    dst[o++] = rem == 2 ? b64_char((v >> 6) & 63) : '=';
    dst[o++] = '=';
  }
}

GSQL_INL int32_t b64_val(uint8_t c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// unb64 decodes as base64.StdEncoding.DecodeString (padding required,
// CR and LF ignored); returns the size, -1 for input it rejects. dst 0
// only counts.
GSQL_DEV int32_t unb64(SV s, char* dst) {
  int32_t si = 0, o = 0;
  for (;;) {
    int32_t d[4] = {0, 0, 0, 0};
    int32_t dlen = 4;
    bool done = false;
    for (int32_t j = 0; j < 4; j++) {
      if (si == s.n) {
        if (j == 0) return o;
        return -1;  // an unfinished quantum (padding is required)
      }
      uint8_t in = (uint8_t)s.p[si++];
      int32_t v = b64_val(in);
      if (v >= 0) {
        d[j] = v;
        continue;
      }
      if (in == '\n' || in == '\r') {
        j--;
        continue;
      }
      if (in != '=') return -1;
      if (j < 2) return -1;
      if (j == 2) {
        while (si < s.n && (s.p[si] == '\n' || s.p[si] == '\r')) si++;
        if (si == s.n || s.p[si] != '=') return -1;
        si++;
      }
      while (si < s.n && (s.p[si] == '\n' || s.p[si] == '\r')) si++;
      if (si < s.n) return -1;  // trailing garbage
      dlen = j;
      done = true;
      break;
    }
    uint32_t v = ((uint32_t)d[0] << 18) | ((uint32_t)d[1] << 12) | ((uint32_t)d[2] << 6) | (uint32_t)d[3];
    if (dst) {
      if (dlen >= 2) dst[o] = (char)(v >> 16);
      if (dlen >= 3) dst[o + 1] = (char)(v >> 8);
      if (dlen >= 4) dst[o + 2] = (char)v;
    }
    o += dlen - 1;
    if (done) return o;
  }
}

// ---- MD5, SHA-1, SHA-2 (lower-case hex digests) ----

// The round constants live in constant memory on the device (every thread
// of a warp reads the same one at a time).
#ifdef GSQL_HOST
#define GSQL_CTABLE static const
#else
#define GSQL_CTABLE static __constant__ const
#endif

GSQL_CTABLE uint32_t md5_k[64] = {
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
  0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
  0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
  0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
  0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
  0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
  0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
  0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

GSQL_CTABLE int32_t md5_r[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};

GSQL_CTABLE uint32_t sha256_k[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

GSQL_CTABLE uint64_t sha512_k[80] = {
  0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL,
  0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL, 0x12835b0145706fbeULL,
  0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL, 0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
  0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
  0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL, 0x983e5152ee66dfabULL,
  0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
  0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL,
  0x53380d139d95b3dfULL, 0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
  0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
  0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL, 0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL,
  0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL,
  0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
  0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL, 0xca273eceea26619cULL,
  0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL,
  0x113f9804bef90daeULL, 0x1b710b35131c471bULL, 0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
  0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};

GSQL_INL uint32_t rotl32(uint32_t x, int32_t n) { return (x << n) | (x >> (32 - n)); }
GSQL_INL uint32_t rotr32(uint32_t x, int32_t n) { return (x >> n) | (x << (32 - n)); }
GSQL_INL uint64_t rotr64(uint64_t x, int32_t n) { return (x >> n) | (x << (64 - n)); }

// dg_block fills the 64- or 128-byte block k of s's padded message
// (big-endian length unless little: MD5).
GSQL_DEV void dg_block(SV s, int64_t k, int32_t bs, bool little, uint8_t* blk) {
  int64_t base = k * bs;
  uint64_t bits = (uint64_t)s.n * 8;
  for (int32_t i = 0; i < bs; i++) {
    int64_t at = base + i;
    uint8_t b = 0;
    if (at < s.n) b = (uint8_t)s.p[at];
    else if (at == s.n) b = 0x80;
    blk[i] = b;
  }
  int64_t nblocks = ((int64_t)s.n + 1 + (bs == 64 ? 8 : 16) + bs - 1) / bs;
  if (k == nblocks - 1) {
    for (int32_t i = 0; i < 8; i++) {
      uint8_t b = (uint8_t)(bits >> (8 * i));
      if (little) blk[bs - 8 + i] = b;
      else blk[bs - 1 - i] = b;
    }
  }
}

GSQL_INL int64_t dg_blocks(SV s, int32_t bs) { return ((int64_t)s.n + 1 + (bs == 64 ? 8 : 16) + bs - 1) / bs; }

GSQL_DEV void dg_hex(const uint8_t* d, int32_t n, char* dst) {
  for (int32_t i = 0; i < n; i++) {
    dst[2 * i] = hex_digit(d[i] >> 4, false);
    dst[2 * i + 1] = hex_digit(d[i] & 15, false);
  }
}

GSQL_RE_FN void md5_write(SV s, char* dst) {
  uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  uint8_t blk[64];
  int64_t nb = dg_blocks(s, 64);
  for (int64_t k = 0; k < nb; k++) {
    dg_block(s, k, 64, true, blk);
    uint32_t x[16];
    for (int32_t i = 0; i < 16; i++)
      x[i] = (uint32_t)blk[4 * i] | ((uint32_t)blk[4 * i + 1] << 8) | ((uint32_t)blk[4 * i + 2] << 16) | ((uint32_t)blk[4 * i + 3] << 24);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int32_t i = 0; i < 64; i++) {
      uint32_t f;
      int32_t g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      uint32_t t = d;
      d = c;
      c = b;
      b = b + rotl32(a + f + md5_k[i] + x[g], md5_r[(i >> 4) * 4 + (i & 3)]);
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
  }
  uint8_t out[16];
  for (int32_t i = 0; i < 4; i++)
    for (int32_t j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (8 * j));
  dg_hex(out, 16, dst);
}

GSQL_RE_FN void sha1_write(SV s, char* dst) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  uint8_t blk[64];
  int64_t nb = dg_blocks(s, 64);
  for (int64_t k = 0; k < nb; k++) {
    dg_block(s, k, 64, false, blk);
    uint32_t w[80];
    for (int32_t i = 0; i < 16; i++)
      w[i] = ((uint32_t)blk[4 * i] << 24) | ((uint32_t)blk[4 * i + 1] << 16) | ((uint32_t)blk[4 * i + 2] << 8) | blk[4 * i + 3];
    for (int32_t i = 16; i < 80; i++) w[i] = rotl32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int32_t i = 0; i < 80; i++) {
      uint32_t f, kk;
      if (i < 20) {
        f = (b & c) | (~b & d);
        kk = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        kk = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        kk = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        kk = 0xCA62C1D6;
      }
      uint32_t t = rotl32(a, 5) + f + e + kk + w[i];
      e = d;
      d = c;
      c = rotl32(b, 30);
      b = a;
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  uint8_t out[20];
  for (int32_t i = 0; i < 5; i++)
    for (int32_t j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
  dg_hex(out, 20, dst);
}

// sha256_write is SHA-256 (SHA-224 when small: other initial values, the
// digest cut to 28 bytes).
GSQL_RE_FN void sha256_write(SV s, bool small, char* dst) {
  uint32_t h[8];
  if (small) {
    const uint32_t h0[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  } else {
    const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  }
  uint8_t blk[64];
  int64_t nb = dg_blocks(s, 64);
  for (int64_t k = 0; k < nb; k++) {
    dg_block(s, k, 64, false, blk);
    uint32_t w[64];
    for (int32_t i = 0; i < 16; i++)
      w[i] = ((uint32_t)blk[4 * i] << 24) | ((uint32_t)blk[4 * i + 1] << 16) | ((uint32_t)blk[4 * i + 2] << 8) | blk[4 * i + 3];
    for (int32_t i = 16; i < 64; i++) {
      uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int32_t i = 0; i < 64; i++) {
      uint32_t S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = hh + S1 + ch + sha256_k[i] + w[i];
      uint32_t S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
      uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = S0 + mj;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  uint8_t out[32];
  for (int32_t i = 0; i < 8; i++)
    for (int32_t j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
  dg_hex(out, small ? 28 : 32, dst);
}

// sha512_write is SHA-512 (SHA-384 when small).
GSQL_RE_FN void sha512_write(SV s, bool small, char* dst) {
  uint64_t h[8];
  if (small) {
    const uint64_t h0[8] = {0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL, 0x152fecd8f70e5939ULL,
                            0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL, 0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  } else {
    const uint64_t h0[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                            0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  }
  uint8_t blk[128];
  int64_t nb = dg_blocks(s, 128);
  for (int64_t k = 0; k < nb; k++) {
    dg_block(s, k, 128, false, blk);
    uint64_t w[80];
    for (int32_t i = 0; i < 16; i++) {
      uint64_t x = 0;
      for (int32_t j = 0; j < 8; j++) x = (x << 8) | blk[8 * i + j];
      w[i] = x;
    }
    for (int32_t i = 16; i < 80; i++) {
      uint64_t s0 = rotr64(w[i - 15], 1) ^ rotr64(w[i - 15], 8) ^ (w[i - 15] >> 7);
      uint64_t s1 = rotr64(w[i - 2], 19) ^ rotr64(w[i - 2], 61) ^ (w[i - 2] >> 6);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int32_t i = 0; i < 80; i++) {
      uint64_t S1 = rotr64(e, 14) ^ rotr64(e, 18) ^ rotr64(e, 41);
      uint64_t ch = (e & f) ^ (~e & g);
      uint64_t t1 = hh + S1 + ch + sha512_k[i] + w[i];
      uint64_t S0 = rotr64(a, 28) ^ rotr64(a, 34) ^ rotr64(a, 39);
      uint64_t mj = (a & b) ^ (a & c) ^ (b & c);
      uint64_t t2 = S0 + mj;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  uint8_t out[64];
  for (int32_t i = 0; i < 8; i++)
    for (int32_t j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(h[i] >> (56 - 8 * j));
  dg_hex(out, small ? 48 : 64, dst);
}

// sha2_size is SHA2's output size for a bit length (-1: NULL).
GSQL_INL int32_t sha2_size(int64_t bits) {
  if (bits == 0 || bits == 256) return 64;
  if (bits == 224) return 56;
  if (bits == 384) return 96;
  if (bits == 512) return 128;
  return -1;
}

GSQL_DEV void sha2_write(SV s, int64_t bits, char* dst) {
  if (bits == 0 || bits == 256) sha256_write(s, false, dst);
  else if (bits == 224) sha256_write(s, true, dst);
  else if (bits == 384) sha512_write(s, true, dst);
  else if (bits == 512) sha512_write(s, false, dst);
}
// ==== end of issue 18's section ===========================================
