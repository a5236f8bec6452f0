package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
)

// MySQL's remaining date and time functions (issue 38):
//
//	TO_DAYS, FROM_DAYS, MAKEDATE, YEARWEEK, WEEKOFYEAR, PERIOD_ADD/DIFF
//	MAKETIME, SEC_TO_TIME, TIME_TO_SEC, ADDTIME/SUBTIME, TIMEDIFF, TIME_FORMAT
//	date_add_interval (a composite INTERVAL: '1 2' DAY_HOUR)
//
// gsql has no TIME type, so a TIME value is VARCHAR text in MySQL's form
// ('-01:02:03.5', hours up to 838), read with datetime.ParseTime. As for
// every date function, input that is not a valid date or time gives NULL,
// MySQL's answer (with a warning) in its default sql_mode.

func init() {
	Register(&Function{Name: "to_days", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Int64, coldata.Date),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return mapInts(args[0], n, coldata.Int64, func(z int64) (int64, bool) { return datetime.ToDays(z), true })
		}})
	Register(&Function{Name: "from_days", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Date, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return mapInts(args[0], n, coldata.Date, datetime.FromDays)
		}})
	Register(&Function{Name: "makedate", MinArgs: 2, MaxArgs: 2, Check: Fixed(coldata.Date, coldata.Int64, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return zipInts(args[0], args[1], n, coldata.Date, datetime.MakeDate)
		}})
	Register(&Function{Name: "yearweek", MinArgs: 1, MaxArgs: 2, Check: Fixed(coldata.Int64, coldata.Date, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return zipInts(args[0], modeArg(args, n), n, coldata.Int64, func(z, mode int64) (int64, bool) {
				return datetime.YearWeek(z, mode), true
			})
		}})
	Register(&Function{Name: "weekofyear", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Int64, coldata.Date),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return mapInts(args[0], n, coldata.Int64, func(z int64) (int64, bool) { return datetime.WeekOf(z, 3), true })
		}})
	Register(&Function{Name: "period_add", MinArgs: 2, MaxArgs: 2, Check: Fixed(coldata.Int64, coldata.Int64, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			var bad error
			out, err := zipInts(args[0], args[1], n, coldata.Int64, func(p, k int64) (int64, bool) {
				m, ok := datetime.PeriodMonths(p)
				if !ok {
					bad = badPeriod("period_add", p)
					return 0, false
				}
				if k > 12*10000 || k < -12*10000 {
					return 0, false
				}
				return datetime.MonthsPeriod(m + k), true
			})
			if bad != nil {
				return nil, bad
			}
			return out, err
		}})
	Register(&Function{Name: "period_diff", MinArgs: 2, MaxArgs: 2, Check: Fixed(coldata.Int64, coldata.Int64, coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			var bad error
			out, err := zipInts(args[0], args[1], n, coldata.Int64, func(p, q int64) (int64, bool) {
				a, ok := datetime.PeriodMonths(p)
				b, ok2 := datetime.PeriodMonths(q)
				if !ok || !ok2 {
					if !ok {
						bad = badPeriod("period_diff", p)
					} else {
						bad = badPeriod("period_diff", q)
					}
					return 0, false
				}
				return a - b, true
			})
			if bad != nil {
				return nil, bad
			}
			return out, err
		}})

	Register(&Function{Name: "maketime", MinArgs: 3, MaxArgs: 3,
		Check: Fixed(coldata.String, coldata.Int64, coldata.Int64, coldata.Float64), Eval: evalMakeTime})
	Register(&Function{Name: "sec_to_time", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.String, coldata.Float64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return timeRows(args, n, coldata.String, func(i int) (int64, bool, bool) {
				us, ok := secondsMicros(args[0].Float(i))
				return datetime.ClampTime(us), false, ok
			})
		}})
	Register(&Function{Name: "time_to_sec", MinArgs: 1, MaxArgs: 1, Check: timeArgs(coldata.Int64),
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			return timeRows(args, n, coldata.Int64, func(i int) (int64, bool, bool) {
				t, _, ok := timeAt(args[0], i, true)
				// The fraction is dropped: the result is a BIGINT.
				return t / datetime.MicrosPerSecond, false, ok
			})
		}})
	for _, name := range []string{"addtime", "subtime"} {
		sign := int64(1)
		if name == "subtime" {
			sign = -1
		}
		Register(&Function{Name: name, MinArgs: 2, MaxArgs: 2, Check: addTimeCheck,
			Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalAddTime(args, n, sign) }})
	}
	Register(&Function{Name: "timediff", MinArgs: 2, MaxArgs: 2, Check: timeArgs(coldata.String), Eval: evalTimeDiff})
	Register(&Function{Name: "time_format", MinArgs: 2, MaxArgs: 2, Eval: evalTimeFormat,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			_, want, _ := timeArgs(coldata.String)(args[:1])
			return coldata.String, append(want, coldata.String), nil
		}})
	Register(&Function{Name: "cast_to_time", MinArgs: 2, MaxArgs: 2, Check: castTimeCheck, Eval: evalCastTime})
	Register(&Function{Name: "time_literal", MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.String, coldata.String), Eval: evalTimeLiteral})
	Register(&Function{Name: "date_add_interval", MinArgs: 3, MaxArgs: 3, Check: compositeCheck, Eval: evalCompositeInterval})
	// convert_tz(t, from, to, system): CONVERT_TZ with the binder's fourth
	// argument, the system zone's offset in seconds (or
	// datetime.TZSystemVaries: read SYSTEM with the host's zone rules).
	Register(&Function{Name: "convert_tz", MinArgs: 4, MaxArgs: 4,
		Check: Fixed(coldata.Timestamp, coldata.Timestamp, coldata.String, coldata.String, coldata.Int64), Eval: evalConvertTZ})
}

