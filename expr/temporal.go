package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
)

// DATE and TIMESTAMP: conversions, field extraction and arithmetic.
//
//   - A DATE is days since 1970-01-01, a TIMESTAMP microseconds since
//     1970-01-01 00:00:00, both wall-clock values without a time zone, in
//     the years 0001..9999.
//   - Text converts with datetime.ParseDate/ParseTimestamp ('2024-01-05',
//     '2024-01-05 10:30:00.25', '2024-01-05T10:30:00', '20240105'); CAST of
//     text that is not a date gives NULL (MySQL), INSERT rejects it.
//   - Numbers convert as MySQL reads them: 20240105 is 2024-01-05 and
//     20240105103000 is 2024-01-05 10:30:00; a DATE as a number is
//     20240105, a TIMESTAMP 20240105103000.
//   - Comparisons between a date or timestamp and a string (or number)
//     convert the other side (compareType); DATE against TIMESTAMP compares
//     as TIMESTAMP. A comparison reads text with cmp_to_timestamp, not the
//     cast: text that is no date is the zero date there (cmpdate.go).
//   - Arithmetic results that leave the valid range are NULL, as MySQL's
//     DATE_ADD gives NULL.

func init() {
	Register(&Function{Name: CastFuncName(coldata.Date), MinArgs: 1, MaxArgs: 1,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return coldata.Date, []coldata.Type{args[0]}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return castVec(args[0], coldata.Date, n)
		}})
	// cast_to_timestamp(x[, fsp]): the second argument, a constant 0-6, is
	// DATETIME(fsp)'s precision, to which values are rounded.
	Register(&Function{Name: CastFuncName(coldata.Timestamp), MinArgs: 1, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			if len(args) == 2 {
				return coldata.Timestamp, []coldata.Type{args[0], coldata.Int64}, nil
			}
			return coldata.Timestamp, []coldata.Type{args[0]}, nil
		},
		Bind: func(args []Expr) (coldata.Type, error) {
			if len(args) == 1 {
				return coldata.Timestamp, nil
			}
			fsp, ok := literalInt(args[1])
			if !ok || fsp < 0 || fsp > 6 {
				return 0, fmt.Errorf("the precision of a DATETIME must be a constant from 0 to 6")
			}
			return coldata.TimestampOf(int(fsp)), nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			t := coldata.Timestamp
			if len(args) == 2 {
				t = coldata.TimestampOf(int(args[1].Int(0)))
			}
			return castVec(args[0], t, n)
		}})
	for name, t := range map[string]coldata.Type{"date_literal": coldata.Date, "timestamp_literal": coldata.Timestamp} {
		name, target := name, t
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1, Check: Fixed(target, coldata.String),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				out, err := castVec(args[0], target, n)
				if err != nil {
					return nil, err
				}
				for i := 0; i < n; i++ {
					// A literal is read whole: no trailing text.
					if !args[0].IsNull(i) && (out.IsNull(i) || !strictTemporal(string(args[0].Str(i)), target)) {
						return nil, fmt.Errorf("invalid %s literal '%s'", target, args[0].Str(i))
					}
				}
				return out, nil
			}})
	}
	Alias("date", "cast_to_date")
	Alias("datetime", "cast_to_timestamp")
	Alias("timestamp", "cast_to_timestamp")

	for _, f := range fieldFuncs {
		f := f
		Register(&Function{Name: f.name, MinArgs: 1, MaxArgs: 1, Check: temporalCheck(coldata.Int64),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
				return mapTemporal(args[0], n, coldata.Int64, func(t int64) (int64, bool) { return f.fn(t), true })
			}})
	}
	Alias("dayofmonth", "day")
	Register(&Function{Name: "week", MinArgs: 1, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			want, err := temporalArgs(args[:1])
			if err != nil {
				return 0, nil, err
			}
			if len(args) == 2 {
				want = append(want, coldata.Int64)
			}
			return coldata.Int64, want, nil
		},
		Eval: evalWeek})
	Register(&Function{Name: "extract", MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			want, err := temporalArgs(args[1:])
			if err != nil {
				return 0, nil, err
			}
			return coldata.Int64, append([]coldata.Type{coldata.String}, want...), nil
		},
		Eval: evalExtract})
	Register(&Function{Name: "date_trunc", MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			want, err := temporalArgs(args[1:])
			if err != nil {
				return 0, nil, err
			}
			return want[0], append([]coldata.Type{coldata.String}, want...), nil
		},
		Eval: evalDateTrunc})
	Register(&Function{Name: "last_day", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Date, coldata.Date),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return mapTemporal(args[0], n, coldata.Date, func(z int64) (int64, bool) {
				y, m, _ := datetime.CivilFromDays(z)
				return datetime.DaysFromCivil(y, m, datetime.DaysInMonth(y, m)), true
			})
		}})
	Register(&Function{Name: "datediff", MinArgs: 2, MaxArgs: 2, Check: Fixed(coldata.Int64, coldata.Date, coldata.Date),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return zipInts(args[0], args[1], n, coldata.Int64, func(a, b int64) (int64, bool) { return a - b, true })
		}})
	// The binder's forms of date arithmetic (date + INTERVAL n unit,
	// DATE_ADD, TIMESTAMPADD, date + n): n already scaled to the unit.
	Register(&Function{Name: "date_add_days", MinArgs: 2, MaxArgs: 2, Check: shiftCheck(false),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			t := args[0].Type
			return zipInts(args[0], args[1], n, t, func(x, k int64) (int64, bool) {
				if t == coldata.Date {
					r, ok := addChecked(x, k)
					return r, ok && datetime.DateInRange(r)
				}
				k, ok := mulChecked(k, datetime.MicrosPerDay)
				if !ok {
					return 0, false
				}
				r, ok := addChecked(x, k)
				return r, ok && datetime.TimestampInRange(r)
			})
		}})
	Register(&Function{Name: "date_add_months", MinArgs: 2, MaxArgs: 2, Check: shiftCheck(false),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			t := args[0].Type
			return zipInts(args[0], args[1], n, t, func(x, k int64) (int64, bool) { return addMonths(t, x, k) })
		}})
	Register(&Function{Name: "date_add_micros", MinArgs: 2, MaxArgs: 2, Check: shiftCheck(true),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return zipInts(args[0], args[1], n, coldata.Timestamp, func(x, k int64) (int64, bool) {
				r, ok := addChecked(x, k)
				return r, ok && datetime.TimestampInRange(r)
			})
		}})
	Register(&Function{Name: "timestampdiff", MinArgs: 3, MaxArgs: 3,
		Check: Fixed(coldata.Int64, coldata.String, coldata.Timestamp, coldata.Timestamp), Eval: evalTimestampDiff})
	Register(&Function{Name: "date_format", MinArgs: 2, MaxArgs: 2,
		Check: Fixed(coldata.String, coldata.Timestamp, coldata.String), Eval: evalDateFormat})
	Register(&Function{Name: "str_to_date", MinArgs: 2, MaxArgs: 2,
		Check: Fixed(coldata.Timestamp, coldata.String, coldata.String), Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return evalStrToDate(args, n, false, nil)
		}, EvalW: func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
			return evalStrToDate(args, n, false, w)
		}})
	// str_to_dayclock is the binder's STR_TO_DATE of a day and a time
	// (ParseDayClock): a TIMESTAMP that many days and hours after
	// 1970-01-01, from which the binder makes the TIME's hours.
	Register(&Function{Name: "str_to_dayclock", MinArgs: 2, MaxArgs: 2,
		Check: Fixed(coldata.Timestamp, coldata.String, coldata.String), Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return evalStrToDate(args, n, true, nil)
		}, EvalW: func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
			return evalStrToDate(args, n, true, w)
		}})
	Register(&Function{Name: "unix_timestamp", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Int64, coldata.Timestamp),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return mapTemporal(args[0], n, coldata.Int64, func(t int64) (int64, bool) {
				return datetime.UnixSeconds(t), true
			})
		}})
	Register(&Function{Name: "from_unixtime", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Timestamp, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return mapInts(args[0], n, coldata.Timestamp, func(s int64) (int64, bool) {
				// Seconds before the epoch or past MySQL 8's last one
				// (64-bit time_t) are NULL.
				if s < 0 || s > datetime.MaxUnixSecond {
					return 0, false
				}
				return s * datetime.MicrosPerSecond, true
			})
		}})
	for _, name := range []string{"dayname", "monthname"} {
		name := name
		Register(&Function{Name: name, MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.String, coldata.Date),
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalNames(name, args[0], n) }})
	}
}

