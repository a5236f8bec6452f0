package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// Date arithmetic and the clock functions. The binder turns every form of
// date arithmetic into the registry's date_add_days / date_add_months /
// date_add_micros calls with the count scaled to the unit:
//
//	d + INTERVAL n unit, INTERVAL n unit + d, d - INTERVAL n unit
//	DATE_ADD(d, INTERVAL n unit), DATE_SUB, ADDDATE, SUBDATE (n alone: days)
//	TIMESTAMPADD(unit, n, d)
//	d + n, n + d, d - n (days, as DuckDB)
//
// and DATE - DATE into DATEDIFF (days). NOW() and friends are one value per
// statement: the statement's clock (WithStatementTime) read once.

type clockKey struct{}

// WithStatementTime fixes the time NOW(), CURRENT_DATE and the other clock
// functions return for the statement run under ctx (every query of an
// UPDATE sees the same NOW()).
func WithStatementTime(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, t)
}

// statementTime is the time fixed by WithStatementTime, or now.
func statementTime(ctx context.Context) time.Time {
	if ctx != nil {
		if t, ok := ctx.Value(clockKey{}).(time.Time); ok {
			return t
		}
	}
	return time.Now()
}

// wallMicros is t's wall clock (in t's location) as a TIMESTAMP value.
func wallMicros(t time.Time) int64 {
	y, m, d := t.Date()
	days := datetime.DaysFromCivil(int64(y), int64(m), int64(d))
	tod := int64(t.Hour())*datetime.MicrosPerHour + int64(t.Minute())*datetime.MicrosPerMinute +
		int64(t.Second())*datetime.MicrosPerSecond + int64(t.Nanosecond()/1000)
	return days*datetime.MicrosPerDay + tod
}

// clockValue binds a clock function called with no arguments; ok is false
// for other names.
func (b *binder) clockValue(name string) (expr.Expr, bool) {
	e, ok, _ := b.clockAt(name, 0)
	return e, ok
}

// clockAt binds a clock function with fsp digits of a second (NOW(3)), as
// MySQL: the statement's time truncated to them, a DATETIME(fsp) or, for
// the TIME functions, TIME text with fsp digits. ok is false for other
// names; err reports a precision the function does not take.
func (b *binder) clockAt(name string, fsp int) (expr.Expr, bool, error) {
	now := b.now
	local := wallMicros(now)
	switch name {
	case "now", "current_timestamp", "localtimestamp", "localtime", "sysdate", "utc_timestamp":
		if name == "utc_timestamp" {
			local = wallMicros(now.UTC())
		}
		e, err := expr.CastTo(&expr.Literal{Value: truncFsp(local, fsp), T: coldata.Timestamp}, coldata.TimestampOf(fsp))
		return e, true, err
	case "curtime", "current_time", "utc_time":
		if name == "utc_time" {
			local = wallMicros(now.UTC())
		}
		_, tod := datetime.SplitTimestamp(truncFsp(local, fsp))
		text := datetime.AppendTime(nil, tod-tod%datetime.MicrosPerSecond)
		if fsp > 0 {
			frac := fmt.Sprintf(".%06d", tod%datetime.MicrosPerSecond)
			text = append(text, frac[:1+fsp]...)
		}
		return &expr.Literal{Value: string(text), T: coldata.String}, true, nil
	}
	if fsp > 0 {
		// CURDATE, UTC_DATE and UNIX_TIMESTAMP take no precision.
		return nil, false, nil
	}
	switch name {
	case "current_date", "curdate":
		d, _ := datetime.SplitTimestamp(local)
		return &expr.Literal{Value: d, T: coldata.Date}, true, nil
	case "utc_date":
		d, _ := datetime.SplitTimestamp(wallMicros(now.UTC()))
		return &expr.Literal{Value: d, T: coldata.Date}, true, nil
	case "unix_timestamp":
		return &expr.Literal{Value: now.Unix(), T: coldata.Int64}, true, nil
	}
	return nil, false, nil
}

// truncFsp truncates timestamp t to fsp digits of a second.
func truncFsp(t int64, fsp int) int64 {
	unit := int64(1)
	for k := fsp; k < 6; k++ {
		unit *= 10
	}
	return datetime.FloorDiv(t, unit) * unit
}

// clockPrecision binds NOW(n) and the other clock functions with a
// precision: n a literal 0..6 (MySQL's error 1426 past 6). ok is false
// for other calls.
func (b *binder) clockPrecision(name string, arg sqlparser.Expr) (expr.Expr, bool, error) {
	if _, ok, _ := b.clockAt(name, 1); !ok {
		return nil, false, nil
	}
	v, ok := arg.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.IntVal {
		return nil, true, errorf(TypeMismatch, name, "function %s: the precision must be a number from 0 to 6", strings.ToUpper(name))
	}
	n, err := strconv.Atoi(string(v.Val))
	if err != nil || n > 6 {
		return nil, true, errorf(TypeMismatch, name, "Too-big precision %s specified for '%s'. Maximum is 6", v.Val, name)
	}
	e, _, err := b.clockAt(name, n)
	return e, true, err
}

