package fileio

import (
	"fmt"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// spareBytes is the room allocated beyond the contents of rec's buffers.
func spareBytes(rec arrow.Record) int {
	n := 0
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += cap(b.Buf()) - b.Len()
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	for _, c := range rec.Columns() {
		walk(c.Data())
	}
	return n
}

// TestFitRecord: columns built with room to spare (a reserve of ten times
// their rows, as readers reserve a batch for a short row group) are copied
// to fit and keep their values, NULLs and offsets; a record with no spare
// room is returned as it is.
func TestFitRecord(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	build := func(rows, reserve int) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Reserve(reserve)
		data := 0
		for i := 0; i < rows; i++ {
			if i%7 != 3 {
				data += len(fmt.Sprintf("row %d", i))
			}
		}
		b.Field(1).(*array.StringBuilder).ReserveData(data * reserve / max(rows, 1))
		for i := 0; i < rows; i++ {
			if i%7 == 3 {
				b.Field(0).AppendNull()
				b.Field(1).AppendNull()
				b.Field(2).AppendNull()
				continue
			}
			b.Field(0).(*array.Int64Builder).Append(int64(i) * 3)
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d", i))
			b.Field(2).(*array.Date32Builder).Append(arrow.Date32(i))
		}
		return b.NewRecord()
	}
	for _, tc := range []struct {
		name          string
		rows, reserve int
		copied        bool
	}{
		{"spare room", 10_000, 100_000, true},
		{"reserved exactly", 8192, 8192, true}, // builders still double
		{"small", 10, 100, false},              // a few bytes to spare: not worth a copy
		{"empty", 0, 100_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := build(tc.rows, tc.reserve)
			want := build(tc.rows, tc.rows)
			defer want.Release()
			before := spareBytes(rec)
			rec.Retain() // to compare after FitRecord releases its reference
			got := FitRecord(rec)
			defer got.Release()
			if copied := got != rec; copied != tc.copied {
				t.Fatalf("copied = %v, want %v (spare bytes before: %d)", copied, tc.copied, before)
			}
			rec.Release()
			if tc.copied && spareBytes(got) > 3*64 {
				t.Errorf("%d bytes spare after fitting (%d before)", spareBytes(got), before)
			}
			if !array.RecordEqual(got, want) {
				t.Errorf("fitted record differs:\n got %v\nwant %v", got, want)
			}
			// A fitted record has nothing left to trim.
			got.Retain()
			again := FitRecord(got)
			if again != got {
				t.Errorf("a fitted record was copied again")
			}
			again.Release()
		})
	}
}

// TestFitRecordSlice: a sliced record (a non-zero offset) keeps its rows.
func TestFitRecordSlice(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Reserve(100_000)
	b.ReserveData(1 << 20)
	for i := 0; i < 1000; i++ {
		b.Append(fmt.Sprint(i))
	}
	arr := b.NewArray()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	full := array.NewRecord(schema, []arrow.Array{arr}, 1000)
	arr.Release()
	sl := full.NewSlice(100, 200)
	defer full.Release()
	got := FitRecord(sl)
	defer got.Release()
	if got.NumRows() != 100 {
		t.Fatalf("rows = %d", got.NumRows())
	}
	col := got.Column(0).(*array.String)
	for i := 0; i < 100; i++ {
		if want := fmt.Sprint(100 + i); col.Value(i) != want {
			t.Fatalf("row %d = %q, want %q", i, col.Value(i), want)
		}
	}
}
