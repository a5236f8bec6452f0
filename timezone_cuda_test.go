//go:build cuda

package gsql_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/decimal"
)

// tzTable is the table tzt: ts TIMESTAMP (years 1900..2100 with the
// TIMESTAMP range's edges, microseconds), d DATE, off and off2 VARCHAR
// zones (offsets valid, loose and out of range, SYSTEM, names), s VARCHAR
// text (datetimes with two-digit years and seven digits of a second, TIME
// text, no date), u DECIMAL(16,3) seconds since the epoch (negative ones
// too); a tenth of each NULL.
func tzTable(n int, seed int64) (*arrow.Schema, arrow.Record) {
	rng := rand.New(rand.NewSource(seed))
	names := []string{"ts", "d", "off", "off2", "s", "u"}
	types := []coldata.Type{coldata.Timestamp, coldata.Date, coldata.String, coldata.String, coldata.String, coldata.DecimalOf(16, 3)}
	bs := make([]*coldata.Builder, len(types))
	for i, ty := range types {
		bs[i] = coldata.NewBuilder(ty, n)
	}
	lo := datetime.DaysFromCivil(1900, 1, 1) * datetime.MicrosPerDay
	hi := datetime.DaysFromCivil(2100, 1, 1) * datetime.MicrosPerDay
	edges := []int64{0, datetime.MicrosPerSecond, (1<<31 - 1) * datetime.MicrosPerSecond, (1 << 31) * datetime.MicrosPerSecond,
		datetime.MinDays * datetime.MicrosPerDay, (datetime.MaxDays+1)*datetime.MicrosPerDay - 1}
	zones := []string{"+00:00", "+05:30", "-1:00", "+13:00", "-12:59", "+14:00", "-13:59", "+14:01", "+:30", "+1:5",
		"+01:60", "SYSTEM", "system", "UTC", "Europe/Berlin", "", "+1:"}
	texts := []string{"24-1-5 10:30:00", "99-12-31 23:59:59.9999995", "2024-01-05 10:30:00.1234565", "10:30:00",
		"-100:30:00.5", "2023-02-30 10:00:00", "abc", "70-01-01", "2038-01-19 03:14:07.999999"}
	zone := func() string {
		if rng.Intn(4) == 0 {
			return zones[rng.Intn(len(zones))]
		}
		h, m := rng.Intn(15), rng.Intn(60)
		sign := "+"
		if rng.Intn(2) == 0 {
			sign = "-"
		}
		return fmt.Sprintf("%s%02d:%02d", sign, h, m)
	}
	for row := 0; row < n; row++ {
		if rng.Intn(10) == 0 {
			for _, b := range bs {
				b.AppendNull()
			}
			continue
		}
		ts := lo + rng.Int63n(hi-lo)
		if rng.Intn(20) == 0 {
			ts = edges[rng.Intn(len(edges))] + int64(rng.Intn(3)-1)*datetime.MicrosPerHour
		}
		bs[0].AppendInt(ts)
		bs[1].AppendInt(datetime.FloorDiv(ts, datetime.MicrosPerDay))
		bs[2].AppendString(zone())
		bs[3].AppendString(zone())
		if rng.Intn(3) == 0 {
			bs[4].AppendString(texts[rng.Intn(len(texts))])
		} else {
			bs[4].AppendString(datetime.FormatTimestamp(ts))
		}
		bs[5].AppendDec(decimal.FromInt64(rng.Int63n(5_000_000_000_000) - 100_000_000_000))
	}
	cols := make([]*coldata.Vec, len(bs))
	fields := make([]arrow.Field, len(bs))
	for i, b := range bs {
		cols[i] = b.Finish()
		fields[i] = arrow.Field{Name: names[i], Type: coldata.ArrowType(types[i]), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return schema, coldata.BatchToRecord(schema, &coldata.Batch{Cols: cols, Len: n})
}

// TestGPUTimeZonesMatchCPU runs CONVERT_TZ (offsets from columns, SYSTEM,
// zones that are none, instants outside TIMESTAMP's range), FROM_UNIXTIME
// and UNIX_TIMESTAMP with fractions and formats, STR_TO_DATE typed as a
// TIME, HOUR/MINUTE/SECOND of TIME text and text dates with two-digit
// years or seven digits of a second over 1M rows on a strict-GPU
// database, and compares every row with the CPU backend (sorted).
func TestGPUTimeZonesMatchCPU(t *testing.T) {
	schema, rec := tzTable(1_000_000, 38)
	defer rec.Release()
	cpu, gpu := cpuAndGPU(t, "tzt", schema, []arrow.Record{rec})
	queries := []string{
		"SELECT CONVERT_TZ(ts, off, off2), CONVERT_TZ(d, '+00:00', off), CONVERT_TZ(s, off2, 'SYSTEM') FROM tzt",
		"SELECT DATE_FORMAT(CONVERT_TZ(ts, 'system', off), '%Y-%m-%d %H:%i:%s.%f'), CONVERT_TZ(CONVERT_TZ(ts, off, off2), off2, off) = ts FROM tzt",
		"SELECT COUNT(*) FROM tzt WHERE CONVERT_TZ(ts, off, '+00:00') > TIMESTAMP '2000-01-01 00:00:00'",
		"SELECT FROM_UNIXTIME(u), FROM_UNIXTIME(u, '%Y %j %H:%i:%s.%f'), UNIX_TIMESTAMP(ts), UNIX_TIMESTAMP(CAST(ts AS DATETIME(3))), UNIX_TIMESTAMP(s) FROM tzt",
		"SELECT STR_TO_DATE(DATE_FORMAT(ts, '%r'), '%r'), STR_TO_DATE(DATE_FORMAT(ts, '%H:%i:%s.%f'), '%T.%f'), STR_TO_DATE(s, '%y-%c-%e %T') FROM tzt",
		"SELECT HOUR(s), MINUTE(s), SECOND(s), DATE(s), CAST(s AS DATETIME(6)), TIME_TO_SEC(s) FROM tzt",
	}
	// A strict-GPU database fails a query whose expressions the device
	// cannot run, so an answer is the device's.
	for _, q := range queries {
		requireSameRows(t, q, sortedRows(t, gpu, q), sortedRows(t, cpu, q))
	}
}
