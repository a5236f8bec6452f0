package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/fileio"
)

// command describes one dot-command.
type command struct {
	name  string
	args  string // usage of the arguments
	help  string
	min   int // argument count bounds (max -1: any)
	max   int
	run   func(s *Shell, ctx context.Context, args []string) error
	alias []string
}

var commands []*command

func init() {
	commands = []*command{
		{name: "help", args: "", help: "show this help", max: 0, run: (*Shell).cmdHelp},
		{name: "tables", args: "", help: "list tables", max: 0, run: (*Shell).cmdTables},
		{name: "schema", args: "[TABLE]", help: "show CREATE TABLE statements", max: 1, run: (*Shell).cmdSchema},
		{name: "mode", args: strings.Join(modes, "|"), help: "set the output mode", min: 1, max: 1, run: (*Shell).cmdMode},
		{name: "headers", args: "on|off", help: "show column names", min: 1, max: 1, run: (*Shell).cmdHeaders},
		{name: "nullvalue", args: "STRING", help: "text printed for NULL", min: 1, max: 1, run: (*Shell).cmdNullvalue},
		{name: "maxwidth", args: "N", help: "widest cell in table mode before it is cut with … (0: no limit)", min: 1, max: 1, run: (*Shell).cmdMaxwidth},
		{name: "timer", args: "on|off", help: "print the run time of each statement", min: 1, max: 1, run: (*Shell).cmdTimer},
		{name: "device", args: "[auto|gpu|cpu]", help: "show or choose the device queries run on", max: 1, run: (*Shell).cmdDevice},
		{name: "import", args: "[--header|--no-header] [--delimiter C] [--varchar] FILE TABLE", help: "create TABLE from a CSV, TSV, Parquet or Arrow IPC file", min: 2, max: -1, run: (*Shell).cmdImport},
		{name: "output", args: "[FILE]", help: "send results to FILE (no FILE: back to stdout)", max: 1, run: (*Shell).cmdOutput},
		{name: "once", args: "FILE", help: "send the next result to FILE (.parquet/.arrow/.feather write that format)", min: 1, max: 1, run: (*Shell).cmdOnce},
		{name: "read", args: "FILE", help: "run the statements in FILE", min: 1, max: 1, run: (*Shell).cmdRead},
		{name: "explain", args: "on|off", help: "prefix queries with EXPLAIN", min: 1, max: 1, run: (*Shell).cmdExplain},
		{name: "bail", args: "on|off", help: "stop scripts at the first error", min: 1, max: 1, run: (*Shell).cmdBail},
		{name: "stats", args: "", help: "show memory pool and device cache statistics", max: 0, run: (*Shell).cmdStats},
		{name: "rules", args: "", help: "list the optimizer's rules in order (SET disabled_rules = 'a,b' switches some off)", max: 0, run: (*Shell).cmdRules},
		{name: "kernels", args: "QUERY", help: "print the CUDA source of the fused kernels QUERY would run on the GPU", min: 1, max: -1, run: (*Shell).cmdKernels},
		{name: "check", args: "", help: "read the whole on-disk database and check it against its checksums", max: 0, run: (*Shell).cmdCheck},
		{name: "open", args: "[PATH]", help: "open the database at PATH, creating it if new (no PATH: a new in-memory database)", max: 1, run: (*Shell).cmdOpen},
		{name: "demo", args: "N [SEED]", help: "create the redact demo table people with N rows", min: 1, max: 2, run: (*Shell).cmdDemo},
		{name: "quit", args: "", help: "exit the shell", max: 0, run: (*Shell).cmdQuit, alias: []string{"exit", "q"}},
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
		for _, a := range c.alias {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func (c *command) usage() string {
	u := "." + c.name
	if c.args != "" {
		u += " " + c.args
	}
	return u
}

// usageError is an argument error; the usage line follows the message.
type usageError struct {
	cmd *command
	msg string
}

func (e *usageError) Error() string { return e.msg + " (usage: " + e.cmd.usage() + ")" }

// splitArgs splits a command line at spaces, honouring '…' and "…" quotes.
func splitArgs(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote in command")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// command runs a dot-command line (".mode csv" or "\mode csv").
func (s *Shell) command(ctx context.Context, line string) error {
	body := strings.TrimSpace(line[1:])
	if name, rest, ok := strings.Cut(body, " "); ok && strings.EqualFold(name, "kernels") {
		// The argument is SQL: keep its quotes.
		return s.cmdKernels(ctx, []string{strings.TrimSpace(rest)})
	}
	args, err := splitArgs(body)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return errors.New("empty command (enter .help for the list of commands)")
	}
	name := strings.ToLower(args[0])
	c := lookup(name)
	if c == nil {
		return fmt.Errorf("unknown command %q (enter .help for the list of commands)", line[:1]+args[0])
	}
	args = args[1:]
	if len(args) < c.min || (c.max >= 0 && len(args) > c.max) {
		return &usageError{c, fmt.Sprintf(".%s: wrong number of arguments", c.name)}
	}
	return c.run(s, ctx, args)
}

func onOff(c string, arg string) (bool, error) {
	switch strings.ToLower(arg) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, &usageError{lookup(c), fmt.Sprintf(".%s: want on or off, got %q", c, arg)}
}

func (s *Shell) cmdHelp(context.Context, []string) error {
	width := 0
	for _, c := range commands {
		if n := displayWidth(c.usage()); n > width {
			width = n
		}
	}
	for _, c := range commands {
		fmt.Fprintf(s.opts.Out, "%s  %s\n", pad(c.usage(), width, false), c.help)
	}
	fmt.Fprintln(s.opts.Out, `Commands also work with a backslash (\mode csv). End SQL statements with ';'.`)
	return nil
}

func (s *Shell) cmdTables(context.Context, []string) error {
	for _, t := range s.db.Tables() {
		fmt.Fprintln(s.out, t)
	}
	return nil
}

// sqlType names an Arrow type as gsql SQL.
func sqlType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return "BIGINT"
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256:
		return "DOUBLE"
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "VARCHAR"
	}
	return strings.ToUpper(t.String())
}

func quoteIdent(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain && !isKeyword(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func (s *Shell) cmdSchema(_ context.Context, args []string) error {
	tables := s.db.Tables()
	if len(args) == 1 {
		tables = []string{args[0]}
	}
	for _, t := range tables {
		schema, err := s.db.TableSchema(t)
		if err != nil {
			return fmt.Errorf(".schema: %w", err)
		}
		var cols []string
		for _, f := range schema.Fields() {
			cols = append(cols, quoteIdent(f.Name)+" "+sqlType(f.Type))
		}
		fmt.Fprintf(s.out, "CREATE TABLE %s (%s);\n", quoteIdent(t), strings.Join(cols, ", "))
	}
	return nil
}

func (s *Shell) cmdMode(_ context.Context, args []string) error {
	m := strings.ToLower(args[0])
	for _, x := range modes {
		if x == m {
			s.format.Mode = m
			return nil
		}
	}
	return &usageError{lookup("mode"), fmt.Sprintf(".mode: unknown mode %q", args[0])}
}

func (s *Shell) cmdHeaders(_ context.Context, args []string) (err error) {
	s.format.Headers, err = onOff("headers", args[0])
	return err
}

func (s *Shell) cmdNullvalue(_ context.Context, args []string) error {
	s.format.NullValue, s.format.NullSet = args[0], true
	return nil
}

func (s *Shell) cmdMaxwidth(_ context.Context, args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 0 || (n > 0 && n < 2) {
		return &usageError{lookup("maxwidth"), fmt.Sprintf(".maxwidth: want 0 or a width of at least 2, got %q", args[0])}
	}
	s.format.MaxWidth = n
	return nil
}

func (s *Shell) cmdTimer(_ context.Context, args []string) (err error) {
	s.timer, err = onOff("timer", args[0])
	return err
}

func (s *Shell) cmdExplain(_ context.Context, args []string) (err error) {
	s.explain, err = onOff("explain", args[0])
	return err
}

func (s *Shell) cmdBail(_ context.Context, args []string) (err error) {
	s.bail, err = onOff("bail", args[0])
	return err
}

func (s *Shell) cmdDevice(_ context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(s.opts.Out, s.db.Device())
		return nil
	}
	switch strings.ToLower(args[0]) {
	case "auto", "gpu", "cpu":
	default:
		return &usageError{lookup("device"), fmt.Sprintf(".device: unknown device %q", args[0])}
	}
	if err := s.db.SetDevice(strings.ToLower(args[0])); err != nil {
		return fmt.Errorf(".device: %w", err)
	}
	return nil
}

// verifier is implemented by engines that can check their files.
type verifier interface {
	Verify(ctx context.Context) (segments int, bytes int64, err error)
}

func (s *Shell) cmdCheck(ctx context.Context, _ []string) error {
	v, ok := s.db.(verifier)
	if !ok {
		return errors.New(".check: not available for this engine")
	}
	n, b, err := v.Verify(ctx)
	if err != nil {
		return fmt.Errorf(".check: %w", err)
	}
	fmt.Fprintf(s.opts.Out, "ok: %d segments, %d bytes checked\n", n, b)
	return nil
}

func (s *Shell) cmdOpen(_ context.Context, args []string) error {
	if s.opts.Open == nil {
		return errors.New(".open: not available in this shell")
	}
	path := ""
	if len(args) > 0 {
		path = args[0]
	}
	db, err := s.opts.Open(path)
	if err != nil {
		return fmt.Errorf(".open: %w", err)
	}
	s.db = db
	return nil
}

func (s *Shell) cmdStats(context.Context, []string) error {
	if s.opts.Stats == nil {
		fmt.Fprintln(s.opts.Out, "no statistics available")
		return nil
	}
	st := strings.TrimRight(s.opts.Stats(), "\n")
	fmt.Fprintln(s.opts.Out, st)
	return nil
}

func (s *Shell) cmdRules(context.Context, []string) error {
	for i, r := range gsql.Rules() {
		when := ""
		switch {
		case r.Placement:
			when = " (at placement)"
		case r.Devices:
			when = " (placed plans, several GPUs)"
		}
		fmt.Fprintf(s.opts.Out, "%2d %-22s %s%s\n", i+1, r.Name, r.Purpose, when)
	}
	return nil
}

// kernelSourcer is implemented by engines that generate GPU kernels.
type kernelSourcer interface {
	KernelSources(ctx context.Context, query string, args ...any) ([]gsql.KernelSource, error)
}

func (s *Shell) cmdKernels(ctx context.Context, args []string) error {
	ks, ok := s.db.(kernelSourcer)
	if !ok {
		return fmt.Errorf(".kernels: this engine generates no kernels")
	}
	srcs, err := ks.KernelSources(ctx, strings.TrimSuffix(strings.Join(args, " "), ";"))
	if err != nil {
		return fmt.Errorf(".kernels: %w", err)
	}
	if len(srcs) == 0 {
		fmt.Fprintln(s.opts.Out, "-- no fused GPU operator in this query")
	}
	for _, k := range srcs {
		fmt.Fprintf(s.opts.Out, "// %s\n// kernel %s\n%s\n", strings.TrimSpace(k.Operator), k.Key, k.Source)
		if k.WarpSource != "" {
			fmt.Fprintf(s.opts.Out, "// %s\n// kernel %s, one row per warp (batches averaging >= %d bytes a string row)\n%s\n",
				strings.TrimSpace(k.Operator), k.Key, k.WarpMinAvg, k.WarpSource)
		}
	}
	return nil
}

func (s *Shell) cmdQuit(context.Context, []string) error { return errQuit }

func (s *Shell) cmdOutput(_ context.Context, args []string) error {
	if err := s.Close(); err != nil {
		return fmt.Errorf(".output: %w", err)
	}
	if len(args) == 0 || args[0] == "stdout" || args[0] == "-" {
		return nil
	}
	if binaryFormat(args[0]) {
		return &usageError{lookup("output"), ".output writes text; use .once for Parquet or Arrow files"}
	}
	f, err := os.Create(args[0])
	if err != nil {
		return fmt.Errorf(".output: %w", err)
	}
	s.outFile, s.out = f, f
	return nil
}

func (s *Shell) cmdOnce(_ context.Context, args []string) error {
	s.once = args[0]
	return nil
}

// binaryFormat reports whether results sent to path are written as Parquet
// or Arrow IPC rather than text.
func binaryFormat(path string) bool {
	f := fileio.FormatOf(path)
	return f == fileio.FormatParquet || f == fileio.FormatIPC
}

func (s *Shell) exportTo(ctx context.Context, path string, rdr array.RecordReader) error {
	n, err := fileio.Write(ctx, path, rdr, fileio.WriteOptions{})
	if err != nil {
		return fmt.Errorf(".once: %w", err)
	}
	if s.interactive {
		fmt.Fprintf(s.opts.Out, "%s written to %s\n", plural(n), path)
	}
	return nil
}

func (s *Shell) cmdRead(ctx context.Context, args []string) error {
	if s.depth >= 16 {
		return errors.New(".read: too deeply nested")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return fmt.Errorf(".read: %w", err)
	}
	defer f.Close()
	s.depth++
	defer func() { s.depth-- }()
	err = s.Run(ctx, f, args[0])
	if errors.Is(err, errQuit) {
		return nil
	}
	if err != nil {
		// Run printed the errors with their positions.
		return &reported{err}
	}
	return nil
}

// reported wraps an error that was already printed.
type reported struct{ error }

func (s *Shell) cmdImport(ctx context.Context, args []string) error {
	c := lookup("import")
	var opts fileio.Options
	var pos []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--header":
			opts.CSV.Header = fileio.HeaderYes
		case "--no-header":
			opts.CSV.Header = fileio.HeaderNo
		case "--varchar":
			opts.CSV.AllVarchar = true
		case "--delimiter":
			if i+1 >= len(args) {
				return &usageError{c, ".import: --delimiter needs a character"}
			}
			i++
			d := args[i]
			if d == `\t` || d == "tab" {
				d = "\t"
			}
			if len(d) != 1 {
				return &usageError{c, fmt.Sprintf(".import: delimiter must be one character, got %q", args[i])}
			}
			opts.CSV.Delimiter = rune(d[0])
		default:
			if strings.HasPrefix(a, "--") {
				return &usageError{c, fmt.Sprintf(".import: unknown option %q", a)}
			}
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		return &usageError{c, ".import: want FILE and TABLE"}
	}
	path, table := pos[0], pos[1]
	if fileio.FormatOf(path) == fileio.FormatUnknown {
		// Files without a known extension are read as CSV.
		opts.Format = fileio.FormatCSV
		if opts.CSV.Delimiter == 0 {
			opts.CSV.Delimiter = ','
		}
	}
	if _, err := s.db.TableSchema(table); err == nil {
		return fmt.Errorf(".import: table %q already exists", table)
	}
	var bar *progressBar
	if st, err := os.Stat(path); err == nil && s.opts.ProgressMin > 0 && st.Size() >= s.opts.ProgressMin {
		bar = &progressBar{w: s.opts.Err, label: filepath.Base(path), start: time.Now()}
		opts.Progress = bar.update
	}
	ctx, done := s.begin(ctx)
	defer done()
	start := time.Now()
	rows, err := s.importFile(ctx, path, table, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return fmt.Errorf(".import: %w", err)
	}
	if s.interactive {
		fmt.Fprintf(s.opts.Out, "%s imported into %s\n", plural(rows), table)
	}
	s.printTimer(time.Since(start), nil)
	return nil
}

// fileImporter is implemented by engines that import a file as it is read
// (*gsql.DB): the file streams into the table, never whole in memory.
type fileImporter interface {
	ImportFile(ctx context.Context, path, table string, opts fileio.Options) (int64, error)
}

// importFile reads path into a new table; engines without ImportFile get
// the file's records read whole and registered.
func (s *Shell) importFile(ctx context.Context, path, table string, opts fileio.Options) (int64, error) {
	if imp, ok := s.db.(fileImporter); ok {
		return imp.ImportFile(ctx, path, table, opts)
	}
	schema, recs, err := fileio.Read(ctx, path, opts)
	if err != nil {
		return 0, err
	}
	if err := s.db.RegisterTable(table, schema, recs); err != nil {
		fileio.ReleaseAll(recs)
		return 0, err
	}
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	return rows, nil
}

func (s *Shell) cmdDemo(_ context.Context, args []string) error {
	c := lookup("demo")
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 0 {
		return &usageError{c, fmt.Sprintf(".demo: want a row count, got %q", args[0])}
	}
	seed := int64(1)
	if len(args) == 2 {
		if seed, err = strconv.ParseInt(args[1], 10, 64); err != nil {
			return &usageError{c, fmt.Sprintf(".demo: want a numeric seed, got %q", args[1])}
		}
	}
	if _, err := s.db.TableSchema("people"); err == nil {
		return errors.New(".demo: table \"people\" already exists")
	}
	schema, recs := datagen.People(n, seed)
	if err := s.db.RegisterTable("people", schema, recs); err != nil {
		return fmt.Errorf(".demo: %w", err)
	}
	if s.interactive {
		fmt.Fprintf(s.opts.Out, "table people created with %s\n", plural(int64(n)))
	}
	return nil
}

// commandNames lists the dot-command names, for completion.
func commandNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
		out = append(out, c.alias...)
	}
	sort.Strings(out)
	return out
}
