package fuse

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// errInterpLimit marks the interpreter errors that come from a program's
// size (too many inputs, outputs, string outputs or live values) rather
// than from an operation it lacks: LowerSplit cuts such work into parts.
var errInterpLimit = errors.New("interpreter size limit")

// Split is work the interpreter runs as several programs over one batch:
// a projection or gather too wide for one program (a join's output of 35
// text columns; a SELECT of 40 expressions). Each part reads the input
// columns Cols (in that order, as its program's inputs) and computes some
// of the outputs; the outputs of the parts, concatenated in order, are
// the work's outputs. A filter is evaluated by every part, so each keeps
// the same rows in the same order.
//
// Without the split, such work could only run as generated kernels, and a
// query waited for NVRTC, behind every other query's background compiles
// on a busy host (issue 39: 92% of a 16-process corpus run's query time).
type Split struct {
	Parts []SplitPart
}

// SplitPart is one program of a Split: Cols nil means every input column,
// in order.
type SplitPart struct {
	Program *Program
	Cols    []int
}

// Outputs are the split's output types, in order.
func (s *Split) Outputs() []coldata.Type {
	var out []coldata.Type
	for _, p := range s.Parts {
		out = append(out, p.Program.Outputs...)
	}
	return out
}

// LowerSplit is Lower for work of any width: one program when it fits the
// interpreter's limits, else parts of as many outputs as fit. An
// operation the interpreter lacks is ErrNotFusable, as from Lower.
func (it *Interp) LowerSplit(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr) (*Split, error) {
	p, err := it.Lower(inputs, filter, outputs)
	if err == nil {
		return &Split{Parts: []SplitPart{{Program: p}}}, nil
	}
	if !errors.Is(err, errInterpLimit) || len(outputs) == 0 {
		return nil, err
	}
	var filterCols []int
	if filter != nil {
		filterCols = sortedColumns(filter)
	}
	s := &Split{}
	for _, group := range groupOutputs(filterCols, outputs) {
		if err := it.lowerPart(s, inputs, filter, filterCols, outputs[group[0]:group[1]]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// groupOutputs cuts outputs into consecutive runs [lo,hi) that fit the
// interpreter's counts of outputs, string outputs and inputs read (the
// filter's columns included in every part). A part that still fails on
// live values is halved by lowerPart.
func groupOutputs(filterCols []int, outputs []expr.Expr) [][2]int {
	var groups [][2]int
	lo := 0
	cols := map[int]bool{}
	strs := 0
	reset := func(i int) {
		lo, strs = i, 0
		clear(cols)
		for _, c := range filterCols {
			cols[c] = true
		}
	}
	reset(0)
	for i, e := range outputs {
		isStr := e.Type() == coldata.String || e.Type() == coldata.Null
		added := 0
		for c := range expr.Columns(e) {
			if !cols[c] {
				added++
			}
		}
		full := i-lo >= InterpMaxOutputs || (isStr && strs >= InterpMaxStrings) || len(cols)+added > InterpMaxInputs
		if full && i > lo {
			groups = append(groups, [2]int{lo, i})
			reset(i)
		}
		for c := range expr.Columns(e) {
			cols[c] = true
		}
		if isStr {
			strs++
		}
	}
	return append(groups, [2]int{lo, len(outputs)})
}

// lowerPart lowers outs as one part over the columns they and the filter
// read, halving the outputs while the program is still too large.
func (it *Interp) lowerPart(s *Split, inputs []coldata.Type, filter expr.Expr, filterCols []int, outs []expr.Expr) error {
	seen := map[int]bool{}
	var cols []int
	for _, c := range filterCols {
		seen[c] = true
		cols = append(cols, c)
	}
	for _, e := range outs {
		for _, c := range sortedColumns(e) {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	slices.Sort(cols)
	remap := make(map[int]int, len(cols))
	types := make([]coldata.Type, len(cols))
	for i, c := range cols {
		if c < 0 || c >= len(inputs) {
			return fmt.Errorf("fuse: column %d out of range", c)
		}
		remap[c] = i
		types[i] = inputs[c]
	}
	var f expr.Expr
	if filter != nil {
		f = expr.Remap(filter, remap)
	}
	mapped := make([]expr.Expr, len(outs))
	for i, e := range outs {
		mapped[i] = expr.Remap(e, remap)
	}
	p, err := it.Lower(types, f, mapped)
	if err != nil {
		if errors.Is(err, errInterpLimit) && len(outs) > 1 {
			h := len(outs) / 2
			if err := it.lowerPart(s, inputs, filter, filterCols, outs[:h]); err != nil {
				return err
			}
			return it.lowerPart(s, inputs, filter, filterCols, outs[h:])
		}
		return err
	}
	s.Parts = append(s.Parts, SplitPart{Program: p, Cols: cols})
	return nil
}

// sortedColumns are the input columns e reads, in increasing order.
func sortedColumns(e expr.Expr) []int {
	var cols []int
	for c := range expr.Columns(e) {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	return cols
}
