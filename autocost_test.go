package gsql

import (
	"context"
	"strings"
	"testing"
)

// autoOnFakeGPU opens an auto database whose placement acts as on a GPU
// (the device-support checks, no device: NoFusion skips the kernel
// readiness checks), with fact (131,072 rows) and dim (10 rows). Only
// EXPLAIN works on it: its device plans cannot run.
func autoOnFakeGPU(t *testing.T, min int64) *DB {
	t.Helper()
	db, err := Open(Options{Device: "auto", NoFusion: true, AutoGPUMinRows: min})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	stmts := []string{"CREATE TABLE fact (g BIGINT)", "INSERT INTO fact VALUES (1)"}
	for i := 0; i < 17; i++ {
		stmts = append(stmts, "INSERT INTO fact SELECT g + (SELECT MAX(g) FROM fact) FROM fact")
	}
	stmts = append(stmts, "CREATE TABLE dim AS SELECT g AS id, g % 3 AS kind FROM fact WHERE g <= 10")
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.mu.Lock()
	db.device, db.requested = "gpu", "auto" // without a GPU, its placement alone
	db.mu.Unlock()
	return db
}

func explainText(t *testing.T, db *DB, q string) string {
	t.Helper()
	rdr, err := db.Query(context.Background(), "EXPLAIN "+q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return strings.Join(planLines(t, rdr), "\n")
}

// TestAutoPlacesFragmentsByCost: in auto mode a query over few rows runs
// on the CPU whole, as before, saying how many rows it reads; over more,
// its fragments over few rows run on the CPU and say so with their
// estimates, the rest on the GPU, the top of each device fragment saying
// what it reads. AutoGPUMinRows negative places every operator by its
// device support alone, as before; so does SET disabled_rules =
// 'place_by_cost'.
func TestAutoPlacesFragmentsByCost(t *testing.T) {
	db := autoOnFakeGPU(t, 0)
	const join = "SELECT SUM(fact.g) FROM fact JOIN dim ON fact.g = dim.id WHERE dim.kind = 1"
	tiny := explainText(t, db, "SELECT id * 2 FROM dim WHERE kind > 0")
	if !strings.Contains(tiny, "[cpu: auto: the query reads 10 rows, under the 100000 from which the GPU answers sooner]") || strings.Contains(tiny, "[gpu") {
		t.Errorf("a query over 10 rows:\n%s", tiny)
	}
	got := explainText(t, db, join)
	for _, want := range []string{
		"[gpu: auto, est 131075 rows in]",
		"  HostToDevice [gpu]\n",
		"Filter (kind = 1) [cpu: auto, est 3 rows from 10 rows scanned: 13 rows of cpu work, under the 1563 one gpu operator costs]",
		"Scan fact [g] (131072 rows) [gpu]",
		"rules: push_filters, place_by_cost",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if _, err := db.Exec(context.Background(), "SET disabled_rules = 'place_by_cost'"); err != nil {
		t.Fatal(err)
	}
	if off := explainText(t, db, join); strings.Contains(off, "auto") || !strings.Contains(off, "Filter (kind = 1) (kernel library) [gpu]") {
		t.Errorf("place_by_cost off:\n%s", off)
	}
	every := autoOnFakeGPU(t, -1)
	if got := explainText(t, every, join); strings.Contains(got, "auto") || !strings.Contains(got, "Filter (kind = 1) (kernel library) [gpu]") {
		t.Errorf("AutoGPUMinRows -1:\n%s", got)
	}
	if got := explainText(t, every, "SELECT id * 2 FROM dim WHERE kind > 0"); !strings.Contains(got, "[gpu]") {
		t.Errorf("AutoGPUMinRows -1, a query over 10 rows:\n%s", got)
	}
}
