//go:build cuda

package gsql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/operators"
)

// TestGPUQueryLatency runs the redact query from SQL text on the GPU: cold
// (table uploaded, the interpreter answering), again (the interpreter,
// while the fused kernels compile), then warm (both cached, no compiles),
// and checks the
// result against the CPU backend. Run on a GPU machine (-tags cuda).
func TestGPUQueryLatency(t *testing.T) {
	ctx := context.Background()
	os.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cold kernel cache
	rows := 10_000_000
	if testing.Short() {
		rows = 600_000
	}
	schema, recs := datagen.People(rows, 42)
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
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
		for run, label := range []string{"cold", "again", "warm"} {
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
			if run > 1 && after.Compiles != before.Compiles {
				t.Fatalf("warm query compiled %d kernels", after.Compiles-before.Compiles)
			}
			if run < 2 {
				// The cold runs answered on the interpreter; a shape's
				// fused kernels compile in the background from its
				// second run (or first batch of a million rows,
				// gpuexec/compilegate.go), and warm runs use them.
				waitCompiles(t, db)
			}
		}
		q, err := db.Query(db.WithDeviceTiming(ctx), redactQuery)
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
		requirePoolSettled(t, db)
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
		requirePoolSettled(t, db)
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

// requirePoolSettled checks that no device memory outlives the queries
// that used it: the pool's bytes in use are the resident tables' bytes (each
// resident buffer's allocation rounded up to the pool's 512 bytes), zero
// when nothing is resident.
func requirePoolSettled(t *testing.T, db *gsql.DB) {
	t.Helper()
	st := db.Stats()
	if st.GPU == nil || st.Cache == nil {
		t.Fatalf("no GPU statistics (device %s)", st.Device)
	}
	if r := st.GPU.Results; r.InUse != 0 || r.Lent != 0 {
		t.Fatalf("result memory: %d bytes in %d blocks still lent after the queries finished", r.InUse, r.Lent)
	}
	// Uploaded batches are one allocation each; batches adopted from a
	// statement's results hold a few per column. The pool is shared by
	// every database of the process on this GPU: the database's own bytes
	// are its handle's.
	inUse, resident := st.GPU.InUse, st.Cache.Bytes
	if inUse < resident || inUse > resident+4096*uint64(st.Cache.Batches) {
		t.Fatalf("pool: %d bytes in use, resident tables hold %d in %d batches", inUse, resident, st.Cache.Batches)
	}
}

// sortedRows is rowsOf in sorted order.
func sortedRows(t *testing.T, db *gsql.DB, q string) []string {
	t.Helper()
	rows := rowsOf(t, db, q)
	sort.Strings(rows)
	return rows
}

// queryErr runs q to the end and returns its error.
func queryErr(ctx context.Context, db *gsql.DB, q string) error {
	rdr, err := db.Query(ctx, q)
	if err != nil {
		return err
	}
	defer rdr.Release()
	for rdr.Next() {
	}
	return rdr.Err()
}

var scanBatches = regexp.MustCompile(`Scan (\w+) .*\[gpu\] rows=\d+ batches=(\d+)`)

// gpuScanBatches returns, per table, the device batches EXPLAIN ANALYZE
// reports for its GPU scans.
func gpuScanBatches(t *testing.T, db *gsql.DB, q string) (map[string]int, string) {
	t.Helper()
	lines := rowsOf(t, db, "EXPLAIN ANALYZE "+q)
	out := map[string]int{}
	for _, l := range lines {
		if m := scanBatches.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			out[m[1]] += n
		}
	}
	return out, strings.Join(lines, "\n")
}

