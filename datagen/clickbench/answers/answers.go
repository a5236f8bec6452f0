// Package answers compares answers to the 43 ClickBench queries
// (datagen/clickbench/queries) between engines: the rendering of a
// result as text rows, the form DuckDB's answer files keep, and the
// rules that tolerate what the queries leave open. Both gsql's
// ClickBench test (against answer files) and the bench program's
// ClickBench suite (against DuckDB in the same process) use it.
//
// Values compare as text, numbers within a tolerance (AVG is a DOUBLE in
// DuckDB, a DECIMAL or a DOUBLE in gsql).
//
// Ties: most queries order by a count and cut with LIMIT, and rows with
// equal counts may come in any order, and at the cut either engine may
// keep any of them. So answers compare as runs of rows with equal ORDER
// BY keys (queries.OrderKeys names the key columns of each query): the
// keys must be equal row by row; inside a run the rows must be the same
// multiset, except for a run the LIMIT cuts (the last) or the OFFSET
// starts in (the first), where only the keys are compared.
//
// Where the ORDER BY key is not in the output (Q25 and Q27 order by
// EventTime), the generator's rows are tie-free up to
// clickbench.TieFreeRows rows
// (every row its own EventTime), so those answers compare row by row.
// Above that size EventTimes repeat: Q24 (SELECT *) then compares by its
// EventTime column, and Q25 by a witness query (Witness) that lists every
// row tied up to the cut with its EventTime. Q27 needs neither: its ties
// on EventTime are broken by SearchPhrase, the only output column, so
// rows of equal keys are equal rows.
//
// Q18 has no ORDER BY at all: any ten groups are right, so only the
// row count is compared and Probes gives, for each row, a query that
// counts the group it names on a trusted engine.
package answers

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/datagen/clickbench"
	"github.com/gsqlengine/gsql/datagen/clickbench/queries"
	"github.com/gsqlengine/gsql/decimal"
)

// Tolerances for numbers: equal within AbsTol, or within RelTol of the
// larger magnitude.
const (
	AbsTol = 1e-4
	RelTol = 1e-9
)

// ErrMismatch is wrapped by every error that says two answers differ.
var ErrMismatch = errors.New("answers differ")

// Answer is a query's answer as text: the column names, then the rows.
// NULL is "NULL", numbers are decimal (doubles in their shortest form,
// decimals with their scale), dates 2006-01-02 and timestamps
// 2006-01-02 15:04:05.
type Answer struct {
	Columns []string
	Rows    [][]string
}

// Value renders element i of a as an answer file does.
func Value(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Decimal128:
		sc := a.DataType().(*arrow.Decimal128Type).Scale
		n := a.Value(i)
		return decimal.Int128{Lo: n.LowBits(), Hi: n.HighBits()}.String(int(sc))
	case *array.Date32:
		return a.Value(i).FormattedString()
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC().Format(time.DateTime)
	case *array.String:
		// A copy: Value aliases the record's buffer, which a GPU result
		// lends from a pool and reuses once the record is released.
		return strings.Clone(a.Value(i))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	}
	return a.ValueStr(i)
}

// AppendRecord adds rec's rows to the answer (and takes the column names
// from its schema when the answer has none yet).
func (a *Answer) AppendRecord(rec arrow.Record) {
	if a.Columns == nil {
		a.Columns = columnNames(rec.Schema())
	}
	for row := 0; row < int(rec.NumRows()); row++ {
		line := make([]string, rec.NumCols())
		for c := range line {
			line[c] = Value(rec.Column(c), row)
		}
		a.Rows = append(a.Rows, line)
	}
}

func columnNames(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for j, f := range s.Fields() {
		out[j] = f.Name
	}
	return out
}

// Read renders every record of r.
func Read(r array.RecordReader) (Answer, error) {
	a := Answer{Columns: columnNames(r.Schema())}
	for r.Next() {
		a.AppendRecord(r.Record())
	}
	return a, r.Err()
}

// ReadFile reads an answer file: tab-separated lines, the first the
// column names.
func ReadFile(path string) (Answer, error) {
	f, err := os.Open(path)
	if err != nil {
		return Answer{}, err
	}
	defer f.Close()
	var a Answer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := strings.Split(sc.Text(), "\t")
		if a.Columns == nil {
			a.Columns = line
			continue
		}
		a.Rows = append(a.Rows, line)
	}
	if err := sc.Err(); err != nil {
		return Answer{}, fmt.Errorf("answers: %s: %w", path, err)
	}
	if a.Columns == nil {
		return Answer{}, fmt.Errorf("answers: %s: no header line", path)
	}
	return a, nil
}

