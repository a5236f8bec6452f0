// Hash aggregation and hash join kernels of gsql's GPU runtime (package
// gpuexec, hash.go). Key and argument columns are described by GCol records
// the host uploads, so one compiled module serves every key shape; the
// column type codes are coldata's (1 BOOL, 2 BIGINT, 3 DOUBLE, 4 VARCHAR,
// 7 DECIMAL: two little-endian 64-bit words per value).
// Row indices are 32-bit (a device batch holds fewer than 2^31 rows).
// Grouping equality is the CPU's (operators.AppendRowKey): NULL equals NULL,
// -0.0 equals 0.0, strings compare bytes.

#define GSQL_FULL 0xffffffffu

struct GCol {
  long long type;
  const unsigned char* nulls; // validity bitmap or 0
  long long nulloff;          // bit of row 0
  const int* offs;            // VARCHAR offsets
  const unsigned char* data;  // values or chars
};

__device__ __forceinline__ bool gcol_null(const GCol& c, long long r) {
  if (c.nulls == 0) return false;
  long long b = c.nulloff + r;
  return ((c.nulls[b >> 3] >> (b & 7)) & 1) == 0;
}

__device__ __forceinline__ unsigned long long gsql_mix64(unsigned long long h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

__device__ __forceinline__ unsigned long long gcol_bits(const GCol& c, long long r) {
  if (c.type == GSQL_TYPE_BOOL) return c.data[r];
  unsigned long long v = ((const unsigned long long*)c.data)[r];
  if (c.type == GSQL_TYPE_FLOAT64 && (v << 1) == 0) v = 0; // -0.0 groups with 0.0
  return v;
}

__device__ unsigned long long gsql_row_hash(const GCol* cols, int nc, long long r) {
  unsigned long long h = 0x9e3779b97f4a7c15ULL;
  for (int c = 0; c < nc; c++) {
    const GCol& k = cols[c];
    unsigned long long v;
    if (gcol_null(k, r)) {
      v = 0x2545f4914f6cdd1dULL;
    } else if (k.type == GSQL_TYPE_DECIMAL) {
      const unsigned long long* w = (const unsigned long long*)k.data + 2 * r;
      v = w[0] ^ gsql_mix64(w[1] + 0x632be59bd9b4e019ULL);
    } else if (k.type == GSQL_TYPE_STRING) {
      int lo = k.offs[r], hi = k.offs[r + 1];
      v = 0xcbf29ce484222325ULL ^ (unsigned long long)(hi - lo);
      const unsigned char* p = k.data + lo;
      for (int j = 0; j < hi - lo; j++) v = (v ^ p[j]) * 0x100000001b3ULL;
    } else {
      v = gcol_bits(k, r);
    }
    h = gsql_mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
  }
  return h;
}

__device__ bool gsql_rows_equal(const GCol* a, long long ra, const GCol* b, long long rb, int nc) {
  for (int c = 0; c < nc; c++) {
    bool na = gcol_null(a[c], ra), nb = gcol_null(b[c], rb);
    if (na != nb) return false;
    if (na) continue;
    if (a[c].type == GSQL_TYPE_STRING) {
      int alo = a[c].offs[ra], ahi = a[c].offs[ra + 1];
      int blo = b[c].offs[rb], bhi = b[c].offs[rb + 1];
      if (ahi - alo != bhi - blo) return false;
      const unsigned char* p = a[c].data + alo;
      const unsigned char* q = b[c].data + blo;
      for (int j = 0; j < ahi - alo; j++)
        if (p[j] != q[j]) return false;
    } else if (a[c].type == GSQL_TYPE_DECIMAL) {
      const unsigned long long* p = (const unsigned long long*)a[c].data + 2 * ra;
      const unsigned long long* q = (const unsigned long long*)b[c].data + 2 * rb;
      if (p[0] != q[0] || p[1] != q[1]) return false;
    } else if (gcol_bits(a[c], ra) != gcol_bits(b[c], rb)) {
      return false;
    }
  }
  return true;
}

__device__ bool gsql_any_null(const GCol* cols, int nc, long long r) {
  for (int c = 0; c < nc; c++)
    if (gcol_null(cols[c], r)) return true;
  return false;
}

// gsql_str_less reports whether string row x of c sorts before row y
// (bytewise, as bytes.Compare).
__device__ bool gsql_str_less(const GCol& c, long long x, long long y) {
  int xl = c.offs[x], xh = c.offs[x + 1], yl = c.offs[y], yh = c.offs[y + 1];
  int n = xh - xl < yh - yl ? xh - xl : yh - yl;
  for (int j = 0; j < n; j++) {
    unsigned char a = c.data[xl + j], b = c.data[yl + j];
    if (a != b) return a < b;
  }
  return xh - xl < yh - yl;
}

// gsql_dec_less reports whether DECIMAL row x of c is less than row y.
__device__ bool gsql_dec_less(const GCol& c, long long x, long long y) {
  const long long* w = (const long long*)c.data;
  long long xh = w[2 * x + 1], yh = w[2 * y + 1];
  if (xh != yh) return xh < yh;
  return (unsigned long long)w[2 * x] < (unsigned long long)w[2 * y];
}

// gsql_row_less orders rows of a VARCHAR or DECIMAL argument (the MIN/MAX
// kinds that keep the winning row).
__device__ __forceinline__ bool gsql_row_less(const GCol& c, long long x, long long y) {
  return c.type == GSQL_TYPE_DECIMAL ? gsql_dec_less(c, x, y) : gsql_str_less(c, x, y);
}

// gsql_is_row_kind: MIN/MAX of VARCHAR and of DECIMAL (GSQL_AGG_MIN_STRING ... GSQL_AGG_MAX_DEC)
// keep the winning row in s0.
__device__ __forceinline__ bool gsql_is_row_kind(long long k) {
  return k == GSQL_AGG_MIN_STRING || k == GSQL_AGG_MAX_STRING || k == GSQL_AGG_MIN_DEC ||
         k == GSQL_AGG_MAX_DEC;
}
__device__ __forceinline__ bool gsql_is_min_row(long long k) {
  return k == GSQL_AGG_MIN_STRING || k == GSQL_AGG_MIN_DEC;
}

// GSQL_VAR_UNSET marks a GSQL_AGG_VARIANCE shift not yet set: a NaN whose payload
// no arithmetic produces (a value with these very bits becomes the
// canonical NaN before it can be a shift).
#define GSQL_VAR_UNSET 0x7ff4d1ce0000f00dLL
#define GSQL_NAN_BITS 0x7ff8000000000000LL

// gsql_fill_u64: dst[i] = v for i in [0, n).
extern "C" __global__ void gsql_fill_u64(unsigned long long* dst, unsigned long long v,
                                         long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = v;
}

// gsql_gather_u64: dst[j] = src[idx[j]] for j in [0, n).
extern "C" __global__ void gsql_gather_u64(unsigned long long* dst, const unsigned long long* src,
                                           const int* idx, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    dst[j] = src[idx[j]];
}

// gsql_gather_u64_xor: dst[j] = src[idx[j]] ^ mask for j in [0, n) (a
// mask of all ones turns ascending keys into descending ones).
extern "C" __global__ void gsql_gather_u64_xor(unsigned long long* dst,
                                               const unsigned long long* src, const int* idx,
                                               long long n, unsigned long long mask) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    dst[j] = src[idx[j]] ^ mask;
}

