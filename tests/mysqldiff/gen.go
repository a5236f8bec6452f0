// Package mysqldiff is a randomized differential test of gsql's date,
// time and DECIMAL expressions against a MySQL-family server's recorded
// answers (issue 38).
//
// Generate composes expressions from a seed: DATE_ADD/DATE_SUB/ADDDATE
// with simple and composite INTERVAL units, EXTRACT, DATE_FORMAT with the
// week specifiers, WEEK/YEARWEEK in modes 0-7, MAKEDATE, MAKETIME,
// TIMEDIFF, ADDTIME, SUBTIME, SEC_TO_TIME, TIME_TO_SEC, FROM_DAYS,
// TO_DAYS, PERIOD_ADD, PERIOD_DIFF, STR_TO_DATE, CAST to DATE,
// DATETIME(n), CHAR and DECIMAL(p,s), exact DECIMAL arithmetic with
// literals, ROUND/TRUNCATE with digits, and comparisons of dates with
// text, nested one to three deep, over the edge-value table of Setup
// (leap days, years 1 and 9999, month ends, ISO week boundaries,
// microsecond edges, DECIMAL maxima, invalid date text, NULLs) or over
// literals alone. GenerateTZ adds CONVERT_TZ queries (offsets, SYSTEM,
// zones that are none) from a stream of their own, GenerateTime
// TIME_FORMAT and CAST(... AS TIME(n)) queries from another,
// GenerateTimeFunc TIME(expr) queries and GenerateNumDate numbers and
// digit-only text read as dates, each from its own; GenerateMore
// aggregates with ALL, integers past BIGINT, integer division, digit-only
// date text of other lengths and dates compared with trailing text;
// GenerateTextBetween text BETWEEN a date and text (or two dates).
//
// scripts/mysqlref/diff.sh runs the queries on MariaDB and writes
// testdata/answers.test; TestMySQLDiff runs every recorded query on gsql
// and compares with the tests package's rules (decimals exact, dates and
// datetimes as text).
//
// Shapes whose answers differ on purpose are not generated, each for a
// reason:
//
//   - DATE - DATE and DATE + n count days in gsql (README, deliberate
//     departures); dates meet numbers only through functions and INTERVAL.
//   - A DATETIME without (n) is DATETIME(0) in MySQL and keeps its
//     microseconds in gsql (README): columns and casts always name n, and
//     datetime literals carry no fraction.
//   - DECIMAL stops at 38 digits in gsql, 65 in MySQL: a product has a
//     literal of at most 3 digits on one side, and products nest once.
//   - MariaDB computes TIMEDIFF, ADDTIME and SUBTIME of invalid date text
//     (MySQL 8 gives NULL) and PERIOD_ADD/PERIOD_DIFF of a month 0 or past
//     12 (MySQL 8.0.28+ refuses them): those take valid arguments only.
//   - FROM_DAYS below 366 is '0000-00-00' in MySQL and NULL in gsql, which
//     has no zero date: its argument stays in 366..3652424.
//   - A comparison of a DATE with constant text that is no date is error
//     1525 in MySQL 8.0.16+ (and in gsql), where MariaDB compares
//     ('2023-02-30' as a day past February's last, 'abc' as the zero
//     date): comparisons take valid text only
//     (tests/sql/mysql_bad_input.test has MySQL 8's answers).
//   - TIME is text in gsql, printing the digits a value has; MySQL's
//     TIME(n) prints n. TIMEDIFF takes whole seconds.
//   - MariaDB truncates extra fractional digits, MySQL 8 rounds them: the
//     recorder sets TIME_ROUND_FRACTIONAL, which makes MariaDB round.
package mysqldiff

import (
	"fmt"
	"math/rand"
	"strings"
)

// Setup is the edge-value table the queries read, one statement a line.
var Setup = []string{
	"CREATE TABLE e (id INT, d DATE, dt DATETIME(0), dt3 DATETIME(3), dt6 DATETIME(6), s VARCHAR(40), sv VARCHAR(40), n BIGINT, x DECIMAL(12,2), y DECIMAL(30,10))",
	"INSERT INTO e VALUES " + strings.Join([]string{
		// leap day, largest DECIMALs
		"(1, '2024-02-29', '2024-02-29 23:59:59', '2024-02-29 23:59:59.999', '2024-02-29 23:59:59.999999', '2024-02-29', '2024-02-29', 1, 9999999999.99, 99999999999999999999.9999999999)",
		// year 1, smallest DECIMALs
		"(2, '0001-01-01', '0001-01-01 00:00:00', '0001-01-01 00:00:00.001', '0001-01-01 00:00:00.000001', '0001-01-01', '0001-01-01 00:00:00', -1, -9999999999.99, -99999999999999999999.9999999999)",
		// year 9999
		"(3, '9999-12-31', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999', '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59', '9999-12-31', 0, 0.00, 0.0000000001)",
		// Sunday in ISO week 53 of 2020
		"(4, '2021-01-03', '2021-01-03 10:30:00', '2021-01-03 10:30:00.500', '2021-01-03 10:30:00.000500', '2021-01-03 10:30:00', '2021-01-03 10:30:00', 7, 0.01, -0.0000000001)",
		// Thursday of ISO week 53; an invalid day in text
		"(5, '2020-12-31', '2020-12-31 12:00:00', '2020-12-31 12:00:00.100', '2020-12-31 12:00:00.123456', '2023-02-30', '2020-12-31 12:00:00', 53, -0.01, 12345.6789012345)",
		// Monday of ISO week 1 of 2020
		"(6, '2019-12-30', '2019-12-30 00:00:01', '2019-12-30 00:00:00.999', '2019-12-30 00:00:00.999999', '2019-12-30 12:00:00.5', '2019-12-30', -7, 1234567.89, -0.5000000000)",
		// no 29 February in 1900
		"(7, '1900-02-28', '1900-02-28 23:59:59', '1900-02-28 23:59:59.500', '1900-02-28 23:59:59.500000', '1900-02-29', '1900-02-28 23:59:59', 100, -100.50, 2.5000000000)",
		"(8, '2000-02-29', '2000-02-29 12:34:56', '2000-02-29 12:34:56.789', '2000-02-29 12:34:56.789012', '2000-02-29', '2000-02-29 12:34:56', -100, 0.05, -2.5000000000)",
		// month ends; text that is no date
		"(9, '2023-01-31', '2023-01-31 00:00:00', '2023-01-31 00:00:00.000', '2023-01-31 00:00:00.000000', 'abc', '2023-01-31', 12, 1.00, 1.0000000000)",
		"(10, '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00.000', '1970-01-01 00:00:00.000001', '', '1970-01-01 00:00:00', 365, 0.50, 0.3333333333)",
		"(11, '2024-12-30', '2024-12-31 23:59:59', '2024-12-31 23:59:59.999', '2024-12-31 23:59:59.999999', '2024-12-31 23:59:59.999999', '2024-12-30', 366, 19.99, 7.0000000000)",
		"(12, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
		"(13, '2023-03-31', '2023-03-31 08:00:00', '2023-03-31 08:00:00.250', '2023-03-31 08:00:00.250000', '2023-03-31', '2023-03-31 08:00:00', 2, 3.14, 3.1415926536)",
		"(14, '1999-12-31', '1999-12-31 23:59:59', '1999-12-31 23:59:59.999', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59', '1999-12-31 23:59:59', 3, 999.99, 0.1000000000)",
	}, ", "),
}