// SameValue says whether two rendered values agree: equal text, or
// numbers within the tolerances.
func SameValue(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	d := math.Abs(g - w)
	return d <= AbsTol || d <= RelTol*math.Max(math.Abs(g), math.Abs(w))
}

// Check is how an answer to one query compares with the reference.
type Check struct {
	Query int
	// Keys are the output columns of the ORDER BY keys; with Ordered,
	// rows of equal keys may come in any order (no keys: any order at
	// all). Without Ordered the answers compare row by row.
	Keys    []int
	Ordered bool
	// Limited: a LIMIT cuts the answer, so its last run of equal keys
	// compares keys only. Offset: an OFFSET starts it, so its first run
	// does.
	Limited, Offset bool
	// Witness, when not nil, replaces the comparison with the reference
	// answer: the answer's order depends on a key it does not show.
	Witness *Witness
}

// For returns the check of query n (1..43) whose text is text (published,
// in gsql's dialect, or scaled: the LIMIT and OFFSET are read from it)
// on a hits table of rows rows.
func For(n int, text string, rows int64) Check {
	keys, ordered := queries.OrderKeys(n)
	c := Check{Query: n, Keys: keys, Ordered: ordered,
		Limited: strings.Contains(text, " LIMIT "), Offset: strings.Contains(text, " OFFSET ")}
	if rows > clickbench.TieFreeRows {
		switch n {
		case 24:
			// SELECT *: EventTime is the fifth column.
			c.Keys, c.Ordered = []int{4}, true
		case 25:
			c.Witness = &Witness{
				SQL: "SELECT EventTime, SearchPhrase FROM hits WHERE SearchPhrase <> '' AND EventTime <= " +
					"(SELECT MAX(EventTime) FROM (SELECT EventTime FROM hits WHERE SearchPhrase <> '' ORDER BY EventTime LIMIT 10) AS t) " +
					"ORDER BY EventTime",
				KeyCols: 1, Limit: 10,
			}
		}
	}
	return c
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Compare says how got differs from want under c's rules (an error
// wrapping ErrMismatch), or nil when they agree. A check with a Witness
// compares only the shape here; Witness.Check does the rest.
func Compare(got, want Answer, c Check) error {
	if len(got.Rows) != len(want.Rows) {
		return mismatch("%d rows, want %d (first got %v, want %v)", len(got.Rows), len(want.Rows), first(got.Rows), first(want.Rows))
	}
	if len(got.Columns) != len(want.Columns) {
		return mismatch("%d columns, want %d", len(got.Columns), len(want.Columns))
	}
	for i, w := range want.Columns {
		// DuckDB names expressions its own way (count_star()); only
		// plain names and aliases must agree.
		if plainName.MatchString(w) && !strings.EqualFold(got.Columns[i], w) {
			return mismatch("column %d is named %q, want %q", i+1, got.Columns[i], w)
		}
	}
	g, w := got.Rows, want.Rows
	for r := range w {
		if len(g[r]) != len(w[r]) || len(w[r]) != len(want.Columns) {
			return mismatch("row %d: %d values, want %d", r+1, len(g[r]), len(w[r]))
		}
	}
	if c.Witness != nil {
		return nil
	}
	if !c.Ordered {
		for r := range w {
			if !sameRow(g[r], w[r]) {
				return mismatch("row %d: got %v, want %v", r+1, g[r], w[r])
			}
		}
		return nil
	}
	for _, k := range c.Keys {
		if k < 0 || k >= len(want.Columns) {
			return fmt.Errorf("answers: query %d: ORDER BY key column %d out of range (%d columns)", c.Query, k, len(want.Columns))
		}
	}
	keyOf := func(row []string) string {
		var k []string
		for _, c := range c.Keys {
			k = append(k, row[c])
		}
		return strings.Join(k, "\t")
	}
	for r := range w {
		for _, k := range c.Keys {
			if !SameValue(g[r][k], w[r][k]) {
				return mismatch("row %d: ORDER BY key %s is %q, want %q\n got row %v\nwant row %v", r+1, want.Columns[k], g[r][k], w[r][k], g[r], w[r])
			}
		}
	}
	for a := 0; a < len(w); {
		b := a + 1
		for b < len(w) && keyOf(w[b]) == keyOf(w[a]) {
			b++
		}
		cut := (c.Limited && b == len(w)) || (c.Offset && a == 0)
		if !cut {
			if msg := sameRows(g[a:b], w[a:b]); msg != "" {
				return mismatch("rows %d..%d (ORDER BY keys %q): %s", a+1, b, keyOf(w[a]), msg)
			}
		}
		a = b
	}
	return nil
}

func mismatch(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMismatch, fmt.Sprintf(format, args...))
}

