// Package fusetest holds the data and expressions shared by the fused
// kernel tests: the host-compiled tests in CI and the device tests run on a
// GPU machine compare the same cases with the CPU kernels.
package fusetest

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"unicode/utf8"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// Column indexes of the test table.
const (
	Name = iota
	Vis
	A
	F
	B
	S
	// D and TS are a DATE and a TIMESTAMP column (years 1 to 9999, most
	// rows near today); DS holds text that may be a date, a TIME or the
	// text of a composite INTERVAL.
	D
	TS
	DS
	// DEC is a DECIMAL(12,2) column (values up to its 10 integer digits,
	// ties for rounding to fewer digits); BIG a DECIMAL(38,6) one (values
	// beyond 64 bits, near 10^31).
	DEC
	BIG
)

// DecType and BigType are the types of the DEC and BIG columns.
var (
	DecType = coldata.DecimalOf(12, 2)
	BigType = coldata.DecimalOf(38, 6)
)

// Types are the test table's column types.
var Types = []coldata.Type{coldata.String, coldata.String, coldata.Int64, coldata.Float64, coldata.Bool, coldata.String,
	coldata.Date, coldata.Timestamp, coldata.String, DecType, BigType}

// Col references column i.
func Col(i int) expr.Expr {
	return &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: Types[i]}
}

// Lit makes a literal of a Go value (nil, int, float64, bool, string).
func Lit(v any) expr.Expr {
	switch x := v.(type) {
	case int:
		return &expr.Literal{Value: int64(x), T: coldata.Int64}
	case float64:
		return &expr.Literal{Value: x, T: coldata.Float64}
	case bool:
		return &expr.Literal{Value: x, T: coldata.Bool}
	case string:
		return &expr.Literal{Value: x, T: coldata.String}
	}
	return &expr.Literal{T: coldata.Null}
}

// DecLit makes a DECIMAL literal from its text ("12.50" is DECIMAL(4,2)).
func DecLit(text string) expr.Expr {
	scale := 0
	if i := strings.IndexByte(text, '.'); i >= 0 {
		scale = len(text) - i - 1
	}
	digits := len(strings.TrimLeft(strings.ReplaceAll(text, ".", ""), "-"))
	t := coldata.DecimalOf(max(digits, 1), scale)
	v, ok := decimal.Parse(text, scale)
	if !ok {
		panic("fusetest: bad decimal literal " + text)
	}
	return &expr.Literal{Value: v, T: t, Text: text}
}

// Builder binds calls, remembering the first error.
type Builder struct{ Err error }

// Call binds a registered function.
func (b *Builder) Call(name string, args ...expr.Expr) expr.Expr {
	if b.Err != nil {
		return &expr.Literal{T: coldata.Null}
	}
	f, ok := expr.Lookup(name)
	if !ok {
		b.Err = fmt.Errorf("no function %s", name)
		return &expr.Literal{T: coldata.Null}
	}
	e, err := expr.NewCall(f, args)
	if err != nil {
		b.Err = err
		return &expr.Literal{T: coldata.Null}
	}
	return e
}

// Redact is DESIGN.md's benchmark expression over (name, visibility).
func (b *Builder) Redact(name, vis expr.Expr) expr.Expr {
	return b.Call("case",
		b.Call("=", vis, Lit("public")),
		b.Call("concat",
			b.Call("left", b.Call("split_part", name, Lit(" "), Lit(2)), Lit(1)),
			Lit(" "),
			b.Call("split_part", name, Lit(" "), Lit(1))),
		Lit("X X"))
}

