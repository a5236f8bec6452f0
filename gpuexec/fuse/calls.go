package fuse

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

var cmpOps = map[string]string{"=": "==", "<>": "!=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// call generates one function application. Arguments are evaluated eagerly,
// as the CPU evaluator does, so errors and results agree.
func (g *gen) call(c *expr.Call) (*val, error) {
	name := c.Fn.Name
	if name == "in" {
		if v, err := g.inSorted(c); v != nil || err != nil {
			return v, err
		}
	}
	args := make([]*val, len(c.Args))
	for i, a := range c.Args {
		v, err := g.expr(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	if isDateCall(c) {
		return g.dateCall(c, args)
	}
	if v, err := g.decCall(name, c, args); v != nil || err != nil {
		return v, err
	}
	if transparent[name] && c.T.IsTemporal() {
		// Dates move and compare as their integers.
		c = &expr.Call{Fn: c.Fn, Args: c.Args, T: c.T.Physical()}
	}
	rk := kindOf(c.T)
	switch name {
	case "+", "-", "*":
		return g.arith(name, c.T, args)
	case "/":
		null := g.tmp()
		g.emit("bool %s = %s || %s == 0.0;", null, g.nullOf(args), asFloat(args[1]))
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s ? 0.0 : %s / %s", null, asFloat(args[0]), asFloat(args[1]))), null: null}, nil
	case "div":
		if args[0].kind != kInt || args[1].kind != kInt {
			return g.mathCall(name, c, args)
		}
		null := g.tmp()
		g.emit("bool %s = %s || %s == 0;", null, g.nullOf(args), args[1].c)
		// INT64_MIN DIV -1 overflows; -1 is negated explicitly so the
		// division never traps.
		g.emit("if (!%s && %s == -1 && %s == (int64_t)0x8000000000000000ULL) err = GSQL_ERR_OVERFLOW;", null, args[1].c, args[0].c)
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("%s ? (int64_t)0 : (%s == -1 ? (int64_t)(0ULL - (uint64_t)%s) : %s / %s)", null, args[1].c, args[0].c, args[0].c, args[1].c)), null: null}, nil
	case "%":
		null := g.tmp()
		if c.T == coldata.Int64 {
			g.emit("bool %s = %s || %s == 0;", null, g.nullOf(args), args[1].c)
			return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(%s || %s == -1) ? 0 : %s %% %s", null, args[1].c, args[0].c, args[1].c)), null: null}, nil
		}
		g.emit("bool %s = %s || %s == 0.0;", null, g.nullOf(args), asFloat(args[1]))
		return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s ? 0.0 : fmod(%s, %s)", null, asFloat(args[0]), asFloat(args[1]))), null: null}, nil
	case "neg":
		if c.T == coldata.Int64 {
			g.emit("if (!%s && %s == (int64_t)0x8000000000000000ULL) err = GSQL_ERR_OVERFLOW;", nullFlag(args[0]), args[0].c)
			return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("(int64_t)(0ULL - (uint64_t)%s)", args[0].c)), null: args[0].null}, nil
		}
		return &val{kind: kFloat, c: g.declare(kFloat, 0, "-"+asFloat(args[0])), null: args[0].null}, nil
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		return g.compare(cmpOps[name], args)
	case "<=>":
		eq, err := g.compare("==", args)
		if err != nil {
			return nil, err
		}
		return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("(%s && %s) || (!%s && !%s && %s)", nullFlag(args[0]), nullFlag(args[1]), nullFlag(args[0]), nullFlag(args[1]), eq.c)), null: "false"}, nil
	case "and", "or":
		return g.logic(name, args)
	case "xor":
		return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("%s != %s", args[0].c, args[1].c)), null: g.nullOf(args)}, nil
	case "not":
		return &val{kind: kBool, c: g.declare(kBool, 0, "!"+args[0].c), null: args[0].null}, nil
	case "is_null":
		return &val{kind: kBool, c: g.declare(kBool, 0, nullFlag(args[0])), null: "false"}, nil
	case "is_not_null":
		return &val{kind: kBool, c: g.declare(kBool, 0, "!"+nullFlag(args[0])), null: "false"}, nil
	case "is_true", "is_false", "is_not_true", "is_not_false":
		if args[0].kind != kBool {
			return nil, g.notFusable(name)
		}
		var cexpr string
		switch name {
		case "is_true":
			cexpr = fmt.Sprintf("!%s && %s", nullFlag(args[0]), args[0].c)
		case "is_false":
			cexpr = fmt.Sprintf("!%s && !%s", nullFlag(args[0]), args[0].c)
		case "is_not_true":
			cexpr = fmt.Sprintf("%s || !%s", nullFlag(args[0]), args[0].c)
		default:
			cexpr = fmt.Sprintf("%s || %s", nullFlag(args[0]), args[0].c)
		}
		return &val{kind: kBool, c: g.declare(kBool, 0, cexpr), null: "false"}, nil
	case "in":
		return g.in(args)
	case "case", "if", "ifnull", "coalesce", "nullif":
		return g.conditional(name, c.T, args)
	case "cast_to_double", "cast_to_bigint", "cast_to_boolean", "cast_to_varchar":
		return g.cast(name, args[0])
	}
	if v, err := g.regexCall(name, c, args); v != nil || err != nil {
		return v, err
	}
	if v, err := g.encodeCall(name, c, args); v != nil || err != nil {
		return v, err
	}
	if v, err := g.mathCall(name, c, args); v != nil || err != nil {
		return v, err
	}
	if rk == kSV || c.T == coldata.Int64 || c.T == coldata.Bool {
		if v, err := g.stringCall(name, c, args); v != nil || err != nil {
			return v, err
		}
	}
	return nil, g.notFusable(name)
}

