package gsql_test

import (
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

	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/fileio"
)

// TestHostMemoryFromParquet measures the host memory of a database that
// loads TPC-H from Parquet files and runs the 22 queries: the peak
// resident size (VmHWM) beside the Arrow bytes of its tables, with a heap
// profile. It runs only when GSQL_MEMORY_SF names a scale factor:
//
//	GSQL_MEMORY_SF=1 GSQL_MEMORY_DIR=/tmp/mem go test -run HostMemoryFromParquet -v -timeout 1h .
//
// The files are written by this process; the load runs in a child
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
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHostMemoryFromParquet$", "-test.v")
	cmd.Env = append(os.Environ(), "GSQL_MEMORY_PHASE=load", "GSQL_MEMORY_FILES="+files,
		"GSQL_MEMORY_PROFILE="+filepath.Join(dir, "heap-sf"+sfText+".pprof"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// writeTPCHParquet writes every TPC-H table of scale factor sf as
// <table>.parquet in dir.
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
		recs, err := g.Records(ctx, tb)
		if err != nil {
			return err
		}
		rdr, err := array.NewRecordReader(tpch.Schema(tb), recs)
		if err != nil {
			return err
		}
		_, err = fileio.WriteParquet(ctx, filepath.Join(dir, tb.String()+".parquet"), rdr, fileio.WriteOptions{})
		rdr.Release()
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", tb, err)
		}
	}
	return nil
}

// loadAndMeasure is the child process: load, query, report.
func loadAndMeasure(t *testing.T) {
	files := os.Getenv("GSQL_MEMORY_FILES")
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	ctx := context.Background()
	for _, tb := range tpch.Tables {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE %s AS SELECT * FROM read_parquet('%s')`, tb, filepath.Join(files, tb.String()+".parquet")))
	}
	loaded := vmHWM(t)
	for n := 1; n <= 22; n++ {
		if _, err := runTPCH(ctx, db, n); err != nil {
			t.Fatalf("q%02d: %v", n, err)
		}
	}
	var arrowBytes int64
	for _, tm := range db.Stats().TableMemory {
		arrowBytes += tm.Bytes
	}
	if p := os.Getenv("GSQL_MEMORY_PROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	peak := vmHWM(t)
	t.Logf("tables: %d Arrow bytes; peak resident after loading %d (%.2fx), after the 22 queries %d (%.2fx)",
		arrowBytes, loaded, float64(loaded)/float64(arrowBytes), peak, float64(peak)/float64(arrowBytes))
}

// vmHWM is the process's peak resident size in bytes (Linux).
func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}
