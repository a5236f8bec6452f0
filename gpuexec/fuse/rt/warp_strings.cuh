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
  int32_t room = s.n - needle.n + 1; // where a match can start
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
  uint32_t lo = upper ? 0x1F1F1F1Fu : 0x3F3F3F3Fu; // 0x80 - 'a', 0x80 - 'A'
  uint32_t hi = upper ? 0x05050505u : 0x25252525u; // 0x80 - 'z' - 1, 0x80 - 'Z' - 1
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
GSQL_DEV int32_t w_utf8_chunk(SV s, int32_t at, const CaseMap* m, bool upper, char* out,
                              bool* bad) {
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