// Cases are output lists covering every function the generator knows.
func (b *Builder) Cases() [][]expr.Expr {
	s, n, v, x, f, bo := Col(Name), Col(S), Col(Vis), Col(A), Col(F), Col(B)
	c := b.Call
	return [][]expr.Expr{
		{b.Redact(s, v)},
		{c("length", s), c("char_length", s), c("upper", s), c("lower", s), c("ascii", s), c("strcmp", s, n)},
		{c("substring", s, x), c("substring", s, x, Lit(3)), c("substring", s, Lit(-3), x), c("left", s, x), c("right", s, x)},
		{c("split_part", s, n, x), c("split_part", s, Lit(" "), Lit(-1)), c("substring_index", s, n, x), c("substring_index", s, Lit(" "), Lit(-1)),
			// A self-overlapping delimiter, counted from either end.
			c("substring_index", c("repeat", Lit("a"), c("abs", x)), Lit("aa"), Lit(-1)), c("substring_index", c("repeat", Lit("a"), c("abs", x)), Lit("aa"), c("%", x, Lit(5)))},
		{c("locate", n, s), c("locate", n, s, x), c("instr", s, n), c("replace", s, n, Lit("<>")), c("replace", s, Lit(" "), Lit("")),
			c("replace", s, n, Lit(nil)), c("replace", s, Lit("o"), c("nullif", n, Lit("a")))},
		{c("trim", s), c("ltrim", s, n), c("rtrim", s, n), c("trim", c("concat", Lit("  "), s, Lit("  ")))},
		{c("lpad", s, x, n), c("rpad", s, x, Lit("ab")), c("reverse", s), c("repeat", n, x), c("space", x)},
		{c("starts_with", s, n), c("ends_with", s, n), c("contains", s, n), c("like", s, n), c("like", s, Lit("J%")), c("like", s, Lit("%a_e%")), c("like", s, Lit("%o%"))},
		{c("concat", s, Lit("-"), v), c("concat_ws", Lit(", "), s, v, n), c("concat_ws", n, s, v)},
		{c("+", x, Lit(3)), c("-", x, x), c("*", x, Lit(7)), c("/", x, Lit(4)), c("div", x, Lit(3)), c("%", x, Lit(3)), c("+", f, x), c("neg", x), c("%", f, Lit(2.5))},
		{c("and", bo, c(">", x, Lit(0))), c("or", bo, c("is_null", x)), c("not", bo), c("xor", bo, c("<", f, Lit(0.0))), c("in", x, Lit(1), Lit(2), Lit(nil)), c("<=>", s, n),
			// A NULL left side is NULL even where its value (0 here)
			// equals an item of a list that is not constant.
			c("in", c("if", bo, Lit(nil), x), c("-", x, x), c("+", x, Lit(1)))},
		{c("=", s, n), c("<>", s, v), c("<", s, n), c(">=", x, Lit(3)), c("<=", f, Lit(1.5)), c("is_not_null", s), c("is_true", bo), c("is_not_false", bo)},
		{c("if", bo, s, v), c("ifnull", s, v), c("coalesce", s, n, Lit("none")), c("nullif", s, v), c("case", c(">", x, Lit(5)), x, c("<", x, Lit(-5)), Lit(-1))},
		{c("cast_to_double", x), c("cast_to_bigint", f), c("cast_to_boolean", x), c("cast_to_bigint", bo)},
		{c("cast_to_bigint", s), c("cast_to_bigint", n), c("cast_to_double", n), c("cast_to_boolean", n), c("cast_to_varchar", x), c("cast_to_varchar", bo),
			c("concat", s, x), c("=", n, x), c("+", n, Lit(1)), c("if", Lit(nil), Lit(nil), Lit(nil)), c("ifnull", Lit(nil), Lit(nil))},
		{c("upper", c("concat", s, n)), c("substring", c("upper", s), Lit(2), Lit(3)), c("length", c("lower", s)), c("concat", c("upper", s), Lit("!"))},
		// Numbers: f holds multiples of 1/8 (exact short decimals, ties at
		// every scale), x small integers.
		{c("abs", x), c("abs", f), c("sign", x), c("sign", f), c("floor", f), c("ceil", f), c("floor", x), c("ceil", x),
			c("sqrt", f), c("pi"), c("div", f, Lit(0.75)), c("div", f, c("neg", f)),
			// a*b+c rounds twice on the CPU: kernels must not fuse it.
			c("+", c("*", f, Lit(0.1)), Lit(0.3)), c("-", c("*", f, f), c("/", f, Lit(3.0))),
			c("exp", f), c("exp", c("/", f, Lit(7.0))), c("ln", f), c("log10", f), c("ln", c("*", f, Lit(1e300))), c("exp", c("*", f, Lit(10.0))),
			c("power", f, Lit(2.0)), c("power", f, Lit(0.5)), c("power", f, c("/", f, Lit(5.0))), c("power", f, c("cast_to_double", x)), c("power", Lit(10.0), c("cast_to_double", x)),
			c("power", Lit(-2.0), c("cast_to_double", x)), c("power", c("*", f, Lit(1e100)), Lit(4.0))},
		{c("round", f), c("round", f, Lit(1)), c("round", f, Lit(2)), c("round", f, Lit(-1)), c("round", f, Lit(-3)), c("round", f, x),
			c("truncate", f, Lit(1)), c("truncate", f, Lit(0)), c("truncate", f, Lit(-2)), c("truncate", f, x),
			c("round", x, Lit(-1)), c("round", x, Lit(-19)), c("truncate", x, Lit(-1)), c("round", x, x), c("round", x)},
		{c("greatest", x, Lit(3), c("neg", x)), c("least", x, Lit(3)), c("greatest", f, Lit(1.5), Lit(nil)), c("least", f, c("neg", f)),
			c("greatest", s, n, v), c("least", s, Lit("K"))},
	}
}

