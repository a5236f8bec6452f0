package gsql

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// int64Record is a one-column BIGINT record of n rows, every nullEvery-th
// NULL (none when 0).
func int64Record(n, nullEvery int) arrow.Record {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if nullEvery > 0 && i%nullEvery == 0 {
			b.AppendNull()
		} else {
			b.Append(int64(i))
		}
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	return array.NewRecord(schema, []arrow.Array{col}, int64(n))
}

// stringRecord is a one-column VARCHAR record of n 10-byte strings.
func stringRecord(n int) arrow.Record {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append("abcdefghij")
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecord(schema, []arrow.Array{col}, int64(n))
}

// TestTableMemory: .stats' bytes per table are the tables' Arrow bytes
// (a 1M-row BIGINT column is ~8 MB), buffers shared by batches or by
// tables count once, and an on-disk database's are mapped.
func TestTableMemory(t *testing.T) {
	const million = 1_000_000
	within := func(got, want int64) bool { return got >= want && got <= want+want/100+4096 }
	tests := []struct {
		name string
		recs func() []arrow.Record
		rows int64
		want int64 // the Arrow data bytes (values, offsets, validity)
	}{
		// Arrow's builders keep a validity bitmap even without NULLs.
		{"bigint", func() []arrow.Record { return []arrow.Record{int64Record(million, 0)} }, million, 8*million + million/8},
		{"bigint with nulls", func() []arrow.Record { return []arrow.Record{int64Record(million, 7)} }, million, 8*million + million/8},
		{"varchar", func() []arrow.Record { return []arrow.Record{stringRecord(100_000)} }, 100_000, 10*100_000 + 4*100_001},
		{"slices of one batch", func() []arrow.Record {
			r := int64Record(million, 0)
			defer r.Release()
			return []arrow.Record{r.NewSlice(0, million/2), r.NewSlice(million/2, million)}
		}, million, 8*million + million/8},
		{"two batches", func() []arrow.Record {
			return []arrow.Record{int64Record(million/2, 0), int64Record(million/2, 0)}
		}, million, 8*million + million/8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(Options{Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			recs := tc.recs()
			if err := db.RegisterTable("t", recs[0].Schema(), recs); err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				r.Release()
			}
			tm, err := db.TableMemory("t")
			if err != nil {
				t.Fatal(err)
			}
			if tm.Rows != tc.rows || !within(tm.Bytes, tc.want) || tm.Mapped != 0 || tm.Heap() != tm.Bytes || tm.Device != 0 {
				t.Fatalf("%+v, want %d rows and ~%d bytes in the heap", tm, tc.rows, tc.want)
			}
			st := db.Stats()
			if len(st.TableMemory) != 1 || st.TableMemory[0] != tm || st.TableBytes != tm.Bytes || st.TableMapped != 0 {
				t.Fatalf("Stats %+v, TableMemory %+v", st, tm)
			}
		})
	}
}

// A table made from another's batches shares their buffers: each table
// shows them, the total counts them once.
func TestTableMemorySharedAcrossTables(t *testing.T) {
	db, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := int64Record(1_000_000, 0)
	defer rec.Release()
	for _, name := range []string{"a", "b"} {
		if err := db.RegisterTable(name, rec.Schema(), []arrow.Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	st := db.Stats()
	if len(st.TableMemory) != 2 || st.TableMemory[0].Bytes != st.TableMemory[1].Bytes || st.TableBytes != st.TableMemory[0].Bytes {
		t.Fatalf("%+v, total %d", st.TableMemory, st.TableBytes)
	}
	out := st.String()
	for _, want := range []string{"table a: 1000000 rows, ", "table b: 1000000 rows, ", "tables in host memory: "} {
		if !strings.Contains(out, want) {
			t.Errorf(".stats lacks %q:\n%s", want, out)
		}
	}
	if _, err := db.TableMemory("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing table: %v", err)
	}
}

// An on-disk database's tables are read from memory maps.
func TestTableMemoryMapped(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	rec := int64Record(1_000_000, 0)
	defer rec.Release()
	if err := db.RegisterTable("t", rec.Schema(), []arrow.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(Options{Device: "cpu", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "SELECT SUM(a) FROM t"); err != nil {
		t.Fatal(err)
	}
	tm, err := db.TableMemory("t")
	if err != nil {
		t.Fatal(err)
	}
	if tm.Bytes < 8_000_000 || tm.Bytes > 8_200_000 || tm.Mapped != tm.Bytes || tm.Heap() != 0 {
		t.Fatalf("%+v, want ~8 MB mapped", tm)
	}
}
