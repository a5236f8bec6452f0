package sql

import "github.com/xwb1989/sqlparser"

// ORDER BY ... NULLS FIRST | NULLS LAST, which the stock grammar lacks: the
// dialect layer wraps the item's expression in a marker call the binder
// unwraps (planner.nullsOrder), so ordinals and aliases resolve as usual:
// `ORDER BY 2 DESC NULLS FIRST` reaches the parser as
// `ORDER BY gsql_nulls_first(2) DESC`.
const (
	NullsFirstMarker = "gsql_nulls_first"
	NullsLastMarker  = "gsql_nulls_last"
)

// nullsItem is one ORDER BY item followed by NULLS FIRST/LAST.
type nullsItem struct {
	dir    int // index of its ASC/DESC token, or -1
	nulls  int // index of the NULLS token
	marker string
}

// nullsStarts maps the index where such an item starts to its description
// (nil when toks has no NULLS FIRST/LAST).
func (r *rewriter) nullsStarts(toks []token) map[int]nullsItem {
	var m map[int]nullsItem
	for k := 1; k+1 < len(toks); k++ {
		if !toks[k].is(r.src, "nulls") {
			continue
		}
		marker := ""
		switch {
		case toks[k+1].is(r.src, "first"):
			marker = NullsFirstMarker
		case toks[k+1].is(r.src, "last"):
			marker = NullsLastMarker
		default:
			continue
		}
		end, dir := k, -1
		if t := toks[k-1]; t.typ == sqlparser.ASC || t.typ == sqlparser.DESC {
			end, dir = k-1, k-1
		}
		// The item starts after the comma or BY before it, at its depth.
		depth, start := 0, -1
		for j := end - 1; j >= 0 && start < 0; j-- {
			switch toks[j].typ {
			case ')':
				depth++
			case '(':
				if depth == 0 {
					start = j + 1
				}
				depth--
			case ',', sqlparser.BY:
				if depth == 0 {
					start = j + 1
				}
			}
		}
		if start < 0 || start >= end || !r.inOrderBy(toks, start) {
			continue // not an ORDER BY item: left to the parser's error
		}
		if m == nil {
			m = map[int]nullsItem{}
		}
		m[start] = nullsItem{dir: dir, nulls: k, marker: marker}
	}
	return m
}

// nullsItemOut emits the item toks[i:] described by it and returns the
// index of its last token (FIRST or LAST).
func (r *rewriter) nullsItemOut(toks []token, i int, it nullsItem) (int, *Error) {
	end := it.nulls
	if it.dir >= 0 {
		end = it.dir
	}
	r.emitFor("`"+it.marker+"`", toks[it.nulls])
	r.emitText("(", toks[i].start)
	if err := r.rewrite(toks[i:end]); err != nil {
		return 0, err
	}
	r.emitText(")", toks[end-1].end)
	if it.dir >= 0 {
		r.emitSrc(toks[it.dir])
	}
	return it.nulls + 1, nil
}

// inOrderBy reports whether the list item starting at toks[start] belongs
// to an ORDER BY: walking back over the list's items at their depth
// reaches ORDER BY before any other clause.
func (r *rewriter) inOrderBy(toks []token, start int) bool {
	depth := 0
	for j := start - 1; j >= 0; j-- {
		switch toks[j].typ {
		case ')':
			depth++
		case '(':
			if depth == 0 {
				return false
			}
			depth--
		case sqlparser.BY:
			if depth == 0 {
				return j > 0 && toks[j-1].typ == sqlparser.ORDER
			}
		case sqlparser.SELECT, sqlparser.FROM, sqlparser.WHERE, sqlparser.GROUP, sqlparser.HAVING:
			if depth == 0 {
				return false
			}
		}
	}
	return false
}
