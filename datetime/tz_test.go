package datetime

import "testing"

// TestParseTZOffset: MySQL's str_to_offset, checked against a server
// (MariaDB 10.11.19 for the text forms; the range is MySQL 8.0.19's).
func TestParseTZOffset(t *testing.T) {
	for _, c := range []struct {
		s   string
		off int64
		ok  bool
	}{
		{"+00:00", 0, true}, {"-00:00", 0, true}, {"+05:30", 19800, true}, {"-1:00", -3600, true},
		{"+:30", 1800, true}, {"+1:0", 3600, true}, {"+1:5", 3900, true}, {"+001:05", 3900, true},
		{"+14:00", 14 * 3600, true}, {"-13:59", -(13*3600 + 59*60), true},
		{"+14:01", 0, false}, {"-14:00", 0, false}, {"+01:60", 0, false}, {"+1:", 0, false},
		{"01:00", 0, false}, {" +01:00", 0, false}, {"+01:00 ", 0, false}, {"+01:00:00", 0, false},
		{"+1:05x", 0, false}, {"+99999999999999999999:00", 0, false}, {"", 0, false}, {"UTC", 0, false},
	} {
		off, ok := ParseTZOffset(c.s)
		if ok != c.ok || off != c.off {
			t.Errorf("ParseTZOffset(%q) = %d, %v; want %d, %v", c.s, off, ok, c.off, c.ok)
		}
	}
}

func TestTZZone(t *testing.T) {
	for _, c := range []struct {
		s              string
		off            int64
		system, wantOK bool
	}{
		{"SYSTEM", 0, true, true}, {"system", 0, true, true}, {"SyStEm", 0, true, true},
		{"+02:00", 7200, false, true}, {"systemx", 0, false, false}, {"Europe/Berlin", 0, false, false},
	} {
		off, sys, ok := TZZone(c.s)
		if off != c.off || sys != c.system || ok != c.wantOK {
			t.Errorf("TZZone(%q) = %d, %v, %v", c.s, off, sys, ok)
		}
	}
}

func TestConvertTZ(t *testing.T) {
	ts := func(s string) int64 {
		v, ok := ParseTimestamp(s)
		if !ok {
			t.Fatalf("bad timestamp %q", s)
		}
		return v
	}
	for _, c := range []struct {
		in       string
		from, to int64
		want     string
	}{
		{"2024-01-05 10:00:00", 0, 19800, "2024-01-05 15:30:00"},
		{"2024-01-05 10:00:00.123", 0, -3600, "2024-01-05 09:00:00.123"},
		{"1970-01-01 00:00:00", 0, 3600, "1970-01-01 00:00:00"}, // instant 0: outside
		{"1970-01-01 00:00:01", 0, 3600, "1970-01-01 01:00:01"},
		{"1970-01-01 05:00:00", 5 * 3600, 3600, "1970-01-01 05:00:00"},
		{"2038-01-19 03:14:07.999999", 0, 3600, "2038-01-19 04:14:07.999999"},
		{"2038-01-19 03:14:08", 0, 3600, "2038-01-19 03:14:08"},
		{"0001-01-01 00:00:00", 0, 3600, "0001-01-01 00:00:00"},
		{"9999-12-31 23:59:59", 0, 3600, "9999-12-31 23:59:59"},
	} {
		if got := FormatTimestamp(ConvertTZ(ts(c.in), c.from, c.to)); got != c.want {
			t.Errorf("ConvertTZ(%s, %d, %d) = %s, want %s", c.in, c.from, c.to, got, c.want)
		}
	}
}

func TestUnixSeconds(t *testing.T) {
	for _, c := range []struct {
		us, want int64
	}{
		{0, 0}, {-1, 0}, {1_500_000, 1}, {MaxUnixSecond * MicrosPerSecond, MaxUnixSecond},
		{MaxUnixSecond*MicrosPerSecond + 999_999, MaxUnixSecond}, {(MaxUnixSecond + 1) * MicrosPerSecond, 0},
	} {
		if got := UnixSeconds(c.us); got != c.want {
			t.Errorf("UnixSeconds(%d) = %d, want %d", c.us, got, c.want)
		}
	}
}