// TestGPUPoolLimit: with a pool limit far below the tables' sizes, queries
// still run on the GPU, the large tables streamed in chunks that fit, with
// the CPU backend's results; a join whose build side is over a quarter of
// the limit is planned on the CPU; what cannot fit at all (a single row
// over the limit) fails with an out-of-memory error naming the limit, never
// a CUDA crash, and the database keeps working on the GPU.
// After every query the pool holds only the resident tables.
func TestGPUPoolLimit(t *testing.T) {
	ctx := context.Background()
	const limit = 64 << 20
	db, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: limit})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	people := 4_000_000
	orders, customers := 4_000_000, 200_000
	if testing.Short() {
		orders, customers = 3_000_000, 50_000 // people and orders must still overflow half the limit below
	}
	ps, precs := datagen.People(people, 3)
	osch, orecs, cs, crecs := datagen.Orders(orders, customers, 7)
	for _, d := range []*gsql.DB{db, cpu} {
		for _, tb := range []struct {
			name   string
			schema *arrow.Schema
			recs   []arrow.Record
		}{{"people", ps, precs}, {"orders", osch, orecs}, {"customers", cs, crecs}} {
			if err := d.RegisterTable(tb.name, tb.schema, tb.recs); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []struct {
		sql     string
		chunked string // the table that must come in several batches
	}{
		{redactQuery, "people"},
		{"SELECT visibility, COUNT(*), COUNT(name), MIN(name), MAX(name) FROM people GROUP BY visibility", "people"},
		// A filter over a scan larger than half the limit runs on the host
		// (it reads only the predicate's columns), with the reason shown.
		{"SELECT UPPER(name), visibility FROM people WHERE visibility = 'public' AND name LIKE 'A%'", ""},
		// The probe side streams; the customers table is small enough to stay resident.
		{"SELECT c.city, COUNT(*), SUM(o.qty) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.city", "orders"},
	} {
		start := time.Now()
		got := sortedRows(t, db, q.sql)
		d := time.Since(start)
		want := sortedRows(t, cpu, q.sql)
		if len(got) != len(want) {
			t.Fatalf("%s: GPU %d rows, CPU %d", q.sql, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d: GPU %q, CPU %q", q.sql, i, got[i], want[i])
			}
		}
		batches, plan := gpuScanBatches(t, db, q.sql)
		if q.chunked == "" {
			if !strings.Contains(plan, "the host filters them without copying") {
				t.Fatalf("%s: the filter over the large scan is not on the host:\n%s", q.sql, plan)
			}
		} else if batches[q.chunked] < 2 {
			t.Fatalf("%s: %s scanned in %d device batches under a %d-byte limit:\n%s", q.sql, q.chunked, batches[q.chunked], limit, plan)
		}
		requirePoolSettled(t, db)
		t.Logf("%v, %d rows, %s in %d batches: %s", d.Round(time.Millisecond), len(got), q.chunked, batches[q.chunked], q.sql)
	}
	st := db.Stats()
	// The pool is shared with the process's other databases: the limit
	// bounds this database's own bytes.
	t.Logf("peak %d of %d bytes; cache: %+v", st.GPU.Peak, limit, *st.Cache)
	if st.Cache.Streamed == 0 || st.GPU.Peak > limit {
		t.Fatalf("no streamed scan or peak over the limit: %+v %+v", *st.Cache, st.GPU.Memory)
	}

	// A join whose build side (every order's id and region) is larger than
	// a quarter of the limit is planned on the CPU and answers.
	selfJoin := "SELECT COUNT(*), SUM(LENGTH(b.region)) FROM orders a JOIN orders b ON a.id = b.id"
	plan := strings.Join(rowsOf(t, db, "EXPLAIN "+selfJoin), "\n")
	if !strings.Contains(plan, "HashJoin on id = id [cpu: its build side takes") {
		t.Fatalf("join with a build side over the limit is not on the CPU:\n%s", plan)
	}
	if got, want := sortedRows(t, db, selfJoin), sortedRows(t, cpu, selfJoin); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("join over the limit: %v, CPU backend %v", got, want)
	}
	requirePoolSettled(t, db)

	// One row larger than the limit.
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.Append("small")
	sb.Append(strings.Repeat("x", 96<<20))
	sb.Append("small")
	col := sb.NewArray()
	rec := array.NewRecord(schema, []arrow.Array{col}, 3)
	if err := db.RegisterTable("wide", schema, []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	err = queryErr(ctx, db, "SELECT UPPER(s) FROM wide")
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("a row over the limit: %v", err)
	}
	t.Logf("row over the limit: %v", err)
	requirePoolSettled(t, db)

	// The database keeps working on the GPU.
	if got, want := sortedRows(t, db, redactQuery), sortedRows(t, cpu, redactQuery); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatal("redact query after the failures differs from the CPU backend")
	}
	requirePoolSettled(t, db)
}

// TestGPUCancel: a long GPU query (a table streamed in hundreds of chunks
// under a small pool limit) stops within 100 ms of its context's cancel
// with context.Canceled, and the pool's bytes in use return to what they
// were before it.
func TestGPUCancel(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: 32 << 20})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	rows := 20_000_000
	if testing.Short() {
		rows = 4_000_000
	}
	schema, recs := datagen.People(rows, 9)
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT visibility, COUNT(*), MAX(name) FROM people GROUP BY visibility",
		redactQuery,
	} {
		// Warm: kernels compiled; how long the whole query takes.
		start := time.Now()
		if err := queryErr(context.Background(), db, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		whole := time.Since(start)
		requirePoolSettled(t, db)
		before := db.Stats().GPU.Memory.InUse
		chunks := db.Stats().Cache.Chunks

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- queryErr(ctx, db, q) }()
		// Cancel once the scan is well under way.
		deadline := time.Now().Add(10 * time.Second)
		for db.Stats().Cache.Chunks < chunks+5 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		mid := db.Stats().Cache.Chunks - chunks
		cancel()
		at := time.Now()
		select {
		case err := <-done:
			stopped := time.Since(at)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: err = %v, want context.Canceled (whole query %v)", q, err, whole)
			}
			if stopped > 100*time.Millisecond {
				t.Errorf("%s: stopped %v after the cancel", q, stopped)
			}
			t.Logf("whole query %v; cancelled after %d chunks, stopped %v after the cancel: %s", whole.Round(time.Millisecond), mid, stopped, q)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: not stopped 5 s after the cancel", q)
		}
		if after := db.Stats().GPU.Memory.InUse; after != before {
			t.Fatalf("%s: %d bytes in use after the cancelled query, %d before", q, after, before)
		}
		requirePoolSettled(t, db)
	}
}

