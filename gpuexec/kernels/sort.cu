// Device radix sort and grouped quantiles of gsql's GPU runtime (package
// gpuexec, sort.go and quantile.go).
//
// The sort is a least-significant-digit radix sort of (64-bit key, 32-bit
// row) pairs, 8 bits a pass, stable. Every pass is three steps over tiles
// of GSQL_SORT_TILE rows, one block each: gsql_sort_hist counts the tile's
// digits and writes them digit-major (counts[digit * nblocks + block]);
// an inclusive scan of those words (window.cu's gsql_win_scan_*) gives
// each (digit, block) the start of its rows in the output; gsql_sort_scatter
// writes the tile's rows there, 256 rows at a time in input order, each
// row after the rows of its digit in earlier chunks, earlier warps and
// lower lanes, so equal digits keep their input order. The host reads the
// keys' range first (gsql_sort_range) and runs only the passes whose digit
// is not the same for every key.

#define GSQL_SORT_THREADS 256
#define GSQL_SORT_ITEMS 16
#define GSQL_SORT_TILE (GSQL_SORT_THREADS * GSQL_SORT_ITEMS)
#define GSQL_SORT_WARPS (GSQL_SORT_THREADS / 32)
#define GSQL_SORT_NONE 256

// gsql_order_key maps row r of a fixed-width column to an unsigned key
// whose order is the values' order (desc: the reverse): BOOL is its byte;
// BIGINT, DATE and TIMESTAMP flip the sign bit; a DECIMAL of at most 18
// digits is its low word (the value itself) with the sign bit flipped;
// DOUBLE flips the sign bit of a positive value and every bit of a
// negative one, with -0.0 made 0.0 (they compare equal) and every NaN the
// one positive quiet NaN (above +Inf: NaN sorts last).
__device__ __forceinline__ unsigned long long gsql_order_key(long long type,
                                                             const unsigned char* data, long long r,
                                                             long long desc) {
  unsigned long long k;
  if (type == GSQL_TYPE_BOOL) {
    k = data[r];
  } else if (type == GSQL_TYPE_FLOAT64) {
    unsigned long long u = ((const unsigned long long*)data)[r];
    if ((u << 1) == 0) u = 0;
    if ((u & 0x7fffffffffffffffULL) > 0x7ff0000000000000ULL) u = 0x7ff8000000000000ULL;
    k = (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
  } else if (type == GSQL_TYPE_DECIMAL) {
    k = ((const unsigned long long*)data)[2 * r] ^ 0x8000000000000000ULL;
  } else {
    k = ((const unsigned long long*)data)[r] ^ 0x8000000000000000ULL;
  }
  return desc ? ~k : k;
}

// gsql_sort_range folds the keys into r[0] min, r[1] max, r[2] AND and
// r[3] OR (the host starts them at ~0, 0, ~0, 0).
extern "C" __global__ void __launch_bounds__(GSQL_SORT_THREADS)
    gsql_sort_range(const unsigned long long* keys, long long n, unsigned long long* r) {
  unsigned long long lo = ~0ull, hi = 0ull, a = ~0ull, o = 0ull;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned long long k = keys[i];
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
    a &= k;
    o |= k;
  }
  for (int off = 16; off > 0; off >>= 1) {
    unsigned long long x = __shfl_xor_sync(0xffffffffu, lo, off);
    unsigned long long y = __shfl_xor_sync(0xffffffffu, hi, off);
    unsigned long long z = __shfl_xor_sync(0xffffffffu, a, off);
    unsigned long long w = __shfl_xor_sync(0xffffffffu, o, off);
    lo = x < lo ? x : lo;
    hi = y > hi ? y : hi;
    a &= z;
    o |= w;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&r[0], lo);
    atomicMax(&r[1], hi);
    atomicAnd(&r[2], a);
    atomicOr(&r[3], o);
  }
}

// gsql_sort_digit is a key's digit at shift, of the key less sub.
__device__ __forceinline__ int gsql_sort_digit(unsigned long long k, unsigned long long sub,
                                               long long shift) {
  return (int)(((k - sub) >> shift) & 0xffull);
}