// gsql_gather_i32_idx: dst[j] = src[idx[j]] for j in [0, n).
extern "C" __global__ void gsql_gather_i32_idx(int* dst, const int* src, const int* idx,
                                               long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    dst[j] = src[idx[j]];
}

// Groups in order of first appearance, on the device: gsql_first_mark
// writes group j + 1 at its first row, gsql_first_flags turns the marks
// into 0/1 words for a scan (window.cu's), and gsql_first_order puts each
// marked group at its rank among the marked rows.
extern "C" __global__ void gsql_first_mark(const unsigned long long* firsts, long long groups,
                                           int* mark) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < groups; j += stride)
    mark[firsts[j]] = (int)(j + 1);
}

extern "C" __global__ void gsql_first_flags(const int* mark, long long n, long long* flags) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    flags[i] = mark[i] != 0;
}

extern "C" __global__ void gsql_first_order(const int* mark, const long long* pos, long long n,
                                            int* order) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (mark[i] != 0) order[pos[i] - 1] = mark[i] - 1;
  }
}

// gsql_agg_insert finds or claims the hash-table slot of every row's group:
// slots[p] holds the row that claimed p (-1: empty), rowhash the rows'
// hashes, slot_of_row[i] the slot of row i's group and first[p] the
// smallest row of the group (the groups come out in first-appearance
// order). Once `limit` slots are used, rows that need a new slot set
// *overflow and the host runs the batch again with a larger table.
extern "C" __global__ void gsql_agg_insert(const GCol* keys, long long nkeys, long long n,
                                           int* slots, unsigned long long* rowhash, long long mask,
                                           int* slot_of_row, long long* first, unsigned int* used,
                                           long long limit, int* overflow) {
  long long stride = (long long)gridDim.x * blockDim.x;
  int nk = (int)nkeys;
  const int lane = threadIdx.x & 31;
  // Warp-uniform trips, so that the lanes of one group can elect the
  // lowest (its smallest row) to record the first row: with few groups
  // an atomic per row on one address would serialise.
  for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += stride) {
    long long i = base + threadIdx.x;
    int slot = -1;
    // Once the table has overflowed this pass is thrown away: the
    // remaining rows stop at once instead of probing a full table.
    if (i < n && *(volatile int*)overflow) {
      slot_of_row[i] = -1;
    } else if (i < n) {
      unsigned long long h = gsql_row_hash(keys, nk, i);
      rowhash[i] = h;
      __threadfence(); // the hash is visible before the row can be seen in a slot
      long long p = (long long)(h & (unsigned long long)mask);
      for (long long probe = 0; probe <= mask; probe++) {
        int s = ((volatile int*)slots)[p];
        if (s == -1) {
          if ((long long)*(volatile unsigned int*)used >= limit) {
            *overflow = 1;
            break;
          }
          int prev = atomicCAS(&slots[p], -1, (int)i);
          if (prev == -1) {
            atomicAdd(used, 1u);
            slot = (int)p;
            break;
          }
          s = prev;
        }
        if (((volatile unsigned long long*)rowhash)[s] == h &&
            gsql_rows_equal(keys, s, keys, i, nk)) {
          slot = (int)p;
          break;
        }
        p = (p + 1) & mask;
      }
      slot_of_row[i] = slot;
    }
    unsigned int peers = __match_any_sync(GSQL_FULL, slot);
    if (slot >= 0 && lane == __ffs(peers) - 1) atomicMin(&first[slot], i);
  }
}

// GAgg describes one aggregate: its kind, argument column and state arrays
// (indexed by slot). Kinds: 0 COUNT(*), 1 COUNT(x), 2 SUM of BIGINT/BOOL
// (s0 low, s1 high word of an exact 128-bit sum), 3 SUM of DOUBLE (s0),
// 4/5 MIN/MAX of BIGINT, 6/7 MIN/MAX of DOUBLE, 8/9 MIN/MAX of VARCHAR
// (s0 holds the winning row, -1 none), 10/11 MIN/MAX of BOOL, 12 SUM of
// DECIMAL (s0/s1/s2 the low, middle and top words of an exact 192-bit
// sum: 2^31 values below 2^127 cannot leave it, so the host sees any
// overflow), 13/14 MIN/MAX of DECIMAL (the winning row, as for VARCHAR),
// 15 the VAR/STDDEV family of a DOUBLE (every variance and standard
// deviation: the host finishes each from the same state). Kind 15 keeps
// shifted sums: s0 the group's shift K, one of its own values, set once
// by the first warp that brings one (GSQL_VAR_UNSET until then, the
// host's stateInit), s1 the DOUBLE sum of (x - K) and s2 the DOUBLE sum of
// (x - K)^2; the host turns them into the mean K + s1/n and the sum of
// squared deviations s2 - s1^2/n. With K inside the group's range the
// differences are of the spread's size, not the mean's, so a large mean
// loses no precision to cancellation.
// cnt counts the non-NULL values (rows for COUNT(*)).
struct GAgg {
  long long kind;
  GCol arg;
  unsigned long long* s0;
  unsigned long long* s1;
  unsigned long long* cnt;
  unsigned long long* s2;
};

// gsql_add192 adds the 192-bit value (l, m, t) to (*lo, *mid, *top).
__device__ __forceinline__ void gsql_add192(unsigned long long* lo, unsigned long long* mid,
                                            unsigned long long* top, unsigned long long l,
                                            unsigned long long m, unsigned long long t) {
  unsigned long long a = *lo + l;
  unsigned long long c = a < *lo ? 1ull : 0ull;
  unsigned long long b = *mid + m;
  unsigned long long c2 = b < *mid ? 1ull : 0ull;
  unsigned long long b2 = b + c;
  c2 += b2 < b ? 1ull : 0ull;
  *lo = a;
  *mid = b2;
  *top += t + c2;
}

