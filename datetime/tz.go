package datetime

// Time zones as numeric offsets, for CONVERT_TZ. gsql has no time-zone
// tables, so a zone is an offset ('+05:30', '-1:00') or SYSTEM, as on a
// MySQL server whose time-zone tables are empty; any other name is no
// zone (NULL). The GPU runtime (dt_tz_zone, dt_convert_tz in
// gpuexec/fuse/rt/mysql_time.cuh) mirrors this step for step.

// The offsets MySQL 8.0.19+ accepts, in seconds: -13:59..+14:00 (MariaDB
// and older MySQL: -12:59..+13:00).
const (
	MinTZOffset = -(13*3600 + 59*60)
	MaxTZOffset = 14 * 3600
)

// The TIMESTAMP range in seconds since the epoch (1970-01-01 00:00:01 ..
// 2038-01-19 03:14:07 UTC): CONVERT_TZ converts only instants inside it.
const (
	MinTimestampSecond = 1
	MaxTimestampSecond = 1<<31 - 1
)

// TZSystemVaries stands for a system zone whose offset is not one number
// (daylight saving time): SYSTEM is then read with the host's zone rules.
const TZSystemVaries = -1 << 62

// ParseTZOffset reads a numeric offset as MySQL's str_to_offset: a sign,
// hour digits (maybe none), ':', minute digits (at least one, at most
// 59), nothing else, at least four characters, within MinTZOffset ..
// MaxTZOffset. It returns the offset in seconds.
func ParseTZOffset(s string) (int64, bool) {
	if len(s) < 4 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	i := 1
	h, ok := tzDigits(s, &i)
	if !ok || i+1 >= len(s) || s[i] != ':' {
		return 0, false
	}
	i++
	m, ok := tzDigits(s, &i)
	if !ok || i != len(s) || m > 59 {
		return 0, false
	}
	off := (h*60 + m) * 60
	if s[0] == '-' {
		off = -off
	}
	if off < MinTZOffset || off > MaxTZOffset {
		return 0, false
	}
	return off, true
}

// tzDigits reads a run of digits at s[*i]; ok is false when it passes any
// offset (the server's counter would wrap; no such offset is valid).
func tzDigits(s string, i *int) (v int64, ok bool) {
	for *i < len(s) && isDigit(s[*i]) {
		if v = v*10 + int64(s[*i]-'0'); v > 1<<40 {
			return 0, false
		}
		*i++
	}
	return v, true
}

// TZZone reads a zone name: an offset (system false), or SYSTEM in any
// case (system true); ok is false for anything else.
func TZZone(s string) (off int64, system, ok bool) {
	if len(s) == 6 {
		same := true
		for k := 0; k < 6; k++ {
			same = same && s[k]|0x20 == "system"[k]
		}
		if same {
			return 0, true, true
		}
	}
	off, ok = ParseTZOffset(s)
	return off, false, ok
}

// ConvertTZ moves wall-clock TIMESTAMP t from offset from to offset to
// (seconds): t itself when its instant falls outside the TIMESTAMP range,
// as MySQL. The fraction of a second is kept.
func ConvertTZ(t, from, to int64) int64 {
	sec := floorDiv(t, MicrosPerSecond) - from
	if sec < MinTimestampSecond || sec > MaxTimestampSecond {
		return t
	}
	return t + (to-from)*MicrosPerSecond
}

// MaxUnixSecond is the last second FROM_UNIXTIME and UNIX_TIMESTAMP take
// in MySQL 8.0.28+ on 64-bit platforms: 3001-01-18 23:59:59 UTC.
const MaxUnixSecond = 32536771199

// UnixSeconds is UNIX_TIMESTAMP of TIMESTAMP t read as UTC: whole seconds
// since the epoch, 0 outside 1970-01-01 00:00:00 ..
// 3001-01-18 23:59:59.999999, as MySQL 8.
func UnixSeconds(t int64) int64 {
	s := floorDiv(t, MicrosPerSecond)
	if s < 0 || s > MaxUnixSecond {
		return 0
	}
	return s
}
