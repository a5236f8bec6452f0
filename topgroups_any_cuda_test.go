//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/operators"
)

// havingTwin is q with a HAVING that keeps every group, which stops the
// top-groups cut: the same answer, every group downloaded.
func havingTwin(q string) string {
	at := strings.Index(q, " ORDER BY")
	if at < 0 {
		at = strings.Index(q, " LIMIT")
	}
	return q[:at] + " HAVING COUNT(*) > 0" + q[at:]
}

// allGroups is q without its ORDER BY and LIMIT: every group comes to the
// host as the result, the bytes a cut saves. (The HAVING twin no longer
// is that baseline: its groups stay on the device through the HAVING
// filter and the sort, so only its LIMIT rows come back too.)
func allGroups(q string) string {
	at := strings.Index(q, " ORDER BY")
	if at < 0 {
		at = strings.Index(q, " LIMIT")
	}
	return q[:at]
}

// topAnyTermQueries are GROUP BYs under ORDER BY <aggregate or key> ...
// LIMIT over the table w (windowRecords); cut says the device should send
// only the picked groups (checked against the bytes of every group).
var topAnyTermQueries = []struct {
	sql string
	cut bool
}{
	// SUM of BIGINT, both directions, NULL sums (groups whose v are all
	// NULL) first ascending and last descending unless told.
	{"SELECT o, g, SUM(v) AS t FROM w GROUP BY o, g ORDER BY t DESC LIMIT 10", true},
	{"SELECT o, g, SUM(v) AS t FROM w GROUP BY o, g ORDER BY t LIMIT 10", true},
	{"SELECT o, g, SUM(v) AS t FROM w GROUP BY o, g ORDER BY t NULLS LAST LIMIT 10", true},
	{"SELECT o, g, SUM(v) AS t FROM w GROUP BY o, g ORDER BY t DESC NULLS FIRST LIMIT 400", true},
	{"SELECT o, g, MAX(v) AS m FROM w GROUP BY o, g ORDER BY m DESC LIMIT 10 OFFSET 20", true},
	// MIN/MAX: ties at the K-th place, broken by first appearance, or
	// kept for a second term.
	{"SELECT s, MIN(v) AS m FROM w GROUP BY s ORDER BY m LIMIT 10", true},
	{"SELECT s, MAX(d) AS m FROM w GROUP BY s ORDER BY m DESC LIMIT 10", true},
	{"SELECT s, MIN(o) AS m FROM w GROUP BY s ORDER BY m LIMIT 10", true},
	{"SELECT s, MIN(o) AS m FROM w GROUP BY s ORDER BY m, s LIMIT 10", true},
	{"SELECT s, MIN(o) AS m FROM w GROUP BY s ORDER BY m DESC, s DESC LIMIT 25", true},
	// (s is nearly unique: the smallest counts tie over most groups, which
	// the cut keeps, so the cut is checked on the largest.)
	{"SELECT s, COUNT(v) AS c FROM w GROUP BY s ORDER BY c, s DESC LIMIT 10", false},
	{"SELECT s, COUNT(v) AS c FROM w GROUP BY s ORDER BY c DESC, s DESC LIMIT 10", true},
	// DOUBLE sums and AVGs; AVG of BIGINT is a DECIMAL AVG, rounded.
	{"SELECT o, g, SUM(d) AS t FROM w GROUP BY o, g ORDER BY t LIMIT 10", true},
	{"SELECT o, g, AVG(d) AS a FROM w GROUP BY o, g ORDER BY a DESC LIMIT 10", true},
	{"SELECT o, g, AVG(v) AS a FROM w GROUP BY o, g ORDER BY a LIMIT 10", true},
	{"SELECT o, g, AVG(v) FROM w GROUP BY o, g ORDER BY AVG(v) DESC LIMIT 10", true},
	{"SELECT o, g, SUM(CAST(d AS DECIMAL(15,2))) AS t FROM w GROUP BY o, g ORDER BY t DESC LIMIT 10", true},
	// Group keys, NULL keys either end.
	{"SELECT o, g, COUNT(*) FROM w GROUP BY o, g ORDER BY g DESC LIMIT 5", true},
	{"SELECT o, g, SUM(v) FROM w GROUP BY o, g ORDER BY o NULLS FIRST, g LIMIT 7", true},
	{"SELECT o, g, SUM(v) FROM w GROUP BY o, g ORDER BY g LIMIT 1500", true},
	// K past the groups: nothing to cut.
	{"SELECT g, SUM(v) AS t FROM w GROUP BY g ORDER BY t DESC LIMIT 5000", false},
	{"SELECT t, o FROM (SELECT o, g, SUM(v) AS t FROM w GROUP BY o, g) x ORDER BY t DESC LIMIT 10", false},
}

