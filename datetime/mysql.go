package datetime

import "strings"

// MySQL's calendar functions that need more than civil dates: day numbers
// counted from year 0 (TO_DAYS), the eight week modes, periods (YYYYMM)
// and TIME values.
//
// gsql has no TIME type: a TIME is a signed count of microseconds here and
// text ('-01:02:03.5', hours past 24 allowed) in SQL, in MySQL's range
// -838:59:59 .. 838:59:59.

// ToDaysOffset is TO_DAYS('1970-01-01'): MySQL counts days from the
// (proleptic) year 0, whose 366 days make 0001-01-01 day 366.
const ToDaysOffset = 719528

// ToDays returns MySQL's TO_DAYS of day number z.
func ToDays(z int64) int64 { return z + ToDaysOffset }

// FromDays returns the date of MySQL day number n; ok is false outside
// 0001-01-01..9999-12-31 (MySQL prints '0000-00-00' or NULL there).
func FromDays(n int64) (int64, bool) {
	if n < MinDays+ToDaysOffset || n > MaxDays+ToDaysOffset {
		return 0, false
	}
	return n - ToDaysOffset, true
}

// MakeDate is MySQL's MAKEDATE(year, dayofyear): day 1 is January 1st and
// days run on into the following years; a two-digit year is 1970..2069.
func MakeDate(y, doy int64) (int64, bool) {
	if doy <= 0 || y < 0 || y > MaxYear || doy > 3660000 {
		return 0, false
	}
	if y < 100 {
		y = TwoDigitYear(y)
	}
	z := DaysFromCivil(y, 1, 1) + doy - 1
	return z, z >= MinDays && z <= MaxDays
}

// TwoDigitYear maps 00..69 to 2000..2069 and 70..99 to 1970..1999.
func TwoDigitYear(y int64) int64 {
	if y < 70 {
		return y + 2000
	}
	return y + 1900
}

// WeekMode is how MySQL's WEEK(date, mode) counts, from the mode's three
// bits (mode & 7).
type WeekMode struct {
	MondayFirst bool // weeks start on Monday, else Sunday
	YearRange   bool // weeks 1..53, a day before week 1 is in the last week of the year before; else 0..53
	FirstDay    bool // week 1 holds the year's first Sunday/Monday; else it holds 4 or more of the year's days
}

// ModeOf returns the counting of WEEK's mode (only its low 3 bits count,
// as in MySQL: mode 8 is mode 0).
func ModeOf(mode int64) WeekMode {
	m := mode & 7
	monday := m&1 != 0
	// Bit 2 reads "first day" for Monday modes and "4 days" for Sunday
	// modes, so mode 0 is "weeks from the first Sunday".
	return WeekMode{MondayFirst: monday, YearRange: m&2 != 0, FirstDay: (m&4 != 0) == monday}
}

// week1Start returns the first day of week 1 of year y.
func (w WeekMode) week1Start(y int64) int64 {
	jan1 := DaysFromCivil(y, 1, 1)
	wd := DayOfWeek(jan1) - 1 // days since Sunday
	if w.MondayFirst {
		wd = (wd + 6) % 7
	}
	if w.FirstDay {
		return jan1 + (7-wd)%7
	}
	if wd <= 3 {
		return jan1 - wd
	}
	return jan1 + 7 - wd
}

// Week returns the week number of day z and the year it belongs to (which
// YEARWEEK prints; it differs from z's year only in a YearRange mode).
func (w WeekMode) Week(z int64) (week, year int64) {
	year, _, _ = CivilFromDays(z)
	start := w.week1Start(year)
	if z < start {
		if !w.YearRange {
			return 0, year
		}
		year--
		start = w.week1Start(year)
	} else if w.YearRange && z >= w.week1Start(year+1) {
		return 1, year + 1
	}
	return (z-start)/7 + 1, year
}

// WeekOf is MySQL's WEEK(z, mode).
func WeekOf(z, mode int64) int64 {
	w, _ := ModeOf(mode).Week(z)
	return w
}

// YearWeek is MySQL's YEARWEEK(z, mode): year*100 + week, always counting
// weeks 1..53 (a day before week 1 is in the year before's last week).
func YearWeek(z, mode int64) int64 {
	m := ModeOf(mode)
	m.YearRange = true
	w, y := m.Week(z)
	return y*100 + w
}

// PeriodMonths converts a period YYMM or YYYYMM to a month count
// (year*12 + month-1); ok is false for a negative period or a month that
// is 0 or past 12 (MySQL 8 rejects those).
func PeriodMonths(p int64) (int64, bool) {
	if p <= 0 || p%100 == 0 || p%100 > 12 || p > 999999 {
		return 0, false
	}
	y := p / 100
	if y < 100 {
		y = TwoDigitYear(y)
	}
	return y*12 + p%100 - 1, true
}

