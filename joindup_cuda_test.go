//go:build cuda

package gsql_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
)

// keyedTable is n rows (k BIGINT, v BIGINT, s VARCHAR): k drawn from
// [0, keys) or NULL with probability nulls, v the row number, s a label.
func keyedTable(rng *rand.Rand, n, keys int, nulls float64) (*arrow.Schema, []arrow.Record) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		if rng.Float64() < nulls {
			b.Field(0).(*array.Int64Builder).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(rng.Intn(keys)))
		}
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("r%d", i%97))
	}
	return schema, []arrow.Record{b.NewRecord()}
}

// TestGPUJoinDuplicateKeys compares GPU and CPU joins whose build side has
// many rows per key (25 keys over 1M rows), with the small side on the
// left (join reordering off, so the plan keeps it there: the device join
// hashes the left side instead) and on the right, INNER and LEFT, with
// NULL keys on both sides. Large results are compared as aggregates,
// smaller ones row by row.
func TestGPUJoinDuplicateKeys(t *testing.T) {
	opts := func(device string) gsql.Options {
		return gsql.Options{Device: device, DisabledRules: []string{"reorder_joins"}}
	}
	gpu, err := gsql.Open(opts("gpu"))
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	cpu := openTestDB(t, opts("cpu"))
	rng := rand.New(rand.NewSource(40))
	big := 1_000_000
	if testing.Short() {
		big = 200_000
	}
	tables := []struct {
		name    string
		n, keys int
		nulls   float64
		schema  *arrow.Schema
		recs    []arrow.Record
	}{
		{name: "dim", n: 30, keys: 30, nulls: 0.1},       // 25 of its keys in fact
		{name: "fact", n: big, keys: 25, nulls: 0.01},    // heavy duplicates
		{name: "mid", n: 200_000, keys: 30, nulls: 0.02}, // large left, heavy right
		{name: "dup", n: 500, keys: 25, nulls: 0.05},
	}
	for i := range tables {
		tb := &tables[i]
		tb.schema, tb.recs = keyedTable(rng, tb.n, tb.keys, tb.nulls)
		for _, db := range []*gsql.DB{gpu, cpu} {
			if err := db.RegisterTable(tb.name, tb.schema, tb.recs); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		sql     string
		rowwise bool
	}{
		{"SELECT d.v, d.s, f.v, f.s FROM dim d JOIN fact f ON d.k = f.k WHERE f.v % 10 = 0", true},
		{"SELECT COUNT(*), SUM(d.v), SUM(f.v), COUNT(DISTINCT f.s) FROM dim d JOIN fact f ON d.k = f.k", false},
		{"SELECT d.k, COUNT(*), SUM(f.v), MIN(f.v), MAX(f.v) FROM dim d JOIN fact f ON d.k = f.k GROUP BY d.k", true},
		{"SELECT d.k, COUNT(f.v), SUM(f.v) FROM dim d LEFT JOIN fact f ON d.k = f.k GROUP BY d.k", true},
		{"SELECT d.v, f.v FROM dim d LEFT JOIN fact f ON d.k = f.k WHERE f.v IS NULL OR f.v < 1000", true},
		{"SELECT COUNT(*), SUM(f.v), SUM(d.v) FROM fact f JOIN dim d ON f.k = d.k", false},
		{"SELECT COUNT(*), COUNT(d.v), SUM(f.v), SUM(d.v) FROM fact f LEFT JOIN dim d ON f.k = d.k", false},
		{"SELECT COUNT(*), SUM(m.v), SUM(u.v) FROM mid m JOIN dup u ON m.k = u.k", false},
		{"SELECT m.k, COUNT(*), COUNT(u.v), SUM(u.v * 1000003 + m.v) FROM mid m LEFT JOIN dup u ON m.k = u.k GROUP BY m.k", true},
		{"SELECT COUNT(*), SUM(u.v), SUM(m.v) FROM dup u JOIN mid m ON u.k = m.k", false},
		{"SELECT u.v, m.v FROM dup u JOIN mid m ON u.k = m.k WHERE m.v < 2000", true},
	} {
		got, want := sortedRows(t, gpu, c.sql), sortedRows(t, cpu, c.sql)
		if !slices.Equal(got, want) {
			t.Errorf("%s: GPU %d rows, CPU %d rows; first GPU %v, CPU %v", c.sql, len(got), len(want), head(got), head(want))
		}
		plan := rowsOf(t, gpu, "EXPLAIN "+c.sql)
		if !slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, "HashJoin") && strings.Contains(l, "gpu") }) {
			t.Logf("%s: the join is not on the GPU:\n%s", c.sql, strings.Join(plan, "\n"))
		}
	}
}

func head(rows []string) []string {
	return rows[:min(len(rows), 3)]
}