__device__ __forceinline__ long long gsql_arg_int(const GCol& c, long long i) {
  return c.type == GSQL_TYPE_BOOL ? (long long)c.data[i] : ((const long long*)c.data)[i];
}

// The lanes of a warp whose rows fall in one group combine their values
// with shuffles first, and the group's lowest lane makes the atomic
// update: with few groups, rows of one group crowd every warp, and one
// atomic per warp instead of per row removes the contention on their
// states. Shuffles read every lane (all 32 lanes run each iteration).
__device__ __forceinline__ long long gsql_shfl_ll(long long v, int lane) {
  return __shfl_sync(GSQL_FULL, v, lane);
}

// gsql_agg_update folds every row into its group's aggregate states.
extern "C" __global__ void gsql_agg_update(const GAgg* aggs, long long naggs,
                                           const int* slot_of_row, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  const int lane = threadIdx.x & 31;
  for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += stride) {
    long long i = base + threadIdx.x;
    int slot = i < n ? slot_of_row[i] : -1;
    // peers: the lanes of this row's group; the lowest one leads.
    unsigned int peers = __match_any_sync(GSQL_FULL, slot);
    bool leader = slot >= 0 && lane == __ffs(peers) - 1;
    for (int a = 0; a < (int)naggs; a++) {
      const GAgg& g = aggs[a];
      bool has = slot >= 0 && (g.kind == GSQL_AGG_COUNT_STAR || !gcol_null(g.arg, i));
      unsigned int with = __ballot_sync(GSQL_FULL, has) & peers;
      if (leader && with != 0) atomicAdd(&g.cnt[slot], (unsigned long long)__popc(with));
      if (g.kind == GSQL_AGG_COUNT_STAR || g.kind == GSQL_AGG_COUNT) continue;
      if (g.kind == GSQL_AGG_SUM_DEC) {
        // SUM of DECIMAL: both words of every lane's value.
        unsigned long long xl = 0, xh = 0;
        if (has) {
          xl = ((const unsigned long long*)g.arg.data)[2 * i];
          xh = ((const unsigned long long*)g.arg.data)[2 * i + 1];
        }
        unsigned long long lo = 0, mid = 0, top = 0;
        for (int k = 0; k < 32; k++) {
          unsigned long long yl = (unsigned long long)gsql_shfl_ll((long long)xl, k);
          unsigned long long yh = (unsigned long long)gsql_shfl_ll((long long)xh, k);
          if (!((with >> k) & 1)) continue;
          gsql_add192(&lo, &mid, &top, yl, yh, (long long)yh < 0 ? ~0ull : 0ull);
        }
        if (leader && with != 0) {
          // Word by word, each carry into the next word: the
          // total is exact whatever the order of the atomics.
          unsigned long long old = atomicAdd(&g.s0[slot], lo);
          unsigned long long c0 = old + lo < old ? 1ull : 0ull;
          unsigned long long m = mid + c0;
          unsigned long long cm = m < mid ? 1ull : 0ull;
          unsigned long long old1 = atomicAdd(&g.s1[slot], m);
          unsigned long long c1 = old1 + m < old1 ? 1ull : 0ull;
          unsigned long long t = top + cm + c1;
          if (t != 0) atomicAdd(&g.s2[slot], t);
        }
        continue;
      }
      if (g.kind == GSQL_AGG_VARIANCE) {
        // VAR/STDDEV: the group's leader makes sure the group has a
        // shift (the value of the group's first lane with one, when
        // none is set yet), every lane takes it from its leader,
        // and the leader adds the lanes' (x - K) and (x - K)^2.
        long long xb = has ? ((const long long*)g.arg.data)[i] : 0;
        int src = with != 0 ? __ffs(with) - 1 : lane;
        long long cand = gsql_shfl_ll(xb, src);
        long long k = 0;
        if (leader && with != 0) {
          if (cand == GSQL_VAR_UNSET) cand = GSQL_NAN_BITS;
          k = *(volatile long long*)&g.s0[slot];
          if (k == GSQL_VAR_UNSET) {
            long long prev = (long long)atomicCAS(&g.s0[slot], (unsigned long long)GSQL_VAR_UNSET,
                                                  (unsigned long long)cand);
            k = prev == GSQL_VAR_UNSET ? cand : prev;
          }
        }
        k = gsql_shfl_ll(k, __ffs(peers) - 1);
        double dx = has ? __longlong_as_double(xb) - __longlong_as_double(k) : 0.0;
        double s1 = 0.0, s2 = 0.0;
        for (int j = 0; j < 32; j++) {
          double y = __longlong_as_double(gsql_shfl_ll(__double_as_longlong(dx), j));
          if (!((with >> j) & 1)) continue;
          s1 += y;
          s2 += y * y;
        }
        if (leader && with != 0) {
          atomicAdd((double*)&g.s1[slot], s1);
          atomicAdd((double*)&g.s2[slot], s2);
        }
        continue;
      }
      if (gsql_is_row_kind(g.kind)) {
        // MIN/MAX of VARCHAR or DECIMAL: compare-and-swap on the
        // winning row.
        if (!has) continue;
        unsigned long long* p = &g.s0[slot];
        long long cur = *(volatile long long*)p;
        for (;;) {
          if (cur >= 0) {
            bool better = gsql_is_min_row(g.kind) ? gsql_row_less(g.arg, i, cur)
                                                  : gsql_row_less(g.arg, cur, i);
            if (!better) break;
          }
          long long prev = (long long)atomicCAS(p, (unsigned long long)cur, (unsigned long long)i);
          if (prev == cur) break;
          cur = prev;
        }
        continue;
      }
      // Every lane reads every lane's value in lane order and folds
      // those of its group.
      long long x = 0;
      if (has) {
        x = g.kind == GSQL_AGG_SUM_FLOAT || g.kind == GSQL_AGG_MIN_FLOAT ||
                    g.kind == GSQL_AGG_MAX_FLOAT
                ? ((const long long*)g.arg.data)[i]
                : gsql_arg_int(g.arg, i);
      }
      unsigned long long lo = 0;
      long long hi = 0;
      double f = 0;
      long long best = x;
      bool seen = false;
      for (int k = 0; k < 32; k++) {
        long long y = gsql_shfl_ll(x, k);
        if (!((with >> k) & 1)) continue;
        switch (g.kind) {
          case GSQL_AGG_SUM_INT: {
            unsigned long long nlo = lo + (unsigned long long)y;
            hi += (y < 0 ? -1 : 0) + (nlo < lo ? 1 : 0);
            lo = nlo;
            break;
          }
          case GSQL_AGG_SUM_FLOAT: f += __longlong_as_double(y); break;
          case GSQL_AGG_MIN_INT:
          case GSQL_AGG_MIN_BOOL:
            if (!seen || y < best) best = y;
            break;
          case GSQL_AGG_MAX_INT:
          case GSQL_AGG_MAX_BOOL:
            if (!seen || y > best) best = y;
            break;
          case GSQL_AGG_MIN_FLOAT:
            if (!seen || __longlong_as_double(y) < __longlong_as_double(best)) best = y;
            break;
          case GSQL_AGG_MAX_FLOAT:
            if (!seen || __longlong_as_double(y) > __longlong_as_double(best)) best = y;
            break;
        }
        seen = true;
      }
      if (!leader || with == 0) continue;
      switch (g.kind) {
        case GSQL_AGG_SUM_INT: {
          unsigned long long old = atomicAdd(&g.s0[slot], lo);
          long long carry = old + lo < old ? 1 : 0;
          if (hi + carry != 0) atomicAdd(&g.s1[slot], (unsigned long long)(hi + carry));
          break;
        }
        case GSQL_AGG_SUM_FLOAT: atomicAdd((double*)&g.s0[slot], f); break;
        case GSQL_AGG_MIN_INT:
        case GSQL_AGG_MIN_BOOL: atomicMin((long long*)&g.s0[slot], best); break;
        case GSQL_AGG_MAX_INT:
        case GSQL_AGG_MAX_BOOL: atomicMax((long long*)&g.s0[slot], best); break;
        case GSQL_AGG_MIN_FLOAT:
        case GSQL_AGG_MAX_FLOAT: {
          double v = __longlong_as_double(best);
          unsigned long long* p = &g.s0[slot];
          unsigned long long cur = *(volatile unsigned long long*)p;
          while (g.kind == GSQL_AGG_MIN_FLOAT ? v < __longlong_as_double((long long)cur)
                                              : v > __longlong_as_double((long long)cur)) {
            unsigned long long prev = atomicCAS(p, cur, (unsigned long long)best);
            if (prev == cur) break;
            cur = prev;
          }
          break;
        }
      }
    }
  }
}

