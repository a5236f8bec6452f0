// Package queries holds the 43 ClickBench queries: queries.sql is
// ClickBench's postgresql/queries.sql verbatim, one query a line
// (Published), and Query gives them in gsql's dialect, which differs only
// where README.md says and why (dialect holds those changes).
package queries

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed queries.sql
var text string

// Count is the number of ClickBench queries.
const Count = 43

var lines = func() []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, strings.TrimSuffix(l, ";"))
		}
	}
	return out
}()

// Published returns query n (1..43) as published, without its
// terminating semicolon.
func Published(n int) (string, error) {
	if n < 1 || n > Count || n > len(lines) {
		return "", fmt.Errorf("queries: no ClickBench query %d (1..%d)", n, Count)
	}
	return lines[n-1], nil
}

// dialect are the changes gsql's dialect requires, by query: each
// replaces old with new in the published text.
var dialect = map[int][]struct{ old, new string }{
	// gsql's string literals take MySQL's backslash escapes, where '\1'
	// is just "1" and '\.' is "."; the backslashes are doubled to keep
	// them (a regular-expression escape and a group reference).
	29: {
		{`(?:www\.)?`, `(?:www\\.)?`},
		{`'\1'`, `'\\1'`},
	},
}

// Query returns query n (1..43) in gsql's dialect, without its
// terminating semicolon.
func Query(n int) (string, error) {
	q, err := Published(n)
	if err != nil {
		return "", err
	}
	for _, c := range dialect[n] {
		if !strings.Contains(q, c.old) {
			return "", fmt.Errorf("queries: query %d lacks %q", n, c.old)
		}
		q = strings.Replace(q, c.old, c.new, 1)
	}
	return q, nil
}

// scaled are the substitutions Scaled makes: the thresholds and offsets
// that ClickBench chose for its 100 million rows, made small.
var scaled = strings.NewReplacer(
	"HAVING COUNT(*) > 100000", "HAVING COUNT(*) > 20",
	"OFFSET 10000", "OFFSET 5",
	"OFFSET 1000", "OFFSET 10",
	"OFFSET 100", "OFFSET 5",
)

// Scale returns a query (published or in gsql's dialect) with its HAVING
// thresholds and OFFSETs made small (HAVING COUNT(*) > 20, OFFSET 5 or
// 10), so that on a table of a few thousand rows the queries that would
// otherwise answer nothing have rows to answer. It returns q itself when
// q has none.
func Scale(q string) string { return scaled.Replace(q) }

// orderKeys are, per query, the output columns (0-based) of its ORDER BY
// keys, where rows with equal keys may legitimately come in any order.
// Queries not listed answer one row or order by a key that is unique in
// datagen/clickbench's rows (EventTime, DATE_TRUNC of it: Q24, Q25, Q27,
// Q43), or not at all (Q18 and Q20, listed with no keys).
var orderKeys = map[int][]int{
	8: {1}, 9: {1}, 10: {2}, 11: {1}, 12: {2}, 13: {1}, 14: {1}, 15: {2}, 16: {1},
	17: {2}, 18: {}, 19: {3}, 20: {}, 22: {2}, 23: {3}, 26: {0}, 28: {1}, 29: {1},
	31: {2}, 32: {2}, 33: {2}, 34: {1}, 35: {2}, 36: {4}, 37: {1}, 38: {1}, 39: {1},
	40: {5}, 41: {2}, 42: {2},
}

// OrderKeys returns the output columns (0-based) of query n's ORDER BY
// keys and true when rows of equal keys may come in any order (no keys:
// the whole answer is unordered); false when the answer's row order is
// fully determined, so answers compare row by row.
func OrderKeys(n int) ([]int, bool) {
	k, ok := orderKeys[n]
	return k, ok
}
