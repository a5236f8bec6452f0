package tests

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/gsqlengine/gsql/fileio"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// Engine is what the runner executes SQL on.
type Engine interface {
	// Exec runs a statement (or several) and discards any rows.
	Exec(ctx context.Context, sql string) error
	// Query runs one statement that returns rows.
	Query(ctx context.Context, sql string) (array.RecordReader, error)
}

// DefaultEngineNames are the names skipif/onlyif match for gsql.
var DefaultEngineNames = []string{"gsql", "mysql"}

// Runner executes scripts against an Engine.
type Runner struct {
	Engine Engine
	// Names are the engine names skipif/onlyif match; nil means
	// DefaultEngineNames.
	Names []string
	// Timeout bounds each record; zero means 30 seconds.
	Timeout time.Duration
	// KeepQuery, when set, decides which query records run, given the
	// query's index among the script's queries (0-based, counting every
	// query record, skipped or not): a load run splits a corpus's queries
	// into shards this way. Statements always run, so every shard builds
	// the same tables.
	KeepQuery func(index int) bool
	// SQLiteTypes converts a value whose type differs from its column's
	// type letter the way SQLite's own sqllogictest driver does (a number
	// in a T column prints as its text, text in an I or R column as its
	// leading number), instead of failing the record: SQLite's corpus
	// writes T for any column of a compound or CASE result.
	SQLiteTypes bool
	// Observe, when set, is told about every statement, query and explain
	// record that ran: its wall time (the whole statement, rows read) and
	// its failure, nil when it passed.
	Observe func(rec *Record, elapsed time.Duration, f *Failure)
}

// Failure describes one record whose outcome differed from the file.
type Failure struct {
	File     string
	Line     int
	SQL      string
	Msg      string
	Expected string // expected results or error, as written (may be empty)
	Actual   string // actual results or error (may be empty)
}

func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s\n", f.File, f.Line, f.Msg)
	b.WriteString("  SQL:\n")
	b.WriteString(indent(f.SQL))
	if f.Expected != "" {
		b.WriteString("  expected:\n")
		b.WriteString(indent(f.Expected))
	}
	if f.Actual != "" {
		b.WriteString("  actual:\n")
		b.WriteString(indent(f.Actual))
	}
	return b.String()
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("    ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// Summary counts what a run did.
type Summary struct {
	Statements int // statement records executed
	Queries    int // query records executed
	Explains   int // explain records executed
	Skipped    int // records excluded by skipif/onlyif
	Failures   []*Failure
}

// RunFile parses and runs one file.
func (r *Runner) RunFile(ctx context.Context, path string) (Summary, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Summary{}, fmt.Errorf("read test file: %w", err)
	}
	s, err := ParseScript(filepath.ToSlash(path), src)
	if err != nil {
		return Summary{}, err
	}
	return r.Run(ctx, s), nil
}

// Run executes every record of s in order and reports all failures; a
// failing record does not stop the run.
func (r *Runner) Run(ctx context.Context, s *Script) Summary {
	var sum Summary
	names := r.Names
	if names == nil {
		names = DefaultEngineNames
	}
	threshold := 0
	queryIndex := -1
	for i := range s.Records {
		rec := &s.Records[i]
		if ctx.Err() != nil {
			sum.Failures = append(sum.Failures, &Failure{File: s.Name, Line: rec.Line, Msg: "run cancelled: " + ctx.Err().Error()})
			return sum
		}
		if rec.Kind == KindQuery {
			queryIndex++
			if r.KeepQuery != nil && !r.KeepQuery(queryIndex) {
				continue
			}
		}
		if rec.Skipped(names) {
			sum.Skipped++
			continue
		}
		var f *Failure
		var elapsed time.Duration
		switch rec.Kind {
		case KindHalt:
			return sum
		case KindHashThreshold:
			threshold = rec.Threshold
			continue
		case KindStatement:
			sum.Statements++
			start := time.Now()
			f = r.runStatement(ctx, s.Name, rec)
			elapsed = time.Since(start)
		case KindQuery:
			sum.Queries++
			f, elapsed = r.runQuery(ctx, s.Name, rec, threshold)
		case KindExplain:
			sum.Explains++
			start := time.Now()
			f = r.runExplain(ctx, s.Name, rec)
			elapsed = time.Since(start)
		default:
			continue
		}
		if f != nil {
			sum.Failures = append(sum.Failures, f)
		}
		if r.Observe != nil {
			r.Observe(rec, elapsed, f)
		}
	}
	return sum
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 30 * time.Second
}

