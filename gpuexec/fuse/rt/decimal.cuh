// ---- DECIMAL ------------------------------------------------------------
//
// Mirrors package decimal and expr/decimal.go: a DECIMAL(p,s) value is a
// 128-bit integer scaled by 10^s, stored as two little-endian 64-bit words
// (Arrow decimal128). Every operation reports overflow (a result beyond
// the type's precision) through its bool; the generated code then sets
// GSQL_ERR_DECIMAL and the host evaluates the batch on the CPU, which
// raises the exact error. No operation here uses the compiler's 128-bit
// division (a library call on the device): dec_udivmod divides with 64-bit
// hardware division when it can and by shift-subtract otherwise.

#define GSQL_ERR_DECIMAL 5

typedef __int128 dec_t;
typedef unsigned __int128 udec_t;

GSQL_INL dec_t dec_make(uint64_t lo, uint64_t hi) {
  return (dec_t)(((udec_t)hi << 64) | (udec_t)lo);
}
GSQL_INL dec_t dec_load(const void* p, int64_t i) {
  const uint64_t* w = (const uint64_t*)p + 2 * i;
  return dec_make(w[0], w[1]);
}
GSQL_INL void dec_store(void* p, int64_t i, dec_t v) {
  uint64_t* w = (uint64_t*)p + 2 * i;
  w[0] = (uint64_t)(udec_t)v;
  w[1] = (uint64_t)((udec_t)v >> 64);
}
GSQL_INL udec_t dec_abs(dec_t x) { return x < 0 ? (udec_t)0 - (udec_t)x : (udec_t)x; }
GSQL_INL dec_t dec_signed(udec_t m, bool neg) { return neg ? (dec_t)((udec_t)0 - m) : (dec_t)m; }

// dec_pow10 is 10^n for n in [0, 38] (constant-folded where n is).
GSQL_INL udec_t dec_pow10(int32_t n) {
  udec_t r = 1;
  for (int32_t k = 0; k < n; k++) r *= 10;
  return r;
}

// dec_fits reports |x| < 10^p.
GSQL_INL bool dec_fits(dec_t x, int32_t p) { return dec_abs(x) < dec_pow10(p); }

GSQL_INL int32_t dec_clz(udec_t x) {
  uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
#ifdef GSQL_HOST
  if (hi) return __builtin_clzll(hi);
  return lo ? 64 + __builtin_clzll(lo) : 128;
#else
  if (hi) return __clzll((long long)hi);
  return lo ? 64 + __clzll((long long)lo) : 128;
#endif
}

// dec_udivmod divides n by d (d > 0): the quotient, and the remainder in *rem.
GSQL_DEV udec_t dec_udivmod(udec_t n, udec_t d, udec_t* rem) {
  if ((n >> 64) == 0 && (d >> 64) == 0) {
    uint64_t a = (uint64_t)n, b = (uint64_t)d;
    *rem = a % b;
    return a / b;
  }
  if (d > n) {
    *rem = n;
    return 0;
  }
  int32_t shift = dec_clz(d) - dec_clz(n);
  d <<= shift;
  udec_t q = 0;
  for (int32_t k = 0; k <= shift; k++) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    d >>= 1;
  }
  *rem = n;
  return q;
}

// dec_quo is x / y toward zero (y != 0); *half says 2|remainder| >= |y|.
GSQL_DEV dec_t dec_quo(dec_t x, dec_t y, bool* half) {
  udec_t ay = dec_abs(y), r;
  udec_t q = dec_udivmod(dec_abs(x), ay, &r);
  *half = r >= ay - r;
  return dec_signed(q, (x < 0) != (y < 0));
}

// dec_divround is x / y rounded half away from zero (y != 0).
GSQL_DEV dec_t dec_divround(dec_t x, dec_t y) {
  bool half;
  dec_t q = dec_quo(x, y, &half);
  if (half) q += (x < 0) != (y < 0) ? -1 : 1;
  return q;
}