// bindArith binds + and - where a date, timestamp or INTERVAL takes part;
// ok is false when neither does (plain arithmetic).
func (b *binder) bindArith(x *sqlparser.BinaryExpr, sc *scope) (expr.Expr, bool, error) {
	minus := x.Operator == sqlparser.MinusStr
	if iv, isIv := x.Right.(*sqlparser.IntervalExpr); isIv {
		base, err := b.bindExpr(x.Left, sc)
		if err != nil {
			return nil, true, err
		}
		e, err := b.addInterval(base, iv.Expr, iv.Unit, minus, sc)
		return e, true, err
	}
	if iv, isIv := x.Left.(*sqlparser.IntervalExpr); isIv {
		if minus {
			return nil, true, errorf(TypeMismatch, "", "cannot subtract a date from an INTERVAL")
		}
		base, err := b.bindExpr(x.Right, sc)
		if err != nil {
			return nil, true, err
		}
		e, err := b.addInterval(base, iv.Expr, iv.Unit, false, sc)
		return e, true, err
	}
	l, err := b.bindExpr(x.Left, sc)
	if err != nil {
		return nil, true, err
	}
	r, err := b.bindExpr(x.Right, sc)
	if err != nil {
		return nil, true, err
	}
	lt, rt := l.Type().IsTemporal(), r.Type().IsTemporal()
	switch {
	case !lt && !rt:
		e, err := b.apply(x.Operator, l, r)
		return e, true, err
	case lt && rt && minus:
		if l.Type() == coldata.Date && r.Type() == coldata.Date {
			e, err := b.apply("datediff", l, r)
			return e, true, err
		}
		return nil, true, errorf(TypeMismatch, "", "cannot subtract %s from %s (use TIMESTAMPDIFF(unit, a, b))", r.Type(), l.Type())
	case lt && !rt && (minus || x.Operator == sqlparser.PlusStr):
		if minus {
			if r, err = b.apply("neg", r); err != nil {
				return nil, true, err
			}
		}
		e, err := b.apply("date_add_days", l, r)
		return e, true, err
	case rt && !lt && x.Operator == sqlparser.PlusStr:
		e, err := b.apply("date_add_days", r, l)
		return e, true, err
	}
	return nil, true, errorf(TypeMismatch, "", "operator %s is not defined for %s and %s", x.Operator, l.Type(), r.Type())
}

// addInterval binds base + INTERVAL n unit (or minus it); on text the
// result is text (textDateResult).
func (b *binder) addInterval(base expr.Expr, count sqlparser.Expr, unitName string, minus bool, sc *scope) (expr.Expr, error) {
	var number expr.Expr
	if base.Type() == coldata.Int64 {
		// A number in MySQL's date forms (20240105, 240105103000) is
		// read as a DATETIME, and the result is text as for text.
		ts, err := expr.CastTo(base, coldata.Timestamp)
		if err != nil {
			return nil, err
		}
		number, base = base, ts
	}
	e, err := b.addIntervalTyped(base, count, unitName, minus, sc)
	if err != nil || (base.Type() != coldata.String && number == nil) {
		return e, err
	}
	unit := strings.ToLower(unitName)
	u, _ := expr.ParseUnit(unitName)
	dateUnit := unit == "year_month" || (!expr.IsCompositeUnit(unit) && u >= expr.UnitDay && u <= expr.UnitMillennium)
	if number != nil {
		return b.numberDateResult(e, number, dateUnit)
	}
	return b.textDateResult(e, base, dateUnit)
}

// numberDateResult is date arithmetic on a number as MySQL gives it: text,
// a date when the number is a date alone (at most eight digits) and the
// unit is days or longer, else a datetime (textDateResult's forms).
func (b *binder) numberDateResult(ts, number expr.Expr, dateUnit bool) (expr.Expr, error) {
	out, err := b.textDateResult(ts, &expr.Literal{Value: "0000-00-00 00:00:00", T: coldata.String}, false)
	if err != nil || !dateUnit {
		return out, err
	}
	day, err := b.apply("date_format", ts, &expr.Literal{Value: "%Y-%m-%d", T: coldata.String})
	if err != nil {
		return nil, err
	}
	dateOnly, err := b.apply("<=", number, &expr.Literal{Value: int64(99991231), T: coldata.Int64})
	if err != nil {
		return nil, err
	}
	return b.apply("if", dateOnly, day, out)
}

// textDateResult is date arithmetic on text as MySQL gives it: text
// shaped per value like the input, a date when the input holds a date
// alone and the unit is days or longer, else a datetime whose fraction
// of a second prints six digits when it is not zero (MySQL's
// Item_temporal_hybrid_func::val_str_ascii). A date alone is text of at
// most ten characters (dateOnlyLiteral's reading) or without a ':'.
func (b *binder) textDateResult(ts, base expr.Expr, dateUnit bool) (expr.Expr, error) {
	lit := func(s string) expr.Expr { return &expr.Literal{Value: s, T: coldata.String} }
	whole, err := b.apply("date_format", ts, lit("%Y-%m-%d %H:%i:%s"))
	if err != nil {
		return nil, err
	}
	frac, err := b.apply("date_format", ts, lit("%Y-%m-%d %H:%i:%s.%f"))
	if err != nil {
		return nil, err
	}
	us, err := b.apply("extract", lit("microsecond"), ts)
	if err != nil {
		return nil, err
	}
	noFrac, err := b.apply("=", us, &expr.Literal{Value: int64(0), T: coldata.Int64})
	if err != nil {
		return nil, err
	}
	out, err := b.apply("if", noFrac, whole, frac)
	if err != nil || !dateUnit {
		return out, err
	}
	day, err := b.apply("date_format", ts, lit("%Y-%m-%d"))
	if err != nil {
		return nil, err
	}
	trimmed, err := b.apply("trim", base)
	if err != nil {
		return nil, err
	}
	n, err := b.apply("char_length", trimmed)
	if err != nil {
		return nil, err
	}
	short, err := b.apply("<=", n, &expr.Literal{Value: int64(10), T: coldata.Int64})
	if err != nil {
		return nil, err
	}
	// Longer text without a ':' is a date with trailing characters
	// ('2024-02-29x'): a time of day always has one.
	colon, err := b.apply("instr", base, &expr.Literal{Value: ":", T: coldata.String})
	if err != nil {
		return nil, err
	}
	if colon, err = b.apply("=", colon, &expr.Literal{Value: int64(0), T: coldata.Int64}); err != nil {
		return nil, err
	}
	dateOnly, err := b.apply("or", short, colon)
	if err != nil {
		return nil, err
	}
	return b.apply("if", dateOnly, day, out)
}

