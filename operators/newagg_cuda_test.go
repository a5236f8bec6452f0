//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// newAggTable is 2^20 random rows: km, a key of about 200,000 groups
// (many of one row), kf, a VARCHAR key of 7 groups; i BIGINT, d DOUBLE,
// big DOUBLE around 1e6 (a large mean for the variances), dec
// DECIMAL(12,2), b BOOLEAN, s VARCHAR, each with NULLs.
func newAggTable(n int, seed int64) *coldata.Batch {
	r := rand.New(rand.NewSource(seed))
	types := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64, coldata.Float64, coldata.Float64,
		coldata.DecimalOf(12, 2), coldata.Bool, coldata.String}
	bs := make([]*coldata.Builder, len(types))
	for i, t := range types {
		bs[i] = coldata.NewBuilder(t, n)
	}
	null := func(b *coldata.Builder, pct int) bool {
		if r.Intn(100) < pct {
			b.AppendNull()
			return true
		}
		return false
	}
	fewKeys := []string{"alpha", "beta", "gamma", "delta", "", "epsilon", "zeta"}
	for row := 0; row < n; row++ {
		bs[0].AppendInt(int64(r.Intn(200_000)))
		bs[1].AppendString(fewKeys[r.Intn(len(fewKeys))])
		if !null(bs[2], 10) {
			bs[2].AppendInt(r.Int63n(2_000_001) - 1_000_000)
		}
		if !null(bs[3], 10) {
			bs[3].AppendFloat(r.NormFloat64() * 100)
		}
		if !null(bs[4], 5) {
			bs[4].AppendFloat(1e6 + r.Float64()*10)
		}
		if !null(bs[5], 10) {
			bs[5].AppendDec(decimal.FromInt64(r.Int63n(200_000_000_000) - 100_000_000_000))
		}
		if !null(bs[6], 15) {
			bs[6].AppendBool(r.Intn(8) != 0)
		}
		if !null(bs[7], 10) {
			bs[7].AppendString(fmt.Sprintf("s%05d", r.Intn(100_000)))
		}
	}
	cols := make([]*coldata.Vec, len(bs))
	for i, b := range bs {
		cols[i] = b.Finish()
	}
	return &coldata.Batch{Cols: cols, Len: n}
}

var newAggNames = []string{"km", "kf", "i", "d", "big", "dec", "b", "s"}