// evalConvertTZ is CONVERT_TZ: a zone that is neither an offset nor
// SYSTEM gives NULL, as on a server without time-zone tables.
func evalConvertTZ(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return timeRows(args, n, coldata.Timestamp, func(i int) (int64, bool, bool) {
		t, sys := args[0].Int(i), args[3].Int(i)
		from, fromSys, ok := datetime.TZZone(string(args[1].Str(i)))
		to, toSys, ok2 := datetime.TZZone(string(args[2].Str(i)))
		if !ok || !ok2 {
			return 0, false, false
		}
		if sys == datetime.TZSystemVaries && (fromSys || toSys) {
			return hostConvertTZ(t, from, fromSys, to, toSys), false, true
		}
		if fromSys {
			from = sys
		}
		if toSys {
			to = sys
		}
		return datetime.ConvertTZ(t, from, to), false, true
	})
}

// hostConvertTZ converts with the host's zone for SYSTEM where its offset
// changes over the year: the offset in force at the instant.
func hostConvertTZ(t, from int64, fromSys bool, to int64, toSys bool) int64 {
	days, tod := datetime.SplitTimestamp(t)
	if fromSys {
		y, m, d := datetime.CivilFromDays(days)
		s := tod / datetime.MicrosPerSecond
		_, from = zoneOffset(time.Date(int(y), time.Month(m), int(d), int(s/3600), int(s/60%60), int(s%60), 0, time.Local))
	}
	sec := datetime.FloorDiv(t, datetime.MicrosPerSecond) - from
	if sec < datetime.MinTimestampSecond || sec > datetime.MaxTimestampSecond {
		return t
	}
	if toSys {
		_, to = zoneOffset(time.Unix(sec, 0).In(time.Local))
	}
	return t + (to-from)*datetime.MicrosPerSecond
}

func zoneOffset(t time.Time) (string, int64) {
	name, off := t.Zone()
	return name, int64(off)
}

func badPeriod(fn string, p int64) error {
	return &ArgError{Func: fn, Msg: fmt.Sprintf("incorrect period %d (YYMM or YYYYMM with a month from 1 to 12)", p)}
}

// modeArg is WEEK's and YEARWEEK's optional mode argument (0 when absent).
func modeArg(args []*coldata.Vec, n int) *coldata.Vec {
	if len(args) > 1 {
		return args[1]
	}
	return coldata.NewConst(coldata.Int64, int64(0), n)
}

