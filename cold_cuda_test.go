//go:build cuda

package gsql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// coldQueries are filter/projection shapes over people(name, visibility)
// that no other test runs: each is new to the kernel cache. offset picks a
// different family per process, so a second process meets shapes the
// first did not compile.
func coldQueries(offset int) []string {
	fns := []string{
		"UPPER(%s)", "LOWER(%s)", "REVERSE(%s)", "LENGTH(%s)", "CHAR_LENGTH(%s)", "TRIM(%s)",
		"LEFT(%s, 3)", "RIGHT(%s, 4)", "SUBSTRING(%s, 2, 5)", "REPLACE(%s, 'a', 'o')", "LPAD(%s, 20, '*')",
		"CONCAT(%s, '!')", "SPLIT_PART(%s, ' ', 2)", "LOCATE('e', %s)", "ASCII(%s)", "REPEAT(%s, 2)",
	}
	preds := []string{"visibility = 'public'", "name LIKE '%a%'", "LENGTH(name) > 10", "visibility <> 'private' AND name LIKE 'J%'"}
	var out []string
	for i := range fns {
		f := fns[i]
		g := fns[(i+1+offset)%len(fns)]
		p := preds[(i+offset+offset/16)%len(preds)]
		out = append(out, fmt.Sprintf("SELECT %s, %s FROM people WHERE %s", fmt.Sprintf(f, "name"), fmt.Sprintf(strings.ReplaceAll(g, "%s", "%[1]s"), "visibility"), p))
	}
	return out
}

// limited is q returning 5 rows: the GPU still evaluates every row, the
// host receives almost nothing (the first-run cost without the result
// download, which issue 17 is about).
func limited(qs []string) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q + " LIMIT 5"
	}
	return out
}

