// ---- HEX, UNHEX, TO_BASE64, FROM_BASE64 ----

GSQL_INL char hex_digit(uint32_t v, bool upper) {
  return (char)(v < 10 ? '0' + v : (upper ? 'A' : 'a') + v - 10);
}

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
    uint32_t v = ((uint32_t)(uint8_t)s.p[i] << 16) | ((uint32_t)(uint8_t)s.p[i + 1] << 8) |
                 (uint8_t)s.p[i + 2];
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
        return -1; // an unfinished quantum (padding is required)
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
      if (si < s.n) return -1; // trailing garbage
      dlen = j;
      done = true;
      break;
    }
    uint32_t v =
        ((uint32_t)d[0] << 18) | ((uint32_t)d[1] << 12) | ((uint32_t)d[2] << 6) | (uint32_t)d[3];
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
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};

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
    if (at < s.n)
      b = (uint8_t)s.p[at];
    else if (at == s.n)
      b = 0x80;
    blk[i] = b;
  }
  int64_t nblocks = ((int64_t)s.n + 1 + (bs == 64 ? 8 : 16) + bs - 1) / bs;
  if (k == nblocks - 1) {
    for (int32_t i = 0; i < 8; i++) {
      uint8_t b = (uint8_t)(bits >> (8 * i));
      if (little)
        blk[bs - 8 + i] = b;
      else
        blk[bs - 1 - i] = b;
    }
  }
}

GSQL_INL int64_t dg_blocks(SV s, int32_t bs) {
  return ((int64_t)s.n + 1 + (bs == 64 ? 8 : 16) + bs - 1) / bs;
}

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
      x[i] = (uint32_t)blk[4 * i] | ((uint32_t)blk[4 * i + 1] << 8) |
             ((uint32_t)blk[4 * i + 2] << 16) | ((uint32_t)blk[4 * i + 3] << 24);
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
      w[i] = ((uint32_t)blk[4 * i] << 24) | ((uint32_t)blk[4 * i + 1] << 16) |
             ((uint32_t)blk[4 * i + 2] << 8) | blk[4 * i + 3];
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

// SHA-2's rotation amounts, as compile-time constants: the message
// schedule's s0 and s1 (two rotations and a shift each), then the rounds'
// S0 and S1 (three rotations each).
struct Sha256Rot {
  enum { s0a = 7, s0b = 18, s0c = 3, s1a = 17, s1b = 19, s1c = 10 };
  enum { S0a = 2, S0b = 13, S0c = 22, S1a = 6, S1b = 11, S1c = 25 };
};
struct Sha512Rot {
  enum { s0a = 1, s0b = 8, s0c = 7, s1a = 19, s1b = 61, s1c = 6 };
  enum { S0a = 28, S0b = 34, S0c = 39, S1a = 14, S1b = 18, S1c = 41 };
};

template <typename W>
GSQL_INL W sha2_rotr(W x, int32_t n) {
  return (x >> n) | (x << (int32_t)(8 * sizeof(W) - n));
}

// sha2_compress expands the block's first 16 words in w to ROUNDS, runs
// the rounds and adds them into h: SHA-256 (32-bit words, 64 rounds) and
// SHA-512 (64-bit, 80) differ only in these parameters.
template <typename W, int ROUNDS, typename R>
GSQL_INL void sha2_compress(W (&h)[8], W (&w)[ROUNDS], const W* k) {
  for (int32_t i = 16; i < ROUNDS; i++) {
    W s0 = sha2_rotr(w[i - 15], R::s0a) ^ sha2_rotr(w[i - 15], R::s0b) ^ (w[i - 15] >> R::s0c);
    W s1 = sha2_rotr(w[i - 2], R::s1a) ^ sha2_rotr(w[i - 2], R::s1b) ^ (w[i - 2] >> R::s1c);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  W v[8];
  for (int32_t j = 0; j < 8; j++) v[j] = h[j];
  for (int32_t i = 0; i < ROUNDS; i++) {
    W S1 = sha2_rotr(v[4], R::S1a) ^ sha2_rotr(v[4], R::S1b) ^ sha2_rotr(v[4], R::S1c);
    W ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
    W t1 = v[7] + S1 + ch + k[i] + w[i];
    W S0 = sha2_rotr(v[0], R::S0a) ^ sha2_rotr(v[0], R::S0b) ^ sha2_rotr(v[0], R::S0c);
    W mj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    for (int32_t j = 7; j > 0; j--) v[j] = v[j - 1];
    v[4] += t1;
    v[0] = t1 + S0 + mj;
  }
  for (int32_t j = 0; j < 8; j++) h[j] += v[j];
}

// sha256_write is SHA-256 (SHA-224 when small: other initial values, the
// digest cut to 28 bytes).
GSQL_RE_FN void sha256_write(SV s, bool small, char* dst) {
  uint32_t h[8];
  if (small) {
    const uint32_t h0[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                            0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  } else {
    const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  }
  uint8_t blk[64];
  int64_t nb = dg_blocks(s, 64);
  for (int64_t k = 0; k < nb; k++) {
    dg_block(s, k, 64, false, blk);
    uint32_t w[64];
    for (int32_t i = 0; i < 16; i++)
      w[i] = ((uint32_t)blk[4 * i] << 24) | ((uint32_t)blk[4 * i + 1] << 16) |
             ((uint32_t)blk[4 * i + 2] << 8) | blk[4 * i + 3];
    sha2_compress<uint32_t, 64, Sha256Rot>(h, w, sha256_k);
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
    const uint64_t h0[8] = {0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL,
                            0x152fecd8f70e5939ULL, 0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
                            0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL};
    for (int32_t i = 0; i < 8; i++) h[i] = h0[i];
  } else {
    const uint64_t h0[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                            0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                            0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
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
    sha2_compress<uint64_t, 80, Sha512Rot>(h, w, sha512_k);
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
  if (bits == 0 || bits == 256)
    sha256_write(s, false, dst);
  else if (bits == 224)
    sha256_write(s, true, dst);
  else if (bits == 384)
    sha512_write(s, true, dst);
  else if (bits == 512)
    sha512_write(s, false, dst);
}
// ==== end of issue 18's section ===========================================
