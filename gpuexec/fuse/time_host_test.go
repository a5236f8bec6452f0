package fuse_test

import (
	"errors"
	"testing"

	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// TestTimeErrorsGoToCPU: a period whose month is 0 or past 12 is an error
// in MySQL 8, and a composite INTERVAL unit must be one the CPU knows; the
// fused kernels and the interpreter send such batches back to the CPU
// (the fallback code), which reports the error, and never answer.
func TestTimeErrorsGoToCPU(t *testing.T) {
	var bld fusetest.Builder
	x, ts, ds := fusetest.Col(fusetest.A), fusetest.Col(fusetest.TS), fusetest.Col(fusetest.DS)
	periodAdd := bld.Call("period_add", bld.Call("+", x, fusetest.Lit(202400)), fusetest.Lit(1))
	periodDiff := bld.Call("period_diff", fusetest.Lit(202401), bld.Call("*", x, fusetest.Lit(7)))
	// The binder writes units in lower case; another spelling is the
	// CPU's error.
	badUnit := bld.Call("date_add_interval", ts, ds, fusetest.Lit("Day_Hour"))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(300, 7)
	for _, out := range []expr.Expr{periodAdd, periodDiff, badUnit} {
		outs := []expr.Expr{out}
		if _, err := fusetest.Reference(b, nil, outs); err == nil {
			t.Fatalf("%v: the CPU gives no error", out)
		}
		k, err := fuse.Generate(fusetest.Types, nil, outs)
		switch {
		case out == badUnit:
			// A literal unit is resolved when the kernel is generated.
			if !errors.Is(err, fuse.ErrNotFusable) {
				t.Fatalf("%v: generate: %v, want ErrNotFusable", out, err)
			}
		case err != nil:
			t.Fatalf("%v: generate: %v", out, err)
		default:
			if _, code := runHost(t, k, b); code != codeFallback {
				t.Fatalf("%v: fused kernel error code %d, want %d", out, code, codeFallback)
			}
		}
		p, err := fuse.Interpreter().Lower(fusetest.Types, nil, outs)
		if err != nil {
			t.Fatalf("%v: lower: %v", out, err)
		}
		if _, code := runInterpHost(t, p, b); code != codeFallback {
			t.Fatalf("%v: interpreter error code %d, want %d", out, code, codeFallback)
		}
	}
}

// TestConvertTZSystemWithDSTGoesToCPU: CONVERT_TZ reads SYSTEM as the
// binder's fixed offset; a system zone with daylight saving time
// (datetime.TZSystemVaries) has no one offset, so the fused kernels and
// the interpreter send the batch to the CPU, which reads the host's
// rules. Other zones stay on the device.
func TestConvertTZSystemWithDSTGoesToCPU(t *testing.T) {
	var bld fusetest.Builder
	ts := fusetest.Col(fusetest.TS)
	varies := fusetest.Lit(0)
	varies.(*expr.Literal).Value = int64(datetime.TZSystemVaries)
	system := bld.Call("convert_tz", ts, fusetest.Lit("System"), fusetest.Lit("+01:00"), varies)
	offsets := bld.Call("convert_tz", ts, fusetest.Lit("+02:00"), fusetest.Lit("-01:00"), varies)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(300, 7)
	for _, c := range []struct {
		out  expr.Expr
		code int32
	}{{system, codeFallback}, {offsets, 0}} {
		outs := []expr.Expr{c.out}
		k, err := fuse.Generate(fusetest.Types, nil, outs)
		if err != nil {
			t.Fatalf("%v: generate: %v", c.out, err)
		}
		if _, code := runHost(t, k, b); code != c.code {
			t.Fatalf("%v: fused kernel error code %d, want %d", c.out, code, c.code)
		}
		p, err := fuse.Interpreter().Lower(fusetest.Types, nil, outs)
		if err != nil {
			t.Fatalf("%v: lower: %v", c.out, err)
		}
		if _, code := runInterpHost(t, p, b); code != c.code {
			t.Fatalf("%v: interpreter error code %d, want %d", c.out, code, c.code)
		}
	}
}