// secondsMicros converts seconds to microseconds, rounding half away from
// zero; ok is false past what a TIME could ever hold.
func secondsMicros(s float64) (int64, bool) {
	if math.IsNaN(s) || math.Abs(s) > 1e12 {
		return 0, false
	}
	return int64(math.Round(s * 1e6)), true
}

func evalMakeTime(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return timeRows(args, n, coldata.String, func(i int) (int64, bool, bool) {
		h, m, s := args[0].Int(i), args[1].Int(i), args[2].Float(i)
		if m < 0 || m > 59 || s < 0 || s >= 60 {
			return 0, false, false
		}
		us, ok := secondsMicros(s)
		if !ok || h > 1e6 || h < -1e6 {
			return 0, false, false
		}
		t := datetime.ClampTime((absInt(h)*3600+m*60)*datetime.MicrosPerSecond + us)
		if h < 0 {
			t = -t
		}
		return t, false, true
	})
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// timeArgs types the arguments of functions that read TIME values: a DATE
// or TIMESTAMP is read as a TIMESTAMP (its time of day, or the instant for
// TIMEDIFF), anything else as text.
func timeArgs(ret coldata.Type) func([]coldata.Type) (coldata.Type, []coldata.Type, error) {
	return func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		want := make([]coldata.Type, len(args))
		for i, t := range args {
			if t.IsTemporal() {
				want[i] = coldata.Timestamp
			} else {
				want[i] = coldata.String
			}
		}
		return ret, want, nil
	}
}

// timeAt reads row i of a TIMESTAMP or text vector as a TIME or, for text,
// a timestamp (isDateTime). A TIMESTAMP reads as its time of day when
// timeOfDay is set, else as the instant.
func timeAt(v *coldata.Vec, i int, timeOfDay bool) (t int64, isDateTime, ok bool) {
	if v.Type == coldata.Timestamp {
		if timeOfDay {
			_, us := datetime.SplitTimestamp(v.Int(i))
			return us, false, true
		}
		return v.Int(i), true, true
	}
	s := string(v.Str(i))
	if timeOfDay {
		t, ok = datetime.ParseTime(s)
		return t, false, ok
	}
	return datetime.ParseTimeOrDateTime(s)
}

// timeRows evaluates fn on every row where no argument is NULL; fn returns
// the value, whether it is a timestamp (for a text result: printed as a
// timestamp, else as a TIME) and ok (false gives NULL). An integer result
// type stores the value itself.
func timeRows(args []*coldata.Vec, n int, ret coldata.Type, fn func(i int) (v int64, isDateTime, ok bool)) (*coldata.Vec, error) {
	for _, a := range args {
		if isConstNull(a) {
			return coldata.NewConst(ret, nil, n), nil
		}
	}
	rows := n
	if AllConst(args) {
		rows = 1
	}
	nulls := CombineNulls(args, rows)
	if nulls == nil {
		nulls = coldata.NewValidBitmap(rows)
	}
	var out *coldata.Vec
	if ret == coldata.String {
		out = &coldata.Vec{Type: coldata.String, Len: rows, Offsets: make([]int32, rows+1)}
	} else {
		out = coldata.NewVec(ret, rows)
	}
	var buf []byte
	for i := 0; i < rows; i++ {
		if validAt(nulls, i) {
			v, isDT, ok := fn(i)
			switch {
			case !ok:
				coldata.ClearBit(nulls, i)
			case ret != coldata.String:
				out.Ints[i] = v
			case isDT:
				buf = datetime.AppendTimestamp(buf, v)
			default:
				buf = datetime.AppendTime(buf, v)
			}
		}
		if ret == coldata.String {
			out.Offsets[i+1] = int32(len(buf))
		}
	}
	if ret == coldata.String {
		out.Bytes = buf
	}
	out.Nulls = nulls
	if rows == 1 && n != 1 {
		return constOf(out, n), nil
	}
	return out, nil
}

// addTimeCheck types ADDTIME/SUBTIME: a DATE or TIMESTAMP first argument
// gives a TIMESTAMP; text gives text, a timestamp's or a TIME's as the
// text reads (MySQL decides per value too).
func addTimeCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	_, want, _ := timeArgs(coldata.String)(args)
	if args[0].IsTemporal() {
		return coldata.Timestamp, want, nil
	}
	return coldata.String, want, nil
}

