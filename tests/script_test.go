package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

func TestParseScript(t *testing.T) {
	src := `# leading comment
hash-threshold 8

statement ok
CREATE TABLE t (a BIGINT,
  s VARCHAR)

skipif postgresql
statement error unknown (table|relation)
SELECT * FROM nope

statement error
SELECT 1 +
----
line 1

onlyif gsql
query IT rowsort label-1
SELECT a, s
FROM t
----
1
a

query T
SELECT 'x'
----
a b	c

query I
SELECT 1

halt

query I
SELECT 'never parsed as a record'
`
	s, err := ParseScript("x.test", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Records) != 8 {
		t.Fatalf("got %d records, want 8: %+v", len(s.Records), s.Records)
	}
	r := s.Records
	if r[0].Kind != KindHashThreshold || r[0].Threshold != 8 || r[0].Line != 2 {
		t.Errorf("record 0: %+v", r[0])
	}
	if r[1].Kind != KindStatement || r[1].ExpectError || r[1].SQL != "CREATE TABLE t (a BIGINT,\n  s VARCHAR)" || r[1].Line != 4 {
		t.Errorf("record 1: %+v", r[1])
	}
	if !r[2].ExpectError || r[2].ErrorPattern == nil || !r[2].ErrorPattern.MatchString("unknown table x") ||
		len(r[2].Conditions) != 1 || !r[2].Conditions[0].Skip || r[2].Line != 9 {
		t.Errorf("record 2: %+v", r[2])
	}
	if !r[3].ExpectError || r[3].ErrorPattern != nil || r[3].ErrorText != "line 1" {
		t.Errorf("record 3: %+v", r[3])
	}
	q := r[4]
	if q.Kind != KindQuery || q.Types != "IT" || q.Sort != RowSort || q.Label != "label-1" ||
		q.SQL != "SELECT a, s\nFROM t" || len(q.Expected) != 2 || !q.HasSep || q.Line != 18 {
		t.Errorf("record 4: %+v", q)
	}
	if q.Skipped([]string{"gsql"}) || !q.Skipped([]string{"sqlite"}) {
		t.Errorf("onlyif gsql: wrong Skipped")
	}
	if !r[2].Skipped([]string{"postgresql"}) || r[2].Skipped(DefaultEngineNames) {
		t.Errorf("skipif postgresql: wrong Skipped")
	}
	if r[5].Expected[0] != "a b\tc" {
		t.Errorf("result line not verbatim: %q", r[5].Expected[0])
	}
	if r[6].HasSep || len(r[6].Expected) != 0 {
		t.Errorf("query without ----: %+v", r[6])
	}
	if r[7].Kind != KindHalt {
		t.Errorf("record 7: %+v", r[7])
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := map[string]string{
		"unknown record":         "frobnicate\nSELECT 1\n",
		"statement without mode": "statement\nSELECT 1\n",
		"statement bad mode":     "statement maybe\nSELECT 1\n",
		"statement ok args":      "statement ok now\nSELECT 1\n",
		"statement without SQL":  "statement ok\n\nSELECT 1\n",
		"ok with results":        "statement ok\nSELECT 1\n----\n1\n",
		"bad regexp":             "statement error (\nSELECT 1\n",
		"query without types":    "query\nSELECT 1\n",
		"bad type letter":        "query IX\nSELECT 1, 2\n",
		"bad sort mode":          "query I sortof label\nSELECT 1\n",
		"query without SQL":      "query I\n----\n1\n",
		"dangling condition":     "skipif gsql\n\nquery I\nSELECT 1\n",
		"condition at end":       "onlyif gsql",
		"condition arity":        "skipif\nquery I\nSELECT 1\n",
		"bad threshold":          "hash-threshold x\n",
		"negative threshold":     "hash-threshold -1\n",
		"halt argument":          "halt now\n",
		"text after halt":        "halt\nSELECT 1\n",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseScript("bad.test", []byte(src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if pe.Line < 1 || !strings.HasPrefix(pe.Error(), "bad.test:") {
				t.Errorf("bad position in %q", pe.Error())
			}
		})
	}
}

func TestParseScriptCRLF(t *testing.T) {
	s, err := ParseScript("crlf.test", []byte("query T\r\nSELECT 'a'\r\n----\r\na\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Records) != 1 || s.Records[0].Expected[0] != "a" || s.Records[0].SQL != "SELECT 'a'" {
		t.Fatalf("got %+v", s.Records)
	}
}

// fakeEngine answers queries from a table of canned results.
type fakeEngine struct {
	results map[string]arrow.Record
	errs    map[string]error
	execs   []string
}

func (f *fakeEngine) Exec(_ context.Context, sql string) error {
	f.execs = append(f.execs, sql)
	if err, ok := f.errs[sql]; ok {
		return err
	}
	return nil
}

func (f *fakeEngine) Query(_ context.Context, sql string) (array.RecordReader, error) {
	if err, ok := f.errs[sql]; ok {
		return nil, err
	}
	rec, ok := f.results[sql]
	if !ok {
		return nil, fmt.Errorf("fake: no result for %q", sql)
	}
	return array.NewRecordReader(rec.Schema(), []arrow.Record{rec})
}

// record builds a record of int64, float64, string and bool columns from
// Go values (nil is NULL).
func record(t *testing.T, cols ...[]any) arrow.Record {
	t.Helper()
	mem := memory.NewGoAllocator()
	var fields []arrow.Field
	var arrs []arrow.Array
	for i, col := range cols {
		var b array.Builder
		var dt arrow.DataType
		for _, v := range col {
			switch v.(type) {
			case int:
				dt = arrow.PrimitiveTypes.Int64
			case float64:
				dt = arrow.PrimitiveTypes.Float64
			case string:
				dt = arrow.BinaryTypes.String
			case bool:
				dt = arrow.FixedWidthTypes.Boolean
			}
		}
		if dt == nil {
			dt = arrow.BinaryTypes.String
		}
		b = array.NewBuilder(mem, dt)
		for _, v := range col {
			switch x := v.(type) {
			case nil:
				b.AppendNull()
			case int:
				b.(*array.Int64Builder).Append(int64(x))
			case float64:
				b.(*array.Float64Builder).Append(x)
			case string:
				b.(*array.StringBuilder).Append(x)
			case bool:
				b.(*array.BooleanBuilder).Append(x)
			}
		}
		arrs = append(arrs, b.NewArray())
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: true})
	}
	n := int64(0)
	if len(arrs) > 0 {
		n = int64(arrs[0].Len())
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), arrs, n)
}

