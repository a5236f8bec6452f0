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
	"github.com/xwb1989/sqlparser"
)

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
// tokens (so that splitting never looks inside them); a lexing error ends
// the list with a LEX_ERROR token.
func lex(src string) []token {
	tk := sqlparser.NewStringTokenizer(src)
	tk.AllowComments = true
	var out []token
	prevEnd := 0
	for {
		typ, val := scanSafe(tk)
		end := tk.Position - 1
		if end > len(src) {
			end = len(src)
		}
		if end < prevEnd {
			end = prevEnd
		}
		start := prevEnd
		for start < end && isBlank(src[start]) {
			start++
		}
		if typ == 0 {
			return out
		}
		out = append(out, token{typ: typ, val: append([]byte(nil), val...), start: start, end: end})
		if typ == sqlparser.LEX_ERROR {
			return out
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