// MonthsPeriod converts a month count back to YYYYMM.
func MonthsPeriod(months int64) int64 {
	y := floorDiv(months, 12)
	return y*100 + months - y*12 + 1
}

// MaxTime is MySQL's largest TIME, 838:59:59, in microseconds.
const MaxTime = (838*3600 + 59*60 + 59) * MicrosPerSecond

// ClampTime limits t to -838:59:59..838:59:59, as MySQL does (with a
// warning) for a TIME result out of range.
func ClampTime(t int64) int64 {
	if t > MaxTime {
		return MaxTime
	}
	if t < -MaxTime {
		return -MaxTime
	}
	return t
}

// ParseTime reads MySQL's TIME text: [-][D ]HH:MM[:SS[.ffffff]], or digits
// [HH]MM]SS[.ffffff] read from the right ('1030' is 00:10:30), or a
// timestamp's time of day ('2024-01-05 10:00:00' is 10:00:00). Minutes and
// seconds must be below 60; hours past 838 clamp. ok is false otherwise.
func ParseTime(s string) (int64, bool) {
	s = strings.Trim(s, asciiSpace)
	if _, tod, ok := parseDateTime(s); ok {
		// A seventh digit may round up to the next midnight.
		return tod % MicrosPerDay, true
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	t, ok := parseTimeBody(s)
	if !ok {
		return 0, false
	}
	t = ClampTime(t)
	if neg {
		t = -t
	}
	return t, true
}

// parseDateTime reads a timestamp that has a time of day.
func parseDateTime(s string) (days, tod int64, ok bool) {
	if len(s) < 12 && allDigits(s) {
		// Fewer than 12 digits are a TIME ([H]HHMMSS) where a TIME is
		// read, as MySQL's str_to_time does, not YYMMDDh... .
		return 0, 0, false
	}
	y, m, d, rest, ok := parseYMD(s)
	if !ok || rest == "" || !ValidDate(y, m, d) {
		return 0, 0, false
	}
	if tod, ok = parseTimeOfDay(rest); !ok {
		return 0, 0, false
	}
	return DaysFromCivil(y, m, d), tod, true
}

func parseTimeBody(s string) (int64, bool) {
	i := 0
	digits := func() (int64, int, bool) {
		start := i
		var v int64
		for i < len(s) && isDigit(s[i]) {
			if i-start < 12 {
				v = v*10 + int64(s[i]-'0')
			}
			i++
		}
		return v, i - start, i > start
	}
	frac := func() (int64, bool) {
		if i == len(s) || s[i] != '.' {
			return 0, true
		}
		i++
		start := i
		var f int64
		for i < len(s) && isDigit(s[i]) {
			if i-start < 6 {
				f = f*10 + int64(s[i]-'0')
			}
			i++
		}
		for k := i - start; k < 6; k++ {
			f *= 10
		}
		// A seventh digit rounds, as MySQL 8 reads text.
		if i-start > 6 && s[start+6] >= '5' {
			f++
		}
		return f, i > start
	}
	first, n, ok := digits()
	if !ok {
		return 0, false
	}
	var day, h, mi, sec int64
	switch {
	case i < len(s) && s[i] == ' ':
		// D HH[:MM[:SS]]
		day = first
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if h, _, ok = digits(); !ok {
			return 0, false
		}
		if i < len(s) && s[i] == ':' {
			i++
			if mi, _, ok = digits(); !ok {
				return 0, false
			}
			if i < len(s) && s[i] == ':' {
				i++
				if sec, _, ok = digits(); !ok {
					return 0, false
				}
			}
		}
	case i < len(s) && s[i] == ':':
		h = first
		i++
		if mi, _, ok = digits(); !ok {
			return 0, false
		}
		if i < len(s) && s[i] == ':' {
			i++
			if sec, _, ok = digits(); !ok {
				return 0, false
			}
		}
	default:
		// HHMMSS read from the right.
		if n > 7 {
			return 0, false
		}
		h, mi, sec = first/10000, first/100%100, first%100
	}
	f, ok := frac()
	if !ok || i != len(s) || mi > 59 || sec > 59 || day > 34 {
		return 0, false
	}
	return ((day*24+h)*3600+mi*60+sec)*MicrosPerSecond + f, true
}

// ParseTimeOrDateTime reads text that ADDTIME and TIMEDIFF take: a
// timestamp with a time of day (isDateTime) or a TIME.
func ParseTimeOrDateTime(s string) (v int64, isDateTime, ok bool) {
	s = strings.Trim(s, asciiSpace)
	if days, tod, ok := parseDateTime(s); ok {
		return days*MicrosPerDay + tod, true, true
	}
	t, ok := ParseTime(s)
	return t, false, ok
}

// AppendTime appends TIME t as [-]HH:MM:SS[.ffffff] (at least two hour
// digits; the fraction without trailing zeros, as timestamps print).
func AppendTime(b []byte, t int64) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	secs := t / MicrosPerSecond
	b = appendPadded(b, secs/3600, 2)
	b = append(b, ':')
	b = appendPadded(b, secs/60%60, 2)
	b = append(b, ':')
	b = appendPadded(b, secs%60, 2)
	return appendFraction(b, t%MicrosPerSecond)
}

