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
	r := rand.New(rand.NewSource(9))
	units := []string{"day", "week", "month", "quarter", "year", "decade", "century", "millennium"}
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
					got, err := evalDateTrunc([]*coldata.Vec{u, v}, n)
					if err != nil {
						t.Fatal(err)
					}
					for i := 0; i < n; i++ {
						if v.IsNull(i) != got.IsNull(i) {
							t.Fatalf("%s span %d base %d row %d: NULL %v, want %v", unit, span, base, i, got.IsNull(i), v.IsNull(i))
						}
						if v.IsNull(i) {
							continue
						}
						want := TruncTimestamp(uu, v.Ints[i])
						if v.Type == coldata.Date {
							want = truncDays(uu, v.Ints[i])
						}
						if got.Ints[i] != want {
							t.Fatalf("%s(%v) span %d base %d row %d: %d, want %d", unit, v.Type, span, base, i, got.Ints[i], want)
						}
					}
				}
			}
		}
	}
}