// gsql_sort_hist counts the digits of block b's tile into
// counts[digit * nblocks + b]. One block per tile, GSQL_SORT_THREADS
// threads.
extern "C" __global__ void __launch_bounds__(GSQL_SORT_THREADS)
    gsql_sort_hist(const unsigned long long* keys, long long n, unsigned long long sub,
                   long long shift, long long nblocks, long long* counts) {
  __shared__ unsigned int h[256];
  const int t = threadIdx.x;
  h[t] = 0;
  __syncthreads();
  const long long base = (long long)blockIdx.x * GSQL_SORT_TILE;
  for (int c = 0; c < GSQL_SORT_ITEMS; c++) {
    long long i = base + (long long)c * GSQL_SORT_THREADS + t;
    if (i < n) atomicAdd(&h[gsql_sort_digit(keys[i], sub, shift)], 1u);
  }
  __syncthreads();
  counts[(long long)t * nblocks + blockIdx.x] = (long long)h[t];
}

// gsql_sort_scatter writes block b's tile of (key, row) pairs at their
// places for this pass: scan is the inclusive scan of counts, so the rows
// of digit d start at scan[d * nblocks + b] - counts[d * nblocks + b].
// rows_in 0 means the identity (row i is i). Rows are ranked 256 at a
// time in input order: within a warp by the lanes below with the same
// digit (__match_any_sync), across warps by the per-warp counts in shared
// memory, across chunks by the running base per digit.
extern "C" __global__ void __launch_bounds__(GSQL_SORT_THREADS)
    gsql_sort_scatter(const unsigned long long* keys_in, const unsigned int* rows_in, long long n,
                      unsigned long long sub, long long shift, long long nblocks,
                      const long long* counts, const long long* scan, unsigned long long* keys_out,
                      unsigned int* rows_out) {
  __shared__ long long start[256];
  __shared__ unsigned int wcnt[GSQL_SORT_WARPS][256];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  {
    long long at = (long long)t * nblocks + blockIdx.x;
    start[t] = scan[at] - counts[at];
    for (int w = 0; w < GSQL_SORT_WARPS; w++) wcnt[w][t] = 0;
  }
  __syncthreads();
  const unsigned int below = (1u << lane) - 1u;
  const long long base = (long long)blockIdx.x * GSQL_SORT_TILE;
  for (int c = 0; c < GSQL_SORT_ITEMS; c++) {
    long long i = base + (long long)c * GSQL_SORT_THREADS + t;
    unsigned long long k = 0;
    int d = GSQL_SORT_NONE;
    if (i < n) {
      k = keys_in[i];
      d = gsql_sort_digit(k, sub, shift);
    }
    unsigned int peers = __match_any_sync(0xffffffffu, d);
    unsigned int rank = __popc(peers & below);
    if (d != GSQL_SORT_NONE && rank == 0) wcnt[warp][d] = (unsigned int)__popc(peers);
    __syncthreads();
    if (d != GSQL_SORT_NONE) {
      long long at = start[d] + rank;
      for (int w = 0; w < warp; w++) at += wcnt[w][d];
      keys_out[at] = k;
      rows_out[at] = rows_in ? rows_in[i] : (unsigned int)i;
    }
    __syncthreads();
    unsigned int total = 0;
    for (int w = 0; w < GSQL_SORT_WARPS; w++) {
      total += wcnt[w][t];
      wcnt[w][t] = 0;
    }
    start[t] += total;
    __syncthreads();
  }
}

// gsql_sort_iota: rows[i] = i for i in [0, n).
extern "C" __global__ void gsql_sort_iota(unsigned int* rows, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    rows[i] = (unsigned int)i;
}

// Grouped quantiles. Each row has a dense group number (its group's rank
// in the output; NULL values go to the extra group `ngroups`, which no
// output reads) and an order key (gsql_order_key). The host sorts the
// rows by (group, key): one sort of (group << vbits | key - kmin) when
// both fit 64 bits, else a sort by key and a stable sort by group. In
// that order each group's values are a run; gsql_q_bounds finds the runs
// and gsql_q_pick picks from each.

// gsql_q_rank: rank[occ[j]] = j, the group number of each used hash slot.
extern "C" __global__ void gsql_q_rank(const int* occ, long long groups, int* rank) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < groups; j += stride)
    rank[occ[j]] = (int)j;
}

