package shell

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

var keywords = strings.Fields(`ALL ANALYZE AND AS ASC BETWEEN BIGINT BOOLEAN BY CASE CAST CONVERT CREATE
CROSS DESC DESCRIBE DISTINCT DIV DOUBLE DROP ELSE END ESCAPE EXISTS EXPLAIN FALSE FROM FULL GROUP
HAVING IF IN INNER INSERT INT INTEGER INTO IS JOIN LEFT LIKE LIMIT NOT NULL OFFSET ON OR ORDER
OUTER RIGHT SELECT SHOW TABLE TABLES TEXT THEN TRUE UNION USING VALUES VARCHAR WHEN WHERE WITH`)

func isKeyword(s string) bool {
	u := strings.ToUpper(s)
	i := sort.SearchStrings(keywords, u)
	return i < len(keywords) && keywords[i] == u
}

// Completer implements readline.AutoCompleter over the shell's keywords,
// dot-commands, tables, columns, functions and (for file arguments of
// dot-commands) file names.
type Completer struct{ s *Shell }

// Completer returns the shell's tab completer.
func (s *Shell) Completer() *Completer { return &Completer{s} }

func wordRune(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Do returns the completions of the word before pos as suffixes of it, and
// the word's length, as readline.AutoCompleter requires.
func (c *Completer) Do(line []rune, pos int) ([][]rune, int) {
	if pos > len(line) {
		pos = len(line)
	}
	head := string(line[:pos])
	trimmed := strings.TrimLeft(head, " \t")
	// Dot-commands and their file arguments.
	if strings.HasPrefix(trimmed, ".") || strings.HasPrefix(trimmed, "\\") {
		fields := strings.Fields(trimmed[1:])
		if len(fields) == 0 || (len(fields) == 1 && !strings.HasSuffix(trimmed, " ")) {
			word := ""
			if len(fields) == 1 {
				word = fields[0]
			}
			return suffixes(word, commandNames()), len([]rune(word))
		}
		word := ""
		if !strings.HasSuffix(trimmed, " ") {
			word = fields[len(fields)-1]
		}
		switch strings.ToLower(fields[0]) {
		case "import", "read", "output", "once":
			return fileSuffixes(word), len([]rune(word))
		case "schema":
			return suffixes(word, c.s.db.Tables()), len([]rune(word))
		case "mode":
			return suffixes(word, modes), len([]rune(word))
		case "device":
			return suffixes(word, []string{"auto", "cpu", "gpu"}), len([]rune(word))
		case "headers", "timer", "explain", "bail":
			return suffixes(word, []string{"off", "on"}), len([]rune(word))
		}
		return nil, 0
	}
	start := pos
	for start > 0 && wordRune(line[start-1]) {
		start--
	}
	word := string(line[start:pos])
	if dot := strings.LastIndexByte(word, '.'); dot >= 0 {
		// table.column
		schema, err := c.s.db.TableSchema(word[:dot])
		if err != nil {
			return nil, 0
		}
		var cols []string
		for _, f := range schema.Fields() {
			cols = append(cols, f.Name)
		}
		w := word[dot+1:]
		return suffixes(w, cols), len([]rune(w))
	}
	var cands []string
	lower := word != "" && strings.ToLower(word) == word
	for _, k := range keywords {
		if lower {
			k = strings.ToLower(k)
		}
		cands = append(cands, k)
	}
	tables := c.s.db.Tables()
	cands = append(cands, tables...)
	// Columns of the tables the line mentions, else of all tables.
	mentioned := map[string]bool{}
	for _, t := range tables {
		for _, f := range strings.FieldsFunc(strings.ToLower(string(line)), func(r rune) bool { return !wordRune(r) }) {
			if f == strings.ToLower(t) {
				mentioned[t] = true
			}
		}
	}
	for _, t := range tables {
		if len(mentioned) > 0 && !mentioned[t] {
			continue
		}
		if schema, err := c.s.db.TableSchema(t); err == nil {
			for _, f := range schema.Fields() {
				cands = append(cands, f.Name)
			}
		}
	}
	for _, f := range c.s.db.FunctionNames() {
		if !lower && word != "" {
			f = strings.ToUpper(f)
		}
		cands = append(cands, f+"(")
	}
	return suffixes(word, cands), len([]rune(word))
}

// suffixes returns, sorted and without duplicates, what completes word to
// each candidate with word as a prefix (compared case-insensitively). The
// suffixes end with a space, except after '(' or '/'.
func suffixes(word string, cands []string) [][]rune {
	seen := map[string]bool{}
	var out []string
	lw := strings.ToLower(word)
	for _, c := range cands {
		if seen[c] || len(c) < len(word) {
			continue
		}
		if !strings.HasPrefix(c, word) && !(strings.HasPrefix(strings.ToLower(c), lw)) {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	sort.Strings(out)
	res := make([][]rune, 0, len(out))
	for _, c := range out {
		suf := []rune(c)[len([]rune(word)):]
		if !strings.HasSuffix(c, "(") && !strings.HasSuffix(c, "/") {
			suf = append(suf, ' ')
		}
		res = append(res, suf)
	}
	return res
}

// fileSuffixes completes a file name.
func fileSuffixes(word string) [][]rune {
	dir, base := filepath.Split(word)
	d := dir
	if d == "" {
		d = "."
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	var cands []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), base) || (strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		n := dir + e.Name()
		if e.IsDir() {
			n += "/"
		}
		cands = append(cands, n)
	}
	return suffixes(word, cands)
}