// TestColdStartReport measures what a new user meets on the GPU: a fresh
// process, an empty (or interpreter-only) kernel cache, a resident table,
// queries never run before. GSQL_COLD=1 runs it; GSQL_COLD_OFFSET picks
// the query family; GSQL_COLD_ROWS the table size. It asserts results
// against the CPU backend; the figures are logged for docs/benchlog/2026-11-25-cold-start.md.
func TestColdStartReport(t *testing.T) {
	if os.Getenv("GSQL_COLD") == "" {
		t.Skip("set GSQL_COLD=1 (and XDG_CACHE_HOME to choose the kernel cache)")
	}
	ctx := context.Background()
	rows := 600_000
	if r, err := strconv.Atoi(os.Getenv("GSQL_COLD_ROWS")); err == nil {
		rows = r
	}
	offset, _ := strconv.Atoi(os.Getenv("GSQL_COLD_OFFSET"))
	schema, recs := datagen.People(rows, 42)
	cpu := openTestDB(t, gsql.Options{Device: "cpu"})
	if err := cpu.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"gpu", "auto"} {
		start := time.Now()
		db, err := gsql.Open(gsql.Options{Device: mode})
		if err != nil {
			t.Skipf("no GPU: %v", err)
		}
		opened := time.Since(start)
		if err := db.RegisterTable("people", schema, recs); err != nil {
			t.Fatal(err)
		}
		// Make the table resident (the measurement is of queries
		// over a resident table), then wait for the precompiled tier.
		rowsOf(t, db, "SELECT name, visibility FROM people LIMIT 1")
		st0 := db.Stats().GPU
		wstart := time.Now()
		if err := db.WaitGPU(ctx); err != nil {
			t.Fatal(err)
		}
		st1 := db.Stats().GPU
		t.Logf("%s: open %v; interpreter+runtime ready after %v more (%d compiles, NVRTC %v, load %v, %d disk hits)", mode, opened.Round(time.Millisecond),
			time.Since(wstart).Round(time.Millisecond), st1.Compiles, st1.CompileTime.Round(time.Millisecond), st1.LoadTime.Round(time.Millisecond), st1.DiskCacheHits)
		_ = st0
		for _, set := range []struct {
			label string
			qs    []string
		}{
			{"LIMIT 5", limited(coldQueries(offset + map[string]int{"gpu": 0, "auto": 7}[mode]))},
			{"all rows", coldQueries(offset + map[string]int{"gpu": 3, "auto": 10}[mode])},
		} {
			if os.Getenv("GSQL_COLD_LIMIT_ONLY") != "" && set.label != "LIMIT 5" {
				continue
			}
			var firsts, seconds, cpus []time.Duration
			for i, q := range set.qs {
				want := checksum(t, cpu, q)
				cstart := time.Now()
				checksum(t, cpu, q)
				cpuT := time.Since(cstart)
				s := time.Now()
				got := checksum(t, db, q)
				first := time.Since(s)
				if got != want {
					t.Fatalf("%s %q: GPU result differs from the CPU backend", mode, q)
				}
				firsts, cpus = append(firsts, first), append(cpus, cpuT)
				if i < 2 {
					t.Logf("%s %q: first %v, cpu %v", mode, q, first.Round(time.Microsecond), cpuT.Round(time.Microsecond))
				}
			}
			// The warm runs: after the background compiles, so that they
			// measure the fused kernels (tier 1).
			wait := time.Now()
			for db.Stats().GPU.CompilesQueued > 0 && time.Since(wait) < 90*time.Second {
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("%s: background compiles finished %v after the first runs", mode, time.Since(wait).Round(time.Millisecond))
			for _, q := range set.qs {
				checksum(t, db, q) // loads the compiled kernels
				s := time.Now()
				checksum(t, db, q)
				seconds = append(seconds, time.Since(s))
			}
			t.Logf("%s over %d rows, %d new shapes, %s: first run median %v max %v; warm (tier 1) median %v; CPU (second run) median %v", mode, rows, len(firsts),
				set.label, median(firsts), maxDur(firsts), median(seconds), median(cpus))
		}
		// Let the background compiles finish, then run each once more:
		// tier 1 everywhere.
		time.Sleep(2 * time.Second)
		q := coldQueries(offset)[0]
		for _, line := range rowsOf(t, db, "EXPLAIN ANALYZE "+q) {
			t.Logf("  %s", line)
		}
		st2 := db.Stats().GPU
		t.Logf("%s: %d compiles in all, NVRTC %v (background), load %v", mode, st2.Compiles, st2.CompileTime.Round(time.Millisecond), st2.LoadTime.Round(time.Millisecond))
		requirePoolSettled(t, db)
		db.Close()
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Microsecond)
}

func maxDur(ds []time.Duration) time.Duration {
	m := time.Duration(0)
	for _, d := range ds {
		m = max(m, d)
	}
	return m.Round(time.Microsecond)
}

// TestCorpusReport runs 1,024 distinct string-function query shapes in one
// process in strict gpu mode and the same set on the CPU backend, checking
// every answer (GSQL_CORPUS=1 runs it; GSQL_CORPUS_ROWS sizes the table).
func TestCorpusReport(t *testing.T) {
	if os.Getenv("GSQL_CORPUS") == "" {
		t.Skip("set GSQL_CORPUS=1")
	}
	ctx := context.Background()
	rows := 1000
	if r, err := strconv.Atoi(os.Getenv("GSQL_CORPUS_ROWS")); err == nil {
		rows = r
	}
	schema, recs := datagen.People(rows, 42)
	var qs []string
	for off := 0; off < 64; off++ {
		qs = append(qs, coldQueries(off)...)
	}
	seen := map[string]bool{}
	var uniq []string
	for _, q := range qs {
		if !seen[q] {
			seen[q] = true
			uniq = append(uniq, q)
		}
	}
	run := func(device string) (time.Duration, []string) {
		db, err := gsql.Open(gsql.Options{Device: device})
		if err != nil {
			t.Skipf("no GPU: %v", err)
		}
		defer db.Close()
		if err := db.RegisterTable("people", schema, recs); err != nil {
			t.Fatal(err)
		}
		if err := db.WaitGPU(ctx); err != nil {
			t.Fatal(err)
		}
		// GSQL_CORPUS_PROF=dir writes a CPU profile and an execution trace
		// of the GPU run there.
		if dir := os.Getenv("GSQL_CORPUS_PROF"); dir != "" && device == "gpu" {
			stop := profileTo(t, dir)
			defer stop()
		}
		start := time.Now()
		out := make([]string, len(uniq))
		for i, q := range uniq {
			out[i] = checksum(t, db, q)
		}
		took := time.Since(start)
		if st := db.Stats().GPU; st != nil {
			t.Logf("%s: %d compiles during the corpus (background), NVRTC %v", device, st.Compiles, st.CompileTime.Round(time.Millisecond))
		}
		return took, out
	}
	cpuT, want := run("cpu")
	gpuT, got := run("gpu")
	for i := range uniq {
		if got[i] != want[i] {
			t.Fatalf("%q: GPU result differs from the CPU backend", uniq[i])
		}
	}
	t.Logf("%d distinct queries over %d rows: gpu (strict) %v, cpu %v, ratio %.2f", len(uniq), rows, gpuT.Round(time.Millisecond), cpuT.Round(time.Millisecond), float64(gpuT)/float64(cpuT))
}