// guard runs fn, turning an engine panic into an error so that one bad
// record does not end the whole run.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("engine panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return fn()
}

func (r *Runner) runStatement(ctx context.Context, file string, rec *Record) *Failure {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	err := guard(func() error { return r.Engine.Exec(ctx, rec.SQL) })
	fail := func(msg, exp, act string) *Failure {
		return &Failure{File: file, Line: rec.Line, SQL: rec.SQL, Msg: msg, Expected: exp, Actual: act}
	}
	if !rec.ExpectError {
		if err != nil {
			return fail("statement failed", "", "error: "+errorText(err))
		}
		return nil
	}
	want := "an error"
	if rec.ErrorPattern != nil {
		want = "an error matching /" + rec.ErrorPattern.String() + "/"
	}
	if rec.ErrorText != "" {
		want += " containing " + strconv.Quote(rec.ErrorText)
	}
	if err == nil {
		return fail("statement succeeded but should fail", want, "success")
	}
	msg := err.Error()
	if rec.ErrorPattern != nil && !rec.ErrorPattern.MatchString(msg) {
		return fail("wrong error message", want, msg)
	}
	if rec.ErrorText != "" && !strings.Contains(msg, rec.ErrorText) {
		return fail("wrong error message", want, msg)
	}
	return nil
}

// errorText is err's message, followed by the stack of the panic behind it
// when err is an internal error that caught one: a failure on a machine
// we cannot debug on (the GPU runs) then says where it happened.
func errorText(err error) string {
	var p interface{ PanicStack() string }
	if errors.As(err, &p) && p.PanicStack() != "" {
		return err.Error() + "\n" + p.PanicStack()
	}
	return err.Error()
}

// runQuery runs a query record and checks its answer; elapsed is the
// query's own time, from sending it to its last row, without the check.
func (r *Runner) runQuery(ctx context.Context, file string, rec *Record, threshold int) (f *Failure, elapsed time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	fail := func(msg, act string) *Failure {
		return &Failure{File: file, Line: rec.Line, SQL: rec.SQL, Msg: msg,
			Expected: strings.Join(rec.Expected, "\n"), Actual: act}
	}
	var rows [][]string
	start := time.Now()
	err := guard(func() error {
		var err error
		rows, err = r.collect(ctx, rec.SQL, rec.Types)
		return err
	})
	elapsed = time.Since(start)
	if err != nil {
		return fail("query failed", "error: "+errorText(err)), elapsed
	}
	if msg := Compare(rec, rows, threshold); msg != "" {
		return fail(msg, FormatActual(rec, rows, threshold)), elapsed
	}
	return nil, elapsed
}

// runExplain checks the plan of an explain record: EXPLAIN's first
// column, one plan line a row.
func (r *Runner) runExplain(ctx context.Context, file string, rec *Record) *Failure {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	var want []string
	for _, pl := range rec.Plan {
		if pl.Absent {
			want = append(want, "!"+pl.Pattern.String())
		} else {
			want = append(want, pl.Pattern.String())
		}
	}
	fail := func(msg, act string) *Failure {
		return &Failure{File: file, Line: rec.Line, SQL: rec.SQL, Msg: msg, Expected: strings.Join(want, "\n"), Actual: act}
	}
	stmt := "EXPLAIN "
	if rec.Analyze {
		stmt = "EXPLAIN ANALYZE "
	}
	var plan []string
	err := guard(func() error {
		rdr, err := r.Engine.Query(ctx, stmt+rec.SQL)
		if err != nil {
			return err
		}
		if rdr == nil {
			return errors.New("engine returned no reader and no error")
		}
		defer rdr.Release()
		for rdr.Next() {
			col := rdr.Record().Column(0)
			for i := 0; i < col.Len(); i++ {
				v, err := FormatValue(col, i, 'T')
				if err != nil {
					return err
				}
				plan = append(plan, v)
			}
		}
		return rdr.Err()
	})
	if err != nil {
		return fail("explain failed", "error: "+err.Error())
	}
	if msg := MatchPlan(rec.Plan, plan); msg != "" {
		return fail(msg, strings.Join(plan, "\n"))
	}
	return nil
}