func evalAddTime(args []*coldata.Vec, n int, sign int64) (*coldata.Vec, error) {
	ret := coldata.String
	if args[0].Type == coldata.Timestamp {
		ret = coldata.Timestamp
	}
	return timeRows(args, n, ret, func(i int) (int64, bool, bool) {
		a, isDT, ok := timeAt(args[0], i, false)
		if !ok {
			return 0, false, false
		}
		// The second argument is a TIME; a timestamp there is an error
		// in MySQL, NULL here as in MariaDB.
		var b int64
		if args[1].Type == coldata.Timestamp {
			return 0, false, false
		}
		if b, ok = datetime.ParseTime(string(args[1].Str(i))); !ok {
			return 0, false, false
		}
		if _, isDT2, _ := datetime.ParseTimeOrDateTime(string(args[1].Str(i))); isDT2 {
			return 0, false, false
		}
		r := a + sign*b
		if isDT {
			return r, true, datetime.TimestampInRange(r)
		}
		return datetime.ClampTime(r), false, true
	})
}

// evalTimeDiff is TIMEDIFF(a, b): a - b as a TIME, both timestamps or both
// TIMEs (else NULL), clamped to MySQL's TIME range.
func evalTimeDiff(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return timeRows(args, n, coldata.String, func(i int) (int64, bool, bool) {
		a, aDT, ok := timeAt(args[0], i, false)
		b, bDT, ok2 := timeAt(args[1], i, false)
		if !ok || !ok2 || aDT != bDT {
			return 0, false, false
		}
		return datetime.ClampTime(a - b), false, true
	})
}

// Composite interval units (MySQL's DAY_HOUR and friends): their fields,
// largest first, and whether they are months (YEAR_MONTH) or a duration.
var compositeUnits = map[string][]int64{
	// Microseconds per field; YEAR_MONTH's are months instead.
	"year_month":         {12, 1},
	"day_hour":           {datetime.MicrosPerDay, datetime.MicrosPerHour},
	"day_minute":         {datetime.MicrosPerDay, datetime.MicrosPerHour, datetime.MicrosPerMinute},
	"day_second":         {datetime.MicrosPerDay, datetime.MicrosPerHour, datetime.MicrosPerMinute, datetime.MicrosPerSecond},
	"day_microsecond":    {datetime.MicrosPerDay, datetime.MicrosPerHour, datetime.MicrosPerMinute, datetime.MicrosPerSecond, 1},
	"hour_minute":        {datetime.MicrosPerHour, datetime.MicrosPerMinute},
	"hour_second":        {datetime.MicrosPerHour, datetime.MicrosPerMinute, datetime.MicrosPerSecond},
	"hour_microsecond":   {datetime.MicrosPerHour, datetime.MicrosPerMinute, datetime.MicrosPerSecond, 1},
	"minute_second":      {datetime.MicrosPerMinute, datetime.MicrosPerSecond},
	"minute_microsecond": {datetime.MicrosPerMinute, datetime.MicrosPerSecond, 1},
	"second_microsecond": {datetime.MicrosPerSecond, 1},
}

// IsCompositeUnit reports whether unit (lower case) is a composite INTERVAL unit.
func IsCompositeUnit(unit string) bool { _, ok := compositeUnits[unit]; return ok }

// compositeCheck types date_add_interval(base, text, 'unit[-]'): a DATE
// plus YEAR_MONTH stays a DATE, everything else is a TIMESTAMP.
func compositeCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	t := args[0]
	switch {
	case t == coldata.String || t == coldata.Null:
		t = coldata.Timestamp
	case !t.IsTemporal():
		return 0, nil, fmt.Errorf("expects a DATE or TIMESTAMP, got %s", t)
	}
	return t, []coldata.Type{t, coldata.String, coldata.String}, nil
}

// CompositeResult is the type of base + INTERVAL '...' unit.
func CompositeResult(base coldata.Type, unit string) coldata.Type {
	if base == coldata.Date && unit != "year_month" {
		return coldata.Timestamp
	}
	return base
}

