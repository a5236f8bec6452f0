package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// FilePrefix marks a table name that stands for a file read by a table
// function: FROM read_csv('people.csv') reaches the planner as the table
// `__file__:people.csv`.
const FilePrefix = "__file__:"

// tableFunctions are the file readers usable in FROM.
var tableFunctions = map[string]bool{"read_csv": true, "read_csv_auto": true, "read_parquet": true, "read_ipc": true, "read_arrow": true, "read_file": true}

// tableFunction matches name('path') at toks[i] and returns the table name
// that replaces it and the number of tokens it spans.
func tableFunction(src string, toks []token, i int) (string, int, bool) {
	if i+3 >= len(toks) {
		return "", 0, false
	}
	t := toks[i]
	if !tableFunctions[strings.ToLower(t.text(src))] || toks[i+1].typ != '(' || toks[i+2].typ != sqlparser.STRING || toks[i+3].typ != ')' {
		return "", 0, false
	}
	if i == 0 || !(toks[i-1].typ == sqlparser.FROM || toks[i-1].typ == sqlparser.JOIN || toks[i-1].typ == ',') {
		return "", 0, false
	}
	name := FilePrefix + string(toks[i+2].val)
	return "`" + strings.ReplaceAll(name, "`", "``") + "`", 4, true
}
