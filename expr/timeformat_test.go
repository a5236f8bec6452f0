package expr

import (
	"testing"

	"github.com/gsqlengine/gsql/datetime"
)

// TestAppendTimeFormat: TIME_FORMAT's specifiers over TIMEs past 24 hours
// and negative (MariaDB 10.11's answers; the date zeros are MySQL 8's).
func TestAppendTimeFormat(t *testing.T) {
	for _, c := range []struct {
		time, format, want string // want "NULL": the format gives no value
	}{
		{"10:30:15", "%H %i %s", "10 30 15"},
		{"100:30:15", "%H %k %h %I %l %p %r %T", "100 100 04 04 4 AM 04:30:15 AM 100:30:15"},
		{"-100:30:15.5", "%H %k %f %S", "-100 100 500000 15"},
		{"00:30:15", "%h %I %l %p %r", "12 12 12 AM 12:30:15 AM"},
		{"12:30:15", "%h %p %r", "12 PM 12:30:15 PM"},
		{"24:00:00", "%H %k %h %l %p", "24 24 12 12 AM"},
		{"-838:59:59", "%k:%i:%s %h %p", "-838:59:59 10 PM"},
		{"10:30:00", "%%%q%", "%q%"},
		{"10:30:00", "%Y-%m-%d %c %e %y", "0000-00-00 0 0 00"},
		{"10:30:00", "%M", "NULL"},
		{"10:30:00", "%j", "NULL"},
		{"10:30:00", "%x %H", "NULL"},
	} {
		tm, ok := datetime.ParseTime(c.time)
		if !ok {
			t.Fatalf("ParseTime(%q) failed", c.time)
		}
		got := "NULL"
		if TimeFormatValid(c.format) {
			got = string(AppendTimeFormat(nil, c.format, tm))
		}
		if got != c.want {
			t.Errorf("TIME_FORMAT(%q, %q) = %q, want %q", c.time, c.format, got, c.want)
		}
	}
}

// TestParseDayClock: STR_TO_DATE of a day and times is days and hours;
// day 0 is allowed, past 31 is not.
func TestParseDayClock(t *testing.T) {
	h := int64(datetime.MicrosPerHour)
	for _, c := range []struct {
		s, f string
		want int64 // -1: no value
	}{
		{"0 10", "%d %H", 10 * h},
		{"05 10", "%d %H", 130 * h},
		{"0th 10", "%D %H", 10 * h},
		{"31 23", "%e %H", 767 * h},
		{"32 10", "%e %H", -1},
		{"0 25", "%d %H", -1},
		{"x", "%d %H", -1},
	} {
		got, ok := ParseDayClock(c.s, c.f)
		if !ok {
			got = -1
		}
		if got != c.want {
			t.Errorf("ParseDayClock(%q, %q) = %d, want %d", c.s, c.f, got, c.want)
		}
	}
}