// DateCases are output lists over the DATE, TIMESTAMP and date-text
// columns: every date function, casts both ways, comparisons and the
// transparent functions over dates.
func (b *Builder) DateCases() [][]expr.Expr {
	d, ts, ds, x := Col(D), Col(TS), Col(DS), Col(A)
	c := b.Call
	var fields []expr.Expr
	for _, fn := range []string{"year", "month", "day", "quarter", "hour", "minute", "second", "microsecond", "dayofweek", "weekday", "dayofyear", "week"} {
		fields = append(fields, c(fn, d), c(fn, ts))
	}
	var units []expr.Expr
	for _, u := range []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond", "dow", "isodow", "doy", "epoch", "decade", "century", "millennium"} {
		units = append(units, c("extract", Lit(u), ts), c("extract", Lit(u), d))
	}
	var truncs []expr.Expr
	for _, u := range []string{"microsecond", "millisecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade", "century", "millennium"} {
		truncs = append(truncs, c("date_trunc", Lit(u), ts), c("date_trunc", Lit(u), d))
	}
	for _, u := range []string{"year_month", "day_hour", "day_minute", "day_second", "day_microsecond", "hour_minute",
		"hour_second", "hour_microsecond", "minute_second", "minute_microsecond", "second_microsecond"} {
		units = append(units, c("extract", Lit(u), ts), c("extract", Lit(u), d))
	}
	var diffs []expr.Expr
	for _, u := range []string{"microsecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year"} {
		diffs = append(diffs, c("timestampdiff", Lit(u), ts, c("cast_to_timestamp", d)), c("timestampdiff", Lit(u), c("cast_to_timestamp", d), ts))
	}
	return [][]expr.Expr{
		fields,
		units[:len(units)/2],
		units[len(units)/2:],
		truncs,
		diffs,
		{c("to_days", d), c("from_days", c("+", c("to_days", d), x)), c("from_days", c("*", x, Lit(100000))), c("makedate", c("%", x, Lit(120)), x),
			c("makedate", c("year", d), c("*", x, Lit(1000))), c("week", d, x), c("week", ts, Lit(5)), c("yearweek", d, x), c("yearweek", d),
			c("weekofyear", d)},
		b.TimeCases(),
		b.TimeFormatCases(),
		b.TrailingTextCases(),
		b.TZCases(),
		b.IntervalCases(),
		{c("last_day", d), c("datediff", d, c("cast_to_date", ts)), c("week", d, Lit(3)), c("week", ts, Lit(0)),
			c("dayname", d), c("monthname", d), c("unix_timestamp", ts), c("from_unixtime", c("*", x, Lit(100000000))),
			c("date_format", ts, Lit("%W %D %M %Y %H:%i:%s.%f %p %r %T %j %U %u %V %v %X %a %b %c %e %k %l %w %y %% %x")),
			c("date_format", c("cast_to_timestamp", d), Lit("%Y-%m-%d")), c("date_format", ts, c("if", c(">", x, Lit(0)), Lit("%H"), Lit("%D")))},
		{c("str_to_date", c("date_format", ts, Lit("%d/%m/%Y %H:%i:%s")), Lit("%d/%m/%Y %H:%i:%s")),
			c("str_to_date", c("date_format", ts, Lit("%W %M %e, %Y %r")), Lit("%W %M %e, %Y %r")),
			c("str_to_date", c("date_format", ts, Lit("%a %b %y %j %h%p %f")), Lit("%a %b %y %j %h%p %f")),
			c("str_to_date", ds, Lit("%Y-%m-%d")), c("str_to_date", ds, Lit("%Y/%c/%e %H:%i:%s.%f")), c("str_to_date", ds, Lit("%Y%m%d")),
			c("str_to_date", Lit("May 1, 2013"), Lit("%M %d,%Y")), c("str_to_date", ds, c("if", c(">", x, Lit(0)), Lit("%Y-%m-%d"), Lit("%Y%m%d"))),
			c("str_to_date", c("date_format", ts, Lit("%D of %M %Y %T")), Lit("%D of %M %Y %T")), c("str_to_date", ds, Lit("%Y%.%m%.%d %H")),
			c("str_to_date", c("date_format", ts, Lit("%m/%d/%Y %r x")), Lit("%m/%d/%Y %r")), c("str_to_date", ds, Lit("%Y%#%m%@%d")),
			c("str_to_date", ds, Lit("%Y-%m")), c("str_to_date", ds, Lit("%Y %j")), c("str_to_date", c("date_format", ts, Lit("%H:%i")), Lit("%H:%i"))},
		{c("date_add_days", d, x), c("date_add_days", ts, c("*", x, Lit(1000000))), c("date_add_months", d, c("*", x, Lit(7))),
			c("date_add_months", ts, c("*", x, Lit(600))), c("date_add_micros", ts, c("*", x, Lit(3600000000))), c("date_add_micros", c("cast_to_timestamp", d), x)},
		{c("cast_to_varchar", d), c("cast_to_varchar", ts), c("cast_to_bigint", d), c("cast_to_bigint", ts), c("cast_to_double", d), c("cast_to_boolean", ts),
			c("cast_to_date", ts), c("cast_to_timestamp", d), c("cast_to_date", ds), c("cast_to_timestamp", ds),
			c("cast_to_date", c("+", c("*", x, Lit(10000)), Lit(20240101))), c("cast_to_timestamp", c("cast_to_double", c("+", x, Lit(20240115)))),
			c("concat", c("cast_to_varchar", d), Lit(" / "), c("cast_to_varchar", ts))},
		// MySQL's number forms YYMMDD and YYMMDDhhmmss around their
		// boundaries (691231, 700101, 991231235959), and six digits of text.
		{c("cast_to_date", c("+", c("*", x, Lit(101)), Lit(240105))), c("cast_to_date", c("+", x, Lit(691231))), c("cast_to_date", c("+", x, Lit(700101))),
			c("cast_to_timestamp", c("+", x, Lit(991231235959))), c("cast_to_timestamp", c("+", c("*", x, Lit(1000001)), Lit(240105103000))),
			c("cast_to_date", c("+", x, Lit(10000101))), c("cast_to_date", c("abs", x)),
			c("cast_to_date", c("cast_to_varchar", c("+", c("*", x, Lit(101)), Lit(240105)))), c("cast_to_timestamp", c("concat", Lit("99"), c("cast_to_varchar", c("+", c("abs", x), Lit(1000))))),
			// Twelve and fourteen digits of text, with a fraction, a 'Z' or trailing text.
			c("cast_to_timestamp", c("date_format", ts, Lit("%Y%m%d%H%i%s"))), c("cast_to_timestamp", c("date_format", ts, Lit("%y%m%d%H%i%s.%f"))),
			c("cast_to_date", c("date_format", ts, Lit("%Y%m%d%H%i%sZ"))), c("cast_to_timestamp", c("date_format", ts, Lit("%Y%m%d%H%i%s x"))),
			c("time_to_sec", c("date_format", ts, Lit("%y%m%d%H%i%s"))), c("cast_to_timestamp", c("cast_to_varchar", c("+", c("*", x, Lit(1000001)), Lit(20240105103000)))),
			// Digits alone of 5, 7, 9, 10 and 11 (MySQL 8 reads YY MM DD hh
			// mm ss left to right, the last field short): valid and not.
			c("cast_to_date", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(12)), Lit(24010)))), c("cast_to_timestamp", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(200)), Lit(2401050)))),
			c("cast_to_date", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(9)), Lit(2024011)))), c("cast_to_timestamp", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(1000)), Lit(240105000)))),
			c("cast_to_timestamp", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(10000)), Lit(2401050000)))), c("cast_to_timestamp", c("concat", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(100000)), Lit(24010500000))), Lit("x"))),
			// ...but a TIME where a TIME is read (fewer than 12 digits).
			c("addtime", c("cast_to_varchar", c("+", c("abs", x), Lit(240105103))), Lit("00:00:01"))},
		{c("=", d, c("cast_to_date", ts)), c("<", d, ds), c(">=", ts, d), c("<=>", d, d), c("in", d, ds, Lit("2024-01-05")),
			c("coalesce", d, c("cast_to_date", ds), c("cast_to_date", Lit("2000-01-01"))), c("greatest", ts, c("cast_to_timestamp", d)),
			c("least", d, c("cast_to_date", ds)), c("nullif", d, c("cast_to_date", ts)), c("if", c(">", x, Lit(0)), d, c("cast_to_date", ds)),
			c("case", c("is_null", d), ts, c("cast_to_timestamp", d)), c("is_null", ts), c("ifnull", ts, c("cast_to_timestamp", ds)),
			// A comparison reads text that is no date ('abc', '',
			// '2023-02-29') as the zero date, below every date, and not
			// as NULL (expr/cmpdate.go).
			c(expr.CmpTimestampName, ds), c("<=>", ts, ds), c(">", ds, d), c("<>", c("concat", ds, Lit("")), ts),
			c("in", ts, ds, c("cast_to_varchar", d)), c("<=>", d, c("if", c(">", x, Lit(0)), ds, Lit(nil)))},
		{d, ts},
	}
}

