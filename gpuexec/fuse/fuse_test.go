package fuse_test

import (
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
)

// redact is DESIGN.md's benchmark expression over (name, visibility).
func redact(t *testing.T) expr.Expr {
	return call(t, "case",
		call(t, "=", col(cVis), lit("public")),
		call(t, "concat",
			call(t, "left", call(t, "split_part", col(cName), lit(" "), lit(2)), lit(1)),
			lit(" "),
			call(t, "split_part", col(cName), lit(" "), lit(1))),
		lit("X X"))
}

func TestRedactKernelMatchesCPU(t *testing.T) {
	b := testBatch(3000, 1)
	k := checkKernel(t, b, nil, []expr.Expr{redact(t)})
	if !k.TwoPass() || k.StringOutputs != 1 {
		t.Fatalf("redact kernel: two-pass %v, string outputs %d", k.TwoPass(), k.StringOutputs)
	}
	// Every value is a view or a rope of views: no scratch is needed.
	if strings.Contains(k.Source, "flatten(") && strings.Contains(k.Source, "scratch_take") {
		t.Errorf("redact kernel uses scratch")
	}
}

func TestLiteralsShareKernels(t *testing.T) {
	a, err := fuse.Generate(testTypes, call(t, "=", col(cVis), lit("public")), []expr.Expr{col(cName)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fuse.Generate(testTypes, call(t, "=", col(cVis), lit("private")), []expr.Expr{col(cName)})
	if err != nil {
		t.Fatal(err)
	}
	if a.Key != b.Key {
		t.Fatalf("WHERE x = 'public' and WHERE x = 'private' compiled to different kernels")
	}
	if a.Params[0] != "public" || b.Params[0] != "private" {
		t.Fatalf("params %v / %v", a.Params, b.Params)
	}
}

func TestFunctionKernelsMatchCPU(t *testing.T) {
	b := testBatch(2000, 2)
	s, n, v, x, f, bo := col(cName), col(cS), col(cVis), col(cA), col(cF), col(cB)
	cases := [][]expr.Expr{
		{call(t, "length", s), call(t, "char_length", s), call(t, "upper", s), call(t, "lower", s)},
		{call(t, "substring", s, x), call(t, "substring", s, x, lit(3)), call(t, "substring", s, lit(-3), x), call(t, "left", s, x), call(t, "right", s, x)},
		{call(t, "split_part", s, n, x), call(t, "split_part", s, lit(" "), lit(-1)), call(t, "substring_index", s, n, x), call(t, "substring_index", s, lit(" "), lit(-1))},
		{call(t, "locate", n, s), call(t, "locate", n, s, x), call(t, "instr", s, n), call(t, "replace", s, n, lit("<>")), call(t, "replace", s, lit(" "), lit(""))},
		{call(t, "trim", s), call(t, "ltrim", s, n), call(t, "rtrim", s, n), call(t, "trim", call(t, "concat", lit("  "), s, lit("  ")))},
		{call(t, "lpad", s, x, n), call(t, "rpad", s, x, lit("ab")), call(t, "reverse", s), call(t, "repeat", n, x)},
		{call(t, "starts_with", s, n), call(t, "ends_with", s, n), call(t, "contains", s, n), call(t, "like", s, n), call(t, "like", s, lit("J%")), call(t, "like", s, lit("%a_e%"))},
		{call(t, "concat", s, lit("-"), v), call(t, "concat_ws", lit(", "), s, v, n), call(t, "concat_ws", n, s, v)},
		{call(t, "+", x, lit(3)), call(t, "-", x, x), call(t, "*", x, lit(7)), call(t, "/", x, lit(4)), call(t, "div", x, lit(3)), call(t, "%", x, lit(3)), call(t, "+", f, x)},
		{call(t, "and", bo, call(t, ">", x, lit(0))), call(t, "or", bo, call(t, "is_null", x)), call(t, "not", bo), call(t, "in", x, lit(1), lit(2), lit(nil)), call(t, "<=>", s, n)},
		{call(t, "if", bo, s, v), call(t, "ifnull", s, v), call(t, "coalesce", s, n, lit("none")), call(t, "nullif", s, v), call(t, "case", call(t, ">", x, lit(5)), x, call(t, "<", x, lit(-5)), lit(-1))},
		{call(t, "upper", call(t, "concat", s, n)), call(t, "substring", call(t, "upper", s), lit(2), lit(3)), call(t, "length", call(t, "lower", s))},
	}
	for _, outs := range cases {
		checkKernel(t, b, nil, outs)
	}
}

func TestFilterCompactsRows(t *testing.T) {
	b := testBatch(5000, 3)
	filter := call(t, "and", call(t, "=", col(cVis), lit("public")), call(t, ">", col(cA), lit(0)))
	checkKernel(t, b, filter, []expr.Expr{redact(t), col(cA), call(t, "upper", col(cName))})
	// A filter with no string output uses the two-pass path for compaction.
	checkKernel(t, b, call(t, "like", col(cName), lit("%o%")), []expr.Expr{call(t, "*", col(cA), lit(2))})
}
