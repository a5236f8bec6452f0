package datetime

import (
	"testing"
	"time"
)

// The calendar agrees with Go's time package on every day from 0001-01-01
// to 9999-12-31.
func TestCivilMatchesTimePackage(t *testing.T) {
	day := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	for z := MinDays; z <= MaxDays; z++ {
		y, m, d := CivilFromDays(z)
		if int(y) != day.Year() || time.Month(m) != day.Month() || int(d) != day.Day() {
			t.Fatalf("CivilFromDays(%d) = %d-%d-%d, want %s", z, y, m, d, day.Format("2006-01-02"))
		}
		if back := DaysFromCivil(y, m, d); back != z {
			t.Fatalf("DaysFromCivil(%d-%d-%d) = %d, want %d", y, m, d, back, z)
		}
		if got, want := DayOfWeek(z), int64(day.Weekday())+1; got != want {
			t.Fatalf("DayOfWeek(%s) = %d, want %d", day.Format("2006-01-02"), got, want)
		}
		if _, w := day.ISOWeek(); ISOWeek(z) != int64(w) {
			t.Fatalf("ISOWeek(%s) = %d, want %d", day.Format("2006-01-02"), ISOWeek(z), w)
		}
		if DayOfYear(z) != int64(day.YearDay()) {
			t.Fatalf("DayOfYear(%s) = %d", day.Format("2006-01-02"), DayOfYear(z))
		}
		day = day.AddDate(0, 0, 1)
	}
	if z := DaysFromCivil(1970, 1, 1); z != 0 {
		t.Fatalf("epoch day = %d", z)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in        string
		date, ts  string // "" = rejected
		dateValid bool
	}{
		{"2024-01-05", "2024-01-05", "2024-01-05 00:00:00", true},
		{" 2024-1-5 ", "2024-01-05", "2024-01-05 00:00:00", true},
		{"2024/01/05", "2024-01-05", "2024-01-05 00:00:00", true},
		{"20240105", "2024-01-05", "2024-01-05 00:00:00", true},
		{"2024-01-05 10:30:00", "2024-01-05", "2024-01-05 10:30:00", true},
		{"2024-01-05T10:30:00.123Z", "2024-01-05", "2024-01-05 10:30:00.123", true},
		{"2024-01-05 10:30", "2024-01-05", "2024-01-05 10:30:00", true},
		// A seventh digit rounds, as MySQL 8 reads text.
		{"2024-01-05 10:30:00.1234567", "2024-01-05", "2024-01-05 10:30:00.123457", true},
		{"2024-01-05 10:30:00.1234564", "2024-01-05", "2024-01-05 10:30:00.123456", true},
		{"2024-01-05 23:59:59.9999995", "2024-01-05", "2024-01-06 00:00:00", true},
		{"9999-12-31 23:59:59.9999999", "9999-12-31", "9999-12-31 23:59:59.999999", true},
		{"24-1-5", "2024-01-05", "2024-01-05 00:00:00", true},
		{"70-01-01 10:00", "1970-01-01", "1970-01-01 10:00:00", true},
		{"2024-02-29", "2024-02-29", "2024-02-29 00:00:00", true},
		{"2023-02-29", "", "", false},
		{"2024-13-01", "", "", false},
		{"2024-01-05 24:00:00", "", "", false},
		{"2024-01-05 10:60", "", "", false},
		{"2024-01-05x", "", "", false},
		{"0000-01-01", "", "", false},
		{"abc", "", "", false},
		{"", "", "", false},
		{"2024-01-05 10:30:00.", "", "", false},
	} {
		d, ok := ParseDate(tc.in)
		if ok != tc.dateValid || ok && FormatDate(d) != tc.date {
			t.Errorf("ParseDate(%q) = %s, %v; want %s, %v", tc.in, FormatDate(d), ok, tc.date, tc.dateValid)
		}
		ts, ok := ParseTimestamp(tc.in)
		if ok != (tc.ts != "") || ok && FormatTimestamp(ts) != tc.ts {
			t.Errorf("ParseTimestamp(%q) = %s, %v; want %q", tc.in, FormatTimestamp(ts), ok, tc.ts)
		}
	}
}

