package fuse

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// DECIMAL in generated code: a value is a dec_t (a 128-bit integer, the
// runtime's DECIMAL section in rt.cuh) and its type's scale and precision
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

// decVal is a DECIMAL value of type t held in C variable c.
func decVal(c, null string, t coldata.Type) *val {
	return &val{kind: kDec, c: c, null: null, t: t}
}

// decResult declares a dec_t result computed by a runtime call that
// reports overflow, skipped for NULL rows.
func (g *gen) decResult(t coldata.Type, null, call string) *val {
	r := g.tmp()
	g.emit("dec_t %s = 0;", r)
	g.emit("if (!%s && !%s && err == 0) err = GSQL_ERR_DECIMAL;", null, fmt.Sprintf(call, "&"+r))
	return decVal(r, null, t)
}

// decCall generates a call that involves DECIMAL; it returns (nil, nil)
// for calls that do not.
func (g *gen) decCall(name string, c *expr.Call, args []*val) (*val, error) {
	if !isDecimalCall(c) {
		return nil, nil
	}
	for _, a := range args {
		if a.kind == kDec && !a.t.IsDecimal() {
			return nil, fmt.Errorf("%w: DECIMAL value without its type", ErrNotFusable)
		}
	}
	rt := c.T
	p, s := rt.Precision(), rt.Scale()
	bothDec := len(args) == 2 && args[0].kind == kDec && args[1].kind == kDec
	switch name {
	case "+", "-":
		if !bothDec || !rt.IsDecimal() {
			break
		}
		a, b := args[0], args[1]
		return g.decResult(rt, g.nullOf(args), fmt.Sprintf("dec_addsub(%s, %d, %s, %d, %v, %d, %d, %%s)", a.c, a.t.Scale(), b.c, b.t.Scale(), name == "-", s, p)), nil
	case "*":
		if !bothDec || !rt.IsDecimal() {
			break
		}
		a, b := args[0], args[1]
		return g.decResult(rt, g.nullOf(args), fmt.Sprintf("dec_mulr(%s, %s, %d, %d, %d, %%s)", a.c, b.c, a.t.Scale()+b.t.Scale(), s, p)), nil
	case "/", "%":
		if !bothDec || !rt.IsDecimal() {
			break
		}
		a, b := args[0], args[1]
		null := g.tmp()
		g.emit("bool %s = %s || %s == 0;", null, g.nullOf(args), b.c)
		fn := map[string]string{"/": "dec_div", "%": "dec_mod"}[name]
		return g.decResult(rt, null, fmt.Sprintf("%s(%s, %d, %s, %d, %d, %d, %%s)", fn, a.c, a.t.Scale(), b.c, b.t.Scale(), s, p)), nil
	case "neg":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		// |x| < 10^38 < 2^127: the negation always fits.
		return decVal(g.declare(kDec, 0, "-"+args[0].c), args[0].null, rt), nil
	case "abs":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		x := args[0].c
		return decVal(g.declare(kDec, 0, fmt.Sprintf("%s < 0 ? -%s : %s", x, x, x)), args[0].null, rt), nil
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
		return g.decResult(rt, g.nullOf(args), fmt.Sprintf("dec_round(%s, %d, %s, %v, %d, %d, %%s)", x.c, x.t.Scale(), d, name == "truncate", s, p)), nil
	case "floor", "ceil":
		if args[0].kind != kDec || !rt.IsDecimal() {
			break
		}
		x := args[0]
		return g.decResult(rt, x.null, fmt.Sprintf("dec_floor_ceil(%s, %d, %v, %d, %%s)", x.c, x.t.Scale(), name == "ceil", p)), nil
	case "greatest", "least":
		if !rt.IsDecimal() {
			break
		}
		op := map[string]string{"greatest": ">", "least": "<"}[name]
		for _, a := range args {
			if a.kind != kDec || a.t.Scale() != s {
				return nil, fmt.Errorf("%w: %s over DECIMALs of different scales", ErrNotFusable, name)
			}
		}
		res := g.declare(kDec, 0, args[0].c)
		for _, a := range args[1:] {
			g.emit("if (%s %s %s) %s = %s;", a.c, op, res, res, a.c)
		}
		return decVal(res, g.nullOf(args), rt), nil
	case "cast_to_decimal":
		if c.Args[0].Type().IsTemporal() {
			break // the CPU raises "cannot convert"
		}
		return g.castToDecimal(rt, args[0])
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

// castToDecimal converts a value to DECIMAL(p,s) as expr.castDecimal does.
func (g *gen) castToDecimal(t coldata.Type, a *val) (*val, error) {
	p, s := t.Precision(), t.Scale()
	switch a.kind {
	case kDec:
		if a.t.Scale() == s && a.t.Precision() <= p {
			return decVal(a.c, a.null, t), nil // only the precision widens
		}
		return g.decResult(t, nullFlag(a), fmt.Sprintf("dec_cast(%s, %d, %d, %d, %%s)", a.c, a.t.Scale(), s, p)), nil
	case kInt, kBool:
		return g.decResult(t, nullFlag(a), fmt.Sprintf("dec_cast((dec_t)%s, 0, %d, %d, %%s)", asInt(a), s, p)), nil
	case kFloat:
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		v := g.decResult(t, nullFlag(a), fmt.Sprintf("dec_from_double(%s, %d, %d, %%s, &%s)", a.c, s, p, fb))
		g.emit("if (%s && !%s) err = GSQL_ERR_FALLBACK;", fb, nullFlag(a))
		return v, nil
	case kSV, kRope, kGen:
		sv := g.asSV(a)
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		v := g.decResult(t, nullFlag(a), fmt.Sprintf("dec_parse(%s, %d, %d, %%s, &%s)", sv.c, s, p, fb))
		g.emit("if (%s && !%s) err = GSQL_ERR_FALLBACK;", fb, nullFlag(a))
		return v, nil
	}
	return nil, fmt.Errorf("%w: CAST to %s", ErrNotFusable, t)
}

// castFromDecimal converts a DECIMAL to DOUBLE, BIGINT, BOOLEAN or text.
func (g *gen) castFromDecimal(name string, a *val) (*val, error) {
	sc := a.t.Scale()
	switch name {
	case "cast_to_double":
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		v := g.declare(kFloat, 0, fmt.Sprintf("dec_to_double(%s, %d, &%s)", a.c, sc, fb))
		g.emit("if (%s && !%s && err == 0) err = GSQL_ERR_FALLBACK;", fb, nullFlag(a))
		return &val{kind: kFloat, c: v, null: a.null}, nil
	case "cast_to_bigint", "cast_to_boolean":
		r := g.tmp()
		g.emit("int64_t %s = 0;", r)
		g.emit("if (!%s && !dec_to_int(%s, %d, &%s) && err == 0) err = GSQL_ERR_DECIMAL;", nullFlag(a), a.c, sc, r)
		if name == "cast_to_boolean" {
			return &val{kind: kBool, c: g.declare(kBool, 0, r+" != 0"), null: a.null}, nil
		}
		return &val{kind: kInt, c: r, null: a.null}, nil
	}
	v := a.c
	return &val{kind: kGen, null: a.null, size: fmt.Sprintf("dec_text_len(%s, %d)", v, sc),
		write: func(dst string) string { return fmt.Sprintf("dec_text_write(%s, %d, %s);", v, sc, dst) }}, nil
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
	s := 0
	for _, v := range []*val{a, b} {
		switch v.kind {
		case kDec:
			s = max(s, v.t.Scale())
		case kInt, kBool:
		default:
			return nil, nil, fmt.Errorf("%w: comparison of DECIMAL with a string", ErrNotFusable)
		}
	}
	t := coldata.DecimalOf(38, s)
	ca, err := g.castToDecimal(t, a)
	if err != nil {
		return nil, nil, err
	}
	cb, err := g.castToDecimal(t, b)
	return ca, cb, err
}
