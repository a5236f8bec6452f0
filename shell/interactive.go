package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"
)

// DefaultHistoryFile is ~/.gsql_history ("" when there is no home directory).
func DefaultHistoryFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".gsql_history")
}

// Interactive runs the read-eval-print loop on a readline built from cfg
// (its Stdin, Stdout, terminal functions and HistoryFile are honoured; the
// prompt, completer and history saving are set here). Ctrl-C while editing
// clears the input, Ctrl-C while a statement runs cancels it (through
// Interrupt, which NotifyInterrupts wires to SIGINT), Ctrl-D or .quit ends
// the loop. Statements span lines until a ';' ends them; each complete entry
// is saved to the history as one line.
func (s *Shell) Interactive(ctx context.Context, cfg *readline.Config) error {
	c := cfg.Clone()
	c.Prompt = s.Prompt()
	c.AutoComplete = s.Completer()
	c.DisableAutoSaveHistory = true
	c.HistorySearchFold = true
	if c.InterruptPrompt == "" {
		c.InterruptPrompt = "^C"
	}
	rl, err := readline.NewEx(c)
	if err != nil {
		return fmt.Errorf("start line editor: %w", err)
	}
	defer rl.Close()
	s.interactive = true
	s.bail = false
	defer func() { s.interactive = false }()
	fmt.Fprintln(s.opts.Out, `gsql: enter SQL statements ending with ';', ".help" for help, Ctrl-D to exit.`)
	var buf strings.Builder
	var lines []string
	for {
		if buf.Len() == 0 {
			rl.SetPrompt(s.Prompt())
		} else {
			rl.SetPrompt(ContinuationPrompt)
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset() // Ctrl-C abandons the statement being typed
			lines = nil
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read input: %w", err)
		}
		if buf.Len() == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		if buf.Len() == 0 && isCommand(line) {
			rl.SaveHistory(strings.TrimSpace(line))
			if err := s.Exec(ctx, line); errors.Is(err, errQuit) {
				return nil
			}
			continue
		}
		buf.WriteString(line)
		buf.WriteString("\n")
		lines = append(lines, strings.TrimSpace(line))
		if _, complete := splitStatements(buf.String()); !complete {
			continue
		}
		rl.SaveHistory(strings.Join(lines, " "))
		text := buf.String()
		buf.Reset()
		lines = nil
		s.Exec(ctx, text)
	}
}

// NotifyInterrupts routes SIGINT to Interrupt while the returned stop
// function has not been called. When no statement is running, onIdle (if
// not nil) is called instead, e.g. to exit a non-interactive run.
func (s *Shell) NotifyInterrupts(onIdle func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				if !s.Interrupt() && onIdle != nil {
					onIdle()
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
