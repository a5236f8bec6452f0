// Package datetime is gsql's calendar: the proleptic Gregorian arithmetic,
// parsing and formatting behind the DATE and TIMESTAMP types.
//
// A DATE is a count of days since 1970-01-01 and a TIMESTAMP a count of
// microseconds since 1970-01-01 00:00:00, both without a time zone (wall
// clock values, as MySQL's DATETIME and DuckDB's TIMESTAMP). Both are int64
// so that every integer kernel (compare, hash, sort, min/max) works on them
// unchanged, on the CPU and on the GPU; the conversions here are plain
// integer arithmetic so that the GPU runtime can mirror them step for step.
package datetime

import (
	"fmt"
	"strconv"
	"strings"
)

// Microseconds per unit of time.
const (
	MicrosPerSecond = 1_000_000
	MicrosPerMinute = 60 * MicrosPerSecond
	MicrosPerHour   = 60 * MicrosPerMinute
	MicrosPerDay    = 24 * MicrosPerHour
)

// The range of years gsql accepts, as MySQL's DATETIME and four-digit text.
const (
	MinYear = 1
	MaxYear = 9999
)

// MinDays and MaxDays bound a valid DATE (0001-01-01 and 9999-12-31).
var (
	MinDays = DaysFromCivil(MinYear, 1, 1)
	MaxDays = DaysFromCivil(MaxYear, 12, 31)
)

// DaysFromCivil returns the day number of y-m-d (any integers; months and
// days out of range are not normalised, callers check ValidDate first).
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays returns the year, month and day of day number z.
func CivilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorDiv is integer division rounding toward minus infinity.
func FloorDiv(a, b int64) int64 { return floorDiv(a, b) }

// IsLeap reports whether y is a leap year.
func IsLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// DaysInMonth returns the number of days of month m of year y.
func DaysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if IsLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ValidDate reports whether y-m-d is a real date in gsql's range.
func ValidDate(y, m, d int64) bool {
	return y >= MinYear && y <= MaxYear && m >= 1 && m <= 12 && d >= 1 && d <= DaysInMonth(y, m)
}

// DateInRange reports whether day number z lies in 0001-01-01..9999-12-31.
func DateInRange(z int64) bool { return z >= MinDays && z <= MaxDays }

// TimestampInRange reports whether microsecond count t lies in
// 0001-01-01 00:00:00 .. 9999-12-31 23:59:59.999999.
func TimestampInRange(t int64) bool {
	return t >= MinDays*MicrosPerDay && t < (MaxDays+1)*MicrosPerDay
}

// SplitTimestamp returns the day number and the microseconds into that day.
func SplitTimestamp(t int64) (days, micros int64) {
	days = floorDiv(t, MicrosPerDay)
	return days, t - days*MicrosPerDay
}

// AddMonths adds n months to day number z, clamping the day to the end of
// the resulting month (2024-01-31 + 1 month = 2024-02-29), as MySQL and
// DuckDB do. ok is false when the result leaves the valid range.
func AddMonths(z, n int64) (int64, bool) {
	y, m, d := CivilFromDays(z)
	total := y*12 + (m - 1) + n
	ny, nm := floorDiv(total, 12), total-floorDiv(total, 12)*12+1
	if ny < MinYear || ny > MaxYear {
		return 0, false
	}
	if dim := DaysInMonth(ny, nm); d > dim {
		d = dim
	}
	return DaysFromCivil(ny, nm, d), true
}

// DayOfWeek returns 1 for Sunday .. 7 for Saturday (MySQL's DAYOFWEEK).
func DayOfWeek(z int64) int64 {
	// 1970-01-01 was a Thursday (5).
	return (z + 4) - floorDiv(z+4, 7)*7 + 1
}

// DayOfYear returns 1..366.
func DayOfYear(z int64) int64 {
	y, _, _ := CivilFromDays(z)
	return z - DaysFromCivil(y, 1, 1) + 1
}

// Week returns MySQL's WEEK(date, 0): weeks start on Sunday, and days
// before the year's first Sunday are in week 0.
func Week(z int64) int64 {
	y, _, _ := CivilFromDays(z)
	jan1 := DaysFromCivil(y, 1, 1)
	// Days from Jan 1 to the first Sunday.
	first := jan1 + (8-DayOfWeek(jan1))%7
	if z < first {
		return 0
	}
	return (z-first)/7 + 1
}

