package expr

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// Program evaluates a list of expressions over batches as one unit, for
// operators that evaluate the same list over every batch (a projection, a
// filter). Two things make it cheaper than one Eval per expression:
//
//   - a sub-expression that occurs more than once is computed once per
//     batch (TPC-H Q1 sums l_extendedprice*(1-l_discount) and, inside its
//     charge, multiplies it by (1+l_tax));
//   - a lower and an upper bound on one expression ANDed together
//     (x >= lo AND x < hi, BETWEEN) are tested in one pass (rangecmp.go);
//   - the data buffer of an intermediate result goes back to coldata's
//     pool (coldata.Recycle) once the last call that reads it has run, so
//     the next call (or batch) writes into memory already mapped instead
//     of a fresh vector.
//
// A Program is immutable once built: goroutines may share one.
type Program struct {
	nodes []progNode
	outs  []int // the node of each expression
}

type progNode struct {
	e    Expr
	call *Call // a call evaluated from its argument nodes; nil: Eval(e)
	args []int
	// last is the index of the last node that reads this one; -1 when no
	// node does. An output node is never recycled.
	last int
	out  bool
}

// NewProgram compiles exprs. Sub-expressions compare by Key; a call of a
// volatile function (or anything over one) and a TRY (which evaluates its
// argument itself) are never shared.
func NewProgram(exprs []Expr) *Program {
	p := &Program{outs: make([]int, len(exprs))}
	memo := map[string]int{}
	for i, e := range exprs {
		p.outs[i], _ = p.add(fuseRanges(e), memo)
	}
	for i := range p.nodes {
		p.nodes[i].last = -1
	}
	for i, nd := range p.nodes {
		for _, a := range nd.args {
			p.nodes[a].last = i
		}
	}
	for _, o := range p.outs {
		p.nodes[o].out = true
	}
	return p
}

// add appends the nodes of e (after those of its arguments) and returns
// e's node and whether e may be shared.
func (p *Program) add(e Expr, memo map[string]int) (int, bool) {
	shareable := true
	nd := progNode{e: e}
	if c, ok := e.(*Call); ok && c.Fn.Name != TryName {
		nd.call = c
		nd.args = make([]int, len(c.Args))
		for i, a := range c.Args {
			var ok bool
			nd.args[i], ok = p.add(a, memo)
			shareable = shareable && ok
		}
		shareable = shareable && !c.Fn.Volatile
	} else if ok {
		shareable = false // TRY: evaluated whole, by Eval
	}
	var key string
	if shareable {
		key = Key(e)
		if c, ok := e.(*Call); ok && c.Once != 0 {
			// Each comparison warns for its own constant, as MySQL does.
			key += fmt.Sprintf("#%d", c.Once)
		}
		if i, ok := memo[key]; ok {
			return i, true
		}
	}
	p.nodes = append(p.nodes, nd)
	i := len(p.nodes) - 1
	if shareable {
		memo[key] = i
	}
	return i, shareable
}

// Eval evaluates the program's expressions over b, one vector of b.Len
// rows each (several expressions with one key share one vector).
func (p *Program) Eval(b *coldata.Batch) ([]*coldata.Vec, error) { return p.EvalWarn(b, nil) }

// EvalWarn is Eval adding the warnings MySQL would give to w (nil: none).
func (p *Program) EvalWarn(b *coldata.Batch, w *Warnings) ([]*coldata.Vec, error) {
	vals := make([]*coldata.Vec, len(p.nodes))
	var args []*coldata.Vec
	var dead []*coldata.Vec
	for i := range p.nodes {
		nd := &p.nodes[i]
		if nd.call == nil {
			v, err := EvalWarn(nd.e, b, w)
			if err != nil {
				return nil, err
			}
			vals[i] = v
			continue
		}
		args = args[:0]
		for _, a := range nd.args {
			args = append(args, vals[a])
		}
		var err error
		if c := nd.call; c.Once != 0 && w != nil && b.Len > 0 && AllConst(args) {
			vals[i], err = evalOnce(c, args, b.Len, w)
		} else {
			out, cerr := evalCall(c.Fn, args, b.Len, w)
			vals[i], err = callResult(c, out, cerr, b.Len)
		}
		if err != nil {
			return nil, err
		}
		// Recycle the results only this call read (of calls: column
		// data and literals are not ours, and a volatile function, defined
		// outside this package, may keep what it returns).
		dead = dead[:0]
		for k, a := range nd.args {
			an := &p.nodes[a]
			if an.last != i || an.out || an.call == nil || an.call.Fn.Volatile || vals[a] == nil || seenBefore(nd.args[:k], a) {
				continue
			}
			if coldata.Recyclable(vals[a]) {
				dead = append(dead, vals[a])
			}
		}
		if len(dead) > 0 {
			p.recycle(b, vals, i, dead)
		}
		for _, a := range nd.args {
			if p.nodes[a].last == i && !p.nodes[a].out {
				vals[a] = nil
			}
		}
	}
	out := make([]*coldata.Vec, len(p.outs))
	for i, o := range p.outs {
		out[i] = vals[o]
	}
	return out, nil
}

// Owned reports whether expression i's results are the program's own to
// recycle once dead: they come from a call of a function that is not
// volatile (columns are the input's, and a volatile function may keep
// what it returns). Such a result may still share an input column's data
// (coldata.RecycleUnshared checks).
func (p *Program) Owned(i int) bool {
	c := p.nodes[p.outs[i]].call
	return c != nil && !c.Fn.Volatile
}

func seenBefore(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// recycle gives back the buffers of dead that no vector still alive
// after node i shares: b's columns and every computed node not read for
// the last time by node i.
func (p *Program) recycle(b *coldata.Batch, vals []*coldata.Vec, i int, dead []*coldata.Vec) {
	live := append([]*coldata.Vec(nil), b.Cols...)
	for j := 0; j <= i; j++ {
		if vals[j] == nil {
			continue
		}
		if p.nodes[j].last == i && !p.nodes[j].out && j != i {
			continue // read last by node i: dead with it
		}
		live = append(live, vals[j])
	}
	coldata.RecycleUnshared(dead, live)
}

// callResult checks the vector a call's kernel returned (or wraps its
// error) as Eval does.
func callResult(x *Call, out *coldata.Vec, err error, n int) (*coldata.Vec, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.Fn.Name, err)
	}
	if out.Type != x.T && out.Type != coldata.Null {
		return nil, fmt.Errorf("internal error: %s returned %s, bound as %s", x.Fn.Name, out.Type, x.T)
	}
	if out.Type == coldata.Null && x.T != coldata.Null {
		out = coldata.NewConst(x.T, nil, n)
	}
	return out, nil
}
