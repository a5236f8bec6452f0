// Package tests holds gsql's sqllogictest runner and the regression files
// it runs (tests/sql/**/*.test).
//
// The file format is SQLite's sqllogictest format with a few common
// extensions:
//
//	statement ok                 the statement must succeed
//	statement error [regexp]     the statement must fail; the optional regexp
//	                             (rest of the line) must match the message; a
//	                             "----" line after the SQL may instead give a
//	                             substring the message must contain (DuckDB)
//	query <types> [nosort|rowsort|valuesort] [label]
//	<SQL, one or more lines>
//	----
//	<expected results>
//	explain [analyze]            the plan of the query (EXPLAIN [ANALYZE] <SQL>)
//	<SQL, one or more lines>     must match the expectations after "----":
//	----                         each line is a regexp that must match a
//	<regexp>                     line of the plan, in order (later
//	!<regexp>                    expectations match later plan lines); a
//	                             line starting with "!" must match no line
//	hash-threshold N             results of more than N values print as a hash
//	halt                         stop reading the file
//	skipif <engine> / onlyif <engine>   conditions on the next record
//	# comment
//
// Records are separated by blank lines. Type letters are T (text),
// I (integer; booleans print as 1/0, doubles are truncated toward zero),
// R (real, printed "%.3f") and B (boolean, printed as I). NULL prints as
// NULL and the empty string as (empty); ASCII control characters in text
// print as '@' (as SQLite's runner does) while other UTF-8 text is kept
// verbatim.
//
// Expected results may be written one value per line (SQLite), one row per
// line with values separated by tabs (DuckDB), one row per line with values
// separated by single spaces (CockroachDB), or as a single line
// "N values hashing to <md5>", where the md5 is taken over every value
// followed by a newline, after sorting.
package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// RecordKind tells what a record does.
type RecordKind int

// The kinds of records.
const (
	KindStatement RecordKind = iota + 1
	KindQuery
	KindHashThreshold
	KindHalt
	KindExplain
)

func (k RecordKind) String() string {
	switch k {
	case KindStatement:
		return "statement"
	case KindQuery:
		return "query"
	case KindHashThreshold:
		return "hash-threshold"
	case KindHalt:
		return "halt"
	case KindExplain:
		return "explain"
	}
	return "unknown"
}

// SortMode says how query results are ordered before comparison.
type SortMode int

// The sort modes of sqllogictest.
const (
	NoSort SortMode = iota
	RowSort
	ValueSort
)

func (m SortMode) String() string {
	switch m {
	case RowSort:
		return "rowsort"
	case ValueSort:
		return "valuesort"
	}
	return "nosort"
}

// Condition is a skipif or onlyif line.
type Condition struct {
	Skip   bool   // true for skipif, false for onlyif
	Engine string // engine name the condition tests
}

// Record is one entry of a script.
type Record struct {
	Kind       RecordKind
	Line       int // 1-based line of the record's header (statement, query, ...)
	Conditions []Condition

	// SQL is the statement or query text (statement and query records).
	SQL string

	// Statement records.
	ExpectError  bool
	ErrorPattern *regexp.Regexp // from "statement error <regexp>"; may be nil
	ErrorText    string         // substring after "----" (DuckDB style); may be empty

	// Query records.
	Types    string // type letters, one per column
	Sort     SortMode
	Label    string
	Expected []string // result lines after "----", verbatim
	HasSep   bool     // whether a "----" line was present

	// Hash-threshold records.
	Threshold int

	// Explain records: Analyze runs EXPLAIN ANALYZE; Plan holds the
	// expectations in file order.
	Analyze bool
	Plan    []PlanLine
}

// PlanLine is one expectation of an explain record: a plan line matching
// Pattern must follow the lines the earlier expectations matched, or,
// when Absent, no line of the plan may match it.
type PlanLine struct {
	Pattern *regexp.Regexp
	Absent  bool
}

// Script is a parsed test file.
type Script struct {
	Name    string
	Records []Record
}

// ParseError is a problem in a test file, with its position.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

var hashResult = regexp.MustCompile(`^(\d+) values hashing to ([0-9a-fA-F]{32})$`)

