//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// TestDecimalDeviceMatchesCPU is the differential test of DECIMAL on the
// GPU: every DECIMAL case of the generator over 2^20 rows (values over 64
// bits, at the edges of DECIMAL(12,2), rounding ties, NULLs) and a DECIMAL
// filter, through the fused kernels and through the interpreter.
func TestDecimalDeviceMatchesCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	var bld fusetest.Builder
	cases := bld.DecimalCases()
	d := fusetest.Col(fusetest.DEC)
	filter := bld.Call(">", bld.Call("*", d, fusetest.DecLit("1.5")), fusetest.Lit(20))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	host := fusetest.Batch(1<<20, 7)
	in, err := rt.Dev.Upload(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	check := func(label string, pred expr.Expr, outs []expr.Expr, interp bool) {
		t.Helper()
		want, err := fusetest.Reference(host, pred, outs)
		if err != nil {
			t.Fatal(err)
		}
		got, launches := runComputeTier(t, rt, in, fusetest.Types, pred, outs, true, interp)
		if err := fusetest.Compare(outs, got.Cols, want); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		t.Logf("%s: %d outputs, %d rows, %d launches", label, len(outs), want[0].Len, launches)
	}
	for i, outs := range cases {
		check(fmt.Sprintf("case %d", i), nil, outs, false)
	}
	moved := []expr.Expr{d, fusetest.Col(fusetest.BIG), fusetest.Col(fusetest.Name)}
	check("decimal filter", filter, moved, false)
	if err := rt.Dev.WaitInterpreter(ctx); err != nil {
		t.Fatal(err)
	}
	check("interpreter moves", bld.Call(">", fusetest.Col(fusetest.A), fusetest.Lit(0)), moved, true)
	for i, outs := range cases {
		check(fmt.Sprintf("interpreter case %d", i), nil, outs, true)
	}
	check("interpreter decimal filter", filter, moved, true)
}
