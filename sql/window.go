package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Window functions, f(args) OVER (PARTITION BY ... ORDER BY ... frame) and
// OVER name with a WINDOW name AS (...) clause, which the stock grammar
// lacks. Named windows are expanded first (expandWindows, on tokens); then
// the rewriter emits each call as one marker call the binder
// (planner/bindwindow.go) unwraps:
//
//	gsql_over('f', 'source text',
//	          gsql_win_args(args),
//	          gsql_win_partition(p1, p2, ...),
//	          gsql_win_order(gsql_win_key(e, desc, nulls), ...),
//	          gsql_win_frame(unit, startKind, startOffset, endKind, endOffset))
//
// desc is 0 or 1; nulls 0 (default), 1 (NULLS FIRST) or 2 (NULLS LAST);
// unit 0 (no frame clause), 1 (ROWS) or 2 (RANGE); a bound kind is 0
// UNBOUNDED PRECEDING, 1 offset PRECEDING, 2 CURRENT ROW, 3 offset
// FOLLOWING, 4 UNBOUNDED FOLLOWING, with its offset expression (0 when it
// has none). Window functions anywhere but the select list and ORDER BY of
// a query, nested window functions and unknown window names are errors at
// their position.

// Marker names of the window rewrite.
const (
	WindowMarker          = "gsql_over"
	WindowArgsMarker      = "gsql_win_args"
	WindowPartitionMarker = "gsql_win_partition"
	WindowOrderMarker     = "gsql_win_order"
	WindowKeyMarker       = "gsql_win_key"
	WindowFrameMarker     = "gsql_win_frame"
)

// Frame bound kinds in the marker.
const (
	BoundUnboundedPreceding = iota
	BoundPreceding
	BoundCurrentRow
	BoundFollowing
	BoundUnboundedFollowing
)

// windowDef is one WINDOW name AS (spec) definition.
type windowDef struct {
	name  token
	spec  []token // inside the parentheses, references expanded
	parts windowParts
}

// windowParts locates the clauses of a window specification.
type windowParts struct {
	ref       int // index of a referenced window name, or -1
	partition int // index of PARTITION, or -1
	order     int // index of ORDER, or -1
	frame     int // index of ROWS/RANGE/GROUPS, or -1
}

func (r *rewriter) isWindowWord(t token) bool { return t.is(r.src, "over") }

// specParts finds the clauses of spec (the tokens inside OVER's
// parentheses), checking their order.
func specParts(src string, spec []token) (windowParts, *Error) {
	p := windowParts{ref: -1, partition: -1, order: -1, frame: -1}
	depth := 0
	last := -1 // the latest clause seen: 0 partition, 1 order, 2 frame
	for k, t := range spec {
		switch t.typ {
		case '(':
			depth++
			continue
		case ')':
			depth--
			continue
		}
		if depth > 0 {
			continue
		}
		clause := -1
		switch {
		case t.typ == sqlparser.PARTITION:
			clause = 0
		case t.typ == sqlparser.ORDER:
			clause = 1
		case last < 2 && (t.is(src, "rows") || t.is(src, "range") || t.is(src, "groups")):
			clause = 2
		case k == 0 && t.typ == sqlparser.ID:
			// OVER (w ...): a window name (frame units are IDs too,
			// hence after them).
			p.ref = 0
			continue
		default:
			if last < 0 {
				return p, newError(ErrSyntax, src, t.start, "near '%s': expected PARTITION BY, ORDER BY, ROWS or RANGE in a window", t.text(src))
			}
			continue
		}
		if clause <= last {
			return p, newError(ErrSyntax, src, t.start, "near '%s': window clauses go in the order PARTITION BY, ORDER BY, frame", t.text(src))
		}
		if clause < 2 && (k+1 >= len(spec) || spec[k+1].typ != sqlparser.BY) {
			return p, newError(ErrSyntax, src, t.start, "expected BY after %s", strings.ToUpper(t.text(src)))
		}
		switch clause {
		case 0:
			p.partition = k
		case 1:
			p.order = k
		case 2:
			p.frame = k
		}
		last = clause
	}
	return p, nil
}