// addIntervalTyped binds base + INTERVAL n unit (or minus it), text
// read as a DATE or TIMESTAMP.
func (b *binder) addIntervalTyped(base expr.Expr, count sqlparser.Expr, unitName string, minus bool, sc *scope) (expr.Expr, error) {
	if unit := strings.ToLower(unitName); expr.IsCompositeUnit(unit) {
		dec := 0
		if strings.HasSuffix(unit, "microsecond") {
			dec = 6
		}
		e, err := b.addComposite(base, count, unit, minus, sc)
		return withIntervalPrecision(e, base, dec, err)
	}
	u, ok := expr.ParseUnit(unitName)
	fn, factor, ok2 := expr.IntervalScale(u)
	if !ok || !ok2 {
		return nil, errorf(Unsupported, "", "not supported: INTERVAL unit %s", strings.ToUpper(unitName))
	}
	n, err := b.bindExpr(count, sc)
	if err != nil {
		return nil, err
	}
	dec := 0
	switch {
	case u == expr.UnitMicrosecond:
		dec = 6
	case u == expr.UnitSecond && n.Type().IsDecimal() && n.Type().Scale() > 0:
		// INTERVAL 1.5 SECOND keeps its fraction (other units round the
		// count): add its microseconds.
		dec = min(n.Type().Scale(), 6)
		if n, err = b.apply("*", n, &expr.Literal{Value: int64(datetime.MicrosPerSecond), T: coldata.Int64}); err != nil {
			return nil, err
		}
		fn, factor = "date_add_micros", 1
	}
	e, err := b.scaledShift(fn, base, n, factor, minus)
	return withIntervalPrecision(e, base, dec, err)
}

// withIntervalPrecision types date arithmetic's result as MySQL does: a
// DATETIME(n) base plus an interval of dec fractional digits (6 for a
// unit with microseconds, a SECOND count's own digits) is
// DATETIME(max(n, dec)), a DATE plus a time unit DATETIME(dec). A
// TIMESTAMP of no declared precision stays one (it prints the digits a
// value has) unless dec is 6.
func withIntervalPrecision(e, base expr.Expr, dec int, err error) (expr.Expr, error) {
	if err != nil || e.Type() != coldata.Timestamp {
		return e, err
	}
	bt := base.Type()
	fsp := -1
	switch {
	case bt.Fsp() >= 0:
		fsp = max(bt.Fsp(), dec)
	case bt == coldata.Date || (bt == coldata.Timestamp && dec == 6):
		fsp = dec
	case bt == coldata.Timestamp:
		if k, ok := literalFsp(base); ok {
			fsp = max(k, dec)
		}
	}
	if fsp < 0 {
		return e, nil
	}
	return expr.CastTo(e, coldata.TimestampOf(fsp))
}

// addComposite binds base + INTERVAL 'text' unit for MySQL's composite
// units (DAY_HOUR ...): date_add_interval(base, text, '[-]unit'), whose
// text is read per row. A DATE plus a unit with a time part becomes a
// TIMESTAMP, as in MySQL.
func (b *binder) addComposite(base expr.Expr, count sqlparser.Expr, unit string, minus bool, sc *scope) (expr.Expr, error) {
	base = dateOnlyLiteral(base)
	n, err := b.bindExpr(count, sc)
	if err != nil {
		return nil, err
	}
	if n, err = expr.CastTo(n, coldata.String); err != nil {
		return nil, errorf(TypeMismatch, "", "INTERVAL: %v", err)
	}
	if t := base.Type(); t.IsTemporal() && expr.CompositeResult(t, unit) != t {
		if base, err = expr.CastTo(base, expr.CompositeResult(t, unit)); err != nil {
			return nil, err
		}
	}
	if minus {
		unit = "-" + unit
	}
	return b.apply("date_add_interval", base, n, &expr.Literal{Value: unit, T: coldata.String})
}

// scaledShift applies fn(base, n * factor), negated for minus.
func (b *binder) scaledShift(fn string, base, n expr.Expr, factor int64, minus bool) (expr.Expr, error) {
	base = dateOnlyLiteral(base)
	n, err := expr.CastTo(n, coldata.Int64)
	if err != nil {
		return nil, errorf(TypeMismatch, "", "INTERVAL: %v", err)
	}
	if factor != 1 {
		// A count past every date gives NULL, as in MySQL, not an
		// overflow of the multiplication: clamp it first.
		bound := int64(1<<62) / factor
		if n, err = b.apply("least", n, &expr.Literal{Value: bound, T: coldata.Int64}); err != nil {
			return nil, err
		}
		if n, err = b.apply("greatest", n, &expr.Literal{Value: -bound, T: coldata.Int64}); err != nil {
			return nil, err
		}
		if n, err = b.apply("*", n, &expr.Literal{Value: factor, T: coldata.Int64}); err != nil {
			return nil, err
		}
	}
	if minus {
		if n, err = b.apply("neg", n); err != nil {
			return nil, err
		}
	}
	return b.apply(fn, base, n)
}

// dateOnlyLiteral makes a string literal that holds a date without a time
// of day a DATE, so that DATE_ADD('2024-01-05', INTERVAL 1 DAY) is a date
// as in MySQL; other strings convert to TIMESTAMP and keep their time.
func dateOnlyLiteral(e expr.Expr) expr.Expr {
	l, ok := e.(*expr.Literal)
	if !ok || l.T != coldata.String {
		return e
	}
	s, _ := l.Value.(string)
	if d, ok := datetime.ParseDate(s); ok && len(strings.TrimSpace(s)) <= 10 {
		return &expr.Literal{Value: d, T: coldata.Date}
	}
	return e
}