// GPart is one aggregate's state over a range of rows, for aggregates
// without GROUP BY: s0/s1/cnt as in GAgg's arrays (s0 starts at the kind's
// initial value, the host's stateInit), except GSQL_AGG_VARIANCE (VAR/STDDEV): here
// partials merge pairwise (Chan, Golub and LeVeque's update), so s0 is the
// DOUBLE mean of the cnt values and s1 the DOUBLE sum of their squared
// deviations from it (an empty partial's s0 and s1 are not read).
struct GPart {
  unsigned long long s0, s1, cnt, s2;
};

// gsql_part_combine folds b into a with the update rules of gsql_agg_update,
// so that both paths give the same answers (strict comparisons against the
// initial value: a NaN never wins a MIN/MAX of DOUBLE).
__device__ __forceinline__ void gsql_part_combine(long long kind, const GCol& arg, GPart& a,
                                                  const GPart& b) {
  if (kind == GSQL_AGG_VARIANCE) {
    // VAR/STDDEV: merge (n, mean, M2) pairs.
    if (b.cnt == 0) return;
    if (a.cnt == 0) {
      a = b;
      return;
    }
    double na = (double)a.cnt, nb = (double)b.cnt, n = na + nb;
    double ma = __longlong_as_double((long long)a.s0), mb = __longlong_as_double((long long)b.s0);
    double delta = mb - ma;
    double mean = ma + delta * (nb / n);
    double m2 = __longlong_as_double((long long)a.s1) + __longlong_as_double((long long)b.s1) +
                delta * delta * (na * nb / n);
    a.s0 = (unsigned long long)__double_as_longlong(mean);
    a.s1 = (unsigned long long)__double_as_longlong(m2);
    a.cnt += b.cnt;
    return;
  }
  switch (kind) {
    case GSQL_AGG_SUM_DEC: gsql_add192(&a.s0, &a.s1, &a.s2, b.s0, b.s1, b.s2); break;
    case GSQL_AGG_SUM_INT: {
      unsigned long long lo = a.s0 + b.s0;
      a.s1 += b.s1 + (lo < a.s0 ? 1ull : 0ull);
      a.s0 = lo;
      break;
    }
    case GSQL_AGG_SUM_FLOAT:
      a.s0 = (unsigned long long)__double_as_longlong(__longlong_as_double((long long)a.s0) +
                                                      __longlong_as_double((long long)b.s0));
      break;
    case GSQL_AGG_MIN_INT:
    case GSQL_AGG_MIN_BOOL:
      if ((long long)b.s0 < (long long)a.s0) a.s0 = b.s0;
      break;
    case GSQL_AGG_MAX_INT:
    case GSQL_AGG_MAX_BOOL:
      if ((long long)b.s0 > (long long)a.s0) a.s0 = b.s0;
      break;
    case GSQL_AGG_MIN_FLOAT:
      if (__longlong_as_double((long long)b.s0) < __longlong_as_double((long long)a.s0))
        a.s0 = b.s0;
      break;
    case GSQL_AGG_MAX_FLOAT:
      if (__longlong_as_double((long long)b.s0) > __longlong_as_double((long long)a.s0))
        a.s0 = b.s0;
      break;
    case GSQL_AGG_MIN_STRING:
    case GSQL_AGG_MAX_STRING:
    case GSQL_AGG_MIN_DEC:
    case GSQL_AGG_MAX_DEC: {
      long long x = (long long)a.s0, y = (long long)b.s0;
      if (y >= 0 &&
          (x < 0 || (gsql_is_min_row(kind) ? gsql_row_less(arg, y, x) : gsql_row_less(arg, x, y))))
        a.s0 = b.s0;
      break;
    }
  }
  a.cnt += b.cnt;
}

