// Kernels of gsql's GPU runtime (package gpuexec): validity-bitmap shifting,
// string-offset rebasing and small gathers used by ContiguousSplit,
// Concatenate, Pack and ChunkedPack. Compiled at run time with NVRTC; no
// headers, all parameters 64-bit.

// gsql_copy_bits writes bits [src_bit, src_bit+nbits) of src to bits
// [dst_bit, dst_bit+nbits) of dst. Bits below dst_bit in the first byte are
// kept, bits above the range in the last byte are cleared. src == 0 means
// all ones. One thread per destination byte (grid-stride), so no two threads
// touch one byte.
extern "C" __global__ void gsql_copy_bits(unsigned char* dst, long long dst_bit,
                                          const unsigned char* src, long long src_bit,
                                          long long nbits) {
  if (nbits <= 0) return;
  long long first = dst_bit >> 3;
  long long last = (dst_bit + nbits + 7) >> 3;
  long long src_last = (src_bit + nbits - 1) >> 3;
  long long end = dst_bit + nbits;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = first + (long long)blockIdx.x * blockDim.x + threadIdx.x; j < last;
       j += stride) {
    long long lo = j * 8;
    unsigned int out = 0xffu;
    if (src != 0) {
      long long s = src_bit + (lo - dst_bit);
      long long sb = s >> 3;
      unsigned int sh = (unsigned int)(s & 7);
      unsigned int w = 0;
      if (sb >= 0) w = src[sb];
      if (sh != 0 && sb + 1 >= 0 && sb + 1 <= src_last) w |= ((unsigned int)src[sb + 1]) << 8;
      out = (w >> sh) & 0xffu;
    }
    unsigned int keep = 0;
    if (lo < dst_bit) keep = (1u << (unsigned int)(dst_bit - lo)) - 1u;
    unsigned int valid = 0xffu;
    if (lo + 8 > end) valid = (1u << (unsigned int)(end - lo)) - 1u;
    unsigned int old = keep ? (unsigned int)dst[j] : 0u;
    dst[j] = (unsigned char)((old & keep) | (out & valid & ~keep));
  }
}

// gsql_rebase_offsets: dst[i] = src[i] + delta for i in [0, count).
extern "C" __global__ void gsql_rebase_offsets(int* dst, const int* src, long long count,
                                               long long delta) {
  long long stride = (long long)gridDim.x * blockDim.x;
  int d = (int)delta;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    dst[i] = src[i] + d;
  }
}

// gsql_gather_i32: out[i] = *(const int*)addrs[i] for i in [0, n); reads the
// string offsets at split points in one launch.
extern "C" __global__ void gsql_gather_i32(int* out, const unsigned long long* addrs, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = *(const int*)addrs[i];
  }
}

// gsql_copy_rw reads and writes n 16-byte words (a bandwidth probe for the
// benchmarks; memcpy through the copy engine is measured separately).
struct alignas(16) gsql_u4 {
  unsigned int x, y, z, w;
};

extern "C" __global__ void gsql_copy_rw(gsql_u4* dst, const gsql_u4* src, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    dst[i] = src[i];
  }
}
