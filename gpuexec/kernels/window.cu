// Window functions over one window ordering (the device side of
// operators/window). The host sorts the rows by partition and order keys
// (only the keys travel there) and uploads the layout: perm[s] is the
// input row at sorted position s (perm null: the identity), and int32
// arrays in sorted positions give each row's partition [ps, pe), peer
// group [qs, qe), the number of peer groups before it (peer_ord, DENSE_RANK)
// and, per frame, its frame [lo, hi). Results are written at the input
// row, so a function's column comes out in the input's row order.
//
// Aggregates read their argument in sorted order as 8-byte words (int64,
// or double bits), NULLs replaced by the operation's identity, and a 0/1
// count word per row. Inclusive scans (segmented at partition starts, or
// over the whole array) run in three kernels: tiles scan themselves, one
// block scans the tile totals, and every tile adds its carry up to its
// first partition start.

#define GSQL_WIN_ROW(perm, s) ((perm) ? (long long)(perm)[s] : (long long)(s))
#define GSQL_WIN_THREADS 256
#define GSQL_WIN_ITEMS 8
#define GSQL_WIN_TILE (GSQL_WIN_THREADS * GSQL_WIN_ITEMS)

// Value types (ty) and operations (op) of the scans.

__device__ __forceinline__ long long gsql_win_ident(int ty, int op) {
  if (ty == GSQL_WIN_F64) {
    double v = op == GSQL_WIN_SUM
                   ? 0.0
                   : (op == GSQL_WIN_MIN ? __longlong_as_double(0x7ff0000000000000LL)
                                         : __longlong_as_double((long long)0xfff0000000000000ULL));
    return __double_as_longlong(v);
  }
  if (op == GSQL_WIN_SUM) return 0;
  return op == GSQL_WIN_MIN ? 0x7fffffffffffffffLL : (long long)0x8000000000000000ULL;
}

// gsql_win_comb combines a (earlier rows) with b (later rows). Integer
// sums wrap: the host checks the frame's sum against a DOUBLE sum first.
__device__ __forceinline__ long long gsql_win_comb(int ty, int op, long long a, long long b) {
  if (ty == GSQL_WIN_F64) {
    double x = __longlong_as_double(a), y = __longlong_as_double(b), z;
    if (op == GSQL_WIN_SUM)
      z = x + y;
    else if (op == GSQL_WIN_MIN)
      z = y < x ? y : x;
    else
      z = y > x ? y : x;
    return __double_as_longlong(z);
  }
  if (op == GSQL_WIN_SUM) return (long long)((unsigned long long)a + (unsigned long long)b);
  if (op == GSQL_WIN_MIN) return b < a ? b : a;
  return b > a ? b : a;
}

__device__ __forceinline__ void gsql_win_set_valid(unsigned int* bits, long long r) {
  atomicOr(bits + (r >> 5), 1u << (r & 31));
}

// gsql_win_rank computes the functions of positions alone: ROW_NUMBER (0),
// RANK (1), DENSE_RANK (2), NTILE (3, n_arg buckets), PERCENT_RANK (4),
// CUME_DIST (5) and COUNT(*) over the frame (6).
extern "C" __global__ void gsql_win_rank(long long kind, long long n, long long n_arg,
                                         const int* perm, const int* ps, const int* pe,
                                         const int* qs, const int* qe, const int* peer_ord,
                                         const int* lo, const int* hi, long long* out_i,
                                         double* out_f) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < n;
       s += (long long)blockDim.x * gridDim.x) {
    const long long r = GSQL_WIN_ROW(perm, s);
    const long long a = ps[s], b = pe[s];
    switch (kind) {
      case GSQL_WIN_RANK_ROW_NUMBER: out_i[r] = s - a + 1; break;
      case GSQL_WIN_RANK_RANK: out_i[r] = qs[s] - a + 1; break;
      case GSQL_WIN_RANK_DENSE_RANK: out_i[r] = (long long)peer_ord[s] - peer_ord[a] + 1; break;
      case GSQL_WIN_RANK_NTILE: {
        const long long size = b - a, k = s - a;
        const long long m = n_arg < size ? n_arg : size;
        const long long small = size / m, big = size % m;
        out_i[r] =
            k < big * (small + 1) ? k / (small + 1) + 1 : big + (k - big * (small + 1)) / small + 1;
        break;
      }
      case GSQL_WIN_RANK_PERCENT_RANK: {
        const double size = (double)(b - a);
        out_f[r] = size > 1 ? (double)(qs[s] - a) / (size - 1) : 0.0;
        break;
      }
      case GSQL_WIN_RANK_CUME_DIST: out_f[r] = (double)(qe[s] - a) / (double)(b - a); break;
      case GSQL_WIN_RANK_COUNT_STAR: out_i[r] = (long long)hi[s] - lo[s]; break;
    }
  }
}

