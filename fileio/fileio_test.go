package fileio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	arrowcsv "github.com/apache/arrow/go/v17/arrow/csv"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// dump renders a schema as "name:TYPE,..." and the rows as strings.
func dump(t *testing.T, schema *arrow.Schema, recs []arrow.Record) (string, [][]string) {
	t.Helper()
	var cols []string
	for _, f := range schema.Fields() {
		cols = append(cols, f.Name+":"+f.Type.String())
	}
	var rows [][]string
	for _, rec := range recs {
		if !rec.Schema().Equal(schema) {
			t.Fatalf("record schema %v differs from %v", rec.Schema(), schema)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var row []string
			for c := 0; c < int(rec.NumCols()); c++ {
				if rec.Column(c).IsNull(r) {
					row = append(row, "NULL")
				} else {
					row = append(row, FormatValue(rec.Column(c), r))
				}
			}
			rows = append(rows, row)
		}
	}
	return strings.Join(cols, ","), rows
}

func readString(t *testing.T, text string, opts CSVOptions) (*arrow.Schema, []arrow.Record, error) {
	t.Helper()
	return ReadCSVFrom(context.Background(), "data.csv", strings.NewReader(text), opts)
}

func TestReadCSVInference(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		opts   CSVOptions
		schema string
		rows   [][]string
	}{
		{"header and types", "id,name,score,ok\n1,ann,1.5,true\n2,bob,,FALSE\n,\"\",3,\n",
			CSVOptions{}, "id:int64,name:utf8,score:float64,ok:bool",
			[][]string{{"1", "ann", "1.5", "true"}, {"2", "bob", "NULL", "false"}, {"NULL", "", "3.0", "NULL"}}},
		{"no header when first row numeric", "1,2\n3,4\n", CSVOptions{}, "column0:int64,column1:int64",
			[][]string{{"1", "2"}, {"3", "4"}}},
		{"all strings: header assumed", "name,visibility\nAda Lovelace,public\n", CSVOptions{}, "name:utf8,visibility:utf8",
			[][]string{{"Ada Lovelace", "public"}}},
		{"forced no header", "name,visibility\nAda,public\n", CSVOptions{Header: HeaderNo}, "column0:utf8,column1:utf8",
			[][]string{{"name", "visibility"}, {"Ada", "public"}}},
		{"forced header", "1,2\n3,4\n", CSVOptions{Header: HeaderYes}, "1:int64,2:int64", [][]string{{"3", "4"}}},
		{"empty strings option", "a,b\nx,\n", CSVOptions{EmptyStrings: true}, "a:utf8,b:utf8", [][]string{{"x", ""}}},
		{"null string", "a,b\nNULL,1\nx,NULL\n", CSVOptions{NullString: "NULL"}, "a:utf8,b:int64",
			[][]string{{"NULL", "1"}, {"x", "NULL"}}},
		{"tsv delimiter", "a\tb\n1\tx,y\n", CSVOptions{Delimiter: '\t'}, "a:int64,b:utf8", [][]string{{"1", "x,y"}}},
		{"quotes, newlines, CRLF, BOM", "\xEF\xBB\xBFa,b\r\n\"x\"\"y\",\"1\r\n2\"\r\n", CSVOptions{}, "a:utf8,b:utf8",
			[][]string{{`x"y`, "1\r\n2"}}},
		{"multibyte", "名前,n\n日本語,1\nemoji 😀,2\n", CSVOptions{}, "名前:utf8,n:int64",
			[][]string{{"日本語", "1"}, {"emoji 😀", "2"}}},
		{"int widened to double", "x\n1\n2.5\n-3e2\n", CSVOptions{}, "x:float64", [][]string{{"1.0"}, {"2.5"}, {"-300.0"}}},
		{"huge int is double", "x\n99999999999999999999\n", CSVOptions{}, "x:float64", [][]string{{"1e+20"}}},
		{"not numbers", "x\n0x10\n1_000\n", CSVOptions{}, "x:utf8", [][]string{{"0x10"}, {"1_000"}}},
		{"all varchar", "x\n1\n", CSVOptions{AllVarchar: true}, "x:utf8", [][]string{{"1"}}},
		{"blank lines skipped", "a,b\n\n1,2\n\n", CSVOptions{}, "a:int64,b:int64", [][]string{{"1", "2"}}},
		{"duplicate and empty names", "a,a,\nx,y,z\n", CSVOptions{Header: HeaderYes}, "a:utf8,a_1:utf8,column2:utf8",
			[][]string{{"x", "y", "z"}}},
		{"no trailing newline", "a,b\n1,", CSVOptions{}, "a:int64,b:utf8", [][]string{{"1", "NULL"}}},
		{"empty file", "", CSVOptions{}, "", nil},
		{"special floats", "x\n1.5\nNaN\n-Infinity\n", CSVOptions{}, "x:float64", [][]string{{"1.5"}, {"NaN"}, {"-Infinity"}}},
		{"dates and timestamps", "d,t,mixed,num\n2024-01-05,2024-01-05 10:30:00,2024-01-05,20240105\n2024/2/29,2024-02-29T00:00:00.5,2024-01-05 01:02:03,20240106\n,,,\n",
			CSVOptions{}, "d:date32,t:timestamp[us],mixed:timestamp[us],num:int64",
			[][]string{{"2024-01-05", "2024-01-05 10:30:00", "2024-01-05 00:00:00", "20240105"},
				{"2024-02-29", "2024-02-29 00:00:00.5", "2024-01-05 01:02:03", "20240106"}, {"NULL", "NULL", "NULL", "NULL"}}},
		{"not quite dates", "d\n2024-01-05\n2024-02-30\n", CSVOptions{}, "d:utf8", [][]string{{"2024-01-05"}, {"2024-02-30"}}},
		{"header over dates", "when\n2024-01-05\n", CSVOptions{}, "when:date32", [][]string{{"2024-01-05"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema, recs, err := readString(t, tc.in, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer ReleaseAll(recs)
			s, rows := dump(t, schema, recs)
			if s != tc.schema {
				t.Errorf("schema %q, want %q", s, tc.schema)
			}
			if !reflect.DeepEqual(rows, tc.rows) {
				t.Errorf("rows %q, want %q", rows, tc.rows)
			}
		})
	}
}

func TestReadCSVBatches(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,s\n")
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&b, "%d,v%d\n", i, i)
	}
	var calls int
	schema, recs, err := readString(t, b.String(), CSVOptions{BatchRows: 1000, SampleRows: 100, Progress: func(read, total int64) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseAll(recs)
	if len(recs) != 3 || recs[0].NumRows() != 1000 || recs[2].NumRows() != 500 {
		t.Fatalf("got %d records", len(recs))
	}
	_, rows := dump(t, schema, recs)
	if rows[2499][0] != "2499" || rows[2499][1] != "v2499" || calls == 0 {
		t.Fatalf("last row %v, progress calls %d", rows[2499], calls)
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name, in string
		opts     CSVOptions
		want     string
	}{
		{"too few fields", "a,b,c,d\n1,2,3,4\n1,2,3\n", CSVOptions{}, "data.csv:3:6: expected 4 fields, got 3"},
		{"too many fields", "a,b\n1,2\n1,2,3\n", CSVOptions{}, "data.csv:3:5: expected 2 fields, got 3"},
		{"bad int after sample", "n\n1\n2\nx\n", CSVOptions{SampleRows: 2}, "data.csv:4:1: cannot parse 'x' as BIGINT"},
		{"bad bool after sample", "n,b\n1,true\n2,yes\n", CSVOptions{SampleRows: 1}, "data.csv:3:3: cannot parse 'yes' as BOOLEAN"},
		{"unterminated quote", "a,b\n1,\"abc\n", CSVOptions{}, "data.csv:2:3: unterminated quoted field"},
		{"junk after quote", "a\n\"x\"y\n", CSVOptions{}, "data.csv:2:4: unexpected 'y' after closing quote"},
		{"invalid utf8", "a\nok\n\xff\xfe\n", CSVOptions{}, "data.csv:3:1: invalid UTF-8"},
		{"column counts characters", "a,b\nü,x,y\n", CSVOptions{}, "data.csv:2:5: expected 2 fields, got 3"},
		{"bad delimiter", "a\n", CSVOptions{Delimiter: '"'}, "invalid delimiter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, recs, err := readString(t, tc.in, tc.opts)
			if err == nil {
				ReleaseAll(recs)
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want %q on one line", err, tc.want)
			}
		})
	}
}

