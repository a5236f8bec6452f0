package fuse

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// MySQL's TIME functions, periods and composite INTERVALs
// (expr/temporal_mysql.go) over the runtime's rt/mysql_time.cuh. A TIME is
// text in SQL and a signed microsecond count in the kernels; text
// arguments are read with dt_parse_time, text results written with
// dt_time_or_ts_write (a timestamp's text where MySQL gives one).

// mysqlTimeCall generates the functions above; ok is false for any other
// call. result declares an integer result as dateCall's helper does.
func (g *gen) mysqlTimeCall(c *expr.Call, args []*val, result func(value, bad string) *val) (v *val, ok bool, err error) {
	at := func(i int) coldata.Type { return c.Args[i].Type() }
	null := g.nullOf(args)
	// nullOr is the arguments' NULL flag or'ed with !good.
	nullOr := func(good string) string {
		nb := g.tmp()
		g.emit("bool %s = %s || !(%s);", nb, null, good)
		return nb
	}
	r, good := g.tmp(), g.tmp()
	switch c.Fn.Name {
	case "maketime":
		g.emit("int64_t %s = 0; bool %s = dt_make_time(%s, %s, %s, &%s);", r, good, args[0].c, args[1].c, asFloat(args[2]), r)
		return timeText(r, "false", nullOr(good)), true, nil
	case "sec_to_time":
		g.emit("int64_t %s = 0; bool %s = dt_seconds_micros(%s, &%s);", r, good, asFloat(args[0]), r)
		g.emit("%s = dt_clamp_time(%s);", r, r)
		return timeText(r, "false", nullOr(good)), true, nil
	case "time_to_sec":
		// A timestamp reads as its time of day; the fraction is dropped.
		t, isDT, read := g.timeArg(args[0], at(0))
		g.emit("int64_t %s = (%s ? dt_tod(%s) : %s) / DT_US_SEC;", r, isDT, t, t)
		return result(r, "!"+read), true, nil
	case "addtime", "subtime":
		sign := 1
		if c.Fn.Name == "subtime" {
			sign = -1
		}
		a, aDT, read := g.timeArg(args[0], at(0))
		if at(1).IsTemporal() {
			// A timestamp as the TIME added is NULL (MariaDB's answer).
			g.emit("int64_t %s = 0; bool %s = false;", r, good)
		} else {
			g.emit("int64_t %s = 0; bool %s = %s && dt_add_time(%s, %s, %s, %d, &%s);", r, good, read, a, aDT, g.asSV(args[1]).c, sign, r)
		}
		if c.T.IsTemporal() {
			return result(r, "!"+good), true, nil
		}
		return timeText(r, aDT, nullOr(good)), true, nil
	case "timediff":
		a, aDT, aRead := g.timeArg(args[0], at(0))
		b, bDT, bRead := g.timeArg(args[1], at(1))
		g.emit("int64_t %s = dt_clamp_time((int64_t)((uint64_t)%s - (uint64_t)%s));", r, a, b)
		return timeText(r, "false", nullOr(fmt.Sprintf("%s && %s && %s == %s", aRead, bRead, aDT, bDT))), true, nil
	case "time_format":
		// A TIMESTAMP reads as its time of day; an empty format or one
		// with a date specifier a TIME cannot give is NULL.
		a, aDT, read := g.timeArg(args[0], at(0))
		f := g.asSV(args[1]).c
		g.emit("int64_t %s = %s ? dt_tod(%s) : %s;", r, aDT, a, a)
		nb := nullOr(fmt.Sprintf("%s && %s.n > 0 && dt_time_format_valid(%s)", read, f, f))
		return &val{kind: kGen, null: nb, size: fmt.Sprintf("dt_time_format(%s, %s, (char*)0)", f, r),
			write: func(dst string) string { return fmt.Sprintf("dt_time_format(%s, %s, %s);", f, r, dst) }}, true, nil
	case "cast_to_time", "time_literal":
		// A TIMESTAMP reads as its time of day; CAST prints its fsp
		// digits, a literal its own. A literal that is no TIME sends the
		// batch to the CPU, which reports the error.
		a, aDT, read := g.timeArg(args[0], at(0))
		fsp := g.tmp()
		if c.Fn.Name == "time_literal" {
			g.emit("int32_t %s = dt_literal_fsp(%s);", fsp, g.asSV(args[0]).c)
			g.emit("if (!%s && !%s && err == 0) err = GSQL_ERR_FALLBACK;", null, read)
		} else {
			// A precision out of 0..6 (the binder never makes one) is
			// the CPU's error.
			g.emit("int32_t %s = (int32_t)%s;", fsp, args[1].c)
			g.emit("if ((%s || %s < 0 || %s > 6) && err == 0) err = GSQL_ERR_FALLBACK;", nullFlag(args[1]), args[1].c, args[1].c)
			g.emit("if (%s < 0 || %s > 6) %s = 0;", fsp, fsp, fsp)
		}
		g.emit("int64_t %s = dt_round_time(%s ? dt_tod(%s) : %s, %s);", r, aDT, a, a, fsp)
		return &val{kind: kGen, null: nullOr(read), size: fmt.Sprintf("dt_time_write_fsp(%s, %s, (char*)0)", r, fsp),
			write: func(dst string) string { return fmt.Sprintf("dt_time_write_fsp(%s, %s, %s);", r, fsp, dst) }}, true, nil
	case "period_add", "period_diff":
		// A period whose month is 0 or past 12 is an error: the CPU
		// reports it.
		m, m2, good2 := g.tmp(), g.tmp(), g.tmp()
		g.emit("int64_t %s = 0; bool %s = dt_period_months(%s, &%s);", m, good, args[0].c, m)
		if c.Fn.Name == "period_diff" {
			g.emit("int64_t %s = 0; bool %s = dt_period_months(%s, &%s);", m2, good2, args[1].c, m2)
		} else {
			g.emit("bool %s = true;", good2)
		}
		g.emit("if (!%s && !(%s && %s) && err == 0) err = GSQL_ERR_FALLBACK;", null, good, good2)
		if c.Fn.Name == "period_diff" {
			return result(g.declare(kInt, 0, fmt.Sprintf("%s - %s", m, m2)), fmt.Sprintf("!%s || !%s", good, good2)), true, nil
		}
		k := args[1].c
		fits := g.declare(kBool, 0, fmt.Sprintf("%s && %s <= 120000 && %s >= -120000", good, k, k))
		return result(g.declare(kInt, 0, fmt.Sprintf("%s ? dt_months_period(%s + %s) : 0", fits, m, k)), "!"+fits), true, nil
	case "convert_tz":
		// SYSTEM reads the binder's offset (args[3]); a system zone with
		// daylight saving time sends the batch to the CPU, which knows
		// the host's rules.
		from, to, fk, tk := g.tmp(), g.tmp(), g.tmp(), g.tmp()
		g.emit("int64_t %s = 0, %s = 0; int32_t %s = dt_tz_zone(%s, &%s); int32_t %s = dt_tz_zone(%s, &%s);",
			from, to, fk, g.asSV(args[1]).c, from, tk, g.asSV(args[2]).c, to)
		g.emit("if (!%s && (%s == 2 || %s == 2) && %s == DT_TZ_SYSTEM_VARIES && err == 0) err = GSQL_ERR_FALLBACK;", null, fk, tk, args[3].c)
		g.emit("if (%s == 2) %s = %s;", fk, from, args[3].c)
		g.emit("if (%s == 2) %s = %s;", tk, to, args[3].c)
		g.emit("int64_t %s = dt_convert_tz(%s, %s, %s);", r, args[0].c, from, to)
		return result(r, fmt.Sprintf("%s == 0 || %s == 0", fk, tk)), true, nil
	case "date_add_interval":
		u, sign, err := g.compositeUnit(args[2])
		if err != nil {
			return nil, true, err
		}
		g.emit("int64_t %s = 0; bool %s = %s >= 0 && dt_add_composite(%s, %v, %s, %s, %s, &%s);",
			r, good, u, args[0].c, at(0) == coldata.Date, g.asSV(args[1]).c, u, sign, r)
		return result(r, "!"+good), true, nil
	}
	return nil, false, nil
}

