//go:build linux

package storage

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen"
)

// BenchmarkReadMappedCold reads every buffer of the redact people table
// straight from the segments' memory maps (one byte per 64, i.e. every
// cache line) after evicting the files from the page cache: the storage
// layer's cold-read rate, without the query engine.
//
//	go test -run '^$' -bench ReadMappedCold -benchtime 5x ./storage
func BenchmarkReadMappedCold(b *testing.B) {
	for _, rows := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "db")
			s, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			schema, recs := datagen.People(rows, 1)
			cols := []catalog.Column{{Name: "name", Type: coldata.String}, {Name: "visibility", Type: coldata.String}}
			if !schema.Equal(catalog.Schema(cols)) {
				b.Fatalf("schema %s", schema)
			}
			if err := s.Commit(nil, &catalog.Table{Name: "people", Columns: cols, Records: recs}); err != nil {
				b.Fatal(err)
			}
			s.Close()
			// Mapped pages cannot be evicted: each run unmaps (Close),
			// evicts, and opens again before the timed read.
			var size int64
			var elapsed time.Duration
			var sum byte
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				evictDir(b, dir)
				if os.Getenv("GSQL_BENCH_DEBUG") != "" {
					out, _ := exec.Command("sh", "-c", "fincore "+dir+"/*").CombinedOutput()
					b.Logf("%s", out)
				}
				s, err = Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				var bufs [][]byte
				for _, rec := range s.Tables()[0].Records {
					for c := 0; c < int(rec.NumCols()); c++ {
						for _, buf := range rec.Column(c).Data().Buffers() {
							if buf != nil {
								bufs = append(bufs, buf.Bytes())
							}
						}
					}
				}
				size = 0
				for _, m := range s.maps {
					size += int64(len(m))
				}
				b.StartTimer()
				t0 := time.Now()
				for _, buf := range bufs {
					for j := 0; j < len(buf); j += 64 {
						sum += buf[j]
					}
				}
				elapsed += time.Since(t0)
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			benchSink = sum
			b.ReportMetric(float64(size)/1e6, "MB")
			b.ReportMetric(float64(size)*float64(b.N)/elapsed.Seconds()/1e9, "GB/s")
		})
	}
}

// evictDir drops dir's files from the page cache (only them).
func evictDir(b *testing.B, dir string) {
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

// benchSink keeps the read loop from being optimised away.
var benchSink byte
