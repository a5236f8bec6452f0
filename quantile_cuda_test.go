//go:build cuda

package gsql_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// quantileTable is the table qt: k1 (about 1000 groups and NULL keys; key
// 7 has only NULL values), k2 (about 500,000 groups, many of one row), d
// DOUBLE (multiples of 1/8, never 0, so that sums are exact in any order
// and no -0.0/0.0 tie can differ), i BIGINT, dec DECIMAL(15,2), dt DATE,
// ts TIMESTAMP, b BOOLEAN, each a tenth NULL.
func quantileTable(n int, seed int64) (*arrow.Schema, arrow.Record) {
	rng := rand.New(rand.NewSource(seed))
	names := []string{"k1", "k2", "d", "i", "dec", "dt", "ts", "b"}
	types := []coldata.Type{coldata.Int64, coldata.Int64, coldata.Float64, coldata.Int64, coldata.DecimalOf(15, 2),
		coldata.Date, coldata.Timestamp, coldata.Bool}
	bs := make([]*coldata.Builder, len(types))
	for i, ty := range types {
		bs[i] = coldata.NewBuilder(ty, n)
	}
	for row := 0; row < n; row++ {
		k1 := int64(rng.Intn(1000))
		if rng.Intn(200) == 0 {
			bs[0].AppendNull()
		} else {
			bs[0].AppendInt(k1)
		}
		bs[1].AppendInt(int64(rng.Intn(500_000)))
		if k1 == 7 || rng.Intn(10) == 0 {
			for c := 2; c < len(bs); c++ {
				bs[c].AppendNull()
			}
			continue
		}
		d := float64(rng.Intn(4_000_001)-2_000_000)/4 + 0.125
		if rng.Intn(20) == 0 {
			d = float64(rng.Intn(3)) + 0.5 // duplicates
		}
		bs[2].AppendFloat(d)
		bs[3].AppendInt(rng.Int63n(2_000_001_000) - 1_000_000_000)
		bs[4].AppendDec(decimal.FromInt64(rng.Int63n(2e14) - 1e14))
		bs[5].AppendInt(int64(rng.Intn(40_000) - 10_000))
		bs[6].AppendInt(rng.Int63n(4e15) - 1e15)
		bs[7].AppendBool(rng.Intn(3) == 0)
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

// TestGPUQuantilesMatchCPU runs MEDIAN, QUANTILE_CONT/DISC and
// PERCENTILE_CONT/DISC (ASC and DESC) over 1M rows on a strict-GPU
// database, beside COUNT, SUM and AVG, by about 1000 and about 500,000
// groups and without GROUP BY, over DOUBLE, BIGINT, DECIMAL, DATE,
// TIMESTAMP and BOOLEAN arguments with NULLs, and compares every row with
// the CPU backend exactly (the device interpolates with the CPU's
// arithmetic); EXPLAIN must show the device hash table.
func TestGPUQuantilesMatchCPU(t *testing.T) {
	schema, rec := quantileTable(1_000_000, 13)
	defer rec.Release()
	cpu, gpu := cpuAndGPU(t, "qt", schema, []arrow.Record{rec})
	queries := []string{
		"SELECT k1, COUNT(*), MEDIAN(d), AVG(d), QUANTILE_CONT(d, 0.9), COUNT(d) FROM qt GROUP BY k1",
		"SELECT k2, QUANTILE_CONT(i, 0.25), QUANTILE_DISC(i, 0.9), QUANTILE_DISC(dec, 0.5), MEDIAN(dec), SUM(i) FROM qt GROUP BY k2",
		"SELECT k1, PERCENTILE_CONT(0.3) WITHIN GROUP (ORDER BY d DESC), PERCENTILE_DISC(0.7) WITHIN GROUP (ORDER BY i DESC), " +
			"PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY dt), QUANTILE_DISC(ts, 0.1), QUANTILE_DISC(b, 0.5), " +
			"PERCENTILE_CONT(1) WITHIN GROUP (ORDER BY dec DESC), PERCENTILE_DISC(0) WITHIN GROUP (ORDER BY d) FROM qt GROUP BY k1",
		"SELECT k2, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY d DESC), MEDIAN(d), QUANTILE_DISC(d, 0.5), COUNT(*) FROM qt GROUP BY k2",
		"SELECT MEDIAN(d), QUANTILE_DISC(dec, 0.1), PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY dt DESC), QUANTILE_CONT(i, 0.75), COUNT(*), AVG(d) FROM qt",
		"SELECT k1 % 10, MEDIAN(d + i), QUANTILE_DISC(i * 2, 0.3), SUM(i) FROM qt WHERE i > 0 GROUP BY k1 % 10",
		"SELECT k1, k2 % 3, MEDIAN(d), QUANTILE_DISC(dt, 0.6) FROM qt WHERE b GROUP BY k1, k2 % 3",
		// No rows: no groups, and one NULL row without GROUP BY.
		"SELECT k1, MEDIAN(d) FROM qt WHERE i > 2000000000 GROUP BY k1",
		"SELECT MEDIAN(d), QUANTILE_DISC(dec, 0.5), COUNT(*) FROM qt WHERE i > 2000000000",
		// Only NULL values: one group whose quantiles are NULL.
		"SELECT k1, MEDIAN(d), QUANTILE_DISC(i, 0.5), COUNT(*) FROM qt WHERE k1 = 7 GROUP BY k1",
	}
	for _, q := range queries {
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+q), "\n")
		if !strings.Contains(plan, "hash table on the gpu") {
			t.Errorf("%s: not grouped on the GPU:\n%s", q, plan)
			continue
		}
		got, want := sortedRows(t, gpu, q), sortedRows(t, cpu, q)
		requireSameRows(t, q, got, want)
		t.Logf("%s: %d rows", q, len(got))
	}
}