// gsql_q_keys writes every row's group number (slot_of_row 0: group 0)
// and order key (NULL: group ngroups, key 0) and folds the keys of
// non-NULL values into r[0] min and r[1] max (the host starts them at ~0
// and 0).
extern "C" __global__ void __launch_bounds__(GSQL_SORT_THREADS)
    gsql_q_keys(long long type, const unsigned char* nulls, long long nulloff,
                const unsigned char* data, long long desc, const int* slot_of_row, const int* rank,
                long long ngroups, long long n, unsigned long long* key, int* grp,
                unsigned long long* r) {
  unsigned long long lo = ~0ull, hi = 0ull;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool null = false;
    if (nulls) {
      long long b = nulloff + i;
      null = ((nulls[b >> 3] >> (b & 7)) & 1) == 0;
    }
    if (null) {
      key[i] = 0;
      grp[i] = (int)ngroups;
      continue;
    }
    unsigned long long k = gsql_order_key(type, data, i, desc);
    key[i] = k;
    grp[i] = slot_of_row ? rank[slot_of_row[i]] : 0;
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
  }
  for (int off = 16; off > 0; off >>= 1) {
    unsigned long long x = __shfl_xor_sync(0xffffffffu, lo, off);
    unsigned long long y = __shfl_xor_sync(0xffffffffu, hi, off);
    lo = x < lo ? x : lo;
    hi = y > hi ? y : hi;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&r[0], lo);
    atomicMax(&r[1], hi);
  }
}

// gsql_q_pack writes the sort key of every row: with_group (vbits < 64):
// group << vbits | (key - kmin); without: key - kmin. A NULL value (group
// ngroups) has 0 below its group.
extern "C" __global__ void gsql_q_pack(const unsigned long long* key, const int* grp,
                                       long long ngroups, unsigned long long kmin, long long vbits,
                                       long long with_group, long long n, unsigned long long* out) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    int g = grp[i];
    unsigned long long v = g == (int)ngroups ? 0ull : key[i] - kmin;
    out[i] = with_group ? (((unsigned long long)g << vbits) | v) : v;
  }
}

// gsql_q_group_of: out[j] = grp[rows[j]], the group of each row in the
// order of a sort by value (the keys of the second, stable, sort).
extern "C" __global__ void gsql_q_group_of(const unsigned int* rows, const int* grp, long long n,
                                           unsigned long long* out) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    out[j] = (unsigned long long)(unsigned int)grp[rows[j]];
}

// gsql_q_bounds finds the run of each group in the sorted keys (group =
// key >> shift): start[g] its first position, end[g] one past its last.
// The host zeroes both, so a group without values has an empty run.
extern "C" __global__ void gsql_q_bounds(const unsigned long long* skey, long long shift,
                                         long long n, int* start, int* end) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
    unsigned long long g = skey[j] >> shift;
    if (j == 0 || (skey[j - 1] >> shift) != g) start[g] = (int)j;
    if (j == n - 1 || (skey[j + 1] >> shift) != g) end[g] = (int)(j + 1);
  }
}

// gsql_q_pick computes one quantile per group from its run of sorted rows,
// with the CPU's arithmetic (operators.quantileInto), every operation
// rounded on its own (no fused multiply-add), so the results are the
// CPU's bits. disc: the row of element ceil(q*c)-1 (at least 0) goes to
// out_row (row 0 for an empty group, whose count is 0). Otherwise (a DOUBLE argument) the value
// at position q*(c-1), interpolated between its neighbours, goes to out_f.
extern "C" __global__ void gsql_q_pick(const unsigned char* data, long long disc, double q,
                                       const int* start, const int* end, const unsigned int* rows,
                                       long long groups, double* out_f, long long* out_row) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += stride) {
    long long s = start[g], c = (long long)end[g] - s;
    if (c <= 0) {
      if (disc)
        out_row[g] = 0; // any row stands in: the group's count is 0
      else
        out_f[g] = 0.0;
      continue;
    }
    if (disc) {
      long long k = (long long)ceil(__dmul_rn(q, (double)c)) - 1;
      if (k < 0) k = 0;
      if (k > c - 1) k = c - 1;
      out_row[g] = (long long)rows[s + k];
      continue;
    }
    const double* v = (const double*)data;
    double pos = __dmul_rn(q, (double)(c - 1));
    long long lo = (long long)floor(pos), hi = (long long)ceil(pos);
    double x = v[rows[s + lo]];
    if (lo == hi) {
      out_f[g] = x;
      continue;
    }
    double y = v[rows[s + hi]];
    out_f[g] = __dadd_rn(x, __dmul_rn(__dsub_rn(pos, (double)lo), __dsub_rn(y, x)));
  }
}