var fusedBatches = regexp.MustCompile(`\(fused kernel\) \[gpu\] rows=\d+ batches=(\d+)`)

// TestGPUMemoryPressure: with resident tables filling most of the pool, a
// query whose results are far larger than what is left evicts the tables
// no query holds (counted in the cache's PressureEvictions) and computes
// and downloads its batch in halves that fit, with the CPU backend's
// results.
func TestGPUMemoryPressure(t *testing.T) {
	const limit = 64 << 20
	// The resident tables may take 48 of the 64 MiB (the default, half the
	// limit, would hold two of the three): the query below must find the
	// pool short with tables no query holds, and evict them.
	db, err := gsql.Open(gsql.Options{Device: "gpu", PoolLimit: limit, CacheBudget: 48 << 20})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	for i := 1; i <= 4; i++ {
		schema, recs := datagen.People(500_000, int64(i))
		for _, d := range []*gsql.DB{db, cpu} {
			if err := d.RegisterTable("p"+strconv.Itoa(i), schema, recs); err != nil {
				t.Fatal(err)
			}
		}
	}
	same := func(q string) {
		t.Helper()
		got, want := sortedRows(t, db, q), sortedRows(t, cpu, q)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: GPU result (%d rows) differs from the CPU backend (%d rows)", q, len(got), len(want))
		}
	}
	// Three tables resident, about 45 of the 64 MiB.
	for i := 1; i <= 3; i++ {
		same(fmt.Sprintf("SELECT visibility, COUNT(*), MAX(name) FROM p%d GROUP BY visibility", i))
	}
	if st := db.Stats().Cache; st.Tables != 3 || st.Streamed != 0 {
		t.Fatalf("setup: %+v", *st)
	}
	// A fourth table, and a result 20 times its names (about 140 MB).
	q := "SELECT REPEAT(name, 20), visibility FROM p4"
	same(q)
	st := db.Stats()
	t.Logf("cache after the query: %+v; pool peak %d", *st.Cache, st.GPU.Memory.Peak)
	if st.Cache.PressureEvictions == 0 || st.Cache.Tables != 1 {
		t.Fatalf("no eviction under pressure: %+v", *st.Cache)
	}
	lines := rowsOf(t, db, "EXPLAIN ANALYZE "+q)
	n := 0
	for _, l := range lines {
		if m := fusedBatches.FindStringSubmatch(l); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
	}
	if n < 2 {
		t.Fatalf("the compute was not split:\n%s", strings.Join(lines, "\n"))
	}
	t.Logf("EXPLAIN ANALYZE:\n%s", strings.Join(lines, "\n"))
	requirePoolSettled(t, db)
}

// TestGPUResultMemory runs a large query 1,000 times: every result comes
// from the page-locked result pool, the pool returns to empty after each,
// its page-locked bytes stop growing after the first, and the Go heap does
// not grow. Records held across later queries keep their values.
func TestGPUResultMemory(t *testing.T) {
	ctx := context.Background()
	schema, recs := datagen.People(1_000_000, 7)
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	want := checksum(t, db, redactQuery)
	held, err := db.Query(ctx, redactQuery)
	if err != nil {
		t.Fatal(err)
	}
	var keep []arrow.Record
	for held.Next() {
		rec := held.Record()
		rec.Retain()
		keep = append(keep, rec)
	}
	held.Release()
	if db.Stats().GPU.Results.Lent == 0 {
		t.Fatal("the held result is not in the result pool")
	}
	var reserved uint64
	var heap runtime.MemStats
	for i := 0; i < 1000; i++ {
		rdr, err := db.Query(ctx, redactQuery)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(0)
		for rdr.Next() {
			n += rdr.Record().NumRows()
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
		if n != 1_000_000 {
			t.Fatalf("run %d: %d rows", i, n)
		}
		st := db.Stats().GPU.Results
		if st.Lent != int64(len(keep)) {
			t.Fatalf("run %d: %d blocks lent, %d held", i, st.Lent, len(keep))
		}
		switch i {
		case 9:
			reserved = st.Reserved
			runtime.GC()
			runtime.ReadMemStats(&heap)
		case 999:
			if st.Reserved != reserved {
				t.Fatalf("page-locked bytes grew from %d to %d", reserved, st.Reserved)
			}
			var end runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&end)
			if end.HeapAlloc > heap.HeapAlloc+64<<20 {
				t.Fatalf("Go heap grew from %d to %d bytes over 990 queries", heap.HeapAlloc, end.HeapAlloc)
			}
			t.Logf("after 1,000 queries: %+v; heap %d -> %d bytes", st, heap.HeapAlloc, end.HeapAlloc)
		}
	}
	var b strings.Builder
	for _, rec := range keep {
		col := rec.Column(0)
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				b.WriteString("NULL")
			} else {
				b.WriteString(col.ValueStr(i))
			}
			b.WriteByte('\n')
		}
		rec.Release()
	}
	if b.String() != want {
		t.Fatal("a record held across 1,000 later queries changed")
	}
	requirePoolSettled(t, db)
}