// timeArg reads a TIME function's argument: a TIMESTAMP is itself (a
// timestamp), text goes through dt_parse_time. It returns the C names of
// the value, of whether it is a timestamp and of whether it read.
func (g *gen) timeArg(a *val, t coldata.Type) (v, isDT, read string) {
	if t.IsTimestamp() {
		return a.c, "true", "true"
	}
	v, isDT, read = g.tmp(), g.tmp(), g.tmp()
	g.emit("int64_t %s = 0; bool %s = false; bool %s = dt_parse_time(%s, &%s, &%s);", v, isDT, read, g.asSV(a).c, v, isDT)
	return v, isDT, read
}

// timeText is the text of TIME v, or of timestamp v where isDT holds.
func timeText(v, isDT, null string) *val {
	return &val{kind: kGen, null: null, size: fmt.Sprintf("dt_time_or_ts_write(%s, %s, (char*)0)", v, isDT),
		write: func(dst string) string { return fmt.Sprintf("dt_time_or_ts_write(%s, %s, %s);", v, isDT, dst) }}
}

// compositeUnit is date_add_interval's unit argument ('[-]day_hour'): a
// literal resolves here, else dt_composite_unit reads it per row, and an
// unknown or NULL unit sends the batch to the CPU, which reports the
// error. It returns the C unit code (-1 unknown) and sign.
func (g *gen) compositeUnit(v *val) (code, sign string, err error) {
	if v.lit != nil {
		s, _ := v.lit.Value.(string)
		sign = "1"
		if strings.HasPrefix(s, "-") {
			sign, s = "-1", s[1:]
		}
		u, known := expr.ParseUnit(s)
		if v.lit.Value == nil || !expr.IsCompositeUnit(s) || !known {
			return "", "", fmt.Errorf("%w: INTERVAL unit %v", ErrNotFusable, v.lit.Value)
		}
		return fmt.Sprintf("%d", u), sign, nil
	}
	code, sign = g.tmp(), g.tmp()
	g.emit("int64_t %s = 1; int32_t %s = dt_composite_unit(%s, &%s);", sign, code, g.asSV(v).c, sign)
	g.emit("if ((%s || %s < 0) && err == 0) err = GSQL_ERR_FALLBACK;", nullFlag(v), code)
	return code, sign, nil
}