func TestRunnerAgainstFakeEngine(t *testing.T) {
	eng := &fakeEngine{
		results: map[string]arrow.Record{
			"ints":   record(t, []any{3, 1, nil, 2}),
			"mixed":  record(t, []any{1, 2}, []any{"a b", ""}, []any{1.5, nil}, []any{true, false}),
			"text":   record(t, []any{"x\ty", "日本語"}),
			"floats": record(t, []any{2.7, -2.7}),
		},
		errs: map[string]error{
			"bad": errors.New("syntax error at line 1, column 3"),
		},
	}
	src := `statement ok
CREATE TABLE t (a BIGINT)

statement error line \d+, column
bad

statement error
bad
----
column 3

query I nosort
ints
----
3
1
NULL
2

query I rowsort
ints
----
1
2
3
NULL

query I valuesort
ints
----
NULL
1
2
3

query ITRB
mixed
----
1
a b
1.500
1
2
(empty)
NULL
0

query ITRI
mixed
----
1	a b	1.500	1
2	(empty)	NULL	0

query IRTB rowsort
mixed
----
2 (empty) NULL 0
1 a b 1.500 1

query T
text
----
x@y
日本語

query I
floats
----
2
-2

query R
floats
----
2.700
-2.700

query I
ints
----
4 values hashing to ` + HashValues([]string{"3", "1", "NULL", "2"}) + `

skipif gsql
query I
not run
----
1

onlyif sqlite
statement ok
not run either
`
	s, err := ParseScript("fake.test", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Engine: eng}
	sum := r.Run(context.Background(), s)
	var fails []string
	for _, f := range sum.Failures {
		fails = append(fails, f.Error())
	}
	// IRTB has the wrong column order on purpose: it must fail (type mismatch).
	if len(fails) != 1 || !strings.Contains(fails[0], "fake.test:54:") || !strings.Contains(fails[0], "type mismatch") {
		t.Fatalf("want exactly one failure at fake.test:54 (type mismatch), got %d:\n%s", len(fails), strings.Join(fails, "\n"))
	}
	if sum.Skipped != 2 || sum.Statements != 3 || sum.Queries != 10 {
		t.Errorf("counts: %+v", sum)
	}
}

