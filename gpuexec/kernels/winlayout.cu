// Window layouts built on the device (winlayout.go, SortWindow): the rows
// are ordered by their partition and order keys without the keys leaving
// the device. Each key's order words (sort.cu's gsql_order_key, NULLs
// ranked by a bit above the value) are packed, value less the key's
// minimum, into as few 64-bit words as hold them (gsql_wl_range reads each
// key's range first); a stable radix sort per word, least significant
// word first, orders the rows (ties keep input order). Neighbouring sorted
// rows are then compared word by word: a difference in a partition key's
// bits starts a partition, any difference a peer group (gsql_wl_marks).
// Scans of those start marks number the partitions and peer groups;
// gsql_wl_ends records each group's [start, end) by its number and
// gsql_wl_spans gives every row its group's span. gsql_wl_frame computes
// frames from the spans.

// gsql_wl_null is whether row i is NULL in a validity bitmap (0: none).
__device__ __forceinline__ bool gsql_wl_null(const unsigned char* valid, long long off,
                                             long long i) {
  if (!valid) return false;
  long long b = off + i;
  return ((valid[b >> 3] >> (b & 7)) & 1) == 0;
}

// gsql_wl_range_reduce folds a thread's smallest and largest key and its
// NULL flag into r[0..2] (min, max, any NULL): across the warp by
// shuffles, then one atomic each per warp.
__device__ __forceinline__ void gsql_wl_range_reduce(unsigned long long lo, unsigned long long hi,
                                                     unsigned long long nul,
                                                     unsigned long long* r) {
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long x = __shfl_xor_sync(0xffffffffu, lo, o);
    unsigned long long y = __shfl_xor_sync(0xffffffffu, hi, o);
    unsigned long long z = __shfl_xor_sync(0xffffffffu, nul, o);
    lo = x < lo ? x : lo;
    hi = y > hi ? y : hi;
    nul |= z;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&r[0], lo);
    atomicMax(&r[1], hi);
    if (nul) atomicOr(&r[2], nul);
  }
}

// gsql_wl_range folds the order keys of the non-NULL rows into r[0] min
// and r[1] max, and sets r[2] when a row is NULL (the host starts them at
// ~0, 0, 0).
extern "C" __global__ void gsql_wl_range(long long type, const unsigned char* valid, long long off,
                                         const unsigned char* data, long long desc, long long n,
                                         unsigned long long* r) {
  unsigned long long lo = ~0ull, hi = 0ull, nul = 0ull;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (gsql_wl_null(valid, off, i)) {
      nul = 1;
      continue;
    }
    unsigned long long k = gsql_order_key(type, data, i, desc);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
  }
  gsql_wl_range_reduce(lo, hi, nul, r);
}

// gsql_wl_pack appends one field of a key to every row's word: rank (0 or
// 1) NULL-rank bits, then width bits of the key less kmin (0 for a NULL).
// The rank is 0 for the rows that sort first (NULLs when nulls_first).
// first: the word starts with this field.
extern "C" __global__ void gsql_wl_pack(long long type, const unsigned char* valid, long long off,
                                        const unsigned char* data, long long desc,
                                        long long nulls_first, unsigned long long kmin,
                                        long long rank, long long width, long long first,
                                        long long n, unsigned long long* out) {
  const long long sh = rank + width;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool null = gsql_wl_null(valid, off, i);
    unsigned long long v = 0;
    if (!null && width > 0) v = gsql_order_key(type, data, i, desc) - kmin;
    if (rank) v |= (unsigned long long)(null != (nulls_first != 0)) << width;
    unsigned long long prev = first ? 0ull : out[i];
    out[i] = (sh >= 64 ? 0ull : prev << sh) | v;
  }
}

// gsql_wl_str_range folds the byte lengths of a text column's non-NULL
// rows into r[0] min and r[1] max, and sets r[2] when a row is NULL (the
// host starts them at ~0, 0, 0): a text key packs whole when its longest
// string is short (SortRows).
extern "C" __global__ void gsql_wl_str_range(const unsigned char* valid, long long off,
                                             const int* offs, long long n, unsigned long long* r) {
  unsigned long long lo = ~0ull, hi = 0ull, nul = 0ull;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (gsql_wl_null(valid, off, i)) {
      nul = 1;
      continue;
    }
    unsigned long long k = (unsigned long long)(offs[i + 1] - offs[i]);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
  }
  gsql_wl_range_reduce(lo, hi, nul, r);
}

// gsql_wl_pack_str is gsql_wl_pack for a part of a text key: chunk >= 0
// the string's bytes [8 * chunk, 8 * chunk + bytes) big-endian, zero
// past its end; chunk < 0 its length. Strings compare as their chunks,
// then their lengths (a string zero-padded equal to a longer one is its
// prefix, so sorts first). desc reverses the value (~), as
// gsql_order_key does, before kmin is taken off.
extern "C" __global__ void gsql_wl_pack_str(const unsigned char* valid, long long off,
                                            const int* offs, const unsigned char* data,
                                            long long chunk, long long bytes, long long desc,
                                            long long nulls_first, unsigned long long kmin,
                                            long long rank, long long width, long long first,
                                            long long n, unsigned long long* out) {
  const long long sh = rank + width;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool null = gsql_wl_null(valid, off, i);
    unsigned long long v = 0;
    if (!null && width > 0) {
      const long long lo = offs[i], hi = offs[i + 1];
      unsigned long long k = 0;
      if (chunk < 0) {
        k = (unsigned long long)(hi - lo);
      } else {
        for (long long j = 0; j < bytes; j++) {
          const long long p = lo + 8 * chunk + j;
          k = (k << 8) | (p < hi ? data[p] : 0);
        }
      }
      v = (desc ? ~k : k) - kmin;
    }
    if (rank) v |= (unsigned long long)(null != (nulls_first != 0)) << width;
    unsigned long long prev = first ? 0ull : out[i];
    out[i] = (sh >= 64 ? 0ull : prev << sh) | v;
  }
}