// queryOwners gives each token the index of the SELECT of the query it
// belongs to (-1 outside any), so that a WINDOW clause names windows for
// its own query only.
func queryOwners(toks []token) []int {
	type level struct{ depth, sel int }
	owners := make([]int, len(toks))
	var stack []level
	depth := 0
	for i, t := range toks {
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
			for len(stack) > 0 && stack[len(stack)-1].depth > depth {
				stack = stack[:len(stack)-1]
			}
		case sqlparser.SELECT:
			if len(stack) > 0 && stack[len(stack)-1].depth == depth {
				stack[len(stack)-1].sel = i // the next query of a UNION
			} else {
				stack = append(stack, level{depth, i})
			}
		}
		owners[i] = -1
		if len(stack) > 0 {
			owners[i] = stack[len(stack)-1].sel
		}
	}
	return owners
}

// expandWindows removes WINDOW clauses and replaces the window names they
// define: OVER w becomes OVER (w's spec), OVER (w ORDER BY ...) becomes
// OVER (w's spec ORDER BY ...), with SQL's rules on what a reference may
// add.
func expandWindows(src string, toks []token) ([]token, *Error) {
	has := false
	for _, t := range toks {
		if t.is(src, "window") || t.is(src, "over") {
			has = true
			break
		}
	}
	if !has {
		return toks, nil
	}
	owners := queryOwners(toks)
	defs := map[int]map[string]*windowDef{}
	skip := make([]bool, len(toks))
	for i := 0; i+3 < len(toks); i++ {
		if !toks[i].is(src, "window") || toks[i+1].typ != sqlparser.ID || (toks[i+2].typ != sqlparser.AS && toks[i+2].typ != '(') {
			continue
		}
		owner := owners[i]
		if defs[owner] == nil {
			defs[owner] = map[string]*windowDef{}
		}
		k := i + 1
		for {
			if k+2 >= len(toks) || toks[k].typ != sqlparser.ID || toks[k+1].typ != sqlparser.AS || toks[k+2].typ != '(' {
				at := k
				for j := k; j < k+3 && j < len(toks) && toks[j].typ == []int{sqlparser.ID, sqlparser.AS, '('}[j-k]; j++ {
					at = j + 1
				}
				return nil, newError(ErrSyntax, src, endOf(src, toks, at), "expected name AS (window specification) in WINDOW")
			}
			end := matching(toks, k+2)
			if end < 0 {
				return nil, newError(ErrSyntax, src, toks[k+2].start, "unbalanced parenthesis")
			}
			name := strings.ToLower(toks[k].text(src))
			if defs[owner][name] != nil {
				return nil, newError(ErrSyntax, src, toks[k].start, "window %s is already defined", toks[k].text(src))
			}
			spec, parts, err := resolveSpec(src, toks[k+2:end+1], defs[owner])
			if err != nil {
				return nil, err
			}
			defs[owner][name] = &windowDef{name: toks[k], spec: spec, parts: parts}
			for j := i; j <= end; j++ {
				skip[j] = true
			}
			k = end + 1
			if k < len(toks) && toks[k].typ == ',' {
				skip[k] = true
				k++
				continue
			}
			break
		}
		i = k - 1
	}
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		if skip[i] {
			continue
		}
		t := toks[i]
		out = append(out, t)
		if !t.is(src, "over") || i == 0 || toks[i-1].typ != ')' || i+1 >= len(toks) {
			continue
		}
		switch next := toks[i+1]; {
		case next.typ == sqlparser.ID:
			// OVER name
			d := defs[owners[i]][strings.ToLower(next.text(src))]
			if d == nil {
				return nil, newError(ErrSyntax, src, next.start, "unknown window %s", next.text(src))
			}
			out = append(out, token{typ: '(', start: next.start, end: next.start})
			out = append(out, d.spec...)
			out = append(out, token{typ: ')', start: next.end, end: next.end})
			i++
		case next.typ == '(':
			end := matching(toks, i+1)
			if end < 0 {
				continue
			}
			spec, _, err := resolveSpec(src, toks[i+1:end+1], defs[owners[i]])
			if err != nil {
				return nil, err
			}
			out = append(out, toks[i+1])
			out = append(out, spec...)
			out = append(out, toks[end])
			i = end
		}
	}
	return out, nil
}