// Query is one generated query.
type Query struct {
	SQL string
	// TextDates are the result columns (0-based) that are date
	// arithmetic on text, whose text MariaDB and MySQL 8 print apart: the
	// recorder writes MySQL 8's (see scripts/mysqlref/diff.py).
	TextDates []int
}

// Generate returns n queries made from seed; the same seed and n give the
// same queries.
func Generate(seed int64, n int) []Query {
	g := &gen{r: rand.New(rand.NewSource(seed))}
	out := make([]Query, 0, n)
	for len(out) < n {
		out = append(out, g.query())
	}
	return out
}

// GenerateTZ returns n queries of CONVERT_TZ over the table's dates,
// datetimes and text, nested in the date functions, from their own random
// stream (seed), so that they leave Generate's queries as they were.
// Offsets stay in -12:59..+13:00, which MariaDB and MySQL 8 share (MySQL
// 8 takes -13:59..+14:00: tests/sql/mysql_timezone.test).
func GenerateTZ(seed int64, n int) []Query {
	return generateItems(seed, n, 5, 2, func(g *gen) string { return g.tzItem(2 + g.intn(2)) })
}

// GenerateTime returns n queries of TIME_FORMAT and CAST(... AS TIME(n))
// over TIME values (SEC_TO_TIME, MAKETIME, TIMEDIFF, TIME text) and the
// table's dates and datetimes (their time of day), nested in each other
// and read by HOUR, TIME_TO_SEC and CONCAT, from their own random stream
// (seed), so that they leave the other queries as they were. Text of a
// date alone is not a TIME argument (MariaDB reads '2024-02-29' as 20:24),
// and a CAST with digits of a second is not read by the functions that
// print TIME text (gsql prints the digits a value has).
func GenerateTime(seed int64, n int) []Query {
	return generateItems(seed, n, 4, 3, func(g *gen) string { return g.timeItem(1 + g.intn(3)) })
}

// generateItems returns n queries from their own random stream (seed),
// each selecting 1 to maxItems of item's expressions: one in litsOneIn
// over literals alone, the others over the table e by id.
func generateItems(seed int64, n, litsOneIn, maxItems int, item func(*gen) string) []Query {
	g := &gen{r: rand.New(rand.NewSource(seed))}
	out := make([]Query, 0, n)
	for len(out) < n {
		g.lits = g.intn(litsOneIn) == 0
		var items []string
		for i, k := 0, 1+g.intn(maxItems); i < k; i++ {
			items = append(items, item(g))
		}
		q := "SELECT " + strings.Join(items, ", ")
		if !g.lits {
			q = "SELECT id, " + strings.Join(items, ", ") + " FROM e ORDER BY id"
		}
		out = append(out, Query{SQL: q})
	}
	return out
}

// TIME_FORMAT's formats: hour specifiers read as hours and as a clock,
// digits of a second, literal text and %%, and date specifiers that make
// the result NULL (MySQL 8 prints zeros for %Y %y %m %c %d %e, MariaDB
// NULL: those are left out).
var timeFormats = []string{"'%H:%i:%s'", "'%k %h %I %l %p'", "'%r'", "'%T.%f'", "'%H %i %S %f'", "'%l:%i %p'",
	"'at %H%%'", "'%T %q'", "''", "'%M'", "'%j %H'", "'%W'"}

// timeValue is a TIME: a function's, text, or a DATE or DATETIME (its
// time of day), or a cast of one to TIME(0).
func (g *gen) timeValue(d int) string {
	if d > 0 && g.intn(3) == 0 {
		return fmt.Sprintf("CAST(%s AS TIME)", g.timeValue(d-1))
	}
	switch g.intn(7) {
	case 0:
		return fmt.Sprintf("SEC_TO_TIME(%s)", g.pick("0", "3661", "-1", "86399", "90000.5", "-3020399", "3020400", "n * 3607", "n * 86400"))
	case 1:
		return fmt.Sprintf("MAKETIME(%s, %s, %s)", g.pick("0", "25", "-100", "838", "n"), g.pick("0", "30", "59"), g.pick("0", "15", "59.5"))
	case 2:
		return g.timediff(g.wholeDatetimeArg(), g.pick("1 SECOND", "3661 SECOND", "1 DAY", "30 DAY"))
	case 3:
		return g.pick("'10:30:15'", "'-100:00:01.5'", "'838:59:59'", "'1 02:03:04'", "'00:00:00.000001'", "'23:59:59.999999'", "'12:00:00'", "'103015'")
	case 4:
		if !g.lits {
			return g.pick("d", "dt", "dt3", "dt6")
		}
	}
	return g.pick("TIMESTAMP '2024-02-29 13:14:15'", "DATE '2021-01-03'", "TIMESTAMP '1999-12-31 23:59:59'")
}