// TestGPUOverlappedResults runs a query over a table of ten device batches,
// whose downloads overlap the next batch's kernels, and checks the rows
// against the CPU backend; a reader released after its first record (the
// next copy in flight) leaves no memory lent.
func TestGPUOverlappedResults(t *testing.T) {
	defer func(n int) { operators.DeviceBatchRows = n }(operators.DeviceBatchRows)
	operators.DeviceBatchRows = 100_000
	schema, recs := datagen.People(1_000_000, 9)
	var pieces []arrow.Record
	for _, r := range recs {
		for lo := int64(0); lo < r.NumRows(); lo += 100_000 {
			pieces = append(pieces, r.NewSlice(lo, min(lo+100_000, r.NumRows())))
		}
	}
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	for _, d := range []*gsql.DB{cpu, db} {
		if err := d.RegisterTable("people", schema, pieces); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{redactQuery, redactQuery + " LIMIT 250000", "SELECT name, LENGTH(name) FROM people WHERE visibility = 'public'"} {
		if got, want := checksum(t, db, q), checksum(t, cpu, q); got != want {
			t.Fatalf("%s: GPU rows differ from the CPU backend's", q)
		}
		rdr, err := db.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !rdr.Next() {
			t.Fatalf("%s: no record", q)
		}
		rdr.Release() // the next batch's copy is in flight
		requirePoolSettled(t, db)
	}
	for _, line := range rowsOf(t, db, "EXPLAIN ANALYZE "+redactQuery) {
		t.Log(line)
	}
}

// TestGPUStatementsStayResident: a table made by CREATE TABLE AS SELECT
// and grown by INSERT ... SELECT on the GPU keeps the rows the GPU computed
// as its resident copy, so the next query scans it without an upload; the
// rows equal the CPU backend's after the same statements.
func TestGPUStatementsStayResident(t *testing.T) {
	schema, recs := datagen.People(1_000_000, 5)
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer db.Close()
	stmts := []string{
		"CREATE TABLE r AS " + strings.Replace(redactQuery, " AS redacted FROM people", " AS redacted, visibility FROM people", 1),
		"INSERT INTO r SELECT UPPER(name), visibility FROM people WHERE name LIKE 'B%'",
		"INSERT INTO r SELECT CONCAT(name, '!'), visibility FROM people",
	}
	check := "SELECT COUNT(*), COUNT(redacted), MAX(redacted), SUM(LENGTH(redacted)) FROM r WHERE visibility = 'public'"
	for _, d := range []*gsql.DB{cpu, db} {
		if err := d.RegisterTable("people", schema, recs); err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range stmts {
		for _, d := range []*gsql.DB{cpu, db} {
			mustExec(t, d, st)
		}
		before := db.Stats()
		got := checksum(t, db, check)
		after := db.Stats()
		if want := checksum(t, cpu, check); got != want {
			t.Fatalf("after %q: %q, CPU backend %q", st, got, want)
		}
		adopted, uploaded := after.Cache.Adopted, after.GPU.BytesToDevice-before.GPU.BytesToDevice
		t.Logf("after statement %d: %d tables adopted, %d bytes uploaded by the check query (kernel arguments)", i, adopted, uploaded)
		// The second INSERT appends few rows: the catalog merges them into
		// its last record, so there is no resident copy to extend and the
		// check query loads the table.
		if i != 1 && (adopted == 0 || after.Cache.Misses != before.Cache.Misses || uploaded > 64<<10) {
			t.Fatalf("after %q: the query missed the cache and uploaded %d bytes (%d tables adopted)", st, uploaded, adopted)
		}
	}
	requirePoolSettled(t, db)
}
