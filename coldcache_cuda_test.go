//go:build cuda

package gsql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// TestGPUEmptyKernelCache opens a database on the GPU with an empty kernel
// cache and runs, at once, queries that need the runtime module (a global
// aggregate) and generated kernels while the open's background compiles
// are still running: none may wait on the other (a compile from the
// context thread once waited for a background compile whose module load
// needed that thread). Run it in a process of its own (a device opened
// earlier keeps its modules in memory).
func TestGPUEmptyKernelCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	schema, recs := datagen.People(600_000, 3)
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	if err := cpu.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, q := range []string{
		`SELECT COUNT(*) FROM people WHERE visibility = 'public'`,
		`SELECT MAX(LENGTH(name)), MIN(name) FROM people`,
		`SELECT COUNT(*), MIN(DATE '1950-01-01' + LENGTH(name) * 300) FROM people WHERE name LIKE 'A%'`,
	} {
		start := time.Now()
		done := make(chan []string, 1)
		go func() { done <- rowsOfCtx(t, ctx, db, q) }()
		select {
		case got := <-done:
			if want := rowsOf(t, cpu, q); !equalRows(got, want) {
				t.Fatalf("%s: GPU %v, CPU %v", q, got, want)
			}
			t.Logf("%s: %v", q, time.Since(start).Round(time.Millisecond))
		case <-ctx.Done():
			t.Fatalf("%s: no answer after %v (deadlock?)", q, time.Since(start).Round(time.Second))
		}
	}
}

func rowsOfCtx(t *testing.T, ctx context.Context, db *gsql.DB, q string) []string {
	rdr, err := db.Query(ctx, q)
	if err != nil {
		t.Errorf("%s: %v", q, err)
		return nil
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				if col := rec.Column(c); col.IsNull(i) {
					parts[c] = "NULL"
				} else {
					parts[c] = strings.Clone(col.ValueStr(i))
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Errorf("%s: %v", q, err)
	}
	return out
}

func equalRows(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
