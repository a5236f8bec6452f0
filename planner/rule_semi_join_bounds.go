package planner

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
)

// The plans ("the same user elsewhere": random suite, hits):
//
//	Semi HashJoin on UserID = UserID filter (WatchID <> WatchID)
//	  Scan hits h [WatchID UserID ...]
//	  Scan hits s [WatchID UserID]
//	=>
//	Project WatchID, UserID, ...
//	  Inner HashJoin on UserID = UserID filter ((min(WatchID) <> WatchID) or (max(WatchID) <> WatchID))
//	    Scan hits h [WatchID UserID ...]
//	    HashAggregate keys: UserID aggs: min(WatchID), max(WatchID)
//	      Scan hits s [WatchID UserID]
//
// The reasoning follows.
//
// A semi join with a residual condition tests, for each left row, the
// condition against every right row of its key until one passes. When a
// key is frequent on both sides (a user with 100K hits) that is a product
// of the two: at 10M hits one probe batch met billions of pairs. When the
// residual is a single comparison of a right-side value b with a
// left-side value a, the right rows of a key only matter through their
// extremes:
//
//	exists b with b <  a  iff  min(b) <  a    (and <= likewise)
//	exists b with b >  a  iff  max(b) >  a    (and >= likewise)
//	exists b with b <> a  iff  min(b) <> a or max(b) <> a
//
// MIN and MAX skip NULLs, as the comparison does (a NULL b never passes),
// and a key whose b are all NULL gets NULL extremes, which pass nothing;
// a NULL a passes nothing on either form. So the right side grouped by
// the join key, with the extremes the comparison needs, joined as an
// inner join (one row per key: no left row is repeated) gives the semi
// join's rows. An anti join keeps the left rows whose condition is not
// TRUE over the left join with the grouped side, which includes the rows
// of keys with no right row and of NULL keys.
//
// The grouping costs a pass over the right side that a hash join's build
// does not, so the rule applies where the pairs the residual would test
// are estimated to be at least the right side's rows: the left rows times
// the right rows per key. TPC-H Q21 (75K lineitems of one nation's
// suppliers against all of lineitem, 4 rows per order) stays a semi join:
// rewritten, it grouped 6M rows into 1.5M orders and took 3x as long on
// the CPU. The estimate assumes no skew, which only errs toward keeping
// the pairs on comparable sides.
//
// The order of MIN and MAX must be the comparison's: both sides of one
// kind among integers, dates, timestamps, DECIMAL and text (bytewise
// both). Floating point is left alone (a NaN is no extreme), and so are
// comparisons across kinds, which MySQL makes numerically.

// SemiJoinBounds rewrites, everywhere in n, each semi or anti hash join
// whose condition beyond its keys is one comparison of a right-side with
// a left-side value into a join with the right side's extremes per key.
func SemiJoinBounds(n Node) Node {
	out, _ := mapInputs(n, func(in Node) (Node, error) { return SemiJoinBounds(in), nil })
	j, ok := out.(*Join)
	if !ok {
		return out
	}
	if r := semiJoinBounds(j); r != nil {
		return r
	}
	return out
}

// boundCompare is a residual "b op a" with b over the right side's
// columns (as they are numbered in the join) and a over the left's.
type boundCompare struct {
	fn   *expr.Function
	b, a expr.Expr
}