// TimeCases are MySQL's TIME functions and periods over the columns: TIME
// text (DS), timestamps, seconds (F) and fields out of range.
func (b *Builder) TimeCases() []expr.Expr {
	d, ts, ds, x, f := Col(D), Col(TS), Col(DS), Col(A), Col(F)
	c := b.Call
	// A valid period: years 2000..2040, months 1..12; and a two-digit one
	// around the 69/70 century switch.
	p := c("+", c("*", c("+", x, Lit(2020)), Lit(100)), c("+", c("%", c("+", x, Lit(20)), Lit(12)), Lit(1)))
	p2 := c("+", c("*", c("+", x, Lit(50)), Lit(100)), Lit(7))
	return []expr.Expr{
		c("maketime", c("*", x, Lit(50)), c("+", x, Lit(45)), c("/", f, Lit(2.0))), c("maketime", c("*", x, Lit(100000)), Lit(0), Lit(0)),
		c("maketime", x, Lit(59), Lit(59.9999995)), c("sec_to_time", f), c("sec_to_time", c("*", f, Lit(100000.0))),
		c("sec_to_time", c("*", f, Lit(1e10))), c("sec_to_time", c("/", f, Lit(1e7))),
		c("time_to_sec", ds), c("time_to_sec", ts), c("time_to_sec", c("sec_to_time", c("*", f, Lit(997.0)))),
		// Digits alone, fewer than 12, are a TIME even where they would
		// read as YYMMDDh... (datetime.parseDateTime).
		c("time_to_sec", c("cast_to_varchar", c("+", c("%", c("abs", x), Lit(100000)), Lit(1010100)))),
		c("addtime", ts, ds), c("subtime", ts, ds), c("addtime", ds, ds), c("subtime", ds, c("sec_to_time", c("*", f, Lit(1001.0)))),
		c("addtime", ds, Lit("1 1:1:1.000002")), c("addtime", ts, ts), c("addtime", c("cast_to_timestamp", d), Lit("-01:00:00")),
		c("subtime", c("cast_to_timestamp", d), ds), c("addtime", Lit("9999-12-31 23:00:00"), ds),
		c("timediff", ds, c("sec_to_time", f)), c("timediff", ts, ds), c("timediff", ts, c("cast_to_timestamp", d)),
		c("timediff", ds, Lit("2024-01-05 09:00:00")), c("timediff", c("cast_to_varchar", ts), c("cast_to_varchar", d)),
		c("period_add", p, x), c("period_add", p2, c("*", x, Lit(7))), c("period_add", p, c("*", x, Lit(10000))),
		c("period_diff", p, p2), c("period_diff", p2, Lit(2402)),
	}
}

// TimeFormatCases are TIME_FORMAT of TIME text, of TIMEs past 24 hours
// and negative, of timestamps, with literal and per-row formats; and
// str_to_dayclock (STR_TO_DATE of a day and times, day 0 included).
func (b *Builder) TimeFormatCases() []expr.Expr {
	d, ts, ds, x, f := Col(D), Col(TS), Col(DS), Col(A), Col(F)
	c := b.Call
	day := c("cast_to_varchar", c("%", c("abs", x), Lit(34)))
	return []expr.Expr{
		c("time_format", ds, Lit("%H %k %h %I %l %i %s %S %f %p %r %T %Y-%m-%d %c %e %y %% %q")),
		c("time_format", c("sec_to_time", c("*", f, Lit(100000.0))), Lit("%H|%k|%h|%l|%p|%r|%T|%f")), c("time_format", ts, Lit("%r %f")),
		c("time_format", c("cast_to_timestamp", d), Lit("%T")), c("time_format", ds, c("if", c(">", x, Lit(0)), Lit("%H:%i"), Lit("%M"))),
		c("time_format", ds, c("if", c(">", x, Lit(0)), Lit(""), Lit("%%%"))), c("time_format", ds, Lit("%j")),
		c("str_to_dayclock", c("concat", day, Lit(" "), c("date_format", ts, Lit("%H:%i:%s.%f"))), Lit("%d %T.%f")),
		c("str_to_dayclock", c("concat", day, Lit(" "), c("date_format", ts, Lit("%h %p"))), Lit("%e %h %p")),
		c("str_to_dayclock", c("concat", c("date_format", ts, Lit("%H")), Lit(" "), day, Lit("th")), Lit("%H %D")),
		c("str_to_dayclock", ds, Lit("%d %H")),
		c("cast_to_time", ds, Lit(0)), c("cast_to_time", ds, Lit(3)), c("cast_to_time", ts, Lit(6)),
		c("cast_to_time", c("sec_to_time", c("*", f, Lit(100000.0))), Lit(1)), c("cast_to_time", c("*", x, Lit(1013)), Lit(0)),
		c("time_literal", Lit("-1 2:3:4.50")),
		// TIME(ts) of a TIMESTAMP without (n): its text read back with
		// the digits each value has (planner timeFunc).
		c("time_literal", c("cast_to_varchar", ts)), c("cast_to_time", c("cast_to_varchar", ts), Lit(6)),
	}
}

// TrailingTextCases convert text with trailing characters to dates and
// timestamps (the prefix is the value, as in MySQL) and compare dates
// with such text; text that goes on with digits stays NULL.
func (b *Builder) TrailingTextCases() []expr.Expr {
	d, ts, ds, x := Col(D), Col(TS), Col(DS), Col(A)
	c := b.Call
	tail := c("if", c(">", x, Lit(0)), Lit("x"), c("if", c("<", x, Lit(-3)), Lit(" 12"), Lit(" -- abc")))
	dt := c("concat", c("cast_to_varchar", ts), tail)
	return []expr.Expr{
		c("cast_to_date", c("concat", ds, tail)), c("cast_to_timestamp", c("concat", ds, tail)), c("cast_to_date", dt), c("cast_to_timestamp", dt),
		c("cast_to_timestamp", c("concat", c("date_format", ts, Lit("%Y%m%d")), tail)), c("cast_to_timestamp", c("concat", Lit("  "), dt)),
		c("=", d, c("concat", c("cast_to_varchar", d), tail)), c("<", ts, dt), c("=", c("cast_to_timestamp", d), c("concat", c("cast_to_varchar", d), Lit("T"))),
		c("cast_to_timestamp", c("concat", c("date_format", ts, Lit("%Y-%m-%d %H:%i:%s.%f")), tail)), c("cast_to_date", Lit("2024-02-29 12:00:00Zx")),
	}
}