// resolveSpec returns the tokens inside the parenthesised specification
// paren, with a leading window name replaced by that window's clauses.
func resolveSpec(src string, paren []token, defs map[string]*windowDef) ([]token, windowParts, *Error) {
	spec := paren[1 : len(paren)-1]
	parts, err := specParts(src, spec)
	if err != nil {
		return nil, parts, err
	}
	if parts.ref < 0 {
		return spec, parts, nil
	}
	ref := spec[0]
	d := defs[strings.ToLower(ref.text(src))]
	if d == nil {
		return nil, parts, newError(ErrSyntax, src, ref.start, "unknown window %s", ref.text(src))
	}
	switch {
	case parts.partition >= 0:
		return nil, parts, newError(ErrSyntax, src, spec[parts.partition].start, "cannot override PARTITION BY of window %s", ref.text(src))
	case parts.order >= 0 && d.parts.order >= 0:
		return nil, parts, newError(ErrSyntax, src, spec[parts.order].start, "cannot override ORDER BY of window %s", ref.text(src))
	case d.parts.frame >= 0:
		return nil, parts, newError(ErrSyntax, src, ref.start, "cannot copy window %s because it has a frame clause", ref.text(src))
	}
	merged := append(append([]token(nil), d.spec...), spec[1:]...)
	parts, err = specParts(src, merged)
	return merged, parts, err
}

// overAt reports whether toks[i] starts a window function call, name(...)
// OVER (...): it returns the index of OVER's closing parenthesis.
func (r *rewriter) overAt(toks []token, i int) (int, bool) {
	if toks[i].typ != sqlparser.ID || i+1 >= len(toks) || toks[i+1].typ != '(' {
		return 0, false
	}
	callEnd := matching(toks, i+1)
	if callEnd < 0 || callEnd+2 >= len(toks) || !toks[callEnd+1].is(r.src, "over") {
		return 0, false
	}
	if toks[callEnd+2].typ != '(' {
		return 0, false // OVER name of an unknown window is reported by expandWindows
	}
	end := matching(toks, callEnd+2)
	return end, end > 0
}

// windowClause names the clause of the query that the token at i belongs
// to ("" for the select list and ORDER BY, where window functions are
// allowed).
func (r *rewriter) windowClause(toks []token, i int) string {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch t.typ {
		case ')':
			depth++
			continue
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			// Leaving an enclosing group: keep walking in it, unless it
			// is an aggregate's argument list (an aggregate that is a
			// window function itself was reported as nesting).
			if j > 0 && toks[j-1].typ == sqlparser.ID && aggregateWords[strings.ToLower(toks[j-1].text(r.src))] {
				return "the argument of an aggregate"
			}
			continue
		}
		if depth > 0 {
			continue
		}
		switch t.typ {
		case sqlparser.SELECT:
			return ""
		case sqlparser.ORDER:
			return ""
		case sqlparser.WHERE:
			return "WHERE"
		case sqlparser.GROUP:
			return "GROUP BY"
		case sqlparser.HAVING:
			return "HAVING"
		case sqlparser.ON, sqlparser.USING:
			return "JOIN conditions"
		case sqlparser.FROM:
			return "FROM"
		case sqlparser.LIMIT:
			return "LIMIT"
		case sqlparser.SET:
			return "UPDATE ... SET"
		case sqlparser.VALUES:
			return "VALUES"
		}
	}
	return ""
}

// aggregateWords are the aggregate functions, whose arguments cannot hold
// window functions (they run before windows are computed).
var aggregateWords = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "group_concat": true,
	"bool_and": true, "bool_or": true, "any_value": true, "std": true, "stddev": true,
	"variance": true, "bit_and": true, "bit_or": true,
}

