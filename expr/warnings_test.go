package expr

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestWarningsSink: the sink keeps the first MaxWarnings warnings in
// order and counts them all; a nil sink records nothing.
func TestWarningsSink(t *testing.T) {
	cases := []struct {
		name      string
		add       func(w *Warnings)
		wantCount int64
		wantKept  int
		first     Warning
	}{
		{"none", func(*Warnings) {}, 0, 0, Warning{}},
		{"one", func(w *Warnings) { w.Add(WarnDivByZero, "Division by 0") }, 1, 1, Warning{"Warning", 1365, "Division by 0"}},
		{"note", func(w *Warnings) { w.AddLevel("Note", WarnTruncated, "Truncated incorrect DOUBLE value: '%s'", "12 ") }, 1, 1,
			Warning{"Note", 1292, "Truncated incorrect DOUBLE value: '12 '"}},
		{"past the bound", func(w *Warnings) {
			for i := 0; i < 100; i++ {
				w.Add(WarnTruncated, "Incorrect datetime value: '%d'", i)
			}
		}, 100, MaxWarnings, Warning{"Warning", 1292, "Incorrect datetime value: '0'"}},
		{"repeated", func(w *Warnings) { w.addTimes([]Warning{{"Warning", 1365, "Division by 0"}}, 70) }, 70, MaxWarnings, Warning{"Warning", 1365, "Division by 0"}},
		{"repeated none", func(w *Warnings) { w.addTimes(nil, 5) }, 0, 0, Warning{}},
		{"appended", func(w *Warnings) { w.Append(Warning{"Warning", 1062, "Duplicate entry '1' for key 'k.PRIMARY'"}) }, 1, 1,
			Warning{"Warning", 1062, "Duplicate entry '1' for key 'k.PRIMARY'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w Warnings
			c.add(&w)
			list := w.List()
			if w.Count() != c.wantCount || len(list) != c.wantKept {
				t.Fatalf("count %d, kept %d; want %d, %d", w.Count(), len(list), c.wantCount, c.wantKept)
			}
			if len(list) > 0 && list[0] != c.first {
				t.Fatalf("first %+v, want %+v", list[0], c.first)
			}
		})
	}
	var nilSink *Warnings
	nilSink.Add(WarnDivByZero, "Division by 0")
	if nilSink.Count() != 0 || nilSink.List() != nil {
		t.Fatal("a nil sink recorded a warning")
	}
}

// TestWarningsConcurrent: goroutines sharing a sink lose no count.
func TestWarningsConcurrent(t *testing.T) {
	var w Warnings
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				w.Add(WarnDivByZero, "Division by 0")
			}
		}()
	}
	wg.Wait()
	if w.Count() != 400 || len(w.List()) != MaxWarnings {
		t.Fatalf("count %d kept %d", w.Count(), len(w.List()))
	}
}

// TestNumberTail: what follows the number at the start of a text, as
// MySQL's conversion to DOUBLE or INTEGER reads it.
func TestNumberTail(t *testing.T) {
	cases := []struct {
		s       string
		integer bool
		want    int
	}{
		{"12", false, tailNone}, {" 12", false, tailNone}, {"-1.5e3", false, tailNone}, {".5", false, tailNone},
		{"12 ", false, tailSpaces}, {" 12\t", true, tailSpaces},
		{"12abc", false, tailOther}, {"", false, tailOther}, {"-", false, tailOther}, {"abc", true, tailOther},
		{"1.5e", false, tailOther}, {"0x10", false, tailOther}, {"1.5", true, tailOther}, {"1e3", true, tailOther},
		{"1e3", false, tailNone},
	}
	for _, c := range cases {
		if got := numberTail([]byte(c.s), c.integer); got != c.want {
			t.Errorf("numberTail(%q, integer=%v) = %d, want %d", c.s, c.integer, got, c.want)
		}
	}
}

