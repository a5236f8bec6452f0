package answers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// rows builds answer rows from "a|b|c" lines.
func rows(lines ...string) [][]string {
	var out [][]string
	for _, l := range lines {
		out = append(out, strings.Split(l, "|"))
	}
	return out
}

func TestCompare(t *testing.T) {
	cols := []string{"k", "c"}
	want := Answer{Columns: cols, Rows: rows("a|3", "b|2", "c|2", "d|1", "e|1")}
	cases := []struct {
		name  string
		got   Answer
		check Check
		ok    bool
	}{
		{"identical", want, Check{Keys: []int{1}, Ordered: true}, true},
		{"tie reordered", Answer{cols, rows("a|3", "c|2", "b|2", "d|1", "e|1")}, Check{Keys: []int{1}, Ordered: true}, true},
		{"tie reordered, row by row", Answer{cols, rows("a|3", "c|2", "b|2", "d|1", "e|1")}, Check{}, false},
		{"other row in a run", Answer{cols, rows("a|3", "b|2", "x|2", "d|1", "e|1")}, Check{Keys: []int{1}, Ordered: true}, false},
		{"other row at the LIMIT cut", Answer{cols, rows("a|3", "b|2", "c|2", "x|1", "y|1")}, Check{Keys: []int{1}, Ordered: true, Limited: true}, true},
		{"other row at the cut without LIMIT", Answer{cols, rows("a|3", "b|2", "c|2", "x|1", "y|1")}, Check{Keys: []int{1}, Ordered: true}, false},
		{"other row where the OFFSET starts", Answer{cols, rows("x|3", "b|2", "c|2", "d|1", "e|1")}, Check{Keys: []int{1}, Ordered: true, Offset: true}, true},
		{"key differs", Answer{cols, rows("a|3", "b|2", "c|1", "d|1", "e|1")}, Check{Keys: []int{1}, Ordered: true, Limited: true}, false},
		{"number within tolerance", Answer{cols, rows("a|3.00000000001", "b|2", "c|2", "d|1", "e|1")}, Check{Keys: []int{1}, Ordered: true}, true},
		{"fewer rows", Answer{cols, rows("a|3")}, Check{Keys: []int{1}, Ordered: true, Limited: true}, false},
		{"column renamed", Answer{[]string{"k", "count"}, want.Rows}, Check{}, false},
		{"column name case", Answer{[]string{"K", "C"}, want.Rows}, Check{}, true},
		{"unordered, no keys", Answer{cols, rows("e|1", "d|1", "c|2", "b|2", "a|3")}, Check{Keys: []int{}, Ordered: true, Limited: true}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Compare(c.got, want, c.check)
			if c.ok && err != nil {
				t.Errorf("unexpected difference: %v", err)
			}
			if !c.ok && !errors.Is(err, ErrMismatch) {
				t.Errorf("got %v, want a mismatch", err)
			}
		})
	}
	// Expression names are DuckDB's own: only plain names must agree.
	if err := Compare(Answer{[]string{"COUNT(*)"}, rows("1")}, Answer{[]string{"count_star()"}, rows("1")}, Check{}); err != nil {
		t.Error(err)
	}
	if err := Compare(want, want, Check{Keys: []int{2}, Ordered: true}); err == nil || errors.Is(err, ErrMismatch) {
		t.Errorf("key out of range: got %v, want an error that is no mismatch", err)
	}
}

func TestFor(t *testing.T) {
	q := "SELECT SearchPhrase FROM hits WHERE SearchPhrase <> '' ORDER BY EventTime LIMIT 10"
	if c := For(25, q, 1000); c.Witness != nil || c.Ordered || !c.Limited || c.Offset {
		t.Errorf("Q25 at 1000 rows: %+v", c)
	}
	if c := For(25, q, 10_000_000); c.Witness == nil || c.Witness.Limit != 10 {
		t.Errorf("Q25 at 10M rows: %+v", c)
	}
	if c := For(24, "SELECT * FROM hits ORDER BY EventTime LIMIT 10", 10_000_000); !c.Ordered || len(c.Keys) != 1 || c.Keys[0] != 4 {
		t.Errorf("Q24 at 10M rows: %+v", c)
	}
	if c := For(43, "... LIMIT 10 OFFSET 1000", 10); !c.Limited || !c.Offset {
		t.Errorf("Q43: %+v", c)
	}
}

