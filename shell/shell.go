package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// Engine is what the shell needs from a database; *gsql.DB implements it.
type Engine interface {
	Query(ctx context.Context, text string, args ...any) (array.RecordReader, error)
	RegisterTable(name string, schema *arrow.Schema, recs []arrow.Record) error
	Tables() []string
	TableSchema(name string) (*arrow.Schema, error)
	Device() string
	SetDevice(d string) error
	FunctionNames() []string
}

// Options configure a Shell.
type Options struct {
	Out io.Writer // results and messages (default os.Stdout)
	Err io.Writer // errors and progress bars (default os.Stderr)
	// Format is the initial output format (zero value: DefaultFormat()).
	Format Format
	// Bail stops a script at its first failing statement.
	Bail bool
	// Stats renders the engine's pool and cache statistics for .stats.
	Stats func() string
	// ProgressMin is the file size from which .import draws a progress bar
	// (0: 8 MiB; negative: never).
	ProgressMin int64
	// Open opens the database for .open PATH (empty PATH: a new in-memory
	// database); the shell then runs on it and the caller closes the old
	// one. Nil: .open is not available.
	Open func(path string) (Engine, error)
}

// ErrFailed is returned by Run when statements failed and the script went on.
var ErrFailed = errors.New("one or more statements failed")

// errQuit ends input after .quit.
var errQuit = errors.New("quit")

// Shell runs SQL statements and dot-commands against an Engine.
type Shell struct {
	db          Engine
	opts        Options
	format      Format
	timer       bool
	explain     bool
	bail        bool
	interactive bool

	out     io.Writer // current result destination
	outFile *os.File  // open .output file
	once    string    // .once target for the next result

	mu     sync.Mutex
	cancel context.CancelFunc // of the running statement
	depth  int                // .read nesting
}

// New returns a shell over db.
func New(db Engine, opts Options) *Shell {
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Err == nil {
		opts.Err = os.Stderr
	}
	if opts.Format.Mode == "" {
		opts.Format = DefaultFormat()
	}
	if opts.ProgressMin == 0 {
		opts.ProgressMin = 8 << 20
	}
	return &Shell{db: db, opts: opts, format: opts.Format, bail: opts.Bail, out: opts.Out}
}

// Close closes an open .output file.
func (s *Shell) Close() error {
	if s.outFile != nil {
		err := s.outFile.Close()
		s.outFile = nil
		s.out = s.opts.Out
		return err
	}
	return nil
}

// Interrupt cancels the running statement, if any, and reports whether
// there was one. It is what Ctrl-C (SIGINT) calls.
func (s *Shell) Interrupt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
		return true
	}
	return false
}

// begin makes a cancellable context for one statement.
func (s *Shell) begin(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

// Prompt is the primary prompt, showing the device in use.
func (s *Shell) Prompt() string { return "gsql[" + s.db.Device() + "]> " }

// ContinuationPrompt is shown while a statement is incomplete.
const ContinuationPrompt = "   ...> "

// printError prints an error line (where: "file:line" or empty).
func (s *Shell) printError(where string, err error) {
	var rep *reported
	if errors.As(err, &rep) {
		return // printed where it happened
	}
	msg := err.Error()
	if errors.Is(err, context.Canceled) {
		msg = "interrupted"
	}
	if where != "" {
		fmt.Fprintf(s.opts.Err, "Error: %s: %s\n", where, msg)
	} else {
		fmt.Fprintf(s.opts.Err, "Error: %s\n", msg)
	}
}

// Exec runs one input unit: a dot-command, or SQL text holding one or more
// statements. Errors are printed and returned.
func (s *Shell) Exec(ctx context.Context, text string) error {
	if isCommand(text) {
		err := s.command(ctx, strings.TrimSpace(text))
		if err != nil && !errors.Is(err, errQuit) {
			s.printError("", err)
		}
		return err
	}
	stmts, complete := splitStatements(text)
	if !complete {
		stmts, complete = splitStatements(text + "\n;")
		if !complete {
			err := errors.New("incomplete input: unterminated quote or comment")
			s.printError("", err)
			return err
		}
	}
	var first error
	for _, st := range stmts {
		if err := s.statement(ctx, st); err != nil {
			s.printError("", err)
			if first == nil {
				first = err
			}
			if s.bail {
				return err
			}
		}
	}
	return first
}

func isCommand(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, ".") || strings.HasPrefix(t, "\\")
}