// gsql_part_reduce combines acc across the block (256 threads at most);
// thread 0 returns the block's result. Every thread must call it.
__device__ GPart gsql_part_reduce(long long kind, const GCol& arg, GPart acc) {
  __shared__ GPart warps[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int off = 16; off > 0; off >>= 1) {
    GPart o;
    o.s0 = __shfl_xor_sync(GSQL_FULL, acc.s0, off);
    o.s1 = __shfl_xor_sync(GSQL_FULL, acc.s1, off);
    o.s2 = __shfl_xor_sync(GSQL_FULL, acc.s2, off);
    o.cnt = __shfl_xor_sync(GSQL_FULL, acc.cnt, off);
    gsql_part_combine(kind, arg, acc, o);
  }
  if (lane == 0) warps[warp] = acc;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < (int)((blockDim.x + 31) >> 5); w++)
      gsql_part_combine(kind, arg, acc, warps[w]);
  __syncthreads();
  return acc;
}

// gsql_agg_global folds every row of a batch into one group per aggregate
// (aggregates without GROUP BY): each thread folds its rows, warps and then
// the block combine with shuffles and shared memory, and each block writes
// its partial to part[block * naggs + a]. No atomics: with one group every
// atomic would land on the same address. init[a] is the kind's initial s0.
extern "C" __global__ void __launch_bounds__(256)
    gsql_agg_global(const GAgg* aggs, const unsigned long long* init, long long naggs, long long n,
                    GPart* part) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (int a = 0; a < (int)naggs; a++) {
    const GAgg& g = aggs[a];
    const long long kind = g.kind;
    GPart acc = {init[a], 0ull, 0ull};
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      if (kind != GSQL_AGG_COUNT_STAR && gcol_null(g.arg, i)) continue;
      GPart one = {0ull, 0ull, 1ull};
      switch (kind) {
        case GSQL_AGG_COUNT_STAR:
        case GSQL_AGG_COUNT: break;
        case GSQL_AGG_SUM_INT: {
          long long x = gsql_arg_int(g.arg, i);
          one.s0 = (unsigned long long)x;
          one.s1 = x < 0 ? ~0ull : 0ull;
          break;
        }
        case GSQL_AGG_SUM_FLOAT:
        case GSQL_AGG_MIN_FLOAT:
        case GSQL_AGG_MAX_FLOAT: one.s0 = ((const unsigned long long*)g.arg.data)[i]; break;
        case GSQL_AGG_MIN_STRING:
        case GSQL_AGG_MAX_STRING:
        case GSQL_AGG_MIN_DEC:
        case GSQL_AGG_MAX_DEC: one.s0 = (unsigned long long)i; break;
        case GSQL_AGG_VARIANCE: {
          // One value: its mean is itself, its M2 0 (NaN for an
          // infinite or NaN value, as the CPU's Welford update gives).
          double x = ((const double*)g.arg.data)[i];
          one.s0 = (unsigned long long)__double_as_longlong(x);
          one.s1 = (unsigned long long)__double_as_longlong(x - x);
          break;
        }
        case GSQL_AGG_SUM_DEC:
          one.s0 = ((const unsigned long long*)g.arg.data)[2 * i];
          one.s1 = ((const unsigned long long*)g.arg.data)[2 * i + 1];
          one.s2 = (long long)one.s1 < 0 ? ~0ull : 0ull;
          break;
        default: one.s0 = (unsigned long long)gsql_arg_int(g.arg, i);
      }
      gsql_part_combine(kind, g.arg, acc, one);
    }
    acc = gsql_part_reduce(kind, g.arg, acc);
    if (threadIdx.x == 0) part[(long long)blockIdx.x * naggs + a] = acc;
  }
}

// gsql_agg_global_final combines the blocks' partials: block a reduces
// aggregate a's into out[a].
extern "C" __global__ void __launch_bounds__(256)
    gsql_agg_global_final(const GAgg* aggs, const unsigned long long* init, long long naggs,
                          const GPart* part, long long nparts, GPart* out) {
  const long long a = blockIdx.x;
  const GAgg& g = aggs[a];
  GPart acc = {init[a], 0ull, 0ull};
  for (long long b = threadIdx.x; b < nparts; b += blockDim.x)
    gsql_part_combine(g.kind, g.arg, acc, part[b * naggs + a]);
  acc = gsql_part_reduce(g.kind, g.arg, acc);
  if (threadIdx.x == 0) out[a] = acc;
}

// gsql_agg_compact lists the used slots: out[j] for j < *count.
extern "C" __global__ void gsql_agg_compact(const int* slots, long long cap, int* out,
                                            unsigned int* count) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < cap; p += stride) {
    if (slots[p] != -1) out[atomicAdd(count, 1u)] = (int)p;
  }
}

// A join's build side on the device is grouped by key: the hash table
// holds one slot per distinct key (slots[p]: the row that claimed it), and
// the build rows, stably sorted by their key's slot, form one contiguous
// run per key (ranges[2p], ranges[2p+1]: its start and end in the sorted
// rows), so a key of many duplicates costs a probe one slot, not a chain.

// gsql_join_insert finds or claims the slot of every build row's key
// (rows with a NULL key take none): one slot per distinct key, as
// gsql_agg_insert (the hash is fenced before the row can be seen in a
// slot). slot_key, when set, gets each row's slot as a sort key, or
// mask + 1 (after every slot) for a NULL key; *dup is set when a row
// finds its key already there (read first: with many duplicates, every
// row storing to one address would serialise).
extern "C" __global__ void gsql_join_insert(const GCol* keys, long long nkeys, long long n,
                                            int* slots, unsigned long long* rowhash, long long mask,
                                            unsigned long long* slot_key, int* dup) {
  long long stride = (long long)gridDim.x * blockDim.x;
  int nk = (int)nkeys;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride) {
    if (gsql_any_null(keys, nk, r)) {
      if (slot_key) slot_key[r] = (unsigned long long)mask + 1;
      continue;
    }
    unsigned long long h = gsql_row_hash(keys, nk, r);
    rowhash[r] = h;
    __threadfence();
    long long p = (long long)(h & (unsigned long long)mask);
    for (;;) {
      int s = ((volatile int*)slots)[p];
      if (s == -1) {
        s = atomicCAS(&slots[p], -1, (int)r);
        if (s == -1) break;
      }
      if (((volatile unsigned long long*)rowhash)[s] == h &&
          gsql_rows_equal(keys, r, keys, s, nk)) {
        if (*(volatile int*)dup == 0) *dup = 1;
        break;
      }
      p = (p + 1) & mask;
    }
    if (slot_key) slot_key[r] = (unsigned long long)p;
  }
}