// MatchPlan checks plan lines against an explain record's expectations
// and returns "" when they hold, else what failed.
func MatchPlan(want []PlanLine, plan []string) string {
	next := 0
	for _, pl := range want {
		if pl.Absent {
			for _, l := range plan {
				if pl.Pattern.MatchString(l) {
					return fmt.Sprintf("plan line %q matches !%s", l, pl.Pattern)
				}
			}
			continue
		}
		found := false
		for next < len(plan) {
			l := plan[next]
			next++
			if pl.Pattern.MatchString(l) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Sprintf("no plan line after the earlier matches matches %s", pl.Pattern)
		}
	}
	return ""
}

// collect runs the query and formats every value by the type letters.
func (r *Runner) collect(ctx context.Context, query, types string) ([][]string, error) {
	rdr, err := r.Engine.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	if rdr == nil {
		return nil, errors.New("engine returned no reader and no error")
	}
	defer rdr.Release()
	if n := rdr.Schema().NumFields(); n != len(types) {
		return nil, fmt.Errorf("result has %d columns but the type string %q has %d", n, types, len(types))
	}
	var rows [][]string
	for rdr.Next() {
		rec := rdr.Record()
		if int(rec.NumCols()) != len(types) {
			return nil, fmt.Errorf("record has %d columns, want %d", rec.NumCols(), len(types))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, len(types))
			for c := range row {
				v, err := r.format(rec.Schema().Field(c), rec.Column(c), i, types[c])
				if err != nil {
					return nil, fmt.Errorf("row %d column %d: %w", len(rows)+1, c+1, err)
				}
				row[c] = v
			}
			rows = append(rows, row)
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// format is FormatFieldValue, or FormatSQLiteValue with SQLiteTypes set.
func (r *Runner) format(f arrow.Field, col arrow.Array, i int, typ byte) (string, error) {
	if r.SQLiteTypes {
		return FormatSQLiteValue(col, i, typ)
	}
	return FormatFieldValue(f, col, i, typ)
}

// FormatFieldValue is FormatValue for a column of field f: a DATETIME(n)
// column prints exactly n digits of a second (fileio.FormatFieldValue).
func FormatFieldValue(f arrow.Field, col arrow.Array, i int, typ byte) (string, error) {
	if _, ok := col.(*array.Timestamp); ok && i >= 0 && i < col.Len() && !col.IsNull(i) {
		s := fileio.FormatFieldValue(f, col, i)
		return formatText(s, typ, fmt.Errorf("type mismatch: %s value %s in a %c column", col.DataType(), s, typ))
	}
	return FormatValue(col, i, typ)
}

// FormatValue renders row i of col for the type letter typ the way
// sqllogictest does: NULL, (empty), integers in decimal, reals "%.3f".
func FormatValue(col arrow.Array, i int, typ byte) (string, error) {
	if i < 0 || i >= col.Len() {
		return "", fmt.Errorf("row %d out of range [0,%d)", i, col.Len())
	}
	if col.IsNull(i) {
		return "NULL", nil
	}
	mismatch := func(what string) error {
		return fmt.Errorf("type mismatch: %s value %s in a %c column", col.DataType(), what, typ)
	}
	switch a := col.(type) {
	case *array.Boolean:
		v := int64(0)
		if a.Value(i) {
			v = 1
		}
		return formatInt(v, typ, mismatch(strconv.FormatBool(a.Value(i))))
	case *array.Int64:
		return formatInt(a.Value(i), typ, mismatch(strconv.FormatInt(a.Value(i), 10)))
	case *array.Int32:
		return formatInt(int64(a.Value(i)), typ, mismatch(strconv.FormatInt(int64(a.Value(i)), 10)))
	case *array.Int16:
		return formatInt(int64(a.Value(i)), typ, mismatch(strconv.FormatInt(int64(a.Value(i)), 10)))
	case *array.Int8:
		return formatInt(int64(a.Value(i)), typ, mismatch(strconv.FormatInt(int64(a.Value(i)), 10)))
	case *array.Float64:
		return formatFloat(a.Value(i), typ, mismatch(strconv.FormatFloat(a.Value(i), 'g', -1, 64)))
	case *array.Float32:
		return formatFloat(float64(a.Value(i)), typ, mismatch(strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)))
	case *array.String:
		// Value points into the record, which may be page-locked memory
		// reused once the record is released: keep a copy.
		return formatText(strings.Clone(a.Value(i)), typ, mismatch(strconv.Quote(a.Value(i))))
	case *array.LargeString:
		return formatText(a.Value(i), typ, mismatch(strconv.Quote(a.Value(i))))
	case *array.Decimal128:
		// Decimals print exactly, whatever the type letter (R or T).
		s := fileio.FormatValue(col, i)
		if typ == 'I' {
			return "", mismatch(s)
		}
		return s, nil
	case *array.Date32, *array.Timestamp:
		// Dates and timestamps are text in sqllogictest (type letter T).
		s := fileio.FormatValue(col, i)
		return formatText(s, typ, mismatch(s))
	}
	return "", fmt.Errorf("unsupported result type %s", col.DataType())
}

func formatInt(v int64, typ byte, mismatch error) (string, error) {
	switch typ {
	case 'I', 'B':
		return strconv.FormatInt(v, 10), nil
	case 'R':
		return fmt.Sprintf("%.3f", float64(v)), nil
	}
	return "", mismatch
}

func formatFloat(v float64, typ byte, mismatch error) (string, error) {
	switch typ {
	case 'R':
		return fmt.Sprintf("%.3f", v), nil
	case 'I', 'B':
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprint(v), nil
		}
		return strconv.FormatInt(int64(math.Trunc(v)), 10), nil
	}
	return "", mismatch
}

