// ---- MySQL's TIME values, periods and composite INTERVALs ---------------
//
// Mirrors datetime/mysql.go and expr/temporal_mysql.go step for step. gsql
// has no TIME type: a TIME is a signed count of microseconds, read from and
// printed as MySQL's TIME text ('-01:02:03.5', hours up to 838). Wrapping
// arithmetic goes through uint64_t where Go's int64 wraps.

#define DT_MAX_TIME ((838LL * 3600 + 59 * 60 + 59) * DT_US_SEC)

// datetime.ClampTime: -838:59:59..838:59:59.
GSQL_INL int64_t dt_clamp_time(int64_t t) {
  if (t > DT_MAX_TIME) return DT_MAX_TIME;
  if (t < -DT_MAX_TIME) return -DT_MAX_TIME;
  return t;
}

// A timestamp with a time of day (datetime.parseDateTime) in trimmed s.
GSQL_DEV bool dt_parse_datetime(SV s, int64_t* out) {
  int32_t k = 0;
  int64_t y, m, d, tod;
  *out = 0;
  // Fewer than 12 digits alone are a TIME (datetime.parseDateTime).
  bool digits = s.n < 12;
  for (int32_t j = 0; digits && j < s.n; j++) digits = dt_is_digit(s.p[j]);
  if (digits) return false;
  if (!dt_parse_ymd(s, &k, &y, &m, &d) || k == s.n || !dt_valid_date(y, m, d)) return false;
  if (!dt_parse_tod(s, k, &tod)) return false;
  *out = dt_days_from_civil(y, m, d) * DT_US_DAY + tod;
  return true;
}

// A run of digits at s[*i], its first 12 counted (parseTimeBody's digits).
GSQL_DEV bool dt_time_digits(SV s, int32_t* i, int64_t* v) {
  int32_t start = *i;
  *v = 0;
  while (*i < s.n && dt_is_digit(s.p[*i])) {
    if (*i - start < 12) *v = *v * 10 + (s.p[*i] - '0');
    (*i)++;
  }
  return *i > start;
}

// [:MM[:SS]] after the hours (parseTimeBody).
GSQL_DEV bool dt_time_min_sec(SV s, int32_t* i, int64_t* mi, int64_t* sec) {
  if (*i < s.n && s.p[*i] == ':') {
    (*i)++;
    if (!dt_time_digits(s, i, mi)) return false;
    if (*i < s.n && s.p[*i] == ':') {
      (*i)++;
      if (!dt_time_digits(s, i, sec)) return false;
    }
  }
  return true;
}

// The unsigned body of TIME text (datetime.parseTimeBody): D HH[:MM[:SS]],
// HH:MM[:SS] or digits [HH]MM]SS read from the right, then [.ffffff].
GSQL_DEV bool dt_parse_time_body(SV s, int64_t* out) {
  int32_t i = 0;
  int64_t first, day = 0, h = 0, mi = 0, sec = 0, f = 0;
  *out = 0;
  if (!dt_time_digits(s, &i, &first)) return false;
  if (i < s.n && s.p[i] == ' ') {
    day = first;
    while (i < s.n && s.p[i] == ' ') i++;
    if (!dt_time_digits(s, &i, &h) || !dt_time_min_sec(s, &i, &mi, &sec)) return false;
  } else if (i < s.n && s.p[i] == ':') {
    h = first;
    if (!dt_time_min_sec(s, &i, &mi, &sec)) return false;
  } else {
    if (i > 7) return false;
    h = first / 10000;
    mi = first / 100 % 100;
    sec = first % 100;
  }
  int32_t dot = i;
  if (!dt_frac_part(s, &i, &f) || i != s.n || mi > 59 || sec > 59 || day > 34) return false;
  // A seventh digit rounds, as MySQL 8 reads text.
  if (i - dot > 7 && s.p[dot + 7] >= '5') f++;
  uint64_t secs = ((uint64_t)day * 24 + (uint64_t)h) * 3600 + (uint64_t)mi * 60 + (uint64_t)sec;
  *out = (int64_t)(secs * (uint64_t)DT_US_SEC + (uint64_t)f);
  return true;
}