// gsql_order_prefix writes each row's order key for ORDER BY ... LIMIT:
// a BIGINT's gsql_order_key, or a VARCHAR's first 8 bytes big-endian
// (zero-padded), so that rows whose keys differ order as their values do
// (desc: reversed). A NULL row sets *anynull (the host then sorts them).
extern "C" __global__ void gsql_order_prefix(long long type, const unsigned char* valid,
                                             long long nulloff, const int* offs,
                                             const unsigned char* data, long long desc, long long n,
                                             unsigned long long* key, int* anynull) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (valid) {
      long long b = nulloff + i;
      if (((valid[b >> 3] >> (b & 7)) & 1) == 0) {
        *anynull = 1;
        key[i] = 0;
        continue;
      }
    }
    unsigned long long k;
    if (type == GSQL_TYPE_STRING) {
      int lo = offs[i], hi = offs[i + 1];
      k = 0;
      for (int j = 0; j < 8; j++) {
        k <<= 8;
        if (lo + j < hi) k |= data[lo + j];
      }
      if (desc) k = ~k;
    } else {
      k = gsql_order_key(type, data, i, desc);
    }
    key[i] = k;
  }
}

// Top groups (topgroups.go, GroupTop): gsql_top_word writes each group's
// ordering word and gsql_top_tie, over the sorted words, the K-th word
// and where its ties end.

// gsql_top_f64 is a DOUBLE's ascending word (gsql_order_key's); a NaN sets
// *nan (the host's sort does not order it: no cut).
__device__ __forceinline__ unsigned long long gsql_top_f64(double f, unsigned long long* nan) {
  if (f != f) {
    *nan = 1;
    return 0;
  }
  unsigned long long u = (unsigned long long)__double_as_longlong(f);
  if ((u << 1) == 0) u = 0;
  return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
}

// gsql_top_clamp is a wide integer's ascending word: its low word's when
// it fits an int64, else the end of its sign.
__device__ __forceinline__ unsigned long long gsql_top_clamp(unsigned long long lo, bool fits,
                                                             bool neg) {
  if (fits) return lo ^ 0x8000000000000000ULL;
  return neg ? 0ull : ~0ull;
}

// gsql_top_dec is the ascending word of a DECIMAL sum (192 bits: lo, hi,
// top) or, with avg, of its AVG over c rows at 10^scale times the sum's
// scale, rounded half away from zero (the host's decimalAvg), clamped to
// int64's ends. A sum past 38 digits (the host's error), past int64 under
// AVG, or a count past 2^32 sets *bad. 64-bit words only: the runtime
// module is built without 128-bit integers.
__device__ unsigned long long gsql_top_dec(unsigned long long lo, long long hi, long long top,
                                           long long avg, long long scale, long long c,
                                           unsigned long long* bad) {
  bool neg = hi < 0;
  unsigned long long mlo = lo, mhi = (unsigned long long)hi;
  if (neg) { // the magnitude: two's complement of the 128 bits
    mlo = ~lo + 1;
    mhi = ~mhi + (mlo == 0 ? 1 : 0);
  }
  const unsigned long long lim_hi = 0x4b3b4ca85a86c47aULL, lim_lo = 0x098a224000000000ULL; // 10^38
  if (top != (hi >> 63) || mhi > lim_hi || (mhi == lim_hi && mlo >= lim_lo)) {
    *bad = 1;
    return 0;
  }
  bool fits = hi == ((long long)lo >> 63);
  if (!avg) return gsql_top_clamp(lo, fits, neg);
  if (!fits || c <= 0 || c >= (1ll << 32)) {
    *bad = 1;
    return 0;
  }
  // a = |sum| * 10^scale (below 2^78) in (ahi, alo); then a / c by 32-bit
  // digits, the remainder staying below c < 2^32.
  unsigned long long alo = mlo, ahi = 0;
  for (long long i = 0; i < scale; i++) {
    unsigned long long h = __umul64hi(alo, 10ull);
    alo *= 10ull;
    ahi = ahi * 10ull + h;
  }
  unsigned long long d = (unsigned long long)c;
  unsigned long long qhi = ahi / d, r = ahi % d;
  unsigned long long t = (r << 32) | (alo >> 32);
  unsigned long long q1 = t / d;
  r = t % d;
  t = (r << 32) | (alo & 0xffffffffULL);
  unsigned long long q0 = t / d;
  r = t % d;
  unsigned long long qlo = (q1 << 32) | q0;
  if (2 * r >= d) {
    qlo++;
    if (qlo == 0) qhi++;
  }
  if (qhi != 0 || qlo > 0x7fffffffffffffffULL) return neg ? 0ull : ~0ull;
  long long w = neg ? -(long long)qlo : (long long)qlo;
  return (unsigned long long)w ^ 0x8000000000000000ULL;
}