// queryRows runs q and returns its rows, sorted by their text.
func queryRows(t *testing.T, db *gsql.DB, q string) [][]any {
	t.Helper()
	rr, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rr.Release()
	var rows [][]any
	for rr.Next() {
		b, err := coldata.RecordToBatch(rr.Record())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.Len; i++ {
			row := make([]any, len(b.Cols))
			for j, c := range b.Cols {
				row[j] = c.Value(i)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	sortRows(rows, 1) // the key column (GROUP BY), or the one row
	return rows
}

// sortRows sorts rows by the text of their first n cells (the group
// keys, unique per row).
func sortRows(rows [][]any, n int) {
	type keyed struct {
		key string
		row []any
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		ks[i] = keyed{fmt.Sprint(r[:min(n, len(r))]...), r}
	}
	sort.SliceStable(ks, func(a, b int) bool { return ks[a].key < ks[b].key })
	for i := range ks {
		rows[i] = ks[i].row
	}
}

// sameCell compares a GPU result cell with the CPU's: doubles within a
// relative 1e-9 (difftest's tolerance: the device adds in another order;
// the double sums here add values of one sign, so that no cancellation
// magnifies that), everything else exactly.
func sameCell(got, want any) bool {
	if g, ok := got.(float64); ok {
		w, ok := want.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(g) || math.IsNaN(w) {
			return math.IsNaN(g) && math.IsNaN(w)
		}
		return math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w))
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// TestDeviceAggregatesMatchCPU runs GROUP BY queries with the newer
// aggregates (the VAR/STDDEV family, BOOL_AND/BOOL_OR, ANY_VALUE, FILTER)
// over 2^20 random rows on the GPU with strict placement, checks that the
// grouping runs there (EXPLAIN), and compares the results with the CPU
// backend's: many groups, few groups and none, BIGINT, DOUBLE (a large
// mean too) and DECIMAL arguments, NULLs. Then the same states merged
// across several device batches (the host merge) against HashAggregate.
func TestDeviceAggregatesMatchCPU(t *testing.T) {
	const n = 1 << 20
	data := newAggTable(n, 29)
	fields := make([]arrow.Field, len(data.Cols))
	for i, c := range data.Cols {
		fields[i] = arrow.Field{Name: newAggNames[i], Type: coldata.ArrowType(c.Type), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	rec := coldata.BatchToRecord(schema, data)
	cpu, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	gpu, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	for _, db := range []*gsql.DB{cpu, gpu} {
		if err := db.RegisterTable("g", schema, []arrow.Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	lists := []struct{ name, aggs string }{
		{"variance", "VAR_POP(d), VAR_SAMP(i), STDDEV_POP(big), STDDEV_SAMP(dec), VARIANCE(big), STDDEV(i), VAR_SAMP(big), STDDEV_SAMP(d)"},
		{"bool and any", "BOOL_AND(b), BOOL_OR(b), BOOL_AND(i > -900000), BOOL_OR(d > 250), ANY_VALUE(i), ANY_VALUE(s), ANY_VALUE(dec), ANY_VALUE(d)"},
		{"filter", "SUM(big) FILTER (WHERE i > 0), COUNT(*) FILTER (WHERE b), AVG(dec) FILTER (WHERE d < 0), MIN(s) FILTER (WHERE i < 0), " +
			"SUM(i) FILTER (WHERE s IS NULL), STDDEV_SAMP(big) FILTER (WHERE b), COUNT(d) FILTER (WHERE big > 1000005), MAX(dec) FILTER (WHERE NOT b)"},
		// DISTINCT aggregates with the groups kept on the device
		// (device_aggregate_distinct.go), then one beside a variance (the
		// host's DISTINCT path).
		{"count distinct beside plain aggregates", "COUNT(DISTINCT i), COUNT(*), SUM(big), MIN(s), MAX(dec), COUNT(d), MAX(i), SUM(dec), MIN(d), COUNT(DISTINCT i)"},
		{"count distinct beside AVG", "COUNT(DISTINCT s), AVG(i), COUNT(*), AVG(dec)"},
		{"distinct sums, averages and extremes", "SUM(DISTINCT i), AVG(DISTINCT i), COUNT(DISTINCT big), MAX(DISTINCT s), MIN(DISTINCT dec), SUM(DISTINCT dec), AVG(DISTINCT d)"},
		{"count distinct beside a variance", "COUNT(DISTINCT s), VAR_POP(d)"},
	}
	for _, l := range lists {
		name, list := l.name, l.aggs
		for _, key := range []string{"km", "kf", ""} {
			q := "SELECT " + list + " FROM g"
			if key != "" {
				q = "SELECT " + key + ", " + list + " FROM g GROUP BY " + key
			}
			t.Run(fmt.Sprintf("%s by %q", name, key), func(t *testing.T) {
				var plan []string
				for _, row := range queryRows(t, gpu, "EXPLAIN "+q) {
					plan = append(plan, fmt.Sprint(row...))
				}
				if p := strings.Join(plan, "\n"); !strings.Contains(p, "hash table on the gpu") {
					t.Fatalf("%s: not grouped on the GPU:\n%s", q, p)
				}
				want, got := queryRows(t, cpu, q), queryRows(t, gpu, q)
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows on the GPU, %d on the CPU", q, len(got), len(want))
				}
				for i := range want {
					for j := range want[i] {
						if !sameCell(got[i][j], want[i][j]) {
							t.Fatalf("%s: row %d column %d: GPU %v, CPU %v (row %v)", q, i, j, got[i][j], want[i][j], want[i])
						}
					}
				}
				t.Logf("%d groups", len(want))
			})
		}
	}
	t.Run("count distinct groups stay on the device", func(t *testing.T) {
		q := "SELECT km, COUNT(DISTINCT i) AS c, SUM(dec), MAX(s), AVG(i) FROM g GROUP BY km HAVING COUNT(*) > 6 ORDER BY c DESC, km LIMIT 20"
		want, got := queryRows(t, cpu, q), queryRows(t, gpu, q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: GPU %v, CPU %v", q, got, want)
		}
		var plan []string
		for _, row := range queryRows(t, gpu, "EXPLAIN ANALYZE "+q) {
			plan = append(plan, fmt.Sprint(row...))
		}
		if p := strings.Join(plan, "\n"); strings.Contains(p, "groups_finished=host") || !strings.Contains(p, "hash table on the gpu") {
			t.Fatalf("%s: groups not kept on the GPU:\n%s", q, p)
		}
	})
	t.Run("batches merged on the host", func(t *testing.T) { deviceVarianceBatches(t, data) })
}

// deviceVarianceBatches groups data split into several device batches with
// DeviceHashAggregate (the partials merge on the host) and compares with
// HashAggregate, by km, by kf and without keys.
func deviceVarianceBatches(t *testing.T, data *coldata.Batch) {
	rt := openRuntime(t, false)
	var parts []*coldata.Batch
	for lo := 0; lo < data.Len; lo += data.Len / 3 {
		hi := min(lo+data.Len/3, data.Len)
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = lo + i
		}
		parts = append(parts, coldata.GatherBatch(data, idx))
	}
	ref := func(i int) *expr.ColumnRef {
		return &expr.ColumnRef{Index: i, Name: newAggNames[i], T: data.Cols[i].Type}
	}
	d, big := ref(3), ref(4)
	aggs := []opspec.AggSpec{
		{Kind: opspec.AggVarPop, Arg: d, Type: coldata.Float64},
		{Kind: opspec.AggVarSamp, Arg: big, Type: coldata.Float64},
		{Kind: opspec.AggStddevPop, Arg: big, Type: coldata.Float64},
		{Kind: opspec.AggStddevSamp, Arg: d, Type: coldata.Float64},
		{Kind: opspec.AggCountStar, Type: coldata.Int64},
	}
	for _, keys := range [][]int{{0}, {1}, nil} {
		w, g := aggregateBothWays(t, rt, parts, ref, keys, aggs, nil)
		if len(w) != len(g) {
			t.Fatalf("keys %v: %d groups on the GPU, %d on the CPU", keys, len(g), len(w))
		}
		for i := range w {
			for j := range w[i] {
				if !sameCell(g[i][j], w[i][j]) {
					t.Fatalf("keys %v: row %d column %d: GPU %v, CPU %v", keys, i, j, g[i][j], w[i][j])
				}
			}
		}
		t.Logf("keys %v: %d groups from %d batches", keys, len(w), len(parts))
	}
}

// aggregateBothWays groups parts by keys (column numbers; ref makes
// their references) with HashAggregate and with DeviceHashAggregate over
// the parts uploaded as separate device batches, and returns both answers
// as rows sorted by the keys (CPU first).
func aggregateBothWays(t *testing.T, rt *operators.DeviceRuntime, parts []*coldata.Batch, ref func(int) *expr.ColumnRef,
	keys []int, aggs []opspec.AggSpec, stats *operators.Stats) (want, got [][]any) {
	t.Helper()
	ctx := context.Background()
	var keyExprs []expr.Expr
	var keyTypes []coldata.Type
	for _, k := range keys {
		keyExprs = append(keyExprs, ref(k))
		keyTypes = append(keyTypes, parts[0].Cols[k].Type)
	}
	cpu := &operators.HashAggregate{Input: &operators.Materialized{Batches: parts}, Keys: keyExprs, Aggs: aggs}
	wb, err := operators.Drain(ctx, cpu)
	if err != nil {
		t.Fatal(err)
	}
	src := &batchesSource{}
	for _, p := range parts {
		b, err := rt.Dev.Upload(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		src.bs = append(src.bs, b)
	}
	dev := &operators.DeviceHashAggregate{Input: src, RT: rt, Keys: keys, KeyTypes: keyTypes, Aggs: aggs, Stats: stats}
	if err := dev.Open(ctx); err != nil {
		t.Fatal(err)
	}
	gb, err := operators.Drain(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(bs []*coldata.Batch) [][]any {
		var out [][]any
		for _, b := range bs {
			for i := 0; i < b.Len; i++ {
				row := make([]any, len(b.Cols))
				for j, c := range b.Cols {
					row[j] = c.Value(i)
				}
				out = append(out, row)
			}
		}
		sortRows(out, len(keys))
		return out
	}
	return rows(wb), rows(gb)
}

// batchesSource yields resident device batches in turn, retained per use.
type batchesSource struct {
	bs   []*gpuexec.DeviceBatch
	next int
}

func (s *batchesSource) Open(context.Context) error { s.next = 0; return nil }
func (s *batchesSource) NextDevice(context.Context) (*gpuexec.DeviceBatch, error) {
	if s.next >= len(s.bs) {
		return nil, nil
	}
	s.next++
	return s.bs[s.next-1].Retain()
}
func (s *batchesSource) Close() error { return nil }