// TZCases are CONVERT_TZ over offsets made from a column (valid, out of
// range, malformed), SYSTEM as a fixed offset, names that are no zone and
// zone text read from DS; timestamps inside and outside TIMESTAMP's
// range.
func (b *Builder) TZCases() []expr.Expr {
	d, ts, ds, x := Col(D), Col(TS), Col(DS), Col(A)
	c := b.Call
	sign := c("if", c(">", x, Lit(0)), Lit("+"), Lit("-"))
	hours := c("cast_to_varchar", c("%", c("abs", x), Lit(16)))
	mins := c("cast_to_varchar", c("%", c("abs", c("*", x, Lit(7))), Lit(62)))
	off := c("concat", sign, hours, Lit(":"), mins)
	return []expr.Expr{
		c("convert_tz", ts, Lit("+00:00"), off, Lit(0)), c("convert_tz", ts, off, Lit("-05:30"), Lit(0)),
		c("convert_tz", c("cast_to_timestamp", d), off, off, Lit(3600)), c("convert_tz", ts, Lit("SYSTEM"), off, Lit(19800)),
		c("convert_tz", ts, off, Lit("system"), Lit(-3600)), c("convert_tz", ts, ds, Lit("+01:00"), Lit(0)),
		c("convert_tz", ts, Lit("UTC"), Lit("+01:00"), Lit(0)), c("convert_tz", ts, Lit("+1:"), Lit("+01:00"), Lit(0)),
		c("convert_tz", c("cast_to_timestamp", ds), Lit("+14:00"), Lit("-13:59"), Lit(0)),
	}
}

// IntervalCases are composite INTERVALs (date_add_interval) with text
// read from a column (DS) and from numbers, for each unit, both signs.
func (b *Builder) IntervalCases() []expr.Expr {
	d, ts, ds, x := Col(D), Col(TS), Col(DS), Col(A)
	c := b.Call
	var out []expr.Expr
	for i, u := range []string{"year_month", "day_hour", "day_minute", "day_second", "day_microsecond", "hour_minute",
		"hour_second", "hour_microsecond", "minute_second", "minute_microsecond", "second_microsecond"} {
		if i%2 == 1 {
			u = "-" + u
		}
		out = append(out, c("date_add_interval", ts, ds, Lit(u)))
	}
	return append(out, c("date_add_interval", d, ds, Lit("year_month")), c("date_add_interval", d, ds, Lit("-year_month")),
		c("date_add_interval", ts, c("cast_to_varchar", c("*", x, Lit(100000))), Lit("year_month")),
		c("date_add_interval", ts, c("concat", c("cast_to_varchar", x), Lit(" "), c("cast_to_varchar", c("*", x, Lit(99999)))), Lit("day_hour")),
		c("date_add_interval", c("cast_to_timestamp", d), Lit("1 2"), Lit("-day_hour")))
}

// Filters are predicates for compaction tests.
func (b *Builder) Filters() []expr.Expr {
	return []expr.Expr{
		b.Call("and", b.Call("=", Col(Vis), Lit("public")), b.Call(">", Col(A), Lit(0))),
		b.Call("like", Col(Name), Lit("%o%")),
		b.Call("is_null", Col(F)),
	}
}

var firsts = []string{"John", "Jane", "Émile", "Zoë", "李", "Ann-Marie", "O'Neil", "", "a b", "😀"}
var lasts = []string{"Smith", "Doe", "Zola", "García", "明", "Lee", "x", "Ünal"}

// Batch makes n random rows: names with spaces, multibyte text, empty and
// invalid UTF-8 strings, long strings, NULLs in every column.
func Batch(n int, seed int64) *coldata.Batch {
	r := rand.New(rand.NewSource(seed))
	name, vis, s := coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.String, n)
	a, f, bo := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n), coldata.NewBuilder(coldata.Bool, n)
	for i := 0; i < n; i++ {
		switch r.Intn(12) {
		case 0:
			name.AppendNull()
		case 1:
			name.AppendString(firsts[r.Intn(len(firsts))])
		case 2:
			name.AppendString(strings.Repeat("ab ", r.Intn(40)))
		case 3:
			name.AppendBytes([]byte{0xff, 'x', ' ', 0xc3})
		default:
			name.AppendString(firsts[r.Intn(len(firsts))] + " " + lasts[r.Intn(len(lasts))])
		}
		switch r.Intn(10) {
		case 0:
			vis.AppendNull()
		case 1, 2, 3, 4:
			vis.AppendString("public")
		default:
			vis.AppendString("private")
		}
		if r.Intn(10) == 0 {
			a.AppendNull()
		} else {
			a.AppendInt(int64(r.Intn(41) - 20))
		}
		if r.Intn(10) == 0 {
			f.AppendNull()
		} else {
			f.AppendFloat(float64(r.Intn(2001)-1000) / 8)
		}
		if r.Intn(10) == 0 {
			bo.AppendNull()
		} else {
			bo.AppendBool(r.Intn(2) == 0)
		}
		if r.Intn(10) == 0 {
			s.AppendNull()
		} else {
			s.AppendString([]string{"", "a", "%", "a%", "%b", "_", " ", ".", "ab", "é", "a.b.c", "--"}[r.Intn(12)])
		}
	}
	d, ts, ds := dateColumns(r, n)
	dec, big := decimalColumns(r, n)
	return &coldata.Batch{Cols: []*coldata.Vec{name.Finish(), vis.Finish(), a.Finish(), f.Finish(), bo.Finish(), s.Finish(), d, ts, ds, dec, big}, Len: n}
}