// evalCompositeInterval adds a composite interval; the unit argument is a
// constant 'unit' or '-unit' (subtraction). Text that has more fields than
// the unit gives NULL, as in MySQL.
func evalCompositeInterval(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	uv := args[2]
	if !uv.Const || uv.IsNull(0) {
		return nil, fmt.Errorf("the unit of an INTERVAL must be a constant")
	}
	unit := string(uv.Str(0))
	sign := int64(1)
	if unit != "" && unit[0] == '-' {
		sign, unit = -1, unit[1:]
	}
	steps, ok := compositeUnits[unit]
	if !ok {
		return nil, fmt.Errorf("unknown INTERVAL unit %s", unit)
	}
	months := unit == "year_month"
	base := args[0]
	return timeRows(args[:2], n, base.Type, func(i int) (int64, bool, bool) {
		fields, neg, ok := datetime.IntervalFields(string(args[1].Str(i)), len(steps), strings.HasSuffix(unit, "microsecond"))
		if !ok {
			return 0, false, false
		}
		var total int64
		for k, f := range fields {
			p, ok := mulChecked(f, steps[k])
			if !ok {
				return 0, false, false
			}
			if total, ok = addChecked(total, p); !ok {
				return 0, false, false
			}
		}
		if neg != (sign < 0) {
			total = -total
		}
		x := base.Int(i)
		if months {
			return addMonthsChecked(base.Type, x, total)
		}
		r, ok := addChecked(x, total)
		return r, false, ok && datetime.TimestampInRange(r)
	})
}

func addMonthsChecked(t coldata.Type, x, k int64) (int64, bool, bool) {
	r, ok := addMonths(t, x, k)
	return r, false, ok
}

// evalTimeFormat is TIME_FORMAT(t, format): t read as a TIME (a DATE or
// TIMESTAMP as its time of day), printed with AppendTimeFormat. An empty
// format, or one with a specifier a TIME cannot give, is NULL.
func evalTimeFormat(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	v := args[0]
	return evalFormat(args, n, func(buf []byte, i int, f string) ([]byte, bool) {
		t, _, ok := timeAt(v, i, true)
		if !ok || f == "" || !TimeFormatValid(f) {
			return buf, false
		}
		return AppendTimeFormat(buf, f, t), true
	})
}

// timeFormatNull holds the specifiers that make TIME_FORMAT NULL in MySQL
// 8: names and numbers a TIME has no date for. %Y %y %m %c %d %e print
// zeros instead (a TIME's year, month and day are 0). MariaDB is NULL
// for those too; gsql follows MySQL 8.
const timeFormatNull = "MbWaDjUuVvXxw"

// TimeFormatValid reports whether TIME_FORMAT's format f gives a value
// (no specifier in timeFormatNull).
func TimeFormatValid(f string) bool {
	for i := 0; i+1 < len(f); i++ {
		if f[i] == '%' {
			i++
			if strings.IndexByte(timeFormatNull, f[i]) >= 0 {
				return false
			}
		}
	}
	return true
}

// AppendTimeFormat formats TIME t (signed microseconds, hours past 23)
// with TIME_FORMAT's specifiers: a negative TIME starts with '-', %H and
// %k print every hour, %h %I %l %p %r read the hour modulo 24 as a clock.
func AppendTimeFormat(buf []byte, f string, t int64) []byte {
	if t < 0 {
		buf = append(buf, '-')
		t = -t
	}
	h, mi := t/datetime.MicrosPerHour, t/datetime.MicrosPerMinute%60
	s, us := t/datetime.MicrosPerSecond%60, t%datetime.MicrosPerSecond
	h12, pm := (h%24+11)%12+1, h%24 >= 12
	num := func(v int64, w int) {
		str := strconv.FormatInt(v, 10)
		for k := len(str); k < w; k++ {
			buf = append(buf, '0')
		}
		buf = append(buf, str...)
	}
	clock := func(hh int64) {
		num(hh, 2)
		buf = append(buf, ':')
		num(mi, 2)
		buf = append(buf, ':')
		num(s, 2)
	}
	meridiem := func() {
		if pm {
			buf = append(buf, "PM"...)
		} else {
			buf = append(buf, "AM"...)
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			buf = append(buf, f[i])
			continue
		}
		i++
		switch f[i] {
		case 'H':
			num(h, 2)
		case 'k':
			num(h, 1)
		case 'h', 'I':
			num(h12, 2)
		case 'l':
			num(h12, 1)
		case 'i':
			num(mi, 2)
		case 's', 'S':
			num(s, 2)
		case 'f':
			num(us, 6)
		case 'p':
			meridiem()
		case 'T':
			clock(h)
		case 'r':
			clock(h12)
			buf = append(buf, ' ')
			meridiem()
		case 'Y':
			buf = append(buf, "0000"...)
		case 'y', 'm', 'd':
			buf = append(buf, "00"...)
		case 'c', 'e':
			buf = append(buf, '0')
		default:
			// %% and unknown specifiers print the character itself.
			buf = append(buf, f[i])
		}
	}
	return buf
}

