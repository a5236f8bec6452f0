package sql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/xwb1989/sqlparser"
)

// piece is one statement's span in a script.
type piece struct {
	start, end int
	toks       []token
}

// pieces splits src at ';' tokens (outside strings and comments). The last
// piece is returned even without a terminating ';'. A lexing error is
// returned with its position.
func pieces(src string) ([]piece, *Error) {
	toks := lex(src)
	var out []piece
	var cur []token
	start := 0
	for _, t := range toks {
		if t.typ == sqlparser.LEX_ERROR {
			return nil, newError(ErrSyntax, src, t.start, "%s", lexMessage(src, t))
		}
		if t.typ == ';' {
			out = append(out, piece{start: start, end: t.start, toks: cur})
			cur, start = nil, t.end
			continue
		}
		if t.typ == sqlparser.COMMENT {
			continue
		}
		cur = append(cur, t)
	}
	out = append(out, piece{start: start, end: len(src), toks: cur})
	// Drop pieces without tokens (blank, comments only).
	kept := out[:0]
	for _, p := range out {
		if len(p.toks) > 0 {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

func lexMessage(src string, t token) string {
	rest := src[t.start:]
	switch {
	case strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, "\""):
		return "unterminated string"
	case strings.HasPrefix(rest, "`"):
		if src[t.start:t.end] == "``" {
			return "empty quoted identifier"
		}
		return "unterminated quoted identifier"
	case strings.HasPrefix(rest, "/*"):
		return "unterminated comment"
	case len(rest) > 1 && rest[1] == '\'' && (rest[0] == 'x' || rest[0] == 'X'):
		return "malformed hexadecimal literal"
	case len(rest) > 1 && rest[1] == '\'' && (rest[0] == 'b' || rest[0] == 'B'):
		return "malformed bit literal"
	case rest != "" && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == '.'):
		return "malformed number"
	case strings.HasPrefix(rest, ":"):
		return "malformed bind variable"
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if r == utf8.RuneError {
		if rest == "" {
			return "unexpected end of input"
		}
		return fmt.Sprintf("unexpected byte 0x%02x", rest[0])
	}
	return fmt.Sprintf("unexpected character %q", r)
}

// unterminated reports whether t is a lexing error that runs to the end of
// src: an open string, quoted identifier or comment.
func unterminated(src string, t token) bool {
	if t.typ != sqlparser.LEX_ERROR || t.end < len(src) {
		return false
	}
	rest, text := src[t.start:], src[t.start:t.end]
	switch {
	case strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, "\"") || strings.HasPrefix(rest, "/*"):
		return true
	case strings.HasPrefix(rest, "`"):
		return text != "``"
	case len(rest) > 1 && rest[1] == '\'' && strings.ContainsRune("xXbB", rune(rest[0])):
		// x'4 is open; x'123' is closed but malformed.
		return len(text) < 3 || text[len(text)-1] != '\''
	}
	return false
}

// Split splits text into statements at ';' outside quotes and comments. The
// statements come back without their ';'; blank and comment-only pieces are
// dropped. complete is false when the text ends inside an unfinished
// statement (no final ';', or an open string or comment), which is when a
// shell shows its continuation prompt.
func Split(text string) (stmts []string, complete bool) {
	toks := lex(text)
	complete = true
	start := bomLen(text)
	var has bool
	for _, t := range toks {
		switch {
		case unterminated(text, t):
			// An open string or comment: the rest is one unfinished piece.
			if s := strings.TrimSpace(text[start:]); s != "" {
				stmts = append(stmts, s)
			}
			return stmts, false
		case t.typ == ';':
			if has {
				stmts = append(stmts, strings.TrimSpace(text[start:t.start]))
			}
			start, has = t.end, false
		case t.typ != sqlparser.COMMENT:
			has = true
		}
	}
	if has {
		stmts = append(stmts, strings.TrimSpace(text[start:]))
		complete = false
	}
	return stmts, complete
}