// ParseScript parses the text of a sqllogictest file. name is used in
// error messages. It never panics; malformed input gives a *ParseError.
func ParseScript(name string, src []byte) (*Script, error) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	s := &Script{Name: name}
	p := &scriptParser{name: name, lines: lines}
	for {
		rec, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		s.Records = append(s.Records, rec)
		if rec.Kind == KindHalt && len(rec.Conditions) == 0 {
			break
		}
	}
	return s, nil
}

type scriptParser struct {
	name  string
	lines []string
	pos   int // index of the next unread line
}

func (p *scriptParser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

func comment(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "#") }

// next returns the next record; ok is false at the end of the input.
func (p *scriptParser) next() (Record, bool, error) {
	// Skip blank and comment lines between records.
	for p.pos < len(p.lines) && (blank(p.lines[p.pos]) || comment(p.lines[p.pos])) {
		p.pos++
	}
	if p.pos >= len(p.lines) {
		return Record{}, false, nil
	}
	rec := Record{Line: p.pos + 1}
	for {
		if p.pos >= len(p.lines) || blank(p.lines[p.pos]) {
			return Record{}, false, p.errorf(rec.Line, "condition without a record")
		}
		line := p.lines[p.pos]
		if comment(line) {
			p.pos++
			continue
		}
		f := strings.Fields(stripComment(line))
		if len(f) == 0 {
			p.pos++
			continue
		}
		if f[0] != "skipif" && f[0] != "onlyif" {
			break
		}
		if len(f) != 2 {
			return Record{}, false, p.errorf(p.pos+1, "%s wants one engine name, got %d words", f[0], len(f)-1)
		}
		rec.Conditions = append(rec.Conditions, Condition{Skip: f[0] == "skipif", Engine: f[1]})
		p.pos++
	}
	hdrLine := p.pos + 1
	rec.Line = hdrLine
	f := strings.Fields(stripComment(p.lines[p.pos]))
	p.pos++
	switch f[0] {
	case "statement":
		return p.statement(rec, f, hdrLine)
	case "query":
		return p.query(rec, f, hdrLine)
	case "explain":
		return p.explain(rec, f, hdrLine)
	case "hash-threshold":
		if len(f) != 2 {
			return Record{}, false, p.errorf(hdrLine, "hash-threshold wants one number")
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 {
			return Record{}, false, p.errorf(hdrLine, "hash-threshold: bad number %q", f[1])
		}
		rec.Kind, rec.Threshold = KindHashThreshold, n
		return rec, true, p.endOfRecord(hdrLine)
	case "halt":
		if len(f) != 1 {
			return Record{}, false, p.errorf(hdrLine, "halt takes no arguments")
		}
		rec.Kind = KindHalt
		return rec, true, p.endOfRecord(hdrLine)
	}
	return Record{}, false, p.errorf(hdrLine, "unknown record type %q", f[0])
}

// stripComment drops a trailing "# ..." from a directive line.
func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		return s[:i]
	}
	return s
}

// endOfRecord checks that a one-line record is followed by a blank line.
func (p *scriptParser) endOfRecord(hdrLine int) error {
	if p.pos < len(p.lines) && !blank(p.lines[p.pos]) && !comment(p.lines[p.pos]) {
		return p.errorf(p.pos+1, "unexpected text after the record at line %d (records are separated by blank lines)", hdrLine)
	}
	return nil
}

// sqlLines reads SQL lines up to a blank line or "----".
func (p *scriptParser) sqlLines() (sqlText string, sep bool) {
	var b []string
	for p.pos < len(p.lines) && !blank(p.lines[p.pos]) {
		l := p.lines[p.pos]
		p.pos++
		if strings.TrimSpace(l) == "----" {
			return strings.Join(b, "\n"), true
		}
		b = append(b, l)
	}
	return strings.Join(b, "\n"), false
}

// resultLines reads lines up to a blank line, verbatim.
func (p *scriptParser) resultLines() []string {
	var out []string
	for p.pos < len(p.lines) && !blank(p.lines[p.pos]) {
		out = append(out, p.lines[p.pos])
		p.pos++
	}
	return out
}