// sampleRecord builds a record with every gsql type, NULLs and multibyte text.
func sampleRecord() arrow.Record {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, -2, 0, 1 << 62}, []bool{true, true, false, true})
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 0, 2, -1e-300}, []bool{true, false, true, true})
	b.Field(2).(*array.BooleanBuilder).AppendValues([]bool{true, false, false, true}, []bool{true, true, true, false})
	b.Field(3).(*array.StringBuilder).AppendValues([]string{"Ada Lovelace", "日本語 😀", "", "a,\"b\"\nc"}, []bool{true, true, false, true})
	return b.NewRecord()
}

func TestRoundTrips(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := sampleRecord()
	defer src.Release()
	wantSchema, wantRows := dump(t, src.Schema(), []arrow.Record{src})
	reader := func() array.RecordReader {
		r, err := SliceReader(src.Schema(), []arrow.Record{src})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, ext := range []string{"csv", "tsv", "parquet", "arrow", "arrows", "feather"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(dir, "x."+ext)
			n, err := Write(ctx, path, reader(), WriteOptions{})
			if err != nil || n != 4 {
				t.Fatalf("write: %d rows, %v", n, err)
			}
			schema, recs, err := Read(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ReleaseAll(recs)
			s, rows := dump(t, schema, recs)
			if s != wantSchema || !reflect.DeepEqual(rows, wantRows) {
				t.Fatalf("got %s %q, want %s %q", s, rows, wantSchema, wantRows)
			}
			// Export what was imported: the bytes are identical.
			path2 := filepath.Join(dir, "y."+ext)
			rr, _ := SliceReader(schema, recs)
			if _, err := Write(ctx, path2, rr, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(path)
			b, _ := os.ReadFile(path2)
			if !bytes.Equal(a, b) {
				t.Fatalf("re-export differs")
			}
		})
	}
}

// TestArrowWritten reads files written by arrow/go's own writers, with
// types gsql converts on read.
func TestArrowWritten(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	bld.Field(0).(*array.Int32Builder).AppendValues([]int32{7, 0, -9}, []bool{true, false, true})
	bld.Field(1).(*array.Uint8Builder).AppendValues([]uint8{255, 1, 0}, []bool{true, true, false})
	bld.Field(2).(*array.Float32Builder).AppendValues([]float32{0.5, 2, 0}, []bool{true, true, false})
	bld.Field(3).(*array.StringBuilder).AppendValues([]string{"héllo", "", "中文"}, []bool{true, false, true})
	bld.Field(4).(*array.LargeStringBuilder).AppendValues([]string{"x", "y", ""}, []bool{true, true, false})
	bld.Field(5).(*array.BooleanBuilder).AppendValues([]bool{true, false, true}, []bool{true, true, false})
	bld.Field(6).(*array.Date32Builder).AppendValues([]arrow.Date32{arrow.Date32FromTime(mustTime("2024-02-29")), 0, 0}, []bool{true, false, false})
	rec := bld.NewRecord()
	bld.Release()
	defer rec.Release()

	wantSchema := "i32:int64,u8:int64,f32:float64,s:utf8,ls:utf8,b:bool,d:date32"
	wantRows := [][]string{{"7", "255", "0.5", "héllo", "x", "true", "2024-02-29"},
		{"NULL", "1", "2.0", "NULL", "y", "false", "NULL"},
		{"-9", "NULL", "NULL", "中文", "NULL", "NULL", "NULL"}}

	writers := map[string]func(path string) error{
		"w.parquet": func(path string) error {
			f, _ := os.Create(path)
			defer f.Close()
			w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
			if err != nil {
				return err
			}
			if err := w.Write(rec); err != nil {
				return err
			}
			return w.Close()
		},
		"w.arrow": func(path string) error {
			f, _ := os.Create(path)
			defer f.Close()
			w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
			if err != nil {
				return err
			}
			if err := w.Write(rec); err != nil {
				return err
			}
			return w.Close()
		},
		"w.ipc": func(path string) error { // stream format under a file extension
			f, _ := os.Create(path)
			defer f.Close()
			w := ipc.NewWriter(f, ipc.WithSchema(schema))
			if err := w.Write(rec); err != nil {
				return err
			}
			return w.Close()
		},
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := write(path); err != nil {
				t.Fatal(err)
			}
			s, recs, err := Read(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ReleaseAll(recs)
			gs, rows := dump(t, s, recs)
			if gs != wantSchema || !reflect.DeepEqual(rows, wantRows) {
				t.Fatalf("got %s %q", gs, rows)
			}
		})
	}

	t.Run("arrow csv writer", func(t *testing.T) {
		sub := arrow.NewSchema(schema.Fields()[:4], nil)
		cols := rec.Columns()[:4]
		r2 := array.NewRecord(sub, cols, rec.NumRows())
		defer r2.Release()
		path := filepath.Join(dir, "w.csv")
		f, _ := os.Create(path)
		w := arrowcsv.NewWriter(f, sub, arrowcsv.WithHeader(true), arrowcsv.WithNullWriter(""))
		if err := w.Write(r2); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		f.Close()
		s, recs, err := Read(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ReleaseAll(recs)
		gs, rows := dump(t, s, recs)
		want := [][]string{{"7", "255", "0.5", "héllo"}, {"NULL", "1", "2.0", "NULL"}, {"-9", "NULL", "NULL", "中文"}}
		if gs != "i32:int64,u8:int64,f32:float64,s:utf8" || !reflect.DeepEqual(rows, want) {
			t.Fatalf("got %s %q", gs, rows)
		}
	})
}

func TestReadCorrupt(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, want string }{
		{"x.parquet", "PAR1 not really parquet", "x.parquet: "},
		{"x.arrow", "ARROW1\x00\x00garbage", "x.arrow: "},
		{"x.ipc", "garbage", "x.ipc: "},
		{"x.feather", "FEA1....", "Feather v1"},
		{"x.json", "{}", "unknown file type"},
		{"missing.csv", "", "open "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if tc.name != "missing.csv" {
				os.WriteFile(path, []byte(tc.data), 0o644)
			}
			_, _, err := Read(context.Background(), path, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := sampleRecord()
	defer src.Release()
	rr, _ := SliceReader(src.Schema(), []arrow.Record{src})
	path := filepath.Join(dir, "out.csv")
	if _, err := Write(ctx, path, rr, WriteOptions{}); err == nil {
		t.Fatal("no error from cancelled write")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left %v behind", ents)
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "x\n\"q\"\"\"\n", "1,2,3\n4,5\n", "名前\n日本\n", "a\n\"unterminated", "\xEF\xBB\xBFa\r\nTRUE\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		schema, recs, err := ReadCSVFrom(context.Background(), "fuzz.csv", strings.NewReader(in), CSVOptions{SampleRows: 3, BatchRows: 2})
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "fuzz.csv:") {
				t.Fatalf("bad error %q", err)
			}
			return
		}
		defer ReleaseAll(recs)
		for _, r := range recs {
			if int(r.NumCols()) != schema.NumFields() {
				t.Fatalf("record has %d columns, schema %d", r.NumCols(), schema.NumFields())
			}
		}
		// What was read writes back and reads again to the same values.
		var buf bytes.Buffer
		rr, _ := SliceReader(schema, recs)
		if _, err := WriteCSVTo(context.Background(), &buf, rr, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

func mustTime(s string) (tm time.Time) {
	tm, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return tm
}
