//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"

	gsql "github.com/gsqlengine/gsql"
)

// TestGPUGroupsStayOnDevice compares with the CPU the GROUP BYs whose
// groups a device operator reads (a join, a HAVING, an IN subquery, a
// DISTINCT derived table), which keep their groups on the device, over
// every finish the device has (counts, BIGINT sums and averages, DOUBLE
// sums, averages and extremes, MIN/MAX of dates, text and DECIMALs,
// DECIMAL sums and averages) with NULL
// keys and arguments, string and multi-column keys, an empty input, and
// a BIGINT sum past the range that the host must report.
func TestGPUGroupsStayOnDevice(t *testing.T) {
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	rng := rand.New(rand.NewSource(77))
	n := 300_000
	if testing.Short() {
		n = 60_000
	}
	ctx := context.Background()
	var sb strings.Builder
	ddl := []string{
		"CREATE TABLE f (k BIGINT, s VARCHAR(10), i BIGINT, x DOUBLE, d DATE, m DECIMAL(12,2), big BIGINT)",
		"CREATE TABLE dim (k BIGINT, name VARCHAR(10))",
	}
	for _, db := range []*gsql.DB{gpu, cpu} {
		for _, q := range ddl {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	val := func(p float64, s string) string {
		if rng.Float64() < p {
			return "NULL"
		}
		return s
	}
	for start := 0; start < n; start += 5000 {
		sb.Reset()
		sb.WriteString("INSERT INTO f VALUES ")
		for i := start; i < start+5000 && i < n; i++ {
			if i > start {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%s, %s, %s, %s, %s, %s, %d)",
				val(0.01, fmt.Sprint(rng.Intn(n/3))), val(0.02, fmt.Sprintf("'s%d'", rng.Intn(50))),
				val(0.05, fmt.Sprint(rng.Int63n(2_000_000)-1_000_000)), val(0.05, fmt.Sprintf("%.3f", rng.NormFloat64()*100)),
				val(0.05, fmt.Sprintf("DATE '2020-01-01' + %d", rng.Intn(3000))), val(0.05, fmt.Sprintf("%d.%02d", rng.Intn(100000)-50000, rng.Intn(100))),
				int64(1)<<61+rng.Int63n(1000))
		}
		for _, db := range []*gsql.DB{gpu, cpu} {
			if _, err := db.Exec(ctx, sb.String()); err != nil {
				t.Fatal(err)
			}
		}
	}
	sb.Reset()
	sb.WriteString("INSERT INTO dim VALUES ")
	for i := 0; i < 2000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d, 'n%d')", rng.Intn(n/3), i)
	}
	for _, db := range []*gsql.DB{gpu, cpu} {
		if _, err := db.Exec(ctx, sb.String()); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		sql    string
		onGPU  bool // EXPLAIN shows the groups kept on the device
		errHas string
		// hostGroups: EXPLAIN ANALYZE says the groups were finished on
		// the host (else that it does not).
		hostGroups bool
	}{
		{sql: "SELECT g.k, g.c, g.ci, g.si, g.ai, g.sx, g.ax, g.mnx, g.mxx, g.mnd, g.mxd, g.sm, g.am, dim.name FROM " +
			"(SELECT k, COUNT(*) c, COUNT(i) ci, SUM(i) si, AVG(i) ai, SUM(x) sx, AVG(x) ax, MIN(x) mnx, MAX(x) mxx, MIN(d) mnd, MAX(d) mxd, SUM(m) sm, AVG(m) am FROM f GROUP BY k) g " +
			"JOIN dim ON g.k = dim.k", onGPU: true},
		{sql: "SELECT g.k, g.mins, g.maxs, g.minm, g.maxm FROM (SELECT k, MIN(s) mins, MAX(s) maxs, MIN(m) minm, MAX(m) maxm FROM f WHERE x > 0 GROUP BY k) g " +
			"JOIN dim ON g.k = dim.k", onGPU: true},
		{sql: "SELECT dim.k, dim.name, (SELECT MIN(f.m) FROM f WHERE f.k = dim.k AND f.x < 0) FROM dim", onGPU: true},
		{sql: "SELECT k, SUM(m) FROM f GROUP BY k HAVING SUM(m) > 40000", onGPU: true},
		{sql: "SELECT k, AVG(m), AVG(i) FROM f GROUP BY k HAVING AVG(m) < -20000 OR AVG(i) > 900000", onGPU: true},
		{sql: "SELECT s, k, COUNT(*), MAX(i) FROM f GROUP BY s, k HAVING COUNT(*) > 1", onGPU: true},
		{sql: "SELECT COUNT(*), SUM(i) FROM f WHERE k IN (SELECT k FROM f GROUP BY k HAVING SUM(m) > 30000)"},
		{sql: "SELECT a.s, COUNT(*) FROM (SELECT DISTINCT k, s FROM f) a JOIN (SELECT DISTINCT k FROM f WHERE x > 50) b ON a.k = b.k GROUP BY a.s"},
		{sql: "SELECT g.k, g.c FROM (SELECT k, COUNT(*) c FROM f WHERE i > 5000000 GROUP BY k) g JOIN dim ON g.k = dim.k"},
		{sql: "SELECT g.k, g.t FROM (SELECT k, SUM(big) t FROM f GROUP BY k) g JOIN dim ON g.k = dim.k", errHas: "out of range"},
		{sql: "SELECT g.s, g.t FROM (SELECT s, SUM(big) t FROM f WHERE k < 10 GROUP BY s) g JOIN dim ON g.s = dim.name"},
		// A variance has no device finish: the groups are finished on the
		// host and uploaded, which EXPLAIN ANALYZE says.
		{sql: "SELECT g.k, g.v FROM (SELECT k, VAR_POP(x) v FROM f GROUP BY k) g JOIN dim ON g.k = dim.k", hostGroups: true},
	} {
		got, gerr := rowsErr(ctx, gpu, c.sql)
		want, werr := rowsErr(ctx, cpu, c.sql)
		if c.errHas != "" {
			if gerr == nil || werr == nil || !strings.Contains(gerr.Error(), c.errHas) {
				t.Errorf("%s: GPU error %v, CPU error %v; want both %q", c.sql, gerr, werr, c.errHas)
			}
			continue
		}
		if gerr != nil || werr != nil {
			t.Errorf("%s: GPU error %v, CPU error %v", c.sql, gerr, werr)
			continue
		}
		slices.Sort(got)
		slices.Sort(want)
		if !sameRowsNear(got, want) {
			t.Errorf("%s: GPU %d rows, CPU %d rows; first GPU %v, CPU %v", c.sql, len(got), len(want), head(got), head(want))
		}
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+c.sql), "\n")
		if c.onGPU && !strings.Contains(plan, "groups kept on the gpu") {
			t.Errorf("%s: the groups do not stay on the GPU:\n%s", c.sql, plan)
		}
		ran := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+c.sql), "\n")
		if strings.Contains(ran, "groups_finished=host") != c.hostGroups {
			t.Errorf("%s: EXPLAIN ANALYZE says groups_finished=host %v, want %v:\n%s", c.sql, !c.hostGroups, c.hostGroups, ran)
		}
	}
}