// Run executes a script read from r: SQL statements separated by ';' and
// dot-commands on lines of their own. name prefixes error messages with
// "name:line" when not empty. With bail set it stops at the first error and
// returns it; otherwise it returns ErrFailed if anything failed.
func (s *Shell) Run(ctx context.Context, r io.Reader, name string) error {
	br := bufio.NewReader(r)
	var buf strings.Builder
	lineNo, startLine := 0, 0
	failed := false
	fail := func(line int, err error) error {
		where := ""
		if name != "" {
			where = fmt.Sprintf("%s:%d", name, line)
		}
		s.printError(where, err)
		failed = true
		if s.bail {
			return err
		}
		return nil
	}
	runText := func(text string, final bool) error {
		stmts, complete := splitStatements(text)
		if !complete && final {
			stmts, complete = splitStatements(text + "\n;")
			if !complete {
				return fail(startLine, errors.New("incomplete input at end of script: unterminated quote or comment"))
			}
		}
		if !complete {
			return nil
		}
		buf.Reset()
		for _, st := range stmts {
			if err := s.statement(ctx, st); err != nil {
				if err := fail(startLine, err); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for {
		line, rerr := br.ReadString('\n')
		if line != "" {
			lineNo++
			if buf.Len() == 0 && strings.TrimSpace(line) == "" {
				// skip blank lines between statements
			} else if buf.Len() == 0 && isCommand(line) {
				if err := s.command(ctx, strings.TrimSpace(line)); err != nil {
					if errors.Is(err, errQuit) {
						return s.result(failed)
					}
					if err := fail(lineNo, err); err != nil {
						return err
					}
				}
			} else {
				if buf.Len() == 0 {
					startLine = lineNo
				}
				buf.WriteString(line)
				if !strings.HasSuffix(line, "\n") {
					buf.WriteString("\n")
				}
				if err := runText(buf.String(), false); err != nil {
					return err
				}
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return fmt.Errorf("read %s: %w", name, rerr)
			}
			break
		}
	}
	if buf.Len() > 0 {
		if err := runText(buf.String(), true); err != nil {
			return err
		}
	}
	return s.result(failed)
}

func (s *Shell) result(failed bool) error {
	if failed {
		return ErrFailed
	}
	return nil
}

// isQuery reports whether a statement's first keyword starts a query that
// EXPLAIN accepts.
func firstWord(st string) string {
	st = strings.TrimLeft(st, " \t\r\n(")
	end := strings.IndexFunc(st, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(st)
	}
	return strings.ToUpper(st[:end])
}

// statement runs one SQL statement and prints its rows.
func (s *Shell) statement(parent context.Context, st string) error {
	word := firstWord(st)
	if s.explain && (word == "SELECT" || word == "WITH" || word == "VALUES") {
		st = "EXPLAIN " + st
		word = "EXPLAIN"
	}
	ctx, done := s.begin(parent)
	defer done()
	defer func() { s.once = "" }() // .once applies to this statement only
	if t, ok := s.db.(deviceTiming); ok && s.timer {
		ctx = t.WithDeviceTiming(ctx)
	}
	start := time.Now()
	rdr, err := s.db.Query(ctx, st)
	if err != nil {
		return err
	}
	defer rdr.Release()
	if rdr.Schema().NumFields() == 0 {
		for rdr.Next() {
		}
		if err := rdr.Err(); err != nil {
			return err
		}
		s.printTimer(time.Since(start), rdr)
		return nil
	}
	if word == "EXPLAIN" && rdr.Schema().NumFields() == 1 && rdr.Schema().Field(0).Type.ID() == arrow.STRING {
		err = s.writeRaw(rdr)
	} else {
		err = s.writeResult(ctx, rdr)
	}
	if err != nil {
		return err
	}
	s.printWarnings(rdr)
	s.printTimer(time.Since(start), rdr)
	return nil
}

// warningCounter is implemented by results whose statement counts MySQL
// warnings (gsql.WarningReader).
type warningCounter interface {
	WarningCount() int64
}

// printWarnings says on the error stream, as MySQL's client does after
// a result, how many warnings the query gave (SHOW WARNINGS lists them);
// the results stream stays machine-readable.
func (s *Shell) printWarnings(rdr array.RecordReader) {
	if w, ok := rdr.(warningCounter); ok {
		switch n := w.WarningCount(); {
		case n == 1:
			fmt.Fprintln(s.opts.Err, "1 warning (SHOW WARNINGS lists it)")
		case n > 1:
			fmt.Fprintf(s.opts.Err, "%d warnings (SHOW WARNINGS lists them)\n", n)
		}
	}
}

// compileTimer is implemented by results that know their kernel compile
// time (waited for, and spent in the background).
type compileTimer interface {
	CompileTime() (wait, background time.Duration)
}

// placementReporter is implemented by results that know where they ran.
type placementReporter interface {
	RanOn() string
}

// deviceTiming is implemented by engines whose queries measure their GPU
// time when asked (*gsql.DB).
type deviceTiming interface {
	WithDeviceTiming(ctx context.Context) context.Context
}

// deviceTimer is implemented by results that know their GPU time.
type deviceTimer interface {
	DeviceTime() (time.Duration, bool)
}

func (s *Shell) printTimer(d time.Duration, rdr array.RecordReader) {
	if !s.timer {
		return
	}
	where := s.db.Device()
	if p, ok := rdr.(placementReporter); ok && p.RanOn() != "" {
		where = p.RanOn() // auto mode may answer on the CPU while kernels compile
	}
	line := fmt.Sprintf("Run Time: %.3f ms (%s)", float64(d.Microseconds())/1000, where)
	// The result has been read to the end, so the query's device work is over.
	if dt, ok := rdr.(deviceTimer); ok {
		if t, ok := dt.DeviceTime(); ok {
			line += fmt.Sprintf(", GPU %.3f ms", float64(t.Microseconds())/1000)
		}
	}
	if ct, ok := rdr.(compileTimer); ok {
		if wait, bg := ct.CompileTime(); wait > 0 || bg > 0 {
			line += fmt.Sprintf(", compile %.3f ms waited, %.3f ms in the background", float64(wait.Microseconds())/1000, float64(bg.Microseconds())/1000)
		}
	}
	fmt.Fprintln(s.opts.Out, line)
}

// writeRaw prints a one-column text result (EXPLAIN output) line by line.
func (s *Shell) writeRaw(rdr array.RecordReader) error {
	w, finish, err := s.dest()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for rdr.Next() {
		col := rdr.Record().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			bw.WriteString(col.Value(i))
			bw.WriteString("\n")
		}
	}
	bw.Flush()
	if err := rdr.Err(); err != nil {
		finish()
		return err
	}
	return finish()
}

// writeResult prints a result in the current format to the current
// destination.
func (s *Shell) writeResult(ctx context.Context, rdr array.RecordReader) error {
	if s.once != "" && binaryFormat(s.once) {
		path := s.once
		s.once = ""
		return s.exportTo(ctx, path, rdr)
	}
	w, finish, err := s.dest()
	if err != nil {
		return err
	}
	f := s.format
	if _, err := f.Write(w, rdr); err != nil {
		finish()
		return err
	}
	return finish()
}

// dest returns where the next result goes and a function to call after it.
func (s *Shell) dest() (io.Writer, func() error, error) {
	if s.once != "" {
		path := s.once
		s.once = ""
		f, err := os.Create(path)
		if err != nil {
			return nil, nil, fmt.Errorf(".once: %w", err)
		}
		return f, f.Close, nil
	}
	return s.out, func() error { return nil }, nil
}
