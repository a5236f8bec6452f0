package expr

import (
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
)

// The warnings MySQL gives where a SELECT's expression reads bad input
// (its default sql_mode reads a SELECT leniently): the value is NULL, or
// the number read from text's prefix, and the statement carries a
// warning. Each hook wraps a kernel and inspects its result only where
// that is cheap: a result without NULLs has nothing to report (its
// bitmap is nil), so the scan runs only when the kernel made NULLs; the
// text-to-number casts check each string's tail, a scan no longer than
// the parse itself, and only for text arguments.
//
// This file's init must run after the kernels are registered: Go runs a
// package's init functions in file-name order, and every kernel file
// sorts before this one.

func init() {
	for _, name := range []string{"/", "div", "%"} {
		warnOnNull(name, func(w *Warnings, _ []*coldata.Vec, _ int) {
			w.Add(WarnDivByZero, "Division by 0")
		})
	}
	for _, name := range []string{CastFuncName(coldata.Date), CastFuncName(coldata.Timestamp)} {
		warnOnNull(name, func(w *Warnings, args []*coldata.Vec, i int) {
			w.Add(WarnTruncated, "Incorrect datetime value: '%s'", valueText(args[0], i))
		})
		warnDateTail(name, name == CastFuncName(coldata.Date))
	}
	// A comparison's text: the zero date where it is no date, with its
	// own warning (evalCmpTimestamp); a date read from a prefix warns as
	// the cast's does.
	warnDateTail(CmpTimestampName, false)
	for _, name := range []string{"date_add_days", "date_add_months", "date_add_micros", "date_add_interval"} {
		warnOnNull(name, func(w *Warnings, args []*coldata.Vec, i int) {
			if name == "date_add_interval" && !intervalTextOK(args, i) {
				// Text that is no interval of the unit ('1 2 3' DAY_HOUR)
				// is NULL without a warning, as in MySQL.
				return
			}
			w.Add(WarnDatetimeOverflow, "Datetime function: datetime field overflow")
		})
	}
	// str_to_date and str_to_dayclock warn themselves (evalStrToDate).
	for _, name := range []string{"cast_to_time", "time_to_sec"} {
		warnOnNull(name, func(w *Warnings, args []*coldata.Vec, i int) {
			w.Add(WarnTruncated, "Incorrect time value: '%s'", valueText(args[0], i))
		})
	}
	// TIME text past 838:59:59 is clamped with a warning.
	warnRows("cast_to_time", func(w *Warnings, args []*coldata.Vec, out *coldata.Vec, i int) {
		if args[0].Type == coldata.String && isClampedTime(out.Str(i)) && datetime.TimeClamped(string(args[0].Str(i))) {
			w.Add(WarnTruncated, "Truncated incorrect time value: '%s'", args[0].Str(i))
		}
	})
	warnRows("time_to_sec", func(w *Warnings, args []*coldata.Vec, out *coldata.Vec, i int) {
		if v := out.Int(i); args[0].Type == coldata.String && (v == 3020399 || v == -3020399) && datetime.TimeClamped(string(args[0].Str(i))) {
			w.Add(WarnTruncated, "Truncated incorrect time value: '%s'", args[0].Str(i))
		}
	})
	warnRows("maketime", func(w *Warnings, args []*coldata.Vec, out *coldata.Vec, i int) {
		if h := args[0].Int(i); isClampedTime(out.Str(i)) && (h > 838 || h < -838) {
			// MySQL quotes whole seconds (Item_func_maketime).
			w.Add(WarnTruncated, "Truncated incorrect time value: '%d:%02d:%02d'", h, args[1].Int(i), int64(args[2].Float(i)))
		}
	})
	warnRows("sec_to_time", func(w *Warnings, args []*coldata.Vec, out *coldata.Vec, i int) {
		if s := args[0].Float(i); isClampedTime(out.Str(i)) && (s > 3020399 || s < -3020399) {
			w.Add(WarnTruncated, "Truncated incorrect seconds value: '%s'", AppendFloat(nil, s))
		}
	})
	warnTruncatedText(CastFuncName(coldata.Float64), "DOUBLE", false, true)
	warnTruncatedText(CastFuncName(coldata.Int64), "INTEGER", true, true)
	warnTruncatedText("cast_to_decimal", "DECIMAL", false, false)
}