func TestAddMonthsAndWeeks(t *testing.T) {
	for _, tc := range []struct {
		from string
		n    int64
		want string
	}{
		{"2024-01-31", 1, "2024-02-29"},
		{"2023-01-31", 1, "2023-02-28"},
		{"2024-03-31", -1, "2024-02-29"},
		{"2024-01-15", 12, "2025-01-15"},
		{"2024-01-15", -25, "2021-12-15"},
	} {
		z, _ := ParseDate(tc.from)
		got, ok := AddMonths(z, tc.n)
		if !ok || FormatDate(got) != tc.want {
			t.Errorf("AddMonths(%s, %d) = %s, %v; want %s", tc.from, tc.n, FormatDate(got), ok, tc.want)
		}
	}
	if _, ok := AddMonths(MaxDays, 1); ok {
		t.Errorf("AddMonths past 9999 succeeded")
	}
	// MySQL's WEEK(d, 0): weeks start on Sunday; days before the first
	// Sunday of the year are week 0.
	for in, want := range map[string]int64{"2008-02-20": 7, "2024-01-05": 0, "2024-01-07": 1, "2023-12-31": 53} {
		z, _ := ParseDate(in)
		if got := Week(z); got != want {
			t.Errorf("Week(%s) = %d, want %d", in, got, want)
		}
	}
}

func TestTimestampSplitNegative(t *testing.T) {
	ts, _ := ParseTimestamp("1969-12-31 23:59:59.5")
	d, us := SplitTimestamp(ts)
	if FormatDate(d) != "1969-12-31" || us != 23*MicrosPerHour+59*MicrosPerMinute+59*MicrosPerSecond+500000 {
		t.Fatalf("SplitTimestamp = %d, %d", d, us)
	}
	if got := FormatTimestamp(ts); got != "1969-12-31 23:59:59.5" {
		t.Fatalf("FormatTimestamp = %s", got)
	}
}

// TestParsePrefix: text with trailing characters is the date or timestamp
// its prefix holds (MariaDB 10.11's CAST answers); text that goes on with
// digits after punctuation, an invalid date, or no date at all is not.
func TestParsePrefix(t *testing.T) {
	for _, c := range []struct {
		in, ts string // ts "" for not a timestamp
	}{
		{"2024-02-29", "2024-02-29 00:00:00"},
		{"2024-02-29x", "2024-02-29 00:00:00"},
		{" 2024-02-29 x ", "2024-02-29 00:00:00"},
		{"2024-02-29T", "2024-02-29 00:00:00"},
		{"2024-02-29--x", "2024-02-29 00:00:00"},
		{"2024-02-29 12:00:00.5x", "2024-02-29 12:00:00.5"},
		{"2024-02-29 12:00:00.x", "2024-02-29 12:00:00"},
		{"2024-02-29 12:00x", "2024-02-29 12:00:00"},
		{"2024-02-29 12:00:00Zx", "2024-02-29 12:00:00"},
		{"2024-02-29 12:00:00:x", "2024-02-29 12:00:00"},
		{"2024-02-29x 12:00:00", "2024-02-29 00:00:00"},
		{"20240229x", "2024-02-29 00:00:00"},
		{"24-2-9!", "2024-02-09 00:00:00"},
		{"2024-02-29 12", ""},
		{"2024-02-29 12:x", ""},
		{"2024-02-29.5x", ""},
		{"2024-02-30x", ""},
		{"2024-02-291", ""},
		{"x2024-02-29", ""},
		{"", ""},
	} {
		got, ok := ParseTimestampPrefix(c.in)
		if c.ts == "" {
			if ok {
				t.Errorf("ParseTimestampPrefix(%q) = %s, want not a timestamp", c.in, FormatTimestamp(got))
			}
			if _, ok := ParseDatePrefix(c.in); ok {
				t.Errorf("ParseDatePrefix(%q) reads a date", c.in)
			}
			continue
		}
		if !ok || FormatTimestamp(got) != c.ts {
			t.Errorf("ParseTimestampPrefix(%q) = %s, %v, want %s", c.in, FormatTimestamp(got), ok, c.ts)
		}
		z, ok := ParseDatePrefix(c.in)
		if !ok || FormatDate(z) != c.ts[:10] {
			t.Errorf("ParseDatePrefix(%q) = %s, %v, want %s", c.in, FormatDate(z), ok, c.ts[:10])
		}
	}
}