// literalFsp is the digits of a second a TIMESTAMP literal is written
// with: TIMESTAMP '2024-01-05 10:00:00.5' is a DATETIME(1) in MySQL. ok
// is false for anything but such a literal.
func literalFsp(e expr.Expr) (int, bool) {
	c, ok := e.(*expr.Call)
	if !ok || c.Fn.Name != "timestamp_literal" || len(c.Args) != 1 {
		return 0, false
	}
	l, ok := c.Args[0].(*expr.Literal)
	if !ok {
		return 0, false
	}
	s, _ := l.Value.(string)
	s = strings.TrimSpace(s)
	if dot := strings.LastIndexByte(s, '.'); dot >= 0 && strings.ContainsRune(s[:dot], ':') {
		return min(len(s)-dot-1, 6), true
	}
	return 0, true
}

// addTime binds ADDTIME and SUBTIME. On a DATE or DATETIME(n) the result
// is DATETIME(max(n, k)), k the fractional digits of the TIME: a constant
// text's own, 6 for any other, as in MySQL.
func (b *binder) addTime(name string, args []sqlparser.Expr, sc *scope) (expr.Expr, error) {
	if len(args) != 2 {
		return b.call(name, sc, args...)
	}
	base, err := b.bindExpr(args[0], sc)
	if err != nil {
		return nil, err
	}
	t, err := b.bindExpr(args[1], sc)
	if err != nil {
		return nil, err
	}
	e, err := b.apply(name, base, t)
	if err != nil {
		return nil, err
	}
	if e.Type() == coldata.String {
		if timeValued(base) {
			return e, nil
		}
		return b.sixDigitFraction(e)
	}
	if e.Type() != coldata.Timestamp {
		return e, nil
	}
	fsp := base.Type().Fsp()
	if base.Type() == coldata.Date {
		fsp = 0
	}
	if k, ok := literalFsp(base); ok {
		fsp = k
	}
	if fsp < 0 {
		return e, nil
	}
	k := 6
	if v, ok := args[1].(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal {
		k = 0
		if dot := strings.LastIndexByte(string(v.Val), '.'); dot >= 0 {
			k = min(len(strings.TrimSpace(string(v.Val[dot+1:]))), 6)
		}
	}
	return expr.CastTo(e, coldata.TimestampOf(max(fsp, k)))
}

// timeValued reports whether e is a TIME in MySQL (gsql's TIMEs are
// text): a call of a function that returns one.
func timeValued(e expr.Expr) bool {
	c, ok := e.(*expr.Call)
	if !ok {
		return false
	}
	switch c.Fn.Name {
	case "maketime", "sec_to_time", "timediff", "addtime", "subtime":
		return true
	}
	return false
}

// sixDigitFraction prints the fraction of a second in time text with six
// digits (01:00:00.5 is 01:00:00.500000): ADDTIME and SUBTIME of text are
// text in MySQL, printed so (Item_temporal_hybrid_func::val_str_ascii).
func (b *binder) sixDigitFraction(e expr.Expr) (expr.Expr, error) {
	dot, err := b.apply("instr", e, &expr.Literal{Value: ".", T: coldata.String})
	if err != nil {
		return nil, err
	}
	noDot, err := b.apply("=", dot, &expr.Literal{Value: int64(0), T: coldata.Int64})
	if err != nil {
		return nil, err
	}
	width, err := b.apply("+", dot, &expr.Literal{Value: int64(6), T: coldata.Int64})
	if err != nil {
		return nil, err
	}
	padded, err := b.apply("rpad", e, width, &expr.Literal{Value: "0", T: coldata.String})
	if err != nil {
		return nil, err
	}
	return b.apply("if", noDot, e, padded)
}

// MySQL's classes of STR_TO_DATE specifiers (get_date_time_result_type):
// a time of day, and a date. %d, %e, %D and %p are in neither.
const (
	timeSpecifiers = "HISThiklrs"
	dateSpecifiers = "MVUXYWabcjmvuxyw"
)

// strToDate binds STR_TO_DATE typed by its format as MySQL types it when
// the format is a literal: date specifiers alone give a DATE, time
// specifiers alone a TIME (gsql's TIME text: the time of day, six digits
// of a second with %f), both a DATETIME, DATETIME(6) with %f. A format
// read per row gives a TIMESTAMP.
func (b *binder) strToDate(args []sqlparser.Expr, sc *scope) (expr.Expr, error) {
	e, err := b.call("str_to_date", sc, args...)
	if err != nil || len(args) != 2 {
		return e, err
	}
	f, ok := args[1].(*sqlparser.SQLVal)
	if !ok || f.Type != sqlparser.StrVal {
		return e, nil
	}
	fs := string(f.Val)
	date, clock, frac := false, false, false
	for i := 0; i+1 < len(fs); i++ {
		if fs[i] == '%' {
			c := fs[i+1]
			frac = frac || c == 'f'
			clock = clock || c == 'f' || strings.IndexByte(timeSpecifiers, c) >= 0
			date = date || strings.IndexByte(dateSpecifiers, c) >= 0
			i++
		}
	}
	switch {
	case clock && !date:
		layout := "%H:%i:%s"
		if frac {
			layout += ".%f"
		}
		if day := strings.Contains(fs, "%d") || strings.Contains(fs, "%e") || strings.Contains(fs, "%D"); day {
			return b.timeWithDays(args[0], fs, frac, sc)
		}
		return b.apply("date_format", e, &expr.Literal{Value: layout, T: coldata.String})
	case frac:
		return expr.CastTo(e, coldata.TimestampOf(6))
	case clock:
		return expr.CastTo(e, coldata.TimestampOf(0))
	}
	return b.apply("cast_to_date", e)
}

// timeWithDays is STR_TO_DATE of a TIME format that reads a day (%d, %e,
// %D): MySQL counts the day as 24 hours ('05 10' with '%d %H' is
// 130:00:00; day 0 is allowed). str_to_dayclock reads the text as that
// many days and hours after 1970-01-01, which make the hours.
func (b *binder) timeWithDays(arg sqlparser.Expr, format string, frac bool, sc *scope) (expr.Expr, error) {
	x, err := b.bindExpr(arg, sc)
	if err != nil {
		return nil, err
	}
	lit := func(v any, t coldata.Type) expr.Expr { return &expr.Literal{Value: v, T: t} }
	ts, err := b.apply("str_to_dayclock", x, lit(format, coldata.String))
	if err != nil {
		return nil, err
	}
	day, err := b.apply("datediff", ts, lit(int64(0), coldata.Date))
	if err != nil {
		return nil, err
	}
	hour, err := b.apply("hour", ts)
	if err != nil {
		return nil, err
	}
	if day, err = b.apply("*", day, lit(int64(24), coldata.Int64)); err != nil {
		return nil, err
	}
	hours, err := b.apply("+", day, hour)
	if err != nil {
		return nil, err
	}
	if hours, err = expr.CastTo(hours, coldata.String); err != nil {
		return nil, err
	}
	// At least two digits (LPAD alone would cut 130 to 13).
	n, err := b.apply("char_length", hours)
	if err != nil {
		return nil, err
	}
	if n, err = b.apply("greatest", n, lit(int64(2), coldata.Int64)); err != nil {
		return nil, err
	}
	if hours, err = b.apply("lpad", hours, n, lit("0", coldata.String)); err != nil {
		return nil, err
	}
	rest := ":%i:%s"
	if frac {
		rest += ".%f"
	}
	tail, err := b.apply("date_format", ts, lit(rest, coldata.String))
	if err != nil {
		return nil, err
	}
	return b.apply("concat", hours, tail)
}

// bindDateFunc binds the date functions whose arguments the registry cannot
// type alone (an INTERVAL argument, a unit); ok is false for other calls.
func (b *binder) bindDateFunc(name string, args []sqlparser.Expr, sc *scope) (expr.Expr, bool, error) {
	switch name {
	case "date_add", "date_sub", "adddate", "subdate":
		if len(args) != 2 {
			return nil, true, errorf(TypeMismatch, name, "function %s: expects 2 arguments, got %d", strings.ToUpper(name), len(args))
		}
		base, err := b.bindExpr(args[0], sc)
		if err != nil {
			return nil, true, err
		}
		minus := name == "date_sub" || name == "subdate"
		if iv, ok := args[1].(*sqlparser.IntervalExpr); ok {
			e, err := b.addInterval(base, iv.Expr, iv.Unit, minus, sc)
			return e, true, err
		}
		n, err := b.bindExpr(args[1], sc)
		if err != nil {
			return nil, true, err
		}
		if base.Type() == coldata.Int64 {
			// ADDDATE(20240105, 1): the number read as a date, text out.
			ts, err := expr.CastTo(base, coldata.Timestamp)
			if err != nil {
				return nil, true, err
			}
			e, err := b.scaledShift("date_add_days", ts, n, 1, minus)
			if err == nil {
				e, err = b.numberDateResult(e, base, true)
			}
			return e, true, err
		}
		e, err := b.scaledShift("date_add_days", base, n, 1, minus)
		if err == nil && base.Type() == coldata.String {
			e, err = b.textDateResult(e, base, true)
		}
		return e, true, err
	case "str_to_date":
		e, err := b.strToDate(args, sc)
		return e, true, err
	case "extract":
		// EXTRACT(WEEK FROM d) is WEEK(d) in MySQL (mode 0, the default
		// default_week_format), not the ISO week.
		if u, ok := args[0].(*sqlparser.SQLVal); ok && len(args) == 2 && strings.EqualFold(string(u.Val), "week") {
			e, err := b.call("week", sc, args[1], sqlparser.NewIntVal([]byte("0")))
			return e, true, err
		}
		// EXTRACT(HOUR FROM '10:30:15') reads text as a TIME, as HOUR
		// does, and so do the other units of a time alone.
		if u, ok := args[0].(*sqlparser.SQLVal); ok && len(args) == 2 {
			unit := strings.ToLower(string(u.Val))
			if _, ok := timeUnitFields[unit]; ok {
				x, err := b.bindExpr(args[1], sc)
				if err != nil {
					return nil, true, err
				}
				if x.Type() == coldata.String {
					e, err := b.extractTimeText(unit, x)
					return e, true, err
				}
				e, err := b.apply("extract", &expr.Literal{Value: unit, T: coldata.String}, x)
				return e, true, err
			}
		}
		return nil, false, nil
	case "addtime", "subtime":
		e, err := b.addTime(name, args, sc)
		return e, true, err
	case "convert_tz":
		e, err := b.convertTZ(args, sc)
		return e, true, err
	case "from_unixtime":
		e, err := b.fromUnixtime(args, sc)
		return e, true, err
	case "hour", "minute", "second", "microsecond":
		if len(args) != 1 {
			return nil, false, nil
		}
		x, err := b.bindExpr(args[0], sc)
		if err != nil {
			return nil, true, err
		}
		if x.Type() != coldata.String {
			e, err := b.apply(name, x)
			return e, true, err
		}
		e, err := b.timeTextField(name, x)
		return e, true, err
	case "unix_timestamp":
		if e, ok, err := b.unixTimestamp(args, sc); ok {
			return e, true, err
		}
	case "time":
		if len(args) != 1 {
			return nil, true, errorf(TypeMismatch, name, "function TIME: expects 1 argument, got %d", len(args))
		}
		e, err := b.timeFunc(args[0], sc)
		return e, true, err
	case "timestamp":
		if len(args) != 2 {
			return nil, false, nil
		}
		// TIMESTAMP(expr, time) is ADDTIME(CAST(expr AS DATETIME), time).
		base, err := b.bindExpr(args[0], sc)
		if err != nil {
			return nil, true, err
		}
		if base, err = expr.CastTo(base, coldata.Timestamp); err != nil {
			return nil, true, errorf(TypeMismatch, name, "function TIMESTAMP: %v", err)
		}
		t, err := b.bindExpr(args[1], sc)
		if err != nil {
			return nil, true, err
		}
		e, err := b.apply("addtime", base, t)
		return e, true, err
	case "timestampadd":
		if len(args) != 3 {
			return nil, true, errorf(TypeMismatch, name, "function TIMESTAMPADD: expects 3 arguments, got %d", len(args))
		}
		unit, ok := args[0].(*sqlparser.SQLVal)
		if !ok || unit.Type != sqlparser.StrVal {
			return nil, true, errorf(TypeMismatch, name, "function TIMESTAMPADD: the unit must be a keyword such as DAY")
		}
		base, err := b.bindExpr(args[2], sc)
		if err != nil {
			return nil, true, err
		}
		e, err := b.addInterval(base, args[1], string(unit.Val), false, sc)
		return e, true, err
	}
	if len(args) == 1 {
		if e, ok, err := b.clockPrecision(name, args[0]); ok {
			return e, true, err
		}
	}
	if len(args) == 0 {
		if e, ok := b.clockValue(name); ok {
			return e, true, nil
		}
		if name == "last_insert_id" {
			return &expr.Literal{Value: lastInsertID(b.ctx), T: coldata.Int64}, true, nil
		}
	}
	return nil, false, nil
}

// timeTextField binds HOUR, MINUTE, SECOND or MICROSECOND of text, which MySQL reads
// as a TIME (HOUR('100:30:00') is 100; a datetime's text gives its time
// of day): the fields of TIME_TO_SEC's seconds.
func (b *binder) timeTextField(name string, x expr.Expr) (expr.Expr, error) {
	if name == "microsecond" {
		// The TIME's fraction, as TIME_FORMAT's %f prints it (after
		// the sign of a negative TIME).
		f, err := b.apply("time_format", x, &expr.Literal{Value: "%f", T: coldata.String})
		if err != nil {
			return nil, err
		}
		if f, err = expr.CastTo(f, coldata.Int64); err != nil {
			return nil, err
		}
		return b.apply("abs", f)
	}
	secs, err := b.apply("time_to_sec", x)
	if err != nil {
		return nil, err
	}
	if secs, err = b.apply("abs", secs); err != nil {
		return nil, err
	}
	lit := func(v int64) expr.Expr { return &expr.Literal{Value: v, T: coldata.Int64} }
	switch name {
	case "hour":
		return b.apply("div", secs, lit(3600))
	case "minute":
		m, err := b.apply("div", secs, lit(60))
		if err != nil {
			return nil, err
		}
		return b.apply("%", m, lit(60))
	}
	return b.apply("%", secs, lit(60))
}

// convertTZ binds CONVERT_TZ(t, from, to) as convert_tz(t, from, to,
// system offset). The result keeps t's digits of a second as MySQL types
// it: DATETIME(n) n, a DATE or an integer 0, a text literal its own, other
// text 6.
func (b *binder) convertTZ(args []sqlparser.Expr, sc *scope) (expr.Expr, error) {
	if len(args) != 3 {
		return nil, errorf(TypeMismatch, "convert_tz", "function CONVERT_TZ: expects 3 arguments, got %d", len(args))
	}
	bound := make([]expr.Expr, 0, 4)
	for _, a := range args {
		e, err := b.bindExpr(a, sc)
		if err != nil {
			return nil, err
		}
		bound = append(bound, e)
	}
	bound = append(bound, &expr.Literal{Value: systemTZOffset(), T: coldata.Int64})
	e, err := b.apply("convert_tz", bound...)
	if err != nil {
		return nil, err
	}
	fsp := argFsp(bound[0])
	if fsp < 0 {
		return e, nil
	}
	return expr.CastTo(e, coldata.TimestampOf(fsp))
}

// argFsp is the digits of a second MySQL gives a temporal function's
// argument (Item::datetime_precision): DATETIME(n) n, a DATE or an
// integer 0, a DECIMAL its scale, a text literal its own, other text 6;
// -1 for a TIMESTAMP of no declared precision.
func argFsp(e expr.Expr) int {
	t := e.Type()
	switch {
	case t.Fsp() >= 0:
		return t.Fsp()
	case t == coldata.Date || t == coldata.Int64:
		return 0
	case t.IsDecimal():
		return min(t.Scale(), 6)
	case t == coldata.String:
		if l, ok := e.(*expr.Literal); ok {
			return textFsp(l)
		}
		return 6
	case t == coldata.Timestamp:
		if k, ok := literalFsp(e); ok {
			return k
		}
	}
	return -1
}

// fromUnixtime binds FROM_UNIXTIME(x [, format]). A DECIMAL or DOUBLE x
// keeps its fraction of a second (its scale, 6 for a DOUBLE, as MySQL
// types it): whole seconds through from_unixtime, the rest added as
// microseconds; a negative x is NULL.
func (b *binder) fromUnixtime(args []sqlparser.Expr, sc *scope) (expr.Expr, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, errorf(TypeMismatch, "from_unixtime", "function FROM_UNIXTIME: expects 1 or 2 arguments, got %d", len(args))
	}
	x, err := b.bindExpr(args[0], sc)
	if err != nil {
		return nil, err
	}
	fsp := 0
	switch t := x.Type(); {
	case t.IsDecimal() && t.Scale() > 0:
		fsp = min(t.Scale(), 6)
	case t == coldata.Float64:
		fsp = 6
	}
	var e expr.Expr
	if fsp == 0 {
		e, err = b.apply("from_unixtime", x)
	} else {
		e, err = b.fractionalUnixtime(x, fsp)
	}
	if err != nil || len(args) == 1 {
		return e, err
	}
	f, err := b.bindExpr(args[1], sc)
	if err != nil {
		return nil, err
	}
	return b.apply("date_format", e, f)
}