// decimalColumns makes the DEC and BIG columns: small values with ties at
// every rounding digit, values at the edge of DECIMAL(12,2), zero, NULLs,
// and for BIG values over 64 bits.
func decimalColumns(r *rand.Rand, n int) (dec, big *coldata.Vec) {
	db, bb := coldata.NewBuilder(DecType, n), coldata.NewBuilder(BigType, n)
	for i := 0; i < n; i++ {
		var x int64
		switch r.Intn(6) {
		case 0:
			x = []int64{0, 1, -1, 5, -5, 15, 25, -25, 99999999999, -99999999999, 50, 150}[r.Intn(12)]
		case 1:
			x = r.Int63n(199999999999) - 99999999999
		default:
			x = r.Int63n(200001) - 100000
		}
		if r.Intn(10) == 0 {
			db.AppendNull()
		} else {
			db.AppendDec(decimal.FromInt64(x))
		}
		if r.Intn(10) == 0 {
			bb.AppendNull()
			continue
		}
		y := decimal.FromInt64(r.Int63n(2000001) - 1000000)
		if r.Intn(3) == 0 {
			// Up to about 10^31 (25 integer digits beside the 6 of scale).
			y, _ = y.Mul(decimal.Pow10(19 + r.Intn(12)))
			y, _ = y.Add(decimal.FromInt64(r.Int63()))
		}
		bb.AppendDec(y)
	}
	return db.Finish(), bb.Finish()
}

// DecimalCases are output lists over the DEC and BIG columns: arithmetic
// with MySQL's result types, comparisons, conversions both ways and the
// rounding functions.
func (b *Builder) DecimalCases() [][]expr.Expr {
	d, big, x, f, s, ds := Col(DEC), Col(BIG), Col(A), Col(F), Col(S), Col(DS)
	c := b.Call
	return [][]expr.Expr{
		{d, big, c("+", d, d), c("-", d, Lit(1)), c("*", d, d), c("/", d, Lit(3)), c("%", d, Lit(7)), c("neg", d), c("/", d, x), c("%", d, x),
			c("*", d, DecLit("0.05")), c("-", DecLit("1"), c("*", d, DecLit("0.01"))),
			c("div", d, Lit(3)), c("div", d, big), c("div", d, DecLit("0.3")), c("div", x, DecLit("2.5"))},
		{c("+", big, big), c("-", big, d), c("*", big, Lit(3)), c("/", d, DecLit("7.5")), c("%", big, d), c("neg", big), c("/", Lit(1), big)},
		{c(">", d, Lit(150)), c("=", d, DecLit("1.50")), c("<", big, d), c(">=", d, x), c("in", d, DecLit("0.05"), DecLit("0.25"), Lit(1)),
			c("<=>", d, big), c("and", c(">=", d, DecLit("-0.05")), c("<=", d, DecLit("0.25"))), c("<", d, f)},
		{c("cast_to_double", d), c("cast_to_bigint", d), c("cast_to_boolean", d), c("cast_to_varchar", d), c("cast_to_varchar", big),
			c("concat", d, Lit(" | "), big), c("length", d)},
		{b.Cast(x, coldata.DecimalOf(5, 1)), b.Cast(f, coldata.DecimalOf(10, 3)), b.Cast(d, coldata.DecimalOf(14, 1)), b.Cast(d, coldata.DecimalOf(20, 4)),
			b.Cast(s, coldata.DecimalOf(6, 2)), b.Cast(ds, coldata.DecimalOf(10, 2)), b.Cast(Col(B), coldata.DecimalOf(3, 0)),
			b.Cast(Lit(" -12.345x"), coldata.DecimalOf(6, 2)), b.Cast(Lit("+.5"), coldata.DecimalOf(3, 1))},
		{c("abs", d), c("abs", big), c("sign", d), c("sign", big), c("round", d), c("round", d, Lit(1)), c("round", d, Lit(-2)), c("round", big, Lit(3)),
			c("truncate", d, Lit(1)), c("truncate", big, Lit(-3)), c("floor", d), c("ceil", d), c("floor", big), c("ceil", big), c("round", d, x)},
		// MySQL's exact values (issue 38): integer division and decimal
		// literals are DECIMAL, ROUND/TRUNCATE keep D digits of scale, and a
		// quotient computed wide is rounded to its declared type (the
		// binder's form of 1/3*3); their text.
		{c("/", x, Lit(7)), c("/", Lit(1), x), c("+", d, DecLit("0.1")), c("*", d, DecLit("1.1")), c("cast_to_varchar", c("/", d, Lit(3))),
			c("concat", c("/", x, Lit(3)), Lit("|")), c("round", c("/", x, Lit(3)), Lit(6)), c("truncate", d, Lit(5)), c("round", DecLit("2.5"), Lit(3)),
			b.Cast(c("*", c("/", b.Cast(x, coldata.DecimalOf(28, 5)), Lit(3)), Lit(3)), coldata.DecimalOf(24, 4))},
		{c("greatest", d, Lit(1), DecLit("0.5")), c("least", d, big), c("coalesce", d, Lit(0)), c("ifnull", big, d), c("if", Col(B), d, big),
			c("nullif", d, Lit(0)), c("nullif", d, big), c("nullif", d, Lit(2.5)), c("case", c(">", d, Lit(0)), d, c("neg", d)),
			c("case", c(">", d, Lit(0)), d), c("case", Col(B), big)},
	}
}

// FspCases are output lists over DATETIME(n): casts to each precision
// (rounding half up, across midnight and the year's end), from DATE and
// text, and the text of the results with exactly n digits.
func (b *Builder) FspCases() [][]expr.Expr {
	d, ts, ds := Col(D), Col(TS), Col(DS)
	c := b.Call
	var casts, texts []expr.Expr
	for fsp := 0; fsp <= 6; fsp++ {
		t := coldata.TimestampOf(fsp)
		casts = append(casts, b.Cast(ts, t))
		texts = append(texts, c("cast_to_varchar", b.Cast(ts, t)))
	}
	return [][]expr.Expr{casts, texts,
		{b.Cast(d, coldata.TimestampOf(6)), c("cast_to_varchar", b.Cast(d, coldata.TimestampOf(3))), b.Cast(ds, coldata.TimestampOf(1)),
			c("concat", b.Cast(ds, coldata.TimestampOf(0)), Lit("|")), c("hour", b.Cast(ts, coldata.TimestampOf(0))),
			b.Cast(b.Cast(ts, coldata.TimestampOf(2)), coldata.Date)},
	}
}

// Cast binds CAST(e AS t).
func (b *Builder) Cast(e expr.Expr, t coldata.Type) expr.Expr {
	if b.Err != nil {
		return &expr.Literal{T: coldata.Null}
	}
	out, err := expr.CastTo(e, t)
	if err != nil {
		b.Err = err
		return &expr.Literal{T: coldata.Null}
	}
	return out
}

