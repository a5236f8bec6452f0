package gsql_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
)

// importBenchRows is the benchmark file's row count (GSQL_IMPORT_ROWS,
// default 1M).
func importBenchRows() int {
	if n, err := strconv.Atoi(os.Getenv("GSQL_IMPORT_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// writeBenchCSV writes rows of ten mixed columns: integers, doubles, a
// boolean, a date, a timestamp, short strings, quoted strings with commas
// and some NULLs.
func writeBenchCSV(b *testing.B, path string, rows int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("id,qty,price,ratio,ok,day,at,city,note,maybe\n")
	cities := []string{"Paris", "Lyon", "Nantes", "Lille", "Rennes", "Nice", "Metz"}
	for i := 0; i < rows; i++ {
		maybe := ""
		if i%7 != 0 {
			maybe = strconv.Itoa(i % 1000)
		}
		fmt.Fprintf(w, "%d,%d,%d.%02d,%g,%v,2024-%02d-%02d,2024-01-%02d %02d:%02d:%02d,%s,\"note %d, part %d\",%s\n",
			i, i%5000, i%10000, i%100, float64(i%997)/7, i%3 == 0, 1+i%12, 1+i%28, 1+i%28, i%24, i%60, i%60,
			cities[i%len(cities)], i, i%13, maybe)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// importBenchFiles writes the CSV file and a Parquet copy into dir.
func importBenchFiles(b *testing.B, dir string) (string, string) {
	csvPath := filepath.Join(dir, "bench.csv")
	writeBenchCSV(b, csvPath, importBenchRows())
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(context.Background(), csvPath, "t", gsql.ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	pqPath := filepath.Join(dir, "bench.parquet")
	if err := db.Export(context.Background(), "SELECT * FROM t", pqPath); err != nil {
		b.Fatal(err)
	}
	return csvPath, pqPath
}

// heapPeaks samples the heap until stop is closed and returns the peaks
// above the level when it started of the allocated heap (live data and
// garbage not yet collected: what GOGC lets grow) and of the live heap as
// the last collection found it.
func heapPeaks(stop <-chan struct{}) <-chan [2]uint64 {
	out := make(chan [2]uint64, 1)
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var ms runtime.MemStats
	read := func() (alloc, live uint64) {
		runtime.ReadMemStats(&ms)
		metrics.Read(sample)
		return ms.HeapAlloc, sample[0].Value.Uint64()
	}
	baseAlloc, baseLive := read()
	go func() {
		peakAlloc, peakLive := baseAlloc, baseLive
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			alloc, live := read()
			peakAlloc, peakLive = max(peakAlloc, alloc), max(peakLive, live)
			select {
			case <-stop:
				out <- [2]uint64{peakAlloc - baseAlloc, peakLive - baseLive}
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// BenchmarkImport imports a 1M-row, ten-column CSV file and its Parquet
// copy into in-memory and on-disk databases; MB/s is of the file,
// peak-heap-MB the most heap allocated above the start while it ran
// (garbage included) and peak-live-MB the most live heap a collection
// found.
//
//	go test -run '^$' -bench BenchmarkImport -benchtime 3x .
func BenchmarkImport(b *testing.B) {
	csvPath, pqPath := importBenchFiles(b, b.TempDir())
	for _, file := range []struct{ name, path string }{{"csv", csvPath}, {"parquet", pqPath}} {
		for _, disk := range []bool{false, true} {
			name := file.name + "/memory"
			if disk {
				name = file.name + "/disk"
			}
			b.Run(name, func(b *testing.B) {
				st, err := os.Stat(file.path)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(st.Size())
				var peak [2]uint64
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					opts := gsql.Options{Device: "cpu"}
					if disk {
						opts.Path = filepath.Join(b.TempDir(), "db")
					}
					db, err := gsql.Open(opts)
					if err != nil {
						b.Fatal(err)
					}
					stop := make(chan struct{})
					peakc := heapPeaks(stop)
					b.StartTimer()
					n, err := db.Import(context.Background(), file.path, "t", gsql.ImportOptions{})
					b.StopTimer()
					close(stop)
					p := <-peakc
					peak = [2]uint64{max(peak[0], p[0]), max(peak[1], p[1])}
					if err != nil || n != int64(importBenchRows()) {
						b.Fatalf("import: %d rows, %v", n, err)
					}
					db.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(peak[0])/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(peak[1])/(1<<20), "peak-live-MB")
			})
		}
	}
}
