package expr

import (
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
)

// TestDateTruncTableMatchesRows holds DATE_TRUNC's table over the days a
// vector spans to the row-at-a-time truncation: dates and timestamps,
// before and after 1970, narrow spans (the table) and wide ones (row at a
// time), with NULLs, for every unit of a day or more.
func TestDateTruncTableMatchesRows(t *testing.T) {
	forDayTables(t, []string{"day", "week", "month", "quarter", "year", "decade", "century", "millennium"}, func(unit string, uu Unit, u, v *coldata.Vec, n int) (*coldata.Vec, func(int) int64) {
		got, err := evalDateTrunc([]*coldata.Vec{u, v}, n)
		if err != nil {
			t.Fatal(err)
		}
		return got, func(i int) int64 {
			if v.Type == coldata.Date {
				return truncDays(uu, v.Ints[i])
			}
			return TruncTimestamp(uu, v.Ints[i])
		}
	})
}

// TestExtractTableMatchesRows holds EXTRACT of the calendar fields, taken
// once per day a vector spans, to ExtractField row by row, over the same
// dates and timestamps; the time-of-day fields and EPOCH keep the rows.
func TestExtractTableMatchesRows(t *testing.T) {
	units := []string{"day", "week", "month", "quarter", "year", "decade", "century", "millennium", "dow", "doy", "isodow", "hour", "epoch"}
	forDayTables(t, units, func(unit string, uu Unit, u, v *coldata.Vec, n int) (*coldata.Vec, func(int) int64) {
		got, err := evalExtract([]*coldata.Vec{u, v}, n)
		if err != nil {
			t.Fatal(err)
		}
		return got, func(i int) int64 { return ExtractField(uu, asMicros(v, i)) }
	})
}

// forDayTables runs eval (an evaluation of unit over v, and the value row
// i should have) over dates and timestamps before and after 1970, narrow
// spans (the day table) and wide ones (row at a time), with NULLs holding
// garbage, and compares every row.
func forDayTables(t *testing.T, units []string, eval func(unit string, uu Unit, u, v *coldata.Vec, n int) (*coldata.Vec, func(int) int64)) {
	t.Helper()
	r := rand.New(rand.NewSource(9))
	for _, span := range []int64{1, 40, 3000, 400_000} {
		for _, base := range []int64{-800_000, -400, 0, 19_000} {
			const n = 5000
			dates, stamps := coldata.NewVec(coldata.Date, n), coldata.NewVec(coldata.Timestamp, n)
			for i := 0; i < n; i++ {
				d := base + r.Int63n(span)
				dates.Ints[i] = d
				stamps.Ints[i] = d*datetime.MicrosPerDay + r.Int63n(datetime.MicrosPerDay)
				if i%17 == 3 {
					dates.SetNull(i)
					stamps.SetNull(i)
					dates.Ints[i], stamps.Ints[i] = 1<<40, -1<<60 // garbage under NULL
				}
			}
			for _, unit := range units {
				uu, ok := ParseUnit(unit)
				if !ok {
					t.Fatalf("unit %q", unit)
				}
				u := coldata.NewConst(coldata.String, unit, n)
				for _, v := range []*coldata.Vec{dates, stamps} {
					got, wantAt := eval(unit, uu, u, v, n)
					for i := 0; i < n; i++ {
						if v.IsNull(i) != got.IsNull(i) {
							t.Fatalf("%s span %d base %d row %d: NULL %v, want %v", unit, span, base, i, got.IsNull(i), v.IsNull(i))
						}
						if v.IsNull(i) {
							continue
						}
						if want := wantAt(i); got.Ints[i] != want {
							t.Fatalf("%s(%v) span %d base %d row %d: %d, want %d", unit, v.Type, span, base, i, got.Ints[i], want)
						}
					}
				}
			}
		}
	}
}