// gsql_join_ranges sets the run of each slot in the n sorted slot keys:
// ranges[2p] its first position, ranges[2p+1] one past its last. Keys
// above mask (NULL keys) have none.
extern "C" __global__ void gsql_join_ranges(const unsigned long long* sorted, long long n,
                                            long long mask, int* ranges) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned long long k = sorted[i];
    if (k > (unsigned long long)mask) continue;
    if (i == 0 || sorted[i - 1] != k) ranges[2 * k] = (int)i;
    if (i == n - 1 || sorted[i + 1] != k) ranges[2 * k + 1] = (int)(i + 1);
  }
}

// gsql_join_unique_ranges sets the runs of a build side whose keys are
// all distinct, over identity-ordered rows: slot p's run is its one row.
extern "C" __global__ void gsql_join_unique_ranges(const int* slots, long long cap, int* ranges) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < cap; p += stride) {
    int s = slots[p];
    if (s == -1) continue;
    ranges[2 * p] = s;
    ranges[2 * p + 1] = s + 1;
  }
}

// A probe tile is GSQL_JOIN_ITEMS rows for each of a block's
// GSQL_JOIN_THREADS threads: the per-tile sums that gsql_scan_pairs scans
// in one block are then few (60M probe rows: 29K tiles, not 234K).
#define GSQL_JOIN_THREADS 256
#define GSQL_JOIN_ITEMS 8
#define GSQL_JOIN_TILE (GSQL_JOIN_THREADS * GSQL_JOIN_ITEMS)

// GSQL_JOIN_SERIAL is the most matches a probe row's own thread writes;
// the pairs of rows with more are written one thread per pair
// (gsql_join_expand).
#define GSQL_JOIN_SERIAL 16

// gsql_join_count finds each probe row's key in the table: cm its number
// of matches, start the first of them in the sorted build rows and, for a
// LEFT join, cu whether it is unmatched; one tile of rows per block, the
// block's sums in block_sums[2*b], [2*b+1]; *heavy is set when a row has
// more than GSQL_JOIN_SERIAL matches. Mode (`left`): 0 INNER, 1 LEFT, 2
// semi (cu marks rows with a match, cm is 0: the fill lists each kept row
// once), 3 anti (cu marks rows without one, NULL keys included); the
// table of a semi or anti join has no ranges.
extern "C" __global__ void __launch_bounds__(GSQL_JOIN_THREADS)
    gsql_join_count(const GCol* pk, const GCol* bk, long long nkeys, long long n, const int* slots,
                    const unsigned long long* rowhash, long long mask, const int* ranges,
                    long long left, int* cm, int* cu, int* start, long long* block_sums,
                    long long* heavy) {
  __shared__ long long red[2][GSQL_JOIN_THREADS];
  int nk = (int)nkeys;
  long long msum = 0, usum = 0;
  bool many = false;
  for (int k = 0; k < GSQL_JOIN_ITEMS; k++) {
    long long i = (long long)blockIdx.x * GSQL_JOIN_TILE + k * GSQL_JOIN_THREADS + threadIdx.x;
    if (i >= n) break;
    int m = 0, u = 0;
    bool found = false;
    long long p = 0;
    if (!gsql_any_null(pk, nk, i)) {
      unsigned long long h = gsql_row_hash(pk, nk, i);
      p = (long long)(h & (unsigned long long)mask);
      int s;
      while ((s = slots[p]) != -1) {
        if (rowhash[s] == h && gsql_rows_equal(pk, i, bk, s, nk)) {
          found = true;
          break;
        }
        p = (p + 1) & mask;
      }
    }
    if (left >= 2) {
      u = (left == 2) == found ? 1 : 0;
    } else {
      if (found) {
        int lo = ranges[2 * p];
        m = ranges[2 * p + 1] - lo;
        start[i] = lo;
      }
      u = (left && m == 0) ? 1 : 0;
    }
    cm[i] = m;
    cu[i] = u;
    msum += m;
    usum += u;
    many = many || m > GSQL_JOIN_SERIAL;
  }
  if (__syncthreads_or(many) && threadIdx.x == 0) *heavy = 1;
  red[0][threadIdx.x] = msum;
  red[1][threadIdx.x] = usum;
  __syncthreads();
  for (int s = GSQL_JOIN_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      red[0][threadIdx.x] += red[0][threadIdx.x + s];
      red[1][threadIdx.x] += red[1][threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    block_sums[2 * (long long)blockIdx.x] = red[0][0];
    block_sums[2 * (long long)blockIdx.x + 1] = red[1][0];
  }
}

// gsql_scan_pairs turns the per-block pairs of sums into exclusive prefix
// sums in place (one block of 1024 threads); totals[0..1] get the totals.
extern "C" __global__ void __launch_bounds__(1024)
    gsql_scan_pairs(long long* sums, long long nblocks, long long* totals) {
  __shared__ long long s[1024];
  for (int c = 0; c < 2; c++) {
    long long carry = 0;
    for (long long base = 0; base < nblocks; base += 1024) {
      long long idx = base + threadIdx.x;
      long long v = idx < nblocks ? sums[2 * idx + c] : 0;
      s[threadIdx.x] = v;
      __syncthreads();
      for (int d = 1; d < 1024; d <<= 1) {
        long long t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
        __syncthreads();
        s[threadIdx.x] += t;
        __syncthreads();
      }
      if (idx < nblocks) sums[2 * idx + c] = carry + s[threadIdx.x] - v;
      carry += s[1023];
      __syncthreads();
    }
    if (threadIdx.x == 0) totals[c] = carry;
  }
}

// gsql_join_fill places the row pairs: matched pairs first, in probe-row
// order with each row's matches in build-row order (the sorted rows keep
// it), then (LEFT) the unmatched probe rows paired with nullrow. off[i]
// gets the position of row i's first pair; a row with at most
// GSQL_JOIN_SERIAL matches writes its pairs, gsql_join_expand the others'.
// A tile's rows are scanned GSQL_JOIN_THREADS at a time, in row order,
// each round carrying the sums of the rounds before it.
extern "C" __global__ void __launch_bounds__(GSQL_JOIN_THREADS)
    gsql_join_fill(long long n, const int* cm, const int* cu, const int* start,
                   const unsigned int* rows, const long long* block_sums, const long long* totals,
                   long long* off, long long* li, long long* ri, long long nullrow) {
  __shared__ long long sm[GSQL_JOIN_THREADS], su[GSQL_JOIN_THREADS];
  long long cmsum = block_sums[2 * (long long)blockIdx.x];
  long long cusum = totals[0] + block_sums[2 * (long long)blockIdx.x + 1];
  for (int k = 0; k < GSQL_JOIN_ITEMS; k++) {
    long long first = (long long)blockIdx.x * GSQL_JOIN_TILE + k * GSQL_JOIN_THREADS;
    if (first >= n) break;
    long long i = first + threadIdx.x;
    long long m = i < n ? cm[i] : 0, u = i < n ? cu[i] : 0;
    sm[threadIdx.x] = m;
    su[threadIdx.x] = u;
    __syncthreads();
    for (int d = 1; d < GSQL_JOIN_THREADS; d <<= 1) {
      long long tm = threadIdx.x >= d ? sm[threadIdx.x - d] : 0;
      long long tu = threadIdx.x >= d ? su[threadIdx.x - d] : 0;
      __syncthreads();
      sm[threadIdx.x] += tm;
      su[threadIdx.x] += tu;
      __syncthreads();
    }
    if (i < n) {
      long long om = cmsum + sm[threadIdx.x] - m;
      long long ou = cusum + su[threadIdx.x] - u;
      off[i] = om;
      if (m > 0 && m <= GSQL_JOIN_SERIAL) {
        const unsigned int* r = rows + start[i];
        for (long long j = 0; j < m; j++) {
          li[om + j] = i;
          ri[om + j] = r[j];
        }
      }
      if (u) {
        li[ou] = i;
        ri[ou] = nullrow;
      }
    }
    cmsum += sm[GSQL_JOIN_THREADS - 1];
    cusum += su[GSQL_JOIN_THREADS - 1];
    // The next round overwrites sm and su only after every thread has
    // read this round's totals.
    __syncthreads();
  }
}

// gsql_join_expand writes the pairs of the rows with more than
// GSQL_JOIN_SERIAL matches, one thread per pair: pair k belongs to the
// last row whose first pair (off, ascending) is at most k. A key with
// many duplicates spreads over every thread instead of one.
extern "C" __global__ void gsql_join_expand(long long n, long long matched, const long long* off,
                                            const int* cm, const int* start,
                                            const unsigned int* rows, long long* li,
                                            long long* ri) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < matched; k += stride) {
    long long lo = 0, hi = n - 1;
    while (lo < hi) {
      long long mid = (lo + hi + 1) >> 1;
      if (off[mid] <= k)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (cm[lo] <= GSQL_JOIN_SERIAL) continue;
    li[k] = lo;
    ri[k] = rows[start[lo] + (k - off[lo])];
  }
}