// temporalOf returns TIMESTAMP when any of types is one, else DATE when
// any is one, else Null.
func temporalOf(types []coldata.Type) coldata.Type {
	out := coldata.Null
	for _, t := range types {
		switch t.Plain() {
		case coldata.Timestamp:
			return coldata.Timestamp
		case coldata.Date:
			out = coldata.Date
		}
	}
	return out
}

// temporalArgs maps argument types to what a field function takes: a DATE
// or TIMESTAMP as it is, text, a BIGINT and NULL as TIMESTAMP.
func temporalArgs(args []coldata.Type) ([]coldata.Type, error) {
	want := make([]coldata.Type, len(args))
	for i, t := range args {
		switch t {
		case coldata.Date, coldata.Timestamp:
			want[i] = t
		case coldata.String, coldata.Null, coldata.Int64:
			// A number is read in MySQL's date forms (20240105).
			want[i] = coldata.Timestamp
		default:
			return nil, fmt.Errorf("expects a DATE or TIMESTAMP, got %s", t)
		}
	}
	return want, nil
}

func temporalCheck(ret coldata.Type) func([]coldata.Type) (coldata.Type, []coldata.Type, error) {
	return func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		want, err := temporalArgs(args)
		return ret, want, err
	}
}

// shiftCheck is the type rule of date_add_*: (date or timestamp, BIGINT);
// toTimestamp makes a DATE a TIMESTAMP first (adding hours to a date).
func shiftCheck(toTimestamp bool) func([]coldata.Type) (coldata.Type, []coldata.Type, error) {
	return func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := args[0]
		switch {
		case t == coldata.String || t == coldata.Null:
			// Text may hold a time of day; a date-only literal was
			// made a DATE by the binder.
			t = coldata.Timestamp
		case !t.IsTemporal():
			return 0, nil, fmt.Errorf("expects a DATE or TIMESTAMP, got %s", t)
		}
		if toTimestamp {
			t = coldata.Timestamp
		}
		switch args[1] {
		case coldata.Int64, coldata.Float64, coldata.String, coldata.Bool, coldata.Null:
		default:
			return 0, nil, fmt.Errorf("expects a number of units, got %s", args[1])
		}
		return t, []coldata.Type{t, coldata.Int64}, nil
	}
}

// fieldFuncs are the one-argument field extractions; each takes the
// timestamp value (a DATE reads as its midnight, asMicros) and returns the
// field.
var fieldFuncs = []struct {
	name string
	fn   func(t int64) int64
}{
	{"year", func(t int64) int64 { y, _, _ := civil(t); return y }},
	{"month", func(t int64) int64 { _, m, _ := civil(t); return m }},
	{"day", func(t int64) int64 { _, _, d := civil(t); return d }},
	{"quarter", func(t int64) int64 { _, m, _ := civil(t); return (m + 2) / 3 }},
	{"hour", func(t int64) int64 { _, us := datetime.SplitTimestamp(t); return us / datetime.MicrosPerHour }},
	{"minute", func(t int64) int64 { _, us := datetime.SplitTimestamp(t); return us / datetime.MicrosPerMinute % 60 }},
	{"second", func(t int64) int64 { _, us := datetime.SplitTimestamp(t); return us / datetime.MicrosPerSecond % 60 }},
	{"microsecond", func(t int64) int64 { _, us := datetime.SplitTimestamp(t); return us % datetime.MicrosPerSecond }},
	{"dayofweek", func(t int64) int64 { return datetime.DayOfWeek(days(t)) }},
	{"weekday", func(t int64) int64 { return (datetime.DayOfWeek(days(t)) + 5) % 7 }},
	{"dayofyear", func(t int64) int64 { return datetime.DayOfYear(days(t)) }},
}

func days(t int64) int64 { d, _ := datetime.SplitTimestamp(t); return d }

func civil(t int64) (y, m, d int64) { return datetime.CivilFromDays(days(t)) }

// asMicros returns the timestamp value of row i of a DATE or TIMESTAMP
// vector (a date is its midnight).
func asMicros(v *coldata.Vec, i int) int64 {
	x := v.Ints[i]
	if v.Type == coldata.Date {
		return x * datetime.MicrosPerDay
	}
	return x
}