// dec_mul multiplies exactly; false when the product leaves 128 bits.
GSQL_DEV bool dec_mul(dec_t x, dec_t y, dec_t* r) {
  udec_t a = dec_abs(x), b = dec_abs(y);
  bool neg = (x < 0) != (y < 0);
  udec_t m;
  if ((a >> 64) == 0 && (b >> 64) == 0) {
    m = a * b;
  } else {
    if (a != 0 && b != 0) {
      udec_t rem;
      if (dec_udivmod(~(udec_t)0 >> 1, b, &rem) < a) return false;
    }
    m = a * b;
  }
  if (m > (~(udec_t)0 >> 1) && !(neg && m == ((udec_t)1 << 127))) return false;
  *r = dec_signed(m, neg);
  return true;
}

GSQL_INL bool dec_add(dec_t x, dec_t y, dec_t* r) {
  dec_t s = (dec_t)((udec_t)x + (udec_t)y);
  if ((x < 0) == (y < 0) && (s < 0) != (x < 0)) return false;
  *r = s;
  return true;
}

// dec_rescale changes x's scale from s to t: exact multiplication, or
// division rounding half away from zero (decimal.Int128.Rescale).
GSQL_DEV bool dec_rescale(dec_t x, int32_t s, int32_t t, dec_t* r) {
  if (t == s) {
    *r = x;
    return true;
  }
  if (t > s) return dec_mul(x, (dec_t)dec_pow10(t - s), r);
  *r = dec_divround(x, (dec_t)dec_pow10(s - t));
  return true;
}

// dec_fit stores x in *r when it has at most p digits.
GSQL_INL bool dec_fit(dec_t x, int32_t p, dec_t* r) {
  if (!dec_fits(x, p)) return false;
  *r = x;
  return true;
}

