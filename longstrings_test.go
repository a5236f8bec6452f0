package gsql_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// longDocsDB holds a table docs(id, body) of rows of 1 to 3 KB of mixed
// ASCII and multibyte words, inserted through SQL, on the given device.
func longDocsDB(t *testing.T, device string, rows int) *gsql.DB {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: device})
	if err != nil {
		t.Skipf("device %s: %v", device, err)
	}
	ctx := context.Background()
	if _, err := db.Exec(ctx, "CREATE TABLE docs (id BIGINT, body VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(11))
	words := []string{"alpha", "Beta", "日本語", "épée", "x", "OMEGA", "ünïcödé", "lorem", "ipsum", "ıi"}
	var q strings.Builder
	for i := 0; i < rows; i++ {
		if i%100 == 0 {
			if i > 0 {
				if _, err := db.Exec(ctx, q.String()); err != nil {
					t.Fatal(err)
				}
			}
			q.Reset()
			q.WriteString("INSERT INTO docs VALUES ")
		} else {
			q.WriteString(", ")
		}
		var sb strings.Builder
		for target := 1024 + r.Intn(2048); sb.Len() < target; {
			sb.WriteString(words[r.Intn(len(words))])
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&q, "(%d, '%s')", i, sb.String())
	}
	if _, err := db.Exec(ctx, q.String()); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestLongStringsWarpPerRowFromSQL runs long-string projections from SQL
// text on the GPU: batches of 1-3 KB rows take the one-row-per-warp kernels
// (EXPLAIN ANALYZE counts them) and match the CPU backend.
func TestLongStringsWarpPerRowFromSQL(t *testing.T) {
	gpu := longDocsDB(t, "gpu", 3000)
	defer gpu.Close()
	cpu := longDocsDB(t, "cpu", 3000)
	defer cpu.Close()
	for _, q := range []string{
		"SELECT id, REPLACE(body, ' ', '_') FROM docs ORDER BY id",
		"SELECT id, UPPER(body), LOWER(body) FROM docs ORDER BY id",
		"SELECT id FROM docs WHERE body LIKE '%ipsum x%' ORDER BY id",
		"SELECT id, CONCAT(REPLACE(body, 'é', 'e'), '!') FROM docs ORDER BY id",
	} {
		want := rowsOf(t, cpu, q)
		got := rowsOf(t, gpu, q)
		if len(want) == 0 {
			t.Fatalf("%s: no rows", q)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: GPU and CPU results differ (%d and %d rows)", q, len(got), len(want))
		}
		// The warp form is the fused kernels' (tier 1): with a cold kernel
		// cache the first runs answer on the interpreter, and the second
		// starts their compile (gpuexec/compilegate.go).
		rowsOf(t, gpu, q)
		waitCompiles(t, gpu)
		plan := strings.Join(rowsOf(t, gpu, "EXPLAIN ANALYZE "+q), "\n")
		if !strings.Contains(plan, "warp_per_row_batches=") {
			t.Errorf("%s: no batch ran one row per warp:\n%s", q, plan)
		}
	}
}
