//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/gpuexec"
)

// distTables registers fact(k, s, v, f) (600K rows in 12 row groups; v
// numbers the rows), fact2(k, w) (200K in 4) and dim(k, name) (1,000 in
// one) in each database.
func distTables(t *testing.T, dbs ...*gsql.DB) {
	t.Helper()
	rng := rand.New(rand.NewSource(37))
	words := []string{"", "a", "ünï", "日本語", "key-7", "key-70"}
	build := func(fields []arrow.Field, rows, group int, row func(i int, b *array.RecordBuilder)) (*arrow.Schema, []arrow.Record) {
		schema := arrow.NewSchema(fields, nil)
		var recs []arrow.Record
		for start := 0; start < rows; start += group {
			b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
			for i := start; i < min(rows, start+group); i++ {
				row(i, b)
			}
			recs = append(recs, b.NewRecord())
			b.Release()
		}
		return schema, recs
	}
	key := func(b array.Builder, n int) {
		if rng.Intn(15) == 0 {
			b.AppendNull()
		} else {
			b.(*array.Int64Builder).Append(int64(rng.Intn(n)))
		}
	}
	i64 := arrow.PrimitiveTypes.Int64
	tables := map[string]func() (*arrow.Schema, []arrow.Record){
		"fact": func() (*arrow.Schema, []arrow.Record) {
			return build([]arrow.Field{{Name: "k", Type: i64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
				{Name: "v", Type: i64}, {Name: "f", Type: arrow.PrimitiveTypes.Float64}}, 600_000, 50_000, func(i int, b *array.RecordBuilder) {
				key(b.Field(0), 1000)
				if rng.Intn(11) == 0 {
					b.Field(1).AppendNull()
				} else {
					b.Field(1).(*array.StringBuilder).Append(words[rng.Intn(len(words))])
				}
				b.Field(2).(*array.Int64Builder).Append(int64(i))
				b.Field(3).(*array.Float64Builder).Append(float64(rng.Intn(64)) / 4)
			})
		},
		"fact2": func() (*arrow.Schema, []arrow.Record) {
			return build([]arrow.Field{{Name: "k", Type: i64, Nullable: true}, {Name: "w", Type: i64}}, 200_000, 50_000, func(i int, b *array.RecordBuilder) {
				key(b.Field(0), 1500)
				b.Field(1).(*array.Int64Builder).Append(int64(i * 3))
			})
		},
		"dim": func() (*arrow.Schema, []arrow.Record) {
			return build([]arrow.Field{{Name: "k", Type: i64}, {Name: "name", Type: arrow.BinaryTypes.String}}, 1000, 1000, func(i int, b *array.RecordBuilder) {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("d%04d", i))
			})
		},
	}
	for _, name := range []string{"fact", "fact2", "dim"} {
		schema, recs := tables[name]()
		for _, db := range dbs {
			if err := db.RegisterTable(name, schema, recs); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCUDADistributedPlans runs the queries of gpuexec's
// TestFakeDistributedPlans on every visible GPU (Options.Devices "all"),
// with the devices' own kernels, and compares each answer with the CPU's.
func TestCUDADistributedPlans(t *testing.T) {
	n, err := gpuexec.DeviceCount()
	if err != nil || n < 2 {
		t.Skipf("%d GPUs (%v): a spread plan needs two", n, err)
	}
	cpu, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	db, err := gsql.Open(gsql.Options{Device: "gpu", Devices: "all", SpreadRows: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	distTables(t, cpu, db)
	ctx := context.Background()
	kinds := map[string]bool{}
	for _, c := range []struct {
		q       string
		ordered bool
	}{
		{"SELECT s, COUNT(*), SUM(v), MIN(k), MAX(f) FROM fact GROUP BY s", false},
		{"SELECT k, s, COUNT(*) AS n FROM fact WHERE v % 3 <> 1 GROUP BY k, s ORDER BY n DESC, k, s LIMIT 9", true},
		{"SELECT v, k, COUNT(*) AS n, SUM(f) FROM fact GROUP BY v, k ORDER BY n DESC, v LIMIT 9", true},
		{"SELECT v, SUM(f) AS t FROM fact GROUP BY v ORDER BY t, v LIMIT 5", true},
		{"SELECT k, COUNT(*), SUM(v), MIN(s), MAX(f) FROM fact GROUP BY k", false},
		{"SELECT k, COUNT(*) FROM fact WHERE f > 2 GROUP BY k ORDER BY k", true},
		{"SELECT COUNT(*), COUNT(k), SUM(v), MIN(s), MAX(f), SUM(f) FROM fact", true},
		{"SELECT COUNT(*), SUM(v) FROM fact WHERE v < 0", true},
		{"SELECT AVG(v), AVG(f), AVG(k), COUNT(*) FROM fact", true},
		{"SELECT AVG(v), AVG(k) FROM fact WHERE v < 0", true},
		{"SELECT k, AVG(v), AVG(f), MIN(s) FROM fact GROUP BY k", false},
		{"SELECT k, AVG(CASE WHEN v % 2 = 0 THEN NULL ELSE f END) FROM fact GROUP BY k", false},
		{"SELECT AVG(DISTINCT k) FROM fact", true},
		{"SELECT COUNT(DISTINCT s) FROM fact", true},
		{"SELECT COUNT(DISTINCT k) FROM fact WHERE f > 3", true},
		{"SELECT k, COUNT(DISTINCT s) FROM fact GROUP BY k", false},
		{"SELECT k, COUNT(DISTINCT s), COUNT(*), SUM(v), MAX(f), MIN(s) FROM fact GROUP BY k", false},
		{"SELECT k, COUNT(DISTINCT f), AVG(v), SUM(f) FROM fact GROUP BY k", false},
		{"SELECT COUNT(DISTINCT s), COUNT(*), MIN(v) FROM fact WHERE f > 1", true},
		{"SELECT v, COUNT(DISTINCT s) FROM fact GROUP BY v", false},
		{"SELECT v % 7 AS m, COUNT(*), SUM(f), MIN(s), AVG(v) FROM fact GROUP BY v % 7", false},
		{"SELECT v % 11 AS m, COUNT(*) AS c FROM fact GROUP BY v % 11 ORDER BY c DESC, m LIMIT 3", true},
		{"SELECT SUBSTR(s, 1, 2) AS p, k + 1 AS q, COUNT(*), MAX(v) FROM fact WHERE f > 1 GROUP BY SUBSTR(s, 1, 2), k + 1", false},
		{"SELECT k, AVG(DISTINCT v), COUNT(DISTINCT v) FROM fact GROUP BY k", false},
		{"SELECT k, COUNT(DISTINCT f), SUM(DISTINCT f), MAX(v) FROM fact GROUP BY k", false},
		{"SELECT f.v, d.name FROM fact f JOIN dim d ON f.k = d.k", false},
		{"SELECT f.v, g.n FROM fact f JOIN (SELECT k, COUNT(*) AS n FROM dim GROUP BY k) g ON f.k = g.k", false},
		{"SELECT f.v, g.w FROM fact f JOIN fact2 g ON f.k = g.k WHERE g.w % 5 = 0 AND f.v % 7 = 0", false},
		{"SELECT f.v, g.v FROM fact f JOIN fact g ON f.v = g.v + 1 AND f.s = g.s", false},
		{"SELECT f.v, g.v FROM fact f JOIN fact g ON f.k = g.k WHERE g.v < 400", false},
		{"SELECT f.v, g.v FROM fact f LEFT JOIN fact g ON f.v = g.v * 2", false},
		{"SELECT v * 2 AS w, k FROM fact ORDER BY w DESC LIMIT 7 OFFSET 2", true},
		{"SELECT v + 1 AS w, s FROM fact WHERE k > 990 ORDER BY s, w", true},
	} {
		want, err := rowsErr(ctx, cpu, c.q)
		if err != nil {
			t.Fatalf("cpu: %s: %v", c.q, err)
		}
		got, err := rowsErr(ctx, db, c.q)
		if err != nil {
			t.Fatalf("%d GPUs: %s: %v", n, c.q, err)
		}
		if !c.ordered {
			slices.Sort(want)
			slices.Sort(got)
		}
		explain := strings.Join(rowsOf(t, db, "EXPLAIN "+c.q), "\n")
		if !slices.Equal(got, want) {
			t.Errorf("%d GPUs: %s: %d rows, want %d\ngot  %.6q\nwant %.6q\n%s", n, c.q, len(got), len(want), got, want, explain)
		}
		if !strings.Contains(explain, "Exchange") || !strings.Contains(explain, "place_exchanges") {
			t.Errorf("%s: not spread:\n%s", c.q, explain)
		}
		for _, k := range []string{"repartition", "broadcast", "gather"} {
			if strings.Contains(explain, "Exchange "+k) {
				kinds[k] = true
			}
		}
	}
	if len(kinds) != 3 {
		t.Errorf("exchange kinds run: %v, want all three", kinds)
	}
	for _, d := range db.Stats().Devices {
		if d.Launches == 0 {
			t.Errorf("GPU %d launched no kernel", d.Ordinal)
		}
	}
}