// gsql_mark_rows sets mark[rows[k]] = 1 for every pair k whose BOOLEAN
// flag is TRUE (not NULL): a semi or anti join's residual condition,
// evaluated over its probe's pairs, marks the probe rows it holds for.
extern "C" __global__ void gsql_mark_rows(const long long* rows, const unsigned char* valid,
                                          long long nulloff, const unsigned char* flags,
                                          long long n, unsigned char* mark) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
    if (valid) {
      long long b = nulloff + k;
      if (((valid[b >> 3] >> (b & 7)) & 1) == 0) continue;
    }
    if (flags[k]) mark[rows[k]] = 1;
  }
}

// gsql_group_finish writes one aggregate's output column for the groups
// j in [0, n), from the state at slot occ[j] (a GROUP BY whose groups stay
// on the device): mode 0 the count; 1 a BIGINT sum; 2 a BIGINT sum's
// average; 3 a DOUBLE state (SUM, MIN, MAX); 4 a DOUBLE sum's average; 5
// the low word (MIN or MAX of a BIGINT); 6 a DECIMAL sum's 128 bits (two
// words a group); 7 a DECIMAL sum's average, the sum times p10 (10 to the
// output scale less the argument's) over the count, rounded half away from
// zero, below 10^precision (lim_lo, lim_hi). valid, when set, gets bit j
// for a group with a value (count > 0). *bad is set where the host must
// finish instead: a sum past BIGINT (modes 1, 2) or past 38 digits (6, 7),
// or an average past its precision (7). Mode 8 writes the winning row of
// MIN or MAX of text or DECIMAL (row 0 for a group without one, which is
// NULL), for a gather of the values.
extern "C" __global__ void gsql_group_finish(
    long long mode, unsigned long long* out, unsigned int* valid, const long long* count,
    const unsigned long long* w0, const unsigned long long* w1, const unsigned long long* w3,
    const int* occ, long long n, unsigned long long* bad, unsigned long long p10,
    unsigned long long lim_lo, unsigned long long lim_hi) {
  long long stride = (long long)gridDim.x * blockDim.x;
  int lane = threadIdx.x & 31;
  // Whole warps iterate together so that each writes one 32-bit word of
  // the validity bitmap (the stride is a multiple of 32).
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j - lane < n; j += stride) {
    bool has = false;
    if (j < n) {
      int s = occ[j];
      long long c = count[s];
      has = c > 0;
      unsigned long long lo = w0 ? w0[s] : 0;
      long long hi = w1 ? (long long)w1[s] : 0;
      bool fits = (hi == 0 && lo < (1ULL << 63)) || (hi == -1 && lo >= (1ULL << 63));
      switch (mode) {
        case 0: out[j] = (unsigned long long)c; break;
        case 1:
          if (has && !fits) *bad = 1;
          out[j] = lo;
          break;
        case 2: {
          if (has && !fits) *bad = 1;
          double v = has ? (double)(long long)lo / (double)c : 0.0;
          out[j] = __double_as_longlong(v);
          break;
        }
        case 3: out[j] = lo; break;
        case 4: {
          double v = has ? __longlong_as_double((long long)lo) / (double)c : 0.0;
          out[j] = __double_as_longlong(v);
          break;
        }
        case 5: out[j] = lo; break;
        case 8: out[j] = (long long)lo < 0 ? 0 : lo; break;
        case 6:
        case 7: {
          long long top = (long long)w3[s];
          // |sum| <= 10^38 - 1 (0x4b3b4ca85a86c47a098a223fffffffff).
          unsigned long long mlo = lo, mhi = (unsigned long long)hi;
          if (hi < 0) {
            mlo = ~lo + 1;
            mhi = ~(unsigned long long)hi + (mlo == 0 ? 1 : 0);
          }
          bool big = mhi > 0x4b3b4ca85a86c47aULL ||
                     (mhi == 0x4b3b4ca85a86c47aULL && mlo > 0x098a223fffffffffULL);
          if (has && (top != (hi >> 63) || big)) *bad = 1;
          if (mode == 6 || !has) {
            out[2 * j] = lo;
            out[2 * j + 1] = (unsigned long long)hi;
            break;
          }
          unsigned __int128 m = ((unsigned __int128)mhi << 64) | mlo;
          if (m > ((((unsigned __int128)1) << 127) - 1) / p10) {
            *bad = 1;
            break;
          }
          m *= p10;
          unsigned long long cnt = (unsigned long long)c;
          unsigned __int128 q = m / cnt;
          if (2 * (m % cnt) >= cnt) q++;
          if (q >= (((unsigned __int128)lim_hi << 64) | lim_lo)) *bad = 1;
          if (hi < 0) q = ~q + 1;
          out[2 * j] = (unsigned long long)q;
          out[2 * j + 1] = (unsigned long long)(q >> 64);
          break;
        }
      }
    }
    unsigned int word = __ballot_sync(0xffffffffu, has);
    if (valid && lane == 0) valid[j >> 5] = word;
  }
}

