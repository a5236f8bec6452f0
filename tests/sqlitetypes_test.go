package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

func TestFormatSQLiteValue(t *testing.T) {
	rec := record(t,
		[]any{7, -3, nil},
		[]any{2.5, 3.0, 1e20},
		[]any{"12abc", " -4.5x", "nan"},
		[]any{true, false, nil},
	)
	defer rec.Release()
	tests := []struct {
		col, row int
		typ      byte
		want     string
	}{
		{0, 0, 'T', "7"},
		{0, 1, 'T', "-3"},
		{0, 2, 'T', "NULL"},
		{0, 0, 'I', "7"},
		{0, 0, 'R', "7.000"},
		{1, 0, 'T', "2.5"},
		{1, 1, 'T', "3.0"},
		{1, 2, 'T', "1.0e+20"},
		{1, 0, 'R', "2.500"},
		{2, 0, 'I', "12"},
		{2, 1, 'I', "-4"},
		{2, 1, 'R', "-4.500"},
		{2, 2, 'I', "0"},
		{2, 2, 'R', "0.000"},
		{2, 0, 'T', "12abc"},
		{3, 0, 'T', "1"},
		{3, 1, 'I', "0"},
	}
	for _, tc := range tests {
		got, err := FormatSQLiteValue(rec.Column(tc.col), tc.row, tc.typ)
		if err != nil || got != tc.want {
			t.Errorf("column %d row %d as %c: got %q, %v; want %q", tc.col, tc.row, tc.typ, got, err, tc.want)
		}
	}
	// Out of range stays an error, as in FormatValue.
	if _, err := FormatSQLiteValue(rec.Column(0), 9, 'T'); err == nil {
		t.Error("row 9 of 3: no error")
	}
}

// TestRunnerSQLiteTypes checks that SQLiteTypes lets an integer answer a
// T column, which the strict runner reports as a type mismatch.
func TestRunnerSQLiteTypes(t *testing.T) {
	eng := &fakeEngine{results: map[string]arrow.Record{"q": record(t, []any{10, 2})}}
	s, err := ParseScript("t.test", []byte("query T valuesort\nq\n----\n10\n2\n"))
	if err != nil {
		t.Fatal(err)
	}
	strict := (&Runner{Engine: eng}).Run(context.Background(), s)
	if len(strict.Failures) != 1 || !strings.Contains(strict.Failures[0].Error(), "type mismatch") {
		t.Errorf("strict runner: got %v, want one type mismatch", strict.Failures)
	}
	loose := (&Runner{Engine: eng, SQLiteTypes: true}).Run(context.Background(), s)
	if len(loose.Failures) != 0 {
		t.Errorf("SQLiteTypes runner: %v", loose.Failures)
	}
}

// A DECIMAL (gsql's exact division) in an I column reads as SQLite's
// integer: the value toward zero.
func TestFormatSQLiteDecimal(t *testing.T) {
	b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: 10, Scale: 4})
	defer b.Release()
	for _, v := range []int64{1120000, -1125000, -5000, 0} {
		b.Append(decimal128.FromI64(v))
	}
	b.AppendNull()
	col := b.NewArray()
	defer col.Release()
	for i, want := range []string{"112", "-112", "0", "0", "NULL"} {
		if got, err := FormatSQLiteValue(col, i, 'I'); err != nil || got != want {
			t.Errorf("row %d as I: %q, %v; want %q", i, got, err, want)
		}
	}
	if got, err := FormatSQLiteValue(col, 1, 'R'); err != nil || got != "-112.5000" {
		t.Errorf("row 1 as R: %q, %v", got, err)
	}
}
