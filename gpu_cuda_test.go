//go:build cuda

package gsql_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// TestGPUQueryLatency runs the redact query from SQL text on the GPU: cold
// (kernel compiled, table uploaded), then warm (both cached), and checks the
// result against the CPU backend. Run on a GPU machine (-tags cuda).
func TestGPUQueryLatency(t *testing.T) {
	ctx := context.Background()
	os.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cold kernel cache
	rows := 10_000_000
	if testing.Short() {
		rows = 600_000
	}
	schema, recs := datagen.People(rows, 42)
	cpu, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	if err := cpu.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	want := checksum(t, cpu, redactQuery)
	for _, fusion := range []bool{true, false} {
		db, err := gsql.Open(gsql.Options{Device: "gpu", NoFusion: !fusion})
		if err != nil {
			t.Skipf("no GPU: %v", err)
		}
		if err := db.RegisterTable("people", schema, recs); err != nil {
			t.Fatal(err)
		}
		for run, label := range []string{"cold", "warm", "warm"} {
			before := db.Stats().GPU
			start := time.Now()
			got := checksum(t, db, redactQuery)
			d := time.Since(start)
			after := db.Stats().GPU
			if got != want {
				t.Fatalf("fusion=%v run %d: GPU result differs from the CPU backend", fusion, run)
			}
			t.Logf("fusion=%v %s: %v end to end (download included), %d compiles, %d launches, %d bytes to device",
				fusion, label, d.Round(time.Microsecond), after.Compiles-before.Compiles, after.Launches-before.Launches, after.BytesToDevice-before.BytesToDevice)
			if run > 0 && after.Compiles != before.Compiles {
				t.Fatalf("warm query compiled %d kernels", after.Compiles-before.Compiles)
			}
		}
		q, err := db.Query(ctx, redactQuery)
		if err != nil {
			t.Fatal(err)
		}
		for q.Next() {
		}
		dt, ok := q.(interface{ DeviceTime() (time.Duration, bool) }).DeviceTime()
		q.Release()
		if !ok || dt <= 0 {
			t.Fatalf("device time %v, %v", dt, ok)
		}
		t.Logf("fusion=%v: device time of the query %v", fusion, dt)
		rdr, err := db.Query(ctx, "EXPLAIN ANALYZE "+redactQuery)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			col := rdr.Record().Column(0)
			for i := 0; i < col.Len(); i++ {
				t.Logf("  %s", col.ValueStr(i))
			}
		}
		rdr.Release()
		db.Close()
	}
}

// checksum renders every result row (order kept) into one string digest.
func checksum(t *testing.T, db *gsql.DB, q string) string {
	t.Helper()
	rows := rowsOf(t, db, q)
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestGPUPoolLimit: a table larger than the pool limit fails with an
// out-of-memory error that names the limit, never a CUDA crash, and the
// database keeps working on the CPU.
func TestGPUPoolLimit(t *testing.T) {
	ctx := context.Background()
	db, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: 64 << 20})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	schema, recs := datagen.People(4_000_000, 3)
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	_, err = db.Query(ctx, redactQuery)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("query over a table larger than the pool limit: %v", err)
	}
	t.Logf("error: %v", err)
	if err := db.SetDevice("cpu"); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, db, redactQuery+" LIMIT 3"); len(got) != 3 {
		t.Fatalf("CPU after the GPU failure: %v", got)
	}
}
