// Package sql turns SQL text into statements: a dialect layer on top of
// github.com/xwb1989/sqlparser. It splits scripts into statements, parses
// the DDL gsql supports itself (the library drops column types it does not
// know and logs to stderr), rewrites the expression forms the library
// rejects (SUBSTRING of an expression, POSITION, TRIM ... FROM, CAST to
// DOUBLE/BOOLEAN, ...) into plain function calls, and reports every error
// with the line and column of the user's text and a caret snippet.
//
// The rewrites work on the library's own tokenizer, so quoting, comments and
// escapes are handled exactly as the parser handles them.
package sql

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// commentSemi is the type of a ';' inside a versioned comment, which does
// not end the statement.
const commentSemi = -1

// token is one lexical token with its byte span in the text it came from.
type token struct {
	typ        int
	val        []byte
	start, end int
}

// text returns the token's source text.
func (t token) text(src string) string { return src[t.start:t.end] }

// isKeyword reports whether the token is the given keyword (any case).
func (t token) is(src, kw string) bool {
	s := t.text(src)
	if len(s) != len(kw) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[i] {
			return false
		}
	}
	return true
}

// lex tokenizes src with the parser's tokenizer. Comments are kept as
// tokens (so that splitting never looks inside them). The body of a MySQL
// versioned comment (/*! ... */) is lexed as ordinary tokens at their own
// positions, as MySQL runs it. A lexing error is kept as a LEX_ERROR token
// and lexing goes on after it; an error that reaches the end of the text
// (an open string, quoted identifier or comment) is the last token.
func lex(src string) []token {
	var out []token
	lexRange(src, 0, len(src), &out)
	return out
}

// lexRange appends the tokens of src[from:to] to out.
func lexRange(src string, from, to int, out *[]token) {
	for from < to {
		next, restart := lexFrom(src, from, to, out)
		if !restart {
			return
		}
		from = next
	}
}

// lexFrom tokenizes src[from:to] until its end or until a versioned
// comment, whose body it lexes and then asks to restart after it.
func lexFrom(src string, from, to int, out *[]token) (next int, restart bool) {
	tk := sqlparser.NewStringTokenizer(src[from:to])
	tk.AllowComments = true
	prevEnd := from
	for {
		// The next token starts after the blanks the tokenizer skips.
		start := prevEnd
		for start < to && isBlank(src[start]) {
			start++
		}
		if strings.HasPrefix(src[start:to], "/*!") {
			// A versioned comment (/*!50100 ... */): MySQL runs its body.
			// Lex it here (the tokenizer would lose every position in it)
			// and go on after it with a new tokenizer.
			end := strings.Index(src[start+3:to], "*/")
			if end < 0 {
				*out = append(*out, token{typ: sqlparser.LEX_ERROR, start: start, end: to})
				return to, false
			}
			end += start + 3
			body := start + 3
			for n := 0; n < 5 && body < end && src[body] >= '0' && src[body] <= '9'; n++ {
				body++
			}
			first := len(*out)
			lexRange(src, body, end, out)
			for k := first; k < len(*out); k++ {
				if (*out)[k].typ == ';' {
					// A comment never ends a statement.
					(*out)[k].typ = commentSemi
				}
			}
			return end + 2, true
		}
		typ, val := scanSafe(tk)
		end := from + tk.Position - 1
		if end > to {
			end = to
		}
		if end < start {
			end = start
		}
		if typ == 0 {
			return to, false
		}
		*out = append(*out, token{typ: typ, val: append([]byte(nil), val...), start: start, end: end})
		if typ == sqlparser.LEX_ERROR && (end >= to || end <= prevEnd) {
			return to, false
		}
		prevEnd = end
	}
}

// scanSafe calls Scan, turning a tokenizer panic (it has a few on
// malformed input) into a lexing error.
func scanSafe(tk *sqlparser.Tokenizer) (typ int, val []byte) {
	defer func() {
		if r := recover(); r != nil {
			typ, val = sqlparser.LEX_ERROR, []byte("unexpected end of input")
		}
	}()
	return tk.Scan()
}

func isBlank(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }
