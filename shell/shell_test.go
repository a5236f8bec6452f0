package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/chzyer/readline"

	"github.com/gsqlengine/gsql/fileio"
)

// fakeDB is a tiny Engine for driving the shell without the real engine:
// "SELECT * FROM t" returns table t, "SELECT 1" one row, "SLEEP" blocks
// until cancelled, "CREATE ..." returns no rows, "EXPLAIN ..." a plan, and
// anything else is an error.
type fakeDB struct {
	mu      sync.Mutex
	tables  map[string]fakeTable
	device  string
	queries []string
	timed   []bool // whether each query asked for its GPU time
	started chan struct{}
}

type fakeTable struct {
	schema *arrow.Schema
	recs   []arrow.Record
}

func newFakeDB(t *testing.T) *fakeDB {
	db := &fakeDB{tables: map[string]fakeTable{}, device: "cpu", started: make(chan struct{}, 10)}
	rdr := testReader(t)
	rdr.Next()
	rec := rdr.Record()
	rec.Retain()
	db.tables["t"] = fakeTable{rec.Schema(), []arrow.Record{rec}}
	return db
}

type timingKey struct{}

func (db *fakeDB) WithDeviceTiming(ctx context.Context) context.Context {
	return context.WithValue(ctx, timingKey{}, true)
}

func (db *fakeDB) Query(ctx context.Context, text string, args ...any) (array.RecordReader, error) {
	db.mu.Lock()
	db.queries = append(db.queries, text)
	timed, _ := ctx.Value(timingKey{}).(bool)
	db.timed = append(db.timed, timed)
	db.mu.Unlock()
	text = strings.Join(strings.Fields(text), " ")
	up := strings.ToUpper(text)
	switch {
	case strings.HasPrefix(up, "SELECT * FROM "):
		name := strings.TrimSpace(text[len("SELECT * FROM "):])
		db.mu.Lock()
		tb, ok := db.tables[name]
		db.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("unknown table %q", name)
		}
		return array.NewRecordReader(tb.schema, tb.recs)
	case up == "SELECT 1":
		schema := arrow.NewSchema([]arrow.Field{{Name: "1", Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.Append(1)
		rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, 1)
		return array.NewRecordReader(schema, []arrow.Record{rec})
	case up == "SELECT 1/0":
		// A reader whose statement gave warnings (gsql.WarningReader).
		schema := arrow.NewSchema([]arrow.Field{{Name: "1/0", Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendNull()
		rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, 1)
		rdr, err := array.NewRecordReader(schema, []arrow.Record{rec})
		return warnReader{rdr, 2}, err
	case up == "SLEEP":
		db.started <- struct{}{}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("not cancelled")
		}
	case strings.HasPrefix(up, "CREATE"):
		return array.NewRecordReader(arrow.NewSchema(nil, nil), nil)
	case strings.HasPrefix(up, "EXPLAIN"):
		schema := arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues([]string{"Project [cpu]", "  Scan t [cpu]"}, nil)
		rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, 2)
		return array.NewRecordReader(schema, []arrow.Record{rec})
	}
	return nil, fmt.Errorf("syntax error at line 1, column 1")
}

func (db *fakeDB) RegisterTable(name string, schema *arrow.Schema, recs []arrow.Record) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if _, ok := db.tables[name]; ok {
		return fmt.Errorf("table %s already exists", name)
	}
	db.tables[name] = fakeTable{schema, recs}
	return nil
}

func (db *fakeDB) Tables() []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	var out []string
	for n := range db.tables {
		out = append(out, n)
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

func (db *fakeDB) TableSchema(name string) (*arrow.Schema, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if tb, ok := db.tables[name]; ok {
		return tb.schema, nil
	}
	return nil, fmt.Errorf("table %q does not exist", name)
}

func (db *fakeDB) Device() string { return db.device }

func (db *fakeDB) SetDevice(d string) error {
	if d == "gpu" {
		return errors.New("no GPU available (built without CUDA support)")
	}
	db.device = "cpu"
	return nil
}

func (db *fakeDB) FunctionNames() []string { return []string{"concat", "left", "split_part", "upper"} }

// syncBuffer is a goroutine-safe bytes.Buffer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestShell(t *testing.T, bail bool) (*Shell, *fakeDB, *syncBuffer, *syncBuffer) {
	db := newFakeDB(t)
	var out, errb syncBuffer
	sh := New(db, Options{Out: &out, Err: &errb, Bail: bail, Stats: func() string { return "pool: 0 B in use" }})
	return sh, db, &out, &errb
}

func TestScriptCommands(t *testing.T) {
	tests := []struct {
		name, script string
		out, err     string // exact stdout; substring of stderr ("" means none)
		fails        bool
	}{
		{"mode csv", ".mode csv\nSELECT * FROM t;\n", "id,name,score,ok\n1,Ada,1.5,true\n22,日本語,2.0,false\n333,,,\n", "", false},
		{"backslash and headers", "\\mode tsv\n\\headers off\nSELECT 1;", "1\n", "", false},
		{"nullvalue", ".mode line\n.nullvalue (null)\nSELECT * FROM t;", "   id = 1\n name = Ada\nscore = 1.5\n   ok = true\n\n   id = 22\n name = 日本語\nscore = 2.0\n   ok = false\n\n   id = 333\n name = (null)\nscore = (null)\n   ok = (null)\n", "", false},
		{"multi-line and two per line", "SELECT\n1; SELECT\n  1\n;\n", "+---+\n| 1 |\n+---+\n| 1 |\n+---+\n1 row\n+---+\n| 1 |\n+---+\n| 1 |\n+---+\n1 row\n", "", false},
		{"last statement without semicolon", "SELECT 1", "+---+\n| 1 |\n+---+\n| 1 |\n+---+\n1 row\n", "", false},
		{"comments", "-- hello\nSELECT 1; /* c */\n# mysql comment\n", "+---+\n| 1 |\n+---+\n| 1 |\n+---+\n1 row\n", "", false},
		{"tables", ".tables\n", "t\n", "", false},
		{"demo", ".demo 10 3\n.tables\n.schema people\n", "people\nt\nCREATE TABLE people (name VARCHAR, visibility VARCHAR);\n", "", false},
		{"demo twice", ".demo 10\n.demo 10\n", "", `Error: x.sql:2: .demo: table "people" already exists`, true},
		{"demo bad", ".demo many\n", "", `.demo: want a row count, got "many" (usage: .demo N [SEED])`, true},
		{"once then error", ".once /nonexistent/dir/x.txt\nBOGUS;\n", "", "syntax error", true},
		{"schema", ".schema t\n", "CREATE TABLE t (id BIGINT, name VARCHAR, score DOUBLE, ok BOOLEAN);\n", "", false},
		{"schema unknown", ".schema nope\n", "", `Error: x.sql:1: .schema: table "nope" does not exist`, true},
		{"explain", ".explain on\nSELECT 1;\n.explain off\nSELECT 1;", "Project [cpu]\n  Scan t [cpu]\n+---+\n| 1 |\n+---+\n| 1 |\n+---+\n1 row\n", "", false},
		{"device show", ".device\n", "cpu\n", "", false},
		{"device gpu fails", ".device gpu\n", "", "Error: x.sql:1: .device: no GPU", true},
		{"device bad", ".device tpu\n", "", `.device: unknown device "tpu" (usage: .device [auto|gpu|cpu])`, true},
		{"stats", ".stats\n", "pool: 0 B in use\n", "", false},
		{"timer", ".timer on\nCREATE TABLE x (a INT);\n", "Run Time: ", "", false},
		{"unknown command", ".frobnicate\n", "", `Error: x.sql:1: unknown command ".frobnicate" (enter .help for the list of commands)`, true},
		{"bad mode", ".mode xml\n", "", `.mode: unknown mode "xml" (usage: .mode table|csv|tsv|json|jsonl|markdown|line)`, true},
		{"bad headers", ".headers maybe\n", "", `.headers: want on or off, got "maybe" (usage: .headers on|off)`, true},
		{"missing args", ".import a.csv\n", "", `.import: wrong number of arguments (usage: .import [--header|--no-header] [--delimiter C] [--varchar] FILE TABLE)`, true},
		{"too many args", ".mode csv json\n", "", `.mode: wrong number of arguments (usage: .mode`, true},
		{"sql error and bail", "BOGUS;\nSELECT 1;\n", "", "Error: x.sql:1: syntax error at line 1, column 1", true},
		{"quit stops", "SELECT 1;\n.quit\nSELECT 2;\n", "+---+\n| 1 |\n+---+\n| 1 |\n+---+\n1 row\n", "", false},
		{"unterminated quote", "SELECT 'abc;\n", "", "unterminated quote", true},
		{"maxwidth", ".maxwidth 5\n.mode table\nSELECT * FROM t;", "+-----+-------+-------+-------+\n|  id | name  | score | ok    |\n+-----+-------+-------+-------+\n|   1 | Ada   |   1.5 | true  |\n|  22 | 日本… |   2.0 | false |\n| 333 | NULL  |  NULL | NULL  |\n+-----+-------+-------+-------+\n3 rows\n", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh, _, out, errb := newTestShell(t, true)
			err := sh.Run(context.Background(), strings.NewReader(tc.script), "x.sql")
			if (err != nil) != tc.fails {
				t.Fatalf("Run error %v, want failure %v; stderr %q", err, tc.fails, errb.String())
			}
			if tc.name == "timer" {
				if !strings.HasPrefix(out.String(), tc.out) {
					t.Fatalf("stdout %q", out.String())
				}
			} else if out.String() != tc.out {
				t.Fatalf("stdout\n%q\nwant\n%q", out.String(), tc.out)
			}
			if tc.err == "" && errb.String() != "" || !strings.Contains(errb.String(), tc.err) {
				t.Fatalf("stderr %q, want %q", errb.String(), tc.err)
			}
			if tc.err != "" && strings.Count(errb.String(), "\n") != 1 {
				t.Fatalf("stderr is not one line: %q", errb.String())
			}
		})
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	sh, _, out, _ := newTestShell(t, true)
	if err := sh.Run(context.Background(), strings.NewReader(".help\n"), ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{".tables", ".schema", ".mode", ".headers", ".nullvalue", ".timer", ".device", ".import", ".output", ".once", ".read", ".explain", ".stats", ".quit"} {
		if !strings.Contains(out.String(), c+" ") && !strings.Contains(out.String(), c+"\n") {
			t.Errorf("help lacks %s", c)
		}
	}
}

func TestNoBailContinues(t *testing.T) {
	sh, _, out, errb := newTestShell(t, false)
	err := sh.Run(context.Background(), strings.NewReader("BOGUS;\n.mode csv\nSELECT 1;\n"), "")
	if !errors.Is(err, ErrFailed) || out.String() != "1\n1\n" || !strings.Contains(errb.String(), "Error: syntax error") {
		t.Fatalf("err %v out %q stderr %q", err, out.String(), errb.String())
	}
}

func TestFilesCommands(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("a,b\n1,x\n2,\n"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,x\n2\n"), 0o644)
	script := filepath.Join(dir, "s.sql")
	os.WriteFile(script, []byte(".mode csv\nSELECT * FROM imp;\nBOGUS;\n"), 0o644)
	outFile := filepath.Join(dir, "out.txt")
	onceFile := filepath.Join(dir, "once.json")
	pq := filepath.Join(dir, "r.parquet")

	sh, db, out, errb := newTestShell(t, false)
	sh.opts.ProgressMin = 1 // every file gets a progress bar
	in := fmt.Sprintf(".import %s imp\n.import %s imp\n.import %s broken\n.read %s\n.output %s\nSELECT 1;\n.output\n.mode json\n.once %s\nSELECT * FROM imp;\n.once %s\nSELECT * FROM t;\nSELECT 1;\n",
		csvPath, csvPath, bad, script, outFile, onceFile, pq)
	if err := sh.Run(context.Background(), strings.NewReader(in), "in"); !errors.Is(err, ErrFailed) {
		t.Fatalf("Run: %v", err)
	}
	se := errb.String()
	for _, want := range []string{
		"in.csv [", "100%", // progress bar
		`Error: in:2: .import: table "imp" already exists`,
		"Error: in:3: .import: " + bad + ":3:2: expected 2 fields, got 1",
		"Error: " + script + ":3: syntax error",
	} {
		if !strings.Contains(se, want) {
			t.Errorf("stderr lacks %q:\n%s", want, se)
		}
	}
	if _, err := db.TableSchema("broken"); err == nil {
		t.Error("failed import created a table")
	}
	if got, _ := os.ReadFile(outFile); string(got) != "1\n1\n" {
		t.Errorf(".output file %q", got)
	}
	if got, _ := os.ReadFile(onceFile); string(got) != "[\n{\"a\":1,\"b\":\"x\"},\n{\"a\":2,\"b\":null}\n]\n" {
		t.Errorf(".once file %q", got)
	}
	if out.String() != "a,b\n1,x\n2,\n[\n{\"1\":1}\n]\n" {
		t.Errorf("stdout %q", out.String())
	}
	schema, recs, err := fileio.ReadParquet(context.Background(), pq, fileio.ReadOptions{})
	if err != nil || schema.NumFields() != 4 || recs[0].NumRows() != 3 {
		t.Errorf("parquet .once: %v %v", schema, err)
	}
}

func TestInterrupt(t *testing.T) {
	sh, db, out, errb := newTestShell(t, true)
	done := make(chan error)
	go func() { done <- sh.Exec(context.Background(), "SLEEP;") }()
	<-db.started
	start := time.Now()
	if !sh.Interrupt() {
		t.Fatal("Interrupt found no running statement")
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("statement not cancelled")
	}
	if time.Since(start) > time.Second || !strings.Contains(errb.String(), "Error: interrupted") {
		t.Fatalf("stderr %q", errb.String())
	}
	if sh.Interrupt() {
		t.Fatal("Interrupt with nothing running")
	}
	// The shell goes on.
	if err := sh.Exec(context.Background(), "SELECT 1;"); err != nil || !strings.Contains(out.String(), "1 row") {
		t.Fatalf("after interrupt: %v %q", err, out.String())
	}
}

func TestCompletion(t *testing.T) {
	sh, _, _, _ := newTestShell(t, true)
	c := sh.Completer()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data.csv"), nil, 0o644)
	tests := []struct {
		line string
		want []string
		n    int
	}{
		{"SEL", []string{"ECT "}, 3},
		{"sel", []string{"ect "}, 3},
		{"SELECT na", []string{"me "}, 2},
		{"SELECT * FROM t WHERE sc", []string{"ore "}, 2},
		{"SELECT t.o", []string{"k "}, 1},
		{"SELECT spl", []string{"it_part("}, 3},
		{"SELECT * FROM ", nil, 0}, // checked below: many candidates
		{".mo", []string{"de "}, 2},
		{".mode js", []string{"on ", "onl "}, 2},
		{"\\ti", []string{"mer "}, 2},
		{".import " + dir + "/da", []string{"ta.csv "}, len(dir) + 3},
		{".schema ", []string{"t "}, 0},
		{"SELECT zzz", nil, 3},
	}
	for _, tc := range tests {
		got, n := c.Do([]rune(tc.line), len([]rune(tc.line)))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if tc.line == "SELECT * FROM " {
			if !contains(gs, "t ") || !contains(gs, "WHERE ") {
				t.Errorf("%q: %q", tc.line, gs)
			}
			continue
		}
		if !reflect.DeepEqual(gs, tc.want) || n != tc.n {
			t.Errorf("%q: got %q,%d want %q,%d", tc.line, gs, n, tc.want, tc.n)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// termConfig makes a readline configuration that talks to pipes as if
// they were a terminal.
func termConfig(in io.ReadCloser, out io.Writer, history string) *readline.Config {
	return &readline.Config{
		Stdin:              in,
		Stdout:             out,
		Stderr:             out,
		HistoryFile:        history,
		FuncIsTerminal:     func() bool { return true },
		FuncMakeRaw:        func() error { return nil },
		FuncExitRaw:        func() error { return nil },
		FuncGetWidth:       func() int { return 200 },
		FuncOnWidthChanged: func(func()) {},
	}
}

func TestInteractive(t *testing.T) {
	sh, db, out, errb := newTestShell(t, false)
	history := filepath.Join(t.TempDir(), "hist")
	pr, pw := io.Pipe()
	var term syncBuffer
	done := make(chan error)
	go func() { done <- sh.Interactive(context.Background(), termConfig(pr, &term, history)) }()
	send := func(s string) {
		if _, err := pw.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(what string, buf *syncBuffer) {
		deadline := time.Now().Add(3 * time.Second)
		for !strings.Contains(buf.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %q; terminal:\n%q\nstdout:\n%q", what, term.String(), out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("gsql[cpu]> ", &term)
	send("SELECT\n")
	waitFor(ContinuationPrompt, &term)
	send("1;\n")
	waitFor("1 row", out)
	send(".mode csv\n")
	send("half stat\x03") // Ctrl-C drops the line being typed
	send("SELECT 1;\n")
	waitFor("1\n1\n", out)
	send("BOGUS;\n")
	waitFor("Error: syntax error", errb)
	// Ctrl-C during a statement cancels it, not the shell.
	send("SLEEP;\n")
	<-db.started
	sh.Interrupt()
	waitFor("Error: interrupted", errb)
	send("SELECT 1;\n")
	waitFor("1\n1\n1\n1\n", out)
	send("\x04") // Ctrl-D
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Ctrl-D did not exit")
	}
	h, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT 1;\n.mode csv\nSELECT 1;\nBOGUS;\nSLEEP;\nSELECT 1;\n"
	if string(h) != want {
		t.Fatalf("history %q, want %q", h, want)
	}
	for _, q := range db.queries {
		if strings.Contains(q, "half") {
			t.Fatalf("interrupted line was run: %q", db.queries)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		in       string
		stmts    []string
		complete bool
	}{
		{"SELECT 1;", []string{"SELECT 1"}, true},
		{"SELECT 1; SELECT 2", []string{"SELECT 1"}, false},
		{"SELECT ';'; ", []string{"SELECT ';'"}, true},
		{"SELECT 'it''s;' ;", []string{"SELECT 'it''s;'"}, true},
		{`SELECT "a\";b";`, []string{`SELECT "a\";b"`}, true},
		{"SELECT 1 -- ;\n;", []string{"SELECT 1 -- ;"}, true},
		{"/* ; */ SELECT 1;", []string{"/* ; */ SELECT 1"}, true},
		{"/* open", nil, false},
		{"SELECT 'open", nil, false},
		{"-- only a comment\n", nil, true},
		{";;", nil, true},
	}
	for _, tc := range tests {
		stmts, complete := splitStatements(tc.in)
		if !reflect.DeepEqual(stmts, tc.stmts) || complete != tc.complete {
			t.Errorf("%q: got %q %v", tc.in, stmts, complete)
		}
	}
}

// compiledReader is a result that reports GPU and compile times.
type compiledReader struct{ array.RecordReader }

func (compiledReader) DeviceTime() (time.Duration, bool) { return 2 * time.Millisecond, true }
func (compiledReader) CompileTime() (wait, background time.Duration) {
	return 1500 * time.Microsecond, 900 * time.Millisecond
}

// TestTimerShowsCompileTime: .timer prints the compile time apart from the
// run time and the GPU time.
func TestTimerShowsCompileTime(t *testing.T) {
	var out bytes.Buffer
	s := New(newFakeDB(t), Options{Out: &out})
	s.timer = true
	s.printTimer(5*time.Millisecond, compiledReader{})
	got := out.String()
	for _, want := range []string{"Run Time: 5.000 ms", "GPU 2.000 ms", "compile 1.500 ms waited, 900.000 ms in the background"} {
		if !strings.Contains(got, want) {
			t.Errorf("timer line %q lacks %q", got, want)
		}
	}
}

// TestTimerAsksForDeviceTime: the shell's queries measure their GPU time
// only while .timer is on (the measurement costs a small query time).
func TestTimerAsksForDeviceTime(t *testing.T) {
	db := newFakeDB(t)
	var out bytes.Buffer
	s := New(db, Options{Out: &out})
	script := "SELECT 1;\n.timer on\nSELECT 1;\n.timer off\nSELECT 1;\n"
	if err := s.Run(context.Background(), strings.NewReader(script), "script"); err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, false}; !reflect.DeepEqual(db.timed, want) {
		t.Fatalf("timed queries %v, want %v", db.timed, want)
	}
}

// warnReader is a result whose statement gave n warnings.
type warnReader struct {
	array.RecordReader
	n int64
}

func (r warnReader) WarningCount() int64 { return r.n }

// TestShellWarnings: after a result whose statement gave warnings the
// shell says how many on the error stream, leaving the results alone.
func TestShellWarnings(t *testing.T) {
	sh, _, out, errb := newTestShell(t, false)
	if err := sh.Run(context.Background(), strings.NewReader("SELECT 1/0;\n"), "test"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "warning") {
		t.Errorf("warnings in the results: %q", out.String())
	}
	if !strings.Contains(errb.String(), "2 warnings (SHOW WARNINGS lists them)") {
		t.Errorf("stderr %q", errb.String())
	}
}