// dec_addsub is x (scale sx) + or - y (scale sy) at the result's scale sr
// and precision p (expr.decimalArith's + and -).
GSQL_DEV bool dec_addsub(dec_t x, int32_t sx, dec_t y, int32_t sy, bool sub, int32_t sr, int32_t p,
                         dec_t* r) {
  int32_t s = sx > sy ? sx : sy;
  dec_t a, b, c;
  if (!dec_rescale(x, sx, s, &a) || !dec_rescale(y, sy, s, &b)) return false;
  if (sub) {
    if (b == (dec_t)((udec_t)1 << 127)) return false;
    b = -b;
  }
  if (!dec_add(a, b, &c) || !dec_rescale(c, s, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_mulr is x * y (scales sx + sy) at scale sr and precision p.
GSQL_DEV bool dec_mulr(dec_t x, dec_t y, int32_t sxy, int32_t sr, int32_t p, dec_t* r) {
  dec_t c;
  if (!dec_mul(x, y, &c) || !dec_rescale(c, sxy, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_div is x / y (y != 0) at scale sr, rounded half away from zero:
// x * 10^(sr+sy-sx) / y.
GSQL_DEV bool dec_div(dec_t x, int32_t sx, dec_t y, int32_t sy, int32_t sr, int32_t p, dec_t* r) {
  int32_t shift = sr + sy - sx;
  dec_t num = x, den = y;
  if (shift >= 0) {
    if (!dec_mul(x, (dec_t)dec_pow10(shift), &num)) return false;
  } else if (!dec_mul(y, (dec_t)dec_pow10(-shift), &den)) {
    return false;
  }
  return dec_fit(dec_divround(num, den), p, r);
}

// dec_intdiv is x DIV y (y != 0): the exact quotient at the common scale,
// truncated toward zero; false when a step leaves 128 bits or the result
// leaves BIGINT.
GSQL_DEV bool dec_intdiv(dec_t x, int32_t sx, dec_t y, int32_t sy, int64_t* r) {
  int32_t s = sx > sy ? sx : sy;
  dec_t a, b;
  if (!dec_rescale(x, sx, s, &a) || !dec_rescale(y, sy, s, &b)) return false;
  bool half;
  dec_t q = dec_quo(a, b, &half);
  if (q > (dec_t)0x7FFFFFFFFFFFFFFFLL || q < -(dec_t)0x7FFFFFFFFFFFFFFFLL - 1) return false;
  *r = (int64_t)q;
  return true;
}

// dec_mod is x - trunc(x/y)*y (y != 0) at the common scale, then sr.
GSQL_DEV bool dec_mod(dec_t x, int32_t sx, dec_t y, int32_t sy, int32_t sr, int32_t p, dec_t* r) {
  int32_t s = sx > sy ? sx : sy;
  dec_t a, b, m;
  if (!dec_rescale(x, sx, s, &a) || !dec_rescale(y, sy, s, &b)) return false;
  bool half;
  dec_t q = dec_quo(a, b, &half);
  if (!dec_mul(q, b, &m)) return false;
  dec_t c = (dec_t)((udec_t)a - (udec_t)m);
  if (!dec_rescale(c, s, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_cast converts scale s to scale t and precision p (CAST between
// decimals, and BIGINT (scale 0) to DECIMAL).
GSQL_DEV bool dec_cast(dec_t x, int32_t s, int32_t t, int32_t p, dec_t* r) {
  dec_t c;
  if (!dec_rescale(x, s, t, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_round is ROUND (half away from zero) or TRUNCATE (toward zero) of x
// (scale s) to d digits after the point, at the result's scale sr and
// precision p (expr.decimalRound).
GSQL_DEV bool dec_round(dec_t x, int32_t s, int64_t d, bool trunc, int32_t sr, int32_t p,
                        dec_t* r) {
  int64_t drop = (int64_t)s - d;
  dec_t c = x;
  if (drop > 0) {
    if (drop > 38) {
      c = 0;
    } else {
      dec_t q = (dec_t)dec_pow10((int32_t)drop);
      bool half;
      c = trunc ? dec_quo(x, q, &half) : dec_divround(x, q);
      if (!dec_mul(c, q, &c)) return false;
    }
  }
  if (!dec_rescale(c, s, sr, &c)) return false;
  return dec_fit(c, p, r);
}

// dec_floor_ceil rounds x (scale s) down or up to an integer.
GSQL_DEV bool dec_floor_ceil(dec_t x, int32_t s, bool ceil, int32_t p, dec_t* r) {
  dec_t u = (dec_t)dec_pow10(s);
  bool half;
  dec_t q = dec_quo(x, u, &half);
  dec_t back = q * u;
  if (ceil && x > back) q += 1;
  if (!ceil && x < back) q -= 1;
  return dec_fit(q, p, r);
}

// dec_to_int is CAST(x AS SIGNED): rounded half away from zero; false
// when it leaves BIGINT.
GSQL_DEV bool dec_to_int(dec_t x, int32_t s, int64_t* r) {
  dec_t c;
  dec_rescale(x, s, 0, &c);
  if (c > (dec_t)0x7FFFFFFFFFFFFFFFLL || c < -(dec_t)0x7FFFFFFFFFFFFFFFLL - 1) return false;
  *r = (int64_t)c;
  return true;
}

// dec_to_double is x / 10^s where the CPU computes it in one division
// (decimal.Int128.Float64's fast path); other values set *fallback.
GSQL_DEV double dec_to_double(dec_t x, int32_t s, bool* fallback) {
  if (x >= (dec_t)(1LL << 53) || x <= -(dec_t)(1LL << 53) || s > 22) {
    *fallback = true;
    return 0.0;
  }
  const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  return (double)(int64_t)x / p10[s];
}

// dec_from_double converts f to scale s and precision p the way the CPU
// does (its shortest decimal digits, rounded half away from zero): f*10^s
// rounded, except near a rounding tie or beyond 2^52, where the shortest
// digits decide and *fallback hands the batch to the CPU.
GSQL_DEV bool dec_from_double(double f, int32_t s, int32_t p, dec_t* r, bool* fallback) {
  if (f != f || f - f != 0.0 || s > 22) {
    *fallback = true;
    return true;
  }
  const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  double y = f * p10[s];
  double a = fabs(y);
  if (a >= 4503599627370496.0) {
    *fallback = true;
    return true;
  }
  double t = floor(a);
  double frac = a - t;
  if (fabs(frac - 0.5) <= 1e-9 * (a + 1.0)) {
    *fallback = true;
    return true;
  }
  if (frac > 0.5) t += 1.0;
  dec_t v = (dec_t)(int64_t)t;
  return dec_fit(y < 0 ? -v : v, p, r);
}

// dec_parse is CAST(text AS DECIMAL(p,s)) (expr.castDecimal over
// numericPrefix): spaces, a sign, digits with an optional point; no digits
// give 0. More than 38 significant digits or an exponent set *fallback.
GSQL_DEV bool dec_parse(SV str, int32_t s, int32_t p, dec_t* r, bool* fallback) {
  int32_t i = 0;
  while (i < str.n && (str.p[i] == ' ' || str.p[i] == '\t' || str.p[i] == '\n' || str.p[i] == '\r'))
    i++;
  bool neg = false;
  if (i < str.n && (str.p[i] == '+' || str.p[i] == '-')) {
    neg = str.p[i] == '-';
    i++;
  }
  udec_t m = 0;
  int32_t sig = 0, frac = 0, digits = 0;
  bool point = false, up = false, dropped = false;
  for (; i < str.n; i++) {
    char c = str.p[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    digits++;
    if (point) {
      if (frac >= s) {
        // Digits past the scale round: the first decides (half away
        // from zero), the rest cannot change it.
        if (!dropped) up = c >= '5';
        dropped = true;
        continue;
      }
      frac++;
    }
    if (m == 0 && c == '0') {
      continue;
    }
    if (sig >= 38) {
      *fallback = true;
      return true;
    }
    m = m * 10 + (udec_t)(c - '0');
    sig++;
  }
  if (digits == 0) {
    *r = 0;
    return true;
  }
  if (i < str.n && (str.p[i] == 'e' || str.p[i] == 'E')) {
    int32_t j = i + 1;
    if (j < str.n && (str.p[j] == '+' || str.p[j] == '-')) j++;
    if (j < str.n && str.p[j] >= '0' && str.p[j] <= '9') {
      *fallback = true;
      return true;
    }
  }
  for (; frac < s; frac++) {
    if (sig >= 38) {
      *fallback = true;
      return true;
    }
    m *= 10;
    if (m != 0) sig++;
  }
  if (up) m += 1;
  return dec_fit(dec_signed(m, neg), p, r);
}

// dec_digits is the number of decimal digits of u (0 for 0).
GSQL_INL int32_t dec_digits(udec_t u) {
  int32_t n = 0;
  udec_t p = 1;
  while (u >= p) {
    n++;
    if (n == 39) break;
    p *= 10;
  }
  return n;
}

// dec_text_len and dec_text_write format x with exactly s digits after
// the point (decimal.Int128.Append).
GSQL_DEV int32_t dec_text_len(dec_t x, int32_t s) {
  int32_t n = dec_digits(dec_abs(x));
  int32_t len = n <= s ? 1 + (s > 0 ? 1 + s : 0) : n + (s > 0 ? 1 : 0);
  return len + (x < 0 ? 1 : 0);
}

GSQL_DEV void dec_text_write(dec_t x, int32_t s, char* dst) {
  int32_t len = dec_text_len(x, s);
  udec_t u = dec_abs(x);
  if (x < 0) dst[0] = '-';
  int32_t k = len - 1, done = 0;
  int32_t stop = x < 0 ? 1 : 0;
  while (k >= stop) {
    if (s > 0 && done == s) {
      dst[k--] = '.';
      done++;
      continue;
    }
    udec_t rem;
    u = dec_udivmod(u, 10, &rem);
    dst[k--] = (char)('0' + (int32_t)rem);
    done++;
  }
}

// dec_reg reads an interpreter register's DECIMAL (a view of 16 bytes;
// none after a scratch overflow, which fails the batch anyway).
GSQL_INL dec_t dec_reg(const char* p) { return p ? dec_load(p, 0) : (dec_t)0; }

// dec_scratch stores an interpreter operation's DECIMAL result in the
// row's scratch, 8-byte aligned, and returns its address (0 on overflow).
GSQL_DEV const char* dec_scratch(Scratch& s, dec_t v) {
  s.used = (s.used + 7) & ~7;
  char* p = scratch_take(s, 16);
  if (p) dec_store(p, 0, v);
  return p;
}

// dec_cmp is -1, 0 or 1 as x < y, x == y, x > y.
GSQL_INL int32_t dec_cmp(dec_t x, dec_t y) { return x < y ? -1 : (x > y ? 1 : 0); }
