package planner

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// MySQL's intermediate precision of a DECIMAL quotient. A quotient's type
// has scale s1 + 4 (div_precision_increment), but MySQL computes it to
// whole 9-digit words of fraction and rounds to that scale only where the
// value leaves arithmetic: 1/3*3 is 1.0000 (0.333333333 * 3), not 0.9999,
// and ROUND(1/3, 6) is 0.333333. The binder reproduces this by computing
// a quotient at the wider scale and wrapping it in a cast to its declared
// type; an arithmetic operator, ROUND, TRUNCATE, SUM or AVG over such a
// cast reads the wide value under it (peelWide) and is cast back to the
// type MySQL gives it. Comparisons and everything else see the declared
// value. Departure: MySQL truncates the wide quotient at its last digit,
// gsql rounds it there (a difference of one unit in the 9th or 18th digit
// after the point, visible when the declared scale is a whole word,
// 0.05000/3 = 0.016666666 in MySQL, or a later operation reads it).

// wideOps are the functions that read a quotient at its intermediate
// precision.
var wideOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "neg": true, "round": true, "truncate": true}

// wideQuotient records that cast rounds wide to its declared type.
func (b *binder) wideQuotient(cast, wide expr.Expr) {
	if b.wide == nil {
		b.wide = map[expr.Expr]expr.Expr{}
	}
	b.wide[cast] = wide
}

// peelWide returns e's value at intermediate precision and whether it had
// one.
func (b *binder) peelWide(e expr.Expr) (expr.Expr, bool) {
	w, ok := b.wide[e]
	return w, ok
}

// applyWide binds name over args keeping intermediate precision; ok is
// false when name is not arithmetic over DECIMALs, and apply's plain
// path binds it.
func (b *binder) applyWide(name string, args []expr.Expr) (expr.Expr, bool, error) {
	if !wideOps[name] {
		return nil, false, nil
	}
	inner := make([]expr.Expr, len(args))
	peeled := false
	for i, a := range args {
		inner[i] = a
		if w, ok := b.peelWide(a); ok {
			inner[i], peeled = w, true
		}
	}
	if !peeled && name != "/" {
		return nil, false, nil
	}
	f, ok := expr.Lookup(name)
	if !ok {
		return nil, false, nil
	}
	declared, err := expr.NewCall(f, args)
	if err != nil || !declared.Type().IsDecimal() {
		return nil, false, nil
	}
	dt := declared.Type()
	if name == "/" {
		if inner, ok = b.widenDividend(inner, dt); !ok && !peeled {
			return nil, false, nil
		}
	}
	w, err := expr.NewCall(f, inner)
	if err != nil {
		return nil, true, err
	}
	if w.Type() == dt {
		return w, true, nil
	}
	if !w.Type().IsDecimal() || w.Type().Scale() < dt.Scale() {
		return declared, true, nil
	}
	cast, err := expr.CastTo(w, dt)
	if err != nil {
		return nil, true, err
	}
	b.wideQuotient(cast, w)
	return cast, true, nil
}

// exactDecimalType is the DECIMAL an exact operand of type t divides as.
func exactDecimalType(t coldata.Type) (coldata.Type, bool) {
	switch {
	case t.IsDecimal():
		return t, true
	case t == coldata.Int64:
		return coldata.DecimalOf(19, 0), true
	case t == coldata.Bool, t == coldata.Null:
		return coldata.DecimalOf(1, 0), true
	}
	return 0, false
}

// divScale is the fraction digits MySQL's decimal division computes for
// operands with f1 and f2 fraction digits (decimal_div): the operands'
// fractions in whole 9-digit words, plus words for whatever of the 4
// digits of div_precision_increment those words leave over.
func divScale(f1, f2 int) int {
	words := func(d int) int { return (d + 8) / 9 }
	w1, w2 := words(f1), words(f2)
	incr := max(4-(9*w1-f1)-(9*w2-f2), 0)
	return 9 * (w1 + w2 + words(incr))
}

// widenDividend rescales the dividend of a quotient declared dt so that
// the division computes MySQL's intermediate fraction digits, within 38
// digits; ok is false when there is nothing to widen.
func (b *binder) widenDividend(args []expr.Expr, dt coldata.Type) ([]expr.Expr, bool) {
	ta, oka := exactDecimalType(args[0].Type())
	tb, okb := exactDecimalType(args[1].Type())
	if !oka || !okb {
		return args, false
	}
	intDigits := dt.Precision() - dt.Scale()
	scale := min(divScale(ta.Scale(), tb.Scale()), decimal.MaxPrecision-intDigits)
	delta := scale - 4 - ta.Scale()
	delta = min(delta, decimal.MaxPrecision-ta.Precision())
	if delta <= 0 {
		return args, false
	}
	x, err := expr.CastTo(args[0], coldata.DecimalOf(ta.Precision()+delta, ta.Scale()+delta))
	if err != nil {
		return args, false
	}
	return []expr.Expr{x, args[1]}, true
}
