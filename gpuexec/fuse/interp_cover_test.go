package fuse_test

import (
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// TestInterpreterTakesGeneratorCases: every expression of the fused
// generator's test cases that Generate accepts, alone and in its output
// list, the interpreter lowers too (LowerSplit, as the operators call it),
// so tier 0 serves whatever tier 1 compiles and no cold query waits for
// NVRTC (issue 39 item 3).
func TestInterpreterTakesGeneratorCases(t *testing.T) {
	var bld fusetest.Builder
	lists := map[string][][]expr.Expr{
		"cases": bld.Cases(), "dates": bld.DateCases(), "fsp": bld.FspCases(), "decimal": bld.DecimalCases(),
		"scan": bld.ScanCases(), "long": {bld.LongCases()}, "time": {bld.TimeCases()}, "timeformat": {bld.TimeFormatCases()},
		"tz": {bld.TZCases()}, "interval": {bld.IntervalCases()}, "trailing": {bld.TrailingTextCases()},
	}
	filters := bld.Filters()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	it := fuse.Interpreter()
	check := func(name string, filter expr.Expr, outs []expr.Expr) {
		if _, err := fuse.Generate(fusetest.Types, filter, outs); err != nil {
			return
		}
		if _, err := it.LowerSplit(fusetest.Types, filter, outs); err != nil {
			t.Errorf("%s: fused but not interpreted: %v", name, err)
		}
	}
	n := 0
	for name, cases := range lists {
		for i, outs := range cases {
			check(fmt.Sprintf("%s %d", name, i), nil, outs)
			for j, e := range outs {
				check(fmt.Sprintf("%s %d.%d %s", name, i, j, e), nil, []expr.Expr{e})
				n++
			}
		}
	}
	for i, f := range filters {
		check(fmt.Sprintf("filter %d", i), f, []expr.Expr{fusetest.Col(fusetest.Name)})
	}
	if n < 300 {
		t.Fatalf("only %d expressions", n)
	}
}
