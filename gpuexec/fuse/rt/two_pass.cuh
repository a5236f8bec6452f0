
// ---- Two-pass output building --------------------------------------------
//
// A kernel whose outputs have sizes known only row by row (strings, rows a
// filter drops) builds them in two passes over the same rows, as libcudf's
// string functions do:
//   gsql_sizes  evaluates every row for its counters (counter 0: the row is
//               kept; counter c > 0: the bytes of the c-th string output)
//               and stores one sum per block and counter;
//   gsql_scan   turns the block sums into each block's first offsets, in
//               place, and the totals, which the host reads to allocate
//               outputs of the exact size;
//   gsql_fill   evaluates the rows again, scans each tile's counters into
//               the rows' final places and writes there.
// These templates are that skeleton, written once; the kernels that use it
// (fused kernels, gpuexec/fuse/source.go, and the interpreter,
// interp_source.go) supply only the row evaluation and the writes.
//
// NC is the number of counters, BLOCK the threads of a block and TILE the
// rows a block evaluates at once: BLOCK, or BLOCK / 32 when each row is
// evaluated by a warp. Off is the type of the fill pass's offsets: 32 bits
// where the launcher guarantees outputs under 2^31 bytes.

#ifndef GSQL_HOST
// The rows [lo, hi) of block blockIdx.x: an equal share of whole tiles.
template <int TILE>
GSQL_INL void tp_block_rows(int64_t n, int64_t blocks, int64_t& lo, int64_t& hi) {
  int64_t chunk = ((n + blocks - 1) / blocks + TILE - 1) / TILE * TILE;
  lo = (int64_t)blockIdx.x * chunk;
  hi = lo + chunk < n ? lo + chunk : n;
}

// Pass 1's end: every thread's totals summed into block_sums[block * NC + c].
// All threads of the block call it.
template <int NC, int BLOCK>
GSQL_INL void tp_store_block_sums(const int64_t (&tot)[NC], int64_t* block_sums) {
  __shared__ int64_t red[BLOCK];
  for (int c = 0; c < NC; c++) {
    red[threadIdx.x] = tot[c];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[(int64_t)blockIdx.x * NC + c] = red[0];
    __syncthreads();
  }
}

// gsql_scan's body, run by one block of 1024 threads: the block sums become
// exclusive offsets in place and totals[c] the grand totals. Each thread
// takes a run of consecutive block sums and the runs' totals are scanned
// with warp shuffles: two barriers per counter (a step-by-step shared-memory
// scan costs a fixed ~10 us, felt at small batches).
template <int NC>
GSQL_INL void tp_scan_block_sums(int64_t blocks, int64_t* block_sums, int64_t* totals) {
  __shared__ int64_t wtot[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t per = (blocks + 1023) / 1024;
  const int64_t lo = (int64_t)threadIdx.x * per, hi = lo + per < blocks ? lo + per : blocks;
  for (int c = 0; c < NC; c++) {
    int64_t mine = 0;
    for (int64_t k = lo; k < hi; k++) mine += block_sums[k * NC + c];
    int64_t x = mine;
    for (int d = 1; d < 32; d <<= 1) {
      int64_t y = __shfl_up_sync(0xffffffffu, x, d);
      if (lane >= d) x += y;
    }
    if (lane == 31) wtot[warp] = x;
    __syncthreads();
    if (warp == 0) {
      int64_t w = wtot[lane];
      for (int d = 1; d < 32; d <<= 1) {
        int64_t y = __shfl_up_sync(0xffffffffu, w, d);
        if (lane >= d) w += y;
      }
      wtot[lane] = w;
    }
    __syncthreads();
    int64_t run = x - mine + (warp ? wtot[warp - 1] : 0);
    for (int64_t k = lo; k < hi; k++) {
      int64_t v = block_sums[k * NC + c];
      block_sums[k * NC + c] = run;
      run += v;
    }
    if (threadIdx.x == 0) totals[c] = wtot[31];
    __syncthreads();
  }
}

// Pass 2's start: the block's first offsets, from the scanned block sums.
template <typename Off, int NC>
GSQL_INL void tp_load_carry(const int64_t* block_sums, Off (&carry)[NC]) {
  for (int c = 0; c < NC; c++) carry[c] = (Off)block_sums[(int64_t)blockIdx.x * NC + c];
}

// Pass 2's tile scan: this thread's counts (zero for a lane that does not
// store a row) become its rows' exclusive offsets in off, from carry, and
// carry moves past the tile. Shuffles scan inside warps, one warp scans the
// warp totals: three barriers per tile. All threads of the block call it.
template <typename Off, int NC, int BLOCK>
GSQL_INL void tp_tile_offsets(const Off (&mine)[NC], Off (&off)[NC], Off (&carry)[NC]) {
  __shared__ Off wsum[NC][BLOCK / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int c = 0; c < NC; c++) {
    Off x = mine[c];
    for (int d = 1; d < 32; d <<= 1) {
      Off y = __shfl_up_sync(0xffffffffu, x, d);
      if (lane >= d) x += y;
    }
    off[c] = x - mine[c];
    if (lane == 31) wsum[c][warp] = x;
  }
  __syncthreads();
  if (warp == 0) {
    for (int c = 0; c < NC; c++) {
      Off w = lane < BLOCK / 32 ? wsum[c][lane] : 0;
      for (int d = 1; d < 32; d <<= 1) {
        Off y = __shfl_up_sync(0xffffffffu, w, d);
        if (lane >= d) w += y;
      }
      if (lane < BLOCK / 32) wsum[c][lane] = w;
    }
  }
  __syncthreads();
  for (int c = 0; c < NC; c++) {
    off[c] += carry[c] + (warp ? wsum[c][warp - 1] : 0);
    carry[c] += wsum[c][BLOCK / 32 - 1];
  }
  __syncthreads();
}
#endif
