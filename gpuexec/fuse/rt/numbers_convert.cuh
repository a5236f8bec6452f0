// ---- numbers -----------------------------------------------------------

GSQL_INL bool add_overflows(int64_t a, int64_t b, int64_t* r) {
  uint64_t u = (uint64_t)a + (uint64_t)b;
  *r = (int64_t)u;
  return ((a ^ *r) & (b ^ *r)) < 0;
}

GSQL_INL bool sub_overflows(int64_t a, int64_t b, int64_t* r) {
  uint64_t u = (uint64_t)a - (uint64_t)b;
  *r = (int64_t)u;
  return ((a ^ b) & (a ^ *r)) < 0;
}

GSQL_INL bool mul_overflows(int64_t a, int64_t b, int64_t* r) {
  *r = (int64_t)((uint64_t)a * (uint64_t)b);
  if (a == 0 || b == 0) return false;
  if ((a == -1 && b == (int64_t)0x8000000000000000ULL) ||
      (b == -1 && a == (int64_t)0x8000000000000000ULL))
    return true;
  return *r / b != a;
}

// Row-level error codes reported to the host (first one wins).
#define GSQL_ERR_OVERFLOW 1
#define GSQL_ERR_SCRATCH 2
#define GSQL_ERR_TOO_LONG 3

// Input access.
GSQL_INL bool in_null(const uint8_t* valid, int64_t i) {
  return valid && !((valid[i >> 3] >> (i & 7)) & 1);
}

GSQL_INL SV in_str(const int32_t* off, const char* chars, int64_t i) {
  int32_t lo = off[i];
  return sv_make(chars + lo, off[i + 1] - lo);
}

// out_null clears row i's bit of a validity bitmap stored as 32-bit words.
GSQL_INL void out_null(uint32_t* valid, int64_t i) {
#ifdef GSQL_HOST
  valid[i >> 5] &= ~(1u << (i & 31));
#else
  atomicAnd(valid + (i >> 5), ~(1u << (i & 31)));
#endif
}

// double_to_int converts as CAST(x AS SIGNED): round half away from zero,
// NaN to 0, out-of-range values clamped.
GSQL_DEV int64_t double_to_int(double x) {
  if (x != x) return 0;
  double r = round(x);
  if (r >= 9223372036854775807.0) return (int64_t)0x7FFFFFFFFFFFFFFFLL;
  if (r <= -9223372036854775808.0) return (int64_t)0x8000000000000000ULL;
  return (int64_t)r;
}

// ---- conversions -------------------------------------------------------

#define GSQL_ERR_FALLBACK 4

#ifdef GSQL_HOST
GSQL_INL double gsql_inf() { return HUGE_VAL; }
GSQL_INL double gsql_nan() { return NAN; }
#else
GSQL_INL double gsql_inf() { return __longlong_as_double(0x7ff0000000000000LL); }
GSQL_INL double gsql_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
#endif

// gsql_exp and gsql_log are expr.portableExp and expr.portableLog step for
// step (kernels compile with --fmad=false, so every operation rounds once
// as in the Go code): EXP, LN and LOG10 give the CPU's bits.
GSQL_DEV double gsql_exp(double x) {
  if (x != x || x > 7.09782712893383973096e+02) return x + gsql_inf();
  if (x < -7.45133219101941108420e+02) return 0.0;
  if (x > -0x1p-28 && x < 0x1p-28) return 1 + x;
  int k = x < 0 ? (int)(1.44269504088896338700e+00 * x - 0.5)
                : (int)(1.44269504088896338700e+00 * x + 0.5);
  double fk = (double)k;
  double hi = x - fk * 6.93147180369123816490e-01;
  double lo = fk * 1.90821492927058770002e-10;
  double r = hi - lo;
  double t = r * r;
  double p = -1.65339022054652515390e-06 + t * 4.13813679705723846039e-08;
  p = 6.61375632143793436117e-05 + t * p;
  p = -2.77777777770155933842e-03 + t * p;
  p = 1.66666666666666657415e-01 + t * p;
  double c = r - t * p;
  double y = 1 - ((lo - (r * c) / (2 - c)) - hi);
  return ldexp(y, k);
}

GSQL_DEV double gsql_log(double x) {
  if (x != x || x == gsql_inf()) return x;
  if (x < 0) return gsql_nan();
  if (x == 0) return -gsql_inf();
  int ki;
  double f1 = frexp(x, &ki);
  if (f1 < 0x1.6a09e667f3bcdp-1) {
    f1 *= 2;
    ki--;
  }
  double f = f1 - 1;
  double k = (double)ki;
  double s = f / (2 + f);
  double s2 = s * s;
  double s4 = s2 * s2;
  double t1 = 1.818357216161805012e-01 + s4 * 1.479819860511658591e-01;
  t1 = 2.857142874366239149e-01 + s4 * t1;
  t1 = s2 * (6.666666666666735130e-01 + s4 * t1);
  double t2 = 2.222219843214978396e-01 + s4 * 1.531383769920937332e-01;
  t2 = s4 * (3.999999999940941908e-01 + s4 * t2);
  double R = t1 + t2;
  double hfsq = 0.5 * f * f;
  return k * 6.93147180369123816490e-01 -
         ((hfsq - (s * (hfsq + R) + k * 1.90821492927058770002e-10)) - f);
}

