// Command gsql is the gsql SQL shell: an interactive REPL on a terminal, or a
// script runner for -c, -f and piped input.
//
//	gsql                         interactive (stdin is a terminal)
//	gsql my.db                   the same on the database in directory my.db
//	gsql --readonly my.db        read it while another process writes it
//	gsql -c "SELECT 1"           run statements and exit
//	gsql -f script.sql           run a script and exit
//	echo "SELECT 1;" | gsql      run piped statements
//	gsql --demo 100000 -c "SELECT ... FROM people LIMIT 10"
//	gsql serve --mysql 127.0.0.1:3307   serve MySQL clients (serve.go)
//
// The exit status is 1 when a statement fails and 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/shell"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program, with its streams injected for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "serve" {
		return runServe(args[1:], stderr)
	}
	fs := flag.NewFlagSet("gsql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	command := fs.String("c", "", "run `SQL` (statements and dot-commands) and exit")
	file := fs.String("f", "", "run the script `FILE` and exit")
	device := fs.String("device", "auto", "device to run queries on: auto, gpu or cpu")
	devices := fs.String("devices", "", "GPUs to open: all, or numbers such as 0,2 (default: GPU 0; queries run on the first)")
	mode := fs.String("mode", "table", "output mode: table, csv, tsv, json, jsonl, markdown or line")
	poolLimit := fs.String("pool-limit", "", "GPU memory pool limit, e.g. 2GiB (default: no limit)")
	compression := fs.String("compression", "none", "compress the segments an on-disk database writes: none, lz4 or zstd")
	history := fs.String("history", shell.DefaultHistoryFile(), "history `FILE` of the interactive shell")
	noHistory := fs.Bool("no-history", false, "do not read or write a history file")
	bail := fs.Bool("bail", true, "stop -f scripts and piped input at the first failing statement")
	readOnly := fs.Bool("readonly", false, "open the database read-only (works while another process writes it)")
	demo := fs.Int("demo", 0, "create the redact demo table people with `N` generated rows")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: gsql [flags] [DATABASE]\n\nRuns SQL interactively, from -c, from -f or from piped stdin, on the\ndatabase in directory DATABASE (created if new) or in memory.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	// Flags may come before and after the database path.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) > 1 {
		fmt.Fprintf(stderr, "gsql: unexpected argument %q (one database path at most; use -f FILE to run a script)\n", positional[1])
		return 2
	}
	path := ""
	if len(positional) == 1 {
		path = positional[0]
	}
	limit, err := shell.ParseSize(*poolLimit)
	if err != nil {
		fmt.Fprintf(stderr, "gsql: --pool-limit: %v\n", err)
		return 2
	}
	format := shell.DefaultFormat()
	format.Mode = strings.ToLower(*mode)
	if !validMode(format.Mode) {
		fmt.Fprintf(stderr, "gsql: --mode: unknown mode %q (want table, csv, tsv, json, jsonl, markdown or line)\n", *mode)
		return 2
	}
	if *demo < 0 {
		fmt.Fprintf(stderr, "gsql: --demo: want a row count, got %d\n", *demo)
		return 2
	}
	if *readOnly && path == "" {
		fmt.Fprintf(stderr, "gsql: --readonly needs a database path\n")
		return 2
	}
	db, err := gsql.Open(gsql.Options{Device: *device, Devices: *devices, PoolLimit: limit, Path: path, ReadOnly: *readOnly, Compression: *compression})
	if err != nil {
		fmt.Fprintf(stderr, "gsql: %v\n", err)
		return 1
	}
	defer func() { db.Close() }()
	// .open replaces db; the shell's device choice carries over.
	open := func(p string) (shell.Engine, error) {
		if p != "" && path != "" && sameFile(p, path) {
			return db, nil
		}
		ndb, err := gsql.Open(gsql.Options{Device: db.Device(), Devices: *devices, PoolLimit: limit, Path: p, Compression: *compression})
		if err != nil {
			return nil, err
		}
		db.Close()
		db, path = ndb, p
		return ndb, nil
	}

	progressMin := int64(0) // the shell's default
	if w, ok := stderr.(*os.File); !ok || !readline.IsTerminal(int(w.Fd())) {
		progressMin = -1 // no progress bars in logs
	}
	sh := shell.New(db, shell.Options{
		Out:         stdout,
		Err:         stderr,
		Format:      format,
		Bail:        *bail,
		Stats:       func() string { return fmt.Sprint(db.Stats()) },
		Open:        open,
		ProgressMin: progressMin,
	})
	defer sh.Close()
	ctx := context.Background()
	if *demo > 0 {
		if err := sh.Exec(ctx, fmt.Sprintf(".demo %d", *demo)); err != nil {
			return 1
		}
	}

	interactive := *command == "" && *file == "" && isTerminal(stdin)
	// SIGINT cancels the running statement; with none running it ends a
	// non-interactive run (the line editor handles Ctrl-C while typing).
	stop := sh.NotifyInterrupts(func() {
		if !interactive {
			os.Exit(130)
		}
	})
	defer stop()

	if interactive {
		cfg := &readline.Config{HistoryFile: *history}
		if *noHistory {
			cfg.HistoryFile = ""
		}
		if err := sh.Interactive(ctx, cfg); err != nil {
			fmt.Fprintf(stderr, "gsql: %v\n", err)
			return 1
		}
		return 0
	}
	status := 0
	if *file != "" {
		f, err := os.Open(*file)
		if err != nil {
			fmt.Fprintf(stderr, "gsql: %v\n", err)
			return 1
		}
		err = sh.Run(ctx, f, *file)
		f.Close()
		if err != nil {
			status = 1
			if *bail {
				return status
			}
		}
	}
	if *command != "" {
		if err := sh.Run(ctx, strings.NewReader(*command), ""); err != nil {
			status = 1
		}
	}
	if *command == "" && *file == "" {
		if err := sh.Run(ctx, stdin, ""); err != nil {
			status = 1
		}
	}
	return status
}

func validMode(m string) bool {
	switch m {
	case "table", "csv", "tsv", "json", "jsonl", "markdown", "line":
		return true
	}
	return false
}

// sameFile reports whether two paths name the same file.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