// warnOnNull gives function name an EvalW that calls warn for each row
// its kernel made NULL although no argument was.
func warnOnNull(name string, warn func(w *Warnings, args []*coldata.Vec, row int)) {
	f, ok := Lookup(name)
	if !ok {
		panic("expr: no function " + name + " to warn for")
	}
	eval := f.Eval
	f.EvalW = func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
		out, err := eval(args, n)
		if err != nil || w == nil || out == nil || out.Nulls == nil {
			return out, err
		}
		for i := 0; i < n; i++ {
			if out.IsNull(i) && !anyNull(args, i) {
				warn(w, args, i)
			}
		}
		return out, nil
	}
}

// intervalTextOK reports whether row i of date_add_interval's text reads
// as an interval of its unit (the constant third argument).
func intervalTextOK(args []*coldata.Vec, i int) bool {
	unit := strings.TrimPrefix(string(args[2].Str(0)), "-")
	steps, ok := compositeUnits[unit]
	if !ok {
		return false
	}
	_, _, ok = datetime.IntervalFields(string(args[1].Str(i)), len(steps), strings.HasSuffix(unit, "microsecond"))
	return ok
}

// warnRows gives function name an EvalW that calls warn for each row
// whose result is not NULL (after any EvalW it had), for warnings about
// values the kernel clamped; it runs only where a row's result is 838
// hours or more, which warn checks first.
func warnRows(name string, warn func(w *Warnings, args []*coldata.Vec, out *coldata.Vec, row int)) {
	f, ok := Lookup(name)
	if !ok {
		panic("expr: no function " + name + " to warn for")
	}
	eval := f.EvalW
	if eval == nil {
		plain := f.Eval
		eval = func(args []*coldata.Vec, n int, _ *Warnings) (*coldata.Vec, error) { return plain(args, n) }
	}
	f.EvalW = func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
		out, err := eval(args, n, w)
		if err != nil || w == nil || out == nil {
			return out, err
		}
		for i := 0; i < n; i++ {
			if !out.IsNull(i) && !anyNull(args, i) {
				warn(w, args, out, i)
			}
		}
		return out, nil
	}
}

// isClampedTime reports whether TIME text t is MySQL's largest TIME or its
// negative (838:59:59, with or without a fraction).
func isClampedTime(t []byte) bool {
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
	}
	return len(t) >= 9 && string(t[:9]) == "838:59:59"
}

// warnDateTail wraps the EvalW of the text-to-date cast name to warn, as
// MySQL's 1292 "Truncated incorrect date value: '2024-01-05abc'", on each
// text that reads as a date only by dropping its trailing text (the word
// is "datetime" when the part read has a time of day). A constant is
// checked once and warns once per row.
func warnDateTail(name string, date bool) {
	f, ok := Lookup(name)
	if !ok || f.EvalW == nil {
		panic("expr: no function " + name + " to warn for")
	}
	evalW := f.EvalW
	f.EvalW = func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
		out, err := evalW(args, n, w)
		in := args[0]
		if err != nil || w == nil || out == nil || in.Type != coldata.String || isConstNull(in) {
			return out, err
		}
		rows := n
		if in.Const {
			rows = min(n, 1)
		}
		for i := 0; i < rows; i++ {
			if in.IsNull(i) || out.IsNull(i) {
				continue
			}
			s := string(in.Str(i))
			if kind, ok := datetime.TruncatedPrefix(s, date); ok {
				ws := []Warning{{Level: "Warning", Code: WarnTruncated, Msg: "Truncated incorrect " + kind + " value: '" + s + "'"}}
				if in.Const {
					w.addTimes(ws, n)
				} else {
					w.addTimes(ws, 1)
				}
			}
		}
		return out, nil
	}
}