// timeItem is TIME_FORMAT or CAST AS TIME(n) of a TIME, maybe read by
// another function.
func (g *gen) timeItem(d int) string {
	t := g.timeValue(d - 1)
	switch g.intn(6) {
	case 0, 1:
		return fmt.Sprintf("TIME_FORMAT(%s, %s)", t, g.pick(timeFormats...))
	case 2:
		return fmt.Sprintf("CAST(%s AS TIME(%d))", t, g.intn(7))
	case 3:
		return fmt.Sprintf("%s(CAST(%s AS TIME(%d)))", g.pick("HOUR", "MINUTE", "SECOND", "TIME_TO_SEC", "MICROSECOND"), t, g.intn(7))
	case 4:
		return fmt.Sprintf("CONCAT(TIME_FORMAT(%s, %s), '|', CAST(%s AS TIME))", t, g.pick(timeFormats...), t)
	}
	return fmt.Sprintf("TIME_FORMAT(CAST(%s AS TIME(%d)), %s)", t, g.intn(7), g.pick(timeFormats...))
}

// CONVERT_TZ's zones: offsets (some written loosely) and SYSTEM, and
// text that is no zone (names need time-zone tables: NULL), picked one
// time in five.
var (
	tzZones   = []string{"'+00:00'", "'+05:30'", "'-08:00'", "'+13:00'", "'-12:59'", "'+1:5'", "'-0:30'", "'SYSTEM'", "'system'"}
	tzNoZones = []string{"'+01:60'", "'UTC'", "'abc'", "'+14:01'"}
)

func (g *gen) zone() string {
	if g.intn(5) == 0 {
		return g.pick(tzNoZones...)
	}
	return g.pick(tzZones...)
}

// tz is CONVERT_TZ of a DATETIME, a DATE or text.
func (g *gen) tz(d int) string {
	var arg string
	switch g.intn(4) {
	case 0:
		arg = g.date(d - 1)
	case 1:
		arg = g.anyDateText(d - 1)
	default:
		arg = g.datetime(d - 1)
	}
	return fmt.Sprintf("CONVERT_TZ(%s, %s, %s)", arg, g.zone(), g.zone())
}

// tzItem is CONVERT_TZ alone or read by another function.
func (g *gen) tzItem(d int) string {
	t := g.tz(d)
	switch g.intn(7) {
	case 0:
		return fmt.Sprintf("DATE_FORMAT(%s, '%%Y-%%m-%%d %%H:%%i:%%s.%%f')", t)
	case 1:
		return fmt.Sprintf("CAST(%s AS CHAR)", t)
	case 2:
		return fmt.Sprintf("DATE(%s)", t)
	case 3:
		return fmt.Sprintf("DATE_ADD(%s, %s)", t, g.interval(d-1))
	case 4:
		return fmt.Sprintf("TIMESTAMPDIFF(MINUTE, %s, %s)", g.datetime(d-1), t)
	case 5:
		return fmt.Sprintf("CONVERT_TZ(%s, %s, %s)", t, g.zone(), g.zone())
	}
	return t
}

type gen struct {
	r *rand.Rand
	// lits: leaves are literals only (a query without FROM).
	lits bool
	// cmp: the expression is compared. MariaDB compares a DATE cast
	// from invalid text as a zero date (false, not NULL); MySQL 8's cast
	// is NULL, so the comparison is, as in gsql: no invalid text there.
	cmp bool
}

func (g *gen) intn(n int) int { return g.r.Intn(n) }

func (g *gen) pick(xs ...string) string { return xs[g.intn(len(xs))] }

func (g *gen) query() Query {
	g.lits = g.intn(4) == 0
	var q Query
	var items []string
	first := 1 // the id column
	if g.lits {
		first = 0
	}
	for i, k := 0, 1+g.intn(2); i < k; i++ {
		item, textDate := g.top()
		if textDate {
			q.TextDates = append(q.TextDates, first+i)
		}
		items = append(items, item)
	}
	if g.lits {
		q.SQL = "SELECT " + strings.Join(items, ", ")
	} else {
		q.SQL = "SELECT id, " + strings.Join(items, ", ") + " FROM e ORDER BY id"
	}
	return q
}

// top is one select item of any kind, nested two or three deep (leaves
// are one deep); textDate tells that it is date arithmetic on text.
func (g *gen) top() (item string, textDate bool) {
	d := 2 + g.intn(2)
	if g.intn(8) == 3 {
		return g.strDateArith(d), true
	}
	return g.typed(d), false
}

// typed is an expression of any kind but date arithmetic on text.
func (g *gen) typed(d int) string {
	switch g.intn(7) {
	case 0:
		return g.date(d)
	case 1, 2:
		return g.datetime(d)
	case 3:
		return g.integer(d)
	case 4, 5:
		return g.dec(d)
	case 6:
		if g.intn(2) == 0 {
			return g.boolean(d)
		}
		return g.text(d)
	}
	panic("unreachable")
}

// Edge dates and datetimes (as literals, always valid).
var (
	edgeDates = []string{"2024-02-29", "0001-01-01", "9999-12-31", "2021-01-03", "2020-12-31",
		"2019-12-30", "1900-02-28", "2000-02-29", "2023-01-31", "2024-12-30", "2023-03-31", "2021-01-04", "2008-12-29"}
	edgeTimes = []string{"00:00:00", "23:59:59", "12:00:00", "10:30:00", "00:00:01"}
	// Text that is no valid date (bad input): NULL in a SELECT.
	badDates = []string{"2023-02-30", "2023-13-01", "abc", "", "2024-02-29 25:00:00", "1900-02-29", "10000-01-01"}
)

func (g *gen) dateLit() string { return g.pick(edgeDates...) }

func (g *gen) datetimeLit() string { return g.dateLit() + " " + g.pick(edgeTimes...) }

// validText is a date or datetime as text, valid.
func (g *gen) validText() string {
	if g.intn(2) == 0 {
		return "'" + g.dateLit() + "'"
	}
	if g.intn(4) == 0 {
		return "'" + g.datetimeLit() + ".5'"
	}
	return "'" + g.datetimeLit() + "'"
}