// datetime.ParseTimeOrDateTime: a timestamp with a time of day (*is_dt)
// or a TIME, clamped to MySQL's range. datetime.ParseTime is the same
// with a timestamp's time of day (dt_tod) taken.
GSQL_DEV bool dt_parse_time(SV s, int64_t* out, bool* is_dt) {
  s = dt_trim(s);
  *is_dt = false;
  if (dt_parse_datetime(s, out)) {
    *is_dt = true;
    return true;
  }
  bool neg = s.n > 0 && s.p[0] == '-';
  if (neg) s = sv_make(s.p + 1, s.n - 1);
  int64_t t;
  if (!dt_parse_time_body(s, &t)) return false;
  t = dt_clamp_time(t);
  *out = neg ? -t : t;
  return true;
}

// TIME text of t: [-]HH:MM:SS[.ffffff], two hour digits or more, the
// fraction without trailing zeros (datetime.AppendTime).
GSQL_DEV int32_t dt_time_write(int64_t t, char* dst) {
  int32_t at = 0;
  if (t < 0) {
    if (dst) dst[at] = '-';
    at++;
    t = -t;
  }
  int64_t secs = t / DT_US_SEC, h = secs / 3600, frac = t % DT_US_SEC;
  int32_t hd = 2;
  for (int64_t x = h; x >= 100; x /= 10) hd++;
  int32_t f = dt_frac_width(frac);
  if (dst) {
    dt_put(dst + at, h, hd);
    dst[at + hd] = ':';
    dt_put(dst + at + hd + 1, secs / 60 % 60, 2);
    dst[at + hd + 3] = ':';
    dt_put(dst + at + hd + 4, secs % 60, 2);
    if (f) {
      for (int32_t k = f; k < 6; k++) frac /= 10;
      dst[at + hd + 6] = '.';
      dt_put(dst + at + hd + 7, frac, f);
    }
  }
  return at + hd + 6 + (f ? f + 1 : 0);
}

// A TIME or, when is_dt, a timestamp as text: the bytes written (only
// counted for a null dst).
GSQL_DEV int32_t dt_time_or_ts_write(int64_t v, bool is_dt, char* dst) {
  if (!is_dt) return dt_time_write(v, dst);
  if (dst) dt_ts_write(v, dst);
  return dt_ts_text_len(v);
}

// Seconds to microseconds rounded half away from zero (expr's
// secondsMicros); false past what a TIME could ever hold.
GSQL_DEV bool dt_seconds_micros(double s, int64_t* out) {
  *out = 0;
  if (s != s || fabs(s) > 1e12) return false;
  *out = (int64_t)round(s * 1e6);
  return true;
}

// MAKETIME(h, m, s) (expr.evalMakeTime).
GSQL_DEV bool dt_make_time(int64_t h, int64_t m, double s, int64_t* out) {
  int64_t us;
  *out = 0;
  if (m < 0 || m > 59 || s < 0 || s >= 60) return false;
  if (!dt_seconds_micros(s, &us) || h > 1000000 || h < -1000000) return false;
  int64_t t = dt_clamp_time(((h < 0 ? -h : h) * 3600 + m * 60) * DT_US_SEC + us);
  *out = h < 0 ? -t : t;
  return true;
}

// ADDTIME/SUBTIME (expr.evalAddTime): a (a timestamp when a_dt, else a
// TIME) plus sign times the TIME text b; a timestamp in b is NULL.
GSQL_DEV bool dt_add_time(int64_t a, bool a_dt, SV b, int64_t sign, int64_t* out) {
  int64_t t;
  bool b_dt;
  *out = 0;
  if (!dt_parse_time(b, &t, &b_dt) || b_dt) return false;
  int64_t r = (int64_t)((uint64_t)a + (uint64_t)(sign * t));
  if (a_dt) {
    *out = r;
    return dt_ts_in_range(r);
  }
  *out = dt_clamp_time(r);
  return true;
}

// A period YYMM or YYYYMM as a month count (datetime.PeriodMonths); false
// for a month 0 or past 12, which MySQL 8 rejects.
GSQL_DEV bool dt_period_months(int64_t p, int64_t* out) {
  *out = 0;
  if (p <= 0 || p % 100 == 0 || p % 100 > 12 || p > 999999) return false;
  int64_t y = p / 100;
  if (y < 100) y += y < 70 ? 2000 : 1900;
  *out = y * 12 + p % 100 - 1;
  return true;
}