// warnTruncatedText gives the cast function name an EvalW that warns,
// as MySQL's 1292 "Truncated incorrect <what> value", on each text
// argument that is not wholly a number: a Note when only spaces follow
// the number, else a Warning. With parses, the EvalW converts a text
// column itself and learns of a bad tail from the parse (where the
// number ends); otherwise, and for a constant, the text is checked after
// the kernel.
func warnTruncatedText(name, what string, integer, parses bool) {
	f, ok := Lookup(name)
	if !ok {
		panic("expr: no function " + name + " to warn for")
	}
	eval := f.Eval
	f.EvalW = func(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
		in := args[0]
		if w == nil || in.Type != coldata.String || isConstNull(in) {
			return eval(args, n)
		}
		if parses && !in.Const {
			return parseTextWarn(in, n, integer, what, w), nil
		}
		out, err := eval(args, n)
		if err != nil {
			return out, err
		}
		for i := 0; i < n; i++ {
			if in.IsNull(i) {
				continue
			}
			s := in.Str(i)
			if t := numberTail(s, integer); t != tailNone {
				warnTail(w, what, s, t == tailOther)
			}
		}
		return out, nil
	}
}

// parseTextWarn converts n rows of text column in to DOUBLE (or BIGINT
// when integer), as castVec does, warning on each text that is not
// wholly a number.
func parseTextWarn(in *coldata.Vec, n int, integer bool, what string, w *Warnings) *coldata.Vec {
	offs := in.Offsets[:n+1]
	var out *coldata.Vec
	if integer {
		out = coldata.NewVec(coldata.Int64, n)
		r := out.Ints[:n]
		for i := range r {
			s := in.Bytes[offs[i]:offs[i+1]]
			var end int
			if r[i], end = parseIntPrefixEnd(s); end != len(s) && !in.IsNull(i) {
				warnTail(w, what, s, end < 0 || numberTail(s, true) == tailOther)
			}
		}
	} else {
		out = coldata.NewVec(coldata.Float64, n)
		r := out.Floats[:n]
		for i := range r {
			s := in.Bytes[offs[i]:offs[i+1]]
			var end int
			if r[i], end = parseFloatPrefixEnd(s); end != len(s) && !in.IsNull(i) {
				warnTail(w, what, s, end < 0 || numberTail(s, false) == tailOther)
			}
		}
	}
	if in.Nulls != nil {
		out.Nulls = in.Nulls[:coldata.BitmapLen(n)]
	}
	return out
}

// warnTail records MySQL's warning for text s read as a <what> number
// whose tail is not empty: a Note when only spaces follow the number.
func warnTail(w *Warnings, what string, s []byte, other bool) {
	if other {
		w.Add(WarnTruncated, "Truncated incorrect %s value: '%s'", what, string(s))
		return
	}
	w.AddLevel("Note", WarnTruncated, "Truncated incorrect %s value: '%s'", what, string(s))
}

// What follows the number at the start of a text.
const (
	tailNone   = iota // nothing: the text is a number
	tailSpaces        // only whitespace (MySQL's Note)
	tailOther         // anything else, or no number at all
)

// numberTail classifies the text after the longest number at the start
// of s (leading whitespace, a sign, digits, and unless integer a
// fraction and an exponent), as MySQL's conversion reads it.
func numberTail(s []byte, integer bool) int {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if !integer && i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return tailOther
	}
	if !integer {
		i = exponentEnd(s, i)
	}
	if i == len(s) {
		return tailNone
	}
	for ; i < len(s); i++ {
		if !isSpaceByte(s[i]) {
			return tailOther
		}
	}
	return tailSpaces
}

// anyNull reports whether some argument is NULL at row i.
func anyNull(args []*coldata.Vec, i int) bool {
	for _, a := range args {
		if a.Type == coldata.Null || a.IsNull(i) {
			return true
		}
	}
	return false
}

// valueText is row i of v as MySQL quotes it in a warning.
func valueText(v *coldata.Vec, i int) string {
	switch {
	case v.Type == coldata.String:
		return string(v.Str(i))
	case v.Type == coldata.Int64:
		return strconv.FormatInt(v.Int(i), 10)
	case v.Type == coldata.Float64:
		return string(AppendFloat(nil, v.Float(i)))
	case v.Type.IsDecimal():
		return v.Dec(i).String(v.Type.Scale())
	case v.Type.Plain() == coldata.Date:
		return datetime.FormatDate(v.Int(i))
	case v.Type.Plain() == coldata.Timestamp:
		return datetime.FormatTimestamp(v.Int(i))
	}
	return v.Type.String()
}