GSQL_DEV bool gsql_odd_int(double x) {
  if (fabs(x) >= 0x1p53) return false;
  double xi;
  double xf = modf(x, &xi);
  return xf == 0 && (((long long)xi) & 1) == 1;
}

// gsql_pow is expr.portablePow step for step.
GSQL_DEV double gsql_pow(double x, double y) {
  if (y == 0 || x == 1) return 1;
  if (y == 1) return x;
  if (x != x || y != y) return gsql_nan();
  if (x == 0) {
    bool odd = gsql_odd_int(y);
    if (y < 0 && signbit(x) && odd) return -gsql_inf();
    if (y < 0) return gsql_inf();
    if (signbit(x) && odd) return x;
    return 0;
  }
  if (y == gsql_inf() || y == -gsql_inf()) {
    if (x == -1) return 1;
    if ((fabs(x) < 1) == (y > 0)) return 0;
    return gsql_inf();
  }
  if (x == gsql_inf() || x == -gsql_inf()) {
    if (x < 0) {
      // pow(-inf, y) = pow(-0, -y)
      double z = 1 / x;
      double ny = -y;
      bool odd = gsql_odd_int(ny);
      if (ny < 0 && odd) return -gsql_inf();
      if (ny < 0) return gsql_inf();
      if (odd) return z;
      return 0;
    }
    if (y < 0) return 0;
    return gsql_inf();
  }
  double yi;
  double yf = modf(fabs(y), &yi);
  if (yf != 0 && x < 0) return gsql_nan();
  if (yi >= 0x1p63) {
    if (x == -1) return 1;
    if ((fabs(x) < 1) == (y > 0)) return 0;
    return gsql_inf();
  }
  double a = 1.0;
  int ae = 0;
  if (yf != 0) {
    if (yf > 0.5) {
      yf -= 1;
      yi += 1;
    }
    a = gsql_exp(yf * gsql_log(x));
  }
  int me;
  double m = frexp(x, &me);
  for (long long i = (long long)yi; i != 0; i >>= 1) {
    if (me < -(1 << 12) || (1 << 12) < me) {
      ae += me;
      break;
    }
    if (i & 1) {
      a *= m;
      ae += me;
    }
    m *= m;
    me <<= 1;
    if (m < 0.5) {
      m += m;
      me--;
    }
  }
  if (y < 0) {
    a = 1 / a;
    ae = -ae;
  }
  return ldexp(a, ae);
}

// round_int mirrors expr.roundInt: ROUND (or TRUNCATE) of a BIGINT at d
// decimals; false when the result leaves BIGINT.
GSQL_DEV bool round_int(int64_t x, int64_t d, bool tr, int64_t* out) {
  *out = 0;
  if (d >= 0) {
    *out = x;
    return true;
  }
  if (d < -18) {
    // |x| < 10^19: only d = -19 can round up, to +-10^19, out of range.
    return tr || d != -19 || (x < 5000000000000000000LL && x > -5000000000000000000LL);
  }
  int64_t p = 1;
  for (int64_t k = 0; k < -d; k++) p *= 10;
  int64_t q = x / p, rem = x % p;
  if (!tr) {
    if (rem >= p - rem && rem > 0)
      q++;
    else if (rem < 0 && -rem >= p + rem)
      q--;
  }
  return !mul_overflows(q, p, out);
}

// round_double mirrors expr.roundFloat: the binary product x*10^d decides;
// where the CPU decides on x's shortest decimal digits instead (a product
// within a few ulps of a rounding boundary that is not exact, or |d| > 22),
// *fallback is set and the batch is evaluated on the CPU.
GSQL_DEV double round_double(double x, int64_t d, bool tr, bool* fallback) {
  if (x == 0 || x - x != 0) return x;
  if (d > 330) return x;
  if (d < -330) return copysign(0.0, x);
  if (d > 22 || d < -22) {
    *fallback = true;
    return x;
  }
  double p = 1;
  for (int64_t k = 0; k < (d >= 0 ? d : -d); k++) p *= 10;
  double y = d >= 0 ? x * p : x / p;
  if (y - y != 0 || fabs(y) >= 4503599627370496.0) return x;
  double t = trunc(y);
  double frac = fabs(y - t);
  double tol = fabs(y) * 0x1p-49;
  // y is the exact product (fma gives the rounding error) when x is a short
  // decimal such as 12.125: then x's shortest digits are its exact digits
  // and the binary decision is the decimal one.
  bool exact = d == 0 || (d > 0 ? fma(x, p, -y) : fma(y, p, -x)) == 0;
  bool near = tr ? (frac <= tol || 1 - frac <= tol) : fabs(frac - 0.5) <= tol;
  if (near && !exact) {
    *fallback = true;
    return x;
  }
  if (!tr && frac >= 0.5) t += copysign(1.0, y);
  if (t == 0) return copysign(0.0, x);
  return d >= 0 ? t / p : t * p;
}

