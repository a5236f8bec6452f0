package planner

import (
	"context"
	"strings"
	"sync"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/sql"
)

// Quantified comparisons and row values.
//
// x op ANY (S) is TRUE when x op s is TRUE for some row s of S; else NULL
// when some x op s is NULL (x NULL and S not empty included); else FALSE,
// and FALSE for an empty S. x op ALL (S) is TRUE for an empty S or when
// every x op s is TRUE; FALSE when some x op s is FALSE; else NULL (SQL-92
// 8.7 and 8.8, as MySQL and DuckDB answer). So ALL is NOT ANY of the
// negated operator; = ANY is IN and <> ALL is NOT IN.
//
// An uncorrelated S runs once, at plan time; the comparison then needs only
// a summary of S (its extremes, whether it holds a NULL, up to two distinct
// values) and becomes plain comparisons with literals, evaluated by the
// vectorized kernels. A correlated S, and a row value against a subquery,
// run through a per-row evaluator that applies the definition to S's rows,
// cached per distinct outer and left-hand values like subquery.go's path.
//
// A row value (a, b) compares component by component: (a, b) = (c, d) is
// a = c AND b = d, and <> is its negation, so a row comparison is NULL when
// no component decides it and some component is NULL. <, <=, > and >=
// order rows lexicographically. (a, b) IN (r1, r2, ...) is (a, b) = r1 OR
// (a, b) = r2 ..., and IN (subquery) is = ANY (subquery). A row subquery
// compared with a row gives its one row (all NULL when it has none; more
// than one is an error).

// quantifiedOperand returns the subquery of the dialect layer's marker
// call for ANY/SOME (all false) or ALL (all true).
func quantifiedOperand(e sqlparser.Expr) (q *sqlparser.Subquery, all, ok bool) {
	f, isFunc := e.(*sqlparser.FuncExpr)
	if !isFunc || !f.Qualifier.IsEmpty() {
		return nil, false, false
	}
	name := f.Name.Lowered()
	if name != sql.QuantifiedAny && name != sql.QuantifiedAll {
		return nil, false, false
	}
	if len(f.Exprs) == 1 {
		if ae, ok := f.Exprs[0].(*sqlparser.AliasedExpr); ok {
			if sq, ok := unparen(ae.Expr).(*sqlparser.Subquery); ok {
				return sq, name == sql.QuantifiedAll, true
			}
		}
	}
	return nil, name == sql.QuantifiedAll, true
}

// quantifierName is how SQL writes the quantifier.
func quantifierName(all bool) string {
	if all {
		return "ALL"
	}
	return "ANY"
}

// isRowValue reports whether e is a row value (a, b, ...).
func isRowValue(e sqlparser.Expr) bool {
	_, ok := e.(sqlparser.ValTuple)
	return ok
}

// rowWidth is the number of components of e: 1 unless it is a row value.
func rowWidth(e sqlparser.Expr) int {
	if t, ok := e.(sqlparser.ValTuple); ok {
		return len(t)
	}
	return 1
}

// rowItems returns the components of e (e itself unless a row value).
func rowItems(e sqlparser.Expr) []sqlparser.Expr {
	if t, ok := e.(sqlparser.ValTuple); ok {
		return t
	}
	return []sqlparser.Expr{e}
}

// operandError is MySQL's error 1241 for a row of the wrong width.
func operandError(want, got int) error {
	return errorf(TypeMismatch, "", "operand should contain %d column(s), got %d", want, got)
}

