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
    if (f < r)
      lo = mid + 1;
    else
      hi = mid - 1;
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
