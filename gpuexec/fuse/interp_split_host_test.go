package fuse_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// wideBatch repeats the test table's columns copies times side by side.
func wideBatch(b *coldata.Batch, copies int) (*coldata.Batch, []coldata.Type) {
	out := &coldata.Batch{Len: b.Len}
	var types []coldata.Type
	for k := 0; k < copies; k++ {
		out.Cols = append(out.Cols, b.Cols...)
		types = append(types, fusetest.Types...)
	}
	return out, types
}

func wideCol(types []coldata.Type, i int) expr.Expr {
	return &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: types[i]}
}

// Work wider than one program (a join's 40 text columns, 88 inputs, a
// filter) lowers to parts within the interpreter's limits whose outputs,
// side by side, equal the CPU's.
func TestLowerSplitMatchesCPU(t *testing.T) {
	n := len(fusetest.Types)
	b, types := wideBatch(fusetest.Batch(700, 41), 8)
	var bld fusetest.Builder
	var outs []expr.Expr
	for k := 0; k < 8; k++ {
		base := k * n
		outs = append(outs,
			wideCol(types, base+fusetest.Name),
			wideCol(types, base+fusetest.S),
			bld.Call("upper", wideCol(types, base+fusetest.Vis)),
			wideCol(types, base+fusetest.DS),
			bld.Call("+", wideCol(types, base+fusetest.A), fusetest.Lit(k)),
			wideCol(types, base+fusetest.D),
			wideCol(types, base+fusetest.DEC),
		)
	}
	filter := bld.Call(">", wideCol(types, 3*n+fusetest.A), fusetest.Lit(-50))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	it := fuse.Interpreter()
	if _, err := it.Lower(types, filter, outs); err == nil {
		t.Fatal("the whole work fits one program: the test shows nothing")
	}
	for _, f := range []expr.Expr{nil, filter} {
		s, err := it.LowerSplit(types, f, outs)
		if err != nil {
			t.Fatalf("split: %v", err)
		}
		if len(s.Parts) < 2 {
			t.Fatalf("%d parts for %d outputs, 32 strings", len(s.Parts), len(outs))
		}
		var got []*coldata.Vec
		for i, part := range s.Parts {
			p := part.Program
			if len(p.Inputs) > fuse.InterpMaxInputs || len(p.Outputs) > fuse.InterpMaxOutputs || p.StringOutputs > fuse.InterpMaxStrings {
				t.Fatalf("part %d: %d inputs, %d outputs, %d strings", i, len(p.Inputs), len(p.Outputs), p.StringOutputs)
			}
			sub := &coldata.Batch{Len: b.Len}
			for _, c := range part.Cols {
				sub.Cols = append(sub.Cols, b.Cols[c])
			}
			vecs, code := runInterpHost(t, p, sub)
			if code != 0 {
				t.Fatalf("part %d: interpreter error %d", i, code)
			}
			got = append(got, vecs...)
		}
		if len(got) != len(outs) || len(s.Outputs()) != len(outs) {
			t.Fatalf("%d outputs from the parts, want %d", len(got), len(outs))
		}
		want, err := fusetest.Reference(b, f, outs)
		if err != nil {
			t.Fatal(err)
		}
		if err := fusetest.Compare(outs, got, want); err != nil {
			t.Fatal(err)
		}
	}
}

// Work that fits stays one program over every input; an operation the
// interpreter lacks is not split but refused, as by Lower.
func TestLowerSplitKeepsSmallWorkWhole(t *testing.T) {
	it := fuse.Interpreter()
	s, err := it.LowerSplit(fusetest.Types, nil, []expr.Expr{fusetest.Col(fusetest.A), fusetest.Col(fusetest.Name)})
	if err != nil || len(s.Parts) != 1 || s.Parts[0].Cols != nil {
		t.Fatalf("small work: %+v, %v", s, err)
	}
	var bld fusetest.Builder
	x := fusetest.Col(fusetest.A)
	var arms []expr.Expr
	for i := 0; i < 40; i++ {
		arms = append(arms, bld.Call(">", x, fusetest.Lit(i-20)), bld.Call("+", x, fusetest.Lit(100+i)))
	}
	wide := bld.Call("case", arms...) // one output too large on its own
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	if _, err := it.LowerSplit(fusetest.Types, nil, []expr.Expr{wide}); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("one output past the live-value limit: %v", err)
	}
	if _, err := it.LowerSplit(fusetest.Types, nil, []expr.Expr{x, wide}); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("a part past the live-value limit after halving: %v", err)
	}
}

// A gather of 120 columns (a 40-table join's output) is more than one
// kernel's parameters; its groups cover the columns in order, and each
// generates and fits one interpreter program.
func TestGatherGroupsFitOneKernelEach(t *testing.T) {
	var types []coldata.Type
	for k := 0; k < 40; k++ {
		types = append(types, coldata.Int64, coldata.Int64, coldata.String)
	}
	if _, err := fuse.GenerateGather(types); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("a gather of 120 columns generated whole (%v): the test shows nothing", err)
	}
	groups := fuse.GatherGroups(types)
	next := 0
	for _, g := range groups {
		if g[0] != next || g[1] <= g[0] {
			t.Fatalf("groups %v do not cover the columns in order", groups)
		}
		next = g[1]
		if _, err := fuse.GenerateGather(types[g[0]:g[1]]); err != nil {
			t.Errorf("group %v: %v", g, err)
		}
		if _, err := fuse.Interpreter().Lower(types[g[0]:g[1]], nil, fuse.GatherOutputs(types[g[0]:g[1]])); err != nil {
			t.Errorf("group %v on the interpreter: %v", g, err)
		}
	}
	if next != len(types) {
		t.Fatalf("groups %v end at %d of %d", groups, next, len(types))
	}
	if g := fuse.GatherGroups(types[:9]); len(g) != 1 || g[0] != [2]int{0, 9} {
		t.Fatalf("a narrow gather: %v", g)
	}
}