// profileTo starts a CPU profile and an execution trace in dir; the
// returned function stops both.
func profileTo(t *testing.T, dir string) func() {
	t.Helper()
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := os.Create(filepath.Join(dir, "trace.out"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(tr); err != nil {
		t.Fatal(err)
	}
	return func() {
		trace.Stop()
		pprof.StopCPUProfile()
		cpu.Close()
		tr.Close()
	}
}

// TestFirstQueryReport looks into the first query of a process over a
// resident table (GSQL_FIRST=1 runs it; GSQL_CORPUS_PROF=dir traces the
// first query): two new shapes in a row, then the first again, with the
// device's pools before and after.
func TestFirstQueryReport(t *testing.T) {
	if os.Getenv("GSQL_FIRST") == "" {
		t.Skip("set GSQL_FIRST=1")
	}
	ctx := context.Background()
	db := openGPUPeople(t, 1_000_000)
	defer db.Close()
	rowsOf(t, db, "SELECT COUNT(*) FROM people WHERE name IS NULL AND visibility IS NULL") // resident
	if err := db.WaitGPU(ctx); err != nil {
		t.Fatal(err)
	}
	show := func(label string) {
		st := db.Stats().GPU
		t.Logf("%s: device pool %d MB reserved, result pool %d MB reserved, %d compiles", label, st.Memory.Reserved>>20, st.Results.Reserved>>20, st.Compiles)
	}
	show("before")
	qs := []string{
		"SELECT UPPER(name), visibility FROM people WHERE name LIKE '%an%'",
		"SELECT LOWER(name), LENGTH(visibility) FROM people WHERE visibility <> 'x'",
		"SELECT UPPER(name), visibility FROM people WHERE name LIKE '%an%'",
	}
	if s := os.Getenv("GSQL_FIRST_QUERIES"); s != "" {
		qs = strings.Split(s, ";")
	}
	for i, q := range qs {
		if dir := os.Getenv("GSQL_CORPUS_PROF"); dir != "" && i == 0 {
			stop := profileTo(t, dir)
			start := time.Now()
			drain(t, db, q)
			stop()
			t.Logf("query %d: %v (traced)", i, time.Since(start).Round(time.Microsecond))
		} else {
			start := time.Now()
			drain(t, db, q)
			t.Logf("query %d: %v", i, time.Since(start).Round(time.Microsecond))
		}
		show(fmt.Sprintf("after query %d", i))
	}
}

// drain reads a query's whole result without converting it.
func drain(t *testing.T, db *gsql.DB, q string) {
	t.Helper()
	rdr, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	for rdr.Next() {
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
}

// openGPUPeople opens a strict GPU database holding people (rows rows,
// seed 42), skipping the test where no GPU can be opened.
func openGPUPeople(t testing.TB, rows int) *gsql.DB {
	t.Helper()
	schema, recs := datagen.People(rows, 42)
	db, err := gsql.Open(gsql.Options{Device: "gpu"})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	if err := db.RegisterTable("people", schema, recs); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db
}
