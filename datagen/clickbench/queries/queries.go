// Package queries holds the 43 ClickBench queries, one a line in
// queries.sql, as published in ClickBench's postgresql/queries.sql;
// README.md names the source commit and lists what differs from that
// text and why.
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

// Query returns query n (1..43) without its terminating semicolon.
func Query(n int) (string, error) {
	if n < 1 || n > Count || n > len(lines) {
		return "", fmt.Errorf("queries: no ClickBench query %d (1..%d)", n, Count)
	}
	return lines[n-1], nil
}

// scaled are the substitutions Scaled makes: the thresholds and offsets
// that ClickBench chose for its 100 million rows, made small.
var scaled = strings.NewReplacer(
	"HAVING COUNT(*) > 100000", "HAVING COUNT(*) > 20",
	"OFFSET 10000", "OFFSET 5",
	"OFFSET 1000", "OFFSET 10",
	"OFFSET 100", "OFFSET 5",
)

// Scaled returns query n with its HAVING thresholds and OFFSETs made
// small (HAVING COUNT(*) > 20, OFFSET 5 or 10), so that on a table of a
// few thousand rows the queries that would otherwise answer nothing have
// rows to answer; it reports whether anything changed.
func Scaled(n int) (string, bool, error) {
	q, err := Query(n)
	if err != nil {
		return "", false, err
	}
	s := scaled.Replace(q)
	return s, s != q, nil
}
