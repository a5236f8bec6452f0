package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
)

// MySQL 8 reads text compared with a DATE or DATETIME row by row
// (get_datetime_value, sql/item_cmpfunc.cc): text that is no date is the
// zero date 0, below every date, with warning 1292; NULL text is NULL;
// text with trailing characters is the date its prefix holds, with the
// truncation warning. A CAST of the same text is NULL.

// TestComparisonReadsText: a comparison of a date with text converts the
// text with cmp_to_timestamp (not the cast); its values and warnings.
func TestComparisonReadsText(t *testing.T) {
	d := &ColumnRef{Index: 0, Name: "d", T: coldata.Date}
	s := &ColumnRef{Index: 1, Name: "s", T: coldata.String}
	b := coldata.NewBuilder(coldata.String, 7)
	texts := []any{"abc", "", "2023-02-30", "0000-00-00", "2024-02-29", "2024-02-29 10:00:00", "2024-02-29x", nil}
	for _, v := range texts {
		b.AppendValue(v)
	}
	sv := b.Finish()
	db := coldata.NewBuilder(coldata.Date, len(texts))
	day := datetime.DaysFromCivil(2024, 2, 29)
	for range texts {
		db.AppendInt(day)
	}
	batch := &coldata.Batch{Len: len(texts), Cols: []*coldata.Vec{db.Finish(), sv}}

	call := func(name string, args ...Expr) Expr {
		t.Helper()
		f, ok := Lookup(name)
		if !ok {
			t.Fatalf("no function %s", name)
		}
		e, err := NewCall(f, args)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, name := range []string{"=", "<>", "<", "<=", ">", ">=", "<=>", "in"} {
		e := call(name, d, s)
		if !strings.Contains(e.String(), CmpTimestampName+"(s)") {
			t.Errorf("%s: %s does not read s with %s", name, e, CmpTimestampName)
		}
	}
	// Other functions still cast (NULL for text that is no date).
	if e := call("coalesce", d, s); strings.Contains(e.String(), CmpTimestampName) {
		t.Errorf("coalesce: %s", e)
	}

	cases := []struct {
		e    Expr
		want string
	}{
		{call("=", d, s), "[false false false false true false true <nil>]"},
		{call("<>", s, d), "[true true true true false true false <nil>]"},
		{call("<", d, s), "[false false false false false true false <nil>]"},
		{call(">", d, s), "[true true true true false false false <nil>]"},
		{call("<=>", d, s), "[false false false false true false true false]"},
		{call("in", d, s, &Literal{Value: "2020-01-01", T: coldata.String}), "[false false false false true false true <nil>]"},
		// The cast, for comparison: NULL.
		{call("=", call("cast_to_timestamp", d), call("cast_to_timestamp", s)), "[<nil> <nil> <nil> <nil> true false true <nil>]"},
	}
	for _, c := range cases {
		var w Warnings
		v, err := EvalWarn(c.e, batch, &w)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		got := make([]any, batch.Len)
		for i := range got {
			got[i] = v.Value(i)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: %v, want %s", c.e, got, c.want)
		}
		var msgs []string
		for _, x := range w.List() {
			msgs = append(msgs, fmt.Sprintf("%d %s", x.Code, x.Msg))
		}
		want := "[1292 Incorrect datetime value: 'abc' 1292 Incorrect datetime value: '' 1292 Incorrect datetime value: '2023-02-30' " +
			"1292 Incorrect datetime value: '0000-00-00' 1292 Truncated incorrect date value: '2024-02-29x']"
		if fmt.Sprint(msgs) != want {
			t.Errorf("%s: warnings %v, want %s", c.e, msgs, want)
		}
	}
}

// TestCmpTimestampValues: the zero date is below every DATETIME, NULL
// stays NULL, and a constant reads once per row of its batch.
func TestCmpTimestampValues(t *testing.T) {
	if ZeroTimestamp >= datetime.MinDays*datetime.MicrosPerDay || ZeroDateDays >= datetime.MinDays {
		t.Fatalf("zero date %d (%d days) is not below 0001-01-01", ZeroTimestamp, ZeroDateDays)
	}
	f, _ := Lookup(CmpTimestampName)
	for _, c := range []struct {
		in   *coldata.Vec
		want string
		warn int64
	}{
		{coldata.NewConst(coldata.String, "abc", 3), fmt.Sprintf("[%d %d %d]", ZeroTimestamp, ZeroTimestamp, ZeroTimestamp), 3},
		{coldata.NewConst(coldata.String, nil, 3), "[<nil> <nil> <nil>]", 0},
		{coldata.NewConst(coldata.String, "2024-01-05 10:30:00", 2), fmt.Sprintf("[%d %d]", datetime.DaysFromCivil(2024, 1, 5)*datetime.MicrosPerDay+37800e6, datetime.DaysFromCivil(2024, 1, 5)*datetime.MicrosPerDay+37800e6), 0},
	} {
		var w Warnings
		v, err := f.EvalW([]*coldata.Vec{c.in}, c.in.Len, &w)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]any, c.in.Len)
		for i := range got {
			got[i] = v.Value(i)
		}
		if fmt.Sprint(got) != c.want || w.Count() != c.warn {
			t.Errorf("%v: %v with %d warnings, want %s with %d", c.in.Value(0), got, w.Count(), c.want, c.warn)
		}
	}
	// A NULL literal stays NULL, of the type compared.
	if e, err := CompareCastTo(&Literal{T: coldata.String}, coldata.Timestamp); err != nil || e.Type() != coldata.Timestamp {
		t.Errorf("NULL text: %v, %v", e, err)
	}
	if e, err := CompareCastTo(&Literal{Value: int64(20240105), T: coldata.Int64}, coldata.Timestamp); err != nil || strings.Contains(e.String(), CmpTimestampName) {
		t.Errorf("a number is cast: %v, %v", e, err)
	}
}