func (b *binder) fractionalUnixtime(x expr.Expr, fsp int) (expr.Expr, error) {
	million := &expr.Literal{Value: int64(datetime.MicrosPerSecond), T: coldata.Int64}
	scaled, err := b.apply("*", x, million)
	if err != nil {
		return nil, err
	}
	if scaled, err = b.apply("round", scaled); err != nil {
		return nil, err
	}
	us, err := expr.CastTo(scaled, coldata.Int64)
	if err != nil {
		return nil, err
	}
	neg, err := b.apply("<", us, &expr.Literal{Value: int64(0), T: coldata.Int64})
	if err != nil {
		return nil, err
	}
	if us, err = b.apply("if", neg, &expr.Literal{T: coldata.Null}, us); err != nil {
		return nil, err
	}
	secs, err := b.apply("div", us, million)
	if err != nil {
		return nil, err
	}
	whole, err := b.apply("from_unixtime", secs)
	if err != nil {
		return nil, err
	}
	rest, err := b.apply("%", us, million)
	if err != nil {
		return nil, err
	}
	e, err := b.apply("date_add_micros", whole, rest)
	if err != nil {
		return nil, err
	}
	return expr.CastTo(e, coldata.TimestampOf(fsp))
}

// unixTimestamp binds UNIX_TIMESTAMP(t): a BIGINT, or for t with digits
// of a second a DECIMAL of that scale, as MySQL; 0 outside the range
// UNIX_TIMESTAMP takes.
func (b *binder) unixTimestamp(args []sqlparser.Expr, sc *scope) (expr.Expr, bool, error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	x, err := b.bindExpr(args[0], sc)
	if err != nil {
		return nil, true, err
	}
	e, err := b.apply("unix_timestamp", x)
	fsp := argFsp(x)
	if err != nil || fsp <= 0 {
		return e, true, err
	}
	ts, err := expr.CastTo(x, coldata.Timestamp)
	if err != nil {
		return nil, true, err
	}
	us, err := b.apply("extract", &expr.Literal{Value: "microsecond", T: coldata.String}, ts)
	if err != nil {
		return nil, true, err
	}
	frac, err := b.apply("*", us, &expr.Literal{Value: decimal.FromInt64(1), T: coldata.DecimalOf(7, 6)})
	if err != nil {
		return nil, true, err
	}
	sum, err := b.apply("+", e, frac)
	if err != nil {
		return nil, true, err
	}
	lo, err := b.apply(">=", ts, &expr.Literal{Value: int64(0), T: coldata.Timestamp})
	if err != nil {
		return nil, true, err
	}
	hi, err := b.apply("<", ts, &expr.Literal{Value: int64((datetime.MaxUnixSecond + 1) * datetime.MicrosPerSecond), T: coldata.Timestamp})
	if err != nil {
		return nil, true, err
	}
	in, err := b.apply("and", lo, hi)
	if err != nil {
		return nil, true, err
	}
	// NOT: a NULL t gives NULL (the sum), not 0.
	out, err := b.apply("not", in)
	if err != nil {
		return nil, true, err
	}
	if e, err = b.apply("if", out, &expr.Literal{Value: int64(0), T: coldata.Int64}, sum); err != nil {
		return nil, true, err
	}
	e, err = expr.CastTo(e, coldata.DecimalOf(12+fsp, fsp))
	return e, true, err
}