// ISOWeek returns the ISO 8601 week number (weeks start on Monday; week 1
// holds the year's first Thursday), as MySQL's WEEK(date, 3).
func ISOWeek(z int64) int64 {
	// Monday-based weekday 0..6.
	wd := (DayOfWeek(z) + 5) % 7
	thursday := z - wd + 3
	ty, _, _ := CivilFromDays(thursday)
	return (thursday-DaysFromCivil(ty, 1, 1))/7 + 1
}

// ParseDate reads a date from text: YYYY-MM-DD (one or two digit month
// and day; '/' or '.' also separate), optionally followed by a time of day
// that is ignored ('2024-01-05 10:00:00' is 2024-01-05), or eight digits
// YYYYMMDD. Surrounding blanks are allowed.
func ParseDate(s string) (int64, bool) {
	s = strings.Trim(s, asciiSpace)
	y, m, d, rest, ok := parseYMD(s)
	if !ok || !ValidDate(y, m, d) {
		return 0, false
	}
	if rest != "" {
		if _, ok := parseTimeOfDay(rest); !ok {
			return 0, false
		}
	}
	return DaysFromCivil(y, m, d), true
}

// ParseTimestamp reads a timestamp: a date as ParseDate takes it, then
// optionally ' ' or 'T' and HH:MM[:SS[.ffffff]] and an optional 'Z'.
func ParseTimestamp(s string) (int64, bool) {
	s = strings.Trim(s, asciiSpace)
	y, m, d, rest, ok := parseYMD(s)
	if !ok || !ValidDate(y, m, d) {
		return 0, false
	}
	var tod int64
	if rest != "" {
		if tod, ok = parseTimeOfDay(rest); !ok {
			return 0, false
		}
	}
	t := DaysFromCivil(y, m, d)*MicrosPerDay + tod
	if t == (MaxDays+1)*MicrosPerDay {
		// 9999-12-31 23:59:59.9999995 stays in the last microsecond.
		t--
	}
	return t, true
}

// ParseDatePrefix and ParseTimestampPrefix read text as MySQL converts it
// to a date outside literals: a date or timestamp followed by trailing
// text ('2024-02-29x', '2024-02-29 12:00:00 abc') is the value its prefix
// holds (MySQL warns that the rest was truncated). Trailing text that
// goes on with digits after punctuation or blanks ('2024-02-29 12') would
// be more fields to MySQL; it is not read as a prefix (NULL, as before).
func ParseDatePrefix(s string) (int64, bool) { return parsePrefix(s, ParseDate) }

// ParseTimestampPrefix is ParseDatePrefix for a TIMESTAMP.
func ParseTimestampPrefix(s string) (int64, bool) { return parsePrefix(s, ParseTimestamp) }

// maxPrefix bounds where a prefix may end: a date and time with a
// fraction of a second fits well within it.
const maxPrefix = 64

func parsePrefix(s string, parse func(string) (int64, bool)) (int64, bool) {
	if v, ok := parse(s); ok {
		return v, true
	}
	v, _, ok := parseTruncated(s, parse)
	return v, ok
}

// parseTruncated reads the longest prefix of s that parse takes and
// trailing text follows (junkAt); s itself is not tried.
func parseTruncated(s string, parse func(string) (int64, bool)) (v int64, prefix string, ok bool) {
	s = strings.TrimLeft(s, asciiSpace)
	for p := min(len(s)-1, maxPrefix); p > 0; p-- {
		if !isDigit(s[p-1]) || !junkAt(s, p) {
			continue
		}
		if v, ok := parse(s[:p]); ok {
			return v, s[:p], true
		}
	}
	return 0, "", false
}

// TruncatedPrefix reports whether ParseDatePrefix (date set) or
// ParseTimestampPrefix reads s only by dropping trailing text, for
// MySQL's warning "Truncated incorrect <kind> value": kind is "date"
// when the prefix read has no time of day, else "datetime". Text that
// cannot end with trailing text (no letter, control or non-ASCII byte,
// and a digit last) is answered without parsing.
func TruncatedPrefix(s string, date bool) (kind string, truncated bool) {
	if !mayHaveTail(s) {
		return "", false
	}
	parse := ParseTimestamp
	if date {
		parse = ParseDate
	}
	if _, ok := parse(s); ok {
		return "", false
	}
	_, prefix, ok := parseTruncated(s, parse)
	if !ok {
		return "", false
	}
	if strings.Trim(strings.TrimLeft(s, asciiSpace)[len(prefix):], asciiSpace) == "T" {
		// A date and a bare 'T' separator: MySQL reads it without a word.
		return "", false
	}
	if strings.IndexByte(prefix, ':') >= 0 || digitRun(prefix) >= 12 {
		return "datetime", true
	}
	return "date", true
}