// TestEvalWarn: kernels warn on the rows they make NULL from non-NULL
// arguments, and on text that is not wholly a number; a constant call
// over n rows warns n times; TRY warns not at all.
func TestEvalWarn(t *testing.T) {
	col := func(vals ...any) *coldata.Vec {
		b := coldata.NewBuilder(coldata.String, len(vals))
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.AppendString(v.(string))
			}
		}
		return b.Finish()
	}
	s := &ColumnRef{Index: 0, Name: "s", T: coldata.String}
	batch := &coldata.Batch{Cols: []*coldata.Vec{col("2024-02-29", "2023-02-30", nil, "12abc")}, Len: 4}
	mustCall := func(name string, args ...Expr) Expr {
		f, ok := Lookup(name)
		if !ok {
			t.Fatalf("no function %s", name)
		}
		e, err := NewCall(f, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return e
	}
	lit := func(v any, ty coldata.Type) Expr { return &Literal{Value: v, T: ty} }
	cases := []struct {
		name string
		e    Expr
		want []string
	}{
		{"date cast", mustCall(CastFuncName(coldata.Date), s), []string{"Warning 1292 Incorrect datetime value: '2023-02-30'", "Warning 1292 Incorrect datetime value: '12abc'"}},
		{"double cast", mustCall(CastFuncName(coldata.Float64), s), []string{"Warning 1292 Truncated incorrect DOUBLE value: '2024-02-29'", "Warning 1292 Truncated incorrect DOUBLE value: '2023-02-30'", "Warning 1292 Truncated incorrect DOUBLE value: '12abc'"}},
		{"constant division", mustCall("/", lit(int64(1), coldata.Int64), lit(int64(0), coldata.Int64)), []string{"Warning 1365 Division by 0", "Warning 1365 Division by 0", "Warning 1365 Division by 0", "Warning 1365 Division by 0"}},
		{"no warning", mustCall("/", lit(int64(1), coldata.Int64), lit(int64(2), coldata.Int64)), nil},
		{"try", mustCall(TryName, mustCall(CastFuncName(coldata.Date), s)), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, prog := range []bool{false, true} {
				var w Warnings
				var err error
				if prog {
					_, err = NewProgram([]Expr{c.e}).EvalWarn(batch, &w)
				} else {
					_, err = EvalWarn(c.e, batch, &w)
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, x := range w.List() {
					got = append(got, fmt.Sprintf("%s %d %s", x.Level, x.Code, x.Msg))
				}
				if fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("program=%v:\n got %q\nwant %q", prog, got, c.want)
				}
			}
		})
	}
}

// BenchmarkCastTextWarnings measures the cost of the warnings check on
// text read as a number (clean text: no warning is given) and of a
// division whose result has no NULLs, with and without a sink.
func BenchmarkCastTextWarnings(b *testing.B) {
	const n = 1 << 16
	sb := coldata.NewBuilder(coldata.String, n)
	ib := coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		sb.AppendString(fmt.Sprintf("%d.%02d", i, i%100))
		ib.AppendInt(int64(i + 1))
	}
	batch := &coldata.Batch{Cols: []*coldata.Vec{sb.Finish(), ib.Finish()}, Len: n}
	cast, _ := Lookup(CastFuncName(coldata.Float64))
	div, _ := Lookup("/")
	s := &ColumnRef{Index: 0, Name: "s", T: coldata.String}
	x := &ColumnRef{Index: 1, Name: "x", T: coldata.Int64}
	castE, _ := NewCall(cast, []Expr{s})
	divE, _ := NewCall(div, []Expr{&Literal{Value: int64(7), T: coldata.Int64}, x})
	for _, c := range []struct {
		name string
		e    Expr
	}{{"cast", castE}, {"div", divE}} {
		for _, sink := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sink=%v", c.name, sink), func(b *testing.B) {
				var w *Warnings
				if sink {
					w = new(Warnings)
				}
				for i := 0; i < b.N; i++ {
					if _, err := EvalWarn(c.e, batch, w); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestCompareWarnsOnce: a comparison's constant text read as a date warns
// once per statement (one sink) across rows, batches and both evaluators;
// a second comparison of the same text warns on its own; a new statement
// warns again.
func TestCompareWarnsOnce(t *testing.T) {
	eq, _ := Lookup("=")
	lt, _ := Lookup("<")
	col := &ColumnRef{Index: 0, T: coldata.Date}
	text := &Literal{Value: "2024-01-05abc", T: coldata.String}
	e1, err := NewCall(eq, []Expr{col, text})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := NewCall(lt, []Expr{col, text})
	if err != nil {
		t.Fatal(err)
	}
	batch := func() *coldata.Batch {
		v := coldata.NewVec(coldata.Date, 3)
		for i := range v.Ints[:3] {
			v.Ints[i] = int64(19727 + i)
		}
		return &coldata.Batch{Len: 3, Cols: []*coldata.Vec{v}}
	}
	for _, tc := range []struct {
		name string
		eval func(b *coldata.Batch, w *Warnings) error
	}{
		{"EvalWarn", func(b *coldata.Batch, w *Warnings) error {
			for _, e := range []Expr{e1, e2} {
				if _, err := EvalWarn(e, b, w); err != nil {
					return err
				}
			}
			return nil
		}},
		{"Program", func(b *coldata.Batch, w *Warnings) error {
			_, err := NewProgram([]Expr{e1, e2}).EvalWarn(b, w)
			return err
		}},
	} {
		for stmt := 0; stmt < 2; stmt++ {
			var w Warnings
			for range 3 { // batches
				if err := tc.eval(batch(), &w); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			}
			if w.Count() != 2 {
				t.Errorf("%s statement %d: %d warnings %v, want 2", tc.name, stmt, w.Count(), w.List())
			}
		}
	}
}