// textFsp is the digits of a second of a text literal read as a
// datetime ('2024-01-05 10:00:00.5' has 1), as MySQL types a constant.
func textFsp(l *expr.Literal) int {
	s, _ := l.Value.(string)
	s = strings.TrimSpace(s)
	if dot := strings.LastIndexByte(s, '.'); dot >= 0 && strings.ContainsRune(s[:dot], ':') {
		return min(len(s)-dot-1, 6)
	}
	return 0
}

// systemTZOffset is the offset of the zone NOW() reads (the process's
// local zone) in seconds, or datetime.TZSystemVaries when it is not one
// number over the TIMESTAMP range's years (daylight saving time, a
// changed standard offset).
func systemTZOffset() int64 {
	_, off := time.Date(1971, 1, 1, 0, 0, 0, 0, time.Local).Zone()
	for _, y := range []int{1971, 1990, 2000, 2010, 2024, 2037} {
		for _, m := range []time.Month{time.January, time.April, time.July, time.October} {
			if _, o := time.Date(y, m, 1, 12, 0, 0, 0, time.Local).Zone(); o != off {
				return datetime.TZSystemVaries
			}
		}
	}
	return int64(off)
}

type lastInsertIDKey struct{}

// WithLastInsertID gives LAST_INSERT_ID() its value for the statements run
// under ctx: the first AUTO_INCREMENT number the session's last INSERT
// gave.
func WithLastInsertID(ctx context.Context, id int64) context.Context {
	return context.WithValue(ctx, lastInsertIDKey{}, id)
}

