// ---- dates and timestamps ------------------------------------------------
//
// Mirrors package datetime and expr/temporal.go step for step: a DATE is
// days since 1970-01-01, a TIMESTAMP microseconds since 1970-01-01 00:00.
// Unit codes are expr.Unit's.

#define DT_US_SEC 1000000LL
#define DT_US_MIN 60000000LL
#define DT_US_HOUR 3600000000LL
#define DT_US_DAY 86400000000LL
#define DT_MIN_DAYS (-719162LL)
#define DT_MAX_DAYS 2932896LL

enum {
  DT_MICROSECOND = 1,
  DT_MILLISECOND,
  DT_SECOND,
  DT_MINUTE,
  DT_HOUR,
  DT_DAY,
  DT_WEEK,
  DT_MONTH,
  DT_QUARTER,
  DT_YEAR,
  DT_DECADE,
  DT_CENTURY,
  DT_MILLENNIUM,
  DT_DOW,
  DT_DOY,
  DT_EPOCH,
  DT_ISODOW,
  // MySQL's composite units (expr.UnitYearMonth..UnitSecondMicrosecond).
  DT_YEAR_MONTH,
  DT_DAY_HOUR,
  DT_DAY_MINUTE,
  DT_DAY_SECOND,
  DT_DAY_MICROSECOND,
  DT_HOUR_MINUTE,
  DT_HOUR_SECOND,
  DT_HOUR_MICROSECOND,
  DT_MINUTE_SECOND,
  DT_MINUTE_MICROSECOND,
  DT_SECOND_MICROSECOND
};

GSQL_INL int64_t dt_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

