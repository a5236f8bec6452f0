package difftest

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// cellCompare orders cells NULL first, then numbers by value, then text
// bytewise; it is the order multisets are sorted in before they are
// compared, not either engine's ORDER BY.
func cellCompare(a, b cell) int {
	rank := func(c cell) int {
		switch {
		case c.null:
			return 0
		case c.num:
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch {
	case a.null:
		return 0
	case a.num:
		if cellEqual(a, b) {
			return 0
		}
		if a.f < b.f {
			return -1
		}
		return 1
	}
	return strings.Compare(a.s, b.s)
}

// cellEqual says whether two normalised cells hold the same value: numbers
// within a relative 1e-9 (doubles computed in a different order) plus the
// rounding of a decimal's scale.
func cellEqual(a, b cell) bool {
	if a.null || b.null {
		return a.null && b.null
	}
	if a.num != b.num {
		return false
	}
	if !a.num {
		return a.s == b.s
	}
	if a.f == b.f {
		return true
	}
	tol := a.tol + b.tol + 1e-9*math.Max(1, math.Max(math.Abs(a.f), math.Abs(b.f)))
	return math.Abs(a.f-b.f) <= tol
}

func rowCompare(a, b []cell) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		if c := cellCompare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// diff compares gsql's result with SQLite's: as sequences when ordered,
// else as multisets. It returns "" when they agree, else a short reason.
func diff(g, s result, ordered bool) string {
	if g.err != nil || s.err != nil {
		if g.err != nil && s.err != nil {
			return ""
		}
		if g.err != nil {
			return fmt.Sprintf("gsql failed, SQLite did not: %v", g.err)
		}
		return fmt.Sprintf("SQLite failed, gsql did not: %v", s.err)
	}
	gr, sr := g.rows, s.rows
	if len(gr) != len(sr) {
		return fmt.Sprintf("row counts differ: gsql %d, SQLite %d", len(gr), len(sr))
	}
	if !ordered {
		gr, sr = sortedRows(gr), sortedRows(sr)
	}
	for i := range gr {
		if len(gr[i]) != len(sr[i]) {
			return fmt.Sprintf("column counts differ: gsql %d, SQLite %d", len(gr[i]), len(sr[i]))
		}
		for j := range gr[i] {
			if !cellEqual(gr[i][j], sr[i][j]) {
				what := "sorted row"
				if ordered {
					what = "row"
				}
				return fmt.Sprintf("%s %d column %d: gsql %v, SQLite %v", what, i+1, j+1, gr[i][j], sr[i][j])
			}
		}
	}
	return ""
}

func sortedRows(rows [][]cell) [][]cell {
	out := append([][]cell(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool { return rowCompare(out[i], out[j]) < 0 })
	return out
}

// formatRows renders at most max rows, one a line, tab-separated.
func formatRows(r result, max int) string {
	if r.err != nil {
		return "error: " + r.err.Error() + "\n"
	}
	var b strings.Builder
	for i, row := range r.rows {
		if i == max {
			fmt.Fprintf(&b, "... %d rows in all\n", len(r.rows))
			break
		}
		for j, c := range row {
			if j > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(c.String())
		}
		b.WriteByte('\n')
	}
	if len(r.rows) == 0 {
		b.WriteString("(no rows)\n")
	}
	return b.String()
}

// unsorted says where rows break the ORDER BY keys, "" if nowhere. NULLs
// go where each key says, numbers compare exactly by value, text bytewise,
// as both engines order them.
func unsorted(rows [][]cell, keys []sortKey) string {
	for i := 1; i < len(rows); i++ {
		for _, k := range keys {
			a, b := rows[i-1][k.col], rows[i][k.col]
			c := 0
			switch {
			case a.null && b.null:
			case a.null || b.null:
				c = 1
				if a.null == k.nullsFirst {
					c = -1
				}
			case a.num && b.num:
				// Exactly: the engine sorted the values it computed, and
				// two of them may differ in the last bit only.
				switch {
				case a.f < b.f:
					c = -1
				case a.f > b.f:
					c = 1
				}
				if k.desc {
					c = -c
				}
			default:
				c = cellCompare(a, b)
				if k.desc {
					c = -c
				}
			}
			if c < 0 {
				break
			}
			if c > 0 {
				return fmt.Sprintf("rows %d and %d are out of order in column %d", i, i+1, k.col+1)
			}
		}
	}
	return ""
}
