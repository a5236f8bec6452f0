package datetime

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestWeekModesServer compares WEEK(d, 0..7) and YEARWEEK(d, 0..7) with a
// server's answers for the days around every New Year from 1995 to 2031
// (every weekday Jan 1 can fall on, leap years and not) and the 15th of
// every month (testdata/weeks_mariadb.tsv, its first line says which
// server).
func TestWeekModesServer(t *testing.T) {
	f, err := os.Open("testdata/weeks_mariadb.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		col := strings.Split(line, "\t")
		z, ok := ParseDate(col[0])
		if !ok {
			t.Fatalf("bad date %q", col[0])
		}
		for mode := int64(0); mode < 8; mode++ {
			want, _ := strconv.ParseInt(col[1+mode], 10, 64)
			if got := WeekOf(z, mode); got != want {
				t.Errorf("WEEK(%s, %d) = %d, want %d", col[0], mode, got, want)
			}
			want, _ = strconv.ParseInt(col[9+mode], 10, 64)
			if got := YearWeek(z, mode); got != want {
				t.Errorf("YEARWEEK(%s, %d) = %d, want %d", col[0], mode, got, want)
			}
		}
		rows++
	}
	if rows < 1000 {
		t.Fatalf("read %d rows", rows)
	}
}

func TestWeekEnds(t *testing.T) {
	for _, c := range []struct {
		date       string
		mode, week int64
		yearweek   int64
	}{
		{"0001-01-01", 0, 0, 53}, // the week of year 0, which gsql cannot print as a date
		{"0001-01-01", 2, 53, 53},
		{"9999-12-31", 1, 52, 999952},
		{"9999-12-31", 3, 52, 999952},
		{"2024-01-01", 8, 0, 202353}, // only the low three bits count
		{"2024-01-01", -1, 1, 202401},
		{"2021-01-03", 0, 1, 202101},
	} {
		z, _ := ParseDate(c.date)
		if got := WeekOf(z, c.mode); got != c.week {
			t.Errorf("WEEK(%s, %d) = %d, want %d", c.date, c.mode, got, c.week)
		}
		if got := YearWeek(z, c.mode); got != c.yearweek {
			t.Errorf("YEARWEEK(%s, %d) = %d, want %d", c.date, c.mode, got, c.yearweek)
		}
	}
}

func TestDayNumbers(t *testing.T) {
	for _, c := range []struct {
		date string
		n    int64
	}{
		{"1970-01-01", 719528}, {"0001-01-01", 366}, {"9999-12-31", 3652424}, {"1995-05-01", 728779},
	} {
		z, _ := ParseDate(c.date)
		if got := ToDays(z); got != c.n {
			t.Errorf("TO_DAYS(%s) = %d, want %d", c.date, got, c.n)
		}
		if got, ok := FromDays(c.n); !ok || got != z {
			t.Errorf("FROM_DAYS(%d) = %s %v", c.n, FormatDate(got), ok)
		}
	}
	for _, n := range []int64{0, 365, 3652425, -1} {
		if _, ok := FromDays(n); ok {
			t.Errorf("FROM_DAYS(%d) is a date", n)
		}
	}
}

