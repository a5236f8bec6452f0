package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Date and time syntax the stock grammar lacks, rewritten into calls:
//
//	DATE 'lit', TIMESTAMP 'lit', DATETIME 'lit'       date_literal|timestamp_literal('lit')
//	TIME 'lit'                                         time_literal('lit')
//	EXTRACT(unit FROM x)                               extract('unit', x)
//	TIMESTAMPDIFF(unit, a, b), TIMESTAMPADD(unit, n, x),
//	DATE_TRUNC(unit, x) with a bare unit               the unit as a string literal
//
// INTERVAL n unit is the stock grammar's own (an IntervalExpr the binder
// turns into date arithmetic); PostgreSQL's and DuckDB's INTERVAL '3 days'
// is rewritten into it.

// The calls typed literals become: strict conversions (a literal that is
// not a date is an error, where CAST gives NULL).
const (
	DateLiteral      = "date_literal"
	TimestampLiteral = "timestamp_literal"
	// TimeLiteral is TIME 'lit': gsql's TIME text (no TIME type).
	TimeLiteral = "time_literal"
)

// typedLiteralAt reports whether toks[i] starts a typed literal
// (DATE '2024-01-05'), and the cast function it stands for.
func (r *rewriter) typedLiteralAt(toks []token, i int) (string, bool) {
	if i+1 >= len(toks) || toks[i+1].typ != sqlparser.STRING {
		return "", false
	}
	if i > 0 && (toks[i-1].typ == '.' || toks[i-1].typ == sqlparser.AS) {
		return "", false
	}
	t := toks[i]
	switch {
	case t.is(r.src, "date"):
		return DateLiteral, true
	case t.is(r.src, "timestamp"), t.is(r.src, "datetime"):
		return TimestampLiteral, true
	case t.is(r.src, "time"):
		return TimeLiteral, true
	}
	return "", false
}

// unitFirst lists the calls whose first argument is a unit keyword.
var unitFirst = map[string]bool{"timestampdiff": true, "timestampadd": true, "date_trunc": true, "datetrunc": true}

// temporalCall rewrites EXTRACT and the unit-first calls; done is false
// for other calls.
func (r *rewriter) temporalCall(t token, args []token, closing token) (bool, *Error) {
	name := strings.ToLower(t.text(r.src))
	switch {
	case name == "extract":
		parts, seps := splitTop(args, func(x token) bool { return x.typ == sqlparser.FROM })
		if len(parts) != 2 || len(parts[0]) != 1 || len(parts[1]) == 0 {
			return true, newError(ErrSyntax, r.src, t.start, "expected EXTRACT(unit FROM expression)")
		}
		return true, r.unitCall("extract", t, parts[0][0], seps, closing, parts[1:])
	case unitFirst[name]:
		parts, seps := splitTop(args, func(x token) bool { return x.typ == ',' })
		if len(parts) < 2 || len(parts[0]) != 1 || parts[0][0].typ == sqlparser.STRING {
			return false, nil
		}
		return true, r.unitCall(name, t, parts[0][0], seps, closing, parts[1:])
	}
	return false, nil
}

// unitCall emits name('unit', rest...) with the rest rewritten; seps[k]
// is the source separator before rest[k].
func (r *rewriter) unitCall(name string, at, unit token, seps []token, closing token, rest [][]token) *Error {
	r.emitFor("`"+name+"`", at)
	r.emitText("(", at.end)
	r.emitFor("'"+strings.ToLower(unit.text(r.src))+"'", unit)
	for k, a := range rest {
		r.emitFor(",", seps[k])
		if len(a) == 0 {
			off := closing.start
			if k+1 < len(seps) {
				off = seps[k+1].start
			}
			return newError(ErrSyntax, r.src, off, "missing argument of %s", strings.ToUpper(name))
		}
		if err := r.rewrite(a); err != nil {
			return err
		}
	}
	r.emitSrc(closing)
	return nil
}

// intervalUnits are the units INTERVAL '<n> <unit>' may name (singular).
var intervalUnits = map[string]bool{"microsecond": true, "second": true, "minute": true, "hour": true,
	"day": true, "week": true, "month": true, "quarter": true, "year": true}

// quotedIntervalAt reports whether toks[i] is INTERVAL followed by a
// string holding both the count and the unit ('3 days'), and the text the
// stock grammar reads instead (interval 3 day).
func (r *rewriter) quotedIntervalAt(toks []token, i int) (string, bool) {
	if !toks[i].is(r.src, "interval") || i+1 >= len(toks) || toks[i+1].typ != sqlparser.STRING {
		return "", false
	}
	if i+2 < len(toks) && (toks[i+2].typ == sqlparser.ID || isCompositeUnit(r, toks[i+2])) {
		// MySQL's INTERVAL '1 2' DAY_HOUR: the unit follows the text.
		return "", false
	}
	f := strings.Fields(string(toks[i+1].val))
	if len(f) != 2 {
		return "", false
	}
	unit := strings.ToLower(f[1])
	if !intervalUnits[unit] {
		unit = strings.TrimSuffix(unit, "s")
	}
	if strings.Trim(f[0], "+-0123456789") != "" || strings.Trim(f[0], "+-") == "" {
		return "", false
	}
	if !intervalUnits[unit] {
		// Reported by the caller (badIntervalUnit).
		return "", true
	}
	return "interval " + f[0] + " " + unit, true
}

// compositeUnits are MySQL's INTERVAL units of several fields; the stock
// tokenizer reserves them but its grammar has no rule that takes them.
var compositeUnits = map[string]bool{"year_month": true, "day_hour": true, "day_minute": true, "day_second": true,
	"day_microsecond": true, "hour_minute": true, "hour_second": true, "hour_microsecond": true,
	"minute_second": true, "minute_microsecond": true, "second_microsecond": true}

func isCompositeUnit(r *rewriter, t token) bool {
	return t.typ != sqlparser.STRING && t.typ != sqlparser.ID && compositeUnits[strings.ToLower(t.text(r.src))]
}
