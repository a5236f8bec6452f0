package expr

import (
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/datetime"
)

// truncReference is DATE_TRUNC spelled out from the civil date for every
// unit (what TruncTimestamp computed before it read the civil date only
// for months and longer units).
func truncReference(u Unit, t int64) int64 {
	d, _ := datetime.SplitTimestamp(t)
	y, m, _ := datetime.CivilFromDays(d)
	floor := func(step int64) int64 { return datetime.FloorDiv(t, step) * step }
	var z int64
	switch u {
	case UnitMicrosecond:
		return t
	case UnitMillisecond:
		return floor(1000)
	case UnitSecond:
		return floor(datetime.MicrosPerSecond)
	case UnitMinute:
		return floor(datetime.MicrosPerMinute)
	case UnitHour:
		return floor(datetime.MicrosPerHour)
	case UnitDay:
		return floor(datetime.MicrosPerDay)
	case UnitWeek:
		z = d - (datetime.DayOfWeek(d)+5)%7
	case UnitMonth:
		z = datetime.DaysFromCivil(y, m, 1)
	case UnitQuarter:
		z = datetime.DaysFromCivil(y, (m-1)/3*3+1, 1)
	case UnitYear:
		z = datetime.DaysFromCivil(y, 1, 1)
	case UnitDecade:
		z = datetime.DaysFromCivil(datetime.FloorDiv(y, 10)*10, 1, 1)
	case UnitCentury:
		z = datetime.DaysFromCivil((y-1)/100*100+1, 1, 1)
	case UnitMillennium:
		z = datetime.DaysFromCivil((y-1)/1000*1000+1, 1, 1)
	}
	return z * datetime.MicrosPerDay
}

// TestTruncUnits: TruncTimestamp and the date form (truncDays) agree with
// the civil-date reference for every unit, over timestamps and dates from
// year 1 to 9999 (before 1970 too) and the week and month edges.
func TestTruncUnits(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	lo, hi := datetime.DaysFromCivil(1, 1, 1), datetime.DaysFromCivil(9999, 12, 31)
	days := []int64{lo, hi, 0, -1, 1, datetime.DaysFromCivil(2024, 2, 29), datetime.DaysFromCivil(2021, 1, 3), datetime.DaysFromCivil(2021, 1, 4)}
	for i := 0; i < 2000; i++ {
		days = append(days, lo+r.Int63n(hi-lo+1))
	}
	for u := UnitMicrosecond; u <= UnitMillennium; u++ {
		for _, d := range days {
			ts := d*datetime.MicrosPerDay + r.Int63n(datetime.MicrosPerDay)
			if got, want := TruncTimestamp(u, ts), truncReference(u, ts); got != want {
				t.Fatalf("unit %d, timestamp %d: %d, want %d", u, ts, got, want)
			}
			want, _ := datetime.SplitTimestamp(truncReference(u, d*datetime.MicrosPerDay))
			if got := truncDays(u, d); got != want {
				t.Fatalf("unit %d, date %d: %d, want %d", u, d, got, want)
			}
		}
	}
}