// TestGPUTopGroupsAnyTerm: a GROUP BY under ORDER BY any aggregate the
// device keeps (SUM, MIN, MAX, COUNT, AVG of BIGINT, DOUBLE and DECIMAL)
// or group key, ASC or DESC, NULLs either end, one term or several, with
// ties at the K-th place and K past the groups, answers as the CPU does
// row for row, while only the picked groups leave the device.
func TestGPUTopGroupsAnyTerm(t *testing.T) {
	schema, recs := windowRecords(1_000_000, 15)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	moved := func(q string) uint64 {
		before := gpu.Stats().GPU.BytesToHost
		rowsOf(t, gpu, q)
		return gpu.Stats().GPU.BytesToHost - before
	}
	for _, q := range topAnyTermQueries {
		requireSameRows(t, q.sql, rowsOf(t, gpu, q.sql), rowsOf(t, cpu, q.sql))
		if !q.cut {
			continue
		}
		cut, all := moved(q.sql), moved(allGroups(q.sql))
		if float64(cut) > 0.7*float64(all) {
			t.Errorf("%s: %d bytes came to the host, %d without the cut\n%s", q.sql, cut, all,
				strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q.sql), "\n"))
		}
		t.Logf("%s: %d bytes to the host, %d without the cut", q.sql, cut, all)
	}
	plan := strings.Join(rowsOf(t, gpu, "EXPLAIN "+topAnyTermQueries[0].sql), "\n")
	if !strings.Contains(plan, "top_groups=10 by=(sum(v) DESC NULLS LAST)") {
		t.Errorf("EXPLAIN does not show the cut:\n%s", plan)
	}
	plan = strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+topAnyTermQueries[0].sql), "\n")
	if !strings.Contains(plan, "top_groups_kept=10") {
		t.Errorf("EXPLAIN ANALYZE does not count the groups kept:\n%s", plan)
	}
}

// TestGPUTopGroupsAnyTermPartitioned: the same over row groups too large
// to concatenate, grouped by hash partition (each partition cut, then the
// host keeps the best of their survivors), and over row groups grouped
// one at a time (no cut: partial groups).
func TestGPUTopGroupsAnyTermPartitioned(t *testing.T) {
	defer func(n, c int) { operators.DeviceBatchRows, operators.AggConcatBytes = n, c }(operators.DeviceBatchRows, operators.AggConcatBytes)
	operators.DeviceBatchRows = 300_000
	operators.AggConcatBytes = 1 << 20
	schema, recs := windowRecords(1_000_000, 16)
	cpu, gpu := cpuAndGPU(t, "w", schema, recs)
	for _, q := range topAnyTermQueries {
		requireSameRows(t, q.sql, rowsOf(t, gpu, q.sql), rowsOf(t, cpu, q.sql))
	}
	plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+topAnyTermQueries[0].sql), "\n")
	if !strings.Contains(plan, "hash_partitions=") || !strings.Contains(plan, "top_groups_kept=10") {
		t.Errorf("the GROUP BY was not cut by partition:\n%s", plan)
	}
}

