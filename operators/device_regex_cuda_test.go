//go:build cuda

package operators_test

import (
	"context"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// TestDeviceRegexMatchesCPU runs the REGEXP and encoding cases (issue 18)
// on the device, fused and interpreted, over names and UTF-8 edge cases,
// against the CPU kernels.
func TestDeviceRegexMatchesCPU(t *testing.T) {
	rt := openRuntime(t, false)
	ctx := context.Background()
	if err := rt.Dev.WaitInterpreter(ctx); err != nil {
		t.Fatal(err)
	}
	var bld fusetest.Builder
	cases := append(append(bld.RegexCases(), bld.EncodeCases()...), bld.EncodeNestedCases()...)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, b := range []struct {
		name string
		host *coldata.Batch
	}{{"names", fusetest.Batch(1<<14, 61)}, {"edges", fusetest.EdgeBatch(1<<12, 62)}} {
		in, err := rt.Dev.Upload(ctx, b.host)
		if err != nil {
			t.Fatal(err)
		}
		for i, outs := range cases {
			want, werr := fusetest.Reference(b.host, nil, outs)
			if werr != nil {
				t.Fatal(werr)
			}
			for _, interp := range []bool{false, true} {
				got, _ := runComputeTier(t, rt, in, fusetest.Types, nil, outs, true, interp)
				if err := fusetest.Compare(outs, got.Cols, want); err != nil {
					t.Fatalf("%s case %d (interpreter %v): %v", b.name, i, interp, err)
				}
			}
		}
		in.Release()
	}
}