func TestMakeDate(t *testing.T) {
	for _, c := range []struct {
		y, doy int64
		want   string // "" for NULL
	}{
		{2024, 60, "2024-02-29"}, {2024, 0, ""}, {24, 1, "2024-01-01"}, {70, 1, "1970-01-01"},
		{2024, 400, "2025-02-03"}, {9999, 366, ""}, {0, 1, "2000-01-01"}, {-1, 1, ""}, {10000, 1, ""},
	} {
		z, ok := MakeDate(c.y, c.doy)
		got := ""
		if ok {
			got = FormatDate(z)
		}
		if got != c.want {
			t.Errorf("MAKEDATE(%d, %d) = %q, want %q", c.y, c.doy, got, c.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		s    string
		want string // "" when not a time
	}{
		{"22:23:00", "22:23:00"}, {"1 10:00:00", "34:00:00"}, {"10:30", "10:30:00"}, {"1030", "00:10:30"},
		{"103000", "10:30:00"}, {"30", "00:00:30"}, {"10:61:00", ""}, {"900:00:00", "838:59:59"},
		{" 10:00:00 ", "10:00:00"}, {"-1 01:00:00", "-25:00:00"}, {"10:00:60", ""}, {"abc", ""},
		{"10:00:00.7", "10:00:00.7"}, {"2024-01-05 01:02:03.5", "01:02:03.5"}, {"-00:00:00.000001", "-00:00:00.000001"},
		{"", ""}, {"-", ""}, {"1:", ""},
	} {
		v, ok := ParseTime(c.s)
		got := ""
		if ok {
			got = string(AppendTime(nil, v))
		}
		if got != c.want {
			t.Errorf("ParseTime(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestPeriods(t *testing.T) {
	for _, c := range []struct {
		p, months int64
		ok        bool
	}{
		{200801, 2008*12 + 0, true}, {801, 2008 * 12, true}, {6912, 2069*12 + 11, true}, {7001, 1970 * 12, true},
		{200813, 0, false}, {200800, 0, false}, {0, 0, false}, {-1, 0, false},
	} {
		m, ok := PeriodMonths(c.p)
		if ok != c.ok || (ok && m != c.months) {
			t.Errorf("PeriodMonths(%d) = %d %v, want %d %v", c.p, m, ok, c.months, c.ok)
		}
		if ok && MonthsPeriod(m)%10000 != c.p%10000 {
			t.Errorf("MonthsPeriod(%d) = %d", m, MonthsPeriod(m))
		}
	}
}

func TestIntervalFields(t *testing.T) {
	for _, c := range []struct {
		s      string
		n      int
		micros bool
		want   []int64
		neg    bool
		ok     bool
	}{
		{"1 2", 2, false, []int64{1, 2}, false, true},
		{"2", 2, false, []int64{0, 2}, false, true},
		{"-1 2", 2, false, []int64{1, 2}, true, true},
		{"1 2 3", 2, false, nil, false, false},
		{"x", 2, false, []int64{0, 0}, false, true},
		{"1.5", 2, true, []int64{1, 500000}, false, true},
		{"5", 2, true, []int64{0, 500000}, false, true},
		{"1 1:1:1.000002", 5, true, []int64{1, 1, 1, 1, 2}, false, true},
		{"  1 : 2", 2, false, []int64{1, 2}, false, true},
	} {
		got, neg, ok := IntervalFields(c.s, c.n, c.micros)
		if ok != c.ok || neg != c.neg || (ok && !equalInts(got, c.want)) {
			t.Errorf("IntervalFields(%q, %d) = %v %v %v, want %v %v %v", c.s, c.n, got, neg, ok, c.want, c.neg, c.ok)
		}
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRoundTimeFsp: CAST(... AS TIME(n)) rounds half away from zero to n
// digits, clamps to 838 hours and prints exactly n digits.
func TestRoundTimeFsp(t *testing.T) {
	for _, c := range []struct {
		in   string
		fsp  int
		want string
	}{
		{"10:30:15.25", 1, "10:30:15.3"},
		{"10:30:15.5", 0, "10:30:16"},
		{"-10:30:15.5", 0, "-10:30:16"},
		{"-00:00:00.4", 0, "00:00:00"},
		{"838:59:59.5", 0, "838:59:59"},
		{"10:30", 3, "10:30:00.000"},
		{"00:00:10.5", 2, "00:00:10.50"},
		{"23:59:59.9999996", 6, "24:00:00.000000"},
	} {
		tm, ok := ParseTime(c.in)
		if !ok {
			t.Fatalf("ParseTime(%q) failed", c.in)
		}
		if got := string(AppendTimeFsp(nil, RoundTime(tm, c.fsp), c.fsp)); got != c.want {
			t.Errorf("TIME(%d) of %q = %q, want %q", c.fsp, c.in, got, c.want)
		}
	}
}

// TestNumberDate: MySQL's number forms of a date and the gaps between
// them (number_to_datetime).
func TestNumberDate(t *testing.T) {
	cases := []struct {
		x        int64
		ymd, hms int64
		ok       bool
	}{
		{100, 0, 0, false}, {101, 20000101, 0, true}, {240105, 20240105, 0, true}, {691231, 20691231, 0, true},
		{691232, 0, 0, false}, {700101, 19700101, 0, true}, {991231, 19991231, 0, true}, {1000105, 0, 0, false},
		{10000101, 10000101, 0, true}, {99991231, 99991231, 0, true}, {100000000, 0, 0, false},
		{240105103000, 20240105, 103000, true}, {691231235959, 20691231, 235959, true}, {700101000000, 19700101, 0, true},
		{991231235960, 0, 0, false}, {20240105103000, 20240105, 103000, true}, {99991231235960, 0, 0, false}, {-240105, 0, 0, false},
	}
	for _, c := range cases {
		ymd, hms, ok := NumberDate(c.x)
		if ok != c.ok || (ok && (ymd != c.ymd || hms != c.hms)) {
			t.Errorf("NumberDate(%d) = %d, %d, %v; want %d, %d, %v", c.x, ymd, hms, ok, c.ymd, c.hms, c.ok)
		}
	}
}

// TestDigitDates: six, twelve and fourteen digits of text, and what
// TruncatedPrefix says of text with a tail.
func TestDigitDates(t *testing.T) {
	for _, c := range []struct {
		s    string
		want string // "" for no timestamp
	}{
		{"240105", "2024-01-05 00:00:00"}, {" 990105 ", "1999-01-05 00:00:00"}, {"24010", ""}, {"240105 10:30:00", ""},
		{"20240105103000", "2024-01-05 10:30:00"}, {"240105103000.5", "2024-01-05 10:30:00.5"}, {"20240105103000Z", "2024-01-05 10:30:00"},
		{"20240105106000", ""}, {"2024010510300", ""}, {"2024-01-05103000", ""},
	} {
		v, ok := ParseTimestamp(c.s)
		if got := ""; ok {
			got = FormatTimestamp(v)
			if got != c.want {
				t.Errorf("ParseTimestamp(%q) = %s, want %q", c.s, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("ParseTimestamp(%q) failed, want %s", c.s, c.want)
		}
	}
	for _, c := range []struct {
		s    string
		date bool
		kind string
	}{
		{"2024-01-05abc", true, "date"}, {"2024-01-05 10:11:12 x", false, "datetime"}, {"20240105103000x", false, "datetime"},
		{"2024-01-05", true, ""}, {"2024-01-05  ", false, ""}, {"2024-01-05T", false, ""}, {"abc", true, ""}, {"2024-02-30x", true, ""},
	} {
		kind, ok := TruncatedPrefix(c.s, c.date)
		if ok != (c.kind != "") || kind != c.kind {
			t.Errorf("TruncatedPrefix(%q) = %q, %v; want %q", c.s, kind, ok, c.kind)
		}
	}
}

// TestTimeClamped: TIME text past 838:59:59 either way.
func TestTimeClamped(t *testing.T) {
	for s, want := range map[string]bool{"839:00:00": true, "-900:00:00.5": true, "838:59:59": false, "34 23:00:00": true, "abc": false, "2024-01-05 10:00:00": false} {
		if got := TimeClamped(s); got != want {
			t.Errorf("TimeClamped(%q) = %v, want %v", s, got, want)
		}
	}
}