// date is an expression of type DATE.
func (g *gen) date(d int) string {
	if d <= 1 || g.intn(4) == 0 {
		if !g.lits && g.intn(3) != 0 {
			return "d"
		}
		return "DATE '" + g.dateLit() + "'"
	}
	switch g.intn(9) {
	case 0, 1:
		return fmt.Sprintf("DATE_ADD(%s, INTERVAL %s %s)", g.date(d-1), g.small(d-1), g.pick("DAY", "WEEK", "MONTH", "QUARTER", "YEAR"))
	case 2:
		return fmt.Sprintf("DATE_SUB(%s, INTERVAL %s %s)", g.date(d-1), g.small(d-1), g.pick("DAY", "MONTH", "YEAR"))
	case 3:
		return fmt.Sprintf("ADDDATE(%s, %s)", g.date(d-1), g.small(d-1))
	case 4:
		return fmt.Sprintf("DATE(%s)", g.datetime(d-1))
	case 5:
		return fmt.Sprintf("MAKEDATE(%s, %s)", g.pick("2024", "2023", "1", "9999", "70", "24", "1900"), g.pick("1", "59", "60", "365", "366", "400", "0"))
	case 6:
		return fmt.Sprintf("FROM_DAYS(%s)", g.pick("366", "730119", "738000", "739255", "3652424", "719528"))
	case 7:
		if g.cmp {
			return fmt.Sprintf("CAST(%s AS DATE)", g.validText())
		}
		return fmt.Sprintf("CAST(%s AS DATE)", g.anyDateText(d-1))
	default:
		return fmt.Sprintf("LAST_DAY(%s)", g.date(d-1))
	}
}

// datetime is an expression of a DATETIME type.
func (g *gen) datetime(d int) string {
	if d <= 1 || g.intn(4) == 0 {
		if !g.lits && g.intn(3) != 0 {
			return g.pick("dt", "dt3", "dt6")
		}
		return "TIMESTAMP '" + g.datetimeLit() + "'"
	}
	switch g.intn(10) {
	case 0, 1, 2:
		return fmt.Sprintf("DATE_ADD(%s, %s)", g.datetime(d-1), g.interval(d-1))
	case 3:
		return fmt.Sprintf("DATE_SUB(%s, %s)", g.datetime(d-1), g.interval(d-1))
	case 4:
		return fmt.Sprintf("%s + %s", g.date(d-1), g.interval(d-1))
	case 5:
		return fmt.Sprintf("CAST(%s AS DATETIME(%d))", g.pick(g.datetime(d-1), g.date(d-1), g.validText()), g.intn(7))
	case 6:
		return fmt.Sprintf("STR_TO_DATE(%s)", g.strToDateArgs())
	case 7:
		return fmt.Sprintf("TIMESTAMP(%s, '%s')", g.date(d-1), g.pick(edgeTimes...))
	case 8:
		return fmt.Sprintf("ADDTIME(%s, '%s')", g.datetime(d-1), g.pick("01:00:00", "-00:00:01", "23:59:59.5", "1 01:00:00"))
	default:
		return fmt.Sprintf("DATE_ADD(%s, %s)", g.date(d-1), g.interval(d-1))
	}
}

// interval is an INTERVAL with a simple or composite unit, its value
// valid, out of range or malformed.
func (g *gen) interval(d int) string {
	switch g.intn(3) {
	case 0:
		return fmt.Sprintf("INTERVAL %s %s", g.small(d), g.pick("DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND", "WEEK", "MONTH", "YEAR"))
	case 1:
		// out of range for every date, or a fraction of a second
		return g.pick("INTERVAL 10000 YEAR", "INTERVAL -3652425 DAY", "INTERVAL 1.5 SECOND", "INTERVAL 999999 MICROSECOND", "INTERVAL 1 MICROSECOND", "INTERVAL -1 MICROSECOND")
	}
	type unit struct{ name, vals string }
	units := []unit{
		{"DAY_HOUR", "'1 2'|'-1 2'|'0 23'|'1 2 3'"},
		{"YEAR_MONTH", "'1-2'|'-1-1'|'0-13'|'x'"},
		{"HOUR_MINUTE", "'1:30'|'-0:1'|'25:61'"},
		{"MINUTE_SECOND", "'1:30'|'-59:59'"},
		{"SECOND_MICROSECOND", "'1.5'|'0.000001'|'-0.999999'"},
		{"DAY_MICROSECOND", "'1 02:03:04.5'|'-1 00:00:00.000001'"},
		{"HOUR_SECOND", "'1:2:3'|'-23:59:59'"},
		{"DAY_SECOND", "'1 1:1:1'|'-2 0:0:1'"},
		{"DAY_MINUTE", "'1 1:1'"},
		{"HOUR_MICROSECOND", "'1:0:0.5'"},
		{"MINUTE_MICROSECOND", "'1:1.000001'"},
	}
	u := units[g.intn(len(units))]
	return fmt.Sprintf("INTERVAL %s %s", g.pick(strings.Split(u.vals, "|")...), u.name)
}

// strToDateArgs are STR_TO_DATE's text and format, most of them
// matching, some impossible. No day past its month's end: MySQL 8 gives
// NULL, MariaDB the invalid date.
func (g *gen) strToDateArgs() string {
	return g.pick(
		"'2024-01-05 10:30:00', '%Y-%m-%d %T'",
		"'2024-02-29 11:59:59 PM', '%Y-%m-%d %r'",
		"'29/02/2024 12:00:00 AM', '%d/%m/%Y %h:%i:%s %p'",
		"'2024-01-05 10:30:00.25', '%Y-%m-%d %H:%i:%s.%f'",
		"'Jan 5 2024 10:30', '%b %e %Y %H:%i'",
		"'2024-13-01 00:00:00', '%Y-%m-%d %T'",
		"'abc', '%Y-%m-%d %T'",
		"'2024-01-05 25:00:00', '%Y-%m-%d %T'",
		"'99-12-31 23:59:59', '%y-%m-%d %T'",
	)
}

// strDate is text holding a date: DATE_ADD and friends over text give
// text shaped like their input.
func (g *gen) strDate(d int) string {
	if d <= 1 || g.intn(4) == 0 {
		return g.anyDateText(d)
	}
	return g.strDateArith(d)
}

// strDateArith is date arithmetic on text.
func (g *gen) strDateArith(d int) string {
	switch g.intn(3) {
	case 0:
		return fmt.Sprintf("DATE_ADD(%s, %s)", g.strDate(d-1), g.interval(d-1))
	case 1:
		return fmt.Sprintf("DATE_SUB(%s, INTERVAL %s %s)", g.strDate(d-1), g.small(d-1), g.pick("DAY", "MONTH", "HOUR", "SECOND"))
	default:
		return fmt.Sprintf("ADDDATE(%s, %s)", g.strDate(d-1), g.small(d-1))
	}
}