// sameRowsNear: the same rows, numbers within a relative 1e-7 (a
// variance's sums of squares cancel, so the device's other summing order
// shows past the ninth digit).
func sameRowsNear(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] == want[i] {
			continue
		}
		g, w := strings.Split(got[i], "|"), strings.Split(want[i], "|")
		if len(g) != len(w) {
			return false
		}
		for c := range g {
			if g[c] == w[c] {
				continue
			}
			a, aerr := strconv.ParseFloat(g[c], 64)
			b, berr := strconv.ParseFloat(w[c], 64)
			if aerr != nil || berr != nil || math.Abs(a-b) > 1e-7*math.Max(math.Abs(a), math.Abs(b)) {
				return false
			}
		}
	}
	return true
}

// rowsErr is rowsOf returning the query's error instead of failing, with
// DOUBLEs to 9 digits (the device adds them in another order).
func rowsErr(ctx context.Context, db *gsql.DB, q string) ([]string, error) {
	rdr, err := db.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				switch col := rec.Column(c).(type) {
				case *array.Float64:
					parts[c] = fmt.Sprintf("%.9g", col.Value(i))
					if col.IsNull(i) {
						parts[c] = "NULL"
					}
				default:
					parts[c] = "NULL"
					if !col.IsNull(i) {
						parts[c] = strings.Clone(col.ValueStr(i))
					}
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	return out, rdr.Err()
}