// checkWindows reports a window function call outside the select list
// and ORDER BY of its query, or inside another one. It runs over the whole
// statement, before the rewrites that work on parts of it.
func (r *rewriter) checkWindows(toks []token) *Error {
	outerEnd := -1
	for i := range toks {
		end, ok := r.overAt(toks, i)
		if !ok {
			continue
		}
		if i < outerEnd {
			return newError(ErrSyntax, r.src, toks[i].start, "window function calls cannot be nested")
		}
		if clause := r.windowClause(toks, i); clause != "" {
			return newError(ErrSyntax, r.src, toks[i].start, "window functions are not allowed in %s", clause)
		}
		outerEnd = end
	}
	return nil
}

// overOut emits the window function call toks[i:end+1] as the marker call.
func (r *rewriter) overOut(toks []token, i, end int) *Error {
	fn := toks[i]
	callEnd := matching(toks, i+1)
	args := toks[i+2 : callEnd]
	over := toks[callEnd+1]
	spec := toks[callEnd+3 : end]
	if len(args) > 0 && args[0].typ == sqlparser.DISTINCT {
		return newError(ErrUnsupported, r.src, args[0].start, "not supported: DISTINCT in a window function")
	}
	parts, err := specParts(r.src, spec)
	if err != nil {
		return err
	}
	if parts.ref >= 0 {
		return newError(ErrSyntax, r.src, spec[0].start, "unknown window %s", spec[0].text(r.src))
	}
	text := strings.Join(strings.Fields(r.src[fn.start:toks[end].end]), " ")
	r.emitFor("`"+WindowMarker+"`", fn)
	r.emitText("(", fn.end)
	r.emitFor(sqlparser.String(sqlparser.NewStrVal([]byte(strings.ToLower(fn.text(r.src))))), fn)
	r.emitText(",", fn.end)
	r.emitText(sqlparser.String(sqlparser.NewStrVal([]byte(text))), fn.start)
	r.emitText(", `"+WindowArgsMarker+"` (", toks[i+1].start)
	if len(args) > 0 {
		if err := r.rewrite(args); err != nil {
			return err
		}
	}
	r.emitText(")", toks[callEnd].start)
	// Clause boundaries within spec.
	bounds := []int{parts.partition, parts.order, parts.frame, len(spec)}
	clauseEnd := func(k int) int {
		for _, b := range bounds {
			if b > k {
				return b
			}
		}
		return len(spec)
	}
	r.emitText(", `"+WindowPartitionMarker+"` (", over.start)
	if parts.partition >= 0 {
		items, seps := splitTop(spec[parts.partition+2:clauseEnd(parts.partition)], func(x token) bool { return x.typ == ',' })
		for k, it := range items {
			if len(it) == 0 {
				return newError(ErrSyntax, r.src, endOfItem(r.src, spec, seps, k, parts.partition), "expected an expression in PARTITION BY")
			}
			if k > 0 {
				r.emitFor(",", seps[k-1])
			}
			if err := r.checkItemEnd(it); err != nil {
				return err
			}
			if err := r.rewrite(it); err != nil {
				return err
			}
		}
	}
	r.emitText(")", over.start)
	r.emitText(", `"+WindowOrderMarker+"` (", over.start)
	nOrder := 0
	if parts.order >= 0 {
		items, seps := splitTop(spec[parts.order+2:clauseEnd(parts.order)], func(x token) bool { return x.typ == ',' })
		nOrder = len(items)
		for k, it := range items {
			if k > 0 {
				r.emitFor(",", seps[k-1])
			}
			if err := r.orderKeyOut(it, spec, seps, k, parts.order); err != nil {
				return err
			}
		}
	}
	r.emitText(")", over.start)
	r.emitText(", `"+WindowFrameMarker+"` (", over.start)
	if parts.frame >= 0 {
		if err := r.frameOut(spec[parts.frame:], nOrder); err != nil {
			return err
		}
	} else {
		r.emitText("0, 0, 0, 0, 0", over.start)
	}
	r.emitText(")", toks[end].start)
	r.emitText(")", toks[end].start)
	return nil
}