// dateColumns makes the D, TS and DS columns: dates and timestamps over
// the whole range with most near 2024 (month ends, leap days, negative
// day numbers, fractions of seconds), and date-like text.
func dateColumns(r *rand.Rand, n int) (d, ts, ds *coldata.Vec) {
	db, tb, sb := coldata.NewBuilder(coldata.Date, n), coldata.NewBuilder(coldata.Timestamp, n), coldata.NewBuilder(coldata.String, n)
	lo, hi := datetime.MinDays, datetime.MaxDays
	texts := []string{"2024-01-05", " 2024-2-29 ", "2023-02-29", "2024-13-01", "20240105", "2024/12/31 23:59:59.5",
		"2024-01-05T10:30:00Z", "1969-12-31 23:59:59.999999", "abc", "", "0001-01-01", "9999-12-31 23:59:59",
		"2024-01-05 24:00:00", "2024-01-05 10:30", "\t2024-03-01\v", "2024-01-05x", "2024-01-05 10:30:00.",
		// TIME text and composite INTERVAL text (issue 38's TIME
		// functions and date_add_interval read these). Long digit runs
		// follow other text, so that a cast of the column to
		// DECIMAL(10,2) (DecimalCases) stays in range.
		"10:30:00", "-01:02:03.5", "838:59:59", "900:00:00", "1 10:00:00", "103000", "10:61:00", "-1 01:00:00",
		"34 23:59:59.999999", "35 00:00:00", "1.5", "1:2.5", "1 2", "1-2", "  1 : 2", "-1 2", "x99999999999999999999",
		"1 1:1:1.000002", "1,2", "12345678", "34 999999999999:00:00", "10:00:00.", "-", "1 2 3 4 5 6", "00:00:00.0000005"}
	for i := 0; i < n; i++ {
		var z int64
		switch r.Intn(8) {
		case 0:
			z = lo + r.Int63n(hi-lo+1)
		case 1:
			// Month ends and leap days around today.
			y := int64(1996 + r.Intn(40))
			m := int64(1 + r.Intn(12))
			z = datetime.DaysFromCivil(y, m, datetime.DaysInMonth(y, m))
		case 2:
			z = []int64{lo, hi, 0, -1, datetime.DaysFromCivil(1900, 2, 28), datetime.DaysFromCivil(2000, 2, 29)}[r.Intn(6)]
		default:
			z = datetime.DaysFromCivil(2024, 1, 1) + int64(r.Intn(1200)-600)
		}
		if r.Intn(10) == 0 {
			db.AppendNull()
		} else {
			db.AppendInt(z)
		}
		us := r.Int63n(datetime.MicrosPerDay)
		if r.Intn(3) == 0 {
			us = us / datetime.MicrosPerSecond * datetime.MicrosPerSecond
		}
		if r.Intn(10) == 0 {
			tb.AppendNull()
		} else {
			tb.AppendInt(z*datetime.MicrosPerDay + us)
		}
		if r.Intn(10) == 0 {
			sb.AppendNull()
		} else {
			sb.AppendString(texts[r.Intn(len(texts))])
		}
	}
	return db.Finish(), tb.Finish(), sb.Finish()
}

// Reference evaluates filter (may be nil) and outputs with the CPU kernels.
func Reference(b *coldata.Batch, filter expr.Expr, outputs []expr.Expr) ([]*coldata.Vec, error) {
	if filter != nil {
		m, err := expr.Eval(filter, b)
		if err != nil {
			return nil, err
		}
		var sel []int
		for i := 0; i < b.Len; i++ {
			if !m.IsNull(i) && m.Bool(i) {
				sel = append(sel, i)
			}
		}
		b = coldata.GatherBatch(b, sel)
	}
	out := make([]*coldata.Vec, len(outputs))
	for j, e := range outputs {
		v, err := expr.Eval(e, b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		out[j] = v
	}
	return out, nil
}

// Compare checks generated outputs against the reference, value by value.
func Compare(outputs []expr.Expr, got, want []*coldata.Vec) error {
	for j := range want {
		w, g := want[j], got[j]
		if g.Len != w.Len {
			return fmt.Errorf("%s: %d rows, want %d", outputs[j], g.Len, w.Len)
		}
		for i := 0; i < w.Len; i++ {
			gv, wv := g.Value(i), w.Value(i)
			if gf, ok := gv.(float64); ok {
				if wf, ok := wv.(float64); ok && (gf == wf || (math.IsNaN(gf) && math.IsNaN(wf))) {
					continue
				}
			}
			if gv != wv {
				return fmt.Errorf("%s row %d: got %#v, CPU %#v", outputs[j], i, gv, wv)
			}
		}
	}
	return nil
}

// LongBatch is Batch with long names: 40 to 400 bytes of mixed ASCII and
// multibyte words, and one row in 1000 over 64 KiB — the rows that must
// not serialise a warp.
func LongBatch(n int, seed int64) *coldata.Batch {
	b := Batch(n, seed)
	r := rand.New(rand.NewSource(seed + 1))
	words := []string{"alpha", "βeta", "gamma", "日本語", "delta", "épée", "x"}
	name := coldata.NewBuilder(coldata.String, n)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if r.Intn(20) == 0 {
			name.AppendNull()
			continue
		}
		sb.Reset()
		target := 40 + r.Intn(360)
		if r.Intn(1000) == 0 {
			target = 70_000
		}
		// One row in ten carries bytes that case mapping treats specially:
		// runes whose mapping changes width (ı -> I, ſ -> S, Kelvin sign
		// -> k) and invalid sequences between ASCII letters.
		specials := r.Intn(10) == 0
		for sb.Len() < target {
			if specials && r.Intn(8) == 0 {
				sb.WriteString(longSpecials[r.Intn(len(longSpecials))])
			}
			sb.WriteString(words[r.Intn(len(words))])
			sb.WriteByte(' ')
		}
		name.AppendString(sb.String())
	}
	b.Cols[Name] = name.Finish()
	return b
}