func formatText(s string, typ byte, mismatch error) (string, error) {
	if typ != 'T' {
		return "", mismatch
	}
	if s == "" {
		return "(empty)", nil
	}
	if !strings.ContainsFunc(s, isControl) {
		return s, nil
	}
	b := []rune(s)
	for i, c := range b {
		if isControl(c) {
			b[i] = '@'
		}
	}
	return string(b), nil
}

func isControl(c rune) bool { return c < ' ' || c == 0x7f }

// Result forms of the expected block.
type resultForm int

const (
	formValues resultForm = iota // one value per line
	formTabs                     // one row per line, tab-separated
	formSpaces                   // one row per line, space-separated
	formHash                     // "N values hashing to X"
)

// expectedForm decides how rec.Expected is laid out, given the actual rows.
func expectedForm(rec *Record, nrows int) resultForm {
	exp := rec.Expected
	if len(exp) == 1 && hashResult.MatchString(strings.TrimSpace(exp[0])) {
		return formHash
	}
	ncol := len(rec.Types)
	if ncol <= 1 || rec.Sort == ValueSort {
		for _, l := range exp {
			if strings.Contains(l, "\t") && rec.Sort != ValueSort {
				return formTabs
			}
		}
		return formValues
	}
	for _, l := range exp {
		if strings.Contains(l, "\t") {
			return formTabs
		}
	}
	if len(exp) == nrows*ncol || len(exp)%ncol == 0 && len(exp) != nrows {
		return formValues
	}
	return formSpaces
}

