package fileio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// peakAllocator counts the bytes an allocator holds and their peak.
type peakAllocator struct {
	mu         sync.Mutex
	mem        memory.Allocator
	cur, peak  int64
	allocCalls int
}

func (a *peakAllocator) add(n int) {
	a.cur += int64(n)
	a.peak = max(a.peak, a.cur)
}

func (a *peakAllocator) Allocate(size int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.allocCalls++
	a.add(size)
	return a.mem.Allocate(size)
}

func (a *peakAllocator) Reallocate(size int, b []byte) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.add(size - len(b))
	return a.mem.Reallocate(size, b)
}

func (a *peakAllocator) Free(b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cur -= int64(len(b))
	a.mem.Free(b)
}

// writeGroups writes a Parquet file of groups row groups of rows rows
// each: an id column counting up and a string column.
func writeGroups(t *testing.T, path string, groups, rows int) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for g := 0; g < groups; g++ {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := 0; i < rows; i++ {
			id := int64(g*rows + i)
			b.Field(0).(*array.Int64Builder).Append(id)
			if id%7 == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("value %d of a longer string", id))
			}
		}
		rec := b.NewRecord()
		if err := w.Write(rec); err != nil { // one row group per record
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadParquetRowGroups reads files of one and of many row groups, at
// several worker counts: the rows come back in file order, and the
// reader's buffers beyond the records it returns peak at a few row
// groups (the row groups in flight), not at the file.
func TestReadParquetRowGroups(t *testing.T) {
	cases := []struct {
		name          string
		groups, rows  int
		procs         int
		batch         int
		wantRecsAtMin int
	}{
		{"one row group", 1, 50_000, 4, 0, 1},
		{"many row groups, one worker", 24, 10_000, 1, 0, 24},
		{"many row groups, four workers", 24, 10_000, 4, 0, 24},
		{"small batches", 6, 10_000, 3, 4096, 18},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			path := filepath.Join(t.TempDir(), "g.parquet")
			writeGroups(t, path, tc.groups, tc.rows)
			alloc := &peakAllocator{mem: memory.NewGoAllocator()}
			schema, recs, err := ReadParquet(context.Background(), path, ReadOptions{Allocator: alloc, BatchRows: tc.batch})
			if err != nil {
				t.Fatal(err)
			}
			defer ReleaseAll(recs)
			if schema.NumFields() != 2 || len(recs) < tc.wantRecsAtMin {
				t.Fatalf("schema %s, %d records", schema, len(recs))
			}
			var n int64
			var held int64
			for _, r := range recs {
				ids := r.Column(0).(*array.Int64)
				strs := r.Column(1).(*array.String)
				for i := 0; i < ids.Len(); i++ {
					if ids.Value(i) != n {
						t.Fatalf("row %d has id %d", n, ids.Value(i))
					}
					if want := fmt.Sprintf("value %d of a longer string", n); n%7 != 0 && strs.Value(i) != want {
						t.Fatalf("row %d: %q", n, strs.Value(i))
					}
					if n%7 == 0 && !strs.IsNull(i) {
						t.Fatalf("row %d: not NULL", n)
					}
					n++
				}
				for _, c := range r.Columns() {
					for _, b := range c.Data().Buffers() {
						if b != nil {
							held += int64(b.Cap())
						}
					}
				}
			}
			if n != int64(tc.groups*tc.rows) {
				t.Fatalf("%d rows, want %d", n, tc.groups*tc.rows)
			}
			// A row group's records hold held/groups bytes; decoding one
			// takes a few times that (its pages and the column chunk read
			// from the file). Allow 4 per worker in flight.
			perGroup := held / int64(tc.groups)
			inFlight := int64(min(tc.procs, tc.groups))
			if budget := held + 4*inFlight*perGroup; alloc.peak > budget {
				t.Errorf("reader's allocations peaked at %d bytes; the records hold %d, budget %d (%d per row group, %d in flight)",
					alloc.peak, held, budget, perGroup, inFlight)
			}
		})
	}
}

// TestReadParquetCancel: a cancelled context stops the read with its
// error and releases what was read.
func TestReadParquetCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.parquet")
	writeGroups(t, path, 8, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if _, _, err := ReadParquet(ctx, path, ReadOptions{Allocator: mem}); err == nil {
		t.Fatal("no error from a cancelled read")
	}
	mem.AssertSize(t, 0)
}