// A month count as YYYYMM (datetime.MonthsPeriod).
GSQL_INL int64_t dt_months_period(int64_t m) {
  int64_t y = dt_floor_div(m, 12);
  return y * 100 + m - y * 12 + 1;
}

// The composite unit named exactly by s, '-' first for a subtraction
// (expr.evalCompositeInterval's unit argument), or -1.
GSQL_DEV int32_t dt_composite_unit(SV s, int64_t* sign) {
  *sign = 1;
  if (s.n > 0 && s.p[0] == '-') {
    *sign = -1;
    s = sv_make(s.p + 1, s.n - 1);
  }
  const char* names[] = {"year_month",         "day_hour",          "day_minute",
                         "day_second",         "day_microsecond",   "hour_minute",
                         "hour_second",        "hour_microsecond",  "minute_second",
                         "minute_microsecond", "second_microsecond"};
  for (int32_t k = 0; k < 11; k++) {
    const char* p = names[k];
    int32_t j = 0;
    while (j < s.n && p[j] && p[j] == s.p[j]) j++;
    if (j == s.n && !p[j]) return DT_YEAR_MONTH + k;
  }
  return -1;
}

// The fields of composite unit u, largest first, in microseconds (months
// for YEAR_MONTH); returns their number.
GSQL_DEV int32_t dt_composite_steps(int32_t u, int64_t* steps) {
  const int64_t all[5] = {DT_US_DAY, DT_US_HOUR, DT_US_MIN, DT_US_SEC, 1};
  int32_t from = 0, to = 0;
  switch (u) {
    case DT_YEAR_MONTH:
      steps[0] = 12;
      steps[1] = 1;
      return 2;
    case DT_DAY_HOUR: from = 0, to = 1; break;
    case DT_DAY_MINUTE: from = 0, to = 2; break;
    case DT_DAY_SECOND: from = 0, to = 3; break;
    case DT_DAY_MICROSECOND: from = 0, to = 4; break;
    case DT_HOUR_MINUTE: from = 1, to = 2; break;
    case DT_HOUR_SECOND: from = 1, to = 3; break;
    case DT_HOUR_MICROSECOND: from = 1, to = 4; break;
    case DT_MINUTE_SECOND: from = 2, to = 3; break;
    case DT_MINUTE_MICROSECOND: from = 2, to = 4; break;
    default: from = 3, to = 4; break;
  }
  for (int32_t k = from; k <= to; k++) steps[k - from] = all[k];
  return to - from + 1;
}

// The text of a composite INTERVAL read into n (at most 5) fields
// (datetime.IntervalFields): '-' first negates the whole, digit runs are
// the fields and anything else separates them, fewer runs fill the
// rightmost fields, more are an error; with micros the last run is a
// fraction of a second.
GSQL_DEV bool dt_interval_fields(SV s, int32_t n, bool micros, int64_t* fields, bool* neg) {
  s = dt_trim(s);
  *neg = s.n > 0 && s.p[0] == '-';
  if (*neg) s = sv_make(s.p + 1, s.n - 1);
  int64_t runs[5];
  int32_t nr = 0, last = 0;
  for (int32_t i = 0; i < s.n;) {
    if (!dt_is_digit(s.p[i])) {
      i++;
      continue;
    }
    int32_t start = i;
    int64_t v = 0;
    while (i < s.n && dt_is_digit(s.p[i])) {
      if (v > (1LL << 62) / 10) return false;
      v = v * 10 + (s.p[i] - '0');
      i++;
    }
    if (nr == n) return false;
    runs[nr++] = v;
    last = i - start;
  }
  if (micros && nr > 0) {
    for (int32_t k = last; k < 6; k++) runs[nr - 1] = (int64_t)((uint64_t)runs[nr - 1] * 10);
  }
  for (int32_t k = 0; k < n; k++) fields[k] = k < n - nr ? 0 : runs[k - (n - nr)];
  return true;
}