// gsql_wl_gather: out[j] = words[rows[j]], a word in the order of the
// sorts so far (the keys of the next, stable, sort).
extern "C" __global__ void gsql_wl_gather(const unsigned long long* words, const unsigned int* rows,
                                          long long n, unsigned long long* out) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    out[j] = words[rows[j]];
}

// gsql_wl_marks compares each sorted position s with s-1 in one word
// (perm 0: words are in sorted order; else the word of row perm[s]):
// pc[s] is 1 where a partition starts (a difference under pmask), qc[s]
// where a peer group starts (any difference). first: the first word
// writes the marks, later ones add to them. words 0: no keys, one group.
extern "C" __global__ void gsql_wl_marks(const unsigned long long* words, const unsigned int* perm,
                                         long long n, unsigned long long pmask, long long first,
                                         long long* pc, long long* qc) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += stride) {
    long long p = s == 0, q = s == 0;
    if (s > 0 && words) {
      unsigned long long a = perm ? words[perm[s - 1]] : words[s - 1];
      unsigned long long b = perm ? words[perm[s]] : words[s];
      p = ((a ^ b) & pmask) != 0;
      q = a != b;
    }
    if (first) {
      pc[s] = p;
      qc[s] = q;
    } else {
      pc[s] |= p;
      qc[s] |= q;
    }
  }
}

// gsql_wl_ends records each partition's and peer group's [start, end) by
// its number (the inclusive scans pcs and qcs of the marks, less one).
extern "C" __global__ void gsql_wl_ends(long long n, const long long* pc, const long long* qc,
                                        const long long* pcs, const long long* qcs, int* pstart,
                                        int* pend, int* qstart, int* qend) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += stride) {
    const bool last = s == n - 1;
    if (pc[s]) pstart[pcs[s] - 1] = (int)s;
    if (last || pc[s + 1]) pend[pcs[s] - 1] = (int)(s + 1);
    if (qc[s]) qstart[qcs[s] - 1] = (int)s;
    if (last || qc[s + 1]) qend[qcs[s] - 1] = (int)(s + 1);
  }
}

// gsql_wl_spans gives every sorted position its partition [ps, pe), its
// peer group [qs, qe) and the number of peer groups before its own (ord).
extern "C" __global__ void gsql_wl_spans(long long n, const long long* pcs, const long long* qcs,
                                         const int* pstart, const int* pend, const int* qstart,
                                         const int* qend, int* ps, int* pe, int* qs, int* qe,
                                         int* ord) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += stride) {
    const long long p = pcs[s] - 1, q = qcs[s] - 1;
    ps[s] = pstart[p];
    pe[s] = pend[p];
    qs[s] = qstart[q];
    qe[s] = qend[q];
    ord[s] = (int)q;
  }
}

// gsql_wl_bound is where row s's frame starts (start: its first row) or
// ends (one past its last row), as operators/window's bound computes it.
__device__ __forceinline__ long long gsql_wl_bound(long long kind, long long k, long long rows,
                                                   bool start, long long s, long long ps,
                                                   long long pe, long long qs, long long qe) {
  switch (kind) {
    case GSQL_WIN_BOUND_UNBOUNDED_PRECEDING: return ps;
    case GSQL_WIN_BOUND_UNBOUNDED_FOLLOWING: return pe;
    case GSQL_WIN_BOUND_CURRENT_ROW:
      if (rows) return start ? s : s + 1;
      return start ? qs : qe;
  }
  long long pos = kind == GSQL_WIN_BOUND_PRECEDING ? s - k : s + k;
  if (!start) pos++;
  return pos < ps ? ps : (pos > pe ? pe : pos);
}

// gsql_wl_frame writes every row's frame [lo, hi) in sorted positions:
// rows (ROWS, else RANGE without offsets) between bound kinds sk and ek
// with offsets so and eo (at most n); hi is never below lo.
extern "C" __global__ void gsql_wl_frame(long long n, long long rows, long long sk, long long so,
                                         long long ek, long long eo, const int* ps, const int* pe,
                                         const int* qs, const int* qe, int* lo, int* hi) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += stride) {
    const long long a = gsql_wl_bound(sk, so, rows, true, s, ps[s], pe[s], qs[s], qe[s]);
    const long long b = gsql_wl_bound(ek, eo, rows, false, s, ps[s], pe[s], qs[s], qe[s]);
    lo[s] = (int)a;
    hi[s] = (int)(b > a ? b : a);
  }
}
