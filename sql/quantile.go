package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// The ordered-set aggregates of standard SQL, which the stock grammar
// lacks:
//
//	PERCENTILE_CONT(q) WITHIN GROUP (ORDER BY x [ASC])   quantile_cont(x, q)
//	PERCENTILE_CONT(q) WITHIN GROUP (ORDER BY x DESC)    quantile_cont(x, q, 'desc')
//	PERCENTILE_DISC ...                                  quantile_disc(...)

// withinGroupAt reports whether toks[i] starts PERCENTILE_CONT/DISC(...)
// WITHIN GROUP (ORDER BY ...), and the index of the last token.
func (r *rewriter) withinGroupAt(toks []token, i int) (int, bool) {
	t := toks[i]
	if !(t.is(r.src, "percentile_cont") || t.is(r.src, "percentile_disc")) || i+1 >= len(toks) || toks[i+1].typ != '(' {
		return 0, false
	}
	close := matching(toks, i+1)
	if close < 0 || close+3 >= len(toks) || !toks[close+1].is(r.src, "within") || toks[close+2].typ != sqlparser.GROUP || toks[close+3].typ != '(' {
		return 0, false
	}
	end := matching(toks, close+3)
	return end, end > 0
}

// withinGroupOut emits the quantile call for toks[i..end].
func (r *rewriter) withinGroupOut(toks []token, i, end int) *Error {
	t := toks[i]
	close := matching(toks, i+1)
	frac := toks[i+2 : close]
	order := toks[close+4 : end]
	if len(order) < 3 || order[0].typ != sqlparser.ORDER || order[1].typ != sqlparser.BY {
		return newError(ErrSyntax, r.src, toks[close+3].start, "expected WITHIN GROUP (ORDER BY expression)")
	}
	key := order[2:]
	desc := false
	if last := key[len(key)-1]; last.typ == sqlparser.DESC || last.typ == sqlparser.ASC {
		desc = last.typ == sqlparser.DESC
		key = key[:len(key)-1]
	}
	if len(key) == 0 || len(frac) == 0 {
		return newError(ErrSyntax, r.src, t.start, "expected %s(fraction) WITHIN GROUP (ORDER BY expression)", strings.ToUpper(t.text(r.src)))
	}
	name := "quantile_cont"
	if t.is(r.src, "percentile_disc") {
		name = "quantile_disc"
	}
	r.emitFor("`"+name+"`", t)
	r.emitText("(", t.end)
	if err := r.rewrite(key); err != nil {
		return err
	}
	r.emitText(",", toks[i+1].start)
	if err := r.rewrite(frac); err != nil {
		return err
	}
	if desc {
		r.emitText(", 'desc'", toks[close].start)
	}
	r.emitSrc(toks[end])
	return nil
}