// gsql_win_index finds, per row, the input row whose value LAG (0), LEAD
// (1), FIRST_VALUE (2), LAST_VALUE (3) or NTH_VALUE (4) returns, and writes
// it at the row's input position; a row without one gets miss (plus the
// row itself when per_row: a per-row default after the values).
extern "C" __global__ void gsql_win_index(long long kind, long long n, long long n_arg,
                                          const int* perm, const int* ps, const int* pe,
                                          const int* lo, const int* hi, long long miss,
                                          long long per_row, long long* idx) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < n;
       s += (long long)blockDim.x * gridDim.x) {
    const long long r = GSQL_WIN_ROW(perm, s);
    long long j = -1;
    switch (kind) {
      case GSQL_WIN_VALUE_LAG:
        j = s - n_arg;
        if (j < ps[s]) j = -1;
        break;
      case GSQL_WIN_VALUE_LEAD:
        j = s + n_arg;
        if (j >= pe[s]) j = -1;
        break;
      case GSQL_WIN_VALUE_FIRST:
        if (lo[s] < hi[s]) j = lo[s];
        break;
      case GSQL_WIN_VALUE_LAST:
        if (lo[s] < hi[s]) j = (long long)hi[s] - 1;
        break;
      case GSQL_WIN_VALUE_NTH:
        if (n_arg >= 1 && n_arg <= (long long)hi[s] - lo[s]) j = lo[s] + n_arg - 1;
        break;
    }
    idx[r] = j >= 0 ? GSQL_WIN_ROW(perm, j) : (per_row ? miss + r : miss);
  }
}

// gsql_win_load reads an aggregate's argument into sorted order: vals[s]
// is the value as an 8-byte word (argty 0: int64, 1: double, 2: a bool
// byte as int64 0/1, 3: none, COUNT reads the validity alone), the
// identity of op where NULL; cnt[s] is 1 for a
// value, 0 for a NULL; fvals (when given) the integer value as a DOUBLE.
extern "C" __global__ void gsql_win_load(long long n, const int* perm, const void* data,
                                         const unsigned char* valid, long long voff,
                                         long long argty, long long ty, long long op,
                                         long long* vals, long long* cnt, double* fvals) {
  const long long ident = gsql_win_ident((int)ty, (int)op);
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < n;
       s += (long long)blockDim.x * gridDim.x) {
    const long long r = GSQL_WIN_ROW(perm, s);
    const long long bit = voff + r;
    const bool ok = !valid || ((valid[bit >> 3] >> (bit & 7)) & 1);
    long long v = ident;
    if (ok && argty != GSQL_WIN_ARG_VALIDITY) {
      if (argty == GSQL_WIN_ARG_BOOL)
        v = ((const unsigned char*)data)[r] != 0;
      else
        v = ((const long long*)data)[r];
    }
    vals[s] = v;
    cnt[s] = ok ? 1 : 0;
    if (fvals) fvals[s] = ok ? (double)v : 0.0;
  }
}

// gsql_win_seg_scan is the inclusive segmented scan of a block's N values
// sv (flags sf: a partition starts at or before the slot) in shared memory,
// one slot per thread t: a value does not combine across a set flag.
template <int N>
__device__ __forceinline__ void gsql_win_seg_scan(long long* sv, int* sf, int t, long long ty,
                                                  long long op) {
  for (int off = 1; off < N; off <<= 1) {
    long long pv = 0;
    int pf = 0;
    if (t >= off) {
      pv = sv[t - off];
      pf = sf[t - off];
    }
    __syncthreads();
    if (t >= off) {
      if (!sf[t]) sv[t] = gsql_win_comb((int)ty, (int)op, pv, sv[t]);
      sf[t] |= pf;
    }
    __syncthreads();
  }
}