// gsql_part_keys sets each row's partition, the top bits of its group key
// hash (gsql_row_hash: equal keys share one), as a radix-sort key.
extern "C" __global__ void gsql_part_keys(const GCol* keys, long long nkeys, long long n,
                                          long long shift, unsigned long long* out) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = gsql_row_hash(keys, (int)nkeys, i) >> shift;
}

// gsql_part_bounds sets bounds[p], for p from 0 to parts, to the first
// position of the n sorted partition numbers whose number is >= p (n when
// none is).
extern "C" __global__ void gsql_part_bounds(const unsigned long long* sorted, long long n,
                                            long long parts, long long* bounds) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride) {
    long long lo = i == 0 ? 0 : (long long)sorted[i - 1] + 1;
    long long hi = i == n ? parts : (long long)sorted[i];
    for (long long p = lo; p <= hi; p++) bounds[p] = i;
  }
}

// gsql_rows_i64 widens n 32-bit row numbers to 64 bits, adding base.
extern "C" __global__ void gsql_rows_i64(const unsigned int* rows, long long n, long long base,
                                         long long* out) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = base + (long long)rows[i];
}

// gsql_win_int_avg is AVG of integers as a DECIMAL: the exact sum (lo,
// hi: 128 bits, two's complement) times p10 over the count c, rounded
// half away from zero, as decimal.Int128's DivRound (window AVG of
// integers, here and in window.cu). The caller keeps |sum| * p10 below
// 2^127.
__device__ __forceinline__ __int128 gsql_win_int_avg(unsigned long long lo, long long hi,
                                                     unsigned long long c, unsigned long long p10) {
  const __int128 sum = (__int128)(((unsigned __int128)(unsigned long long)hi << 64) | lo);
  unsigned __int128 m =
      sum < 0 ? (unsigned __int128)0 - (unsigned __int128)sum : (unsigned __int128)sum;
  m *= p10;
  unsigned __int128 q = 0;
  if ((unsigned long long)(m >> 64) == 0) {
    // The usual case: a 64-bit division, far cheaper than a 128-bit one.
    const unsigned long long m64 = (unsigned long long)m, r = m64 % c;
    q = m64 / c + (r >= c - r ? 1 : 0); // 2 * r >= c, without overflow
  }
  if ((unsigned long long)(m >> 64) != 0) q = m / c + (2 * (m % c) >= c ? 1 : 0);
  return sum < 0 ? -(__int128)q : (__int128)q;
}

// gsql_win_hash_finish gives every row its group's aggregate (a window
// aggregate over whole partitions, the partitions grouped by
// gsql_agg_insert): row i reads the states of slot slot_of[i] for kind
// (GSQL_AGG_*: COUNT(*), COUNT, SUM of BIGINT/BOOL or DOUBLE, MIN/MAX of
// BIGINT or DOUBLE) and writes an int64 or a double at out[i]; avg divides
// a sum by the count, and p10 (nonzero: 10 to the result's scale) makes an
// integer sum's average a DECIMAL (16 bytes, gsql_win_int_avg). A group
// without values leaves its rows' validity bits clear (NULL); COUNT has
// no validity. An integer SUM past BIGINT, or a DECIMAL average whose
// scaled sum passes 128 bits, sets *overflow (the host then computes it
// exactly).
extern "C" __global__ void gsql_win_hash_finish(long long kind, long long avg, long long n,
                                                const int* slot_of, const unsigned long long* cnt,
                                                const unsigned long long* s0,
                                                const unsigned long long* s1, void* out,
                                                unsigned int* valid, int* overflow,
                                                unsigned long long p10) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int slot = slot_of[i];
    const long long c = (long long)cnt[slot];
    if (kind == GSQL_AGG_COUNT_STAR || kind == GSQL_AGG_COUNT) {
      ((long long*)out)[i] = c;
      continue;
    }
    if (c == 0) continue; // NULL: the validity bit stays clear
    if (kind == GSQL_AGG_SUM_INT) {
      const unsigned long long lo = s0[slot];
      const long long hi = (long long)s1[slot];
      const bool fits = hi == ((long long)lo >> 63);
      if (avg && p10) {
        const unsigned long long mhi = hi < 0 ? ~(unsigned long long)hi : (unsigned long long)hi;
        // |sum| < (mhi + 1) * 2^64; the scaled sum must stay below 2^127.
        if ((unsigned __int128)(mhi + 1) * p10 > ((unsigned __int128)1 << 63)) {
          *overflow = 1;
          continue;
        }
        ((__int128*)out)[i] = gsql_win_int_avg(lo, hi, (unsigned long long)c, p10);
      } else if (avg) {
        // The exact 128-bit sum as a double, as the host's int128.
        double s = fits ? (double)(long long)lo : (double)hi * 18446744073709551616.0 + (double)lo;
        ((double*)out)[i] = s / (double)c;
      } else if (fits) {
        ((long long*)out)[i] = (long long)lo;
      } else {
        *overflow = 1;
        continue;
      }
    } else if (kind == GSQL_AGG_SUM_FLOAT && avg) {
      ((double*)out)[i] = __longlong_as_double((long long)s0[slot]) / (double)c;
    } else {
      // DOUBLE sums and MIN/MAX: the state's word is the value.
      ((unsigned long long*)out)[i] = s0[slot];
    }
    atomicOr(valid + (i >> 5), 1u << (i & 31));
  }
}