func (p *scriptParser) statement(rec Record, f []string, hdrLine int) (Record, bool, error) {
	rec.Kind = KindStatement
	if len(f) < 2 {
		return Record{}, false, p.errorf(hdrLine, "statement wants ok or error")
	}
	switch f[1] {
	case "ok":
		if len(f) > 2 {
			return Record{}, false, p.errorf(hdrLine, "statement ok takes no arguments")
		}
	case "error":
		rec.ExpectError = true
		// The pattern is the rest of the raw line after "error".
		raw := strings.TrimSpace(p.lines[hdrLine-1])
		raw = strings.TrimSpace(strings.TrimPrefix(raw, "statement"))
		raw = strings.TrimSpace(strings.TrimPrefix(raw, "error"))
		if raw != "" {
			re, err := regexp.Compile(raw)
			if err != nil {
				return Record{}, false, p.errorf(hdrLine, "statement error: bad regexp: %v", err)
			}
			rec.ErrorPattern = re
		}
	default:
		return Record{}, false, p.errorf(hdrLine, "statement wants ok or error, got %q", f[1])
	}
	sqlText, sep := p.sqlLines()
	if blank(sqlText) {
		return Record{}, false, p.errorf(hdrLine, "statement without SQL")
	}
	rec.SQL = sqlText
	if sep {
		if !rec.ExpectError {
			return Record{}, false, p.errorf(hdrLine, "statement ok cannot have a ---- section")
		}
		rec.ErrorText = strings.Join(p.resultLines(), "\n")
	}
	return rec, true, nil
}

func (p *scriptParser) query(rec Record, f []string, hdrLine int) (Record, bool, error) {
	rec.Kind = KindQuery
	if len(f) < 2 {
		return Record{}, false, p.errorf(hdrLine, "query wants a type string")
	}
	if len(f) > 4 {
		return Record{}, false, p.errorf(hdrLine, "query: too many words (want query <types> [sort] [label])")
	}
	rec.Types = f[1]
	for _, c := range rec.Types {
		if !strings.ContainsRune("TIRB", c) {
			return Record{}, false, p.errorf(hdrLine, "query: bad type letter %q in %q (want T, I, R or B)", c, rec.Types)
		}
	}
	rest := f[2:]
	if len(rest) > 0 {
		switch rest[0] {
		case "nosort":
			rec.Sort, rest = NoSort, rest[1:]
		case "rowsort":
			rec.Sort, rest = RowSort, rest[1:]
		case "valuesort":
			rec.Sort, rest = ValueSort, rest[1:]
		}
	}
	if len(rest) > 1 {
		return Record{}, false, p.errorf(hdrLine, "query: unknown sort mode %q", rest[0])
	}
	if len(rest) == 1 {
		rec.Label = rest[0]
	}
	sqlText, sep := p.sqlLines()
	if blank(sqlText) {
		return Record{}, false, p.errorf(hdrLine, "query without SQL")
	}
	rec.SQL, rec.HasSep = sqlText, sep
	if sep {
		rec.Expected = p.resultLines()
	}
	return rec, true, nil
}

func (p *scriptParser) explain(rec Record, f []string, hdrLine int) (Record, bool, error) {
	rec.Kind = KindExplain
	switch {
	case len(f) == 2 && f[1] == "analyze":
		rec.Analyze = true
	case len(f) != 1:
		return Record{}, false, p.errorf(hdrLine, "explain takes no arguments but analyze")
	}
	sqlText, sep := p.sqlLines()
	if blank(sqlText) {
		return Record{}, false, p.errorf(hdrLine, "explain without SQL")
	}
	if !sep {
		return Record{}, false, p.errorf(hdrLine, "explain without a ---- line and expectations")
	}
	rec.SQL = sqlText
	first := p.pos + 1
	for i, l := range p.resultLines() {
		pl := PlanLine{}
		if strings.HasPrefix(l, "!") {
			pl.Absent, l = true, l[1:]
		}
		re, err := regexp.Compile(l)
		if err != nil {
			return Record{}, false, p.errorf(first+i, "explain: bad regexp: %v", err)
		}
		pl.Pattern = re
		rec.Plan = append(rec.Plan, pl)
	}
	if len(rec.Plan) == 0 {
		return Record{}, false, p.errorf(hdrLine, "explain without expectations")
	}
	return rec, true, nil
}

// Skipped reports whether conditions exclude the record for an engine known
// by any of names.
func (r *Record) Skipped(names []string) bool {
	match := func(e string) bool {
		for _, n := range names {
			if strings.EqualFold(n, e) {
				return true
			}
		}
		return false
	}
	for _, c := range r.Conditions {
		if c.Skip && match(c.Engine) {
			return true
		}
		if !c.Skip && !match(c.Engine) {
			return true
		}
	}
	return false
}