// mayHaveTail reports whether s could be a date followed by trailing
// text: junkAt needs a letter or other non-punctuation byte, or
// punctuation and blanks at the very end.
func mayHaveTail(s string) bool {
	s = strings.TrimRight(s, asciiSpace)
	if s == "" || !isDigit(s[len(s)-1]) {
		return s != ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || isLetter(c) {
			return true
		}
	}
	return false
}

// junkAt reports whether s[p:] is trailing text: after any punctuation
// and blanks it does not go on with a digit.
func junkAt(s string, p int) bool {
	for ; p < len(s); p++ {
		c := s[p]
		switch {
		case isDigit(c):
			return false
		case c == ' ' || (c > ' ' && c < 0x7f && !isLetter(c)):
			continue
		default:
			return true
		}
	}
	return true
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// asciiSpace is the blank text around a date may have (ASCII only, so that
// the GPU runtime's parser agrees byte for byte).
const asciiSpace = " \t\n\r\v\f"

// parseYMD reads the date part and returns what follows it.
func parseYMD(s string) (y, m, d int64, rest string, ok bool) {
	if l := digitRun(s); l == 12 || l == 14 {
		// YYMMDDhhmmss and YYYYMMDDhhmmss: the time of day is read as
		// 'hh:mm:ss' with what follows the digits (a fraction).
		yl := l - 10
		y, _ = strconv.ParseInt(s[:yl], 10, 64)
		if yl == 2 {
			y = TwoDigitYear(y)
		}
		m, _ = strconv.ParseInt(s[yl:yl+2], 10, 64)
		d, _ = strconv.ParseInt(s[yl+2:yl+4], 10, 64)
		t := s[l-6 : l]
		return y, m, d, " " + t[:2] + ":" + t[2:4] + ":" + t[4:] + s[l:], true
	}
	if l := len(s); allDigits(s) && (l == 5 || l == 7 || l == 9 || l == 10 || l == 11) {
		// Digits alone of another length, as MySQL 8 reads them
		// (date-and-time-literals: the year has two digits unless the
		// text has 4, 8 or 14+; fields are read left to right, two
		// digits each, the last may be short): '24015' is 2024-01-05,
		// '2401051' 2024-01-05 01:00:00, '2024015' no date (month 24).
		field := func(from int) int64 {
			if from >= l {
				return 0
			}
			v, _ := strconv.ParseInt(s[from:min(from+2, l)], 10, 64)
			return v
		}
		y, m, d = TwoDigitYear(field(0)), field(2), field(4)
		if l > 6 {
			rest = fmt.Sprintf(" %02d:%02d:%02d", field(6), field(8), field(10))
		}
		return y, m, d, rest, true
	}
	if len(s) == 6 && allDigits(s) {
		// YYMMDD alone, as MySQL reads six digits ('240105' is 2024-01-05).
		y, _ = strconv.ParseInt(s[:2], 10, 64)
		m, _ = strconv.ParseInt(s[2:4], 10, 64)
		d, _ = strconv.ParseInt(s[4:6], 10, 64)
		return TwoDigitYear(y), m, d, "", true
	}
	if len(s) >= 8 && allDigits(s[:8]) && (len(s) == 8 || !isDigit(s[8])) {
		if len(s) == 8 || s[8] == ' ' || s[8] == 'T' {
			y, _ = strconv.ParseInt(s[:4], 10, 64)
			m, _ = strconv.ParseInt(s[4:6], 10, 64)
			d, _ = strconv.ParseInt(s[6:8], 10, 64)
			return y, m, d, s[8:], true
		}
	}
	i := 0
	num := func(maxDigits int) (int64, bool) {
		start := i
		var v int64
		for i < len(s) && isDigit(s[i]) && i-start < maxDigits {
			v = v*10 + int64(s[i]-'0')
			i++
		}
		return v, i > start
	}
	sep := func() bool {
		if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
			i++
			return true
		}
		return false
	}
	var ok1, ok2, ok3 bool
	// A year of two digits is MySQL's YY-MM-DD: 70-99 the 1900s, 00-69
	// the 2000s; one or three digits are the year itself.
	y, ok1 = num(4)
	if yDigits := i; !ok1 || !sep() {
		return 0, 0, 0, "", false
	} else if yDigits == 2 {
		y = TwoDigitYear(y)
	}
	if m, ok2 = num(2); !ok2 || !sep() {
		return 0, 0, 0, "", false
	}
	if d, ok3 = num(2); !ok3 {
		return 0, 0, 0, "", false
	}
	return y, m, d, s[i:], true
}