// base + INTERVAL s u, negated for sign -1 (expr.evalCompositeInterval):
// months for YEAR_MONTH (base days when date), else microseconds added to
// base.
GSQL_DEV bool dt_add_composite(int64_t base, bool date, SV s, int32_t u, int64_t sign,
                               int64_t* out) {
  int64_t steps[5], fields[5], total = 0;
  bool neg;
  *out = 0;
  int32_t n = dt_composite_steps(u, steps);
  bool micros = u == DT_DAY_MICROSECOND || u == DT_HOUR_MICROSECOND || u == DT_MINUTE_MICROSECOND ||
                u == DT_SECOND_MICROSECOND;
  if (!dt_interval_fields(s, n, micros, fields, &neg)) return false;
  for (int32_t k = 0; k < n; k++) {
    int64_t p;
    if (mul_overflows(fields[k], steps[k], &p) || add_overflows(total, p, &total)) return false;
  }
  if (neg != (sign < 0)) total = (int64_t)(0 - (uint64_t)total);
  if (u == DT_YEAR_MONTH) {
    if (total > 120000 || total < -120000) return false;
    return date ? dt_add_months(base, total, out) : dt_add_months_ts(base, total, out);
  }
  return !add_overflows(base, total, out) && dt_ts_in_range(*out);
}

// ---- CONVERT_TZ (datetime/tz.go) -------------------------------------------

#define DT_TZ_MIN_OFFSET (-(13LL * 3600 + 59 * 60))
#define DT_TZ_MAX_OFFSET (14LL * 3600)
#define DT_TZ_SYSTEM_VARIES (-(1LL << 62))

// A run of digits at s.p[*i] (datetime.tzDigits); false past any offset.
GSQL_DEV bool dt_tz_digits(SV s, int32_t* i, int64_t* v) {
  *v = 0;
  while (*i < s.n && dt_is_digit(s.p[*i])) {
    *v = *v * 10 + (s.p[*i] - '0');
    if (*v > (1LL << 40)) return false;
    (*i)++;
  }
  return true;
}

// datetime.ParseTZOffset: [+-]H*:M+ in MySQL 8's range, in seconds.
GSQL_DEV bool dt_tz_offset(SV s, int64_t* out) {
  int32_t i = 1;
  int64_t h, m;
  *out = 0;
  if (s.n < 4 || (s.p[0] != '+' && s.p[0] != '-')) return false;
  if (!dt_tz_digits(s, &i, &h) || i + 1 >= s.n || s.p[i] != ':') return false;
  i++;
  if (!dt_tz_digits(s, &i, &m) || i != s.n || m > 59) return false;
  int64_t off = (h * 60 + m) * 60;
  if (s.p[0] == '-') off = -off;
  if (off < DT_TZ_MIN_OFFSET || off > DT_TZ_MAX_OFFSET) return false;
  *out = off;
  return true;
}

// datetime.TZZone: 1 for an offset (in *off), 2 for SYSTEM in any case,
// 0 for anything else.
GSQL_DEV int32_t dt_tz_zone(SV s, int64_t* off) {
  const char* sys = "system";
  *off = 0;
  if (s.n == 6) {
    bool same = true;
    for (int32_t k = 0; k < 6; k++) same = same && (s.p[k] | 0x20) == sys[k];
    if (same) return 2;
  }
  return dt_tz_offset(s, off) ? 1 : 0;
}

// datetime.ConvertTZ: t itself when its instant is outside TIMESTAMP's
// range.
GSQL_INL int64_t dt_convert_tz(int64_t t, int64_t from, int64_t to) {
  int64_t sec = dt_floor_div(t, DT_US_SEC) - from;
  if (sec < 1 || sec > 2147483647LL) return t;
  return t + (to - from) * DT_US_SEC;
}

// datetime.MaxUnixSecond: 3001-01-18 23:59:59 UTC.
#define DT_MAX_UNIX_SECOND 32536771199LL

// datetime.UnixSeconds: 0 outside 1970 .. DT_MAX_UNIX_SECOND.
GSQL_INL int64_t dt_unix_seconds(int64_t t) {
  int64_t s = dt_floor_div(t, DT_US_SEC);
  return s < 0 || s > DT_MAX_UNIX_SECOND ? 0 : s;
}

// TIME_FORMAT (expr.TimeFormatValid): a format with a specifier a TIME
// has no date for is NULL.
GSQL_DEV bool dt_time_format_valid(SV f) {
  const char* bad = "MbWaDjUuVvXxw";
  for (int32_t i = 0; i + 1 < f.n; i++) {
    if (f.p[i] != '%') continue;
    i++;
    for (const char* c = bad; *c; c++)
      if (*c == f.p[i]) return false;
  }
  return true;
}

