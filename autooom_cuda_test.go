//go:build cuda

package gsql_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/errkind"
)

// tinyPool is the device memory limit of the fallback tests: far below
// what the queries below need at once.
const tinyPool = 16 << 20

// openAutoTiny opens an auto database with a tiny pool limit that places
// every query by its operators (no row threshold) and waits for the GPU.
func openAutoTiny(t *testing.T) *gsql.DB {
	t.Helper()
	return openAutoPool(t, tinyPool)
}

// openAutoPool is openAutoTiny with a pool limit of pool bytes.
func openAutoPool(t *testing.T, pool uint64) *gsql.DB {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: "auto", PoolLimit: pool, AutoGPUMinRows: -1})
	if err != nil || db.Device() != "gpu" {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.WaitGPU(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// warmPlan plans q once (auto placement starts compiling the kernels no
// tier has ready) and waits for those compiles, so that q is placed on the
// GPU by its operators, not by what is compiled yet.
func warmPlan(t *testing.T, db *gsql.DB, q string) {
	t.Helper()
	rowsOf(t, db, "EXPLAIN "+q)
	if err := db.WaitCompiles(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// explainFallback runs EXPLAIN ANALYZE q and checks that it ran on the CPU
// and says why on its first line.
func explainFallback(t *testing.T, db *gsql.DB, q string) {
	t.Helper()
	before := db.Stats().CPUFallbacks
	lines := rowsOf(t, db, "EXPLAIN ANALYZE "+q)
	plan := strings.Join(lines, "\n")
	if !strings.HasPrefix(lines[0], "ran on the cpu: the gpu was out of memory (needed ") || strings.Contains(plan, "[gpu") {
		t.Fatalf("EXPLAIN ANALYZE %s:\n%s", q, plan)
	}
	if got := db.Stats().CPUFallbacks; got != before+1 {
		t.Fatalf("EXPLAIN ANALYZE counted %d fallbacks", got-before)
	}
	t.Logf("EXPLAIN ANALYZE %s:\n%s", q, plan)
}

// TestAutoFallbackWideRow: a row larger than the pool limit cannot go to
// the GPU at all: strict gpu mode fails with an out-of-memory error, auto
// answers with the CPU backend's rows, counts the fallback, says why in
// EXPLAIN ANALYZE, and leaves only resident tables in the pool.
func TestAutoFallbackWideRow(t *testing.T) {
	ctx := context.Background()
	auto := openAutoTiny(t)
	strict, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: tinyPool})
	if err != nil {
		t.Fatal(err)
	}
	defer strict.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.Append("small")
	sb.Append(strings.Repeat("x", 32<<20))
	sb.Append("small")
	col := sb.NewArray()
	rec := array.NewRecord(schema, []arrow.Array{col}, 3)
	for _, db := range []*gsql.DB{auto, strict, cpu} {
		if err := db.RegisterTable("wide", schema, []arrow.Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	const q = "SELECT LENGTH(UPPER(s)), LEFT(UPPER(s), 3) FROM wide"
	if err := queryErr(ctx, strict, q); errkind.Of(err) != errkind.OutOfMemory {
		t.Fatalf("strict gpu: %v (kind %v), want out of memory", err, errkind.Of(err))
	}
	warmPlan(t, auto, q)
	got, want := sortedRows(t, auto, q), sortedRows(t, cpu, q)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("auto: %v, CPU backend %v", got, want)
	}
	if n := auto.Stats().CPUFallbacks; n != 1 {
		t.Fatalf("%d fallbacks counted, want 1", n)
	}
	requirePoolSettled(t, auto)
	explainFallback(t, auto, q)
	requirePoolSettled(t, auto)
	// What fits still runs on the GPU.
	small := "SELECT UPPER(s) FROM wide WHERE LENGTH(s) < 10"
	if plan := strings.Join(rowsOf(t, auto, "EXPLAIN ANALYZE "+small), "\n"); strings.HasPrefix(plan, "ran on the cpu") {
		t.Fatalf("a query that fits fell back:\n%s", plan)
	}
}

// orderedDigest runs q and hashes its rows in order (as the answer files
// render values), for results too large to compare as lists.
func orderedDigest(t *testing.T, db *gsql.DB, q string) (int, string) {
	t.Helper()
	rdr, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rdr.Release()
	h := sha256.New()
	rows := 0
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			for c := 0; c < int(rec.NumCols()); c++ {
				h.Write([]byte(answers.Value(rec.Column(c), i)))
				h.Write([]byte{'\t'})
			}
			h.Write([]byte{'\n'})
			rows++
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows, hex.EncodeToString(h.Sum(nil))
}

// TestAutoFallbackTPCH: TPC-H SF0.1 in auto mode under a 16 MiB pool
// limit. A sort of every lineitem row with its comment (about 20 MB the
// device sort concatenates at once) runs out of device memory and answers
// on the CPU, saying why; TPC-H queries answer as the CPU backend does,
// on whichever device (each one that fell back says why).
func TestAutoFallbackTPCH(t *testing.T) {
	if testing.Short() {
		t.Skip("TPC-H SF0.1")
	}
	ctx := context.Background()
	// The sort's 27 MiB of lineitem columns must fit the half of the pool
	// a table may keep resident, or the planner keeps them on the host and
	// nothing reaches the device to fail (as under tinyPool); the sort's
	// keys, order and gathered output then pass what is left.
	const pool = 64 << 20
	auto := openAutoPool(t, pool)
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	for _, db := range []*gsql.DB{auto, cpu} {
		if err := tpch.Load(ctx, db, 0.1); err != nil {
			t.Fatal(err)
		}
	}
	// (The filter keeps every row and puts the sort's input on the device.)
	const sortAll = "SELECT l_orderkey, l_linenumber, l_comment FROM lineitem WHERE l_linenumber > 0 ORDER BY l_orderkey, l_linenumber"
	warmPlan(t, auto, sortAll)
	before := auto.Stats().CPUFallbacks
	gotRows, got := orderedDigest(t, auto, sortAll)
	wantRows, want := orderedDigest(t, cpu, sortAll)
	if gotRows != wantRows || got != want {
		t.Fatalf("sorted lineitem: auto %d rows (%s), CPU backend %d rows (%s)", gotRows, got, wantRows, want)
	}
	if auto.Stats().CPUFallbacks != before+1 {
		plan := strings.Join(rowsOf(t, auto, "EXPLAIN ANALYZE "+sortAll), "\n")
		t.Fatalf("the sort of %d rows under a %d-byte limit did not fall back to the CPU:\n%s", gotRows, pool, plan)
	}
	requirePoolSettled(t, auto)
	explainFallback(t, auto, sortAll)
	for _, n := range []int{1, 3, 10, 18} {
		before := auto.Stats().CPUFallbacks
		got, err := runTPCH(ctx, auto, n)
		if err != nil {
			t.Fatalf("q%02d: %v", n, err)
		}
		want, err := runTPCH(ctx, cpu, n)
		if err != nil {
			t.Fatalf("q%02d on the CPU: %v", n, err)
		}
		if msg := compareAnswers(got, want); msg != "" {
			t.Errorf("q%02d: %s", n, msg)
		}
		fell := auto.Stats().CPUFallbacks - before
		t.Logf("q%02d: %d fallbacks", n, fell)
		requirePoolSettled(t, auto)
	}
}
