//go:build cuda

package operators_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// TestRegexDeviceMatchesCPU is the differential test of the GPU regex
// engine and the encode/digest functions: every REGEXP and encode case of
// the generator over random names and the multibyte edge batch, through
// the fused kernels and the interpreter, against the CPU.
func TestRegexDeviceMatchesCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	var bld fusetest.Builder
	cases := append(bld.RegexCases(), bld.EncodeCases()...)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	if err := rt.Dev.WaitInterpreter(ctx); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		name string
		host *coldata.Batch
	}{{"names", fusetest.Batch(1<<14, 29)}, {"edge", fusetest.EdgeBatch(1<<12, 31)}} {
		in, err := rt.Dev.Upload(ctx, b.host)
		if err != nil {
			t.Fatal(err)
		}
		for i, outs := range cases {
			want, err := fusetest.Reference(b.host, nil, outs)
			if err != nil {
				t.Fatal(err)
			}
			for _, interp := range []bool{false, true} {
				got, launches := runComputeTier(t, rt, in, fusetest.Types, nil, outs, true, interp)
				if err := fusetest.Compare(outs, got.Cols, want); err != nil {
					t.Fatalf("%s case %d interp=%v: %v", b.name, i, interp, err)
				}
				if i == 0 {
					t.Logf("%s case %d interp=%v: %d outputs, %d launches", b.name, i, interp, len(outs), launches)
				}
			}
		}
		// A filter on a REGEXP match compacts the rows.
		pred := bld.Call("regexp_like", fusetest.Col(fusetest.Name), fusetest.Lit(`^[A-Z]\w+ \w`))
		outs := []expr.Expr{fusetest.Col(fusetest.Name), fusetest.Col(fusetest.A)}
		want, err := fusetest.Reference(b.host, pred, outs)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := runComputeTier(t, rt, in, fusetest.Types, pred, outs, true, false)
		if err := fusetest.Compare(outs, got.Cols, want); err != nil {
			t.Fatalf("%s filter: %v", b.name, err)
		}
		in.Release()
		fmt.Printf("%s: %d cases match\n", b.name, len(cases))
	}
}