func sortRows(rows [][]string) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// sortedActual applies the record's sort mode to a copy of rows.
func sortedActual(rec *Record, rows [][]string) [][]string {
	cp := make([][]string, len(rows))
	copy(cp, rows)
	switch rec.Sort {
	case RowSort:
		sortRows(cp)
	case ValueSort:
		vals := flatten(cp)
		sort.Strings(vals)
		cp = cp[:0]
		for _, v := range vals {
			cp = append(cp, []string{v})
		}
	}
	return cp
}

// HashValues returns sqllogictest's md5 of values: each followed by "\n".
func HashValues(values []string) string {
	h := md5.New()
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Compare checks actual rows against the record's expected block. It
// returns "" when they match, else a short description of the mismatch.
func Compare(rec *Record, rows [][]string, threshold int) string {
	sorted := sortedActual(rec, rows)
	vals := flatten(sorted)
	switch expectedForm(rec, len(rows)) {
	case formHash:
		m := hashResult.FindStringSubmatch(strings.TrimSpace(rec.Expected[0]))
		want, _ := strconv.Atoi(m[1])
		if want != len(vals) {
			return fmt.Sprintf("result has %d values, expected %d", len(vals), want)
		}
		if !strings.EqualFold(m[2], HashValues(vals)) {
			return "result hash differs"
		}
		return ""
	case formValues:
		exp := rec.Expected
		if rec.Sort == ValueSort {
			exp = append([]string(nil), exp...)
			sort.Strings(exp)
		} else if rec.Sort == RowSort && len(rec.Types) > 0 && len(exp)%len(rec.Types) == 0 {
			var er [][]string
			for i := 0; i < len(exp); i += len(rec.Types) {
				er = append(er, exp[i:i+len(rec.Types)])
			}
			sortRows(er)
			exp = flatten(er)
		}
		return diffLines(exp, vals, "value")
	case formTabs:
		var er [][]string
		for _, l := range rec.Expected {
			er = append(er, strings.Split(l, "\t"))
		}
		for i, r := range er {
			if len(r) != len(rec.Types) {
				return fmt.Sprintf("expected row %d has %d tab-separated values, want %d", i+1, len(r), len(rec.Types))
			}
		}
		if rec.Sort == RowSort {
			sortRows(er)
		}
		return diffLines(joinRows(er, "\t"), joinRows(sorted, "\t"), "row")
	default: // formSpaces
		exp := append([]string(nil), rec.Expected...)
		act := joinRows(sorted, " ")
		if rec.Sort == RowSort {
			sort.Strings(exp)
			sort.Strings(act)
		}
		return diffLines(exp, act, "row")
	}
}

func joinRows(rows [][]string, sep string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, sep)
	}
	return out
}

func diffLines(exp, act []string, unit string) string {
	for i := 0; i < len(exp) && i < len(act); i++ {
		if exp[i] != act[i] {
			return fmt.Sprintf("%s %d differs: expected %q, got %q", unit, i+1, exp[i], act[i])
		}
	}
	if len(exp) != len(act) {
		return fmt.Sprintf("result has %d %ss, expected %d", len(act), unit, len(exp))
	}
	return ""
}

// FormatActual renders actual rows in the layout of the record's expected
// block (tab-separated rows when the file uses them, else one value per
// line), followed by the hash form when the result is larger than threshold.
func FormatActual(rec *Record, rows [][]string, threshold int) string {
	sorted := sortedActual(rec, rows)
	var lines []string
	form := expectedForm(rec, len(rows))
	switch {
	case form == formTabs || (form != formValues && len(rec.Types) > 1 && rec.Sort != ValueSort):
		lines = joinRows(sorted, "\t")
	default:
		lines = flatten(sorted)
	}
	if len(lines) == 0 {
		lines = []string{"(no rows)"}
	}
	vals := flatten(sorted)
	if threshold > 0 && len(vals) > threshold || form == formHash {
		lines = append(lines, fmt.Sprintf("%d values hashing to %s", len(vals), HashValues(vals)))
	}
	return strings.Join(lines, "\n")
}