// anyDateText is a date as text, valid or not.
func (g *gen) anyDateText(int) string {
	if !g.lits && g.intn(2) == 0 {
		return g.pick("s", "sv")
	}
	if g.intn(3) == 0 {
		return "'" + g.pick(badDates...) + "'"
	}
	return g.validText()
}

// small is a small integer: a literal, n, or an integer expression.
func (g *gen) small(d int) string {
	if !g.lits && g.intn(3) == 0 {
		return "n"
	}
	if d > 1 && g.intn(4) == 0 {
		return fmt.Sprintf("(%s DIV 1)", g.dec(d-1))
	}
	return g.pick("1", "-1", "0", "2", "7", "12", "31", "59", "365", "-366", "1000")
}

// anyTemporal is a DATE, DATETIME or date text.
func (g *gen) anyTemporal(d int) string {
	switch g.intn(3) {
	case 0:
		return g.date(d)
	case 1:
		return g.datetime(d)
	}
	return g.strDate(d)
}

// integer is an integer-valued date function.
func (g *gen) integer(d int) string {
	if d < 1 {
		d = 1
	}
	switch g.intn(12) {
	case 0:
		return fmt.Sprintf("WEEK(%s, %d)", g.anyTemporal(d-1), g.intn(8))
	case 1:
		return fmt.Sprintf("YEARWEEK(%s, %d)", g.anyTemporal(d-1), g.intn(8))
	case 2:
		return fmt.Sprintf("EXTRACT(%s FROM %s)", g.pick("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND",
			"YEAR_MONTH", "DAY_HOUR", "DAY_MINUTE", "DAY_SECOND", "DAY_MICROSECOND", "HOUR_MINUTE", "HOUR_SECOND", "HOUR_MICROSECOND",
			"MINUTE_SECOND", "MINUTE_MICROSECOND", "SECOND_MICROSECOND"), g.pick(g.datetime(d-1), g.date(d-1)))
	case 3:
		return fmt.Sprintf("TO_DAYS(%s)", g.anyTemporal(d-1))
	case 4:
		// MySQL 8's TIME_TO_SEC drops the fraction (a BIGINT), MariaDB's
		// keeps it (a DECIMAL, also for text of whole seconds): whole
		// seconds only, and no text from a column.
		return fmt.Sprintf("TIME_TO_SEC(%s)", g.pick("'10:30:00'", "'838:59:59'", "'-01:00:00'", "'1 02:00:00'",
			"MAKETIME(12, 30, 59)", "SEC_TO_TIME(3661)", "SEC_TO_TIME(n)", g.timediff(g.pick("dt", "TIMESTAMP '"+g.datetimeLit()+"'"), g.pick("1 SECOND", "3661 SECOND", "30 DAY"))))
	case 5:
		return fmt.Sprintf("PERIOD_ADD(%s, %s)", g.pick("202401", "199912", "2402", "7001", "6912", "999912"), g.pick("1", "-1", "12", "-13", "0", "100"))
	case 6:
		return fmt.Sprintf("PERIOD_DIFF(%s, %s)", g.pick("202401", "199912", "2402", "7001"), g.pick("202312", "200001", "6912", "9912"))
	case 7:
		return fmt.Sprintf("DATEDIFF(%s, %s)", g.anyTemporal(d-1), g.anyTemporal(d-1))
	case 8:
		if g.intn(4) == 0 {
			// HOUR and MICROSECOND read text as a TIME, where MariaDB
			// and MySQL 8 part ways on date text: typed arguments only.
			return fmt.Sprintf("%s(%s)", g.pick("HOUR", "MICROSECOND"), g.pick(g.date(d-1), g.datetime(d-1)))
		}
		return fmt.Sprintf("%s(%s)", g.pick("YEAR", "MONTH", "DAY", "DAYOFYEAR", "WEEKDAY", "DAYOFWEEK", "QUARTER", "WEEKOFYEAR"), g.anyTemporal(d-1))
	case 9:
		return fmt.Sprintf("TIMESTAMPDIFF(%s, %s, %s)", g.pick("DAY", "MONTH", "SECOND", "YEAR", "WEEK"), g.pick(g.date(d-1), g.datetime(d-1)), g.pick(g.date(d-1), g.datetime(d-1)))
	case 10:
		return fmt.Sprintf("(%s DIV %s)", g.dec(d-1), g.pick("1", "3", "-2"))
	default:
		if !g.lits {
			return "n"
		}
		return g.small(d)
	}
}

// timeText is a TIME value (text in gsql, TIME in MySQL).
func (g *gen) timeText(d int) string {
	if d <= 1 || g.intn(3) == 0 {
		// No value near 838:59:59: ADDTIME and SUBTIME of text past it
		// clip to 838:59:59 in MySQL 8 (TIME's range ends there) and to
		// 838:59:59.999999 in MariaDB.
		return "'" + g.pick("10:30:00", "800:00:00", "-01:00:00", "00:00:00.5", "23:59:59.999999", "1 02:00:00") + "'"
	}
	switch g.intn(5) {
	case 0:
		// Hours past 838 clip to TIME's largest value, whose fraction
		// MariaDB and MySQL 8 give apart: none here.
		return fmt.Sprintf("MAKETIME(%s, %s, %s)", g.pick("0", "12", "-1", "838", "100"), g.pick("0", "30", "59", "60"), g.pick("0", "59", "1.5", "60"))
	case 1:
		return fmt.Sprintf("SEC_TO_TIME(%s)", g.pick("0", "3661", "-1", "86400", "3020399", "3020400", "1.5", "n"))
	case 2:
		return g.timediff(g.wholeDatetimeArg(), g.pick("1 SECOND", "3661 SECOND", "1 DAY", "30 DAY"))
	case 3:
		return fmt.Sprintf("SUBTIME(%s, '%s')", g.timeText(d-1), g.pick("01:00:00", "00:00:01.5", "-1:00:00"))
	default:
		return fmt.Sprintf("ADDTIME(%s, '%s')", g.timeText(d-1), g.pick("01:00:00", "00:00:00.000001", "10:00:00"))
	}
}

// timediff is TIMEDIFF of a and a moved by the interval, one way or the
// other: a difference past 838:59:59 is clipped to TIME's range, where
// MariaDB and MySQL 8 give different fractions.
func (g *gen) timediff(a, iv string) string {
	b := fmt.Sprintf("DATE_ADD(%s, INTERVAL %s)", a, iv)
	if g.intn(2) == 0 {
		a, b = b, a
	}
	return fmt.Sprintf("TIMEDIFF(%s, %s)", a, b)
}

