package sql

import "github.com/xwb1989/sqlparser"

// The aggregate FILTER clause, agg(x) FILTER (WHERE cond) (PostgreSQL,
// DuckDB, SQL:2003), which the stock grammar lacks: aggregates skip NULLs,
// so it is agg(CASE WHEN cond THEN x END); COUNT(*) counts CASE WHEN cond
// THEN 1 END, and DISTINCT stays in front.

// filterAt reports whether toks[i] is a call followed by FILTER (WHERE
// ...): it returns the call's closing parenthesis and the FILTER clause's.
func (r *rewriter) filterAt(toks []token, i int) (callEnd, filterEnd int, ok bool) {
	if i+1 >= len(toks) || toks[i+1].typ != '(' {
		return 0, 0, false
	}
	callEnd = matching(toks, i+1)
	if callEnd < 0 || callEnd+3 >= len(toks) || !toks[callEnd+1].is(r.src, "filter") ||
		toks[callEnd+2].typ != '(' || toks[callEnd+3].typ != sqlparser.WHERE {
		return 0, 0, false
	}
	filterEnd = matching(toks, callEnd+2)
	return callEnd, filterEnd, filterEnd > 0
}

// filterOut emits the call at toks[i] with its FILTER folded in.
func (r *rewriter) filterOut(toks []token, i, callEnd, filterEnd int) *Error {
	args := toks[i+2 : callEnd]
	cond := toks[callEnd+4 : filterEnd]
	filter := toks[callEnd+1]
	if len(cond) == 0 {
		return newError(ErrSyntax, r.src, toks[filterEnd].start, "expected a condition in FILTER (WHERE ...)")
	}
	if _, seps := splitTop(args, func(x token) bool { return x.typ == ',' || x.typ == sqlparser.ORDER || x.is(r.src, "separator") }); len(seps) > 0 || len(args) == 0 {
		return newError(ErrUnsupported, r.src, filter.start, "not supported: FILTER on an aggregate of other than one argument")
	}
	r.emitSrc(toks[i])
	r.emitSrc(toks[i+1])
	if args[0].typ == sqlparser.DISTINCT {
		r.emitSrc(args[0])
		args = args[1:]
	}
	r.emitText("case when", filter.start)
	if err := r.rewrite(cond); err != nil {
		return err
	}
	r.emitText("then", filter.start)
	if len(args) == 1 && args[0].typ == '*' {
		r.emitText("1", args[0].start)
	} else if err := r.rewrite(args); err != nil {
		return err
	}
	r.emitText("end", filter.start)
	r.emitSrc(toks[callEnd])
	return nil
}