func nullFlag(v *val) string {
	if v.null == "" {
		return "false"
	}
	return v.null
}

func (g *gen) arith(op string, t coldata.Type, args []*val) (*val, error) {
	null := g.nullOf(args)
	if t == coldata.Int64 {
		fn := map[string]string{"+": "add_overflows", "-": "sub_overflows", "*": "mul_overflows"}[op]
		r := g.tmp()
		g.emit("int64_t %s;", r)
		g.emit("if (%s(%s, %s, &%s) && !%s) err = GSQL_ERR_OVERFLOW;", fn, asInt(args[0]), asInt(args[1]), r, null)
		return &val{kind: kInt, c: r, null: null}, nil
	}
	return &val{kind: kFloat, c: g.declare(kFloat, 0, fmt.Sprintf("%s %s %s", asFloat(args[0]), op, asFloat(args[1]))), null: null}, nil
}

func (g *gen) compare(op string, args []*val) (*val, error) {
	a, b := args[0], args[1]
	null := g.nullOf(args)
	// A string against a number compares as DOUBLE ('1' = 1), as on the
	// CPU (NULLIF's Check keeps its argument types).
	if isStr(a) != isStr(b) {
		if isStr(a) {
			a = g.parseDouble(a)
		} else {
			b = g.parseDouble(b)
		}
	}
	if a.kind == kDec || b.kind == kDec {
		var err error
		if a, b, err = g.decComparands(a, b); err != nil {
			return nil, err
		}
	}
	var cexpr string
	switch {
	case isStr(a) && isStr(b):
		sa, sb := g.asSV(a), g.asSV(b)
		if op == "==" || op == "!=" {
			cexpr = fmt.Sprintf("%ssv_eq(%s, %s)", map[bool]string{true: "", false: "!"}[op == "=="], sa.c, sb.c)
		} else {
			cexpr = fmt.Sprintf("sv_cmp(%s, %s) %s 0", sa.c, sb.c, op)
		}
	case a.kind == kDec && b.kind == kDec:
		cexpr = fmt.Sprintf("%s %s %s", a.c, op, b.c)
	case a.kind == kFloat || b.kind == kFloat:
		cexpr = fmt.Sprintf("%s %s %s", asFloat(a), op, asFloat(b))
	case (a.kind == kInt || a.kind == kBool) && (b.kind == kInt || b.kind == kBool):
		cexpr = fmt.Sprintf("%s %s %s", asInt(a), op, asInt(b))
	default:
		return nil, fmt.Errorf("%w: comparison of mixed kinds", ErrNotFusable)
	}
	return &val{kind: kBool, c: g.declare(kBool, 0, cexpr), null: null}, nil
}