// gsql_win_scan_tile is the first scan pass: each block scans its tile of
// GSQL_WIN_TILE words inclusively (restarting at partition starts when ps
// is given) and writes the tile's total and whether a partition starts in
// it.
extern "C" __global__ void __launch_bounds__(GSQL_WIN_THREADS)
    gsql_win_scan_tile(long long ty, long long op, long long n, const long long* in, const int* ps,
                       long long* out, long long* tile_val, int* tile_flag) {
  __shared__ long long sv[GSQL_WIN_THREADS];
  __shared__ int sf[GSQL_WIN_THREADS];
  const int t = threadIdx.x;
  const long long base = blockIdx.x * (long long)GSQL_WIN_TILE + (long long)t * GSQL_WIN_ITEMS;
  const long long ident = gsql_win_ident((int)ty, (int)op);
  long long loc[GSQL_WIN_ITEMS];
  long long acc = ident;
  int fl = 0;
  for (int k = 0; k < GSQL_WIN_ITEMS; k++) {
    const long long s = base + k;
    if (s < n) {
      if (ps && ps[s] == s) {
        acc = in[s];
        fl = 1;
      } else {
        acc = gsql_win_comb((int)ty, (int)op, acc, in[s]);
      }
    }
    loc[k] = acc;
  }
  sv[t] = acc;
  sf[t] = fl;
  __syncthreads();
  gsql_win_seg_scan<GSQL_WIN_THREADS>(sv, sf, t, ty, op);
  const long long ev = t > 0 ? sv[t - 1] : ident;
  bool open = t > 0;
  for (int k = 0; k < GSQL_WIN_ITEMS; k++) {
    const long long s = base + k;
    if (s >= n) break;
    if (ps && ps[s] == s) open = false;
    out[s] = open ? gsql_win_comb((int)ty, (int)op, ev, loc[k]) : loc[k];
  }
  if (t == GSQL_WIN_THREADS - 1) {
    tile_val[blockIdx.x] = sv[t];
    tile_flag[blockIdx.x] = sf[t];
  }
}

// gsql_win_scan_tiles is the second pass, one block of 1024 threads: it
// turns the tile totals into each tile's carry (the scan of the tiles
// before it), in chunks of 1024 tiles.
extern "C" __global__ void __launch_bounds__(1024)
    gsql_win_scan_tiles(long long ty, long long op, long long ntiles, const long long* tile_val,
                        const int* tile_flag, long long* carry_out) {
  __shared__ long long sv[1024];
  __shared__ int sf[1024];
  const int t = threadIdx.x;
  const long long ident = gsql_win_ident((int)ty, (int)op);
  long long carry = ident;
  for (long long c0 = 0; c0 < ntiles; c0 += 1024) {
    const long long i = c0 + t;
    sv[t] = i < ntiles ? tile_val[i] : ident;
    sf[t] = i < ntiles ? tile_flag[i] : 0;
    __syncthreads();
    gsql_win_seg_scan<1024>(sv, sf, t, ty, op);
    // Exclusive: the carry, then the tiles of this chunk before i.
    long long ex = carry;
    if (t > 0) ex = sf[t - 1] ? sv[t - 1] : gsql_win_comb((int)ty, (int)op, carry, sv[t - 1]);
    if (i < ntiles) carry_out[i] = ex;
    __syncthreads();
    carry = sf[1023] ? sv[1023] : gsql_win_comb((int)ty, (int)op, carry, sv[1023]);
    __syncthreads();
  }
}

// gsql_win_scan_apply is the last pass: every word of a tile before the
// tile's first partition start takes the tile's carry.
extern "C" __global__ void gsql_win_scan_apply(long long ty, long long op, long long n,
                                               const int* ps, const long long* carry,
                                               long long* out) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < n;
       s += (long long)blockDim.x * gridDim.x) {
    const long long tile = s / GSQL_WIN_TILE;
    if (tile == 0) continue;
    if (ps && ps[s] >= tile * GSQL_WIN_TILE) continue;
    out[s] = gsql_win_comb((int)ty, (int)op, carry[tile], out[s]);
  }
}

