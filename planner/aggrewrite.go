package planner

import (
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// Rewriting an aggregate's output. Some rules (dependent_group_keys,
// sum_plus_const) replace an Aggregate with a cheaper one whose output
// columns differ, and rebuild the old columns with expressions over the
// new ones: a Project over the new Aggregate. That Project then moves up
// through the HAVING filter and window functions above it and merges into
// the select list's Project, so the plan is the one binding would have
// made had it grouped that way to begin with:
//
//	Project a, (sum(x + 1)) AS s                 Project a, (sum(x) + (1 * count(x))) AS s
//	  Filter (sum(x + 1) > 5)                      Filter ((sum(x) + (1 * count(x))) > 5)
//	    HashAggregate keys: a aggs: sum(x + 1) =>    HashAggregate keys: a aggs: sum(x), count(x)
//
// Where it meets anything else (a Sort, a join) the Project stays where
// it is: the rows are the same either way.

// aggRewrite returns the new aggregate and, for each column of a's
// output, its expression over the new aggregate's output; nil when a is
// left as it is.
type aggRewrite func(a *Aggregate) (*Aggregate, []expr.Expr, error)

// rewriteAggregates applies f to every Aggregate of n.
func rewriteAggregates(n Node, f aggRewrite) (Node, error) {
	r := &aggRewriter{f: f, lifted: map[*Project]bool{}}
	return r.walk(n)
}

type aggRewriter struct {
	f aggRewrite
	// lifted are the Projects this rewrite made, which may move up and
	// merge.
	lifted map[*Project]bool
}

func (r *aggRewriter) walk(n Node) (Node, error) {
	n, err := mapInputs(n, r.walk)
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *Aggregate:
		na, defs, err := r.f(x)
		if err != nil || na == nil {
			return x, err
		}
		p := &Project{placed: x.placed, Input: na, Exprs: defs, Out: x.Columns()}
		r.lifted[p] = true
		return p, nil
	case *Project:
		if in, ok := x.Input.(*Project); ok && r.lifted[in] {
			return &Project{placed: x.placed, Input: in.Input, Exprs: substituteAll(x.Exprs, in.Exprs), Out: x.Out}, nil
		}
	case *Filter:
		if in, ok := x.Input.(*Project); ok && r.lifted[in] {
			f := &Filter{placed: x.placed, Input: in.Input, Pred: substitute(x.Pred, in.Exprs)}
			p := &Project{placed: in.placed, Input: f, Exprs: in.Exprs, Out: in.Out}
			r.lifted[p] = true
			return p, nil
		}
	case *Window:
		if in, ok := x.Input.(*Project); ok && r.lifted[in] {
			return r.liftOverWindow(x, in), nil
		}
	}
	return n, nil
}

// liftOverWindow moves the lifted Project p from below window w to above
// it: the functions read p's expressions instead of its columns, and the
// Project passes their results through.
func (r *aggRewriter) liftOverWindow(w *Window, p *Project) Node {
	c := *w
	c.Input = p.Input
	c.Funcs = make([]winspec.Func, len(w.Funcs))
	for i, f := range w.Funcs {
		f.Args = substituteAll(f.Args, p.Exprs)
		f.Partition = substituteAll(f.Partition, p.Exprs)
		order := make([]winspec.Key, len(f.Order))
		for k, o := range f.Order {
			o.Expr = substitute(o.Expr, p.Exprs)
			order[k] = o
		}
		f.Order = order
		c.Funcs[i] = f
	}
	nin := len(p.Input.Columns())
	out := &Project{placed: p.placed, Input: &c, Exprs: append([]expr.Expr(nil), p.Exprs...), Out: append([]Column(nil), p.Out...)}
	for i, col := range c.Columns()[nin:] {
		out.Exprs = append(out.Exprs, &expr.ColumnRef{Index: nin + i, Name: col.Name, T: col.Type})
		out.Out = append(out.Out, col)
	}
	r.lifted[out] = true
	return out
}

// substitute replaces each column reference i of e with defs[i]. A
// definition that is itself a column keeps the reference's own name.
func substitute(e expr.Expr, defs []expr.Expr) expr.Expr {
	switch x := e.(type) {
	case *expr.ColumnRef:
		if d, ok := defs[x.Index].(*expr.ColumnRef); ok {
			c := *x
			c.Index = d.Index
			return &c
		}
		return defs[x.Index]
	case *expr.Call:
		c := *x
		c.Args = substituteAll(x.Args, defs)
		return &c
	}
	return e
}

func substituteAll(es []expr.Expr, defs []expr.Expr) []expr.Expr {
	if es == nil {
		return nil
	}
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = substitute(e, defs)
	}
	return out
}
