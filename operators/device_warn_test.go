package operators

import (
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// TestWarnProbe: the probe of a GPU batch's warnings passes exactly the
// rows where a warning-giving call is NULL and none of its arguments is
// (the rows the CPU warns on); expressions without such a call have none.
func TestWarnProbe(t *testing.T) {
	s := &expr.ColumnRef{Index: 0, Name: "s", T: coldata.String}
	g := &expr.ColumnRef{Index: 1, Name: "g", T: coldata.Int64}
	mk := func(name string, args ...expr.Expr) expr.Expr {
		t.Helper()
		e, err := probeCall(name, args...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	castDate := mk("cast_to_date", s)
	div := mk("div", &expr.Literal{Value: int64(100), T: coldata.Int64}, g)
	vec := func(t coldata.Type, vals ...any) *coldata.Vec {
		b := coldata.NewBuilder(t, len(vals))
		for _, v := range vals {
			b.AppendValue(v)
		}
		return b.Finish()
	}
	b := &coldata.Batch{Len: 4, Cols: []*coldata.Vec{
		vec(coldata.String, "2024-02-29", "2023-02-30", nil, "abc"),
		vec(coldata.Int64, int64(0), int64(5), int64(0), nil),
	}}
	cases := []struct {
		name  string
		exprs []expr.Expr
		want  string // the probe's value per row; "none": no probe
	}{
		{"cast", []expr.Expr{castDate}, "[false true false true]"},
		{"div", []expr.Expr{div}, "[true false true false]"},
		{"both, nested", []expr.Expr{mk("+", mk("year", castDate), div)}, "[true true true true]"},
		{"filter and output", []expr.Expr{mk(">", div, &expr.Literal{Value: int64(1), T: coldata.Int64}), castDate}, "[true true true true]"},
		{"no warning call", []expr.Expr{mk("+", g, g), s}, "none"},
		{"nil filter", []expr.Expr{nil}, "none"},
		// A number cast to DECIMAL or DOUBLE never warns: no probe pass.
		{"numeric casts", []expr.Expr{mk("cast_to_decimal", g, &expr.Literal{Value: int64(19), T: coldata.Int64}, &expr.Literal{Value: int64(0), T: coldata.Int64}), mk("cast_to_double", g)}, "none"},
		{"text cast to DOUBLE", []expr.Expr{mk("cast_to_double", s)}, "[false false false false]"},
		// A comparison's text that is no date is the zero date: the
		// probe passes those rows, not the NULL one.
		{"comparison's text", []expr.Expr{mk("<", &expr.Literal{Value: int64(0), T: coldata.Timestamp}, s)}, "[false true false true]"},
		{"comparison's text and div", []expr.Expr{mk("=", s, mk("cast_to_date", s)), div}, "[true true true true]"},
	}
	for _, c := range cases {
		p, err := warnProbe(c.exprs...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p == nil {
			if c.want != "none" {
				t.Errorf("%s: no probe, want %s", c.name, c.want)
			}
			continue
		}
		v, err := expr.Eval(p, b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []bool
		for i := 0; i < b.Len; i++ {
			got = append(got, !v.IsNull(i) && v.Bool(i))
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: probe %v (%s), want %s", c.name, got, p, c.want)
		}
	}
}