func lastInsertID(ctx context.Context) int64 {
	if ctx != nil {
		if id, ok := ctx.Value(lastInsertIDKey{}).(int64); ok {
			return id
		}
	}
	return 0
}

// timeFunc binds TIME(expr), MySQL 8's CAST(expr AS TIME(n)) with n the
// argument's digits of a second (Item::time_precision): a DATETIME(n) or
// TIMESTAMP literal its own, a DATE or an integer 0, a DECIMAL its scale,
// a text literal the digits it is written with, other text and DOUBLE 6
// (MySQL 8 prints TIME(c) of a VARCHAR c with six digits; MariaDB keeps
// each value's own). gsql's DATETIME without (n) keeps the digits each
// value has (README, departures), so its TIME does too.
func (b *binder) timeFunc(arg sqlparser.Expr, sc *scope) (expr.Expr, error) {
	x, err := b.bindExpr(arg, sc)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	fsp := 6
	switch {
	case t == coldata.Date || t == coldata.Int64 || t == coldata.Bool || t == coldata.Null:
		fsp = 0
	case t.IsDecimal():
		fsp = min(t.Scale(), 6)
	case t.IsTimestamp():
		if k, ok := literalFsp(x); ok {
			fsp = k
		} else if fsp = t.Fsp(); fsp < 0 {
			// A plain TIMESTAMP's text has the digits the value has
			// (no trailing zeros): its time of day with six digits,
			// the trailing zeros and a bare point cut, which the GPU
			// runs too (reading its text back as a TIME did not).
			t6, err := b.apply("cast_to_time", x, &expr.Literal{Value: int64(6), T: coldata.Int64})
			if err != nil {
				return nil, err
			}
			zeros, err := b.apply("rtrim", t6, &expr.Literal{Value: "0", T: coldata.String})
			if err != nil {
				return nil, err
			}
			return b.apply("rtrim", zeros, &expr.Literal{Value: ".", T: coldata.String})
		}
	case t == coldata.String:
		if k, ok := timeCallFsp(x); ok {
			fsp = k
		}
		if l, ok := x.(*expr.Literal); ok {
			if s, _ := l.Value.(string); s != "" {
				if _, ok := datetime.ParseTime(s); ok {
					fsp = timeTextFsp(s)
				}
			}
		}
	}
	return b.apply("cast_to_time", x, &expr.Literal{Value: int64(fsp), T: coldata.Int64})
}