// longSpecials are the special byte runs LongBatch mixes into some rows.
var longSpecials = []string{"ıi", "ſ", "\u212a", "\xe2ab\xc3", "\x80x", "aÀÉz", "ǅ", "\xf0\x9f", "\xed\xa0\x80q"}

// ScanBatch is Batch with names built for the string scans: random runs of
// a small alphabet (so that delimiters and needles match often, at every
// position and chunk boundary), 0 to 100 bytes, multibyte characters and
// invalid bytes included; needles (column S) of 1 to 4 bytes.
func ScanBatch(n int, seed int64) *coldata.Batch {
	b := Batch(n, seed)
	r := rand.New(rand.NewSource(seed + 2))
	alpha := []string{"a", "b", " ", "-", "é", "ab", "\xff", "  "}
	needles := []string{"a", " ", "-", "ab", "ba", "a a", "é", "-b-", "abab", "", "\xc3"}
	name, s := coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.String, n)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if r.Intn(25) == 0 {
			name.AppendNull()
		} else {
			sb.Reset()
			target := r.Intn(101)
			for sb.Len() < target {
				sb.WriteString(alpha[r.Intn(len(alpha))])
			}
			name.AppendString(sb.String())
		}
		if r.Intn(25) == 0 {
			s.AppendNull()
		} else {
			s.AppendString(needles[r.Intn(len(needles))])
		}
	}
	b.Cols[Name] = name.Finish()
	b.Cols[S] = s.Finish()
	return b
}

// ScanCases are the functions whose scans are vectorised, with literal and
// column needles, positive and negative counts.
func (b *Builder) ScanCases() [][]expr.Expr {
	s, n, x := Col(Name), Col(S), Col(A)
	c := b.Call
	return [][]expr.Expr{
		{c("split_part", s, Lit(" "), Lit(1)), c("split_part", s, Lit(" "), Lit(2)), c("split_part", s, Lit(" "), Lit(-1)), c("split_part", s, Lit(" "), Lit(-3)),
			c("split_part", s, n, x), c("split_part", s, Lit("ab"), Lit(3)), c("split_part", s, Lit("a a"), Lit(-2))},
		{c("substring_index", s, Lit("-"), Lit(1)), c("substring_index", s, Lit("-"), Lit(2)), c("substring_index", s, Lit("-"), Lit(-1)), c("substring_index", s, Lit("-"), Lit(-2)),
			c("substring_index", s, n, x), c("substring_index", s, Lit("ba"), Lit(-3))},
		{c("locate", n, s), c("locate", n, s, x), c("instr", s, n), c("replace", s, n, Lit("<>")), c("replace", s, Lit("a"), Lit("")), c("replace", s, Lit("abab"), Lit("X"))},
		{c("=", s, n), c("<", s, n), c(">=", s, Lit("ab ")), c("strcmp", s, n), c("strcmp", n, s), c("=", s, Lit("ab")), c("<>", s, c("concat", n, n))},
		{c("starts_with", s, n), c("ends_with", s, n), c("contains", s, n), c("like", s, Lit("ab%")), c("like", s, Lit("%b-")), c("like", s, Lit("%a a%")), c("like", s, Lit("é"))},
		{c("trim", s, n), c("ltrim", s, Lit("a")), c("rtrim", s, Lit("ab")), c("length", s), c("char_length", s), c("upper", s), c("lower", c("concat", s, n))},
	}
}

// LongRows makes n rows whose Name column holds strings of minLen to maxLen
// bytes: words of ASCII and multibyte letters separated by spaces, with a
// few NULLs and empty strings (the other columns as in Batch).
func LongRows(n, minLen, maxLen int, seed int64) *coldata.Batch {
	b := Batch(n, seed)
	r := rand.New(rand.NewSource(seed + 3))
	words := []string{"alpha", "Beta", "gamma", "日本語", "delta", "épée", "x", "OMEGA", "ünïcödé", "lorem", "ipsum"}
	name := coldata.NewBuilder(coldata.String, n)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		switch r.Intn(100) {
		case 0:
			name.AppendNull()
			continue
		case 1:
			name.AppendString("")
			continue
		}
		sb.Reset()
		target := minLen + r.Intn(maxLen-minLen+1)
		for sb.Len() < target {
			sb.WriteString(words[r.Intn(len(words))])
			sb.WriteByte(' ')
		}
		name.AppendString(sb.String())
	}
	b.Cols[Name] = name.Finish()
	return b
}

// LongCases are the functions measured and checked over long strings, one
// output per kernel.
func (b *Builder) LongCases() []expr.Expr {
	s := Col(Name)
	c := b.Call
	return []expr.Expr{
		c("length", s),
		c("char_length", s),
		c("upper", s),
		c("lower", s),
		c("like", s, Lit("%ipsum x%")),
		c("locate", Lit("OMEGA"), s),
		c("replace", s, Lit(" "), Lit("_")),
		c("split_part", s, Lit(" "), Lit(3)),
		c("substring_index", s, Lit(" "), Lit(-2)),
		c("concat", s, Lit("!")),
		c("ends_with", s, Lit("x ")),
	}
}

// EdgeBatch is Batch with names that put UTF-8 edge cases at every offset
// of a 16-byte chunk: overlong and surrogate sequences, bytes that never
// start a character, truncated sequences, case mappings that change a
// character's width, 0 to 300 bytes a row.
func EdgeBatch(n int, seed int64) *coldata.Batch {
	b := Batch(n, seed)
	r := rand.New(rand.NewSource(seed + 4))
	pieces := []string{"a", "Zq", "hello world ", "\xf5\x80\x80\x80", "\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xf0\x90\x80\x80", "\u023a", "\u0250", "\u0131", "\u212a", "日本", "é", "\xe6\x97", "\x80", "\xff", "ǅ", "𐐀x"}
	name := coldata.NewBuilder(coldata.String, n)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if r.Intn(30) == 0 {
			name.AppendNull()
			continue
		}
		sb.Reset()
		target := r.Intn(301)
		clean := r.Intn(2) == 0 // half the rows are valid UTF-8
		for sb.Len() < target {
			p := pieces[r.Intn(len(pieces))]
			if clean && !utf8.ValidString(p) {
				continue
			}
			sb.WriteString(p)
		}
		name.AppendString(sb.String())
	}
	b.Cols[Name] = name.Finish()
	return b
}
