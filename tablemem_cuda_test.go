//go:build cuda

package gsql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
)

// TestGPUTableMemory: a table a GPU query read is resident, and .stats
// shows its device bytes (~its Arrow bytes: 1M BIGINTs ~8 MB) beside its
// host bytes, which are the CPU database's.
func TestGPUTableMemory(t *testing.T) {
	ctx := context.Background()
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	if err := db.WaitGPU(ctx); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	const n = 1_000_000
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		b.Append(int64(i % 1000))
	}
	col := b.NewArray()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{col}, n)
	col.Release()
	defer rec.Release()
	for _, d := range []*gsql.DB{db, cpu} {
		if err := d.RegisterTable("t", schema, []arrow.Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := db.TableMemory("t")
	if err != nil || before.Device != 0 {
		t.Fatalf("before any query: %+v, %v", before, err)
	}
	q := "SELECT SUM(a), COUNT(*) FROM t WHERE a > 10"
	if got, want := rowsOf(t, db, q), rowsOf(t, cpu, q); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("gpu %v, cpu %v", got, want)
	}
	tm, err := db.TableMemory("t")
	if err != nil {
		t.Fatal(err)
	}
	host, err := cpu.TableMemory("t")
	if err != nil {
		t.Fatal(err)
	}
	if tm.Bytes != host.Bytes || tm.Rows != n {
		t.Fatalf("gpu database %+v, cpu database %+v: host bytes differ", tm, host)
	}
	if tm.Device < 8*n || tm.Device > 8*n+n/4+(1<<20) {
		t.Fatalf("device bytes %d, want ~%d (plan: %v)", tm.Device, 8*n, rowsOf(t, db, "EXPLAIN ANALYZE "+q))
	}
	if s := db.Stats().String(); !strings.Contains(s, "resident on the device") {
		t.Fatalf(".stats:\n%s", s)
	}
}