// wholeDatetimeArg is a valid datetime of whole seconds for TIMEDIFF:
// TIMEDIFF of invalid text differs between MariaDB and MySQL 8, and of
// text from a column is a TIME(6) in both, printed with six digits,
// where gsql's TIME text prints the digits a value has.
func (g *gen) wholeDatetimeArg() string {
	if !g.lits && g.intn(2) == 0 {
		return "dt"
	}
	return "'" + g.datetimeLit() + "'"
}

// decLit is a DECIMAL literal of at most 3 digits (products stay within
// 38 digits), or a larger one for sums.
func (g *gen) decLit(small bool) string {
	if small {
		return g.pick("0.1", "1.1", "0.2", "2.5", "-0.5", "0.01", "1.05", "9.99", "0.001", "3")
	}
	return g.pick("0.1", "0.2", "1234567890.12", "-0.005", "99999999.99", "1.005", "0.000001", "-2.50", "7")
}

// dec is a DECIMAL-valued expression.
func (g *gen) dec(d int) string {
	if d <= 1 || g.intn(4) == 0 {
		if !g.lits && g.intn(3) != 0 {
			return g.pick("x", "y", "x", "n")
		}
		return g.decLit(false)
	}
	switch g.intn(9) {
	case 0, 1:
		return fmt.Sprintf("(%s %s %s)", g.dec(d-1), g.pick("+", "-"), g.pick(g.decLit(false), g.dec(d-1)))
	case 2:
		// one small literal factor keeps the product within 38 digits
		return fmt.Sprintf("(%s * %s)", g.decLeaf(), g.decLit(true))
	case 3:
		return fmt.Sprintf("(%s / %s)", g.dec(d-1), g.pick("3", "7", "0", "1.5", "-0.25", "n"))
	case 4, 5:
		x, digits := g.dec(d-1), g.intn(9)-2
		if x == "n" && digits < 0 {
			// MariaDB types ROUND(BIGINT, -k) DECIMAL, MySQL 8 BIGINT.
			x = "x"
		}
		return fmt.Sprintf("%s(%s, %d)", g.pick("ROUND", "TRUNCATE"), x, digits)
	case 6:
		p := 1 + g.intn(38)
		return fmt.Sprintf("CAST(%s AS DECIMAL(%d,%d))", g.pick(g.dec(d-1), g.validText(), "'1.005'", "'abc'"), p, g.intn(min(p, 12)+1))
	case 7:
		return fmt.Sprintf("(%s %s %s)", g.integer(d-1), g.pick("/", "+", "*"), g.decLit(true))
	default:
		return fmt.Sprintf("ROUND(%s)", g.dec(d-1))
	}
}

// decLeaf is a DECIMAL column or literal.
func (g *gen) decLeaf() string {
	if !g.lits && g.intn(2) == 0 {
		return g.pick("x", "y")
	}
	return g.decLit(false)
}

// text is a text-valued expression: formatted dates, TIME text, casts.
func (g *gen) text(d int) string {
	if d < 1 {
		d = 1
	}
	switch g.intn(5) {
	case 0, 1:
		var f []string
		for i, k := 0, 1+g.intn(4); i < k; i++ {
			f = append(f, g.pick("%U", "%u", "%V", "%v", "%X", "%x", "%W", "%a", "%j", "%Y-%m-%d", "%H:%i:%s.%f", "%D", "%b", "%e", "%c", "%y", "%w", "%p", "%r", "%T", "%k", "%l", "%M", "%%"))
		}
		return fmt.Sprintf("DATE_FORMAT(%s, '%s')", g.anyTemporal(d-1), strings.Join(f, " "))
	case 2:
		return g.timeText(d)
	default:
		return fmt.Sprintf("CAST(%s AS CHAR)", g.pick(g.datetime(d-1), g.date(d-1), g.dec(d-1)))
	}
}

// boolean compares dates with text and decimals with literals.
func (g *gen) boolean(d int) string {
	g.cmp = true
	defer func() { g.cmp = false }()
	op := g.pick("=", "<", ">=", "<>", "<=>")
	switch g.intn(4) {
	case 0:
		rhs := g.validText()
		if !g.lits && g.intn(2) == 0 {
			rhs = "sv"
		}
		return fmt.Sprintf("(%s %s %s)", g.date(d-1), op, rhs)
	case 1:
		return fmt.Sprintf("(%s %s %s)", g.datetime(d-1), op, g.validText())
	case 2:
		return fmt.Sprintf("(%s BETWEEN %s AND %s)", g.date(d-1), g.validText(), g.validText())
	default:
		return fmt.Sprintf("(%s %s %s)", g.dec(d-1), op, g.decLit(false))
	}
}

// Seed and Count make the recorded queries (testdata/answers.test), then
// TZCount more of GenerateTZ's, TimeCount of GenerateTime's and
// TimeFuncCount of GenerateTimeFunc's (then NumDateCount of
// GenerateNumDate's, MoreCount of GenerateMore's and BetweenCount of
// GenerateTextBetween's).
const (
	Seed          = 1
	Count         = 300
	TZCount       = 40
	TimeCount     = 40
	TimeFuncCount = 30
	NumDateCount  = 25
	MoreCount     = 60
	BetweenCount  = 30
)

// GenerateMore returns n queries of the shapes the other streams leave
// out, from their own random stream (seed): aggregates with ALL (AVG of
// integers is DECIMAL with scale + 4) over the date and DECIMAL
// expressions, alone or grouped by an expression of a column; integer
// literals past BIGINT (exact DECIMALs) and integer division; digit-only
// date text of 5, 7, 9, 10 and 11 digits (MySQL 8 reads YY MM DD hh mm
// ss left to right); and dates compared with text that has trailing
// characters (the date its prefix holds).
func GenerateMore(seed int64, n int) []Query {
	g := &gen{r: rand.New(rand.NewSource(seed + 4))}
	out := make([]Query, 0, n)
	for len(out) < n {
		if g.intn(3) == 0 {
			out = append(out, Query{SQL: g.aggregateQuery()})
			continue
		}
		g.lits = g.intn(4) == 0
		var items []string
		for i, k := 0, 1+g.intn(3); i < k; i++ {
			items = append(items, g.moreItem(1+g.intn(3)))
		}
		q := "SELECT " + strings.Join(items, ", ")
		if !g.lits {
			q = "SELECT id, " + strings.Join(items, ", ") + " FROM e ORDER BY id"
		}
		out = append(out, Query{SQL: q})
	}
	return out
}