__device__ __forceinline__ long long gsql_win_at(const long long* scan, long long i) {
  return i < 0 ? 0 : scan[i];
}

// gsql_win_agg computes COUNT (0), SUM (1), AVG (2), MIN (3) or MAX (4) of
// the loaded argument over each row's frame and writes it at the row's
// input position. mode 0: every frame starts at its partition's start, so
// the segmented scan at hi-1 is the answer; mode 1: the frame's words are
// combined in row order (short frames); mode 2: the whole-array scan's
// difference (integer sums). cnt is the whole-array scan of the count
// words; fsum (integer SUM/AVG) the whole-array DOUBLE scan, which flags
// a frame whose sum may not fit in a BIGINT (*overflow = 1; the host then
// computes the function exactly). out_ty: 0 int64, 1 double, 2 bool byte,
// 3 a DECIMAL (16 bytes): AVG of integers, the exact sum times p10 (10 to
// the result's scale) over the count, rounded half away from zero.
extern "C" __global__ void gsql_win_agg(long long kind, long long mode, long long ty, long long op,
                                        long long out_ty, long long n, const int* perm,
                                        const int* lo, const int* hi, const long long* vals,
                                        const long long* scan, const long long* cnt,
                                        const double* fsum, void* out, unsigned int* valid,
                                        int* overflow, unsigned long long p10) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < n;
       s += (long long)blockDim.x * gridDim.x) {
    const long long r = GSQL_WIN_ROW(perm, s);
    const long long a = lo[s], b = hi[s];
    const long long c = b > a ? gsql_win_at(cnt, b - 1) - gsql_win_at(cnt, a - 1) : 0;
    if (kind == GSQL_WIN_AGG_COUNT) {
      ((long long*)out)[r] = c;
      continue;
    }
    if (c == 0) continue; // NULL: the validity bit stays clear
    long long v = 0;
    double fv = 0.0;
    if (ty == GSQL_WIN_I64 && op == GSQL_WIN_SUM) {
      double check = 0.0;
      if (mode == GSQL_WIN_MODE_LOOP) {
        for (long long j = a; j < b; j++) {
          v = (long long)((unsigned long long)v + (unsigned long long)vals[j]);
          check += (double)vals[j];
        }
      } else {
        v = (long long)((unsigned long long)gsql_win_at(scan, b - 1) -
                        (unsigned long long)gsql_win_at(scan, a - 1));
        check = (a > 0 ? fsum[b - 1] - fsum[a - 1] : fsum[b - 1]);
      }
      if (fabs(check) > 4.0e18) {
        *overflow = 1;
        continue;
      }
      fv = (double)v;
    } else if (mode == GSQL_WIN_MODE_LOOP) {
      v = gsql_win_ident((int)ty, (int)op);
      for (long long j = a; j < b; j++) v = gsql_win_comb((int)ty, (int)op, v, vals[j]);
      fv = ty == GSQL_WIN_F64 ? __longlong_as_double(v) : (double)v;
    } else {
      v = scan[b - 1];
      fv = ty == GSQL_WIN_F64 ? __longlong_as_double(v) : (double)v;
    }
    if (out_ty == GSQL_WIN_OUT_DEC) {
      // The sum is exact (checked above): |v| * p10 fits in 128 bits.
      // gsql_win_int_avg is in hash.cu, which the module puts first.
      ((__int128*)out)[r] = gsql_win_int_avg(v, v >> 63, (unsigned long long)c, p10);
      gsql_win_set_valid(valid, r);
      continue;
    }
    if (kind == GSQL_WIN_AGG_AVG) fv /= (double)c;
    if (out_ty == GSQL_WIN_OUT_INT64)
      ((long long*)out)[r] = v;
    else if (out_ty == GSQL_WIN_OUT_FLOAT64)
      ((double*)out)[r] = (kind == GSQL_WIN_AGG_AVG || ty == GSQL_WIN_F64) ? fv : (double)v;
    else
      ((unsigned char*)out)[r] = v != 0;
    gsql_win_set_valid(valid, r);
  }
}