func appendFraction(b []byte, frac int64) []byte {
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	digits := 6
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	return appendPadded(b, frac, digits)
}

// IntervalFields reads the text of a composite INTERVAL ('1 2' DAY_HOUR,
// '1-2' YEAR_MONTH) into n fields, as MySQL does: an optional '-' makes the
// whole interval negative, digit runs are the fields and anything else
// separates them; fewer runs than fields fill the rightmost fields (the
// leftmost are taken as left out), more runs are an error. With micros the
// last field is a fraction of a second ('1.5' SECOND_MICROSECOND is 1.5 s).
func IntervalFields(s string, n int, micros bool) (fields []int64, neg, ok bool) {
	s = strings.Trim(s, asciiSpace)
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	var runs []int64
	lastLen := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		start := i
		var v int64
		for i < len(s) && isDigit(s[i]) {
			if v > (1<<62)/10 {
				return nil, false, false
			}
			v = v*10 + int64(s[i]-'0')
			i++
		}
		runs = append(runs, v)
		lastLen = i - start
	}
	if len(runs) > n {
		return nil, false, false
	}
	if micros && len(runs) > 0 && lastLen < 6 {
		for k := lastLen; k < 6; k++ {
			runs[len(runs)-1] *= 10
		}
	}
	fields = make([]int64, n)
	copy(fields[n-len(runs):], runs)
	return fields, neg, true
}

// RoundTime rounds TIME t (microseconds) to fsp digits of a second, half
// away from zero as MySQL 8 rounds, and clamps it to TIME's range.
func RoundTime(t int64, fsp int) int64 {
	unit := int64(1)
	for k := fsp; k < 6; k++ {
		unit *= 10
	}
	neg := t < 0
	if neg {
		t = -t
	}
	t = (t + unit/2) / unit * unit
	if neg {
		t = -t
	}
	return ClampTime(t)
}

// AppendTimeFsp is AppendTime with exactly fsp digits of a second (TIME(n)
// prints n digits); t is already rounded to them.
func AppendTimeFsp(b []byte, t int64, fsp int) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = AppendTime(b, t-t%MicrosPerSecond)
	if fsp > 0 {
		frac := t % MicrosPerSecond
		for k := fsp; k < 6; k++ {
			frac /= 10
		}
		b = append(b, '.')
		b = appendPadded(b, frac, fsp)
	}
	return b
}

// TimeClamped reports whether TIME text s lies past MySQL's range and
// ParseTime clamped it ('839:00:00'), for MySQL's warning "Truncated
// incorrect time value".
func TimeClamped(s string) bool {
	s = strings.Trim(s, asciiSpace)
	if _, _, ok := parseDateTime(s); ok {
		return false
	}
	t, ok := parseTimeBody(strings.TrimPrefix(s, "-"))
	return ok && t > MaxTime
}

// NumberDate reads a number as MySQL's number_to_datetime does: YYMMDD,
// YYYYMMDD, YYMMDDhhmmss or YYYYMMDDhhmmss, two-digit years 00-69 in the
// 2000s and 70-99 in the 1900s. It returns the YYYYMMDD part and the
// hhmmss part; ok is false for a number in none of the forms (between
// them, below 101, negative or past 99991231235959). Validity of the
// fields is the caller's.
func NumberDate(x int64) (ymd, hms int64, ok bool) {
	switch {
	case x < 101:
		return 0, 0, false
	case x <= 691231:
		x += 20000000
	case x < 700101:
		return 0, 0, false
	case x <= 991231:
		x += 19000000
	case x < 10000101:
		return 0, 0, false
	case x <= 99991231:
	case x < 101000000:
		return 0, 0, false
	case x <= 691231235959:
		x += 20000000000000
	case x < 700101000000:
		return 0, 0, false
	case x <= 991231235959:
		x += 19000000000000
	case x < 10000101000000 || x > 99991231235959:
		return 0, 0, false
	}
	if x <= 99991231 {
		return x, 0, true
	}
	return x / 1000000, x % 1000000, true
}