// aggregateQuery aggregates over the table, all rows or grouped by an
// expression of a column (ordered by it: NULL first in both).
func (g *gen) aggregateQuery() string {
	g.lits = false
	var aggs []string
	for i, k := 0, 1+g.intn(3); i < k; i++ {
		all := g.pick("", "ALL ")
		switch g.intn(5) {
		case 0:
			aggs = append(aggs, fmt.Sprintf("AVG(%s%s)", all, g.pick("n", "id", g.integer(1+g.intn(2)))))
		case 1:
			// + 0.5 keeps SUM's argument a DECIMAL (g.dec may be an integer).
			aggs = append(aggs, fmt.Sprintf("%s(%s(%s + 0.5))", g.pick("SUM", "AVG"), all, g.dec(1+g.intn(2))))
		case 2:
			aggs = append(aggs, fmt.Sprintf("COUNT(%s%s)", all, g.pick(g.date(1+g.intn(2)), g.datetime(1+g.intn(2)), "s", "x")))
		case 3:
			aggs = append(aggs, fmt.Sprintf("%s(%s)", g.pick("MIN", "MAX"), g.pick(g.date(1+g.intn(2)), g.datetime(1+g.intn(2)), g.dec(1+g.intn(2)))))
		default:
			// SUM of integers is BIGINT in gsql, DECIMAL in MySQL (README,
			// deliberate departures): an integer sum is AVG's or COUNT's.
			aggs = append(aggs, fmt.Sprintf("%s(%s%s)", g.pick("AVG", "COUNT"), all, g.pick("n", g.integer(1+g.intn(2)))))
		}
	}
	if g.intn(2) == 0 {
		return "SELECT " + strings.Join(aggs, ", ") + " FROM e"
	}
	key := g.pick("YEAR(d) DIV 1000", "n % 3", "id DIV 5", "QUARTER(d)", "x > 0")
	return fmt.Sprintf("SELECT %s AS k, %s FROM e GROUP BY %s ORDER BY k", key, strings.Join(aggs, ", "), key)
}

// Digit-only date text: valid, and not (month 24, day 0, no 29
// February). DATE_FORMAT reads a zero day or month as such in MySQL and
// MariaDB ('24010' is 2024-01-00), which gsql has no dates for, and a
// comparison with text that is no date falls back to comparing text
// there (Generate's comment): those two take valid text only.
var (
	digitDates    = []string{"24015", "99123", "9901011", "2401059", "240105103", "240105235", "2401052359", "24010523596", "0101011", "2402290"}
	badDigitDates = []string{"2024015", "2024010510", "20240105103", "24010", "2302290"}
)

// moreItem is one select item of GenerateMore's scalar shapes.
func (g *gen) moreItem(d int) string {
	switch g.intn(6) {
	case 0:
		// Past BIGINT UNSIGNED: MySQL reads 9223372036854775808 up to
		// 18446744073709551615 as BIGINT UNSIGNED (out of range errors),
		// a type gsql has not; larger ones are DECIMAL in both.
		big := g.pick("18446744073709551616", "99999999999999999999", "-9223372036854775809", "12345678901234567890123")
		op, rhs := g.pick("+", "-", "/", "*"), g.pick("1", "3", "0.5", "7", g.decLeaf())
		if !g.lits && g.intn(3) == 0 {
			rhs = "n"
		}
		if op == "*" {
			// A product stays within gsql's 38 digits (README).
			rhs = g.pick("3", "0.5", "-7")
		}
		return fmt.Sprintf("(%s %s %s)", big, op, rhs)
	case 1:
		a := g.pick("7", "1", "-8", "2147483647")
		if !g.lits {
			a = g.pick("n", "id", "n * 3", a)
		}
		return fmt.Sprintf("(%s / %s)", a, g.pick("2", "3", "7", "-4", "0", g.integer(d)))
	case 2:
		t := "'" + g.pick(digitDates...) + "'"
		any := "'" + g.pick(append(digitDates, badDigitDates...)...) + "'"
		switch g.intn(4) {
		case 0:
			return fmt.Sprintf("CAST(%s AS %s)", any, g.pick("DATE", "DATETIME(0)"))
		case 1:
			return fmt.Sprintf("%s(%s)", g.pick("YEAR", "DAYOFMONTH", "TO_DAYS", "LAST_DAY", "DATE", "WEEK"), any)
		case 2:
			return fmt.Sprintf("DATE_FORMAT(%s, '%%Y-%%m-%%d %%T')", t)
		}
		return fmt.Sprintf("(DATE '2024-01-05' %s %s)", g.pick("=", "<", ">="), t)
	case 3:
		// A date compared with text holding a date and trailing text.
		tail := g.pick("x", "abc", " x", " 12:00:00x", "T")
		lhs := g.date(d)
		if g.intn(2) == 0 {
			lhs = g.datetime(d)
		}
		return fmt.Sprintf("(%s %s '%s%s')", lhs, g.pick("=", "<", ">=", "<>"), g.dateLit(), tail)
	case 4:
		return g.integer(d)
	}
	return g.dec(d)
}

// GenerateTextBetween returns n queries of text BETWEEN bounds of which
// one or both are a DATE or DATETIME expression and the other valid
// text, from their own random stream (seed): MySQL 8
// (compare_as_dates_with_strings) and MariaDB compare every value as a
// DATETIME, the text on the left and in a bound too. Each is wrapped in
// IS TRUE: beside a NULL bound MySQL 8.0 answers 0 where MariaDB answers
// NULL (tests/sql/mysql_in_date_text.test). IN lists are left out:
// MariaDB compares them pair by pair, MySQL 8 as BETWEEN does.
func GenerateTextBetween(seed int64, n int) []Query {
	return generateItems(seed+5, n, 4, 3, func(g *gen) string { return g.textBetween(1 + g.intn(3)) })
}