// gsql_top_word: out[j] is group j's ordering word (TopWords on the
// host; counts and BOOLs two words up, as SmallWord puts them): kind < 0 orders by the key column
// (type, valid, nulloff, data) at the group's first row firsts[j]; else by the aggregate of that
// kind whose states by slot are s0, s1, s3 and cnt (occ[j] is group j's slot), avg dividing a sum
// by its count (a DECIMAL's scaled by 10^avg_scale first). desc reverses; NULL goes to word 0
// (nulls_first) or ~0, values clamped off it. A group without a word (a NaN, a sum the host refuses
// or the device does not divide) sets info[0]: no cut.
extern "C" __global__ void gsql_top_word(long long kind, long long avg, long long avg_scale,
                                         const unsigned long long* s0, const unsigned long long* s1,
                                         const unsigned long long* s3, const long long* cnt,
                                         const int* occ, long long type, const unsigned char* valid,
                                         long long nulloff, const unsigned char* data,
                                         const unsigned long long* firsts, long long groups,
                                         long long desc, long long nulls_first,
                                         unsigned long long* out, unsigned long long* info) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < groups; j += stride) {
    bool null = false;
    unsigned long long v = 0;
    if (kind < 0) {
      long long r = (long long)firsts[j];
      if (valid) {
        long long b = nulloff + r;
        null = ((valid[b >> 3] >> (b & 7)) & 1) == 0;
      }
      if (!null && type == GSQL_TYPE_FLOAT64) {
        v = gsql_top_f64(((const double*)data)[r], info);
      } else if (!null) {
        v = gsql_order_key(type, data, r, 0);
        if (type == GSQL_TYPE_BOOL) v += 2;
      }
    } else {
      int s = occ[j];
      long long c = cnt[s];
      if (kind == GSQL_AGG_COUNT_STAR || kind == GSQL_AGG_COUNT) {
        v = (unsigned long long)c + 2;
      } else if (c == 0) {
        null = true;
      } else if (kind == GSQL_AGG_SUM_INT) {
        unsigned long long lo = s0[s];
        // A sum past int64: no cut, the host raises its error.
        if ((long long)s1[s] != ((long long)lo >> 63)) {
          info[0] = 1;
        } else if (avg) {
          v = gsql_top_f64((double)(long long)lo / (double)c, info);
        } else {
          v = lo ^ 0x8000000000000000ULL;
        }
      } else if (kind == GSQL_AGG_SUM_DEC) {
        v = gsql_top_dec(s0[s], (long long)s1[s], (long long)s3[s], avg, avg_scale, c, info);
      } else if (kind == GSQL_AGG_SUM_FLOAT || kind == GSQL_AGG_MIN_FLOAT ||
                 kind == GSQL_AGG_MAX_FLOAT) {
        double f = __longlong_as_double((long long)s0[s]);
        if (avg) f = f / (double)c;
        v = gsql_top_f64(f, info);
      } else if (kind == GSQL_AGG_MIN_BOOL || kind == GSQL_AGG_MAX_BOOL) {
        v = (s0[s] & 0xff) + 2;
      } else {
        v = s0[s] ^ 0x8000000000000000ULL; // MIN/MAX of BIGINT
      }
    }
    if (desc) v = ~v;
    if (null) {
      v = nulls_first ? 0ull : ~0ull;
    } else if (nulls_first) {
      v = v < 1ull ? 1ull : v;
    } else {
      v = v > ~1ull ? ~1ull : v;
    }
    out[j] = v;
  }
}

// gsql_top_tie: info[1] is the k-th of n ascending words and info[2] the
// end of its run (the first word past it), by binary search; one thread.
extern "C" __global__ void gsql_top_tie(const unsigned long long* sorted, long long n, long long k,
                                        unsigned long long* info) {
  unsigned long long w = sorted[k - 1];
  long long lo = k, hi = n;
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= w) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  info[1] = w;
  info[2] = (unsigned long long)lo;
}
