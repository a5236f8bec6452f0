// Package shell is gsql's interactive and scripted command shell: the REPL
// behind cmd/gsql, with readline editing, history and completion, the
// dot-commands (.mode, .import, .timer, ...), statement splitting for
// multi-line input and scripts, and result formatting in the table, csv,
// tsv, json, jsonl, markdown and line modes.
//
// A Shell reads from any io.Reader and writes to any io.Writer; interactive
// mode takes a readline configuration whose Stdin and Stdout may be pipes, so
// tests drive it without a terminal.
package shell