func isStr(v *val) bool { return v.kind == kSV || v.kind == kRope || v.kind == kGen }

// logic is SQL's three-valued AND/OR.
func (g *gen) logic(op string, args []*val) (*val, error) {
	a, b := args[0], args[1]
	an, bn := nullFlag(a), nullFlag(b)
	res, null := g.tmp(), g.tmp()
	if op == "and" {
		// FALSE if either is FALSE; else NULL if either is NULL.
		g.emit("bool %s_f = (!%s && !%s) || (!%s && !%s);", res, an, a.c, bn, b.c)
		g.emit("bool %s = !%s_f && (%s || %s);", null, res, an, bn)
		g.emit("bool %s = !%s_f && !%s;", res, res, null)
	} else {
		g.emit("bool %s_t = (!%s && %s) || (!%s && %s);", res, an, a.c, bn, b.c)
		g.emit("bool %s = !%s_t && (%s || %s);", null, res, an, bn)
		g.emit("bool %s = %s_t;", res, res)
	}
	return &val{kind: kBool, c: res, null: null}, nil
}

// in is MySQL IN: TRUE on a match, else NULL if x or any item is NULL.
func (g *gen) in(args []*val) (*val, error) {
	x := args[0]
	res, anyNull := g.tmp(), g.tmp()
	g.emit("bool %s = false, %s = false;", res, anyNull)
	for _, v := range args[1:] {
		eq, err := g.compare("==", []*val{x, {kind: v.kind, c: v.c, null: "false", n: v.n, size: v.size, write: v.write, t: v.t, sc: v.sc}})
		if err != nil {
			return nil, err
		}
		g.emit("if (%s) %s = true; else if (%s) %s = true;", nullFlag(v), anyNull, eq.c, res)
	}
	// A NULL x is NULL whatever its (meaningless) value matched.
	null := g.tmp()
	g.emit("bool %s = %s || (!%s && %s);", null, nullFlag(x), res, anyNull)
	g.emit("%s = %s && !%s;", res, res, nullFlag(x))
	return &val{kind: kBool, c: res, null: null}, nil
}