// timeCallFsp is the digits of a second of a TIME that CAST AS TIME(n)
// or TIME 'literal' made (TIME(TIME(x)) keeps x's); ok is false for
// other expressions.
func timeCallFsp(e expr.Expr) (int, bool) {
	c, ok := e.(*expr.Call)
	if !ok || len(c.Args) == 0 {
		return 0, false
	}
	switch {
	case c.Fn.Name == "cast_to_time" && len(c.Args) == 2:
		if l, ok := c.Args[1].(*expr.Literal); ok {
			if k, ok := l.Value.(int64); ok {
				return int(k), true
			}
		}
	case c.Fn.Name == "time_literal":
		if l, ok := c.Args[0].(*expr.Literal); ok {
			if s, ok := l.Value.(string); ok {
				return timeTextFsp(s), true
			}
		}
	}
	return 0, false
}

// timeTextFsp is the number of digits after the last '.' of time text s,
// at most 6: '12:34:56.78' and '12.78' have 2, '2024-01-05 10:00:00' none.
func timeTextFsp(s string) int {
	s = strings.TrimSpace(s)
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 {
		return 0
	}
	k := 0
	for k < len(s)-dot-1 && s[dot+1+k] >= '0' && s[dot+1+k] <= '9' {
		k++
	}
	return min(k, 6)
}

// timeUnitFields lists, for EXTRACT's units of a time alone, the fields
// the result is made of ('h' hours, 'm' minutes, 's' seconds, 'u'
// microseconds), as MySQL concatenates their digits (HOUR_SECOND is
// hhmmss).
var timeUnitFields = map[string]string{
	"hour": "h", "minute": "m", "second": "s", "microsecond": "u",
	"hour_minute": "hm", "hour_second": "hms", "hour_microsecond": "hmsu",
	"minute_second": "ms", "minute_microsecond": "msu", "second_microsecond": "su",
}

// extractTimeText binds EXTRACT(unit FROM text) for a unit of timeUnitFields:
// the text read as a TIME (a datetime's text as its time of day), its
// fields' digits concatenated, negative for a negative TIME (MySQL's
// Item_extract; EXTRACT(MINUTE FROM '-01:02:03') is -2). Hours are all
// the TIME's hours as in MySQL 8 (MariaDB takes them modulo 24 past a
// day).
func (b *binder) extractTimeText(unit string, x expr.Expr) (expr.Expr, error) {
	lit := func(v int64) expr.Expr { return &expr.Literal{Value: v, T: coldata.Int64} }
	frac, err := b.apply("time_format", x, &expr.Literal{Value: "%f", T: coldata.String})
	if err != nil {
		return nil, err
	}
	// TIME_FORMAT prints a negative TIME's '-' first.
	first, err := b.apply("left", frac, lit(1))
	if err != nil {
		return nil, err
	}
	neg, err := b.apply("=", first, &expr.Literal{Value: "-", T: coldata.String})
	if err != nil {
		return nil, err
	}
	var v expr.Expr
	for _, f := range timeUnitFields[unit] {
		var part expr.Expr
		scale := int64(100)
		switch f {
		case 'h':
			part, err = b.timeTextField("hour", x)
		case 'm':
			part, err = b.timeTextField("minute", x)
		case 's':
			part, err = b.timeTextField("second", x)
		case 'u':
			part, err = b.timeTextField("microsecond", x)
			scale = 1000000
		}
		if err != nil {
			return nil, err
		}
		if v == nil {
			v = part
			continue
		}
		if v, err = b.apply("*", v, lit(scale)); err != nil {
			return nil, err
		}
		if v, err = b.apply("+", v, part); err != nil {
			return nil, err
		}
	}
	minus, err := b.apply("-", lit(0), v)
	if err != nil {
		return nil, err
	}
	return b.apply("if", neg, minus, v)
}