func TestRunnerReportsMismatches(t *testing.T) {
	eng := &fakeEngine{
		results: map[string]arrow.Record{"q": record(t, []any{1, 2})},
		errs:    map[string]error{"bad": errors.New("unknown table nope")},
	}
	cases := []struct {
		src, want string
	}{
		{"query I\nq\n----\n1\n3\n", `value 2 differs: expected "3", got "2"`},
		{"query I\nq\n----\n1\n", "result has 2 values, expected 1"},
		{"query I\nq\n", "result has 2 values, expected 0"},
		{"query II\nq\n----\n1\n", "columns"},
		{"query T\nq\n----\n1\n2\n", "type mismatch"},
		{"query I\nq\n----\n2 values hashing to 00000000000000000000000000000000\n", "hash differs"},
		{"query I\nbad\n----\n1\n", "unknown table nope"},
		{"statement ok\nbad\n", "statement failed"},
		{"statement error\nq\n", "should fail"},
		{"statement error no such\nbad\n", "wrong error message"},
		{"statement error\nbad\n----\nno such\n", "wrong error message"},
	}
	for _, c := range cases {
		s, err := ParseScript("m.test", []byte(c.src))
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		sum := (&Runner{Engine: eng}).Run(context.Background(), s)
		if len(sum.Failures) != 1 {
			t.Errorf("%q: got %d failures, want 1", c.src, len(sum.Failures))
			continue
		}
		msg := sum.Failures[0].Error()
		if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "m.test:1:") {
			t.Errorf("%q: failure %q does not start with m.test:1: and mention %q", c.src, msg, c.want)
		}
	}
}

type panicEngine struct{}

func (panicEngine) Exec(context.Context, string) error { panic("boom") }
func (panicEngine) Query(context.Context, string) (array.RecordReader, error) {
	panic("boom")
}

func TestRunnerSurvivesEnginePanic(t *testing.T) {
	s, err := ParseScript("p.test", []byte("statement ok\nx\n\nquery I\ny\n----\n1\n"))
	if err != nil {
		t.Fatal(err)
	}
	sum := (&Runner{Engine: panicEngine{}}).Run(context.Background(), s)
	if len(sum.Failures) != 2 || !strings.Contains(sum.Failures[0].Error(), "panicked") {
		t.Fatalf("got %+v", sum.Failures)
	}
}

func TestHashValues(t *testing.T) {
	// md5("1\n2\n")
	if got := HashValues([]string{"1", "2"}); got != "6ddb4095eb719e2a9f0a3f95677d24e0" {
		t.Errorf("HashValues = %s", got)
	}
}