// conditional handles CASE, IF, IFNULL, COALESCE and NULLIF: the
// copy_if_else of the library, but for strings it picks a view.
func (g *gen) conditional(name string, t coldata.Type, args []*val) (*val, error) {
	type branch struct {
		cond string // C condition choosing this branch ("" = else)
		v    *val
	}
	var bs []branch
	switch name {
	case "case":
		n := len(args)
		for i := 0; i+1 < n; i += 2 {
			bs = append(bs, branch{cond: fmt.Sprintf("(!%s && %s)", nullFlag(args[i]), args[i].c), v: args[i+1]})
		}
		if n%2 == 1 {
			bs = append(bs, branch{v: args[n-1]})
		} else {
			// The implicit ELSE NULL, of the result type (a DECIMAL's
			// scale included).
			bs = append(bs, branch{v: &val{kind: kindOf(t), null: "true", c: zeroOf(kindOf(t)), t: t}})
		}
	case "if":
		bs = []branch{{cond: fmt.Sprintf("(!%s && %s)", nullFlag(args[0]), args[0].c), v: args[1]}, {v: args[2]}}
	case "ifnull", "coalesce":
		for i, a := range args {
			if i == len(args)-1 {
				bs = append(bs, branch{v: a})
			} else {
				bs = append(bs, branch{cond: "!" + nullFlag(a), v: a})
			}
		}
	case "nullif":
		eq, err := g.compare("==", args)
		if err != nil {
			return nil, err
		}
		bs = []branch{{cond: fmt.Sprintf("(!%s && %s)", nullFlag(eq), eq.c), v: &val{kind: args[0].kind, null: "true", c: zeroOf(args[0].kind), n: args[0].n, t: args[0].t, sc: args[0].sc}}, {v: args[0]}}
	}
	rk := kindOf(t)
	res, null := g.tmp(), g.tmp()
	if rk == kSV {
		// A string result is a view when every branch is one, else a rope.
		capN := 1
		allSV := true
		for _, b := range bs {
			if b.v.kind != kSV {
				allSV = false
			}
			if c := ropeCap(b.v); c > capN {
				capN = c
			}
		}
		// Branch values first: making them contiguous emits statements,
		// which must not land between the if and its else.
		cs := make([]string, len(bs))
		for i, b := range bs {
			switch {
			case allSV:
				cs[i] = g.asSV(b.v).c
			case b.v.null == "true" && b.v.c == zeroOf(kSV):
				cs[i] = fmt.Sprintf("rope_of<%d>(sv_make(\"\", 0))", capN)
			default:
				cs[i] = g.asRope(b.v, capN)
			}
		}
		if allSV {
			g.emit("SV %s = sv_make(\"\", 0); bool %s = true;", res, null)
		} else {
			g.emit("Rope<%d> %s; %s.k = 0; bool %s = true;", capN, res, res, null)
		}
		for i, b := range bs {
			g.emit("%s{ %s = %s; %s = %s; }", branchPrefix(i, b.cond), res, cs[i], null, nullFlag(b.v))
		}
		if allSV {
			return &val{kind: kSV, c: res, null: null}, nil
		}
		return &val{kind: kRope, c: res, null: null, n: capN}, nil
	}
	g.emit("%s %s = %s; bool %s = true;", ctype(rk, 0), res, zeroOf(rk), null)
	for i, b := range bs {
		var c string
		switch rk {
		case kFloat:
			c = asFloat(b.v)
		case kInt:
			c = asInt(b.v)
		default:
			c = b.v.c
		}
		g.emit("%s{ %s = %s; %s = %s; }", branchPrefix(i, b.cond), res, c, null, nullFlag(b.v))
	}
	if rk == kDec {
		for _, b := range bs {
			if b.v.kind != kDec || (!g.interp && b.v.t.Scale() != t.Scale()) {
				return nil, fmt.Errorf("%w: %s over values of another type than %s", ErrNotFusable, name, t)
			}
		}
		return g.decVal(res, null, t), nil
	}
	return &val{kind: rk, c: res, null: null}, nil
}

func branchPrefix(i int, cond string) string {
	switch {
	case cond == "" && i == 0:
		return ""
	case cond == "":
		return "else "
	case i == 0:
		return "if " + wrap(cond) + " "
	}
	return "else if " + wrap(cond) + " "
}

func wrap(c string) string {
	if strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
		return c
	}
	return "(" + c + ")"
}

func zeroOf(k kind) string {
	switch k {
	case kInt:
		return "(int64_t)0"
	case kFloat:
		return "0.0"
	case kBool:
		return "false"
	case kDec:
		return "(dec_t)0"
	}
	return "sv_make(\"\", 0)"
}

