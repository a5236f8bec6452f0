package fuse_test

import (
	"errors"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// Runtime error codes of rt/numbers_convert.cuh.
const (
	codeFallback = 4
	codeDecimal  = 5
)

func TestDecimalKernelsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.DecimalCases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(3000, 11)
	for _, c := range cases {
		checkKernel(t, b, nil, c)
	}
	// A decimal filter compacting decimal outputs.
	d := fusetest.Col(fusetest.DEC)
	filter := bld.Call(">", bld.Call("*", d, fusetest.DecLit("1.5")), fusetest.Lit(20))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	checkKernel(t, b, filter, []expr.Expr{d, fusetest.Col(fusetest.BIG), fusetest.Col(fusetest.Name)})
}

// decBatch is a one-column DECIMAL batch.
func decBatch(t coldata.Type, vals ...string) *coldata.Batch {
	b := coldata.NewBuilder(t, len(vals))
	for _, v := range vals {
		x, ok := decimal.Parse(v, t.Scale())
		if !ok {
			panic(v)
		}
		b.AppendDec(x)
	}
	return &coldata.Batch{Cols: []*coldata.Vec{b.Finish()}, Len: len(vals)}
}

func TestDecimalOverflowAndFallbackCodes(t *testing.T) {
	big := coldata.DecimalOf(38, 0)
	col := &expr.ColumnRef{Index: 0, Name: "x", T: big}
	var bld fusetest.Builder
	cases := []struct {
		name  string
		typ   coldata.Type
		vals  []string
		out   expr.Expr
		code  int32
		cpuOK bool
	}{
		// 10^37 * 10 has 39 digits: the CPU raises an error; the kernel
		// reports it for the host to re-run the batch there.
		{"mul", big, []string{"1", "10000000000000000000000000000000000000"}, bld.Call("*", col, fusetest.Lit(10)), codeDecimal, false},
		{"add", big, []string{"99999999999999999999999999999999999999"}, bld.Call("+", col, col), codeDecimal, false},
		{"narrow", big, []string{"12", "123456"}, bld.Cast(col, coldata.DecimalOf(4, 1)), codeDecimal, false},
		{"bigint", big, []string{"9223372036854775808"}, bld.Call("cast_to_bigint", col), codeDecimal, false},
		// An exact DIV whose quotient leaves BIGINT; one that just fits.
		{"div", big, []string{"18446744073709551616"}, bld.Call("div", col, fusetest.Lit(2)), codeDecimal, false},
		{"div fits", big, []string{"18446744073709551615"}, bld.Call("div", col, fusetest.Lit(2)), 0, false},
		// Exact text the device does not parse (an exponent), and a
		// DOUBLE at a rounding tie: the CPU decides.
		{"exponent", big, []string{"1"}, bld.Cast(fusetest.Lit("1e3"), coldata.DecimalOf(6, 1)), codeFallback, true},
		{"tie", big, []string{"1"}, bld.Cast(fusetest.Lit(0.125), coldata.DecimalOf(4, 2)), codeFallback, true},
		{"ok", big, []string{"-99999999999999999999999999999999999998", "5"}, bld.Call("-", col, fusetest.Lit(1)), 0, false},
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := decBatch(c.typ, c.vals...)
			k, err := fuse.Generate([]coldata.Type{c.typ}, nil, []expr.Expr{c.out})
			if err != nil {
				t.Fatal(err)
			}
			_, code := runHost(t, k, b)
			if code != c.code {
				t.Fatalf("error code %d, want %d", code, c.code)
			}
			_, cerr := fusetest.Reference(b, nil, []expr.Expr{c.out})
			switch {
			case c.code == codeDecimal && cerr == nil:
				t.Fatal("the CPU accepts what the kernel reports as out of range")
			case c.code == codeDecimal && !errors.Is(cerr, expr.ErrDecimalRange) && !errors.Is(cerr, expr.ErrOutOfRange):
				t.Fatalf("CPU error %v, want an out-of-range error", cerr)
			case (c.code != codeDecimal) && cerr != nil:
				t.Fatalf("CPU error %v", cerr)
			}
		})
	}
}

func TestDecimalLiteralsShareKernels(t *testing.T) {
	var bld fusetest.Builder
	d := fusetest.Col(fusetest.DEC)
	a := bld.Call("*", d, fusetest.DecLit("0.05"))
	b := bld.Call("*", d, fusetest.DecLit("0.07"))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	ka, err := fuse.Generate(fusetest.Types, nil, []expr.Expr{a})
	if err != nil {
		t.Fatal(err)
	}
	kb, err := fuse.Generate(fusetest.Types, nil, []expr.Expr{b})
	if err != nil {
		t.Fatal(err)
	}
	if ka.Key != kb.Key {
		t.Fatal("kernels differing in a DECIMAL literal's value have different sources")
	}
	if ka.Params[0] != int64(5) || kb.Params[0] != int64(7) {
		t.Fatalf("params %v / %v, want the literal's low word first", ka.Params, kb.Params)
	}
}

// The interpreter moves DECIMAL columns (filters and gathers beside
// them) though it computes nothing over them.
func TestInterpreterMovesDecimals(t *testing.T) {
	var bld fusetest.Builder
	filter := bld.Call(">", fusetest.Col(fusetest.A), fusetest.Lit(0))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	outs := []expr.Expr{fusetest.Col(fusetest.DEC), fusetest.Col(fusetest.BIG), fusetest.Col(fusetest.Name), &expr.Literal{T: fusetest.DecType}}
	checkInterp(t, fusetest.Batch(3000, 13), filter, outs)
}

// The interpreter computes DECIMAL too: one operation per function serves
// every precision and scale, read from the instruction.
func TestInterpreterDecimalsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.DecimalCases()
	d := fusetest.Col(fusetest.DEC)
	filter := bld.Call(">", bld.Call("*", d, fusetest.DecLit("1.5")), fusetest.Lit(20))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(3000, 19)
	for _, c := range cases {
		checkInterp(t, b, nil, c)
	}
	checkInterp(t, b, filter, []expr.Expr{d, fusetest.Col(fusetest.BIG)})
}

// A long IN list of integer literals is one sorted parameter array: the
// kernel's parameters do not grow with the list, and lists of other
// lengths share its source.
func TestLongInListMatchesCPU(t *testing.T) {
	var bld fusetest.Builder
	x := fusetest.Col(fusetest.A)
	list := func(n int, withNull bool) expr.Expr {
		args := []expr.Expr{x}
		for i := 0; i < n; i++ {
			args = append(args, fusetest.Lit((i*7)%41-20))
		}
		if withNull {
			args = append(args, fusetest.Lit(nil))
		}
		return bld.Call("in", args...)
	}
	outs := []expr.Expr{list(20, false), list(30, true), bld.Call("not", list(2000, false))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	k := checkKernel(t, fusetest.Batch(3000, 17), nil, outs)
	if len(k.Fields) > 40 {
		t.Fatalf("%d kernel parameters for three IN lists", len(k.Fields))
	}
	other, err := fuse.Generate(fusetest.Types, nil, []expr.Expr{list(25, false), list(31, true), bld.Call("not", list(999, false))})
	if err != nil {
		t.Fatal(err)
	}
	if other.Key != k.Key {
		t.Fatal("IN lists of other lengths compile another kernel")
	}
}