// flipped is the comparison with its operands swapped: a < b is b > a.
var flipped = map[string]string{"<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// residualBound matches cond as a boundCompare.
func residualBound(cond expr.Expr, nl int) (boundCompare, bool) {
	c, ok := cond.(*expr.Call)
	if !ok || len(c.Args) != 2 {
		return boundCompare{}, false
	}
	name := c.Fn.Name
	if _, ok := flipped[name]; !ok {
		return boundCompare{}, false
	}
	x, y := c.Args[0], c.Args[1]
	switch {
	case side(x, nl) == 1 && side(y, nl) == 0:
	case side(x, nl) == 0 && side(y, nl) == 1:
		x, y, name = y, x, flipped[name]
	default:
		return boundCompare{}, false
	}
	if volatile(x) || volatile(y) || !orderedLikeMinMax(x.Type(), y.Type()) {
		return boundCompare{}, false
	}
	fn, ok := expr.Lookup(name)
	if !ok {
		return boundCompare{}, false
	}
	return boundCompare{fn: fn, b: x, a: y}, true
}

// orderedLikeMinMax reports whether comparing values of types b and a
// orders them as MIN and MAX over b do.
func orderedLikeMinMax(b, a coldata.Type) bool {
	if b.Kind() != a.Kind() {
		return false
	}
	switch b.Kind() {
	case coldata.Int64, coldata.String, coldata.Date, coldata.Timestamp, coldata.Decimal:
		return true
	}
	return false
}

// semiJoinBounds returns j's rewrite, or nil when j does not qualify.
func semiJoinBounds(j *Join) Node {
	if (j.Kind != opspec.SemiJoin && j.Kind != opspec.AntiJoin) || len(j.LeftKeys) == 0 || j.Cond == nil {
		return nil
	}
	for _, k := range j.RightKeys {
		if volatile(k) {
			return nil
		}
	}
	leftCols := j.Left.Columns()
	nl := len(leftCols)
	cmp, ok := residualBound(j.Cond, nl)
	if !ok {
		return nil
	}
	right := estimateRows(j.Right)
	perKey := right / groupEstimate(j.Right, j.RightKeys, right)
	if estimateRows(j.Left)*perKey < right {
		return nil
	}
	shift := map[int]int{}
	for col := range expr.Columns(cmp.b) {
		shift[col] = col - nl
	}
	b := expr.Remap(cmp.b, shift)

	// The right side per key, with the extremes the comparison reads.
	grouped := &Aggregate{Input: j.Right, Keys: j.RightKeys}
	var kinds []opspec.AggKind
	switch cmp.fn.Name {
	case "<", "<=":
		kinds = []opspec.AggKind{opspec.AggMin}
	case ">", ">=":
		kinds = []opspec.AggKind{opspec.AggMax}
	default:
		kinds = []opspec.AggKind{opspec.AggMin, opspec.AggMax}
	}
	for _, k := range kinds {
		name := "min("
		if k == opspec.AggMax {
			name = "max("
		}
		grouped.Aggs = append(grouped.Aggs, opspec.AggSpec{Kind: k, Arg: b, Type: b.Type()})
		grouped.AggNames = append(grouped.AggNames, name+b.String()+")")
	}
	cols := grouped.Columns()
	nk := len(j.RightKeys)
	keys := make([]expr.Expr, nk)
	for i := range keys {
		keys[i] = &expr.ColumnRef{Index: i, Name: cols[i].Name, T: cols[i].Type}
	}

	// The condition over the joined row: each extreme against a.
	or, _ := expr.Lookup("or")
	var cond expr.Expr
	for i := range kinds {
		c := nl + nk + i
		e := &expr.Call{Fn: cmp.fn, Args: []expr.Expr{&expr.ColumnRef{Index: c, Name: cols[nk+i].Name, T: cols[nk+i].Type}, cmp.a}, T: boolType}
		if cond == nil {
			cond = e
		} else {
			cond = &expr.Call{Fn: or, Args: []expr.Expr{cond, e}, T: boolType}
		}
	}

	join := &Join{placed: j.placed, Left: j.Left, Right: grouped, LeftKeys: j.LeftKeys, RightKeys: keys}
	var top Node = join
	if j.Kind == opspec.SemiJoin {
		join.Kind, join.Cond = opspec.InnerJoin, cond
	} else {
		// Kept: the rows whose condition is not TRUE (no key, NULLs).
		coalesce, ok1 := expr.Lookup("coalesce")
		not, ok2 := expr.Lookup("not")
		if !ok1 || !ok2 {
			return nil
		}
		isTrue, err := expr.NewCall(coalesce, []expr.Expr{cond, &expr.Literal{Value: false, T: boolType}})
		if err != nil || isTrue.Type() != boolType {
			return nil
		}
		join.Kind = opspec.LeftJoin
		top = &Filter{Input: join, Pred: &expr.Call{Fn: not, Args: []expr.Expr{isTrue}, T: boolType}}
	}
	exprs := make([]expr.Expr, nl)
	for i, c := range leftCols {
		exprs[i] = &expr.ColumnRef{Index: i, Name: c.Name, T: c.Type}
	}
	return &Project{Input: top, Exprs: exprs, Out: append([]Column(nil), leftCols...)}
}