// TIME_FORMAT (expr.AppendTimeFormat): writes TIME t with format f into
// dst (when not null) and returns the length. %H and %k print every hour,
// the clock specifiers read it modulo 24; %Y %y %m %c %d %e print zeros.
GSQL_DEV int32_t dt_time_format(SV f, int64_t t, char* dst) {
  int32_t o = 0;
  if (t < 0) {
    if (dst) dst[o] = '-';
    o++;
    t = -t;
  }
  int64_t h = t / DT_US_HOUR, mi = t / DT_US_MIN % 60, s = t / DT_US_SEC % 60;
  int64_t h12 = (h % 24 + 11) % 12 + 1;
  SV mer = h % 24 < 12 ? sv_make("AM", 2) : sv_make("PM", 2);
  for (int32_t i = 0; i < f.n; i++) {
    char c = f.p[i];
    if (c != '%' || i + 1 == f.n) {
      if (dst) dst[o] = c;
      o++;
      continue;
    }
    i++;
    switch (f.p[i]) {
      case 'H': o = dt_put_num(dst, o, h, 2); break;
      case 'k': o = dt_put_num(dst, o, h, 1); break;
      case 'h':
      case 'I': o = dt_put_num(dst, o, h12, 2); break;
      case 'l': o = dt_put_num(dst, o, h12, 1); break;
      case 'i': o = dt_put_num(dst, o, mi, 2); break;
      case 's':
      case 'S': o = dt_put_num(dst, o, s, 2); break;
      case 'f': o = dt_put_num(dst, o, t % DT_US_SEC, 6); break;
      case 'p': o = dt_put_sv(dst, o, mer); break;
      case 'T':
      case 'r':
        o = dt_put_num(dst, o, f.p[i] == 'T' ? h : h12, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, mi, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, s, 2);
        if (f.p[i] == 'r') {
          o = dt_put_sv(dst, o, sv_make(" ", 1));
          o = dt_put_sv(dst, o, mer);
        }
        break;
      case 'Y': o = dt_put_num(dst, o, 0, 4); break;
      case 'y':
      case 'm':
      case 'd': o = dt_put_num(dst, o, 0, 2); break;
      case 'c':
      case 'e': o = dt_put_num(dst, o, 0, 1); break;
      default:
        if (dst) dst[o] = f.p[i];
        o++;
    }
  }
  return o;
}

// datetime.RoundTime: t rounded to fsp digits of a second (half away from
// zero), clamped to TIME's range.
GSQL_DEV int64_t dt_round_time(int64_t t, int32_t fsp) {
  int64_t unit = 1;
  for (int32_t k = fsp; k < 6; k++) unit *= 10;
  bool neg = t < 0;
  if (neg) t = -t;
  t = (t + unit / 2) / unit * unit;
  return dt_clamp_time(neg ? -t : t);
}

// datetime.AppendTimeFsp: TIME text with exactly fsp digits of a second;
// the bytes written (only counted for a null dst).
GSQL_DEV int32_t dt_time_write_fsp(int64_t t, int32_t fsp, char* dst) {
  int32_t at = 0;
  if (t < 0) {
    if (dst) dst[at] = '-';
    at++;
    t = -t;
  }
  int64_t frac = t % DT_US_SEC;
  at += dt_time_write(t - frac, dst ? dst + at : (char*)0);
  if (fsp > 0) {
    for (int32_t k = fsp; k < 6; k++) frac /= 10;
    if (dst) {
      dst[at] = '.';
      dt_put(dst + at + 1, frac, fsp);
    }
    at += fsp + 1;
  }
  return at;
}

// expr.literalFsp: the digits of a second in TIME text (up to 6).
GSQL_DEV int32_t dt_literal_fsp(SV s) {
  s = dt_trim(s);
  int32_t dot = -1;
  for (int32_t i = 0; i < s.n; i++)
    if (s.p[i] == '.') dot = i;
  if (dot < 0) return 0;
  int32_t k = 0;
  for (int32_t i = dot + 1; i < s.n && dt_is_digit(s.p[i]); i++) k++;
  return k < 6 ? k : 6;
}