// TestGPUTopGroupsEdgeValues: the ends of BIGINT (which share ordering
// words with their neighbours: the cut keeps their ties), -0.0 beside
// 0.0, infinities, NaN (no cut), a sum past BIGINT (the CPU's error,
// which the cut must not hide).
func TestGPUTopGroupsEdgeValues(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewSource(17))
	ends := []int64{-1 << 63, -1<<63 + 1, -1<<63 + 2, 1<<63 - 1, 1<<63 - 2, 0}
	fs := []float64{0, -0.0, 1, -1}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for k := 0; k < 50_000; k++ {
		b.Field(0).(*array.Int64Builder).Append(int64(k))
		if k%97 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(ends[rng.Intn(len(ends))])
		}
		f := fs[rng.Intn(len(fs))]
		if k%1000 == 3 {
			f = 1 / f // infinities, when f is 0 or -0
		}
		b.Field(2).(*array.Float64Builder).Append(f)
		if k%1000 == 7 {
			f = math.NaN()
		}
		b.Field(3).(*array.Float64Builder).Append(f)
	}
	rec := b.NewRecord()
	cpu, gpu := cpuAndGPU(t, "e", schema, []arrow.Record{rec})
	for _, q := range []string{
		"SELECT k, MIN(v) AS m FROM e GROUP BY k ORDER BY m LIMIT 20",
		"SELECT k, MIN(v) AS m FROM e GROUP BY k ORDER BY m NULLS LAST LIMIT 20",
		"SELECT k, MAX(v) AS m FROM e GROUP BY k ORDER BY m DESC LIMIT 20",
		"SELECT k, SUM(v) AS m FROM e GROUP BY k ORDER BY m DESC LIMIT 20",
		"SELECT k, SUM(f) AS m FROM e GROUP BY k ORDER BY m LIMIT 20",
		"SELECT k, SUM(f) AS m FROM e GROUP BY k ORDER BY m DESC LIMIT 20",
		"SELECT v, COUNT(*) FROM e GROUP BY v ORDER BY v LIMIT 3",
		"SELECT f, COUNT(*) FROM e GROUP BY f ORDER BY f DESC LIMIT 2",
		"SELECT k, SUM(n) AS m FROM e GROUP BY k ORDER BY m DESC LIMIT 20",
	} {
		requireSameRows(t, q, rowsOf(t, gpu, q), rowsOf(t, cpu, q))
	}
	// Two rows of BIGINT's top in one group: the CPU's range error.
	q := "SELECT k % 2 AS h, SUM(v) AS m FROM e WHERE v > 0 GROUP BY h ORDER BY m LIMIT 1"
	cerr, gerr := queryErr(context.Background(), cpu, q), queryErr(context.Background(), gpu, q)
	if cerr == nil || gerr == nil {
		t.Errorf("%s: CPU error %v, GPU error %v", q, cerr, gerr)
	}
}

// topBenchRecords is t: k (BIGINT, n/2 distinct values: millions of
// groups), x (BIGINT), y (DOUBLE), in records of 1M rows.
func topBenchRecords(n int) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64},
		{Name: "y", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	rng := rand.New(rand.NewSource(18))
	var recs []arrow.Record
	for start := 0; start < n; start += 1_000_000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := start; i < min(n, start+1_000_000); i++ {
			b.Field(0).(*array.Int64Builder).Append(rng.Int63n(int64(n / 2)))
			b.Field(1).(*array.Int64Builder).Append(rng.Int63n(1_000_000))
			b.Field(2).(*array.Float64Builder).Append(rng.Float64())
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return schema, recs
}

// BenchmarkGPUTopGroups times warm GROUP BY ... ORDER BY <term> LIMIT 10
// over 10M resident rows in about 4.3M groups (issue 40's query among
// them), each beside its HAVING twin, which downloads every group.
func BenchmarkGPUTopGroups(b *testing.B) {
	ctx := context.Background()
	schema, recs := topBenchRecords(10_000_000)
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		b.Skipf("gpu: %v", err)
	}
	defer db.Close()
	if err := db.RegisterTable("t", schema, recs); err != nil {
		b.Fatal(err)
	}
	if err := db.WaitGPU(ctx); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{
		{"sum_desc", "SELECT k, SUM(x) FROM t GROUP BY k ORDER BY SUM(x) DESC LIMIT 10"},
		{"count_desc", "SELECT k, COUNT(*) AS c FROM t GROUP BY k ORDER BY c DESC LIMIT 10"},
		{"max_asc", "SELECT k, MAX(y) AS m FROM t GROUP BY k ORDER BY m LIMIT 10"},
		{"avg_desc", "SELECT k, AVG(x) AS a FROM t GROUP BY k ORDER BY a DESC LIMIT 10"},
		{"key_desc", "SELECT k, SUM(y) FROM t GROUP BY k ORDER BY k DESC LIMIT 10"},
		{"sum_two_terms", "SELECT k, SUM(x) AS s FROM t GROUP BY k ORDER BY s DESC, k LIMIT 10"},
	} {
		for _, v := range []struct{ name, sql string }{{"cut", q.sql}, {"all_groups", havingTwin(q.sql)}} {
			run := func() {
				rdr, err := db.Query(ctx, v.sql)
				if err != nil {
					b.Fatal(err)
				}
				n := int64(0)
				for rdr.Next() {
					n += rdr.Record().NumRows()
				}
				if err := rdr.Err(); err != nil || n != 10 {
					b.Fatalf("%s: %d rows, %v", v.sql, n, err)
				}
				rdr.Release()
			}
			for i := 0; i < 3; i++ { // compile, upload, settle
				run()
			}
			waitCompiles(b, db)
			b.Run(fmt.Sprintf("%s/%s", q.name, v.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					run()
				}
			})
		}
	}
}
