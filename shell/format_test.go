package shell

import (
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

func testReader(t *testing.T) array.RecordReader {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 22, 333}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"Ada", "日本語", "x|\"y\""}, []bool{true, true, false})
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{1.5, 2, 0}, []bool{true, true, false})
	b.Field(3).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, []bool{true, true, false})
	rec := b.NewRecord()
	defer rec.Release()
	r, err := array.NewRecordReader(schema, []arrow.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFormatModes(t *testing.T) {
	tests := []struct {
		mode string
		mod  func(*Format)
		want string
	}{
		{"table", nil, `+-----+--------+-------+-------+
|  id | name   | score | ok    |
+-----+--------+-------+-------+
|   1 | Ada    |   1.5 | true  |
|  22 | 日本語 |   2.0 | false |
| 333 | NULL   |  NULL | NULL  |
+-----+--------+-------+-------+
3 rows
`},
		{"table", func(f *Format) { f.Headers = false; f.NullValue, f.NullSet = "-", true }, `+-----+--------+-----+-------+
|   1 | Ada    | 1.5 | true  |
|  22 | 日本語 | 2.0 | false |
| 333 | -      |   - | -     |
+-----+--------+-----+-------+
3 rows
`},
		{"csv", nil, "id,name,score,ok\n1,Ada,1.5,true\n22,日本語,2.0,false\n333,,,\n"},
		{"tsv", func(f *Format) { f.Headers = false }, "1\tAda\t1.5\ttrue\n22\t日本語\t2.0\tfalse\n333\t\t\t\n"},
		{"json", nil, `[
{"id":1,"name":"Ada","score":1.5,"ok":true},
{"id":22,"name":"日本語","score":2,"ok":false},
{"id":333,"name":null,"score":null,"ok":null}
]
`},
		{"jsonl", nil, `{"id":1,"name":"Ada","score":1.5,"ok":true}
{"id":22,"name":"日本語","score":2,"ok":false}
{"id":333,"name":null,"score":null,"ok":null}
`},
		{"markdown", nil, `|  id | name   | score | ok    |
|----:|--------|------:|-------|
|   1 | Ada    |   1.5 | true  |
|  22 | 日本語 |   2.0 | false |
| 333 | NULL   |  NULL | NULL  |
`},
		{"line", nil, `   id = 1
 name = Ada
score = 1.5
   ok = true

   id = 22
 name = 日本語
score = 2.0
   ok = false

   id = 333
 name = NULL
score = NULL
   ok = NULL
`},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			f := DefaultFormat()
			f.Mode = tc.mode
			if tc.mod != nil {
				tc.mod(&f)
			}
			var b strings.Builder
			n, err := f.Write(&b, testReader(t))
			if err != nil || n != 3 {
				t.Fatalf("n=%d err=%v", n, err)
			}
			if b.String() != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestFormatQuotingAndEmpty(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a,b", "", "q\"t", "x\ny", "p|q"}, nil)
	rec := b.NewRecord()
	tests := []struct{ mode, want string }{
		{"csv", "s\n\"a,b\"\n\"\"\n\"q\"\"t\"\n\"x\ny\"\np|q\n"},
		{"tsv", "s\na,b\n\nq\"t\nx\\ny\np|q\n"},
		{"table", "+------+\n| s    |\n+------+\n| a,b  |\n|      |\n| q\"t  |\n| x\\ny |\n| p|q  |\n+------+\n5 rows\n"},
		{"markdown", "| s    |\n|------|\n| a,b  |\n|      |\n| q\"t  |\n| x\\ny |\n| p\\|q |\n"},
	}
	for _, tc := range tests {
		f := DefaultFormat()
		f.Mode = tc.mode
		rdr, _ := array.NewRecordReader(schema, []arrow.Record{rec})
		var out strings.Builder
		if _, err := f.Write(&out, rdr); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.mode, out.String(), tc.want)
		}
	}
	// No rows: header and footer only.
	empty, _ := array.NewRecordReader(schema, nil)
	f := DefaultFormat()
	var out strings.Builder
	f.Write(&out, empty)
	if out.String() != "+---+\n| s |\n+---+\n0 rows\n" {
		t.Errorf("empty table %q", out.String())
	}
}

func TestWidthAndTruncate(t *testing.T) {
	tests := []struct {
		s     string
		width int
		cut   string // truncate(s, 6)
	}{
		{"hello", 5, "hello"},
		{"hello world", 11, "hello…"},
		{"日本語テキスト", 14, "日本…"},
		{"😀😀😀😀", 8, "😀😀…"},
		{"e\u0301e\u0301", 2, "e\u0301e\u0301"},
		{"한국어", 6, "한국어"},
		{"ｆｕｌｌ", 8, "ｆｕ…"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 7, "abcde…"},
		{"a\u200db", 2, "a\u200db"},
	}
	for _, tc := range tests {
		if got := displayWidth(tc.s); got != tc.width {
			t.Errorf("displayWidth(%q) = %d, want %d", tc.s, got, tc.width)
		}
		got := truncate(tc.s, 6)
		if got != tc.cut {
			t.Errorf("truncate(%q, 6) = %q, want %q", tc.s, got, tc.cut)
		}
		if displayWidth(got) > 6 {
			t.Errorf("truncate(%q) too wide", tc.s)
		}
	}
	// Table mode cuts long cells at MaxWidth; csv never does.
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.StringBuilder).Append(strings.Repeat("長", 30))
	rec := b.NewRecord()
	for _, mode := range []string{"table", "csv"} {
		f := DefaultFormat()
		f.Mode = mode
		f.MaxWidth = 10
		rdr, _ := array.NewRecordReader(schema, []arrow.Record{rec})
		var out strings.Builder
		f.Write(&out, rdr)
		cut := strings.Contains(out.String(), "長長長長…")
		if cut != (mode == "table") || (mode == "table" && strings.Contains(out.String(), "長長長長長")) {
			t.Errorf("%s: %q", mode, out.String())
		}
	}
}
