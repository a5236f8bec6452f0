package planner

import (
	"context"
	"fmt"
	"sync"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// Subqueries. An uncorrelated subquery runs once, at plan time, and becomes
// literals. A correlated one (it reads columns of the enclosing query) is
// planned once with each outer column replaced by a parameter, and runs per
// distinct combination of outer values, results cached: the per-row
// fallback, correct for every form.

// correlation collects the outer columns a subquery reads.
type correlation struct {
	outer *scope
	refs  []*expr.ColumnRef // in the outer scope
	slots []*outerSlot
	fns   []*expr.Function // the functions reading the slots
	// deep are columns from further out than outer (a subquery inside a
	// subquery reading the outermost query): each is the enclosing
	// subquery's own expression for the column (the slot it reads), which
	// the enclosing query evaluates like a ref and passes in; deepSlots
	// and deepFns are their slots and functions, deepKeys their names.
	// Subqueries with deep columns run per row: the decorrelating
	// rewrites, which replace slots with joined columns, leave them alone.
	deep      []expr.Expr
	deepSlots []*outerSlot
	deepFns   []*expr.Function
	deepKeys  []string
}

// width is the number of outer values a correlated evaluation receives:
// the refs, then the deep columns.
func (c *correlation) width() int { return len(c.refs) + len(c.deep) }

// set loads one evaluation's outer values (refs first, then the deep
// columns) into the slots.
func (c *correlation) set(outer []*coldata.Vec, i int) {
	for k, slot := range c.slots {
		slot.val = outer[k].Value(i)
	}
	for k, slot := range c.deepSlots {
		slot.val = outer[len(c.slots)+k].Value(i)
	}
}

// deepRef binds a column from further out than the correlation's outer
// scope: src is the enclosing subquery's expression for it.
func (c *correlation) deepRef(name string, src expr.Expr) expr.Expr {
	for k, key := range c.deepKeys {
		if key == name {
			return &expr.Call{Fn: c.deepFns[k], T: src.Type()}
		}
	}
	slot := &outerSlot{t: src.Type()}
	fn := &expr.Function{Name: "outer." + name, MaxArgs: 0, Volatile: true,
		Check: func([]coldata.Type) (coldata.Type, []coldata.Type, error) { return slot.t, nil, nil },
		Eval: func(_ []*coldata.Vec, n int) (*coldata.Vec, error) {
			return coldata.NewConst(slot.t, slot.val, n), nil
		}}
	c.deep = append(c.deep, src)
	c.deepSlots = append(c.deepSlots, slot)
	c.deepFns = append(c.deepFns, fn)
	c.deepKeys = append(c.deepKeys, name)
	return &expr.Call{Fn: fn, T: src.Type()}
}

// outerSlot holds the current value of one outer column while the
// subquery runs.
type outerSlot struct {
	mu  *sync.Mutex
	val any
	t   coldata.Type
}

// outerRef binds a column of the enclosing query inside a subquery.
func (b *binder) outerRef(x *sqlparser.ColName) (expr.Expr, bool, error) {
	if b.corr == nil {
		for _, o := range b.outer {
			if _, err := o.resolve(x.Qualifier.Name.String(), x.Name.String()); err == nil {
				return nil, true, notYet("subqueries referring to columns two levels out (" + sqlparser.String(x) + ")")
			}
		}
		return nil, false, nil
	}
	ref, err := b.corr.outer.resolve(x.Qualifier.Name.String(), x.Name.String())
	if err != nil {
		// Further out: the enclosing subquery binds the column as its own
		// outer column, and its value reaches this subquery as an
		// argument of each evaluation.
		if b.parent != nil {
			src, ok, err := b.parent.outerRef(x)
			if err != nil || !ok {
				return nil, ok, err
			}
			return b.corr.deepRef(sqlparser.String(x), src), true, nil
		}
		for _, o := range b.outer[:max(len(b.outer)-1, 0)] {
			if _, err := o.resolve(x.Qualifier.Name.String(), x.Name.String()); err == nil {
				return nil, true, notYet("subqueries referring to columns two levels out (" + sqlparser.String(x) + ")")
			}
		}
		return nil, false, nil
	}
	k := -1
	for i, r := range b.corr.refs {
		if r.Index == ref.Index {
			k = i
		}
	}
	if k < 0 {
		k = len(b.corr.refs)
		b.corr.refs = append(b.corr.refs, ref)
		slot := &outerSlot{t: ref.T}
		b.corr.slots = append(b.corr.slots, slot)
		b.corr.fns = append(b.corr.fns, &expr.Function{Name: "outer." + ref.Name, MaxArgs: 0, Volatile: true,
			Check: func([]coldata.Type) (coldata.Type, []coldata.Type, error) { return slot.t, nil, nil },
			Eval: func(_ []*coldata.Vec, n int) (*coldata.Vec, error) {
				return coldata.NewConst(slot.t, slot.val, n), nil
			}})
	}
	return &expr.Call{Fn: b.corr.fns[k], T: ref.T}, true, nil
}

// subquery is a planned subquery: run once (corr nil) or per outer row.
type subquery struct {
	plan Node
	cols []Column
	corr *correlation
	// exec runs plan (the binder's RunFunc).
	exec RunFunc
}

func (b *binder) planSubquery(q *sqlparser.Subquery, sc *scope) (*subquery, error) {
	sub, corr := b.subBinder(sc)
	n, err := sub.planSelectStatement(q.Select)
	if err != nil {
		return nil, err
	}
	b.usedArgs = max(b.usedArgs, sub.usedArgs)
	if n, err = optimize(n, b.rules); err != nil {
		return nil, err
	}
	sq := &subquery{plan: n, cols: n.Columns(), exec: b.run}
	if corr.width() > 0 {
		sq.corr = corr
	} else if b.runOnce != nil {
		sq.exec = b.runOnce
	}
	return sq, nil
}

// run executes the subquery (with the outer slots already set).
func (sq *subquery) run(ctx context.Context) ([]*coldata.Batch, error) {
	if sq.exec == nil {
		return nil, fmt.Errorf("planner: a subquery needs Planner.Run to execute")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return sq.exec(ctx, sq.plan)
}

// subqueryKind says what a subquery's result becomes.
type subqueryKind int

const (
	scalarSub subqueryKind = iota
	existsSub
	inSub
)

// result turns the subquery's rows into a value for one evaluation.
func (sq *subquery) result(kind subqueryKind, batches []*coldata.Batch, needle *coldata.Vec, row int) (any, error) {
	switch kind {
	case existsSub:
		for _, bt := range batches {
			if bt.Len > 0 {
				return true, nil
			}
		}
		return false, nil
	case scalarSub:
		var val any
		rows := 0
		for _, bt := range batches {
			if bt.Len > 0 && rows == 0 {
				val = bt.Cols[0].Value(0)
			}
			rows += bt.Len
		}
		if rows > 1 {
			return nil, fmt.Errorf("subquery returns more than 1 row")
		}
		return val, nil
	}
	// x IN (rows): TRUE on a match; else NULL if x or any row is NULL.
	any0 := false
	sawNull := needle.IsNull(row)
	for _, bt := range batches {
		any0 = any0 || bt.Len > 0
		for r := 0; r < bt.Len; r++ {
			if bt.Cols[0].IsNull(r) {
				sawNull = true
				continue
			}
			if !needle.IsNull(row) && opspec.CompareValues(needle, row, bt.Cols[0], r) == 0 {
				return true, nil
			}
		}
	}
	if !any0 {
		return false, nil
	}
	if sawNull {
		return nil, nil
	}
	return false, nil
}

// correlatedCall makes the expression evaluating a correlated subquery per
// row: its arguments are the outer columns (after the needle for IN). Above
// a GROUP BY (the select list, HAVING) the outer columns must be group
// keys, and the arguments read them from the Aggregate's output.
func (b *binder) correlatedCall(sq *subquery, kind subqueryKind, needle expr.Expr) (expr.Expr, error) {
	t := coldata.Bool
	if kind == scalarSub {
		t = sq.cols[0].Type
	}
	var mu sync.Mutex
	ctx := b.ctx
	cache := map[string]any{}
	nrefs := sq.corr.width()
	fn := &expr.Function{Name: "correlated_subquery", MinArgs: nrefs, MaxArgs: -1, Volatile: true,
		Check: func([]coldata.Type) (coldata.Type, []coldata.Type, error) { return t, nil, nil },
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			mu.Lock()
			defer mu.Unlock()
			var nv *coldata.Vec
			outer := args
			if kind == inSub {
				nv, outer = args[0], args[1:]
			}
			out := coldata.NewBuilder(t, n)
			var key []byte
			for i := 0; i < n; i++ {
				key = opspec.AppendRowKey(key[:0], outer, i)
				if nv != nil {
					key = opspec.AppendRowKey(key, []*coldata.Vec{nv}, i)
				}
				v, ok := cache[string(key)]
				if !ok {
					sq.corr.set(outer, i)
					batches, err := sq.run(ctx)
					if err != nil {
						return nil, err
					}
					if v, err = sq.result(kind, batches, nv, i); err != nil {
						return nil, err
					}
					cache[string(key)] = v
				}
				out.AppendValue(v)
			}
			return out.Finish(), nil
		}}
	var args []expr.Expr
	if needle != nil {
		args = append(args, needle)
	}
	args, err := b.outerArgs(args, sq.corr)
	if err != nil {
		return nil, err
	}
	return &expr.Call{Fn: fn, Args: args, T: t}, nil
}

// outerArgs appends a correlated evaluation's outer values to args: the
// refs (above a GROUP BY, read from the Aggregate's output, so they must be
// group keys), then the deep columns (correlation.set's order).
func (b *binder) outerArgs(args []expr.Expr, corr *correlation) ([]expr.Expr, error) {
	for _, r := range corr.refs {
		var arg expr.Expr = r
		if b.agg != nil {
			k, err := b.agg.keyRef(r)
			if err != nil {
				return nil, err
			}
			arg = k
		}
		args = append(args, arg)
	}
	return append(args, corr.deep...), nil
}

func (b *binder) scalarSubquery(q *sqlparser.Subquery, sc *scope) (expr.Expr, error) {
	sq, err := b.planSubquery(q, sc)
	if err != nil {
		return nil, err
	}
	if len(sq.cols) != 1 {
		return nil, errorf(TypeMismatch, "", "operand should contain 1 column, the subquery returns %d", len(sq.cols))
	}
	if sq.corr != nil {
		return b.correlatedCall(sq, scalarSub, nil)
	}
	batches, err := sq.run(b.ctx)
	if err != nil {
		return nil, err
	}
	v, err := sq.result(scalarSub, batches, nil, 0)
	if err != nil {
		return nil, errorf(TypeMismatch, "", "%v", err)
	}
	return &expr.Literal{Value: v, T: sq.cols[0].Type}, nil
}

func (b *binder) existsSubquery(q *sqlparser.Subquery, sc *scope) (expr.Expr, error) {
	sq, err := b.planSubquery(q, sc)
	if err != nil {
		return nil, err
	}
	if sq.corr != nil {
		return b.correlatedCall(sq, existsSub, nil)
	}
	batches, err := sq.run(b.ctx)
	if err != nil {
		return nil, err
	}
	v, _ := sq.result(existsSub, batches, nil, 0)
	return &expr.Literal{Value: v, T: coldata.Bool}, nil
}

// inSubquery binds x IN (SELECT ...): uncorrelated, as x IN (v1, v2, ...)
// over the result; correlated, per row.
func (b *binder) inSubquery(left sqlparser.Expr, q *sqlparser.Subquery, sc *scope) (expr.Expr, error) {
	l, err := b.bindExpr(left, sc)
	if err != nil {
		return nil, err
	}
	sq, err := b.planSubquery(q, sc)
	if err != nil {
		return nil, err
	}
	if len(sq.cols) != 1 {
		return nil, errorf(TypeMismatch, "", "operand should contain 1 column, the subquery returns %d", len(sq.cols))
	}
	if sq.corr != nil {
		// Compare in one type, as the "in" function would.
		t := expr.Unify(l.Type(), sq.cols[0].Type)
		if (l.Type() == coldata.String) != (sq.cols[0].Type == coldata.String) {
			t = coldata.Float64
		}
		if dt, ok := dateTextType(l.Type(), sq.cols[0].Type); ok {
			t = dt
		}
		if l, err = expr.CompareCastTo(l, t); err != nil {
			return nil, err
		}
		if sq.cols[0].Type != t {
			sq.plan = castCompared(sq.plan, []Column{{Name: sq.cols[0].Name, Type: t}})
			sq.cols = sq.plan.Columns()
		}
		return b.correlatedCall(sq, inSub, l)
	}
	batches, err := sq.run(b.ctx)
	if err != nil {
		return nil, err
	}
	args := []expr.Expr{l}
	seen := map[string]bool{}
	var key []byte
	for _, bt := range batches {
		for r := 0; r < bt.Len; r++ {
			key = opspec.AppendRowKey(key[:0], bt.Cols[:1], r)
			if seen[string(key)] {
				continue
			}
			seen[string(key)] = true
			args = append(args, &expr.Literal{Value: bt.Cols[0].Value(r), T: sq.cols[0].Type})
		}
	}
	if len(args) == 1 {
		// An empty IN list is FALSE (even for a NULL left side).
		return &expr.Literal{Value: false, T: coldata.Bool}, nil
	}
	return b.apply("in", args...)
}
