package fuse

import (
	"fmt"
	"strconv"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// DECIMAL in generated code: a value is a dec_t (a 128-bit integer, the
// runtime's rt/decimal.cuh) and its type's scale and precision
// are constants of the code, so every rescale factor folds at compile time.
// The binder has already unified operand types the way expr/decimal.go
// needs them (comparisons, CASE branches and IN items share one type;
// arithmetic keeps each operand's own), so the generator only follows the
// CPU's rules for the result.
//
// A result that does not fit its type sets GSQL_ERR_DECIMAL: the host then
// evaluates the batch on the CPU, which raises the exact error (or, for
// a conversion the device cannot do exactly, GSQL_ERR_FALLBACK).

// isDecimalCall reports whether c reads or makes a DECIMAL.
func isDecimalCall(c *expr.Call) bool {
	if c.T.IsDecimal() {
		return true
	}
	for _, a := range c.Args {
		if a.Type().IsDecimal() {
			return true
		}
	}
	return false
}

// decVal is a DECIMAL value of type t held in C variable c; its scale
// expression is the type's scale (fused kernels) or the result scale of
// the instruction (interpreter, decimalImm).
func (g *gen) decVal(c, null string, t coldata.Type) *val {
	v := &val{kind: kDec, c: c, null: null, t: t, sc: strconv.Itoa(t.Scale())}
	if g.interp {
		v.sc = immResultScale
	}
	return v
}

// The interpreter's DECIMAL operations read their scales from the
// instruction's immediate (decimalImm packs them at lowering): six bits
// each for the scales of arguments 0 and 1 (later arguments share
// argument 1's type), the result's scale and its precision.
const (
	immResultScale     = "((I[2] >> 12) & 63)"
	immResultPrecision = "((I[2] >> 18) & 63)"
)

func immArgScale(k int) string {
	return fmt.Sprintf("((I[2] >> %d) & 63)", 6*min(k, 1))
}

// resultPS are the C expressions of a DECIMAL result's precision and scale.
func (g *gen) resultPS(t coldata.Type) (p, s string) {
	if g.interp {
		return immResultPrecision, immResultScale
	}
	return strconv.Itoa(t.Precision()), strconv.Itoa(t.Scale())
}

// decResult declares a dec_t result computed by a runtime call that
// reports overflow, skipped for NULL rows.
func (g *gen) decResult(t coldata.Type, null, call string) *val {
	r := g.tmp()
	g.emit("dec_t %s = 0;", r)
	g.emit("if (!%s && !%s && err == 0) err = GSQL_ERR_DECIMAL;", null, fmt.Sprintf(call, "&"+r))
	return g.decVal(r, null, t)
}

// decCall generates a call that involves DECIMAL; it returns (nil, nil)
// for calls that do not.
func (g *gen) decCall(name string, c *expr.Call, args []*val) (*val, error) {
	if !isDecimalCall(c) {
		return nil, nil
	}
	for _, a := range args {
		if a.kind == kDec && (!a.t.IsDecimal() || a.sc == "") {
			return nil, fmt.Errorf("%w: DECIMAL value without its type", ErrNotFusable)
		}
	}
	rt := c.T
	p, s := g.resultPS(rt)
	bothDec := len(args) == 2 && args[0].kind == kDec && args[1].kind == kDec
	switch name {
	case "+", "-":
		if !bothDec || !rt.IsDecimal() {
			break
		}
		a, b := args[0], args[1]
		return g.decResult(rt, g.nullOf(args), fmt.Sprintf("dec_addsub(%s, %s, %s, %s, %v, %s, %s, %%s)", a.c, a.sc, b.c, b.sc, name == "-", s, p)), nil
	case "*":
		if !bothDec || !rt.IsDecimal() {
			break
		}
		a, b := args[0], args[1]
		return g.decResult(rt, g.nullOf(args), fmt.Sprintf("dec_mulr(%s, %s, %s + %s, %s, %s, %%s)", a.c, b.c, a.sc, b.sc, s, p)), nil
	case "/", "%":
		if !bothDec || !rt.IsDecimal() {
			break
		}
		a, b := args[0], args[1]
		null := g.tmp()
		g.emit("bool %s = %s || %s == 0;", null, g.nullOf(args), b.c)
		fn := map[string]string{"/": "dec_div", "%": "dec_mod"}[name]
		return g.decResult(rt, null, fmt.Sprintf("%s(%s, %s, %s, %s, %s, %s, %%s)", fn, a.c, a.sc, b.c, b.sc, s, p)), nil
	case "div":
		if !bothDec {
			break
		}
		// Exact, truncated toward zero (expr.decimalIntDiv); outside
		// BIGINT the CPU raises the error.
		a, b := args[0], args[1]
		null, r := g.tmp(), g.tmp()
		g.emit("bool %s = %s || %s == 0;", null, g.nullOf(args), b.c)
		g.emit("int64_t %s = 0;", r)
		g.emit("if (!%s && !dec_intdiv(%s, %s, %s, %s, &%s) && err == 0) err = GSQL_ERR_DECIMAL;", null, a.c, a.sc, b.c, b.sc, r)
		return &val{kind: kInt, c: r, null: null}, nil
	case "neg":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		// |x| < 10^38 < 2^127: the negation always fits.
		return g.decVal(g.declare(kDec, 0, "-"+args[0].c), args[0].null, rt), nil
	case "abs":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		x := args[0].c
		return g.decVal(g.declare(kDec, 0, fmt.Sprintf("%s < 0 ? -%s : %s", x, x, x)), args[0].null, rt), nil
	case "sign":
		if args[0].kind != kDec {
			break
		}
		x := args[0].c
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(int64_t)(%s > 0) - (int64_t)(%s < 0)", x, x)), null: args[0].null}, nil
	case "round", "truncate":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		d := "(int64_t)0"
		if len(args) > 1 {
			d = asInt(args[1])
		}
		x := args[0]
		return g.decResult(rt, g.nullOf(args), fmt.Sprintf("dec_round(%s, %s, %s, %v, %s, %s, %%s)", x.c, x.sc, d, name == "truncate", s, p)), nil
	case "floor", "ceil":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		x := args[0]
		return g.decResult(rt, x.null, fmt.Sprintf("dec_floor_ceil(%s, %s, %v, %s, %%s)", x.c, x.sc, name == "ceil", p)), nil
	case "greatest", "least":
		if !rt.IsDecimal() {
			break
		}
		op := map[string]string{"greatest": ">", "least": "<"}[name]
		for _, a := range args {
			if a.kind != kDec || (!g.interp && a.t.Scale() != rt.Scale()) {
				return nil, fmt.Errorf("%w: %s over DECIMALs of different scales", ErrNotFusable, name)
			}
		}
		res := g.declare(kDec, 0, args[0].c)
		for _, a := range args[1:] {
			g.emit("if (%s %s %s) %s = %s;", a.c, op, res, res, a.c)
		}
		return g.decVal(res, g.nullOf(args), rt), nil
	case "cast_to_decimal":
		if c.Args[0].Type().IsTemporal() {
			break // the CPU raises "cannot convert"
		}
		return g.castToDecimal(rt, p, s, args[0])
	case "cast_to_double", "cast_to_bigint", "cast_to_boolean", "cast_to_varchar":
		if args[0].kind != kDec {
			break
		}
		return g.castFromDecimal(name, args[0])
	case "=", "<>", "!=", "<", "<=", ">", ">=", "<=>", "in", "case", "if", "ifnull", "coalesce", "nullif",
		"is_null", "is_not_null":
		// Generic code with kDec operands (compare, conditional).
		return nil, nil
	}
	return nil, fmt.Errorf("%w: function %s over DECIMAL", ErrNotFusable, name)
}

// castToDecimal converts a value to DECIMAL(p,s) (t; p and s its C
// expressions) as expr.castDecimal does.
func (g *gen) castToDecimal(t coldata.Type, p, s string, a *val) (*val, error) {
	switch a.kind {
	case kDec:
		if !g.interp && a.t.Scale() == t.Scale() && a.t.Precision() <= t.Precision() {
			return g.decVal(a.c, a.null, t), nil // only the precision widens
		}
		return g.decResult(t, nullFlag(a), fmt.Sprintf("dec_cast(%s, %s, %s, %s, %%s)", a.c, a.sc, s, p)), nil
	case kInt, kBool:
		return g.decResult(t, nullFlag(a), fmt.Sprintf("dec_cast((dec_t)%s, 0, %s, %s, %%s)", asInt(a), s, p)), nil
	case kFloat:
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		v := g.decResult(t, nullFlag(a), fmt.Sprintf("dec_from_double(%s, %s, %s, %%s, &%s)", a.c, s, p, fb))
		g.emit("if (%s && !%s) err = GSQL_ERR_FALLBACK;", fb, nullFlag(a))
		return v, nil
	case kSV, kRope, kGen:
		sv := g.asSV(a)
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		v := g.decResult(t, nullFlag(a), fmt.Sprintf("dec_parse(%s, %s, %s, %%s, &%s)", sv.c, s, p, fb))
		g.emit("if (%s && !%s) err = GSQL_ERR_FALLBACK;", fb, nullFlag(a))
		return v, nil
	}
	return nil, fmt.Errorf("%w: CAST to %s", ErrNotFusable, t)
}

// castFromDecimal converts a DECIMAL to DOUBLE, BIGINT, BOOLEAN or text.
func (g *gen) castFromDecimal(name string, a *val) (*val, error) {
	sc := a.sc
	switch name {
	case "cast_to_double":
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		v := g.declare(kFloat, 0, fmt.Sprintf("dec_to_double(%s, %s, &%s)", a.c, sc, fb))
		g.emit("if (%s && !%s && err == 0) err = GSQL_ERR_FALLBACK;", fb, nullFlag(a))
		return &val{kind: kFloat, c: v, null: a.null}, nil
	case "cast_to_bigint", "cast_to_boolean":
		r := g.tmp()
		g.emit("int64_t %s = 0;", r)
		g.emit("if (!%s && !dec_to_int(%s, %s, &%s) && err == 0) err = GSQL_ERR_DECIMAL;", nullFlag(a), a.c, sc, r)
		if name == "cast_to_boolean" {
			return &val{kind: kBool, c: g.declare(kBool, 0, r+" != 0"), null: a.null}, nil
		}
		return &val{kind: kInt, c: r, null: a.null}, nil
	}
	v := a.c
	return &val{kind: kGen, null: a.null, size: fmt.Sprintf("dec_text_len(%s, %s)", v, sc),
		write: func(dst string) string { return fmt.Sprintf("dec_text_write(%s, %s, %s);", v, sc, dst) }}, nil
}

// decComparands brings the operands of a comparison with a DECIMAL to one
// representation, as expr's unifyCompare does for calls that keep their
// argument types (NULLIF): DOUBLE against DOUBLE, else DECIMAL(38,s) at
// the larger scale.
func (g *gen) decComparands(a, b *val) (*val, *val, error) {
	if a.kind == kFloat || b.kind == kFloat {
		var err error
		if a.kind == kDec {
			a, err = g.castFromDecimal("cast_to_double", a)
		} else {
			b, err = g.castFromDecimal("cast_to_double", b)
		}
		return a, b, err
	}
	for _, v := range []*val{a, b} {
		if v.kind != kDec && v.kind != kInt && v.kind != kBool {
			return nil, nil, fmt.Errorf("%w: comparison of DECIMAL with a string", ErrNotFusable)
		}
	}
	if a.kind == kDec && b.kind == kDec && a.sc == b.sc {
		return a, b, nil
	}
	var t coldata.Type
	var s string
	switch {
	case g.interp:
		t = coldata.DecimalOf(38, 0)
		sa, sb := "0", "0"
		if a.kind == kDec {
			sa = a.sc
		}
		if b.kind == kDec {
			sb = b.sc
		}
		s = fmt.Sprintf("(%s > %s ? %s : %s)", sa, sb, sa, sb)
	default:
		sc := 0
		for _, v := range []*val{a, b} {
			if v.kind == kDec {
				sc = max(sc, v.t.Scale())
			}
		}
		t = coldata.DecimalOf(38, sc)
		s = strconv.Itoa(sc)
	}
	ca, err := g.castToDecimal(t, "38", s, a)
	if err != nil {
		return nil, nil, err
	}
	ca.sc = s
	cb, err := g.castToDecimal(t, "38", s, b)
	if err != nil {
		return nil, nil, err
	}
	cb.sc = s
	return ca, cb, nil
}