// parseTimeOfDay reads " HH:MM[:SS[.ffffff]][Z]" (or with 'T') into
// microseconds since midnight.
func parseTimeOfDay(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	if s[0] != ' ' && s[0] != 'T' {
		return 0, false
	}
	s = strings.TrimLeft(s[1:], " ")
	s = strings.TrimSuffix(s, "Z")
	i := 0
	num := func() (int64, bool) {
		start := i
		var v int64
		for i < len(s) && isDigit(s[i]) && i-start < 2 {
			v = v*10 + int64(s[i]-'0')
			i++
		}
		return v, i > start
	}
	h, ok := num()
	if !ok || i >= len(s) || s[i] != ':' {
		return 0, false
	}
	i++
	mi, ok := num()
	if !ok {
		return 0, false
	}
	var sec, frac int64
	if i < len(s) && s[i] == ':' {
		i++
		if sec, ok = num(); !ok {
			return 0, false
		}
		if i < len(s) && s[i] == '.' {
			i++
			start := i
			for i < len(s) && isDigit(s[i]) {
				if i-start < 6 {
					frac = frac*10 + int64(s[i]-'0')
				}
				i++
			}
			if i == start {
				return 0, false
			}
			for k := i - start; k < 6; k++ {
				frac *= 10
			}
			// A seventh digit rounds, as MySQL 8 reads text (23:59:59.9999995
			// is the next midnight: the caller adds a whole day).
			if i-start > 6 && s[start+6] >= '5' {
				frac++
			}
		}
	}
	if i != len(s) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	return h*MicrosPerHour + mi*MicrosPerMinute + sec*MicrosPerSecond + frac, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitRun is the number of digits s starts with.
func digitRun(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// AppendDate appends YYYY-MM-DD.
func AppendDate(b []byte, z int64) []byte {
	y, m, d := CivilFromDays(z)
	b = appendPadded(b, y, 4)
	b = append(b, '-')
	b = appendPadded(b, m, 2)
	b = append(b, '-')
	return appendPadded(b, d, 2)
}

// AppendTimestamp appends YYYY-MM-DD HH:MM:SS and, when the fraction is
// not zero, '.' and its digits without trailing zeros (as DuckDB prints).
func AppendTimestamp(b []byte, t int64) []byte {
	days, us := SplitTimestamp(t)
	b = AppendDate(b, days)
	b = append(b, ' ')
	b = appendPadded(b, us/MicrosPerHour, 2)
	b = append(b, ':')
	b = appendPadded(b, us/MicrosPerMinute%60, 2)
	b = append(b, ':')
	b = appendPadded(b, us/MicrosPerSecond%60, 2)
	if frac := us % MicrosPerSecond; frac != 0 {
		b = append(b, '.')
		digits := 6
		for frac%10 == 0 {
			frac /= 10
			digits--
		}
		b = appendPadded(b, frac, digits)
	}
	return b
}

// AppendTimestampFsp appends t as AppendTimestamp does, but with exactly
// fsp digits of a second (none for 0), as MySQL prints a DATETIME(fsp);
// a negative fsp is AppendTimestamp's form.
func AppendTimestampFsp(b []byte, t int64, fsp int) []byte {
	if fsp < 0 {
		return AppendTimestamp(b, t)
	}
	b = AppendTimestamp(b, t-floorMod(t, MicrosPerSecond))
	if fsp > 0 {
		frac := floorMod(t, MicrosPerSecond)
		for i := fsp; i < 6; i++ {
			frac /= 10
		}
		b = append(b, '.')
		b = appendPadded(b, frac, fsp)
	}
	return b
}

// RoundFsp rounds t to fsp digits of a second, half up, as MySQL stores
// a value in a DATETIME(fsp); ok is false when rounding leaves the years
// 1-9999.
func RoundFsp(t int64, fsp int) (int64, bool) {
	if fsp < 0 || fsp >= 6 {
		return t, true
	}
	unit := int64(1)
	for i := fsp; i < 6; i++ {
		unit *= 10
	}
	r := floorDiv(t+unit/2, unit) * unit
	return r, TimestampInRange(r)
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// FormatDate returns YYYY-MM-DD.
func FormatDate(z int64) string { return string(AppendDate(nil, z)) }

// FormatTimestamp returns YYYY-MM-DD HH:MM:SS[.ffffff].
func FormatTimestamp(t int64) string { return string(AppendTimestamp(nil, t)) }

func appendPadded(b []byte, v int64, width int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for k := len(s); k < width; k++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
