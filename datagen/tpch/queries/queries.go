// Package queries holds the 22 TPC-H queries with the specification's
// validation substitution parameters, one file per query (q01.sql ...
// q22.sql), as qgen -d of dbgen 2.17 prints them; README.md lists what
// differs from that text and why.
package queries

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed q*.sql
var files embed.FS

// Count is the number of TPC-H queries.
const Count = 22

// Text returns query n (1..22) as written in its file.
func Text(n int) (string, error) {
	if n < 1 || n > Count {
		return "", fmt.Errorf("queries: no TPC-H query %d (1..%d)", n, Count)
	}
	b, err := files.ReadFile(fmt.Sprintf("q%02d.sql", n))
	if err != nil {
		return "", fmt.Errorf("queries: query %d: %w", n, err)
	}
	return string(b), nil
}

// Statements returns query n split into its statements, without the
// terminating semicolons. Every query is one SELECT except Q15, which
// creates a view, selects from it and drops it; Answer says which
// statement returns the answer.
func Statements(n int) ([]string, error) {
	text, err := Text(n)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range strings.Split(text, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// Answer is the index in Statements(n) of the statement whose rows are
// query n's answer.
func Answer(n int) int {
	if n == 15 {
		return 1
	}
	return 0
}
