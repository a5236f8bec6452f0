//go:build linux

package gsql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen"
)

// Benchmarks of on-disk databases (docs/benchlog/2026-11-26-on-disk.md):
//
//	go test -run '^$' -bench 'Durable' -benchtime 20x .
//
// The database directories are built once per size under
// $GSQL_BENCH_DIR (default: a temporary directory removed afterwards).

var benchDBs = struct {
	sync.Mutex
	paths map[string]string
}{paths: map[string]string{}}

// benchDB returns the path of an on-disk database holding the redact
// people table with rows rows, in segments of 1M rows (datagen's batches),
// or in one segment when segs is 1.
func benchDB(b *testing.B, rows, segs int) string {
	return benchDBWith(b, rows, segs, "none")
}

// benchDBWith is benchDB with its segments compressed by codec
// (Options.Compression).
func benchDBWith(b *testing.B, rows, segs int, codec string) string {
	b.Helper()
	benchDBs.Lock()
	defer benchDBs.Unlock()
	key := fmt.Sprintf("%d-%d-%s", rows, segs, codec)
	if p, ok := benchDBs.paths[key]; ok {
		return p
	}
	root := os.Getenv("GSQL_BENCH_DIR")
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "gsql-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	p := filepath.Join(root, fmt.Sprintf("people-%s.db", key))
	if _, err := os.Stat(filepath.Join(p, "MANIFEST")); err != nil {
		os.RemoveAll(p)
		db, err := gsql.Open(gsql.Options{Device: "cpu", Path: p, Compression: codec})
		if err != nil {
			b.Fatal(err)
		}
		schema, recs := datagen.People(rows, 1)
		if segs == 1 && len(recs) > 1 {
			var batches []*coldata.Batch
			for _, r := range recs {
				bt, err := coldata.RecordToBatch(r)
				if err != nil {
					b.Fatal(err)
				}
				batches = append(batches, bt)
			}
			recs = []arrow.Record{coldata.BatchToRecord(schema, coldata.Concat(batches, len(schema.Fields())))}
		}
		if err := db.RegisterTable("people", schema, recs); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	benchDBs.paths[key] = p
	return p
}

func dirBytes(b testing.TB, dir string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// evict drops the database's files from the page cache (only them: no
// other process's cache is touched), so the next read comes from disk.
func evict(b *testing.B, dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		const fadvDontNeed = 4
		if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); errno != 0 {
			b.Fatalf("fadvise %s: %v", e.Name(), errno)
		}
		f.Close()
	}
}

