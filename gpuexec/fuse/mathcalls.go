package fuse

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// mathCall generates the numeric functions of expr/math.go, GREATEST and
// LEAST, and DIV over DOUBLE. It returns (nil, nil) for a name it does not
// know. EXP, LN, LOG10 and POWER run the CPU's own portable algorithms
// (expr/portmath.go) step for step, so the backends agree to the bit.
func (g *gen) mathCall(name string, c *expr.Call, args []*val) (*val, error) {
	switch name {
	case "abs":
		x := args[0]
		if x.kind == kInt {
			g.emit("if (!%s && %s == (int64_t)0x8000000000000000ULL) err = GSQL_ERR_OVERFLOW;", nullFlag(x), x.c)
			return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("%s < 0 ? (int64_t)(0ULL - (uint64_t)%s) : %s", x.c, x.c, x.c)), null: x.null}, nil
		}
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("fabs(%s)", asFloat(x))), null: x.null}, nil
	case "sign":
		x := args[0]
		v := asInt(x)
		if x.kind == kFloat {
			v = x.c
		}
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(int64_t)(%s > 0) - (int64_t)(%s < 0)", v, v)), null: x.null}, nil
	case "floor", "ceil":
		x := args[0]
		if x.kind == kInt {
			return x, nil
		}
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s(%s)", name, asFloat(x))), null: x.null}, nil
	case "sqrt":
		x := args[0]
		null := g.tmp()
		g.emit("bool %s = %s || !(%s >= 0.0);", null, nullFlag(x), asFloat(x))
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s ? 0.0 : sqrt(%s)", null, asFloat(x))), null: null}, nil
	case "exp":
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("gsql_exp(%s)", asFloat(args[0]))), null: args[0].null}, nil
	case "ln", "log10":
		x := args[0]
		null := g.tmp()
		g.emit("bool %s = %s || !(%s > 0.0);", null, nullFlag(x), asFloat(x))
		v := fmt.Sprintf("gsql_log(%s)", asFloat(x))
		if name == "log10" {
			// ln(x) * (1 / ln 10), the constant rounded once as in Go.
			v += " * 0x1.bcb7b1526e50ep-2"
		}
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s ? 0.0 : %s", null, v)), null: null}, nil
	case "power":
		// Non-finite results are NULL, as on the CPU.
		r, null := g.tmp(), g.tmp()
		g.emit("double %s = gsql_pow(%s, %s);", r, asFloat(args[0]), asFloat(args[1]))
		g.emit("bool %s = %s || %s - %s != 0.0;", null, g.nullOf(args), r, r)
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s ? 0.0 : %s", null, r)), null: null}, nil
	case "pi":
		return &val{kind: kFloat, c: "0x1.921fb54442d18p+1", null: "false"}, nil
	case "round", "truncate":
		x := args[0]
		d := "(int64_t)0"
		if len(args) > 1 {
			d = asInt(args[1])
		}
		null := g.nullOf(args)
		trunc := name == "truncate"
		if x.kind == kInt {
			r := g.tmp()
			g.emit("int64_t %s;", r)
			g.emit("if (!round_int(%s, %s, %v, &%s) && !%s) err = GSQL_ERR_OVERFLOW;", x.c, d, trunc, r, null)
			return &val{kind: kInt, c: r, null: null}, nil
		}
		fb := g.tmp()
		g.emit("bool %s = false;", fb)
		r := g.declare(kFloat, 0, fmt.Sprintf("round_double(%s, %s, %v, &%s)", asFloat(x), d, trunc, fb))
		// A value within a few ulps of a rounding boundary: the CPU decides
		// on its shortest decimal digits; the batch goes there.
		g.emit("if (%s && !%s && err == 0) err = GSQL_ERR_FALLBACK;", fb, null)
		return &val{kind: kFloat, c: r, null: null}, nil
	case "greatest", "least":
		op := ">"
		if name == "least" {
			op = "<"
		}
		null := g.nullOf(args)
		switch {
		case c.T == coldata.String:
			res := g.tmp()
			g.emit("SV %s = %s;", res, g.asSV(args[0]).c)
			for _, a := range args[1:] {
				s := g.asSV(a).c
				g.emit("if (sv_cmp(%s, %s) %s 0) %s = %s;", s, res, op, res, s)
			}
			return &val{kind: kSV, c: res, null: null}, nil
		case c.T == coldata.Int64 || c.T == coldata.Float64:
			k := kindOf(c.T)
			conv := asInt
			if k == kFloat {
				conv = asFloat
			}
			res := g.declare(k, 0, conv(args[0]))
			for _, a := range args[1:] {
				g.emit("if (%s %s %s) %s = %s;", conv(a), op, res, res, conv(a))
			}
			return &val{kind: k, c: res, null: null}, nil
		}
		return nil, g.notFusable(name)
	case "div":
		// DOUBLE DIV DOUBLE: the truncated quotient as BIGINT, NULL for a
		// zero divisor, out of range an error (as on the CPU).
		p, q := asFloat(args[0]), asFloat(args[1])
		null, f := g.tmp(), g.tmp()
		g.emit("bool %s = %s || %s == 0.0;", null, g.nullOf(args), q)
		g.emit("double %s = %s ? 0.0 : trunc(%s / %s);", f, null, p, q)
		g.emit("if (!%s && !(%s >= -9.223372036854775808e18 && %s < 9.223372036854775807e18)) { err = GSQL_ERR_OVERFLOW; %s = 0.0; }", null, f, f, f)
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(int64_t)%s", f)), null: null}, nil
	}
	return nil, nil
}
