package gsql_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// TestHostMemoryFromParquet measures the host memory of a database that
// imports TPC-H from Parquet files (DB.Import, as the shell's .import and
// bench --data do) and runs the 22 queries: the peak resident size
// (VmHWM) beside the Arrow bytes of its tables, the Go heap, and the top
// entries of a heap profile after loading and after the queries. It runs
// only when GSQL_MEMORY_SF names a scale factor:
//
//	GSQL_MEMORY_SF=1 GSQL_MEMORY_DIR=/tmp/mem go test -run HostMemoryFromParquet -v -timeout 1h .
//
// GSQL_MEMORY_PEAK_QUERY=18 runs that query once more and writes the
// heap profile of the collection that found the most live heap during it
// (<profile>-q18.pprof). GSQL_MEMORY_EXPLAIN=18,9 prints those queries' EXPLAIN ANALYZE (peak
// host bytes per operator). GSQL_MEMORY_DB=DIR loads into an on-disk database there instead of an
// in-memory one. The files are written by this process (a row group per
// 65,536 rows, as bench --data writes them); the load runs in a child
// process, so that the generator's memory is not counted.
func TestHostMemoryFromParquet(t *testing.T) {
	if os.Getenv("GSQL_MEMORY_PHASE") == "load" {
		loadAndMeasure(t)
		return
	}
	sfText := os.Getenv("GSQL_MEMORY_SF")
	if sfText == "" {
		t.Skip("set GSQL_MEMORY_SF (and GSQL_MEMORY_DIR) to measure")
	}
	sf, err := strconv.ParseFloat(sfText, 64)
	if err != nil {
		t.Fatalf("GSQL_MEMORY_SF: %v", err)
	}
	dir := os.Getenv("GSQL_MEMORY_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	files := filepath.Join(dir, "tpch-sf"+sfText)
	if _, err := os.Stat(filepath.Join(files, "lineitem.parquet")); err != nil {
		if err := writeTPCHParquet(files, sf); err != nil {
			t.Fatal(err)
		}
	}
	profiles := filepath.Join(dir, "heap-sf"+sfText)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHostMemoryFromParquet$", "-test.v")
	cmd.Env = append(os.Environ(), "GSQL_MEMORY_PHASE=load", "GSQL_MEMORY_FILES="+files,
		"GSQL_MEMORY_PROFILE="+profiles)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
	// The profiles' top entries, by the test binary's symbols.
	whens := []string{"loaded", "queried"}
	if q := os.Getenv("GSQL_MEMORY_PEAK_QUERY"); q != "" {
		n, _ := strconv.Atoi(q)
		whens = append(whens, fmt.Sprintf("q%02d", n))
	}
	for _, when := range whens {
		p := profiles + "-" + when + ".pprof"
		top, err := exec.Command("go", "tool", "pprof", "-top", "-sample_index=inuse_space", "-nodecount=15", os.Args[0], p).CombinedOutput()
		if err != nil {
			t.Logf("pprof %s: %v", p, err)
		}
		t.Logf("heap profile %s:\n%s", when, top)
	}
}

// writeTPCHParquet writes every TPC-H table of scale factor sf as
// <table>.parquet in dir, a row group per generated batch of 65,536 rows
// (bench --data's layout), never a whole table in memory.
func writeTPCHParquet(dir string, sf float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g, err := tpch.New(sf)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, tb := range tpch.Tables {
		path := filepath.Join(dir, tb.String()+".parquet")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
		fw, err := pqarrow.NewFileWriter(tpch.Schema(tb), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		err = g.Generate(ctx, tb, 1<<16, func(rec arrow.Record) error {
			defer rec.Release()
			return fw.Write(rec)
		})
		if cerr := fw.Close(); err == nil {
			err = cerr // Close writes the footer and closes f
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

// memPoint is the process's memory at one moment.
type memPoint struct {
	peak, rss       int64 // VmHWM, VmRSS
	heapInuse, live uint64
	sys             uint64
}

func (m memPoint) String() string {
	return fmt.Sprintf("peak RSS %s, RSS %s, Go heap in use %s (live %s), Go sys %s",
		mb(m.peak), mb(m.rss), mb(int64(m.heapInuse)), mb(int64(m.live)), mb(int64(m.sys)))
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// measure collects garbage, writes a heap profile to path (when set) and
// reads the memory figures.
func measure(t *testing.T, path string) memPoint {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return memPoint{peak: procStatus(t, "VmHWM:"), rss: procStatus(t, "VmRSS:"),
		heapInuse: ms.HeapInuse, live: ms.HeapAlloc, sys: ms.Sys}
}

// loadAndMeasure is the child process: load, query, report.
func loadAndMeasure(t *testing.T) {
	files := os.Getenv("GSQL_MEMORY_FILES")
	prof := os.Getenv("GSQL_MEMORY_PROFILE")
	db := openTestDB(t, gsql.Options{Device: "cpu", Path: os.Getenv("GSQL_MEMORY_DB")})
	ctx := context.Background()
	t0 := time.Now()
	for _, tb := range tpch.Tables {
		if _, err := db.Import(ctx, filepath.Join(files, tb.String()+".parquet"), tb.String(), gsql.ImportOptions{}); err != nil {
			t.Fatalf("import %s: %v", tb, err)
		}
	}
	loadTime := time.Since(t0)
	var arrowBytes, mapped int64
	for _, tm := range db.Stats().TableMemory {
		arrowBytes += tm.Bytes
		mapped += tm.Mapped
	}
	loaded := measure(t, prof+"-loaded.pprof")
	ratio := func(n int64) float64 { return float64(n) / float64(arrowBytes) }
	t0 = time.Now()
	var peaks []string
	peak := loaded.peak // the reset below loses it
	for n := 1; n <= 22; n++ {
		// Writing 5 to clear_refs resets VmHWM (Linux 4.0 on), so each
		// query's own peak shows.
		reset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
		q0 := time.Now()
		if _, err := runTPCH(ctx, db, n); err != nil {
			t.Fatalf("q%02d: %v", n, err)
		}
		took := time.Since(q0)
		if reset {
			p := procStatus(t, "VmHWM:")
			peak = max(peak, p)
			peaks = append(peaks, fmt.Sprintf("q%02d %.2fx %.2fs", n, ratio(p), took.Seconds()))
		}
	}
	if q := os.Getenv("GSQL_MEMORY_PEAK_QUERY"); q != "" {
		n, _ := strconv.Atoi(q)
		peakProfile(t, fmt.Sprintf("%s-q%02d.pprof", prof, n), func() {
			if _, err := runTPCH(ctx, db, n); err != nil {
				t.Fatalf("q%02d: %v", n, err)
			}
		})
	}
	if os.Getenv("GSQL_MEMORY_EXPLAIN") != "" {
		for _, q := range strings.Split(os.Getenv("GSQL_MEMORY_EXPLAIN"), ",") {
			n, _ := strconv.Atoi(q)
			stmts, err := queries.Statements(n)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("q%02d:\n%s", n, strings.Join(rowsOf(t, db, "EXPLAIN ANALYZE "+stmts[queries.Answer(n)]), "\n"))
		}
	}
	queryTime := time.Since(t0)
	queried := measure(t, prof+"-queried.pprof")
	t.Logf("tables: %s of Arrow buffers (%s mapped)", mb(arrowBytes), mb(mapped))
	t.Logf("after loading (%.1fs): %v; peak/Arrow %.2fx, heap in use/Arrow %.2fx", loadTime.Seconds(), loaded, ratio(loaded.peak), ratio(int64(loaded.heapInuse)))
	if peaks != nil {
		t.Logf("each query's peak RSS / Arrow bytes, and time: %s", strings.Join(peaks, ", "))
	}
	peak = max(peak, queried.peak)
	t.Logf("after the 22 queries (%.1fs): %v (since the last query began); peak RSS of the whole run %s, peak/Arrow %.2fx, heap in use/Arrow %.2fx",
		queryTime.Seconds(), queried, mb(peak), ratio(peak), ratio(int64(queried.heapInuse)))
}

// procStatus is a size field of /proc/self/status in bytes (Linux).
func procStatus(t *testing.T, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skipf("no %s", field)
	return 0
}

// peakProfile runs fn and writes to path the heap profile taken after the
// collection, during fn, that found the most live heap.
func peakProfile(t *testing.T, path string, fn func()) {
	stop := make(chan struct{})
	done := make(chan []byte)
	go func() {
		var best []byte
		var most uint64
		var last uint32
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				done <- best
				return
			case <-tick.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.NumGC == last {
				continue
			}
			last = ms.NumGC
			// HeapAlloc just after a collection is close to what it
			// found live; the profile is as of that collection.
			if ms.HeapAlloc > most {
				most = ms.HeapAlloc
				var b bytes.Buffer
				if err := pprof.Lookup("heap").WriteTo(&b, 0); err == nil {
					best = b.Bytes()
				}
			}
		}
	}()
	fn()
	close(stop)
	if err := os.WriteFile(path, <-done, 0o644); err != nil {
		t.Fatal(err)
	}
}
