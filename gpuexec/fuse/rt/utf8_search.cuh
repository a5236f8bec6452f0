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
  if (w == 3)
    return ((b0 & 0x0F) << 12) | (((uint8_t)p[i + 1] & 0x3F) << 6) | ((uint8_t)p[i + 2] & 0x3F);
  return ((b0 & 0x07) << 18) | (((uint8_t)p[i + 1] & 0x3F) << 12) |
         (((uint8_t)p[i + 2] & 0x3F) << 6) | ((uint8_t)p[i + 3] & 0x3F);
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
  SV room = sv_make(s.p, s.n - needle.n + 1); // where a match can start
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

GSQL_INL bool ends_with(SV s, SV suf) {
  return suf.n <= s.n && mem_eq(s.p + s.n - suf.n, suf.p, suf.n);
}

GSQL_INL bool contains(SV s, SV needle) { return sv_find(s, needle, 0) >= 0; }