// cast generates CAST between the four types. String to number parses the
// leading number as the CPU does; a DOUBLE the kernel cannot parse exactly
// sends the batch to the CPU. DOUBLE to string is left to the CPU.
func (g *gen) cast(name string, a *val) (*val, error) {
	switch name {
	case "cast_to_double":
		switch a.kind {
		case kInt, kFloat, kBool:
			return &val{kind: kFloat, c: g.declare(kFloat, 0, asFloat(a)), null: a.null}, nil
		}
		return g.parseDouble(a), nil
	case "cast_to_bigint":
		switch a.kind {
		case kInt, kBool:
			return &val{kind: kInt, c: g.declare(kInt, 0, asInt(a)), null: a.null}, nil
		case kFloat:
			return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("double_to_int(%s)", a.c)), null: a.null}, nil
		}
		return &val{kind: kInt, c: g.declare(kInt, 0, fmt.Sprintf("parse_int_prefix(%s)", g.asSV(a).c)), null: a.null}, nil
	case "cast_to_boolean":
		switch a.kind {
		case kInt, kFloat:
			return &val{kind: kBool, c: g.declare(kBool, 0, fmt.Sprintf("%s != 0", a.c)), null: a.null}, nil
		case kBool:
			return a, nil
		}
		f := g.parseDouble(a)
		return &val{kind: kBool, c: g.declare(kBool, 0, f.c+" != 0.0"), null: a.null}, nil
	}
	// cast_to_varchar
	switch a.kind {
	case kSV, kRope, kGen:
		return a, nil
	case kBool:
		return &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("%s ? sv_make(\"1\", 1) : sv_make(\"0\", 1)", a.c)), null: a.null}, nil
	case kInt:
		v := a.c
		return &val{kind: kGen, null: a.null, size: fmt.Sprintf("int_text_len(%s)", v),
			write: func(dst string) string { return fmt.Sprintf("int_text_write(%s, %s);", v, dst) }}, nil
	}
	return nil, fmt.Errorf("%w: CAST of DOUBLE to VARCHAR", ErrNotFusable)
}

// parseDouble converts a string value to DOUBLE, flagging rows the kernel
// cannot convert exactly.
func (g *gen) parseDouble(a *val) *val {
	s := g.asSV(a).c
	inexact := g.tmp()
	g.emit("bool %s = false;", inexact)
	v := g.declare(kFloat, 0, fmt.Sprintf("parse_double_prefix(%s, &%s)", s, inexact))
	g.emit("if (%s && !%s && err == 0) err = GSQL_ERR_FALLBACK;", inexact, nullFlag(a))
	return &val{kind: kFloat, c: v, null: a.null}
}

// inSortedMin is the number of integer literals from which IN searches a
// sorted array instead of comparing one literal at a time: a list bound
// from a subquery (TPC-H Q20's thousands of keys) would otherwise need a
// kernel parameter per item.
const inSortedMin = 16

// inSorted generates x IN (integer literals...) with many literals as a
// binary search over one sorted parameter array (the kernel's source does
// not depend on the list, so lists of any length share it). It returns
// (nil, nil) for other IN lists.
func (g *gen) inSorted(c *expr.Call) (*val, error) {
	if len(c.Args)-1 < inSortedMin || c.Args[0].Type().Physical() != coldata.Int64 {
		return nil, nil
	}
	var keys []int64
	anyNull := false
	for _, a := range c.Args[1:] {
		l, ok := a.(*expr.Literal)
		if !ok || l.T.Physical() != coldata.Int64 && l.T != coldata.Null {
			return nil, nil
		}
		if l.Value == nil {
			anyNull = true
			continue
		}
		k, ok := l.Value.(int64)
		if !ok {
			return nil, nil
		}
		keys = append(keys, k)
	}
	x, err := g.expr(c.Args[0])
	if err != nil {
		return nil, err
	}
	if x.kind != kInt {
		return nil, nil
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	buf := make([]byte, 8*len(keys))
	for i, k := range keys {
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(k))
	}
	arr := g.newStringSlot(string(buf))
	res, null := g.tmp(), g.tmp()
	g.emit("SV %s_a = %s;", res, arr)
	g.emit("bool %s = !%s && in_sorted_i64((const int64_t*)%s_a.p, %s_a.n / 8, %s);", res, nullFlag(x), res, res, x.c)
	// No match: NULL when x is NULL or the list holds a NULL.
	g.emit("bool %s = !%s && (%s || %v);", null, res, nullFlag(x), anyNull)
	return &val{kind: kBool, c: res, null: null}, nil
}