// TestRegressionFilesParse checks every file parses and that together they
// hold the promised number of result-asserting queries.
func TestRegressionFilesParse(t *testing.T) {
	var queries, statements int
	err := filepath.WalkDir("sql", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".test") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s, err := ParseScript(path, src)
		if err != nil {
			return err
		}
		for _, r := range s.Records {
			switch r.Kind {
			case KindQuery:
				queries++
				if !r.HasSep {
					t.Errorf("%s:%d: query record without ---- asserts no rows; write the ---- explicitly", path, r.Line)
				}
			case KindStatement:
				statements++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d query records, %d statement records", queries, statements)
	if queries < 400 {
		t.Errorf("regression files hold %d query records, want at least 400", queries)
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add([]byte("statement ok\nCREATE TABLE t (a INT)\n\nquery I rowsort\nSELECT a FROM t\n----\n1\n"))
	f.Add([]byte("skipif gsql\nonlyif mysql\nstatement error x(\nSELECT\n"))
	f.Add([]byte("hash-threshold 3\n\nhalt\n"))
	f.Add([]byte("query T\nSELECT 1\n----\n3 values hashing to 0123456789abcdef0123456789abcdef\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := ParseScript("fuzz.test", src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			return
		}
		nlines := strings.Count(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n") + 1
		for _, r := range s.Records {
			if r.Line < 1 || r.Line > nlines {
				t.Fatalf("record line %d outside [1,%d]", r.Line, nlines)
			}
			if r.Kind == KindQuery {
				// Comparing and formatting any result must not panic.
				rows := [][]string{{"1"}, {"NULL"}}
				_ = Compare(&r, rows, 1)
				_ = FormatActual(&r, rows, 1)
			}
		}
	})
}

func TestExplainRecords(t *testing.T) {
	plan := record(t, []any{"Project a [cpu]", "  Filter (a > 1) [cpu]", "    Scan t [a] (3 rows) [cpu]", "rules: push_filters"})
	eng := &fakeEngine{results: map[string]arrow.Record{
		"EXPLAIN SELECT a FROM t":         plan,
		"EXPLAIN ANALYZE SELECT a FROM t": plan,
	}}
	cases := []struct {
		name, body string
		fails      string // "" when the record holds, else a part of the failure
	}{
		{"in order", "explain\nSELECT a FROM t\n----\n^Project\nFilter\nScan t\n^rules:.*push_filters", ""},
		{"analyze", "explain analyze\nSELECT a FROM t\n----\nScan", ""},
		{"absent holds", "explain\nSELECT a FROM t\n----\nFilter\n!HashJoin", ""},
		{"absent fails", "explain\nSELECT a FROM t\n----\n!Filter", `matches !Filter`},
		{"order matters", "explain\nSELECT a FROM t\n----\nScan\nFilter", `matches Filter`},
		{"one line matches once", "explain\nSELECT a FROM t\n----\nFilter\nFilter", `matches Filter`},
		{"missing line", "explain\nSELECT a FROM t\n----\nSort", `matches Sort`},
		{"engine error", "explain\nSELECT b FROM t\n----\nScan", "explain failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseScript("x.test", []byte(c.body+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Records) != 1 || s.Records[0].Kind != KindExplain {
				t.Fatalf("parsed %+v, want one explain record", s.Records)
			}
			sum := (&Runner{Engine: eng}).Run(context.Background(), s)
			if sum.Explains != 1 {
				t.Fatalf("%d explain records run, want 1", sum.Explains)
			}
			switch {
			case c.fails == "" && len(sum.Failures) > 0:
				t.Fatalf("unexpected failure: %v", sum.Failures[0])
			case c.fails != "" && len(sum.Failures) != 1:
				t.Fatalf("got %d failures, want 1", len(sum.Failures))
			case c.fails != "" && !strings.Contains(sum.Failures[0].Error(), c.fails):
				t.Fatalf("failure %q does not say %q", sum.Failures[0].Error(), c.fails)
			}
			if c.fails != "" && !strings.Contains(sum.Failures[0].Error(), "Scan t") && c.name != "engine error" {
				t.Fatalf("failure does not print the plan: %v", sum.Failures[0])
			}
		})
	}
}

func TestExplainRecordErrors(t *testing.T) {
	for _, src := range []string{
		"explain\nSELECT 1\n",                // no ---- line
		"explain\nSELECT 1\n----\n",          // no expectations
		"explain verbose\nSELECT 1\n----\nx", // unknown argument
		"explain\n----\nx",                   // no SQL
		"explain\nSELECT 1\n----\n(",         // bad regexp
	} {
		if _, err := ParseScript("x.test", []byte(src)); err == nil {
			t.Errorf("%q parsed, want an error", src)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("%q: error %T, want *ParseError", src, err)
		}
	}
}