func first(rows [][]string) []string {
	if len(rows) > 0 {
		return rows[0]
	}
	return nil
}

func sameRow(g, w []string) bool {
	if len(g) != len(w) {
		return false
	}
	for c := range w {
		if !SameValue(g[c], w[c]) {
			return false
		}
	}
	return true
}

// sameRows says how got and want differ as multisets of rows, or "".
func sameRows(got, want [][]string) string {
	used := make([]bool, len(got))
	for _, w := range want {
		if !take(got, used, w) {
			return fmt.Sprintf("want row %v is missing; got %v", w, got)
		}
	}
	return ""
}

// take marks the first unused row of rows equal to row as used; false
// when there is none.
func take(rows [][]string, used []bool, row []string) bool {
	for i, r := range rows {
		if !used[i] && sameRow(r, row) {
			used[i] = true
			return true
		}
	}
	return false
}

// Witness is a query whose answer shows the hidden ORDER BY key of an
// answer: every row the answer may hold, in key order, each with its key
// (the first KeyCols columns) followed by the answer's own columns. Limit
// is the answer's LIMIT.
type Witness struct {
	SQL     string
	KeyCols int
	Limit   int
}

// Check says whether got is a right answer given the witness's rows (an
// error wrapping ErrMismatch when not): as many rows as the witness
// allows, and each run of equal keys among its first Limit rows filled
// with rows the witness has for that key.
func (wt *Witness) Check(got Answer, witness Answer) error {
	if len(witness.Columns) != wt.KeyCols+len(got.Columns) {
		return fmt.Errorf("answers: witness has %d columns, want %d keys and the answer's %d", len(witness.Columns), wt.KeyCols, len(got.Columns))
	}
	n := min(wt.Limit, len(witness.Rows))
	if len(got.Rows) != n {
		return mismatch("%d rows, want %d", len(got.Rows), n)
	}
	keyOf := func(row []string) string { return strings.Join(row[:wt.KeyCols], "\t") }
	for a := 0; a < n; {
		k := keyOf(witness.Rows[a])
		b := a + 1
		for b < n && keyOf(witness.Rows[b]) == k {
			b++
		}
		var cands [][]string
		for _, r := range witness.Rows {
			if keyOf(r) == k {
				cands = append(cands, r[wt.KeyCols:])
			}
		}
		used := make([]bool, len(cands))
		for i := a; i < b; i++ {
			if !take(cands, used, got.Rows[i]) {
				return mismatch("row %d %v is no row of ORDER BY key %q left (rows of that key: %v)", i+1, got.Rows[i], k, cands)
			}
		}
		a = b
	}
	return nil
}

// Probe is a query whose one value must equal Want.
type Probe struct {
	SQL  string
	Want string
}

// Probes returns the queries that check got, an answer to query n, row by
// row on a trusted engine: for Q18, each row's group count. Other queries
// have none.
func Probes(n int, got Answer) ([]Probe, error) {
	if n != 18 {
		return nil, nil
	}
	var out []Probe
	for _, r := range got.Rows {
		if len(r) != 3 {
			return nil, fmt.Errorf("answers: Q18 row %v: want 3 values", r)
		}
		if _, err := strconv.ParseInt(r[0], 10, 64); err != nil {
			return nil, fmt.Errorf("answers: Q18 row %v: UserID is not an integer", r)
		}
		// Quotes and backslashes are read differently by gsql's
		// (MySQL's) and DuckDB's string literals.
		if strings.ContainsAny(r[1], `'\`) {
			return nil, fmt.Errorf("answers: Q18 row %v: the phrase has a quote or backslash", r)
		}
		out = append(out, Probe{
			SQL:  fmt.Sprintf("SELECT COUNT(*) FROM hits WHERE UserID = %s AND SearchPhrase = '%s'", r[0], r[1]),
			Want: r[2],
		})
	}
	return out, nil
}

// Check compares a probe's answer with its Want.
func (p Probe) Check(got Answer) error {
	if len(got.Rows) != 1 || len(got.Rows[0]) != 1 {
		return mismatch("probe %s: %d rows, want one value", p.SQL, len(got.Rows))
	}
	if !SameValue(p.Want, got.Rows[0][0]) {
		return mismatch("probe %s is %s, the answer says %s", p.SQL, got.Rows[0][0], p.Want)
	}
	return nil
}
