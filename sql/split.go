package sql

import (
	"strings"

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
		return "unterminated quoted identifier"
	case strings.HasPrefix(rest, "/*"):
		return "unterminated comment"
	}
	return "unexpected character " + strings.TrimSpace(string(t.val))
}

// Split splits text into statements at ';' outside quotes and comments. The
// statements come back without their ';'; blank and comment-only pieces are
// dropped. complete is false when the text ends inside an unfinished
// statement (no final ';', or an open string or comment), which is when a
// shell shows its continuation prompt.
func Split(text string) (stmts []string, complete bool) {
	toks := lex(text)
	complete = true
	start := 0
	var has bool
	for _, t := range toks {
		switch {
		case t.typ == sqlparser.LEX_ERROR:
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