// BenchmarkDurableOpen measures opening a database: mapping its segments,
// not reading them, so the time grows with the number of segments, not
// with the table's bytes.
// BenchmarkCompressedOpen opens databases whose segments are compressed:
// Open decompresses every buffer (a plain segment is only mapped), so
// GB/s is the decompression speed, in uncompressed bytes (the plain
// database's size) per second of Open, on GOMAXPROCS cores.
func BenchmarkCompressedOpen(b *testing.B) {
	const rows = 10_000_000
	plain := dirBytes(b, benchDB(b, rows, 0))
	for _, codec := range []string{"lz4", "zstd"} {
		b.Run("codec="+codec, func(b *testing.B) {
			p := benchDBWith(b, rows, 0, codec)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				db, err := gsql.Open(gsql.Options{Device: "cpu", Path: p})
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
			b.ReportMetric(float64(dirBytes(b, p))/1e6, "MB_on_disk")
			b.ReportMetric(float64(plain)/float64(dirBytes(b, p)), "ratio")
			b.ReportMetric(float64(plain)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

func BenchmarkDurableOpen(b *testing.B) {
	for _, c := range []struct{ rows, segs int }{{1_000_000, 1}, {10_000_000, 1}, {10_000_000, 10}} {
		b.Run(fmt.Sprintf("rows=%d/segments=%d", c.rows, c.segs), func(b *testing.B) {
			p := benchDB(b, c.rows, c.segs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				db, err := gsql.Open(gsql.Options{Device: "cpu", Path: p})
				if err != nil {
					b.Fatal(err)
				}
				if n := db.Tables(); len(n) != 1 {
					b.Fatalf("tables %v", n)
				}
				db.Close()
			}
			b.ReportMetric(float64(dirBytes(b, p))/1e6, "MB_on_disk")
		})
	}
}

// BenchmarkDurableScan runs a query reading both columns of every row,
// with the files in the page cache (warm) and evicted before each run
// (cold). GB/s counts the database's bytes on disk.
func BenchmarkDurableScan(b *testing.B) {
	const q = `SELECT COUNT(*) FROM people WHERE visibility = 'public' AND name <> ''`
	for _, rows := range []int{1_000_000, 10_000_000} {
		for _, cold := range []bool{false, true} {
			name := fmt.Sprintf("rows=%d/warm", rows)
			if cold {
				name = fmt.Sprintf("rows=%d/cold", rows)
			}
			b.Run(name, func(b *testing.B) {
				p := benchDB(b, rows, 0)
				size := dirBytes(b, p)
				db, err := gsql.Open(gsql.Options{Device: "cpu", Path: p})
				if err != nil {
					b.Fatal(err)
				}
				defer func() { db.Close() }()
				b.ResetTimer()
				var elapsed time.Duration
				for i := 0; i < b.N; i++ {
					if cold {
						// Mapped pages cannot be evicted: close (unmap),
						// evict, open again, untimed.
						b.StopTimer()
						db.Close()
						evict(b, p)
						if db, err = gsql.Open(gsql.Options{Device: "cpu", Path: p}); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					t0 := time.Now()
					rdr, err := db.Query(context.Background(), q)
					if err != nil {
						b.Fatal(err)
					}
					for rdr.Next() {
					}
					if err := rdr.Err(); err != nil {
						b.Fatal(err)
					}
					rdr.Release()
					elapsed += time.Since(t0)
				}
				b.ReportMetric(float64(size)*float64(b.N)/elapsed.Seconds()/1e9, "GB/s")
			})
		}
	}
}

// BenchmarkDurableDeviceScan runs the scan query on GSQL_BENCH_DEVICE
// (skipped unless set, e.g. gpu on the device machine) right after
// opening the database, so the table goes from the mapping to the device:
// "cold" evicts the files from the page cache first, "mapped" finds them
// in it, "resident" is the second run over the device-resident copy. The
// open (and the GPU runtime's start) is not timed.
func BenchmarkDurableDeviceScan(b *testing.B) {
	dev := os.Getenv("GSQL_BENCH_DEVICE")
	if dev == "" {
		b.Skip("set GSQL_BENCH_DEVICE (gpu, cpu)")
	}
	const q = `SELECT COUNT(*) FROM people WHERE visibility = 'public' AND name <> ''`
	run := func(b *testing.B, db *gsql.DB) time.Duration {
		t0 := time.Now()
		rdr, err := db.Query(context.Background(), q)
		if err != nil {
			b.Fatal(err)
		}
		for rdr.Next() {
		}
		if err := rdr.Err(); err != nil {
			b.Fatal(err)
		}
		rdr.Release()
		return time.Since(t0)
	}
	for _, rows := range []int{1_000_000, 10_000_000} {
		for _, mode := range []string{"cold", "mapped", "resident"} {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, mode), func(b *testing.B) {
				p := benchDB(b, rows, 0)
				size := dirBytes(b, p)
				var elapsed time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					if mode == "cold" {
						evict(b, p)
					}
					db, err := gsql.Open(gsql.Options{Device: dev, Path: p})
					if err != nil {
						b.Fatal(err)
					}
					if mode == "resident" {
						run(b, db)
					}
					b.StartTimer()
					elapsed += run(b, db)
					b.StopTimer()
					if i == 0 && b.N == 1 && rows == 10_000_000 {
						plan := rowsOf(b, db, "EXPLAIN "+q)
						b.Logf("plan:\n%s", strings.Join(plan, "\n"))
					}
					db.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(elapsed.Microseconds())/1e3/float64(b.N), "ms/query")
				b.ReportMetric(float64(size)*float64(b.N)/elapsed.Seconds()/1e9, "GB/s")
			})
		}
	}
}