func TestWitness(t *testing.T) {
	w := &Witness{KeyCols: 1, Limit: 3}
	witness := Answer{[]string{"t", "p"}, rows("1|a", "2|b", "2|c", "3|d", "3|e", "3|f")}
	cases := []struct {
		got string
		ok  bool
	}{
		{"a,b,c", true},
		{"a,c,b", true},
		{"a,b,d", false}, // d's key is 3: it cannot stand in the run of 2s
		{"b,a,c", false},
		{"a,b,b", false},
		{"a,b", false},
	}
	for _, c := range cases {
		got := Answer{Columns: []string{"p"}}
		for _, p := range strings.Split(c.got, ",") {
			got.Rows = append(got.Rows, []string{p})
		}
		err := w.Check(got, witness)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrMismatch)) {
			t.Errorf("%s: %v", c.got, err)
		}
	}
	// A cut inside a run: any of its rows will do.
	w.Limit = 4
	for _, g := range []string{"a,b,c,d", "a,c,b,f"} {
		got := Answer{Columns: []string{"p"}}
		for _, p := range strings.Split(g, ",") {
			got.Rows = append(got.Rows, []string{p})
		}
		if err := w.Check(got, witness); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
}

func TestProbes(t *testing.T) {
	got := Answer{[]string{"UserID", "SearchPhrase", "COUNT(*)"}, rows("17|red shoes|4", "-3||9")}
	ps, err := Probes(18, got)
	if err != nil || len(ps) != 2 {
		t.Fatalf("Probes: %v %v", ps, err)
	}
	if want := "SELECT COUNT(*) FROM hits WHERE UserID = 17 AND SearchPhrase = 'red shoes'"; ps[0].SQL != want || ps[0].Want != "4" {
		t.Errorf("probe %+v, want %s = 4", ps[0], want)
	}
	if err := ps[1].Check(Answer{[]string{"c"}, rows("9")}); err != nil {
		t.Error(err)
	}
	if err := ps[1].Check(Answer{[]string{"c"}, rows("8")}); !errors.Is(err, ErrMismatch) {
		t.Errorf("count 8 for 9: %v", err)
	}
	if ps, err := Probes(17, got); ps != nil || err != nil {
		t.Errorf("Q17 has probes: %v %v", ps, err)
	}
	for _, bad := range []string{"1|it's|2", `1|a\b|2`, "x|a|2", "1|2"} {
		if _, err := Probes(18, Answer{got.Columns, rows(bad)}); err == nil {
			t.Errorf("row %q: no error", bad)
		}
	}
}

func TestValueAndRead(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendNull()
	b.Field(1).(*array.Float64Builder).Append(0.1)
	b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(-12345))
	b.Field(3).(*array.Date32Builder).Append(arrow.Date32(15887)) // 2013-07-01
	b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1372636800_000000 + 61_000000))
	b.Field(5).(*array.StringBuilder).Append("NULL")
	rec := b.NewRecord()
	defer rec.Release()
	rdr, err := array.NewRecordReader(schema, []arrow.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	a, err := Read(rdr)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"NULL", "0.1", "-1.2345", "2013-07-01", "2013-07-01 00:01:01", "NULL"}
	if strings.Join(a.Columns, ",") != "i,f,d,day,ts,s" || len(a.Rows) != 1 || strings.Join(a.Rows[0], "|") != strings.Join(want, "|") {
		t.Errorf("got %v %v, want %v", a.Columns, a.Rows, want)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.tsv")
	if err := os.WriteFile(p, []byte("a\tb\n1\tx\n2\t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadFile(p)
	if err != nil || len(a.Columns) != 2 || len(a.Rows) != 2 || a.Rows[1][1] != "" {
		t.Fatalf("ReadFile: %+v %v", a, err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err == nil {
		t.Error("empty file: no error")
	}
}
