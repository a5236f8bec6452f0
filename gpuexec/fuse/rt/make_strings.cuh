// ---- generated-content functions: size then write ---------------------

GSQL_DEV int32_t replace_size(SV s, SV from, SV to) {
  if (from.n == 0) return s.n;
#ifdef GSQL_WARP
  if (from.n == 1) return w_replace1_size(s, (uint8_t)from.p[0], to);
#endif
  int32_t n = 0, i = 0;
  for (;;) {
    int32_t f = sv_find(s, from, i);
    if (f < 0) break;
    n += (f - i) + to.n;
    i = f + from.n;
  }
  return n + (s.n - i);
}

GSQL_DEV void replace_write(SV s, SV from, SV to, char* dst) {
  if (from.n == 0) {
    copy_bytes(dst, s.p, s.n);
    return;
  }
#ifdef GSQL_WARP
  if (from.n == 1) {
    w_replace1_write(s, (uint8_t)from.p[0], to, dst);
    return;
  }
#endif
  int32_t i = 0;
  for (;;) {
    int32_t f = sv_find(s, from, i);
    if (f < 0) break;
    copy_bytes(dst, s.p + i, f - i);
    dst += f - i;
    copy_bytes(dst, to.p, to.n);
    dst += to.n;
    i = f + from.n;
  }
  copy_bytes(dst, s.p + i, s.n - i);
}

GSQL_DEV void reverse_write(SV s, char* dst) {
  int32_t o = s.n;
  for (int32_t i = 0; i < s.n;) {
    int32_t w = char_width(s.p, i, s.n);
    o -= w;
    for (int32_t k = 0; k < w; k++) dst[o + k] = s.p[i + k];
    i += w;
  }
}

GSQL_INL int64_t repeat_size(SV s, int64_t n) { return n <= 0 ? 0 : (int64_t)s.n * n; }

GSQL_DEV void repeat_write(SV s, int64_t n, char* dst) {
  for (int64_t k = 0; k < n; k++)
    for (int32_t j = 0; j < s.n; j++) *dst++ = s.p[j];
}

// LPAD/RPAD(s, len, pad): exactly len characters. null is set when MySQL
// returns NULL (len < 0, or padding needed with an empty pad).
GSQL_DEV int32_t pad_size(SV s, int64_t len, SV pad, bool* null) {
  *null = false;
  if (len < 0) {
    *null = true;
    return 0;
  }
  int64_t cl = char_len(s);
  if (len <= cl) return char_offset(s, len);
  if (pad.n == 0) {
    *null = true;
    return 0;
  }
  int64_t need = len - cl;
  int64_t pl = char_len(pad);
  int64_t full = need / pl;
  int64_t rest = need % pl;
  return (int32_t)(s.n + full * pad.n + char_offset(pad, rest));
}

GSQL_DEV void pad_write(SV s, int64_t len, SV pad, bool leftpad, char* dst) {
  int64_t cl = char_len(s);
  if (len <= cl) {
    int32_t b = char_offset(s, len);
    for (int32_t k = 0; k < b; k++) dst[k] = s.p[k];
    return;
  }
  int64_t need = len - cl;
  int64_t pl = char_len(pad);
  int64_t full = need / pl;
  int32_t restb = char_offset(pad, need % pl);
  if (!leftpad) {
    for (int32_t k = 0; k < s.n; k++) *dst++ = s.p[k];
  }
  for (int64_t f = 0; f < full; f++)
    for (int32_t k = 0; k < pad.n; k++) *dst++ = pad.p[k];
  for (int32_t k = 0; k < restb; k++) *dst++ = pad.p[k];
  if (leftpad) {
    for (int32_t k = 0; k < s.n; k++) *dst++ = s.p[k];
  }
}