// endOfItem is where an empty list item k of a clause starting at spec[at]
// is (the comma after it, or the clause's end).
func endOfItem(src string, spec []token, seps []token, k, at int) int {
	if k < len(seps) {
		return seps[k].start
	}
	if len(spec) > 0 {
		return spec[len(spec)-1].end
	}
	return spec[at].end
}

// checkItemEnd reports a word after a complete PARTITION BY or ORDER BY
// item (the marker call's arguments would take it for an alias).
func (r *rewriter) checkItemEnd(it []token) *Error {
	n := len(it)
	if n < 2 || it[n-1].typ != sqlparser.ID {
		return nil
	}
	switch it[n-2].typ {
	case sqlparser.ID, sqlparser.INTEGRAL, sqlparser.FLOAT, sqlparser.STRING, ')':
		if it[n-1].is(r.src, "nulls") {
			return newError(ErrSyntax, r.src, it[n-1].end, "expected FIRST or LAST after NULLS")
		}
		return newError(ErrSyntax, r.src, it[n-1].start, "near '%s': expected ',' or the end of the clause", it[n-1].text(r.src))
	}
	return nil
}

// orderKeyOut emits one window ORDER BY item as gsql_win_key(e, desc, nulls).
func (r *rewriter) orderKeyOut(it []token, spec, seps []token, k, at int) *Error {
	nulls := "0"
	if n := len(it); n >= 1 && it[n-1].is(r.src, "nulls") {
		return newError(ErrSyntax, r.src, it[n-1].end, "expected FIRST or LAST after NULLS")
	}
	if n := len(it); n >= 2 && it[n-2].is(r.src, "nulls") {
		switch {
		case it[n-1].is(r.src, "first"):
			nulls = "1"
		case it[n-1].is(r.src, "last"):
			nulls = "2"
		default:
			return newError(ErrSyntax, r.src, it[n-1].start, "expected FIRST or LAST after NULLS")
		}
		it = it[:n-2]
	}
	desc := "0"
	if n := len(it); n >= 1 && (it[n-1].typ == sqlparser.ASC || it[n-1].typ == sqlparser.DESC) {
		if it[n-1].typ == sqlparser.DESC {
			desc = "1"
		}
		it = it[:n-1]
	}
	if len(it) == 0 {
		return newError(ErrSyntax, r.src, endOfItem(r.src, spec, seps, k, at), "expected an expression in ORDER BY")
	}
	if err := r.checkItemEnd(it); err != nil {
		return err
	}
	r.emitText("`"+WindowKeyMarker+"` (", it[0].start)
	if err := r.rewrite(it); err != nil {
		return err
	}
	r.emitText(", "+desc+", "+nulls+")", it[len(it)-1].end)
	return nil
}