func (g *gen) textBetween(d int) string {
	g.cmp = true
	defer func() { g.cmp = false }()
	date := func() string {
		if g.intn(2) == 0 {
			return g.date(d)
		}
		return g.datetime(d)
	}
	// Text that is no date is the zero date in both servers, below
	// every date: 'abc' and '' (not '2023-02-30', which MariaDB reads
	// as a day past February's last).
	text := func() string {
		switch {
		case !g.lits && g.intn(3) == 0:
			return "sv"
		case g.intn(4) == 0:
			return g.pick("'abc'", "''")
		}
		return g.validText()
	}
	left := g.validText()
	switch {
	case !g.lits && g.intn(4) != 0:
		left = g.pick("sv", "CONCAT(sv, '')", "LEFT(sv, 10)", "IF(id % 3 = 0, 'abc', sv)")
	case g.intn(3) == 0:
		left = g.pick("'abc'", "''", "'"+g.dateLit()+" 00:00:00'")
	}
	lo, hi := date(), text()
	switch g.intn(3) {
	case 0:
		lo, hi = hi, lo
	case 1:
		hi = date()
	}
	return fmt.Sprintf("((%s %sBETWEEN %s AND %s) IS TRUE)", left, g.pick("", "NOT "), lo, hi)
}

// GenerateNumDate returns n queries of numbers read as dates in MySQL's
// forms (YYMMDD, YYYYMMDD, YYMMDDhhmmss, YYYYMMDDhhmmss, and the gaps
// between them) and of digit-only text, by CAST, the field functions and
// date arithmetic (text out), from their own random stream (seed).
// Intervals are whole units: date arithmetic on text prints fractions
// apart in MariaDB and MySQL 8.
func GenerateNumDate(seed int64, n int) []Query {
	return generateItems(seed+3, n, 3, 3, func(g *gen) string { return g.numDateItem() })
}

func (g *gen) numDate() string {
	if !g.lits && g.intn(3) == 0 {
		return g.pick("n", "n * 10101 + 240000", "n + 20240229", "n * 1000000 + 240105103000")
	}
	return g.pick("240105", "991231", "691231", "700101", "101", "100", "1000105", "20240229", "99991231", "10000101",
		"240105103000", "991231235959", "20241231235959", "100000000", "20230230")
}

func (g *gen) numDateItem() string {
	x := g.numDate()
	switch g.intn(7) {
	case 0:
		return fmt.Sprintf("CAST(%s AS %s)", x, g.pick("DATE", "DATETIME(0)"))
	case 1:
		return fmt.Sprintf("%s(%s)", g.pick("YEAR", "MONTH", "DAYOFMONTH", "DAYOFWEEK", "TO_DAYS", "LAST_DAY", "DATE", "WEEKOFYEAR"), x)
	case 2:
		return fmt.Sprintf("DATE_ADD(%s, INTERVAL %s %s)", x, g.pick("1", "-1", "31", "12"), g.pick("DAY", "MONTH", "YEAR", "HOUR", "MINUTE", "SECOND", "WEEK"))
	case 3:
		return fmt.Sprintf("%s %s INTERVAL %s", x, g.pick("+", "-"), g.pick("1 DAY", "1 HOUR", "'1 2' DAY_HOUR", "'1-1' YEAR_MONTH"))
	case 4:
		return fmt.Sprintf("%s(%s, %s)", g.pick("ADDDATE", "SUBDATE"), x, g.pick("1", "30", "-366"))
	case 5:
		return fmt.Sprintf("DATE_FORMAT(%s, '%%Y-%%m-%%d %%T')", x)
	}
	return fmt.Sprintf("CAST(%s AS DATETIME(0))", g.pick("'240105'", "'20240105103000'", "'240105103000.5'", "'990105x'", "'24010'", "'20240105106000'"))
}

// GenerateTimeFunc returns n queries of TIME(expr) from their own random
// stream (seed): of text literals (a TIME, a datetime, digits, a number
// of seconds, text that is no TIME), of the table's dates, DATETIME(n)
// columns and BIGINTs, of CAST(... AS TIME(n)) and of TIME itself, read
// by TIME_FORMAT, HOUR, MINUTE, SECOND, MICROSECOND and CONCAT. Left out:
// text columns (MariaDB reads a date alone as a TIME, '2024-02-29' is
// 00:20:24), TIMEs past 838 hours with digits of a second (MySQL 8
// clamps to 838:59:59.000000, MariaDB keeps the largest fraction), the
// other TIME functions' results (MySQL types their digits per function)
// and TIME_TO_SEC of a fraction (MariaDB keeps it, MySQL 8 drops it).
func GenerateTimeFunc(seed int64, n int) []Query {
	return generateItems(seed+2, n, 4, 3, func(g *gen) string { return g.timeFuncItem(1 + g.intn(3)) })
}

// timeFuncArg is an argument of TIME(), nested d deep.
func (g *gen) timeFuncArg(d int) string {
	if d > 0 {
		switch g.intn(4) {
		case 0:
			return fmt.Sprintf("TIME(%s)", g.timeFuncArg(d-1))
		case 1:
			return fmt.Sprintf("CAST(%s AS TIME(%d))", g.timeFuncArg(d-1), g.intn(7))
		}
	}
	if !g.lits && g.intn(2) == 0 {
		return g.pick("d", "dt", "dt3", "dt6", "n", "n * 10101")
	}
	return g.pick("'10:30:15'", "'10:30:15.25'", "'-100:00:01.5'", "'838:59:59'", "'1 02:03:04'",
		"'00:00:00.000001'", "'23:59:59.999999'", "'103015'", "'12.5'", "'2024-02-29 13:14:15.125'", "'abc'", "'12:61:00'",
		"123456", "-10203", "12.5", "8385959", "TIMESTAMP '2024-02-29 13:14:15'", "DATE '2021-01-03'")
}

// timeFuncItem is TIME(x) or a function of it.
func (g *gen) timeFuncItem(d int) string {
	t := fmt.Sprintf("TIME(%s)", g.timeFuncArg(d-1))
	switch g.intn(5) {
	case 0:
		return fmt.Sprintf("TIME_FORMAT(%s, %s)", t, g.pick(timeFormats...))
	case 1:
		return fmt.Sprintf("%s(%s)", g.pick("HOUR", "MINUTE", "SECOND", "MICROSECOND"), t)
	case 2:
		return fmt.Sprintf("CONCAT(%s, '|')", t)
	}
	return t
}