GSQL_INL bool is_space_byte(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// parse_int_prefix mirrors expr.ParseIntPrefix: the integer at the start of
// s after spaces, clamped to the BIGINT range; no digits give 0.
GSQL_DEV int64_t parse_int_prefix(SV s) {
  int32_t i = 0;
  while (i < s.n && is_space_byte(s.p[i])) i++;
  bool neg = false;
  if (i < s.n && (s.p[i] == '+' || s.p[i] == '-')) {
    neg = s.p[i] == '-';
    i++;
  }
  uint64_t u = 0;
  bool over = false;
  for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
    uint64_t d = (uint64_t)(s.p[i] - '0');
    if (u > (0xFFFFFFFFFFFFFFFFULL - d) / 10) {
      over = true;
      continue;
    }
    u = u * 10 + d;
  }
  if (neg && (over || u > 0x8000000000000000ULL)) return (int64_t)0x8000000000000000ULL;
  if (neg) return (int64_t)(0ULL - u);
  if (over || u > 0x7FFFFFFFFFFFFFFFULL) return (int64_t)0x7FFFFFFFFFFFFFFFLL;
  return (int64_t)u;
}

// parse_double_prefix mirrors expr.ParseFloatPrefix where the result is
// exact in one floating-point operation (at most 15 significant digits and
// a power of ten up to 1e22: the case strconv also computes directly).
// Otherwise *inexact is set and the caller hands the batch to the CPU.
GSQL_DEV double parse_double_prefix(SV s, bool* inexact) {
  int32_t i = 0;
  while (i < s.n && is_space_byte(s.p[i])) i++;
  bool neg = false;
  if (i < s.n && (s.p[i] == '+' || s.p[i] == '-')) {
    neg = s.p[i] == '-';
    i++;
  }
  uint64_t m = 0;
  int32_t digits = 0, sig = 0, exp10 = 0;
  bool dropped = false;
  for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
    digits++;
    if (m == 0 && s.p[i] == '0') continue;
    if (sig < 19) {
      m = m * 10 + (uint64_t)(s.p[i] - '0');
      sig++;
    } else {
      exp10++;
      dropped = dropped || s.p[i] != '0';
    }
  }
  if (i < s.n && s.p[i] == '.') {
    i++;
    for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
      digits++;
      if (m == 0 && s.p[i] == '0') {
        exp10--;
        continue;
      }
      if (sig < 19) {
        m = m * 10 + (uint64_t)(s.p[i] - '0');
        sig++;
        exp10--;
      } else {
        dropped = dropped || s.p[i] != '0';
      }
    }
  }
  if (digits == 0) return 0.0;
  if (i < s.n && (s.p[i] == 'e' || s.p[i] == 'E')) {
    int32_t j = i + 1;
    bool eneg = false;
    if (j < s.n && (s.p[j] == '+' || s.p[j] == '-')) {
      eneg = s.p[j] == '-';
      j++;
    }
    int32_t k = j, e = 0;
    while (k < s.n && s.p[k] >= '0' && s.p[k] <= '9') {
      if (e < 100000) e = e * 10 + (s.p[k] - '0');
      k++;
    }
    if (k > j) exp10 += eneg ? -e : e;
  }
  if (m == 0) return neg ? -0.0 : 0.0;
  const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (dropped || m > (1ULL << 53) || exp10 > 22 || exp10 < -22) {
    *inexact = true;
    return 0.0;
  }
  double f = (double)m;
  f = exp10 >= 0 ? f * pow10[exp10] : f / pow10[-exp10];
  return neg ? -f : f;
}

GSQL_DEV int32_t int_text_len(int64_t v) {
  uint64_t u = v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v;
  int32_t n = v < 0 ? 2 : 1;
  while (u >= 10) {
    u /= 10;
    n++;
  }
  return n;
}

GSQL_DEV void int_text_write(int64_t v, char* dst) {
  int32_t n = int_text_len(v);
  uint64_t u = v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v;
  if (v < 0) dst[0] = '-';
  for (int32_t k = n - 1; k >= (v < 0 ? 1 : 0); k--) {
    dst[k] = (char)('0' + u % 10);
    u /= 10;
  }
}

// in_sorted_i64 reports whether x is among the n sorted values at keys
// (IN over a long list of integer literals).
GSQL_DEV bool in_sorted_i64(const int64_t* keys, int32_t n, int64_t x) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && keys[lo] == x;
}