GSQL_DEV int64_t dt_days_from_civil(int64_t y, int64_t m, int64_t d) {
  if (m <= 2) y--;
  int64_t era = dt_floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int64_t mp = (m + 9) % 12;
  int64_t doy = (153 * mp + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

GSQL_DEV void dt_civil(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  int64_t era = dt_floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t yy = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  int64_t mm = mp + 3;
  if (mm > 12) mm -= 12;
  if (mm <= 2) yy++;
  *y = yy;
  *m = mm;
}

GSQL_INL bool dt_is_leap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

GSQL_INL int64_t dt_days_in_month(int64_t y, int64_t m) {
  if (m == 2) return dt_is_leap(y) ? 29 : 28;
  if (m == 4 || m == 6 || m == 9 || m == 11) return 30;
  return 31;
}

GSQL_INL bool dt_valid_date(int64_t y, int64_t m, int64_t d) {
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= dt_days_in_month(y, m);
}

GSQL_INL bool dt_date_in_range(int64_t z) { return z >= DT_MIN_DAYS && z <= DT_MAX_DAYS; }

GSQL_INL bool dt_ts_in_range(int64_t t) {
  return t >= DT_MIN_DAYS * DT_US_DAY && t < (DT_MAX_DAYS + 1) * DT_US_DAY;
}

GSQL_INL int64_t dt_days(int64_t ts) { return dt_floor_div(ts, DT_US_DAY); }

GSQL_INL int64_t dt_tod(int64_t ts) { return ts - dt_days(ts) * DT_US_DAY; }

// 1 = Sunday .. 7 = Saturday.
GSQL_INL int64_t dt_day_of_week(int64_t z) { return (z + 4) - dt_floor_div(z + 4, 7) * 7 + 1; }

GSQL_DEV int64_t dt_day_of_year(int64_t z) {
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  return z - dt_days_from_civil(y, 1, 1) + 1;
}

GSQL_DEV int64_t dt_week0(int64_t z) {
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  int64_t jan1 = dt_days_from_civil(y, 1, 1);
  int64_t first = jan1 + (8 - dt_day_of_week(jan1)) % 7;
  if (z < first) return 0;
  return (z - first) / 7 + 1;
}

GSQL_DEV int64_t dt_iso_week(int64_t z) {
  int64_t wd = (dt_day_of_week(z) + 5) % 7;
  int64_t thursday = z - wd + 3;
  int64_t y, m, d;
  dt_civil(thursday, &y, &m, &d);
  return (thursday - dt_days_from_civil(y, 1, 1)) / 7 + 1;
}

// MySQL's WEEK(z, mode) for the eight modes, and in *year the year the
// week belongs to (datetime.WeekMode.Week); year_range forces weeks 1..53
// (YEARWEEK).
GSQL_DEV int64_t dt_week1_start(int64_t y, bool monday, bool first_day) {
  int64_t jan1 = dt_days_from_civil(y, 1, 1);
  int64_t wd = dt_day_of_week(jan1) - 1;
  if (monday) wd = (wd + 6) % 7;
  if (first_day) return jan1 + (7 - wd) % 7;
  return wd <= 3 ? jan1 - wd : jan1 + 7 - wd;
}

GSQL_DEV int64_t dt_week_mode(int64_t z, int64_t mode, bool year_range, int64_t* year) {
  int64_t m = mode & 7;
  bool monday = (m & 1) != 0;
  bool first_day = ((m & 4) != 0) == monday;
  year_range = year_range || (m & 2) != 0;
  int64_t y, mo, d;
  dt_civil(z, &y, &mo, &d);
  int64_t start = dt_week1_start(y, monday, first_day);
  if (z < start) {
    if (!year_range) {
      *year = y;
      return 0;
    }
    y--;
    start = dt_week1_start(y, monday, first_day);
  } else if (year_range && z >= dt_week1_start(y + 1, monday, first_day)) {
    *year = y + 1;
    return 1;
  }
  *year = y;
  return (z - start) / 7 + 1;
}

// MAKEDATE(y, doy) (datetime.MakeDate): day doy of year y (a two-digit
// year is 1970..2069); false out of range.
GSQL_DEV bool dt_make_date(int64_t y, int64_t doy, int64_t* out) {
  *out = 0;
  if (doy <= 0 || y < 0 || y > 9999) return false;
  if (y < 100) y += y < 70 ? 2000 : 1900;
  if (doy > 3660000) return false;
  int64_t z = dt_days_from_civil(y, 1, 1) + doy - 1;
  *out = z;
  return dt_date_in_range(z);
}

// Adds k months to day z, clamping the day; false out of range.
GSQL_DEV bool dt_add_months(int64_t z, int64_t k, int64_t* out) {
  if (k > 120000 || k < -120000) return false;
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + k;
  int64_t ny = dt_floor_div(total, 12);
  int64_t nm = total - ny * 12 + 1;
  if (ny < 1 || ny > 9999) return false;
  int64_t dim = dt_days_in_month(ny, nm);
  if (d > dim) d = dim;
  *out = dt_days_from_civil(ny, nm, d);
  return true;
}

GSQL_DEV bool dt_add_months_ts(int64_t t, int64_t k, int64_t* out) {
  int64_t d = dt_days(t), us = t - d * DT_US_DAY, nd;
  if (!dt_add_months(d, k, &nd)) return false;
  *out = nd * DT_US_DAY + us;
  return true;
}

// EXTRACT of a composite unit (expr.extractComposite): the fields as the
// digits of one number, two a field (six for microseconds).
GSQL_DEV int64_t dt_extract_composite(int32_t u, int64_t y, int64_t m, int64_t day, int64_t us) {
  int64_t h = us / DT_US_HOUR, mi = us / DT_US_MIN % 60, s = us / DT_US_SEC % 60,
          f = us % DT_US_SEC;
  switch (u) {
    case DT_YEAR_MONTH: return y * 100 + m;
    case DT_DAY_HOUR: return day * 100 + h;
    case DT_DAY_MINUTE: return (day * 100 + h) * 100 + mi;
    case DT_DAY_SECOND: return ((day * 100 + h) * 100 + mi) * 100 + s;
    case DT_DAY_MICROSECOND: return (((day * 100 + h) * 100 + mi) * 100 + s) * 1000000 + f;
    case DT_HOUR_MINUTE: return h * 100 + mi;
    case DT_HOUR_SECOND: return (h * 100 + mi) * 100 + s;
    case DT_HOUR_MICROSECOND: return ((h * 100 + mi) * 100 + s) * 1000000 + f;
    case DT_MINUTE_SECOND: return mi * 100 + s;
    case DT_MINUTE_MICROSECOND: return (mi * 100 + s) * 1000000 + f;
    case DT_SECOND_MICROSECOND: return s * 1000000 + f;
  }
  return 0;
}

GSQL_DEV int64_t dt_extract(int32_t u, int64_t t) {
  int64_t d = dt_days(t), us = t - d * DT_US_DAY;
  int64_t y, m, day;
  dt_civil(d, &y, &m, &day);
  if (u >= DT_YEAR_MONTH) return dt_extract_composite(u, y, m, day, us);
  switch (u) {
    case DT_MICROSECOND: return us % DT_US_SEC;
    case DT_MILLISECOND: return us % DT_US_MIN / 1000;
    case DT_SECOND: return us / DT_US_SEC % 60;
    case DT_MINUTE: return us / DT_US_MIN % 60;
    case DT_HOUR: return us / DT_US_HOUR;
    case DT_DAY: return day;
    case DT_WEEK: return dt_iso_week(d);
    case DT_MONTH: return m;
    case DT_QUARTER: return (m + 2) / 3;
    case DT_YEAR: return y;
    case DT_DECADE: return dt_floor_div(y, 10);
    case DT_CENTURY: return (y + 99) / 100;
    case DT_MILLENNIUM: return (y + 999) / 1000;
    case DT_DOW: return dt_day_of_week(d) - 1;
    case DT_ISODOW: return (dt_day_of_week(d) + 5) % 7 + 1;
    case DT_DOY: return dt_day_of_year(d);
    case DT_EPOCH: return dt_floor_div(t, DT_US_SEC);
  }
  return 0;
}

GSQL_DEV int64_t dt_trunc(int32_t u, int64_t t) {
  int64_t d = dt_days(t);
  int64_t y, m, day, z = 0;
  dt_civil(d, &y, &m, &day);
  switch (u) {
    case DT_MICROSECOND: return t;
    case DT_MILLISECOND: return dt_floor_div(t, 1000) * 1000;
    case DT_SECOND: return dt_floor_div(t, DT_US_SEC) * DT_US_SEC;
    case DT_MINUTE: return dt_floor_div(t, DT_US_MIN) * DT_US_MIN;
    case DT_HOUR: return dt_floor_div(t, DT_US_HOUR) * DT_US_HOUR;
    case DT_DAY: return d * DT_US_DAY;
    case DT_WEEK: z = d - (dt_day_of_week(d) + 5) % 7; break;
    case DT_MONTH: z = dt_days_from_civil(y, m, 1); break;
    case DT_QUARTER: z = dt_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1); break;
    case DT_YEAR: z = dt_days_from_civil(y, 1, 1); break;
    case DT_DECADE: z = dt_days_from_civil(dt_floor_div(y, 10) * 10, 1, 1); break;
    case DT_CENTURY: z = dt_days_from_civil((y - 1) / 100 * 100 + 1, 1, 1); break;
    case DT_MILLENNIUM: z = dt_days_from_civil((y - 1) / 1000 * 1000 + 1, 1, 1); break;
  }
  return z * DT_US_DAY;
}

GSQL_DEV int64_t dt_ts_diff(int32_t u, int64_t a, int64_t b) {
  if (u == DT_MONTH || u == DT_QUARTER || u == DT_YEAR) {
    int64_t da = dt_days(a), db = dt_days(b);
    int64_t ua = a - da * DT_US_DAY, ub = b - db * DT_US_DAY;
    int64_t ya, ma, dda, yb, mb, ddb;
    dt_civil(da, &ya, &ma, &dda);
    dt_civil(db, &yb, &mb, &ddb);
    int64_t months = (yb * 12 + mb) - (ya * 12 + ma);
    int64_t ra = dda * DT_US_DAY + ua, rb = ddb * DT_US_DAY + ub;
    if (months > 0 && rb < ra)
      months--;
    else if (months < 0 && rb > ra)
      months++;
    if (u == DT_QUARTER) return months / 3;
    if (u == DT_YEAR) return months / 12;
    return months;
  }
  int64_t step = 1;
  switch (u) {
    case DT_MILLISECOND: step = 1000; break;
    case DT_SECOND: step = DT_US_SEC; break;
    case DT_MINUTE: step = DT_US_MIN; break;
    case DT_HOUR: step = DT_US_HOUR; break;
    case DT_DAY: step = DT_US_DAY; break;
    case DT_WEEK: step = 7 * DT_US_DAY; break;
  }
  return (b - a) / step;
}

// The unit named by s (expr.ParseUnit), or -1.
GSQL_DEV int32_t dt_unit_code(SV s) {
  char w[19];
  int32_t n = 0;
  int32_t i = 0;
  while (i < s.n && s.p[i] == ' ') i++;
  int32_t e = s.n;
  while (e > i && s.p[e - 1] == ' ') e--;
  if (e - i > 18) return -1;
  for (; i < e; i++) {
    char c = s.p[i];
    w[n++] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
  }
  w[n] = 0;
  struct {
    const char* name;
    int32_t code;
  } names[] = {
      {"microsecond", DT_MICROSECOND},
      {"microseconds", DT_MICROSECOND},
      {"us", DT_MICROSECOND},
      {"millisecond", DT_MILLISECOND},
      {"milliseconds", DT_MILLISECOND},
      {"ms", DT_MILLISECOND},
      {"second", DT_SECOND},
      {"seconds", DT_SECOND},
      {"s", DT_SECOND},
      {"minute", DT_MINUTE},
      {"minutes", DT_MINUTE},
      {"hour", DT_HOUR},
      {"hours", DT_HOUR},
      {"h", DT_HOUR},
      {"day", DT_DAY},
      {"days", DT_DAY},
      {"d", DT_DAY},
      {"week", DT_WEEK},
      {"weeks", DT_WEEK},
      {"month", DT_MONTH},
      {"months", DT_MONTH},
      {"quarter", DT_QUARTER},
      {"quarters", DT_QUARTER},
      {"year", DT_YEAR},
      {"years", DT_YEAR},
      {"y", DT_YEAR},
      {"decade", DT_DECADE},
      {"decades", DT_DECADE},
      {"century", DT_CENTURY},
      {"centuries", DT_CENTURY},
      {"millennium", DT_MILLENNIUM},
      {"millennia", DT_MILLENNIUM},
      {"dayofweek", DT_DOW},
      {"dow", DT_DOW},
      {"dayofyear", DT_DOY},
      {"doy", DT_DOY},
      {"epoch", DT_EPOCH},
      {"isodow", DT_ISODOW},
      {"year_month", DT_YEAR_MONTH},
      {"day_hour", DT_DAY_HOUR},
      {"day_minute", DT_DAY_MINUTE},
      {"day_second", DT_DAY_SECOND},
      {"day_microsecond", DT_DAY_MICROSECOND},
      {"hour_minute", DT_HOUR_MINUTE},
      {"hour_second", DT_HOUR_SECOND},
      {"hour_microsecond", DT_HOUR_MICROSECOND},
      {"minute_second", DT_MINUTE_SECOND},
      {"minute_microsecond", DT_MINUTE_MICROSECOND},
      {"second_microsecond", DT_SECOND_MICROSECOND},
  };
  for (int32_t k = 0; k < (int32_t)(sizeof(names) / sizeof(names[0])); k++) {
    const char* p = names[k].name;
    int32_t j = 0;
    while (p[j] && p[j] == w[j]) j++;
    if (!p[j] && !w[j]) return names[k].code;
  }
  return -1;
}

GSQL_INL bool dt_is_digit(char c) { return c >= '0' && c <= '9'; }

GSQL_INL bool dt_is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// s without ASCII blanks at either end (datetime's asciiSpace).
GSQL_INL SV dt_trim(SV s) {
  int32_t i = 0, e = s.n;
  while (i < e && dt_is_blank(s.p[i])) i++;
  while (e > i && dt_is_blank(s.p[e - 1])) e--;
  return sv_make(s.p + i, e - i);
}

// Reads up to max digits at s[*i]; false when there are none.
GSQL_DEV bool dt_num(SV s, int32_t* i, int32_t max, int64_t* out) {
  int32_t start = *i;
  int64_t v = 0;
  while (*i < s.n && dt_is_digit(s.p[*i]) && *i - start < max) {
    v = v * 10 + (s.p[*i] - '0');
    (*i)++;
  }
  *out = v;
  return *i > start;
}

// The date part of text (datetime.parseYMD); *i is left after it.
GSQL_DEV bool dt_parse_ymd(SV s, int32_t* i, int64_t* y, int64_t* m, int64_t* d) {
  int32_t k = *i;
  int32_t run = 0;
  while (k + run < s.n && dt_is_digit(s.p[k + run])) run++;
  if (run == 12 || run == 14) {
    // YYMMDDhhmmss and YYYYMMDDhhmmss: *i stops at hhmmss, which
    // dt_parse_tod reads (datetime.parseYMD).
    const char* p = s.p + k;
    int32_t yl = run - 10;
    *y = 0;
    for (int32_t j = 0; j < yl; j++) *y = *y * 10 + (p[j] - '0');
    if (yl == 2) *y += *y < 70 ? 2000 : 1900;
    *m = (p[yl] - '0') * 10 + (p[yl + 1] - '0');
    *d = (p[yl + 2] - '0') * 10 + (p[yl + 3] - '0');
    *i = k + run - 6;
    return true;
  }
  if (run == s.n - k && (run == 5 || run == 7 || run == 9 || run == 10 || run == 11)) {
    // Digits alone of another length (datetime.parseYMD): YY, MM and DD,
    // the last may be short; *i stops at the time digits, which
    // dt_parse_tod reads two at a time.
    const char* p = s.p + k;
    *y = (p[0] - '0') * 10 + (p[1] - '0');
    *y += *y < 70 ? 2000 : 1900;
    *m = (p[2] - '0') * 10 + (p[3] - '0');
    *d = p[4] - '0';
    if (run > 5) *d = *d * 10 + (p[5] - '0');
    *i = k + (run < 6 ? run : 6);
    return true;
  }
  bool six = s.n - k == 6;
  for (int32_t j = 0; six && j < 6; j++) six = dt_is_digit(s.p[k + j]);
  if (six) {
    // YYMMDD alone (datetime.parseYMD).
    const char* p = s.p + k;
    *y = (p[0] - '0') * 10 + (p[1] - '0');
    *y += *y < 70 ? 2000 : 1900;
    *m = (p[2] - '0') * 10 + (p[3] - '0');
    *d = (p[4] - '0') * 10 + (p[5] - '0');
    *i = k + 6;
    return true;
  }
  bool eight = s.n - k >= 8;
  for (int32_t j = 0; eight && j < 8; j++) eight = dt_is_digit(s.p[k + j]);
  if (eight && (s.n - k == 8 || !dt_is_digit(s.p[k + 8]))) {
    if (s.n - k == 8 || s.p[k + 8] == ' ' || s.p[k + 8] == 'T') {
      const char* p = s.p + k;
      *y = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0');
      *m = (p[4] - '0') * 10 + (p[5] - '0');
      *d = (p[6] - '0') * 10 + (p[7] - '0');
      *i = k + 8;
      return true;
    }
  }
  int32_t start = k;
  if (!dt_num(s, &k, 4, y)) return false;
  if (k >= s.n || (s.p[k] != '-' && s.p[k] != '/' && s.p[k] != '.')) return false;
  // YY-MM-DD (datetime.TwoDigitYear).
  if (k - start == 2) *y += *y < 70 ? 2000 : 1900;
  k++;
  if (!dt_num(s, &k, 2, m)) return false;
  if (k >= s.n || (s.p[k] != '-' && s.p[k] != '/' && s.p[k] != '.')) return false;
  k++;
  if (!dt_num(s, &k, 2, d)) return false;
  *i = k;
  return true;
}

// An optional '.' and fraction of a second at s[*i], in microseconds
// (the first six digits count); false for a '.' without digits.
GSQL_DEV bool dt_frac_part(SV s, int32_t* i, int64_t* out) {
  *out = 0;
  if (*i >= s.n || s.p[*i] != '.') return true;
  int32_t start = ++*i;
  while (*i < s.n && dt_is_digit(s.p[*i])) {
    if (*i - start < 6) *out = *out * 10 + (s.p[*i] - '0');
    (*i)++;
  }
  for (int32_t k = *i - start; k < 6; k++) *out *= 10;
  return *i > start;
}

// The time of day after the date (datetime.parseTimeOfDay).
GSQL_DEV bool dt_parse_tod(SV s, int32_t i, int64_t* out) {
  *out = 0;
  if (i == s.n) return true;
  // hhmmss of YYYYMMDDhhmmss (dt_parse_ymd): digits all the way here.
  bool digits = dt_is_digit(s.p[i]);
  for (int32_t j = 0; digits && j < i; j++) digits = dt_is_digit(s.p[j]);
  if (!digits) {
    if (s.p[i] != ' ' && s.p[i] != 'T') return false;
    i++;
    while (i < s.n && s.p[i] == ' ') i++;
  }
  int32_t end = s.n;
  if (end > i && s.p[end - 1] == 'Z') end--;
  SV t = sv_make(s.p, end);
  int64_t h, mi, sec = 0, frac = 0;
  if (digits) {
    // hhmmss, or fewer digits from a shorter digit string (the missing
    // fields are 0).
    if (!dt_num(t, &i, 2, &h)) return false;
    dt_num(t, &i, 2, &mi);
  } else {
    if (!dt_num(t, &i, 2, &h) || i >= t.n || t.p[i] != ':') return false;
    i++;
    if (!dt_num(t, &i, 2, &mi)) return false;
  }
  if (digits || (i < t.n && t.p[i] == ':')) {
    if (!digits) i++;
    if (!dt_num(t, &i, 2, &sec) && !digits) return false;
    int32_t dot = i;
    if (!dt_frac_part(t, &i, &frac)) return false;
    // A seventh digit rounds (23:59:59.9999995 is the next midnight).
    if (i - dot > 7 && t.p[dot + 7] >= '5') frac++;
  }
  if (i != t.n || h > 23 || mi > 59 || sec > 59) return false;
  *out = h * DT_US_HOUR + mi * DT_US_MIN + sec * DT_US_SEC + frac;
  return true;
}

// Text to DATE (ts false) or TIMESTAMP (ts true); false when it is not one.
GSQL_DEV bool dt_parse(SV s, bool ts, int64_t* out) {
  SV t = dt_trim(s);
  int32_t k = 0;
  int64_t y, m, d, tod;
  *out = 0;
  if (!dt_parse_ymd(t, &k, &y, &m, &d) || !dt_valid_date(y, m, d)) return false;
  if (!dt_parse_tod(t, k, &tod)) return false;
  int64_t z = dt_days_from_civil(y, m, d);
  *out = ts ? z * DT_US_DAY + tod : z;
  // 9999-12-31 23:59:59.9999995 stays in the last microsecond.
  if (ts && *out == (dt_days_from_civil(9999, 12, 31) + 1) * DT_US_DAY) (*out)--;
  return true;
}

// datetime.junkAt: s[p..] does not go on with a digit after punctuation
// and blanks.
GSQL_DEV bool dt_junk_at(SV s, int32_t p) {
  for (; p < s.n; p++) {
    char c = s.p[p];
    if (dt_is_digit(c)) return false;
    bool letter = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    if (c == ' ' || (c > ' ' && c < 0x7f && !letter)) continue;
    return true;
  }
  return true;
}

// datetime.ParseDatePrefix / ParseTimestampPrefix: dt_parse, else the
// longest prefix (ending by byte 64) that is a date followed by trailing
// text.
GSQL_DEV bool dt_parse_prefix(SV s, bool ts, int64_t* out) {
  if (dt_parse(s, ts, out)) return true;
  int32_t i = 0;
  while (i < s.n && dt_is_blank(s.p[i])) i++;
  SV t = sv_make(s.p + i, s.n - i);
  for (int32_t p = t.n - 1 < 64 ? t.n - 1 : 64; p > 0; p--) {
    if (!dt_is_digit(t.p[p - 1]) || !dt_junk_at(t, p)) continue;
    if (dt_parse(sv_make(t.p, p), ts, out)) return true;
  }
  *out = 0;
  return false;
}

// MySQL's number forms YYMMDD, YYYYMMDD, YYMMDDhhmmss and YYYYMMDDhhmmss
// to DATE/TIMESTAMP (expr.numberTemporal, datetime.NumberDate).
GSQL_DEV bool dt_from_number(int64_t x, bool ts, int64_t* out) {
  int64_t tod = 0;
  *out = 0;
  if (x < 101 || (x > 691231 && x < 700101) || (x > 991231 && x < 10000101) ||
      (x > 99991231 && x < 101000000) || (x > 691231235959 && x < 700101000000) ||
      (x > 991231235959 && x < 10000101000000) || x > 99991231235959)
    return false;
  if (x <= 691231)
    x += 20000000;
  else if (x <= 991231)
    x += 19000000;
  else if (x >= 101000000 && x <= 691231235959)
    x += 20000000000000;
  else if (x >= 700101000000 && x <= 991231235959)
    x += 19000000000000;
  if (x > 99991231) {
    int64_t hms = x % 1000000;
    x /= 1000000;
    int64_t h = hms / 10000, mi = hms / 100 % 100, s = hms % 100;
    if (h > 23 || mi > 59 || s > 59) return false;
    tod = h * DT_US_HOUR + mi * DT_US_MIN + s * DT_US_SEC;
  }
  int64_t y = x / 10000, m = x / 100 % 100, d = x % 100;
  if (!dt_valid_date(y, m, d)) return false;
  int64_t z = dt_days_from_civil(y, m, d);
  *out = ts ? z * DT_US_DAY + tod : z;
  // 9999-12-31 23:59:59.9999995 stays in the last microsecond.
  if (ts && *out == (dt_days_from_civil(9999, 12, 31) + 1) * DT_US_DAY) (*out)--;
  return true;
}

// DATE/TIMESTAMP as MySQL's number (expr.temporalNumber).
GSQL_DEV int64_t dt_to_number(int64_t x, bool ts) {
  int64_t y, m, d;
  if (!ts) {
    dt_civil(x, &y, &m, &d);
    return y * 10000 + m * 100 + d;
  }
  int64_t z = dt_days(x), us = x - z * DT_US_DAY;
  dt_civil(z, &y, &m, &d);
  int64_t secs = us / DT_US_SEC;
  return ((y * 10000 + m * 100 + d) * 100 + secs / 3600) * 10000 + secs / 60 % 60 * 100 + secs % 60;
}

GSQL_INL void dt_put(char* dst, int64_t v, int32_t w) {
  for (int32_t k = w - 1; k >= 0; k--) {
    dst[k] = (char)('0' + v % 10);
    v /= 10;
  }
}

GSQL_DEV void dt_date_write(int64_t z, char* dst) {
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  dt_put(dst, y, 4);
  dst[4] = '-';
  dt_put(dst + 5, m, 2);
  dst[7] = '-';
  dt_put(dst + 8, d, 2);
}

// Digits of a fraction f (microseconds, 0..999999) printed without
// trailing zeros, 0 for none.
GSQL_INL int32_t dt_frac_width(int64_t f) {
  if (f == 0) return 0;
  int32_t n = 6;
  while (f % 10 == 0) {
    f /= 10;
    n--;
  }
  return n;
}

// Digits of t's fraction of a second as a timestamp prints it.
GSQL_INL int32_t dt_frac_digits(int64_t t) { return dt_frac_width(dt_tod(t) % DT_US_SEC); }

GSQL_DEV int32_t dt_ts_text_len(int64_t t) {
  int32_t f = dt_frac_digits(t);
  return 19 + (f ? f + 1 : 0);
}

// dt_ts_write_n writes t with f (0-6) digits of a second (none for 0), as
// a DATETIME(f) prints; 19 + (f ? f + 1 : 0) bytes.
GSQL_DEV void dt_ts_write_n(int64_t t, int32_t f, char* dst) {
  int64_t z = dt_days(t), us = t - z * DT_US_DAY;
  dt_date_write(z, dst);
  dst[10] = ' ';
  dt_put(dst + 11, us / DT_US_HOUR, 2);
  dst[13] = ':';
  dt_put(dst + 14, us / DT_US_MIN % 60, 2);
  dst[16] = ':';
  dt_put(dst + 17, us / DT_US_SEC % 60, 2);
  if (f) {
    int64_t frac = us % DT_US_SEC;
    for (int32_t k = f; k < 6; k++) frac /= 10;
    dst[19] = '.';
    dt_put(dst + 20, frac, f);
  }
}

GSQL_DEV void dt_ts_write(int64_t t, char* dst) { dt_ts_write_n(t, dt_frac_digits(t), dst); }

// dt_round_fsp rounds t to f (0-5) digits of a second, half up, as a
// value stored in a DATETIME(f) (datetime.RoundFsp); *ok turns false when
// the result leaves the years 1-9999.
GSQL_INL int64_t dt_round_fsp(int64_t t, int32_t f, bool* ok) {
  int64_t unit = 1;
  for (int32_t k = f; k < 6; k++) unit *= 10;
  int64_t r = dt_floor_div(t + unit / 2, unit) * unit;
  if (!dt_ts_in_range(r)) *ok = false;
  return r;
}

GSQL_DEV SV dt_day_name(int64_t z) {
  const char* names =
      "Sunday\0\0\0\0Monday\0\0\0\0Tuesday\0\0\0Wednesday\0Thursday\0\0Friday\0\0\0\0Saturday\0\0";
  const int32_t lens[7] = {6, 6, 7, 9, 8, 6, 8};
  int64_t k = dt_day_of_week(z) - 1;
  return sv_make(names + 10 * k, lens[k]);
}

GSQL_DEV SV dt_month_name(int64_t z) {
  const char* names =
      "January\0\0\0February\0\0March\0\0\0\0\0April\0\0\0\0\0May\0\0\0\0\0\0\0June\0\0\0\0\0\0"
      "July\0\0\0\0\0\0August\0\0\0\0September\0October\0\0\0November\0\0December\0\0";
  const int32_t lens[12] = {7, 8, 5, 5, 3, 4, 4, 6, 9, 7, 8, 8};
  int64_t y, m, d;
  dt_civil(z, &y, &m, &d);
  return sv_make(names + 10 * (m - 1), lens[m - 1]);
}

// DATE_FORMAT (expr.AppendDateFormat): dt_format writes timestamp t with
// MySQL's specifiers into dst (when not null) and returns the length.
GSQL_DEV int32_t dt_put_num(char* dst, int32_t at, int64_t v, int32_t w) {
  int32_t n = 1;
  for (int64_t x = v; x >= 10; x /= 10) n++;
  if (n < w) n = w;
  if (dst) dt_put(dst + at, v, n);
  return at + n;
}

GSQL_DEV int32_t dt_put_sv(char* dst, int32_t at, SV s) {
  if (dst)
    for (int32_t k = 0; k < s.n; k++) dst[at + k] = s.p[k];
  return at + s.n;
}

GSQL_DEV int32_t dt_format(SV f, int64_t t, char* dst) {
  int64_t d = dt_days(t), us = t - d * DT_US_DAY;
  int64_t y, m, day;
  dt_civil(d, &y, &m, &day);
  int64_t h = us / DT_US_HOUR, mi = us / DT_US_MIN % 60, s = us / DT_US_SEC % 60;
  int64_t h12 = (h + 11) % 12 + 1;
  int32_t o = 0;
  for (int32_t i = 0; i < f.n; i++) {
    char c = f.p[i];
    if (c != '%' || i + 1 == f.n) {
      if (dst) dst[o] = c;
      o++;
      continue;
    }
    i++;
    switch (f.p[i]) {
      case 'Y': o = dt_put_num(dst, o, y, 4); break;
      case 'y': o = dt_put_num(dst, o, y % 100, 2); break;
      case 'm': o = dt_put_num(dst, o, m, 2); break;
      case 'c': o = dt_put_num(dst, o, m, 1); break;
      case 'd': o = dt_put_num(dst, o, day, 2); break;
      case 'e': o = dt_put_num(dst, o, day, 1); break;
      case 'H': o = dt_put_num(dst, o, h, 2); break;
      case 'k': o = dt_put_num(dst, o, h, 1); break;
      case 'h':
      case 'I': o = dt_put_num(dst, o, h12, 2); break;
      case 'l': o = dt_put_num(dst, o, h12, 1); break;
      case 'i': o = dt_put_num(dst, o, mi, 2); break;
      case 's':
      case 'S': o = dt_put_num(dst, o, s, 2); break;
      case 'f': o = dt_put_num(dst, o, us % DT_US_SEC, 6); break;
      case 'p': o = dt_put_sv(dst, o, h < 12 ? sv_make("AM", 2) : sv_make("PM", 2)); break;
      case 'M': o = dt_put_sv(dst, o, dt_month_name(d)); break;
      case 'b': {
        SV n = dt_month_name(d);
        n.n = 3;
        o = dt_put_sv(dst, o, n);
        break;
      }
      case 'W': o = dt_put_sv(dst, o, dt_day_name(d)); break;
      case 'a': {
        SV n = dt_day_name(d);
        n.n = 3;
        o = dt_put_sv(dst, o, n);
        break;
      }
      case 'w': o = dt_put_num(dst, o, dt_day_of_week(d) - 1, 1); break;
      case 'j': o = dt_put_num(dst, o, dt_day_of_year(d), 3); break;
      case 'U':
      case 'u':
      case 'V':
      case 'v': {
        // WEEK modes 0, 1, 2, 3.
        int64_t wy, mode = f.p[i] == 'U' ? 0 : f.p[i] == 'u' ? 1 : f.p[i] == 'V' ? 2 : 3;
        o = dt_put_num(dst, o, dt_week_mode(d, mode, false, &wy), 2);
        break;
      }
      case 'X':
      case 'x': {
        int64_t wy;
        dt_week_mode(d, f.p[i] == 'X' ? 2 : 3, false, &wy);
        o = dt_put_num(dst, o, wy, 4);
        break;
      }
      case 'D': {
        o = dt_put_num(dst, o, day, 1);
        const char* suf = "th";
        if (day / 10 != 1) {
          if (day % 10 == 1)
            suf = "st";
          else if (day % 10 == 2)
            suf = "nd";
          else if (day % 10 == 3)
            suf = "rd";
        }
        o = dt_put_sv(dst, o, sv_make(suf, 2));
        break;
      }
      case 'T':
        o = dt_put_num(dst, o, h, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, mi, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, s, 2);
        break;
      case 'r':
        o = dt_put_num(dst, o, h12, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, mi, 2);
        o = dt_put_sv(dst, o, sv_make(":", 1));
        o = dt_put_num(dst, o, s, 2);
        o = dt_put_sv(dst, o, h < 12 ? sv_make(" AM", 3) : sv_make(" PM", 3));
        break;
      default:
        if (dst) dst[o] = f.p[i];
        o++;
    }
  }
  return o;
}

// STR_TO_DATE (expr.ParseDateFormat): reads s with format f into a
// TIMESTAMP; false when s does not match or is not a valid date.
GSQL_DEV bool dt_num_sp(SV s, int32_t* i, int32_t max, int64_t* out) {
  while (*i < s.n && s.p[*i] == ' ') (*i)++;
  return dt_num(s, i, max, out);
}

// dt_name matches one of n names (or their first 3 letters) at s[*i],
// case-insensitively; the index, or -1.
GSQL_DEV int64_t dt_name(SV s, int32_t* i, bool months, bool abbrev) {
  for (int64_t k = 0; k < (months ? 12 : 7); k++) {
    SV nm = months ? dt_month_name(dt_days_from_civil(2001, k + 1, 1)) : dt_day_name(k + 3);
    if (abbrev) nm.n = 3;
    if (s.n - *i < nm.n) continue;
    bool eq = true;
    for (int32_t j = 0; j < nm.n && eq; j++) {
      char a = s.p[*i + j], b = nm.p[j];
      if (a >= 'A' && a <= 'Z') a += 32;
      if (b >= 'A' && b <= 'Z') b += 32;
      eq = a == b;
    }
    if (eq) {
      *i += nm.n;
      return k;
    }
  }
  return -1;
}

// dt_meridiem reads AM or PM (any case) at s[*i] (expr.meridiem).
GSQL_DEV bool dt_meridiem(SV s, int32_t* i, bool* pm) {
  if (s.n - *i < 2) return false;
  char a = s.p[*i], b = s.p[*i + 1];
  if (a >= 'a' && a <= 'z') a -= 32;
  if (b >= 'a' && b <= 'z') b -= 32;
  *i += 2;
  if (a == 'A' && b == 'M') return true;
  if (a == 'P' && b == 'M') return *pm = true;
  return false;
}

GSQL_INL bool dt_is_letter(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

// dt_skip_class: %# skips digits, %@ letters, %. punctuation.
GSQL_INL bool dt_skip_class(char spec, char c) {
  bool digit = c >= '0' && c <= '9';
  if (spec == '#') return digit;
  if (spec == '@') return dt_is_letter(c);
  return c > ' ' && c < 0x7f && !dt_is_letter(c) && !digit;
}

// dt_has_date_spec: the format text f[j..] holds a date field.
GSQL_DEV bool dt_has_date_spec(SV f, int32_t j) {
  const char* date = "YymcdeDjMbUuVvXx";
  for (int32_t k = j; k + 1 < f.n; k++) {
    if (f.p[k] != '%') continue;
    for (const char* c = date; *c; c++)
      if (*c == f.p[k + 1]) return true;
    k++;
  }
  return false;
}

// dt_spec_field / dt_full_date: expr.specField and expr.fullDate.
GSQL_INL int32_t dt_spec_field(char c) {
  switch (c) {
    case 'Y':
    case 'y': return 1;
    case 'm':
    case 'c':
    case 'M':
    case 'b': return 2;
    case 'd':
    case 'e':
    case 'D': return 4;
    case 'j': return 8;
    case 'H':
    case 'k':
    case 'h':
    case 'I':
    case 'l':
    case 'i':
    case 's':
    case 'S':
    case 'f':
    case 'T':
    case 'r':
    case 'p': return 16;
  }
  return 0;
}

GSQL_INL bool dt_full_date(int32_t seen) {
  if ((seen & 15) == 0) return seen != 0;
  return (seen & 1) != 0 && ((seen & 6) == 6 || (seen & 8) != 0);
}

// With day_clock (expr.ParseDayClock) the format holds a day and times
// only: the day may be 0..31 and the result is days and time in
// microseconds.
GSQL_DEV bool dt_str_to_date(SV s, SV f, bool day_clock, int64_t* out) {
  int64_t y = 1970, m = 1, d = day_clock ? 0 : 1, h = 0, mi = 0, sec = 0, frac = 0, yday = 0;
  bool pm = false, ampm = false;
  int32_t i = 0, seen = 0;
  *out = 0;
  for (int32_t j = 0; j < f.n; j++) {
    if (i >= s.n) {
      // The rest of the format is ignored unless it holds a date field.
      if (dt_has_date_spec(f, j)) return false;
      break;
    }
    if (f.p[j] != '%' || j + 1 == f.n) {
      if (f.p[j] == ' ') {
        while (i < s.n && s.p[i] == ' ') i++;
        continue;
      }
      if (i >= s.n || s.p[i] != f.p[j]) return false;
      i++;
      continue;
    }
    j++;
    bool ok = false;
    switch (f.p[j]) {
      case 'Y': ok = dt_num_sp(s, &i, 4, &y); break;
      case 'y':
        ok = dt_num_sp(s, &i, 2, &y);
        y += y < 70 ? 2000 : 1900;
        break;
      case 'm':
      case 'c': ok = dt_num_sp(s, &i, 2, &m); break;
      case 'd':
      case 'e': ok = dt_num_sp(s, &i, 2, &d); break;
      case 'D':
        ok = dt_num_sp(s, &i, 2, &d) && s.n - i >= 2 && dt_is_letter(s.p[i]) &&
             dt_is_letter(s.p[i + 1]);
        if (ok) i += 2;
        break;
      case 'T':
      case 'r':
        // Like the format, these stop where s ends (expr.parseClock).
        ok = dt_num_sp(s, &i, 2, &h);
        if (ok && i < s.n) {
          ok = s.p[i++] == ':' && dt_num_sp(s, &i, 2, &mi);
          if (ok && i < s.n) ok = s.p[i++] == ':' && dt_num_sp(s, &i, 2, &sec);
        }
        if (ok && f.p[j] == 'r' && i < s.n) {
          while (i < s.n && s.p[i] == ' ') i++;
          ampm = true;
          ok = dt_meridiem(s, &i, &pm);
        }
        break;
      case '#':
      case '.':
      case '@':
        while (i < s.n && dt_skip_class(f.p[j], s.p[i])) i++;
        ok = true;
        break;
      case 'H':
      case 'k': ok = dt_num_sp(s, &i, 2, &h); break;
      case 'h':
      case 'I':
      case 'l':
        ok = dt_num_sp(s, &i, 2, &h);
        ampm = true;
        break;
      case 'i': ok = dt_num_sp(s, &i, 2, &mi); break;
      case 's':
      case 'S': ok = dt_num_sp(s, &i, 2, &sec); break;
      case 'f': {
        while (i < s.n && s.p[i] == ' ') i++;
        int32_t start = i;
        ok = dt_num(s, &i, 6, &frac);
        for (int32_t k = i - start; k < 6; k++) frac *= 10;
        break;
      }
      case 'j': ok = dt_num_sp(s, &i, 3, &yday); break;
      case 'p': ok = dt_meridiem(s, &i, &pm); break;
      case 'M':
        m = dt_name(s, &i, true, false) + 1;
        ok = m > 0;
        break;
      case 'b':
        m = dt_name(s, &i, true, true) + 1;
        ok = m > 0;
        break;
      case 'W': ok = dt_name(s, &i, false, false) >= 0; break;
      case 'a': ok = dt_name(s, &i, false, true) >= 0; break;
      case '%':
        ok = i < s.n && s.p[i] == '%';
        i++;
        break;
      default: return false;
    }
    if (!ok) return false;
    seen |= dt_spec_field(f.p[j]);
  }
  // Text after the format is ignored (MySQL warns).
  if ((!day_clock && !dt_full_date(seen)) || seen == 0) return false;
  if (ampm) {
    if (h < 1 || h > 12) return false;
    h %= 12;
    if (pm) h += 12;
  }
  if (h > 23 || mi > 59 || sec > 59) return false;
  int64_t clock = h * DT_US_HOUR + mi * DT_US_MIN + sec * DT_US_SEC + frac;
  if (day_clock) {
    *out = d * DT_US_DAY + clock;
    return d <= 31;
  }
  int64_t z;
  if (yday > 0) {
    if (y < 1 || y > 9999 || yday > 365 + (dt_is_leap(y) ? 1 : 0)) return false;
    z = dt_days_from_civil(y, 1, 1) + yday - 1;
  } else {
    if (!dt_valid_date(y, m, d)) return false;
    z = dt_days_from_civil(y, m, d);
  }
  *out = z * DT_US_DAY + clock;
  return true;
}