// mapTemporal applies fn to each non-NULL row of a DATE or TIMESTAMP
// vector read as a timestamp (a DATE result type reads days instead, for
// LAST_DAY whose argument is a DATE); ok false makes the row NULL.
func mapTemporal(v *coldata.Vec, n int, ret coldata.Type, fn func(int64) (int64, bool)) (*coldata.Vec, error) {
	if isConstNull(v) {
		return coldata.NewConst(ret, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	out := coldata.NewVec(ret, rows)
	var nulls []byte
	if v.Nulls != nil {
		nulls = append([]byte(nil), v.Nulls[:coldata.BitmapLen(rows)]...)
	}
	readDays := ret == coldata.Date && v.Type == coldata.Date
	for i := 0; i < rows; i++ {
		if !validAt(v.Nulls, i) {
			continue
		}
		x := v.Ints[i]
		if !readDays {
			x = asMicros(v, i)
		}
		r, ok := fn(x)
		if !ok {
			if nulls == nil {
				nulls = coldata.NewValidBitmap(rows)
			}
			coldata.ClearBit(nulls, i)
			continue
		}
		out.Ints[i] = r
	}
	out.Nulls = nulls
	if v.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

// mapInts is mapTemporal over the raw integers of a vector.
func mapInts(v *coldata.Vec, n int, ret coldata.Type, fn func(int64) (int64, bool)) (*coldata.Vec, error) {
	return zipInts(v, coldata.NewConst(coldata.Int64, int64(0), n), n, ret, func(a, _ int64) (int64, bool) { return fn(a) })
}

// zipInts applies fn to the raw integers of two vectors row by row; a
// NULL on either side or ok false gives NULL.
func zipInts(a, b *coldata.Vec, n int, ret coldata.Type, fn func(x, y int64) (int64, bool)) (*coldata.Vec, error) {
	if isConstNull(a) || isConstNull(b) {
		return coldata.NewConst(ret, nil, n), nil
	}
	rows := n
	if a.Const && b.Const {
		rows = 1
	}
	out := coldata.NewVec(ret, rows)
	nulls := CombineNulls([]*coldata.Vec{a, b}, rows)
	ma, mb := rowMask(a), rowMask(b)
	for i := 0; i < rows; i++ {
		if !validAt(nulls, i) {
			continue
		}
		r, ok := fn(a.Ints[i&ma], b.Ints[i&mb])
		if !ok {
			if nulls == nil {
				nulls = coldata.NewValidBitmap(rows)
			}
			coldata.ClearBit(nulls, i)
			continue
		}
		out.Ints[i] = r
	}
	out.Nulls = nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

func addChecked(a, b int64) (int64, bool) {
	r := a + b
	return r, (r > a) == (b > 0)
}

func mulChecked(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	return r, r/b == a && !(a == -1 && b == -1<<63) && !(b == -1 && a == -1<<63)
}

// addMonths shifts a DATE (days) or TIMESTAMP (microseconds) by k months.
func addMonths(t coldata.Type, x, k int64) (int64, bool) {
	if k > 12*10000 || k < -12*10000 {
		return 0, false
	}
	if t == coldata.Date {
		return datetime.AddMonths(x, k)
	}
	d, us := datetime.SplitTimestamp(x)
	nd, ok := datetime.AddMonths(d, k)
	return nd*datetime.MicrosPerDay + us, ok
}

// Unit is a unit of EXTRACT, DATE_TRUNC, TIMESTAMPDIFF and INTERVAL.
type Unit uint8

// The units, smallest first.
const (
	UnitNone Unit = iota
	UnitMicrosecond
	UnitMillisecond
	UnitSecond
	UnitMinute
	UnitHour
	UnitDay
	UnitWeek
	UnitMonth
	UnitQuarter
	UnitYear
	UnitDecade
	UnitCentury
	UnitMillennium
	UnitDayOfWeek
	UnitDayOfYear
	UnitEpoch
	UnitISODayOfWeek
	// MySQL's composite units, for EXTRACT (their INTERVALs are
	// date_add_interval); EXTRACT(DAY_HOUR ...) reads the fields as
	// digits of one number: day*100 + hour.
	UnitYearMonth
	UnitDayHour
	UnitDayMinute
	UnitDaySecond
	UnitDayMicrosecond
	UnitHourMinute
	UnitHourSecond
	UnitHourMicrosecond
	UnitMinuteSecond
	UnitMinuteMicrosecond
	UnitSecondMicrosecond
)

var unitNames = map[string]Unit{
	"microsecond": UnitMicrosecond, "microseconds": UnitMicrosecond, "us": UnitMicrosecond,
	"millisecond": UnitMillisecond, "milliseconds": UnitMillisecond, "ms": UnitMillisecond,
	"second": UnitSecond, "seconds": UnitSecond, "s": UnitSecond,
	"minute": UnitMinute, "minutes": UnitMinute,
	"hour": UnitHour, "hours": UnitHour, "h": UnitHour,
	"day": UnitDay, "days": UnitDay, "d": UnitDay,
	"week": UnitWeek, "weeks": UnitWeek,
	"month": UnitMonth, "months": UnitMonth,
	"quarter": UnitQuarter, "quarters": UnitQuarter,
	"year": UnitYear, "years": UnitYear, "y": UnitYear,
	"decade": UnitDecade, "decades": UnitDecade,
	"century": UnitCentury, "centuries": UnitCentury,
	"millennium": UnitMillennium, "millennia": UnitMillennium,
	"dayofweek": UnitDayOfWeek, "dow": UnitDayOfWeek,
	"dayofyear": UnitDayOfYear, "doy": UnitDayOfYear,
	"epoch": UnitEpoch, "isodow": UnitISODayOfWeek,
	"year_month": UnitYearMonth, "day_hour": UnitDayHour, "day_minute": UnitDayMinute,
	"day_second": UnitDaySecond, "day_microsecond": UnitDayMicrosecond, "hour_minute": UnitHourMinute,
	"hour_second": UnitHourSecond, "hour_microsecond": UnitHourMicrosecond, "minute_second": UnitMinuteSecond,
	"minute_microsecond": UnitMinuteMicrosecond, "second_microsecond": UnitSecondMicrosecond,
}

// ParseUnit reads a unit name (any case, singular or plural).
func ParseUnit(s string) (Unit, bool) {
	u, ok := unitNames[strings.ToLower(strings.TrimSpace(s))]
	return u, ok
}

// unitArg reads the constant unit argument of a call.
func unitArg(fn string, v *coldata.Vec, allowed func(Unit) bool) (Unit, error) {
	if !v.Const || v.IsNull(0) {
		return 0, fmt.Errorf("the unit of %s must be a constant", strings.ToUpper(fn))
	}
	s := string(v.Str(0))
	u, ok := ParseUnit(s)
	if !ok || !allowed(u) {
		return 0, fmt.Errorf("unknown unit %q for %s", s, strings.ToUpper(fn))
	}
	return u, nil
}

func evalExtract(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	u, err := unitArg("extract", args[0], func(u Unit) bool { return u != UnitNone })
	if err != nil {
		return nil, err
	}
	v := args[1]
	if u >= UnitDay && u <= UnitISODayOfWeek && u != UnitEpoch && (v.Type == coldata.Date || v.Type.Kind() == coldata.Timestamp) {
		// A field of the calendar date alone: once per day the vector
		// spans (GROUP BY EXTRACT(QUARTER FROM EventDate) spent half its
		// time converting day numbers).
		perDay := int64(datetime.MicrosPerDay)
		if v.Type == coldata.Date {
			perDay = 1
		}
		if out, ok := byDayTable(v, n, coldata.Int64, perDay, func(d int64) int64 { return ExtractField(u, d*datetime.MicrosPerDay) }); ok {
			return out, nil
		}
	}
	return mapTemporal(v, n, coldata.Int64, func(t int64) (int64, bool) { return ExtractField(u, t), true })
}

// ExtractField returns field u of timestamp t (microseconds).
func ExtractField(u Unit, t int64) int64 {
	d, us := datetime.SplitTimestamp(t)
	// The time of day needs no calendar (ClickBench Q19 extracts the
	// minute of 10M timestamps).
	switch u {
	case UnitMicrosecond:
		return us % datetime.MicrosPerSecond
	case UnitMillisecond:
		return us % datetime.MicrosPerMinute / 1000
	case UnitSecond:
		return us / datetime.MicrosPerSecond % 60
	case UnitMinute:
		return us / datetime.MicrosPerMinute % 60
	case UnitHour:
		return us / datetime.MicrosPerHour
	}
	if u >= UnitYearMonth {
		return extractComposite(u, d, us)
	}
	y, m, day := datetime.CivilFromDays(d)
	switch u {
	case UnitDay:
		return day
	case UnitWeek:
		return datetime.ISOWeek(d)
	case UnitMonth:
		return m
	case UnitQuarter:
		return (m + 2) / 3
	case UnitYear:
		return y
	case UnitDecade:
		return datetime.FloorDiv(y, 10)
	case UnitCentury:
		return (y + 99) / 100
	case UnitMillennium:
		return (y + 999) / 1000
	case UnitDayOfWeek:
		return datetime.DayOfWeek(d) - 1
	case UnitISODayOfWeek:
		return (datetime.DayOfWeek(d)+5)%7 + 1
	case UnitDayOfYear:
		return datetime.DayOfYear(d)
	case UnitEpoch:
		return datetime.FloorDiv(t, datetime.MicrosPerSecond)
	}
	return 0
}

// evalWeek is WEEK(d[, mode]) for MySQL's eight modes (mode & 7; the
// mode may vary by row).
// extractComposite is EXTRACT of a composite unit: the fields from the
// unit's first to its last, each two digits (microseconds six) of one
// number, as MySQL prints them (HOUR_MINUTE of 10:30 is 1030).
func extractComposite(u Unit, d, us int64) int64 {
	y, m, day := datetime.CivilFromDays(d)
	h, mi, s, f := us/datetime.MicrosPerHour, us/datetime.MicrosPerMinute%60, us/datetime.MicrosPerSecond%60, us%datetime.MicrosPerSecond
	switch u {
	case UnitYearMonth:
		return y*100 + m
	case UnitDayHour:
		return day*100 + h
	case UnitDayMinute:
		return (day*100+h)*100 + mi
	case UnitDaySecond:
		return ((day*100+h)*100+mi)*100 + s
	case UnitDayMicrosecond:
		return (((day*100+h)*100+mi)*100+s)*1000000 + f
	case UnitHourMinute:
		return h*100 + mi
	case UnitHourSecond:
		return (h*100+mi)*100 + s
	case UnitHourMicrosecond:
		return ((h*100+mi)*100+s)*1000000 + f
	case UnitMinuteSecond:
		return mi*100 + s
	case UnitMinuteMicrosecond:
		return (mi*100+s)*1000000 + f
	case UnitSecondMicrosecond:
		return s*1000000 + f
	}
	return 0
}

func evalWeek(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if len(args) == 1 {
		return mapTemporal(args[0], n, coldata.Int64, func(t int64) (int64, bool) { return datetime.WeekOf(days(t), 0), true })
	}
	d, err := mapTemporal(args[0], n, coldata.Int64, func(t int64) (int64, bool) { return days(t), true })
	if err != nil {
		return nil, err
	}
	return zipInts(d, args[1], n, coldata.Int64, func(z, mode int64) (int64, bool) { return datetime.WeekOf(z, mode), true })
}

func evalDateTrunc(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	u, err := unitArg("date_trunc", args[0], func(u Unit) bool { return u >= UnitMicrosecond && u <= UnitMillennium })
	if err != nil {
		return nil, err
	}
	v := args[1]
	civil := u >= UnitMonth && u <= UnitMillennium
	if v.Type == coldata.Date {
		if civil {
			if out, ok := truncByTable(u, v, n, coldata.Date, 1); ok {
				return out, nil
			}
		}
		return mapInts(v, n, coldata.Date, func(z int64) (int64, bool) { return truncDays(u, z), true })
	}
	if civil {
		if out, ok := truncByTable(u, v, n, coldata.Timestamp, datetime.MicrosPerDay); ok {
			return out, nil
		}
	}
	return mapInts(v, n, coldata.Timestamp, func(t int64) (int64, bool) { return TruncTimestamp(u, t), true })
}

// truncTableSpan is the most days a truncation table covers.
const truncTableSpan = 1 << 16

// truncByTable truncates v (dates, or timestamps with perDay microseconds
// a day) to a unit of a month or longer through a table over the days the
// vector spans, when they are fewer than its rows: the civil date of each
// day is computed once, not once a row (DATE_TRUNC('quarter', EventDate)
// spent half a GROUP BY's time converting day numbers). Timestamps
// truncate to midnight of the truncated day, as TruncTimestamp does.
func truncByTable(u Unit, v *coldata.Vec, n int, ret coldata.Type, perDay int64) (*coldata.Vec, bool) {
	return byDayTable(v, n, ret, perDay, func(d int64) int64 { return truncDays(u, d) * perDay })
}

// byDayTable maps each row of v (dates, or timestamps with perDay
// microseconds a day) to f of its day through a table over the days the
// vector spans, when they are fewer than its rows (and at most
// truncTableSpan); ok is false otherwise, and the caller maps row by row.
func byDayTable(v *coldata.Vec, n int, ret coldata.Type, perDay int64, f func(day int64) int64) (*coldata.Vec, bool) {
	if v.Const || n < 64 || len(v.Ints) < n {
		return nil, false
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i, t := range v.Ints[:n] {
		if !validAt(v.Nulls, i) {
			continue
		}
		d := datetime.FloorDiv(t, perDay)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo > hi {
		return nil, false // every row NULL
	}
	span := uint64(hi) - uint64(lo) + 1
	if span > truncTableSpan || span > uint64(n) {
		return nil, false
	}
	table := make([]int64, span)
	for k := range table {
		table[k] = f(lo + int64(k))
	}
	out := coldata.NewVec(ret, n)
	for i, t := range v.Ints[:n] {
		if validAt(v.Nulls, i) {
			out.Ints[i] = table[datetime.FloorDiv(t, perDay)-lo]
		}
	}
	if v.Nulls != nil {
		out.Nulls = append([]byte(nil), v.Nulls[:coldata.BitmapLen(n)]...)
	}
	return out, true
}

// TruncTimestamp truncates timestamp t to unit u (weeks start on Monday,
// as in DuckDB and PostgreSQL).
func TruncTimestamp(u Unit, t int64) int64 {
	floor := func(step int64) int64 { return datetime.FloorDiv(t, step) * step }
	switch u {
	case UnitMicrosecond:
		return t
	case UnitMillisecond:
		return floor(1000)
	case UnitSecond:
		return floor(datetime.MicrosPerSecond)
	case UnitMinute:
		return floor(datetime.MicrosPerMinute)
	case UnitHour:
		return floor(datetime.MicrosPerHour)
	case UnitDay:
		return floor(datetime.MicrosPerDay)
	}
	d, _ := datetime.SplitTimestamp(t)
	return truncDays(u, d) * datetime.MicrosPerDay
}

// truncDays truncates day number d to unit u of a day or more (a unit
// below a day leaves a date as it is); only months and longer units read
// the civil date (a third of a GROUP BY DATE_TRUNC('week', ...) went to
// it when every unit did).
func truncDays(u Unit, d int64) int64 {
	switch u {
	case UnitWeek:
		return d - (datetime.DayOfWeek(d)+5)%7
	case UnitMonth, UnitQuarter, UnitYear, UnitDecade, UnitCentury, UnitMillennium:
	default:
		return d
	}
	y, m, _ := datetime.CivilFromDays(d)
	switch u {
	case UnitMonth:
		return datetime.DaysFromCivil(y, m, 1)
	case UnitQuarter:
		return datetime.DaysFromCivil(y, (m-1)/3*3+1, 1)
	case UnitYear:
		return datetime.DaysFromCivil(y, 1, 1)
	case UnitDecade:
		return datetime.DaysFromCivil(datetime.FloorDiv(y, 10)*10, 1, 1)
	case UnitCentury:
		return datetime.DaysFromCivil((y-1)/100*100+1, 1, 1)
	}
	return datetime.DaysFromCivil((y-1)/1000*1000+1, 1, 1)
}

func evalTimestampDiff(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	u, err := unitArg("timestampdiff", args[0], func(u Unit) bool { return u >= UnitMicrosecond && u <= UnitYear })
	if err != nil {
		return nil, err
	}
	return zipInts(args[1], args[2], n, coldata.Int64, func(a, b int64) (int64, bool) { return TimestampDiff(u, a, b), true })
}

// TimestampDiff is MySQL's TIMESTAMPDIFF(u, a, b): the whole number of
// units from a to b, truncated toward zero; months count only when the day
// and time of b reach those of a.
func TimestampDiff(u Unit, a, b int64) int64 {
	switch u {
	case UnitMonth, UnitQuarter, UnitYear:
		da, ua := datetime.SplitTimestamp(a)
		db, ub := datetime.SplitTimestamp(b)
		ya, ma, dda := datetime.CivilFromDays(da)
		yb, mb, ddb := datetime.CivilFromDays(db)
		months := (yb*12 + mb) - (ya*12 + ma)
		restA, restB := dda*datetime.MicrosPerDay+ua, ddb*datetime.MicrosPerDay+ub
		if months > 0 && restB < restA {
			months--
		} else if months < 0 && restB > restA {
			months++
		}
		switch u {
		case UnitQuarter:
			return months / 3
		case UnitYear:
			return months / 12
		}
		return months
	}
	step := map[Unit]int64{UnitMicrosecond: 1, UnitMillisecond: 1000, UnitSecond: datetime.MicrosPerSecond,
		UnitMinute: datetime.MicrosPerMinute, UnitHour: datetime.MicrosPerHour, UnitDay: datetime.MicrosPerDay,
		UnitWeek: 7 * datetime.MicrosPerDay}[u]
	return (b - a) / step
}

// IntervalScale returns how an INTERVAL of unit u applies: the function
// (date_add_days, date_add_months or date_add_micros) and the factor its
// count is multiplied by. ok is false for units an interval cannot have.
func IntervalScale(u Unit) (fn string, factor int64, ok bool) {
	switch u {
	case UnitMicrosecond:
		return "date_add_micros", 1, true
	case UnitMillisecond:
		return "date_add_micros", 1000, true
	case UnitSecond:
		return "date_add_micros", datetime.MicrosPerSecond, true
	case UnitMinute:
		return "date_add_micros", datetime.MicrosPerMinute, true
	case UnitHour:
		return "date_add_micros", datetime.MicrosPerHour, true
	case UnitDay:
		return "date_add_days", 1, true
	case UnitWeek:
		return "date_add_days", 7, true
	case UnitMonth:
		return "date_add_months", 1, true
	case UnitQuarter:
		return "date_add_months", 3, true
	case UnitYear:
		return "date_add_months", 12, true
	}
	return "", 0, false
}

var (
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

func evalNames(name string, v *coldata.Vec, n int) (*coldata.Vec, error) {
	return formatInts(v, n, func(z int64, buf []byte) []byte {
		if name == "dayname" {
			return append(buf, dayNames[datetime.DayOfWeek(z)-1]...)
		}
		_, m, _ := datetime.CivilFromDays(z)
		return append(buf, monthNames[m-1]...)
	})
}

// formatInts formats each non-NULL row of an integer-stored vector.
func formatInts(v *coldata.Vec, n int, fn func(x int64, buf []byte) []byte) (*coldata.Vec, error) {
	if isConstNull(v) {
		return coldata.NewConst(coldata.String, nil, n), nil
	}
	rows := n
	if v.Const {
		rows = 1
	}
	out := &coldata.Vec{Type: coldata.String, Len: rows, Offsets: make([]int32, rows+1)}
	var buf []byte
	for i := 0; i < rows; i++ {
		if validAt(v.Nulls, i) {
			buf = fn(v.Ints[i], buf)
			if err := checkStringSize(len(buf)); err != nil {
				return nil, err
			}
		}
		out.Offsets[i+1] = int32(len(buf))
	}
	out.Bytes = buf
	withNulls(out, v, rows)
	if v.Const {
		return constOf(out, n), nil
	}
	return out, nil
}

// castTemporal converts between DATE/TIMESTAMP and the other types; v or t
// is temporal, and v is not a NULL constant.
func castTemporal(v *coldata.Vec, t coldata.Type, rows int) (*coldata.Vec, error) {
	src, fsp := v.Type.Plain(), v.Type.Fsp()
	switch {
	case t == coldata.String:
		return formatInts(v, rows, func(x int64, buf []byte) []byte {
			if src == coldata.Date {
				return datetime.AppendDate(buf, x)
			}
			return datetime.AppendTimestampFsp(buf, x, fsp)
		})
	case src == coldata.Timestamp && t.IsTimestamp() && t.Fsp() < 0:
		// DATETIME(n) to TIMESTAMP: the same values, only retyped.
		out := *v
		out.Type = t
		return &out, nil
	case t == coldata.Int64 || t == coldata.Float64 || t == coldata.Bool:
		ints, err := mapInts(v, rows, coldata.Int64, func(x int64) (int64, bool) { return temporalNumber(src, x), true })
		if err != nil || t == coldata.Int64 {
			return ints, err
		}
		return castVec(ints, t, rows)
	}
	// To DATE or TIMESTAMP.
	out := coldata.NewVec(t, rows)
	nulls := coldata.NewValidBitmap(rows)
	for i := 0; i < rows; i++ {
		if !validAt(v.Nulls, i) {
			coldata.ClearBit(nulls, i)
			continue
		}
		var x int64
		ok := true
		switch src {
		case coldata.Date:
			x = v.Ints[i] * datetime.MicrosPerDay
		case coldata.Timestamp:
			if t == coldata.Date {
				x, _ = datetime.SplitTimestamp(v.Ints[i])
			} else {
				x = v.Ints[i]
			}
		case coldata.String:
			// Trailing text after a date is dropped, as MySQL converts
			// text (DATE '2024-02-29' = '2024-02-29x' is true).
			s := string(v.Str(i))
			if t == coldata.Date {
				x, ok = datetime.ParseDatePrefix(s)
			} else {
				x, ok = datetime.ParseTimestampPrefix(s)
			}
		case coldata.Int64:
			x, ok = numberTemporal(t, v.Ints[i])
		case coldata.Float64:
			x, ok = numberTemporal(t, FloatToInt(v.Floats[i]))
		default:
			ok = false
		}
		if ok && t.Fsp() >= 0 {
			x, ok = datetime.RoundFsp(x, t.Fsp())
		}
		if !ok {
			coldata.ClearBit(nulls, i)
			continue
		}
		out.Ints[i] = x
	}
	out.Nulls = nulls
	return out, nil
}

// temporalNumber is a date as MySQL's number: 20240105 or 20240105103000.
func temporalNumber(t coldata.Type, x int64) int64 {
	if t == coldata.Date {
		y, m, d := datetime.CivilFromDays(x)
		return y*10000 + m*100 + d
	}
	d, us := datetime.SplitTimestamp(x)
	y, m, dd := datetime.CivilFromDays(d)
	secs := us / datetime.MicrosPerSecond
	return ((y*10000+m*100+dd)*100+secs/3600)*10000 + secs/60%60*100 + secs%60
}

// numberTemporal reads a number in MySQL's forms (datetime.NumberDate:
// YYMMDD, YYYYMMDD, YYMMDDhhmmss, YYYYMMDDhhmmss) as a DATE or TIMESTAMP.
func numberTemporal(t coldata.Type, x int64) (int64, bool) {
	x, hms, ok := datetime.NumberDate(x)
	if !ok {
		return 0, false
	}
	h, mi, s := hms/10000, hms/100%100, hms%100
	if h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	tod := h*datetime.MicrosPerHour + mi*datetime.MicrosPerMinute + s*datetime.MicrosPerSecond
	y, m, d := x/10000, x/100%100, x%100
	if !datetime.ValidDate(y, m, d) {
		return 0, false
	}
	z := datetime.DaysFromCivil(y, m, d)
	if t == coldata.Date {
		return z, true
	}
	return z*datetime.MicrosPerDay + tod, true
}

func evalDateFormat(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	v := args[0]
	return evalFormat(args, n, func(buf []byte, i int, f string) ([]byte, bool) {
		if f == "" {
			return buf, false // an empty format is NULL, as in MySQL
		}
		return AppendDateFormat(buf, f, v.Int(i)), true
	})
}

// evalFormat is a formatting function of a value and a format (args[0],
// args[1]): format appends row i's text under format f, or reports the
// row NULL. Two constants are formatted once.
func evalFormat(args []*coldata.Vec, n int, format func(buf []byte, i int, f string) ([]byte, bool)) (*coldata.Vec, error) {
	v, fv := args[0], args[1]
	if isConstNull(v) || isConstNull(fv) {
		return coldata.NewConst(coldata.String, nil, n), nil
	}
	rows := n
	if v.Const && fv.Const {
		rows = 1
	}
	out := &coldata.Vec{Type: coldata.String, Len: rows, Offsets: make([]int32, rows+1)}
	nulls := CombineNulls(args, rows)
	var buf []byte
	for i := 0; i < rows; i++ {
		if validAt(nulls, i) {
			next, ok := format(buf, i, string(fv.Str(i)))
			if !ok {
				if nulls == nil {
					nulls = coldata.NewValidBitmap(rows)
				}
				coldata.ClearBit(nulls, i)
			} else {
				buf = next
				if err := checkStringSize(len(buf)); err != nil {
					return nil, err
				}
			}
		}
		out.Offsets[i+1] = int32(len(buf))
	}
	out.Bytes, out.Nulls = buf, nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

// AppendDateFormat formats timestamp t with MySQL's DATE_FORMAT specifiers.
func AppendDateFormat(buf []byte, f string, t int64) []byte {
	d, us := datetime.SplitTimestamp(t)
	y, m, day := datetime.CivilFromDays(d)
	h, mi, s := us/datetime.MicrosPerHour, us/datetime.MicrosPerMinute%60, us/datetime.MicrosPerSecond%60
	pad := func(v int64, w int) {
		str := strconv.FormatInt(v, 10)
		for k := len(str); k < w; k++ {
			buf = append(buf, '0')
		}
		buf = append(buf, str...)
	}
	h12 := (h+11)%12 + 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			buf = append(buf, f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			pad(y, 4)
		case 'y':
			pad(y%100, 2)
		case 'm':
			pad(m, 2)
		case 'c':
			pad(m, 1)
		case 'd':
			pad(day, 2)
		case 'e':
			pad(day, 1)
		case 'H':
			pad(h, 2)
		case 'k':
			pad(h, 1)
		case 'h', 'I':
			pad(h12, 2)
		case 'l':
			pad(h12, 1)
		case 'i':
			pad(mi, 2)
		case 's', 'S':
			pad(s, 2)
		case 'f':
			pad(us%datetime.MicrosPerSecond, 6)
		case 'p':
			if h < 12 {
				buf = append(buf, "AM"...)
			} else {
				buf = append(buf, "PM"...)
			}
		case 'M':
			buf = append(buf, monthNames[m-1]...)
		case 'b':
			buf = append(buf, monthNames[m-1][:3]...)
		case 'W':
			buf = append(buf, dayNames[datetime.DayOfWeek(d)-1]...)
		case 'a':
			buf = append(buf, dayNames[datetime.DayOfWeek(d)-1][:3]...)
		case 'w':
			pad(datetime.DayOfWeek(d)-1, 1)
		case 'j':
			pad(datetime.DayOfYear(d), 3)
		case 'U', 'u', 'V', 'v':
			// WEEK modes 0, 1, 2 and 3.
			pad(datetime.WeekOf(d, int64(strings.IndexByte("UuVv", f[i]))), 2)
		case 'X', 'x':
			// The year of %V's and %v's week (YEARWEEK modes 0 and 1).
			_, wy := datetime.ModeOf(int64(2 + strings.IndexByte("Xx", f[i]))).Week(d)
			pad(wy, 4)
		case 'D':
			pad(day, 1)
			suffix := "th"
			if day/10 != 1 {
				switch day % 10 {
				case 1:
					suffix = "st"
				case 2:
					suffix = "nd"
				case 3:
					suffix = "rd"
				}
			}
			buf = append(buf, suffix...)
		case 'T':
			pad(h, 2)
			buf = append(buf, ':')
			pad(mi, 2)
			buf = append(buf, ':')
			pad(s, 2)
		case 'r':
			pad(h12, 2)
			buf = append(buf, ':')
			pad(mi, 2)
			buf = append(buf, ':')
			pad(s, 2)
			if h < 12 {
				buf = append(buf, " AM"...)
			} else {
				buf = append(buf, " PM"...)
			}
		default:
			// %% and unknown specifiers print the character itself.
			buf = append(buf, f[i])
		}
	}
	return buf
}

// evalStrToDate is STR_TO_DATE (str_to_dayclock with dayClock). With a
// sink w it gives MySQL's warnings: 1411 for text the format cannot read,
// 1292 "Truncated incorrect <date|time|datetime> value" (the format's
// type) for text left after the format. A constant pair warns once per
// row, as a row-by-row server does.
func evalStrToDate(args []*coldata.Vec, n int, dayClock bool, w *Warnings) (*coldata.Vec, error) {
	v, fv := args[0], args[1]
	if isConstNull(v) || isConstNull(fv) {
		return coldata.NewConst(coldata.Timestamp, nil, n), nil
	}
	rows := n
	if v.Const && fv.Const {
		rows = 1
	}
	out := coldata.NewVec(coldata.Timestamp, rows)
	nulls := CombineNulls(args, rows)
	if nulls == nil {
		nulls = coldata.NewValidBitmap(rows)
	}
	for i := 0; i < rows; i++ {
		if !validAt(nulls, i) {
			continue
		}
		str, f := string(v.Str(i)), string(fv.Str(i))
		x, end, ok := parseDateFormat(str, f, dayClock)
		if !ok {
			coldata.ClearBit(nulls, i)
		} else {
			out.Ints[i] = x
		}
		if w == nil {
			continue
		}
		times := 1
		if rows == 1 {
			times = n
		}
		switch {
		case !ok:
			w.addTimes([]Warning{{Level: "Warning", Code: WarnWrongValueForFunction,
				Msg: "Incorrect datetime value: '" + str + "' for function str_to_date"}}, times)
		case strings.Trim(str[end:], " \t\n\r\v\f") != "":
			w.addTimes([]Warning{{Level: "Warning", Code: WarnTruncated,
				Msg: "Truncated incorrect " + strToDateKind(f, dayClock) + " value: '" + str + "'"}}, times)
		}
	}
	out.Nulls = nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

// strToDateKind is the type MySQL gives STR_TO_DATE for format f, as its
// warnings name it: date specifiers alone "date", time specifiers alone
// (or a day and a time, a dayClock TIME) "time", else "datetime".
func strToDateKind(f string, dayClock bool) string {
	if dayClock {
		return "time"
	}
	var date, clock bool
	for i := 0; i+1 < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		switch {
		case strings.IndexByte("MVUXYWabcjmvuxyw", f[i]) >= 0:
			date = true
		case strings.IndexByte("HISThiklrsf", f[i]) >= 0:
			clock = true
		}
	}
	switch {
	case date && !clock:
		return "date"
	case clock && !date:
		return "time"
	}
	return "datetime"
}

// ParseDateFormat reads s with MySQL's STR_TO_DATE specifiers (%Y %y %m
// %c %d %e %D %H %k %h %I %l %i %s %S %f %p %T %r %M %b %W %a %j, %# %. %@
// skipping digits, punctuation or letters, and literal text); ok is false
// when s does not match or is not a valid date. As in MySQL, text after
// the format is ignored (MySQL warns), and so is the rest of the format
// when s ends first, unless that rest holds a date field, which would be
// zero (NULL in MySQL 8's default sql_mode).
func ParseDateFormat(s, f string) (int64, bool) {
	v, _, ok := parseDateFormat(s, f, false)
	return v, ok
}

// ParseDayClock reads s with a STR_TO_DATE format of a day (%d %e %D) and
// time specifiers, which MySQL reads as a TIME whose day counts 24 hours:
// the day may be 0 to 31 (ParseDateFormat's dates have no day 0). The
// result is the microseconds of days and time.
func ParseDayClock(s, f string) (int64, bool) {
	v, _, ok := parseDateFormat(s, f, true)
	return v, ok
}

// parseDateFormat is ParseDateFormat (ParseDayClock with dayClock) that
// also returns where in s the format's reading stopped: text after it is
// what MySQL warns it truncated.
func parseDateFormat(s, f string, dayClock bool) (int64, int, bool) {
	y, m, d := int64(1970), int64(1), int64(1)
	if dayClock {
		d = 0
	}
	var h, mi, sec, frac, yday int64
	pm, ampm := false, false
	seen := 0 // specField bits of the specifiers read
	i := 0
	num := func(maxDigits int) (int64, bool) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		start := i
		var v int64
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < maxDigits {
			v = v*10 + int64(s[i]-'0')
			i++
		}
		return v, i > start
	}
	name := func(names []string, abbrev bool) (int64, bool) {
		for k, nm := range names {
			if abbrev {
				nm = nm[:3]
			}
			if len(s)-i >= len(nm) && strings.EqualFold(s[i:i+len(nm)], nm) {
				i += len(nm)
				return int64(k), true
			}
		}
		return 0, false
	}
	for j := 0; j < len(f); j++ {
		if i >= len(s) {
			if hasDateSpecifier(f[j:]) {
				return 0, 0, false
			}
			break
		}
		if f[j] != '%' || j+1 == len(f) {
			if f[j] == ' ' {
				for i < len(s) && s[i] == ' ' {
					i++
				}
				continue
			}
			if i >= len(s) || s[i] != f[j] {
				return 0, 0, false
			}
			i++
			continue
		}
		j++
		var ok bool
		switch f[j] {
		case 'Y':
			y, ok = num(4)
		case 'y':
			y, ok = num(2)
			if y < 70 {
				y += 2000
			} else {
				y += 1900
			}
		case 'm', 'c':
			m, ok = num(2)
		case 'd', 'e':
			d, ok = num(2)
		case 'D':
			// The day and its English suffix (5th).
			if d, ok = num(2); ok && len(s)-i >= 2 && isLetter(s[i]) && isLetter(s[i+1]) {
				i += 2
			} else {
				ok = false
			}
		case 'T', 'r':
			// %H:%i:%s, or %I:%i:%s %p; like the format, these stop
			// where s ends.
			ok = parseClock(s, &i, &h, &mi, &sec, num)
			if ok && f[j] == 'r' && i < len(s) {
				for i < len(s) && s[i] == ' ' {
					i++
				}
				ampm = true
				ok, pm = meridiem(s, &i)
			}
		case '#', '.', '@':
			// Skip digits, punctuation or letters.
			for i < len(s) && skipClass(f[j], s[i]) {
				i++
			}
			ok = true
		case 'H', 'k':
			h, ok = num(2)
		case 'h', 'I', 'l':
			h, ok = num(2)
			ampm = true
		case 'i':
			mi, ok = num(2)
		case 's', 'S':
			sec, ok = num(2)
		case 'f':
			start := i
			frac, ok = num(6)
			for k := i - start; k < 6; k++ {
				frac *= 10
			}
		case 'j':
			yday, ok = num(3)
		case 'p':
			ok, pm = meridiem(s, &i)
		case 'M':
			m, ok = name(monthNames, false)
			m++
		case 'b':
			m, ok = name(monthNames, true)
			m++
		case 'W':
			_, ok = name(dayNames, false)
		case 'a':
			_, ok = name(dayNames, true)
		case '%':
			ok = i < len(s) && s[i] == '%'
			i++
		default:
			return 0, 0, false
		}
		if !ok {
			return 0, 0, false
		}
		seen |= specField(f[j])
	}
	if (!dayClock && !fullDate(seen)) || seen == 0 {
		return 0, 0, false
	}
	if ampm {
		if h < 1 || h > 12 {
			return 0, 0, false
		}
		h %= 12
		if pm {
			h += 12
		}
	}
	if h > 23 || mi > 59 || sec > 59 {
		return 0, 0, false
	}
	clock := h*datetime.MicrosPerHour + mi*datetime.MicrosPerMinute + sec*datetime.MicrosPerSecond + frac
	if dayClock {
		return d*datetime.MicrosPerDay + clock, i, d <= 31
	}
	var z int64
	if yday > 0 {
		if y < datetime.MinYear || y > datetime.MaxYear || yday > 365+b2i(datetime.IsLeap(y)) {
			return 0, 0, false
		}
		z = datetime.DaysFromCivil(y, 1, 1) + yday - 1
	} else {
		if !datetime.ValidDate(y, m, d) {
			return 0, 0, false
		}
		z = datetime.DaysFromCivil(y, m, d)
	}
	return z*datetime.MicrosPerDay + clock, i, true
}

// parseClock reads h:m:s for %T and %r, stopping without error where s
// ends.
func parseClock(s string, i *int, h, mi, sec *int64, num func(int) (int64, bool)) bool {
	fields := []*int64{h, mi, sec}
	for k, p := range fields {
		if k > 0 {
			if *i >= len(s) {
				return true
			}
			if s[*i] != ':' {
				return false
			}
			*i++
		}
		v, ok := num(2)
		if !ok {
			return false
		}
		*p = v
	}
	return true
}

// specField is the field a STR_TO_DATE specifier sets: 1 year, 2 month,
// 4 day, 8 day of year, 16 a time of day.
func specField(c byte) int {
	switch c {
	case 'Y', 'y':
		return 1
	case 'm', 'c', 'M', 'b':
		return 2
	case 'd', 'e', 'D':
		return 4
	case 'j':
		return 8
	case 'H', 'k', 'h', 'I', 'l', 'i', 's', 'S', 'f', 'T', 'r', 'p':
		return 16
	}
	return 0
}

// fullDate reports whether the fields read make a date: MySQL leaves a
// field the format lacks zero, which its default sql_mode (NO_ZERO_IN_DATE,
// NO_ZERO_DATE) turns into NULL, and gsql has no year 0. A format of
// times only keeps gsql's 1970-01-01 (MySQL returns a TIME there).
func fullDate(seen int) bool {
	if seen&15 == 0 {
		return seen != 0
	}
	return seen&1 != 0 && (seen&6 == 6 || seen&8 != 0)
}

// meridiem reads AM or PM (any case) at s[*i].
func meridiem(s string, i *int) (ok, pm bool) {
	if len(s)-*i < 2 {
		return false, false
	}
	switch strings.ToUpper(s[*i : *i+2]) {
	case "AM":
		ok = true
	case "PM":
		ok, pm = true, true
	}
	*i += 2
	return ok, pm
}

// hasDateSpecifier reports whether format text holds a specifier of a
// date field.
func hasDateSpecifier(f string) bool {
	for k := 0; k+1 < len(f); k++ {
		if f[k] == '%' {
			if strings.IndexByte("YymcdeDjMbUuVvXx", f[k+1]) >= 0 {
				return true
			}
			k++
		}
	}
	return false
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// skipClass reports whether %# (digits), %. (punctuation) or %@ (letters)
// skips c.
func skipClass(spec, c byte) bool {
	switch spec {
	case '#':
		return c >= '0' && c <= '9'
	case '@':
		return isLetter(c)
	}
	return c > ' ' && c < 0x7f && !isLetter(c) && !(c >= '0' && c <= '9')
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// strictTemporal reports whether s is a date (t DATE) or timestamp with
// nothing after it.
func strictTemporal(s string, t coldata.Type) bool {
	if t == coldata.Date {
		_, ok := datetime.ParseDate(s)
		return ok
	}
	_, ok := datetime.ParseTimestamp(s)
	return ok
}