// castTimeCheck types cast_to_time(x, fsp): x as timeArgs reads it, a
// constant number of digits of a second.
func castTimeCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	_, want, _ := timeArgs(coldata.String)(args[:1])
	return coldata.String, append(want, coldata.Int64), nil
}

// evalCastTime is CAST(x AS TIME(fsp)): x read as a TIME (a DATE or
// TIMESTAMP as its time of day, a number as its digits [HH]MMSS),
// rounded to fsp digits, which it prints; what is no TIME is NULL.
func evalCastTime(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	fv := args[1]
	if !fv.Const || fv.IsNull(0) || fv.Int(0) < 0 || fv.Int(0) > 6 {
		return nil, &ArgError{Func: "cast_to_time", Msg: "the precision of TIME must be a constant from 0 to 6"}
	}
	fsp := int(fv.Int(0))
	return timeText(args[:1], n, func(i int) (int64, bool) {
		t, _, ok := timeAt(args[0], i, true)
		return datetime.RoundTime(t, fsp), ok
	}, fsp)
}

// evalTimeLiteral is TIME 'text': the TIME the text holds, with as many
// digits of a second as it has; text that is no TIME is an error.
func evalTimeLiteral(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	v := args[0]
	rows := n
	if v.Const {
		rows = 1
	}
	for i := 0; i < rows; i++ {
		if v.IsNull(i) {
			continue
		}
		if _, ok := datetime.ParseTime(string(v.Str(i))); !ok {
			return nil, fmt.Errorf("invalid TIME literal '%s'", v.Str(i))
		}
	}
	fsps := make([]int, rows)
	for i := range fsps {
		if !v.IsNull(i) {
			fsps[i] = literalFsp(string(v.Str(i)))
		}
	}
	return timeText(args, n, func(i int) (int64, bool) {
		t, ok := datetime.ParseTime(string(v.Str(i)))
		return datetime.RoundTime(t, fsps[i]), ok
	}, -1, fsps...)
}

// literalFsp is the number of digits of a second in TIME text (up to 6).
func literalFsp(s string) int {
	s = strings.TrimSpace(s)
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 {
		return 0
	}
	k := 0
	for _, c := range []byte(s[dot+1:]) {
		if c < '0' || c > '9' {
			break
		}
		k++
	}
	return min(k, 6)
}

// timeText evaluates fn on the rows where no argument is NULL and prints
// each TIME with fsp digits of a second (or, for fsp -1, with fsps[i]).
func timeText(args []*coldata.Vec, n int, fn func(i int) (int64, bool), fsp int, fsps ...int) (*coldata.Vec, error) {
	for _, a := range args {
		if isConstNull(a) {
			return coldata.NewConst(coldata.String, nil, n), nil
		}
	}
	rows := n
	if AllConst(args) {
		rows = 1
	}
	nulls := CombineNulls(args, rows)
	if nulls == nil {
		nulls = coldata.NewValidBitmap(rows)
	}
	out := &coldata.Vec{Type: coldata.String, Len: rows, Offsets: make([]int32, rows+1)}
	var buf []byte
	for i := 0; i < rows; i++ {
		if validAt(nulls, i) {
			if t, ok := fn(i); ok {
				f := fsp
				if f < 0 {
					f = fsps[i]
				}
				buf = datetime.AppendTimeFsp(buf, t, f)
			} else {
				coldata.ClearBit(nulls, i)
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