// bindQuantifiedOrRow binds the comparisons this file handles: ok is false
// for the others.
func (b *binder) bindQuantifiedOrRow(x *sqlparser.ComparisonExpr, sc *scope) (expr.Expr, bool, error) {
	if q, all, ok := quantifiedOperand(x.Right); ok {
		if q == nil {
			return nil, true, errorf(Unsupported, "", "not supported: %s over other than a subquery", quantifierName(all))
		}
		e, err := b.bindQuantified(x.Operator, x.Left, q, all, sc)
		return e, true, err
	}
	if q, all, ok := quantifiedOperand(x.Left); ok && q != nil {
		return nil, true, errorf(TypeMismatch, "", "%s (subquery) must stand right of the comparison operator", quantifierName(all))
	}
	if !isRowValue(x.Left) && !isRowValue(x.Right) {
		if x.Operator == sqlparser.InStr || x.Operator == sqlparser.NotInStr {
			if list, ok := x.Right.(sqlparser.ValTuple); ok {
				for _, item := range list {
					if isRowValue(item) {
						return nil, true, operandError(1, rowWidth(item))
					}
				}
			}
		}
		return nil, false, nil
	}
	switch x.Operator {
	case sqlparser.InStr, sqlparser.NotInStr:
		var in expr.Expr
		var err error
		switch r := x.Right.(type) {
		case sqlparser.ValTuple:
			in, err = b.rowInList(x.Left, r, sc)
		case *sqlparser.Subquery:
			in, err = b.rowInSubquery(x.Left, r, sc)
		default:
			return nil, true, errorf(Unsupported, "", "not supported: IN %s", sqlparser.String(x.Right))
		}
		if err != nil || x.Operator == sqlparser.InStr {
			return in, true, err
		}
		not, err := b.apply("not", in)
		return not, true, err
	}
	fn, ok := comparisonFuncs[x.Operator]
	if !ok {
		return nil, true, errorf(Unsupported, "", "not supported: operator %s on row values", strings.ToUpper(x.Operator))
	}
	_, rq := x.Right.(*sqlparser.Subquery)
	_, lq := x.Left.(*sqlparser.Subquery)
	if fn == "<=>" && (rq || lq) {
		return nil, true, errorf(Unsupported, "", "not supported: <=> between a row value and a subquery")
	}
	if q, ok := x.Right.(*sqlparser.Subquery); ok {
		e, err := b.rowSubqueryCompare(fn, x.Left, q, sc)
		return e, true, err
	}
	if q, ok := x.Left.(*sqlparser.Subquery); ok {
		e, err := b.rowSubqueryCompare(flipComparison(fn), x.Right, q, sc)
		return e, true, err
	}
	l, r := rowItems(x.Left), rowItems(x.Right)
	if len(l) != len(r) {
		return nil, true, operandError(len(l), len(r))
	}
	e, err := b.rowCompare(fn, l, r, sc)
	return e, true, err
}