// frameOut emits a frame clause (frame[0] is ROWS, RANGE or GROUPS) as the
// marker's five arguments.
func (r *rewriter) frameOut(frame []token, nOrder int) *Error {
	unit := frame[0]
	switch {
	case unit.is(r.src, "groups"):
		return newError(ErrUnsupported, r.src, unit.start, "not supported: GROUPS frames (use ROWS or RANGE)")
	case unit.is(r.src, "rows"):
		r.emitText("1,", unit.start)
	default:
		r.emitText("2,", unit.start)
	}
	rest := frame[1:]
	if len(rest) == 0 {
		return newError(ErrSyntax, r.src, unit.end, "expected a frame bound after %s", strings.ToUpper(unit.text(r.src)))
	}
	type bound struct {
		kind int
		off  []token
		at   token
	}
	var bounds []bound
	readBound := func() *Error {
		if len(rest) == 0 {
			return newError(ErrSyntax, r.src, frame[len(frame)-1].end, "expected a frame bound")
		}
		first := rest[0]
		switch {
		case first.is(r.src, "unbounded"):
			if len(rest) < 2 || !(rest[1].is(r.src, "preceding") || rest[1].is(r.src, "following")) {
				return newError(ErrSyntax, r.src, first.end, "expected PRECEDING or FOLLOWING after UNBOUNDED")
			}
			kind := BoundUnboundedPreceding
			if rest[1].is(r.src, "following") {
				kind = BoundUnboundedFollowing
			}
			bounds = append(bounds, bound{kind: kind, at: first})
			rest = rest[2:]
		case first.is(r.src, "current"):
			if len(rest) < 2 || !rest[1].is(r.src, "row") {
				return newError(ErrSyntax, r.src, first.end, "expected ROW after CURRENT")
			}
			bounds = append(bounds, bound{kind: BoundCurrentRow, at: first})
			rest = rest[2:]
		default:
			depth := 0
			for k, t := range rest {
				switch t.typ {
				case '(':
					depth++
				case ')':
					depth--
				}
				if depth == 0 && (t.is(r.src, "preceding") || t.is(r.src, "following")) {
					if k == 0 {
						return newError(ErrSyntax, r.src, t.start, "expected an offset before %s", strings.ToUpper(t.text(r.src)))
					}
					kind := BoundPreceding
					if t.is(r.src, "following") {
						kind = BoundFollowing
					}
					if first.typ == '-' {
						return newError(ErrSyntax, r.src, first.start, "a window frame offset must not be negative")
					}
					bounds = append(bounds, bound{kind: kind, off: rest[:k], at: first})
					rest = rest[k+1:]
					return nil
				}
				if depth == 0 && t.typ == sqlparser.AND && len(bounds) == 0 {
					break
				}
			}
			return newError(ErrSyntax, r.src, first.start, "expected UNBOUNDED, CURRENT ROW or an offset with PRECEDING or FOLLOWING")
		}
		return nil
	}
	between := rest[0].typ == sqlparser.BETWEEN
	if between {
		rest = rest[1:]
	}
	if err := readBound(); err != nil {
		return err
	}
	if between {
		if len(rest) == 0 || rest[0].typ != sqlparser.AND {
			return newError(ErrSyntax, r.src, endOf(r.src, rest, 0), "expected AND in the frame's BETWEEN")
		}
		rest = rest[1:]
		if err := readBound(); err != nil {
			return err
		}
	} else {
		bounds = append(bounds, bound{kind: BoundCurrentRow, at: unit})
	}
	if len(rest) > 0 {
		if rest[0].is(r.src, "exclude") {
			return newError(ErrUnsupported, r.src, rest[0].start, "not supported: EXCLUDE in a window frame")
		}
		return newError(ErrSyntax, r.src, rest[0].start, "near '%s': expected the end of the window", rest[0].text(r.src))
	}
	start, end := bounds[0], bounds[1]
	switch {
	case start.kind == BoundUnboundedFollowing:
		return newError(ErrSyntax, r.src, start.at.start, "frame start cannot be UNBOUNDED FOLLOWING")
	case end.kind == BoundUnboundedPreceding:
		return newError(ErrSyntax, r.src, end.at.start, "frame end cannot be UNBOUNDED PRECEDING")
	case start.kind == BoundCurrentRow && end.kind == BoundPreceding:
		return newError(ErrSyntax, r.src, end.at.start, "frame starting from current row cannot have preceding rows")
	case start.kind == BoundFollowing && (end.kind == BoundPreceding || end.kind == BoundCurrentRow):
		return newError(ErrSyntax, r.src, end.at.start, "frame starting from following row cannot have preceding rows")
	}
	if !unit.is(r.src, "rows") && nOrder != 1 {
		for _, b := range bounds {
			if b.kind == BoundPreceding || b.kind == BoundFollowing {
				return newError(ErrSyntax, r.src, unit.start, "RANGE with offset PRECEDING/FOLLOWING needs exactly one ORDER BY column")
			}
		}
	}
	for k, b := range bounds {
		if k > 0 {
			r.emitText(",", b.at.start)
		}
		r.emitText(string(rune('0'+b.kind))+",", b.at.start)
		if b.off == nil {
			r.emitText("0", b.at.start)
		} else if err := r.rewrite(b.off); err != nil {
			return err
		}
	}
	return nil
}
