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