// bindItems binds each component of a row value.
func (b *binder) bindItems(items []sqlparser.Expr, sc *scope) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(items))
	for i, it := range items {
		if isRowValue(it) {
			return nil, operandError(1, rowWidth(it))
		}
		e, err := b.bindExpr(it, sc)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// rowCompare binds l fn r for rows of one width.
func (b *binder) rowCompare(fn string, l, r []sqlparser.Expr, sc *scope) (expr.Expr, error) {
	le, err := b.bindItems(l, sc)
	if err != nil {
		return nil, err
	}
	re, err := b.bindItems(r, sc)
	if err != nil {
		return nil, err
	}
	return b.rowCompareBound(fn, le, re)
}

// rowCompareBound combines the component comparisons: = and <=> are their
// AND, <> their OR, and an ordering is lexicographic, (a, b) < (c, d)
// being a < c OR (a = c AND b < d).
func (b *binder) rowCompareBound(fn string, l, r []expr.Expr) (expr.Expr, error) {
	switch fn {
	case "=", "<>", "<=>":
		join := "and"
		if fn == "<>" {
			join = "or"
		}
		var out expr.Expr
		for i := range l {
			c, err := b.apply(fn, l[i], r[i])
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = c
			} else if out, err = b.apply(join, out, c); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	strict := strings.TrimSuffix(fn, "=")
	n := len(l)
	out, err := b.apply(fn, l[n-1], r[n-1])
	if err != nil {
		return nil, err
	}
	for i := n - 2; i >= 0; i-- {
		eq, err := b.apply("=", l[i], r[i])
		if err != nil {
			return nil, err
		}
		lt, err := b.apply(strict, l[i], r[i])
		if err != nil {
			return nil, err
		}
		rest, err := b.apply("and", eq, out)
		if err != nil {
			return nil, err
		}
		if out, err = b.apply("or", lt, rest); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// flipComparison is the operator with its operands swapped: a < b is
// b > a.
func flipComparison(fn string) string {
	switch fn {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return fn
}

// rowSubqueryCompare binds (a, b) fn (SELECT c, d ...): the subquery is a
// row, NULL in every column when it has no rows, and an error when it has
// more than one.
func (b *binder) rowSubqueryCompare(fn string, left sqlparser.Expr, q *sqlparser.Subquery, sc *scope) (expr.Expr, error) {
	l, err := b.bindItems(rowItems(left), sc)
	if err != nil {
		return nil, err
	}
	sq, l, err := b.quantSubquery(l, q, sc)
	if err != nil {
		return nil, err
	}
	if sq.corr != nil {
		return b.subqueryCall(sq, l, func(batches []*coldata.Batch, needles []*coldata.Vec, row int) (any, error) {
			return rowSubqueryEval(fn, batches, needles, row)
		})
	}
	batches, err := sq.run(b.ctx)
	if err != nil {
		return nil, err
	}
	lits := make([]expr.Expr, len(l))
	rows := 0
	for _, bt := range batches {
		for r := 0; r < bt.Len; r++ {
			if rows++; rows > 1 {
				return nil, errorf(TypeMismatch, "", "subquery returns more than 1 row")
			}
			for k, c := range bt.Cols {
				lits[k] = &expr.Literal{Value: c.Value(r), T: sq.cols[k].Type}
			}
		}
	}
	if rows == 0 {
		return &expr.Literal{Value: nil, T: coldata.Bool}, nil
	}
	return b.rowCompareBound(fn, l, lits)
}

// rowSubqueryEval is needles[.][row] fn the single row of batches.
func rowSubqueryEval(fn string, batches []*coldata.Batch, needles []*coldata.Vec, row int) (any, error) {
	var res any
	rows := 0
	for _, bt := range batches {
		for r := 0; r < bt.Len; r++ {
			if rows++; rows > 1 {
				return nil, errorf(TypeMismatch, "", "subquery returns more than 1 row")
			}
			switch rowCompareValues(fn, needles, row, bt.Cols, r) {
			case 1:
				res = true
			case 0:
				res = false
			}
		}
	}
	return res, nil
}

// rowInList binds (a, b) IN ((1, 2), (3, 4)) as the OR of row equalities.
func (b *binder) rowInList(left sqlparser.Expr, list sqlparser.ValTuple, sc *scope) (expr.Expr, error) {
	l, err := b.bindItems(rowItems(left), sc)
	if err != nil {
		return nil, err
	}
	rows := make([][]expr.Expr, len(list))
	for k, item := range list {
		if rowWidth(item) != len(l) {
			return nil, operandError(len(l), rowWidth(item))
		}
		if rows[k], err = b.bindItems(rowItems(item), sc); err != nil {
			return nil, err
		}
	}
	if l, err = inListComparands(l, rows); err != nil {
		return nil, err
	}
	var out expr.Expr
	for _, r := range rows {
		b.lenientDates = true
		eq, err := b.rowCompareBound("=", l, r)
		b.lenientDates = false
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = eq
		} else if out, err = b.apply("or", out, eq); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inListComparands converts the left side l of l IN (rows...), column by
// column, to what MySQL 8 compares the column's values as
// (Item_func_in::resolve_type, sql/item_cmpfunc.cc), which is not always
// what each pair alone would compare as:
//
//   - when the left value and every item are text or dates (no number;
//     NULL items aside) and one of them is a DATE or DATETIME, every
//     value compares as a DATETIME (cmp_item_datetime): the left text
//     too, read as MySQL's comparisons read text (the zero date, with
//     warning 1292, for text that is no date; expr.CompareCastTo), also
//     against text items, which the comparison then reads likewise. So
//     s IN ('abc', d) holds for every s that is no date: 'abc' and s are
//     both the zero date;
//   - otherwise a left value of text (one column, not a row) compares
//     with a date item as text (cmp_item_string; the date side is its
//     text), and with a number as numbers, pair by pair: s IN (1, d) is
//     s = 1 OR s = CAST(d AS CHAR).
//
// MariaDB compares pair by pair (s IN ('abc', d) is s = 'abc' OR s = d);
// tests/sql/mysql_in_date_text.test has both servers' answers. The
// returned rows' items are converted in place where needed.
func inListComparands(l []expr.Expr, rows [][]expr.Expr) ([]expr.Expr, error) {
	out := append([]expr.Expr(nil), l...)
	for j, left := range l {
		if left.Type() != coldata.String {
			continue // a date or number on the left: pairs compare right
		}
		items := make([]expr.Expr, len(rows))
		for k, r := range rows {
			items[k] = r[j]
		}
		text, date := textOrDates(items)
		switch {
		case text && date:
			c, err := expr.CompareCastTo(left, coldata.Timestamp)
			if err != nil {
				return nil, errorf(TypeMismatch, "", "%v", err)
			}
			out[j] = c
		case !text && date && len(l) == 1:
			for _, r := range rows {
				if t := r[j].Type().Plain(); t == coldata.Date || t == coldata.Timestamp {
					c, err := expr.CastTo(r[j], coldata.String)
					if err != nil {
						return nil, errorf(TypeMismatch, "", "%v", err)
					}
					r[j] = c
				}
			}
		}
	}
	return out, nil
}

// textOrDates reports whether every value of es is text, a DATE or a
// DATETIME (or NULL), MySQL's STRING_RESULT, and whether one is a DATE or
// DATETIME: text compared with such values, in IN and BETWEEN, compares
// as a DATETIME.
func textOrDates(es []expr.Expr) (text, date bool) {
	text = true
	for _, e := range es {
		switch t := e.Type(); {
		case t == coldata.Null, t == coldata.String:
		case t.Plain() == coldata.Date || t.Plain() == coldata.Timestamp:
			date = true
		default:
			text = false
		}
	}
	return text, date
}

// compareType is the type two sides of a comparison meet in, as the "in"
// function's (a string against a number compares as numbers).
func compareType(a, b coldata.Type) coldata.Type {
	if a == coldata.Null && b == coldata.Null {
		return coldata.Int64
	}
	if t, ok := dateTextType(a, b); ok {
		return t
	}
	t := expr.Unify(a, b)
	if a != coldata.Null && b != coldata.Null && (a == coldata.String) != (b == coldata.String) {
		t = coldata.Float64
	}
	return t
}

// dateTextType is the type a DATE or DATETIME and text compare in, as
// the comparison functions' (expr's compareType): DATETIME, the text read
// by expr.CompareCastTo. ok is false for other pairs.
func dateTextType(a, b coldata.Type) (coldata.Type, bool) {
	if (a.IsTemporal() && b == coldata.String) || (a == coldata.String && b.IsTemporal()) {
		return coldata.Timestamp, true
	}
	return 0, false
}

// quantSubquery plans q for comparison with the bound row l: it checks the
// width and casts both sides to the types they compare in.
func (b *binder) quantSubquery(l []expr.Expr, q *sqlparser.Subquery, sc *scope) (*subquery, []expr.Expr, error) {
	sq, err := b.planSubquery(q, sc)
	if err != nil {
		return nil, nil, err
	}
	if len(sq.cols) != len(l) {
		return nil, nil, operandError(len(l), len(sq.cols))
	}
	out := make([]Column, len(sq.cols))
	cast := make([]expr.Expr, len(l))
	for i, c := range sq.cols {
		t := compareType(l[i].Type(), c.Type)
		if cast[i], err = expr.CompareCastTo(l[i], t); err != nil {
			return nil, nil, errorf(TypeMismatch, "", "%v", err)
		}
		out[i] = Column{Name: c.Name, Type: t}
	}
	sq.plan = castCompared(sq.plan, out)
	sq.cols = sq.plan.Columns()
	return sq, cast, nil
}

// rowInSubquery binds (a, b) IN (SELECT c, d ...) as = ANY.
func (b *binder) rowInSubquery(left sqlparser.Expr, q *sqlparser.Subquery, sc *scope) (expr.Expr, error) {
	l, err := b.bindItems(rowItems(left), sc)
	if err != nil {
		return nil, err
	}
	sq, l, err := b.quantSubquery(l, q, sc)
	if err != nil {
		return nil, err
	}
	return b.quantCall(sq, l, "=", false)
}

// bindQuantified binds left op ANY|ALL (q).
func (b *binder) bindQuantified(op string, left sqlparser.Expr, q *sqlparser.Subquery, all bool, sc *scope) (expr.Expr, error) {
	fn, ok := comparisonFuncs[op]
	if !ok || fn == "<=>" {
		return nil, errorf(Unsupported, "", "not supported: %s %s (subquery)", strings.ToUpper(op), quantifierName(all))
	}
	if isRowValue(left) {
		// A row only with = ANY (IN) and <> ALL (NOT IN).
		switch {
		case fn == "=" && !all:
			return b.rowInSubquery(left, q, sc)
		case fn == "<>" && all:
			in, err := b.rowInSubquery(left, q, sc)
			if err != nil {
				return nil, err
			}
			return b.apply("not", in)
		}
		return nil, errorf(Unsupported, "", "not supported: a row value with %s %s (only = ANY and <> ALL)", fn, quantifierName(all))
	}
	if fn == "=" && !all {
		return b.inSubquery(left, q, sc)
	}
	if fn == "<>" && all {
		in, err := b.inSubquery(left, q, sc)
		if err != nil {
			return nil, err
		}
		return b.apply("not", in)
	}
	l, err := b.bindExpr(left, sc)
	if err != nil {
		return nil, err
	}
	sq, ls, err := b.quantSubquery([]expr.Expr{l}, q, sc)
	if err != nil {
		return nil, err
	}
	if sq.corr != nil {
		return b.quantCall(sq, ls, fn, all)
	}
	batches, err := sq.run(b.ctx)
	if err != nil {
		return nil, err
	}
	return b.quantLiterals(fn, all, l, summarize(batches, sq.cols[0].Type))
}

// summary is what a quantified comparison needs of a one-column S.
type summary struct {
	t        coldata.Type
	rows     int
	hasNull  bool
	min, max any // of the non-NULL values; nil when there are none
	distinct []any
}

// summarize reads S's rows (one column).
func summarize(batches []*coldata.Batch, t coldata.Type) summary {
	s := summary{t: t}
	// The extremes and the first value, as one-row vectors of their own
	// (a batch may be reused by the next).
	var minV, maxV, firstV *coldata.Vec
	for _, bt := range batches {
		col := bt.Cols[0]
		for r := 0; r < bt.Len; r++ {
			s.rows++
			if col.IsNull(r) {
				s.hasNull = true
				continue
			}
			if minV == nil {
				v := col.Value(r)
				minV, maxV, firstV = coldata.NewConst(t, v, 1), coldata.NewConst(t, v, 1), coldata.NewConst(t, v, 1)
				s.distinct = append(s.distinct, v)
				continue
			}
			if opspec.CompareValues(col, r, minV, 0) < 0 {
				minV = coldata.NewConst(t, col.Value(r), 1)
			}
			if opspec.CompareValues(col, r, maxV, 0) > 0 {
				maxV = coldata.NewConst(t, col.Value(r), 1)
			}
			if len(s.distinct) == 1 && opspec.CompareValues(col, r, firstV, 0) != 0 {
				s.distinct = append(s.distinct, col.Value(r))
			}
		}
	}
	if minV != nil {
		s.min, s.max = minV.Value(0), maxV.Value(0)
	}
	return s
}

// quantLiterals builds l fn ANY|ALL (S) from S's summary (fn is not = ANY
// nor <> ALL, which are IN and NOT IN).
func (b *binder) quantLiterals(fn string, all bool, l expr.Expr, s summary) (expr.Expr, error) {
	if s.rows == 0 {
		return &expr.Literal{Value: all, T: coldata.Bool}, nil
	}
	if len(s.distinct) == 0 {
		// Every comparison is with NULL.
		return &expr.Literal{Value: nil, T: coldata.Bool}, nil
	}
	lit := func(v any) expr.Expr { return &expr.Literal{Value: v, T: s.t} }
	var c expr.Expr
	var err error
	switch fn {
	case "=", "<>":
		// = ALL: equal to every value, so to each of two distinct ones
		// (FALSE for a non-NULL x). <> ANY: differs from some value.
		join := "and"
		if fn == "<>" {
			join = "or"
		}
		for _, v := range s.distinct {
			e, err := b.apply(fn, l, lit(v))
			if err != nil {
				return nil, err
			}
			if c == nil {
				c = e
			} else if c, err = b.apply(join, c, e); err != nil {
				return nil, err
			}
		}
	default:
		// x > ANY: x > MIN; x > ALL: x > MAX (and so on).
		greater := fn == ">" || fn == ">="
		ext := s.max
		if greater != all {
			ext = s.min
		}
		if c, err = b.apply(fn, l, lit(ext)); err != nil {
			return nil, err
		}
	}
	if !s.hasNull {
		return c, nil
	}
	// A NULL in S: ANY is TRUE where c is, else NULL; ALL is FALSE where c
	// is, else NULL.
	if all {
		notC, err := b.apply("not", c)
		if err != nil {
			return nil, err
		}
		return b.apply("case", notC, &expr.Literal{Value: false, T: coldata.Bool})
	}
	return b.apply("case", c, &expr.Literal{Value: true, T: coldata.Bool})
}

// quantCall evaluates l fn ANY|ALL (S) by its definition, per row: S (its
// columns already in l's types) runs once if uncorrelated, else once per
// distinct combination of outer values; results are cached per distinct
// outer and left-hand values. Rows of more than one column compare with =
// only.
func (b *binder) quantCall(sq *subquery, l []expr.Expr, fn string, all bool) (expr.Expr, error) {
	return b.subqueryCallSet(sq, l, fn == "=" && !all, func(batches []*coldata.Batch, needles []*coldata.Vec, row int) (any, error) {
		return quantEval(fn, all, batches, needles, row), nil
	})
}

// subqueryEval computes a row's answer from the subquery's rows.
type subqueryEval func(batches []*coldata.Batch, needles []*coldata.Vec, row int) (any, error)

// subqueryCall evaluates eval per row over S as quantCall does.
func (b *binder) subqueryCall(sq *subquery, l []expr.Expr, eval subqueryEval) (expr.Expr, error) {
	return b.subqueryCallSet(sq, l, false, eval)
}

// subqueryCallSet is subqueryCall; in, for = ANY, adds the set lookup of
// an uncorrelated S.
func (b *binder) subqueryCallSet(sq *subquery, l []expr.Expr, in bool, eval subqueryEval) (expr.Expr, error) {
	var mu sync.Mutex
	ctx := b.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var once []*coldata.Batch
	if sq.corr == nil {
		var err error
		if once, err = sq.run(ctx); err != nil {
			return nil, err
		}
	}
	// An uncorrelated = ANY (IN) looks a NULL-free left row up in a set of
	// S's NULL-free rows: found is TRUE, and not found is FALSE unless S
	// has a row with a NULL, which leaves the definition to decide.
	var set map[string]bool
	sNull := false
	if sq.corr == nil && in {
		set = map[string]bool{}
		var key []byte
		for _, bt := range once {
			for r := 0; r < bt.Len; r++ {
				if anyNull(bt.Cols, r) {
					sNull = true
					continue
				}
				key = opspec.AppendRowKey(key[:0], bt.Cols, r)
				set[string(key)] = true
			}
		}
	}
	var nrefs int
	if sq.corr != nil {
		nrefs = sq.corr.width()
	}
	width := len(l)
	cache := map[string]any{}
	// outerCache keeps the last outer values' S.
	var lastOuter string
	var lastBatches []*coldata.Batch
	f := &expr.Function{Name: "quantified_subquery", MinArgs: width + nrefs, MaxArgs: -1, Volatile: true,
		Check: func([]coldata.Type) (coldata.Type, []coldata.Type, error) { return coldata.Bool, nil, nil },
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			mu.Lock()
			defer mu.Unlock()
			needles, outer := args[:width], args[width:]
			out := coldata.NewBuilder(coldata.Bool, n)
			var key, okey []byte
			for i := 0; i < n; i++ {
				okey = opspec.AppendRowKey(okey[:0], outer, i)
				key = opspec.AppendRowKey(append(key[:0], okey...), needles, i)
				if set != nil && !anyNull(needles, i) {
					if set[string(key)] { // key is the left row's alone: no outer values
						out.AppendValue(true)
						continue
					}
					if !sNull {
						out.AppendValue(false)
						continue
					}
				}
				v, ok := cache[string(key)]
				if !ok {
					batches := once
					if sq.corr != nil {
						if lastBatches == nil || lastOuter != string(okey) {
							sq.corr.set(outer, i)
							var err error
							if lastBatches, err = sq.run(ctx); err != nil {
								return nil, err
							}
							lastOuter = string(okey)
						}
						batches = lastBatches
					}
					var err error
					if v, err = eval(batches, needles, i); err != nil {
						return nil, err
					}
					cache[string(key)] = v
				}
				out.AppendValue(v)
			}
			return out.Finish(), nil
		}}
	args := append([]expr.Expr(nil), l...)
	if sq.corr != nil {
		var err error
		if args, err = b.outerArgs(args, sq.corr); err != nil {
			return nil, err
		}
	}
	return &expr.Call{Fn: f, Args: args, T: coldata.Bool}, nil
}

// anyNull reports whether row i of cols has a NULL.
func anyNull(cols []*coldata.Vec, i int) bool {
	for _, c := range cols {
		if c.IsNull(i) {
			return true
		}
	}
	return false
}

// quantEval is needles[.][row] fn ANY|ALL (the rows of batches) as SQL
// defines it, with NULL as nil.
func quantEval(fn string, all bool, batches []*coldata.Batch, needles []*coldata.Vec, row int) any {
	rows, sawTrue, sawFalse, sawNull := 0, false, false, false
	for _, bt := range batches {
		for r := 0; r < bt.Len; r++ {
			rows++
			switch rowCompareValues(fn, needles, row, bt.Cols, r) {
			case 1:
				sawTrue = true
			case 0:
				sawFalse = true
			default:
				sawNull = true
			}
		}
	}
	switch {
	case rows == 0:
		return all
	case all && sawFalse:
		return false
	case !all && sawTrue:
		return true
	case sawNull:
		return nil
	}
	return all
}

// rowCompareValues compares row a[.][i] with b[.][j] under fn: 1 TRUE, 0
// FALSE, -1 NULL. = is TRUE when every component is equal and FALSE when
// one differs; <> is its negation; an ordering is decided by the first
// unequal component, and is NULL when a NULL comes first.
func rowCompareValues(fn string, a []*coldata.Vec, i int, b []*coldata.Vec, j int) int {
	switch fn {
	case "<>":
		switch rowCompareValues("=", a, i, b, j) {
		case 1:
			return 0
		case 0:
			return 1
		}
		return -1
	case "=":
		res := 1
		for k := range a {
			if a[k].IsNull(i) || b[k].IsNull(j) {
				res = -1
				continue
			}
			if opspec.CompareValues(a[k], i, b[k], j) != 0 {
				return 0
			}
		}
		return res
	}
	for k := range a {
		if a[k].IsNull(i) || b[k].IsNull(j) {
			return -1
		}
		c := opspec.CompareValues(a[k], i, b[k], j)
		if c == 0 {
			continue
		}
		if (c < 0) == (fn == "<" || fn == "<=") {
			return 1
		}
		return 0
	}
	if fn == "<=" || fn == ">=" {
		return 1
	}
	return 0
}
