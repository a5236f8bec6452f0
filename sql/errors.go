package sql

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/errkind"
)

// ErrorKind classifies statement errors.
type ErrorKind int

const (
	// ErrSyntax is text that does not parse.
	ErrSyntax ErrorKind = iota + 1
	// ErrUnsupported is valid SQL that gsql does not run.
	ErrUnsupported
	// ErrOperand is an operand of the wrong width: a row value or
	// subquery with another number of columns than the operand it is
	// compared with (MySQL's error 1241).
	ErrOperand
	// ErrUnknownSetting is a SET of a setting gsql does not have (MySQL's
	// error 1193).
	ErrUnknownSetting
	// ErrWrongValue is a SET of a value its setting does not take, such
	// as an unknown rule name (MySQL's error 1231).
	ErrWrongValue
)

// Error is a syntax error or an unsupported statement, with the 1-based line
// and column of the user's text where it was found.
type Error struct {
	Kind      ErrorKind
	Msg       string
	Line, Col int
	// Snippet is the offending source line and a caret under the column.
	Snippet string
}

func (e *Error) Error() string {
	what := "syntax error"
	if e.Kind != ErrSyntax {
		what = "error"
	}
	s := fmt.Sprintf("%s at line %d, column %d: %s", what, e.Line, e.Col, e.Msg)
	if e.Snippet != "" {
		s += "\n" + e.Snippet
	}
	return s
}

// ErrorKind implements errkind.Kinded.
func (e *Error) ErrorKind() errkind.Kind {
	switch e.Kind {
	case ErrUnsupported:
		return errkind.Unsupported
	case ErrOperand:
		return errkind.OperandColumns
	case ErrUnknownSetting:
		return errkind.UnknownVariable
	case ErrWrongValue:
		return errkind.WrongValue
	}
	return errkind.Syntax
}

// newError builds an Error at byte offset off of src.
func newError(kind ErrorKind, src string, off int, format string, args ...any) *Error {
	if off < 0 {
		off = 0
	}
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	lineEnd := strings.IndexByte(src[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(src)
	} else {
		lineEnd += off
	}
	// Columns count characters, and tabs keep their place in the caret line.
	bom := 0
	if lineStart == 0 {
		// A byte order mark is not text: columns count from after it.
		bom = bomLen(src[:off])
	}
	prefix := src[lineStart+bom : off]
	col := 1 + len([]rune(prefix))
	var caret strings.Builder
	for _, r := range prefix {
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	caret.WriteByte('^')
	srcLine := strings.TrimRight(src[lineStart+bom:lineEnd], "\r")
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Line: line, Col: col,
		Snippet: "  " + srcLine + "\n  " + caret.String()}
}
